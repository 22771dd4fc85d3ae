//! Species that flee from, chase or follow others ([`Relation::Flee`],
//! [`Relation::Chase`], [`Relation::Follow`]), and predators eating on contact.
//!
//! Chasers search the step's main grid (any radius). A few threats fled by many
//! boids push their flee into those boids (scatter); otherwise, and for leaders,
//! the fled or followed species gets an index of its own each step: its boids in a
//! grid built with the largest radius anyone looks at it with. Either way a school
//! fleeing a few sharks costs a few distance checks per fish.

use crate::behaviours::seek;
use crate::boids::{BoidId, Boids};
use crate::grid::{Extent, Grid, Nearby};
use crate::params::{Relation, Relations, SpeciesParams, Steering, WorldConfig};
use crate::step::kernel::SortedSoa;
use crate::vector::Vector;
use crate::vector::min_image;
use serde::{Deserialize, Serialize};

/// Something that happened during a step, in a deterministic order.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", bound = "")]
pub enum Event<V: Vector> {
    /// A chaser ate a boid (which was removed from the world).
    Eaten {
        /// Index of the step in which it happened.
        step: u64,
        /// The chaser's id.
        predator: BoidId,
        /// The eaten boid's id.
        prey: BoidId,
        /// Where the prey was, units.
        position: V,
    },
    /// A boid entered a zone.
    ZoneEntered {
        /// Index of the step in which it happened.
        step: u64,
        /// The zone's index.
        zone: usize,
        /// The boid.
        boid: BoidId,
    },
    /// A boid left a zone (or was eaten inside it).
    ZoneExited {
        /// Index of the step in which it happened.
        step: u64,
        /// The zone's index.
        zone: usize,
        /// The boid.
        boid: BoidId,
    },
    /// A zone's count crossed its threshold.
    ZoneThreshold {
        /// Index of the step in which it happened.
        step: u64,
        /// The zone's index.
        zone: usize,
        /// The count after the step.
        count: usize,
        /// True when the count rose to the threshold, false when it fell below.
        rising: bool,
    },
}

/// The boids of one target species, for radius queries.
#[derive(Clone, Debug, Default)]
struct TargetIndex<V> {
    positions: Vec<V>,
    velocities: Vec<V>,
    ids: Vec<BoidId>,
    /// Cells as wide as the largest radius anyone looks at this species with.
    grid: Grid,
    /// Per cell of `grid`: some target lies in it or a neighbouring cell. A query
    /// from a cell without any is empty and skipped. Empty (every query runs) when
    /// the queriers are fewer than the targets: then marking costs more than it saves.
    near: Vec<bool>,
}

impl<V: Vector> TargetIndex<V> {
    /// Marks every cell within one cell of an occupied one (wrapping when periodic).
    fn build_near(&mut self) {
        let g = &self.grid;
        let dims = g.dims();
        let periodic = g.period::<V>().is_some();
        self.near.clear();
        self.near.resize(g.cell_count(), false);
        let reach = |x: u32, n: u32| -> [Option<u32>; 3] {
            let prev = if x > 0 {
                Some(x - 1)
            } else if periodic {
                Some(n - 1)
            } else {
                None
            };
            let next = if x + 1 < n {
                Some(x + 1)
            } else if periodic {
                Some(0)
            } else {
                None
            };
            [prev, Some(x), next]
        };
        for &p in &self.positions {
            let c = g.coords_of(p);
            let zs = if V::DIM == 3 {
                reach(c[2], dims[2])
            } else {
                [None, Some(0), None]
            };
            for z in zs.into_iter().flatten() {
                for y in reach(c[1], dims[1]).into_iter().flatten() {
                    for x in reach(c[0], dims[0]).into_iter().flatten() {
                        self.near[g.cell_index([x, y, z])] = true;
                    }
                }
            }
        }
    }

    /// False when no target can be within the grid radius of `p`.
    #[inline]
    fn may_reach(&self, p: V) -> bool {
        self.near.is_empty() || self.near[self.grid.cell_index(self.grid.coords_of(p))]
    }
}

/// Index caches kept for the fled and followed species (slot: the species
/// index modulo this).
const NEAR_SLOTS: usize = 4;

/// A walk's caches of the fled and followed species' indices ([`Nearby`]):
/// consecutive boids in one cell ask the same index without walking its
/// cells again. Used within one step only.
pub(crate) type Near<V> = [Nearby<V>; NEAR_SLOTS];

/// One boid as its interactions see it.
pub(crate) struct Seeker<V> {
    /// Species index.
    pub species: usize,
    /// Index in the step's sorted (cell) order.
    pub sorted_index: usize,
    /// Boid id (a boid never reacts to itself).
    pub id: BoidId,
    /// Position, units.
    pub pos: V,
    /// Velocity, units/s.
    pub vel: V,
}

/// What every boid's interactions read: the species, their relations and the
/// step's sorted state.
#[derive(Clone, Copy)]
pub(crate) struct Tables<'a> {
    /// Species parameters.
    pub species: &'a [SpeciesParams],
    /// Relations between species.
    pub relations: &'a Relations,
    /// The step's sorted state and grid.
    pub view: &'a Sorted<'a>,
}

/// The step's boids in cell order (the pipeline's grid and sorted copy), for
/// queries of any radius.
pub(crate) struct Sorted<'a> {
    /// The grid the boids were sorted by.
    pub grid: &'a Grid,
    /// Positions, velocities and species in cell order.
    pub data: &'a SortedSoa,
    /// Ids in cell order.
    pub ids: &'a [BoidId],
}

impl Sorted<'_> {
    /// How many boids of species `b` other than `exclude` lie strictly within
    /// `r` of `q` ([`Sorted::within`]'s test), counting stopped once the count
    /// reaches `limit` (then `limit` is returned). The columns are read sixteen
    /// boids at a time in loops the compiler turns into SIMD, and the limit is
    /// checked between blocks.
    #[inline]
    fn count_within<V: Vector>(&self, q: V, r: f32, exclude: usize, b: u16, limit: u32) -> u32 {
        const BLOCK: usize = 16;
        let period = self.grid.period::<V>().unwrap_or(V::ZERO);
        let r2 = r * r;
        let species = &self.data.species;
        let pos = &self.data.pos;
        let mut c = 0u32;
        self.grid.for_each_range_near(q, r, |range, shift, wrap| {
            if c >= limit {
                return;
            }
            let origin = q - shift;
            if wrap {
                for j in range {
                    let d = min_image(self.data.position::<V>(j) - origin, period);
                    c += (j != exclude && species[j] == b && d.length_squared() < r2) as u32;
                }
                return;
            }
            let (s, e) = (range.start, range.end);
            let o = [origin.get(0), origin.get(1), origin.get(2.min(V::DIM - 1))];
            let skip = exclude.wrapping_sub(s);
            // Non-short-circuit tests over fixed-size blocks: no branch, no
            // bounds check in the lanes. The last block reads past the run
            // (the columns keep PAD entries past the flock) and masks it off.
            let len = e - s;
            let mut k = 0;
            while k < len && c < limit {
                let at = s + k;
                let xs: &[f32; BLOCK] = pos[0][at..at + BLOCK].try_into().unwrap();
                let ys: &[f32; BLOCK] = pos[1][at..at + BLOCK].try_into().unwrap();
                let sp: &[u16; BLOCK] = species[at..at + BLOCK].try_into().unwrap();
                let take = |l: usize, d2: f32| {
                    (k + l < len) as u32
                        & (k + l != skip) as u32
                        & (sp[l] == b) as u32
                        & (d2 < r2) as u32
                };
                let mut n = 0u32;
                if V::DIM == 2 {
                    for l in 0..BLOCK {
                        let (dx, dy) = (xs[l] - o[0], ys[l] - o[1]);
                        n += take(l, dx * dx + dy * dy);
                    }
                } else {
                    let zs: &[f32; BLOCK] = pos[2][at..at + BLOCK].try_into().unwrap();
                    for l in 0..BLOCK {
                        let (dx, dy, dz) = (xs[l] - o[0], ys[l] - o[1], zs[l] - o[2]);
                        n += take(l, dx * dx + dy * dy + dz * dz);
                    }
                }
                c += n;
                k += BLOCK;
            }
        });
        c.min(limit)
    }

    /// Calls `f(j, d)` for every sorted index `j` other than `exclude` strictly
    /// within `r` of `q`, with `d` the offset from `q` (nearest periodic image).
    #[inline]
    fn within<V: Vector>(&self, q: V, r: f32, exclude: usize, mut f: impl FnMut(usize, V)) {
        let period = self.grid.period::<V>().unwrap_or(V::ZERO);
        self.grid.for_each_range_near(q, r, |range, shift, wrap| {
            let origin = q - shift;
            for j in range {
                let mut d = self.data.position::<V>(j) - origin;
                if wrap {
                    d = min_image(d, period);
                }
                if j != exclude && d.length_squared() < r * r {
                    f(j, d);
                }
            }
        });
    }
}

/// Per-step indexes and accumulators for flee, chase and follow (scratch, reused).
#[derive(Clone, Debug, Default)]
pub(crate) struct Interactions<V> {
    /// Indexed by species; `None` when no species follows it or flees it by index.
    targets: Vec<Option<TargetIndex<V>>>,
    /// Per querying species: the indexed species it reacts to, and how.
    plan: Vec<Vec<(usize, Relation)>>,
    /// Per querying species: it searches (chase, follow, or flee by index).
    search: Vec<bool>,
    /// Per species: its boids are few against those fleeing them, so they push
    /// their flee away into the fleeing boids ([`Interactions::scatter_flee`]).
    scatter: Vec<bool>,
    /// Per sorted index: the summed away direction from scattering threats, and
    /// whether any was in range.
    away: Vec<V>,
    seen: Vec<bool>,
}

/// True when some relation is flee, chase or follow.
pub(crate) fn any(relations: &Relations) -> bool {
    relations.table.iter().any(|r| r.indexes_target())
}

/// Threats scatter when at least this many boids flee each of them.
const SCATTER_RATIO: usize = 16;

impl<V: Vector> Interactions<V> {
    /// Plans the step and indexes every species followed or fled from by index,
    /// from `boids` (the state before the step).
    pub fn build(
        &mut self,
        boids: &Boids<V>,
        cfg: &WorldConfig<V>,
        species: &[SpeciesParams],
        relations: &Relations,
    ) {
        let count = species.len();
        let mut per_species = vec![0usize; count];
        for &s in &boids.species {
            per_species[s as usize] += 1;
        }
        let queriers = |b: usize, r: Relation| -> usize {
            (0..count)
                .filter(|&a| relations.get(a, b) == r)
                .map(|a| per_species[a])
                .sum()
        };
        self.scatter = (0..count)
            .map(|b| {
                let fleeing = queriers(b, Relation::Flee);
                fleeing > 0 && per_species[b] * SCATTER_RATIO <= fleeing
            })
            .collect();
        self.targets.resize_with(count, || None);
        for b in 0..count {
            // The largest radius anyone looks at species b with, by index.
            let mut radius = 0.0f32;
            for (a, sp) in species.iter().enumerate() {
                match relations.get(a, b) {
                    Relation::Flee if !self.scatter[b] => radius = radius.max(sp.flee_radius),
                    Relation::Follow => radius = radius.max(sp.follow_radius),
                    _ => {}
                }
            }
            if radius == 0.0 {
                self.targets[b] = None;
                continue;
            }
            let t = self.targets[b].get_or_insert_with(TargetIndex::default);
            t.positions.clear();
            t.velocities.clear();
            t.ids.clear();
            for i in 0..boids.len() {
                if boids.species[i] as usize == b {
                    t.positions.push(boids.positions[i]);
                    t.velocities.push(boids.velocities[i]);
                    t.ids.push(boids.ids[i]);
                }
            }
            t.grid.build(&t.positions, radius, Extent::of(cfg));
            let q = queriers(b, Relation::Flee) + queriers(b, Relation::Follow);
            if q >= t.positions.len() {
                t.build_near();
            } else {
                t.near.clear();
            }
        }
        self.plan.resize_with(count, Vec::new);
        for (a, plan) in self.plan.iter_mut().enumerate() {
            plan.clear();
            plan.extend((0..count).filter_map(|b| {
                let r = relations.get(a, b);
                let by_index =
                    matches!(r, Relation::Flee | Relation::Follow) && self.targets[b].is_some();
                (by_index || r == Relation::Chase || (r == Relation::Flee && self.scatter[b]))
                    .then_some((b, r))
            }));
        }
        self.search = self
            .plan
            .iter()
            .map(|p| {
                p.iter()
                    .any(|&(b, r)| !(r == Relation::Flee && self.scatter[b]))
            })
            .collect();
    }

    /// True when no species flees, chases or follows another.
    pub fn is_empty(&self) -> bool {
        self.plan.iter().all(Vec::is_empty)
    }

    /// True when boids of species `a` search for others ([`Interactions::forces`]);
    /// flee from scattering threats needs no search.
    #[inline]
    pub fn searches(&self, a: usize) -> bool {
        self.search[a]
    }

    /// The away direction scattered into sorted index `si`, and whether any threat
    /// was in reach.
    #[inline]
    pub fn scattered(&self, si: usize) -> (V, bool) {
        if self.seen.is_empty() {
            (V::ZERO, false)
        } else {
            (self.away[si], self.seen[si])
        }
    }

    /// Few threats, many fleeing: each threat (in cell order) adds its push to the
    /// fleeing boids in its reach, instead of every fleeing boid searching for
    /// threats. Call after the pipeline's gather, before the pass.
    pub fn scatter_flee(
        &mut self,
        view: &Sorted<'_>,
        species: &[SpeciesParams],
        relations: &Relations,
    ) {
        let n = view.ids.len();
        self.away.clear();
        self.seen.clear();
        if !self.scatter.iter().any(|&s| s) {
            return;
        }
        self.away.resize(n, V::ZERO);
        self.seen.resize(n, false);
        let count = species.len();
        let reach: Vec<f32> = (0..count)
            .map(|b| {
                (0..count)
                    .filter(|&a| relations.get(a, b) == Relation::Flee)
                    .map(|a| species[a].flee_radius)
                    .fold(0.0f32, f32::max)
            })
            .collect();
        for j in 0..n {
            let b = view.data.species[j] as usize;
            if !self.scatter[b] {
                continue;
            }
            let q = view.data.position::<V>(j);
            let (away, seen) = (&mut self.away, &mut self.seen);
            view.within(q, reach[b], j, |i, d| {
                let a = view.data.species[i] as usize;
                let r = species[a].flee_radius;
                // d points from the threat to the fleeing boid: away from it.
                if relations.get(a, b) == Relation::Flee && d.length_squared() < r * r {
                    away[i] += d * (1.0 / d.length_squared().max(1e-12));
                    seen[i] = true;
                }
            });
        }
    }

    /// The chase-or-follow acceleration (weighted) of boid `me`; adds the threats
    /// found by search to `away` (setting `seen`).
    ///
    /// Flee steers along the sum over threats in reach of `-d / |d|²` (closer ones
    /// weigh more), scattered or searched. Chase pursues the single best target among every species it
    /// chases: the nearest, with distance scaled up by the target's flockmates
    /// when stragglers are preferred; ties go to the lower id.
    ///
    /// A follower steering by [`Steering::Directions`] adds to `heading`
    /// instead, which joins the rules' one desired direction (as seed 002's
    /// `targetHeading` does): the leader's heading, plus the direction to the
    /// leader weighted from 0 at half the follow radius to 1 at the radius. A
    /// shared heading moves a crowd of followers without packing it onto the
    /// leader, which a pull toward one point does.
    pub fn forces(
        &self,
        me: &Seeker<V>,
        tables: &Tables<'_>,
        away: &mut V,
        seen: &mut bool,
        heading: &mut V,
        near: &mut Near<V>,
    ) -> V {
        let (a, id, p, v) = (me.species, me.id, me.pos, me.vel);
        let sp = &tables.species[a];
        let mut chase = V::ZERO;
        let mut chases = false;
        for &(b, relation) in &self.plan[a] {
            match relation {
                Relation::Chase => chases = true,
                Relation::Flee if self.scatter[b] => {}
                Relation::Flee => {
                    let Some(t) = &self.targets[b] else { continue };
                    if !t.may_reach(p) {
                        continue;
                    }
                    let cache = &mut near[b % NEAR_SLOTS];
                    t.grid.for_each_within_cached(
                        cache,
                        b,
                        &t.positions,
                        p,
                        sp.flee_radius,
                        |k, d| {
                            if t.ids[k] != id {
                                *away -= d * (1.0 / d.length_squared().max(1e-12));
                                *seen = true;
                            }
                        },
                    );
                }
                Relation::Follow => {
                    let Some(t) = &self.targets[b] else { continue };
                    if !t.may_reach(p) {
                        continue;
                    }
                    // The nearest leader in sight (ties to the lower id).
                    let mut best: Option<(f32, usize, V)> = None;
                    let cache = &mut near[b % NEAR_SLOTS];
                    t.grid.for_each_within_cached(
                        cache,
                        b,
                        &t.positions,
                        p,
                        sp.follow_radius,
                        |k, d| {
                            let d2 = d.length_squared();
                            if t.ids[k] != id
                                && best.is_none_or(|(b2, j, _)| {
                                    d2 < b2 || (d2 == b2 && t.ids[k] < t.ids[j])
                                })
                            {
                                best = Some((d2, k, d));
                            }
                        },
                    );
                    if let Some((_, k, d)) = best {
                        if sp.steering == Steering::Directions {
                            // Match the leader's heading; farther than half the
                            // radius, turn toward it too (fully at the radius).
                            // A heading shared by the crowd moves it without
                            // packing it onto the leader.
                            let r0 = 0.5 * sp.follow_radius;
                            let pull = ((d.length() - r0) / r0).clamp(0.0, 1.0);
                            *heading += (t.velocities[k].normalize_or_zero()
                                + d.normalize_or_zero() * pull)
                                * sp.follow_weight;
                        } else {
                            chase += seek(d, v, sp) * sp.follow_weight;
                        }
                    }
                }
                _ => {}
            }
        }
        if chases {
            chase += self.chase(me, tables);
        }
        chase
    }

    /// Pursuit of the best target in chase range (see [`Interactions::forces`]).
    fn chase(&self, me: &Seeker<V>, tables: &Tables<'_>) -> V {
        let (a, si, v) = (me.species, me.sorted_index, me.vel);
        let Tables {
            species,
            relations,
            view,
        } = *tables;
        let sp = &species[a];
        let p = view.data.position::<V>(si);
        // A chaser with a vision cone sees prey only inside it (`d` points from
        // the chaser to the prey).
        let heading = v.normalize_or_zero();
        let cone = (sp.has_vision_cone() && heading != V::ZERO).then(|| sp.cos_half_fov());
        let seen = |j: usize, d: V| {
            relations.get(a, view.data.species[j] as usize) == Relation::Chase
                && cone.is_none_or(|c| d.dot(heading) >= c * d.length())
        };
        // Flockmates of target j within its own perception radius, counted
        // until `enough(count)` holds: then `None`, the count having decided
        // (`enough` only ever turns true as the count grows, so the full count
        // would satisfy it too). Counting a dense school's every fish for each
        // candidate made a straggler-preferring shark cost 18 ms of a 28 ms step
        // among 50,000 fish (bench --scene sharks-and-schools).
        let crowd_until = |j: usize, enough: &dyn Fn(f32) -> bool| -> Option<f32> {
            let b = view.data.species[j];
            let r = species[b as usize].perception_radius();
            // At least 1: a crowd of none is never decided (it never counts).
            let limit = least_count(enough).max(1);
            let c = view.count_within(view.data.position::<V>(j), r, j, b, limit);
            (c < limit).then_some(c as f32)
        };
        let crowd = |j: usize| crowd_until(j, &|_| false).unwrap_or(f32::INFINITY);
        // Safety in numbers: a target in a crowd of `confusion` or more is no target.
        let confusion = sp.confusion;
        let confused = |c: f32| confusion > 0.0 && c >= confusion;
        let is_target = |j: usize, d: V| {
            seen(j, d) && (confusion <= 0.0 || crowd_until(j, &confused).is_some())
        };
        let ids = view.ids;
        let beats = |best: &Option<(f32, usize, V)>, score: f32, j: usize| {
            best.is_none_or(|(s, k, _)| score < s || (score == s && ids[j] < ids[k]))
        };
        // Pass 1: the nearest target bounds every score worth computing (a score
        // is at least the distance).
        let mut best: Option<(f32, usize, V)> = None;
        view.within(p, sp.chase_radius, si, |j, d| {
            if beats(&best, d.length(), j) && is_target(j, d) {
                best = Some((d.length(), j, d));
            }
        });
        let pref = sp.straggler_preference;
        if pref > 0.0
            && let Some((dist, j, d)) = best
        {
            // Pass 2: straggler scores, only for targets nearer than the best so far.
            best = Some((dist * (1.0 + pref * crowd(j)), j, d));
            view.within(p, sp.chase_radius, si, |j, d| {
                let dist = d.length();
                if best.is_some_and(|(s, _, _)| dist > s) || !seen(j, d) {
                    return;
                }
                // Counting stops once the target is confused or its score,
                // which only grows with the count, is past the best so far.
                let s = best.map_or(f32::INFINITY, |(s, _, _)| s);
                let out = |c: f32| confused(c) || dist * (1.0 + pref * c) > s;
                let Some(c) = crowd_until(j, &out) else {
                    return;
                };
                let score = dist * (1.0 + pref * c);
                if beats(&best, score, j) {
                    best = Some((score, j, d));
                }
            });
        }
        let Some((_, j, d)) = best else {
            return V::ZERO;
        };
        // Pursuit: aim where the target will be when we get there.
        let lead = d.length() / sp.max_speed.max(1e-6);
        seek(d + view.data.velocity::<V>(j) * lead.min(2.0), v, sp) * sp.chase_weight
    }
}

/// The least count `c` for which `enough(c)` holds (`enough` only ever turns
/// true as a count grows), or `u32::MAX` when none up to 2^24 does: counting can
/// stop there, having decided.
fn least_count(enough: &dyn Fn(f32) -> bool) -> u32 {
    const TOP: u32 = 1 << 24;
    if enough(0.0) {
        return 0;
    }
    let mut hi = 1u32;
    while hi < TOP && !enough(hi as f32) {
        hi *= 2;
    }
    if !enough(hi as f32) {
        return u32::MAX;
    }
    // enough(lo) is false, enough(hi) true.
    let mut lo = hi / 2;
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if enough(mid as f32) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

/// Chasers with an eat radius eat the nearest target in reach after the step's
/// move: chasers in ascending id order, each at most one target per step, each
/// target eaten once. Appends the events and returns, per slot, whether it was
/// eaten (empty when there are no chasers with an eat radius).
///
/// `boids` must be in the cell order of `grid` (as [`crate::Pipeline::step`]
/// leaves them), built on the positions before the move. When the eat radius
/// plus twice the step's travel fits in a cell, that grid finds every
/// candidate; otherwise a grid of the new positions is built.
pub(crate) fn eat<V: Vector>(
    boids: &Boids<V>,
    grid: &Grid,
    cfg: &WorldConfig<V>,
    species: &[SpeciesParams],
    relations: &Relations,
    step: u64,
    events: &mut Vec<Event<V>>,
) -> Vec<bool> {
    let n = boids.len();
    let count = species.len();
    let eats: Vec<bool> = (0..count)
        .map(|a| {
            species[a].eat_radius > 0.0
                && (0..count).any(|b| relations.get(a, b) == Relation::Chase)
        })
        .collect();
    if !eats.iter().any(|&e| e) {
        return Vec::new();
    }
    let mut chasers: Vec<usize> = (0..n)
        .filter(|&i| eats[boids.species[i] as usize])
        .collect();
    if chasers.is_empty() {
        return Vec::new(); // nothing eaten, nothing allocated
    }
    chasers.sort_unstable_by_key(|&i| boids.ids[i]);
    let radius = chasers
        .iter()
        .map(|&i| species[boids.species[i] as usize].eat_radius)
        .fold(0.0f32, f32::max);
    let travel = species
        .iter()
        .map(|s| s.max_speed * cfg.dt)
        .fold(0.0f32, f32::max);
    // The main grid: storage index = sorted index; a chaser's cell is the one it
    // was sorted into before the move.
    let reuse = grid.keys().len() == n && radius + 2.5 * travel < grid.min_cell_width();
    let own = (!reuse).then(|| {
        let mut fresh = Grid::new();
        fresh.build(&boids.positions, radius, Extent::of(cfg));
        fresh
    });
    let g = own.as_ref().unwrap_or(grid);
    // A storage slot's cell, and a sorted index's storage slot.
    let cell_of = |i: usize| {
        if reuse {
            g.keys()[g.order()[i] as usize]
        } else {
            g.keys()[i]
        }
    };
    let slot_of = |j: u32| {
        if reuse {
            j as usize
        } else {
            g.order()[j as usize] as usize
        }
    };
    let period = g.period::<V>();
    let mut eaten = vec![false; n];
    let mut runs = g.runs::<V>([0; 3]);
    let mut crowds = Crowds::default();
    for &c in &chasers {
        if eaten[c] {
            continue; // eaten by an earlier chaser
        }
        let a = boids.species[c] as usize;
        let r2 = species[a].eat_radius * species[a].eat_radius;
        let pc = boids.positions[c];
        let mut best: Option<(f32, usize)> = None;
        let confusion = species[a].confusion;
        g.runs_into::<V>(g.cell_coords(cell_of(c) as usize), &mut runs);
        for run in runs.as_slice() {
            for j in run.start..run.end {
                let j = slot_of(j);
                if j == c
                    || eaten[j]
                    || relations.get(a, boids.species[j] as usize) != Relation::Chase
                {
                    continue;
                }
                let mut d = boids.positions[j] - pc;
                if let Some(l) = period {
                    d = crate::vector::min_image(d, l);
                }
                let d2 = d.length_squared();
                if d2 < r2
                    && best
                        .is_none_or(|(b2, k)| d2 < b2 || (d2 == b2 && boids.ids[j] < boids.ids[k]))
                    && (confusion <= 0.0 || crowds.of(j, boids, cfg, species) < confusion)
                {
                    best = Some((d2, j));
                }
            }
        }
        if let Some((_, j)) = best {
            eaten[j] = true;
            events.push(Event::Eaten {
                step,
                predator: boids.ids[c],
                prey: boids.ids[j],
                position: boids.positions[j],
            });
        }
    }
    eaten
}

/// Flockmates of a target within its own perception radius after the move, for
/// chasers confused by crowds: a grid of the new positions, built on first use.
#[derive(Default)]
struct Crowds {
    grid: Option<Grid>,
}

impl Crowds {
    fn of<V: Vector>(
        &mut self,
        j: usize,
        boids: &Boids<V>,
        cfg: &WorldConfig<V>,
        species: &[SpeciesParams],
    ) -> f32 {
        let grid = self.grid.get_or_insert_with(|| {
            let r = species
                .iter()
                .map(SpeciesParams::perception_radius)
                .fold(0.0f32, f32::max);
            let mut g = Grid::new();
            g.build(&boids.positions, r, Extent::of(cfg));
            g
        });
        let b = boids.species[j];
        let mut c = 0u32;
        grid.for_each_within(
            &boids.positions,
            boids.positions[j],
            species[b as usize].perception_radius(),
            Some(j),
            |k, _| c += (boids.species[k] == b) as u32,
        );
        c as f32
    }
}

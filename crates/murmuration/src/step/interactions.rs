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

mod follow;

pub(crate) use follow::add_lead;

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

    /// False when no target can be within the grid radius of a point in cell
    /// `c` of `grid`.
    #[inline]
    fn may_reach(&self, c: [u32; 3]) -> bool {
        self.near.is_empty() || self.near[self.grid.cell_index(c)]
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
    /// What its one leader adds (a heading by directions, else a seek force),
    /// found for its group ([`Interactions::follow_lanes`]): `Some(None)` when
    /// no leader is in sight; `None` when `forces` must look itself.
    pub led: Option<Option<V>>,
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
    /// checked between blocks. Where no periodic axis wraps onto itself, the
    /// cell of `q` is counted first: in a school it often decides alone,
    /// before the walk over its neighbours is set up.
    #[inline]
    fn count_within<V: Vector>(&self, q: V, r: f32, exclude: usize, b: u16, limit: u32) -> u32 {
        let period = self.grid.period::<V>().unwrap_or(V::ZERO);
        let r2 = r * r;
        let species = &self.data.species;
        let mut c = 0u32;
        // Where no axis wraps onto itself, the walk visits q's cell once,
        // unshifted: count it first, then skip it.
        let own = self
            .grid
            .ring_reach(r)
            .map(|_| {
                let g = self.grid;
                g.cell_range(g.cell_index(g.coords_of(q)))
            })
            .filter(|own| !own.is_empty());
        if let Some(own) = &own {
            self.count_run(own.clone(), q, exclude, b, r2, limit, &mut c);
            if c >= limit {
                return limit;
            }
        }
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
            match &own {
                Some(o) if range.start <= o.start && o.end <= range.end => {
                    self.count_run(range.start..o.start, origin, exclude, b, r2, limit, &mut c);
                    self.count_run(o.end..range.end, origin, exclude, b, r2, limit, &mut c);
                }
                _ => self.count_run(range, origin, exclude, b, r2, limit, &mut c),
            }
        });
        c.min(limit)
    }

    /// Adds to `c` the boids of species `b` other than `exclude` in the sorted
    /// run `range` strictly within `sqrt(r2)` of `origin`, sixteen at a time,
    /// stopping between blocks once `c` reaches `limit`.
    #[allow(
        clippy::too_many_arguments,
        reason = "a run, where to measure from and the count's state"
    )]
    #[inline(always)]
    fn count_run<V: Vector>(
        &self,
        range: std::ops::Range<usize>,
        origin: V,
        exclude: usize,
        b: u16,
        r2: f32,
        limit: u32,
        c: &mut u32,
    ) {
        const BLOCK: usize = 16;
        let species = &self.data.species;
        let pos = &self.data.pos;
        let (s, e) = (range.start, range.end);
        let o = [origin.get(0), origin.get(1), origin.get(2.min(V::DIM - 1))];
        let skip = exclude.wrapping_sub(s);
        // Non-short-circuit tests over fixed-size blocks: no branch, no
        // bounds check in the lanes. The last block reads past the run
        // (the columns keep PAD entries past the flock) and masks it off.
        let len = e.saturating_sub(s);
        let mut k = 0;
        while k < len && *c < limit {
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
            *c += n;
            k += BLOCK;
        }
    }

    /// [`Sorted::within`] for a search that rejects every boid farther than a
    /// bound it tightens as it goes: `f(j, d)` returns the bound (a distance,
    /// units; `bound` at first) and is called only for boids that may be as
    /// near (`|d|² ≤ bound²`, with a margin for rounding); the others, which
    /// `f` would reject without a change, are measured sixteen at a time and
    /// skipped. Cells are visited ring by ring around `q`, nearest first, and
    /// the walk stops at the first ring wholly beyond the bound; where a
    /// periodic axis is too short for rings, in `within`'s order. So `f`
    /// must choose the same boid from any order (a minimum by a score no
    /// smaller than the distance, ties by id); it sees `within`'s offsets.
    #[inline]
    fn within_bounded<V: Vector>(
        &self,
        q: V,
        r: f32,
        exclude: usize,
        mut bound: f32,
        mut f: impl FnMut(usize, V) -> f32,
    ) {
        let grid = self.grid;
        let Some(reach) = grid.ring_reach(r) else {
            let period = grid.period::<V>().unwrap_or(V::ZERO);
            // Rings fail exactly where this walk wraps (the same test), so
            // every run measures the nearest image.
            grid.for_each_range_near(q, r, |range, shift, wrap| {
                debug_assert!(wrap, "a walk without rings wraps");
                let origin = q - shift;
                for j in range {
                    let d = min_image(self.data.position::<V>(j) - origin, period);
                    let d2 = d.length_squared();
                    if j != exclude && d2 < r * r && d2 <= bound_squared(bound) {
                        bound = f(j, d);
                    }
                }
            });
            return;
        };
        let c = grid.coords_of(q);
        for k in 0..=reach.last {
            if reach.floor(k) > bound {
                break;
            }
            grid.for_each_range_in_ring(c, k, &reach, |range, shift: V| {
                self.scan_bounded(range, q - shift, r, exclude, &mut bound, &mut f);
            });
        }
    }

    /// The boids of one unwrapped run for [`Sorted::within_bounded`]: offsets
    /// from `origin`, sixteen at a time, `f` called in order for those within
    /// `r` and the bound as it stands.
    #[inline(always)]
    fn scan_bounded<V: Vector>(
        &self,
        range: std::ops::Range<usize>,
        origin: V,
        r: f32,
        exclude: usize,
        bound: &mut f32,
        f: &mut impl FnMut(usize, V) -> f32,
    ) {
        const BLOCK: usize = 16;
        let r2 = r * r;
        let pos = &self.data.pos;
        let (s, e) = (range.start, range.end);
        let o = [origin.get(0), origin.get(1), origin.get(2.min(V::DIM - 1))];
        let skip = exclude.wrapping_sub(s);
        let len = e - s;
        let mut k = 0;
        while k < len {
            let at = s + k;
            // The columns keep PAD entries past the flock: the last block
            // reads past the run and masks it off.
            let xs: &[f32; BLOCK] = pos[0][at..at + BLOCK].try_into().unwrap();
            let ys: &[f32; BLOCK] = pos[1][at..at + BLOCK].try_into().unwrap();
            let b2 = bound_squared(*bound);
            let keep = |l: usize, d2: f32| {
                (((k + l < len) & (k + l != skip) & (d2 < r2) & (d2 <= b2)) as u32) << l
            };
            let mut mask = 0u32;
            if V::DIM == 2 {
                for l in 0..BLOCK {
                    let (dx, dy) = (xs[l] - o[0], ys[l] - o[1]);
                    mask |= keep(l, dx * dx + dy * dy);
                }
            } else {
                let zs: &[f32; BLOCK] = pos[2][at..at + BLOCK].try_into().unwrap();
                for l in 0..BLOCK {
                    let (dx, dy, dz) = (xs[l] - o[0], ys[l] - o[1], zs[l] - o[2]);
                    mask |= keep(l, dx * dx + dy * dy + dz * dz);
                }
            }
            while mask != 0 {
                let j = at + mask.trailing_zeros() as usize;
                mask &= mask - 1;
                // Measured again as `within` does (the same bits), against the
                // bound as it stands now.
                let d = self.data.position::<V>(j) - origin;
                let d2 = d.length_squared();
                if d2 < r2 && d2 <= bound_squared(*bound) {
                    *bound = f(j, d);
                }
            }
            k += BLOCK;
        }
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
    /// Per querying species: the one species it follows by index, if it
    /// follows exactly one ([`Interactions::follow_lanes`]).
    follows: Vec<Option<usize>>,
    /// Per querying species: its one follow is all it searches for (flee
    /// from scattering threats needs no search), so a heading found in lanes
    /// is the whole of [`Interactions::forces`].
    follow_only: Vec<bool>,
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
        self.follows = self
            .plan
            .iter()
            .map(|p| {
                let mut follows = p.iter().filter(|&&(_, r)| r == Relation::Follow);
                match (follows.next(), follows.next()) {
                    (Some(&(b, _)), None) => Some(b),
                    _ => None,
                }
            })
            .collect();
        self.follow_only = self
            .plan
            .iter()
            .zip(&self.follows)
            .map(|(p, f)| {
                f.is_some()
                    && p.iter().all(|&(b, r)| {
                        r == Relation::Follow || (r == Relation::Flee && self.scatter[b])
                    })
            })
            .collect();
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

    /// True when species `a`'s one follow is all [`Interactions::forces`] does
    /// for it: what [`Interactions::follow_lanes`] found stands for the call
    /// (which adds a heading and returns zero, or returns zero plus a force).
    #[inline]
    pub fn follow_only(&self, a: usize) -> bool {
        self.follow_only[a]
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
    #[inline]
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
                    let c = t.grid.coords_of(p);
                    if !t.may_reach(c) {
                        continue;
                    }
                    let cache = &mut near[b % NEAR_SLOTS];
                    t.grid.for_each_within_cached(
                        cache,
                        b,
                        &t.positions,
                        p,
                        c,
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
                    if let Some(led) = me.led {
                        // Found for the group, in lanes (the plan's one follow).
                        add_lead(led, sp, heading, &mut chase);
                        continue;
                    }
                    let Some(t) = &self.targets[b] else { continue };
                    let c = t.grid.coords_of(p);
                    if !t.may_reach(c) {
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
                        c,
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
    /// Out of line: a few chasers call it, and inlined it weighed on every
    /// follower's and fleeing boid's call of `forces`.
    #[inline(never)]
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
        // `guess`: where the least deciding count likely is (any value gives
        // the same count; a good one saves tests of `enough`).
        let crowd_until = |j: usize, enough: &dyn Fn(f32) -> bool, guess: f32| -> Option<f32> {
            let b = view.data.species[j];
            let r = species[b as usize].perception_radius();
            // At least 1: a crowd of none is never decided (it never counts).
            let limit = least_count(enough, guess).max(1);
            let c = view.count_within(view.data.position::<V>(j), r, j, b, limit);
            (c < limit).then_some(c as f32)
        };
        let crowd = |j: usize| crowd_until(j, &|_| false, f32::INFINITY).unwrap_or(f32::INFINITY);
        // Safety in numbers: a target in a crowd of `confusion` or more is no target.
        let confusion = sp.confusion;
        let confused = |c: f32| confusion > 0.0 && c >= confusion;
        let is_target = |j: usize, d: V| {
            seen(j, d) && (confusion <= 0.0 || crowd_until(j, &confused, confusion).is_some())
        };
        let ids = view.ids;
        let beats = |best: &Option<(f32, usize, V)>, score: f32, j: usize| {
            best.is_none_or(|(s, k, _)| score < s || (score == s && ids[j] < ids[k]))
        };
        let bound = |best: &Option<(f32, usize, V)>| best.map_or(f32::INFINITY, |(s, _, _)| s);
        // Pass 1: the nearest target bounds every score worth computing (a score
        // is at least the distance). Only boids as near as the best so far can
        // beat it: the walk skips the others a block at a time.
        let mut best: Option<(f32, usize, V)> = None;
        view.within_bounded(p, sp.chase_radius, si, f32::INFINITY, |j, d| {
            if beats(&best, d.length(), j) && is_target(j, d) {
                best = Some((d.length(), j, d));
            }
            bound(&best)
        });
        let pref = sp.straggler_preference;
        if pref > 0.0
            && let Some((dist, j, d)) = best
        {
            // Pass 2: straggler scores, only for targets nearer than the best so far.
            best = Some((dist * (1.0 + pref * crowd(j)), j, d));
            // Targets farther than the best score are skipped unmeasured.
            view.within_bounded(p, sp.chase_radius, si, bound(&best), |j, d| {
                let (dist, s) = (d.length(), bound(&best));
                if dist > s || !seen(j, d) {
                    return s;
                }
                // Counting stops once the target is confused or its score,
                // which only grows with the count, is past the best so far.
                let out = |c: f32| confused(c) || dist * (1.0 + pref * c) > s;
                let mut guess = (s / dist - 1.0) / pref;
                if confusion > 0.0 {
                    guess = guess.min(confusion);
                }
                let Some(c) = crowd_until(j, &out, guess) else {
                    return s;
                };
                let score = dist * (1.0 + pref * c);
                if beats(&best, score, j) {
                    best = Some((score, j, d));
                }
                bound(&best)
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

/// The square of a distance bound with a margin: sqrt is correctly rounded,
/// so `|d| ≤ b` implies `|d|² ≤ b²(1 + 2^-20)` (infinite stays infinite).
#[inline(always)]
fn bound_squared(b: f32) -> f32 {
    b * b * (1.0 + 1.0 / (1u32 << 20) as f32)
}

/// The least count `c` for which `enough(c)` holds (`enough` only ever turns
/// true as a count grows), or `u32::MAX` when none up to 2^24 does: counting can
/// stop there, having decided. The search gallops out from `guess` (rounded
/// down; any value, NaN and infinities included, gives the same answer), so
/// a good guess costs a few tests of `enough`.
fn least_count(enough: &dyn Fn(f32) -> bool, guess: f32) -> u32 {
    const TOP: u32 = 1 << 24;
    if enough(0.0) {
        return 0;
    }
    // `as` saturates: NaN to 0, past TOP to TOP.
    let g = (guess as u32).clamp(1, TOP);
    // Bracket: enough(lo) false, enough(hi) true.
    let (mut lo, mut hi);
    if enough(g as f32) {
        hi = g;
        let mut step = 1;
        loop {
            lo = hi.saturating_sub(step);
            if lo == 0 || !enough(lo as f32) {
                break;
            }
            hi = lo;
            step *= 2;
        }
    } else {
        lo = g;
        let mut step = 1;
        loop {
            if lo >= TOP {
                return u32::MAX;
            }
            hi = lo.saturating_add(step).min(TOP);
            if enough(hi as f32) {
                break;
            }
            lo = hi;
            step *= 2;
        }
    }
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

#[cfg(test)]
mod tests {
    use super::least_count;

    /// The galloping search gives the least deciding count from any guess:
    /// thresholds near zero, mid-range and past 2^24 (none decides), guesses
    /// below, at and above them, NaN and the infinities.
    #[test]
    fn least_count_is_the_same_from_any_guess() {
        let top = 1u32 << 24;
        let thresholds = [
            0u32,
            1,
            2,
            3,
            7,
            8,
            9,
            100,
            1000,
            65_537,
            top - 1,
            top,
            top + 5,
        ];
        let guesses = [
            0.0,
            0.5,
            1.0,
            2.9,
            7.0,
            8.0,
            99.0,
            5000.0,
            1e7,
            3e7,
            -4.0,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
        ];
        for &t in &thresholds {
            let enough = move |c: f32| c >= t as f32;
            let want = if t <= top { t } else { u32::MAX };
            for &g in &guesses {
                assert_eq!(least_count(&enough, g), want, "threshold {t}, guess {g}");
            }
        }
    }
}

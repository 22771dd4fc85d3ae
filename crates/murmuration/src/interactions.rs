//! Species that flee from or chase others ([`Relation::Flee`], [`Relation::Chase`]),
//! and predators eating on contact.
//!
//! Each step, every species that some other species flees from or chases gets an
//! index of its own: its boids' positions and velocities in a grid built with the
//! largest radius anyone looks at it with. Fleeing and chasing query that index,
//! so a school fleeing a few sharks costs a few distance checks per fish.

use crate::boids::{BoidId, Boids};
use crate::grid::{Extent, Grid};
use crate::params::{Boundary, Relation, Relations, SpeciesParams, WorldConfig};
use crate::rules::seek;
use crate::vector::Vector;
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
    radius: f32,
    /// Cells as wide as the largest radius anyone looks at this species with.
    grid: Grid,
    /// Cells as wide as the species' own perception radius (crowding queries).
    fine: Grid,
    /// Per cell of `grid`: some target lies in it or a neighbouring cell. A query
    /// from a cell without any is empty and skipped.
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
        self.near[self.grid.cell_index(self.grid.coords_of(p))]
    }
}

/// Per-step indexes of fled-from and chased species (scratch, reused).
#[derive(Clone, Debug, Default)]
pub(crate) struct Interactions<V> {
    /// Indexed by species; `None` when nobody flees from or chases it.
    targets: Vec<Option<TargetIndex<V>>>,
}

fn extent<V: Vector>(cfg: &WorldConfig<V>) -> Extent<V> {
    match cfg.boundary {
        Boundary::Wrap => Extent::Periodic {
            min: cfg.min,
            max: cfg.max,
        },
        _ => Extent::Open,
    }
}

/// True when some relation is flee or chase.
pub(crate) fn any(relations: &Relations) -> bool {
    relations.table.iter().any(|r| r.indexes_target())
}

impl<V: Vector> Interactions<V> {
    /// Indexes every targeted species of `boids` (the state before the step).
    pub fn build(
        &mut self,
        boids: &Boids<V>,
        cfg: &WorldConfig<V>,
        species: &[SpeciesParams],
        relations: &Relations,
    ) {
        let count = species.len();
        self.targets.resize_with(count, || None);
        for b in 0..count {
            // The largest radius anyone looks at species b with.
            let mut radius = 0.0f32;
            for (a, sp) in species.iter().enumerate() {
                match relations.get(a, b) {
                    Relation::Flee => radius = radius.max(sp.flee_radius),
                    Relation::Follow => radius = radius.max(sp.follow_radius),
                    Relation::Chase => {
                        radius = radius
                            .max(sp.chase_radius)
                            .max(sp.eat_radius)
                            .max(species[b].perception_radius())
                    }
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
            t.radius = radius;
            t.grid.build(&t.positions, radius, extent(cfg));
            t.fine
                .build(&t.positions, species[b].perception_radius(), extent(cfg));
            t.build_near();
        }
    }

    /// True when no species is targeted.
    pub fn is_empty(&self) -> bool {
        self.targets.iter().all(Option::is_none)
    }

    /// The flee and the chase-or-follow accelerations (weighted) of a boid of
    /// species `a` at `p` with velocity `v` and id `id`.
    pub fn forces(
        &self,
        a: usize,
        id: BoidId,
        p: V,
        v: V,
        species: &[SpeciesParams],
        relations: &Relations,
    ) -> (V, V) {
        let sp = &species[a];
        let (mut flee, mut chase) = (V::ZERO, V::ZERO);
        for (b, t) in self.targets.iter().enumerate() {
            let Some(t) = t else { continue };
            if !t.may_reach(p) {
                continue;
            }
            match relations.get(a, b) {
                Relation::Flee => {
                    let mut away = V::ZERO;
                    let mut seen = false;
                    t.grid
                        .for_each_within(&t.positions, p, sp.flee_radius, None, |k, d| {
                            if t.ids[k] != id {
                                // Closer threats weigh more: 1/distance.
                                away -= d * (1.0 / d.length_squared().max(1e-12));
                                seen = true;
                            }
                        });
                    if seen {
                        flee += seek(away, v, sp) * sp.flee_weight;
                    }
                }
                Relation::Chase => {
                    let pref = sp.straggler_preference;
                    let crowd_r = species[b].perception_radius();
                    // Flockmates within the target's perception radius.
                    let crowd = |k: usize| {
                        let mut c = 0u32;
                        t.fine.for_each_within(
                            &t.positions,
                            t.positions[k],
                            crowd_r,
                            Some(k),
                            |_, _| c += 1,
                        );
                        c as f32
                    };
                    // Ties go to the lower id, whatever the visiting order.
                    let beats = |best: &Option<(f32, usize, V)>, score: f32, k: usize| {
                        best.is_none_or(|(s, j, _)| {
                            score < s || (score == s && t.ids[k] < t.ids[j])
                        })
                    };
                    // Pass 1: the nearest target (with its crowding, when stragglers
                    // are preferred) bounds every score worth computing.
                    let mut best: Option<(f32, usize, V)> = None;
                    t.grid
                        .for_each_within(&t.positions, p, sp.chase_radius, None, |k, d| {
                            if t.ids[k] != id && beats(&best, d.length(), k) {
                                best = Some((d.length(), k, d));
                            }
                        });
                    if pref > 0.0
                        && let Some((dist, k, d)) = best
                    {
                        // Pass 2: a score is at least the distance, so only targets
                        // nearer than the best score so far can win.
                        best = Some((dist * (1.0 + pref * crowd(k)), k, d));
                        t.grid
                            .for_each_within(&t.positions, p, sp.chase_radius, None, |k, d| {
                                let dist = d.length();
                                if t.ids[k] == id || best.is_some_and(|(s, _, _)| dist > s) {
                                    return;
                                }
                                let score = dist * (1.0 + pref * crowd(k));
                                if beats(&best, score, k) {
                                    best = Some((score, k, d));
                                }
                            });
                    }
                    if let Some((_, k, d)) = best {
                        // Pursuit: aim where the target will be when we get there.
                        let lead = d.length() / sp.max_speed.max(1e-6);
                        chase += seek(d + t.velocities[k] * lead.min(2.0), v, sp) * sp.chase_weight;
                    }
                }
                Relation::Follow => {
                    // The nearest leader in sight (ties to the lower id).
                    let mut best: Option<(f32, usize, V)> = None;
                    t.grid
                        .for_each_within(&t.positions, p, sp.follow_radius, None, |k, d| {
                            let d2 = d.length_squared();
                            if t.ids[k] != id
                                && best.is_none_or(|(b2, j, _)| {
                                    d2 < b2 || (d2 == b2 && t.ids[k] < t.ids[j])
                                })
                            {
                                best = Some((d2, k, d));
                            }
                        });
                    if let Some((_, _, d)) = best {
                        chase += seek(d, v, sp) * sp.follow_weight;
                    }
                }
                _ => {}
            }
        }
        (flee, chase)
    }
}

/// Chasers with an eat radius eat the nearest target in reach after the step's
/// move: chasers in ascending id order, each at most one target per step, each
/// target eaten once. Appends the events and returns, per slot, whether it was
/// eaten (empty when there are no chasers with an eat radius).
pub(crate) fn eat<V: Vector>(
    boids: &Boids<V>,
    cfg: &WorldConfig<V>,
    species: &[SpeciesParams],
    relations: &Relations,
    step: u64,
    events: &mut Vec<Event<V>>,
) -> Vec<bool> {
    let n = boids.len();
    let count = species.len();
    let mut chasers: Vec<usize> = (0..n)
        .filter(|&i| {
            let a = boids.species[i] as usize;
            species[a].eat_radius > 0.0
                && (0..count).any(|b| relations.get(a, b) == Relation::Chase)
        })
        .collect();
    if chasers.is_empty() {
        return Vec::new(); // nothing eaten, nothing allocated
    }
    let mut eaten = vec![false; n];
    chasers.sort_unstable_by_key(|&i| boids.ids[i]);
    let radius = chasers
        .iter()
        .map(|&i| species[boids.species[i] as usize].eat_radius)
        .fold(0.0f32, f32::max);
    let mut grid = Grid::new();
    grid.build(&boids.positions, radius, extent(cfg));
    for &c in &chasers {
        let a = boids.species[c] as usize;
        let r = species[a].eat_radius;
        let mut best: Option<(f32, usize)> = None;
        grid.for_each_within(&boids.positions, boids.positions[c], r, Some(c), |j, d| {
            if eaten[j]
                || eaten[c]
                || relations.get(a, boids.species[j] as usize) != Relation::Chase
            {
                return;
            }
            let d2 = d.length_squared();
            if best.is_none_or(|(b2, k)| d2 < b2 || (d2 == b2 && boids.ids[j] < boids.ids[k])) {
                best = Some((d2, j));
            }
        });
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

//! The explicit step pipeline: grid build → gather into cell order → parallel
//! steering and integration, written straight into the state in the new cell order.
//!
//! The state stays in the cell order of the previous step, so the next grid build
//! and gather touch memory almost sequentially (boids move less than a cell per
//! step); at 1,000,000 boids this halves the step compared with id-ordered storage.
//! [`Pipeline`] owns only scratch memory (grid, cell-ordered neighbour copies, spare
//! buffers) and reuses it, so a steady-state step allocates nothing. Each boid's new
//! state is a pure function of the previous state and its order (neighbours visited
//! in the fixed sorted order, randomness keyed by seed, id and step), so any thread
//! count gives bit-identical results.
//!
//! Memory in 2D: the state is 30 bytes a boid (id 4, species 2, position,
//! velocity and steering 8 each); this scratch adds the cell-ordered neighbour
//! copy (18), spare id and steering buffers (12), the grid's key, order and cell
//! starts (about 9) and, from 4,096 boids, a count per cell for each block of
//! the sort: about 69 bytes a boid in all, 77 measured at the peak at 1,000,000
//! (BENCHMARKS.md). Several species add 4 (the species as `f32` for the lane
//! compares), topological species 8 (`reaches.rs`); the world's id-ordered
//! views add 30 once asked for.

use crate::behaviours::navigation::NavField;
use crate::boids::Boids;
use crate::grid::{Extent, Grid};
use crate::params::SpeciesParams;
use crate::stats::StepStats;
use crate::step::context::StepContext;
use crate::step::focus::{Focuser, PassEnv};
use crate::step::interactions::{self, Interactions, Sorted};
use crate::step::kernel::{self, RelationPattern, SortedSoa};
use crate::step::reaches::Reaches;
use crate::step::rules::{RuleConsts, Sums};
use crate::step::steer::{CHUNK, steer_chunk};
use crate::stopwatch::Stopwatch;
use crate::vector::Vector;
use rayon::prelude::*;

/// Reusable scratch for stepping a [`Boids`] state.
#[derive(Clone, Debug, Default)]
pub struct Pipeline<V> {
    pub(crate) grid: Grid,
    pub(crate) patterns: Vec<RelationPattern>,
    pub(crate) interactions: Interactions<V>,
    pub(crate) sorted: SortedSoa,
    pub(crate) consts: Vec<RuleConsts>,
    spare_ids: Vec<u32>,
    spare_steering: Vec<V>,
    /// Each navigating attractor's flow field, kept between steps and
    /// rebuilt only when its cell or the obstacles change.
    pub(crate) ways: Vec<Option<NavField<V>>>,
    /// Each topological boid's reach of the last step, a hint for the next
    /// ([`crate::step::reaches`]).
    pub(crate) reaches: Reaches,
    /// Steer every boid on the scalar path (tests compare it with the lanes).
    pub(crate) scalar: bool,
}

impl<V: Vector> Pipeline<V> {
    /// Empty scratch; grows to fit on the first step.
    pub fn new() -> Self {
        Self {
            grid: Grid::new(),
            patterns: Vec::new(),
            interactions: Interactions::default(),
            sorted: SortedSoa::default(),
            consts: Vec::new(),
            spare_ids: Vec::new(),
            spare_steering: Vec::new(),
            ways: Vec::new(),
            reaches: Reaches::default(),
            scalar: false,
        }
    }

    /// The neighbour grid of the last step.
    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    /// Bytes of heap memory held.
    pub fn heap_bytes(&self) -> usize {
        self.grid.heap_bytes()
            + self.sorted.heap_bytes()
            + self.spare_ids.capacity() * 4
            + self.spare_steering.capacity() * std::mem::size_of::<V>()
            + self.reaches.heap_bytes()
    }

    /// Advances `boids` by one step of `ctx.config.dt` and leaves them in the new
    /// cell order. Parameters must be valid ([`crate::World`] guarantees it) and
    /// every species index below `ctx.species.len()`.
    pub fn step(&mut self, boids: &mut Boids<V>, ctx: &StepContext<'_, V>) -> StepStats {
        if boids.is_empty() {
            return StepStats::default();
        }
        let t0 = Stopwatch::start();
        let (flags, grid_seconds) = self.prepare(boids, ctx);
        self.update_ways(ctx);
        // Only the lists by keys (sixteen lanes, not per boid) use reaches.
        let keep_reaches = ctx.species.iter().any(|p| p.topological_neighbours > 0)
            && flags & kernel::WIDE != 0
            && !crate::step::nearest::per_boid(flags, boids.len());
        if keep_reaches {
            self.reaches.prepare(boids.len());
        } else {
            self.reaches.clear();
        }
        let t2 = Stopwatch::start();
        macro_rules! dispatch {
            ($($f:literal)*) => {
                match flags {
                    $($f => self.pass::<$f, { $f & !kernel::MULTI }>(boids, ctx),)*
                    _ => unreachable!("kernel flags are four bits"),
                }
            };
        }
        // WIDE (16) never comes with MIN_IMAGE (4).
        let mut stats = dispatch!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 24 25 26 27);
        if keep_reaches {
            self.reaches.finish();
        }
        stats.grid_seconds = grid_seconds;
        stats.gather_seconds = t0.until(&t2) - grid_seconds;
        stats.steer_seconds = t2.seconds();
        stats
    }

    /// The first half of a step: builds the grid, gathers `boids` into cell order
    /// (their storage order changes), derives the per-species constants and picks
    /// the kernel variant. Returns the variant's flags and the grid build's seconds.
    fn prepare(&mut self, boids: &mut Boids<V>, ctx: &StepContext<'_, V>) -> (u8, f64) {
        let n = boids.len();
        let radius = ctx
            .species
            .iter()
            .map(SpeciesParams::perception_radius)
            .fold(0.0f32, f32::max);
        let extent = Extent::of(ctx.config);
        let t0 = Stopwatch::start();
        if interactions::any(ctx.relations) {
            self.interactions
                .build(boids, ctx.config, ctx.species, ctx.relations);
        } else if !self.interactions.is_empty() {
            self.interactions = Interactions::default();
        }
        self.grid.build(&boids.positions, radius, extent);
        let grid_seconds = t0.seconds();

        // Gather into cell order (structure of arrays) so neighbour scans read
        // contiguous memory.
        let order = self.grid.order();
        let multi = ctx.species.len() > 1;
        if multi && self.sorted.species_f.is_empty() {
            self.sorted.species_f.push(-1.0); // turns the f32 species copy on
        } else if !multi && !self.sorted.species_f.is_empty() {
            self.sorted.species_f = Vec::new();
        }
        self.sorted.resize(n, V::DIM);
        // Species, ids and last steering move into the new order too (steering is
        // read back by its own boid only, so it is updated in place below).
        self.spare_ids.resize(n, 0);
        self.spare_steering.resize(n, V::ZERO);
        let SortedSoa {
            pos: sp,
            vel: sv,
            species: ss,
            ..
        } = &mut self.sorted;
        let [p0, p1, p2] = sp;
        let [v0, v1, v2] = sv;
        let (n2, nv2) = (n.min(p2.len()), n.min(v2.len()));
        let out = GatherOut {
            pos: [&mut p0[..n], &mut p1[..n], &mut p2[..n2]],
            vel: [&mut v0[..n], &mut v1[..n], &mut v2[..nv2]],
            species: &mut ss[..n],
            ids: &mut self.spare_ids,
            steering: &mut self.spare_steering,
        };
        gather(order, out, boids);
        std::mem::swap(&mut boids.ids, &mut self.spare_ids);
        std::mem::swap(&mut boids.steering, &mut self.spare_steering);
        boids.species.copy_from_slice(&ss[..n]);
        if multi {
            let sorted = &mut self.sorted;
            sorted.species_f[..n]
                .par_iter_mut()
                .zip(sorted.species[..n].par_iter())
                .with_min_len(4096)
                .for_each(|(f, &s)| *f = s as f32);
            let count = ctx.relations.count;
            self.patterns.clear();
            self.patterns
                .extend((0..count).map(|a| RelationPattern::of(ctx.relations.row(a), a)));
        }
        self.consts.clear();
        self.consts.extend(ctx.species.iter().map(RuleConsts::new));

        let mut flags = 0u8;
        if ctx.species.iter().any(SpeciesParams::has_vision_cone) {
            flags |= kernel::FOV;
        }
        if ctx.species.len() > 1 {
            flags |= kernel::MULTI;
        }
        if self.grid.needs_min_image() {
            flags |= kernel::MIN_IMAGE;
        } else if crate::step::kernel512::wide() {
            flags |= kernel::WIDE;
        }
        if ctx.species.iter().all(|p| {
            p.alignment_radius == p.perception_radius()
                && p.cohesion_radius == p.perception_radius()
        }) {
            flags |= kernel::SAME_RADII;
        }
        ctx.obstacles.prepare();
        if !self.interactions.is_empty() {
            let view = Sorted {
                grid: &self.grid,
                data: &self.sorted,
                ids: &boids.ids,
            };
            self.interactions
                .scatter_flee(&view, ctx.species, ctx.relations);
        }
        (flags, grid_seconds)
    }

    /// Brings each navigating attractor's flow field up to date.
    fn update_ways(&mut self, ctx: &StepContext<'_, V>) {
        self.ways.resize_with(ctx.attractors.len(), || None);
        let (min, max) = (ctx.config.min, ctx.config.max);
        for (way, a) in self.ways.iter_mut().zip(ctx.attractors) {
            match (a.navigate, way.as_mut()) {
                (false, _) => *way = None,
                (true, Some(w)) => w.update(min, max, a.position, ctx.obstacles),
                (true, None) => *way = Some(NavField::build(min, max, a.position, ctx.obstacles)),
            }
        }
    }

    /// The neighbour sums the next step would give the boids in storage slots
    /// `slots` of `boids` (in that order), computed by the step's own kernel
    /// on a copy (so inspection can never disagree with the step). One
    /// gather, O(n log n), then one focus per slot.
    pub(crate) fn sums_of(
        boids: &Boids<V>,
        ctx: &StepContext<'_, V>,
        slots: &[usize],
    ) -> Vec<Sums<V>> {
        let mut pipe = Self::new();
        let mut copy = boids.clone();
        let (flags, _) = pipe.prepare(&mut copy, ctx);
        // Where each id sits after the gather.
        let sorted: std::collections::HashMap<u32, usize> = copy
            .ids
            .iter()
            .enumerate()
            .map(|(i, &id)| (id, i))
            .collect();
        // The walk goes forward through the sorted order, then the answers
        // go back to the order asked.
        let mut walk: Vec<(usize, usize)> = slots
            .iter()
            .enumerate()
            .map(|(k, &s)| (sorted[&boids.ids[s]], k))
            .collect();
        walk.sort_unstable();
        let env = pipe.env(&copy.ids, ctx);
        macro_rules! dispatch {
            ($($f:literal)*) => {
                match flags {
                    $($f => {
                        let mut focuser = Focuser::<V, $f, { $f & !kernel::MULTI }>::new(&env, copy.len());
                        walk.iter().map(|&(si, _)| focuser.focus(si).sums).collect::<Vec<_>>()
                    })*
                    _ => unreachable!("kernel flags never join WIDE and MIN_IMAGE"),
                }
            };
        }
        let walked: Vec<Sums<V>> =
            dispatch!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 24 25 26 27);
        let mut out = vec![Sums::default(); slots.len()];
        for (&(_, k), sums) in walk.iter().zip(walked) {
            out[k] = sums;
        }
        out
    }

    /// What every chunk of the steering pass reads.
    fn env<'a>(&'a self, ids: &'a [u32], ctx: &'a StepContext<'a, V>) -> PassEnv<'a, V> {
        let has_obstacles = !ctx.obstacles.is_empty();
        let has_interactions = !self.interactions.is_empty();
        PassEnv {
            grid: &self.grid,
            sorted: &self.sorted,
            consts: &self.consts,
            patterns: &self.patterns,
            interactions: &self.interactions,
            ctx,
            ids,
            period: self.grid.period::<V>().unwrap_or(V::ZERO),
            has_obstacles,
            has_interactions,
            topological: ctx.species.iter().any(|p| p.topological_neighbours > 0),
            // Flocks steer a group of boids at a time in lanes (same bits as
            // the scalar path); obstacles and the research models take the
            // scalar path.
            batched: !self.scalar
                && !has_obstacles
                && ctx
                    .species
                    .iter()
                    .all(|p| p.model == crate::params::model::Model::Reynolds),
            entities: has_interactions
                || !ctx.attractors.is_empty()
                || !ctx.pulses.is_empty()
                || !ctx.paths.is_empty()
                || ctx.species.iter().any(|p| p.wander_weight > 0.0),
            vicsek: ctx
                .species
                .iter()
                .all(|p| matches!(p.model, crate::params::model::Model::Vicsek(_))),
            // Contact gap for obstacles: small against the model's length scale.
            skin: crate::behaviours::obstacles::contact_skin(ctx.species),
            ways: &self.ways,
            // What two boids may close or open between them in this step.
            reaches: self.reaches.sides(
                2.0 * ctx.config.dt
                    * ctx
                        .species
                        .iter()
                        .map(|p| p.max_speed)
                        .fold(0.0f32, f32::max),
            ),
        }
    }

    /// The steering pass; `SINGLE` is `FLAGS` without [`kernel::MULTI`], used where
    /// every neighbour is of the boid's own species (no relation to look up).
    fn pass<const FLAGS: u8, const SINGLE: u8>(
        &self,
        boids: &mut Boids<V>,
        ctx: &StepContext<'_, V>,
    ) -> StepStats {
        let n = boids.len();
        let env = self.env(&boids.ids, ctx);
        let (neighbours, candidates) = boids
            .positions
            .par_chunks_mut(CHUNK)
            .zip(boids.velocities.par_chunks_mut(CHUNK))
            .zip(boids.steering.par_chunks_mut(CHUNK))
            .enumerate()
            .map(|(chunk, ((out_p, out_v), out_a))| {
                #[cfg(target_arch = "x86_64")]
                if FLAGS & kernel::WIDE != 0 {
                    // SAFETY: WIDE is set only where the CPU has AVX-512 F, DQ
                    // and VL (`prepare`).
                    return unsafe {
                        crate::step::steer::steer_chunk_wide::<V, FLAGS, SINGLE>(
                            &env, chunk, out_p, out_v, out_a,
                        )
                    };
                }
                steer_chunk::<V, FLAGS, SINGLE>(&env, chunk, out_p, out_v, out_a)
            })
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        StepStats {
            boids: n as u64,
            neighbours,
            candidates,
            cells: self.grid.cell_count() as u64,
            ..StepStats::default()
        }
    }
}

/// Destinations of the gather into cell order, all the same length (unused axes
/// empty).
struct GatherOut<'a, V> {
    pos: [&'a mut [f32]; 3],
    vel: [&'a mut [f32]; 3],
    species: &'a mut [u16],
    ids: &'a mut [u32],
    steering: &'a mut [V],
}

impl<'a, V> GatherOut<'a, V> {
    /// Splits every destination at `mid`.
    fn split_at(self, mid: usize) -> (Self, Self) {
        let halves = |x: &'a mut [f32]| -> (&'a mut [f32], &'a mut [f32]) {
            if x.is_empty() {
                (&mut [], &mut [])
            } else {
                x.split_at_mut(mid)
            }
        };
        let [p0, p1, p2] = self.pos.map(halves);
        let [v0, v1, v2] = self.vel.map(halves);
        let (s0, s1) = self.species.split_at_mut(mid);
        let (i0, i1) = self.ids.split_at_mut(mid);
        let (a0, a1) = self.steering.split_at_mut(mid);
        (
            GatherOut {
                pos: [p0.0, p1.0, p2.0],
                vel: [v0.0, v1.0, v2.0],
                species: s0,
                ids: i0,
                steering: a0,
            },
            GatherOut {
                pos: [p0.1, p1.1, p2.1],
                vel: [v0.1, v1.1, v2.1],
                species: s1,
                ids: i1,
                steering: a1,
            },
        )
    }
}

/// Copies every boid's state into cell order in one parallel pass: `out[i]`
/// receives slot `order[i]` of `src`.
fn gather<V: Vector>(order: &[u32], out: GatherOut<'_, V>, src: &Boids<V>) {
    if order.len() > 4096 {
        let mid = order.len() / 2;
        let (a, b) = out.split_at(mid);
        let (oa, ob) = order.split_at(mid);
        rayon::join(|| gather(oa, a, src), || gather(ob, b, src));
        return;
    }
    let GatherOut {
        pos: [p0, p1, p2],
        vel: [v0, v1, v2],
        species,
        ids,
        steering,
    } = out;
    // Every slice cut to its known length, so one bounds check per boid
    // stands for all of its reads and none is left on the writes.
    let n = order.len();
    let (p0, p1, v0, v1) = (&mut p0[..n], &mut p1[..n], &mut v0[..n], &mut v1[..n]);
    let third = V::DIM == 3;
    let (p2, v2) = if third {
        (&mut p2[..n], &mut v2[..n])
    } else {
        (p2, v2)
    };
    let (species, ids, steering) = (&mut species[..n], &mut ids[..n], &mut steering[..n]);
    let len = src.len();
    let (sp, sv) = (&src.positions[..len], &src.velocities[..len]);
    let (ss, si, sa) = (&src.species[..len], &src.ids[..len], &src.steering[..len]);
    // Two passes of fewer streams each, so every address stays in a register
    // (one pass of all of them spilled: 3D gather -40 %, 2D -15 %).
    for i in 0..n {
        let slot = order[i] as usize;
        let (p, v) = (sp[slot], sv[slot]);
        p0[i] = p.get(0);
        p1[i] = p.get(1);
        v0[i] = v.get(0);
        v1[i] = v.get(1);
        if third {
            p2[i] = p.get(2);
            v2[i] = v.get(2);
        }
    }
    for i in 0..n {
        let slot = order[i] as usize;
        species[i] = ss[slot];
        ids[i] = si[slot];
        steering[i] = sa[slot];
    }
}

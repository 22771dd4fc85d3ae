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

use crate::attractors::{Attractor, Pulse};
use crate::batch::{self, Batch};
use crate::boids::Boids;
use crate::boundary::{confine, soft_force};
use crate::grid::{Extent, Grid};
use crate::interactions::{self, Interactions, Sorted};
use crate::kernel::{self, Focal, RelationPattern, SortedSoa};
use crate::obstacles::ObstacleSet;
use crate::params::{Boundary, CombineMode, Relations, SpeciesParams, WorldConfig};
use crate::paths::Path;
use crate::rng::{CounterRng, Stream};
use crate::rules::{self, RuleConsts, Sums};
use crate::vector::Vector;
use rayon::prelude::*;
use std::time::Instant;

/// Everything a step reads besides the state.
#[derive(Clone, Copy, Debug)]
pub struct StepContext<'a, V: Vector> {
    /// World box, boundary, dt, seed.
    pub config: &'a WorldConfig<V>,
    /// Parameters per species index.
    pub species: &'a [SpeciesParams],
    /// How each species reacts to each other.
    pub relations: &'a Relations,
    /// Index of the step being computed (keys the random numbers).
    pub step: u64,
    /// Solid obstacles (avoided, never entered).
    pub obstacles: &'a ObstacleSet<V>,
    /// Points boids seek (arrive).
    pub attractors: &'a [Attractor<V>],
    /// Repelling impulses.
    pub pulses: &'a [Pulse<V>],
    /// Polylines boids within their capture radius flow along.
    pub paths: &'a [Path<V>],
}

/// Counters of one step, for benchmarks and diagnostics.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepStats {
    /// Boids stepped.
    pub boids: u64,
    /// Σ over boids of neighbours reacted to (within perception, visible, not ignored).
    pub neighbours: u64,
    /// Σ over boids of candidates whose distance was measured.
    pub candidates: u64,
    /// Grid cells.
    pub cells: u64,
    /// Wall time of the grid build (keys, counting sort), seconds.
    pub grid_seconds: f64,
    /// Wall time of the gather into cell order, seconds.
    pub gather_seconds: f64,
    /// Wall time of the steering and integration pass, seconds.
    pub steer_seconds: f64,
}

/// Reusable scratch for stepping a [`Boids`] state.
#[derive(Clone, Debug, Default)]
pub struct Pipeline<V> {
    grid: Grid,
    patterns: Vec<RelationPattern>,
    interactions: Interactions<V>,
    sorted: SortedSoa,
    consts: Vec<RuleConsts>,
    spare_ids: Vec<u32>,
    spare_steering: Vec<V>,
}

/// Boids per parallel task of the steering pass.
const CHUNK: usize = 256;

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
    }

    /// Advances `boids` by one step of `ctx.config.dt` and leaves them in the new
    /// cell order. Parameters must be valid ([`crate::World`] guarantees it) and
    /// every species index below `ctx.species.len()`.
    pub fn step(&mut self, boids: &mut Boids<V>, ctx: &StepContext<'_, V>) -> StepStats {
        let n = boids.len();
        if n == 0 {
            return StepStats::default();
        }
        let radius = ctx
            .species
            .iter()
            .map(SpeciesParams::perception_radius)
            .fold(0.0f32, f32::max);
        let extent = match ctx.config.boundary {
            Boundary::Wrap => Extent::Periodic {
                min: ctx.config.min,
                max: ctx.config.max,
            },
            _ => Extent::Open,
        };
        let t0 = Instant::now();
        if interactions::any(ctx.relations) {
            self.interactions
                .build(boids, ctx.config, ctx.species, ctx.relations);
        } else if !self.interactions.is_empty() {
            self.interactions = Interactions::default();
        }
        self.grid.build(&boids.positions, radius, extent);
        let t1 = Instant::now();

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
        let (pos, vel, spc) = (&boids.positions, &boids.velocities, &boids.species);
        let SortedSoa {
            pos: sp,
            vel: sv,
            species: ss,
            ..
        } = &mut self.sorted;
        for a in 0..V::DIM {
            sp[a][..n]
                .par_iter_mut()
                .zip(sv[a][..n].par_iter_mut())
                .zip(order.par_iter())
                .with_min_len(4096)
                .for_each(|((p, v), &slot)| {
                    *p = pos[slot as usize].get(a);
                    *v = vel[slot as usize].get(a);
                });
        }
        // Species, ids and last steering move into the new order too (steering is
        // read back by its own boid only, so it is updated in place below).
        self.spare_ids.resize(n, 0);
        self.spare_steering.resize(n, V::ZERO);
        let (ids, steer) = (&boids.ids, &boids.steering);
        ss[..n]
            .par_iter_mut()
            .zip(self.spare_ids.par_iter_mut())
            .zip(self.spare_steering.par_iter_mut())
            .zip(order.par_iter())
            .with_min_len(4096)
            .for_each(|(((s, i), a), &slot)| {
                let slot = slot as usize;
                *s = spc[slot];
                *i = ids[slot];
                *a = steer[slot];
            });
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
            self.patterns.extend(
                (0..count).map(|a| {
                    RelationPattern::of(&ctx.relations.table[a * count..(a + 1) * count], a)
                }),
            );
        }
        self.consts.clear();
        self.consts.extend(ctx.species.iter().map(RuleConsts::new));

        let mut flags = 0u8;
        if ctx.species.iter().any(RuleConsts::has_fov) {
            flags |= kernel::FOV;
        }
        if ctx.species.len() > 1 {
            flags |= kernel::MULTI;
        }
        if self.grid.needs_min_image() {
            flags |= kernel::MIN_IMAGE;
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
        let t2 = Instant::now();
        macro_rules! dispatch {
            ($($f:literal)*) => {
                match flags {
                    $($f => self.pass::<$f, { $f & !kernel::MULTI }>(boids, ctx),)*
                    _ => unreachable!("kernel flags are four bits"),
                }
            };
        }
        let mut stats = dispatch!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
        stats.grid_seconds = (t1 - t0).as_secs_f64();
        stats.gather_seconds = (t2 - t1).as_secs_f64();
        stats.steer_seconds = t2.elapsed().as_secs_f64();
        stats
    }

    /// The steering pass; `SINGLE` is `FLAGS` without [`kernel::MULTI`], used where
    /// every neighbour is of the boid's own species (no relation to look up).
    fn pass<const FLAGS: u8, const SINGLE: u8>(
        &self,
        boids: &mut Boids<V>,
        ctx: &StepContext<'_, V>,
    ) -> StepStats {
        let n = boids.len();
        let grid = &self.grid;
        let keys = grid.keys();
        let order = grid.order();
        let data = &self.sorted;
        let rel_count = ctx.relations.count;
        let period = grid.period::<V>().unwrap_or(V::ZERO);
        let cfg = ctx.config;
        let dt = cfg.dt;
        let ids = &boids.ids;
        let obstacles = ctx.obstacles;
        let has_obstacles = !obstacles.is_empty();
        let has_interactions = !self.interactions.is_empty();
        let view = Sorted { grid, data, ids };
        // Plain worlds steer eight boids at a time (same bits as the scalar path).
        let batched = !has_obstacles
            && !has_interactions
            && ctx.attractors.is_empty()
            && ctx.pulses.is_empty()
            && ctx.paths.is_empty()
            && ctx
                .species
                .iter()
                .all(|p| p.combine == CombineMode::WeightedSum);
        // Contact gap for obstacles: small against the model's length scale.
        let skin = 1e-3
            * ctx
                .species
                .iter()
                .map(SpeciesParams::perception_radius)
                .fold(0.0f32, f32::max);

        let (neighbours, candidates) = boids
            .positions
            .par_chunks_mut(CHUNK)
            .zip(boids.velocities.par_chunks_mut(CHUNK))
            .zip(boids.steering.par_chunks_mut(CHUNK))
            .enumerate()
            .map(|(chunk, ((out_p, out_v), out_a))| {
                let base = chunk * CHUNK;
                let mut cell = u32::MAX;
                let mut runs = grid.runs::<V>([0; 3]);
                let mut scanned = 0u64;
                let mut cell_clear = f32::INFINITY;
                // The one species of every boid around this cell, if there is one.
                let mut uniform: Option<u16> = None;
                let (mut neighbours, mut candidates) = (0u64, 0u64);
                // The neighbour sums of sorted index `si` (and what else the
                // steering needs of it), walking the grid cell by cell.
                let mut focus = |si: usize| -> Focus<V> {
                    let c = keys[order[si] as usize];
                    if c != cell {
                        cell = c;
                        let coords = grid.cell_coords(c as usize);
                        grid.runs_into::<V>(coords, &mut runs);
                        if FLAGS & kernel::MULTI != 0 {
                            let first = data.species[si];
                            let all = runs.as_slice().iter().all(|r| {
                                data.species[r.start as usize..r.end as usize]
                                    .iter()
                                    .all(|&s| s == first)
                            });
                            uniform = all.then_some(first);
                        }
                        if has_obstacles {
                            // No boid of the cell is nearer any obstacle than this.
                            let (centre, half) = grid.cell_ball::<V>(coords);
                            cell_clear = obstacles.clearance(centre) - half;
                        }
                        scanned = runs
                            .as_slice()
                            .iter()
                            .map(|r| (r.end - r.start) as u64)
                            .sum();
                    }
                    candidates += scanned - 1;
                    let id = ids[si];
                    let species = data.species[si] as usize;
                    let sp = &ctx.species[species];
                    let rc = &self.consts[species];
                    let v = data.velocity::<V>(si);
                    let me = Focal {
                        sorted_index: si,
                        pos: data.position::<V>(si),
                        heading: if FLAGS & kernel::FOV != 0 && RuleConsts::has_fov(sp) {
                            v.normalize_or_zero()
                        } else {
                            V::ZERO
                        },
                        relations: &ctx.relations.table
                            [species * rel_count..(species + 1) * rel_count],
                        pattern: if FLAGS & kernel::MULTI != 0 {
                            self.patterns[species]
                        } else {
                            RelationPattern::General
                        },
                        species: species as f32,
                    };
                    let coincident = |j: usize| coincident_direction::<V>(cfg.seed, id, ids[j]);
                    // Among its own species only (and flocking with it), the
                    // relation masks are all-on: the single-species kernel gives
                    // the same sums without them.
                    let single = FLAGS & kernel::MULTI != 0
                        && uniform == Some(species as u16)
                        && me.pattern != RelationPattern::General;
                    let sums = if single {
                        kernel::accumulate::<V, SINGLE>(
                            &me,
                            rc,
                            runs.as_slice(),
                            data,
                            period,
                            &coincident,
                        )
                    } else {
                        kernel::accumulate::<V, FLAGS>(
                            &me,
                            rc,
                            runs.as_slice(),
                            data,
                            period,
                            &coincident,
                        )
                    };
                    neighbours += sums.neighbours as u64;
                    Focus {
                        sums,
                        pos: me.pos,
                        vel: v,
                        species,
                        id,
                        cell_clear,
                    }
                };

                if batched {
                    // Eight boids' sums, then their steering in SIMD lanes.
                    let mut k0 = 0;
                    while k0 < out_p.len() {
                        let m = (out_p.len() - k0).min(kernel::LANES);
                        let mut batch = Batch::default();
                        let mut lanes = [(V::ZERO, 0usize, 0u32); kernel::LANES];
                        for (l, info) in lanes.iter_mut().enumerate().take(m) {
                            let f = focus(base + k0 + l);
                            let sp = &ctx.species[f.species];
                            batch.load(
                                l,
                                &f.sums,
                                f.pos,
                                f.vel,
                                out_a[k0 + l],
                                soft_force(f.pos, cfg),
                                jitter(sp, cfg.seed, f.id, ctx.step),
                                sp,
                            );
                            *info = (f.vel, f.species, f.id);
                        }
                        let s = batch.steer::<V>(dt);
                        for (l, &(v, species, id)) in lanes.iter().enumerate().take(m) {
                            let k = k0 + l;
                            let mut p2 = batch::lane::<V>(&s.pos, l);
                            let mut v2 = batch::lane::<V>(&s.vel, l);
                            if s.slow & (1 << l) != 0 {
                                let sp = &ctx.species[species];
                                v2 = clamp_speed(
                                    batch::lane(&s.unclamped, l),
                                    v,
                                    sp,
                                    cfg.seed,
                                    id,
                                    ctx.step,
                                );
                                p2 = data.position::<V>(base + k) + v2 * dt;
                            }
                            confine(&mut p2, &mut v2, cfg);
                            out_p[k] = p2;
                            out_v[k] = v2;
                            out_a[k] = batch::lane(&s.accel, l);
                        }
                        k0 += m;
                    }
                    return (neighbours, candidates);
                }

                for k in 0..out_p.len() {
                    let si = base + k;
                    let f = focus(si);
                    let (species, id, v) = (f.species, f.id, f.vel);
                    let sp = &ctx.species[species];
                    let me_pos = f.pos;
                    let [sep, coh, ali] = rules::forces(&f.sums, v, sp);
                    // One lookup bounds the distance to every obstacle; far from
                    // all of them (most boids) nothing else is asked. Near, the
                    // avoidance and the sweep give what they would anyway.
                    let (avoid, near_obstacle) = if has_obstacles {
                        let avoid_reach = sp.obstacle_margin + v.length() * sp.obstacle_lookahead;
                        let sweep_reach = sp.max_speed * dt;
                        let mut clear = f.cell_clear;
                        if clear <= avoid_reach.max(sweep_reach) + skin {
                            clear = obstacles.clearance(me_pos);
                        }
                        let avoid = if sp.obstacle_weight > 0.0 && clear <= avoid_reach + skin {
                            obstacles.avoidance(
                                me_pos,
                                v,
                                sp.obstacle_lookahead,
                                sp.obstacle_margin,
                                sp.max_speed,
                                sp.max_force,
                            ) * sp.obstacle_weight
                        } else {
                            V::ZERO
                        };
                        (avoid, clear <= sweep_reach + skin)
                    } else {
                        // No obstacle: nothing to avoid or sweep against (the
                        // clearance would be infinite).
                        (V::ZERO, false)
                    };
                    let mut pulse = V::ZERO;
                    for q in ctx.pulses {
                        pulse += q.push(me_pos);
                    }
                    let mut target = V::ZERO;
                    for t in ctx.attractors {
                        target += t.arrive(species as u16, me_pos, v, sp.max_speed, sp.max_force);
                    }
                    for path in ctx.paths {
                        target += path.follow(me_pos, v, sp.max_speed, sp.max_force);
                    }
                    let mut flee = V::ZERO;
                    if has_interactions {
                        let (mut away, mut seen) = self.interactions.scattered(si);
                        if self.interactions.searches(species) {
                            target += self.interactions.forces(
                                species,
                                si,
                                id,
                                me_pos,
                                v,
                                ctx.species,
                                ctx.relations,
                                &view,
                                &mut away,
                                &mut seen,
                            );
                        }
                        if seen {
                            flee = rules::seek(away, v, sp) * sp.flee_weight;
                        }
                    }
                    // Priority order: boundary, obstacle, pulse, flee, target (and
                    // chase), separation, cohesion, alignment.
                    let mut a = rules::combine(
                        &[
                            soft_force(me_pos, cfg),
                            avoid,
                            pulse,
                            flee,
                            target,
                            sep,
                            coh,
                            ali,
                        ],
                        sp,
                    );
                    if sp.smoothing > 0.0 {
                        a = out_a[k] * sp.smoothing + a * (1.0 - sp.smoothing);
                    }
                    let mut v2 = v + a * dt;
                    if let Some(kick) = jitter(sp, cfg.seed, id, ctx.step) {
                        v2 += kick;
                    }
                    v2 = clamp_speed(v2, v, sp, cfg.seed, id, ctx.step);
                    let mut p2 = me_pos + v2 * dt;
                    // Sweep the motion against the obstacles, then confine; a wrap
                    // or reflection can land inside one, so project again.
                    if near_obstacle {
                        p2 = obstacles.resolve(me_pos, p2, &mut v2, skin);
                    }
                    let before = p2;
                    confine(&mut p2, &mut v2, cfg);
                    if has_obstacles && p2 != before {
                        p2 = obstacles.resolve(p2, p2, &mut v2, skin);
                    }
                    out_p[k] = p2;
                    out_v[k] = v2;
                    out_a[k] = a;
                }
                (neighbours, candidates)
            })
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        StepStats {
            boids: n as u64,
            neighbours,
            candidates,
            cells: grid.cell_count() as u64,
            ..StepStats::default()
        }
    }
}

/// The neighbour sums of one boid and what the steering reads besides them.
struct Focus<V> {
    sums: Sums<V>,
    pos: V,
    vel: V,
    species: usize,
    id: u32,
    /// Lower bound of the distance to every obstacle from the boid's cell.
    cell_clear: f32,
}

/// The random velocity kick of boid `id` at `step`, when its species jitters.
#[inline(always)]
fn jitter<V: Vector>(sp: &SpeciesParams, seed: u64, id: u32, step: u64) -> Option<V> {
    if sp.jitter <= 0.0 {
        return None;
    }
    let mut r = CounterRng::new(seed, id as u64, step, Stream::Jitter);
    let dir = V::unit_from_uniform(r.next_f32(), r.next_f32());
    Some(dir * (sp.jitter * sp.max_speed * r.next_f32()))
}

/// Clamps speed into `[min_speed, max_speed]`. A boid at rest that must move picks
/// its previous heading, or a keyed random one.
#[inline(always)]
fn clamp_speed<V: Vector>(v2: V, v: V, sp: &SpeciesParams, seed: u64, id: u32, step: u64) -> V {
    let s2 = v2.length_squared();
    let over = s2 > sp.max_speed * sp.max_speed;
    // Over the limit about half the time at cruising speed: a blend, not a branch
    // (see `Vector::clamp_length_max`).
    let scale = crate::vector::select(over, sp.max_speed / s2.sqrt(), 1.0);
    if !over && sp.min_speed > 0.0 && s2 < sp.min_speed * sp.min_speed {
        if s2 > 1e-12 {
            return v2 * (sp.min_speed / s2.sqrt());
        }
        let mut dir = v.normalize_or_zero();
        if dir == V::ZERO {
            let mut r = CounterRng::new(seed, id as u64, step, Stream::RestHeading);
            dir = V::unit_from_uniform(r.next_f32(), r.next_f32());
        }
        return dir * sp.min_speed;
    }
    v2 * scale
}

/// Direction that pushes boid `me` away from a coincident boid `other`: a keyed
/// random unit vector for the pair, with opposite signs for the two boids.
#[inline(never)]
fn coincident_direction<V: Vector>(seed: u64, me: u32, other: u32) -> V {
    let (lo, hi) = if me < other { (me, other) } else { (other, me) };
    let key = ((lo as u64) << 32) | hi as u64;
    let mut r = CounterRng::new(seed, key, 0, Stream::Coincident);
    let u = V::unit_from_uniform(r.next_f32(), r.next_f32());
    if me < other { u } else { -u }
}

//! The steering pass over one chunk of boids in cell order: neighbour sums from
//! the kernel, then the forces, integration and boundaries, written in place.
//!
//! Plain worlds (weighted-sum steering; no obstacles, targets, pulses, paths or
//! predators) steer eight boids at a time in SIMD lanes ([`Batch`]); everything
//! else takes the scalar path. Both give the same bits.

use crate::batch::{self, Batch, Lane};
use crate::boids::BoidId;
use crate::boundary::{boundary_force, confine, soft_force};
use crate::candidates::Candidates;
use crate::context::StepContext;
use crate::grid::{Grid, Runs};
use crate::interactions::{Interactions, Seeker, Sorted, Tables};
use crate::kernel::{self, Focal, RelationPattern, SortedSoa};
use crate::params::{Boundary, SpeciesParams};
use crate::rng::{CounterRng, Stream};
use crate::rules::{self, RuleConsts, Sums};
use crate::topological;
use crate::vector::Vector;
use std::cell::RefCell;

/// Boids per parallel task of the steering pass.
pub(crate) const CHUNK: usize = 256;

thread_local! {
    /// Each worker's candidate block, reused from chunk to chunk and step to step.
    static BLOCK: RefCell<Candidates> = RefCell::default();
    /// Each worker's topological scratch, likewise (allocated on first use).
    static NEAREST: RefCell<Option<Box<Nearest>>> = const { RefCell::new(None) };
}

/// The most topological neighbours a species may ask for, as an array length.
const MAX_K: usize = topological::MAX_TOPOLOGICAL as usize;

/// Scratch for one boid's topological neighbours.
type Nearest = [topological::Chosen; MAX_K];

/// What every chunk of the steering pass reads.
pub(crate) struct PassEnv<'a, V: Vector> {
    /// The step's neighbour grid.
    pub grid: &'a Grid,
    /// Boids in cell order.
    pub sorted: &'a SortedSoa,
    /// Each species' derived rule constants.
    pub consts: &'a [RuleConsts],
    /// Each species' relation pattern.
    pub patterns: &'a [RelationPattern],
    /// Predator and prey searches of the step.
    pub interactions: &'a Interactions<V>,
    pub ctx: &'a StepContext<'a, V>,
    /// Boid ids in sorted order.
    pub ids: &'a [u32],
    /// Periodic box size (zero when the world does not wrap).
    pub period: V,
    pub has_obstacles: bool,
    pub has_interactions: bool,
    /// Some species reacts to its k nearest neighbours only ([`topological`]).
    pub topological: bool,
    /// Steer eight boids at a time ([`Batch`]).
    pub batched: bool,
    /// Every species is a Vicsek species: eight particles at a time.
    pub vicsek: bool,
    /// Contact gap for obstacles, units.
    pub skin: f32,
}

/// Walks the sorted boids cell by cell and gives each one's neighbour sums (and
/// what the steering reads besides them): the cell's runs, its candidate block and
/// its obstacle clearance are built once when the walk enters a cell.
pub(crate) struct Focuser<'a, V: Vector, const FLAGS: u8, const SINGLE: u8> {
    env: &'a PassEnv<'a, V>,
    /// The sorted indices of the cell the walk is in: a boid inside them needs
    /// no cell lookup (two dependent loads per boid otherwise).
    cell_span: std::ops::Range<usize>,
    /// The cell the walk is in (`usize::MAX` before the first).
    cell: usize,
    runs: Runs<V>,
    scanned: u64,
    cell_clear: f32,
    /// The one species of every boid around this cell, if there is one.
    uniform: Option<u16>,
    block: Candidates,
    /// Block index of the cell's first boid, and that boid's sorted index.
    block_self: (usize, usize),
    /// The topological neighbours kept for the current boid: this thread's
    /// scratch, taken on first use and given back on drop.
    nearest: Option<Box<Nearest>>,
    /// Neighbours counted so far.
    pub neighbours: u64,
    /// Candidates scanned so far.
    pub candidates: u64,
}

impl<'a, V: Vector, const FLAGS: u8, const SINGLE: u8> Focuser<'a, V, FLAGS, SINGLE> {
    /// The cell's runs are copied into one block (not with the per-pair minimum
    /// image, where one cell can appear in several runs).
    const USE_BLOCK: bool = FLAGS & kernel::MIN_IMAGE == 0;

    /// A walk over `env`, with this thread's candidate block.
    pub fn new(env: &'a PassEnv<'a, V>) -> Self {
        Self {
            env,
            cell_span: 0..0,
            cell: usize::MAX,
            runs: env.grid.runs::<V>([0; 3]),
            scanned: 0,
            cell_clear: f32::INFINITY,
            uniform: None,
            block: BLOCK.with(RefCell::take),
            block_self: (0, 0),
            nearest: None,
            neighbours: 0,
            candidates: 0,
        }
    }

    /// The neighbour sums of sorted index `si`, exactly as the step computes them.
    #[inline(always)]
    pub fn focus(&mut self, si: usize) -> Focus<V> {
        if self.env.topological {
            self.focus_with::<true>(si)
        } else {
            self.focus_with::<false>(si)
        }
    }

    /// [`Self::focus`], with `TOPO` false when no species has topological
    /// neighbours: the plain step's walk then has no trace of them (even an
    /// untaken out-of-line call cost its loop 29 instructions per boid-step).
    #[inline(always)]
    pub fn focus_with<const TOPO: bool>(&mut self, si: usize) -> Focus<V> {
        let env = self.env;
        let ctx = env.ctx;
        let grid = env.grid;
        let data = env.sorted;
        if !self.cell_span.contains(&si) {
            let c = if self.cell != usize::MAX && si >= self.cell_span.end {
                grid.cell_after(self.cell, si)
            } else {
                grid.keys()[grid.order()[si] as usize] as usize
            };
            self.enter(c, si);
        }
        self.candidates += self.scanned - 1;
        let id = env.ids[si];
        let species = data.species[si] as usize;
        let sp = &ctx.species[species];
        let rc = &env.consts[species];
        let rel_count = ctx.relations.count;
        let v = data.velocity::<V>(si);
        let me = Focal {
            sorted_index: si,
            pos: data.position::<V>(si),
            heading: if FLAGS & kernel::FOV != 0 && sp.has_vision_cone() {
                v.normalize_or_zero()
            } else {
                V::ZERO
            },
            relations: &ctx.relations.table[species * rel_count..(species + 1) * rel_count],
            pattern: if FLAGS & kernel::MULTI != 0 {
                env.patterns[species]
            } else {
                RelationPattern::General
            },
            species: species as f32,
        };
        let (use_block, block, seed) = (Self::USE_BLOCK, &self.block, ctx.config.seed);
        let whole = [block.run::<V>()];
        let (runs, data, me) = if use_block {
            let me = Focal {
                sorted_index: self.block_self.0 + (si - self.block_self.1),
                ..me
            };
            (&whole[..], &block.data, me)
        } else {
            (self.runs.as_slice(), data, me)
        };
        let ids = env.ids;
        let coincident = |j: usize| {
            let j = if use_block { block.sorted_index(j) } else { j };
            coincident_direction::<V>(seed, id, ids[j])
        };
        // Among its own species only (and flocking with it), the
        // relation masks are all-on: the single-species kernel gives
        // the same sums without them.
        let single = FLAGS & kernel::MULTI != 0
            && self.uniform == Some(species as u16)
            && me.pattern != RelationPattern::General;
        let sums = if TOPO && sp.topological_neighbours > 0 {
            self.topological_sums(&me, rc, sp.topological_neighbours, id)
        } else if FLAGS & kernel::WIDE != 0 {
            wide_sums::<V, FLAGS, SINGLE>(single, &me, rc, runs, data, env.period, &coincident)
        } else if single {
            kernel::accumulate::<V, SINGLE>(&me, rc, runs, data, env.period, &coincident)
        } else {
            kernel::accumulate::<V, FLAGS>(&me, rc, runs, data, env.period, &coincident)
        };
        self.neighbours += sums.neighbours as u64;
        Focus {
            sums,
            pos: me.pos,
            vel: v,
            species,
            id,
            cell_clear: self.cell_clear,
        }
    }

    /// The sums of `me` over its `k` nearest neighbours ([`topological`]), from
    /// the same candidates. Only walks with `TOPO` call it ([`Self::focus_with`]):
    /// inlined into every walk it cost the plain step 53 instructions per
    /// boid-step (BENCHMARKS.md).
    #[inline(never)]
    fn topological_sums(&mut self, me: &Focal<'_, V>, rc: &RuleConsts, k: u32, id: u32) -> Sums<V> {
        let env = self.env;
        let (use_block, block, ids) = (Self::USE_BLOCK, &self.block, env.ids);
        let whole = [block.run::<V>()];
        let (runs, data) = if use_block {
            (&whole[..], &block.data)
        } else {
            (self.runs.as_slice(), env.sorted)
        };
        let id_of = |j: usize| ids[if use_block { block.sorted_index(j) } else { j }];
        let seed = env.ctx.config.seed;
        let coincident = |j: usize| coincident_direction::<V>(seed, id, id_of(j));
        let best = self.nearest.get_or_insert_with(|| {
            NEAREST
                .with(RefCell::take)
                .unwrap_or_else(|| Box::new([topological::Chosen::default(); MAX_K]))
        });
        topological::accumulate::<V, FLAGS>(
            me, rc, k, runs, data, env.period, best, id_of, coincident,
        )
    }

    /// The walk enters cell `c` at sorted index `si`.
    fn enter(&mut self, c: usize, si: usize) {
        let env = self.env;
        let grid = &env.grid;
        let data = &env.sorted;
        self.cell = c;
        self.cell_span = grid.cell_range(c);
        debug_assert!(
            self.cell_span.contains(&si),
            "cell {c} holds sorted index {si}"
        );
        let coords = grid.cell_coords(c);
        grid.runs_into::<V>(coords, &mut self.runs);
        if FLAGS & kernel::MULTI != 0 {
            let first = data.species[si];
            let all = self.runs.as_slice().iter().all(|r| {
                data.species[r.start as usize..r.end as usize]
                    .iter()
                    .all(|&s| s == first)
            });
            self.uniform = all.then_some(first);
        }
        if env.has_obstacles {
            // No boid of the cell is nearer any obstacle than this.
            let (centre, half) = grid.cell_ball::<V>(coords);
            self.cell_clear = env.ctx.obstacles.clearance(centre) - half;
        }
        self.scanned = self
            .runs
            .as_slice()
            .iter()
            .map(|r| (r.end - r.start) as u64)
            .sum();
        if Self::USE_BLOCK {
            let (multi, wide) = (FLAGS & kernel::MULTI != 0, FLAGS & kernel::WIDE != 0);
            self.block.fill_for(data, self.runs.as_slice(), multi, wide);
            let own = self
                .block
                .index_of(si)
                .expect("a cell's runs hold its own boids");
            self.block_self = (own, si);
        }
    }
}

impl<V: Vector, const FLAGS: u8, const SINGLE: u8> Drop for Focuser<'_, V, FLAGS, SINGLE> {
    /// Gives the candidate block back to this thread for the next chunk.
    fn drop(&mut self) {
        let block = std::mem::take(&mut self.block);
        BLOCK.with(|b| b.replace(block));
        if let Some(list) = self.nearest.take() {
            NEAREST.with(|n| n.replace(Some(list)));
        }
    }
}

/// The 16-lane kernel's sums ([`crate::kernel512`]): `FLAGS` holds
/// [`kernel::WIDE`], set only where the CPU has AVX-512.
#[inline(always)]
fn wide_sums<V: Vector, const FLAGS: u8, const SINGLE: u8>(
    single: bool,
    me: &Focal<'_, V>,
    rc: &RuleConsts,
    runs: &[crate::grid::Run<V>],
    data: &SortedSoa,
    period: V,
    coincident: impl Fn(usize) -> V,
) -> Sums<V> {
    #[cfg(target_arch = "x86_64")]
    {
        use crate::kernel512::accumulate;
        // SAFETY: `kernel::WIDE` is set only when `kernel512::wide()` found
        // AVX-512 F, DQ and VL on this CPU (`Pipeline::prepare`).
        unsafe {
            if single {
                accumulate::<V, SINGLE>(me, rc, runs, data, period, coincident)
            } else {
                accumulate::<V, FLAGS>(me, rc, runs, data, period, coincident)
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (single, me, rc, runs, data, period, coincident);
        unreachable!("the wide kernel exists on x86-64 only")
    }
}

/// [`steer_chunk`] compiled with AVX-512, so the 16-lane kernel inlines into the
/// walk instead of being called per boid.
///
/// SAFETY: the CPU has AVX-512 F, DQ and VL ([`crate::kernel512::wide`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
pub(crate) unsafe fn steer_chunk_wide<V: Vector, const FLAGS: u8, const SINGLE: u8>(
    env: &PassEnv<'_, V>,
    chunk: usize,
    out_p: &mut [V],
    out_v: &mut [V],
    out_a: &mut [V],
) -> (u64, u64) {
    steer_chunk::<V, FLAGS, SINGLE>(env, chunk, out_p, out_v, out_a)
}

/// Steers and integrates the boids of one chunk of [`CHUNK`] sorted indices,
/// writing their new state; returns (neighbours, candidates) counted.
#[inline(always)]
pub(crate) fn steer_chunk<V: Vector, const FLAGS: u8, const SINGLE: u8>(
    env: &PassEnv<'_, V>,
    chunk: usize,
    out_p: &mut [V],
    out_v: &mut [V],
    out_a: &mut [V],
) -> (u64, u64) {
    let base = chunk * CHUNK;
    let mut walk = Focuser::<V, FLAGS, SINGLE>::new(env);
    if env.batched && env.topological {
        steer_lanes::<V, FLAGS, SINGLE, true>(env, &mut walk, base, out_p, out_v, out_a);
    } else if env.batched {
        steer_lanes::<V, FLAGS, SINGLE, false>(env, &mut walk, base, out_p, out_v, out_a);
    } else if env.vicsek {
        vicsek_lanes::<V, FLAGS, SINGLE>(env, &mut walk, base, out_p, out_v, out_a);
    } else {
        for k in 0..out_p.len() {
            let f = walk.focus(base + k);
            let (p2, v2, a) = steer_one(env, &f, base + k, out_a[k]);
            out_p[k] = p2;
            out_v[k] = v2;
            out_a[k] = a;
        }
    }
    (walk.neighbours, walk.candidates)
}

/// The batched path (plain flocks: no obstacles, entities or relations): eight
/// boids' sums, then their steering in SIMD lanes.
#[inline(always)]
fn steer_lanes<V: Vector, const FLAGS: u8, const SINGLE: u8, const TOPO: bool>(
    env: &PassEnv<'_, V>,
    walk: &mut Focuser<'_, V, FLAGS, SINGLE>,
    base: usize,
    out_p: &mut [V],
    out_v: &mut [V],
    out_a: &mut [V],
) {
    let ctx = env.ctx;
    let cfg = ctx.config;
    let dt = cfg.dt;
    let mut k0 = 0;
    let mut batch = Batch::default();
    // Only wrapping and reflecting act on positions, and only outside the box.
    let bounds =
        matches!(cfg.boundary, Boundary::Wrap | Boundary::Reflect).then_some((cfg.min, cfg.max));
    while k0 < out_p.len() {
        let m = (out_p.len() - k0).min(kernel::LANES);
        let mut lanes = [(V::ZERO, 0usize, 0u32); kernel::LANES];
        for (l, info) in lanes.iter_mut().enumerate().take(m) {
            let f = walk.focus_with::<TOPO>(base + k0 + l);
            let sp = &ctx.species[f.species];
            let boid = Lane {
                sums: &f.sums,
                pos: f.pos,
                vel: f.vel,
                prev: out_a[k0 + l],
                soft: soft_force(f.pos, cfg),
                jitter: jitter(sp, cfg.seed, f.id, ctx.step),
            };
            batch.load(l, boid, f.species, sp);
            *info = (f.vel, f.species, f.id);
        }
        let s = batch.steer::<V>(dt, bounds);
        for (l, &(v, species, id)) in lanes.iter().enumerate().take(m) {
            let k = k0 + l;
            let mut p2 = batch::lane::<V>(&s.pos, l);
            let mut v2 = batch::lane::<V>(&s.vel, l);
            if s.slow & (1 << l) != 0 {
                let sp = &ctx.species[species];
                v2 = clamp_speed(batch::lane(&s.unclamped, l), v, sp, cfg.seed, id, ctx.step);
                p2 = env.sorted.position::<V>(base + k) + v2 * dt;
            }
            if bounds.is_some() && (s.outside | s.slow) & (1 << l) != 0 {
                confine(&mut p2, &mut v2, cfg);
            }
            out_p[k] = p2;
            out_v[k] = v2;
            out_a[k] = batch::lane(&s.accel, l);
        }
        k0 += m;
    }
}

/// Vicsek particles (`crate::vicsek`), eight at a time: each one's
/// alignment sum from the kernel (every other particle strictly within r, the
/// alignment radius) plus its own velocity gives the mean direction, turned by
/// its keyed noise angle in SIMD lanes.
#[inline(always)]
fn vicsek_lanes<V: Vector, const FLAGS: u8, const SINGLE: u8>(
    env: &PassEnv<'_, V>,
    walk: &mut Focuser<'_, V, FLAGS, SINGLE>,
    base: usize,
    out_p: &mut [V],
    out_v: &mut [V],
    out_a: &mut [V],
) {
    use crate::model::{Model, Vicsek};
    use crate::vicsek;
    let ctx = env.ctx;
    let cfg = ctx.config;
    let params = |s: usize| match ctx.species[s].model {
        Model::Vicsek(m) => m,
        _ => Vicsek::default(),
    };
    let mut k0 = 0;
    while k0 < out_p.len() {
        let m = (out_p.len() - k0).min(kernel::LANES);
        let mut sum = [[0.0f32; kernel::LANES]; 2];
        let mut vel = [[1.0f32; kernel::LANES]; 2];
        let mut delta = [0.0f32; kernel::LANES];
        let mut info = [(V::ZERO, V::ZERO, 0usize); kernel::LANES];
        for l in 0..m {
            let f = walk.focus(base + k0 + l);
            let s = f.sums.ali + f.vel;
            for a in 0..2 {
                sum[a][l] = s.get(a);
                vel[a][l] = f.vel.get(a);
            }
            delta[l] = vicsek::noise(&params(f.species), cfg.seed, f.id, ctx.step);
            info[l] = (f.pos, f.vel, f.species);
        }
        let u = vicsek::headings(sum, vel, delta);
        for (l, &(pos, old, species)) in info.iter().enumerate().take(m) {
            let p = params(species);
            let v = V::from_array3([p.v0 * u[0][l], p.v0 * u[1][l], 0.0]);
            let k = k0 + l;
            out_p[k] = vicsek::moved(&p, pos, old, v, cfg);
            out_v[k] = v;
            out_a[k] = (v - old) * (1.0 / cfg.dt);
        }
        k0 += m;
    }
}

/// One boid's new position, velocity and acceleration on the general path
/// (`prev`: its last acceleration, for smoothing).
#[inline(always)]
fn steer_one<V: Vector>(env: &PassEnv<'_, V>, f: &Focus<V>, si: usize, prev: V) -> (V, V, V) {
    let ctx = env.ctx;
    let cfg = ctx.config;
    let sp = &ctx.species[f.species];
    let (avoid, near_obstacle) = obstacle_steering(env, f, sp);
    let (pulse, mut target, flee, heading) = entity_steering(env, f, si, sp);
    let [sep, coh, ali] = rules::forces(&f.sums, f.vel, sp, heading);
    if sp.wander_weight > 0.0 {
        target += crate::wander::force(cfg.seed, f.id, ctx.step, cfg.dt, f.vel, sp);
    }
    // Priority order: obstacle, pulse, flee, target (and chase), separation,
    // cohesion, alignment. The leading zero stands where the soft boundary was
    // budgeted before it acted outside the budget: worlds without one keep their bits.
    let forces = [V::ZERO, avoid, pulse, flee, target, sep, coh, ali];
    let mut a = rules::combine(&forces, sp);
    // Walls hold: the boundary's steering (soft walls, the roost's turn) acts on
    // top of the steering budget, so no flocking force can starve it.
    let wall = boundary_force(f.pos, f.vel, cfg);
    if wall != V::ZERO {
        a += wall;
    }
    if sp.cruise_speed > 0.0 {
        a += rules::cruise(f.vel, sp);
    }
    if sp.smoothing > 0.0 {
        a = prev * sp.smoothing + a * (1.0 - sp.smoothing);
    }
    if sp.roll_rate > 0.0 {
        a = crate::flight::banked(a, prev, f.vel, sp, cfg.dt);
    }
    let (p2, v2) = integrate(env, f, a, sp, near_obstacle);
    (p2, v2, a)
}

/// Obstacle avoidance, and whether the step's motion must be swept against
/// the obstacles. One lookup bounds the distance to every obstacle; far from
/// all of them (most boids) nothing else is asked. Near, the avoidance and the
/// sweep give what they would anyway.
#[inline(always)]
fn obstacle_steering<V: Vector>(
    env: &PassEnv<'_, V>,
    f: &Focus<V>,
    sp: &SpeciesParams,
) -> (V, bool) {
    if !env.has_obstacles {
        // No obstacle: nothing to avoid or sweep against (the clearance would
        // be infinite).
        return (V::ZERO, false);
    }
    let (obstacles, skin) = (env.ctx.obstacles, env.skin);
    let avoid_reach = sp.obstacle_margin + f.vel.length() * sp.obstacle_lookahead;
    let sweep_reach = sp.max_speed * env.ctx.config.dt;
    let mut clear = f.cell_clear;
    if clear <= avoid_reach.max(sweep_reach) + skin {
        clear = obstacles.clearance(f.pos);
    }
    let avoid = if sp.obstacle_weight > 0.0 && clear <= avoid_reach + skin {
        obstacles.avoidance(
            f.pos,
            f.vel,
            sp.obstacle_lookahead,
            sp.obstacle_margin,
            sp.max_speed,
            sp.max_force,
        ) * sp.obstacle_weight
    } else {
        V::ZERO
    };
    (avoid, clear <= sweep_reach + skin)
}

/// The pulse push, the pull of targets, paths and prey (chase and follow), the
/// flight from predators, and the leader's direction a follower steering by
/// directions folds into its rules, of the boid at sorted index `si`.
#[inline(always)]
fn entity_steering<V: Vector>(
    env: &PassEnv<'_, V>,
    f: &Focus<V>,
    si: usize,
    sp: &SpeciesParams,
) -> (V, V, V, V) {
    let ctx = env.ctx;
    let (pos, vel) = (f.pos, f.vel);
    let mut pulse = V::ZERO;
    for q in ctx.pulses {
        pulse += q.push(pos);
    }
    let mut target = V::ZERO;
    for t in ctx.attractors {
        target += t.arrive(f.species as u16, pos, vel, sp.max_speed, sp.max_force);
    }
    for path in ctx.paths {
        target += path.follow(f.species as u16, pos, vel, sp.max_speed, sp.max_force);
    }
    let mut flee = V::ZERO;
    let mut heading = V::ZERO;
    if env.has_interactions {
        let (mut away, mut seen) = env.interactions.scattered(si);
        if env.interactions.searches(f.species) {
            let me = Seeker {
                species: f.species,
                sorted_index: si,
                id: f.id,
                pos,
                vel,
            };
            let view = Sorted {
                grid: env.grid,
                data: env.sorted,
                ids: env.ids,
            };
            let tables = Tables {
                species: ctx.species,
                relations: ctx.relations,
                view: &view,
            };
            target += env
                .interactions
                .forces(&me, &tables, &mut away, &mut seen, &mut heading);
        }
        if seen {
            flee = rules::seek(away, vel, sp) * sp.flee_weight;
        }
    }
    (pulse, target, flee, heading)
}

/// Integrates acceleration `a` (jitter, speed limits), sweeps the motion
/// against the obstacles and confines it to the box.
#[inline(always)]
fn integrate<V: Vector>(
    env: &PassEnv<'_, V>,
    f: &Focus<V>,
    a: V,
    sp: &SpeciesParams,
    near_obstacle: bool,
) -> (V, V) {
    let (ctx, skin) = (env.ctx, env.skin);
    let (cfg, obstacles) = (ctx.config, ctx.obstacles);
    let dt = cfg.dt;
    let mut v2 = f.vel + a * dt;
    if let Some(kick) = jitter(sp, cfg.seed, f.id, ctx.step) {
        v2 += kick;
    }
    v2 = clamp_speed(v2, f.vel, sp, cfg.seed, f.id, ctx.step);
    let mut p2 = f.pos + v2 * dt;
    // Sweep the motion against the obstacles, then confine; a wrap or
    // reflection can land inside one, so project again.
    if near_obstacle {
        p2 = obstacles.resolve(f.pos, p2, &mut v2, skin);
    }
    let before = p2;
    confine(&mut p2, &mut v2, cfg);
    if env.has_obstacles && p2 != before {
        p2 = obstacles.resolve(p2, p2, &mut v2, skin);
        // Pushed out of the box again: an obstacle covers the box's edge there,
        // with no free place inside. The box wins.
        confine(&mut p2, &mut v2, cfg);
    }
    (p2, v2)
}

/// The neighbour sums of one boid and what the steering reads besides them.
pub(crate) struct Focus<V> {
    /// The sums.
    pub sums: Sums<V>,
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

/// Direction that pushes boid `me` away from a coincident boid `other` (closer than
/// [`RuleConsts::eps2`](crate::RuleConsts::eps2)): a keyed random unit vector for
/// the pair, with opposite signs for the two boids. Public for reference models.
#[inline(never)]
pub fn coincident_direction<V: Vector>(seed: u64, me: BoidId, other: BoidId) -> V {
    let (lo, hi) = if me < other { (me, other) } else { (other, me) };
    let key = ((lo as u64) << 32) | hi as u64;
    let mut r = CounterRng::new(seed, key, 0, Stream::Coincident);
    let u = V::unit_from_uniform(r.next_f32(), r.next_f32());
    if me < other { u } else { -u }
}

//! The steering pass over one chunk of boids in cell order: neighbour sums from
//! the kernel, then the forces, integration and boundaries, written in place.
//!
//! Worlds without obstacles or a research model (the roost and banked flight
//! included) steer a group at a time in SIMD lanes ([`Batch`]: sixteen boids with AVX-512, eight
//! elsewhere, as the kernel's groups), each lane's forces from outside the
//! flock computed by the scalar code ([`entities`]); the rest takes the scalar
//! path. Both give the same bits.

use crate::behaviours::boundary::{boundary_force, confine};
use crate::params::{Boundary, SpeciesParams};
use crate::rng::{CounterRng, Stream};
use crate::step::batch::{self, Batch, Entities, Features, Steered};
use crate::step::focus::{Focus, Focuser, PassEnv};
use crate::step::interactions::{Near, Seeker, Sorted, Tables, add_lead};
use crate::step::kernel;
use crate::step::lanes::Lanes;
use crate::step::rules;
use crate::trig;
use crate::vector::Vector;
use wide::f32x8;

/// Boids per parallel task of the steering pass.
pub(crate) const CHUNK: usize = 256;

/// [`steer_chunk`] compiled with AVX-512, so the 16-lane steering batch
/// inlines into it; the 16-lane group kernel has its own (`Focuser::group_wide`).
///
/// SAFETY: the CPU has AVX-512 F, DQ and VL ([`crate::step::kernel512::wide`]).
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
    let mut walk = Focuser::<V, FLAGS, SINGLE>::new(env, base + out_p.len());
    if env.batched {
        #[cfg(target_arch = "x86_64")]
        if FLAGS & kernel::WIDE != 0 {
            // Sixteen lanes, as the kernel's groups (WIDE: AVX-512, see
            // `steer_chunk_wide`).
            steer_groups::<V, FLAGS, SINGLE, crate::step::kernel512::W16>(
                env, &mut walk, base, out_p, out_v, out_a,
            );
            return (walk.neighbours, walk.candidates);
        }
        steer_groups::<V, FLAGS, SINGLE, f32x8>(env, &mut walk, base, out_p, out_v, out_a);
    } else if env.vicsek {
        vicsek_lanes::<V, FLAGS, SINGLE>(env, &mut walk, base, out_p, out_v, out_a);
    } else if V::DIM == 3 && env.ctx.species.iter().any(|p| p.roll_rate > 0.0) {
        banked_blocks(env, &mut walk, base, out_p, out_v, out_a);
    } else {
        let mut near = Near::default();
        for k in 0..out_p.len() {
            let f = walk.focus(base + k);
            let (a, near_obstacle) = steer_force(env, &f, base + k, out_a[k], &mut near);
            let sp = &env.ctx.species[f.species];
            let kick = jitter(sp, env.ctx.config.seed, f.id, env.ctx.step);
            let (p2, v2) = integrate(env, &f, a, sp, near_obstacle, kick);
            out_p[k] = p2;
            out_v[k] = v2;
            out_a[k] = a;
        }
    }
    (walk.neighbours, walk.candidates)
}

/// The batched path: each group's sums go
/// straight from its lanes into the batch, a whole group at a time (`S`: the
/// kernel's lane width), with their
/// positions and velocities (no per-boid sums in between).
#[inline(always)]
fn steer_groups<V: Vector, const FLAGS: u8, const SINGLE: u8, S: Lanes>(
    env: &PassEnv<'_, V>,
    walk: &mut Focuser<'_, V, FLAGS, SINGLE>,
    base: usize,
    out_p: &mut [V],
    out_v: &mut [V],
    out_a: &mut [V],
) {
    let ctx = env.ctx;
    let cfg = ctx.config;
    let data = env.sorted;
    let mut pass = LanePass::new(env);
    // The soft walls' push and the roost's pull are loaded per lane.
    let walled = matches!(cfg.boundary, Boundary::Soft { .. } | Boundary::Roost { .. });
    let jitters = ctx.species.iter().any(|p| p.jitter > 0.0);
    // Last step's steering is read only to smooth and to bank (elsewhere the
    // lanes keep zeros, which `steer` ignores).
    let smooths = ctx
        .species
        .iter()
        .any(|p| p.smoothing > 0.0 || p.roll_rate > 0.0);
    // One species: its parameters fill every lane once.
    let single = ctx.species.len() == 1;
    if single {
        pass.batch.load_species_of(S::N, |_| 0, ctx.species);
    }
    let mut neighbours = 0u64;
    let mut k0 = 0;
    while k0 < out_p.len() {
        let (group, sums) = walk.group_lanes(base + k0);
        let m = group.len();
        pass.batch.load_sums::<V, S>(sums, data, base + k0);
        for &n in &sums[kernel::N_NB][..m] {
            neighbours += kernel::count(n) as u64;
        }
        if smooths {
            pass.batch.load_prev(&out_a[k0..k0 + m]);
        }
        if walled || jitters {
            let kicks = if jitters {
                jitters_of::<V>(
                    m,
                    |l| {
                        let si = base + k0 + l;
                        (&ctx.species[data.species[si] as usize], env.ids[si])
                    },
                    cfg.seed,
                    ctx.step,
                )
            } else {
                [None; trig::LANES]
            };
            for (l, &kick) in kicks.iter().enumerate().take(m) {
                let si = base + k0 + l;
                let wall = walled
                    .then(|| boundary_force(data.position::<V>(si), data.velocity::<V>(si), cfg));
                pass.batch.load_rest(l, wall, (jitters, kick));
            }
        }
        if !single {
            pass.batch
                .load_species_of(m, |l| data.species[base + k0 + l] as usize, ctx.species);
        }
        if pass.features.entities {
            let near = pass.near.get_or_insert_with(Near::default);
            // Followers of one leader find it for the whole group at once.
            let led = if env.has_interactions {
                env.interactions
                    .follow_lanes(ctx.species, data, env.ids, base + k0, m, near)
            } else {
                None
            };
            for l in 0..m {
                let si = base + k0 + l;
                let who = Who {
                    pos: data.position::<V>(si),
                    vel: data.velocity::<V>(si),
                    species: data.species[si] as usize,
                    id: env.ids[si],
                    led: led.map(|h| h[l]),
                };
                let e = entities(env, &who, si, near);
                pass.batch.load_entities(l, &e);
            }
        }
        pass.finish::<S>(base + k0, m, out_lanes(out_p, out_v, out_a, k0));
        k0 += m;
    }
    walk.neighbours += neighbours;
}

/// What the batched paths share: the lanes being filled, the step's time and
/// the box edges that act on positions (wrapping and reflecting only, and only
/// outside the box).
struct LanePass<'e, 'c, V: Vector> {
    env: &'e PassEnv<'c, V>,
    batch: Batch,
    dt: f32,
    bounds: Option<(V, V)>,
    /// The steering parts the pass's species use.
    features: Features,
    /// The walk's caches of the indices it asks for leaders and threats
    /// (made on first use: a plain flock never asks).
    near: Option<Near<V>>,
}

impl<'e, 'c, V: Vector> LanePass<'e, 'c, V> {
    #[inline(always)]
    fn new(env: &'e PassEnv<'c, V>) -> Self {
        let cfg = env.ctx.config;
        Self {
            env,
            batch: Batch::default(),
            dt: cfg.dt,
            bounds: matches!(cfg.boundary, Boundary::Wrap | Boundary::Reflect)
                .then_some((cfg.min, cfg.max)),
            features: Features::of(env.ctx.species, env.entities),
            near: None,
        }
    }

    /// Steers the `m` loaded lanes and writes them, the boids from sorted index
    /// `si0` on.
    #[inline(always)]
    fn finish<S: Lanes>(&mut self, si0: usize, m: usize, out: OutLanes<'_, V>) {
        let s = self
            .batch
            .steer::<V, S>(self.dt, self.bounds, self.features, self.env.ctx.species);
        write_lanes::<V, S>(self.env, &s, self.bounds.is_some(), si0, m, out);
    }
}

/// The outputs from index `k0` of a chunk: positions, velocities, steering.
type OutLanes<'o, V> = (&'o mut [V], &'o mut [V], &'o mut [V]);

/// `out_p`, `out_v` and `out_a` from index `k0` on.
fn out_lanes<'o, V>(
    out_p: &'o mut [V],
    out_v: &'o mut [V],
    out_a: &'o mut [V],
    k0: usize,
) -> OutLanes<'o, V> {
    (&mut out_p[k0..], &mut out_v[k0..], &mut out_a[k0..])
}

/// Writes the first `m` lanes of a steered batch, the boids from sorted index
/// `si0` on: lanes under their minimum speed are clamped by the scalar rule,
/// and lanes that may have left the box (`bounded`) are confined.
#[inline(always)]
fn write_lanes<V: Vector, S: Lanes>(
    env: &PassEnv<'_, V>,
    s: &Steered,
    bounded: bool,
    si0: usize,
    m: usize,
    (out_p, out_v, out_a): OutLanes<'_, V>,
) {
    if m == S::N && s.slow == 0 && (!bounded || s.outside == 0) {
        // Every lane as steered: a fixed-length loop the compiler vectorizes.
        let out = (&mut out_p[..m], &mut out_v[..m], &mut out_a[..m]);
        for l in 0..S::N {
            out.0[l] = batch::lane(&s.pos, l);
            out.1[l] = batch::lane(&s.vel, l);
            out.2[l] = batch::lane(&s.accel, l);
        }
        return;
    }
    let ctx = env.ctx;
    let cfg = ctx.config;
    let data = env.sorted;
    for l in 0..m {
        let si = si0 + l;
        let mut p2 = batch::lane::<V>(&s.pos, l);
        let mut v2 = batch::lane::<V>(&s.vel, l);
        if s.slow & (1 << l) != 0 {
            let sp = &ctx.species[data.species[si] as usize];
            let (v, u) = (data.velocity::<V>(si), batch::lane(&s.unclamped, l));
            v2 = clamp_speed(u, v, sp, cfg.seed, env.ids[si], ctx.step);
            p2 = data.position::<V>(si) + v2 * cfg.dt;
        }
        if bounded && (s.outside | s.slow) & (1 << l) != 0 {
            confine(&mut p2, &mut v2, cfg);
        }
        out_p[l] = p2;
        out_v[l] = v2;
        out_a[l] = batch::lane(&s.accel, l);
    }
}

/// Vicsek particles (`crate::models::vicsek`), eight at a time: each one's
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
    use crate::models::vicsek;
    use crate::params::model::Vicsek;
    let ctx = env.ctx;
    let cfg = ctx.config;
    let params = |s: usize| ctx.species[s].model_params::<Vicsek>();
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

/// The general path for banked fliers, [`trig::LANES`] boids at a time: each
/// one's steering as [`steer_force`] gives it, then the banks of all in lanes
/// ([`crate::behaviours::flight::banked_lanes`], the bits of one at a time),
/// then each one's motion.
#[inline(always)]
fn banked_blocks<V: Vector, const FLAGS: u8, const SINGLE: u8>(
    env: &PassEnv<'_, V>,
    walk: &mut Focuser<'_, V, FLAGS, SINGLE>,
    base: usize,
    out_p: &mut [V],
    out_v: &mut [V],
    out_a: &mut [V],
) {
    let species = env.ctx.species;
    let mut near = Near::default();
    let mut block = Vec::with_capacity(trig::LANES);
    let (mut a, mut prev, mut vel) = (
        [V::ZERO; trig::LANES],
        [V::ZERO; trig::LANES],
        [V::ZERO; trig::LANES],
    );
    let mut near_obstacle = [false; trig::LANES];
    for k0 in (0..out_p.len()).step_by(trig::LANES) {
        let m = (out_p.len() - k0).min(trig::LANES);
        block.clear();
        for l in 0..m {
            let k = k0 + l;
            let f = walk.focus(base + k);
            (a[l], near_obstacle[l]) = steer_force(env, &f, base + k, out_a[k], &mut near);
            (prev[l], vel[l]) = (out_a[k], f.vel);
            block.push(f);
        }
        let dt = env.ctx.config.dt;
        crate::behaviours::flight::banked_lanes(
            &mut a[..m],
            &prev[..m],
            &vel[..m],
            |l| &species[block[l].species],
            dt,
        );
        let kicks = jitters_of::<V>(
            m,
            |l| (&species[block[l].species], block[l].id),
            env.ctx.config.seed,
            env.ctx.step,
        );
        for (l, f) in block.iter().enumerate() {
            let k = k0 + l;
            let sp = &species[f.species];
            (out_p[k], out_v[k]) = integrate(env, f, a[l], sp, near_obstacle[l], kicks[l]);
            out_a[k] = a[l];
        }
    }
}

/// One boid's steering on the general path before banked flight (`prev`: its
/// last acceleration, for smoothing), and whether its motion must be swept
/// against the obstacles.
#[inline(always)]
fn steer_force<V: Vector>(
    env: &PassEnv<'_, V>,
    f: &Focus<V>,
    si: usize,
    prev: V,
    near: &mut Near<V>,
) -> (V, bool) {
    let ctx = env.ctx;
    let cfg = ctx.config;
    let sp = &ctx.species[f.species];
    let (avoid, near_obstacle) = obstacle_steering(env, f, sp);
    let Entities {
        pulse,
        flee,
        target,
        heading,
        afraid,
    } = entities(env, &Who::from(f), si, near);
    let [sep, coh, ali] = rules::forces(&f.sums, f.vel, sp, heading);
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
        a += rules::cruise(f.vel, sp, afraid);
    }
    if sp.smoothing > 0.0 {
        a = prev * sp.smoothing + a * (1.0 - sp.smoothing);
    }
    (a, near_obstacle)
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

/// One boid as the forces from outside its flock see it.
pub(crate) struct Who<V> {
    /// Position, units.
    pub pos: V,
    /// Velocity, units/s.
    pub vel: V,
    /// Species index.
    pub species: usize,
    /// Boid id.
    pub id: u32,
    /// What its leader adds (a heading by directions, else a force), found for its group
    /// ([`Interactions::follow_lanes`](crate::step::interactions::Interactions::follow_lanes)),
    /// or `None` for the scalar query.
    pub led: Option<Option<V>>,
}

impl<V: Copy> From<&Focus<V>> for Who<V> {
    fn from(f: &Focus<V>) -> Self {
        Self {
            pos: f.pos,
            vel: f.vel,
            species: f.species,
            id: f.id,
            led: None,
        }
    }
}

/// The pulse push, the pull of targets, paths and prey (chase and follow)
/// with the wander, the flight from predators, the leader's direction a
/// follower steering by directions folds into its rules, and whether a
/// threat is in sight (fear), of the boid `f` at sorted index `si`: the same
/// for the scalar path and the lanes.
#[inline(always)]
pub(crate) fn entities<V: Vector>(
    env: &PassEnv<'_, V>,
    f: &Who<V>,
    si: usize,
    near: &mut Near<V>,
) -> Entities<V> {
    let ctx = env.ctx;
    let cfg = ctx.config;
    let sp = &ctx.species[f.species];
    let (pos, vel) = (f.pos, f.vel);
    let mut pulse = V::ZERO;
    for q in ctx.pulses {
        pulse += q.push(pos);
    }
    let mut target = V::ZERO;
    for (k, t) in ctx.attractors.iter().enumerate() {
        let way = env.ways.get(k).and_then(Option::as_ref);
        target += t.arrive(
            f.species as u16,
            pos,
            vel,
            (sp.max_speed, sp.max_force),
            way,
        );
    }
    for path in ctx.paths {
        target += path.follow(f.species as u16, pos, vel, sp.max_speed, sp.max_force);
    }
    let mut flee = V::ZERO;
    let mut heading = V::ZERO;
    let mut afraid = false;
    if env.has_interactions {
        let (mut away, mut seen) = env.interactions.scattered(si);
        if let (Some(led), true) = (f.led, env.interactions.follow_only(f.species)) {
            // What `forces` does with what the lanes found, and returns (its
            // pull starts at zero).
            let mut pull = V::ZERO;
            add_lead(led, sp, &mut heading, &mut pull);
            target += pull;
        } else if env.interactions.searches(f.species) {
            let me = Seeker {
                species: f.species,
                sorted_index: si,
                id: f.id,
                pos,
                vel,
                led: f.led,
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
            target +=
                env.interactions
                    .forces(&me, &tables, &mut away, &mut seen, &mut heading, near);
        }
        if seen {
            flee = crate::behaviours::seek(away, vel, sp) * sp.flee_weight;
        }
        afraid = seen;
    }
    if sp.wander_weight > 0.0 {
        target += crate::behaviours::wander::force(cfg.seed, f.id, ctx.step, cfg.dt, vel, sp);
    }
    Entities {
        pulse,
        flee,
        target,
        heading,
        afraid,
    }
}

/// Integrates acceleration `a` and the jitter's `kick` ([`jitter`]) under the
/// speed limits, sweeps the motion
/// against the obstacles and confines it to the box.
#[inline(always)]
fn integrate<V: Vector>(
    env: &PassEnv<'_, V>,
    f: &Focus<V>,
    a: V,
    sp: &SpeciesParams,
    near_obstacle: bool,
    kick: Option<V>,
) -> (V, V) {
    let (ctx, skin) = (env.ctx, env.skin);
    let (cfg, obstacles) = (ctx.config, ctx.obstacles);
    let dt = cfg.dt;
    let mut v2 = f.vel + a * dt;
    if let Some(kick) = kick {
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

/// [`jitter`] for the `m` boids of a group (`who(l)`: lane l's species and
/// id), the directions' sines and cosines taken in lanes: the same draws in
/// the same order, the same bits ([`trig::sincos_lanes`]).
#[inline(always)]
fn jitters_of<'a, V: Vector>(
    m: usize,
    who: impl Fn(usize) -> (&'a SpeciesParams, u32),
    seed: u64,
    step: u64,
) -> [Option<V>; trig::LANES] {
    debug_assert!(m <= trig::LANES);
    let mut angle = [0.0f32; trig::LANES];
    let (mut w, mut size) = ([0.0f32; trig::LANES], [0.0f32; trig::LANES]);
    let mut on = [false; trig::LANES];
    for l in 0..m.min(trig::LANES) {
        let (sp, id) = who(l);
        if sp.jitter <= 0.0 {
            continue;
        }
        let mut r = CounterRng::new(seed, id as u64, step, Stream::Jitter);
        angle[l] = r.next_f32() * std::f32::consts::TAU;
        w[l] = r.next_f32();
        size[l] = sp.jitter * sp.max_speed * r.next_f32();
        on[l] = true;
    }
    let (s, c) = trig::sincos_lanes(&angle);
    std::array::from_fn(|l| on[l].then(|| V::unit_from_sincos(s[l], c[l], w[l]) * size[l]))
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

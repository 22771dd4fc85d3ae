//! Steering a group of boids at once: the per-boid half of the step (the rule
//! forces, the weighted sum and its clamp or prioritized allocation,
//! integration, the speed clamp) in SIMD
//! lanes, eight anywhere and sixteen with AVX-512 (any [`Simd`] width).
//!
//! Each boid needs about ten scalar square roots and divisions after its neighbour
//! sums, and the divider is the busiest unit of the step. A group's boids share
//! each vector operation here: sixteen per instruction with AVX-512, whose
//! square root and division issue as often as the 8-lane ones on the machines
//! measured (BENCHMARKS.md), so each boid's share of the divider halves. Every
//! lane performs exactly the scalar path's operations in the same order (IEEE square root, division, products and sums are the same in
//! a lane as in a scalar register), so the results are bit-identical to
//! [`crate::step::rules`] and `clamp_speed`: the golden digests pin it for
//! plain flocks, and a test against the forced scalar path for every method
//! and force (`batched_steering_with_leaders_predators_and_every_method_matches_the_scalar_path`).
//!
//! Used for every world without obstacles or a research model (each steering
//! method, cruise, the roost, banked flight, and the forces from outside the
//! flock, loaded per lane); the scalar path handles the rest.

#![allow(
    clippy::needless_range_loop,
    reason = "axis loops index several per-axis arrays in step"
)]

use crate::params::{CombineMode, SpeciesParams, Steering};
use crate::step::kernel::{self, GroupLanes, MAX_LANES, SortedSoa};
use crate::step::lanes::Lanes as Simd;
use crate::vector::Vector;

/// One value per lane (of the widest vector; narrower ones use the first).
type Lanes = [f32; MAX_LANES];

/// The inputs of up to sixteen boids, lane by lane. Lanes not loaded keep whatever
/// they held (their results are ignored).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Batch {
    sep: [Lanes; 3],
    ali: [Lanes; 3],
    coh: [Lanes; 3],
    /// The boid's alignment (cohesion) neighbours: above 0.0 where it has some.
    n_ali: Lanes,
    n_coh: Lanes,
    pos: [Lanes; 3],
    vel: [Lanes; 3],
    /// The boundary's force: the soft walls' push or the roost's pull (zero
    /// for other boundaries).
    wall: [Lanes; 3],
    /// Last step's steering, for smoothing and banked flight.
    prev: [Lanes; 3],
    /// The jitter kick, added where `has_jitter` is 1.0.
    jitter: [Lanes; 3],
    has_jitter: Lanes,
    max_speed: Lanes,
    max_force: Lanes,
    min_speed: Lanes,
    w_sep: Lanes,
    w_ali: Lanes,
    w_coh: Lanes,
    smoothing: Lanes,
    /// 1.0 where the species combines by prioritized allocation, else 0.0.
    prioritized: Lanes,
    /// The species' [`Steering`]: 0.0 per rule, 1.0 directions, 2.0 raw.
    method: Lanes,
    /// The cruising speed calm and with a threat in sight (0.0: no cruise).
    cruise_calm: Lanes,
    cruise_afraid: Lanes,
    cruise_time: Lanes,
    /// The pulse push, the flight, the pull of targets, paths and prey (with
    /// the wander), the leaders' direction and 1.0 where a threat is in
    /// sight ([`Batch::load_entities`]).
    pulse: [Lanes; 3],
    flee: [Lanes; 3],
    target: [Lanes; 3],
    heading: [Lanes; 3],
    afraid: Lanes,
    /// One more than the species whose parameters each lane holds (0: none yet).
    species: [u32; MAX_LANES],
}

/// What [`Batch::steer`] gives back for each lane.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Steered {
    /// New position, before the boundary is applied.
    pub pos: [Lanes; 3],
    /// New velocity, speed-clamped (except in `slow` lanes).
    pub vel: [Lanes; 3],
    /// Velocity before the speed clamp (for `slow` lanes).
    pub unclamped: [Lanes; 3],
    /// The steering acceleration (after smoothing and banked flight).
    pub accel: [Lanes; 3],
    /// Lanes below their minimum speed: the caller clamps them with the scalar
    /// rule (rare, and it may need a keyed random heading).
    pub slow: u32,
    /// Lanes whose new position lies outside `[lo, hi)` on some axis (see
    /// [`Batch::steer`]): only these can need the positional boundary.
    pub outside: u32,
}

fn set<V: Vector>(dst: &mut [Lanes; 3], lane: usize, v: V) {
    for (a, d) in dst.iter_mut().enumerate().take(V::DIM) {
        d[lane] = v.get(a);
    }
}

/// Lane `l` of a per-axis array as a vector.
pub(crate) fn lane<V: Vector>(src: &[Lanes; 3], l: usize) -> V {
    let mut v = V::ZERO;
    for a in 0..V::DIM {
        v.set(a, src[a][l]);
    }
    v
}

/// One boid's forces from outside its flock, as the scalar path's
/// `steer::entities` gives them (the target's pull with the wander added).
#[derive(Clone, Copy, Debug, Default)]
pub struct Entities<V> {
    /// The pulses' push, units/s².
    pub pulse: V,
    /// The flight from predators, units/s².
    pub flee: V,
    /// The pull of targets, paths and prey, and the wander, units/s².
    pub target: V,
    /// The leaders' weighted direction (steering by directions).
    pub heading: V,
    /// A threat is in sight.
    pub afraid: bool,
}

/// The optional parts of the steering a pass's batches use, decided once per
/// pass (a part no lane uses costs nothing).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Features {
    /// [`Entities`] are loaded into every lane.
    pub entities: bool,
    /// Some species steers per rule, by directions, by raw vectors, cruises.
    pub per_rule: bool,
    pub directions: bool,
    pub raw: bool,
    pub cruise: bool,
    /// Some species flies banked.
    pub banked: bool,
}

impl Features {
    /// The parts the species use, with entities when `entities`.
    pub fn of(species: &[SpeciesParams], entities: bool) -> Self {
        let any = |m: Steering| species.iter().any(|p| p.steering == m);
        Self {
            entities,
            per_rule: any(Steering::PerRule),
            directions: any(Steering::Directions),
            raw: any(Steering::Raw),
            cruise: species.iter().any(|p| p.cruise_speed > 0.0),
            banked: species.iter().any(|p| p.roll_rate > 0.0),
        }
    }
}

impl Batch {
    /// Fills lanes `0..S::N` with a group's sums and the positions and
    /// velocities of its boids `si..si + S::N` of `data`. Lanes past the
    /// group's boids get values whose results are ignored.
    #[inline(always)]
    pub fn load_sums<V: Vector, S: Simd>(
        &mut self,
        sums: &GroupLanes,
        data: &SortedSoa,
        si: usize,
    ) {
        let n = S::N;
        let copy = |dst: &mut Lanes, row: &[f32], at: usize| {
            dst[..n].copy_from_slice(&row[at..at + n]);
        };
        for a in 0..V::DIM {
            copy(&mut self.sep[a], &sums[kernel::SEP + a], 0);
            copy(&mut self.ali[a], &sums[kernel::ALI + a], 0);
            copy(&mut self.coh[a], &sums[kernel::COH + a], 0);
            // Padded by PAD (16) past the last boid: in bounds from any boid.
            copy(&mut self.pos[a], &data.pos[a], si);
            copy(&mut self.vel[a], &data.vel[a], si);
        }
        // Counts, as `load` sets them.
        copy(&mut self.n_ali, &sums[kernel::N_ALI], 0);
        copy(&mut self.n_coh, &sums[kernel::N_COH], 0);
    }

    /// Last step's steering of the boids in lanes `0..prev.len()`, for
    /// smoothing.
    #[inline(always)]
    pub fn load_prev<V: Vector>(&mut self, prev: &[V]) {
        for (l, &p) in prev.iter().enumerate() {
            set(&mut self.prev, l, p);
        }
    }

    /// The rest of lane `l` after [`Batch::load_sums`] and [`Batch::load_prev`]:
    /// the boundary's force (when the boundary is soft or a roost) and the
    /// jitter kick (when some species jitters: `jitter.0`).
    #[inline(always)]
    pub fn load_rest<V: Vector>(&mut self, l: usize, wall: Option<V>, jitter: (bool, Option<V>)) {
        if let Some(wall) = wall {
            set(&mut self.wall, l, wall);
        }
        if jitter.0 {
            set(&mut self.jitter, l, jitter.1.unwrap_or(V::ZERO));
            self.has_jitter[l] = if jitter.1.is_some() { 1.0 } else { 0.0 };
        }
    }

    /// Lanes `0..m`'s species parameters: those of species `species(l)`.
    #[inline(always)]
    pub fn load_species_of(
        &mut self,
        m: usize,
        species: impl Fn(usize) -> usize,
        params: &[SpeciesParams],
    ) {
        for l in 0..m {
            let s = species(l);
            self.load_species(l, s, &params[s]);
        }
    }

    /// Lane `l`'s species parameters, copied only when it held another species.
    #[inline(always)]
    fn load_species(&mut self, l: usize, species: usize, sp: &SpeciesParams) {
        let tag = species as u32 + 1;
        if self.species[l] == tag {
            return;
        }
        self.species[l] = tag;
        self.max_speed[l] = sp.max_speed;
        self.max_force[l] = sp.max_force;
        self.min_speed[l] = sp.min_speed;
        self.w_sep[l] = sp.separation_weight;
        self.w_ali[l] = sp.alignment_weight;
        self.w_coh[l] = sp.cohesion_weight;
        self.smoothing[l] = sp.smoothing;
        self.prioritized[l] = f32::from(u8::from(sp.combine == CombineMode::Prioritized));
        self.method[l] = match sp.steering {
            Steering::PerRule => 0.0,
            Steering::Directions => 1.0,
            Steering::Raw => 2.0,
        };
        // `rules::cruise`'s two speeds.
        self.cruise_calm[l] = sp.cruise_speed.max(0.0);
        self.cruise_afraid[l] = crate::step::rules::afraid_cruise(sp);
        self.cruise_time[l] = sp.cruise_time;
    }

    /// Lane `l`'s forces from outside the flock ([`Entities`]), for passes
    /// with [`Features::entities`].
    #[inline(always)]
    pub fn load_entities<V: Vector>(&mut self, l: usize, e: &Entities<V>) {
        set(&mut self.pulse, l, e.pulse);
        set(&mut self.flee, l, e.flee);
        set(&mut self.target, l, e.target);
        set(&mut self.heading, l, e.heading);
        self.afraid[l] = if e.afraid { 1.0 } else { 0.0 };
    }

    /// Steers and integrates every lane over `dt` seconds: `rules::forces`,
    /// `rules::combine` (weighted or prioritized), the soft wall or the
    /// roost's pull, cruise, smoothing, banked flight, jitter, `clamp_speed` and the position update, operation for
    /// operation; `f` names the parts some lane uses.
    ///
    /// `bounds`, when given, is the world box: lanes that end outside it are
    /// flagged in [`Steered::outside`].
    #[inline(always)]
    pub fn steer<V: Vector, S: Simd>(
        &self,
        dt: f32,
        bounds: Option<(V, V)>,
        f: Features,
        species: &[SpeciesParams],
    ) -> Steered {
        let d = V::DIM;
        let zero = S::splat(0.0);
        let one = S::splat(1.0);
        let dtv = S::splat(dt);
        // Helpers are functions, not closures: a closure is compiled on its
        // own, without the AVX-512 of the function this is inlined into, so
        // every 16-lane operation in it would be a call.
        let ld1 = S::from_slice;
        let ld = ld3::<S>;
        let max_force = ld1(&self.max_force);
        let vel = ld(&self.vel);
        let rules = self.rule_forces::<S>(&vel, d, f);
        let mut accel = self.combine::<S>(&rules, max_force, d, f);
        let wall = ld(&self.wall);
        let mut unwalled = S::lanes(0, S::N);
        for a in 0..d {
            unwalled = S::and(unwalled, wall[a].eq(zero));
        }
        for a in 0..d {
            accel[a] = S::select(unwalled, accel[a], accel[a] + wall[a]);
        }
        if f.cruise {
            self.cruise::<S>(&vel, &mut accel, d);
        }
        let smoothing = ld1(&self.smoothing);
        let smooth = zero.lt(smoothing);
        let prev = ld(&self.prev);
        for a in 0..d {
            let s = prev[a] * smoothing + accel[a] * (one - smoothing);
            accel[a] = S::select(smooth, s, accel[a]);
        }
        if f.banked {
            self.bank::<V, S>(&mut accel, dt, species);
        }
        self.integrate::<V, S>(&vel, &accel, dtv, bounds, d)
    }

    /// Banked flight in every lane whose species banks
    /// ([`crate::behaviours::flight::banked_lanes`], the scalar path's bits):
    /// `accel` becomes the acceleration the bird applies.
    #[inline(always)]
    fn bank<V: Vector, S: Simd>(&self, accel: &mut [S; 3], dt: f32, species: &[SpeciesParams]) {
        let mut lanes = [[0.0f32; MAX_LANES]; 3];
        for a in 0..V::DIM {
            accel[a].write_to(&mut lanes[a]);
        }
        let at = |c: &[Lanes; 3], l: usize| lane::<V>(c, l);
        let mut acc: [V; MAX_LANES] = std::array::from_fn(|l| at(&lanes, l));
        let prev: [V; MAX_LANES] = std::array::from_fn(|l| at(&self.prev, l));
        let vel: [V; MAX_LANES] = std::array::from_fn(|l| at(&self.vel, l));
        // A lane never loaded (tag 0) holds values whose results are ignored.
        let params = |l: usize| &species[self.species[l].saturating_sub(1) as usize];
        crate::behaviours::flight::banked_lanes(&mut acc[..S::N], &prev, &vel, params, dt);
        for (l, x) in acc.iter().enumerate().take(S::N) {
            set(&mut lanes, l, *x);
        }
        for a in 0..V::DIM {
            accel[a] = S::from_slice(&lanes[a]);
        }
    }

    /// The three rule forces of every lane, weighted, by its species'
    /// steering method (`rules::forces`).
    #[inline(always)]
    fn rule_forces<S: Simd>(&self, vel: &[S; 3], d: usize, f: Features) -> [[S; 3]; 3] {
        let zero = S::splat(0.0);
        let ld1 = S::from_slice;
        let ld = ld3::<S>;
        let max_speed = ld1(&self.max_speed);
        let max_force = ld1(&self.max_force);
        let (w_sep, w_coh, w_ali) = (ld1(&self.w_sep), ld1(&self.w_coh), ld1(&self.w_ali));
        let (n_coh, n_ali) = (ld1(&self.n_coh), ld1(&self.n_ali));
        let (has_coh, has_ali) = (zero.lt(n_coh), zero.lt(n_ali));
        let (sums_sep, sums_coh, sums_ali) = (ld(&self.sep), ld(&self.coh), ld(&self.ali));
        let mut out = [[zero; 3]; 3];
        if f.per_rule {
            let sep = seek(&sums_sep, vel, max_speed, max_force, d);
            let coh = seek(&sums_coh, vel, max_speed, max_force, d);
            let ali = seek(&sums_ali, vel, max_speed, max_force, d);
            for a in 0..3 {
                out[0][a] = sep[a] * w_sep;
                out[1][a] = S::select(has_coh, coh[a] * w_coh, zero);
                out[2][a] = S::select(has_ali, ali[a] * w_ali, zero);
            }
        }
        let method = ld1(&self.method);
        if f.directions {
            // One desired direction: the weighted unit directions and the
            // leaders' heading, in the scalar order, then one seek.
            let heading = if f.entities {
                ld(&self.heading)
            } else {
                [zero; 3]
            };
            let (sep, coh, ali) = (unit(&sums_sep, d), unit(&sums_coh, d), unit(&sums_ali, d));
            let mut dir = [zero; 3];
            for a in 0..d {
                dir[a] = sep[a] * w_sep + heading[a];
                dir[a] = S::select(has_ali, dir[a] + ali[a] * w_ali, dir[a]);
                dir[a] = S::select(has_coh, dir[a] + coh[a] * w_coh, dir[a]);
            }
            let one = seek(&dir, vel, max_speed, max_force, d);
            let m = method.eq(S::splat(1.0));
            for a in 0..3 {
                out[0][a] = S::select(m, one[a], out[0][a]);
                out[1][a] = S::select(m, zero, out[1][a]);
                out[2][a] = S::select(m, zero, out[2][a]);
            }
        }
        if f.raw {
            // The rule vectors themselves: mean offset, mean velocity less
            // the boid's.
            let m = method.eq(S::splat(2.0));
            let (k_coh, k_ali) = (w_coh / n_coh, S::splat(1.0) / n_ali);
            for a in 0..3 {
                let coh = S::select(has_coh, sums_coh[a] * k_coh, zero);
                let ali = S::select(has_ali, (sums_ali[a] * k_ali - vel[a]) * w_ali, zero);
                out[0][a] = S::select(m, sums_sep[a] * w_sep, out[0][a]);
                out[1][a] = S::select(m, coh, out[1][a]);
                out[2][a] = S::select(m, ali, out[2][a]);
            }
        }
        out
    }

    /// `rules::combine` of the forces in priority order (the scalar path's
    /// leading zero and absent obstacle force leave `+0` and the whole
    /// budget): the pulse, flight and target forces when loaded, then the
    /// rules.
    #[inline(always)]
    fn combine<S: Simd>(&self, rules: &[[S; 3]; 3], max_force: S, d: usize, f: Features) -> [S; 3] {
        let pri = S::from_slice(&self.prioritized);
        if f.entities {
            let ld = ld3::<S>;
            let [sep, coh, ali] = *rules;
            let forces = [
                ld(&self.pulse),
                ld(&self.flee),
                ld(&self.target),
                sep,
                coh,
                ali,
            ];
            combine(&forces, pri, max_force, d)
        } else {
            combine(rules, pri, max_force, d)
        }
    }

    /// `rules::cruise` added to `accel` in the lanes whose species cruises.
    #[inline(always)]
    fn cruise<S: Simd>(&self, vel: &[S; 3], accel: &mut [S; 3], d: usize) {
        let zero = S::splat(0.0);
        let ld1 = S::from_slice;
        let calm = ld1(&self.cruise_calm);
        let cruises = zero.lt(calm);
        let afraid = zero.lt(ld1(&self.afraid));
        let target = S::select(afraid, ld1(&self.cruise_afraid), calm);
        let speed = len2(vel, d).sqrt();
        let still = speed.le(S::splat(1e-12));
        let k = (target - speed) / (ld1(&self.cruise_time) * speed);
        for a in 0..d {
            let c = S::select(still, zero, vel[a] * k);
            accel[a] = S::select(cruises, accel[a] + c, accel[a]);
        }
    }

    /// Jitter, `clamp_speed` (over the maximum; under the minimum is left to
    /// the caller) and the position update.
    #[inline(always)]
    fn integrate<V: Vector, S: Simd>(
        &self,
        vel: &[S; 3],
        accel: &[S; 3],
        dtv: S,
        bounds: Option<(V, V)>,
        d: usize,
    ) -> Steered {
        let zero = S::splat(0.0);
        let one = S::splat(1.0);
        let ld1 = S::from_slice;
        let jitter = ld3::<S>(&self.jitter);
        let jittered = zero.lt(ld1(&self.has_jitter));
        let mut v2 = [zero; 3];
        for a in 0..d {
            let v = vel[a] + accel[a] * dtv;
            v2[a] = S::select(jittered, v + jitter[a], v);
        }
        let max_speed = ld1(&self.max_speed);
        let s2 = len2(&v2, d);
        let max2 = max_speed * max_speed;
        let over = max2.lt(s2);
        let scale = S::select(over, max_speed / s2.sqrt(), one);
        let min_speed = ld1(&self.min_speed);
        // Not over (a NaN speed is neither, and not under the minimum either).
        let slow = S::and(
            s2.le(max2),
            S::and(zero.lt(min_speed), s2.lt(min_speed * min_speed)),
        );
        let pos = ld3::<S>(&self.pos);
        let mut out = Steered {
            slow: S::bits(slow),
            ..Steered::default()
        };
        let mut outside = S::lanes(0, 0);
        for a in 0..d {
            let v = v2[a] * scale;
            let p = pos[a] + v * dtv;
            if let Some((lo, hi)) = bounds {
                let out_a = S::or(p.lt(S::splat(lo.get(a))), p.ge(S::splat(hi.get(a))));
                outside = S::or(outside, out_a);
            }
            v.write_to(&mut out.vel[a]);
            v2[a].write_to(&mut out.unclamped[a]);
            accel[a].write_to(&mut out.accel[a]);
            p.write_to(&mut out.pos[a]);
        }
        out.outside = S::bits(outside);
        out
    }
}

/// The weighted sum of `forces` clamped to `max_force`, or their prioritized
/// allocation in the lanes where `pri` is above zero (`rules::combine`).
#[inline(always)]
fn combine<S: Simd, const N: usize>(
    forces: &[[S; 3]; N],
    pri: S,
    max_force: S,
    d: usize,
) -> [S; 3] {
    let zero = S::splat(0.0);
    let mut acc = [zero; 3];
    for a in 0..d {
        for force in forces {
            acc[a] = acc[a] + force[a];
        }
    }
    let mut accel = clamp(acc, max_force, d);
    // Prioritized allocation, only for groups that hold such a species.
    let pri = zero.lt(pri);
    if S::bits(pri) != 0 {
        let p = prioritized(forces, max_force, d);
        for a in 0..d {
            accel[a] = S::select(pri, p[a], accel[a]);
        }
    }
    accel
}

/// The first `S::N` lanes of each axis of `x`.
#[inline(always)]
fn ld3<S: Simd>(x: &[Lanes; 3]) -> [S; 3] {
    [
        S::from_slice(&x[0]),
        S::from_slice(&x[1]),
        S::from_slice(&x[2]),
    ]
}

/// Squared length over the first `d` axes, left to right like glam's dot.
#[inline(always)]
fn len2<S: Simd>(x: &[S; 3], d: usize) -> S {
    let mut s = x[0] * x[0];
    for a in 1..d {
        s = s + x[a] * x[a];
    }
    s
}

/// `Vector::clamp_length_max` lane by lane.
#[inline(always)]
fn clamp<S: Simd>(x: [S; 3], max: S, d: usize) -> [S; 3] {
    let l2 = len2(&x, d);
    let scale = S::select((max * max).lt(l2), max / l2.sqrt(), S::splat(1.0));
    [x[0] * scale, x[1] * scale, x[2] * scale]
}

/// `rules::combine`'s prioritized allocation lane by lane, over the forces in
/// priority order (entity forces, then the rules; the scalar path's leading
/// zero forces each fit and leave `+0` and the whole budget): each force that
/// fits the budget left is added whole and spends its length; the first that
/// does not gets the rest of the budget along its direction, and allocation
/// stops.
#[inline(always)]
fn prioritized<S: Simd, const N: usize>(forces: &[[S; 3]; N], max_force: S, d: usize) -> [S; 3] {
    let zero = S::splat(0.0);
    let mut acc = [zero; 3];
    let mut left = max_force;
    let mut going = S::lanes(0, S::N);
    for f in forces {
        let m = len2(f, d).sqrt();
        let fits = S::and(going, m.le(left));
        // Over the budget (so longer than zero); a NaN length neither fits
        // nor is cut, and stops allocation as the scalar `break` does.
        let cut = S::and(going, left.lt(m));
        let share = left / m;
        for a in 0..d {
            acc[a] = S::select(fits, acc[a] + f[a], acc[a]);
            acc[a] = S::select(cut, acc[a] + f[a] * share, acc[a]);
        }
        left = S::select(fits, left - m, left);
        going = fits;
    }
    acc
}

/// `Vector::normalize_or_zero` lane by lane.
#[inline(always)]
fn unit<S: Simd>(x: &[S; 3], d: usize) -> [S; 3] {
    let zero = S::splat(0.0);
    let l2 = len2(x, d);
    let ok = S::and(S::splat(1e-30).lt(l2), l2.lt(S::splat(f32::INFINITY)));
    let inv = S::splat(1.0) / l2.sqrt();
    let mut unit = [zero; 3];
    for a in 0..d {
        unit[a] = S::select(ok, x[a] * inv, zero);
    }
    unit
}

/// `behaviours::seek` lane by lane: normalize_or_zero, desired − velocity,
/// clamped; zero when the direction is zero.
#[inline(always)]
fn seek<S: Simd>(x: &[S; 3], vel: &[S; 3], max_speed: S, max_force: S, d: usize) -> [S; 3] {
    let zero = S::splat(0.0);
    let unit = unit(x, d);
    let mut is_zero = S::lanes(0, S::N);
    for a in 0..d {
        is_zero = S::and(is_zero, unit[a].eq(zero));
    }
    let mut desired = [zero; 3];
    for a in 0..d {
        desired[a] = unit[a] * max_speed - vel[a];
    }
    let c = clamp(desired, max_force, d);
    [
        S::select(is_zero, zero, c[0]),
        S::select(is_zero, zero, c[1]),
        S::select(is_zero, zero, c[2]),
    ]
}

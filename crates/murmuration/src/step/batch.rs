//! Steering a group of boids at once: the per-boid half of the step (three
//! seeks, the weighted sum and its clamp or prioritized allocation,
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
//! [`crate::step::rules`] and `clamp_speed`: the golden digests pin it.
//!
//! Used for plain worlds (per-rule seeks, no obstacles, targets, pulses, paths
//! or predators); the scalar path handles everything else.

#![allow(
    clippy::needless_range_loop,
    reason = "axis loops index several per-axis arrays in step"
)]

use crate::params::{CombineMode, SpeciesParams};
use crate::step::kernel::{self, GroupLanes, MAX_LANES, SortedSoa};
use crate::step::lanes::Lanes as Simd;
use crate::step::rules::Sums;
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
    /// 1.0 where the boid has alignment (cohesion) neighbours, else 0.0.
    has_ali: Lanes,
    has_coh: Lanes,
    pos: [Lanes; 3],
    vel: [Lanes; 3],
    /// The soft-boundary force (zero for other boundaries).
    soft: [Lanes; 3],
    /// Last step's steering, for smoothing.
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
    /// The steering acceleration (after smoothing).
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

/// One boid's input to a lane of the batch.
pub struct Lane<'a, V> {
    /// Its neighbour sums.
    pub sums: &'a Sums<V>,
    /// Position, units.
    pub pos: V,
    /// Velocity, units/s.
    pub vel: V,
    /// The steering it applied last step (for smoothing), units/s².
    pub prev: V,
    /// The soft boundary's push, units/s².
    pub soft: V,
    /// The kick the scalar path would add to its velocity, if any.
    pub jitter: Option<V>,
}

impl Batch {
    /// Fills lane `l` with one boid's sums and state and the parameters `sp` of
    /// its species `species` (copied only when the lane held another species:
    /// within one batch's lifetime the parameters do not change).
    /// Inlined: out of line it cost 89 instructions per boid-step in 3D.
    #[inline(always)]
    pub fn load<V: Vector>(
        &mut self,
        l: usize,
        boid: Lane<'_, V>,
        species: usize,
        sp: &SpeciesParams,
    ) {
        let Lane {
            sums,
            pos,
            vel,
            prev,
            soft,
            jitter,
        } = boid;
        set(&mut self.sep, l, sums.sep);
        set(&mut self.ali, l, sums.ali);
        set(&mut self.coh, l, sums.coh);
        self.has_ali[l] = if sums.ali_n > 0 { 1.0 } else { 0.0 };
        self.has_coh[l] = if sums.coh_n > 0 { 1.0 } else { 0.0 };
        set(&mut self.pos, l, pos);
        set(&mut self.vel, l, vel);
        set(&mut self.soft, l, soft);
        set(&mut self.prev, l, prev);
        // Every per-boid field is written (and the species' fields whenever the
        // lane's species changes), so a batch can be reused without clearing.
        set(&mut self.jitter, l, jitter.unwrap_or(V::ZERO));
        self.has_jitter[l] = if jitter.is_some() { 1.0 } else { 0.0 };
        self.load_species(l, species, sp);
    }

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
        // Counts: above zero exactly where `load` sets 1.0 (`steer` asks > 0).
        copy(&mut self.has_ali, &sums[kernel::N_ALI], 0);
        copy(&mut self.has_coh, &sums[kernel::N_COH], 0);
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
    /// the soft boundary's push (when the boundary is soft) and the jitter kick
    /// (when some species jitters: `jitter.0`).
    #[inline(always)]
    pub fn load_rest<V: Vector>(&mut self, l: usize, soft: Option<V>, jitter: (bool, Option<V>)) {
        if let Some(soft) = soft {
            set(&mut self.soft, l, soft);
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
    }

    /// Steers and integrates every lane over `dt` seconds: `rules::forces`,
    /// `rules::combine` (weighted or prioritized), smoothing, jitter, `clamp_speed` and the position
    /// update, operation for operation.
    ///
    /// `bounds`, when given, is the world box: lanes that end outside it are
    /// flagged in [`Steered::outside`].
    #[inline(always)]
    pub fn steer<V: Vector, S: Simd>(&self, dt: f32, bounds: Option<(V, V)>) -> Steered {
        let d = V::DIM;
        let zero = S::splat(0.0);
        let one = S::splat(1.0);
        let dtv = S::splat(dt);
        // Helpers are functions, not closures: a closure is compiled on its
        // own, without the AVX-512 of the function this is inlined into, so
        // every 16-lane operation in it would be a call.
        let ld1 = S::from_slice;
        let ld = ld3::<S>;
        let max_speed = ld1(&self.max_speed);
        let max_force = ld1(&self.max_force);
        let vel = ld(&self.vel);
        let w_sep = ld1(&self.w_sep);
        let mut sep = seek(&ld(&self.sep), &vel, max_speed, max_force, d);
        let has_coh = zero.lt(ld1(&self.has_coh));
        let w_coh = ld1(&self.w_coh);
        let mut coh = seek(&ld(&self.coh), &vel, max_speed, max_force, d);
        let has_ali = zero.lt(ld1(&self.has_ali));
        let w_ali = ld1(&self.w_ali);
        let mut ali = seek(&ld(&self.ali), &vel, max_speed, max_force, d);
        for a in 0..3 {
            sep[a] = sep[a] * w_sep;
            coh[a] = S::select(has_coh, coh[a] * w_coh, zero);
            ali[a] = S::select(has_ali, ali[a] * w_ali, zero);
        }

        // Weighted sum in priority order: the absent obstacle, pulse, flee and
        // target forces after the scalar path's leading zero (one +0 is what their
        // additions do to a -0 component), then the rules; the soft boundary acts
        // on top of the clamped sum, where the scalar path adds it when nonzero.
        let mut acc = [zero; 3];
        for a in 0..d {
            acc[a] = ((zero + sep[a]) + coh[a]) + ali[a];
        }
        let mut accel = clamp(acc, max_force, d);
        // Prioritized allocation, only for groups that hold such a species.
        let pri = zero.lt(ld1(&self.prioritized));
        if S::bits(pri) != 0 {
            let p = prioritized(&[sep, coh, ali], max_force, d);
            for a in 0..d {
                accel[a] = S::select(pri, p[a], accel[a]);
            }
        }
        let soft = ld(&self.soft);
        let mut unwalled = S::lanes(0, S::N);
        for a in 0..d {
            unwalled = S::and(unwalled, soft[a].eq(zero));
        }
        for a in 0..d {
            accel[a] = S::select(unwalled, accel[a], accel[a] + soft[a]);
        }

        let smoothing = ld1(&self.smoothing);
        let smooth = zero.lt(smoothing);
        let prev = ld(&self.prev);
        for a in 0..d {
            let s = prev[a] * smoothing + accel[a] * (one - smoothing);
            accel[a] = S::select(smooth, s, accel[a]);
        }
        let jitter = ld(&self.jitter);
        let jittered = zero.lt(ld1(&self.has_jitter));
        let mut v2 = [zero; 3];
        for a in 0..d {
            let v = vel[a] + accel[a] * dtv;
            v2[a] = S::select(jittered, v + jitter[a], v);
        }
        // clamp_speed: over the maximum scales down; under the minimum is rare
        // and left to the caller.
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
        let pos = ld(&self.pos);
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

/// `rules::combine`'s prioritized allocation lane by lane, over the rule
/// forces in priority order (the scalar path's five leading zero forces each
/// fit and leave `+0` and the whole budget): each force that fits the budget
/// left is added whole and spends its length; the first that does not gets
/// the rest of the budget along its direction, and allocation stops.
#[inline(always)]
fn prioritized<S: Simd>(forces: &[[S; 3]; 3], max_force: S, d: usize) -> [S; 3] {
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

/// `behaviours::seek` lane by lane: normalize_or_zero, desired − velocity,
/// clamped; zero when the direction is zero.
#[inline(always)]
fn seek<S: Simd>(x: &[S; 3], vel: &[S; 3], max_speed: S, max_force: S, d: usize) -> [S; 3] {
    let zero = S::splat(0.0);
    let l2 = len2(x, d);
    let ok = S::and(S::splat(1e-30).lt(l2), l2.lt(S::splat(f32::INFINITY)));
    let inv = S::splat(1.0) / l2.sqrt();
    let mut unit = [zero; 3];
    let mut is_zero = S::lanes(0, S::N);
    for a in 0..d {
        unit[a] = S::select(ok, x[a] * inv, zero);
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

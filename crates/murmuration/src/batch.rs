//! Steering eight boids at once: the per-boid half of the step (three seeks, the
//! weighted sum, its clamp, integration, the speed clamp) in SIMD lanes.
//!
//! Each boid needs about ten scalar square roots and divisions after its neighbour
//! sums, and the divider is the busiest unit of the step. Eight boids share each
//! vector operation here. Every lane performs exactly the scalar path's operations
//! in the same order (IEEE square root, division, products and sums are the same in
//! a lane as in a scalar register), so the results are bit-identical to
//! [`crate::rules`] and `clamp_speed`: the golden digests pin it.
//!
//! Used for plain worlds (weighted-sum steering, no obstacles, targets, pulses,
//! paths or predators); the scalar path handles everything else.

#![allow(
    clippy::needless_range_loop,
    reason = "axis loops index several per-axis arrays in step"
)]

use crate::kernel::{self, GroupLanes, LANES, SortedSoa};
use crate::params::SpeciesParams;
use crate::rules::Sums;
use crate::vector::Vector;
use wide::f32x8;

type F = f32x8;

/// One value per lane.
type Lanes = [f32; LANES];

/// The inputs of up to eight boids, lane by lane. Lanes not loaded keep whatever
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
    /// One more than the species whose parameters each lane holds (0: none yet).
    species: [u32; LANES],
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

    /// Fills lanes `0..8` with the sums of lanes `off..off + 8` of a group and
    /// the positions
    /// and velocities of the boids `si..si + 8` of `data`: eight values at a
    /// time. Lanes past the group's boids get values whose results are ignored.
    #[inline(always)]
    pub fn load_sums<V: Vector>(
        &mut self,
        sums: &GroupLanes,
        off: usize,
        data: &SortedSoa,
        si: usize,
    ) {
        let eight = |row: &[f32], at: usize| -> Lanes {
            row[at..at + LANES].try_into().expect("eight lanes")
        };
        for a in 0..V::DIM {
            self.sep[a] = eight(&sums[kernel::SEP + a], off);
            self.ali[a] = eight(&sums[kernel::ALI + a], off);
            self.coh[a] = eight(&sums[kernel::COH + a], off);
            // Padded by PAD past the last boid: in bounds from any boid.
            self.pos[a] = eight(&data.pos[a], si);
            self.vel[a] = eight(&data.vel[a], si);
        }
        // Counts: above zero exactly where `load` sets 1.0 (`steer` asks > 0).
        self.has_ali = eight(&sums[kernel::N_ALI], off);
        self.has_coh = eight(&sums[kernel::N_COH], off);
    }

    /// Last step's steering of the boids in lanes `0..prev.len()` (at most
    /// eight), for smoothing: a fixed-length loop the compiler vectorizes when
    /// all eight lanes are loaded.
    #[inline(always)]
    pub fn load_prev<V: Vector>(&mut self, prev: &[V]) {
        if let Ok(eight) = <&[V; LANES]>::try_from(prev) {
            for (l, &p) in eight.iter().enumerate() {
                set(&mut self.prev, l, p);
            }
        } else {
            for (l, &p) in prev.iter().enumerate() {
                set(&mut self.prev, l, p);
            }
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
    }

    /// Steers and integrates every lane over `dt` seconds: `rules::forces`, the
    /// weighted `rules::combine`, smoothing, jitter, `clamp_speed` and the position
    /// update, operation for operation.
    ///
    /// `bounds`, when given, is the world box: lanes that end outside it are
    /// flagged in [`Steered::outside`].
    #[inline(always)]
    pub fn steer<V: Vector>(&self, dt: f32, bounds: Option<(V, V)>) -> Steered {
        let d = V::DIM;
        let zero = F::splat(0.0);
        let one = F::splat(1.0);
        let dtv = F::splat(dt);
        let ld = |x: &[Lanes; 3]| -> [F; 3] { [F::new(x[0]), F::new(x[1]), F::new(x[2])] };
        let len2 = |x: &[F; 3]| -> F {
            // Left to right, like glam's dot.
            let mut s = x[0] * x[0];
            for a in 1..d {
                s += x[a] * x[a];
            }
            s
        };
        let max_speed = F::new(self.max_speed);
        let max_force = F::new(self.max_force);
        let vel = ld(&self.vel);
        // Vector::clamp_length_max.
        let clamp = |x: [F; 3], max: F| -> [F; 3] {
            let l2 = len2(&x);
            let scale = l2.simd_gt(max * max).select(max / l2.sqrt(), one);
            x.map(|c| c * scale)
        };
        // rules::seek: normalize_or_zero, desired − velocity, clamped; zero when
        // the direction is zero.
        let seek = |dir: &[Lanes; 3]| -> [F; 3] {
            let x = ld(dir);
            let l2 = len2(&x);
            let ok = l2.simd_gt(F::splat(1e-30)) & l2.simd_lt(F::splat(f32::INFINITY));
            let inv = one / l2.sqrt();
            let mut unit = [zero; 3];
            let mut is_zero = F::splat(f32::from_bits(u32::MAX));
            for a in 0..d {
                unit[a] = ok.select(x[a] * inv, zero);
                is_zero &= unit[a].simd_eq(zero);
            }
            let mut desired = [zero; 3];
            for a in 0..d {
                desired[a] = unit[a] * max_speed - vel[a];
            }
            clamp(desired, max_force).map(|c| is_zero.select(zero, c))
        };
        let sep = seek(&self.sep).map(|c| c * F::new(self.w_sep));
        let has_coh = F::new(self.has_coh).simd_gt(zero);
        let coh = seek(&self.coh).map(|c| has_coh.select(c * F::new(self.w_coh), zero));
        let has_ali = F::new(self.has_ali).simd_gt(zero);
        let ali = seek(&self.ali).map(|c| has_ali.select(c * F::new(self.w_ali), zero));

        // Weighted sum in priority order: the absent obstacle, pulse, flee and
        // target forces after the scalar path's leading zero (one +0 is what their
        // additions do to a -0 component), then the rules; the soft boundary acts
        // on top of the clamped sum, where the scalar path adds it when nonzero.
        let mut acc = [zero; 3];
        for a in 0..d {
            acc[a] = ((zero + sep[a]) + coh[a]) + ali[a];
        }
        let mut accel = clamp(acc, max_force);
        let soft = ld(&self.soft);
        let mut walled = F::splat(0.0);
        for a in 0..d {
            walled |= soft[a].simd_ne(zero);
        }
        for a in 0..d {
            accel[a] = walled.select(accel[a] + soft[a], accel[a]);
        }

        let smoothing = F::new(self.smoothing);
        let smooth = smoothing.simd_gt(zero);
        let prev = ld(&self.prev);
        for a in 0..d {
            let s = prev[a] * smoothing + accel[a] * (one - smoothing);
            accel[a] = smooth.select(s, accel[a]);
        }
        let jitter = ld(&self.jitter);
        let jittered = F::new(self.has_jitter).simd_gt(zero);
        let mut v2 = [zero; 3];
        for a in 0..d {
            let v = vel[a] + accel[a] * dtv;
            v2[a] = jittered.select(v + jitter[a], v);
        }
        // clamp_speed: over the maximum scales down; under the minimum is rare
        // and left to the caller.
        let s2 = len2(&v2);
        let over = s2.simd_gt(max_speed * max_speed);
        let scale = over.select(max_speed / s2.sqrt(), one);
        let min_speed = F::new(self.min_speed);
        let slow = !over & min_speed.simd_gt(zero) & s2.simd_lt(min_speed * min_speed);
        let pos = ld(&self.pos);
        let mut out = Steered {
            slow: slow.to_bitmask(),
            ..Steered::default()
        };
        let mut outside = F::splat(0.0);
        for a in 0..d {
            let v = v2[a] * scale;
            let p = pos[a] + v * dtv;
            if let Some((lo, hi)) = bounds {
                outside |= p.simd_lt(F::splat(lo.get(a))) | p.simd_ge(F::splat(hi.get(a)));
            }
            out.vel[a] = v.to_array();
            out.unclamped[a] = v2[a].to_array();
            out.accel[a] = accel[a].to_array();
            out.pos[a] = p.to_array();
        }
        out.outside = outside.to_bitmask();
        out
    }
}

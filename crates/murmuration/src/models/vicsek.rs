//! The per-particle half of a Vicsek step (Vicsek et al., PRL 75, 1226, 1995):
//! constant speed v0; each particle takes the direction of the summed
//! velocities of all particles within r (itself included) plus a uniform angle in
//! [−η/2, η/2], all at once. The neighbour sums are the boids kernel's alignment
//! sums (`steer.rs` calls these eight particles at a time).

use crate::behaviours::boundary::wrap;
use crate::params::WorldConfig;
use crate::params::model::{Vicsek, VicsekUpdate};
use crate::rng::{CounterRng, Stream};
use crate::vector::Vector;
use wide::f32x8;

type F = f32x8;

/// Up to eight particles' new headings (unit vectors): the direction of `sum`,
/// the summed velocities of every particle within r, itself included (the
/// kernel's alignment sum plus its own velocity; its own velocity's direction
/// when that sum vanishes), turned by `delta`, the noise angle. In SIMD lanes:
/// the same operations in every lane, so a lane's bits do not depend on the
/// others.
#[inline]
pub(crate) fn headings(sum: [[f32; 8]; 2], vel: [[f32; 8]; 2], delta: [f32; 8]) -> [[f32; 8]; 2] {
    let (sx, sy) = (F::new(sum[0]), F::new(sum[1]));
    let (vx, vy) = (F::new(vel[0]), F::new(vel[1]));
    let l2 = sx * sx + sy * sy;
    let has = l2.simd_gt(F::ZERO);
    let (ax, ay) = (has.select(sx, vx), has.select(sy, vy));
    let inv = F::ONE / (ax * ax + ay * ay).sqrt();
    let (ux, uy) = (ax * inv, ay * inv);
    let (s, c) = sin_cos(F::new(delta));
    [(c * ux - s * uy).to_array(), (s * ux + c * uy).to_array()]
}

/// The noise angle of a particle at a step: uniform in [−η/2, η/2], keyed by
/// (seed, id, step).
#[inline]
pub(crate) fn noise(m: &Vicsek, seed: u64, id: u32, step: u64) -> f32 {
    let mut rng = CounterRng::new(seed, id as u64, step, Stream::ModelNoise);
    m.eta * (rng.next_f32() - 0.5)
}

/// Where a particle moves: by its old velocity (the paper) or its new one.
#[inline]
pub(crate) fn moved<V: Vector>(m: &Vicsek, pos: V, old: V, new: V, config: &WorldConfig<V>) -> V {
    let v = match m.update {
        VicsekUpdate::Paper => old,
        VicsekUpdate::Forward => new,
    };
    wrap(pos + v * config.dt, config)
}

/// sin and cos of `x` in [−π, π] by fixed polynomials (Taylor to x¹³ at x/2,
/// then the double angle; error below 1e-6), so the noise turns every particle
/// by the same bits on every platform (the C library's `sin` may differ).
#[inline]
pub(crate) fn sin_cos(x: F) -> (F, F) {
    let y = x * F::splat(0.5);
    let y2 = y * y;
    // sin y = y (1 − y²/3! + y⁴/5! − …), cos y = 1 − y²/2! + y⁴/4! − …
    let s = y
        * (F::splat(1.0)
            + y2 * (F::splat(-1.0 / 6.0)
                + y2 * (F::splat(1.0 / 120.0)
                    + y2 * (F::splat(-1.0 / 5040.0)
                        + y2 * (F::splat(1.0 / 362_880.0)
                            + y2 * (F::splat(-1.0 / 39_916_800.0)
                                + y2 * (F::splat(1.0 / 6_227_020_800.0))))))));
    let c = F::splat(1.0)
        + y2 * (F::splat(-0.5)
            + y2 * (F::splat(1.0 / 24.0)
                + y2 * (F::splat(-1.0 / 720.0)
                    + y2 * (F::splat(1.0 / 40_320.0)
                        + y2 * (F::splat(-1.0 / 3_628_800.0)
                            + y2 * (F::splat(1.0 / 479_001_600.0)))))));
    (F::splat(2.0) * s * c, c * c - s * s)
}

#[cfg(test)]
mod tests {
    use super::{F, sin_cos};

    #[test]
    #[allow(
        clippy::disallowed_methods,
        reason = "the platform's sine and cosine are the reference here"
    )]
    fn the_noise_sine_and_cosine_are_within_a_millionth_over_the_whole_range() {
        let mut worst = 0.0f64;
        for i in 0..=100_000 {
            let x = -std::f64::consts::PI + i as f64 * std::f64::consts::TAU / 100_000.0;
            let (s, c) = sin_cos(F::splat(x as f32));
            let (s, c) = (s.to_array()[3], c.to_array()[3]);
            worst = worst
                .max((s as f64 - x.sin()).abs())
                .max((c as f64 - x.cos()).abs());
        }
        assert!(worst < 1e-6, "worst error {worst}");
        let (s, c) = sin_cos(F::ZERO);
        assert_eq!((s.to_array(), c.to_array()), ([0.0; 8], [1.0; 8]));
    }
}

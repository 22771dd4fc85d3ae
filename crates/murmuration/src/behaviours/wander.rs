//! Reynolds' wander without state: a boid's random direction is a smooth
//! function of (seed, boid id, time), so it needs no per-boid memory, resumes
//! exactly from a snapshot and is the same on any thread count.
//!
//! Every `wander_period` seconds the direction passes a keyed random unit
//! vector (a knot); between knots it blends with a smoothstep. The boid seeks
//! its heading plus that direction (the classic target on a circle ahead of
//! it), so it turns gradually toward each new direction instead of jumping.

use crate::behaviours::seek;
use crate::params::SpeciesParams;
use crate::rng::{CounterRng, Stream};
use crate::vector::Vector;

/// The keyed random unit vector of knot `k`.
#[inline]
fn knot<V: Vector>(seed: u64, id: u32, k: u64) -> V {
    let mut r = CounterRng::new(seed, id as u64, k, Stream::Wander);
    V::unit_from_uniform(r.next_f32(), r.next_f32())
}

/// Where time `step × dt` falls between knots: the knot `k` before it and the
/// smoothstepped fraction `s` toward knot `k + 1` (the direction is knot k ×
/// (1 − s) + knot k+1 × s). The same for every boid of a species, so the GPU
/// backend takes it from the host.
pub fn knot_phase(step: u64, dt: f32, period: f32) -> (u64, f32) {
    // In f64 so a long run's knots stay exact (step × dt / period loses
    // precision in f32 after a few hundred thousand steps).
    let u = step as f64 * dt as f64 / period as f64;
    let k = u.floor();
    let f = (u - k) as f32;
    (k as u64, f * f * (3.0 - 2.0 * f))
}

/// The wander direction of boid `id` at `step` (time `step × dt`): continuous in
/// time, of length at most 1.
pub fn direction<V: Vector>(seed: u64, id: u32, step: u64, dt: f32, period: f32) -> V {
    let (k, s) = knot_phase(step, dt, period);
    let (a, b) = (knot::<V>(seed, id, k), knot::<V>(seed, id, k + 1));
    a * (1.0 - s) + b * s
}

/// The weighted wander steering of a boid with velocity `v`: a seek toward its
/// heading plus the wander direction; zero when the species does not wander.
#[inline]
pub(crate) fn force<V: Vector>(
    seed: u64,
    id: u32,
    step: u64,
    dt: f32,
    v: V,
    p: &SpeciesParams,
) -> V {
    if p.wander_weight <= 0.0 {
        return V::ZERO;
    }
    let n: V = direction(seed, id, step, dt, p.wander_period);
    seek(v.normalize_or_zero() + n, v, p) * p.wander_weight
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Vec2, Vec3};

    #[test]
    fn the_direction_is_continuous_and_passes_each_knot() {
        let (dt, period) = (1.0 / 60.0, 2.0);
        let mut last: Vec3 = direction(7, 3, 0, dt, period);
        assert!(
            (last.length() - 1.0).abs() < 1e-5,
            "a knot is a unit vector"
        );
        for step in 1..2_000u64 {
            let d: Vec3 = direction(7, 3, step, dt, period);
            assert!(d.length() <= 1.0 + 1e-5);
            // One step of 1/120 of a period moves it at most 1.5 × 2 / 120.
            assert!((d - last).length() < 0.03, "step {step}: {last} -> {d}");
            last = d;
        }
        // Step 120 is knot 1 exactly.
        let at: Vec2 = direction(7, 3, 120, dt, period);
        assert!((at - knot::<Vec2>(7, 3, 1)).length() < 1e-5);
    }

    #[test]
    fn boids_and_seeds_wander_differently() {
        let a: Vec2 = direction(1, 1, 0, 0.1, 1.0);
        let b: Vec2 = direction(1, 2, 0, 0.1, 1.0);
        let c: Vec2 = direction(2, 1, 0, 0.1, 1.0);
        assert_ne!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn no_weight_no_force() {
        let p = SpeciesParams::default();
        assert_eq!(force(1, 1, 5, 0.1, Vec2::X, &p), Vec2::ZERO);
        let w = SpeciesParams {
            wander_weight: 1.0,
            ..p
        };
        assert_ne!(force(1, 1, 5, 0.1, Vec2::X, &w), Vec2::ZERO);
    }
}

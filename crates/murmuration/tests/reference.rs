//! The parallel SIMD step against a brute-force O(n²) reference of the documented
//! semantics. Summation order differs (8-lane partial sums vs a sequential loop), so
//! positions and velocities agree to a small tolerance rather than bit for bit.

mod common;

use murmuration::{Spawn, SpeciesId};

use murmuration::glam::{Vec2, Vec3};
use murmuration::{
    Boundary, CombineMode, Relation, SpeciesParams, Steering, Vector, World, WorldConfig,
};
use proptest::prelude::*;

/// Velocity tolerance, units/s: f32 rounding of a different summation order,
/// amplified through normalisation, stays far below this.
const TOL_V: f32 = 2e-4;

fn compare<V: Vector>(mut w: World<V>, steps: usize) {
    for step in 0..steps {
        let (rp, rv) = common::reference_step(&w);
        w.step();
        let cfg = *w.config();
        for i in 0..w.len() {
            let dp = common::offset(rp[i], w.positions()[i], &cfg).length();
            let dv = (rv[i] - w.velocities()[i]).length();
            assert!(
                dv < TOL_V && dp < TOL_V * cfg.dt * 2.0,
                "step {step} boid {i}: velocity off by {dv}, position by {dp}"
            );
        }
    }
}

fn boundary_from(k: u8, side: f32) -> Boundary {
    match k % 4 {
        0 => Boundary::Wrap,
        1 => Boundary::Soft {
            margin: (0.4 * side).min(1.5),
            strength: 2.5,
        },
        2 => Boundary::Reflect,
        _ => Boundary::Unbounded,
    }
}

fn species_from(fov: f32, prioritized: bool, smoothing: f32, sep: f32) -> SpeciesParams {
    steered(fov, prioritized, smoothing, sep, 0, false)
}

/// A species with steering method `mode % 3` and, with `cruise`, a cruising speed.
fn steered(
    fov: f32,
    prioritized: bool,
    smoothing: f32,
    sep: f32,
    mode: u8,
    cruise: bool,
) -> SpeciesParams {
    SpeciesParams {
        steering: Steering::ALL[mode as usize % 3],
        cruise_speed: if cruise { 0.7 } else { 0.0 },
        cruise_time: 0.5,
        fov_degrees: fov,
        combine: if prioritized {
            CombineMode::Prioritized
        } else {
            CombineMode::WeightedSum
        },
        smoothing,
        separation_radius: sep,
        alignment_radius: 1.0,
        cohesion_radius: 1.2,
        ..SpeciesParams::benchmark()
    }
}

fn world<V: Vector>(
    n: u64,
    side: f32,
    k: u8,
    seed: u64,
    a: SpeciesParams,
    b: SpeciesParams,
    rel: (u8, u8),
) -> World<V> {
    let mut cfg = WorldConfig::new(V::splat(side), boundary_from(k, side));
    cfg.seed = seed;
    let mut w = World::new(cfg, vec![a, b]).unwrap();
    let r = |x: u8| [Relation::Flock, Relation::Separate, Relation::Ignore][x as usize % 3];
    w.set_relation(SpeciesId::FIRST, SpeciesId::new(1), r(rel.0))
        .unwrap();
    w.set_relation(SpeciesId::new(1), SpeciesId::FIRST, r(rel.1))
        .unwrap();
    w.spawn(Spawn::new(SpeciesId::FIRST, n).speed(1.0)).unwrap();
    w.spawn(Spawn::new(SpeciesId::new(1), n / 3).speed(0.5))
        .unwrap();
    w
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn step_2d_matches_reference(n in 2u64..400, side in 2.0f32..14.0, k: u8, seed in 0u64..1000,
                                 fov in 60.0f32..360.0, pri: bool, smooth in 0.0f32..0.9,
                                 sep in 0.1f32..0.9, rel: (u8, u8), mode: u8, cruise: bool) {
        let a = steered(fov, pri, smooth, sep, mode, cruise);
        let b = species_from(360.0, !pri, 0.0, 0.5);
        compare(world::<Vec2>(n, side, k, seed, a, b, rel), 3);
    }

    #[test]
    fn step_3d_matches_reference(n in 2u64..400, side in 2.0f32..8.0, k: u8, seed in 0u64..1000,
                                 fov in 60.0f32..360.0, pri: bool, smooth in 0.0f32..0.9,
                                 sep in 0.1f32..0.9, rel: (u8, u8), mode: u8, cruise: bool) {
        let a = steered(fov, pri, smooth, sep, mode, cruise);
        let b = species_from(360.0, !pri, 0.0, 0.5);
        compare(world::<Vec3>(n, side, k, seed, a, b, rel), 3);
    }
}

#[test]
fn benchmark_workload_matches_reference_and_counts_neighbours_exactly() {
    let w = common::flock::<Vec2>(3000, (3000.0f32 / 6.4).sqrt(), Boundary::Wrap, 1);
    // Brute-force neighbour count (within perception, excluding self).
    let cfg = *w.config();
    let pos = w.positions().to_vec();
    let mut want = 0u64;
    for i in 0..pos.len() {
        for j in 0..pos.len() {
            if i != j && common::offset(pos[i], pos[j], &cfg).length_squared() < 1.0 {
                want += 1;
            }
        }
    }
    let stats = w.clone().step().stats;
    assert_eq!(stats.neighbours, want);
    compare(w, 2);
}

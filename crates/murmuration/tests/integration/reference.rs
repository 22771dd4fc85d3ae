//! The parallel SIMD step against a brute-force O(n²) reference of the documented
//! semantics. Summation order differs (8-lane partial sums vs a sequential loop), so
//! positions and velocities agree to a small tolerance rather than bit for bit.

use crate::common;
use murmuration::Dimension;

use murmuration::{Spawn, SpeciesId};

use murmuration::glam::{Vec2, Vec3};
use murmuration::{
    Boundary, CombineMode, Relation, SpeciesParams, Steering, Vector, World, WorldConfig,
};
use proptest::prelude::*;

/// Velocity tolerance, units/s: f32 rounding of a different summation order,
/// amplified through normalisation, stays far below this.
const TOL_V: f32 = 2e-4;

/// Each step against the reference, boid by boid. A boid whose reference
/// result hangs on rounding (a neighbour on a radius or the cone's edge, a sum
/// that cancels: `reference_step_marked`) is left out of that step; such boids
/// must stay rare, so the comparison still covers the flock.
fn compare<V: Dimension>(mut w: World<V>, steps: usize) {
    for step in 0..steps {
        let (rp, rv, marked) = common::reference_step(&w);
        let skipped = marked.iter().filter(|&&m| m).count();
        assert!(
            2 * skipped <= w.len(),
            "step {step}: {skipped} of {} boids on a rounding edge",
            w.len()
        );
        w.step();
        let cfg = *w.config();
        for i in 0..w.len() {
            if marked[i] {
                continue;
            }
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
    steered(fov, prioritized, smoothing, sep, 0, false, 0)
}

/// A species with steering method `mode % 3`, with `cruise` a cruising speed,
/// and `topo % 12` topological neighbours (0 and above 8: metric).
fn steered(
    fov: f32,
    prioritized: bool,
    smoothing: f32,
    sep: f32,
    mode: u8,
    cruise: bool,
    topo: u8,
) -> SpeciesParams {
    let k = topo % 12;
    SpeciesParams {
        topological_neighbours: if k <= 8 { k as u32 } else { 0 },
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
                                 sep in 0.1f32..0.9, rel: (u8, u8), mode: u8, cruise: bool,
                                 topo: u8) {
        let a = steered(fov, pri, smooth, sep, mode, cruise, topo);
        let b = species_from(360.0, !pri, 0.0, 0.5);
        compare(world::<Vec2>(n, side, k, seed, a, b, rel), 3);
    }

    #[test]
    fn step_3d_matches_reference(n in 2u64..400, side in 2.0f32..8.0, k: u8, seed in 0u64..1000,
                                 fov in 60.0f32..360.0, pri: bool, smooth in 0.0f32..0.9,
                                 sep in 0.1f32..0.9, rel: (u8, u8), mode: u8, cruise: bool,
                                 topo: u8) {
        let a = steered(fov, pri, smooth, sep, mode, cruise, topo);
        let b = species_from(360.0, !pri, 0.0, 0.5);
        compare(world::<Vec3>(n, side, k, seed, a, b, rel), 3);
    }
}

/// The case CI's proptest found (the regression files beside these tests are
/// not where proptest looks, so it is written out here): one of boid 357's
/// neighbours lies within a millionth of a radius, counted by one side only,
/// and its velocity differed by 0.004 units/s. It is left out as such, and
/// every other boid still agrees.
#[test]
fn a_boid_on_a_rounding_edge_is_left_out_regression_seed_187() {
    let a = steered(60.0, false, 0.0, 0.1, 0, false, 0);
    let b = species_from(360.0, true, 0.0, 0.5);
    compare(world::<Vec2>(300, 9.808794, 20, 187, a, b, (0, 96)), 3);
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

/// Exact ties in distance (a square lattice: four neighbours at one spacing,
/// four at √2 spacings) are broken by the smaller boid id, as the reference does.
#[test]
fn topological_ties_are_broken_by_id_like_the_reference() {
    for k in [1u32, 3, 4, 6, 7] {
        let cfg = WorldConfig::new(Vec2::splat(8.0), Boundary::Wrap);
        let sp = SpeciesParams {
            topological_neighbours: k,
            ..SpeciesParams::benchmark()
        };
        let mut w = World::new(cfg, vec![sp]).unwrap();
        for y in 0..16 {
            for x in 0..16 {
                let p = Vec2::new(x as f32 * 0.5 + 0.25, y as f32 * 0.5 + 0.25);
                let v = Vec2::new(1.0, 0.1 * ((x * 7 + y * 3) % 5) as f32 - 0.2);
                w.add_boid(SpeciesId::FIRST, p, v).unwrap();
            }
        }
        let stats = w.clone().step().stats;
        assert_eq!(stats.neighbours, 256 * k as u64, "k = {k}");
        compare(w, 1);
    }
}

/// With k = 7 a boid reacts to at most seven neighbours, and to every one it has
/// when fewer are in range: the step's count equals the brute-force count.
#[test]
fn topological_neighbour_counts_are_min_of_k_and_the_metric_count() {
    let mut w = common::flock::<Vec3>(3000, 9.0, Boundary::Wrap, 3);
    let cfg = *w.config();
    let pos = w.positions().to_vec();
    let mut want = 0u64;
    for i in 0..pos.len() {
        let metric = (0..pos.len())
            .filter(|&j| j != i && common::offset(pos[i], pos[j], &cfg).length_squared() < 1.0)
            .count() as u64;
        want += metric.min(7);
    }
    let mut p = w.species()[0];
    p.topological_neighbours = 7;
    w.set_species_params(SpeciesId::FIRST, p).unwrap();
    assert_eq!(w.clone().step().stats.neighbours, want);
    compare(w, 2);
}

/// Regression (found by `step_2d_matches_reference`): a neighbour 2·10⁻⁵ away, inside
/// the coincidence distance, was inside or outside a 78° cone by the rounding of its
/// offset, and pushed along that offset's noise; with raw sums one such push turned
/// the whole steering. Coincident neighbours are now always seen and push along the
/// pair's keyed direction, in the step and in the reference, metric and topological.
#[test]
fn coincident_neighbours_in_a_narrow_cone_match_the_reference() {
    for topo in [0u8, 3] {
        let a = steered(78.159_996, false, 0.147_657_66, 0.705_290_85, 2, true, topo);
        let b = species_from(360.0, true, 0.0, 0.5);
        compare(world::<Vec2>(220, 3.787_465_6, 0, 11, a, b, (0, 0)), 3);
    }
}

/// A boid exactly behind another, at the same point, is seen by it although outside
/// its 90° cone, and the two push apart along opposite keyed directions.
#[test]
fn a_coincident_boid_behind_is_seen_and_pushes_along_the_keyed_direction() {
    for k in [0u32, 3] {
        let cfg = WorldConfig::new(Vec2::splat(20.0), Boundary::Wrap);
        let sp = SpeciesParams {
            fov_degrees: 90.0,
            topological_neighbours: k,
            steering: Steering::Raw,
            ..SpeciesParams::benchmark()
        };
        let mut w = World::new(cfg, vec![sp]).unwrap();
        let p = Vec2::new(5.0, 5.0);
        let a = w.add_boid(SpeciesId::FIRST, p, Vec2::X).unwrap();
        let b = w
            .add_boid(SpeciesId::FIRST, p - Vec2::new(1e-6, 0.0), Vec2::X)
            .unwrap();
        let (ia, ib) = (w.inspect(a).unwrap(), w.inspect(b).unwrap());
        assert_eq!((ia.neighbours, ib.neighbours), (1, 1), "k = {k}");
        let want: Vec2 = murmuration::coincident_direction(cfg.seed, a, b);
        let rc = murmuration::RuleConsts::new(&sp);
        let push = want * rc.coincident_push * sp.separation_weight;
        assert!(
            (ia.separation.normalize() - push.normalize()).length() < 1e-3,
            "k = {k}: {:?} against {:?}",
            ia.separation,
            push
        );
        assert!(ia.separation.dot(ib.separation) < 0.0, "k = {k}");
        compare(w, 2);
    }
}

//! Behaviour with measured thresholds.

use crate::common;

use murmuration::{Spawn, SpeciesId};

use murmuration::glam::{Vec2, Vec3};
use murmuration::{Boundary, SpeciesParams, World2, World3, WorldConfig};

#[test]
fn alignment_heavy_flock_polarizes() {
    let mut cfg = WorldConfig::new(Vec2::splat(20.0), Boundary::Wrap);
    cfg.seed = 3;
    let p = SpeciesParams {
        separation_radius: 0.5,
        alignment_radius: 2.0,
        cohesion_radius: 2.0,
        separation_weight: 1.0,
        alignment_weight: 2.0,
        cohesion_weight: 0.3,
        max_speed: 2.0,
        max_force: 3.0,
        ..SpeciesParams::default()
    };
    let mut w = World2::new(cfg, vec![p]).unwrap();
    w.spawn(Spawn::new(SpeciesId::FIRST, 600).speed(2.0))
        .unwrap();
    let start = w.metrics().polarization;
    assert!(start < 0.2, "random headings start unpolarized ({start})");
    w.step_n(2400);
    let end = w.metrics().polarization;
    assert!(end > 0.9, "polarization after 40 s: {end}");
}

#[test]
fn separation_holds_median_nearest_neighbour_near_the_separation_radius() {
    // A cohesive flock packs as tight as separation allows: neighbours end up about
    // one separation radius apart (measured 0.96 r at this seed; band 0.8-1.1 r).
    let mut cfg = WorldConfig::new(Vec2::splat(30.0), Boundary::Wrap);
    cfg.seed = 4;
    // Seed 000's defaults (separation radius 0.8, perception 1.5) with firmer rules.
    let p = SpeciesParams {
        separation_weight: 2.0,
        cohesion_weight: 1.0,
        max_force: 4.0,
        ..SpeciesParams::default()
    };
    let mut w = World2::new(cfg, vec![p]).unwrap();
    w.spawn(
        Spawn::new(SpeciesId::FIRST, 400)
            .region(Vec2::splat(10.0), Vec2::splat(20.0))
            .speed(1.0),
    )
    .unwrap();
    w.step_n(2000);
    let m = w.metrics();
    let ratio = m.median_nn_distance / 0.8;
    assert!(
        (0.8..1.1).contains(&ratio),
        "median NN / separation radius = {ratio}"
    );
    assert!(
        m.min_pair_distance > 0.25,
        "no collapse: min pair {}",
        m.min_pair_distance
    );
}

#[test]
fn a_boid_behind_is_ignored_with_a_120_degree_cone() {
    let run = |fov: f32| {
        let cfg = WorldConfig::new(Vec2::splat(100.0), Boundary::Unbounded);
        let p = SpeciesParams {
            fov_degrees: fov,
            ..SpeciesParams::benchmark()
        };
        let mut w = World2::new(cfg, vec![p]).unwrap();
        // Both head +x; the follower sits 0.3 behind the leader.
        w.add_boid(SpeciesId::FIRST, Vec2::new(50.0, 50.0), Vec2::new(1.0, 0.0))
            .unwrap();
        w.add_boid(SpeciesId::FIRST, Vec2::new(49.7, 50.0), Vec2::new(1.0, 0.0))
            .unwrap();
        w.step();
        (w.velocities()[0], w.steering()[1])
    };
    let (leader, follower_steer) = run(120.0);
    assert_eq!(
        leader,
        Vec2::new(1.0, 0.0),
        "boid behind is outside the cone"
    );
    assert!(
        follower_steer.length() > 0.1,
        "the follower sees the leader"
    );
    let (leader, _) = run(360.0);
    assert_ne!(leader, Vec2::new(1.0, 0.0), "all-round vision reacts");
}

/// Regression: padded SIMD lanes hold +∞ positions, and `∞ · 0` made the whole
/// separation sum NaN, so separation silently did nothing.
#[test]
fn separation_is_not_lost_to_padded_lanes() {
    let cfg = WorldConfig::new(Vec3::splat(100.0), Boundary::Unbounded);
    let p = SpeciesParams {
        alignment_weight: 0.0,
        cohesion_weight: 0.0,
        ..SpeciesParams::benchmark()
    };
    let mut w = World3::new(cfg, vec![p]).unwrap();
    w.add_boid(SpeciesId::FIRST, Vec3::splat(50.0), Vec3::ZERO)
        .unwrap();
    w.add_boid(SpeciesId::FIRST, Vec3::new(50.2, 50.0, 50.0), Vec3::ZERO)
        .unwrap();
    w.step_n(30);
    let d = (w.positions()[0] - w.positions()[1]).length();
    assert!(d > 0.25, "separation pushed them apart: {d}");
}

#[test]
fn coincident_boids_separate_without_nan() {
    let cfg = WorldConfig::new(Vec2::splat(10.0), Boundary::Wrap);
    let mut w = World2::new(cfg, vec![SpeciesParams::benchmark()]).unwrap();
    for _ in 0..5 {
        w.add_boid(SpeciesId::FIRST, Vec2::splat(5.0), Vec2::ZERO)
            .unwrap();
    }
    w.step_n(60);
    let m = w.metrics();
    assert!(w.positions().iter().all(|p| p.is_finite()));
    assert!(
        m.min_pair_distance > 0.05,
        "min pair {}",
        m.min_pair_distance
    );
}

#[test]
fn metrics_nearest_neighbour_matches_brute_force() {
    for boundary in [Boundary::Wrap, Boundary::Unbounded] {
        let w = common::flock::<Vec3>(700, 6.0, boundary, 8);
        let cfg = *w.config();
        let pos = w.positions();
        let nn = murmuration::metrics::nearest_neighbour_distances(pos, &cfg);
        for i in 0..pos.len() {
            let best = (0..pos.len())
                .filter(|&j| j != i)
                .map(|j| common::offset(pos[i], pos[j], &cfg).length())
                .fold(f32::INFINITY, f32::min);
            assert!((nn[i] - best).abs() < 1e-5, "boid {i}: {} vs {best}", nn[i]);
        }
    }
}

/// Walls that hold: a boid flying straight at a soft wall at full speed turns
/// within the margin even while its whole steering budget pulls it outward
/// (an attractor beyond the wall), when strength ≥ max_speed² / margin + 2 max_force.
#[test]
fn soft_wall_turns_a_full_speed_boid_within_its_margin_against_the_budget() {
    use murmuration::Attractor;
    let (margin, max_speed, max_force) = (1.5f32, 2.0f32, 0.4f32);
    let strength = max_speed * max_speed / margin + 2.0 * max_force;
    let cfg = WorldConfig::new(Vec2::new(24.0, 16.0), Boundary::Soft { margin, strength });
    let p = SpeciesParams {
        max_speed,
        max_force,
        ..SpeciesParams::default()
    };
    let mut w = World2::new(cfg, vec![p]).unwrap();
    w.add_boid(
        SpeciesId::FIRST,
        Vec2::new(20.0, 8.0),
        Vec2::new(max_speed, 0.0),
    )
    .unwrap();
    w.add_attractor(Attractor::new(Vec2::new(40.0, 8.0), 10.0, 1.0))
        .unwrap();
    let mut deepest = 0.0f32;
    for _ in 0..600 {
        w.step();
        deepest = deepest.max(w.positions()[0].x - 24.0);
    }
    assert!(deepest <= 0.0, "crossed the wall by {deepest} units");
}

/// Seed 000's method (one seek at max speed) cruises faster than three seeks
/// that each subtract the velocity, and a cruising speed holds a flock near it.
#[test]
fn directions_and_cruise_speed_keep_a_flock_moving() {
    use murmuration::Steering;
    let speed_of = |steering: Steering, cruise_speed: f32| {
        let mut cfg = WorldConfig::new(Vec2::splat(30.0), Boundary::Wrap);
        cfg.seed = 9;
        let p = SpeciesParams {
            steering,
            cruise_speed,
            max_force: 2.0,
            ..SpeciesParams::default()
        };
        let mut w = World2::new(cfg, vec![p]).unwrap();
        w.spawn(Spawn::new(SpeciesId::FIRST, 500).speed(1.0))
            .unwrap();
        w.step_n(1200);
        let v = w.velocities();
        v.iter().map(|v| v.length()).sum::<f32>() / v.len() as f32
    };
    let per_rule = speed_of(Steering::PerRule, 0.0);
    let directions = speed_of(Steering::Directions, 0.0);
    let braked = speed_of(Steering::PerRule, 2.5);
    let cruising = speed_of(Steering::Directions, 2.5);
    eprintln!(
        "mean speed: per rule {per_rule} (cruise 2.5: {braked}), directions {directions} (cruise 2.5: {cruising})"
    );
    // Measured at this seed: 1.62 (1.95) and 2.14 (2.30) of max 3.
    assert!(directions > per_rule * 1.2, "{directions} vs {per_rule}");
    assert!(braked > per_rule * 1.1, "{braked} vs {per_rule}");
    assert!(
        (2.2..2.7).contains(&cruising),
        "cruise 2.5 gives {cruising}"
    );
}

/// Over a roost, a lone bird flying straight out is turned back by the sideways
/// pull: it never strays farther than the disc, the margin and one turning
/// radius at full strength (v²/strength), and it comes back over the disc; the
/// pull changes its heading, not its speed.
#[test]
fn roost_turns_a_bird_flying_out_back_over_the_disc() {
    let mut cfg = WorldConfig::new(
        Vec3::new(100.0, 20.0, 100.0),
        Boundary::Roost {
            margin: 20.0,
            strength: 4.0,
        },
    );
    cfg.min = Vec3::new(-50.0, 40.0, -50.0);
    cfg.max = Vec3::new(50.0, 60.0, 50.0);
    let p = SpeciesParams {
        max_speed: 10.0,
        min_speed: 10.0,
        ..SpeciesParams::default()
    };
    let mut w = World3::new(cfg, vec![p]).unwrap();
    w.add_boid(
        SpeciesId::FIRST,
        Vec3::new(0.0, 50.0, 0.0),
        Vec3::new(10.0, 0.0, 0.0),
    )
    .unwrap();
    let horizontal = |p: Vec3| Vec3::new(p.x, 0.0, p.z).length();
    let (mut farthest, mut went_out, mut came_back) = (0.0f32, false, false);
    for _ in 0..60 * 60 {
        w.step();
        let pos = w.positions()[0];
        let r = horizontal(pos);
        farthest = farthest.max(r);
        went_out |= r > 60.0;
        came_back |= went_out && r < 40.0;
        assert!(
            (pos.y - 50.0).abs() < 1e-3,
            "level flight stays level: {pos}"
        );
        let speed = w.velocities()[0].length();
        assert!((speed - 10.0).abs() < 1e-3, "speed {speed}");
    }
    assert!(went_out && came_back, "farthest {farthest}");
    assert!(farthest < 50.0 + 20.0 + 100.0 / 4.0, "farthest {farthest}");
}

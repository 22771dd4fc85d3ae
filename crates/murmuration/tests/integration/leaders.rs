//! Leaders: a species steering by its own goal, followed by another.

use murmuration::{Spawn, SpeciesId};

use glam::Vec2;
use murmuration::{Attractor, Boundary, Relation, SpeciesParams, World, World2, WorldConfig};

const FOLLOWER: usize = 0;
const LEADER: usize = 1;

/// 100 followers and 3 leaders around (50, 50); only the leaders see a goal at
/// (90, 50).
fn world(follow: bool) -> World2 {
    let mut cfg = WorldConfig::new(Vec2::splat(200.0), Boundary::Unbounded);
    cfg.seed = 2;
    let follower = SpeciesParams {
        follow_weight: if follow { 2.0 } else { 0.0 },
        follow_radius: 8.0,
        ..SpeciesParams::default()
    };
    let leader = SpeciesParams {
        max_speed: 2.0,
        ..SpeciesParams::default()
    };
    let mut w = World::new(cfg, vec![follower, leader]).unwrap();
    w.set_relation(
        SpeciesId::new(FOLLOWER),
        SpeciesId::new(LEADER),
        Relation::Follow,
    )
    .unwrap();
    w.set_relation(
        SpeciesId::new(LEADER),
        SpeciesId::new(FOLLOWER),
        Relation::Ignore,
    )
    .unwrap();
    w.spawn(
        Spawn::new(SpeciesId::new(FOLLOWER), 100)
            .region(Vec2::new(45.0, 45.0), Vec2::new(55.0, 55.0))
            .speed(0.5),
    )
    .unwrap();
    w.spawn(
        Spawn::new(SpeciesId::new(LEADER), 3)
            .region(Vec2::new(48.0, 48.0), Vec2::new(52.0, 52.0))
            .speed(0.5),
    )
    .unwrap();
    let goal = Attractor {
        species: Some(LEADER as u16),
        ..Attractor::new(Vec2::new(90.0, 50.0), 2.0, 3.0)
    };
    w.add_attractor(goal).unwrap();
    w
}

fn follower_centroid_x(w: &World2) -> f32 {
    let xs: Vec<f32> = w
        .positions()
        .iter()
        .zip(w.boid_species())
        .filter(|(_, s)| **s as usize == FOLLOWER)
        .map(|(p, _)| p.x)
        .collect();
    xs.iter().sum::<f32>() / xs.len() as f32
}

#[test]
fn followers_go_where_their_leaders_go_and_only_leaders_see_the_goal() {
    let (mut led, mut alone) = (world(true), world(false));
    led.step_n(1200);
    alone.step_n(1200);
    let (x_led, x_alone) = (follower_centroid_x(&led), follower_centroid_x(&alone));
    let leader_x = led.positions()[100..].iter().map(|p| p.x).sum::<f32>() / 3.0;
    eprintln!(
        "after 20 s: leaders at x = {leader_x:.1}; followers at x = {x_led:.1} following, {x_alone:.1} not"
    );
    assert!(
        leader_x > 80.0,
        "the leaders did not reach their goal: {leader_x}"
    );
    assert!(x_led > 70.0, "followers did not follow: {x_led}");
    assert!(
        (x_alone - 50.0).abs() < 15.0,
        "followers without leaders drifted to the goal: {x_alone}"
    );
}

#[test]
fn an_attractor_for_a_missing_species_is_an_error() {
    let mut w = world(true);
    let bad = Attractor {
        species: Some(7),
        ..Attractor::new(Vec2::ZERO, 1.0, 1.0)
    };
    let e = w.add_attractor(bad).unwrap_err();
    assert_eq!(
        e.to_string(),
        "species index 7 does not exist (the world has 2 species)"
    );
}

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

/// Followers steering by directions find their leader a group at a time
/// (`follow_lanes`) with the scalar path's bits: 2D and 3D, several leaders
/// (ties and nearest among them), two follower species in the same groups,
/// a species that follows no one beside them, a scattering shark (the follow
/// alone: no call of `forces`) or threats fled by index (the heading handed
/// to `forces`), in a wrapping box whose leaders' index has fewer than three
/// cells along an axis (nearest images per pair), in one that has more, and
/// in a reflecting box.
/// A run without the follow relation differs: the leaders were followed.
#[test]
fn followers_by_directions_find_their_leaders_in_lanes_with_the_scalar_bits() {
    use murmuration::{Dimension, Steering, Vector};
    fn check<V: Dimension + Vector>(size: f32, boundary: Boundary, scatter: bool, steps: u64) {
        let make = |follow: bool, scalar: bool| {
            let mut cfg = WorldConfig::new(V::splat(size), boundary);
            cfg.seed = 5;
            let fish = SpeciesParams {
                steering: Steering::Directions,
                follow_radius: 9.0,
                follow_weight: 1.0,
                flee_radius: 3.0,
                flee_weight: 4.0,
                min_speed: 0.3,
                ..SpeciesParams::benchmark()
            };
            let other = SpeciesParams {
                follow_radius: 6.0,
                follow_weight: 0.5,
                ..fish
            };
            let leader = SpeciesParams {
                wander_weight: 1.0,
                cruise_speed: 0.7,
                ..SpeciesParams::benchmark()
            };
            let shark = SpeciesParams {
                max_speed: 1.6,
                chase_radius: 6.0,
                straggler_preference: 0.3,
                ..SpeciesParams::benchmark()
            };
            let plain = SpeciesParams::benchmark();
            let mut w = World::new(cfg, vec![fish, other, leader, shark, plain]).unwrap();
            let id = SpeciesId::new;
            // Few fish per threat: flee by index; many: the threats scatter.
            let sharks = if scatter { 2 } else { 100 };
            for (s, n) in [(0, 700), (1, 400), (2, 3), (3, sharks), (4, 200)] {
                w.spawn(Spawn::new(id(s), n).speed(0.7)).unwrap();
            }
            for a in [0, 1] {
                if follow {
                    w.set_relation(id(a), id(2), Relation::Follow).unwrap();
                }
                w.set_relation(id(a), id(3), Relation::Flee).unwrap();
                w.set_relation(id(3), id(a), Relation::Chase).unwrap();
            }
            w.set_scalar_steering(scalar);
            w.step_n(steps);
            w.digest()
        };
        let what = format!("{}D, box {size} {boundary:?}, scatter {scatter}", V::DIM);
        let lanes = make(true, false);
        assert_eq!(
            lanes,
            make(true, true),
            "{what}: lanes and scalar path differ"
        );
        assert_ne!(
            lanes,
            make(false, false),
            "{what}: the follow changed nothing"
        );
    }
    // Box 16: the leaders' index (cells of 9) has one cell per axis.
    let wrap = Boundary::Wrap;
    for scatter in [true, false] {
        check::<Vec2>(16.0, wrap, scatter, 60);
        check::<Vec2>(40.0, wrap, scatter, 60);
        check::<glam::Vec3>(16.0, wrap, scatter, 30);
        check::<glam::Vec3>(40.0, wrap, scatter, 30);
    }
    // A reflecting box: the leaders' index spans only the leaders, and
    // followers outside it are clamped into its edge cells.
    check::<Vec2>(40.0, Boundary::Reflect, true, 60);
    check::<glam::Vec3>(40.0, Boundary::Reflect, false, 30);
}

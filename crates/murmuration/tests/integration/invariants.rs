//! Invariants over long runs: finite state, speeds within bounds, boids inside
//! reflecting and periodic boxes.

use crate::common;
use murmuration::Dimension;

use murmuration::{Spawn, SpeciesId};

use murmuration::glam::{Vec2, Vec3};
use murmuration::{Boundary, SpeciesParams, Vector, World, WorldConfig};

fn check_invariants<V: Vector>(w: &World<V>, step: u64) {
    let cfg = *w.config();
    for i in 0..w.len() {
        let (p, v) = (w.positions()[i], w.velocities()[i]);
        assert!(
            p.is_finite() && v.is_finite(),
            "step {step}: boid {i} not finite"
        );
        let sp = w.species()[w.boid_species()[i] as usize];
        let s = v.length();
        assert!(
            s <= sp.max_speed * (1.0 + 1e-5) && s >= sp.min_speed * (1.0 - 1e-5),
            "step {step}: boid {i} speed {s} outside [{}, {}]",
            sp.min_speed,
            sp.max_speed
        );
        match cfg.boundary {
            Boundary::Reflect => {
                for a in 0..V::DIM {
                    assert!(p.get(a) >= cfg.min.get(a) && p.get(a) <= cfg.max.get(a));
                }
            }
            Boundary::Wrap => {
                for a in 0..V::DIM {
                    assert!(p.get(a) >= cfg.min.get(a) && p.get(a) < cfg.max.get(a));
                }
            }
            _ => {}
        }
    }
}

fn long_run<V: Dimension>(boundary: Boundary, steps: u64) {
    let mut cfg = WorldConfig::new(V::splat(10.0), boundary);
    cfg.dt = 0.05;
    let fast = SpeciesParams {
        max_speed: 8.0,
        min_speed: 1.0,
        max_force: 40.0,
        jitter: 0.05,
        fov_degrees: 200.0,
        ..SpeciesParams::benchmark()
    };
    let mut w = World::new(cfg, vec![fast, SpeciesParams::benchmark()]).unwrap();
    w.spawn(Spawn::new(SpeciesId::FIRST, 600).speed(8.0))
        .unwrap();
    w.spawn(
        Spawn::new(SpeciesId::new(1), 200)
            .region(V::splat(4.0), V::splat(4.5))
            .speed(0.0),
    )
    .unwrap();
    for step in 0..steps {
        w.step();
        check_invariants(&w, step);
    }
}

#[test]
fn reflecting_box_holds_every_boid_2d_and_3d() {
    long_run::<Vec2>(Boundary::Reflect, 2000);
    long_run::<Vec3>(Boundary::Reflect, 600);
}

#[test]
fn periodic_box_keeps_positions_wrapped_2d_and_3d() {
    long_run::<Vec2>(Boundary::Wrap, 2000);
    long_run::<Vec3>(Boundary::Wrap, 600);
}

#[test]
fn soft_and_unbounded_runs_stay_finite_and_within_speed_bounds() {
    long_run::<Vec2>(
        Boundary::Soft {
            margin: 2.0,
            strength: 10.0,
        },
        1500,
    );
    long_run::<Vec3>(Boundary::Unbounded, 500);
}

#[test]
fn busy_worlds_keep_invariants() {
    let mut w = common::busy2(11);
    for s in 0..1000 {
        w.step();
        check_invariants(&w, s);
    }
}

#[test]
fn switching_to_a_periodic_world_wraps_every_boid() {
    let mut w = common::busy2(4);
    w.step_n(50);
    let mut cfg = *w.config();
    cfg.min = Vec2::splat(3.0);
    cfg.max = Vec2::splat(7.0);
    cfg.boundary = Boundary::Wrap;
    w.set_config(cfg).unwrap();
    for step in 0..100 {
        check_invariants(&w, step);
        w.step();
    }
}

#[test]
fn stored_order_and_id_order_views_hold_the_same_boids() {
    let mut w = common::busy3(6);
    w.step_n(20);
    w.remove_boids(&[1, 2, 3, 700]).unwrap();
    w.step_n(5);
    let stored = w.boids();
    let mut by_id: Vec<(u32, [f32; 3])> = stored
        .ids()
        .iter()
        .zip(stored.positions())
        .map(|(&id, p)| (id, p.to_array()))
        .collect();
    by_id.sort_by_key(|e| e.0);
    let view: Vec<(u32, [f32; 3])> = w
        .ids()
        .iter()
        .zip(w.positions())
        .map(|(&id, p)| (id, p.to_array()))
        .collect();
    assert_eq!(by_id, view);
    assert!(w.ids().windows(2).all(|p| p[0] < p[1]));
    assert_eq!(w.len(), 996);
}

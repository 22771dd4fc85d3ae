//! `World::inspect`: the per-rule forces of one boid combine into the steering
//! the next step applies.

use murmuration::glam::{Vec2, Vec3};
use murmuration::{Boundary, SpeciesParams, Vector, World, WorldConfig};

fn check<V: Vector>(size: V, boundary: Boundary, fov: f32) {
    let mut config = WorldConfig::new(size, boundary);
    config.seed = 4;
    let p = SpeciesParams {
        fov_degrees: fov,
        ..SpeciesParams::default()
    };
    let mut w = World::new(config, vec![p]).unwrap();
    w.spawn(0, 600, None, 2.0).unwrap();
    w.step_n(20);
    let mut seen = 0;
    for id in (0..600).step_by(37) {
        let before = w.inspect(id).unwrap();
        let mut next = w.clone();
        next.step();
        let after = next.inspect(id).unwrap();
        let combined = (before.boundary + before.separation + before.cohesion + before.alignment)
            .clamp_length_max(p.max_force);
        let err = (combined - after.steering).length();
        assert!(
            err < 1e-3 * p.max_force,
            "boid {id}: {:?} vs {:?}",
            combined.to_array3(),
            after.steering.to_array3()
        );
        seen += before.neighbours;
    }
    assert!(seen > 0, "the inspected boids had neighbours");
    assert!(w.inspect(10_000).is_none());
}

#[test]
fn rule_forces_combine_into_the_applied_steering() {
    check(Vec2::splat(20.0), Boundary::Wrap, 360.0);
    check(
        Vec2::splat(20.0),
        Boundary::Soft {
            margin: 3.0,
            strength: 2.0,
        },
        240.0,
    );
    check(Vec3::splat(9.0), Boundary::Wrap, 300.0);
}

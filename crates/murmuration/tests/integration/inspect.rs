//! `World::inspect`: the per-rule forces of one boid combine into the steering
//! the next step applies.

use murmuration::Dimension;
use murmuration::{Spawn, SpeciesId};

use murmuration::glam::{Vec2, Vec3};
use murmuration::{Boundary, SpeciesParams, Vector, World, WorldConfig};

fn check<V: Dimension>(size: V, boundary: Boundary, fov: f32) {
    let mut config = WorldConfig::new(size, boundary);
    config.seed = 4;
    let p = SpeciesParams {
        fov_degrees: fov,
        ..SpeciesParams::default()
    };
    let mut w = World::new(config, vec![p]).unwrap();
    w.spawn(Spawn::new(SpeciesId::FIRST, 600).speed(2.0))
        .unwrap();
    w.step_n(20);
    let mut seen = 0;
    for id in (0..600).step_by(37) {
        let before = w.inspect(id).unwrap();
        let mut next = w.clone();
        next.step();
        let after = next.inspect(id).unwrap();
        // The rules within the max-force budget; the wall on top of it.
        let mut combined =
            (before.separation + before.cohesion + before.alignment).clamp_length_max(p.max_force);
        if before.boundary != V::ZERO {
            combined += before.boundary;
        }
        // The step's own kernel: the same sums, so the same bits.
        assert_eq!(
            combined.to_array3(),
            after.steering.to_array3(),
            "boid {id}"
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

/// Regression (issue 15): inspection summed neighbours with its own loop, which
/// skipped coincident boids that the kernel pushes apart in a keyed random
/// direction. It now uses the kernel's sums for the one boid.
#[test]
fn coincident_neighbours_push_in_inspection_as_in_the_step() {
    let config = WorldConfig::new(Vec2::splat(20.0), Boundary::Wrap);
    let p = SpeciesParams::default();
    let mut w = World::new(config, vec![p]).unwrap();
    let a = w
        .add_boid(SpeciesId::FIRST, Vec2::new(5.0, 5.0), Vec2::new(1.0, 0.0))
        .unwrap();
    let b = w
        .add_boid(SpeciesId::FIRST, Vec2::new(5.0, 5.0), Vec2::new(1.0, 0.0))
        .unwrap();
    w.add_boid(SpeciesId::FIRST, Vec2::new(5.5, 5.0), Vec2::new(0.0, 1.0))
        .unwrap();
    let (ia, ib) = (w.inspect(a).unwrap(), w.inspect(b).unwrap());
    assert_eq!(ia.neighbours, 2);
    assert!(ia.separation.length() > 0.0, "{:?}", ia.separation);
    // The pair pushes apart along opposite keyed directions.
    assert!(ia.separation.dot(ib.separation) < 0.0);
    let mut next = w.clone();
    next.step();
    let after = next.inspect(a).unwrap();
    let combined =
        (ia.boundary + ia.separation + ia.cohesion + ia.alignment).clamp_length_max(p.max_force);
    assert_eq!(combined.to_array3(), after.steering.to_array3());
}

/// `inspect_many` (one gather for many boids, the page's debug drawing) gives
/// each boid exactly what `inspect` gives it alone, in the order asked, with
/// `None` for ids no boid has; 2D and 3D, metric and topological neighbours.
#[test]
fn inspect_many_agrees_with_inspecting_each_boid_alone() {
    fn check<V: Dimension>(size: V, topological: u32) {
        let mut config = WorldConfig::new(size, Boundary::Wrap);
        config.seed = 9;
        let p = SpeciesParams {
            topological_neighbours: topological,
            fov_degrees: 270.0,
            ..SpeciesParams::default()
        };
        let mut w = World::new(config, vec![p]).unwrap();
        w.spawn(Spawn::new(SpeciesId::FIRST, 900).speed(2.0))
            .unwrap();
        w.step_n(15);
        // Out of order, a repeat and two unknown ids.
        let ids = [811, 3, 450, 3, 5_000, 77, 899, 0, u32::MAX, 451];
        let many = w.inspect_many(&ids);
        assert_eq!(many.len(), ids.len());
        let mut found = 0;
        for (&id, got) in ids.iter().zip(&many) {
            assert_eq!(*got, w.inspect(id), "boid {id}");
            found += usize::from(got.is_some());
        }
        assert_eq!(found, 8);
        assert!(many.iter().flatten().any(|i| i.neighbours > 0));
        // And each is what the step applies next (not only what `inspect`,
        // itself one `inspect_many`, says).
        {
            let mut next = w.clone();
            next.step();
            let after = next.inspect_many(&ids);
            for ((&id, before), after) in ids.iter().zip(&many).zip(&after) {
                let (Some(b), Some(a)) = (before, after) else {
                    continue;
                };
                let combined =
                    (b.separation + b.cohesion + b.alignment).clamp_length_max(p.max_force);
                assert_eq!(combined.to_array3(), a.steering.to_array3(), "boid {id}");
            }
        }
        assert!(w.inspect_many(&[]).is_empty());
    }
    check(Vec2::splat(25.0), 0);
    check(Vec2::splat(25.0), 7);
    check(Vec3::splat(10.0), 0);
}

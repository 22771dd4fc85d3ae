//! Obstacles: boids avoid them, and none ever ends a step inside one.

use murmuration::{Spawn, SpeciesId};

use glam::{Vec2, Vec3};
use murmuration::{Boundary, Obstacle, ObstacleSet, SpeciesParams, Vector, World, WorldConfig};

/// Signed distance of `p` to the nearest obstacle (positive outside).
fn clearance<V: Vector>(set: &ObstacleSet<V>, p: V) -> f32 {
    set.shapes()
        .iter()
        .map(|o| o.surface(p).distance)
        .fold(f32::INFINITY, f32::min)
}

/// Signed distance when `p` is inside or within `reach` of an obstacle, else +∞
/// (a culled query: cheap enough to run for every boid at every step).
fn near_clearance<V: Vector>(set: &ObstacleSet<V>, p: V, reach: f32) -> f32 {
    set.nearest(p, reach).map_or(f32::INFINITY, |s| s.distance)
}

/// Asserts no boid of `w` is inside an obstacle; returns the smallest clearance.
fn assert_outside<V: Vector>(w: &World<V>, step: u64) -> f32 {
    let set = ObstacleSet::new(w.obstacles());
    let mut worst = f32::INFINITY;
    for (&p, &id) in w.boids().positions().iter().zip(w.boids().ids()) {
        let d = near_clearance(&set, p, 0.0);
        assert!(
            d >= 0.0,
            "step {step}: boid {id} at {:?} is {d} inside an obstacle",
            p.to_array3()
        );
        worst = worst.min(d);
    }
    worst
}

/// A maze of thin walls (capsules 0.1 thick) on a 10-unit lattice, with gaps.
fn maze(size: f32) -> Vec<Obstacle<Vec2>> {
    let mut walls = Vec::new();
    let cells = (size / 10.0) as i32;
    for i in 0..cells {
        for j in 0..cells {
            let (x, y) = (i as f32 * 10.0 + 2.0, j as f32 * 10.0 + 2.0);
            if (i + 2 * j) % 3 != 0 {
                walls.push(Obstacle::Capsule {
                    a: Vec2::new(x, y),
                    b: Vec2::new(x + 8.0, y),
                    radius: 0.05,
                });
            }
            if (2 * i + j) % 3 != 1 {
                walls.push(Obstacle::Capsule {
                    a: Vec2::new(x, y),
                    b: Vec2::new(x, y + 8.0),
                    radius: 0.05,
                });
            }
            if (i * j) % 4 == 1 {
                walls.push(Obstacle::Box {
                    center: Vec2::new(x + 5.0, y + 5.0),
                    half_extents: Vec2::new(0.8, 0.05),
                });
            }
        }
    }
    walls
}

/// A periodic 80 × 80 world of jittery boids (none spawned yet) holding the maze.
fn maze_world(seed: u64) -> World<Vec2> {
    let size = 80.0;
    let mut cfg = WorldConfig::new(Vec2::splat(size), Boundary::Wrap);
    cfg.seed = seed;
    let p = SpeciesParams {
        jitter: 0.02,
        ..SpeciesParams::default()
    };
    let mut w = World::new(cfg, vec![p]).unwrap();
    for o in maze(size) {
        w.add_obstacle(o).unwrap();
    }
    w
}

#[test]
fn ten_thousand_boids_five_thousand_steps_in_a_maze_of_thin_walls_never_inside() {
    let mut w = maze_world(11);
    w.spawn(Spawn::new(SpeciesId::FIRST, 10_000).speed(3.0))
        .unwrap();
    // Spawned boids may start inside: the first step pushes them out.
    let mut worst = f32::INFINITY;
    for step in 0..5_000 {
        w.step();
        worst = worst.min(assert_outside(&w, step));
    }
    eprintln!("smallest clearance over 5,000 steps: {worst:.2e}");
}

#[test]
fn a_baked_maze_is_never_entered_and_holds_every_original_wall() {
    // The same maze baked into one distance field (one lookup per query): no boid
    // ends a step inside the field's solid, nor inside any of the original walls.
    let mut w = maze_world(12);
    let walls = w.obstacles().to_vec();
    let t = std::time::Instant::now();
    w.bake_obstacles(0.2).unwrap();
    eprintln!("baked {} walls in {:.2?}", walls.len(), t.elapsed());
    assert_eq!(w.obstacles().len(), 1);
    assert!(matches!(w.obstacles()[0], Obstacle::Field(_)));
    let original = ObstacleSet::new(&walls);
    w.spawn(Spawn::new(SpeciesId::FIRST, 5_000).speed(3.0))
        .unwrap();
    let mut worst = f32::INFINITY;
    for step in 0..2_000 {
        w.step();
        worst = worst.min(assert_outside(&w, step));
        for &q in w.boids().positions() {
            let d = near_clearance(&original, q, 0.0);
            assert!(d >= 0.0, "step {step}: {q} is {d} inside an original wall");
        }
    }
    eprintln!("smallest clearance of the baked solid over 2,000 steps: {worst:.2e}");
}

#[test]
fn baked_fields_survive_snapshots_and_bad_fields_are_named_errors() {
    let cfg = WorldConfig::new(Vec2::splat(20.0), Boundary::Wrap);
    let mut w = World::new(cfg, vec![SpeciesParams::default()]).unwrap();
    w.add_obstacle(Obstacle::Sphere {
        center: Vec2::splat(10.0),
        radius: 2.0,
    })
    .unwrap();
    w.bake_obstacles(0.5).unwrap();
    w.spawn(Spawn::new(SpeciesId::FIRST, 200).speed(3.0))
        .unwrap();
    w.step_n(20);
    let mut back = murmuration::World2::from_snapshot_bytes(&w.to_snapshot_bytes()).unwrap();
    assert_eq!(back.obstacles(), w.obstacles());
    w.step_n(20);
    back.step_n(20);
    assert_eq!(w.digest(), back.digest());
    let e = w.bake_obstacles(1e-4).unwrap_err().to_string();
    assert!(e.contains("bake.cell"), "{e}");
}

#[test]
fn huge_steps_at_max_speed_do_not_tunnel_through_thin_walls_or_corners() {
    // dt = 0.5 s at 10 units/s: five units per step against walls 0.1 thick.
    let size = 60.0;
    let mut cfg = WorldConfig::new(Vec2::splat(size), Boundary::Reflect);
    cfg.dt = 0.5;
    let p = SpeciesParams {
        max_speed: 10.0,
        min_speed: 10.0,
        max_force: 20.0,
        obstacle_weight: 0.0,
        ..SpeciesParams::default()
    };
    let mut w = World::new(cfg, vec![p]).unwrap();
    for o in maze(size) {
        w.add_obstacle(o).unwrap();
    }
    w.spawn(Spawn::new(SpeciesId::FIRST, 3_000).speed(10.0))
        .unwrap();
    for step in 0..600 {
        w.step();
        assert_outside(&w, step);
    }
}

#[test]
fn a_crowd_driven_into_a_wall_stays_on_its_side() {
    // Boids forced to full speed toward a thin wall, avoidance off: they pile up
    // against it and none crosses or enters it.
    let cfg = WorldConfig::new(Vec2::new(40.0, 20.0), Boundary::Unbounded);
    let p = SpeciesParams {
        max_speed: 4.0,
        min_speed: 4.0,
        obstacle_weight: 0.0,
        cohesion_weight: 3.0,
        ..SpeciesParams::default()
    };
    let mut w = World::new(cfg, vec![p]).unwrap();
    w.add_obstacle(Obstacle::Capsule {
        a: Vec2::new(20.0, -50.0),
        b: Vec2::new(20.0, 70.0),
        radius: 0.02,
    })
    .unwrap();
    for k in 0..2_000 {
        let y = (k % 50) as f32 * 0.4;
        let x = 5.0 + (k / 50) as f32 * 0.3;
        w.add_boid(SpeciesId::FIRST, Vec2::new(x, y), Vec2::new(4.0, 0.0))
            .unwrap();
    }
    for step in 0..400 {
        w.step();
        assert_outside(&w, step);
        assert!(
            w.positions().iter().all(|p| p.x < 20.0),
            "step {step}: a boid crossed the wall"
        );
    }
}

#[test]
fn three_d_spheres_and_boxes_are_never_entered() {
    let mut cfg = WorldConfig::new(Vec3::splat(20.0), Boundary::Wrap);
    cfg.seed = 5;
    let mut w = World::new(cfg, vec![SpeciesParams::default()]).unwrap();
    w.add_obstacle(Obstacle::Sphere {
        center: Vec3::splat(10.0),
        radius: 3.0,
    })
    .unwrap();
    w.add_obstacle(Obstacle::Box {
        center: Vec3::new(4.0, 4.0, 10.0),
        half_extents: Vec3::new(0.05, 3.0, 3.0),
    })
    .unwrap();
    w.add_obstacle(Obstacle::Capsule {
        a: Vec3::new(15.0, 2.0, 2.0),
        b: Vec3::new(15.0, 18.0, 18.0),
        radius: 0.05,
    })
    .unwrap();
    w.spawn(Spawn::new(SpeciesId::FIRST, 3_000).speed(3.0))
        .unwrap();
    for step in 0..1_000 {
        w.step();
        assert_outside(&w, step);
    }
}

#[test]
fn avoidance_turns_boids_before_they_touch() {
    // Boids flying at a large disc: with avoidance most never come within 0.2 of it;
    // without it, most hit it. Measured: see the printed fractions.
    let run = |weight: f32| {
        let cfg = WorldConfig::new(Vec2::new(60.0, 60.0), Boundary::Unbounded);
        let p = SpeciesParams {
            obstacle_weight: weight,
            obstacle_lookahead: 1.5,
            obstacle_margin: 2.0,
            max_force: 4.0,
            min_speed: 2.0,
            ..SpeciesParams::default()
        };
        let mut w = World::new(cfg, vec![p]).unwrap();
        w.add_obstacle(Obstacle::Sphere {
            center: Vec2::new(30.0, 30.0),
            radius: 6.0,
        })
        .unwrap();
        for k in 0..100 {
            let at = Vec2::new(5.0 + (k / 10) as f32, 25.5 + (k % 10) as f32);
            w.add_boid(SpeciesId::FIRST, at, Vec2::new(3.0, 0.0))
                .unwrap();
        }
        let set = ObstacleSet::new(w.obstacles());
        let mut touched = [false; 100];
        for _ in 0..600 {
            w.step();
            for (i, &p) in w.positions().iter().enumerate() {
                if clearance(&set, p) < 0.2 {
                    touched[i] = true;
                }
            }
        }
        touched.iter().filter(|&&t| t).count() as f32 / 100.0
    };
    let (with, without) = (run(3.0), run(0.0));
    eprintln!("fraction touching the disc: avoidance {with:.2}, none {without:.2}");
    assert!(without > 0.5, "{without}");
    assert!(with < 0.1, "{with}");
}

#[test]
fn a_boid_added_inside_an_obstacle_is_pushed_out_by_the_next_step() {
    let cfg = WorldConfig::new(Vec2::splat(20.0), Boundary::Wrap);
    let mut w = World::new(cfg, vec![SpeciesParams::default()]).unwrap();
    w.add_obstacle(Obstacle::Sphere {
        center: Vec2::splat(10.0),
        radius: 2.0,
    })
    .unwrap();
    w.add_boid(SpeciesId::FIRST, Vec2::new(10.5, 10.2), Vec2::new(1.0, 0.0))
        .unwrap();
    w.step();
    assert_outside(&w, 0);
}

#[test]
fn obstacle_runs_are_deterministic_across_threads_and_snapshots_keep_obstacles() {
    let build = || {
        let cfg = WorldConfig::new(Vec2::splat(40.0), Boundary::Wrap);
        let mut w = World::new(
            cfg,
            vec![SpeciesParams {
                jitter: 0.02,
                ..SpeciesParams::default()
            }],
        )
        .unwrap();
        for o in maze(40.0) {
            w.add_obstacle(o).unwrap();
        }
        w.spawn(Spawn::new(SpeciesId::FIRST, 2_000).speed(3.0))
            .unwrap();
        w
    };
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut w = build();
            w.step_n(200);
            w.digest()
        })
    };
    let one = run(1);
    assert_eq!(one, run(2));
    assert_eq!(one, run(8));
    let mut w = build();
    w.step_n(100);
    let restored = World::<Vec2>::from_snapshot_bytes(&w.to_snapshot_bytes()).unwrap();
    assert_eq!(restored.obstacles(), w.obstacles());
    let mut restored = restored;
    w.step_n(100);
    restored.step_n(100);
    assert_eq!(w.digest(), restored.digest());
    assert_eq!(w.digest(), one);
}

#[test]
fn bad_obstacles_are_named_errors() {
    let cfg = WorldConfig::new(Vec2::splat(20.0), Boundary::Wrap);
    let mut w = World::new(cfg, vec![SpeciesParams::default()]).unwrap();
    let e = w
        .add_obstacle(Obstacle::Sphere {
            center: Vec2::ZERO,
            radius: -1.0,
        })
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "obstacles[0].radius = -1 is out of range: must be in (0, 1e6]"
    );
    let e = w
        .add_obstacle(Obstacle::Capsule {
            a: Vec2::new(f32::NAN, 0.0),
            b: Vec2::ZERO,
            radius: 1.0,
        })
        .unwrap_err();
    assert!(e.to_string().contains("obstacles[0].a = NaN"), "{e}");
    let e = w.remove_obstacle(3).unwrap_err();
    assert_eq!(
        e.to_string(),
        "obstacle index 3 does not exist (the world has 0 obstacles)"
    );
}

#[test]
fn a_boid_resting_against_a_wall_can_move_away_from_it() {
    // Regression: a boid within the contact gap of a surface was held in place
    // even when its velocity pointed away from the surface.
    let cfg = WorldConfig::new(Vec2::splat(40.0), Boundary::Unbounded);
    let p = SpeciesParams {
        obstacle_weight: 0.0,
        ..SpeciesParams::default()
    };
    let mut w = World::new(cfg, vec![p]).unwrap();
    w.add_obstacle(Obstacle::Capsule {
        a: Vec2::new(20.0, 0.0),
        b: Vec2::new(20.0, 40.0),
        radius: 0.05,
    })
    .unwrap();
    // Within the contact gap (1e-3 from the wall; the gap is 1e-3 × the 1.5
    // perception radius), moving away from it.
    w.add_boid(
        SpeciesId::FIRST,
        Vec2::new(20.0 - 0.05 - 1e-3, 20.0),
        Vec2::new(-2.0, 0.0),
    )
    .unwrap();
    w.step_n(10);
    let x = w.positions()[0].x;
    assert!(x < 19.8, "still pinned at x = {x}");
    assert_outside(&w, 10);
}

/// Regression (issue 14.2): `idle-crowd` spawned 7 of 600 people inside its
/// fountain, who then jumped out faster than any speed allows.
#[test]
fn spawning_never_places_a_boid_inside_an_obstacle() {
    let text = include_str!("../../../../scenarios/idle-crowd.toml");
    let s = murmuration::scenario::Scenario::parse(text, "idle-crowd.toml").unwrap();
    let mut w: World<Vec2> = s.build_world().unwrap();
    assert_eq!(w.len(), 600);
    assert_outside(&w, 0);
    let limit = w.species()[0].max_speed * w.config().dt * 1.001;
    for step in 1..=20 {
        let before: Vec<Vec2> = w.positions().to_vec();
        w.step();
        for (a, b) in before.iter().zip(w.positions()) {
            assert!(
                (*b - *a).length() <= limit,
                "step {step}: moved {}",
                (*b - *a).length()
            );
        }
        assert_outside(&w, step);
    }

    // Many boids among several obstacles, in 2D and 3D, periodic and walled.
    let mut w = World::new(
        WorldConfig::new(Vec2::splat(40.0), Boundary::Wrap),
        vec![SpeciesParams::default()],
    )
    .unwrap();
    for (c, r) in [(5.0, 4.0), (20.0, 6.0), (33.0, 5.0)] {
        w.add_obstacle(Obstacle::Sphere {
            center: Vec2::new(c, 20.0),
            radius: r,
        })
        .unwrap();
    }
    w.add_obstacle(Obstacle::Box {
        center: Vec2::new(20.0, 36.0),
        half_extents: Vec2::new(20.0, 2.0),
    })
    .unwrap();
    w.spawn(Spawn::new(SpeciesId::FIRST, 2000).speed(1.0))
        .unwrap();
    assert_outside(&w, 0);
    let mut w3 = World::new(
        WorldConfig::new(Vec3::splat(20.0), Boundary::Reflect),
        vec![SpeciesParams::default()],
    )
    .unwrap();
    w3.add_obstacle(Obstacle::Sphere {
        center: Vec3::splat(10.0),
        radius: 8.0,
    })
    .unwrap();
    w3.spawn(Spawn::new(SpeciesId::FIRST, 2000).speed(1.0))
        .unwrap();
    assert_outside(&w3, 0);
}

/// A region wholly inside obstacles is refused (no boid can be placed), by the
/// scenario's validation with the field named and by `World::spawn`; a region
/// mostly inside them is a warning of `check`.
#[test]
fn a_spawn_region_inside_obstacles_is_an_error_and_mostly_inside_a_warning() {
    use murmuration::scenario::Scenario;
    let solid = r#"
[world]
size = [20, 20]
boundary = { kind = "wrap" }
[species.fish]
count = 10
spawn = { min = [8, 8], max = [12, 12] }
[[obstacles]]
shape = "sphere"
center = [10, 10]
radius = 4
"#;
    let e = Scenario::parse(solid, "s.toml").unwrap_err().to_string();
    assert!(
        e.contains("species.fish.spawn") && e.contains("entirely inside obstacles"),
        "{e}"
    );
    assert!(e.starts_with("s.toml:7:"), "{e}");

    // An obstacle engulfing the whole periodic world.
    let engulfed = solid
        .replace("radius = 4", "radius = 40")
        .replace("spawn = { min = [8, 8], max = [12, 12] }\n", "");
    let e = Scenario::parse(&engulfed, "s.toml")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("species.fish:") && e.contains("entirely inside"),
        "{e}"
    );

    let mostly = solid.replace("radius = 4", "radius = 2.5");
    let s = Scenario::parse(&mostly, "s.toml").unwrap();
    let lints = s.lints();
    assert!(
        lints
            .iter()
            .any(|l| l.field == "species.fish.spawn" && l.message.contains("inside obstacles")),
        "{lints:?}"
    );
    let w: World<Vec2> = s.build_world().unwrap();
    assert_outside(&w, 0);

    let mut w = World::new(
        WorldConfig::new(Vec2::splat(20.0), Boundary::Wrap),
        vec![SpeciesParams::default()],
    )
    .unwrap();
    w.add_obstacle(Obstacle::Sphere {
        center: Vec2::splat(10.0),
        radius: 50.0,
    })
    .unwrap();
    let e = w
        .spawn(Spawn::new(SpeciesId::FIRST, 5).speed(1.0))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("no free place") && e.contains("100.0% inside obstacles"),
        "{e}"
    );
    assert_eq!(w.len(), 0, "a refused spawn adds nothing");

    // Room for a few boids only: a spawn of many fails as a whole and leaves the
    // world as it was, ids included.
    let mut w = World::new(
        WorldConfig::new(Vec2::splat(20.0), Boundary::Reflect),
        vec![SpeciesParams::default()],
    )
    .unwrap();
    w.spawn(Spawn::new(SpeciesId::FIRST, 3).speed(1.0)).unwrap();
    // Free: two bands about 0.01 thick along the top and bottom (0.1% of the box).
    w.add_obstacle(Obstacle::Box {
        center: Vec2::splat(10.0),
        half_extents: Vec2::new(10.0, 9.988),
    })
    .unwrap();
    let digest = w.digest();
    let e = w
        .spawn(Spawn::new(SpeciesId::FIRST, 1000).speed(1.0))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("no free place for boid") && !e.contains("boid 0 of"),
        "{e}"
    );
    assert_eq!((w.len(), w.digest()), (3, digest));
    let band = (Vec2::new(0.0, 0.0), Vec2::new(20.0, 0.005));
    assert_eq!(
        w.spawn(Spawn {
            region: Some(band),
            ..Spawn::new(SpeciesId::FIRST, 1).speed(1.0)
        })
        .unwrap(),
        (3, 4),
        "ids continue"
    );
}

/// Regression (issue 14.2): an obstacle dropped over a whole periodic world threw
/// boids to ±1e6, outside the box. With no free place left, boids stay in the box.
#[test]
fn an_obstacle_engulfing_a_periodic_world_keeps_every_boid_in_the_box() {
    let mut w = World::new(
        WorldConfig::new(Vec2::splat(20.0), Boundary::Wrap),
        vec![SpeciesParams::default()],
    )
    .unwrap();
    w.spawn(Spawn::new(SpeciesId::FIRST, 500).speed(1.0))
        .unwrap();
    w.add_obstacle(Obstacle::Sphere {
        center: Vec2::splat(10.0),
        radius: 50.0,
    })
    .unwrap();
    for step in 0..50 {
        w.step();
        for p in w.positions() {
            assert!(
                p.is_finite() && p.cmpge(Vec2::ZERO).all() && p.cmplt(Vec2::splat(20.0)).all(),
                "step {step}: {p}"
            );
        }
    }
}

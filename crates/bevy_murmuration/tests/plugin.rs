//! The plugin in a headless `App`: bit-for-bit stepping, hooks mirrored into the
//! world, boid entities, messages, errors on bad hooks.

use bevy_app::prelude::*;
use bevy_ecs::message::Messages;
use bevy_ecs::prelude::{ChildOf, Entity, With};
use bevy_math::{Vec2 as BVec2, Vec3 as BVec3};
use bevy_murmuration::murmuration::scenario::Scenario;
use bevy_murmuration::murmuration::{World2, glam::Vec2};
use bevy_murmuration::{
    AnyFlock, Boid, BoidEaten, BoidSync, Flock2, FlockAttractor, FlockObstacle, FlockPath,
    FlockPulse, FlockZone, HookError, MurmurationPlugin, Shape, ZoneCount, ZoneCrossed, ZoneRef,
};
use bevy_time::{Fixed, Time, TimePlugin, TimeUpdateStrategy};
use bevy_transform::components::Transform;
use std::time::Duration;

/// A small predator-and-prey world with an obstacle of its own: every code path
/// of a step (meals, obstacles) in a few hundred boids.
const HUNT: &str = r#"
dimension = 2
[world]
size = [40, 40]
boundary = "wrap"
seed = 7
[[obstacles]]
shape = "sphere"
center = [30, 30]
radius = 3.0
[species.fish]
style = "fish"
count = 300
flee_radius = 4.0
[species.shark]
style = "fish"
count = 3
max_speed = 5.0
chase_radius = 30.0
chase_weight = 3.0
eat_radius = 1.0
[relations.fish]
shark = "flee"
[relations.shark]
fish = "chase"
"#;

fn scenario() -> Scenario {
    Scenario::parse(HUNT, "hunt").unwrap()
}

fn app() -> App {
    let mut app = App::new();
    app.add_plugins(MurmurationPlugin::default());
    app
}

fn spawn_hunt(app: &mut App, sync: BoidSync) -> Entity {
    Flock2::from_scenario(&scenario())
        .unwrap()
        .with_sync(sync)
        .spawn(app.world_mut())
}

fn step(app: &mut App, n: usize) {
    for _ in 0..n {
        app.world_mut().run_schedule(FixedUpdate);
    }
}

fn flock(app: &App, e: Entity) -> &Flock2 {
    app.world().get::<Flock2>(e).unwrap()
}

fn count<C: bevy_ecs::component::Component>(app: &mut App) -> usize {
    app.world_mut()
        .query_filtered::<Entity, With<C>>()
        .iter(app.world())
        .count()
}

fn messages<M: bevy_ecs::message::Message + Clone>(app: &App) -> Vec<M> {
    let m = app.world().resource::<Messages<M>>();
    m.get_cursor().read(m).cloned().collect()
}

#[test]
fn the_plugin_steps_a_flock_bit_for_bit_like_world_step() {
    let mut reference: World2 = scenario().build_world().unwrap();
    let mut app = app();
    let f = spawn_hunt(&mut app, BoidSync::Entities);
    let mut eaten = 0;
    for _ in 0..200 {
        reference.step();
        eaten += reference.events().len();
        step(&mut app, 1);
        assert_eq!(flock(&app, f).world().digest(), reference.digest());
    }
    assert!(eaten > 0, "the sharks ate nothing: the test covers no meal");
    assert_eq!(messages::<BoidEaten>(&app).len(), eaten);
    // Every boid's entity stands where the world has it, and only live boids
    // have one.
    let w = flock(&app, f).world().clone();
    let mut seen = 0;
    let mut q = app.world_mut().query::<(&Boid, &Transform, &ChildOf)>();
    for (boid, t, parent) in q.iter(app.world()) {
        let k = w
            .ids()
            .binary_search(&boid.id)
            .expect("a boid entity without a boid");
        assert_eq!(
            t.translation.truncate().to_array(),
            w.positions()[k].to_array()
        );
        let v = BVec2::from_array(w.velocities()[k].to_array()).normalize();
        let x = (t.rotation * BVec3::X).truncate();
        assert!(
            x.dot(v) > 0.9999,
            "+X {x:?} is not along the velocity {v:?}"
        );
        assert_eq!(parent.parent(), f);
        seen += 1;
    }
    assert_eq!(seen, w.len());
    assert_eq!(seen, 303 - eaten);
}

#[test]
fn fixed_update_driven_by_time_steps_once_per_flock_dt() {
    let mut app = app();
    app.add_plugins(TimePlugin);
    let f = spawn_hunt(&mut app, BoidSync::Off);
    let dt = Duration::from_secs_f64(flock(&app, f).world().config().dt as f64);
    app.insert_resource(TimeUpdateStrategy::ManualDuration(dt));
    for _ in 0..31 {
        app.update();
    }
    assert_eq!(app.world().resource::<Time<Fixed>>().timestep(), dt);
    let steps = flock(&app, f).world().step_index();
    // The first update measures no elapsed time; every later one is one step.
    assert_eq!(steps, 30);
    let mut reference: World2 = scenario().build_world().unwrap();
    reference.step_n(steps);
    assert_eq!(flock(&app, f).world().digest(), reference.digest());
    assert_eq!(count::<Boid>(&mut app), 0, "BoidSync::Off spawned entities");
}

#[test]
fn a_component_change_reaches_the_world() {
    let mut app = app();
    let f = spawn_hunt(&mut app, BoidSync::Off);
    let target = app
        .world_mut()
        .spawn((
            FlockAttractor::new(2.0, 3.0),
            Transform::from_xyz(10.0, 12.0, 0.0),
            ChildOf(f),
        ))
        .id();
    step(&mut app, 1);
    // The scenario has no attractor: the hook's is the first.
    let a = flock(&app, f).world().attractors()[0];
    assert_eq!(
        (a.position, a.weight, a.radius),
        (Vec2::new(10.0, 12.0), 2.0, 3.0)
    );
    app.world_mut()
        .get_mut::<Transform>(target)
        .unwrap()
        .translation = BVec3::new(20.0, 5.0, 0.0);
    app.world_mut()
        .get_mut::<FlockAttractor>(target)
        .unwrap()
        .weight = 4.5;
    step(&mut app, 1);
    let a = flock(&app, f).world().attractors();
    assert_eq!(a.len(), 1);
    assert_eq!((a[0].position, a[0].weight), (Vec2::new(20.0, 5.0), 4.5));

    // A following attractor keeps its smoothed position and chases its goal.
    app.world_mut()
        .get_mut::<FlockAttractor>(target)
        .unwrap()
        .follow = 5.0;
    app.world_mut()
        .get_mut::<Transform>(target)
        .unwrap()
        .translation = BVec3::new(30.0, 5.0, 0.0);
    step(&mut app, 1);
    let a = flock(&app, f).world().attractors()[0];
    assert_eq!(a.goal, Vec2::new(30.0, 5.0));
    assert!(
        a.position.x > 20.0 && a.position.x < 30.0,
        "{:?}",
        a.position
    );

    // A path's vertices follow its entity.
    app.world_mut().spawn((
        FlockPath {
            points: vec![BVec3::ZERO, BVec3::new(10.0, 0.0, 0.0)],
            capture_radius: 2.0,
            weight: 1.0,
            species: None,
        },
        Transform::from_xyz(5.0, 20.0, 0.0),
        ChildOf(f),
    ));
    step(&mut app, 1);
    let p = &flock(&app, f).world().paths()[0];
    assert_eq!(p.points, vec![Vec2::new(5.0, 20.0), Vec2::new(15.0, 20.0)]);
}

#[test]
fn a_despawned_obstacle_disappears_and_the_scenarios_own_stays() {
    let mut app = app();
    let f = spawn_hunt(&mut app, BoidSync::Off);
    let rock = |x: f32, app: &mut App| {
        app.world_mut()
            .spawn((
                FlockObstacle(Shape::Sphere { radius: 2.0 }),
                Transform::from_xyz(x, 10.0, 0.0),
                ChildOf(f),
            ))
            .id()
    };
    let a = rock(5.0, &mut app);
    let b = rock(15.0, &mut app);
    step(&mut app, 1);
    let centres = |app: &App| -> Vec<f32> {
        flock(app, f)
            .world()
            .obstacles()
            .iter()
            .map(|o| o.bounds().0.x)
            .collect()
    };
    // The scenario's obstacle first, then the hooks' (in entity order).
    let sorted = |mut v: Vec<f32>| {
        v[1..].sort_by(f32::total_cmp);
        v
    };
    assert_eq!(sorted(centres(&app)), vec![30.0, 5.0, 15.0]);
    app.world_mut().despawn(a);
    step(&mut app, 1);
    assert_eq!(centres(&app), vec![30.0, 15.0]);
    app.world_mut().get_mut::<FlockObstacle>(b).unwrap().0 = Shape::Box {
        half_extents: BVec3::new(1.0, 2.0, 0.0),
    };
    step(&mut app, 1);
    assert_eq!(centres(&app), vec![30.0, 15.0]);
    assert!(matches!(
        flock(&app, f).world().obstacles().last().unwrap(),
        bevy_murmuration::murmuration::Obstacle::Box { .. }
    ));
    app.world_mut().despawn(b);
    step(&mut app, 1);
    assert_eq!(
        centres(&app),
        vec![30.0],
        "the scenario's obstacle went too"
    );
}

#[test]
fn zone_counts_and_crossings_name_the_zone_entity() {
    let mut app = app();
    let f = spawn_hunt(&mut app, BoidSync::Off);
    let zone = app
        .world_mut()
        .spawn((
            FlockZone {
                shape: Shape::Box {
                    half_extents: BVec3::new(10.0, 10.0, 0.0),
                },
                species: None,
                threshold: 0,
            },
            Transform::from_xyz(20.0, 20.0, 0.0),
            ChildOf(f),
        ))
        .id();
    step(&mut app, 60);
    let inside = flock(&app, f).world().zones()[0].count();
    assert!(inside > 0);
    assert_eq!(app.world().get::<ZoneCount>(zone), Some(&ZoneCount(inside)));
    let crossings = messages::<ZoneCrossed>(&app);
    let entered = crossings.iter().filter(|c| c.entered).count();
    let left = crossings.len() - entered;
    assert_eq!(entered - left, inside);
    assert!(
        crossings
            .iter()
            .all(|c| c.zone == ZoneRef::Hook(zone) && c.flock == f)
    );
    // Moving the zone a little reports only the boids at its edges.
    app.world_mut()
        .get_mut::<Transform>(zone)
        .unwrap()
        .translation
        .x += 0.01;
    app.world_mut()
        .resource_mut::<Messages<ZoneCrossed>>()
        .clear();
    step(&mut app, 1);
    assert!(messages::<ZoneCrossed>(&app).len() < inside / 2 + 5);
}

fn message(app: &App, e: Entity) -> Option<String> {
    app.world().get::<HookError>(e).map(|h| h.0.clone())
}

#[test]
fn a_bad_hook_is_flagged_and_left_out_until_it_is_fixed() {
    let mut app = app();
    let f = spawn_hunt(&mut app, BoidSync::Off);
    let rock = app
        .world_mut()
        .spawn((
            FlockObstacle(Shape::Sphere { radius: f32::NAN }),
            Transform::from_xyz(5.0, 5.0, 0.0),
            ChildOf(f),
        ))
        .id();
    let target = app
        .world_mut()
        .spawn((
            FlockAttractor {
                species: Some(9),
                ..FlockAttractor::new(1.0, 1.0)
            },
            ChildOf(f),
        ))
        .id();
    step(&mut app, 2);
    let m = message(&app, rock).expect("a NaN radius was taken");
    assert!(m.contains("radius") && m.contains("NaN"), "{m}");
    let m = message(&app, target).expect("an unknown species was taken");
    assert!(m.contains('9'), "{m}");
    assert_eq!(flock(&app, f).world().obstacles().len(), 1);
    assert!(flock(&app, f).world().attractors().is_empty());
    app.world_mut().get_mut::<FlockObstacle>(rock).unwrap().0 = Shape::Sphere { radius: 1.0 };
    step(&mut app, 1);
    assert_eq!(message(&app, rock), None);
    assert_eq!(flock(&app, f).world().obstacles().len(), 2);
    // A polygon in a 3D flock is refused, not a panic.
    let three = AnyFlock::from_toml(
        "dimension = 3\n[world]\nsize = [20, 20, 20]\n[species.b]\ncount = 10\n",
    )
    .unwrap()
    .spawn(app.world_mut());
    let poly = app
        .world_mut()
        .spawn((
            FlockObstacle(Shape::Polygon {
                points: vec![BVec2::ZERO, BVec2::X, BVec2::Y],
            }),
            ChildOf(three),
        ))
        .id();
    step(&mut app, 1);
    assert!(
        message(&app, poly).is_some(),
        "a polygon in 3D was not flagged"
    );
}

#[test]
fn a_pulse_fires_once_and_its_entity_goes_when_it_fades() {
    let mut app = app();
    let f = spawn_hunt(&mut app, BoidSync::Off);
    let pulse = app
        .world_mut()
        .spawn((
            FlockPulse {
                radius: 8.0,
                strength: 20.0,
                duration: 0.25,
            },
            Transform::from_xyz(20.0, 20.0, 0.0),
            ChildOf(f),
        ))
        .id();
    step(&mut app, 1);
    assert_eq!(flock(&app, f).world().pulses().len(), 1);
    step(&mut app, 5);
    assert_eq!(flock(&app, f).world().pulses().len(), 1, "fired twice?");
    step(&mut app, 15);
    assert!(flock(&app, f).world().pulses().is_empty());
    assert!(
        app.world().get_entity(pulse).is_err(),
        "the faded pulse's entity stayed"
    );
}

#[test]
fn turning_entities_off_despawns_them_and_back_on_respawns_them() {
    let mut app = app();
    let f = spawn_hunt(&mut app, BoidSync::Entities);
    step(&mut app, 1);
    assert_eq!(count::<Boid>(&mut app), flock(&app, f).world().len());
    let first = flock(&app, f).world().ids()[0];
    let e = flock(&app, f).entity_of(first).unwrap();
    assert_eq!(app.world().get::<Boid>(e).unwrap().id, first);
    // A boid entity the game despawned is spawned again.
    app.world_mut().despawn(e);
    step(&mut app, 1);
    assert_eq!(count::<Boid>(&mut app), flock(&app, f).world().len());
    app.world_mut().get_mut::<Flock2>(f).unwrap().sync = BoidSync::Off;
    step(&mut app, 1);
    assert_eq!(count::<Boid>(&mut app), 0);
    app.world_mut().get_mut::<Flock2>(f).unwrap().sync = BoidSync::Entities;
    step(&mut app, 1);
    assert_eq!(count::<Boid>(&mut app), flock(&app, f).world().len());
    // A paused flock does not move.
    app.world_mut().get_mut::<Flock2>(f).unwrap().paused = true;
    let d = flock(&app, f).world().digest();
    step(&mut app, 3);
    assert_eq!(flock(&app, f).world().digest(), d);
}

#[test]
fn a_3d_flock_faces_its_boids_along_their_velocity() {
    let mut app = app();
    let f = AnyFlock::from_toml(
        "dimension = 3\n[world]\nsize = [20, 20, 20]\nseed = 3\n[species.b]\ncount = 50\n",
    )
    .unwrap()
    .spawn(app.world_mut());
    step(&mut app, 5);
    let flock = app
        .world()
        .get::<bevy_murmuration::Flock3>(f)
        .unwrap()
        .world()
        .clone();
    let mut q = app.world_mut().query::<(&Boid, &Transform)>();
    let mut n = 0;
    for (b, t) in q.iter(app.world()) {
        let k = flock.ids().binary_search(&b.id).unwrap();
        let v = BVec3::from_array(flock.velocities()[k].to_array()).normalize();
        assert!(t.forward().dot(v) > 0.9999, "{:?} vs {v:?}", t.forward());
        n += 1;
    }
    assert_eq!(n, 50);
}

#[test]
fn two_flocks_keep_their_own_hooks_boids_and_zone_names() {
    // The second flock has a zone of its own (from its file) before the hook's.
    let zoned = format!(
        "{HUNT}\n[[zones]]\nshape = {{ shape = \"sphere\", center = [20, 20], radius = 15.0 }}\n"
    );
    let mut app = app();
    let a = spawn_hunt(&mut app, BoidSync::Entities);
    let b = Flock2::from_scenario(&Scenario::parse(&zoned, "zoned").unwrap())
        .unwrap()
        .spawn(app.world_mut());
    let zone = app
        .world_mut()
        .spawn((
            FlockZone {
                shape: Shape::Sphere { radius: 15.0 },
                species: None,
                threshold: 0,
            },
            Transform::from_xyz(20.0, 20.0, 0.0),
            ChildOf(b),
        ))
        .id();
    app.world_mut().spawn((
        FlockObstacle(Shape::Sphere { radius: 2.0 }),
        Transform::from_xyz(5.0, 5.0, 0.0),
        ChildOf(a),
    ));
    step(&mut app, 30);
    assert_eq!(flock(&app, a).world().obstacles().len(), 2);
    assert_eq!(flock(&app, b).world().obstacles().len(), 1);
    assert!(flock(&app, a).world().zones().is_empty());
    let zones = flock(&app, b).world().zones();
    assert_eq!(zones.len(), 2);
    // The same region counted twice: once as the file's zone, once as the hook's.
    assert_eq!(zones[0].count(), zones[1].count());
    assert_eq!(
        app.world().get::<ZoneCount>(zone),
        Some(&ZoneCount(zones[1].count()))
    );
    let crossings = messages::<ZoneCrossed>(&app);
    let named = |r: ZoneRef| crossings.iter().filter(|c| c.zone == r).count();
    assert!(named(ZoneRef::Scenario(0)) > 0);
    assert_eq!(named(ZoneRef::Scenario(0)), named(ZoneRef::Hook(zone)));
    assert!(crossings.iter().all(|c| c.flock == b));
    // Each flock's boid entities are its own children, one per boid.
    let mut q = app.world_mut().query::<(&Boid, &ChildOf)>();
    let mut children =
        |f: Entity, app: &App| q.iter(app.world()).filter(|(_, p)| p.parent() == f).count();
    assert_eq!(children(a, &app), flock(&app, a).world().len());
    assert_eq!(children(b, &app), flock(&app, b).world().len());
}

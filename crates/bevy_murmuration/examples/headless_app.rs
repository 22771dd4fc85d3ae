//! A flock in a headless Bevy app, as a game would drive it: an attractor the
//! "player" moves on a circle, a rock, a counted zone, a pulse, and a system
//! reading the plugin's messages. Runs in CI (no window, no GPU).
//!
//!     cargo run -p bevy_murmuration --example headless_app -- [STEPS]

use bevy_app::prelude::*;
use bevy_ecs::prelude::*;
use bevy_math::Vec3;
use bevy_murmuration::{
    AnyFlock, Boid, BoidSync, Flock2, FlockAttractor, FlockObstacle, FlockPulse, FlockSet,
    FlockZone, MurmurationPlugin, Shape, ZoneCount, ZoneCrossed,
};
use bevy_time::{Fixed, Time, TimePlugin, TimeUpdateStrategy};
use bevy_transform::TransformPlugin;
use bevy_transform::components::Transform;
use std::time::Duration;

/// The engine's embedded default: 2,000 boids in a 60 × 60 wrap-around box.
const SCENARIO: &str = include_str!("../../../scenarios/default.toml");

#[derive(Component)]
struct Player;

#[derive(Resource, Default)]
struct Crossings {
    entered: usize,
    left: usize,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let steps: u32 = match std::env::args().nth(1) {
        Some(s) => s.parse().map_err(|e| format!("STEPS {s:?}: {e}"))?,
        None => 600,
    };
    let mut app = App::new();
    app.add_plugins((TimePlugin, TransformPlugin, MurmurationPlugin::default()))
        .init_resource::<Crossings>()
        .add_systems(Startup, setup)
        .add_systems(FixedUpdate, steer_player.before(FlockSet::Mirror))
        .add_systems(Update, count_crossings);
    app.update(); // startup: spawns the flock and its hooks; the plugin sets the
    // fixed timestep to the flock's dt. Headless and deterministic: from now on
    // each update advances the clock by exactly one timestep (one flock step).
    let dt: Duration = app.world().resource::<Time<Fixed>>().timestep();
    app.insert_resource(TimeUpdateStrategy::ManualDuration(dt));
    for _ in 0..steps {
        app.update();
    }

    let world = app.world_mut();
    let (flock, zone) = {
        let flock = world.query::<&Flock2>().single(world)?.world().clone();
        let zone = world.query::<&ZoneCount>().single(world)?.0;
        (flock, zone)
    };
    let entities = world.query::<&Boid>().iter(world).count();
    let crossings = world.resource::<Crossings>();
    let m = flock.metrics();
    println!(
        "{} steps ({:.1} s at a fixed {:.4} s): {} boids, {entities} boid entities",
        flock.step_index(),
        flock.time(),
        world.resource::<Time<Fixed>>().timestep().as_secs_f64(),
        flock.len(),
    );
    println!(
        "polarization {:.3}; zone holds {zone} (entered {}, left {}); digest {:016x}",
        m.polarization,
        crossings.entered,
        crossings.left,
        flock.digest()
    );
    if entities != flock.len() || crossings.entered - crossings.left != zone {
        return Err("the ECS disagrees with the world".into());
    }
    Ok(())
}

fn setup(mut commands: Commands) {
    let mut flock = commands.spawn_empty();
    AnyFlock::from_toml(SCENARIO)
        .expect("the embedded scenario parses")
        .with_sync(BoidSync::Entities)
        .insert_into(&mut flock);
    let flock = flock.id();
    commands.spawn((
        Player,
        FlockAttractor {
            follow: 4.0, // the flock's goal glides after the player
            ..FlockAttractor::new(0.6, 4.0)
        },
        Transform::from_xyz(30.0, 30.0, 0.0),
        ChildOf(flock),
    ));
    commands.spawn((
        FlockObstacle(Shape::Sphere { radius: 4.0 }),
        Transform::from_xyz(30.0, 30.0, 0.0),
        ChildOf(flock),
    ));
    commands.spawn((
        FlockZone {
            shape: Shape::Box {
                half_extents: Vec3::new(10.0, 10.0, 0.0),
            },
            species: None,
            threshold: 300,
        },
        Transform::from_xyz(15.0, 45.0, 0.0),
        ChildOf(flock),
    ));
    commands.spawn((
        FlockPulse {
            radius: 10.0,
            strength: 30.0,
            duration: 0.5,
        },
        Transform::from_xyz(45.0, 15.0, 0.0),
        ChildOf(flock),
    ));
}

/// The "player": circles the rock once every 10 s.
fn steer_player(time: Res<Time<Fixed>>, mut player: Query<&mut Transform, With<Player>>) {
    let a = time.elapsed_secs() * std::f32::consts::TAU / 10.0;
    for mut t in &mut player {
        t.translation = Vec3::new(30.0 + 15.0 * a.cos(), 30.0 + 15.0 * a.sin(), 0.0);
    }
}

fn count_crossings(mut messages: MessageReader<ZoneCrossed>, mut crossings: ResMut<Crossings>) {
    for m in messages.read() {
        if m.entered {
            crossings.entered += 1;
        } else {
            crossings.left += 1;
        }
    }
}

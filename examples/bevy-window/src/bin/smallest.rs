//! docs/BEVY.md's smallest Bevy game, verbatim, here so that it is compiled.

use bevy::prelude::*;
use bevy_murmuration::{AnyFlock, Boid, FlockAttractor, MurmurationPlugin};

fn main() {
    App::new()
        .add_plugins((DefaultPlugins, MurmurationPlugin::default()))
        .add_systems(Startup, setup)
        .add_systems(Update, draw_boids)
        .run();
}

fn setup(mut commands: Commands) {
    commands.spawn(Camera2d);
    // The flock's space: 10 pixels per unit, its 60 × 60 box centred on the camera
    // (and a Visibility for its boids' sprites to inherit).
    let flock_space = Transform::from_xyz(-300.0, -300.0, 0.0).with_scale(Vec3::splat(10.0));
    let mut flock = commands.spawn((flock_space, Visibility::default()));
    AnyFlock::from_toml(include_str!("flock.toml"))
        .unwrap()
        .insert_into(&mut flock);
    let flock = flock.id();
    // Hooks are children of the flock, placed by their Transform in its space.
    commands.spawn((
        FlockAttractor::new(0.5, 4.0),
        Transform::from_xyz(30.0, 30.0, 0.0),
        ChildOf(flock),
    ));
}

/// Boids arrive as child entities with a `Boid` and a `Transform`: give each a sprite.
fn draw_boids(mut commands: Commands, new: Query<Entity, Added<Boid>>) {
    for boid in &new {
        commands
            .entity(boid)
            .insert(Sprite::from_color(Color::WHITE, Vec2::new(0.6, 0.2)));
    }
}

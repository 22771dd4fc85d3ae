//! # bevy_murmuration — Murmuration's flocks in a Bevy app
//!
//! Add [`MurmurationPlugin`], spawn an entity with a [`Flock`] (from a scenario
//! file, [`AnyFlock::load`], or built in code, [`Flock::new`]), and the flock steps once per `FixedUpdate` run in
//! [`FlockSet::Step`], exactly as [`murmuration::World::step`] would.
//!
//! ```
//! use bevy_app::prelude::*;
//! use bevy_murmuration::{AnyFlock, Flock2, MurmurationPlugin};
//!
//! let mut app = App::new();
//! app.add_plugins(MurmurationPlugin::default());
//! let flock = AnyFlock::from_toml(
//!     r#"
//! dimension = 2
//! [world]
//! size = [40, 40]
//! [species.fish]
//! count = 200
//! "#,
//! )
//! .unwrap();
//! let entity = flock.spawn(app.world_mut());
//! app.world_mut().run_schedule(FixedUpdate); // one step (`app.update()` in a game)
//! let world = app.world().get::<Flock2>(entity).unwrap().world();
//! assert_eq!((world.step_index(), world.len()), (1, 200));
//! ```
//!
//! Boids reach the game in one of two ways ([`BoidSync`]): as entities with a
//! [`Boid`] and a `Transform` synced after each step (small flocks: a game attaches
//! sprites or meshes to them), or not at all, the game reading
//! [`Flock2::world`]'s positions for its own instanced draw (large flocks).
//!
//! Game-facing hooks are components on children of the flock's entity, placed by
//! their `Transform` in the flock's space and mirrored into the world before each
//! step: [`FlockAttractor`], [`FlockPulse`], [`FlockPath`], [`FlockObstacle`] and
//! [`FlockZone`]. What happened in a step arrives as messages: [`BoidEaten`],
//! [`ZoneCrossed`] and [`ZoneThreshold`].
//!
//! The crate needs the core and Bevy's renderer-free sub-crates (`bevy_app`,
//! `bevy_ecs`, `bevy_math`, `bevy_time`, `bevy_transform`), nothing else;
//! `examples/bevy-window` (full Bevy, its own lockfile) is outside the
//! workspace. In `FixedUpdate` the `FlockSet` runs Mirror (`hooks.rs`: the hook
//! components written after the scenario's own entries, only what changed;
//! pulses fired once), Step (`World::step`, its events as messages), then Sync
//! (`sync.rs`: the boid entities walked in the ECS's order, each boid fetched by
//! id through an id → slot table; new boids spawned, gone ones despawned; zone
//! counts; faded pulses despawned). What the systems keep about a flock sits
//! below them, in `mirror.rs` and `boid_entities.rs`, so `flock.rs`,
//! `hooks.rs` and `sync.rs` form layers.

mod boid_entities;
mod flock;
mod hooks;
mod messages;
mod mirror;
mod plugin;
mod sync;

pub use flock::{AnyFlock, BoidSync, Flock, Flock2, Flock3};
pub use hooks::{
    FlockAttractor, FlockObstacle, FlockPath, FlockPulse, FlockZone, HookError, Shape, ZoneCount,
};
pub use messages::{BoidEaten, ZoneCrossed, ZoneRef, ZoneThreshold};
pub use murmuration;
pub use plugin::{FlockSet, MurmurationPlugin};
pub use sync::Boid;

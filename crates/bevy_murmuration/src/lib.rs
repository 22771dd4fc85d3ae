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

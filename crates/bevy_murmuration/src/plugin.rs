//! [`MurmurationPlugin`] and the [`FlockSet`] it runs in `FixedUpdate`.

use crate::flock::Flock;
use crate::hooks::mirror_hooks;
use crate::messages::{BoidEaten, ZoneCrossed, ZoneThreshold};
use crate::sync::{step_flocks, sync_flocks};
use bevy_app::prelude::{App, FixedUpdate, Plugin, PreUpdate};
use bevy_ecs::prelude::{Added, IntoScheduleConfigs, Query, ResMut, SystemSet};
use bevy_time::{Fixed, Time};
use murmuration::Dimension;
use murmuration::Vector;
use murmuration::glam::{Vec2, Vec3};
use std::time::Duration;

/// Steps every [`Flock`] once per `FixedUpdate` run, mirroring hooks before and
/// syncing entities after.
#[derive(Clone, Copy, Debug)]
pub struct MurmurationPlugin {
    /// Set `Time<Fixed>`'s timestep to the time step (`dt`) of each flock as it
    /// is spawned, so a flock runs in real time (default true). With several
    /// flocks of different `dt`, the last one spawned sets it; each flock still
    /// advances one of its own steps per fixed run.
    pub match_timestep: bool,
}

impl Default for MurmurationPlugin {
    fn default() -> Self {
        Self {
            match_timestep: true,
        }
    }
}

/// The plugin's systems in `FixedUpdate`, in this order. Order game systems
/// against them: move hooks `.before(FlockSet::Mirror)`, read boids and
/// messages `.after(FlockSet::Sync)`.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FlockSet {
    /// Hook components (attractors, pulses, paths, obstacles, zones) are written
    /// into their flock's world.
    Mirror,
    /// Each unpaused flock advances one step; its events become messages.
    Step,
    /// Boid entities, zone counts and faded pulses follow the world.
    Sync,
}

impl Plugin for MurmurationPlugin {
    fn build(&self, app: &mut App) {
        app.add_message::<BoidEaten>()
            .add_message::<ZoneCrossed>()
            .add_message::<ZoneThreshold>()
            .configure_sets(
                FixedUpdate,
                (FlockSet::Mirror, FlockSet::Step, FlockSet::Sync).chain(),
            );
        add_systems::<Vec2>(app);
        add_systems::<Vec3>(app);
        if self.match_timestep {
            app.add_systems(PreUpdate, (match_timestep::<Vec2>, match_timestep::<Vec3>));
        }
    }
}

fn add_systems<V: Dimension>(app: &mut App) {
    app.add_systems(
        FixedUpdate,
        (
            mirror_hooks::<V>.in_set(FlockSet::Mirror),
            step_flocks::<V>.in_set(FlockSet::Step),
            sync_flocks::<V>.in_set(FlockSet::Sync),
        ),
    );
}

/// Sets the fixed timestep to a newly spawned flock's `dt`.
fn match_timestep<V: Vector>(
    flocks: Query<&Flock<V>, Added<Flock<V>>>,
    time: Option<ResMut<Time<Fixed>>>,
) {
    let (Some(flock), Some(mut time)) = (flocks.iter().last(), time) else {
        return;
    };
    let dt = Duration::from_secs_f64(flock.world().config().dt as f64);
    if time.timestep() != dt {
        time.set_timestep(dt);
    }
}

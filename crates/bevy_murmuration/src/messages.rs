//! What happened in a step, as Bevy messages (written in `FlockSet::Step`).

use bevy_ecs::prelude::{Entity, Message};
use bevy_math::Vec3;
use murmuration::BoidId;

/// Which zone an event is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZoneRef {
    /// A [`FlockZone`](crate::FlockZone) hook's entity.
    Hook(Entity),
    /// A zone of the scenario itself, by its index in the file.
    Scenario(usize),
}

/// A chaser ate a boid (the prey's entity, if any, is despawned in
/// `FlockSet::Sync`).
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub struct BoidEaten {
    /// The flock's entity.
    pub flock: Entity,
    /// The world's step index.
    pub step: u64,
    /// The chaser's boid id.
    pub predator: BoidId,
    /// The eaten boid's id.
    pub prey: BoidId,
    /// Where the prey was, in the flock's space (z = 0 in 2D).
    pub position: Vec3,
}

/// A boid entered or left a zone (a boid eaten inside one leaves it).
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZoneCrossed {
    /// The flock's entity.
    pub flock: Entity,
    /// The world's step index.
    pub step: u64,
    /// The zone.
    pub zone: ZoneRef,
    /// The boid's id.
    pub boid: BoidId,
    /// True when it entered, false when it left.
    pub entered: bool,
}

/// A zone's count rose to its threshold or fell below it.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZoneThreshold {
    /// The flock's entity.
    pub flock: Entity,
    /// The world's step index.
    pub step: u64,
    /// The zone.
    pub zone: ZoneRef,
    /// The count after the step.
    pub count: usize,
    /// True when the count rose to the threshold, false when it fell below.
    pub rising: bool,
}

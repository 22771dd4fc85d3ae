//! What the plugin last wrote into a flock's world for each hook: the flock
//! owns it (`crate::flock`), the hooks' system (`crate::hooks`) updates it.

use bevy_ecs::prelude::Entity;
use murmuration::{Attractor, Obstacle, Path, Vector, World, Zone};

/// What the plugin last wrote into a world for each hook, in the world's order
/// (after the scenario's own entries).
pub(crate) struct Mirror<V: Vector> {
    pub(crate) attractors: Vec<(Entity, Attractor<V>)>,
    pub(crate) obstacles: Vec<(Entity, Obstacle<V>)>,
    pub(crate) paths: Vec<(Entity, Path<V>)>,
    pub(crate) zones: Vec<(Entity, Zone<V>)>,
    /// Fired pulses and the world time at which each has faded.
    pub(crate) pulses: Vec<(Entity, f64)>,
}

impl<V: Vector> Default for Mirror<V> {
    fn default() -> Self {
        Self {
            attractors: Vec::new(),
            obstacles: Vec::new(),
            paths: Vec::new(),
            zones: Vec::new(),
            pulses: Vec::new(),
        }
    }
}

impl<V: Vector> Mirror<V> {
    /// Index in the world's zone list of the first mirrored zone.
    pub(crate) fn zone_base(&self, world: &World<V>) -> usize {
        world.zones().len().saturating_sub(self.zones.len())
    }
}

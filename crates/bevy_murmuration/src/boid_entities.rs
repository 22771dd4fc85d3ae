//! A flock's boid entities by boid id: the flock owns the table
//! (`crate::flock`), the sync system (`crate::sync`) fills it each step.

use bevy_ecs::prelude::{Commands, Entity};
use murmuration::BoidId;

/// A flock's boid entities by boid id, and the per-sync scratch: each live
/// boid's slot in the stored arrays, and which boids the sync has seen.
#[derive(Default)]
pub(crate) struct BoidEntities {
    by_id: Vec<Option<Entity>>,
    slot_of: Vec<u32>,
    alive: Vec<u32>,
    seen: Vec<u32>,
    stamp: u32,
}

impl BoidEntities {
    /// The entity of boid `id`, if it has one.
    pub(crate) fn get(&self, id: BoidId) -> Option<Entity> {
        self.by_id.get(id as usize).copied().flatten()
    }

    /// Starts a sync of a world whose stored ids are `ids`, all below `next_id`.
    pub(crate) fn begin(&mut self, ids: &[BoidId], next_id: BoidId) {
        let n = next_id as usize;
        if self.by_id.len() < n {
            self.by_id.resize(n, None);
            self.slot_of.resize(n, 0);
            self.alive.resize(n, 0);
            self.seen.resize(n, 0);
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.alive.fill(0);
            self.seen.fill(0);
            self.stamp = 1;
        }
        for (slot, &id) in ids.iter().enumerate() {
            self.slot_of[id as usize] = slot as u32;
            self.alive[id as usize] = self.stamp;
        }
    }

    /// Boid `id`'s slot in the stored arrays, if it is alive.
    pub(crate) fn slot(&self, id: BoidId) -> Option<usize> {
        let i = id as usize;
        (self.alive.get(i) == Some(&self.stamp)).then(|| self.slot_of[i] as usize)
    }

    pub(crate) fn saw(&mut self, id: BoidId, e: Entity) {
        self.seen[id as usize] = self.stamp;
        self.by_id[id as usize] = Some(e);
    }

    pub(crate) fn was_seen(&self, id: BoidId) -> bool {
        self.seen[id as usize] == self.stamp
    }

    pub(crate) fn forget(&mut self, id: BoidId, e: Entity) {
        if let Some(slot) = self.by_id.get_mut(id as usize)
            && *slot == Some(e)
        {
            *slot = None;
        }
    }

    /// Despawns every boid entity.
    pub(crate) fn clear(&mut self, commands: &mut Commands) {
        for e in self.by_id.drain(..).flatten() {
            commands.entity(e).try_despawn();
        }
    }
}

//! Boid state as structure-of-arrays, in storage (slot) order.

use crate::vector::Vector;

/// Stable identifier of a boid: never reused within a world, survives removals.
pub type BoidId = u32;

/// The simulated state. Slot `i` of every array belongs to boid `ids[i]`. Slots are
/// in storage order: each [`crate::Pipeline::step`] re-orders them into the cell
/// order of its neighbour grid, so boids near in space are near in memory. Ids are
/// unique; [`crate::World`] offers the same data in ascending id order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Boids<V> {
    pub(crate) ids: Vec<BoidId>,
    pub(crate) species: Vec<u16>,
    pub(crate) positions: Vec<V>,
    pub(crate) velocities: Vec<V>,
    /// Applied steering acceleration of the last step (kept for smoothing and debug drawing).
    pub(crate) steering: Vec<V>,
    pub(crate) next_id: BoidId,
}

impl<V: Vector> Boids<V> {
    /// Empty state.
    pub fn new() -> Self {
        Self {
            ids: Vec::new(),
            species: Vec::new(),
            positions: Vec::new(),
            velocities: Vec::new(),
            steering: Vec::new(),
            next_id: 0,
        }
    }

    /// Number of boids.
    #[inline]
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True when there are no boids.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Boid id per slot (unique, storage order).
    #[inline]
    pub fn ids(&self) -> &[BoidId] {
        &self.ids
    }
    /// Species index per boid.
    #[inline]
    pub fn species(&self) -> &[u16] {
        &self.species
    }
    /// Positions, units.
    #[inline]
    pub fn positions(&self) -> &[V] {
        &self.positions
    }
    /// Velocities, units/s.
    #[inline]
    pub fn velocities(&self) -> &[V] {
        &self.velocities
    }
    /// Steering acceleration applied in the last step, units/s².
    #[inline]
    pub fn steering(&self) -> &[V] {
        &self.steering
    }
    /// The id the next added boid will get.
    #[inline]
    pub fn next_id(&self) -> BoidId {
        self.next_id
    }

    /// Appends a boid with a fresh id (no validation: [`crate::World`] validates).
    pub fn push(&mut self, species: u16, position: V, velocity: V) -> BoidId {
        let id = self.next_id;
        self.next_id += 1;
        self.ids.push(id);
        self.species.push(species);
        self.positions.push(position);
        self.velocities.push(velocity);
        self.steering.push(V::ZERO);
        id
    }

    /// Slot of boid `id`, if present (a linear scan).
    pub fn slot_of(&self, id: BoidId) -> Option<usize> {
        self.ids.iter().position(|&x| x == id)
    }

    /// Removes every boid for which `remove(slot)` is true, keeping the order of the rest.
    pub fn retain_slots(&mut self, mut remove: impl FnMut(usize) -> bool) {
        let mut w = 0;
        for r in 0..self.len() {
            if remove(r) {
                continue;
            }
            if w != r {
                self.ids[w] = self.ids[r];
                self.species[w] = self.species[r];
                self.positions[w] = self.positions[r];
                self.velocities[w] = self.velocities[r];
                self.steering[w] = self.steering[r];
            }
            w += 1;
        }
        self.ids.truncate(w);
        self.species.truncate(w);
        self.positions.truncate(w);
        self.velocities.truncate(w);
        self.steering.truncate(w);
    }

    /// Reserves room for `extra` more boids; a failed allocation is an error, not
    /// an abort.
    pub fn reserve(&mut self, extra: usize) -> Result<(), std::collections::TryReserveError> {
        self.ids.try_reserve_exact(extra)?;
        self.species.try_reserve_exact(extra)?;
        self.positions.try_reserve_exact(extra)?;
        self.velocities.try_reserve_exact(extra)?;
        self.steering.try_reserve_exact(extra)
    }

    /// Bytes of heap memory held.
    pub fn heap_bytes(&self) -> usize {
        let v = std::mem::size_of::<V>();
        self.ids.capacity() * 4
            + self.species.capacity() * 2
            + (self.positions.capacity() + self.velocities.capacity() + self.steering.capacity())
                * v
    }
}

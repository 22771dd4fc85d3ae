//! One boid taken apart for debug drawing: its neighbours and the force each rule
//! contributes, from the step's own neighbour kernel and rule functions.

use crate::behaviours::boundary::boundary_force;
use crate::boids::BoidId;
use crate::params::Steering;
use crate::step::pipeline::Pipeline;
use crate::step::rules::{Sums, cruise, directions, forces};
use crate::vector::Vector;
use crate::world::World;

/// What one boid sees and how each rule pulls it, for the current state (the
/// forces the next step would compute from the flocking rules and the soft
/// boundary; behaviours such as obstacles and targets are in `steering` only).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Inspection<V: Vector> {
    /// The boid.
    pub id: BoidId,
    /// Its species index.
    pub species: usize,
    /// Position, units.
    pub position: V,
    /// Velocity, units/s.
    pub velocity: V,
    /// Neighbours it reacts to (within perception, inside the vision cone, not ignored).
    pub neighbours: u32,
    /// Weighted separation force, units/s². Under [`Steering::Directions`] each rule
    /// gives a direction, not a force: its weighted unit direction times
    /// `max_force` (the one seek acts on the sum of the directions).
    pub separation: V,
    /// Weighted alignment force, units/s² (see `separation`).
    pub alignment: V,
    /// Weighted cohesion force, units/s² (see `separation`).
    pub cohesion: V,
    /// Soft-boundary force, units/s² (outside the `max_force` budget).
    pub boundary: V,
    /// Relaxation toward the cruise speed, units/s² (outside the budget).
    pub cruise: V,
    /// The acceleration the last step applied (every force combined), units/s².
    pub steering: V,
}

impl<V: Vector> World<V> {
    /// Takes boid `id` apart (`None` when no such boid). O(n log n): one
    /// gather of the flock; for many boids use [`World::inspect_many`].
    pub fn inspect(&self, id: BoidId) -> Option<Inspection<V>> {
        self.inspect_many(&[id]).pop().flatten()
    }

    /// Takes each boid of `ids` apart, in that order (`None` for an id no boid
    /// has). One gather of the flock for all of them, so drawing the forces
    /// of hundreds of boids costs about one step's neighbour search for them.
    pub fn inspect_many(&self, ids: &[BoidId]) -> Vec<Option<Inspection<V>>> {
        let b = &self.boids;
        let slot_of: std::collections::HashMap<BoidId, usize> =
            b.ids.iter().enumerate().map(|(i, &id)| (id, i)).collect();
        let slots: Vec<usize> = ids
            .iter()
            .filter_map(|id| slot_of.get(id).copied())
            .collect();
        if slots.is_empty() {
            return vec![None; ids.len()];
        }
        // The step's own kernel on a copy of the state: the same neighbours, the
        // same lane order and the same push between coincident boids.
        let mut sums = Pipeline::sums_of(&self.boids, &self.context(), &slots).into_iter();
        ids.iter()
            .map(|id| {
                let i = *slot_of.get(id)?;
                let sums = sums.next().expect("one sum per found id");
                Some(self.inspection(i, &sums))
            })
            .collect()
    }

    /// Boid `i`'s inspection from its neighbour sums.
    fn inspection(&self, i: usize, sums: &Sums<V>) -> Inspection<V> {
        let b = &self.boids;
        let s = b.species[i] as usize;
        let p = &self.species[s];
        let (pos, vel) = (b.positions[i], b.velocities[i]);
        let [separation, cohesion, alignment] = match p.steering {
            Steering::Directions => directions(sums, p).map(|d| d * p.max_force),
            Steering::PerRule | Steering::Raw => forces(sums, vel, p, V::ZERO),
        };
        Inspection {
            id: b.ids[i],
            species: s,
            position: pos,
            velocity: vel,
            neighbours: sums.neighbours,
            separation,
            alignment,
            cohesion,
            boundary: boundary_force(pos, vel, &self.config),
            cruise: cruise(vel, p, false),
            steering: b.steering[i],
        }
    }
}

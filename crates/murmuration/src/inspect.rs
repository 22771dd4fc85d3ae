//! One boid taken apart for debug drawing: its neighbours and the force each rule
//! contributes, from the same rule functions the step uses.

use crate::boids::BoidId;
use crate::boundary::soft_force;
use crate::params::{Boundary, Relation};
use crate::rules::{Sums, forces, min_image};
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
    /// Weighted separation force, units/s².
    pub separation: V,
    /// Weighted alignment force, units/s².
    pub alignment: V,
    /// Weighted cohesion force, units/s².
    pub cohesion: V,
    /// Soft-boundary force, units/s².
    pub boundary: V,
    /// The acceleration the last step applied (every force combined), units/s².
    pub steering: V,
}

impl<V: Vector> World<V> {
    /// Takes boid `id` apart (`None` when no such boid). O(n): meant for one
    /// selected boid per frame.
    pub fn inspect(&self, id: BoidId) -> Option<Inspection<V>> {
        let b = &self.boids;
        let i = b.ids.iter().position(|&x| x == id)?;
        let s = b.species[i] as usize;
        let p = &self.species[s];
        let (pos, vel) = (b.positions[i], b.velocities[i]);
        let periodic = self.config.boundary == Boundary::Wrap;
        let size = self.config.size();
        let r = p.perception_radius();
        let h = vel.normalize_or_zero();
        let cos_half = (p.fov_degrees.to_radians() * 0.5).cos();
        let mut sums = Sums::<V>::default();
        for j in 0..b.len() {
            if j == i {
                continue;
            }
            let mut d = b.positions[j] - pos;
            if periodic {
                d = min_image(d, size);
            }
            let d2 = d.length_squared();
            if d2 >= r * r || d2 == 0.0 {
                continue;
            }
            if p.has_vision_cone() && h != V::ZERO && d.dot(h) < cos_half * d2.sqrt() {
                continue;
            }
            let rel = self.relations.get(s, b.species[j] as usize);
            if !rel.in_rules() {
                continue;
            }
            sums.neighbours += 1;
            if d2 < p.separation_radius * p.separation_radius {
                sums.sep -= d * (1.0 / d2);
            }
            if rel == Relation::Separate {
                continue;
            }
            if d2 < p.alignment_radius * p.alignment_radius {
                sums.ali += b.velocities[j];
                sums.ali_n += 1;
            }
            if d2 < p.cohesion_radius * p.cohesion_radius {
                sums.coh += d;
                sums.coh_n += 1;
            }
        }
        let [separation, cohesion, alignment] = forces(&sums, vel, p);
        Some(Inspection {
            id,
            species: s,
            position: pos,
            velocity: vel,
            neighbours: sums.neighbours,
            separation,
            alignment,
            cohesion,
            boundary: soft_force(pos, &self.config),
            steering: b.steering[i],
        })
    }
}

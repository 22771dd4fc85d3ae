//! What a pointer does to a world in every front end (the sandbox window, the
//! browser page): a click sets the flock's target, a right click fires a pulse
//! that scatters it. Sized from the world box and the species' forces, so the
//! same gesture means the same thing in a 100-unit world and an 800-pixel canvas.

use crate::behaviours::attractors::{Attractor, Pulse};
use crate::error::WorldError;
use crate::vector::Vector;
use crate::world::World;

/// The pointer target's weight, dimensionless.
const TARGET_WEIGHT: f32 = 1.5;
/// The pointer target's smallest radius, as a fraction of the world's shorter side.
const TARGET_RADIUS: f32 = 0.05;
/// A boid's share of the target's disc (ball in 3D): a cell whose side is this
/// fraction of its separation radius (seed 003's flock settles at 0.49).
const TARGET_SPACING: f32 = 0.5;
/// A pointer pulse's reach, as a fraction of the world's shorter side.
const PULSE_RADIUS: f32 = 0.12;
/// A pointer pulse's strength, in multiples of the largest species `max_force`.
const PULSE_FORCE: f32 = 8.0;
/// A pointer pulse's lifetime, seconds.
const PULSE_SECONDS: f32 = 1.5;

impl<V: Vector> World<V> {
    /// The shorter side of the world box (the first two axes), units: the scale
    /// of pointer gestures.
    pub fn pointer_scale(&self) -> f32 {
        let size = self.config().max - self.config().min;
        size.get(0).min(size.get(1))
    }

    /// Sets the pointer's target at `position` (attractor 0, added when the
    /// world has none): every species gathers around it. Its pull stops at a
    /// radius that holds the whole flock at its own spacing
    /// ([`World::pointer_target_radius`]), so the flock swirls around the point
    /// instead of packing onto it.
    pub fn set_pointer_target(&mut self, position: V) -> Result<(), WorldError> {
        let a = Attractor {
            free_inside: true,
            ..Attractor::new(position, TARGET_WEIGHT, self.pointer_target_radius())
        };
        if self.attractors().is_empty() {
            self.add_attractor(a).map(|_| ())
        } else {
            self.set_attractor(0, a)
        }
    }

    /// Removes the pointer's target (attractor 0, when it is one that
    /// [`World::set_pointer_target`] set); true when there was one.
    pub fn clear_pointer_target(&mut self) -> bool {
        if self.attractors().first().is_some_and(|a| a.free_inside) {
            self.remove_attractor(0).is_ok()
        } else {
            false
        }
    }

    /// The pointer's target (attractor 0, when [`World::set_pointer_target`]
    /// set it): where it is and its radius, units.
    pub fn pointer_target(&self) -> Option<(V, f32)> {
        self.attractors()
            .first()
            .filter(|a| a.free_inside)
            .map(|a| (a.position, a.radius))
    }

    /// The pointer target's radius, units: the disc (ball in 3D) that holds
    /// every boid in a square (cube) of half its separation radius a side, and
    /// at least 5 % of the world's shorter side.
    pub fn pointer_target_radius(&self) -> f32 {
        let mut counts = vec![0usize; self.species().len()];
        for &s in self.boids().species() {
            counts[s as usize] += 1;
        }
        let share: f32 = counts
            .iter()
            .zip(self.species())
            .map(|(&n, p)| n as f32 * (TARGET_SPACING * p.separation_radius).powi(V::DIM as i32))
            .sum();
        let held = if V::DIM == 2 {
            (share / std::f32::consts::PI).sqrt()
        } else {
            (share * 3.0 / (4.0 * std::f32::consts::PI)).cbrt()
        };
        held.max(TARGET_RADIUS * self.pointer_scale())
    }

    /// Fires a pulse at `position` that pushes boids outward for 1.5 s.
    pub fn fire_pointer_pulse(&mut self, position: V) -> Result<(), WorldError> {
        let max_force = self
            .species()
            .iter()
            .map(|s| s.max_force)
            .fold(0.0, f32::max);
        self.add_pulse(Pulse::new(
            position,
            PULSE_RADIUS * self.pointer_scale(),
            PULSE_FORCE * max_force,
            PULSE_SECONDS,
        ))
    }
}

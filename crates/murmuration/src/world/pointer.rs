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
/// The pointer target's arrival radius, as a fraction of the world's shorter side.
const TARGET_RADIUS: f32 = 0.05;
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
    /// world has none): every species steers to it.
    pub fn set_pointer_target(&mut self, position: V) -> Result<(), WorldError> {
        let a = Attractor::new(
            position,
            TARGET_WEIGHT,
            TARGET_RADIUS * self.pointer_scale(),
        );
        if self.attractors().is_empty() {
            self.add_attractor(a).map(|_| ())
        } else {
            self.set_attractor(0, a)
        }
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

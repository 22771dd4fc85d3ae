//! What one step does to the moving entities, boids aside: attractors follow their
//! goals, pulses and paths age and expire. Shared by `World::step` and the GPU
//! backend, which computes each step's entity state on the host with these same
//! functions (so both engines see the same bits).

use crate::behaviours::attractors::{Attractor, Pulse};
use crate::behaviours::paths::Path;
use crate::vector::Vector;

/// Ages every entity by one step of `dt` seconds: attractors move toward their
/// goals, pulses and paths grow older. Nothing is removed ([`Pulse::is_live`],
/// [`Path::is_live`] say what has expired).
pub fn age<V: Vector>(
    attractors: &mut [Attractor<V>],
    pulses: &mut [Pulse<V>],
    paths: &mut [Path<V>],
    dt: f32,
) {
    for a in attractors {
        a.advance(dt);
    }
    for p in pulses {
        p.age += dt;
    }
    for p in paths {
        p.age += dt;
    }
}

/// Removes expired pulses and paths.
pub fn expire<V: Vector>(pulses: &mut Vec<Pulse<V>>, paths: &mut Vec<Path<V>>) {
    pulses.retain(Pulse::is_live);
    paths.retain(Path::is_live);
}

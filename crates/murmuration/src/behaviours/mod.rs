//! What a boid reacts to besides its neighbours: obstacles and their distance
//! fields, attractors and pulses, flow paths, zones, the world's edges, wander
//! and banked flight. Each module holds one behaviour's data and its force;
//! the step (`crate::step`) adds the forces up.

pub(crate) mod attractors;
pub(crate) mod bake;
pub(crate) mod boundary;
pub(crate) mod clearance;
pub mod entities;
pub(crate) mod flight;
pub mod navigation;
pub(crate) mod obstacles;
pub(crate) mod paths;
pub(crate) mod sdf_grid;
pub(crate) mod surface;
pub(crate) mod wander;
pub(crate) mod zones;

use crate::params::SpeciesParams;
use crate::vector::Vector;

/// Reynolds steering toward `direction` at max speed: `desired − velocity`,
/// clamped to the species' max force. Every behaviour's force ends in it.
#[inline(always)]
pub(crate) fn seek<V: Vector>(direction: V, v: V, p: &SpeciesParams) -> V {
    let dir = direction.normalize_or_zero();
    if dir == V::ZERO {
        return V::ZERO;
    }
    (dir * p.max_speed - v).clamp_length_max(p.max_force)
}

//! [`StepContext`]: everything a step reads besides the boids' state (the
//! world's configuration, species, relations and entities), borrowed from the
//! world for one step. The pipeline and the steering pass both read it.

use crate::behaviours::attractors::{Attractor, Pulse};
use crate::behaviours::obstacles::ObstacleSet;
use crate::behaviours::paths::Path;
use crate::params::{Relations, SpeciesParams, WorldConfig};
use crate::vector::Vector;

/// Everything a step reads besides the state.
#[derive(Clone, Copy, Debug)]
pub struct StepContext<'a, V: Vector> {
    /// World box, boundary, dt, seed.
    pub config: &'a WorldConfig<V>,
    /// Parameters per species index.
    pub species: &'a [SpeciesParams],
    /// How each species reacts to each other.
    pub relations: &'a Relations,
    /// Index of the step being computed (keys the random numbers).
    pub step: u64,
    /// Solid obstacles (avoided, never entered).
    pub obstacles: &'a ObstacleSet<V>,
    /// Points boids seek (arrive).
    pub attractors: &'a [Attractor<V>],
    /// Repelling impulses.
    pub pulses: &'a [Pulse<V>],
    /// Polylines boids within their capture radius flow along.
    pub paths: &'a [Path<V>],
}

//! Parameters of the ABM frameworks comparison's Flocking model (the step: `crate::models`).

use serde::{Deserialize, Serialize};

/// Parameters of the ABM comparison's Flocking model (its names).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AbmFlocking {
    /// speed, units per unit of `world.dt`: how far a bird moves per step (dt = 1), in (0, 1e5].
    pub speed: f32,
    /// cohere_factor: weight of the mean offset to the neighbours, in [0, 1e3].
    pub cohere_factor: f32,
    /// separation, units: neighbours closer than this are pushed away from, in [0, 1e4].
    pub separation: f32,
    /// separate_factor: weight of the separation vector, in [0, 1e3].
    pub separate_factor: f32,
    /// match_factor: weight of the neighbours' mean heading, in [0, 1e3].
    pub match_factor: f32,
    /// visual_distance, units: neighbours within it (inclusive) are seen, in (0, 1e4].
    pub visual_distance: f32,
}

impl Default for AbmFlocking {
    /// The specification's "small" run: speed 1, cohere 0.03, separation 1,
    /// separate 0.015, match 0.05, visual distance 5 (200 birds in 100 × 100).
    fn default() -> Self {
        Self {
            speed: 1.0,
            cohere_factor: 0.03,
            separation: 1.0,
            separate_factor: 0.015,
            match_factor: 0.05,
            visual_distance: 5.0,
        }
    }
}

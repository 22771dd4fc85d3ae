//! What a picture shows and how: plain data a tuning panel binds to directly.

use serde::{Deserialize, Serialize};

/// How boids are coloured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ColourMode {
    /// One glowing colour per species.
    #[default]
    Species,
    /// Blue (slow) through cyan and yellow to red (at the species' max speed).
    Speed,
    /// Dark blue (alone) to white (20 or more neighbours within perception).
    Neighbours,
}

/// Drawing settings.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RenderSettings {
    /// Boid colouring.
    pub colour: ColourMode,
    /// Glow around bright things (a bloom pass); off draws crisp shapes only.
    pub bloom: bool,
    /// Strength of the glow, in [0, 4].
    pub bloom_strength: f32,
    /// Length of a boid's body, units, in (0, 1e4]; 0 picks one from the species'
    /// separation radius.
    pub boid_size: f32,
    /// Trail length in frames, in [0, 64]; 0 draws none.
    pub trails: u32,
    /// Draw obstacles, attractors, pulses, paths and zones (with their counts).
    pub overlays: bool,
    /// Brightness before tone mapping, in (0, 16].
    pub exposure: f32,
    /// Background colour, linear RGB.
    pub background: [f32; 3],
    /// Gravity for drawing banked turns in 3D, units/s², in [0, 1e4]: a boid
    /// rolls so its wings' lift bears its weight and its turn (units read as
    /// metres: 9.81). 0 draws every boid level.
    pub gravity: f32,
}

impl Default for RenderSettings {
    fn default() -> Self {
        Self {
            colour: ColourMode::Species,
            bloom: true,
            bloom_strength: 1.0,
            boid_size: 0.0,
            trails: 0,
            overlays: true,
            exposure: 1.0,
            background: [0.0012, 0.0018, 0.0055],
            gravity: 9.81,
        }
    }
}

impl RenderSettings {
    /// True when a frame needs the boids' state on the CPU (trails by boid id,
    /// colouring by neighbour count), so a GPU flock must be read back first.
    pub fn needs_cpu_state(&self) -> bool {
        self.trails > 0 || self.colour == ColourMode::Neighbours
    }
}

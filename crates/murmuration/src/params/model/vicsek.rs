//! Parameters of Vicsek et al., PRL 75, 1226 (1995) (the step: `crate::models::vicsek`).

use serde::{Deserialize, Serialize};

/// Which velocity moves a particle during the step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VicsekUpdate {
    /// The paper's: x(t + Δt) = x(t) + v(t) Δt, the old velocity.
    #[default]
    Paper,
    /// The later "forward" form: x(t + Δt) = x(t) + v(t + Δt) Δt, the new one.
    Forward,
}

/// Parameters of the Vicsek model (symbols of the paper; Δt is `world.dt`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Vicsek {
    /// v0, units/s: every particle's speed, in (0, 1e5].
    pub v0: f32,
    /// r, units: interaction radius (neighbours strictly within it), in (0, 1e4].
    pub r: f32,
    /// η, rad: noise amplitude, in [0, 2π].
    pub eta: f32,
    /// Which velocity moves the particle (the paper's old one by default).
    pub update: VicsekUpdate,
}

impl Default for Vicsek {
    /// The paper's Fig. 1–2 values: v0 = 0.03, r = 1, η = 2 (Δt = 1 in the presets).
    fn default() -> Self {
        Self {
            v0: 0.03,
            r: 1.0,
            eta: 2.0,
            update: VicsekUpdate::Paper,
        }
    }
}

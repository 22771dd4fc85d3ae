//! Parameters of Couzin et al., J. theor. Biol. 218, 1 (2002) (the step: `crate::models`).

use serde::{Deserialize, Serialize};

/// Parameters of the Couzin model (the paper's symbols; τ is `world.dt`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Couzin {
    /// r_r, units: radius of the zone of repulsion, in (0, 1e4].
    pub r_r: f32,
    /// Δr_o, units: width of the zone of orientation, in [0, 1e4].
    pub delta_r_o: f32,
    /// Δr_a, units: width of the zone of attraction, in [0, 1e4].
    pub delta_r_a: f32,
    /// α, degrees: field of perception (the blind volume behind is 360° − α), in (0, 360].
    pub alpha: f32,
    /// θ, degrees/s: maximum turning rate, in (0, 1e5].
    pub theta: f32,
    /// s, units/s: speed, in (0, 1e5].
    pub s: f32,
    /// σ, rad: standard deviation of the rotational noise, in [0, 10].
    pub sigma: f32,
}

impl Default for Couzin {
    /// The paper's Table 1 and Fig. 2 values (N = 100, τ = 0.1 s): r_r = 1,
    /// α = 270°, θ = 40°/s, s = 3 units/s, σ = 0.05 rad; Δr_o = 2 and Δr_a = 12
    /// (the torus).
    fn default() -> Self {
        Self {
            r_r: 1.0,
            delta_r_o: 2.0,
            delta_r_a: 12.0,
            alpha: 270.0,
            theta: 40.0,
            s: 3.0,
            sigma: 0.05,
        }
    }
}

impl Couzin {
    /// r_o = r_r + Δr_o, units.
    pub fn r_o(&self) -> f32 {
        self.r_r + self.delta_r_o
    }

    /// r_a = r_o + Δr_a, units: the farthest any individual is seen.
    pub fn r_a(&self) -> f32 {
        self.r_o() + self.delta_r_a
    }
}

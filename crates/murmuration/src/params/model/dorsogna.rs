//! Parameters of D'Orsogna et al., PRL 96, 104302 (2006) (the step: `crate::models`).

use serde::{Deserialize, Serialize};

/// Parameters of the D'Orsogna model (the paper's symbols; the step is `world.dt`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Dorsogna {
    /// α, 1/s: self-propulsion, in (0, 1e4].
    pub alpha: f32,
    /// β, s/units²: friction, in (0, 1e4]; the free speed is √(α/β).
    pub beta: f32,
    /// C_r, units²/s²: repulsion strength, in [0, 1e6].
    pub c_r: f32,
    /// l_r, units: repulsion length, in (0, 1e4].
    pub l_r: f32,
    /// C_a, units²/s²: attraction strength, in [0, 1e6].
    pub c_a: f32,
    /// l_a, units: attraction length, in (0, 1e4].
    pub l_a: f32,
    /// m: mass, in (0, 1e6].
    pub mass: f32,
    /// r_c, units: interaction cutoff, in (0, 1e4].
    pub cutoff: f32,
}

impl Default for Dorsogna {
    /// The mill of the paper's Fig. 1: α = 1, β = 0.5, C_a = 0.5, l_a = 2,
    /// C_r = 1, l_r = 0.5 (C = 2, ℓ = 0.25, Cℓ² = 1/8 < 1), m = 1; r_c = 10 l_a.
    fn default() -> Self {
        Self {
            alpha: 1.0,
            beta: 0.5,
            c_r: 1.0,
            l_r: 0.5,
            c_a: 0.5,
            l_a: 2.0,
            mass: 1.0,
            cutoff: 20.0,
        }
    }
}

impl Dorsogna {
    /// √(α/β), units/s: the speed self-propulsion and friction balance at.
    pub fn terminal_speed(&self) -> f32 {
        (self.alpha / self.beta).sqrt()
    }

    /// −dU/dr of one pair at distance `r` (positive: repulsion).
    #[inline]
    pub fn pair_force(&self, r: f32) -> f32 {
        self.c_r / self.l_r * libm::expf(-r / self.l_r)
            - self.c_a / self.l_a * libm::expf(-r / self.l_a)
    }

    /// The distance at which a pair's force vanishes (None when it never does).
    pub fn pair_equilibrium(&self) -> Option<f32> {
        // C_r/l_r e^{−r/l_r} = C_a/l_a e^{−r/l_a}
        let k = 1.0 / self.l_r - 1.0 / self.l_a;
        let ratio = (self.c_r * self.l_a) / (self.c_a * self.l_r);
        let r = libm::logf(ratio) / k;
        (r.is_finite() && r > 0.0).then_some(r)
    }

    /// The largest force a pair beyond the cutoff would have added, units/s².
    pub fn cutoff_error(&self) -> f32 {
        self.pair_force(self.cutoff).abs()
    }
}

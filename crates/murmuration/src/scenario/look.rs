//! How a species is drawn: `look = { colour = [1.0, 0.25, 0.2], size = 3 }` in
//! its table. Render hints only: the simulation never reads them, and a
//! world's digest does not depend on them.

use serde::{Deserialize, Serialize};

/// Largest colour component (the renderer's glow brightens every colour alike).
pub const MAX_LOOK_COLOUR: f32 = 1.0;
/// Largest body-size multiple.
pub const MAX_LOOK_SIZE: f32 = 100.0;

/// A species' drawing hints.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Look {
    /// Linear RGB, each in [0, 1]; `None` takes the palette's colour for the
    /// species' index.
    pub colour: Option<[f32; 3]>,
    /// Body length as a multiple of the scene's boid size, in (0, 100]: a shark
    /// among fish is 3–5.
    pub size: f32,
}

impl Default for Look {
    fn default() -> Self {
        Self {
            colour: None,
            size: 1.0,
        }
    }
}

impl Look {
    /// The first value out of range, as `(field suffix, message)`.
    pub(crate) fn check(&self, prefix: &str) -> Result<(), (String, String)> {
        if let Some(c) = self.colour
            && let Some(x) = c
                .iter()
                .find(|x| !(x.is_finite() && (0.0..=MAX_LOOK_COLOUR).contains(*x)))
        {
            return Err((
                format!("{prefix}.look.colour"),
                format!(
                    "{prefix}.look.colour = {c:?} is out of range: each component (here {x}) must be in [0, {MAX_LOOK_COLOUR}]"
                ),
            ));
        }
        if !(self.size.is_finite() && self.size > 0.0 && self.size <= MAX_LOOK_SIZE) {
            return Err((
                format!("{prefix}.look.size"),
                format!(
                    "{prefix}.look.size = {} is out of range: must be in (0, {MAX_LOOK_SIZE}]",
                    self.size
                ),
            ));
        }
        Ok(())
    }
}

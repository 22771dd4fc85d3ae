//! Zones: regions that count the boids inside them each step (the game's pressure
//! plates), with enter, exit and threshold events.

use crate::behaviours::obstacles::Obstacle;
use crate::boids::{BoidId, Boids};
use crate::error::ParamError;
use crate::vector::Vector;
use serde::{Deserialize, Serialize};

/// A region (any obstacle shape, not solid) that counts the boids inside it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, bound = "")]
pub struct Zone<V: Vector> {
    /// The region; a boid is inside when the shape's signed distance is ≤ 0.
    pub shape: Obstacle<V>,
    /// Count only this species (`None`: every species).
    #[serde(default)]
    pub species: Option<u16>,
    /// Emit a threshold event when the count rises to at least this, or falls
    /// below it; 0 emits none. At most 2^28.
    #[serde(default)]
    pub threshold: u64,
    /// Ids inside after the last step, ascending (state: kept in snapshots).
    #[serde(default)]
    pub inside: Vec<BoidId>,
}

impl<V: Vector> Zone<V> {
    /// A zone counting every species, without threshold events.
    pub fn new(shape: Obstacle<V>) -> Self {
        Self {
            shape,
            species: None,
            threshold: 0,
            inside: Vec::new(),
        }
    }

    /// Boids inside after the last step.
    pub fn count(&self) -> usize {
        self.inside.len()
    }

    /// Checks every field; `field` names it in messages (e.g. `zones[0]`).
    pub fn validate(&self, field: &str, species: usize) -> Result<(), ParamError> {
        self.shape.validate(&format!("{field}.shape"))?;
        ParamError::check_species(field, self.species, species)?;
        if self.threshold > 1 << 28 {
            return Err(ParamError::OutOfRange {
                field: format!("{field}.threshold"),
                value: self.threshold as f64,
                range: "in [0, 2^28]".into(),
            });
        }
        Ok(())
    }

    /// Recounts after a step: returns the ids that entered and left (ascending).
    pub(crate) fn update(&mut self, boids: &Boids<V>) -> (Vec<BoidId>, Vec<BoidId>) {
        let (c, r) = self.shape.bounds();
        let mut now: Vec<BoidId> = Vec::new();
        for i in 0..boids.len() {
            if self.species.is_some_and(|s| s != boids.species()[i]) {
                continue;
            }
            let p = boids.positions()[i];
            if (p - c).length() - r > 0.0 {
                continue;
            }
            if self.shape.surface(p).distance <= 0.0 {
                now.push(boids.ids()[i]);
            }
        }
        now.sort_unstable();
        let (mut entered, mut left) = (Vec::new(), Vec::new());
        let (mut a, mut b) = (0, 0);
        while a < self.inside.len() || b < now.len() {
            match (self.inside.get(a), now.get(b)) {
                (Some(x), Some(y)) if x == y => {
                    a += 1;
                    b += 1;
                }
                (Some(x), Some(y)) if x < y => {
                    left.push(*x);
                    a += 1;
                }
                (Some(x), None) => {
                    left.push(*x);
                    a += 1;
                }
                (_, Some(y)) => {
                    entered.push(*y);
                    b += 1;
                }
                (None, None) => break,
            }
        }
        self.inside = now;
        (entered, left)
    }
}

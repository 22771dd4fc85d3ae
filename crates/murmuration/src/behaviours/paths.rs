//! Paths: polylines that boids inside a capture radius flow along.

use crate::error::ParamError;
use crate::vector::Vector;
use serde::{Deserialize, Serialize};

/// A polyline boids flow along while within `capture_radius` of it; boids farther
/// away ignore it, so a narrow radius combs a few boids off a group.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, bound = "")]
pub struct Path<V: Vector> {
    /// Vertices in travel order, units; 2 to 4,096.
    pub points: Vec<V>,
    /// Boids closer than this to the polyline follow it, units, in (0, 1e4].
    pub capture_radius: f32,
    /// Weight of the follow force, dimensionless, in [0, 1000].
    pub weight: f32,
    /// Lifetime, seconds, in (0, ∞] (`inf` lasts forever); the force fades
    /// linearly to zero over it and the path is then removed.
    pub lifetime: f32,
    /// Time since it was drawn, seconds, in [0, lifetime).
    pub age: f32,
    /// Only this species follows it (`None`: every species): a predator's
    /// patrol route, or the player's light path seen by the swarm alone.
    #[serde(default)]
    pub species: Option<u16>,
}

impl<V: Vector> Path<V> {
    /// A permanent path.
    pub fn new(points: Vec<V>, capture_radius: f32, weight: f32) -> Self {
        Self {
            points,
            capture_radius,
            weight,
            lifetime: f32::INFINITY,
            age: 0.0,
            species: None,
        }
    }

    /// Checks every field; `field` names it in messages (e.g. `paths[0]`);
    /// `species` is how many species the world has.
    pub fn validate(&self, field: &str, species: usize) -> Result<(), ParamError> {
        ParamError::check_species(field, self.species, species)?;
        if !(2..=4096).contains(&self.points.len()) {
            return Err(ParamError::OutOfRange {
                field: format!("{field}.points"),
                value: self.points.len() as f64,
                range: "2 to 4096 vertices".into(),
            });
        }
        for (i, p) in self.points.iter().enumerate() {
            if let Some(&x) = p.to_array3()[..V::DIM].iter().find(|x| !x.is_finite()) {
                return Err(ParamError::NotFinite {
                    field: format!("{field}.points[{i}]"),
                    value: x as f64,
                });
            }
        }
        let bad = |name: &str, x: f32, range: &str| ParamError::OutOfRange {
            field: format!("{field}.{name}"),
            value: x as f64,
            range: range.into(),
        };
        if !(self.capture_radius > 0.0 && self.capture_radius <= 1e4) {
            return Err(bad("capture_radius", self.capture_radius, "in (0, 10000]"));
        }
        if !(self.weight >= 0.0 && self.weight <= 1e3) {
            return Err(bad("weight", self.weight, "in [0, 1000]"));
        }
        if self.lifetime.is_nan() || self.lifetime <= 0.0 {
            return Err(bad("lifetime", self.lifetime, "in (0, inf]"));
        }
        if !(self.age >= 0.0 && self.age < self.lifetime) {
            return Err(bad("age", self.age, "in [0, lifetime)"));
        }
        Ok(())
    }

    /// `weight` times the fade: falling linearly from `weight` to 0 over a finite
    /// lifetime, constant for an infinite one.
    #[inline]
    pub fn faded_weight(&self) -> f32 {
        let fade = if self.lifetime.is_finite() {
            1.0 - self.age / self.lifetime
        } else {
            1.0
        };
        self.weight * fade
    }

    /// True until `age` reaches `lifetime` (then it is removed).
    pub fn is_live(&self) -> bool {
        self.age < self.lifetime
    }

    /// The follow force (weighted, faded) on a boid of `species` at `p` with
    /// velocity `v`; zero outside the capture radius or for another species.
    pub(crate) fn follow(&self, species: u16, p: V, v: V, max_speed: f32, max_force: f32) -> V {
        if self.species.is_some_and(|s| s != species) {
            return V::ZERO;
        }
        let r2 = self.capture_radius * self.capture_radius;
        let (mut best, mut at, mut tangent) = (f32::INFINITY, p, V::ZERO);
        for s in self.points.windows(2) {
            let ab = s[1] - s[0];
            let l2 = ab.length_squared();
            let t = if l2 > 0.0 {
                ((p - s[0]).dot(ab) / l2).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let c = s[0] + ab * t;
            let d2 = (p - c).length_squared();
            if d2 < best {
                (best, at, tangent) = (d2, c, ab.normalize_or_zero());
            }
        }
        if best >= r2 || tangent == V::ZERO {
            return V::ZERO;
        }
        // Along the path, drawn back toward its centre line.
        let desired = (tangent + (at - p) * (1.0 / self.capture_radius)).normalize_or_zero();
        ((desired * max_speed - v).clamp_length_max(max_force)) * self.faded_weight()
    }
}

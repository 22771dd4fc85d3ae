//! Attractors (targets): points boids seek and slow down at (Reynolds' arrive), and
//! pulses: short repelling impulses (a click, an explosion).

use crate::error::ParamError;
use crate::vector::Vector;
use serde::{Deserialize, Serialize};

/// A point boids steer toward, slowing inside its arrival radius. A moving
/// attractor (the game's focus) follows its `goal` with exponential smoothing.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, bound = "")]
pub struct Attractor<V: Vector> {
    /// Where it is now, units.
    pub position: V,
    /// Where it is heading, units; equal to `position` for a fixed attractor.
    pub goal: V,
    /// How fast `position` follows `goal`, 1/s, in [0, 1000]: each step closes the
    /// fraction `1 − exp(−follow·dt)` of the gap. 0 keeps it where it is.
    pub follow: f32,
    /// Weight of the seek force, dimensionless, in [0, 1000].
    pub weight: f32,
    /// Arrival radius, units, in (0, 1e6]: inside it the desired speed falls
    /// linearly to zero at the centre, so boids settle instead of orbiting.
    pub radius: f32,
    /// Boids farther than this ignore the attractor, units, in (0, ∞]
    /// (`inf` in TOML reaches everywhere).
    pub range: f32,
    /// Only this species sees it (`None`: every species). A leader species with
    /// its own goal is an attractor seen by the leaders alone.
    #[serde(default)]
    pub species: Option<u16>,
    /// Seek it around obstacles, not through them: boids follow the distance
    /// along the free space (a flow field, `behaviours/navigation.rs`) where a wall
    /// stands in the straight way. CPU only.
    #[serde(default)]
    pub navigate: bool,
    /// No pull within `radius`: boids inside move by their own rules, so a crowd
    /// it gathers keeps its spacing instead of packing onto one point (the
    /// pointer's target). `false`: Reynolds' arrive all the way in.
    #[serde(default)]
    pub free_inside: bool,
}

impl<V: Vector> Attractor<V> {
    /// A fixed attractor at `position` with the given weight and arrival radius,
    /// reaching everywhere.
    pub fn new(position: V, weight: f32, radius: f32) -> Self {
        Self {
            position,
            goal: position,
            follow: 0.0,
            weight,
            radius,
            range: f32::INFINITY,
            species: None,
            navigate: false,
            free_inside: false,
        }
    }

    /// Checks every field; `field` names it in messages (e.g. `attractors[0]`).
    pub fn validate(&self, field: &str) -> Result<(), ParamError> {
        finite_vec(&format!("{field}.position"), self.position)?;
        finite_vec(&format!("{field}.goal"), self.goal)?;
        range(&format!("{field}.follow"), self.follow, 0.0, 1e3, false)?;
        range(&format!("{field}.weight"), self.weight, 0.0, 1e3, false)?;
        range(&format!("{field}.radius"), self.radius, 0.0, 1e6, true)?;
        if self.range.is_nan() || self.range <= 0.0 {
            return Err(ParamError::OutOfRange {
                field: format!("{field}.range"),
                value: self.range as f64,
                range: "in (0, inf]".into(),
            });
        }
        Ok(())
    }

    /// Reynolds' arrive toward this attractor for a boid at `p` with velocity `v`
    /// (weighted; zero out of range). With `way`, the attractor's flow field,
    /// the boid heads along the way around obstacles where it bends.
    #[inline]
    pub(crate) fn arrive(
        &self,
        species: u16,
        p: V,
        v: V,
        (max_speed, max_force): (f32, f32),
        way: Option<&crate::behaviours::navigation::NavField<V>>,
    ) -> V {
        if self.species.is_some_and(|s| s != species) {
            return V::ZERO;
        }
        let to = self.position - p;
        let d2 = to.length_squared();
        // Out of range (most boids, most attractors) costs no square root.
        if d2 > self.range * self.range || d2 <= 0.0 {
            return V::ZERO;
        }
        if self.free_inside && d2 < self.radius * self.radius {
            return V::ZERO;
        }
        let d = d2.sqrt();
        if self.free_inside {
            // A sideways turn toward it that fades in from nothing at the
            // radius to `max_force` a radius beyond: it neither brakes nor
            // pushes boids onto the ones inside, the flock loops back whole.
            let fade = ((d - self.radius) / self.radius).min(1.0);
            let pull = max_force * self.weight * fade;
            return crate::behaviours::boundary::sideways_turn(to * (1.0 / d), v, pull);
        }
        if let Some((dir, along)) = way.and_then(|w| w.direction(p, d)) {
            let speed = max_speed * (along / self.radius).min(1.0);
            return ((dir * speed - v).clamp_length_max(max_force)) * self.weight;
        }
        let speed = max_speed * (d / self.radius).min(1.0);
        ((to * (speed / d) - v).clamp_length_max(max_force)) * self.weight
    }

    /// Moves `position` toward `goal` for one step of `dt` seconds.
    pub fn advance(&mut self, dt: f32) {
        if self.follow > 0.0 {
            let k = 1.0 - libm::expf(-self.follow * dt);
            self.position += (self.goal - self.position) * k;
        }
    }
}

/// A repelling impulse: boids within `radius` of `position` are pushed away,
/// hardest at the centre and fading over `duration`. The push is a steering force:
/// it takes the `max_force` budget first after obstacle avoidance, so a species'
/// `max_force` bounds how hard it can be scattered.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, bound = "")]
pub struct Pulse<V: Vector> {
    /// Centre, units.
    pub position: V,
    /// Reach, units, in (0, 1e6].
    pub radius: f32,
    /// Outward acceleration at the centre when fresh, units/s², in [0, 1e7].
    pub strength: f32,
    /// Lifetime, seconds, in (0, 1e6]; the pulse is removed when `age` reaches it.
    pub duration: f32,
    /// Time since it fired, seconds, in [0, duration).
    pub age: f32,
}

impl<V: Vector> Pulse<V> {
    /// A fresh pulse.
    pub fn new(position: V, radius: f32, strength: f32, duration: f32) -> Self {
        Self {
            position,
            radius,
            strength,
            duration,
            age: 0.0,
        }
    }

    /// Checks every field; `field` names it in messages (e.g. `pulses[0]`).
    pub fn validate(&self, field: &str) -> Result<(), ParamError> {
        finite_vec(&format!("{field}.position"), self.position)?;
        range(&format!("{field}.radius"), self.radius, 0.0, 1e6, true)?;
        range(&format!("{field}.strength"), self.strength, 0.0, 1e7, false)?;
        range(&format!("{field}.duration"), self.duration, 0.0, 1e6, true)?;
        if !(self.age >= 0.0 && self.age < self.duration) {
            return Err(ParamError::OutOfRange {
                field: format!("{field}.age"),
                value: self.age as f64,
                range: format!("in [0, duration = {})", self.duration),
            });
        }
        Ok(())
    }

    /// The push's strength factor now: 1 when fired, falling linearly to 0 at
    /// `duration`.
    #[inline]
    pub fn fade(&self) -> f32 {
        1.0 - self.age / self.duration
    }

    /// True until `age` reaches `duration` (the step after, it is removed).
    pub fn is_live(&self) -> bool {
        self.age < self.duration
    }

    /// The push on a boid at `p` (zero outside the radius). A boid exactly at the
    /// centre is pushed along +x.
    #[inline]
    pub(crate) fn push(&self, p: V) -> V {
        let away = p - self.position;
        let d = away.length();
        if d >= self.radius {
            return V::ZERO;
        }
        let fade = self.fade();
        let dir = if d > 0.0 {
            away * (1.0 / d)
        } else {
            let mut x = V::ZERO;
            x.set(0, 1.0);
            x
        };
        dir * (self.strength * (1.0 - d / self.radius) * fade)
    }
}

fn finite_vec<V: Vector>(field: &str, v: V) -> Result<(), ParamError> {
    match v.to_array3()[..V::DIM].iter().find(|x| !x.is_finite()) {
        Some(&x) => Err(ParamError::NotFinite {
            field: field.to_string(),
            value: x as f64,
        }),
        None => Ok(()),
    }
}

/// `x` in [lo, hi] (or (lo, hi] when `open_low`), finite.
fn range(field: &str, x: f32, lo: f32, hi: f32, open_low: bool) -> Result<(), ParamError> {
    if !x.is_finite() {
        return Err(ParamError::NotFinite {
            field: field.to_string(),
            value: x as f64,
        });
    }
    let ok = if open_low { x > lo } else { x >= lo } && x <= hi;
    if !ok {
        let l = if open_low { "(" } else { "[" };
        return Err(ParamError::OutOfRange {
            field: field.to_string(),
            value: x as f64,
            range: format!("in {l}{lo}, {hi}]"),
        });
    }
    Ok(())
}

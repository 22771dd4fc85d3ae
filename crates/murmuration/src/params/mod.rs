//! Parameters as plain data: species parameters, world configuration, interactions.
//!
//! Every field documents its unit and valid range; the species' ranges live in
//! the parameter table (`fields.rs`, which also holds `SpeciesParams::validate`
//! so this module need not know the table), returning a [`ParamError`] naming
//! the field and the value.

pub mod fields;
pub mod model;
pub(crate) mod range;
pub mod schedule;

use crate::error::ParamError;
use crate::vector::Vector;
use serde::{Deserialize, Serialize};

/// The largest `topological_neighbours` a species may ask for (the step keeps
/// each boid's nearest in a fixed array of this length).
pub const MAX_TOPOLOGICAL: u32 = 64;

/// How the per-rule steering forces are combined into one acceleration.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CombineMode {
    /// Weighted sum of all forces, then clamped to `max_force`.
    #[default]
    WeightedSum,
    /// Reynolds (1987) prioritized acceleration allocation: forces in priority
    /// order (boundary > separation > cohesion > alignment) take the `max_force`
    /// budget first; lower ones get what is left, so strong opposing forces
    /// cannot cancel into jitter.
    Prioritized,
}

impl CombineMode {
    /// Every mode, in the order the panels list them.
    pub const ALL: [Self; 2] = [Self::WeightedSum, Self::Prioritized];

    /// The mode's name in scenario files (`weighted_sum`, `prioritized`).
    pub fn key(self) -> &'static str {
        match self {
            Self::WeightedSum => "weighted_sum",
            Self::Prioritized => "prioritized",
        }
    }

    /// The mode's name in a panel, in plain words.
    pub fn label(self) -> &'static str {
        match self {
            Self::WeightedSum => "add the forces",
            Self::Prioritized => "by priority",
        }
    }
}

/// How the three rules turn their neighbour sums into steering forces.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Steering {
    /// Each rule seeks its own direction at max speed (`desired − velocity`,
    /// clamped to `max_force`), then the weighted forces combine (Reynolds'
    /// steering behaviours, 1999). Three seeks each subtract the velocity, so
    /// together they brake: flocks cruise below max speed.
    #[default]
    PerRule,
    /// Seed 000's method: the rules' unit directions, weighted and summed, give
    /// one desired direction, sought once at max speed. Flocks cruise near max speed.
    Directions,
    /// Seed 001's method: the raw rule vectors — separation Σ d̂/|d|, alignment
    /// mean velocity − velocity, cohesion centre − position — weighted and summed
    /// as accelerations, then combined and smoothed like every force.
    Raw,
}

impl Steering {
    /// Every mode, in the order the panel and the documentation list them.
    pub const ALL: [Self; 3] = [Self::PerRule, Self::Directions, Self::Raw];

    /// The mode's name in scenario files (`per_rule`, `directions`, `raw`).
    pub fn key(self) -> &'static str {
        match self {
            Self::PerRule => "per_rule",
            Self::Directions => "directions",
            Self::Raw => "raw",
        }
    }

    /// The mode's name in a panel, in plain words.
    pub fn label(self) -> &'static str {
        match self {
            Self::PerRule => "one steer per rule",
            Self::Directions => "one steer for all",
            Self::Raw => "raw forces",
        }
    }
}

/// Parameters of one species. Plain data: a tuning panel binds to the fields directly.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SpeciesParams {
    /// Separation radius, units; neighbours closer than this push away, harder the
    /// closer they are. In (0, 10000]; must not exceed the perception radius.
    pub separation_radius: f32,
    /// Alignment radius, units: match the mean velocity of neighbours within it. In (0, 10000].
    pub alignment_radius: f32,
    /// Cohesion radius, units: steer toward the centre of neighbours within it. In (0, 10000].
    pub cohesion_radius: f32,
    /// Separation weight, dimensionless, in [0, 1000].
    pub separation_weight: f32,
    /// Alignment weight, dimensionless, in [0, 1000].
    pub alignment_weight: f32,
    /// Cohesion weight, dimensionless, in [0, 1000].
    pub cohesion_weight: f32,
    /// Maximum speed, units/s, in (0, 1e5].
    pub max_speed: f32,
    /// Minimum speed, units/s, in [0, max_speed]; 0 lets boids stop.
    pub min_speed: f32,
    /// Maximum steering acceleration, units/s², in (0, 1e7].
    pub max_force: f32,
    /// Field of view, degrees, in (0, 360]: a neighbour counts only when the angle
    /// between this boid's heading and the direction to it is at most half of this.
    pub fov_degrees: f32,
    /// Topological neighbours, in [0, 64]: react only to the `k` nearest
    /// neighbours within the perception radius (after the vision cone and the
    /// relations), as starlings do with about seven (Ballerini et al. 2008);
    /// 0 reacts to every neighbour within the radii (metric).
    pub topological_neighbours: u32,
    /// Random jitter added to velocity each step, as a fraction of `max_speed`, in [0, 1].
    /// Seeds suggest at most 0.02.
    pub jitter: f32,
    /// How the rules' sums become steering forces.
    pub steering: Steering,
    /// How rule forces combine.
    pub combine: CombineMode,
    /// Preferred speed, units/s, in [0, 1e5]; 0 turns it off. Boids relax toward
    /// it along their heading (as birds and fish hold a cruising speed) with an
    /// acceleration `(cruise_speed − speed) / cruise_time`. Above `max_speed` the
    /// speed clamp wins, so lowering `max_speed` below it stays valid.
    pub cruise_speed: f32,
    /// Relaxation time toward the cruising speed, seconds, in (0, 60].
    pub cruise_time: f32,
    /// Weight of wandering, dimensionless, in [0, 1000]; 0 (the default) never
    /// wanders. A wanderer steers toward its heading plus a smoothly turning
    /// random direction keyed by (seed, boid id, time), Reynolds' wander
    /// without state: it roams the world instead of drifting on the spot.
    pub wander_weight: f32,
    /// Time over which a wanderer's random direction turns, seconds, in (0, 1e4]:
    /// it passes through a new keyed direction every this many seconds.
    pub wander_period: f32,
    /// Banked flight (3D only), degrees/s, in [0, 3600]: 0 (the default) steers
    /// a point mass; above 0 a bird turns by rolling its lift toward the bank its
    /// sideways steering asks for, at most this fast, and loses height in turns
    /// (StarDisplay; see `flight.rs`).
    pub roll_rate: f32,
    /// Steepest bank of banked flight, degrees, in (0, 89].
    pub max_bank: f32,
    /// Gravity of banked flight, units/s², in [0, 1e4]: the lift that holds a
    /// bird up is `gravity · (speed / cruise_speed)²`.
    pub gravity: f32,
    /// Exponential smoothing of the final steering, in [0, 1): the applied
    /// acceleration is `s·previous + (1−s)·new`. 0 disables smoothing.
    pub smoothing: f32,
    /// Weight of obstacle avoidance, dimensionless, in [0, 1000] (highest priority
    /// under prioritized allocation). Avoidance only steers; boids never enter an
    /// obstacle whatever the weight.
    pub obstacle_weight: f32,
    /// How far ahead along the velocity a boid looks for obstacles, seconds, in [0, 60].
    pub obstacle_lookahead: f32,
    /// Distance from a surface at which avoidance starts, units, in (0, 1e4].
    pub obstacle_margin: f32,
    /// How far this species sees what it flees from ([`Relation::Flee`]), units, in (0, 1e4].
    pub flee_radius: f32,
    /// Weight of fleeing, dimensionless, in [0, 1000].
    pub flee_weight: f32,
    /// Fear: how far a threat in sight lifts the cruise speed toward
    /// `max_speed`, dimensionless, in [0, 1]. 0 cruises on; 1 flees at full
    /// speed, so frightened boids fly faster and less evenly than calm ones
    /// (seed 001, 6.4). Acts only with a `cruise_speed`.
    pub fear: f32,
    /// How far this species sees what it chases ([`Relation::Chase`]), units, in
    /// (0, 1e4]; a chaser with a vision cone sees prey only inside it, so it
    /// commits to prey ahead instead of turning back for each one it passes.
    pub chase_radius: f32,
    /// Weight of chasing, dimensionless, in [0, 1000].
    pub chase_weight: f32,
    /// A chaser eats a target closer than this after its move, units, in [0, 1e4];
    /// 0 never eats.
    pub eat_radius: f32,
    /// How much a chaser prefers stragglers, in [0, 100]: a target's distance is
    /// scaled by `1 + straggler_preference × (its flockmates within its own
    /// perception radius)`, and the smallest score is chased.
    pub straggler_preference: f32,
    /// Safety in numbers, flockmates, in [0, 4096]: a chaser neither chases nor
    /// eats a target with at least this many flockmates within the target's own
    /// perception radius (the confusion effect of a dense group), so it takes
    /// stragglers at the edge and never the core. 0 (the default) spares none.
    pub confusion: f32,
    /// How far this species sees a leader it follows ([`Relation::Follow`]), units, in (0, 1e4].
    pub follow_radius: f32,
    /// Weight of following, dimensionless, in [0, 1000].
    pub follow_weight: f32,
    /// The model this species moves by: Reynolds' rules (the fields above) or a
    /// research model with its own parameters ([`crate::params::model`]).
    pub model: crate::params::model::Model,
}

impl Default for SpeciesParams {
    /// Seed 000's published starting point: perception 1.5, separation 0.8,
    /// weights 1.5 / 1.0 / 0.8, max speed 3, max force 0.5.
    fn default() -> Self {
        Self {
            separation_radius: 0.8,
            alignment_radius: 1.5,
            cohesion_radius: 1.5,
            separation_weight: 1.5,
            alignment_weight: 1.0,
            cohesion_weight: 0.8,
            max_speed: 3.0,
            min_speed: 0.0,
            max_force: 0.5,
            fov_degrees: 360.0,
            topological_neighbours: 0,
            jitter: 0.0,
            steering: Steering::PerRule,
            combine: CombineMode::WeightedSum,
            cruise_speed: 0.0,
            cruise_time: 1.0,
            wander_weight: 0.0,
            wander_period: 4.0,
            roll_rate: 0.0,
            max_bank: 60.0,
            gravity: 9.81,
            smoothing: 0.0,
            obstacle_weight: 3.0,
            obstacle_lookahead: 1.0,
            obstacle_margin: 1.0,
            flee_radius: 4.0,
            flee_weight: 3.0,
            fear: 0.0,
            chase_radius: 6.0,
            chase_weight: 2.0,
            eat_radius: 0.0,
            straggler_preference: 0.2,
            confusion: 0.0,
            follow_radius: 6.0,
            follow_weight: 1.5,
            model: crate::params::model::Model::Reynolds,
        }
    }
}

impl SpeciesParams {
    /// This species' parameters of research model `M`, or the paper's defaults
    /// when it runs another model (the model steps read them per particle).
    pub(crate) fn model_params<M: model::ModelParams>(&self) -> M {
        M::of(&self.model).unwrap_or_default()
    }

    /// A species moving by this model: its interaction range stands as the three
    /// rule radii and its speed as `max_speed`, so the grid, spawning and the
    /// metrics (groups, speed fraction) read them as for boids; nothing else of
    /// the Reynolds parameters is used.
    pub fn of_model(model: crate::params::model::Model) -> Self {
        let (Some(r), Some(s)) = (model.range(), model.speed()) else {
            return Self::default();
        };
        Self {
            separation_radius: r,
            alignment_radius: r,
            cohesion_radius: r,
            max_speed: s,
            min_speed: 0.0,
            model,
            ..Self::default()
        }
    }

    /// The standard benchmark's species (BENCHMARKS.md, "The standard workload"): perception 1.0,
    /// separation 0.4, weights 1.5 / 1.0 / 0.8, max speed 1, max force 2.
    pub fn benchmark() -> Self {
        Self {
            separation_radius: 0.4,
            alignment_radius: 1.0,
            cohesion_radius: 1.0,
            max_speed: 1.0,
            max_force: 2.0,
            ..Self::default()
        }
    }

    /// Perception radius: the largest radius any rule of this species looks at.
    #[inline]
    pub fn perception_radius(&self) -> f32 {
        self.alignment_radius
            .max(self.cohesion_radius)
            .max(self.separation_radius)
    }

    /// cos(fov / 2): a point at offset `d` is inside the vision cone when
    /// `d·heading ≥ this·|d|`.
    #[inline]
    pub fn cos_half_fov(&self) -> f32 {
        libm::cosf(self.fov_degrees.to_radians() * 0.5)
    }

    /// True when the vision cone hides anything (a field of view under 360°).
    #[inline]
    pub fn has_vision_cone(&self) -> bool {
        self.fov_degrees < 360.0
    }
}

/// A species of a world: its place in the world's species list ([`crate::World::new`]'s
/// order, then [`crate::World::add_species`]'s). Checked where it is used: a handle
/// beyond the world's species is an error naming it, never a panic.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct SpeciesId(u16);

impl SpeciesId {
    /// The first species, which every world has.
    pub const FIRST: Self = Self(0);

    /// The species at `index` in a world's list.
    pub const fn new(index: usize) -> Self {
        // Indices past u16 exceed MAX_SPECIES anyway: saturate, refused at use.
        Self(if index > u16::MAX as usize {
            u16::MAX
        } else {
            index as u16
        })
    }

    /// Its place in the world's list (index of [`crate::World::species`]).
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl std::fmt::Display for SpeciesId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "species[{}]", self.0)
    }
}

/// What happens at the edges of the world box.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Boundary {
    /// Periodic: leaving one side enters the other; neighbours are found across the seam.
    Wrap,
    /// Steer back inside: within `margin` of a face, an inward acceleration of
    /// `strength · depth / margin` (units/s²) acts, growing toward and beyond the face.
    Soft {
        /// Width of the steering band, units, in (0, half the box].
        margin: f32,
        /// Inward acceleration at the face, units/s², in (0, 1e7].
        strength: f32,
    },
    /// Reflect: a boid crossing a face is mirrored back and its normal velocity reversed.
    Reflect,
    /// No edges; the box only sets where boids spawn.
    Unbounded,
    /// Open sky over a roost (after StarDisplay, Hildenbrandt et al. 2010): no
    /// edges; the box's horizontal extent (x and z in 3D, x and y in 2D) holds the
    /// roost area, the disc of radius half its narrower side around its centre. A
    /// boid beyond that disc is turned back toward the centre by a sideways force
    /// (perpendicular to its heading, as a bird banks to turn; full strength when it
    /// heads away), growing over `margin` to `strength`; in 3D a boid above or below
    /// the box's height band is pulled back, `strength · depth / margin`.
    /// Acts on top of the `max_force` budget, like the soft walls.
    Roost {
        /// Distance beyond the roost disc (and the height band) over which the
        /// pull grows to `strength`, units, in (0, 1e6].
        margin: f32,
        /// Full turning acceleration, units/s², in (0, 1e7].
        strength: f32,
    },
}

/// World-wide settings: the box, its boundary, the time step and the seed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, bound = "")]
pub struct WorldConfig<V: Vector> {
    /// Lower corner of the world box, units.
    pub min: V,
    /// Upper corner of the world box, units; every component above `min`'s.
    pub max: V,
    /// Edge behaviour.
    pub boundary: Boundary,
    /// Fixed time step, seconds, in (0, 10].
    pub dt: f32,
    /// Seed of every random number (jitter, spawning), keyed with boid id and step.
    pub seed: u64,
}

impl<V: Vector> WorldConfig<V> {
    /// A box from the origin to `size` with the given boundary, dt = 1/60 s, seed 1.
    pub fn new(size: V, boundary: Boundary) -> Self {
        Self {
            min: V::ZERO,
            max: size,
            boundary,
            dt: 1.0 / 60.0,
            seed: 1,
        }
    }

    /// Size of the box.
    #[inline]
    pub fn size(&self) -> V {
        self.max - self.min
    }

    /// Checks the box, boundary, dt.
    pub fn validate(&self) -> Result<(), ParamError> {
        for i in 0..V::DIM {
            let axis = ["x", "y", "z"][i];
            let (lo, hi) = (self.min.get(i), self.max.get(i));
            in_closed(&format!("world.min.{axis}"), lo, -1e7, 1e7)?;
            in_closed(&format!("world.max.{axis}"), hi, -1e7, 1e7)?;
            if hi <= lo {
                return Err(ParamError::OutOfRange {
                    field: format!("world.max.{axis}"),
                    value: hi as f64,
                    range: format!("greater than world.min.{axis} = {lo}"),
                });
            }
        }
        positive("world.dt", self.dt, 10.0)?;
        if self.seed > i64::MAX as u64 {
            return Err(ParamError::OutOfRange {
                field: "world.seed".into(),
                value: self.seed as f64,
                range: "in [0, 2^63 - 1]".into(),
            });
        }
        if let Boundary::Soft { margin, strength } = self.boundary {
            let mut half = f32::INFINITY;
            for i in 0..V::DIM {
                half = half.min(0.5 * self.size().get(i));
            }
            positive("world.boundary.margin", margin, half)?;
            positive("world.boundary.strength", strength, 1e7)?;
        }
        if let Boundary::Roost { margin, strength } = self.boundary {
            positive("world.boundary.margin", margin, 1e6)?;
            positive("world.boundary.strength", strength, 1e7)?;
        }
        Ok(())
    }
}

/// How boids of one species respond to neighbours of another.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Relation {
    /// All three rules: they school together.
    #[default]
    Flock,
    /// Separation only: they keep apart but do not align or gather.
    Separate,
    /// No interaction at all.
    Ignore,
    /// Steer away from boids of that species within this species' `flee_radius`
    /// (weight `flee_weight`); no flocking rules with them.
    Flee,
    /// Steer toward the best target of that species within `chase_radius` (nearest,
    /// stragglers preferred by `straggler_preference`); eat it on contact when
    /// `eat_radius` > 0. No flocking rules with them.
    Chase,
    /// Follow: steer toward the nearest boid of that species (a leader) within
    /// this species' `follow_radius`, with weight `follow_weight`, and also flock
    /// with it (all three rules).
    Follow,
}

impl Relation {
    /// True for relations that take part in the neighbour rules (separation at least).
    #[inline]
    pub fn in_rules(self) -> bool {
        matches!(
            self,
            Relation::Flock | Relation::Separate | Relation::Follow
        )
    }

    /// True for relations that need the per-step index of the other species.
    #[inline]
    pub fn indexes_target(self) -> bool {
        matches!(self, Relation::Flee | Relation::Chase | Relation::Follow)
    }
}

/// The ordered species-pair relation table: `get(a, b)` is how species `a` reacts to `b`.
/// Asymmetric on purpose (prey may avoid predators that ignore them).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Relations {
    /// Number of species.
    pub count: usize,
    /// Row-major `count × count` table.
    pub table: Vec<Relation>,
}

impl Relations {
    /// Each species flocks with itself and only separates from the others.
    pub fn default_for(count: usize) -> Self {
        let mut table = vec![Relation::Separate; count * count];
        for a in 0..count {
            table[a * count + a] = Relation::Flock;
        }
        Self { count, table }
    }

    /// How species `a` reacts to species `b`.
    #[inline]
    pub fn get(&self, a: usize, b: usize) -> Relation {
        self.table[a * self.count + b]
    }

    /// How species `a` reacts to each species: its row of the table.
    #[inline]
    pub fn row(&self, a: usize) -> &[Relation] {
        &self.table[a * self.count..(a + 1) * self.count]
    }

    /// Sets how species `a` reacts to species `b`.
    pub fn set(&mut self, a: usize, b: usize, r: Relation) {
        self.table[a * self.count + b] = r;
    }

    /// Checks the table shape against the species count.
    pub fn validate(&self, species: usize) -> Result<(), ParamError> {
        if self.count != species || self.table.len() != species * species {
            return Err(ParamError::WrongShape {
                field: "relations".into(),
                got: self.table.len(),
                expected: species * species,
                species,
            });
        }
        Ok(())
    }
}

fn finite(field: &str, v: f32) -> Result<(), ParamError> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(ParamError::NotFinite {
            field: field.into(),
            value: v as f64,
        })
    }
}

fn positive(field: &str, v: f32, max: f32) -> Result<(), ParamError> {
    finite(field, v)?;
    if v > 0.0 && v <= max {
        Ok(())
    } else {
        Err(ParamError::OutOfRange {
            field: field.into(),
            value: v as f64,
            range: format!("in (0, {max}]"),
        })
    }
}

fn in_closed(field: &str, v: f32, min: f32, max: f32) -> Result<(), ParamError> {
    finite(field, v)?;
    if v >= min && v <= max {
        Ok(())
    } else {
        Err(ParamError::OutOfRange {
            field: field.into(),
            value: v as f64,
            range: format!("in [{min}, {max}]"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec2;

    #[test]
    fn defaults_are_valid() {
        SpeciesParams::default().validate("s").unwrap();
        SpeciesParams::benchmark().validate("s").unwrap();
        WorldConfig::new(Vec2::splat(10.0), Boundary::Wrap)
            .validate()
            .unwrap();
    }

    #[test]
    fn nan_and_negative_radii_name_the_field() {
        let p = SpeciesParams {
            cohesion_radius: f32::NAN,
            ..Default::default()
        };
        let e = p.validate("species[0]").unwrap_err();
        assert!(e.to_string().contains("species[0].cohesion_radius"), "{e}");
        let p = SpeciesParams {
            alignment_radius: -1.0,
            ..Default::default()
        };
        let e = p.validate("species[1]").unwrap_err().to_string();
        assert!(e.contains("species[1].alignment_radius = -1"), "{e}");
    }

    #[test]
    fn separation_above_perception_is_rejected() {
        let p = SpeciesParams {
            separation_radius: 2.0,
            ..Default::default()
        };
        let e = p.validate("species.fish").unwrap_err().to_string();
        assert_eq!(
            e,
            "species.fish.separation_radius = 2 must not exceed species.fish.perception_radius = 1.5"
        );
    }

    #[test]
    fn bad_world_boxes_are_rejected() {
        let mut w = WorldConfig::new(Vec2::new(10.0, 10.0), Boundary::Wrap);
        w.max.y = -1.0;
        assert!(
            w.validate()
                .unwrap_err()
                .to_string()
                .contains("world.max.y")
        );
        let w = WorldConfig::new(
            Vec2::splat(10.0),
            Boundary::Soft {
                margin: 6.0,
                strength: 1.0,
            },
        );
        assert!(w.validate().unwrap_err().to_string().contains("margin"));
        let mut w = WorldConfig::new(Vec2::splat(10.0), Boundary::Wrap);
        w.dt = 0.0;
        assert!(w.validate().unwrap_err().to_string().contains("world.dt"));
    }
}

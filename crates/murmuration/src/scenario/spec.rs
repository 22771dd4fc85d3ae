//! The typed sections of a scenario file (everything but the species tables, which
//! are read one by one so their parameters can sit beside their spawn settings).

use crate::behaviours::attractors::{Attractor, Pulse};
use crate::behaviours::obstacles::Obstacle;
use crate::behaviours::paths::Path;
use crate::behaviours::zones::Zone;
use crate::params::Boundary;
use crate::vector::Vector;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// Top level of a scenario file, without `species`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, bound = "")]
pub(crate) struct Doc<V: Vector> {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    /// Read before the rest (it picks `V`); present here so it is a known key.
    #[serde(default)]
    #[allow(
        dead_code,
        reason = "read before deserializing; a field only so the key is known"
    )]
    pub dimension: Option<i64>,
    #[serde(default)]
    pub steps: Option<u64>,
    pub world: WorldSpec<V>,
    /// `relations.<a>.<b> = "flee"`: how species `a` reacts to species `b`.
    #[serde(default)]
    pub relations: BTreeMap<String, BTreeMap<String, crate::params::Relation>>,
    #[serde(default)]
    pub obstacles: Vec<Obstacle<V>>,
    #[serde(default)]
    pub attractors: Vec<AttractorSpec<V>>,
    #[serde(default)]
    pub pulses: Vec<PulseSpec<V>>,
    #[serde(default)]
    pub paths: Vec<PathSpec<V>>,
    #[serde(default)]
    pub zones: Vec<ZoneSpec<V>>,
    /// `[[schedule]]`: parameter changes over time.
    #[serde(default)]
    pub schedule: Vec<ScheduleSpec>,
    /// `[expect]`: metric bands, read by [`super::Expectations::from_table`].
    #[serde(default)]
    pub expect: Option<toml::Table>,
}

/// `[world]`: the box, boundary, time step, seed.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, bound = "")]
pub(crate) struct WorldSpec<V: Vector> {
    /// Lower corner; the origin when absent.
    #[serde(default)]
    pub min: Option<V>,
    /// Upper corner (give `max` or `size`, not both).
    #[serde(default)]
    pub max: Option<V>,
    /// Edge lengths from `min`.
    #[serde(default)]
    pub size: Option<V>,
    #[serde(default = "default_boundary", deserialize_with = "boundary")]
    pub boundary: Boundary,
    #[serde(default = "default_dt")]
    pub dt: f32,
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Bake every obstacle into one distance field with this cell size (units).
    #[serde(default)]
    pub bake_obstacles: Option<f32>,
}

fn default_boundary() -> Boundary {
    Boundary::Wrap
}
fn default_dt() -> f32 {
    1.0 / 60.0
}
fn default_seed() -> u64 {
    1
}

/// `boundary = "wrap"` (or `"reflect"`, `"unbounded"`), or a table
/// `{ kind = "soft", margin = .., strength = .. }`.
fn boundary<'de, D: Deserializer<'de>>(d: D) -> Result<Boundary, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Boundary;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str(
                r#""wrap", "reflect", "unbounded", { kind = "soft", margin = .., strength = .. } or { kind = "roost", margin = .., strength = .. }"#,
            )
        }
        fn visit_str<E: de::Error>(self, s: &str) -> Result<Boundary, E> {
            match s {
                "wrap" => Ok(Boundary::Wrap),
                "reflect" => Ok(Boundary::Reflect),
                "unbounded" => Ok(Boundary::Unbounded),
                "soft" | "roost" => Err(E::custom(format!(
                    r#"boundary "{s}" needs a margin and strength: {{ kind = "{s}", margin = 2.0, strength = 10.0 }}"#,
                ))),
                other => Err(E::unknown_variant(
                    other,
                    &["wrap", "reflect", "unbounded", "soft", "roost"],
                )),
            }
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Boundary, A::Error> {
            Boundary::deserialize(de::value::MapAccessDeserializer::new(map))
        }
    }
    d.deserialize_any(V)
}

/// `[species.<name>]` settings other than the species parameters.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, bound = "")]
pub(crate) struct SpawnSpec<V: Vector> {
    /// Boids to spawn.
    pub count: u64,
    /// Base parameter set (`default`, `fish`, `birds`, `crowd`, `benchmark`).
    #[serde(default)]
    pub style: Option<String>,
    /// Region to spawn in; the world box when absent.
    #[serde(default)]
    pub spawn: Option<RegionSpec<V>>,
    /// Initial speed, units/s; the species' max speed when absent.
    #[serde(default)]
    pub speed: Option<f32>,
    /// Common initial heading; uniform random headings when absent.
    #[serde(default)]
    pub heading: Option<V>,
    /// How the species is drawn.
    #[serde(default)]
    pub look: super::Look,
}

/// The keys of a species table that are spawn settings (and drawing hints), not
/// species parameters.
pub(crate) const SPAWN_KEYS: [&str; 6] = ["count", "style", "spawn", "speed", "heading", "look"];

/// A box to spawn in.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, bound = "")]
pub(crate) struct RegionSpec<V: Vector> {
    pub min: V,
    pub max: V,
}

/// `[[attractors]]`: an [`Attractor`] with defaults and the species by name.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, bound = "")]
pub(crate) struct AttractorSpec<V: Vector> {
    pub position: V,
    #[serde(default)]
    pub goal: Option<V>,
    #[serde(default)]
    pub follow: f32,
    #[serde(default = "one")]
    pub weight: f32,
    #[serde(default = "one")]
    pub radius: f32,
    #[serde(default = "infinite")]
    pub range: f32,
    #[serde(default)]
    pub species: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub navigate: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub free_inside: bool,
}

impl<V: Vector> AttractorSpec<V> {
    pub fn to_attractor(&self, species: Option<u16>) -> Attractor<V> {
        Attractor {
            position: self.position,
            goal: self.goal.unwrap_or(self.position),
            follow: self.follow,
            weight: self.weight,
            radius: self.radius,
            range: self.range,
            species,
            navigate: self.navigate,
            free_inside: self.free_inside,
        }
    }
}

/// `[[pulses]]`: a [`Pulse`], fresh unless `age` is given.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, bound = "")]
pub(crate) struct PulseSpec<V: Vector> {
    pub position: V,
    pub radius: f32,
    pub strength: f32,
    pub duration: f32,
    #[serde(default)]
    pub age: f32,
}

impl<V: Vector> PulseSpec<V> {
    pub fn to_pulse(&self) -> Pulse<V> {
        Pulse {
            age: self.age,
            ..Pulse::new(self.position, self.radius, self.strength, self.duration)
        }
    }
}

/// `[[paths]]`: a [`Path`], permanent unless `lifetime` is given.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, bound = "")]
pub(crate) struct PathSpec<V: Vector> {
    pub points: Vec<V>,
    pub capture_radius: f32,
    #[serde(default = "one")]
    pub weight: f32,
    #[serde(default = "infinite")]
    pub lifetime: f32,
    #[serde(default)]
    pub age: f32,
    #[serde(default)]
    pub species: Option<String>,
}

impl<V: Vector> PathSpec<V> {
    pub fn to_path(&self, species: Option<u16>) -> Path<V> {
        Path {
            lifetime: self.lifetime,
            age: self.age,
            species,
            ..Path::new(self.points.clone(), self.capture_radius, self.weight)
        }
    }
}

/// `[[zones]]`: a [`Zone`] with the species by name.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, bound = "")]
pub(crate) struct ZoneSpec<V: Vector> {
    pub shape: Obstacle<V>,
    #[serde(default)]
    pub species: Option<String>,
    #[serde(default)]
    pub threshold: u64,
}

impl<V: Vector> ZoneSpec<V> {
    pub fn to_zone(&self, species: Option<u16>) -> Zone<V> {
        Zone {
            species,
            threshold: self.threshold,
            ..Zone::new(self.shape.clone())
        }
    }
}

fn one() -> f32 {
    1.0
}
fn infinite() -> f32 {
    f32::INFINITY
}

/// One `[[schedule]]` entry: `set = "species.NAME.KEY"` with `at` + `value` (a
/// jump) or `from` + `to` + `values = [a, b]` (a linear ramp).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ScheduleSpec {
    pub set: String,
    #[serde(default)]
    pub at: Option<u64>,
    #[serde(default)]
    pub from: Option<u64>,
    #[serde(default)]
    pub to: Option<u64>,
    #[serde(default)]
    pub value: Option<f32>,
    #[serde(default)]
    pub values: Option<[f32; 2]>,
}

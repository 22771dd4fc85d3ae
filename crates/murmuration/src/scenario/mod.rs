//! Scenario files: a TOML document that describes a whole world (box, boundary,
//! seed, species with their spawn settings, relations, obstacles, attractors,
//! pulses, paths, zones), loaded into a [`World`] with errors that name the file,
//! line, column, field and value. `docs/SCENARIOS.md` documents every key.
//!
//! ```
//! use murmuration::scenario::{AnyWorld, Scenario};
//!
//! let text = r#"
//!     [world]
//!     size = [40, 40]
//!     boundary = "wrap"
//!
//!     [species.fish]
//!     style = "fish"
//!     count = 300
//! "#;
//! let scenario = Scenario::parse(text, "fish.toml").unwrap();
//! let AnyWorld::D2(mut world) = scenario.build().unwrap() else { unreachable!() };
//! world.step();
//! assert_eq!(world.len(), 300);
//!
//! let bad = text.replace("count = 300", "count = 300\nseparation_radius = 2.0");
//! let e = Scenario::parse(&bad, "fish.toml").unwrap_err().to_string();
//! assert!(e.starts_with("fish.toml:9:21: species.fish.separation_radius = 2"), "{e}");
//! ```

mod expect;
mod export;
mod lint;
mod location;
mod look;
pub mod memory;
mod presets;
mod recentre;
mod retune;
mod spec;
pub mod styles;

pub use expect::{Band, Expectations, Verdict};
pub use export::to_toml;
pub use lint::Lint;
pub use look::{Look, MAX_LOOK_COLOUR, MAX_LOOK_SIZE};
pub use presets::{PRESETS, preset};

use crate::error::{ParamError, ScenarioError, WorldError};
use crate::params::model::{Model, ModelKind};
use crate::params::{Relations, SpeciesId, SpeciesParams, WorldConfig};
use crate::vector::Vector;
use crate::world::spawn::Spawn;
use crate::world::{MAX_BOIDS, World};
use glam::{Vec2, Vec3};
use location::{Segment, join_path, span_of, split_path};
use serde::de::DeserializeOwned;
use spec::{Doc, SPAWN_KEYS, SpawnSpec};
use std::fmt;
use std::str::FromStr;

/// Largest scenario file accepted, bytes.
pub const MAX_SCENARIO_BYTES: usize = 16 << 20;

/// Estimated heap bytes per boid of a running world (state, grid and step
/// scratch; measured at 73 B in 2D at 1,000,000 boids), for memory checks.
pub fn estimated_bytes_per_boid(dimension: usize) -> u64 {
    if dimension == 3 { 112 } else { 80 }
}

/// One `PATH=VALUE` override (`species.fish.max_speed=2.5`, `world.boundary=reflect`,
/// `obstacles[0].radius=3`). The value is TOML (`[1, 2]`, `"wrap"`, `2.5`) or a bare
/// word, read as a string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Override {
    /// Dotted path of the field.
    pub path: String,
    /// The value as written.
    pub value: String,
}

impl FromStr for Override {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.split_once('=') {
            Some((p, v)) if !p.trim().is_empty() && !v.trim().is_empty() => Ok(Self {
                path: p.trim().to_string(),
                value: v.trim().to_string(),
            }),
            _ => Err(format!(
                "{s:?} is not PATH=VALUE (e.g. species.fish.max_speed=2.5)"
            )),
        }
    }
}

impl fmt::Display for Override {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.path, self.value)
    }
}

/// How to read a scenario beyond its plain form ([`Scenario::parse_options`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct ParseOptions<'a> {
    /// `--set PATH=VALUE` overrides, applied in order before validation.
    pub overrides: &'a [Override],
    /// Extra top-level tables the caller reads itself (a game's `[game]`):
    /// accepted, not validated here, read back with [`Scenario::section`]
    /// (recentred with the rest: positions under the scenario's own key names).
    pub sections: &'a [&'a str],
    /// Run the world relative to its lower corner `world.min`: every position in
    /// the file (box, spawn regions, obstacles, attractors, pulses, paths, zones)
    /// has the corner subtracted in `f64` before it becomes `f32`, so a level far
    /// from the origin keeps full precision (seed 001, 6.1).
    /// [`Scenario::offset`] is the corner subtracted.
    pub recentre: bool,
}

/// A world of either dimension, as a scenario file describes it.
#[derive(Clone, Debug)]
pub enum AnyWorld {
    /// `dimension = 2`.
    D2(World<Vec2>),
    /// `dimension = 3`.
    D3(World<Vec3>),
}

/// A parsed and validated scenario. Building it ([`Scenario::build`]) spawns the
/// boids; everything that can be wrong was found by [`Scenario::parse`].
#[derive(Clone, Debug)]
pub struct Scenario {
    origin: String,
    text: String,
    table: toml::Table,
    overrides: Vec<Override>,
    dimension: usize,
    name: String,
    description: String,
    steps: Option<u64>,
    seed: u64,
    species: Vec<(String, u64)>,
    looks: Vec<Look>,
    expect: Option<Expectations>,
    sections: toml::Table,
    offset: Vec<f64>,
}

/// A world with its entities but no boids yet, and what to spawn.
pub(crate) struct Plan<V: Vector> {
    pub world: World<V>,
    pub spawns: Vec<SpawnPlan<V>>,
}

/// Boids of one species to spawn.
pub(crate) struct SpawnPlan<V: Vector> {
    pub name: String,
    pub count: u64,
    pub region: Option<(V, V)>,
    pub speed: f32,
    pub heading: Option<V>,
    /// How the species is drawn.
    pub look: Look,
    /// Share of the region inside obstacles, in [0, 1] ([`World::solid_fraction`]).
    pub solid: f64,
}

/// The field a spawn region's messages point at: `species.NAME.spawn`, or the
/// species itself when it spawns over the whole box.
pub(crate) fn spawn_field(name: &str, has_region: bool) -> String {
    if has_region {
        format!("species.{name}.spawn")
    } else {
        format!("species.{name}")
    }
}

impl Scenario {
    /// Parses and validates scenario text; `origin` names it in messages (a file
    /// name, or `<embedded>`).
    pub fn parse(text: &str, origin: &str) -> Result<Self, ScenarioError> {
        Self::parse_with(text, origin, &[])
    }

    /// [`Scenario::parse`] with overrides applied in order before validation.
    pub fn parse_with(
        text: &str,
        origin: &str,
        overrides: &[Override],
    ) -> Result<Self, ScenarioError> {
        Self::parse_options(
            text,
            origin,
            &ParseOptions {
                overrides,
                ..ParseOptions::default()
            },
        )
    }

    /// [`Scenario::parse`] with extra sections, overrides and recentring.
    pub fn parse_options(
        text: &str,
        origin: &str,
        options: &ParseOptions<'_>,
    ) -> Result<Self, ScenarioError> {
        let overrides = options.overrides;
        let mut s = Self {
            origin: origin.to_string(),
            text: text.to_string(),
            table: toml::Table::new(),
            overrides: Vec::new(),
            dimension: 2,
            name: String::new(),
            description: String::new(),
            steps: None,
            seed: 1,
            species: Vec::new(),
            looks: Vec::new(),
            expect: None,
            sections: toml::Table::new(),
            offset: Vec::new(),
        };
        if text.len() > MAX_SCENARIO_BYTES {
            return Err(s.error_at(
                "",
                format!(
                    "the file has {} bytes, more than the {MAX_SCENARIO_BYTES} a scenario may have",
                    text.len()
                ),
            ));
        }
        s.table = toml::from_str::<toml::Table>(text).map_err(|e| {
            let (line, column) = location::line_column(text, e.span().map_or(0, |r| r.start));
            ScenarioError::Invalid {
                origin: origin.to_string(),
                line,
                column,
                field: String::new(),
                message: e.message().trim().to_string(),
            }
        })?;
        for o in overrides {
            let path = split_path(&o.path);
            let value = location::parse_override_value(&o.value);
            location::set_path(&mut s.table, &path, value).map_err(|message| {
                ScenarioError::Override {
                    origin: origin.to_string(),
                    setting: o.to_string(),
                    field: o.path.clone(),
                    message,
                }
            })?;
            s.overrides.push(o.clone());
        }
        s.dimension = match s.table.get("dimension") {
            None => 2,
            Some(toml::Value::Integer(2)) => 2,
            Some(toml::Value::Integer(3)) => 3,
            Some(v) => {
                return Err(s.error_at("dimension", format!("dimension = {v} must be 2 or 3")));
            }
        };
        for name in options.sections {
            if let Some(v) = s.table.remove(*name) {
                s.sections.insert(name.to_string(), v);
            }
        }
        s.offset = if options.recentre {
            recentre::lower_corner(&s.table, s.dimension)
        } else {
            vec![0.0; s.dimension]
        };
        recentre::shift_positions(&mut s.table, &s.offset);
        recentre::shift_positions(&mut s.sections, &s.offset);
        match s.dimension {
            2 => s.validate::<Vec2>()?,
            _ => s.validate::<Vec3>()?,
        }
        Ok(s)
    }

    /// Reads and parses a scenario file.
    pub fn load(path: &std::path::Path) -> Result<Self, ScenarioError> {
        Self::load_with(path, &[])
    }

    /// Reads a scenario file and applies overrides.
    pub fn load_with(
        path: &std::path::Path,
        overrides: &[Override],
    ) -> Result<Self, ScenarioError> {
        Self::load_options(
            path,
            &ParseOptions {
                overrides,
                ..ParseOptions::default()
            },
        )
    }

    /// Reads a scenario file with [`ParseOptions`] (a game's level).
    pub fn load_options(
        path: &std::path::Path,
        options: &ParseOptions<'_>,
    ) -> Result<Self, ScenarioError> {
        let read_error = |source| ScenarioError::Read {
            path: path.display().to_string(),
            source,
        };
        let len = std::fs::metadata(path).map_err(read_error)?.len();
        if len > MAX_SCENARIO_BYTES as u64 {
            return Err(ScenarioError::Invalid {
                origin: path.display().to_string(),
                line: 1,
                column: 1,
                field: String::new(),
                message: format!(
                    "the file has {len} bytes, more than the {MAX_SCENARIO_BYTES} a scenario may have"
                ),
            });
        }
        let bytes = std::fs::read(path).map_err(read_error)?;
        let origin = path.display().to_string();
        let text = std::str::from_utf8(&bytes).map_err(|e| {
            let at = e.valid_up_to();
            // Lines and columns of the valid text before the bad byte.
            let valid = std::str::from_utf8(&bytes[..at]).unwrap_or_default();
            let (line, column) = location::line_column(valid, at);
            ScenarioError::Invalid {
                origin: origin.clone(),
                line,
                column,
                field: String::new(),
                message: format!(
                    "byte {at} (0x{:02x}) is not UTF-8 text: scenario files must be UTF-8",
                    bytes[at]
                ),
            }
        })?;
        Self::parse_options(text, &origin, options)
    }

    fn validate<V: Vector>(&mut self) -> Result<(), ScenarioError> {
        let doc: Doc<V> = self.deserialize(toml::Value::Table(self.without_species()), "")?;
        let plan = self.plan::<V>()?;
        self.name = doc.name.unwrap_or_default();
        self.description = doc.description.unwrap_or_default();
        if let Some(steps) = doc.steps
            && !(1..=1_000_000_000_000).contains(&steps)
        {
            return Err(self.error_at(
                "steps",
                format!("steps = {steps} is out of range: must be in [1, 10^12]"),
            ));
        }
        self.steps = doc.steps;
        if let Some(t) = &doc.expect {
            let e = Expectations::from_table(t).map_err(|(field, m)| self.error_at(&field, m))?;
            self.expect = Some(e);
        }
        self.seed = plan.world.config().seed;
        self.species = plan
            .spawns
            .iter()
            .map(|s| (s.name.clone(), s.count))
            .collect();
        self.looks = plan.spawns.iter().map(|s| s.look).collect();
        Ok(())
    }

    /// What the scenario should look like in numbers (its `[expect]` bands), if it says.
    pub fn expectations(&self) -> Option<&Expectations> {
        self.expect.as_ref()
    }

    /// The scenario's `name` (empty when it has none).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The scenario's one-line `description` (empty when it has none).
    pub fn description(&self) -> &str {
        &self.description
    }

    /// Where it came from (the file name given to [`Scenario::parse`]).
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// 2 or 3.
    pub fn dimension(&self) -> usize {
        self.dimension
    }

    /// The step count the scenario suggests (`steps`), if any.
    pub fn steps(&self) -> Option<u64> {
        self.steps
    }

    /// The world's seed (`world.seed`, after overrides).
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Species names in index order, with the boids each spawns.
    pub fn species(&self) -> &[(String, u64)] {
        &self.species
    }

    /// How each species is drawn (`look = { .. }`), in species order.
    pub fn looks(&self) -> &[Look] {
        &self.looks
    }

    /// Boids spawned in all.
    pub fn total_boids(&self) -> u64 {
        self.species.iter().map(|(_, c)| c).sum()
    }

    /// The overrides applied.
    pub fn overrides(&self) -> &[Override] {
        &self.overrides
    }

    /// Builds the world and spawns its boids.
    pub fn build(&self) -> Result<AnyWorld, ScenarioError> {
        Ok(match self.dimension {
            2 => AnyWorld::D2(self.build_world()?),
            _ => AnyWorld::D3(self.build_world()?),
        })
    }

    /// Builds the world in the dimension `V` (an error when the file says another).
    pub fn build_world<V: Vector>(&self) -> Result<World<V>, ScenarioError> {
        if V::DIM != self.dimension {
            return Err(self.error_at(
                "dimension",
                format!(
                    "the scenario is {}D but a {}D world was requested",
                    self.dimension,
                    V::DIM
                ),
            ));
        }
        let Plan { mut world, spawns } = self.plan::<V>()?;
        for (i, s) in spawns.iter().enumerate() {
            let spawn = Spawn {
                species: SpeciesId::new(i),
                count: s.count,
                region: s.region,
                speed: Some(s.speed),
                heading: s.heading,
            };
            world
                .spawn(spawn)
                .map_err(|e| self.world_error(e, &format!("species.{}", s.name), &[]))?;
        }
        Ok(world)
    }

    /// Every species' parameters as the file sets them (style, then its own
    /// keys), in species order, without spawning a boid.
    pub fn species_params(&self) -> Vec<SpeciesParams> {
        match self.dimension {
            2 => self.plan::<Vec2>().map(|p| p.world.species().to_vec()),
            _ => self.plan::<Vec3>().map(|p| p.world.species().to_vec()),
        }
        .unwrap_or_default()
    }

    /// Warnings about settings that are valid but probably not what was meant.
    pub fn lints(&self) -> Vec<Lint> {
        match self.dimension {
            2 => self.plan::<Vec2>().map(|p| lint::lints(self, &p)),
            _ => self.plan::<Vec3>().map(|p| lint::lints(self, &p)),
        }
        .unwrap_or_default()
    }

    fn without_species(&self) -> toml::Table {
        let mut t = self.table.clone();
        t.remove("species");
        t
    }

    /// Everything but spawning: parse the sections, build the world and its entities.
    pub(crate) fn plan<V: Vector>(&self) -> Result<Plan<V>, ScenarioError> {
        let doc: Doc<V> = self.deserialize(toml::Value::Table(self.without_species()), "")?;
        let species_table = match self.table.get("species") {
            Some(toml::Value::Table(t)) if !t.is_empty() => t,
            Some(toml::Value::Table(_)) | None => {
                return Err(self.error_at(
                    "species",
                    "the scenario has no species: add at least one table [species.<name>] with a count".into(),
                ));
            }
            Some(_) => {
                return Err(self.error_at(
                    "species",
                    "species must be tables, one per species: [species.<name>]".into(),
                ));
            }
        };
        let names: Vec<String> = species_table.keys().cloned().collect();
        let mut params = Vec::with_capacity(names.len());
        let mut spawns = Vec::with_capacity(names.len());
        let mut total = 0u64;
        for (name, value) in species_table {
            let (p, s) = self.species_entry::<V>(name, value)?;
            total = total.saturating_add(s.count);
            if total > MAX_BOIDS {
                return Err(self.error_at(
                    &format!("species.{name}.count"),
                    format!(
                        "species.{name}.count = {} is out of range: the scenario would hold {total} boids, more than the limit {MAX_BOIDS}",
                        s.count
                    ),
                ));
            }
            params.push(p);
            spawns.push(s);
        }
        let config = self.world_config(&doc)?;
        let mut relations = Relations::default_for(names.len());
        for (a, row) in &doc.relations {
            let ia = self.species_index(&names, a, &format!("relations.{a}"))?;
            for (b, r) in row {
                let ib = self.species_index(&names, b, &format!("relations.{a}.{b}"))?;
                relations.set(ia, ib, *r);
            }
        }
        let mut world = World::new(config, params).map_err(|e| self.world_error(e, "", &names))?;
        world
            .set_relations(relations)
            .map_err(|e| self.world_error(e, "relations", &names))?;
        for (i, o) in doc.obstacles.iter().enumerate() {
            world
                .add_obstacle(o.clone())
                .map_err(|e| self.world_error(e, &format!("obstacles[{i}]"), &names))?;
        }
        if let Some(cell) = doc.world.bake_obstacles {
            world
                .bake_obstacles(cell)
                .map_err(|e| self.world_error(e, "world.bake_obstacles", &names))?;
        }
        for (i, a) in doc.attractors.iter().enumerate() {
            let field = format!("attractors[{i}]");
            let s = self.optional_species(&names, a.species.as_deref(), &field)?;
            world
                .add_attractor(a.to_attractor(s))
                .map_err(|e| self.world_error(e, &field, &names))?;
        }
        for (i, p) in doc.pulses.iter().enumerate() {
            world
                .add_pulse(p.to_pulse())
                .map_err(|e| self.world_error(e, &format!("pulses[{i}]"), &names))?;
        }
        for (i, p) in doc.paths.iter().enumerate() {
            let field = format!("paths[{i}]");
            let s = self.optional_species(&names, p.species.as_deref(), &field)?;
            world
                .add_path(p.to_path(s))
                .map_err(|e| self.world_error(e, &field, &names))?;
        }
        for (i, z) in doc.zones.iter().enumerate() {
            let field = format!("zones[{i}]");
            let s = self.optional_species(&names, z.species.as_deref(), &field)?;
            world
                .add_zone(z.to_zone(s))
                .map_err(|e| self.world_error(e, &field, &names))?;
        }
        let schedule = self.schedule(&doc, &names, world.species())?;
        world
            .set_schedule(schedule)
            .map_err(|e| self.world_error(e, "schedule", &names))?;
        for s in &mut spawns {
            s.solid = world.solid_fraction(s.region);
            if s.count > 0 && s.solid >= 1.0 {
                let field = spawn_field(&s.name, s.region.is_some());
                return Err(self.error_at(
                    &field,
                    format!(
                        "{field}: the spawn region lies entirely inside obstacles, so no boid can be placed; move the region or the obstacles"
                    ),
                ));
            }
        }
        Ok(Plan { world, spawns })
    }

    fn world_config<V: Vector>(&self, doc: &Doc<V>) -> Result<WorldConfig<V>, ScenarioError> {
        let w = &doc.world;
        let min = w.min.unwrap_or(V::ZERO);
        let max = match (w.max, w.size) {
            (Some(max), None) => max,
            (None, Some(size)) => {
                for i in 0..V::DIM {
                    let s = size.get(i);
                    if s.is_nan() || s <= 0.0 {
                        let axis = ["x", "y", "z"][i];
                        return Err(self.error_at(
                            &format!("world.size.{axis}"),
                            format!("world.size.{axis} = {s} is out of range: must be positive"),
                        ));
                    }
                }
                min + size
            }
            (None, None) => {
                return Err(self.error_at(
                    "world",
                    "world needs its size (size = [w, h]) or its upper corner (max = [x, y])"
                        .into(),
                ));
            }
            (Some(_), Some(_)) => {
                return Err(self.error_at(
                    "world.max",
                    "world has both size and max: give one of them".into(),
                ));
            }
        };
        Ok(WorldConfig {
            min,
            max,
            boundary: w.boundary,
            dt: w.dt,
            seed: w.seed,
        })
    }

    fn species_entry<V: Vector>(
        &self,
        name: &str,
        value: &toml::Value,
    ) -> Result<(SpeciesParams, SpawnPlan<V>), ScenarioError> {
        let prefix = format!("species.{name}");
        let toml::Value::Table(t) = value else {
            return Err(self.error_at(
                &prefix,
                format!("{prefix} must be a table of parameters ([{prefix}])"),
            ));
        };
        if name.is_empty() || name.contains(['.', '[', ']']) {
            return Err(self.error_at(
                &prefix,
                format!("species name {name:?} must be non-empty, without '.', '[' or ']'"),
            ));
        }
        let kind = self.model_kind(t, &prefix)?;
        let (mut spawn_t, mut param_t) = (toml::Table::new(), toml::Table::new());
        for (k, v) in t {
            if k == "model" {
                continue;
            }
            if SPAWN_KEYS.contains(&k.as_str()) {
                spawn_t.insert(k.clone(), v.clone());
            } else {
                param_t.insert(k.clone(), v.clone());
            }
        }
        let spawn: SpawnSpec<V> = self.deserialize(toml::Value::Table(spawn_t), &prefix)?;
        let params = if kind == ModelKind::Reynolds {
            self.reynolds_params(&spawn, param_t, &prefix)?
        } else {
            self.model_params::<V>(kind, &spawn, param_t, name, &prefix)?
        };
        let region = match &spawn.spawn {
            None => None,
            Some(r) => {
                for i in 0..V::DIM {
                    let (lo, hi) = (r.min.get(i), r.max.get(i));
                    if !(lo.is_finite() && hi.is_finite() && lo <= hi) {
                        let axis = ["x", "y", "z"][i];
                        return Err(self.error_at(
                            &format!("{prefix}.spawn.max"),
                            format!(
                                "{prefix}.spawn.min.{axis} = {lo} and max.{axis} = {hi} must be finite with min <= max"
                            ),
                        ));
                    }
                }
                Some((r.min, r.max))
            }
        };
        spawn
            .look
            .check(&prefix)
            .map_err(|(field, m)| self.error_at(&field, m))?;
        let speed = spawn.speed.unwrap_or(params.max_speed);
        if !(speed.is_finite() && speed >= 0.0) {
            return Err(self.error_at(
                &format!("{prefix}.speed"),
                format!("{prefix}.speed = {speed} is out of range: must be finite and >= 0"),
            ));
        }
        if let Some(h) = spawn.heading
            && !(h.is_finite() && h.length_squared() > 0.0)
        {
            return Err(self.error_at(
                &format!("{prefix}.heading"),
                format!(
                    "{prefix}.heading = {:?} must be a finite, non-zero direction",
                    &h.to_array3()[..V::DIM]
                ),
            ));
        }
        Ok((
            params,
            SpawnPlan {
                name: name.to_string(),
                count: spawn.count,
                region,
                speed,
                heading: spawn.heading,
                look: spawn.look,
                solid: 0.0, // set by `plan` once the obstacles are in place
            },
        ))
    }

    /// `[[schedule]]` as changes, each checked with its own located error: the
    /// path names a species and a number of its model, one of `at` (with
    /// `value`) or `from` and `to` (with `values`), within the run's `steps`.
    fn schedule<V: Vector>(
        &self,
        doc: &Doc<V>,
        names: &[String],
        species: &[SpeciesParams],
    ) -> Result<Vec<crate::params::schedule::Change>, ScenarioError> {
        let mut out = Vec::with_capacity(doc.schedule.len());
        for (i, e) in doc.schedule.iter().enumerate() {
            let field = format!("schedule[{i}]");
            let at = |k: &str| format!("{field}.{k}");
            let path: Vec<&str> = e.set.split('.').collect();
            let (name, key) = match path[..] {
                ["species", name, key] => (name, key),
                _ => {
                    return Err(self.error_at(
                        &at("set"),
                        format!(
                            "{}.set = {:?} must name a species parameter: \"species.NAME.KEY\"",
                            field, e.set
                        ),
                    ));
                }
            };
            let index = self.species_index(names, name, &at("set"))?;
            let mut trial = species[index];
            if let Err(reason) = crate::params::schedule::set(&mut trial, key, 0.0) {
                return Err(self.error_at(
                    &at("set"),
                    format!("{field}.set = {:?}: {reason} of species {name}", e.set),
                ));
            }
            let (from, to, values) = match (e.at, e.from, e.to, e.value, e.values) {
                (Some(s), None, None, Some(v), None) => (s, s, (v, v)),
                (None, Some(a), Some(b), None, Some([x, y])) => (a, b, (x, y)),
                _ => {
                    return Err(self.error_at(
                        &field,
                        format!(
                            "{field} needs either at = STEP with value = X (a jump) or from = STEP, to = STEP with values = [X, Y] (a ramp)"
                        ),
                    ));
                }
            };
            if to < from {
                return Err(self.error_at(
                    &at("to"),
                    format!("{field}.to = {to} is before {field}.from = {from}"),
                ));
            }
            if let Some(steps) = self.steps
                && to > steps
            {
                let k = if e.at.is_some() { "at" } else { "to" };
                return Err(self.error_at(
                    &at(k),
                    format!("{field}.{k} = {to} is beyond the run (steps = {steps})"),
                ));
            }
            let change = crate::params::schedule::Change {
                species: index as u16,
                key: key.to_string(),
                from,
                to,
                values,
            };
            change.validate(species, &field).map_err(|e| {
                let k = if matches!(e, crate::error::ParamError::Invalid { .. }) {
                    if e.field().ends_with(".set") {
                        "set"
                    } else if change.from == change.to {
                        "value"
                    } else {
                        "values"
                    }
                } else {
                    "set"
                };
                self.error_at(&at(k), e.to_string())
            })?;
            out.push(change);
        }
        Ok(out)
    }

    /// The value of `species.NAME.model` (Reynolds when absent).
    fn model_kind(&self, t: &toml::Table, prefix: &str) -> Result<ModelKind, ScenarioError> {
        let field = format!("{prefix}.model");
        match t.get("model") {
            None => Ok(ModelKind::Reynolds),
            Some(toml::Value::String(s)) => ModelKind::parse(s).ok_or_else(|| {
                self.error_at(
                    &field,
                    format!(
                        "{field} = {s:?} is not a model (one of: {})",
                        ModelKind::names()
                    ),
                )
            }),
            Some(v) => Err(self.error_at(
                &field,
                format!(
                    "{field} = {v} must be a model's name (one of: {})",
                    ModelKind::names()
                ),
            )),
        }
    }

    /// A Reynolds species: its style's parameters under its own keys.
    fn reynolds_params<V: Vector>(
        &self,
        spawn: &SpawnSpec<V>,
        param_t: toml::Table,
        prefix: &str,
    ) -> Result<SpeciesParams, ScenarioError> {
        let base = match spawn.style.as_deref() {
            None => SpeciesParams::default(),
            Some(s) => styles::style(s).ok_or_else(|| {
                self.error_at(
                    &format!("{prefix}.style"),
                    format!(
                        "{prefix}.style = {s:?} is not a style (one of: {})",
                        styles::STYLES.join(", ")
                    ),
                )
            })?,
        };
        let mut merged = toml::Table::try_from(base).expect("species parameters serialize");
        merged.extend(param_t);
        let params: SpeciesParams = self.deserialize(toml::Value::Table(merged), prefix)?;
        params
            .validate(prefix)
            .map_err(|e| self.error_at(e.field(), e.to_string()))?;
        Ok(params)
    }

    /// A research model's species: its own keys only (a Reynolds parameter or
    /// another model's is an error naming its owner), checked against the table.
    fn model_params<V: Vector>(
        &self,
        kind: ModelKind,
        spawn: &SpawnSpec<V>,
        param_t: toml::Table,
        name: &str,
        prefix: &str,
    ) -> Result<SpeciesParams, ScenarioError> {
        if spawn.style.is_some() {
            let field = format!("{prefix}.style");
            return Err(self.error_at(
                &field,
                format!(
                    "{field}: a style sets Reynolds parameters, but species {name} uses model {}",
                    kind.name()
                ),
            ));
        }
        for k in param_t.keys() {
            if model_owns(kind, k) {
                continue;
            }
            let field = format!("{prefix}.{k}");
            let message = match ModelKind::ALL.into_iter().find(|&m| model_owns(m, k)) {
                Some(m) => format!(
                    "{field} is a parameter of the {} model, but species {name} uses model {} (its parameters: {})",
                    m.name(),
                    kind.name(),
                    model_keys(kind)
                ),
                None => format!(
                    "unknown key {field}: model {} takes {}",
                    kind.name(),
                    model_keys(kind)
                ),
            };
            return Err(self.error_at(&field, message));
        }
        let t = toml::Value::Table(param_t);
        let model = match kind {
            ModelKind::Reynolds => Model::Reynolds,
            ModelKind::Vicsek => Model::Vicsek(self.deserialize(t, prefix)?),
            ModelKind::Couzin => Model::Couzin(self.deserialize(t, prefix)?),
            ModelKind::Dorsogna => Model::Dorsogna(self.deserialize(t, prefix)?),
            ModelKind::AbmFlocking => Model::AbmFlocking(self.deserialize(t, prefix)?),
        };
        model
            .validate(prefix, V::DIM)
            .map_err(|e| self.error_at(e.field(), e.to_string()))?;
        let params = SpeciesParams::of_model(model);
        params
            .validate(prefix)
            .map_err(|e| self.error_at(e.field(), e.to_string()))?;
        Ok(params)
    }

    fn species_index(
        &self,
        names: &[String],
        name: &str,
        field: &str,
    ) -> Result<usize, ScenarioError> {
        names.iter().position(|n| n == name).ok_or_else(|| {
            self.error_at(
                field,
                format!(
                    "{field}: {name:?} is not a species of this scenario (species: {})",
                    names.join(", ")
                ),
            )
        })
    }

    fn optional_species(
        &self,
        names: &[String],
        name: Option<&str>,
        field: &str,
    ) -> Result<Option<u16>, ScenarioError> {
        name.map(|n| {
            self.species_index(names, n, &format!("{field}.species"))
                .map(|i| i as u16)
        })
        .transpose()
    }

    /// Deserializes `value` (found at `prefix`) with the path of any error.
    fn deserialize<T: DeserializeOwned>(
        &self,
        value: toml::Value,
        prefix: &str,
    ) -> Result<T, ScenarioError> {
        serde_path_to_error::deserialize(value).map_err(|e| {
            let mut path = split_path(prefix);
            for seg in e.path().iter() {
                match seg {
                    serde_path_to_error::Segment::Seq { index } => {
                        path.push(Segment::Index(*index))
                    }
                    serde_path_to_error::Segment::Map { key } => {
                        path.push(Segment::Key(key.clone()))
                    }
                    serde_path_to_error::Segment::Enum { .. }
                    | serde_path_to_error::Segment::Unknown => {}
                }
            }
            let message = e.inner().message().trim().to_string();
            // An unknown key is reported at its parent: point at the key itself.
            if let Some(rest) = message.strip_prefix("unknown field `")
                && let Some(key) = rest.split('`').next()
                && path.last() != Some(&Segment::Key(key.to_string()))
            {
                path.push(Segment::Key(key.to_string()));
            }
            let field = join_path(&path);
            let message = if field.is_empty() {
                message
            } else {
                format!("{field}: {message}")
            };
            self.error_at(&field, message)
        })
    }

    fn world_error(&self, e: WorldError, context: &str, names: &[String]) -> ScenarioError {
        let rename = |f: &str| rename_species(f, names);
        match e {
            WorldError::Param(p) => {
                let p: ParamError = p.rename_fields(rename);
                self.error_at(p.field(), p.to_string())
            }
            other => self.error_at(context, format!("{context}: {other}")),
        }
    }

    /// An error about `field`: attributed to the override that set it, or located
    /// in the file.
    fn error_at(&self, field: &str, message: String) -> ScenarioError {
        let fpath = split_path(field);
        if let Some(o) = self.overrides.iter().rev().find(|o| {
            let opath = split_path(&o.path);
            !fpath.is_empty() && (fpath.starts_with(&opath) || opath.starts_with(&fpath))
        }) {
            return ScenarioError::Override {
                origin: self.origin.clone(),
                setting: o.to_string(),
                field: field.to_string(),
                message,
            };
        }
        let at = span_of(&self.text, &fpath).map_or(0, |s| s.start);
        let (line, column) = location::line_column(&self.text, at);
        ScenarioError::Invalid {
            origin: self.origin.clone(),
            line,
            column,
            field: field.to_string(),
            message,
        }
    }

    /// An extra top-level table named in [`ParseOptions::sections`], as written
    /// but with overrides applied and, when recentring, its positions moved like
    /// the scenario's own: every vector under a position key (`center`, `a`, `b`,
    /// `origin`, `position`, `goal`, `min`, `max`) and every vertex of `points`.
    pub fn section(&self, name: &str) -> Option<&toml::Value> {
        self.sections.get(name)
    }

    /// Deserializes the extra section `name` (`None` when the file has none),
    /// with errors that name the file, line, column and field like the rest.
    pub fn read_section<T: DeserializeOwned>(
        &self,
        name: &str,
    ) -> Result<Option<T>, ScenarioError> {
        self.sections
            .get(name)
            .map(|v| self.deserialize(v.clone(), name))
            .transpose()
    }

    /// An error at the dotted `field` of the file (`game.plates[0].need`), with
    /// its line and column (or the override that set it).
    pub fn field_error(&self, field: &str, message: String) -> ScenarioError {
        self.error_at(field, message)
    }

    /// What was subtracted from every position ([`ParseOptions::recentre`]; zeros
    /// otherwise), one entry per axis: world coordinates are these plus the world's.
    pub fn offset(&self) -> &[f64] {
        &self.offset
    }

    /// The source text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Its values as TOML, overrides applied and extra sections included, with
    /// the comments and layout of the text dropped: what a checksum of the
    /// scenario itself (not of its wording) hashes.
    pub fn content(&self) -> String {
        let mut all = self.table.clone();
        for (k, v) in &self.sections {
            all.insert(k.clone(), v.clone());
        }
        // A table parsed from TOML always serialises back.
        toml::to_string(&all).unwrap_or_default()
    }
}

/// `species[3].x` → `species.<name of 3>.x`.
fn rename_species(field: &str, names: &[String]) -> String {
    if let Some(rest) = field.strip_prefix("species[")
        && let Some((index, tail)) = rest.split_once(']')
        && let Ok(i) = index.parse::<usize>()
        && let Some(name) = names.get(i)
    {
        return format!("species.{name}{tail}");
    }
    field.to_string()
}

/// True when `key` is a parameter of `model` in a species table.
fn model_owns(model: ModelKind, key: &str) -> bool {
    match model {
        ModelKind::Reynolds => {
            crate::params::fields::species_field(key).is_some()
                || ["steering", "combine", "topological_neighbours"].contains(&key)
        }
        m => {
            crate::params::model::model_field(m, key).is_some()
                || (m == ModelKind::Vicsek && key == "update")
        }
    }
}

/// The keys a research model's species takes, comma separated.
fn model_keys(model: ModelKind) -> String {
    let mut keys: Vec<&str> = crate::params::model::MODEL_FIELDS
        .iter()
        .filter(|f| f.model == model)
        .map(|f| f.key)
        .collect();
    if model == ModelKind::Vicsek {
        keys.push("update");
    }
    keys.join(", ")
}

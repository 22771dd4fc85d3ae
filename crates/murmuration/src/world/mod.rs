//! The convenient API: a [`World`] owns parameters, state and pipeline scratch.

pub(crate) mod inspect;
pub(crate) mod pointer;
pub(crate) mod snapshot;
pub(crate) mod spawn;

use crate::analysis::metrics::{self, Metrics};
use crate::behaviours::attractors::{Attractor, Pulse};
use crate::behaviours::boundary::wrap;
use crate::behaviours::obstacles::{Obstacle, ObstacleSet};
use crate::behaviours::paths::Path;
use crate::behaviours::sdf_grid::SdfGrid;
use crate::behaviours::zones::Zone;
use crate::boids::{BoidId, Boids};
use crate::error::WorldError;
use crate::params::{Boundary, Relation, Relations, SpeciesId, SpeciesParams, WorldConfig};
use crate::stats::StepStats;
use crate::step::context::StepContext;
use crate::step::interactions::{self, Event};
use crate::step::pipeline::Pipeline;
use crate::vector::Vector;
use glam::{Vec2, Vec3};
use std::sync::OnceLock;

/// Most boids one world holds (2^28 ≈ 268 million; the state alone would need
/// ~15 GB in 2D). Larger requests are an error, not an allocation failure.
pub const MAX_BOIDS: u64 = 1 << 28;
/// Most species one world holds.
pub const MAX_SPECIES: usize = 1024;

/// The [`StepContext`] of a world, borrowing its fields one by one (so a step can
/// borrow the pipeline and the state mutably beside it).
macro_rules! step_context {
    ($w:expr) => {
        StepContext {
            config: &$w.config,
            species: &$w.species,
            relations: &$w.relations,
            step: $w.step,
            obstacles: &$w.obstacles,
            attractors: &$w.attractors,
            pulses: &$w.pulses,
            paths: &$w.paths,
        }
    };
}

/// A flock: configuration, species, relations, boid state and step scratch.
///
/// The state is stored in the neighbour grid's cell order ([`World::boids`]); the
/// id-ordered slices ([`World::positions`] and friends) are built on first use
/// after a change and cached until the next one.
#[derive(Clone, Debug)]
pub struct World<V: Vector> {
    pub(crate) config: WorldConfig<V>,
    pub(crate) species: Vec<SpeciesParams>,
    pub(crate) relations: Relations,
    pub(crate) obstacles: ObstacleSet<V>,
    pub(crate) attractors: Vec<Attractor<V>>,
    pub(crate) pulses: Vec<Pulse<V>>,
    pub(crate) paths: Vec<Path<V>>,
    pub(crate) zones: Vec<Zone<V>>,
    /// Parameter changes over time, applied before each step.
    pub(crate) schedule: Vec<crate::params::schedule::Change>,
    events: Vec<Event<V>>,
    pub(crate) boids: Boids<V>,
    pub(crate) step: u64,
    pipeline: Pipeline<V>,
    /// Scratch of a research model's step (empty for boids).
    models: crate::models::Scratch<V>,
    last_stats: StepStats,
    by_id: OnceLock<IdOrder<V>>,
}

/// The state re-ordered by ascending boid id.
#[derive(Clone, Debug, Default)]
struct IdOrder<V> {
    ids: Vec<BoidId>,
    species: Vec<u16>,
    positions: Vec<V>,
    velocities: Vec<V>,
    steering: Vec<V>,
}

impl<V: Vector> IdOrder<V> {
    fn build(b: &Boids<V>) -> Self {
        let n = b.len();
        let perm: Vec<usize> = if (b.next_id() as usize) <= 4 * n + 1024 {
            // Dense ids (the usual case): bucket by id, O(n + next_id).
            let mut slot_of = vec![u32::MAX; b.next_id() as usize];
            for (slot, &id) in b.ids().iter().enumerate() {
                slot_of[id as usize] = slot as u32;
            }
            slot_of
                .into_iter()
                .filter(|&s| s != u32::MAX)
                .map(|s| s as usize)
                .collect()
        } else {
            let mut p: Vec<usize> = (0..n).collect();
            p.sort_unstable_by_key(|&s| b.ids[s]);
            p
        };
        Self {
            ids: perm.iter().map(|&s| b.ids[s]).collect(),
            species: perm.iter().map(|&s| b.species[s]).collect(),
            positions: perm.iter().map(|&s| b.positions[s]).collect(),
            velocities: perm.iter().map(|&s| b.velocities[s]).collect(),
            steering: perm.iter().map(|&s| b.steering[s]).collect(),
        }
    }
}

/// What one [`World::step`] did.
#[derive(Clone, Copy, Debug)]
pub struct StepReport<'a, V: Vector> {
    /// Counters and phase timings.
    pub stats: StepStats,
    /// Events in a deterministic order: meals (chasers in ascending id order), then
    /// zone entries, exits and threshold crossings (zones in index order).
    pub events: &'a [Event<V>],
}

impl<V: Vector> World<V> {
    /// An empty world with the given species (at least one). Each species flocks
    /// with itself and separates from the others; see [`World::set_relations`].
    pub fn new(config: WorldConfig<V>, species: Vec<SpeciesParams>) -> Result<Self, WorldError> {
        let relations = Relations::default_for(species.len());
        Self::from_parts(config, species, relations, Boids::new(), 0)
    }

    pub(crate) fn from_parts(
        config: WorldConfig<V>,
        species: Vec<SpeciesParams>,
        relations: Relations,
        boids: Boids<V>,
        step: u64,
    ) -> Result<Self, WorldError> {
        validate_all(&config, &species, &relations)?;
        Ok(Self {
            config,
            species,
            relations,
            obstacles: ObstacleSet::default(),
            attractors: Vec::new(),
            pulses: Vec::new(),
            paths: Vec::new(),
            zones: Vec::new(),
            schedule: Vec::new(),
            events: Vec::new(),
            boids,
            step,
            pipeline: Pipeline::new(),
            models: crate::models::Scratch::default(),
            last_stats: StepStats::default(),
            by_id: OnceLock::new(),
        })
    }

    /// What the next step reads besides the state.
    pub(crate) fn context(&self) -> StepContext<'_, V> {
        step_context!(self)
    }

    /// [`World::step`]'s work, reached through [`Dimension::step_world`] (so it
    /// is compiled in this crate, once per dimension).
    pub(crate) fn step_body(&mut self) {
        if !self.schedule.is_empty() {
            crate::params::schedule::apply(&self.schedule, &mut self.species, self.step);
        }
        // Field by field, so the pipeline and the state stay free to change.
        let ctx = step_context!(self);
        self.by_id = OnceLock::new();
        self.events.clear();
        self.last_stats = if matches!(
            self.species[0].model,
            crate::params::model::Model::Reynolds | crate::params::model::Model::Vicsek(_)
        ) {
            self.pipeline.step(&mut self.boids, &ctx)
        } else {
            crate::models::step(
                &mut self.models,
                &mut self.boids,
                &self.config,
                &self.species,
                self.step,
            )
        };
        if interactions::any(&self.relations) {
            let eaten = interactions::eat(
                &self.boids,
                self.pipeline.grid(),
                &self.config,
                &self.species,
                &self.relations,
                self.step,
                &mut self.events,
            );
            if !self.events.is_empty() {
                self.boids.retain_slots(|s| eaten[s]);
            }
        }
        self.step += 1;
        self.advance_entities(1);
        self.update_zones();
    }

    /// Recounts every zone from the current positions and appends the enter,
    /// exit and threshold events against the last count (dated the last step).
    fn update_zones(&mut self) {
        let step = self.step.saturating_sub(1);
        for (zone, z) in self.zones.iter_mut().enumerate() {
            let before = z.count();
            let (entered, left) = z.update(&self.boids);
            self.events
                .extend(
                    entered
                        .into_iter()
                        .map(|boid| Event::ZoneEntered { step, zone, boid }),
                );
            self.events.extend(
                left.into_iter()
                    .map(|boid| Event::ZoneExited { step, zone, boid }),
            );
            let t = z.threshold as usize;
            if t > 0 && (before >= t) != (z.count() >= t) {
                self.events.push(Event::ZoneThreshold {
                    step,
                    zone,
                    count: z.count(),
                    rising: z.count() >= t,
                });
            }
        }
    }

    /// For an engine that stepped the boids elsewhere (the GPU backend): replaces
    /// the last step's events with `eaten` and recounts the zones from the
    /// current positions, as [`World::step`] does after its move. Zone events
    /// compare with the count at the previous recount, so steps taken between
    /// two recounts are seen as one (a boid that came and went between them
    /// gives no event).
    pub fn finish_external_steps(&mut self, eaten: &[Event<V>]) {
        self.events.clear();
        self.events.extend_from_slice(eaten);
        self.update_zones();
    }

    /// Advances the moving entities `steps` steps as [`World::step`] does, boids
    /// aside: attractors follow their goals, pulses and paths age and expire. For
    /// an engine that stepped the boids elsewhere (the GPU backend).
    pub fn advance_entities(&mut self, steps: u64) {
        for _ in 0..steps {
            crate::behaviours::entities::age(
                &mut self.attractors,
                &mut self.pulses,
                &mut self.paths,
                self.config.dt,
            );
            crate::behaviours::entities::expire(&mut self.pulses, &mut self.paths);
        }
    }

    /// The obstacles with their culling structures (the GPU backend uploads them).
    pub fn obstacle_set(&self) -> &ObstacleSet<V> {
        &self.obstacles
    }

    /// The contact gap kept between boids and obstacle surfaces, units.
    pub fn contact_skin(&self) -> f32 {
        crate::behaviours::obstacles::contact_skin(&self.species)
    }

    /// What happened in the last step (boids eaten, ...), in a deterministic order.
    pub fn events(&self) -> &[Event<V>] {
        &self.events
    }

    /// Steps taken so far (also the index of the next step).
    pub fn step_index(&self) -> u64 {
        self.step
    }
    /// Simulated time so far, seconds.
    pub fn time(&self) -> f64 {
        self.step as f64 * self.config.dt as f64
    }
    /// Counters of the last step.
    pub fn last_stats(&self) -> StepStats {
        self.last_stats
    }

    /// Number of boids.
    pub fn len(&self) -> usize {
        self.boids.len()
    }
    /// True when there are no boids.
    pub fn is_empty(&self) -> bool {
        self.boids.is_empty()
    }
    /// The stored state in storage (cell) order: no copy, no re-ordering. Use it
    /// to draw or export every frame; `ids()[i]` of it owns its `positions()[i]`.
    pub fn boids(&self) -> &Boids<V> {
        &self.boids
    }
    /// The state for changing: drops the cached id-ordered view. Every mutation of
    /// the boids goes through here (the step resets the cache itself, because it
    /// also borrows the parameters).
    pub(crate) fn state_mut(&mut self) -> &mut Boids<V> {
        self.by_id = OnceLock::new();
        &mut self.boids
    }
    fn by_id(&self) -> &IdOrder<V> {
        self.by_id.get_or_init(|| IdOrder::build(&self.boids))
    }
    /// Positions in ascending boid-id order, units.
    pub fn positions(&self) -> &[V] {
        &self.by_id().positions
    }
    /// Velocities in ascending boid-id order, units/s.
    pub fn velocities(&self) -> &[V] {
        &self.by_id().velocities
    }
    /// Boid ids, ascending; `ids()[i]` owns `positions()[i]`.
    pub fn ids(&self) -> &[BoidId] {
        &self.by_id().ids
    }
    /// Species index of each boid, in ascending boid-id order.
    pub fn boid_species(&self) -> &[u16] {
        &self.by_id().species
    }
    /// Steering acceleration applied in the last step, ascending boid-id order, units/s².
    pub fn steering(&self) -> &[V] {
        &self.by_id().steering
    }

    /// World configuration.
    pub fn config(&self) -> &WorldConfig<V> {
        &self.config
    }
    /// Replaces the configuration (validated). Switching to a periodic world wraps
    /// every boid into the box.
    pub fn set_config(&mut self, config: WorldConfig<V>) -> Result<(), WorldError> {
        config.validate()?;
        self.check_models(&config, &self.species, &self.relations, 0)?;
        self.config = config;
        if config.boundary == Boundary::Wrap {
            for p in &mut self.state_mut().positions {
                *p = wrap(*p, &config);
            }
        }
        Ok(())
    }

    /// Replaces every boid's position, velocity and steering with a state computed
    /// elsewhere (the GPU backend), given in any order together with its ids, and
    /// sets the step counter. `ids` must hold each of this world's ids exactly once;
    /// species stay as they are. The given order becomes the storage order.
    pub fn replace_motion(
        &mut self,
        ids: &[BoidId],
        positions: &[V],
        velocities: &[V],
        steering: &[V],
        step: u64,
    ) -> Result<(), WorldError> {
        let n = self.boids.len();
        for (what, len) in [
            ("ids", ids.len()),
            ("positions", positions.len()),
            ("velocities", velocities.len()),
            ("steering", steering.len()),
        ] {
            if len != n {
                return Err(WorldError::StateMismatch(format!(
                    "{what} has {len} entries but the world has {n} boids"
                )));
            }
        }
        let mut species_of = std::collections::HashMap::with_capacity(n);
        for (&id, &s) in self.boids.ids.iter().zip(&self.boids.species) {
            species_of.insert(id, (s, false));
        }
        let mut species = Vec::with_capacity(n);
        for &id in ids {
            match species_of.get_mut(&id) {
                Some((s, seen)) if !*seen => {
                    *seen = true;
                    species.push(*s);
                }
                Some(_) => {
                    return Err(WorldError::StateMismatch(format!(
                        "boid id {id} appears twice"
                    )));
                }
                None => return Err(WorldError::UnknownBoid(id)),
            }
        }
        for (what, values) in [
            ("position", positions),
            ("velocity", velocities),
            ("steering", steering),
        ] {
            if let Some(v) = values.iter().find(|v| !v.is_finite()) {
                return Err(WorldError::StateMismatch(format!(
                    "a {what} is not finite: {:?}",
                    v.to_array3()
                )));
            }
        }
        let b = self.state_mut();
        b.ids = ids.to_vec();
        b.species = species;
        b.positions = positions.to_vec();
        b.velocities = velocities.to_vec();
        b.steering = steering.to_vec();
        self.step = step;
        Ok(())
    }

    /// The obstacles, in the order they were added.
    pub fn obstacles(&self) -> &[Obstacle<V>] {
        self.obstacles.shapes()
    }

    /// Adds an obstacle (validated) and returns its index. Boids already inside it
    /// are pushed out during the next step.
    pub fn add_obstacle(&mut self, shape: Obstacle<V>) -> Result<usize, WorldError> {
        let index = self.obstacles.len();
        shape.validate(&format!("obstacles[{index}]"))?;
        self.check_models(&self.config, &self.species, &self.relations, 1)?;
        self.obstacles.push(shape);
        Ok(index)
    }

    /// Replaces obstacle `index` (moved or resized between steps).
    pub fn set_obstacle(&mut self, index: usize, shape: Obstacle<V>) -> Result<(), WorldError> {
        if index >= self.obstacles.len() {
            return Err(WorldError::UnknownObstacle {
                index,
                count: self.obstacles.len(),
            });
        }
        shape.validate(&format!("obstacles[{index}]"))?;
        self.obstacles.set(index, shape);
        Ok(())
    }

    /// Replaces every obstacle by one baked distance field ([`Obstacle::Field`])
    /// sampled every `cell` units over their bounds plus the widest avoidance
    /// reach: for complex static layouts, a query then costs one lookup however
    /// many shapes there were. The baked solid contains every shape (see
    /// [`SdfGrid::bake`]); nothing happens without obstacles.
    pub fn bake_obstacles(&mut self, cell: f32) -> Result<(), WorldError> {
        let shapes = self.obstacles.shapes();
        if shapes.is_empty() {
            return Ok(());
        }
        let reach = self
            .species
            .iter()
            .map(|s| {
                s.obstacle_margin
                    + s.obstacle_lookahead * s.max_speed
                    + s.max_speed * self.config.dt
            })
            .fold(0.0f32, f32::max)
            + 2.0 * cell;
        let (mut lo, mut hi) = (V::splat(f32::INFINITY), V::splat(f32::NEG_INFINITY));
        for s in shapes {
            let (c, r) = s.bounds();
            for i in 0..V::DIM {
                lo.set(i, lo.get(i).min(c.get(i) - r - reach));
                hi.set(i, hi.get(i).max(c.get(i) + r + reach));
            }
        }
        let field = SdfGrid::bake(shapes, lo, hi, cell)?;
        self.obstacles = ObstacleSet::new(&[Obstacle::Field(field)]);
        Ok(())
    }

    /// Removes obstacle `index`; later obstacles move down by one.
    pub fn remove_obstacle(&mut self, index: usize) -> Result<Obstacle<V>, WorldError> {
        if index >= self.obstacles.len() {
            return Err(WorldError::UnknownObstacle {
                index,
                count: self.obstacles.len(),
            });
        }
        Ok(self.obstacles.remove(index))
    }

    /// The attractors, in the order they were added.
    pub fn attractors(&self) -> &[Attractor<V>] {
        &self.attractors
    }

    /// Adds an attractor (validated) and returns its index.
    pub fn add_attractor(&mut self, a: Attractor<V>) -> Result<usize, WorldError> {
        a.validate(&format!("attractors[{}]", self.attractors.len()))?;
        self.check_models(&self.config, &self.species, &self.relations, 1)?;
        self.check_species_filter(a.species)?;
        self.attractors.push(a);
        Ok(self.attractors.len() - 1)
    }

    /// Replaces attractor `index` (e.g. a new goal for a moving target).
    pub fn set_attractor(&mut self, index: usize, a: Attractor<V>) -> Result<(), WorldError> {
        let count = self.attractors.len();
        if index >= count {
            return Err(WorldError::UnknownEntity {
                what: "attractor",
                index,
                count,
            });
        }
        a.validate(&format!("attractors[{index}]"))?;
        self.check_species_filter(a.species)?;
        self.attractors[index] = a;
        Ok(())
    }

    /// Removes attractor `index`; later ones move down by one. Boids go back to
    /// flocking freely.
    pub fn remove_attractor(&mut self, index: usize) -> Result<Attractor<V>, WorldError> {
        if index >= self.attractors.len() {
            return Err(WorldError::UnknownEntity {
                what: "attractor",
                index,
                count: self.attractors.len(),
            });
        }
        Ok(self.attractors.remove(index))
    }

    /// A species filter must name an existing species.
    fn check_species_filter(&self, species: Option<u16>) -> Result<(), WorldError> {
        match species {
            Some(s) if s as usize >= self.species.len() => Err(WorldError::UnknownSpecies {
                index: s as usize,
                count: self.species.len(),
            }),
            _ => Ok(()),
        }
    }

    /// Live pulses (expired ones are removed after each step).
    pub fn pulses(&self) -> &[Pulse<V>] {
        &self.pulses
    }

    /// Fires a pulse (validated); it acts from the next step for its duration.
    pub fn add_pulse(&mut self, p: Pulse<V>) -> Result<(), WorldError> {
        p.validate(&format!("pulses[{}]", self.pulses.len()))?;
        self.check_models(&self.config, &self.species, &self.relations, 1)?;
        self.pulses.push(p);
        Ok(())
    }

    /// Live paths (expired ones are removed after each step).
    pub fn paths(&self) -> &[Path<V>] {
        &self.paths
    }

    /// Adds a path (validated) and returns its index.
    pub fn add_path(&mut self, p: Path<V>) -> Result<usize, WorldError> {
        p.validate(&format!("paths[{}]", self.paths.len()), self.species.len())?;
        self.check_models(&self.config, &self.species, &self.relations, 1)?;
        self.paths.push(p);
        Ok(self.paths.len() - 1)
    }

    /// Replaces path `index` (validated; a moved route), keeping nothing of the
    /// old one: its age restarts from the new value's.
    pub fn set_path(&mut self, index: usize, p: Path<V>) -> Result<(), WorldError> {
        let count = self.paths.len();
        if index >= count {
            return Err(WorldError::UnknownEntity {
                what: "path",
                index,
                count,
            });
        }
        p.validate(&format!("paths[{index}]"), self.species.len())?;
        self.paths[index] = p;
        Ok(())
    }

    /// Removes path `index`; later ones move down by one.
    pub fn remove_path(&mut self, index: usize) -> Result<Path<V>, WorldError> {
        if index >= self.paths.len() {
            return Err(WorldError::UnknownEntity {
                what: "path",
                index,
                count: self.paths.len(),
            });
        }
        Ok(self.paths.remove(index))
    }

    /// The zones with their counts after the last step.
    pub fn zones(&self) -> &[Zone<V>] {
        &self.zones
    }

    /// Adds a zone (validated; counted from the next step) and returns its index.
    pub fn add_zone(&mut self, mut z: Zone<V>) -> Result<usize, WorldError> {
        z.validate(&format!("zones[{}]", self.zones.len()), self.species.len())?;
        z.inside.clear();
        self.zones.push(z);
        Ok(self.zones.len() - 1)
    }

    /// Replaces zone `index`'s region, species filter and threshold (validated),
    /// keeping who was inside: the next step reports who entered or left the new
    /// region, so a moving zone emits events only at its edges.
    pub fn set_zone(&mut self, index: usize, mut z: Zone<V>) -> Result<(), WorldError> {
        let count = self.zones.len();
        if index >= count {
            return Err(WorldError::UnknownEntity {
                what: "zone",
                index,
                count,
            });
        }
        z.validate(&format!("zones[{index}]"), self.species.len())?;
        z.inside = std::mem::take(&mut self.zones[index].inside);
        self.zones[index] = z;
        Ok(())
    }

    /// Removes zone `index`; later ones move down by one.
    pub fn remove_zone(&mut self, index: usize) -> Result<Zone<V>, WorldError> {
        if index >= self.zones.len() {
            return Err(WorldError::UnknownEntity {
                what: "zone",
                index,
                count: self.zones.len(),
            });
        }
        Ok(self.zones.remove(index))
    }

    /// The parameter schedule ([`crate::params::schedule`]).
    pub fn schedule(&self) -> &[crate::params::schedule::Change] {
        &self.schedule
    }
    /// Replaces the parameter schedule (each change validated against its
    /// species); it acts from the next step on.
    pub fn set_schedule(
        &mut self,
        changes: Vec<crate::params::schedule::Change>,
    ) -> Result<(), WorldError> {
        for (i, c) in changes.iter().enumerate() {
            c.validate(&self.species, &format!("schedule[{i}]"))?;
        }
        self.schedule = changes;
        Ok(())
    }

    /// Parameters of every species.
    pub fn species(&self) -> &[SpeciesParams] {
        &self.species
    }
    /// Replaces the parameters of species `index` (validated).
    pub fn set_species_params(
        &mut self,
        species: SpeciesId,
        params: SpeciesParams,
    ) -> Result<(), WorldError> {
        let index = species.index();
        self.check_species(index)?;
        validate_species::<V>(&params, &format!("species[{index}]"))?;
        let mut trial = self.species.clone();
        trial[index] = params;
        self.check_models(&self.config, &trial, &self.relations, 0)?;
        self.species[index] = params;
        Ok(())
    }
    /// Adds a species; returns its handle. It flocks with itself and separates from others.
    pub fn add_species(&mut self, params: SpeciesParams) -> Result<SpeciesId, WorldError> {
        let index = self.species.len();
        validate_species::<V>(&params, &format!("species[{index}]"))?;
        if index >= MAX_SPECIES {
            return Err(crate::error::ParamError::OutOfRange {
                field: "species".into(),
                value: (index + 1) as f64,
                range: format!("a list of 1 to {MAX_SPECIES} species"),
            }
            .into());
        }
        let old = std::mem::replace(&mut self.relations, Relations::default_for(index + 1));
        for a in 0..index {
            for b in 0..index {
                self.relations.set(a, b, old.get(a, b));
            }
        }
        let mut trial = self.species.clone();
        trial.push(params);
        self.check_models(&self.config, &trial, &Relations::default_for(index + 1), 0)?;
        self.species.push(params);
        Ok(SpeciesId::new(index))
    }

    /// Handles of every species, in order.
    pub fn species_ids(&self) -> impl ExactSizeIterator<Item = SpeciesId> + use<V> {
        (0..self.species.len()).map(SpeciesId::new)
    }

    /// The species relation table.
    pub fn relations(&self) -> &Relations {
        &self.relations
    }
    /// Replaces the relation table (its size must match the species count).
    pub fn set_relations(&mut self, relations: Relations) -> Result<(), WorldError> {
        relations.validate(self.species.len())?;
        self.check_models(&self.config, &self.species, &relations, 0)?;
        self.relations = relations;
        Ok(())
    }
    /// Sets how species `a` reacts to species `b`.
    pub fn set_relation(
        &mut self,
        a: SpeciesId,
        b: SpeciesId,
        r: Relation,
    ) -> Result<(), WorldError> {
        let (a, b) = (a.index(), b.index());
        self.check_species(a)?;
        self.check_species(b)?;
        let mut trial = self.relations.clone();
        trial.set(a, b, r);
        self.check_models(&self.config, &self.species, &trial, 0)?;
        self.relations.set(a, b, r);
        Ok(())
    }

    /// A research model's world (one model, its boundary, no relations) stays
    /// one after a change; `adding` entities that steer (obstacles, attractors,
    /// pulses, paths) are refused in it.
    fn check_models(
        &self,
        config: &WorldConfig<V>,
        species: &[SpeciesParams],
        relations: &Relations,
        adding: usize,
    ) -> Result<(), WorldError> {
        let entities = [(
            "steering entities",
            adding
                + self.obstacles.len()
                + self.attractors.len()
                + self.pulses.len()
                + self.paths.len(),
        )];
        crate::models::check_world(config, species, relations, &entities)?;
        Ok(())
    }

    pub(crate) fn check_species(&self, index: usize) -> Result<(), WorldError> {
        if index < self.species.len() {
            Ok(())
        } else {
            Err(WorldError::UnknownSpecies {
                index,
                count: self.species.len(),
            })
        }
    }

    pub(crate) fn check_room(&self, extra: u64) -> Result<(), WorldError> {
        let requested = self.len() as u64 + extra;
        let id_room = u32::MAX as u64 - self.boids.next_id() as u64;
        if requested > MAX_BOIDS || extra > id_room {
            return Err(WorldError::TooManyBoids {
                requested,
                limit: MAX_BOIDS.min(self.len() as u64 + id_room),
            });
        }
        Ok(())
    }

    /// Removes boid `id`; the others keep their ids and order.
    pub fn remove_boid(&mut self, id: BoidId) -> Result<(), WorldError> {
        self.remove_boids(&[id])
    }

    /// Removes every listed boid (unknown ids are an error and nothing is removed).
    pub fn remove_boids(&mut self, ids: &[BoidId]) -> Result<(), WorldError> {
        let mut wanted: Vec<BoidId> = ids.to_vec();
        wanted.sort_unstable();
        wanted.dedup();
        let kill_slot: Vec<bool> = self
            .boids
            .ids
            .iter()
            .map(|id| wanted.binary_search(id).is_ok())
            .collect();
        if kill_slot.iter().filter(|&&k| k).count() != wanted.len() {
            let mut stored = self.boids.ids.clone();
            stored.sort_unstable();
            let missing = wanted
                .into_iter()
                .find(|id| stored.binary_search(id).is_err())
                .unwrap_or(0);
            return Err(WorldError::UnknownBoid(missing));
        }
        self.state_mut().retain_slots(|s| kill_slot[s]);
        Ok(())
    }

    /// Order parameters and spatial statistics of the current state (sums run in
    /// storage order, which is itself deterministic).
    pub fn metrics(&self) -> Metrics<V> {
        metrics::compute(&metrics::Flock {
            positions: self.boids.positions(),
            velocities: self.boids.velocities(),
            species: &self.boids.species,
            params: &self.species,
            obstacles: &self.obstacles,
            config: &self.config,
        })
    }

    /// One row of the metrics table for the current state, in
    /// [`metrics::table_columns`] order: step, time, every scalar metric, then
    /// each zone's count.
    pub fn metrics_row(&self) -> Vec<f64> {
        let mut r = vec![self.step_index() as f64, self.time()];
        r.extend(self.metrics().scalars().map(|(_, v)| v));
        r.extend(self.zones().iter().map(|z| z.count() as f64));
        r
    }

    /// For each boid in storage order ([`World::boids`]), how many others lie within
    /// its species' perception radius (vision cones and relations ignored).
    pub fn neighbour_counts(&self) -> Vec<u32> {
        let radii: Vec<f32> = self
            .species
            .iter()
            .map(SpeciesParams::perception_radius)
            .collect();
        metrics::neighbour_counts(
            self.boids.positions(),
            self.boids.species(),
            &radii,
            &self.config,
        )
    }

    /// 64-bit FNV-1a digest of positions then velocities (little-endian f32
    /// components) in boid-id order: equal digests mean bit-identical states.
    pub fn digest(&self) -> u64 {
        crate::digest::digest(self.positions(), self.velocities())
    }

    /// Steers every boid on the scalar path instead of in SIMD lanes: the
    /// same bits, slower (tests compare the two paths with it).
    #[doc(hidden)]
    pub fn set_scalar_steering(&mut self, on: bool) {
        self.pipeline.scalar = on;
    }

    /// The pipeline's scratch, for tests that reach into it.
    #[cfg(test)]
    pub(crate) fn pipeline_mut(&mut self) -> &mut Pipeline<V> {
        &mut self.pipeline
    }

    /// Bytes of heap memory held by state and scratch.
    pub fn heap_bytes(&self) -> usize {
        self.boids.heap_bytes() + self.pipeline.heap_bytes() + self.models.heap_bytes()
    }
}

pub(crate) fn validate_all<V: Vector>(
    config: &WorldConfig<V>,
    species: &[SpeciesParams],
    relations: &Relations,
) -> Result<(), WorldError> {
    config.validate()?;
    if species.is_empty() || species.len() > MAX_SPECIES {
        return Err(crate::error::ParamError::OutOfRange {
            field: "species".into(),
            value: species.len() as f64,
            range: format!("a list of 1 to {MAX_SPECIES} species"),
        }
        .into());
    }
    for (i, s) in species.iter().enumerate() {
        validate_species::<V>(s, &format!("species[{i}]"))?;
    }
    relations.validate(species.len())?;
    crate::models::check_world(config, species, relations, &[])?;
    Ok(())
}

/// A species' parameters, valid in a world of `V`'s dimension: banked flight
/// needs a vertical axis, so 2D species must not roll.
fn validate_species<V: Vector>(
    p: &SpeciesParams,
    name: &str,
) -> Result<(), crate::error::ParamError> {
    p.validate(name)?;
    p.model.validate(name, V::DIM)?;
    if V::DIM == 2 && p.roll_rate != 0.0 {
        return Err(crate::error::ParamError::OutOfRange {
            field: format!("{name}.roll_rate"),
            value: p.roll_rate as f64,
            range: "0 in 2D (banked flight needs a vertical axis)".into(),
        });
    }
    Ok(())
}

/// A dimension whose engine is compiled once, in this crate: [`World::step`]
/// goes through [`Dimension::step_world`], which is concrete for [`Vec2`] and
/// [`Vec3`], so a crate that steps a world links to the engine here instead
/// of compiling it again (build time only: the code is the same).
pub trait Dimension: Vector {
    /// Advances `world` one step ([`World::step`]'s work).
    #[doc(hidden)]
    fn step_world(world: &mut World<Self>) {
        world.step_body();
    }
}

impl Dimension for Vec2 {
    fn step_world(world: &mut World<Self>) {
        world.step_body();
    }
}

impl Dimension for Vec3 {
    fn step_world(world: &mut World<Self>) {
        world.step_body();
    }
}

impl<V: Dimension> World<V> {
    /// Advances one fixed time step and reports its counters and events (meals,
    /// zone crossings) in a deterministic order.
    pub fn step(&mut self) -> StepReport<'_, V> {
        V::step_world(self);
        StepReport {
            stats: self.last_stats,
            events: &self.events,
        }
    }

    /// Advances `n` steps (events of all but the last are dropped: step one at a
    /// time to see them all).
    pub fn step_n(&mut self, n: u64) {
        for _ in 0..n {
            self.step();
        }
    }
}

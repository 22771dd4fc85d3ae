//! The [`Flock`] component: one Murmuration world stepped by the plugin.

use crate::boid_entities::BoidEntities;
use crate::mirror::Mirror;
use bevy_ecs::prelude::{Component, Entity};
use bevy_ecs::system::EntityCommands;
use bevy_transform::components::Transform;
use murmuration::glam::{Vec2, Vec3};
use murmuration::scenario::{AnyWorld, Scenario};
use murmuration::{BoidId, ScenarioError, Vector, World};

/// How a flock's boids appear in the ECS.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BoidSync {
    /// One child entity per boid with a [`Boid`](crate::Boid) and a `Transform`
    /// written after every step (entities are spawned for new boids and despawned
    /// for eaten ones). For small flocks a game attaches sprites or meshes to.
    #[default]
    Entities,
    /// No entities: the game reads [`Flock::world`]'s positions and velocities
    /// and draws them with its own instancing. For large flocks.
    Off,
}

/// A flock: a Murmuration [`World`] the plugin steps once per `FixedUpdate` run.
///
/// Coordinates are the flock entity's local space: boid entities and hooks are
/// its children, so moving the flock's `Transform` moves the whole flock.
#[derive(Component)]
#[require(Transform)]
pub struct Flock<V: Vector> {
    pub(crate) world: World<V>,
    /// How boids appear in the ECS; may change at any time.
    pub sync: BoidSync,
    /// While true the plugin does not step the flock (hooks are still mirrored).
    pub paused: bool,
    species_names: Vec<String>,
    pub(crate) mirror: Mirror<V>,
    /// Boid entities by boid id.
    pub(crate) entities: BoidEntities,
}

/// A 2D flock.
pub type Flock2 = Flock<Vec2>;
/// A 3D flock.
pub type Flock3 = Flock<Vec3>;

impl<V: Vector> Flock<V> {
    /// A flock around a world built in code, with boids as entities.
    pub fn new(world: World<V>) -> Self {
        let species_names = (0..world.species().len())
            .map(|i| format!("species{i}"))
            .collect();
        Self {
            world,
            sync: BoidSync::default(),
            paused: false,
            species_names,
            mirror: Mirror::default(),
            entities: BoidEntities::default(),
        }
    }

    /// The flock of a parsed scenario (an error when it is not of dimension `V`).
    pub fn from_scenario(scenario: &Scenario) -> Result<Self, ScenarioError> {
        Ok(Self::new(scenario.build_world()?).named_by(scenario))
    }

    /// The same flock with its species named as in `scenario`.
    fn named_by(mut self, scenario: &Scenario) -> Self {
        self.species_names = scenario.species().iter().map(|(n, _)| n.clone()).collect();
        self
    }

    /// The same flock with another [`BoidSync`].
    pub fn with_sync(mut self, sync: BoidSync) -> Self {
        self.sync = sync;
        self
    }

    /// The world: boids in id order ([`World::positions`], [`World::velocities`],
    /// [`World::ids`]), metrics, zones, events of the last step.
    pub fn world(&self) -> &World<V> {
        &self.world
    }

    /// The world, to change species parameters, relations or the scenario's own
    /// attractors and obstacles. The hooks' entries sit after the scenario's in
    /// each list and belong to the plugin: change them through their components.
    pub fn world_mut(&mut self) -> &mut World<V> {
        &mut self.world
    }

    /// The index of the species named `name` in the scenario (`species{i}` for a
    /// world built in code), for a hook's species filter.
    pub fn species_index(&self, name: &str) -> Option<u16> {
        self.species_names
            .iter()
            .position(|n| n == name)
            .map(|i| i as u16)
    }

    /// The entity of boid `id` under [`BoidSync::Entities`] (after the step that
    /// first synced it).
    pub fn entity_of(&self, id: BoidId) -> Option<Entity> {
        self.entities.get(id)
    }

    /// Spawns the flock on a new entity and returns it.
    pub fn spawn(self, world: &mut bevy_ecs::world::World) -> Entity {
        world.spawn(self).id()
    }
}

/// A flock of either dimension, as a scenario file describes it.
pub enum AnyFlock {
    /// `dimension = 2`.
    D2(Flock2),
    /// `dimension = 3`.
    D3(Flock3),
}

impl AnyFlock {
    /// The flock of a parsed scenario.
    pub fn from_scenario(scenario: &Scenario) -> Result<Self, ScenarioError> {
        Ok(match scenario.build()? {
            AnyWorld::D2(w) => Self::D2(Flock::new(w).named_by(scenario)),
            AnyWorld::D3(w) => Self::D3(Flock::new(w).named_by(scenario)),
        })
    }

    /// Parses scenario TOML (the `murmuration run` format) and builds its flock.
    pub fn from_toml(text: &str) -> Result<Self, ScenarioError> {
        Self::from_scenario(&Scenario::parse(text, "<embedded>")?)
    }

    /// Reads a scenario file and builds its flock.
    pub fn load(path: &std::path::Path) -> Result<Self, ScenarioError> {
        Self::from_scenario(&Scenario::load(path)?)
    }

    /// The same flock with another [`BoidSync`].
    pub fn with_sync(self, sync: BoidSync) -> Self {
        match self {
            Self::D2(f) => Self::D2(f.with_sync(sync)),
            Self::D3(f) => Self::D3(f.with_sync(sync)),
        }
    }

    /// Spawns the flock on a new entity and returns it.
    pub fn spawn(self, world: &mut bevy_ecs::world::World) -> Entity {
        match self {
            Self::D2(f) => f.spawn(world),
            Self::D3(f) => f.spawn(world),
        }
    }

    /// Inserts the flock on an entity (`commands.spawn_empty()` or an existing one).
    pub fn insert_into(self, entity: &mut EntityCommands<'_>) {
        match self {
            Self::D2(f) => entity.insert(f),
            Self::D3(f) => entity.insert(f),
        };
    }
}

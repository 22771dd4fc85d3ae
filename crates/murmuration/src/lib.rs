//! # Murmuration — exact, deterministic boids in 2D and 3D
//!
//! Craig Reynolds' boids (separation, alignment, cohesion) with exact radius
//! neighbourhoods found through a uniform grid rebuilt each step by a stable counting
//! sort, stepped in parallel with bit-identical results on any thread count.
//!
//! Two API levels:
//! - [`World`] (aliases [`World2`], [`World3`]): parameters, state and scratch in one
//!   value; `step()`, add and remove boids, metrics, snapshots.
//! - [`Pipeline::step`]: the explicit pipeline over a [`Boids`] state you own; the
//!   pipeline holds only reusable scratch memory.
//!
//! ```
//! use murmuration::{Boundary, SpeciesId, SpeciesParams, Spawn, World2, WorldConfig};
//! use glam::Vec2;
//!
//! let config = WorldConfig::new(Vec2::splat(40.0), Boundary::Wrap);
//! let mut world = World2::new(config, vec![SpeciesParams::default()]).unwrap();
//! let fish = SpeciesId::FIRST;
//! world.spawn(Spawn::new(fish, 500).speed(3.0)).unwrap();
//! for _ in 0..100 {
//!     world.step();
//! }
//! let m = world.metrics();
//! assert!(m.polarization >= 0.0 && m.polarization <= 1.0);
//! ```
//!
//! 2D and 3D come from one source: everything is generic over [`Vector`], which
//! [`glam::Vec2`] and [`glam::Vec3`] implement.
//!
//! # Where to start
//!
//! - **A flock in code**: [`World::new`] with a [`WorldConfig`] (box, boundary, time
//!   step, seed) and one [`SpeciesParams`] per species, then [`World::spawn`] and
//!   [`World::step`], which returns the step's [`Event`]s. [`SpeciesParams`] is the
//!   parameter table: every field's unit and range is in its doc comment.
//! - **A flock from a file**: [`scenario::Scenario`] parses a TOML scenario (the
//!   shipped presets are [`scenario::PRESETS`]) and builds the world, with errors
//!   that name the file, line, field and value.
//! - **What boids react to**: [`Obstacle`], [`Attractor`], [`Pulse`], [`Path`],
//!   [`Zone`] and [`Relation`]s between species (flee, chase, follow), added with
//!   the world's `add_*` and [`World::set_relation`].
//! - **Measuring**: [`World::metrics`] (polarization, milling, groups, ...) and
//!   [`field`] (the field studies' measures); [`sweep`] and [`ladder`] run
//!   experiments.
//! - **Drawing every frame**: [`World::boids`] gives the stored arrays without a copy.
//! - **Other crates**: `murmuration-gpu` steps the same world on the GPU,
//!   `murmuration-render` draws it, `bevy_murmuration` puts it in a Bevy app. The
//!   repository's `docs/LIBRARY.md` is the guide and `ARCHITECTURE.md` the map.

#![allow(
    unsafe_code,
    reason = "unaligned 8-lane loads and stores in step/kernel.rs, step/kernel512.rs and grid's parallel scatter; each unsafe block states why it is sound"
)]

// The foundation: plain helpers every layer uses.
mod atomic;
mod boids;
mod digest;
mod error;
mod rng;
mod stats;
mod stopwatch;
mod trig;
mod vector;

// The layers, each using only those above it in this list (the module-graph
// test in murmuration-app checks it): parameters, behaviours, the neighbour
// grid, the research models, the Reynolds step, measurements, the world,
// scenario files, experiments.
mod analysis;
mod behaviours;
mod experiments;
mod grid;
mod models;
mod params;
pub mod scenario;
mod step;
mod world;

pub use analysis::{field, metrics};
pub use atomic::{AtomicFile, write_atomic};
pub use behaviours::attractors::{Attractor, Pulse};
pub use behaviours::clearance::ClearanceGrid;
pub use behaviours::entities;
pub use behaviours::obstacles::{Obstacle, ObstacleSet};
pub use behaviours::paths::Path;
pub use behaviours::sdf_grid::{MAX_SDF_SAMPLES, SdfGrid};
pub use behaviours::surface::Surface;
pub use behaviours::wander::knot_phase;
pub use behaviours::zones::Zone;
pub use boids::{BoidId, Boids};
pub use digest::{digest, hash_bytes};
pub use error::{ParamError, ScenarioError, SnapshotError, WorldError, error_chain};
pub use experiments::{ladder, sweep};
pub use glam;
pub use grid::{Extent, Grid};
pub use params::model::{self, Model, ModelKind};
pub use params::{
    Boundary, CombineMode, MAX_TOPOLOGICAL, Relation, Relations, SpeciesId, SpeciesParams,
    Steering, WorldConfig, fields, schedule,
};
pub use scenario::memory;
pub use stats::StepStats;
pub use step::context::StepContext;
pub use step::interactions::Event;
pub use step::kernel512::{KERNEL_LANES_ENV, kernel_lanes, limit_kernel_to_8_lanes};
pub use step::pipeline::Pipeline;
pub use step::rules::{RuleConsts, coincident_direction};
pub use vector::Vector;
pub use world::inspect::Inspection;
pub use world::snapshot::SNAPSHOT_VERSION;
pub use world::spawn::Spawn;
pub use world::{Dimension, MAX_BOIDS, MAX_SPECIES, StepReport, World};

/// A 2D world.
pub type World2 = World<glam::Vec2>;
/// A 3D world.
pub type World3 = World<glam::Vec3>;

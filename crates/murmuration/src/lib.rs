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

#![allow(
    unsafe_code,
    reason = "unaligned 8-lane loads and stores in kernel.rs, candidates.rs and grid.rs's parallel scatter; each unsafe block states why it is sound"
)]

mod atomic;
mod attractors;
mod bake;
mod batch;
mod boids;
mod boundary;
mod clearance;
mod context;
mod digest;
pub mod entities;
mod error;
pub mod fields;
mod flight;
mod focus;
mod grid;
mod inspect;
mod interactions;
mod kernel;
mod kernel512;
mod lanes;
pub mod memory;
pub mod metrics;
pub mod model;
mod models;
mod obstacles;
mod params;
mod paths;
mod pipeline;
mod pointer;
mod rng;
mod rules;
pub mod scenario;
pub mod schedule;
mod sdf_grid;
mod snapshot;
mod spawn;
mod stats;
mod steer;
mod stopwatch;
mod structure;
mod surface;
pub mod sweep;
mod topological;
mod vector;
mod vicsek;
mod wander;
mod workload;
mod world;
mod zones;

pub use atomic::{AtomicFile, write_atomic};
pub use attractors::{Attractor, Pulse};
pub use boids::{BoidId, Boids};
pub use clearance::ClearanceGrid;
pub use context::StepContext;
pub use digest::{digest, hash_bytes};
pub use error::{ParamError, ScenarioError, SnapshotError, WorldError, error_chain};
pub use glam;
pub use grid::{Extent, Grid};
pub use inspect::Inspection;
pub use interactions::Event;
pub use kernel512::{KERNEL_LANES_ENV, kernel_lanes, limit_kernel_to_8_lanes};
pub use model::{Model, ModelKind};
pub use obstacles::{Obstacle, ObstacleSet};
pub use params::{
    Boundary, CombineMode, Relation, Relations, SpeciesId, SpeciesParams, Steering, WorldConfig,
};
pub use paths::Path;
pub use pipeline::Pipeline;
pub use rules::RuleConsts;
pub use rules::coincident_direction;
pub use sdf_grid::{MAX_SDF_SAMPLES, SdfGrid};
pub use snapshot::SNAPSHOT_VERSION;
pub use spawn::Spawn;
pub use stats::StepStats;
pub use surface::Surface;
pub use topological::MAX_TOPOLOGICAL;
pub use vector::Vector;
pub use wander::knot_phase;
pub use world::{MAX_BOIDS, MAX_SPECIES, StepReport, World};
pub use zones::Zone;

/// A 2D world.
pub type World2 = World<glam::Vec2>;
/// A 3D world.
pub type World3 = World<glam::Vec3>;

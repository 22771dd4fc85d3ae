//! The standard benchmark workload of `shared/BENCHMARK.md`, shared by
//! `murmuration bench`, the criterion benches and the profiling example.

use crate::error::WorldError;
use crate::model::{AbmFlocking, Couzin, Dorsogna, Model, ModelKind, Vicsek};
use crate::params::SpeciesParams as Params;
use crate::params::{Boundary, SpeciesId, SpeciesParams, WorldConfig};
use crate::spawn::Spawn;
use crate::vector::Vector;
use crate::world::World;

impl<V: Vector> World<V> {
    /// The standard benchmark world: `n` boids of [`SpeciesParams::benchmark`] in a
    /// periodic box at 6.4 boids/unit² (2D) or 4.8 boids/unit³ (3D) — about 20.1
    /// neighbours within radius 1 — positions and headings uniform, speed = max
    /// speed, seed 1.
    pub fn benchmark(n: u64) -> Result<Self, WorldError> {
        let density = if V::DIM == 2 { 6.4 } else { 4.8 };
        let side = (n as f64 / density).powf(1.0 / V::DIM as f64) as f32;
        let mut config = WorldConfig::new(V::splat(side), Boundary::Wrap);
        config.seed = 1;
        let mut world = World::new(config, vec![SpeciesParams::benchmark()])?;
        world.spawn(Spawn::new(SpeciesId::FIRST, n))?;
        Ok(world)
    }

    /// The benchmark world with its species moving by `model` instead, scaled to
    /// the same interaction range (1) and speed (1 unit/s) in the same box and
    /// time step, so its row reads beside the boids' (`murmuration bench --model`).
    pub fn benchmark_model(n: u64, model: ModelKind) -> Result<Self, WorldError> {
        let mut world = Self::benchmark(n)?;
        let model = match Model::default_of(model) {
            Model::Reynolds => return Ok(world),
            Model::Vicsek(m) => Model::Vicsek(Vicsek {
                r: 1.0,
                v0: 1.0,
                ..m
            }),
            Model::Couzin(m) => {
                let k = 1.0 / m.r_a();
                Model::Couzin(Couzin {
                    r_r: m.r_r * k,
                    delta_r_o: m.delta_r_o * k,
                    delta_r_a: m.delta_r_a * k,
                    s: 1.0,
                    ..m
                })
            }
            Model::Dorsogna(m) => {
                let k = 1.0 / m.cutoff;
                Model::Dorsogna(Dorsogna {
                    l_r: m.l_r * k,
                    l_a: m.l_a * k,
                    cutoff: 1.0,
                    ..m
                })
            }
            Model::AbmFlocking(m) => Model::AbmFlocking(AbmFlocking {
                visual_distance: 1.0,
                separation: 0.2,
                speed: 1.0,
                ..m
            }),
        };
        world.set_species_params(SpeciesId::FIRST, Params::of_model(model))?;
        Ok(world)
    }
}

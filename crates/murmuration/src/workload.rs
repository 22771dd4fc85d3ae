//! The standard benchmark workload of `shared/BENCHMARK.md`, shared by
//! `murmuration bench`, the criterion benches and the profiling example.

use crate::error::WorldError;
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
}

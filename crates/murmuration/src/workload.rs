//! The standard benchmark workload of `shared/BENCHMARK.md`, shared by
//! `murmuration bench`, the criterion benches and the profiling example.

use crate::error::WorldError;
use crate::params::{Boundary, SpeciesParams, WorldConfig};
use crate::vector::Vector;
use crate::world::World;

/// `n` boids of [`SpeciesParams::benchmark`] in a periodic box at 6.4 boids/unit²
/// (2D) or 4.8 boids/unit³ (3D) — about 20.1 neighbours within radius 1 —
/// positions and headings uniform, speed = max speed, seed 1.
pub fn benchmark<V: Vector>(n: u64) -> Result<World<V>, WorldError> {
    let density = if V::DIM == 2 { 6.4 } else { 4.8 };
    let side = (n as f64 / density).powf(1.0 / V::DIM as f64) as f32;
    let mut config = WorldConfig::new(V::splat(side), Boundary::Wrap);
    config.seed = 1;
    let params = SpeciesParams::benchmark();
    let mut world = World::new(config, vec![params])?;
    world.spawn(0, n, None, params.max_speed)?;
    Ok(world)
}

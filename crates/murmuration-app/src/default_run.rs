//! The main job: run the embedded default scenario headless and print a summary.
//!
//! The default is the game's flock: 2,000 boids with seed 000's published
//! parameters (perception 1.5, separation 0.8, weights 1.5/1.0/0.8, max speed 3,
//! max force 0.5) and 1% jitter in a 60 × 60 periodic world.

use crate::backend::{self, Backend};
use crate::out::outln;
use anyhow::{Context, Result, bail};
use clap::Args;
use murmuration::glam::Vec2;
use murmuration::{Boundary, SpeciesParams, World2, WorldConfig};
use std::time::Instant;

/// Options of `murmuration run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Steps to run.
    #[arg(long, default_value_t = 1000)]
    pub steps: u64,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Engine: cpu, gpu, or auto (the GPU when one opens). GPU results agree with
    /// the CPU within float rounding, so the digest differs between backends.
    #[arg(long, value_enum, default_value_t = Backend::Cpu)]
    pub backend: Backend,
}

impl Default for RunArgs {
    fn default() -> Self {
        Self {
            steps: 1000,
            seed: 1,
            threads: None,
            backend: Backend::Cpu,
        }
    }
}

/// The embedded default world.
pub fn default_world(seed: u64) -> Result<World2> {
    let mut config = WorldConfig::new(Vec2::splat(60.0), Boundary::Wrap);
    config.seed = seed;
    let species = SpeciesParams {
        jitter: 0.01,
        ..SpeciesParams::default()
    };
    let mut world = World2::new(config, vec![species])?;
    world.spawn(0, 2_000, None, species.max_speed)?;
    Ok(world)
}

/// Runs the default scenario and prints steps, timing, metrics and the digest.
pub fn run(args: &RunArgs) -> Result<()> {
    if args.threads == Some(0) {
        bail!("--threads 0 is out of range: must be at least 1");
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .context("could not start the worker threads")?;
    let world = default_world(args.seed)?;
    let gpu = backend::open(args.backend)?;
    let engine = match &gpu {
        Some(g) => format!("GPU {}", g.name()),
        None => format!("{} threads", pool.current_num_threads()),
    };
    outln!(
        "default scenario: {} boids, 2D, {:?} boundary, seed {}, {} steps on {engine}",
        world.len(),
        world.config().boundary,
        args.seed,
        args.steps,
    )?;
    let start = Instant::now();
    let mut sim = murmuration_gpu::Simulation::with_gpu(world, gpu, None)?;
    pool.install(|| sim.step_n(args.steps))?;
    let world = sim.into_world()?;
    let wall = start.elapsed().as_secs_f64();
    let metrics = pool.install(|| world.metrics());
    outln!("steps: {}", args.steps)?;
    outln!("wall_s: {wall:.3}")?;
    outln!("steps_per_s: {:.1}", args.steps as f64 / wall.max(1e-9))?;
    for (name, value) in metrics.scalars() {
        outln!("{name}: {value:.6}")?;
    }
    outln!("digest: {:016x}", world.digest())?;
    Ok(())
}

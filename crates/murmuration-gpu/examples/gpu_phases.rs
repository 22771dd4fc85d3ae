//! Per-pass GPU time of the standard benchmark world: where a GPU step goes.
//!
//! `cargo run --release -p murmuration-gpu --example gpu_phases -- N [2|3] [uniform|flocked] [PARTS]`
//!
//! PARTS (e.g. `oap`) runs `World::benchmark_behaviours` instead: the standard world
//! with obstacles, attractors and predators.

use murmuration::World;
use murmuration_gpu::{Gpu, GpuFlock, GpuVector};

fn profile<V: GpuVector>(
    gpu: &Gpu,
    n: u64,
    warmup: u64,
    parts: Option<&str>,
) -> Result<(), Box<dyn std::error::Error>> {
    let world = match parts {
        Some(p) => World::<V>::benchmark_behaviours(n, p)?,
        None => World::<V>::benchmark(n)?,
    };
    let mut flock = GpuFlock::new(gpu, &world)?;
    // The same measurement as `murmuration bench --backend gpu` (timing.rs).
    let step = flock.time_steps(warmup, 20)?;
    let passes = flock.profile_passes(20)?;
    println!(
        "gpu_phases on {}: {}D n={n}, {} cells; whole step median {:.4} ms",
        gpu.name(),
        V::DIM,
        flock.cells(),
        step.median_ms()
    );
    let total: f64 = passes.iter().map(|p| p.1).sum();
    for (name, ms) in passes {
        println!("  {name:<13} {ms:>9.4} ms  {:>5.1}%", 100.0 * ms / total);
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let n: u64 = args.get(1).map_or(Ok(1_000_000), |s| s.parse())?;
    let dim: u8 = args.get(2).map_or(Ok(2), |s| s.parse())?;
    let warmup = if args.get(3).map(String::as_str) == Some("flocked") {
        300
    } else {
        5
    };
    let parts = args.get(4).map(String::as_str);
    let gpu = Gpu::new()?;
    if dim == 3 {
        profile::<glam::Vec3>(&gpu, n, warmup, parts)
    } else {
        profile::<glam::Vec2>(&gpu, n, warmup, parts)
    }
}

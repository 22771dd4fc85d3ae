//! GPU against CPU: the same world stepped on both agrees within a stated tolerance.
//!
//! Tolerance: the two backends sum neighbours in different orders (eight SIMD lanes
//! on the CPU, one thread per boid on the GPU), so forces differ by float rounding
//! (~1e-7 relative) and the GPU's `sin`/`cos` differ from Rust's in the last bits.
//! Those differences grow slowly over 20 steps; a neighbour within rounding of a
//! radius can be counted on one side and not the other, which moves that boid by
//! at most max_force·dt²·steps. So: the median boid within 1e-4 units, the 99th
//! percentile within 1e-3, every boid within 0.05.
//! Without an adapter (no GPU, no lavapipe) each test says so and passes.

use glam::{Vec2, Vec3};
use murmuration::{Boundary, CombineMode, Relation, SpeciesParams, Vector, World, WorldConfig};
use murmuration_gpu::{Gpu, GpuFlock, GpuVector};

fn gpu() -> Option<Gpu> {
    match Gpu::new() {
        Ok(g) => Some(g),
        Err(e) => {
            eprintln!("SKIPPED: no GPU adapter ({e})");
            None
        }
    }
}

fn compare<V: GpuVector>(gpu: &Gpu, world: &World<V>, steps: u64, label: &str) {
    let mut cpu = world.clone();
    let mut on_gpu = world.clone();
    let mut flock = GpuFlock::new(gpu, world).expect("upload");
    cpu.step_n(steps);
    flock.step_n(steps).expect("gpu steps");
    flock.read_into(&mut on_gpu).expect("read back");
    assert_eq!(on_gpu.ids(), cpu.ids());
    assert_eq!(on_gpu.step_index(), cpu.step_index());
    let period = (world.config().boundary == Boundary::Wrap).then(|| world.config().size());
    let mut err: Vec<f32> = cpu
        .positions()
        .iter()
        .zip(on_gpu.positions())
        .map(|(&a, &b)| {
            let mut d = b - a;
            if let Some(l) = period {
                for i in 0..V::DIM {
                    let x = d.get(i);
                    d.set(i, x - l.get(i) * (x / l.get(i)).round());
                }
            }
            d.length()
        })
        .collect();
    err.sort_by(f32::total_cmp);
    let n = err.len();
    let (median, p99, max) = (err[n / 2], err[n * 99 / 100], err[n - 1]);
    eprintln!("{label}: {n} boids, {steps} steps: position error median {median:.2e}, p99 {p99:.2e}, max {max:.2e}");
    assert!(median <= 1e-4, "{label}: median error {median}");
    assert!(p99 <= 1e-3, "{label}: p99 error {p99}");
    assert!(max <= 0.05, "{label}: max error {max}");
}

fn world<V: GpuVector>(n: u64, size: f32, boundary: Boundary, species: Vec<SpeciesParams>) -> World<V> {
    let mut cfg = WorldConfig::new(V::splat(size), boundary);
    cfg.seed = 7;
    let count = species.len();
    let mut w = World::new(cfg, species).unwrap();
    for s in 0..count {
        w.spawn(s, n / count as u64, None, 1.0).unwrap();
    }
    w
}

#[test]
fn benchmark_world_2d_and_3d_agree() {
    let Some(gpu) = gpu() else { return };
    eprintln!("adapter: {}", gpu.name());
    let w2 = murmuration::workload::benchmark::<Vec2>(3000).unwrap();
    compare(&gpu, &w2, 20, "2D benchmark");
    let w3 = murmuration::workload::benchmark::<Vec3>(3000).unwrap();
    compare(&gpu, &w3, 20, "3D benchmark");
}

//! What the GPU test files share: the adapter (or a skip), the per-boid comparison
//! against the CPU with its stated tolerance (parity.rs's docs), and a world builder.

use murmuration::{Boundary, Spawn, SpeciesId, SpeciesParams, World, WorldConfig};
use murmuration_gpu::{Gpu, GpuFlock, GpuVector};

pub fn gpu() -> Option<Gpu> {
    murmuration_gpu::testing::gpu()
}

/// Per boid (the same ids in the same order), the distance between its
/// positions in `a` and `b`, by the nearest periodic image in a wrapping world.
pub fn position_errors<V: GpuVector>(a: &World<V>, b: &World<V>) -> Vec<f32> {
    let period = (a.config().boundary == Boundary::Wrap).then(|| a.config().size());
    a.positions()
        .iter()
        .zip(b.positions())
        .map(|(&p, &q)| {
            let mut d = q - p;
            if let Some(l) = period {
                for i in 0..V::DIM {
                    let x = d.get(i);
                    d.set(i, x - l.get(i) * (x / l.get(i)).round());
                }
            }
            d.length()
        })
        .collect()
}

/// Steps `world` on both engines and asserts the per-boid tolerance; returns the
/// CPU's and the GPU's worlds.
pub fn compare<V: GpuVector>(
    gpu: &Gpu,
    world: &World<V>,
    steps: u64,
    label: &str,
) -> (World<V>, World<V>) {
    let mut cpu = world.clone();
    let mut on_gpu = world.clone();
    let mut flock = GpuFlock::new(gpu, world).expect("upload");
    cpu.step_n(steps);
    flock.step_n(steps).expect("gpu steps");
    flock.read_into(&mut on_gpu).expect("read back");
    assert_eq!(on_gpu.ids(), cpu.ids());
    assert_eq!(on_gpu.step_index(), cpu.step_index());
    let mut err = position_errors(&cpu, &on_gpu);
    err.sort_by(f32::total_cmp);
    let n = err.len();
    let (median, p99, max) = (err[n / 2], err[n * 99 / 100], err[n - 1]);
    eprintln!(
        "{label}: {n} boids, {steps} steps: position error median {median:.2e}, p99 {p99:.2e}, max {max:.2e}"
    );
    assert!(median <= 1e-5, "{label}: median error {median}");
    assert!(p99 <= 1e-4, "{label}: p99 error {p99}");
    assert!(max <= 0.05, "{label}: max error {max}");
    (cpu, on_gpu)
}

pub fn world<V: GpuVector>(
    n: u64,
    size: f32,
    boundary: Boundary,
    species: Vec<SpeciesParams>,
) -> World<V> {
    let mut cfg = WorldConfig::new(V::splat(size), boundary);
    cfg.seed = 7;
    let count = species.len();
    let mut w = World::new(cfg, species).unwrap();
    for s in 0..count {
        w.spawn(Spawn::new(SpeciesId::new(s), n / count as u64).speed(1.0))
            .unwrap();
    }
    w
}

//! Every shipped preset of the boids model runs on the GPU backend: `auto` picks the
//! GPU for it (no "CPU because" reason) and a few steps read back into its world.
//! The research-model presets step on the CPU by design and say why.

use crate::common::gpu;
use murmuration::scenario::{AnyWorld, PRESETS, Scenario};
use murmuration::{Model, World};
use murmuration_gpu::{GpuFlock, GpuVector};

fn run<V: GpuVector>(gpu: &murmuration_gpu::Gpu, name: &str, w: World<V>) {
    let research = w.species().iter().any(|p| p.model != Model::Reynolds);
    let supported = GpuFlock::check_supported(&w);
    if research {
        let e = supported.expect_err(name).to_string();
        assert!(
            e.contains("model (the research models step on the CPU)"),
            "{name}: {e}"
        );
        return;
    }
    supported.unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut flock = GpuFlock::new(gpu, &w).unwrap_or_else(|e| panic!("{name}: {e}"));
    flock.step_n(3).unwrap();
    let mut out = w.clone();
    flock.read_into(&mut out).unwrap();
    assert_eq!(out.step_index(), w.step_index() + 3, "{name}");
    assert!(out.positions().iter().all(|p| p.is_finite()), "{name}");
}

#[test]
fn every_boids_preset_runs_on_the_gpu() {
    let Some(gpu) = gpu() else { return };
    for (name, text) in PRESETS {
        let s = Scenario::parse(text, name).unwrap();
        match s.build().unwrap() {
            AnyWorld::D2(w) => run(&gpu, name, w),
            AnyWorld::D3(w) => run(&gpu, name, w),
        }
    }
}

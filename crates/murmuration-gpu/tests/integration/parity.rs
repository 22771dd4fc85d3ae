//! GPU against CPU: the same world stepped on both agrees within a stated tolerance.
//!
//! Tolerance: the two backends sum neighbours in different orders (eight SIMD lanes
//! on the CPU, one thread per boid on the GPU), so forces differ by float rounding
//! (~1e-7 relative) and the GPU's `sin`/`cos` differ from Rust's in the last bits.
//! Those differences grow slowly over 20 steps; a neighbour within rounding of a
//! radius can be counted on one side and not the other, which moves that boid by
//! at most max_force·dt²·steps. So: the median boid within 1e-5 units, the 99th
//! percentile within 1e-4, every boid within 0.05. (Measured on lavapipe: median
//! 0, p99 ≤ 2.4e-7, max ≤ 2e-6; a 1% change of one weight gives median 1.7e-4.)
//! Without an adapter (no GPU, no lavapipe) each test says so and passes.

use crate::common::{compare, gpu, world};
use glam::{Vec2, Vec3};
use murmuration::{
    Boundary, CombineMode, Relation, Spawn, SpeciesId, SpeciesParams, World, WorldConfig,
};
use murmuration_gpu::{Gpu, GpuFlock, GpuVector};

#[test]
fn benchmark_world_2d_and_3d_agree() {
    let Some(gpu) = gpu() else { return };
    eprintln!("adapter: {}", gpu.name());
    let w2 = murmuration::World::<Vec2>::benchmark(3000).unwrap();
    compare(&gpu, &w2, 20, "2D benchmark");
    let w3 = murmuration::World::<Vec3>::benchmark(3000).unwrap();
    compare(&gpu, &w3, 20, "3D benchmark");
}

fn everything() -> Vec<SpeciesParams> {
    let a = SpeciesParams {
        fov_degrees: 270.0,
        jitter: 0.05,
        alignment_radius: 1.2,
        cohesion_radius: 1.5,
        min_speed: 0.3,
        ..SpeciesParams::default()
    };
    let b = SpeciesParams {
        combine: CombineMode::Prioritized,
        smoothing: 0.4,
        max_speed: 1.5,
        ..SpeciesParams::benchmark()
    };
    vec![a, b]
}

fn with_relations<V: GpuVector>(mut w: World<V>) -> World<V> {
    w.set_relation(SpeciesId::FIRST, SpeciesId::new(1), Relation::Ignore)
        .unwrap();
    w.set_relation(SpeciesId::new(1), SpeciesId::FIRST, Relation::Separate)
        .unwrap();
    w
}

#[test]
fn every_feature_on_every_boundary_agrees() {
    let Some(gpu) = gpu() else { return };
    let boundaries = [
        ("wrap", Boundary::Wrap),
        (
            "soft",
            Boundary::Soft {
                margin: 2.0,
                strength: 3.0,
            },
        ),
        ("reflect", Boundary::Reflect),
        ("unbounded", Boundary::Unbounded),
    ];
    for (name, b) in boundaries {
        let w2 = with_relations(world::<Vec2>(1500, 16.0, b, everything()));
        compare(
            &gpu,
            &w2,
            20,
            &format!("2D {name}, fov+jitter+species+prioritized"),
        );
        let w3 = with_relations(world::<Vec3>(1500, 7.0, b, everything()));
        compare(
            &gpu,
            &w3,
            20,
            &format!("3D {name}, fov+jitter+species+prioritized"),
        );
    }
}

#[test]
fn tiny_periodic_worlds_use_the_nearest_image() {
    // Fewer than three cells per axis: neighbours are found across the seam twice
    // over unless each pair takes its nearest image once.
    let Some(gpu) = gpu() else { return };
    compare(
        &gpu,
        &world::<Vec2>(60, 2.5, Boundary::Wrap, vec![SpeciesParams::benchmark()]),
        20,
        "2D 2.5-unit torus",
    );
    compare(
        &gpu,
        &world::<Vec3>(60, 1.5, Boundary::Wrap, vec![SpeciesParams::benchmark()]),
        20,
        "3D 1.5-unit torus",
    );
}

#[test]
fn coincident_boids_separate_as_on_the_cpu() {
    let Some(gpu) = gpu() else { return };
    let cfg = WorldConfig::new(Vec2::splat(10.0), Boundary::Wrap);
    let mut w = World::new(cfg, vec![SpeciesParams::default()]).unwrap();
    for k in 0..6 {
        w.add_boid(
            SpeciesId::FIRST,
            Vec2::new(5.0, 5.0),
            Vec2::new(0.1 * k as f32, 0.0),
        )
        .unwrap();
    }
    w.spawn(Spawn::new(SpeciesId::FIRST, 100).speed(0.5))
        .unwrap();
    compare(&gpu, &w, 10, "coincident");
}

/// Regression: a coincident neighbour was seen or not by the rounding of its
/// offset against the vision cone; it is now always seen, on both devices.
#[test]
fn coincident_boids_inside_a_narrow_cone_separate_as_on_the_cpu() {
    let Some(gpu) = gpu() else { return };
    let cfg = WorldConfig::new(Vec2::splat(10.0), Boundary::Wrap);
    let p = SpeciesParams {
        fov_degrees: 80.0,
        ..SpeciesParams::default()
    };
    let mut w = World::new(cfg, vec![p]).unwrap();
    for k in 0..6 {
        let a = k as f32;
        w.add_boid(
            SpeciesId::FIRST,
            Vec2::new(5.0 + 1e-6 * a, 5.0),
            Vec2::new(a.cos(), a.sin()),
        )
        .unwrap();
    }
    w.spawn(Spawn::new(SpeciesId::FIRST, 100).speed(0.5))
        .unwrap();
    compare(&gpu, &w, 10, "coincident in a cone");
}

#[test]
fn gpu_runs_repeat_bit_for_bit() {
    let Some(gpu) = gpu() else { return };
    let w = with_relations(world::<Vec2>(2000, 18.0, Boundary::Wrap, everything()));
    let run = || {
        let mut f = GpuFlock::new(&gpu, &w).unwrap();
        f.step_n(30).unwrap();
        let mut out = w.clone();
        f.read_into(&mut out).unwrap();
        out.digest()
    };
    assert_eq!(run(), run());
}

/// `bench --backend gpu` and `gpu_phases` time steps with `time_steps`: the
/// timed steps are the flock's own steps (the same bits as `step_n`), one time
/// each, finite and positive; a count no query set holds is an error.
#[test]
fn timed_steps_back_to_back_step_the_flock_as_step_n_does() {
    let Some(gpu) = gpu() else { return };
    let w = with_relations(world::<Vec2>(2000, 18.0, Boundary::Wrap, everything()));
    let digest = |f: &GpuFlock<Vec2>| {
        let mut out = w.clone();
        f.read_into(&mut out).unwrap();
        out.digest()
    };
    let mut plain = GpuFlock::new(&gpu, &w).unwrap();
    plain.step_n(12).unwrap();
    let mut timed = GpuFlock::new(&gpu, &w).unwrap();
    let times = timed.time_steps(4, 8).unwrap();
    assert_eq!(times.sorted_ms().len(), 8);
    assert!(
        times.sorted_ms().iter().all(|t| t.is_finite() && *t > 0.0),
        "{times:?}"
    );
    assert!(times.min_ms() <= times.median_ms());
    assert_eq!(digest(&timed), digest(&plain));
    // Counts a query set cannot hold are refused, and step nothing.
    for steps in [0, murmuration_gpu::MAX_TIMED_STEPS + 1] {
        let e = timed.time_steps(0, steps).unwrap_err().to_string();
        assert!(e.contains(&format!("timing {steps} steps")), "{e}");
    }
    assert_eq!(digest(&timed), digest(&plain));
}

#[test]
fn stats_count_the_same_neighbours_as_the_cpu() {
    let Some(gpu) = gpu() else { return };
    let mut w = murmuration::World::<Vec2>::benchmark(4000).unwrap();
    let mut f = GpuFlock::new(&gpu, &w).unwrap();
    f.step().unwrap();
    let g = f.last_stats().unwrap();
    let c = w.step().stats;
    assert_eq!(g.neighbours, c.neighbours, "neighbours");
    assert!(g.candidates >= g.neighbours && g.candidates > 0);
}

/// Mean polarization and mean nearest-neighbour distance over the second half of
/// `steps`, sampled every 50 steps.
fn long_run_metrics(w: &World<Vec2>, steps: u64, gpu: Option<&Gpu>) -> (f64, f64) {
    let mut w = w.clone();
    let mut flock = gpu.map(|g| GpuFlock::new(g, &w).unwrap());
    let (mut pol, mut nn, mut k) = (0.0, 0.0, 0.0);
    for s in (0..steps).step_by(50) {
        match &mut flock {
            Some(f) => {
                f.step_n(50).unwrap();
                f.read_into(&mut w).unwrap();
            }
            None => w.step_n(50),
        }
        if s >= steps / 2 {
            let m = w.metrics();
            pol += m.polarization;
            nn += m.mean_nn_distance;
            k += 1.0;
        }
    }
    (pol / k, nn / k)
}

#[test]
fn two_thousand_steps_agree_statistically() {
    // Trajectories diverge after a few hundred steps (the model is chaotic), so the
    // test compares the flock's statistics: mean polarization within 0.1 and mean
    // nearest-neighbour distance within 10% over steps 1,000–2,000, for two seeds.
    let Some(gpu) = gpu() else { return };
    for seed in [3, 4] {
        let mut cfg = WorldConfig::new(Vec2::splat(22.0), Boundary::Wrap);
        cfg.seed = seed;
        let p = SpeciesParams {
            jitter: 0.02,
            ..SpeciesParams::default()
        };
        let mut w = World::new(cfg, vec![p]).unwrap();
        w.spawn(Spawn::new(SpeciesId::FIRST, 500).speed(1.0))
            .unwrap();
        let (pc, nc) = long_run_metrics(&w, 2000, None);
        let (pg, ng) = long_run_metrics(&w, 2000, Some(&gpu));
        eprintln!(
            "seed {seed}: polarization cpu {pc:.3} gpu {pg:.3}; mean NN cpu {nc:.3} gpu {ng:.3}"
        );
        assert!((pc - pg).abs() < 0.1, "polarization {pc} vs {pg}");
        assert!((nc - ng).abs() < 0.1 * nc, "NN distance {nc} vs {ng}");
    }
}

#[test]
fn gpu_keys_jitter_by_the_world_step_when_continuing_a_run() {
    // Regression: the GPU step clock must start at the world's step index, or
    // jitter draws the wrong random numbers from the first GPU step on.
    let Some(gpu) = gpu() else { return };
    let p = SpeciesParams {
        jitter: 0.2,
        ..SpeciesParams::default()
    };
    let mut w = world::<Vec2>(800, 14.0, Boundary::Wrap, vec![p]);
    w.step_n(7);
    compare(&gpu, &w, 10, "jitter after 7 CPU steps");
}

#[test]
fn simulation_uploads_world_changes_between_gpu_steps() {
    use murmuration_gpu::{Backend, Simulation};
    let Some(gpu) = gpu() else { return };
    let w = world::<Vec2>(600, 12.0, Boundary::Wrap, vec![SpeciesParams::default()]);
    let mut cpu = w.clone();
    let mut sim = Simulation::with_gpu(w, Some(gpu), None).unwrap();
    assert!(sim.on_gpu());
    sim.step_n(5).unwrap();
    cpu.step_n(5);
    // Change the world between steps: more boids, a faster species.
    for world in [&mut cpu, sim.world_mut().unwrap()] {
        world
            .spawn(Spawn::new(SpeciesId::FIRST, 100).speed(1.0))
            .unwrap();
        let mut p = world.species()[0];
        p.max_speed = 4.0;
        world.set_species_params(SpeciesId::FIRST, p).unwrap();
    }
    sim.step_n(5).unwrap();
    cpu.step_n(5);
    let g = sim.into_world().unwrap();
    assert_eq!(g.len(), 700);
    assert_eq!(g.step_index(), 10);
    let worst = crate::common::position_errors(&cpu, &g)
        .into_iter()
        .fold(0.0f32, f32::max);
    assert!(worst < 1e-3, "worst position error {worst}");
    // Auto on a machine with this adapter picks the GPU; Cpu never does.
    let w = world::<Vec2>(10, 5.0, Boundary::Wrap, vec![SpeciesParams::default()]);
    assert!(!Simulation::new(w, Backend::Cpu).unwrap().on_gpu());
}

#[test]
fn more_fled_boids_than_the_gpu_lists_are_refused_by_name() {
    let Some(gpu) = gpu() else { return };
    let mut w = world::<Vec2>(40_000, 200.0, Boundary::Wrap, everything());
    w.set_relation(SpeciesId::FIRST, SpeciesId::new(1), Relation::Flee)
        .unwrap();
    let e = GpuFlock::new(&gpu, &w).err().expect("refused").to_string();
    assert!(
        e.contains(
            "20000 boids that others flee or follow, or that chase (the GPU lists at most 16384)"
        ),
        "{e}"
    );
}

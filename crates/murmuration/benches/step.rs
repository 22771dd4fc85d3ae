#![allow(missing_docs, reason = "criterion_group! generates undocumented items")]
//! Criterion views of a step on the standard benchmark workload (BENCHMARKS.md, "The standard workload"):
//! the grid build (counting sort), the steering pass alone, and the whole step.
//! `murmuration bench` remains the reference numbers.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use murmuration::Dimension;
use murmuration::World;
use murmuration::glam::{Vec2, Vec3};
use murmuration::{Extent, Grid};
use std::hint::black_box;
use std::time::Duration;

fn workload<V: Dimension>(n: u64) -> World<V> {
    let mut w = murmuration::World::<V>::benchmark(n).unwrap();
    w.step_n(5);
    w
}

fn grid_build<V: Dimension>(c: &mut Criterion, name: &str) {
    let mut g = c.benchmark_group(format!("grid_build_{name}"));
    g.sample_size(20);
    for n in [10_000u64, 100_000] {
        let w = workload::<V>(n);
        let cfg = *w.config();
        let mut grid = Grid::new();
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| {
                grid.build(
                    black_box(w.positions()),
                    1.0,
                    Extent::Periodic {
                        min: cfg.min,
                        max: cfg.max,
                    },
                )
            })
        });
    }
    g.finish();
}

fn step<V: Dimension>(c: &mut Criterion, name: &str) {
    let mut g = c.benchmark_group(format!("step_{name}"));
    g.sample_size(10);
    for n in [10_000u64, 100_000] {
        let mut w = workload::<V>(n);
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| w.step().stats)
        });
    }
    g.finish();
}

/// The steering pass alone (neighbour kernel, forces, integration), timed from the
/// step's own phase clock so the grid build and gather are excluded.
fn steering_pass<V: Dimension>(c: &mut Criterion, name: &str) {
    let mut g = c.benchmark_group(format!("steering_pass_{name}"));
    g.sample_size(10);
    for n in [10_000u64, 100_000] {
        let mut w = workload::<V>(n);
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter_custom(|iters| {
                let seconds: f64 = (0..iters).map(|_| w.step().stats.steer_seconds).sum();
                Duration::from_secs_f64(seconds)
            })
        });
    }
    g.finish();
}

fn benches(c: &mut Criterion) {
    grid_build::<Vec2>(c, "2d");
    grid_build::<Vec3>(c, "3d");
    steering_pass::<Vec2>(c, "2d");
    steering_pass::<Vec3>(c, "3d");
    step::<Vec2>(c, "2d");
    step::<Vec3>(c, "3d");
}

criterion_group!(all, benches);
criterion_main!(all);

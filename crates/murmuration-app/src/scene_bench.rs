//! `murmuration bench --scene PRESET [--set PATH=VALUE]...`: a shipped scene
//! (or any scenario file) timed as people run it, with the step's phases, so a
//! scene's cost is one command and its JSON row carries the scene's name.
//! Seed 002's fish: `bench --scene sharks-and-schools --set
//! species.school_a.count=25000 --set species.school_b.count=25000`.

use crate::out::outln;
use crate::presets;
use crate::timing::{median, percentile, thread_counts};
use anyhow::{Context, Result, bail};
use murmuration::Dimension;
use murmuration::scenario::{AnyWorld, Override};
use serde::Serialize;
use std::time::Instant;

/// One scene at one thread count; the field names are the `--json` contract.
#[derive(Debug, Serialize)]
struct SceneRow {
    scene: String,
    /// The `--set` overrides, as given.
    set: Vec<String>,
    dim: usize,
    n: usize,
    threads: usize,
    warmup: u64,
    steps: u64,
    median_ms: f64,
    min_ms: f64,
    p95_ms: f64,
    steps_per_s: f64,
    ns_per_boid_step: f64,
    /// Medians of the step's phases: the grid build, the gather into cell
    /// order, the neighbour sums with steering and integration, and the rest
    /// (behaviours, relations, zones, bookkeeping: the step minus the three).
    grid_ms: f64,
    gather_ms: f64,
    steer_ms: f64,
    other_ms: f64,
    neighbours: f64,
    candidates: f64,
    kernel_lanes: usize,
}

/// Times `scene` with `set` on each thread count: `warmup` steps, then `steps`
/// steps each timed alone.
pub fn run(
    scene: &str,
    set: &[Override],
    threads: Option<usize>,
    warmup: u64,
    steps: u64,
    json: bool,
) -> Result<()> {
    if steps == 0 {
        bail!("--steps 0 measures nothing: must be at least 1");
    }
    let scenario = presets::load(Some(scene), set)?;
    if !json {
        outln!(
            "{:>8} {:>7} {:>10} {:>10} {:>10} {:>11} {:>9} {:>9} {:>9} {:>9} {:>9}",
            "n",
            "threads",
            "median_ms",
            "p95_ms",
            "steps/s",
            "ns/boid-stp",
            "grid_ms",
            "gather_ms",
            "steer_ms",
            "other_ms",
            "nbrs"
        )?;
    }
    for t in thread_counts(threads) {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .context("could not start the worker threads")?;
        let row = pool.install(|| -> Result<SceneRow> {
            let mut row = match scenario.build()? {
                AnyWorld::D2(w) => measure(w, warmup, steps),
                AnyWorld::D3(w) => measure(w, warmup, steps),
            };
            row.scene = scene.to_string();
            row.set = set.iter().map(|o| o.to_string()).collect();
            row.threads = t;
            Ok(row)
        })?;
        if json {
            outln!("{}", serde_json::to_string(&row)?)?;
        } else {
            outln!(
                "{:>8} {:>7} {:>10.3} {:>10.3} {:>10.1} {:>11.1} {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>9.2}",
                row.n,
                row.threads,
                row.median_ms,
                row.p95_ms,
                row.steps_per_s,
                row.ns_per_boid_step,
                row.grid_ms,
                row.gather_ms,
                row.steer_ms,
                row.other_ms,
                row.neighbours
            )?;
        }
    }
    Ok(())
}

fn measure<V: Dimension>(mut w: murmuration::World<V>, warmup: u64, steps: u64) -> SceneRow {
    w.step_n(warmup);
    let n = w.len();
    let mut all = Vec::with_capacity(steps as usize);
    let (mut grid, mut gather, mut steer, mut other) = (vec![], vec![], vec![], vec![]);
    let (mut nbrs, mut cands, mut boids) = (0u64, 0u64, 0u64);
    for _ in 0..steps {
        let t = Instant::now();
        let st = w.step().stats;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        all.push(ms);
        grid.push(st.grid_seconds * 1e3);
        gather.push(st.gather_seconds * 1e3);
        steer.push(st.steer_seconds * 1e3);
        other.push(ms - (st.grid_seconds + st.gather_seconds + st.steer_seconds) * 1e3);
        nbrs += st.neighbours;
        cands += st.candidates;
        boids += st.boids;
    }
    let med = median(&mut all);
    SceneRow {
        scene: String::new(),
        set: Vec::new(),
        dim: V::DIM,
        n,
        threads: 0,
        warmup,
        steps,
        median_ms: med,
        min_ms: all[0],
        p95_ms: percentile(&all, 95),
        steps_per_s: 1e3 / med,
        ns_per_boid_step: med * 1e6 / n.max(1) as f64,
        grid_ms: median(&mut grid),
        gather_ms: median(&mut gather),
        steer_ms: median(&mut steer),
        other_ms: median(&mut other),
        neighbours: nbrs as f64 / boids.max(1) as f64,
        candidates: cands as f64 / boids.max(1) as f64,
        kernel_lanes: murmuration::kernel_lanes(),
    }
}

//! `murmuration bench`: the standard flock benchmark of BENCHMARKS.md, "The standard workload".
//!
//! Workload: one species (perception 1.0, separation 0.4, weights 1.5/1.0/0.8, max
//! speed 1, max force 2, dt 1/60, fov 360°, no jitter, weighted sum) in a periodic
//! box at 6.4 boids/unit² (2D) or 4.8 boids/unit³ (3D); uniform positions and
//! headings at max speed, seed 1. The `--json` fields are a contract.

use crate::backend::{self, Backend};
use crate::out::outln;
use crate::timing::{median, thread_counts};
use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use murmuration::Dimension;
use murmuration::ModelKind;
use murmuration::glam::{Vec2, Vec3};
use murmuration::memory;
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// Options of `murmuration bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Dimension (2 or 3); both when omitted.
    #[arg(long, value_parser = clap::value_parser!(u8).range(2..=3))]
    dim: Option<u8>,
    /// Boid counts, comma-separated (default 1000,10000,100000,1000000; 3D stops at
    /// 100000 on the CPU; the GPU adds 10000000 in both dimensions).
    #[arg(long, value_delimiter = ',')]
    n: Vec<u64>,
    /// Phase; both when omitted.
    #[arg(long, value_enum)]
    phase: Option<Phase>,
    /// Worker threads; when omitted, all cores and then one thread.
    #[arg(long)]
    threads: Option<usize>,
    /// Backend: cpu, gpu, or auto (the GPU when an adapter opens, else the CPU).
    /// GPU rows queue the timed steps back to back and time each with GPU
    /// timestamps where the device has them (else wall time to an idle device),
    /// as `gpu_phases` does; their neighbour counts are the last timed step's;
    /// `bytes_per_boid` is GPU buffer memory.
    #[arg(long, default_value_t = Backend::Cpu, value_name = "cpu|gpu|auto")]
    backend: Backend,
    /// One JSON object per line instead of a table.
    #[arg(long)]
    json: bool,
    /// The model the benchmark world's species moves by: reynolds (the
    /// standard workload), vicsek, couzin, dorsogna or abm-flocking, each scaled
    /// to the same interaction range (1) and speed (1) in the same box (CPU only;
    /// vicsek and abm-flocking are 2D models).
    #[arg(long, default_value = "reynolds", value_parser = parse_model, value_name = "MODEL")]
    model: ModelKind,
    /// The world: `standard` (BENCHMARKS.md, "The standard workload"), or `oap`, the standard world
    /// with behaviours — 10 obstacles, 3 attractors and 2 predator species of 50
    /// that the prey flee and that chase and eat them (BENCHMARKS.md's `oap`).
    #[arg(long, value_enum, default_value_t = Workload::Standard)]
    workload: Workload,
    /// Time a full game step instead: LEVEL's recorded solution replayed, every
    /// step timed (the flock, hunters, plates, gates, exit and the player's input).
    #[arg(long, value_name = "LEVEL", conflicts_with_all = ["dim", "n", "phase", "backend"])]
    level: Option<String>,
    /// With --level: time whole frames instead (a step, the scene's update and
    /// an offscreen render of WIDTHxHEIGHT read back: an upper bound on the
    /// window's frame, which presents instead of reading back).
    #[arg(long, value_name = "WIDTHxHEIGHT", requires = "level", value_parser = crate::render::parse_size)]
    render: Option<(u32, u32)>,
    /// With --render: frames timed (one game step each), from the level's start.
    #[arg(long, default_value_t = 600, requires = "render")]
    frames: u32,
    /// With --level: time only the first N steps (while the whole swarm flies;
    /// a recording's last minutes may hold a few stragglers), instead of every
    /// step to the level's end. The replay is then not checked against its end.
    #[arg(long, value_name = "N", conflicts_with = "render")]
    steps: Option<u64>,
    /// Time a scene as people run it: a shipped preset or scenario file with
    /// its own species, relations and behaviours (`--set` changes it), the
    /// step's phases beside the whole (`--steps` measured, 200 by default).
    #[arg(long, value_name = "PRESET|FILE", conflicts_with_all = ["dim", "n", "phase", "backend", "level", "model", "workload"])]
    scene: Option<String>,
    /// With --scene: change a scenario value (repeatable).
    #[arg(long = "set", value_name = "PATH=VALUE", requires = "scene")]
    set: Vec<murmuration::scenario::Override>,
    /// With --scene: steps run before the timing starts.
    #[arg(long, default_value_t = 100, requires = "scene")]
    warmup: u64,
}

fn parse_model(s: &str) -> Result<ModelKind, String> {
    ModelKind::parse(s)
        .ok_or_else(|| format!("{s:?} is not a model (one of: {})", ModelKind::names()))
}

fn is_reynolds(m: &str) -> bool {
    m == "reynolds"
}

fn reynolds() -> String {
    "reynolds".into()
}

/// Which world `bench` times.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Workload {
    /// The standard workload (BENCHMARKS.md, "The standard workload").
    #[default]
    Standard,
    /// The standard world with obstacles, attractors and predators.
    Oap,
}

impl Workload {
    fn is_standard(&self) -> bool {
        *self == Workload::Standard
    }

    fn world<V: Dimension>(self, n: u64, model: ModelKind) -> Result<murmuration::World<V>> {
        Ok(match self {
            Workload::Standard => murmuration::World::<V>::benchmark_model(n, model)?,
            Workload::Oap => murmuration::World::<V>::benchmark_behaviours(n, "oap")?,
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Phase {
    /// 5 warm-up steps from the initial state, then 30 measured (1,000,000: 10).
    Uniform,
    /// 300 warm-up steps, then 30 measured (1,000,000: 10).
    Flocked,
}

/// One result row; the field names are the `--json` contract.
#[derive(Debug, Serialize, Deserialize)]
struct Row {
    /// The model (absent: reynolds, the standard workload).
    #[serde(default = "reynolds", skip_serializing_if = "is_reynolds")]
    model: String,
    /// The world (absent: standard).
    #[serde(default, skip_serializing_if = "Workload::is_standard")]
    workload: Workload,
    dim: u8,
    n: u64,
    phase: Phase,
    backend: Backend,
    threads: usize,
    median_ms: f64,
    min_ms: f64,
    ns_per_boid_step: f64,
    neighbours: f64,
    candidates: f64,
    bytes_per_boid: f64,
    /// GPU adapter name (GPU rows only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    device: Option<String>,
    /// Candidates the CPU neighbour kernel scans at a time: 16 with AVX-512,
    /// else 8 (CPU rows only; both give the same bits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    kernel_lanes: Option<usize>,
    /// Medians of the step's phases, ms, as `bench --scene` names them: the
    /// grid build, the gather into cell order, and the neighbour sums with
    /// steering and integration (CPU rows of the models the pipeline steps:
    /// Reynolds and Vicsek): which phase stops scaling as threads are added.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    grid_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    gather_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    steer_ms: Option<f64>,
}

/// Runs the benchmark table.
pub fn run(args: &BenchArgs) -> Result<()> {
    if args.threads == Some(0) {
        bail!("--threads 0 is out of range: must be at least 1");
    }
    if let Some(scene) = &args.scene {
        return crate::scene_bench::run(
            scene,
            &args.set,
            args.threads,
            args.warmup,
            args.steps.unwrap_or(200),
            args.json,
        );
    }
    if args.steps.is_some() && args.level.is_none() {
        bail!("--steps times a --level or a --scene");
    }
    if let Some(level) = &args.level {
        if let Some(size) = args.render {
            return crate::game::bench::frames(level, size, args.frames, args.json);
        }
        return crate::game::bench::run(level, args.threads, args.steps, args.json);
    }
    check_args(args)?;
    let two_d_only = matches!(args.model, ModelKind::Vicsek | ModelKind::AbmFlocking);
    let dims: Vec<u8> = match args.dim {
        Some(d) => vec![d],
        None if two_d_only => vec![2],
        None => vec![2, 3],
    };
    let phases: Vec<Phase> = args
        .phase
        .map_or(vec![Phase::Uniform, Phase::Flocked], |p| vec![p]);
    let gpu = backend::open(args.backend)?;
    let threads = thread_counts(args.threads);
    if !args.json {
        print_header(gpu.is_none())?;
    }
    // Each configuration runs in its own process so its peak resident memory is
    // its own (memory freed by an earlier, larger run is not returned to the OS by
    // the allocator); the child (CHILD_ENV set) measures in its own process.
    let single = std::env::var_os(CHILD_ENV).is_some();
    for &dim in &dims {
        let sizes: Vec<u64> = if args.n.is_empty() {
            if gpu.is_some() {
                vec![1_000, 10_000, 100_000, 1_000_000, 10_000_000]
            } else if dim == 2 {
                vec![1_000, 10_000, 100_000, 1_000_000]
            } else {
                vec![1_000, 10_000, 100_000]
            }
        } else {
            args.n.clone()
        };
        for &n in &sizes {
            for &phase in &phases {
                if let Some(g) = &gpu {
                    let row = if dim == 2 {
                        measure_gpu::<Vec2>(g, n, phase, args.workload)?
                    } else {
                        measure_gpu::<Vec3>(g, n, phase, args.workload)?
                    };
                    print_row(&row, args.json)?;
                    continue;
                }
                for &t in &threads {
                    let at = (dim, n, phase, t);
                    let row = if single {
                        measure_here(at, args.model, args.workload)?
                    } else {
                        measure_in_child(at, args.model, args.workload)?
                    };
                    print_row(&row, args.json)?;
                }
            }
        }
    }
    Ok(())
}

/// The options that do not go together, or out of range.
fn check_args(args: &BenchArgs) -> Result<()> {
    if let Some(&n) = args
        .n
        .iter()
        .find(|&&n| n == 0 || n > murmuration::MAX_BOIDS)
    {
        bail!(
            "--n {n} is out of range: must be in [1, {}]",
            murmuration::MAX_BOIDS
        );
    }
    let two_d_only = matches!(args.model, ModelKind::Vicsek | ModelKind::AbmFlocking);
    if two_d_only && args.dim == Some(3) {
        bail!("--model {} is a 2D model: use --dim 2", args.model.name());
    }
    if args.model != ModelKind::Reynolds && args.workload != Workload::Standard {
        bail!(
            "--model {} runs the standard world only: drop --workload",
            args.model.name()
        );
    }
    if args.model != ModelKind::Reynolds && args.backend != Backend::Cpu {
        bail!(
            "--model {} steps on the CPU only: drop --backend",
            args.model.name()
        );
    }
    Ok(())
}

/// The table's header (and, on the CPU, the kernel's lane count on stderr).
fn print_header(cpu: bool) -> Result<()> {
    if cpu {
        // On stderr: stdout stays exactly the header and one row per
        // configuration, for scripts that read the table.
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "CPU neighbour kernel: {} lanes ({}=8 selects 8; both give the same bits)",
            murmuration::kernel_lanes(),
            murmuration::KERNEL_LANES_ENV,
        );
    }
    outln!(
        "{:>3} {:>9} {:>8} {:>7} {:>7} {:>10} {:>10} {:>12} {:>10} {:>10} {:>8}",
        "dim",
        "n",
        "phase",
        "backend",
        "threads",
        "median_ms",
        "min_ms",
        "ns/boid-step",
        "neighbours",
        "candidates",
        "B/boid"
    )?;
    Ok(())
}

/// Set in the environment of the child process that measures one configuration.
const CHILD_ENV: &str = "MURMURATION_BENCH_CHILD";

/// One configuration: dimension, boids, phase, threads.
type Config = (u8, u64, Phase, usize);

fn measure_here(
    (dim, n, phase, threads): Config,
    model: ModelKind,
    workload: Workload,
) -> Result<Row> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("could not start the worker threads")?;
    pool.install(|| {
        if dim == 2 {
            measure::<Vec2>(n, phase, threads, model, workload)
        } else {
            measure::<Vec3>(n, phase, threads, model, workload)
        }
    })
}

fn measure_in_child(
    (dim, n, phase, threads): Config,
    model: ModelKind,
    workload: Workload,
) -> Result<Row> {
    let exe = std::env::current_exe().context("cannot find the murmuration executable")?;
    let phase_name = format!("{phase:?}").to_lowercase();
    let out = std::process::Command::new(exe)
        .args([
            "bench",
            "--json",
            "--dim",
            &dim.to_string(),
            "--n",
            &n.to_string(),
        ])
        .args(["--phase", &phase_name, "--threads", &threads.to_string()])
        .args(["--model", model.name()])
        .args(["--workload", workload_name(workload)])
        .env(CHILD_ENV, "1")
        .output()
        .context("could not start a benchmark process")?;
    if !out.status.success() {
        bail!(
            "benchmark process for dim {dim}, n {n} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().last().unwrap_or_default();
    serde_json::from_str(line).with_context(|| format!("unreadable benchmark row: {line:?}"))
}

fn workload_name(w: Workload) -> &'static str {
    match w {
        Workload::Standard => "standard",
        Workload::Oap => "oap",
    }
}

fn measure<V: Dimension>(
    n: u64,
    phase: Phase,
    threads: usize,
    model: ModelKind,
    workload: Workload,
) -> Result<Row> {
    memory::reset_peak();
    let mut world = workload.world::<V>(n, model)?;
    let (warmup, measured) = phase_steps(n, phase);
    world.step_n(warmup);
    let mut times = Vec::with_capacity(measured);
    let mut parts: [Vec<f64>; 3] = std::array::from_fn(|_| Vec::with_capacity(measured));
    let (mut neighbours, mut candidates) = (0u64, 0u64);
    for _ in 0..measured {
        let t = Instant::now();
        let stats = world.step().stats;
        times.push(t.elapsed().as_secs_f64() * 1e3);
        neighbours += stats.neighbours;
        candidates += stats.candidates;
        let seconds = [
            stats.grid_seconds,
            stats.gather_seconds,
            stats.steer_seconds,
        ];
        for (part, s) in parts.iter_mut().zip(seconds) {
            part.push(s * 1e3);
        }
    }
    let peak = memory::peak_bytes().unwrap_or(0);
    let [grid, gather, steer] = parts.map(|mut p| median(&mut p));
    // The research models' own steps do not time their phases (all zero).
    let timed = grid + gather + steer > 0.0;
    let median = median(&mut times);
    let per = (n * measured as u64) as f64;
    Ok(Row {
        model: model.name().into(),
        workload,
        dim: V::DIM as u8,
        n,
        phase,
        backend: Backend::Cpu,
        threads,
        median_ms: median,
        min_ms: times[0],
        ns_per_boid_step: median * 1e6 / n as f64,
        neighbours: neighbours as f64 / per,
        candidates: candidates as f64 / per,
        bytes_per_boid: peak as f64 / n as f64,
        device: None,
        kernel_lanes: Some(murmuration::kernel_lanes()),
        grid_ms: timed.then_some(grid),
        gather_ms: timed.then_some(gather),
        steer_ms: timed.then_some(steer),
    })
}

fn phase_steps(n: u64, phase: Phase) -> (u64, usize) {
    let warmup = match phase {
        Phase::Uniform => 5,
        Phase::Flocked => 300,
    };
    (warmup, if n >= 1_000_000 { 10 } else { 30 })
}

fn measure_gpu<V: murmuration_gpu::GpuVector>(
    gpu: &murmuration_gpu::Gpu,
    n: u64,
    phase: Phase,
    workload: Workload,
) -> Result<Row> {
    let world = workload.world::<V>(n, ModelKind::Reynolds)?;
    let mut flock = murmuration_gpu::GpuFlock::new(gpu, &world)?;
    drop(world);
    let (warmup, measured) = phase_steps(n, phase);
    // Steps queued back to back, as the pass profiler `gpu_phases` times them
    // (murmuration_gpu's timing.rs): no wait or read-back between timed steps.
    let times = flock.time_steps(warmup, measured as u32)?;
    // The counters of the last timed step, read after the timing.
    let s = flock.last_stats()?;
    let (med, per) = (times.median_ms(), n as f64);
    Ok(Row {
        model: reynolds(),
        workload,
        dim: V::DIM as u8,
        n,
        phase,
        backend: Backend::Gpu,
        threads: 1,
        median_ms: med,
        min_ms: times.min_ms(),
        ns_per_boid_step: med * 1e6 / n as f64,
        neighbours: s.neighbours as f64 / per,
        candidates: s.candidates as f64 / per,
        bytes_per_boid: flock.device_bytes() as f64 / n as f64,
        device: Some(gpu.name()),
        kernel_lanes: None,
        grid_ms: None,
        gather_ms: None,
        steer_ms: None,
    })
}

fn print_row(r: &Row, json: bool) -> Result<()> {
    if json {
        outln!("{}", serde_json::to_string(r)?)?;
    } else {
        let phase = format!("{:?}", r.phase).to_lowercase();
        let backend = format!("{:?}", r.backend).to_lowercase();
        outln!(
            "{:>3} {:>9} {:>8} {:>7} {:>7} {:>10.3} {:>10.3} {:>12.1} {:>10.2} {:>10.2} {:>8.1}",
            r.dim,
            r.n,
            phase,
            backend,
            r.threads,
            r.median_ms,
            r.min_ms,
            r.ns_per_boid_step,
            r.neighbours,
            r.candidates,
            r.bytes_per_boid
        )?;
    }
    Ok(())
}

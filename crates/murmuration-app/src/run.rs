//! `murmuration run [FILE]`: a headless run of a scenario (the embedded default
//! when none is given) with a progress bar, metrics and trajectory files,
//! snapshots and a summary ending in the state digest.

use crate::backend::{self, Backend};
use crate::failure::{Interrupted, invalid};
use crate::out::outln;
use crate::outputs::{self, MetricsCsv, Trajectory};
use crate::{presets, progress};
use anyhow::{Context, Result};
use clap::Args;
use murmuration::scenario::{AnyWorld, Expectations, Override};
use murmuration::{Boundary, SnapshotError, World, World2, World3};
use murmuration_gpu::{GpuVector, Simulation};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Options of `murmuration run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Scenario file, or the name of a shipped preset (`murmuration presets`).
    /// Without one, the embedded default scenario runs.
    #[arg(conflicts_with = "resume")]
    pub file: Option<String>,
    /// Steps to run (default: the scenario's `steps`, else 1000).
    #[arg(long, conflicts_with = "until")]
    pub steps: Option<u64>,
    /// Run until the world's step count reaches STEP (a resumed run finishes
    /// where the killed one meant to).
    #[arg(long, value_name = "STEP")]
    pub until: Option<u64>,
    /// Random seed (overrides the scenario's world.seed).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Change a scenario value: `--set species.fish.max_speed=2.5` (repeatable).
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub set: Vec<Override>,
    /// Worker threads (default: all cores). Results are the same on any count.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Engine: cpu, gpu, or auto (the GPU when one opens). GPU results agree with
    /// the CPU within float rounding, so the digest differs between backends.
    #[arg(long, default_value_t = Backend::Cpu, value_name = "cpu|gpu|auto")]
    pub backend: Backend,
    /// Write metrics per step to this CSV file.
    #[arg(long, value_name = "FILE.csv")]
    pub metrics: Option<PathBuf>,
    /// Write a metrics row every K steps.
    #[arg(long, value_name = "K", default_value_t = 1)]
    pub metrics_every: u64,
    /// Write positions to this file: .npy ([frames, boids, dim] float32) or .csv.
    #[arg(long, value_name = "FILE.npy|FILE.csv")]
    pub trajectory: Option<PathBuf>,
    /// Write a trajectory frame every K steps (the first frame is the start).
    #[arg(long, value_name = "K", default_value_t = 1)]
    pub every: u64,
    /// Save the final state to this snapshot file.
    #[arg(long, value_name = "FILE.snap")]
    pub snapshot: Option<PathBuf>,
    /// Continue from this snapshot for --steps more steps (instead of a
    /// scenario). With --checkpoint-every, a --metrics or --trajectory file that
    /// a checkpointed run left is continued: its rows up to the snapshot's step
    /// are kept.
    #[arg(long, value_name = "FILE.snap")]
    pub resume: Option<PathBuf>,
    /// Every K steps (of the world's step count) publish a checkpoint: the
    /// --snapshot and the tables so far, each replaced atomically, so a run
    /// killed outright (kill -9, the OOM killer) loses at most K steps and
    /// `--resume SNAPSHOT --until STEP` finishes it bit for bit.
    #[arg(long, value_name = "K", requires = "snapshot")]
    pub checkpoint_every: Option<u64>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

impl Default for RunArgs {
    fn default() -> Self {
        Self {
            file: None,
            steps: None,
            until: None,
            seed: None,
            set: Vec::new(),
            threads: None,
            backend: Backend::Cpu,
            metrics: None,
            metrics_every: 1,
            trajectory: None,
            every: 1,
            snapshot: None,
            resume: None,
            checkpoint_every: None,
            quiet: false,
        }
    }
}

/// Builds the thread pool `--threads` asks for.
pub fn thread_pool(threads: Option<usize>) -> Result<rayon::ThreadPool> {
    if threads == Some(0) {
        return Err(invalid("--threads 0 is out of range: must be at least 1"));
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
        .context("could not start the worker threads")
}

/// Reads a snapshot of either dimension.
pub fn load_snapshot(path: &Path) -> Result<AnyWorld> {
    match World2::load_snapshot(path) {
        Ok(w) => Ok(AnyWorld::D2(w)),
        Err(SnapshotError::DimensionMismatch { .. }) => {
            Ok(AnyWorld::D3(World3::load_snapshot(path)?))
        }
        Err(e) => Err(e.into()),
    }
}

/// Runs `murmuration run`.
pub fn run(args: &RunArgs) -> Result<()> {
    for (name, k) in [
        ("--every", args.every),
        ("--metrics-every", args.metrics_every),
        ("--checkpoint-every", args.checkpoint_every.unwrap_or(1)),
    ] {
        if k == 0 {
            return Err(invalid(format!(
                "{name} 0 is out of range: must be at least 1"
            )));
        }
    }
    if args.resume.is_some() && (args.seed.is_some() || !args.set.is_empty()) {
        return Err(invalid(
            "--seed and --set change a scenario; a resumed snapshot keeps its own parameters",
        ));
    }
    let pool = thread_pool(args.threads)?;
    if let Some(p) = &args.trajectory {
        outputs::TrajectoryFormat::of(p)?;
    }
    let named: Vec<(&str, &Path)> = [
        ("--metrics", &args.metrics),
        ("--trajectory", &args.trajectory),
        ("--snapshot", &args.snapshot),
    ]
    .into_iter()
    .filter_map(|(what, p)| p.as_deref().map(|p| (what, p)))
    .collect();
    // The snapshot may replace the one it resumed from (it was read first); no
    // other output may.
    let mut files = named.clone();
    if let Some(r) = &args.resume {
        files.retain(|(what, _)| *what != "--snapshot");
        files.push(("--resume", r));
    }
    outputs::distinct(&files)?;
    for (what, p) in named {
        outputs::probe(p, what)?;
    }
    let (world, label, steps, expect) = match &args.resume {
        Some(snap) => {
            let world = load_snapshot(snap)
                .with_context(|| format!("cannot resume from {}", snap.display()))?;
            let step = match &world {
                AnyWorld::D2(w) => w.step_index(),
                AnyWorld::D3(w) => w.step_index(),
            };
            let label = format!("snapshot {} at step {step}", snap.display());
            (world, label, steps_from(args, step, None)?, None)
        }
        None => {
            let s = presets::load_seeded(args.file.as_deref(), args.seed, &args.set)?;
            let label = presets::label(&s);
            let steps = steps_from(args, 0, s.steps())?;
            let expect = s.expectations().cloned();
            (pool.install(|| s.build())?, label, steps, expect)
        }
    };
    let expect = expect.as_ref();
    match world {
        AnyWorld::D2(w) => run_world(w, args, &label, steps, expect, &pool),
        AnyWorld::D3(w) => run_world(w, args, &label, steps, expect, &pool),
    }
}

/// The steps to run from step `at`: `--until`'s remainder, `--steps`, the
/// scenario's own, else 1000.
fn steps_from(args: &RunArgs, at: u64, own: Option<u64>) -> Result<u64> {
    match args.until {
        Some(u) if u < at => Err(invalid(format!(
            "--until {u} is behind the snapshot, which is at step {at}"
        ))),
        Some(u) => Ok(u - at),
        None => Ok(args.steps.or(own).unwrap_or(1000)),
    }
}

fn run_world<V: GpuVector>(
    world: World<V>,
    args: &RunArgs,
    label: &str,
    steps: u64,
    expect: Option<&Expectations>,
    pool: &rayon::ThreadPool,
) -> Result<()> {
    let gpu = backend::open_for(args.backend, &world)?;
    let engine = match &gpu {
        Some(g) => format!("GPU {}", g.name()),
        None => format!("{} threads", pool.current_num_threads()),
    };
    outln!(
        "scenario: {label} ({}D, {} boids, {} species, {} boundary, seed {}), {steps} steps on {engine}",
        V::DIM,
        world.len(),
        world.species().len(),
        boundary_text(world.config().boundary),
        world.config().seed,
    )?;
    let start_step = world.step_index();
    // Outputs fall due every K steps of this run; with checkpoints, every K of
    // the world's step count, so a resumed run samples where the killed one
    // would have.
    let clock = if args.checkpoint_every.is_some() {
        start_step
    } else {
        0
    };
    let mut outputs = Outputs::open(args, &world, pool)?;
    let mut sim = Simulation::with_gpu(world, gpu, None)?;
    progress::catch_ctrl_c();
    let bar = progress::bar(steps, "steps", args.quiet);
    let start = Instant::now();
    let mut done = 0u64;
    let mut interrupted = false;
    // On the GPU, steps run in batches between outputs; on the CPU one at a time,
    // so Ctrl-C is answered within a step.
    let batch = if sim.on_gpu() { 64 } else { 1 };
    while done < steps {
        if progress::stop_requested() {
            interrupted = true;
            break;
        }
        let k = outputs.steps_to_next((steps - done).min(batch), clock + done);
        pool.install(|| sim.step_n(k))?;
        done += k;
        bar.inc(k);
        outputs.record(clock + done, &mut sim, pool)?;
        if let (Some(every), Some(snap)) = (args.checkpoint_every, &args.snapshot)
            && (start_step + done).is_multiple_of(every)
        {
            outputs.publish()?;
            sim.world()?
                .save_snapshot(snap)
                .with_context(|| format!("cannot write the checkpoint {}", snap.display()))?;
        }
    }
    bar.finish_and_clear();
    let world = sim.into_world()?;
    let wall = start.elapsed().as_secs_f64();
    outputs.finish()?;
    if let Some(p) = &args.snapshot {
        world
            .save_snapshot(p)
            .with_context(|| format!("cannot write --snapshot {}", p.display()))?;
    }
    summary(&world, done, wall, expect, pool)?;
    if interrupted {
        eprintln!(
            "interrupted after {done} of {steps} steps: the outputs hold everything up to step {}",
            world.step_index()
        );
        return Err(Interrupted.into());
    }
    Ok(())
}

/// The boundary as the run's first line names it.
fn boundary_text(b: Boundary) -> String {
    match b {
        Boundary::Wrap => "periodic".to_string(),
        Boundary::Reflect => "reflecting".to_string(),
        Boundary::Unbounded => "unbounded".to_string(),
        Boundary::Soft { margin, strength } => {
            format!("soft (margin {margin}, strength {strength})")
        }
        Boundary::Roost { margin, strength } => {
            format!("roost (margin {margin}, strength {strength})")
        }
    }
}

/// The files a run writes while it steps: the metrics CSV every
/// `--metrics-every` steps and the trajectory every `--every`.
struct Outputs<'a> {
    args: &'a RunArgs,
    metrics: Option<MetricsCsv>,
    trajectory: Option<Trajectory>,
}

impl<'a> Outputs<'a> {
    /// Opens the outputs asked for and writes their first row: the start.
    fn open<V: GpuVector>(
        args: &'a RunArgs,
        world: &World<V>,
        pool: &rayon::ThreadPool,
    ) -> Result<Self> {
        // Only a checkpointed --resume continues the files a checkpointed run
        // left (their rows up to the snapshot's step); otherwise, or where
        // there is no file, a new file starts with the start.
        let step = world.step_index();
        let resuming = args.resume.is_some() && args.checkpoint_every.is_some();
        let k = args.checkpoint_every.unwrap_or(1);
        let mut metrics = None;
        let mut trajectory = None;
        let (mut fresh_metrics, mut fresh_trajectory) = (false, false);
        if let Some(p) = &args.metrics {
            let zones = world.zones().len();
            metrics = match resuming {
                true => MetricsCsv::resume(p, zones, step, args.metrics_every)?,
                false => None,
            };
            if metrics.is_none() {
                metrics = Some(MetricsCsv::create(p, zones)?);
                fresh_metrics = true;
            }
        }
        if let Some(p) = &args.trajectory {
            trajectory = match resuming {
                true => Trajectory::resume(p, V::DIM, step, args.every, k)?,
                false => None,
            };
            if trajectory.is_none() {
                let width = world.boids().next_id() as usize;
                trajectory = Some(Trajectory::create(p, width, V::DIM)?);
                fresh_trajectory = true;
            }
        }
        pool.install(|| -> Result<()> {
            if let Some(m) = metrics.as_mut().filter(|_| fresh_metrics) {
                m.row(world)?;
            }
            if let Some(t) = trajectory.as_mut().filter(|_| fresh_trajectory) {
                t.frame(world)?;
            }
            Ok(())
        })?;
        Ok(Self {
            args,
            metrics,
            trajectory,
        })
    }

    /// At most `k` steps from the world's step `done`, stopping at the next
    /// output or checkpoint.
    fn steps_to_next(&self, mut k: u64, done: u64) -> u64 {
        for every in [
            self.metrics.as_ref().map(|_| self.args.metrics_every),
            self.trajectory.as_ref().map(|_| self.args.every),
            self.args.checkpoint_every,
        ]
        .into_iter()
        .flatten()
        {
            k = k.min(every - done % every);
        }
        k
    }

    /// A checkpoint: every file so far published at its destination.
    fn publish(&mut self) -> Result<()> {
        if let Some(m) = &mut self.metrics {
            m.publish()?;
        }
        if let Some(t) = &mut self.trajectory {
            t.publish()?;
        }
        Ok(())
    }

    /// Writes what is due after the world's step `done`.
    fn record<V: GpuVector>(
        &mut self,
        done: u64,
        sim: &mut Simulation<V>,
        pool: &rayon::ThreadPool,
    ) -> Result<()> {
        if let Some(m) = &mut self.metrics
            && done.is_multiple_of(self.args.metrics_every)
        {
            let w = sim.world()?;
            pool.install(|| m.row(w))?;
        }
        if let Some(t) = &mut self.trajectory
            && done.is_multiple_of(self.args.every)
        {
            t.frame(sim.world()?)?;
        }
        Ok(())
    }

    /// Completes every file (each written whole, or not at all).
    fn finish(self) -> Result<()> {
        if let Some(m) = self.metrics {
            m.finish()?;
        }
        if let Some(t) = self.trajectory {
            t.finish()?;
        }
        Ok(())
    }
}

/// The run's summary: steps, time, every metric, the zones, the scenario's own
/// bands once its transient is over, and the digest.
fn summary<V: GpuVector>(
    world: &World<V>,
    done: u64,
    wall: f64,
    expect: Option<&Expectations>,
    pool: &rayon::ThreadPool,
) -> Result<()> {
    let m = pool.install(|| world.metrics());
    outln!("steps: {done}")?;
    outln!("wall_s: {wall:.3}")?;
    outln!("steps_per_s: {:.1}", done as f64 / wall.max(1e-9))?;
    for (name, value) in m.scalars() {
        outln!("{name}: {}", metric_text(value))?;
    }
    for (i, z) in world.zones().iter().enumerate() {
        outln!("zone_{i}: {}", z.count())?;
    }
    if let Some(e) = expect
        && world.step_index() >= e.after
    {
        let verdicts = e.check(&m.scalars());
        let held = verdicts.iter().filter(|v| v.holds()).count();
        outln!("expect: {held} of {} bands hold", verdicts.len())?;
        for v in verdicts.iter().filter(|v| !v.holds()) {
            let b = v.band;
            outln!(
                "expect_missed: {} = {}, outside [{}, {}]",
                b.metric,
                metric_text(v.value),
                b.min,
                b.max
            )?;
        }
    }
    outln!("digest: {:016x}", world.digest())?;
    Ok(())
}

/// A metric as people write it: whole numbers without decimals (`count: 400`),
/// others to six decimals without trailing zeros (`0.5`, `0.912345`).
fn metric_text(v: f64) -> String {
    if v.is_finite() && v == v.trunc() && v.abs() < 1e15 {
        return format!("{v:.0}");
    }
    let s = format!("{v:.6}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod metric_text_tests {
    use super::metric_text;

    #[test]
    fn metrics_print_as_people_write_them() {
        assert_eq!(metric_text(400.0), "400");
        assert_eq!(metric_text(0.5), "0.5");
        assert_eq!(metric_text(0.912_345_678), "0.912346");
        assert_eq!(metric_text(f64::NAN), "NaN");
        assert_eq!(metric_text(2.000_000_1), "2");
    }
}

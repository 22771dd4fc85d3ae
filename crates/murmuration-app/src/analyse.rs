//! `murmuration analyse FILE [--steps N] [--frames K --stride S] [--out a.json]`:
//! the field-study analyses of a flock (velocity correlations and their
//! length, nearest-neighbour anisotropy and the interaction range it gives,
//! shape, density from edge to core), on K snapshots S steps apart after N
//! steps, printed and written as JSON with their means.

use crate::failure::invalid;
use crate::out::outln;
use crate::outputs::{self, AtomicFile};
use crate::presets;
use crate::run::thread_pool;
use anyhow::Result;
use clap::Args;
use murmuration::Dimension;
use murmuration::field::{self, FieldAnalysis, FieldOptions};
use murmuration::scenario::{AnyWorld, Override};
use murmuration::{Boundary, World};
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;

/// Options of `murmuration analyse`.
#[derive(Args, Debug)]
pub struct AnalyseArgs {
    /// Scenario file, or the name of a shipped preset.
    pub file: String,
    /// Steps before the first snapshot (default: the scenario's `steps`, else 1000).
    #[arg(long)]
    pub steps: Option<u64>,
    /// Random seed (overrides the scenario's world.seed).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Change a scenario value (repeatable).
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub set: Vec<Override>,
    /// Snapshots to analyse and average.
    #[arg(long, value_name = "K", default_value_t = 1)]
    pub frames: u64,
    /// Steps between snapshots.
    #[arg(long, value_name = "S", default_value_t = 50)]
    pub stride: u64,
    /// Bins of the correlation function over [0, L].
    #[arg(long, default_value_t = 40)]
    pub bins: usize,
    /// Neighbour ranks of the anisotropy: 1 ..= this.
    #[arg(long, default_value_t = 20)]
    pub ranks: usize,
    /// Shells of the density profile.
    #[arg(long, default_value_t = 5)]
    pub shells: usize,
    /// Write every snapshot's analysis and their means (JSON).
    #[arg(long, value_name = "FILE.json")]
    pub out: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
}

/// What `--out` holds: the means over the snapshots, then each snapshot.
#[derive(Serialize)]
struct Report<'a> {
    scenario: &'a str,
    steps: u64,
    stride: u64,
    mean: Mean,
    frames: &'a [(u64, FieldAnalysis)],
}

/// Means over the snapshots (NaN-free means of what each one defines).
#[derive(Serialize)]
struct Mean {
    size: f64,
    correlation_length: f64,
    correlation_length_over_size: f64,
    anisotropy: Vec<f64>,
    forward_fraction: Vec<f64>,
    isotropic_anisotropy: f64,
    interaction_neighbours: f64,
    shape: Vec<f64>,
    density_nn_distance: Vec<f64>,
    density: Vec<f64>,
}

fn mean_of(xs: impl Iterator<Item = f64>) -> f64 {
    let (s, n) = xs
        .filter(|x| x.is_finite())
        .fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    if n == 0 { f64::NAN } else { s / n as f64 }
}

fn mean_columns(
    frames: &[(u64, FieldAnalysis)],
    col: impl Fn(&FieldAnalysis) -> Vec<f64>,
) -> Vec<f64> {
    let cols: Vec<Vec<f64>> = frames.iter().map(|(_, a)| col(a)).collect();
    let len = cols.iter().map(Vec::len).min().unwrap_or(0);
    (0..len)
        .map(|k| mean_of(cols.iter().map(|c| c[k])))
        .collect()
}

fn mean(frames: &[(u64, FieldAnalysis)]) -> Mean {
    let anisotropy = mean_columns(frames, |a| a.anisotropy.clone());
    let isotropic = frames
        .first()
        .map_or(f64::NAN, |f| f.1.isotropic_anisotropy);
    let interaction_neighbours = field::interaction_neighbours(&anisotropy, isotropic);
    Mean {
        size: mean_of(frames.iter().map(|f| f.1.size)),
        correlation_length: mean_of(frames.iter().map(|f| f.1.correlation_length)),
        correlation_length_over_size: mean_of(
            frames.iter().map(|f| f.1.correlation_length / f.1.size),
        ),
        anisotropy,
        forward_fraction: mean_columns(frames, |a| a.forward_fraction.clone()),
        isotropic_anisotropy: isotropic,
        interaction_neighbours,
        shape: mean_columns(frames, |a| a.shape.clone()),
        density_nn_distance: mean_columns(frames, |a| {
            a.density_profile.iter().map(|s| s.nn_distance).collect()
        }),
        density: mean_columns(frames, |a| {
            a.density_profile.iter().map(|s| s.density).collect()
        }),
    }
}

/// Runs `murmuration analyse`.
pub fn run(args: &AnalyseArgs) -> Result<()> {
    if args.frames == 0 || args.stride == 0 {
        return Err(invalid("--frames and --stride must be at least 1"));
    }
    if args.bins == 0 || args.shells == 0 {
        return Err(invalid("--bins and --shells must be at least 1"));
    }
    if let Some(out) = &args.out {
        outputs::probe(out, "--out")?;
    }
    let pool = thread_pool(args.threads)?;
    let s = presets::load_seeded(Some(&args.file), args.seed, &args.set)?;
    let steps = args.steps.or(s.steps()).unwrap_or(1000);
    let opts = FieldOptions {
        bins: args.bins,
        ranks: args.ranks,
        shells: args.shells,
    };
    let frames = pool.install(|| -> Result<Vec<(u64, FieldAnalysis)>> {
        Ok(match s.build()? {
            AnyWorld::D2(w) => snapshots(w, steps, args, opts),
            AnyWorld::D3(w) => snapshots(w, steps, args, opts),
        })
    })?;
    let m = mean(&frames);
    print(args, &frames, &m)?;
    if let Some(out) = &args.out {
        let report = Report {
            scenario: &args.file,
            steps,
            stride: args.stride,
            mean: m,
            frames: &frames,
        };
        let mut f = AtomicFile::create(out, "--out")?;
        serde_json::to_writer_pretty(f.writer(), &report)?;
        writeln!(f.writer())?;
        f.finish()?;
        outln!("wrote {}", out.display())?;
    }
    Ok(())
}

fn snapshots<V: Dimension>(
    mut w: World<V>,
    steps: u64,
    args: &AnalyseArgs,
    opts: FieldOptions,
) -> Vec<(u64, FieldAnalysis)> {
    if w.config().boundary == Boundary::Wrap {
        eprintln!(
            "note: a periodic world: distances are measured without wrapping, so a flock across the seam reads as two"
        );
    }
    w.step_n(steps);
    let mut out = Vec::with_capacity(args.frames as usize);
    for k in 0..args.frames {
        if k > 0 {
            w.step_n(args.stride);
        }
        out.push((
            w.step_index(),
            field::analyse(w.positions(), w.velocities(), opts),
        ));
    }
    out
}

fn print(args: &AnalyseArgs, frames: &[(u64, FieldAnalysis)], m: &Mean) -> Result<()> {
    let list = |v: &[f64]| {
        v.iter()
            .map(|x| format!("{x:.3}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let first = &frames[0].1;
    outln!(
        "analyse: {} ({}D, {} individuals), {} snapshot(s) from step {} every {} steps",
        args.file,
        first.dim,
        first.count,
        frames.len(),
        frames[0].0,
        args.stride
    )?;
    outln!("size_L: {:.4}", m.size)?;
    outln!("correlation_length_xi: {:.4}", m.correlation_length)?;
    outln!("xi_over_L: {:.4}", m.correlation_length_over_size)?;
    outln!("anisotropy_gamma(n=1..): {}", list(&m.anisotropy))?;
    outln!("forward_fraction(n=1..): {}", list(&m.forward_fraction))?;
    outln!(
        "isotropic_value: {:.4} (interaction_neighbours_nc: {})",
        m.isotropic_anisotropy,
        m.interaction_neighbours
    )?;
    outln!(
        "shape (thickness:width:length or width:length): {}",
        list(&m.shape)
    )?;
    outln!("density core->edge: {}", list(&m.density))?;
    outln!("nn_distance core->edge: {}", list(&m.density_nn_distance))?;
    Ok(())
}

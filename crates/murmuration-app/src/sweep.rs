//! `murmuration sweep FILE --set PATH=V1,V2 … --seeds K --steps N --skip T --out
//! table.csv`: every combination of the listed values, times K seeds, run in
//! parallel; one CSV row per run (in grid order, whatever the scheduling) with the
//! mean and standard deviation of each metric after the transient.

use crate::failure::{Interrupted, invalid};
use crate::out::outln;
use crate::outputs::{self, AtomicFile};
use crate::run::thread_pool;
use crate::{presets, progress};
use anyhow::Result;
use clap::Args;
use murmuration::sweep::{self, Axis, RunStats, Schedule};
use rayon::prelude::*;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

/// Options of `murmuration sweep`.
#[derive(Args, Debug)]
pub struct SweepArgs {
    /// Scenario file, or the name of a shipped preset.
    pub file: String,
    /// A parameter and its values: `--set species.fish.alignment_weight=0.5,1,2`
    /// (repeatable; every combination runs).
    #[arg(long = "set", value_name = "PATH=V1,V2,...", required = true)]
    pub set: Vec<String>,
    /// Seeds per combination: world.seed, world.seed + 1, ….
    #[arg(long, default_value_t = 1)]
    pub seeds: u64,
    /// Steps per run (default: the scenario's `steps`, else 1000).
    #[arg(long)]
    pub steps: Option<u64>,
    /// Steps of transient left out of the statistics.
    #[arg(long, default_value_t = 0)]
    pub skip: u64,
    /// Sample the metrics every K steps after the transient.
    #[arg(long, value_name = "K", default_value_t = 1)]
    pub every: u64,
    /// The table to write (CSV).
    #[arg(long, value_name = "FILE.csv")]
    pub out: PathBuf,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// Also draw the table as a figure (PNG): one swept parameter gives the
    /// metric's mean after the transient against it, with error bars (standard
    /// deviation over seeds; with one seed, over the run's samples); two give a
    /// heat map (a regime map).
    #[arg(long, value_name = "FILE.png")]
    pub plot: Option<PathBuf>,
    /// The metric the figure shows.
    #[arg(
        long,
        value_name = "METRIC",
        default_value = "model_order",
        requires = "plot"
    )]
    pub plot_metric: String,
    /// With two swept parameters: one line per value of the second instead of a heat map.
    #[arg(long, requires = "plot")]
    pub plot_lines: bool,
}

/// Splits `a,b,[1, 2],"x,y"` at the commas outside brackets, braces and quotes.
fn split_values(s: &str) -> Vec<String> {
    sweep::split_top_level(s, ',')
}

/// A CSV field, quoted when it needs to be.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Runs `murmuration sweep`.
pub fn run(args: &SweepArgs) -> Result<()> {
    if args.seeds == 0 || args.every == 0 {
        return Err(invalid("--seeds and --every must be at least 1"));
    }
    let pool = thread_pool(args.threads)?;
    outputs::probe(&args.out, "--out")?;
    if let Some(plot) = &args.plot {
        outputs::probe(plot, "--plot")?;
        crate::plot::metric_index(&args.plot_metric).map_err(|e| invalid(e.to_string()))?;
        if args.set.len() > 2 {
            return Err(invalid(format!(
                "--plot draws one or two swept parameters, but this sweep has {}",
                args.set.len()
            )));
        }
    }
    let axes = parse_axes(&args.set)?;
    if args.plot.is_some() {
        crate::plot::check_x_axis(&axes[0]).map_err(|e| invalid(e.to_string()))?;
    }
    let base = presets::load(Some(&args.file), &[])?;
    let steps = args.steps.or(base.steps()).unwrap_or(1000);
    if args.skip >= steps {
        return Err(invalid(format!(
            "--skip {} leaves nothing to measure: it must be below --steps {steps}",
            args.skip
        )));
    }
    let schedule = Schedule {
        steps,
        skip: args.skip,
        every: args.every,
    };
    // Every grid point × seed, all validated before any runs.
    let runs = sweep::runs(&axes, base.seed(), args.seeds);
    let mut scenarios = Vec::with_capacity(runs.len());
    for r in &runs {
        scenarios.push(presets::load(Some(&args.file), &r.overrides(&axes))?);
    }
    let combinations = runs.len() as u64 / args.seeds;
    outln!(
        "sweep: {} combinations x {} seeds = {} runs of {steps} steps ({} transient) on {} threads",
        combinations,
        args.seeds,
        runs.len(),
        args.skip,
        pool.current_num_threads()
    )?;
    progress::catch_ctrl_c();
    let bar = progress::bar(runs.len() as u64 * steps, "steps", args.quiet);
    let start = Instant::now();
    let results: Vec<Result<Option<RunStats>, _>> = pool.install(|| {
        scenarios
            .par_iter()
            .map(|s| sweep::run_stats(s, schedule, &progress::stop_requested, &|| bar.inc(1)))
            .collect()
    });
    bar.finish_and_clear();
    let mut stats = Vec::with_capacity(results.len());
    for r in results {
        match r? {
            Some(s) => stats.push(s),
            None => {
                eprintln!(
                    "interrupted: no table written ({} left as it was)",
                    args.out.display()
                );
                return Err(Interrupted.into());
            }
        }
    }
    write_table(args, &axes, &runs, &stats, steps)?;
    outln!(
        "wrote {} rows to {} in {:.1} s",
        runs.len(),
        args.out.display(),
        start.elapsed().as_secs_f64()
    )?;
    if let Some(path) = &args.plot {
        draw(args, path, &base, &axes, &runs, &stats, steps)?;
    }
    Ok(())
}

/// The swept parameters: each `--set PATH=V1,V2,...`, checked.
fn parse_axes(sets: &[String]) -> Result<Vec<Axis>> {
    let mut axes: Vec<Axis> = Vec::new();
    for set in sets {
        let (path, values) = set.split_once('=').ok_or_else(|| {
            invalid(format!(
                "--set {set:?} is not PATH=V1,V2,... (e.g. species.fish.alignment_weight=0.5,1,2)"
            ))
        })?;
        let values = split_values(values);
        if path.trim().is_empty() || values.iter().any(|v| v.is_empty()) {
            return Err(invalid(format!("--set {set:?} has an empty path or value")));
        }
        let axis = Axis {
            path: path.trim().to_string(),
            values,
        };
        axis.check().map_err(invalid)?;
        axes.push(axis);
    }
    Ok(axes)
}

/// Writes the table: one row per run in grid order, then its statistics.
fn write_table(
    args: &SweepArgs,
    axes: &[Axis],
    runs: &[sweep::Run],
    stats: &[RunStats],
    steps: u64,
) -> Result<()> {
    let mut file = AtomicFile::create(&args.out, "--out")?;
    let w = file.writer();
    write!(w, "run")?;
    for a in axes {
        write!(w, ",{}", csv_field(&a.path))?;
    }
    writeln!(w, ",{}", sweep::stat_columns().join(","))?;
    for (r, st) in runs.iter().zip(stats) {
        write!(w, "{}", r.index)?;
        for v in &r.values {
            write!(w, ",{}", csv_field(v))?;
        }
        write!(w, ",{},{steps},{},{}", r.seed, args.skip, st.samples)?;
        for x in st.values() {
            write!(w, ",{x}")?;
        }
        writeln!(w)?;
    }
    file.finish()?;
    Ok(())
}

/// `--plot`: the figure of the sweep's own table.
fn draw(
    args: &SweepArgs,
    path: &std::path::Path,
    base: &murmuration::scenario::Scenario,
    axes: &[Axis],
    runs: &[sweep::Run],
    stats: &[RunStats],
    steps: u64,
) -> Result<()> {
    let species: Vec<(String, murmuration::SpeciesParams)> = base
        .species()
        .iter()
        .map(|(n, _)| n.clone())
        .zip(base.species_params())
        .collect();
    let spec = crate::plot::PlotSpec {
        metric: &args.plot_metric,
        labels: axes
            .iter()
            .map(|a| crate::plot::axis_label(a, &species))
            .collect(),
        lines: args.plot_lines,
        seeds: args.seeds,
        subtitle: format!(
            "{}, {steps} steps ({} transient), {} seed(s)",
            args.file, args.skip, args.seeds
        ),
    };
    crate::plot::plot(path, axes, runs, stats, &spec)?;
    outln!("drew {}", path.display())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_split_outside_brackets_and_quotes() {
        assert_eq!(split_values("0.5, 1,2"), vec!["0.5", "1", "2"]);
        assert_eq!(split_values("[1, 2],[3, 4]"), vec!["[1, 2]", "[3, 4]"]);
        assert_eq!(split_values("\"a,b\",c"), vec!["\"a,b\"", "c"]);
        assert_eq!(csv_field("[1, 2]"), "\"[1, 2]\"");
    }
}

//! `murmuration sweep FILE --set PATH=V1,V2 … --seeds K --steps N --skip T --out
//! table.csv`: every combination of the listed values, times K seeds, run in
//! parallel; one CSV row per run (in grid order, whatever the scheduling) with the
//! mean and standard deviation of each metric after the transient. The table is
//! rewritten (atomically) each time a run finishes, so a killed sweep keeps
//! every finished run, and `--resume` runs only the ones it lacks.

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
    /// (repeatable; every combination runs; none: the scenario itself over seeds).
    #[arg(long = "set", value_name = "PATH=V1,V2,...")]
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
    /// The metric the figure shows (default: the model's order parameter,
    /// `velocity_polarization` for D'Orsogna's model, else `polarization`).
    #[arg(long, value_name = "METRIC", requires = "plot")]
    pub plot_metric: Option<String>,
    /// With two swept parameters: one line per value of the second instead of a heat map.
    #[arg(long, requires = "plot")]
    pub plot_lines: bool,
    /// Keep the rows `--out` already holds from this same sweep (a killed one)
    /// and run only the missing runs.
    #[arg(long)]
    pub resume: bool,
}

/// The metric a figure shows by default: the order parameter of the scenario's
/// model as its paper defines it.
pub fn default_metric(base: &murmuration::scenario::Scenario) -> &'static str {
    let dorsogna = base
        .species_params()
        .iter()
        .any(|p| matches!(p.model, murmuration::model::Model::Dorsogna(_)));
    if dorsogna {
        "velocity_polarization"
    } else {
        "polarization"
    }
}

/// Splits `a,b,[1, 2],"x,y"` at the commas outside brackets, braces and quotes.
fn split_values(s: &str) -> Vec<String> {
    sweep::split_top_level(s, ',')
}

/// A CSV field, quoted when it needs to be.
pub(crate) fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Checks the options that need no scenario: counts, output paths, the figure.
fn check_options(args: &SweepArgs) -> Result<()> {
    if args.seeds == 0 || args.every == 0 {
        return Err(invalid("--seeds and --every must be at least 1"));
    }
    outputs::probe(&args.out, "--out")?;
    if let Some(plot) = &args.plot {
        outputs::probe(plot, "--plot")?;
        if let Some(m) = &args.plot_metric {
            crate::plot::metric_index(m).map_err(|e| invalid(e.to_string()))?;
        }
        if args.set.is_empty() || args.set.len() > 2 {
            return Err(invalid(format!(
                "--plot draws one or two swept parameters, but this sweep has {}",
                args.set.len()
            )));
        }
    }
    Ok(())
}

/// Runs `murmuration sweep`.
pub fn run(args: &SweepArgs) -> Result<()> {
    check_options(args)?;
    let pool = thread_pool(args.threads)?;
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
    let header = table_header(&axes);
    let mut rows: Vec<Option<Row>> = vec![None; runs.len()];
    if args.resume {
        let kept = resume_rows(&args.out, &header, &runs, steps, args.skip, &mut rows)?;
        outln!(
            "resume: {kept} of {} runs are in {}",
            runs.len(),
            args.out.display()
        )?;
    }
    let todo: Vec<usize> = (0..runs.len()).filter(|&i| rows[i].is_none()).collect();
    let combinations = runs.len() as u64 / args.seeds;
    outln!(
        "sweep: {} combinations x {} seeds = {} runs of {steps} steps ({} transient) on {} threads{}",
        combinations,
        args.seeds,
        runs.len(),
        args.skip,
        pool.current_num_threads(),
        if todo.len() < runs.len() {
            format!(", {} to run", todo.len())
        } else {
            String::new()
        }
    )?;
    progress::catch_ctrl_c();
    let bar = progress::bar(todo.len() as u64 * steps, "steps", args.quiet);
    let start = Instant::now();
    // Each finished run's row joins the table, which is rewritten whole and
    // atomically, so a kill at any moment leaves every finished run on disk.
    let table = std::sync::Mutex::new(rows);
    let results: Vec<Result<bool>> = pool.install(|| {
        todo.par_iter()
            .map(|&i| -> Result<bool> {
                let run = &runs[i];
                let done =
                    sweep::run_stats(&scenarios[i], schedule, &progress::stop_requested, &|| {
                        bar.inc(1)
                    })?;
                let Some(stats) = done else { return Ok(false) };
                let line = row_text(run, &stats, steps, args.skip);
                let mut t = table.lock().unwrap_or_else(|e| e.into_inner());
                t[i] = Some(Row { line, stats });
                write_table(&args.out, &header, &t)?;
                Ok(true)
            })
            .collect()
    });
    bar.finish_and_clear();
    let rows = table.into_inner().unwrap_or_else(|e| e.into_inner());
    let interrupted = progress::any_stopped(results)?;
    let have = rows.iter().filter(|r| r.is_some()).count();
    if interrupted {
        eprintln!(
            "interrupted: {} holds {have} of {} runs; the same command with --resume runs the rest",
            args.out.display(),
            runs.len()
        );
        return Err(Interrupted.into());
    }
    // A sweep with every row already in place rewrites nothing.
    if todo.is_empty() {
        write_table(&args.out, &header, &rows)?;
    }
    outln!(
        "wrote {} rows to {} in {:.1} s",
        runs.len(),
        args.out.display(),
        start.elapsed().as_secs_f64()
    )?;
    if let Some(path) = &args.plot {
        let stats: Vec<RunStats> = rows.into_iter().flatten().map(|r| r.stats).collect();
        draw(args, path, &base, &axes, &runs, &stats, steps)?;
    }
    Ok(())
}

/// A finished run: its line of the table and its statistics.
#[derive(Clone)]
struct Row {
    line: String,
    stats: RunStats,
}

/// The table's first line: `run`, the axes' paths, then the statistics' columns.
fn table_header(axes: &[Axis]) -> String {
    let mut h = "run".to_string();
    for a in axes {
        h.push(',');
        h.push_str(&csv_field(&a.path));
    }
    h.push(',');
    h.push_str(&sweep::stat_columns().join(","));
    h
}

/// What identifies a run's line: its index, values, seed, steps and skip.
fn row_prefix(r: &sweep::Run, steps: u64, skip: u64) -> String {
    let mut line = r.index.to_string();
    for v in &r.values {
        line.push(',');
        line.push_str(&csv_field(v));
    }
    line.push_str(&format!(",{},{steps},{skip}", r.seed));
    line
}

/// One run's line: its [`row_prefix`], samples and the statistics (Rust's
/// shortest round-trip form, so a line read back is the same).
fn row_text(r: &sweep::Run, st: &RunStats, steps: u64, skip: u64) -> String {
    let mut line = row_prefix(r, steps, skip);
    line.push_str(&format!(",{}", st.samples));
    for x in st.values() {
        line.push_str(&format!(",{x}"));
    }
    line
}

/// `--resume`: fills `rows` from the table at `out` (if there is one). Each row
/// must be a run of this plan, line for line as this sweep would write it, up
/// to its statistics; a table of another sweep is refused, never mixed in.
fn resume_rows(
    out: &std::path::Path,
    header: &str,
    runs: &[sweep::Run],
    steps: u64,
    skip: u64,
    rows: &mut [Option<Row>],
) -> Result<usize> {
    let text = match std::fs::read_to_string(out) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => {
            return Err(invalid(format!(
                "--resume cannot read {}: {e}",
                out.display()
            )));
        }
    };
    let mut lines = text.lines();
    if lines.next() != Some(header) {
        return Err(invalid(format!(
            "--resume: {} is not a table of this sweep (its columns differ); give another --out",
            out.display()
        )));
    }
    for (k, line) in lines.enumerate() {
        let bad = || {
            invalid(format!(
                "--resume: line {} of {} is not a run of this sweep (its settings, seed, steps or skip differ); give another --out",
                k + 2,
                out.display()
            ))
        };
        let index: usize = line
            .split(',')
            .next()
            .and_then(|i| i.parse().ok())
            .ok_or_else(bad)?;
        let run = runs.get(index).ok_or_else(bad)?;
        // The row's prefix must be what this plan writes for that run.
        let rest = line
            .strip_prefix(row_prefix(run, steps, skip).as_str())
            .and_then(|r| r.strip_prefix(','))
            .ok_or_else(bad)?;
        let mut nums = rest.split(',');
        let samples: u64 = nums.next().and_then(|x| x.parse().ok()).ok_or_else(bad)?;
        let values: Vec<f64> = nums
            .map(|x| x.parse::<f64>())
            .collect::<Result<_, _>>()
            .map_err(|_| bad())?;
        let stats = RunStats::from_values(samples, &values).ok_or_else(bad)?;
        rows[index] = Some(Row {
            line: line.to_string(),
            stats,
        });
    }
    Ok(rows.iter().filter(|r| r.is_some()).count())
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

/// Writes the table atomically: the header, then every finished run's line in
/// grid order.
fn write_table(out: &std::path::Path, header: &str, rows: &[Option<Row>]) -> Result<()> {
    let mut file = AtomicFile::create(out, "--out")?;
    let w = file.writer();
    writeln!(w, "{header}")?;
    for r in rows.iter().flatten() {
        writeln!(w, "{}", r.line)?;
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
    let species = crate::plot::named_species(base);
    let metric = args
        .plot_metric
        .as_deref()
        .unwrap_or_else(|| default_metric(base));
    let spec = crate::plot::PlotSpec {
        metric,
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

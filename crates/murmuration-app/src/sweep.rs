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
}

/// Splits `a,b,[1, 2],"x,y"` at the commas outside brackets, braces and quotes.
fn split_values(s: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth, mut quote) = (Vec::new(), String::new(), 0i32, None);
    for c in s.chars() {
        match (c, quote) {
            ('"' | '\'', None) => quote = Some(c),
            (q, Some(open)) if q == open => quote = None,
            ('[' | '{', None) => depth += 1,
            (']' | '}', None) => depth -= 1,
            (',', None) if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur.trim().to_string());
    out
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
    let mut axes: Vec<Axis> = Vec::new();
    for set in &args.set {
        let (path, values) = set.split_once('=').ok_or_else(|| {
            invalid(format!(
                "--set {set:?} is not PATH=V1,V2,... (e.g. species.fish.alignment_weight=0.5,1,2)"
            ))
        })?;
        let values = split_values(values);
        if path.trim().is_empty() || values.iter().any(|v| v.is_empty()) {
            return Err(invalid(format!("--set {set:?} has an empty path or value")));
        }
        axes.push(Axis {
            path: path.trim().to_string(),
            values,
        });
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
    let mut file = AtomicFile::create(&args.out, "--out")?;
    let w = file.writer();
    write!(w, "run")?;
    for a in &axes {
        write!(w, ",{}", csv_field(&a.path))?;
    }
    writeln!(w, ",{}", sweep::stat_columns().join(","))?;
    for (r, st) in runs.iter().zip(&stats) {
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
    outln!(
        "wrote {} rows to {} in {:.1} s",
        runs.len(),
        args.out.display(),
        start.elapsed().as_secs_f64()
    )?;
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

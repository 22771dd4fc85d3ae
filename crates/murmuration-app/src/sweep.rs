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
use murmuration::metrics::SCALAR_NAMES;
use murmuration::scenario::{AnyWorld, Override, Scenario};
use murmuration::{Vector, World};
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

/// Mean and standard deviation (population) of each scalar metric.
#[derive(Clone, Copy, Default)]
struct Stats {
    n: u64,
    mean: [f64; SCALAR_NAMES.len()],
    m2: [f64; SCALAR_NAMES.len()],
}

impl Stats {
    fn add(&mut self, x: [f64; SCALAR_NAMES.len()]) {
        self.n += 1;
        for (i, &x) in x.iter().enumerate() {
            let d = x - self.mean[i];
            self.mean[i] += d / self.n as f64;
            self.m2[i] += d * (x - self.mean[i]);
        }
    }
    fn std(&self, i: usize) -> f64 {
        (self.m2[i] / self.n.max(1) as f64).sqrt()
    }
}

fn sample<V: Vector>(w: &World<V>) -> [f64; SCALAR_NAMES.len()] {
    w.metrics().scalars().map(|(_, v)| v)
}

/// Runs one grid point; `None` when Ctrl-C stopped it.
fn run_one(
    s: &Scenario,
    steps: u64,
    skip: u64,
    every: u64,
    bar: &indicatif::ProgressBar,
) -> Result<Option<Stats>> {
    fn go<V: Vector>(
        mut w: World<V>,
        steps: u64,
        skip: u64,
        every: u64,
        bar: &indicatif::ProgressBar,
    ) -> Option<Stats> {
        let mut stats = Stats::default();
        for step in 1..=steps {
            if progress::stop_requested() {
                return None;
            }
            w.step();
            bar.inc(1);
            if step > skip && (step - skip).is_multiple_of(every) {
                stats.add(sample(&w));
            }
        }
        Some(stats)
    }
    Ok(match s.build()? {
        AnyWorld::D2(w) => go(w, steps, skip, every, bar),
        AnyWorld::D3(w) => go(w, steps, skip, every, bar),
    })
}

/// Runs `murmuration sweep`.
pub fn run(args: &SweepArgs) -> Result<()> {
    if args.seeds == 0 || args.every == 0 {
        return Err(invalid("--seeds and --every must be at least 1"));
    }
    let pool = thread_pool(args.threads)?;
    outputs::probe(&args.out, "--out")?;
    let mut axes: Vec<(String, Vec<String>)> = Vec::new();
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
        axes.push((path.trim().to_string(), values));
    }
    let base = presets::load(Some(&args.file), &[])?;
    let steps = args.steps.or(base.steps()).unwrap_or(1000);
    if args.skip >= steps {
        return Err(invalid(format!(
            "--skip {} leaves nothing to measure: it must be below --steps {steps}",
            args.skip
        )));
    }
    let base_seed = base.seed();
    // Every grid point × seed, first --set slowest, seed fastest; all validated
    // before any runs.
    let mut points: Vec<Vec<String>> = vec![Vec::new()];
    for (_, values) in &axes {
        points = points
            .into_iter()
            .flat_map(|p| {
                values.iter().map(move |v| {
                    let mut q = p.clone();
                    q.push(v.clone());
                    q
                })
            })
            .collect();
    }
    let mut runs: Vec<(Vec<String>, u64, Scenario)> = Vec::new();
    for p in &points {
        for k in 0..args.seeds {
            let seed = base_seed + k;
            let mut overrides: Vec<Override> = axes
                .iter()
                .zip(p)
                .map(|((path, _), v)| Override {
                    path: path.clone(),
                    value: v.clone(),
                })
                .collect();
            overrides.push(Override {
                path: "world.seed".into(),
                value: seed.to_string(),
            });
            let s = presets::load(Some(&args.file), &overrides)?;
            runs.push((p.clone(), seed, s));
        }
    }
    outln!(
        "sweep: {} combinations x {} seeds = {} runs of {steps} steps ({} transient) on {} threads",
        points.len(),
        args.seeds,
        runs.len(),
        args.skip,
        pool.current_num_threads()
    )?;
    progress::catch_ctrl_c();
    let bar = progress::bar(runs.len() as u64 * steps, "steps", args.quiet);
    let start = Instant::now();
    let results: Vec<Result<Option<Stats>>> = pool.install(|| {
        runs.par_iter()
            .map(|(_, _, s)| run_one(s, steps, args.skip, args.every, &bar))
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
    for (path, _) in &axes {
        write!(w, ",{}", csv_field(path))?;
    }
    write!(w, ",seed,steps,skip,samples")?;
    for name in SCALAR_NAMES {
        write!(w, ",{name}_mean,{name}_std")?;
    }
    writeln!(w)?;
    for (i, ((values, seed, _), st)) in runs.iter().zip(&stats).enumerate() {
        write!(w, "{i}")?;
        for v in values {
            write!(w, ",{}", csv_field(v))?;
        }
        write!(w, ",{seed},{steps},{},{}", args.skip, st.n)?;
        for m in 0..SCALAR_NAMES.len() {
            write!(w, ",{},{}", st.mean[m], st.std(m))?;
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

    #[test]
    fn stats_match_the_textbook_formulas() {
        let mut s = Stats::default();
        for x in [1.0, 2.0, 4.0] {
            s.add([x; SCALAR_NAMES.len()]);
        }
        assert!((s.mean[0] - 7.0 / 3.0).abs() < 1e-12);
        let var = ((1.0f64 - 7.0 / 3.0).powi(2)
            + (2.0f64 - 7.0 / 3.0).powi(2)
            + (4.0f64 - 7.0 / 3.0).powi(2))
            / 3.0;
        assert!((s.std(0) - var.sqrt()).abs() < 1e-12);
    }
}

//! Parameter sweeps: the grid of runs (every combination of values, times seeds)
//! and one run's statistics after its transient. `murmuration sweep` and the
//! Python package both build their tables from these, so a row means the same
//! wherever it was computed.

use crate::analysis::metrics::SCALAR_NAMES;
use crate::error::ScenarioError;
use crate::scenario::{AnyWorld, Override, Scenario};
use crate::world::Dimension;
use crate::world::World;

/// One swept parameter: a scenario path and its values, as `--set` takes them.
/// Linked parameters vary together on one axis: paths joined by `&`
/// (`species.p.count&world.size`) and each value likewise (`400&[10, 10]`), so
/// a sweep over N can keep the density fixed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Axis {
    /// Dotted path (`species.fish.alignment_weight`), or linked paths joined by `&`.
    pub path: String,
    /// The values, as TOML or bare words (`0.5`, `"wrap"`, `[1, 2]`); for
    /// linked paths, one part per path joined by `&`.
    pub values: Vec<String>,
}

impl Axis {
    /// The (path, value) settings of `value` on this axis.
    pub fn settings(&self, value: &str) -> Vec<(String, String)> {
        let paths: Vec<&str> = self.path.split('&').map(str::trim).collect();
        let parts = split_top_level(value, '&');
        paths
            .iter()
            .zip(parts)
            .map(|(p, v)| (p.to_string(), v))
            .collect()
    }

    /// Why the axis cannot run: a linked value whose part count differs from
    /// its paths', or an empty path.
    pub fn check(&self) -> Result<(), String> {
        let paths: Vec<&str> = self.path.split('&').map(str::trim).collect();
        if paths.iter().any(|p| p.is_empty()) {
            return Err(format!("--set {:?} has an empty path", self.path));
        }
        for v in &self.values {
            let n = split_top_level(v, '&').len();
            if n != paths.len() {
                return Err(format!(
                    "--set {}: the value {v:?} has {n} part(s) but the axis links {} paths (join one part per path with &)",
                    self.path,
                    paths.len()
                ));
            }
        }
        Ok(())
    }
}

/// Splits `s` at `sep` outside brackets, braces and quotes, trimming each part.
pub fn split_top_level(s: &str, sep: char) -> Vec<String> {
    let (mut out, mut cur, mut depth, mut quote) = (Vec::new(), String::new(), 0i32, None);
    for c in s.chars() {
        match (c, quote) {
            ('"' | '\'', None) => quote = Some(c),
            (q, Some(open)) if q == open => quote = None,
            ('[' | '{', None) => depth += 1,
            (']' | '}', None) => depth -= 1,
            (c, None) if c == sep && depth == 0 => {
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

/// One run of a sweep: a grid point's values and a seed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    /// Row number in the table (grid order).
    pub index: usize,
    /// The value of each axis, in axis order.
    pub values: Vec<String>,
    /// `world.seed` of this run.
    pub seed: u64,
}

impl Run {
    /// The overrides that make this run's scenario: each axis's value, then the seed.
    pub fn overrides(&self, axes: &[Axis]) -> Vec<Override> {
        let mut o: Vec<Override> = axes
            .iter()
            .zip(&self.values)
            .flat_map(|(a, v)| a.settings(v))
            .map(|(path, value)| Override { path, value })
            .collect();
        o.push(Override {
            path: "world.seed".into(),
            value: self.seed.to_string(),
        });
        o
    }
}

/// Every run of a sweep in table order: the first axis varies slowest, the seed
/// (`base_seed`, `base_seed + 1`, …, `seeds` of them) fastest.
pub fn runs(axes: &[Axis], base_seed: u64, seeds: u64) -> Vec<Run> {
    let mut points: Vec<Vec<String>> = vec![Vec::new()];
    for a in axes {
        points = points
            .into_iter()
            .flat_map(|p| {
                a.values.iter().map(move |v| {
                    let mut q = p.clone();
                    q.push(v.clone());
                    q
                })
            })
            .collect();
    }
    let mut out = Vec::with_capacity(points.len() * seeds as usize);
    for p in points {
        for k in 0..seeds {
            out.push(Run {
                index: out.len(),
                values: p.clone(),
                seed: base_seed + k,
            });
        }
    }
    out
}

/// The table's column names after the axes' paths: `seed, steps, skip, samples`,
/// then `<metric>_mean, <metric>_std` for every scalar metric.
pub fn stat_columns() -> Vec<String> {
    let mut c: Vec<String> = ["seed", "steps", "skip", "samples"]
        .map(String::from)
        .to_vec();
    for name in SCALAR_NAMES {
        c.push(format!("{name}_mean"));
        c.push(format!("{name}_std"));
    }
    c
}

/// Running mean and standard deviation (population) of each scalar metric
/// (Welford's update, so long runs lose no precision).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RunStats {
    /// Samples taken.
    pub samples: u64,
    /// Mean of each metric, in [`SCALAR_NAMES`] order.
    pub mean: [f64; SCALAR_NAMES.len()],
    m2: [f64; SCALAR_NAMES.len()],
}

impl RunStats {
    /// Adds one sample of every metric.
    pub fn add(&mut self, x: [f64; SCALAR_NAMES.len()]) {
        self.samples += 1;
        for (i, &x) in x.iter().enumerate() {
            let d = x - self.mean[i];
            self.mean[i] += d / self.samples as f64;
            self.m2[i] += d * (x - self.mean[i]);
        }
    }

    /// Population standard deviation of metric `i`.
    pub fn std(&self, i: usize) -> f64 {
        (self.m2[i] / self.samples.max(1) as f64).sqrt()
    }

    /// Statistics read back from a table row: `samples`, then `mean, std` of
    /// every metric interleaved as [`RunStats::values`] writes them (a resumed
    /// sweep's finished runs). `None` when the count of values is wrong.
    pub fn from_values(samples: u64, values: &[f64]) -> Option<Self> {
        if values.len() != 2 * SCALAR_NAMES.len() {
            return None;
        }
        let mut s = Self {
            samples,
            ..Self::default()
        };
        for i in 0..SCALAR_NAMES.len() {
            s.mean[i] = values[2 * i];
            s.m2[i] = values[2 * i + 1] * values[2 * i + 1] * samples.max(1) as f64;
        }
        Some(s)
    }

    /// `mean, std` of every metric, interleaved in [`stat_columns`] order.
    pub fn values(&self) -> Vec<f64> {
        (0..SCALAR_NAMES.len())
            .flat_map(|i| [self.mean[i], self.std(i)])
            .collect()
    }
}

/// How long each run is and which steps it samples: every `every`-th step after
/// the first `skip`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// Steps per run.
    pub steps: u64,
    /// Steps of transient left out of the statistics (below `steps`).
    pub skip: u64,
    /// Sample every this many steps after the transient (at least 1).
    pub every: u64,
}

impl Schedule {
    /// An error message when the schedule measures nothing or cannot run.
    pub fn check(&self) -> Result<(), String> {
        if self.every == 0 {
            return Err("every must be at least 1".into());
        }
        if self.skip >= self.steps {
            return Err(format!(
                "skip = {} leaves nothing to measure: it must be below steps = {}",
                self.skip, self.steps
            ));
        }
        Ok(())
    }
}

/// Runs one scenario for `schedule.steps` steps and returns its statistics;
/// `None` when `stop` returned true before the end. `tick` is called after each
/// step (a progress bar).
pub fn run_stats(
    scenario: &Scenario,
    schedule: Schedule,
    stop: &(dyn Fn() -> bool + Sync),
    tick: &(dyn Fn() + Sync),
) -> Result<Option<RunStats>, ScenarioError> {
    fn go<V: Dimension>(
        mut w: World<V>,
        s: Schedule,
        stop: &(dyn Fn() -> bool + Sync),
        tick: &(dyn Fn() + Sync),
    ) -> Option<RunStats> {
        let mut stats = RunStats::default();
        for step in 1..=s.steps {
            if stop() {
                return None;
            }
            w.step();
            tick();
            if step > s.skip && (step - s.skip).is_multiple_of(s.every) {
                stats.add(w.metrics().scalars().map(|(_, v)| v));
            }
        }
        Some(stats)
    }
    Ok(match scenario.build()? {
        AnyWorld::D2(w) => go(w, schedule, stop, tick),
        AnyWorld::D3(w) => go(w, schedule, stop, tick),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_vary_the_first_axis_slowest_and_the_seed_fastest() {
        let axes = [
            Axis {
                path: "a".into(),
                values: vec!["1".into(), "2".into()],
            },
            Axis {
                path: "b".into(),
                values: vec!["x".into(), "y".into()],
            },
        ];
        let r = runs(&axes, 7, 2);
        assert_eq!(r.len(), 8);
        assert_eq!(
            (r[0].values.clone(), r[0].seed),
            (vec!["1".into(), "x".into()], 7)
        );
        assert_eq!(
            (r[1].values.clone(), r[1].seed),
            (vec!["1".into(), "x".into()], 8)
        );
        assert_eq!(r[2].values, vec!["1", "y"]);
        assert_eq!(r[4].values, vec!["2", "x"]);
        assert_eq!(r[7].index, 7);
        let o = r[3].overrides(&axes);
        assert_eq!(
            o.iter().map(|o| o.to_string()).collect::<Vec<_>>(),
            ["a=1", "b=y", "world.seed=8"]
        );
    }

    #[test]
    fn stats_match_the_textbook_formulas() {
        let mut s = RunStats::default();
        for x in [1.0, 2.0, 4.0] {
            s.add([x; SCALAR_NAMES.len()]);
        }
        assert!((s.mean[0] - 7.0 / 3.0).abs() < 1e-12);
        let var = ((1.0f64 - 7.0 / 3.0).powi(2)
            + (2.0f64 - 7.0 / 3.0).powi(2)
            + (4.0f64 - 7.0 / 3.0).powi(2))
            / 3.0;
        assert!((s.std(0) - var.sqrt()).abs() < 1e-12);
        assert_eq!(s.values().len() + 4, stat_columns().len());
    }

    #[test]
    fn a_schedule_that_measures_nothing_is_refused() {
        let ok = Schedule {
            steps: 10,
            skip: 9,
            every: 1,
        };
        assert!(ok.check().is_ok());
        assert!(
            Schedule { skip: 10, ..ok }
                .check()
                .unwrap_err()
                .contains("skip = 10")
        );
        assert!(Schedule { every: 0, ..ok }.check().is_err());
    }
}

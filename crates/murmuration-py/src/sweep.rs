//! The sweep's building blocks for `murmuration.sweep`: the plan of runs, one
//! run (what a Dask task executes, from scenario text so any worker can run it),
//! and many runs in parallel here. The statistics are the core's
//! (`murmuration::sweep`), the same as `murmuration sweep`'s table.

use crate::convert::{scenario_error, value_text};
use crate::world::open_scenario;
use murmuration::scenario::{Override, Scenario};
use murmuration::sweep::{self, Axis, Schedule};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;

/// `(text, origin, steps)` of a scenario file or preset: what every task needs
/// to rebuild it anywhere, and its own `steps` (or `None`).
#[pyfunction]
pub fn scenario_source(scenario: &Bound<'_, PyAny>) -> PyResult<(String, String, Option<u64>)> {
    let s = open_scenario(scenario, None, None)?;
    Ok((s.text().to_string(), s.origin().to_string(), s.steps()))
}

/// A planned run: index, the axes' values as text, seed, its overrides as
/// `(path, value)` pairs, and which of each axis's given values it holds.
type PlannedRun = (usize, Vec<String>, u64, Vec<(String, String)>, Vec<usize>);

/// Every run of the grid in table order: `(index, values as text, seed,
/// overrides, value index per axis)`. Every run's scenario is validated here,
/// before any runs.
#[pyfunction]
pub fn plan_runs(
    text: &str,
    origin: &str,
    grid: Vec<(String, Vec<Bound<'_, PyAny>>)>,
    seeds: u64,
) -> PyResult<Vec<PlannedRun>> {
    if seeds == 0 {
        return Err(PyValueError::new_err("seeds must be at least 1"));
    }
    let mut axes = Vec::with_capacity(grid.len());
    for (path, values) in grid {
        if values.is_empty() {
            return Err(PyValueError::new_err(format!(
                "the grid gives no values for {path:?}"
            )));
        }
        let values: PyResult<Vec<String>> = values.iter().map(value_text).collect();
        axes.push(Axis {
            path,
            values: values?,
        });
    }
    let base = Scenario::parse(text, origin).map_err(scenario_error)?;
    let mut out = Vec::new();
    for r in sweep::runs(&axes, base.seed(), seeds) {
        let o = r.overrides(&axes);
        Scenario::parse_with(text, origin, &o)
            .and_then(|s| s.check_memory())
            .map_err(scenario_error)?;
        let pairs = o.into_iter().map(|o| (o.path, o.value)).collect();
        let picks = axes
            .iter()
            .zip(&r.values)
            .map(|(a, v)| a.values.iter().position(|x| x == v).unwrap_or(0))
            .collect();
        out.push((r.index, r.values, r.seed, pairs, picks));
    }
    Ok(out)
}

fn schedule(steps: u64, skip: u64, every: u64) -> PyResult<Schedule> {
    let s = Schedule { steps, skip, every };
    s.check().map_err(PyValueError::new_err)?;
    Ok(s)
}

fn one(
    text: &str,
    origin: &str,
    overrides: &[(String, String)],
    s: Schedule,
) -> Result<Vec<f64>, murmuration::ScenarioError> {
    let o: Vec<Override> = overrides
        .iter()
        .map(|(path, value)| Override {
            path: path.clone(),
            value: value.clone(),
        })
        .collect();
    let scenario = Scenario::parse_with(text, origin, &o)?;
    let stats = sweep::run_stats(&scenario, s, &|| false, &|| ())?
        .expect("a run without a stop request finishes");
    let mut v = vec![stats.samples as f64];
    v.extend(stats.values());
    Ok(v)
}

/// One run: `[samples, <metric>_mean, <metric>_std, ...]`. The GIL is released
/// while it runs. This is the task a Dask worker executes.
#[pyfunction]
pub fn run_point(
    py: Python<'_>,
    text: &str,
    origin: &str,
    overrides: Vec<(String, String)>,
    steps: u64,
    skip: u64,
    every: u64,
) -> PyResult<Vec<f64>> {
    let s = schedule(steps, skip, every)?;
    py.detach(|| one(text, origin, &overrides, s))
        .map_err(scenario_error)
}

/// Many runs in parallel on this machine's cores (results in the given order).
#[pyfunction]
pub fn run_points(
    py: Python<'_>,
    text: &str,
    origin: &str,
    runs: Vec<Vec<(String, String)>>,
    steps: u64,
    skip: u64,
    every: u64,
) -> PyResult<Vec<Vec<f64>>> {
    let s = schedule(steps, skip, every)?;
    py.detach(|| {
        runs.par_iter()
            .map(|o| one(text, origin, o, s))
            .collect::<Result<Vec<_>, _>>()
    })
    .map_err(scenario_error)
}

/// The statistics' column names: `seed, steps, skip, samples, <metric>_mean, ...`.
#[pyfunction]
pub fn stat_columns() -> Vec<String> {
    sweep::stat_columns()
}

/// What `run_ladders` returns: the rungs, the seeds, and per seed per rung the statistics.
type LadderRows = (Vec<(usize, String, String)>, Vec<u64>, Vec<Vec<Vec<f64>>>);

/// A ladder's rungs as `(index, value, "up"|"down")`, the seeds and, per seed (the
/// scenario's seed and the next `seeds − 1`, run in parallel), one row per rung:
/// `[samples, <metric>_mean, <metric>_std, ...]` — the rows of
/// `murmuration ladder`. Every rung's value is validated before any step.
#[allow(
    clippy::too_many_arguments,
    reason = "a Python function with keyword arguments: each one a ladder setting"
)]
#[pyfunction]
#[pyo3(signature = (text, origin, path, values, both_ways, rung_steps, skip, every, seeds))]
pub fn run_ladders(
    py: Python<'_>,
    text: &str,
    origin: &str,
    path: String,
    values: Vec<Bound<'_, PyAny>>,
    both_ways: bool,
    rung_steps: u64,
    skip: u64,
    every: u64,
    seeds: u64,
) -> PyResult<LadderRows> {
    use murmuration::ladder::{Ladder, run_ladder};
    if seeds == 0 {
        return Err(PyValueError::new_err("seeds must be at least 1"));
    }
    let values: Vec<String> = values.iter().map(value_text).collect::<PyResult<_>>()?;
    let ladder = Ladder {
        path,
        values,
        both_ways,
        rung_steps,
        skip,
        every,
    };
    ladder.check().map_err(PyValueError::new_err)?;
    let base = Scenario::parse(text, origin).map_err(scenario_error)?;
    let mut scenarios = Vec::with_capacity(seeds as usize);
    let seed_list: Vec<u64> = (0..seeds).map(|k| base.seed() + k).collect();
    for k in 0..seeds {
        let s = base
            .with_override(Override {
                path: "world.seed".into(),
                value: (base.seed() + k).to_string(),
            })
            .map_err(scenario_error)?;
        scenarios.push(ladder.scenarios(&s).map_err(scenario_error)?);
    }
    let rungs = ladder
        .rungs()
        .into_iter()
        .map(|r| (r.index, r.value, r.direction.name().to_string()))
        .collect();
    let rows = py
        .detach(|| {
            scenarios
                .par_iter()
                .map(|s| run_ladder(s, &ladder, &|| false, &|| ()))
                .collect::<Result<Vec<_>, _>>()
        })
        .map_err(scenario_error)?;
    let rows = rows
        .into_iter()
        .map(|stats| {
            stats
                .expect("a ladder without a stop request finishes")
                .iter()
                .map(|st| {
                    let mut v = vec![st.samples as f64];
                    v.extend(st.values());
                    v
                })
                .collect()
        })
        .collect();
    Ok((rungs, seed_list, rows))
}

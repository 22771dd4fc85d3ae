//! `murmuration._core`: the engine for Python. The `murmuration` package
//! (python/murmuration) wraps it with pandas tables and Dask sweeps; the type
//! stubs (`_core.pyi`) document every function for editors.

mod convert;
mod sweep;
mod world;

use pyo3::prelude::*;

/// The compiled module.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add(
        "SCALAR_METRICS",
        murmuration::metrics::SCALAR_NAMES.to_vec(),
    )?;
    m.add_class::<world::World>()?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::scenario_source, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::plan_runs, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::run_point, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::run_points, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::stat_columns, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::run_ladders, m)?)?;
    m.add_function(wrap_pyfunction!(world::run_metrics, m)?)?;
    Ok(())
}

/// The shipped presets' names, `default` first.
#[pyfunction]
fn presets() -> Vec<&'static str> {
    murmuration::scenario::PRESETS
        .iter()
        .map(|(n, _)| *n)
        .collect()
}

//! `murmuration.World`: a running world of either dimension behind a lock, so
//! one Python thread may step it (without the GIL) while another reads it.
//!
//! `step` releases the GIL and takes the lock once per step; readers take the
//! lock and copy in one pass into a new numpy array. `set` goes through the
//! core's `Scenario::with_override` and `Scenario::retune`: the command line's
//! `--set` validation, then the configuration, species and relations copied
//! into the live world.

use crate::convert::{overrides, scenario_error, value_error, value_text};
use murmuration::scenario::{AnyWorld, Override, Scenario};
use murmuration::{Vector, World2, World3};
use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::sync::{Mutex, MutexGuard};

/// Runs `$body` with `$w` bound to the 2D or 3D world.
macro_rules! with_world {
    ($any:expr, $w:ident => $body:expr) => {
        match $any {
            AnyWorld::D2($w) => $body,
            AnyWorld::D3($w) => $body,
        }
    };
}

struct Inner {
    world: AnyWorld,
    /// The scenario the world was built from (after overrides and `set`); `None`
    /// for a restored snapshot.
    scenario: Option<Scenario>,
    names: Vec<String>,
}

/// A flock: boids, their species' parameters and the world's settings.
///
/// Arrays read from it (`positions`, `velocities`, ...) are copies in ascending
/// boid-id order, taken under the world's lock with one pass over the data.
#[pyclass(frozen, module = "murmuration._core", name = "World")]
pub struct World {
    inner: Mutex<Inner>,
}

impl World {
    fn new(world: AnyWorld, scenario: Option<Scenario>) -> Self {
        let names = match &scenario {
            Some(s) => s.species().iter().map(|(n, _)| n.clone()).collect(),
            None => {
                let k = with_world!(&world, w => w.species().len());
                (0..k).map(|i| i.to_string()).collect()
            }
        };
        Self {
            inner: Mutex::new(Inner {
                world,
                scenario,
                names,
            }),
        }
    }

    fn lock(&self) -> PyResult<MutexGuard<'_, Inner>> {
        self.inner.lock().map_err(|_| {
            PyRuntimeError::new_err("the world's lock was poisoned by a panic in another thread")
        })
    }

    fn build(py: Python<'_>, s: Scenario) -> PyResult<Self> {
        s.check_memory().map_err(scenario_error)?;
        let built = py.detach(|| s.build());
        Ok(Self::new(built.map_err(scenario_error)?, Some(s)))
    }
}

/// `obj` as a path or name: a `str`, or anything `os.fspath` accepts.
fn path_text(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = obj.extract::<String>() {
        return Ok(s);
    }
    let os = obj.py().import("os")?;
    os.call_method1("fspath", (obj,))?.extract()
}

/// The seed (when given) as the first override, as the command line's `--seed`.
fn seeded(seed: Option<u64>, d: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<Override>> {
    let mut o: Vec<Override> = seed
        .map(|s| Override {
            path: "world.seed".into(),
            value: s.to_string(),
        })
        .into_iter()
        .collect();
    o.extend(overrides(d)?);
    Ok(o)
}

/// Which per-boid array to read.
#[derive(Clone, Copy)]
enum Field {
    Positions,
    Velocities,
    Steering,
}

/// `[N, DIM]` float32 array of a per-boid vector in ascending id order. When
/// every id below the next one is alive (no boid was removed), slot `s` goes to
/// row `ids[s]`: one permuting pass from storage straight into the array, without
/// the world's id-ordered view (which gathers all five arrays). Otherwise that
/// view, copied.
fn id_ordered<'py, V: Vector>(
    py: Python<'py>,
    w: &murmuration::World<V>,
    field: Field,
) -> PyResult<Bound<'py, PyArray2<f32>>> {
    let b = w.boids();
    if b.next_id() as usize != b.len() {
        let v = match field {
            Field::Positions => w.positions(),
            Field::Velocities => w.velocities(),
            Field::Steering => w.steering(),
        };
        return vectors(py, v);
    }
    let v = match field {
        Field::Positions => b.positions(),
        Field::Velocities => b.velocities(),
        Field::Steering => b.steering(),
    };
    let a = PyArray2::<f32>::zeros(py, [v.len(), V::DIM], false);
    {
        let mut rw = a.readwrite();
        let out = rw
            .as_slice_mut()
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        for (&id, p) in b.ids().iter().zip(v) {
            let row = id as usize * V::DIM;
            out[row..row + V::DIM].copy_from_slice(&p.to_array3()[..V::DIM]);
        }
    }
    Ok(a)
}

/// `[len, DIM]` float32 array of vectors.
fn vectors<'py, V: Vector>(py: Python<'py>, v: &[V]) -> PyResult<Bound<'py, PyArray2<f32>>> {
    let a = PyArray2::<f32>::zeros(py, [v.len(), V::DIM], false);
    {
        let mut rw = a.readwrite();
        let out = rw
            .as_slice_mut()
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        for (o, p) in out.chunks_exact_mut(V::DIM).zip(v) {
            o.copy_from_slice(&p.to_array3()[..V::DIM]);
        }
    }
    Ok(a)
}

/// Opens a scenario (a path, or a preset's name) with overrides applied.
pub fn open_scenario(
    scenario: &Bound<'_, PyAny>,
    seed: Option<u64>,
    overrides: Option<&Bound<'_, PyDict>>,
) -> PyResult<Scenario> {
    let file = path_text(scenario)?;
    Scenario::resolve(&file, &seeded(seed, overrides)?).map_err(scenario_error)
}

#[pymethods]
impl World {
    /// Builds the world a scenario file or preset describes.
    #[staticmethod]
    #[pyo3(signature = (scenario = None, seed = None, overrides = None))]
    fn from_scenario(
        py: Python<'_>,
        scenario: Option<&Bound<'_, PyAny>>,
        seed: Option<u64>,
        overrides: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let s = match scenario {
            Some(f) => open_scenario(f, seed, overrides)?,
            None => Scenario::parse_with(
                murmuration::scenario::PRESETS[0].1,
                "<default>",
                &seeded(seed, overrides)?,
            )
            .map_err(scenario_error)?,
        };
        Self::build(py, s)
    }

    /// Builds the world scenario text describes.
    #[staticmethod]
    #[pyo3(signature = (text, seed = None, overrides = None, origin = "<toml>"))]
    fn from_toml(
        py: Python<'_>,
        text: &str,
        seed: Option<u64>,
        overrides: Option<&Bound<'_, PyDict>>,
        origin: &str,
    ) -> PyResult<Self> {
        let s = Scenario::parse_with(text, origin, &seeded(seed, overrides)?)
            .map_err(scenario_error)?;
        Self::build(py, s)
    }

    /// A world from snapshot bytes (`snapshot()`, or a file written by
    /// `murmuration run --snapshot`).
    #[staticmethod]
    fn restore(py: Python<'_>, data: &[u8]) -> PyResult<Self> {
        let world = py.detach(|| match World2::from_snapshot_bytes(data) {
            Ok(w) => Ok(AnyWorld::D2(w)),
            Err(e2) => World3::from_snapshot_bytes(data)
                .map(AnyWorld::D3)
                .map_err(|e3| {
                    if data.len() >= 16 && data[12..16] == [3, 0, 0, 0] {
                        e3
                    } else {
                        e2
                    }
                }),
        });
        Ok(Self::new(world.map_err(value_error)?, None))
    }

    /// Advances `n` steps. The GIL is released while the world steps; Ctrl-C
    /// stops between steps (KeyboardInterrupt).
    #[pyo3(signature = (n = 1))]
    fn step(&self, py: Python<'_>, n: u64) -> PyResult<()> {
        for _ in 0..n {
            py.detach(|| -> PyResult<()> {
                let mut g = self.lock()?;
                with_world!(&mut g.world, w => { w.step(); });
                Ok(())
            })?;
            if n > 1 {
                py.check_signals()?;
            }
        }
        Ok(())
    }

    /// Positions, float32 `[N, dim]`, ascending boid id (a copy).
    #[getter]
    fn positions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let g = self.lock()?;
        with_world!(&g.world, w => id_ordered(py, w, Field::Positions))
    }

    /// Velocities, float32 `[N, dim]`, units/s (a copy).
    #[getter]
    fn velocities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let g = self.lock()?;
        with_world!(&g.world, w => id_ordered(py, w, Field::Velocities))
    }

    /// Steering acceleration of the last step, float32 `[N, dim]`, units/s² (a copy).
    #[getter]
    fn steering<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let g = self.lock()?;
        with_world!(&g.world, w => id_ordered(py, w, Field::Steering))
    }

    /// Each boid's species index, uint16 `[N]` (names in `species_names`).
    #[getter]
    fn species<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<u16>>> {
        let g = self.lock()?;
        Ok(with_world!(&g.world, w => {
            let b = w.boids();
            if b.next_id() as usize == b.len() {
                // Every id alive: slot s goes to index ids[s], one pass.
                let mut out = vec![0u16; b.len()];
                for (&id, &sp) in b.ids().iter().zip(b.species()) {
                    out[id as usize] = sp;
                }
                PyArray1::from_vec(py, out)
            } else {
                PyArray1::from_slice(py, w.boid_species())
            }
        }))
    }

    /// Each boid's id, uint32 `[N]`, ascending (eaten boids' ids are absent).
    #[getter]
    fn ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<u32>>> {
        let g = self.lock()?;
        Ok(with_world!(&g.world, w => {
            let b = w.boids();
            if b.next_id() as usize == b.len() {
                PyArray1::from_vec(py, (0..b.next_id()).collect())
            } else {
                PyArray1::from_slice(py, w.ids())
            }
        }))
    }

    /// The species' names, in index order (`"0"`, `"1"`, ... for a restored snapshot).
    #[getter]
    fn species_names(&self) -> PyResult<Vec<String>> {
        Ok(self.lock()?.names.clone())
    }

    /// 2 or 3.
    #[getter]
    fn dim(&self) -> PyResult<usize> {
        Ok(dimension(&self.lock()?.world))
    }

    /// Steps taken since the world was built.
    #[getter]
    fn step_index(&self) -> PyResult<u64> {
        Ok(with_world!(&self.lock()?.world, w => w.step_index()))
    }

    /// Simulated time, seconds.
    #[getter]
    fn time(&self) -> PyResult<f64> {
        Ok(with_world!(&self.lock()?.world, w => w.time()))
    }

    /// The boid count.
    fn __len__(&self) -> PyResult<usize> {
        Ok(with_world!(&self.lock()?.world, w => w.len()))
    }

    fn __repr__(&self) -> PyResult<String> {
        let g = self.lock()?;
        let (n, step) = with_world!(&g.world, w => (w.len(), w.step_index()));
        let d = dimension(&g.world);
        let origin = g
            .scenario
            .as_ref()
            .map(|s| s.origin().to_string())
            .unwrap_or_else(|| "snapshot".into());
        Ok(format!(
            "<murmuration.World {d}D, {n} boids, step {step}, from {origin}>"
        ))
    }

    /// The field-study analyses of the flock now (`murmuration analyse`, one
    /// snapshot): `size`, `correlation_length`, `correlation` (r, C, pairs per
    /// bin), `anisotropy` and `forward_fraction` per neighbour rank,
    /// `isotropic_anisotropy`, `interaction_neighbours`, `shape`,
    /// `density_profile` (depth, nn_distance, density per shell). The GIL is
    /// released while it measures (every pair: O(N²)).
    #[pyo3(signature = (bins=40, ranks=20, shells=5))]
    fn field_analysis<'py>(
        &self,
        py: Python<'py>,
        bins: usize,
        ranks: usize,
        shells: usize,
    ) -> PyResult<Bound<'py, PyDict>> {
        if bins == 0 || shells == 0 {
            return Err(PyValueError::new_err("bins and shells must be at least 1"));
        }
        let opts = murmuration::field::FieldOptions {
            bins,
            ranks,
            shells,
        };
        let a = py.detach(|| -> PyResult<_> {
            let g = self.lock()?;
            Ok(with_world!(&g.world, w => murmuration::field::analyse(w.positions(), w.velocities(), opts)))
        })?;
        let d = PyDict::new(py);
        d.set_item("count", a.count)?;
        d.set_item("dim", a.dim)?;
        d.set_item("size", a.size)?;
        let c = PyDict::new(py);
        c.set_item("r", a.correlation.iter().map(|b| b.r).collect::<Vec<_>>())?;
        c.set_item("c", a.correlation.iter().map(|b| b.c).collect::<Vec<_>>())?;
        c.set_item(
            "pairs",
            a.correlation.iter().map(|b| b.pairs).collect::<Vec<_>>(),
        )?;
        d.set_item("correlation", c)?;
        d.set_item("correlation_length", a.correlation_length)?;
        d.set_item("anisotropy", a.anisotropy)?;
        d.set_item("forward_fraction", a.forward_fraction)?;
        d.set_item("isotropic_anisotropy", a.isotropic_anisotropy)?;
        d.set_item("interaction_neighbours", a.interaction_neighbours)?;
        d.set_item("shape", a.shape)?;
        let p = PyDict::new(py);
        let shells = &a.density_profile;
        p.set_item("depth", shells.iter().map(|s| s.depth).collect::<Vec<_>>())?;
        p.set_item(
            "nn_distance",
            shells.iter().map(|s| s.nn_distance).collect::<Vec<_>>(),
        )?;
        p.set_item(
            "density",
            shells.iter().map(|s| s.density).collect::<Vec<_>>(),
        )?;
        d.set_item("density_profile", p)?;
        Ok(d)
    }

    /// Every scalar metric by name, then `zone_0`, ... (the metrics CSV's columns).
    fn metrics<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let g = self.lock()?;
        let (names, row) = with_world!(&g.world, w => (
            murmuration::metrics::table_columns(w.zones().len()),
            w.metrics_row(),
        ));
        let d = PyDict::new(py);
        for (k, v) in names.iter().zip(row).skip(2) {
            d.set_item(k, v)?;
        }
        Ok(d)
    }

    /// Changes a parameter by its scenario path, as `--set PATH=VALUE` would
    /// (`species.fish.alignment_weight`, `world.dt`, `relations.shark.fish`),
    /// keeping the boids. A bad path or value is a ValueError naming it.
    fn set(&self, path: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let value = value_text(value)?;
        let mut g = self.lock()?;
        let inner = &mut *g;
        let Some(before) = &inner.scenario else {
            return Err(PyValueError::new_err(
                "a world restored from a snapshot has no scenario to set paths in; build it with World.from_scenario to use set()",
            ));
        };
        let after = before
            .with_override(Override {
                path: path.to_string(),
                value,
            })
            .map_err(scenario_error)?;
        with_world!(&mut inner.world, w => after.retune(before, w)).map_err(scenario_error)?;
        inner.scenario = Some(after);
        Ok(())
    }

    /// The whole world as snapshot bytes (the `--snapshot` file format).
    fn snapshot<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let g = self.lock()?;
        let bytes = with_world!(&g.world, w => w.to_snapshot_bytes());
        Ok(PyBytes::new(py, &bytes))
    }

    /// The state digest, 16 hex digits: the one `murmuration run` prints.
    fn digest(&self) -> PyResult<String> {
        Ok(format!(
            "{:016x}",
            with_world!(&self.lock()?.world, w => w.digest())
        ))
    }

    /// Steps `steps` times and returns the metrics table's columns and its rows
    /// (float64 `[rows, columns]`): step 0, then every `every` steps.
    #[pyo3(signature = (steps, every = 1))]
    fn record<'py>(
        &self,
        py: Python<'py>,
        steps: u64,
        every: u64,
    ) -> PyResult<(Vec<String>, Bound<'py, PyArray2<f64>>)> {
        if every == 0 {
            return Err(PyValueError::new_err("every must be at least 1"));
        }
        let (columns, mut rows) = {
            let g = self.lock()?;
            with_world!(&g.world, w => (
                murmuration::metrics::table_columns(w.zones().len()),
                w.metrics_row(),
            ))
        };
        let width = columns.len();
        let mut done = 0;
        while done < steps {
            let k = (steps - done).min(every - done % every);
            let row = py.detach(|| -> PyResult<Option<Vec<f64>>> {
                let mut g = self.lock()?;
                Ok(with_world!(&mut g.world, w => {
                    w.step_n(k);
                    (done + k).is_multiple_of(every).then(|| w.metrics_row())
                }))
            })?;
            done += k;
            if let Some(r) = row {
                if r.len() != width {
                    return Err(PyRuntimeError::new_err(
                        "the zone count changed while recording",
                    ));
                }
                rows.extend(r);
            }
            py.check_signals()?;
        }
        let n = rows.len() / width;
        let a = PyArray1::from_vec(py, rows).reshape([n, width])?;
        Ok((columns, a))
    }
}

/// `run(scenario, steps, every, seed, overrides)`: a fresh world's metrics table.
#[pyfunction]
#[pyo3(signature = (scenario, steps, every = 1, seed = None, overrides = None))]
pub fn run_metrics<'py>(
    py: Python<'py>,
    scenario: &Bound<'py, PyAny>,
    steps: u64,
    every: u64,
    seed: Option<u64>,
    overrides: Option<&Bound<'py, PyDict>>,
) -> PyResult<(Vec<String>, Bound<'py, PyArray2<f64>>)> {
    let s = open_scenario(scenario, seed, overrides)?;
    let w = World::build(py, s)?;
    w.record(py, steps, every)
}

fn dimension(w: &AnyWorld) -> usize {
    match w {
        AnyWorld::D2(_) => 2,
        AnyWorld::D3(_) => 3,
    }
}

//! Python values to the command line's override text, and the engine's errors
//! to Python exceptions.

use murmuration::error_chain;
use murmuration::scenario::Override;
use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// A Python value as `--set PATH=VALUE` would write it: booleans as `true` and
/// `false`, numbers in full precision, strings as given (TOML or a bare word, as
/// on the command line), lists and tuples as TOML arrays, dicts as inline tables.
pub fn value_text(v: &Bound<'_, PyAny>) -> PyResult<String> {
    if v.is_instance_of::<PyBool>() {
        return Ok(if v.extract::<bool>()? {
            "true"
        } else {
            "false"
        }
        .into());
    }
    if v.is_instance_of::<PyInt>() {
        return Ok(v.str()?.to_string());
    }
    if v.is_instance_of::<PyFloat>() {
        let x: f64 = v.extract()?;
        // Rust's shortest round-trip form; TOML reads `nan` and `inf` too, and
        // the scenario's checks then refuse them with the field's range.
        return Ok(if x.is_finite() {
            format!("{x:?}")
        } else if x.is_nan() {
            "nan".into()
        } else if x > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        });
    }
    if v.is_instance_of::<PyString>() {
        return v.extract::<String>();
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let items: PyResult<Vec<String>> = v.try_iter()?.map(|x| value_text(&x?)).collect();
        return Ok(format!("[{}]", items?.join(", ")));
    }
    if let Ok(d) = v.cast::<PyDict>() {
        let mut items = Vec::new();
        for (k, x) in d.iter() {
            let k: String = k
                .extract()
                .map_err(|_| PyTypeError::new_err("the keys of a table value must be strings"))?;
            items.push(format!("{} = {}", toml_string(&k), value_text(&x)?));
        }
        return Ok(format!("{{ {} }}", items.join(", ")));
    }
    // numpy scalars and other numbers: anything float() accepts.
    if let Ok(x) = v.call_method0("__float__").and_then(|f| f.extract::<f64>()) {
        return value_text(&PyFloat::new(v.py(), x).into_any());
    }
    Err(PyTypeError::new_err(format!(
        "a scenario value must be a bool, number, string or list, not {}",
        v.get_type().name()?
    )))
}

/// `s` as a TOML basic string: quoted, with `"`, backslashes and control characters escaped.
fn toml_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `{"path": value, ...}` (or `None`) as overrides, in the dict's order.
pub fn overrides(d: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<Override>> {
    let mut out = Vec::new();
    if let Some(d) = d {
        for (k, v) in d.iter() {
            let path: String = k.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "override paths are strings like \"species.fish.max_speed\", not {}",
                    k.repr().map(|r| r.to_string()).unwrap_or_default()
                ))
            })?;
            out.push(Override {
                path,
                value: value_text(&v)?,
            });
        }
    }
    Ok(out)
}

/// A scenario error as `ValueError`, or `OSError` when the file could not be read.
pub fn scenario_error(e: murmuration::ScenarioError) -> PyErr {
    match &e {
        murmuration::ScenarioError::Read { .. } | murmuration::ScenarioError::NotFound { .. } => {
            let chain = error_chain(&e);
            if matches!(e, murmuration::ScenarioError::NotFound { .. }) {
                PyValueError::new_err(chain)
            } else {
                PyOSError::new_err(chain)
            }
        }
        _ => PyValueError::new_err(error_chain(&e)),
    }
}

/// Any other engine error as `ValueError`.
pub fn value_error(e: impl std::error::Error) -> PyErr {
    PyValueError::new_err(error_chain(&e))
}

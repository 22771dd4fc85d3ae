//! Parameter schedules: a species parameter set at a given step, or ramped
//! linearly between two steps, with the state carried over — so one run can go
//! up and back down a control parameter (hysteresis, Couzin et al. 2002, Fig. 4).
//! Part of the world: snapshots keep it, and a resumed run continues it.

use crate::error::ParamError;
use crate::params::SpeciesParams;
use crate::params::fields::species_field;
use crate::params::model::{ModelKind, model_field};
use serde::{Deserialize, Serialize};

/// One change of one species parameter over time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Change {
    /// Index of the species whose parameter changes.
    pub species: u16,
    /// The parameter's key (a number of the species' model: `eta`,
    /// `delta_r_o`, `separation_weight`, …).
    pub key: String,
    /// The first step that sees `values.0`.
    pub from: u64,
    /// The step that sees `values.1` and every later step (`from` for a jump).
    pub to: u64,
    /// Values at `from` and `to`; in between, linear in the step.
    pub values: (f32, f32),
}

impl Change {
    /// The value at `step`, or None before the change starts.
    pub fn value_at(&self, step: u64) -> Option<f32> {
        if step < self.from {
            return None;
        }
        if step >= self.to {
            return Some(self.values.1);
        }
        let t = (step - self.from) as f64 / (self.to - self.from) as f64;
        let (a, b) = (self.values.0 as f64, self.values.1 as f64);
        Some((a + (b - a) * t) as f32)
    }

    /// Checks the change against the species it names (`field` names it in
    /// messages, e.g. `schedule[0]`).
    pub fn validate(&self, species: &[SpeciesParams], field: &str) -> Result<(), ParamError> {
        let Some(sp) = species.get(self.species as usize) else {
            return Err(ParamError::OutOfRange {
                field: format!("{field}.species"),
                value: self.species as f64,
                range: format!("a species index below {}", species.len()),
            });
        };
        if self.to < self.from {
            return Err(ParamError::Exceeds {
                field: format!("{field}.from"),
                value: self.from as f64,
                limit_field: format!("{field}.to"),
                limit: self.to as f64,
            });
        }
        for v in [self.values.0, self.values.1] {
            let mut trial = *sp;
            set(&mut trial, &self.key, v).map_err(|reason| ParamError::Invalid {
                field: format!("{field}.set"),
                reason,
            })?;
            let prefix = format!("{field}.species[{}]", self.species);
            let checked = trial
                .model
                .validate_fields(&prefix)
                .and_then(|_| trial.validate(&prefix));
            checked.map_err(|e| ParamError::Invalid {
                field: format!("{field}.value"),
                reason: format!("{} = {v} gives an invalid species: {e}", self.key),
            })?;
        }
        Ok(())
    }
}

/// Sets parameter `key` of `p` to `v` (a research model's species then
/// derives its rule radii and speed again), or says why there is no such
/// number.
pub(crate) fn set(p: &mut SpeciesParams, key: &str, v: f32) -> Result<(), String> {
    let kind = p.model.kind();
    if kind == ModelKind::Reynolds {
        let f = species_field(key)
            .ok_or_else(|| format!("{key:?} is not a numeric parameter of the reynolds model"))?;
        *(f.get_mut)(p) = v;
        return Ok(());
    }
    let f = model_field(kind, key).ok_or_else(|| {
        format!(
            "{key:?} is not a numeric parameter of the {} model",
            kind.name()
        )
    })?;
    if let Some(x) = (f.get_mut)(&mut p.model) {
        *x = v;
    }
    *p = SpeciesParams::of_model(p.model);
    Ok(())
}

/// Applies every change in effect at `step` to `species`: per parameter, the
/// change that started last (ties: the later one in the list). A value that
/// would make a species invalid (a bound between two parameters crossed during
/// ramps) is not applied.
pub(crate) fn apply(changes: &[Change], species: &mut [SpeciesParams], step: u64) {
    for (i, c) in changes.iter().enumerate() {
        let Some(v) = c.value_at(step) else {
            continue;
        };
        let superseded = changes[i + 1..].iter().any(|d| {
            d.species == c.species && d.key == c.key && d.from >= c.from && d.from <= step
        }) || changes[..i]
            .iter()
            .any(|d| d.species == c.species && d.key == c.key && d.from > c.from && d.from <= step);
        if superseded {
            continue;
        }
        let Some(sp) = species.get_mut(c.species as usize) else {
            continue;
        };
        let mut trial = *sp;
        if set(&mut trial, &c.key, v).is_ok() && trial.validate("species").is_ok() {
            *sp = trial;
        }
    }
}

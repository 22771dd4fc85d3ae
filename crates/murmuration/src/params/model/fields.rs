//! The research models' parameter table: one row per number of each model, with
//! its scenario key, the paper's symbol, unit, range and meaning. The one source
//! of those facts: validation, schedules (`set = "species.NAME.KEY"`) and the
//! table in `docs/RESEARCH.md` (held to it by a test) read it.

use super::{Model, ModelKind};
use crate::error::ParamError;
use crate::params::range::{Range, range};

/// One numeric parameter of a research model.
#[derive(Clone, Copy, Debug)]
pub struct ModelField {
    /// The model it belongs to.
    pub model: ModelKind,
    /// The key in scenario files and `--set` paths (`eta`).
    pub key: &'static str,
    /// The paper's symbol (`η`).
    pub symbol: &'static str,
    /// Unit (`rad`, `units/s`, `—`).
    pub unit: &'static str,
    /// The valid range.
    pub range: Range,
    /// One sentence for the documentation table.
    pub meaning: &'static str,
    /// Reads the field (None when `m` is another model).
    pub get: fn(&Model) -> Option<f32>,
    /// The field, to change it (None when `m` is another model).
    pub get_mut: fn(&mut Model) -> Option<&mut f32>,
}

macro_rules! mrow {
    ($variant:ident, $key:ident, $symbol:literal, $unit:literal,
     $lo:ident $min:literal, $max:expr, $hi:ident, $meaning:literal) => {
        ModelField {
            model: ModelKind::$variant,
            key: stringify!($key),
            symbol: $symbol,
            unit: $unit,
            range: range!($lo $min, $max, $hi),
            meaning: $meaning,
            get: {
                fn get(m: &Model) -> Option<f32> {
                    match m {
                        Model::$variant(p) => Some(p.$key),
                        _ => None,
                    }
                }
                get
            },
            get_mut: {
                fn get_mut(m: &mut Model) -> Option<&mut f32> {
                    match m {
                        Model::$variant(p) => Some(&mut p.$key),
                        _ => None,
                    }
                }
                get_mut
            },
        }
    };
}

/// Every numeric parameter of every research model, model by model.
pub const MODEL_FIELDS: [ModelField; 24] = [
    mrow!(Vicsek, v0, "v₀", "units/s", open 0.0, 1e5, closed,
        "The constant speed of every particle."),
    mrow!(Vicsek, r, "r", "units", open 0.0, 1e4, closed,
        "Interaction radius: a particle aligns with all within r (itself included)."),
    mrow!(Vicsek, eta, "η", "rad", closed 0.0, std::f32::consts::TAU, closed,
        "Noise amplitude: the new heading gets a uniform angle in [−η/2, η/2]."),
    mrow!(Couzin, r_r, "r_r", "units", open 0.0, 1e4, closed,
        "Radius of the zone of repulsion."),
    mrow!(Couzin, delta_r_o, "Δr_o", "units", closed 0.0, 1e4, closed,
        "Width of the zone of orientation (r_o = r_r + Δr_o)."),
    mrow!(Couzin, delta_r_a, "Δr_a", "units", closed 0.0, 1e4, closed,
        "Width of the zone of attraction (r_a = r_o + Δr_a)."),
    mrow!(Couzin, alpha, "α", "degrees", open 0.0, 360.0, closed,
        "Field of perception; the blind volume behind is 360° − α."),
    mrow!(Couzin, theta, "θ", "degrees/s", open 0.0, 1e5, closed,
        "Maximum turning rate: at most θτ per step."),
    mrow!(Couzin, s, "s", "units/s", open 0.0, 1e5, closed,
        "The constant speed of every individual."),
    mrow!(Couzin, sigma, "σ", "rad", closed 0.0, 10.0, closed,
        "Standard deviation of the Gaussian rotation of the desired direction."),
    mrow!(Dorsogna, alpha, "α", "1/s", open 0.0, 1e4, closed,
        "Self-propulsion: the (α − β v²) v force."),
    mrow!(Dorsogna, beta, "β", "s/units²", open 0.0, 1e4, closed,
        "Friction: the free speed is √(α/β)."),
    mrow!(Dorsogna, c_r, "C_r", "units²/s²", closed 0.0, 1e6, closed,
        "Strength of the Morse repulsion."),
    mrow!(Dorsogna, l_r, "l_r", "units", open 0.0, 1e4, closed,
        "Length of the Morse repulsion."),
    mrow!(Dorsogna, c_a, "C_a", "units²/s²", closed 0.0, 1e6, closed,
        "Strength of the Morse attraction."),
    mrow!(Dorsogna, l_a, "l_a", "units", open 0.0, 1e4, closed,
        "Length of the Morse attraction."),
    mrow!(Dorsogna, mass, "m", "—", open 0.0, 1e6, closed,
        "Mass of every particle."),
    mrow!(Dorsogna, cutoff, "r_c", "units", open 0.0, 1e4, closed,
        "Pairs farther apart than this do not interact (the potential is cut off)."),
    mrow!(AbmFlocking, speed, "speed", "units/step", open 0.0, 1e5, closed,
        "Distance a bird moves per step (per unit of world.dt)."),
    mrow!(AbmFlocking, cohere_factor, "cohere_factor", "—", closed 0.0, 1e3, closed,
        "Weight of the mean offset to the neighbours."),
    mrow!(AbmFlocking, separation, "separation", "units", closed 0.0, 1e4, closed,
        "Neighbours closer than this are pushed away from."),
    mrow!(AbmFlocking, separate_factor, "separate_factor", "—", closed 0.0, 1e3, closed,
        "Weight of the separation vector."),
    mrow!(AbmFlocking, match_factor, "match_factor", "—", closed 0.0, 1e3, closed,
        "Weight of the neighbours' mean heading."),
    mrow!(AbmFlocking, visual_distance, "visual_distance", "units", open 0.0, 1e4, closed,
        "Neighbours within this distance (inclusive) are seen."),
];

/// The row of `key` in `model`, if it is one of its numbers.
pub fn model_field(model: ModelKind, key: &str) -> Option<&'static ModelField> {
    MODEL_FIELDS
        .iter()
        .find(|f| f.model == model && f.key == key)
}

impl ModelField {
    /// The row of the parameter table in `docs/RESEARCH.md`.
    pub fn markdown_row(&self) -> String {
        format!(
            "| `{}` | `{}` | {} | {} | `{}` | {} |",
            self.model.name(),
            self.key,
            self.symbol,
            self.unit,
            self.range.text(),
            self.meaning
        )
    }

    /// Checks the field of `m` (`prefix` names the species): finite and in range.
    pub fn check(&self, m: &Model, prefix: &str) -> Result<(), ParamError> {
        let Some(v) = (self.get)(m) else {
            return Ok(());
        };
        self.range.check(v, || format!("{prefix}.{}", self.key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `docs/RESEARCH.md`'s parameter table is this table, row for row.
    #[test]
    fn the_research_table_is_the_model_table() {
        let doc = include_str!("../../../../../docs/RESEARCH.md");
        let rows: Vec<String> = MODEL_FIELDS.iter().map(ModelField::markdown_row).collect();
        let documented: Vec<&str> = doc
            .lines()
            .filter(|l| l.starts_with("| `") && l.matches('|').count() == 7)
            .collect();
        assert_eq!(documented, rows, "regenerate the table from MODEL_FIELDS");
    }

    #[test]
    fn accessors_reach_their_own_model_and_field() {
        for f in &MODEL_FIELDS {
            let mut m = Model::default_of(f.model);
            *(f.get_mut)(&mut m).unwrap() = 123.5;
            assert_eq!((f.get)(&m), Some(123.5), "{}", f.key);
            let other = if f.model == ModelKind::Vicsek {
                ModelKind::Couzin
            } else {
                ModelKind::Vicsek
            };
            assert_eq!((f.get)(&Model::default_of(other)), None);
        }
    }
}

//! The species parameter table: one row per numeric field of [`SpeciesParams`]
//! with its key, label, unit, range, scale, panel group and accessors. It is the
//! one source of those facts: [`SpeciesParams::validate`] checks each row, the
//! sandbox draws one slider per row, and a test holds `docs/SCENARIOS.md`'s table
//! to [`Field::markdown_row`]. A new parameter is a struct field plus a row here.

pub use super::range::Range;
use super::range::range;
use crate::error::ParamError;
use crate::params::SpeciesParams;

/// Where a field sits in a tuning panel: the essentials first, the rest
/// folded away under "advanced".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldGroup {
    /// The three rules' weights and radii, top speed, steering force and field
    /// of view: always shown.
    Essentials,
    /// Minimum and cruise speed, jitter, wander, smoothing: advanced.
    Motion,
    /// Banked flight (roll rate, bank, gravity): advanced, and 3D worlds only.
    Flight,
    /// Obstacles, flee, chase and follow: advanced.
    Behaviours,
}

impl FieldGroup {
    /// True when a world of `dimension` (2 or 3) uses this group's fields: a
    /// panel hides banked flight on 2D worlds, where it does nothing.
    pub fn applies_to(self, dimension: usize) -> bool {
        self != Self::Flight || dimension == 3
    }

    /// The group's name in a panel (`essentials`, `motion`, `banked flight (3D)`, `behaviours`).
    pub fn title(self) -> &'static str {
        match self {
            Self::Essentials => "essentials",
            Self::Motion => "motion",
            Self::Flight => "banked flight (3D)",
            Self::Behaviours => "behaviours",
        }
    }
}

/// Reads one number of a species' parameters.
pub type Reader = fn(&SpeciesParams) -> f32;

/// One numeric species parameter.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    /// The key in scenario files and `--set` paths (`separation_radius`).
    pub key: &'static str,
    /// Short label for a slider (`separation radius`).
    pub label: &'static str,
    /// Unit as the documentation writes it (`units/s`, `—` for none).
    pub unit: &'static str,
    /// The valid range.
    pub range: Range,
    /// True when a slider should move on a logarithmic scale.
    pub log: bool,
    /// Panel group.
    pub group: FieldGroup,
    /// Another quantity this field must not exceed: its name in messages and how
    /// to read it (`min_speed` ≤ `max_speed`).
    pub bound: Option<(&'static str, Reader)>,
    /// One sentence for the documentation table.
    pub meaning: &'static str,
    /// Reads the field.
    pub get: Reader,
    /// The field, for a slider to bind to.
    pub get_mut: fn(&mut SpeciesParams) -> &mut f32,
}

/// One row: key, label, unit, range (`open 0.0, 1e4 closed` is `(0, 10⁴]`), log
/// scale, group, bound and meaning.
macro_rules! row {
    ($key:ident, $label:literal, $unit:literal, $lo:ident $min:literal, $max:literal $hi:ident,
     $log:literal, $group:ident, $bound:expr, $meaning:literal) => {
        Field {
            key: stringify!($key),
            label: $label,
            unit: $unit,
            range: range!($lo $min, $max, $hi),
            log: $log,
            group: FieldGroup::$group,
            bound: $bound,
            meaning: $meaning,
            get: {
                fn get(p: &SpeciesParams) -> f32 {
                    p.$key
                }
                get
            },
            get_mut: {
                fn get_mut(p: &mut SpeciesParams) -> &mut f32 {
                    &mut p.$key
                }
                get_mut
            },
        }
    };
}

fn perception(p: &SpeciesParams) -> f32 {
    p.alignment_radius.max(p.cohesion_radius)
}

fn max_speed(p: &SpeciesParams) -> f32 {
    p.max_speed
}

/// Every real-valued field of [`SpeciesParams`], in declaration order (`steering`
/// and `combine`, enums, and the whole number `topological_neighbours` are the
/// fields not listed).
pub const SPECIES_FIELDS: [Field; 32] = [
    row!(separation_radius, "separation radius", "units", open 0.0, 1e4 closed, true, Essentials,
        Some(("perception_radius", perception)),
        "Neighbours closer than this push away, harder the closer they are."),
    row!(alignment_radius, "alignment radius", "units", open 0.0, 1e4 closed, true, Essentials, None,
        "Match the mean velocity of neighbours within it."),
    row!(cohesion_radius, "cohesion radius", "units", open 0.0, 1e4 closed, true, Essentials, None,
        "Steer toward the centre of neighbours within it."),
    row!(separation_weight, "separation weight", "—", closed 0.0, 1e3 closed, true, Essentials, None,
        "Weight of separation."),
    row!(alignment_weight, "alignment weight", "—", closed 0.0, 1e3 closed, true, Essentials, None,
        "Weight of alignment."),
    row!(cohesion_weight, "cohesion weight", "—", closed 0.0, 1e3 closed, true, Essentials, None,
        "Weight of cohesion."),
    row!(max_speed, "max speed", "units/s", open 0.0, 1e5 closed, true, Essentials, None,
        "Speed limit."),
    row!(min_speed, "min speed", "units/s", closed 0.0, 1e5 closed, false, Motion,
        Some(("max_speed", max_speed)),
        "Boids never go slower (0 lets them stop)."),
    row!(max_force, "max force", "units/s²", open 0.0, 1e7 closed, true, Essentials, None,
        "Largest steering acceleration."),
    row!(fov_degrees, "field of view °", "degrees", open 0.0, 360.0 closed, false, Essentials, None,
        "Vision cone: a neighbour counts only within half this angle of the heading."),
    row!(jitter, "jitter", "fraction of `max_speed`", closed 0.0, 1.0 closed, true, Motion, None,
        "Random velocity kick each step (seeds suggest ≤ 0.02)."),
    row!(cruise_speed, "cruise speed", "units/s", closed 0.0, 1e5 closed, false, Motion, None,
        "Preferred speed boids relax toward along their heading (above `max_speed`: to it); 0 turns it off."),
    row!(cruise_time, "cruise time s", "s", open 0.0, 60.0 closed, true, Motion, None,
        "Relaxation time toward the cruise speed: `(cruise − speed) / this` accelerates."),
    row!(wander_weight, "wander weight", "—", closed 0.0, 1e3 closed, true, Motion, None,
        "Steers toward the heading plus a smoothly turning keyed random direction; 0 never wanders."),
    row!(wander_period, "wander period s", "s", open 0.0, 1e4 closed, true, Motion, None,
        "A wanderer's random direction passes a new keyed direction every this many seconds."),
    row!(roll_rate, "roll rate °/s", "degrees/s", closed 0.0, 3600.0 closed, false, Flight, None,
        "Banked flight (3D): turns by rolling the lift toward the bank the steering asks for, at most this fast; 0 steers a point mass."),
    row!(max_bank, "max bank °", "degrees", open 0.0, 89.0 closed, false, Flight, None,
        "Steepest bank of banked flight."),
    row!(gravity, "gravity", "units/s²", closed 0.0, 1e4 closed, false, Flight, None,
        "Gravity of banked flight; the lift is `gravity · (speed / cruise_speed)²`."),
    row!(smoothing, "smoothing", "—", closed 0.0, 1.0 open, false, Motion, None,
        "Exponential smoothing of the applied steering."),
    row!(obstacle_weight, "obstacle weight", "—", closed 0.0, 1e3 closed, true, Behaviours, None,
        "Weight of obstacle avoidance (boids never enter an obstacle whatever it is)."),
    row!(obstacle_lookahead, "look-ahead s", "s", closed 0.0, 60.0 closed, true, Behaviours, None,
        "How far ahead along the velocity a boid looks for obstacles."),
    row!(obstacle_margin, "obstacle margin", "units", open 0.0, 1e4 closed, true, Behaviours, None,
        "Distance from a surface at which avoidance starts."),
    row!(flee_radius, "flee radius", "units", open 0.0, 1e4 closed, true, Behaviours, None,
        "How far this species sees what it flees from."),
    row!(flee_weight, "flee weight", "—", closed 0.0, 1e3 closed, true, Behaviours, None,
        "Weight of fleeing."),
    row!(fear, "fear", "—", closed 0.0, 1.0 closed, false, Behaviours, None,
        "How far a threat in sight lifts the cruise speed toward max speed (0 calm, 1 full flight)."),
    row!(chase_radius, "chase radius", "units", open 0.0, 1e4 closed, true, Behaviours, None,
        "How far this species sees what it chases (inside its field of view)."),
    row!(chase_weight, "chase weight", "—", closed 0.0, 1e3 closed, true, Behaviours, None,
        "Weight of chasing."),
    row!(eat_radius, "eat radius", "units", closed 0.0, 1e4 closed, true, Behaviours, None,
        "A chaser eats a target closer than this after its move; 0 never eats."),
    row!(straggler_preference, "straggler preference", "—", closed 0.0, 100.0 closed, true,
        Behaviours, None,
        "A target's distance is scaled by `1 + this × its flockmates`: chasers pick stragglers."),
    row!(confusion, "confusion crowd", "—", closed 0.0, 4096.0 closed, false, Behaviours, None,
        "A chaser neither chases nor eats a target with at least this many flockmates near it; 0 spares none."),
    row!(follow_radius, "follow radius", "units", open 0.0, 1e4 closed, true, Behaviours, None,
        "How far this species sees a leader it follows."),
    row!(follow_weight, "follow weight", "—", closed 0.0, 1e3 closed, true, Behaviours, None,
        "Weight of following."),
];

impl Field {
    /// Checks the field of `p` (`prefix` names the species): finite, in range, and
    /// not above its bound.
    pub fn check(&self, p: &SpeciesParams, prefix: &str) -> Result<(), ParamError> {
        self.range
            .check((self.get)(p), || format!("{prefix}.{}", self.key))
    }

    /// Checks the field's bound, after every field is in range.
    pub fn check_bound(&self, p: &SpeciesParams, prefix: &str) -> Result<(), ParamError> {
        let Some((name, limit)) = self.bound else {
            return Ok(());
        };
        let (v, limit) = ((self.get)(p), limit(p));
        if v > limit {
            return Err(ParamError::Exceeds {
                field: format!("{prefix}.{}", self.key),
                value: v as f64,
                limit_field: format!("{prefix}.{name}"),
                limit: limit as f64,
            });
        }
        Ok(())
    }

    /// Slider ends: the range, with an open end pulled just inside (10⁻³ above an
    /// open zero on a log scale, a 360th of the span on a linear one; a hundredth
    /// of the span below an open top), and the bound applied.
    pub fn slider_range(&self, p: &SpeciesParams) -> (f32, f32) {
        let r = &self.range;
        let span = r.max - r.min;
        let lo = match (r.min_open, self.log) {
            (false, _) => r.min,
            (true, true) => r.min + 1e-3,
            (true, false) => r.min + span / 360.0,
        };
        let mut hi = if r.max_open {
            r.max - span / 100.0
        } else {
            r.max
        };
        if let Some((_, limit)) = self.bound {
            hi = hi.min(limit(p)).max(lo);
        }
        (lo, hi)
    }

    /// The field's row of the species table in `docs/SCENARIOS.md`.
    pub fn markdown_row(&self) -> String {
        let end = |x: f32| match x {
            1e4 => "10⁴".to_string(),
            1e5 => "10⁵".to_string(),
            1e7 => "10⁷".to_string(),
            x => x.to_string(),
        };
        let mut range = self.range.text_with(end);
        if let Some((name, _)) = self.bound {
            range.push_str(&format!(", ≤ `{name}`"));
        }
        format!(
            "| `{}` | {} | {} | {} | {} |",
            self.key,
            self.unit,
            (self.get)(&SpeciesParams::default()),
            range,
            self.meaning
        )
    }
}

impl SpeciesParams {
    /// Checks every field against its range in the parameter table
    /// ([`SPECIES_FIELDS`]), then the bounds between fields (`min_speed` ≤
    /// `max_speed`, separation ≤ perception). `prefix` names the species in
    /// messages (e.g. `species[0]`).
    pub fn validate(&self, prefix: &str) -> Result<(), ParamError> {
        for f in &SPECIES_FIELDS {
            f.check(self, prefix)?;
        }
        for f in &SPECIES_FIELDS {
            f.check_bound(self, prefix)?;
        }
        let k = self.topological_neighbours;
        if k > super::MAX_TOPOLOGICAL {
            return Err(ParamError::OutOfRange {
                field: format!("{prefix}.topological_neighbours"),
                value: k as f64,
                range: format!("in [0, {}]", super::MAX_TOPOLOGICAL),
            });
        }
        Ok(())
    }
}

/// The row of `key`, if it is a numeric species field.
pub fn species_field(key: &str) -> Option<&'static Field> {
    SPECIES_FIELDS.iter().find(|f| f.key == key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accessors_reach_their_own_field_and_the_table_covers_every_number() {
        let mut p = SpeciesParams::default();
        for (i, f) in SPECIES_FIELDS.iter().enumerate() {
            *(f.get_mut)(&mut p) = 1000.0 + i as f32;
        }
        for (i, f) in SPECIES_FIELDS.iter().enumerate() {
            assert_eq!((f.get)(&p), 1000.0 + i as f32, "{}", f.key);
        }
        // Every f32 field of the struct is a row: the serialized table has the
        // rows' keys plus `steering` and `combine`.
        let t = toml::Table::try_from(SpeciesParams::default()).unwrap();
        let mut keys: Vec<&str> = t.keys().map(String::as_str).collect();
        keys.retain(|k| !["combine", "steering", "topological_neighbours", "model"].contains(k));
        let rows: Vec<&str> = SPECIES_FIELDS.iter().map(|f| f.key).collect();
        assert_eq!(keys, rows);
    }

    /// `Steering::key` is the name serde reads and writes, for every mode.
    #[test]
    fn steering_keys_are_the_scenario_names() {
        for mode in crate::params::Steering::ALL {
            let v = toml::Value::try_from(mode).unwrap();
            assert_eq!(v.as_str(), Some(mode.key()));
        }
    }

    #[test]
    fn ranges_hold_their_ends_as_written() {
        let r = species_field("separation_radius").unwrap();
        let r = r.range;
        assert!(!r.contains(0.0) && r.contains(1e4) && !r.contains(f32::NAN));
        assert_eq!(r.text(), "(0, 10000]");
        let s = species_field("smoothing").unwrap();
        assert!(s.range.contains(0.0) && !s.range.contains(1.0));
        assert_eq!(s.slider_range(&SpeciesParams::default()), (0.0, 0.99));
        let m = species_field("min_speed").unwrap();
        assert_eq!(m.slider_range(&SpeciesParams::default()), (0.0, 3.0));
        let fov = species_field("fov_degrees").unwrap();
        assert_eq!(fov.slider_range(&SpeciesParams::default()), (1.0, 360.0));
    }

    /// The species table of `docs/SCENARIOS.md` is this table: a changed range,
    /// default, unit or sentence fails here until the documentation follows.
    #[test]
    fn the_documentation_table_is_the_parameter_table() {
        let doc = include_str!("../../../../docs/SCENARIOS.md");
        let section = doc
            .split("### Species parameters")
            .nth(1)
            .and_then(|s| s.split("\n\n").find(|b| b.starts_with("| key")))
            .expect("docs/SCENARIOS.md has the species parameter table");
        let documented: Vec<&str> = section
            .lines()
            .skip(2)
            .filter(|l| {
                !["| `combine`", "| `steering`", "| `topological_neighbours`"]
                    .iter()
                    .any(|k| l.starts_with(k))
            })
            .collect();
        let generated: Vec<String> = SPECIES_FIELDS.iter().map(Field::markdown_row).collect();
        assert_eq!(documented, generated);
        // The whole-number row outside the table states the limit the code checks.
        let topological = section
            .lines()
            .find(|l| l.starts_with("| `topological_neighbours`"))
            .expect("docs/SCENARIOS.md documents topological_neighbours");
        let range = format!("| [0, {}] |", crate::params::MAX_TOPOLOGICAL);
        assert!(topological.contains(&range), "{topological}");
    }
}

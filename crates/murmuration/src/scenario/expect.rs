//! `[expect]`: what a scenario should look like in numbers — a band for each of
//! some scalar metrics, after a transient. `murmuration run` reports them and the
//! preset tests hold every shipped scenario to its own.
//!
//! ```toml
//! [expect]
//! after = 1500                  # steps before the bands apply
//! polarization = [0.6, 1.0]     # [min, max], both included
//! outside = [0, 0]
//! seeds = 8                     # the bands hold on seeds world.seed … + 7 (default 1)
//! ```

use crate::analysis::metrics::SCALAR_NAMES;

/// A scenario's expectations: from step `after` on, each metric lies in its band.
#[derive(Clone, Debug, PartialEq)]
pub struct Expectations {
    /// Steps of transient before the bands apply.
    pub after: u64,
    /// How many seeds the bands hold on: `world.seed` and the next `seeds − 1`
    /// (a preset named for a state reaches it on every seed, not on a lucky one).
    pub seeds: u64,
    /// The bands, in the order of [`SCALAR_NAMES`].
    pub bands: Vec<Band>,
}

/// One metric's band.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Band {
    /// The metric (one of [`SCALAR_NAMES`]).
    pub metric: &'static str,
    /// Lowest value that holds.
    pub min: f64,
    /// Highest value that holds.
    pub max: f64,
}

impl Band {
    /// True when `value` lies in `[min, max]` (NaN never does).
    pub fn holds(&self, value: f64) -> bool {
        value >= self.min && value <= self.max
    }
}

impl std::fmt::Display for Band {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} in [{}, {}]", self.metric, self.min, self.max)
    }
}

/// One band checked against a value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdict {
    /// The band.
    pub band: Band,
    /// The measured value (NaN when the metrics lack it).
    pub value: f64,
}

impl Verdict {
    /// True when the value lies in the band.
    pub fn holds(&self) -> bool {
        self.band.holds(self.value)
    }
}

impl Default for Expectations {
    fn default() -> Self {
        Self {
            after: 0,
            seeds: 1,
            bands: Vec::new(),
        }
    }
}

impl Expectations {
    /// Checks every band against `(name, value)` pairs (as
    /// [`crate::analysis::metrics::Metrics::scalars`] gives them).
    pub fn check(&self, scalars: &[(&str, f64)]) -> Vec<Verdict> {
        self.bands
            .iter()
            .map(|&band| Verdict {
                band,
                value: scalars
                    .iter()
                    .find(|(n, _)| *n == band.metric)
                    .map_or(f64::NAN, |&(_, v)| v),
            })
            .collect()
    }

    /// Reads the `[expect]` table; an error names the key and what is wrong.
    pub(crate) fn from_table(t: &toml::Table) -> Result<Self, (String, String)> {
        let mut out = Self::default();
        for (key, value) in t {
            let field = format!("expect.{key}");
            if key == "seeds" {
                out.seeds = match value {
                    toml::Value::Integer(n) if (1..=64).contains(n) => *n as u64,
                    v => {
                        return Err((
                            field,
                            format!("expect.seeds = {v} must be a whole number from 1 to 64"),
                        ));
                    }
                };
                continue;
            }
            if key == "after" {
                out.after = match value {
                    toml::Value::Integer(n) if *n >= 0 => *n as u64,
                    v => {
                        return Err((
                            field,
                            format!(
                                "expect.after = {v} must be a whole number of steps, at least 0"
                            ),
                        ));
                    }
                };
                continue;
            }
            let Some(&metric) = SCALAR_NAMES.iter().find(|n| **n == key) else {
                if let Some(why) = crate::analysis::metrics::replaced_metric(key) {
                    return Err((field, format!("expect.{why}")));
                }
                return Err((
                    field,
                    format!(
                        "expect.{key} is not a metric; the metrics are {}",
                        SCALAR_NAMES.join(", ")
                    ),
                ));
            };
            let number = |v: &toml::Value| match v {
                toml::Value::Integer(n) => Some(*n as f64),
                toml::Value::Float(x) if x.is_finite() => Some(*x),
                _ => None,
            };
            let band = match value.as_array().map(|a| a.as_slice()) {
                Some([lo, hi]) => number(lo).zip(number(hi)),
                _ => None,
            };
            match band {
                Some((min, max)) if min <= max => out.bands.push(Band { metric, min, max }),
                _ => {
                    return Err((
                        field,
                        format!(
                            "expect.{key} = {value} must be [min, max]: two finite numbers, min <= max"
                        ),
                    ));
                }
            }
        }
        out.bands
            .sort_by_key(|b| SCALAR_NAMES.iter().position(|n| *n == b.metric));
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> toml::Table {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn bands_read_check_and_refuse_what_is_not_a_band() {
        let e = Expectations::from_table(&table(
            "after = 10\npolarization = [0.5, 1]\noutside = [0, 0]",
        ))
        .unwrap();
        assert_eq!(e.after, 10);
        assert_eq!(e.bands[0].metric, "polarization");
        let v = e.check(&[("polarization", 0.7), ("outside", 2.0)]);
        assert!(v[0].holds() && !v[1].holds());
        for bad in [
            "polarisation = [0, 1]",
            "polarization = [1, 0]",
            "polarization = 0.5",
            "polarization = [0, nan]",
            "after = -1",
        ] {
            let (field, message) = Expectations::from_table(&table(bad)).unwrap_err();
            assert!(field.starts_with("expect."), "{bad}: {field}");
            assert!(
                message.contains(field.trim_start_matches("expect.")),
                "{message}"
            );
        }
    }
}

//! The valid range of a numeric parameter, shared by the species table
//! (`fields.rs`) and the research models' table (`model/fields.rs`): each end
//! open or closed, checked and written the same way for both.

use crate::error::ParamError;

/// A range of valid values, `(0, 10000]` or `[0, 1]`: each end included or not.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Range {
    /// Lower end.
    pub min: f32,
    /// True when `min` itself is excluded: `(min, …`.
    pub min_open: bool,
    /// Upper end.
    pub max: f32,
    /// True when `max` itself is excluded: `…, max)`.
    pub max_open: bool,
}

impl Range {
    /// True when `v` lies in the range (NaN never does).
    pub fn contains(&self, v: f32) -> bool {
        let above = if self.min_open {
            v > self.min
        } else {
            v >= self.min
        };
        let below = if self.max_open {
            v < self.max
        } else {
            v <= self.max
        };
        above && below
    }

    /// The range as messages write it: `(0, 10000]`, each end written by `end`.
    pub fn text_with(&self, end: impl Fn(f32) -> String) -> String {
        format!(
            "{}{}, {}{}",
            if self.min_open { "(" } else { "[" },
            end(self.min),
            end(self.max),
            if self.max_open { ")" } else { "]" }
        )
    }

    /// The range as messages write it: `(0, 10000]`.
    pub fn text(&self) -> String {
        self.text_with(|x| x.to_string())
    }

    /// Checks `v`, the value of `field`: finite and in the range.
    pub fn check(&self, v: f32, field: impl Fn() -> String) -> Result<(), ParamError> {
        if !v.is_finite() {
            return Err(ParamError::NotFinite {
                field: field(),
                value: v as f64,
            });
        }
        if !self.contains(v) {
            return Err(ParamError::OutOfRange {
                field: field(),
                value: v as f64,
                range: format!("in {}", self.text()),
            });
        }
        Ok(())
    }
}

/// `open` or `closed`: how a table row writes each end of a range.
macro_rules! range {
    (open $min:expr, $max:expr, open) => {
        $crate::params::range::Range {
            min: $min,
            min_open: true,
            max: $max,
            max_open: true,
        }
    };
    (open $min:expr, $max:expr, closed) => {
        $crate::params::range::Range {
            min: $min,
            min_open: true,
            max: $max,
            max_open: false,
        }
    };
    (closed $min:expr, $max:expr, open) => {
        $crate::params::range::Range {
            min: $min,
            min_open: false,
            max: $max,
            max_open: true,
        }
    };
    (closed $min:expr, $max:expr, closed) => {
        $crate::params::range::Range {
            min: $min,
            min_open: false,
            max: $max,
            max_open: false,
        }
    };
}
pub(crate) use range;

#[cfg(test)]
mod tests {
    #[test]
    fn open_ends_exclude_and_closed_ends_include() {
        let r = range!(open 0.0, 1.0, closed);
        assert!(!r.contains(0.0) && r.contains(1e-9) && r.contains(1.0) && !r.contains(1.5));
        assert!(!r.contains(f32::NAN));
        assert_eq!(r.text(), "(0, 1]");
        let e = r
            .check(2.0, || "species.a.x".into())
            .unwrap_err()
            .to_string();
        assert!(e.contains("species.a.x") && e.contains("(0, 1]"), "{e}");
        assert!(r.check(f32::INFINITY, || "x".into()).is_err());
    }
}

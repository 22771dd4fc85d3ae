//! Measurements of a flock: the order parameters and distances of every
//! metrics row (metrics), the group structure they build on (structure), and
//! the analyses of field studies of real flocks (field).

pub(crate) mod axes;
pub mod field;
pub mod metrics;
pub(crate) mod structure;

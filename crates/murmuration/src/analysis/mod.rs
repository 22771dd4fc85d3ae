//! Measurements of a flock: the order parameters and distances of every
//! metrics row (metrics) and the group structure they build on (structure).

pub mod metrics;
pub(crate) mod structure;

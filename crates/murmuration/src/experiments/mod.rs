//! Worlds run for a purpose: parameter sweeps over seeds with per-run
//! statistics (sweep), ladders with per-rung statistics (ladder) and the
//! standard benchmark workloads (workload).

pub mod ladder;
pub mod sweep;
pub(crate) mod workload;

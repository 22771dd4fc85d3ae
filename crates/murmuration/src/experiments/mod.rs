//! Worlds run for a purpose: parameter sweeps over seeds with per-run
//! statistics (sweep) and the standard benchmark workloads (workload).

pub mod sweep;
pub(crate) mod workload;

//! The core's integration tests, one binary: each module is one subject (its
//! own summary says what it holds). One binary instead of one per file, because
//! each binary compiles the generic step again: eighteen of them took about 14
//! of the 35 minutes of a clean test build (ARCHITECTURE.md, "Tests").
#![allow(
    clippy::disallowed_methods,
    reason = "the tests measure with the platform's sin and cos; only the library's step must be the same bits everywhere (clippy.toml)"
)]

mod common;

mod behaviour;
mod determinism;
mod grid_queries;
mod inspect;
mod invariants;
mod leaders;
mod models;
mod obstacles;
mod paths_zones;
mod predators;
mod presets_look;
mod reference;
mod retune;
mod scenarios;
mod snapshot_errors;
mod targets;
mod validation;

//! The Reynolds step: each boid's neighbours found through the grid and summed
//! in SIMD lanes (kernel, kernel512, lanes, focus, nearest, reaches, topological), turned into
//! forces by the rules and the behaviours (rules, steer, batch, interactions)
//! and integrated, in the order the pipeline runs them (pipeline, context).

pub(crate) mod batch;
pub(crate) mod context;
pub(crate) mod focus;
pub(crate) mod interactions;
pub(crate) mod kernel;
pub(crate) mod kernel512;
pub(crate) mod lanes;
pub(crate) mod nearest;
pub(crate) mod pipeline;
pub(crate) mod reaches;
pub(crate) mod rules;
pub(crate) mod steer;
pub(crate) mod topological;

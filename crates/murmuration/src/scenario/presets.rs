//! How front ends open a scenario: the shipped scenarios (`scenarios/*.toml`),
//! embedded so that every front end (the command line, the Python package, a
//! game) names them the same way; a FILE argument resolved as a path or a
//! preset's name; and the check that its boids fit in memory.

use super::{Override, Scenario, estimated_bytes_per_boid};
use crate::error::ScenarioError;
use std::path::Path;

/// Name and text of every shipped scenario, `default` first.
pub const PRESETS: [(&str, &str); 14] = [
    (
        "default",
        include_str!("../../../../scenarios/default.toml"),
    ),
    (
        "fish-school",
        include_str!("../../../../scenarios/fish-school.toml"),
    ),
    (
        "hurried-birds",
        include_str!("../../../../scenarios/hurried-birds.toml"),
    ),
    (
        "idle-crowd",
        include_str!("../../../../scenarios/idle-crowd.toml"),
    ),
    (
        "sharks-and-schools",
        include_str!("../../../../scenarios/sharks-and-schools.toml"),
    ),
    (
        "starlings-3d",
        include_str!("../../../../scenarios/starlings-3d.toml"),
    ),
    (
        "phaser-canvas",
        include_str!("../../../../scenarios/phaser-canvas.toml"),
    ),
    (
        "bench-2d",
        include_str!("../../../../scenarios/bench-2d.toml"),
    ),
    (
        "bench-3d",
        include_str!("../../../../scenarios/bench-3d.toml"),
    ),
    ("vicsek", include_str!("../../../../scenarios/vicsek.toml")),
    (
        "couzin-torus",
        include_str!("../../../../scenarios/couzin-torus.toml"),
    ),
    (
        "dorsogna-mill",
        include_str!("../../../../scenarios/dorsogna-mill.toml"),
    ),
    (
        "dorsogna-flock",
        include_str!("../../../../scenarios/dorsogna-flock.toml"),
    ),
    (
        "abm-flocking",
        include_str!("../../../../scenarios/abm-flocking.toml"),
    ),
];

/// The text of a preset by name.
pub fn preset(name: &str) -> Option<&'static str> {
    PRESETS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

impl Scenario {
    /// Reads `file` as the command line does: a path when one exists, else a
    /// preset's name; overrides are applied in order before validation.
    pub fn resolve(file: &str, overrides: &[Override]) -> Result<Self, ScenarioError> {
        if Path::new(file).exists() {
            return Self::load_with(Path::new(file), overrides);
        }
        match preset(file) {
            Some(text) => Self::parse_with(text, &format!("<preset {file}>"), overrides),
            None => Err(ScenarioError::NotFound {
                file: file.to_string(),
                presets: PRESETS
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", "),
            }),
        }
    }
}

impl Scenario {
    /// An error when the scenario's boids would not fit in the memory this
    /// process may still allocate ([`crate::scenario::memory::allocatable`]).
    pub fn check_memory(&self) -> Result<(), ScenarioError> {
        self.check_memory_within(crate::scenario::memory::allocatable())
    }

    /// [`Scenario::check_memory`] against a given amount (bytes, and what sets it).
    pub fn check_memory_within(&self, available: Option<(u64, &str)>) -> Result<(), ScenarioError> {
        let n = self.total_boids();
        let need = n.saturating_mul(estimated_bytes_per_boid(self.dimension()));
        if let Some((have, why)) = available
            && need > have
        {
            let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
            return Err(ScenarioError::Memory {
                origin: self.origin().to_string(),
                message: format!(
                    "its species hold {n} boids in all ({}), which need about {:.1} GiB, but only {:.1} GiB of memory is {why}",
                    self.species()
                        .iter()
                        .map(|(name, c)| format!("species.{name}.count = {c}"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    gib(need),
                    gib(have)
                ),
            });
        }
        Ok(())
    }
}

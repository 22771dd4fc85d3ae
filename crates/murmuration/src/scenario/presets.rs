//! The shipped scenarios (`scenarios/*.toml`), embedded so that every front end
//! (the command line, the Python package, a game) names them the same way.

use super::{Override, Scenario};
use crate::error::ScenarioError;
use std::path::Path;

/// Name and text of every shipped scenario, `default` first.
pub const PRESETS: [(&str, &str); 9] = [
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

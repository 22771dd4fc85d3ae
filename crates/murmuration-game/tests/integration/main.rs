//! The game's integration tests, one binary (each binary compiles the generic
//! step again): the rules headless, the shipped levels' recorded solutions, the
//! swarm's look in flight, and its sound.

mod look;
mod replays;
mod rules;
mod sound;

use glam::Vec2;
use murmuration_game::{Game, Level, Recording, levels};

/// Shipped level `i`, its recorded solution and its key.
fn shipped(i: usize) -> (Level, Recording, &'static str) {
    let s = &levels::LEVELS[i];
    let level = Level::parse(s.text, s.key).unwrap();
    let rec = Recording::parse(s.solution, &format!("{}.replay", s.key)).unwrap();
    (level, rec, s.key)
}

/// Swarm creatures (the level's first species) per unit² within `r` of `c`.
fn density(game: &Game, c: Vec2, r: f32) -> f32 {
    let w = game.world();
    w.positions()
        .iter()
        .zip(w.boid_species())
        .filter(|(p, s)| **s == 0 && (**p - c).length() < r)
        .count() as f32
        / (std::f32::consts::PI * r * r)
}

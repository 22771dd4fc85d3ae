//! Lumen Swarm, the game of seed 001: the player guides about 1,900 glowing
//! creatures through dark ruins and never commands one. This crate holds the
//! rules with no window and no GPU, so every rule is testable headless: levels
//! (scenario files with a `[game]` section, `docs/GAME.md`), the player's
//! commands, plates and gates, predators' meals, the exit and the outcome,
//! recordings that replay bit for bit, and the swarm's sound as samples. The
//! window, drawing, HUD and audio output live in the app (`murmuration game`).
//!
//! ```
//! use murmuration_game::{levels, Command, Game, Level};
//! use glam::Vec2;
//!
//! let shipped = &levels::LEVELS[0];
//! let level = Level::parse(shipped.text, shipped.key).unwrap();
//! let mut game = Game::new(&level).unwrap();
//! game.step(&[Command::Point(Vec2::new(40.0, 45.0))]);
//! assert_eq!(game.alive(), level.creatures());
//! ```

mod controls;
mod game;
pub mod keys;
mod level;
pub mod levels;
mod outcome;
pub mod plates;
mod progress;
pub mod replay;
pub mod sound;

pub use controls::{Command, Controls, LEAD_SHARE};
pub use game::{Game, GameEvent};
pub use level::{Gate, Hint, Lesson, Level, Plate, SECTION};
pub use outcome::{Outcome, Par, stars};
pub use progress::{Best, Progress};
pub use replay::{Recording, ReplayError};

//! The game's integration tests, one binary (each binary compiles the generic
//! step again): the rules headless, the shipped levels' recorded solutions, the
//! swarm's look in flight, and its sound.

mod look;
mod replays;
mod rules;
mod sound;

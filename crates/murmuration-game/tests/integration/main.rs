//! The game's integration tests, one binary (each binary compiles the generic
//! step again): the rules headless, the shipped levels' recorded solutions, and
//! the swarm's sound.

mod replays;
mod rules;
mod sound;

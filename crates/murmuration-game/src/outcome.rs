//! How a level ended, in words a player reads: the creatures saved against the
//! target, Lemmings style, and a failure that explains itself (seed 001, 5.1:
//! "only 42 left — the mechanism cannot start", never a bare "game over").

use std::fmt;

/// The end of a level.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Enough creatures reached the exit.
    pub won: bool,
    /// Creatures saved.
    pub saved: u64,
    /// Creatures the exit needed.
    pub needed: u64,
    /// One sentence: what happened, and for a loss, why.
    pub message: String,
}

impl Outcome {
    /// A win with `saved` of `creatures` home.
    pub(crate) fn won(saved: u64, needed: u64, creatures: u64) -> Self {
        Self {
            won: true,
            saved,
            needed,
            message: format!("The swarm is home: {saved} of {creatures} saved ({needed} needed)."),
        }
    }

    /// A loss, with its reason.
    pub(crate) fn lost(message: String, saved: u64, needed: u64) -> Self {
        Self {
            won: false,
            saved,
            needed,
            message,
        }
    }

    /// `won` or `lost`, as `--headless` prints it.
    pub fn word(&self) -> &'static str {
        if self.won { "won" } else { "lost" }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

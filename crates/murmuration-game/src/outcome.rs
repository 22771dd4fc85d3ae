//! How a level ended, in words a player reads: the creatures saved against the
//! target, Lemmings style, and a failure that explains itself (seed 001, 5.1:
//! "only 42 left — the mechanism cannot start", never a bare "game over"); and
//! the win's rating in stars against the level's par.

use serde::Deserialize;
use std::fmt;

/// What a level rates a win against: one star for the win, one for saving at
/// least `saved`, one for finishing within `time`.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Par {
    /// Creatures saved for the second star, in [the level's `save`, its creatures].
    pub saved: u64,
    /// Seconds for the third star, in (0, inf].
    #[serde(default = "infinite")]
    pub time: f32,
}

fn infinite() -> f32 {
    f32::INFINITY
}

/// The end of a level.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// Enough creatures reached the exit.
    pub won: bool,
    /// Creatures saved.
    pub saved: u64,
    /// Creatures the exit needed.
    pub needed: u64,
    /// Creatures taken by hunters.
    pub eaten: u64,
    /// Seconds played.
    pub time: f64,
    /// The rating, 0 to 3: none for a loss; a win earns one, one more for
    /// reaching the par's saved count, one more for its time.
    pub stars: u8,
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
            eaten: 0,
            time: 0.0,
            stars: 1,
            message: format!("The swarm is home: {saved} of {creatures} saved ({needed} needed)."),
        }
    }

    /// A loss, with its reason.
    pub(crate) fn lost(message: String, saved: u64, needed: u64) -> Self {
        Self {
            won: false,
            saved,
            needed,
            eaten: 0,
            time: 0.0,
            stars: 0,
            message,
        }
    }

    /// Completes the outcome with what was eaten, the time and the stars
    /// earned against `par`.
    pub(crate) fn rated(mut self, eaten: u64, time: f64, par: &Par) -> Self {
        self.eaten = eaten;
        self.time = time;
        self.stars = if self.won {
            1 + u8::from(self.saved >= par.saved) + u8::from(time <= par.time as f64)
        } else {
            0
        };
        self
    }

    /// `won` or `lost`, as `--headless` prints it.
    pub fn word(&self) -> &'static str {
        if self.won { "won" } else { "lost" }
    }

    /// The stars as a player sees them: "★★☆".
    pub fn star_text(&self) -> String {
        stars(self.stars)
    }
}

/// `n` of three stars, filled then hollow.
pub fn stars(n: u8) -> String {
    (0..3).map(|k| if k < n { '★' } else { '☆' }).collect()
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_win_earns_a_star_and_one_more_for_each_par_it_meets() {
        let par = Par {
            saved: 1800,
            time: 60.0,
        };
        let won = |saved, time| Outcome::won(saved, 1500, 1900).rated(3, time, &par);
        assert_eq!(won(1600, 90.0).stars, 1);
        assert_eq!(won(1800, 90.0).stars, 2);
        assert_eq!(won(1600, 60.0).stars, 2);
        assert_eq!(won(1850, 45.0).star_text(), "★★★");
        let lost = Outcome::lost("x".into(), 1850, 1900).rated(0, 10.0, &par);
        assert_eq!((lost.stars, lost.star_text().as_str()), (0, "☆☆☆"));
        assert_eq!(won(1600, 1.0).eaten, 3);
    }
}

//! A player's progress: the best result per level and which levels are open
//! (a level opens when the one before it is won). Plain data, saved by the app
//! as TOML in the user's data directory, never in the repository.

use crate::levels::LEVELS;
use crate::outcome::Outcome;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The best result on one level.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Best {
    /// It was won at least once.
    pub won: bool,
    /// Most creatures saved (in a win, when there is one).
    pub saved: u64,
    /// Seconds of that result.
    pub time: f64,
    /// Creatures eaten in that result.
    #[serde(default)]
    pub eaten: u64,
    /// Its stars, 0 to 3 ([`Outcome::stars`]).
    #[serde(default)]
    pub stars: u8,
}

/// Every level's best result, by level key.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Progress {
    /// Best results by level key.
    #[serde(default)]
    pub levels: BTreeMap<String, Best>,
}

impl Progress {
    /// Reads a progress file's text.
    pub fn parse(text: &str) -> Result<Self, String> {
        toml::from_str(text).map_err(|e| e.message().to_string())
    }

    /// The progress as TOML.
    pub fn to_text(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }

    /// Takes a finished level; true when it is a new best (a win beats a loss,
    /// then more stars, then more saved, then less time).
    pub fn record(&mut self, key: &str, outcome: &Outcome) -> bool {
        let new = Best {
            won: outcome.won,
            saved: outcome.saved,
            time: outcome.time,
            eaten: outcome.eaten,
            stars: outcome.stars,
        };
        let rank = |b: &Best| (b.won, b.stars, b.saved, -b.time);
        let better = self.levels.get(key).is_none_or(|b| rank(&new) > rank(b));
        if better {
            self.levels.insert(key.to_string(), new);
        }
        better
    }

    /// Shipped level `index` is open: the first always, each next once the one
    /// before it is won.
    pub fn unlocked(&self, index: usize) -> bool {
        let played = |i: usize| LEVELS.get(i).and_then(|l| self.levels.get(l.key));
        // Open once the one before is won, or once it has been played at all
        // (`murmuration game 6` opens any level: its result is never hidden).
        index == 0 || played(index - 1).is_some_and(|b| b.won) || played(index).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(won: bool, saved: u64, time: f64) -> Outcome {
        Outcome {
            won,
            saved,
            needed: 10,
            eaten: 2,
            time,
            stars: u8::from(won),
            message: String::new(),
        }
    }

    #[test]
    fn a_win_opens_the_next_level_and_only_a_better_result_replaces_the_best() {
        let mut p = Progress::default();
        assert!(p.unlocked(0) && !p.unlocked(1));
        assert!(p.record(LEVELS[0].key, &outcome(false, 30, 50.0)));
        assert!(!p.unlocked(1), "a loss opens nothing");
        assert!(
            p.record(LEVELS[0].key, &outcome(true, 12, 80.0)),
            "a win beats a loss"
        );
        assert!(p.unlocked(1) && !p.unlocked(2));
        assert!(
            !p.record(LEVELS[0].key, &outcome(true, 11, 10.0)),
            "fewer saved"
        );
        assert!(
            p.record(LEVELS[0].key, &outcome(true, 12, 70.0)),
            "as many, faster"
        );
        let mut three = outcome(true, 5, 90.0);
        three.stars = 3;
        assert!(
            p.record(LEVELS[0].key, &three),
            "more stars beat more saved"
        );
        assert_eq!(p.levels[LEVELS[0].key].eaten, 2);
        let back = Progress::parse(&p.to_text()).unwrap();
        assert_eq!(back, p);
        // A progress file from before stars and meals were kept still reads.
        let old = "[levels.first-light]\nwon = true\nsaved = 1802\ntime = 62.6\n";
        assert_eq!(Progress::parse(old).unwrap().levels["first-light"].stars, 0);
        assert!(Progress::parse("levels = 3").is_err());
    }

    /// A level played from the command line before the one ahead of it was
    /// won shows its result on the title, not "locked".
    #[test]
    fn a_level_played_out_of_order_is_not_shown_locked() {
        let mut p = Progress::default();
        assert!(p.unlocked(0) && !p.unlocked(5));
        p.record(LEVELS[5].key, &outcome(true, 1888, 80.0));
        assert!(p.unlocked(5), "won, yet locked");
        assert!(p.unlocked(6), "the next one opens");
        assert!(!p.unlocked(4), "the ones before stay as they were");
    }
}

//! Recordings: the player's commands per fixed simulation step, as text. The
//! simulation is deterministic, so a recording replays bit for bit; it names
//! the version that made it, the level's checksum, and how it ended (outcome,
//! saved, digest), so a recording that no longer replays says so instead of
//! giving a wrong outcome.
//!
//! ```text
//! lumen-replay 1
//! engine 0.1.0
//! level first-light 9c0d5e0f3a1b2c4d
//! steps 3600
//! 0 point 20 45
//! 120 keys 1 0
//! 300 recall
//! 410 path-begin 10 10
//! 411 path-to 11.5 10
//! 420 path-end
//! 500 pulse 40 40
//! end won 1612 3400 3f2a9c0e1d7b6a55
//! ```

use crate::controls::Command;
use crate::game::Game;
use crate::level::Level;
use glam::Vec2;
use murmuration::ScenarioError;
use std::fmt::Write as _;

/// The version of the text format this build reads and writes.
pub const REPLAY_FORMAT: u32 = 1;

/// The version of the game that records (the workspace's version).
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// What can be wrong with a recording.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The file could not be read.
    #[error("cannot read {path}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A line that is not part of the format.
    #[error("{origin}:{line}: {message}")]
    Syntax {
        /// The file.
        origin: String,
        /// Line, from 1.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// Written in a format version this build does not read.
    #[error(
        "{origin}: replay format {found} (recorded with Murmuration {engine}) is not supported: Murmuration {ENGINE_VERSION} reads format {REPLAY_FORMAT}"
    )]
    Format {
        /// The file.
        origin: String,
        /// Its format version.
        found: u32,
        /// The version that recorded it.
        engine: String,
    },
    /// Recorded on another level, or on another version of this one.
    #[error(
        "{origin} was recorded on level {recorded:?} (checksum {recorded_checksum:016x}) with Murmuration {engine}, but this is level {level:?} (checksum {checksum:016x}): the level has changed since"
    )]
    Level {
        /// The file.
        origin: String,
        /// The level it names.
        recorded: String,
        /// That level's checksum.
        recorded_checksum: u64,
        /// The level given.
        level: String,
        /// Its checksum.
        checksum: u64,
        /// The version that recorded it.
        engine: String,
    },
    /// The replay ended otherwise than recorded: the simulation changed.
    #[error(
        "{origin} was recorded with Murmuration {engine} and no longer replays on {ENGINE_VERSION}: it ended {got} where the recording says {expected}; record it again"
    )]
    Diverged {
        /// The file.
        origin: String,
        /// The version that recorded it.
        engine: String,
        /// `won 1612 3400 DIGEST` (outcome, saved, step, digest), as recorded.
        expected: String,
        /// The same, as replayed.
        got: String,
    },
    /// The level could not start.
    #[error(transparent)]
    Start(#[from] ScenarioError),
}

/// How a recording ended: its outcome, creatures saved and the final digest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct End {
    /// True when it was won.
    pub won: bool,
    /// Creatures saved.
    pub saved: u64,
    /// The step it ended at.
    pub step: u64,
    /// The world's digest when it ended.
    pub digest: u64,
}

impl End {
    fn of(game: &Game) -> Self {
        Self {
            won: game.outcome().is_some_and(|o| o.won),
            saved: game.saved(),
            step: game.step_index(),
            digest: game.digest(),
        }
    }

    fn text(&self) -> String {
        format!(
            "{} {} {} {:016x}",
            if self.won { "won" } else { "lost" },
            self.saved,
            self.step,
            self.digest
        )
    }
}

/// A recording: the level it was made on and the commands by step.
#[derive(Clone, Debug, PartialEq)]
pub struct Recording {
    /// The version of the game that made it.
    pub engine: String,
    /// The level's key or title.
    pub level: String,
    /// The level's checksum ([`Level::checksum`]).
    pub checksum: u64,
    /// Steps recorded.
    pub steps: u64,
    /// Commands with the step they apply at, in step order.
    pub commands: Vec<(u64, Command)>,
    /// How it ended, when it was finished; a hand-written script has none.
    pub end: Option<End>,
}

impl Recording {
    /// An empty recording of `level`, named `name`.
    pub fn new(level: &Level, name: &str) -> Self {
        Self {
            engine: ENGINE_VERSION.to_string(),
            level: name.to_string(),
            checksum: level.checksum(),
            steps: 0,
            commands: Vec::new(),
            end: None,
        }
    }

    /// Appends the commands of step `step` (steps must not go back).
    pub fn record(&mut self, step: u64, commands: &[Command]) {
        self.commands.extend(commands.iter().map(|&c| (step, c)));
        self.steps = self.steps.max(step + 1);
    }

    /// Marks it finished with the game's end state.
    pub fn finish(&mut self, game: &Game) {
        self.steps = self.steps.max(game.step_index());
        self.end = Some(End::of(game));
    }

    /// Reads a recording file.
    pub fn load(path: &std::path::Path) -> Result<Self, ReplayError> {
        let text = std::fs::read_to_string(path).map_err(|source| ReplayError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Parses recording text; `origin` names it in messages.
    pub fn parse(text: &str, origin: &str) -> Result<Self, ReplayError> {
        let syntax = |line: usize, message: String| ReplayError::Syntax {
            origin: origin.to_string(),
            line,
            message,
        };
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.split('#').next().unwrap_or("").trim()))
            .filter(|(_, l)| !l.is_empty());
        let mut header = |key: &str| -> Result<(usize, Vec<String>), ReplayError> {
            let Some((n, l)) = lines.next() else {
                return Err(syntax(1, format!("the file ends before its `{key}` line")));
            };
            let mut words = l.split_whitespace();
            if words.next() != Some(key) {
                return Err(syntax(n, format!("expected `{key} …`, found {l:?}")));
            }
            Ok((n, words.map(str::to_string).collect()))
        };
        let (n, magic) = header("lumen-replay")?;
        let format: u32 = magic
            .first()
            .and_then(|w| w.parse().ok())
            .ok_or_else(|| syntax(n, "expected `lumen-replay FORMAT`".into()))?;
        let (n, engine) = header("engine")?;
        let engine = engine
            .first()
            .cloned()
            .ok_or_else(|| syntax(n, "expected `engine VERSION`".into()))?;
        if format != REPLAY_FORMAT {
            return Err(ReplayError::Format {
                origin: origin.to_string(),
                found: format,
                engine,
            });
        }
        let (n, level) = header("level")?;
        let (Some(name), Some(checksum)) = (level.first(), level.get(1)) else {
            return Err(syntax(n, "expected `level NAME CHECKSUM`".into()));
        };
        let checksum = u64::from_str_radix(checksum, 16)
            .map_err(|_| syntax(n, format!("checksum {checksum:?} is not hexadecimal")))?;
        let (n, steps) = header("steps")?;
        let steps: u64 = steps
            .first()
            .and_then(|w| w.parse().ok())
            .ok_or_else(|| syntax(n, "expected `steps COUNT`".into()))?;
        let mut rec = Self {
            engine,
            level: name.clone(),
            checksum,
            steps,
            commands: Vec::new(),
            end: None,
        };
        for (n, l) in lines {
            if rec.end.is_some() {
                return Err(syntax(n, "nothing may follow the `end` line".into()));
            }
            let w: Vec<&str> = l.split_whitespace().collect();
            if w[0] == "end" {
                rec.end = Some(parse_end(&w[1..]).ok_or_else(|| {
                    syntax(n, "expected `end won|lost SAVED STEP DIGEST`".into())
                })?);
                continue;
            }
            let step: u64 = w[0]
                .parse()
                .map_err(|_| syntax(n, format!("{:?} is not a step number", w[0])))?;
            if rec.commands.last().is_some_and(|&(s, _)| s > step) {
                return Err(syntax(n, format!("step {step} comes after a later step")));
            }
            if step >= steps {
                return Err(syntax(
                    n,
                    format!("step {step} is beyond the recording's {steps} steps"),
                ));
            }
            let c = parse_command(&w[1..]).map_err(|m| syntax(n, m))?;
            rec.commands.push((step, c));
        }
        Ok(rec)
    }

    /// The recording as text.
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "lumen-replay {REPLAY_FORMAT}\nengine {}\nlevel {} {:016x}\nsteps {}\n",
            self.engine, self.level, self.checksum, self.steps
        );
        for (step, c) in &self.commands {
            let _ = writeln!(s, "{step} {}", command_text(c));
        }
        if let Some(e) = &self.end {
            let _ = writeln!(s, "end {}", e.text());
        }
        s
    }

    /// Checks that it was made on this version of `level`.
    pub fn check_level(&self, level: &Level, name: &str, origin: &str) -> Result<(), ReplayError> {
        if self.checksum != level.checksum() {
            return Err(ReplayError::Level {
                origin: origin.to_string(),
                recorded: self.level.clone(),
                recorded_checksum: self.checksum,
                level: name.to_string(),
                checksum: level.checksum(),
                engine: self.engine.clone(),
            });
        }
        Ok(())
    }

    /// The commands of step `step` (those of a sorted list, from `*next` on).
    pub fn commands_at(&self, step: u64, next: &mut usize) -> Vec<Command> {
        let mut out = Vec::new();
        while let Some(&(s, c)) = self.commands.get(*next) {
            if s > step {
                break;
            }
            if s == step {
                out.push(c);
            }
            *next += 1;
        }
        out
    }

    /// Plays it headless on `level` to its last step or the level's end, and
    /// checks the end against the recorded one (when it has one).
    pub fn play(&self, level: &Level, name: &str, origin: &str) -> Result<Game, ReplayError> {
        self.check_level(level, name, origin)?;
        let mut game = Game::new(level)?;
        let mut next = 0;
        for step in 0..self.steps {
            let commands = self.commands_at(step, &mut next);
            game.step(&commands);
            if game.outcome().is_some() {
                break;
            }
        }
        self.verify(&game, origin)?;
        Ok(game)
    }

    /// Compares the game's end with the recorded one.
    pub fn verify(&self, game: &Game, origin: &str) -> Result<(), ReplayError> {
        if let Some(expected) = &self.end {
            let got = End::of(game);
            if &got != expected {
                return Err(ReplayError::Diverged {
                    origin: origin.to_string(),
                    engine: self.engine.clone(),
                    expected: expected.text(),
                    got: got.text(),
                });
            }
        }
        Ok(())
    }
}

fn parse_end(w: &[&str]) -> Option<End> {
    let [word, saved, step, digest] = w else {
        return None;
    };
    let won = match *word {
        "won" => true,
        "lost" => false,
        _ => return None,
    };
    Some(End {
        won,
        saved: saved.parse().ok()?,
        step: step.parse().ok()?,
        digest: u64::from_str_radix(digest, 16).ok()?,
    })
}

fn parse_command(w: &[&str]) -> Result<Command, String> {
    let point = |args: &[&str]| -> Result<Vec2, String> {
        let [x, y] = args else {
            return Err(format!("expected two coordinates, found {args:?}"));
        };
        let (x, y): (f32, f32) = (
            x.parse().map_err(|_| format!("{x:?} is not a number"))?,
            y.parse().map_err(|_| format!("{y:?} is not a number"))?,
        );
        if !(x.is_finite() && y.is_finite()) {
            return Err(format!("({x}, {y}) is not a finite point"));
        }
        Ok(Vec2::new(x, y))
    };
    let Some((&name, args)) = w.split_first() else {
        return Err("a step number without a command".into());
    };
    let none = |c: Command| {
        if args.is_empty() {
            Ok(c)
        } else {
            Err(format!("`{name}` takes no arguments, found {args:?}"))
        }
    };
    match name {
        "point" => Ok(Command::Point(point(args)?)),
        "path-begin" => Ok(Command::PathBegin(point(args)?)),
        "path-to" => Ok(Command::PathTo(point(args)?)),
        "pulse" => Ok(Command::Pulse(point(args)?)),
        "path-end" => none(Command::PathEnd),
        "recall" => none(Command::Recall),
        "keys" => {
            let axis = |s: &str| match s {
                "-1" => Ok(-1),
                "0" => Ok(0),
                "1" => Ok(1),
                _ => Err(format!("key axis {s:?} must be -1, 0 or 1")),
            };
            let [x, y] = args else {
                return Err(format!("`keys` takes two axes, found {args:?}"));
            };
            Ok(Command::Keys(axis(x)?, axis(y)?))
        }
        _ => Err(format!(
            "unknown command {name:?} (point, keys, path-begin, path-to, path-end, pulse, recall)"
        )),
    }
}

fn command_text(c: &Command) -> String {
    match c {
        Command::Point(p) => format!("point {} {}", p.x, p.y),
        Command::Keys(x, y) => format!("keys {x} {y}"),
        Command::PathBegin(p) => format!("path-begin {} {}", p.x, p.y),
        Command::PathTo(p) => format!("path-to {} {}", p.x, p.y),
        Command::PathEnd => "path-end".into(),
        Command::Pulse(p) => format!("pulse {} {}", p.x, p.y),
        Command::Recall => "recall".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recording_reads_back_as_written() {
        let rec = Recording {
            engine: "0.1.0".into(),
            level: "first-light".into(),
            checksum: 0xabc,
            steps: 100,
            commands: vec![
                (0, Command::Point(Vec2::new(20.125, 45.0))),
                (3, Command::Keys(1, -1)),
                (3, Command::PathBegin(Vec2::new(0.1, 0.2))),
                (4, Command::PathTo(Vec2::new(1.0 / 3.0, 7.0))),
                (5, Command::PathEnd),
                (9, Command::Pulse(Vec2::new(-0.0, 1e-7))),
                (99, Command::Recall),
            ],
            end: Some(End {
                won: true,
                saved: 12,
                step: 99,
                digest: u64::MAX,
            }),
        };
        let text = rec.to_text();
        assert_eq!(Recording::parse(&text, "r").unwrap(), rec, "{text}");
    }

    #[test]
    fn bad_lines_name_their_line_and_other_formats_their_version() {
        let head = "lumen-replay 1\nengine 0.1.0\nlevel x 00ff\nsteps 10\n";
        let e = |body: &str| {
            Recording::parse(&format!("{head}{body}"), "r")
                .unwrap_err()
                .to_string()
        };
        assert!(
            e("3 jump").starts_with("r:5: unknown command \"jump\""),
            "{}",
            e("3 jump")
        );
        assert!(e("3 point 1").contains("expected two coordinates"));
        assert!(e("3 point nan 1").contains("not a finite point"));
        assert!(e("5 recall\n3 recall").starts_with("r:6: step 3 comes after"));
        assert!(e("10 recall").contains("beyond the recording's 10 steps"));
        assert!(e("end won 1 2 zz").contains("expected `end won|lost SAVED STEP DIGEST`"));
        assert!(e("end lost 1 2 ff\n1 recall").contains("nothing may follow"));
        let old = Recording::parse("lumen-replay 0\nengine 0.0.9\n", "old.replay")
            .unwrap_err()
            .to_string();
        assert_eq!(
            old,
            format!(
                "old.replay: replay format 0 (recorded with Murmuration 0.0.9) is not supported: Murmuration {ENGINE_VERSION} reads format 1"
            )
        );
    }
}

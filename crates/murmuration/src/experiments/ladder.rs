//! Ladders: one parameter stepped through values (up, then back down), the
//! world carried from rung to rung, with statistics per rung. The experiment of
//! hysteresis and collective memory (Couzin et al. 2002, Fig. 4) as one call:
//! `murmuration ladder` and the Python package's `ladder` both use it.

use crate::error::ScenarioError;
use crate::experiments::sweep::RunStats;
use crate::scenario::{AnyWorld, Override, Scenario};
use crate::vector::Vector;
use crate::world::Dimension;
use crate::world::World;

/// Which way a rung was reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// On the way up the list of values.
    Up,
    /// On the way back down.
    Down,
}

impl Direction {
    /// `up` or `down`, as tables write it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Up => "up",
            Self::Down => "down",
        }
    }
}

/// One rung: its place in the ladder, the parameter's value, and the way it was
/// reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rung {
    /// Place in the ladder, from 0.
    pub index: usize,
    /// The value set at the rung's start (as `--set` takes it).
    pub value: String,
    /// Up or down.
    pub direction: Direction,
}

/// A ladder: `path` set to each of `values` in turn, each held `rung_steps`
/// steps; the statistics of each rung leave out its first `skip` steps and
/// sample every `every` after.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ladder {
    /// The parameter (`species.fish.delta_r_o`), as `--set` names it.
    pub path: String,
    /// The values going up, in order.
    pub values: Vec<String>,
    /// Come back down through the values after the top (the top is not repeated).
    pub both_ways: bool,
    /// Steps per rung (at least 1).
    pub rung_steps: u64,
    /// Steps at the start of each rung left out of its statistics (below `rung_steps`).
    pub skip: u64,
    /// Sample every this many steps after the skip (at least 1).
    pub every: u64,
}

impl Ladder {
    /// The rungs in the order they run: the values, then (both ways) back down
    /// from the one below the top.
    pub fn rungs(&self) -> Vec<Rung> {
        let up = self.values.iter().map(|v| (v.clone(), Direction::Up));
        let down = self
            .values
            .iter()
            .rev()
            .skip(1)
            .map(|v| (v.clone(), Direction::Down))
            .filter(|_| self.both_ways);
        up.chain(down)
            .enumerate()
            .map(|(index, (value, direction))| Rung {
                index,
                value,
                direction,
            })
            .collect()
    }

    /// Why the ladder cannot run (a message naming the option), if it cannot.
    pub fn check(&self) -> Result<(), String> {
        if self.values.is_empty() {
            return Err("a ladder needs at least one value".into());
        }
        if self.rung_steps == 0 || self.every == 0 {
            return Err("rung steps and every must be at least 1".into());
        }
        if self.skip >= self.rung_steps {
            return Err(format!(
                "skip = {} leaves nothing to measure: it must be below the rung's {} steps",
                self.skip, self.rung_steps
            ));
        }
        Ok(())
    }

    /// Total steps of one run of the ladder.
    pub fn steps(&self) -> u64 {
        self.rungs().len() as u64 * self.rung_steps
    }

    /// The scenario of every rung, validated before anything runs: a bad value,
    /// or a setting a running world cannot change (tried on a world built and
    /// retuned through every rung, never stepped), is an error here.
    pub fn scenarios(&self, base: &Scenario) -> Result<Vec<Scenario>, ScenarioError> {
        self.check().map_err(|m| base.field_error(&self.path, m))?;
        let scenarios = self
            .rungs()
            .iter()
            .map(|r| {
                base.with_override(Override {
                    path: self.path.clone(),
                    value: r.value.clone(),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        fn retunes<V: Vector>(mut w: World<V>, s: &[Scenario]) -> Result<(), ScenarioError> {
            s.windows(2).try_for_each(|p| p[1].retune(&p[0], &mut w))
        }
        match scenarios[0].build()? {
            AnyWorld::D2(w) => retunes(w, &scenarios)?,
            AnyWorld::D3(w) => retunes(w, &scenarios)?,
        }
        Ok(scenarios)
    }
}

/// Runs the ladder through `scenarios`, its rungs as [`Ladder::scenarios`]
/// made and checked them (one seed): builds the world at the first rung, then
/// for each later rung retunes the running world (its boids kept) and steps
/// on. Returns one [`RunStats`] per rung, or `None` when `stop` returned true
/// first. `tick` is called after each step.
pub fn run_ladder(
    scenarios: &[Scenario],
    ladder: &Ladder,
    stop: &(dyn Fn() -> bool + Sync),
    tick: &(dyn Fn() + Sync),
) -> Result<Option<Vec<RunStats>>, ScenarioError> {
    let Some(first) = scenarios.first() else {
        return Ok(Some(Vec::new()));
    };
    fn go<V: Dimension>(
        mut w: World<V>,
        scenarios: &[Scenario],
        ladder: &Ladder,
        stop: &(dyn Fn() -> bool + Sync),
        tick: &(dyn Fn() + Sync),
    ) -> Result<Option<Vec<RunStats>>, ScenarioError> {
        let mut out = Vec::with_capacity(scenarios.len());
        for (k, s) in scenarios.iter().enumerate() {
            if k > 0 {
                s.retune(&scenarios[k - 1], &mut w)?;
            }
            let mut stats = RunStats::default();
            for step in 1..=ladder.rung_steps {
                if stop() {
                    return Ok(None);
                }
                w.step();
                tick();
                if step > ladder.skip && (step - ladder.skip).is_multiple_of(ladder.every) {
                    stats.add(w.metrics().scalars().map(|(_, v)| v));
                }
            }
            out.push(stats);
        }
        Ok(Some(out))
    }
    match first.build()? {
        AnyWorld::D2(w) => go(w, scenarios, ladder, stop, tick),
        AnyWorld::D3(w) => go(w, scenarios, ladder, stop, tick),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ladder(values: &[&str], both_ways: bool) -> Ladder {
        Ladder {
            path: "species.p.eta".into(),
            values: values.iter().map(|v| v.to_string()).collect(),
            both_ways,
            rung_steps: 10,
            skip: 5,
            every: 1,
        }
    }

    #[test]
    fn rungs_go_up_then_down_without_repeating_the_top() {
        let r = ladder(&["0", "1", "2"], true).rungs();
        let seen: Vec<(&str, Direction)> =
            r.iter().map(|r| (r.value.as_str(), r.direction)).collect();
        assert_eq!(
            seen,
            [
                ("0", Direction::Up),
                ("1", Direction::Up),
                ("2", Direction::Up),
                ("1", Direction::Down),
                ("0", Direction::Down)
            ]
        );
        assert_eq!(r[4].index, 4);
        assert_eq!(ladder(&["0", "1", "2"], false).rungs().len(), 3);
        assert_eq!(ladder(&["0", "1", "2"], true).steps(), 50);
    }

    #[test]
    fn a_ladder_that_measures_nothing_is_refused() {
        assert!(ladder(&["1"], true).check().is_ok());
        assert!(ladder(&[], true).check().is_err());
        let mut l = ladder(&["1"], true);
        l.skip = 10;
        assert!(l.check().unwrap_err().contains("skip = 10"));
    }

    /// The state is carried: a Vicsek ladder of noise 0 → 5 → 0 at low density
    /// stays ordered going up at η = 0, disorders at 5, and its last rung (η = 0
    /// again) starts from the disordered state, so it differs from the first.
    #[test]
    fn the_world_is_carried_from_rung_to_rung() {
        let text = r#"
name = "v"
dimension = 2
[world]
size = [10, 10]
boundary = "wrap"
dt = 1.0
[species.p]
model = "vicsek"
count = 200
v0 = 0.03
r = 1.0
eta = 0.1
"#;
        let base = Scenario::parse(text, "v.toml").unwrap();
        let l = Ladder {
            rung_steps: 200,
            skip: 150,
            every: 10,
            ..ladder(&["0.1", "6"], true)
        };
        let stats = run_ladder(&l.scenarios(&base).unwrap(), &l, &|| false, &|| {})
            .unwrap()
            .unwrap();
        assert_eq!(stats.len(), 3);
        assert!(stats.iter().all(|s| s.samples == 5));
        let pol = |s: &RunStats| s.mean[1];
        assert!(
            pol(&stats[1]) < 0.3,
            "disordered at eta 6: {}",
            pol(&stats[1])
        );
        assert!(
            pol(&stats[0]) != pol(&stats[2]),
            "the state was not carried"
        );
        // A bad value anywhere is found before any step: by the rungs'
        // scenarios, which `run_ladder` needs.
        let bad = Ladder {
            values: vec!["0.1".into(), "99".into()],
            ..l.clone()
        };
        let err = bad.scenarios(&base).unwrap_err();
        assert!(err.to_string().contains("99"), "{err}");
        // So is a setting a running world cannot take (a count), found by
        // retuning a world that is never stepped (a regression test: it used
        // to surface only after the first rung had run).
        let count = Ladder {
            path: "species.p.count".into(),
            values: vec!["200".into(), "300".into()],
            ..l.clone()
        };
        let err = count.scenarios(&base).unwrap_err();
        assert!(err.to_string().contains("species.p.count"), "{err}");
    }
}

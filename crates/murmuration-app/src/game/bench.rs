//! `murmuration bench --level LEVEL`: the cost of one full game step (the flock,
//! hunters, plates, gates, exit, focus, light path and pulses), driven by the
//! level's recorded solution so the input is a real player's.

use crate::out::outln;
use crate::run::thread_pool;
use anyhow::{Context, Result, bail};
use murmuration_game::{Game, Recording, levels};
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// One result row; the field names are the `--json` contract.
#[derive(Debug, Serialize, Deserialize)]
pub struct GameRow {
    /// The level's key.
    pub level: String,
    /// Creatures of every species at the first step.
    pub creatures: u64,
    /// Game steps timed (the whole recording, to the level's end).
    pub steps: u64,
    /// Worker threads.
    pub threads: usize,
    /// Median step, milliseconds.
    pub median_ms: f64,
    /// 95th percentile step, milliseconds.
    pub p95_ms: f64,
    /// Slowest step, milliseconds.
    pub max_ms: f64,
}

/// Times every step of the level's recorded solution, once per thread count.
pub fn run(level: &str, threads: Option<usize>, json: bool) -> Result<()> {
    let Some((_, shipped)) = levels::find(level) else {
        bail!(
            "--level {level:?} is not a shipped level: the benchmark replays a level's recorded solution (levels 1 to {})",
            levels::LEVELS.len()
        );
    };
    let (lvl, key) = super::load(level, &[])?;
    let rec = Recording::parse(shipped.solution, &format!("levels/solutions/{key}.replay"))?;
    rec.check_level(&lvl, &key, "the shipped solution")?;
    let all = std::thread::available_parallelism().map_or(1, |n| n.get());
    let counts = threads.map_or(if all > 1 { vec![all, 1] } else { vec![1] }, |t| vec![t]);
    if !json {
        outln!(
            "{:<14} {:>9} {:>6} {:>7} {:>10} {:>8} {:>8}",
            "level",
            "creatures",
            "steps",
            "threads",
            "median_ms",
            "p95_ms",
            "max_ms"
        )?;
    }
    for t in counts {
        let pool = thread_pool(Some(t))?;
        let row = pool.install(|| measure(&lvl, &key, &rec, t))?;
        if json {
            outln!("{}", serde_json::to_string(&row)?)?;
        } else {
            outln!(
                "{:<14} {:>9} {:>6} {:>7} {:>10.3} {:>8.3} {:>8.3}",
                row.level,
                row.creatures,
                row.steps,
                row.threads,
                row.median_ms,
                row.p95_ms,
                row.max_ms
            )?;
        }
    }
    Ok(())
}

fn measure(
    level: &murmuration_game::Level,
    key: &str,
    rec: &Recording,
    threads: usize,
) -> Result<GameRow> {
    let mut game = Game::new(level).context("the level does not build")?;
    let creatures = game.world().len() as u64;
    let mut times = Vec::with_capacity(rec.steps as usize);
    let mut next = 0;
    for step in 0..rec.steps {
        let commands = rec.commands_at(step, &mut next);
        let t = Instant::now();
        game.step(&commands);
        times.push(t.elapsed().as_secs_f64() * 1e3);
        if game.outcome().is_some() {
            break;
        }
    }
    // The timed run is the recording itself: it must still end as recorded.
    rec.verify(&game, "the shipped solution")?;
    let median = crate::bench::median(&mut times);
    let m = times.len();
    Ok(GameRow {
        level: key.to_string(),
        creatures,
        steps: m as u64,
        threads,
        median_ms: median,
        p95_ms: times[(m * 95 / 100).min(m - 1)],
        max_ms: times[m - 1],
    })
}

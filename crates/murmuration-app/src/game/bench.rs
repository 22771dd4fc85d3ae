//! `murmuration bench --level LEVEL`: the cost of one full game step (the flock,
//! hunters, plates, gates, exit, focus, light path and pulses), driven by the
//! level's recorded solution so the input is a real player's.

use crate::out::outln;
use crate::run::thread_pool;
use crate::timing::{median, percentile, thread_counts};
use anyhow::{Context, Result, bail};
use murmuration_game::{Game, Level, Recording, levels};
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// One result row; the field names are the `--json` contract.
#[derive(Debug, Serialize, Deserialize)]
pub struct GameRow {
    /// The level's key.
    pub level: String,
    /// Creatures of every species at the first step.
    pub creatures: u64,
    /// Game steps timed (the whole recording to the level's end, or `--steps`).
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

/// A shipped level, its key and its recorded solution.
fn solved(level: &str) -> Result<(Level, String, Recording)> {
    let Some((_, shipped)) = levels::find(level) else {
        bail!(
            "--level {level:?} is not a shipped level: the benchmark replays a level's recorded solution (levels 1 to {})",
            levels::LEVELS.len()
        );
    };
    let (lvl, key) = super::load(level, &[])?;
    let rec = Recording::parse(shipped.solution, &format!("levels/solutions/{key}.replay"))?;
    rec.check_level(&lvl, &key, "the shipped solution")?;
    Ok((lvl, key, rec))
}

/// One row of `--render`; the field names are the `--json` contract.
#[derive(Debug, Serialize, Deserialize)]
pub struct FrameRow {
    /// The level's key.
    pub level: String,
    /// Picture size, pixels.
    pub width: u32,
    /// Picture size, pixels.
    pub height: u32,
    /// Frames timed.
    pub frames: u64,
    /// The adapter that drew them.
    pub adapter: String,
    /// Median frame, milliseconds.
    pub median_ms: f64,
    /// 95th percentile frame, milliseconds.
    pub p95_ms: f64,
    /// Frames per second at the median.
    pub fps: f64,
}

/// Times whole frames of the level's recorded solution: one step, the scene's
/// update and an offscreen render read back, as `game --render` draws them.
pub fn frames(level: &str, (w, h): (u32, u32), count: u32, json: bool) -> Result<()> {
    let (lvl, key, rec) = solved(level)?;
    let mut drawing = super::Drawing::new(&lvl, (w, h), super::VIEW)?;
    let mut game = Game::new(&lvl)?;
    let mut times = Vec::new();
    let mut next = 0;
    for step in 0..rec.steps.min(u64::from(count)) {
        let t = Instant::now();
        game.step(&rec.commands_at(step, &mut next));
        let picture = drawing.frame(&game)?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
        drop(picture);
        if game.outcome().is_some() {
            break;
        }
    }
    let median = median(&mut times);
    let m = times.len();
    let row = FrameRow {
        level: key,
        width: w,
        height: h,
        frames: m as u64,
        adapter: drawing.adapter(),
        median_ms: median,
        p95_ms: percentile(&times, 95),
        fps: 1e3 / median,
    };
    if json {
        outln!("{}", serde_json::to_string(&row)?)?;
    } else {
        outln!(
            "{} at {}x{} on {}: {} frames, median {:.2} ms ({:.0} frames/s), p95 {:.2} ms",
            row.level,
            w,
            h,
            row.adapter,
            row.frames,
            row.median_ms,
            row.fps,
            row.p95_ms
        )?;
    }
    Ok(())
}

/// Times every step of the level's recorded solution (or its first `limit`),
/// once per thread count.
pub fn run(level: &str, threads: Option<usize>, limit: Option<u64>, json: bool) -> Result<()> {
    let (lvl, key, rec) = solved(level)?;
    let counts = thread_counts(threads);
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
        let row = pool.install(|| measure(&lvl, &key, &rec, t, limit))?;
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
    level: &Level,
    key: &str,
    rec: &Recording,
    threads: usize,
    limit: Option<u64>,
) -> Result<GameRow> {
    let mut game = Game::new(level).context("the level does not build")?;
    let creatures = game.world().len() as u64;
    let mut times = Vec::with_capacity(rec.steps as usize);
    let mut next = 0;
    let steps = limit.map_or(rec.steps, |l| l.clamp(1, rec.steps));
    for step in 0..steps {
        let commands = rec.commands_at(step, &mut next);
        let t = Instant::now();
        game.step(&commands);
        times.push(t.elapsed().as_secs_f64() * 1e3);
        if game.outcome().is_some() {
            break;
        }
    }
    // The timed run is the recording itself: played to its end, it must still
    // end as recorded.
    if steps == rec.steps || game.outcome().is_some() {
        rec.verify(&game, "the shipped solution")?;
    }
    let median = median(&mut times);
    let m = times.len();
    Ok(GameRow {
        level: key.to_string(),
        creatures,
        steps: m as u64,
        threads,
        median_ms: median,
        p95_ms: percentile(&times, 95),
        max_ms: times[m - 1],
    })
}

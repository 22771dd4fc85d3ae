//! `murmuration`: the command line over the Murmuration library.
//!
//! Each command is a module here with its clap arguments (`RunArgs`,
//! `SweepArgs`, ...) and a `run` function, a variant of `Command` below with
//! its arm in `main`, and tests in a file of `tests/` that run the binary. Work
//! another front end also needs (a sweep's plan and statistics, a ladder, field
//! analyses) lives in the core (`murmuration::sweep`, `murmuration::ladder`,
//! ...), so the Python package gives the same numbers. Exit codes come from
//! `failure.rs`: 1 a failure while running, 2 bad input, 130 Ctrl-C, 143
//! SIGTERM.

mod analyse;
mod backend;
mod bench;
mod check;
mod failure;
mod frames;
mod game;
mod gfx;
mod http;
mod ladder;
mod out;
mod outputs;
mod play;
mod plot;
mod presets;
mod progress;
mod render;
mod run;
mod scene_bench;
mod sweep;
mod timing;
mod web;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Murmuration: exact, deterministic flocking in 2D and 3D.
///
/// Without a command, the sandbox opens when a display exists; otherwise the main
/// job runs headless (`murmuration run` on the embedded default scenario). FILE is a
/// scenario file (docs/SCENARIOS.md) or the name of a shipped preset (`murmuration
/// presets`).
///
/// Exit codes: 0 success, 1 failure while running, 2 bad input (scenario, snapshot,
/// option, output path, or more boids than the memory this process may use: the
/// machine's, `ulimit -v`/`-d` and its cgroup's limit), 130 Ctrl-C and 143 SIGTERM
/// (both stop between two steps with every output complete).
#[derive(Parser)]
#[command(name = "murmuration", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// The sandbox: the live flock in a window with a tuning panel.
    ///
    /// An egui panel is bound to every parameter of every species (sliders over the
    /// documented ranges), boid counts (added and removed live), boundary,
    /// colouring, glow and trails; presets one click away; Save/Load of the world as
    /// a scenario file; an A/B switch that keeps a parameter set to compare against;
    /// pause, single step, speed x0.25-x4, reset with the same seed; live plots of
    /// polarization, milling, nearest-neighbour distance and mean speed, FPS and step
    /// time; a symptom -> cause -> fix tuning table.
    ///
    /// Mouse (2D): click sets the target, drag draws a path, right click fires a
    /// pulse, O drops an obstacle, ctrl+click (or I) selects a boid and draws its
    /// radii, vision cone and force arrows by rule; middle drag pans, the wheel
    /// zooms. In 3D drag orbits and ctrl+click (or I) picks the boid nearest the
    /// cursor's ray. Space pauses, S steps, R resets.
    ///
    /// With --backend gpu the flock steps on the window's own device and is drawn
    /// straight from its buffers; the state is read back only for the plots, edits,
    /// a selected boid, trails and saving. The research models step on the CPU.
    Play(play::PlayArgs),
    /// Run a scenario headless (the embedded default when no FILE) and print a
    /// summary ending in the state digest.
    ///
    /// A progress bar (steps/s, ETA) shows on a terminal, then the summary: steps,
    /// wall time, steps/s, every metric on its own `name: value` line, the zones,
    /// the scenario's `[expect]` bands, and `digest: <16 hex>`, a hash of the final
    /// state in boid-id order (equal digests mean bit-identical runs).
    ///
    /// Outputs are written to a temporary file and renamed into place, so none is
    /// ever half written; two outputs on one file, or an output that cannot be
    /// written, are refused before the run. Ctrl-C stops between two steps,
    /// completes every output up to there and exits with code 130. --resume
    /// continues a snapshot bit for bit (100 steps, a snapshot, then 100 resumed
    /// give the digest of 200).
    Run(run::RunArgs),
    /// Validate a scenario and warn about likely mistakes.
    ///
    /// Errors name the file, line, column, field and value (`fish.toml:14:21:
    /// species.fish.separation_radius = 2 must not exceed
    /// species.fish.perception_radius = 1.2`) and exit with code 2. Warnings: a
    /// grid cell far from a perception radius, a step longer than an obstacle is
    /// thick, separation as wide as perception, unreachable zones.
    Check(check::CheckArgs),
    /// Run a grid of parameter values x seeds in parallel; one CSV row per run.
    ///
    /// Every combination of the listed values runs with every seed (no --set: the
    /// scenario over seeds). Each row holds the mean and standard deviation of every
    /// metric after the transient (--skip), in grid order whatever the thread
    /// count. The table is rewritten as each run finishes, so a killed sweep keeps
    /// its finished runs and --resume runs only the rest.
    Sweep(sweep::SweepArgs),
    /// Step one parameter up through values and back down, the flock carried
    /// from rung to rung (hysteresis); one CSV row per seed and rung.
    Ladder(ladder::LadderArgs),
    /// Measure a flock as field studies measure starlings: velocity
    /// correlations, neighbour anisotropy, shape, density from edge to core.
    ///
    /// Every definition is in docs/METRICS.md ("Field-study analyses").
    Analyse(analyse::AnalyseArgs),
    /// Draw a run offscreen to a PNG, an animated GIF, a folder of PNGs or an MP4.
    ///
    /// No window is needed (Mesa's software Vulkan driver serves a machine without a
    /// GPU). Every boid is one instanced draw (darts in 2D, lit cones in 3D),
    /// coloured by species, speed or neighbour count, with optional trails and glow,
    /// and the obstacles, zones with their live counts, attractors, pulses and paths
    /// drawn over them. --follow keeps a flock whole across the seam of a
    /// wrap-around world. With --backend gpu the flock steps on the GPU and is
    /// drawn from its buffers (--trails, --follow and --colour neighbours read the
    /// state back).
    Render(render::RenderArgs),
    /// List the shipped scenarios (or print one with --show NAME).
    Presets(presets::PresetsArgs),
    /// The standard flock benchmark (BENCHMARKS.md, "The standard workload").
    ///
    /// With no options it runs the whole table. --json prints one object per row
    /// with the fields `dim, n, phase, backend, threads, median_ms, min_ms,
    /// ns_per_boid_step, neighbours, candidates, bytes_per_boid` (a contract); GPU
    /// rows add `device` and time each step with GPU timestamps; CPU rows add
    /// `kernel_lanes` and, for the models the pipeline steps, the medians of the
    /// step's phases (`grid_ms`, `gather_ms`, `steer_ms`). --level times a game
    /// level's step or its frames, --scene any preset or scenario file.
    Bench(bench::BenchArgs),
    /// Lumen Swarm (docs/GAME.md): play a level's recording headless or draw it.
    ///
    /// Without LEVEL the title screen opens (level select, best results, controls).
    /// In the window the
    /// mouse moves the focus, Shift-drag draws a light path, right click fires a
    /// pulse, Space or a double click recalls the swarm.
    Game(game::GameArgs),
    /// The browser page: the flock in WebAssembly and WebGL2, served locally
    /// (or written out as static files with --export DIR).
    ///
    /// The first start builds the page's two WebAssembly modules from this source
    /// tree (a few minutes; later starts rebuild only after a change). Every file is
    /// sent Brotli- or gzip-compressed. docs/WEB.md describes the page.
    Web(web::WebArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        // With a display the sandbox opens; without one the main job runs headless.
        None if play::display_available() => play::run(&play::PlayArgs {
            size: (1280, 800),
            ..Default::default()
        }),
        None => run::run(&run::RunArgs::default()),
        Some(Command::Play(args)) => play::run(&args),
        Some(Command::Run(args)) => run::run(&args),
        Some(Command::Check(args)) => check::run(&args),
        Some(Command::Sweep(args)) => sweep::run(&args),
        Some(Command::Ladder(args)) => ladder::run(&args),
        Some(Command::Analyse(args)) => analyse::run(&args),
        Some(Command::Presets(args)) => presets::run(&args),
        Some(Command::Render(args)) => render::run(&args),
        Some(Command::Bench(args)) => bench::run(&args),
        Some(Command::Game(args)) => game::run(&args),
        Some(Command::Web(args)) => web::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if out::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) if e.is::<failure::Interrupted>() => ExitCode::from(failure::exit_code(&e)),
        Err(e) => {
            eprintln!("error: {e}");
            for cause in e.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            ExitCode::from(failure::exit_code(&e))
        }
    }
}

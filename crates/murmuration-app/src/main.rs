//! `murmuration`: the command line over the Murmuration library.

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
/// Exit codes: 0 success, 1 failure while running, 2 bad input (scenario,
/// snapshot, option or output path), 130 stopped by Ctrl-C (outputs kept valid).
#[derive(Parser)]
#[command(name = "murmuration", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// The sandbox: the live flock in a window with a tuning panel.
    Play(play::PlayArgs),
    /// Run a scenario headless (the embedded default when no FILE) and print a
    /// summary ending in the state digest.
    Run(run::RunArgs),
    /// Validate a scenario and warn about likely mistakes.
    Check(check::CheckArgs),
    /// Run a grid of parameter values x seeds in parallel; one CSV row per run.
    Sweep(sweep::SweepArgs),
    /// Step one parameter up through values and back down, the flock carried
    /// from rung to rung (hysteresis); one CSV row per seed and rung.
    Ladder(ladder::LadderArgs),
    /// Measure a flock as field studies measure starlings: velocity
    /// correlations, neighbour anisotropy, shape, density from edge to core.
    Analyse(analyse::AnalyseArgs),
    /// Draw a run offscreen to a PNG, an animated GIF, a folder of PNGs or an MP4.
    Render(render::RenderArgs),
    /// List the shipped scenarios (or print one with --show NAME).
    Presets(presets::PresetsArgs),
    /// The standard flock benchmark (BENCHMARKS.md, "The standard workload").
    Bench(bench::BenchArgs),
    /// Lumen Swarm (docs/GAME.md): play a level's recording headless or draw it.
    Game(game::GameArgs),
    /// The browser page: the flock in WebAssembly and WebGL2, served locally
    /// (or written out as static files with --export DIR).
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

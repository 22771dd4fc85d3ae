//! `murmuration`: the command line over the Murmuration library.

mod backend;
mod bench;
mod default_run;
mod memory;
mod out;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Murmuration: exact, deterministic flocking in 2D and 3D.
#[derive(Parser)]
#[command(name = "murmuration", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run the embedded default scenario headless and print a summary (the default).
    Run(default_run::RunArgs),
    /// The standard flock benchmark (shared/BENCHMARK.md).
    Bench(bench::BenchArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        None => default_run::run(&default_run::RunArgs::default()),
        Some(Command::Run(args)) => default_run::run(&args),
        Some(Command::Bench(args)) => bench::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if out::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            for cause in e.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            ExitCode::from(1)
        }
    }
}

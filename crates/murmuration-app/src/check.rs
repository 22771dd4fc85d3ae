//! `murmuration check FILE`: validate a scenario and warn about likely mistakes.

use crate::out::outln;
use crate::presets;
use anyhow::Result;
use clap::Args;
use murmuration::scenario::Override;

/// Options of `murmuration check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Scenario file, or the name of a shipped preset.
    pub file: String,
    /// Check with a value changed: `--set species.fish.count=100` (repeatable).
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub set: Vec<Override>,
}

/// Validates the scenario (an error exits with code 2) and prints its warnings.
pub fn run(args: &CheckArgs) -> Result<()> {
    let s = presets::load(Some(&args.file), &args.set)?;
    let species: Vec<String> = s
        .species()
        .iter()
        .map(|(name, count)| format!("{name} {count}"))
        .collect();
    let name = if s.name().is_empty() {
        "unnamed"
    } else {
        s.name()
    };
    outln!(
        "{}: ok: {name}, {}D, {} boids ({})",
        s.origin(),
        s.dimension(),
        s.total_boids(),
        species.join(", ")
    )?;
    let lints = s.lints();
    for l in &lints {
        outln!("{}:{l}", s.origin())?;
    }
    outln!(
        "{} warning{}",
        lints.len(),
        if lints.len() == 1 { "" } else { "s" }
    )?;
    Ok(())
}

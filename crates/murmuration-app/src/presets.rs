//! The shipped scenarios (`scenarios/*.toml`, embedded in the binary) and how a
//! FILE argument is resolved: a path when one exists, else a preset's name.

use crate::failure::invalid;
use crate::out::outln;
use anyhow::Result;
use clap::Args;
use murmuration::scenario::{Override, Scenario};

pub use murmuration::scenario::{PRESETS, preset};

/// Loads FILE (a path, or a preset's name; the default scenario when `None`)
/// with overrides, and checks that its boids fit in memory.
pub fn load(file: Option<&str>, overrides: &[Override]) -> Result<Scenario> {
    let scenario = match file {
        None => Scenario::parse_with(PRESETS[0].1, "<default>", overrides)?,
        Some(f) => Scenario::resolve(f, overrides)?,
    };
    scenario.check_memory()?;
    Ok(scenario)
}

/// [`load`] with `--seed` (when given) then the `--set` overrides applied.
pub fn load_seeded(file: Option<&str>, seed: Option<u64>, set: &[Override]) -> Result<Scenario> {
    let mut overrides: Vec<Override> = seed
        .map(|s| Override {
            path: "world.seed".into(),
            value: s.to_string(),
        })
        .into_iter()
        .collect();
    overrides.extend(set.iter().cloned());
    load(file, &overrides)
}

/// The scenario's name, or where it came from when it has none.
pub fn label(s: &Scenario) -> String {
    if s.name().is_empty() {
        s.origin().to_string()
    } else {
        s.name().to_string()
    }
}

/// Options of `murmuration presets`.
#[derive(Args, Debug)]
pub struct PresetsArgs {
    /// Print this preset's scenario file (to copy and edit).
    #[arg(long, value_name = "NAME")]
    pub show: Option<String>,
}

/// Lists the presets, one line each, or prints one.
pub fn run(args: &PresetsArgs) -> Result<()> {
    if let Some(name) = &args.show {
        let text = preset(name).ok_or_else(|| {
            invalid(format!(
                "no preset named {name:?} (see `murmuration presets`)"
            ))
        })?;
        outln!("{}", text.trim_end())?;
        return Ok(());
    }
    for (name, text) in PRESETS {
        let s = Scenario::parse(text, name)?;
        outln!(
            "{name:<20} {}D {:>7} boids  {}",
            s.dimension(),
            s.total_boids(),
            s.description()
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use murmuration::World2;
    use murmuration::glam::Vec2;
    use murmuration::{Boundary, SpeciesParams, Steering, WorldConfig};
    use murmuration::{Spawn, SpeciesId};

    #[test]
    fn every_preset_parses() {
        for (name, text) in PRESETS {
            let s = Scenario::parse(text, name).unwrap();
            assert_eq!(s.name(), name);
        }
    }

    #[test]
    fn the_default_preset_is_the_documented_default_world() {
        // The default before scenario files existed, built by hand.
        let mut config = WorldConfig::new(Vec2::splat(60.0), Boundary::Wrap);
        config.seed = 1;
        let species = SpeciesParams {
            steering: Steering::Directions,
            max_force: 4.0,
            cruise_speed: 2.5,
            fov_degrees: 270.0,
            jitter: 0.02,
            ..SpeciesParams::default()
        };
        let mut by_hand = World2::new(config, vec![species]).unwrap();
        by_hand
            .spawn(Spawn::new(SpeciesId::FIRST, 2_000).speed(species.max_speed))
            .unwrap();
        let s = load(None, &[]).unwrap();
        let mut from_file: World2 = s.build_world().unwrap();
        assert_eq!(from_file.config(), by_hand.config());
        assert_eq!(from_file.species(), by_hand.species());
        by_hand.step_n(50);
        from_file.step_n(50);
        assert_eq!(from_file.digest(), by_hand.digest());
    }

    #[test]
    fn boids_beyond_the_available_memory_are_bad_input() {
        let s = Scenario::parse(PRESETS[0].1, "d.toml").unwrap();
        assert!(s.check_memory_within(Some((1 << 30, "available"))).is_ok());
        assert!(s.check_memory_within(None).is_ok());
        let e: anyhow::Error = s
            .check_memory_within(Some((100_000, "available")))
            .unwrap_err()
            .into();
        assert_eq!(crate::failure::exit_code(&e), 2);
        let msg = e.to_string();
        assert!(msg.contains("species.boids.count = 2000"), "{msg}");
        assert!(msg.contains("GiB of memory is available"), "{msg}");
    }
}

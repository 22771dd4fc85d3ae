//! A new boid count for the page: the flock is rebuilt from its preset with
//! the count, and where the preset's scene is just its world box (no spawn
//! regions, obstacles or other placed things) the box grows or shrinks with the
//! count, so the preset's density, and so its look and its cost per boid, stay.

use murmuration::scenario::Scenario;

/// How a preset's world follows a new count.
#[derive(Debug, Clone, PartialEq)]
pub enum Resize {
    /// The box scales by `(count / preset count)^(1/dimension)` per side; the
    /// preset's box side lengths.
    Density(Vec<f64>),
    /// The scene places things in the box (why, for the page): it keeps its size.
    Fixed(&'static str),
}

impl Resize {
    /// How `preset` (its TOML text) resizes.
    pub fn of(text: &str) -> Self {
        let Ok(table) = text.parse::<toml::Table>() else {
            return Self::Fixed("its file does not parse");
        };
        for key in [
            "obstacles",
            "attractors",
            "paths",
            "zones",
            "pulses",
            "fields",
        ] {
            if table.contains_key(key) {
                return Self::Fixed("its scene places obstacles or targets");
            }
        }
        let spawns = table
            .get("species")
            .and_then(toml::Value::as_table)
            .is_some_and(|s| {
                s.values()
                    .any(|t| t.as_table().is_some_and(|t| t.contains_key("spawn")))
            });
        if spawns {
            return Self::Fixed("its flocks start in places of their own");
        }
        let world = table.get("world").and_then(toml::Value::as_table);
        if world.is_some_and(|w| w.contains_key("min") || w.contains_key("max")) {
            return Self::Fixed("its box is placed, not sized");
        }
        let size = world
            .and_then(|w| w.get("size"))
            .and_then(toml::Value::as_array)
            .map(|a| {
                a.iter()
                    .map(|x| x.as_float().or_else(|| x.as_integer().map(|i| i as f64)))
                    .collect::<Option<Vec<f64>>>()
            });
        match size {
            Some(Some(size)) => Self::Density(size),
            _ => Self::Fixed("it has no world size"),
        }
    }

    /// The override that keeps the preset's density at `total` boids where
    /// the preset holds `preset_total` (`None`: the box stays); a few boids
    /// get a box no side of which is under `min_side` (so a boid never sees
    /// itself across a wrapped box smaller than its perception).
    pub fn size_override(&self, total: u64, preset_total: u64, min_side: f64) -> Option<String> {
        let Self::Density(size) = self else {
            return None;
        };
        if total == preset_total || preset_total == 0 || total == 0 {
            return None;
        }
        let shortest = size.iter().copied().fold(f64::INFINITY, f64::min);
        let k = (total as f64 / preset_total as f64)
            .powf(1.0 / size.len() as f64)
            .max((min_side / shortest).min(1.0));
        let sides: Vec<String> = size.iter().map(|s| format!("{}", short(s * k))).collect();
        Some(format!("world.size=[{}]", sides.join(", ")))
    }
}

/// Four significant digits: the box's sides as a person would type them.
fn short(x: f64) -> f64 {
    if x == 0.0 {
        return 0.0;
    }
    let scale = 10f64.powi(3 - x.abs().log10().floor() as i32);
    (x * scale).round() / scale
}

/// The counts of every species (`names`: each species' name and count now)
/// after `species` is set to `count` (at most `max` boids in all), as
/// overrides, plus the box that keeps the density; `Err`: a message naming
/// the species.
pub fn count_overrides(
    text: &str,
    names: &[(String, u64)],
    species: usize,
    count: &str,
    max: u64,
) -> Result<Vec<String>, String> {
    let (name, _) = names
        .get(species)
        .ok_or_else(|| format!("no species {species}; the flock has {}", names.len()))?;
    let count: u64 = count
        .trim()
        .parse()
        .map_err(|_| format!("{name} count {count:?} is not a whole number of boids"))?;
    let mut set: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(i, (n, c))| {
            format!(
                "species.{n}.count={}",
                if i == species { count } else { *c }
            )
        })
        .collect();
    let total =
        (names.iter().map(|(_, c)| c).sum::<u64>() - names[species].1).saturating_add(count);
    if total > max {
        return Err(format!(
            "{total} boids are more than the page steps ({max} at most, about 0.1 s a step); `murmuration run` takes larger flocks"
        ));
    }
    let preset = Scenario::parse(text, "preset").map_err(|e| e.to_string())?;
    // At least four of the widest perception across (and never larger than the preset's box).
    let reach = preset
        .species_params()
        .iter()
        .map(|p| f64::from(p.perception_radius()))
        .fold(0.0, f64::max);
    if let Some(size) = Resize::of(text).size_override(total, preset.total_boids(), 4.0 * reach) {
        set.push(size);
    }
    Ok(set)
}

//! Levels are scenario files with a `[game]` section (`docs/GAME.md`): the world,
//! creatures and predators as any scenario describes them, then the exit, the
//! target, plates and gates. Parsed with the scenario's own file:line:column
//! errors, and run relative to the level's lower corner so a level far from the
//! origin plays exactly as at the origin.

use crate::controls::Controls;
use crate::outcome::Par;
use glam::Vec2;
use murmuration::scenario::{Override, ParseOptions, Scenario};
use murmuration::{CombineMode, Obstacle, ScenarioError};
use serde::Deserialize;

/// The name of the extra section a level adds to a scenario.
pub const SECTION: &str = "game";

/// How a level's scenario is read: with its `[game]` section, recentred.
fn options(overrides: &[Override]) -> ParseOptions<'_> {
    ParseOptions {
        overrides,
        sections: &[SECTION],
        recentre: true,
    }
}

/// `[game]` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GameSpec {
    #[serde(default)]
    swarm: Option<String>,
    save: u64,
    #[serde(default = "infinite")]
    time_limit: f32,
    #[serde(default)]
    hint: Option<String>,
    #[serde(default)]
    hints: Vec<Hint>,
    #[serde(default)]
    par: Option<Par>,
    #[serde(default)]
    dark: bool,
    exit: Obstacle<Vec2>,
    #[serde(default)]
    focus: FocusSpec,
    #[serde(default)]
    plates: Vec<PlateSpec>,
    #[serde(default)]
    gates: Vec<GateSpec>,
    #[serde(default)]
    controls: Controls,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FocusSpec {
    #[serde(default)]
    position: Option<Vec2>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PlateSpec {
    name: String,
    shape: Obstacle<Vec2>,
    need: u64,
    #[serde(default)]
    release: Option<u64>,
    #[serde(default = "half_second")]
    hold: f32,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GateSpec {
    plates: Vec<String>,
    shape: Obstacle<Vec2>,
    #[serde(default = "yes")]
    latch: bool,
    #[serde(default = "yes")]
    required: bool,
}

/// Something a hint teaches; the hint stays on screen until the player has
/// done it (issue 46), not for a fixed few seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lesson {
    /// The swarm was led: its centre moved 15 units from where it started.
    Lead,
    /// A recall was called.
    Recall,
    /// A repel pulse was fired.
    Pulse,
    /// A light path was drawn (two points or more).
    Path,
    /// A plate held.
    Plate,
    /// A gate opened.
    Gate,
    /// A creature reached the exit.
    Saved,
}

/// One line of teaching, shown until its lesson is done; a level's hints
/// show one at a time, in order.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hint {
    /// What the player reads.
    pub text: String,
    /// What makes it go.
    #[serde(default = "lead")]
    pub until: Lesson,
}

fn lead() -> Lesson {
    Lesson::Lead
}

fn infinite() -> f32 {
    f32::INFINITY
}
fn half_second() -> f32 {
    0.5
}
fn yes() -> bool {
    true
}

/// A pressure plate: it holds while at least `need` creatures stand on it at
/// once, and lets go only after fewer than `release` have stood on it for `hold`
/// seconds, so a swarm's tail swinging off does not flicker it.
#[derive(Clone, Debug, PartialEq)]
pub struct Plate {
    /// Its name, for gates and messages.
    pub name: String,
    /// The region creatures stand in.
    pub shape: Obstacle<Vec2>,
    /// Creatures needed at once to hold it, in [1, the swarm's count].
    pub need: u64,
    /// Below this count (for `hold` seconds) a held plate lets go, in [0, need];
    /// 80 % of `need` unless given.
    pub release: u64,
    /// Seconds under `release` before a held plate lets go, in [0, 60].
    pub hold: f32,
}

/// A gate: an obstacle that disappears while all its plates hold.
#[derive(Clone, Debug, PartialEq)]
pub struct Gate {
    /// Indices into [`Level::plates`], at least one.
    pub plates: Vec<usize>,
    /// The solid shape while closed.
    pub shape: Obstacle<Vec2>,
    /// Once open it stays open (the mechanism has started); otherwise it closes
    /// when a plate lets go, as soon as no creature is inside its shape.
    pub latch: bool,
    /// The exit lies behind it: when too few creatures are left to hold its
    /// plates the level is lost, and the failure says so.
    pub required: bool,
}

/// A parsed, validated level.
#[derive(Clone, Debug)]
pub struct Level {
    scenario: Scenario,
    swarm: usize,
    creatures: u64,
    /// Creatures that must reach the exit.
    pub save: u64,
    /// Seconds before the level is lost (infinite when none).
    pub time_limit: f32,
    /// The hints, in order: each shows until its lesson is done
    /// (`hint = "..."` is one hint until the swarm is led).
    pub hints: Vec<Hint>,
    /// What a win's stars are rated against; unless given, saving three
    /// quarters of those the exit does not need, with no time.
    pub par: Par,
    /// The ruins, gates and plates are seen only where the swarm's own light
    /// falls (the exit, a light itself, always shows).
    pub dark: bool,
    /// Where creatures are saved.
    pub exit: Obstacle<Vec2>,
    /// Where the focus starts (the swarm's centroid unless given).
    pub focus: Option<Vec2>,
    /// The pressure plates.
    pub plates: Vec<Plate>,
    /// The gates.
    pub gates: Vec<Gate>,
    /// The tuning of the controls.
    pub controls: Controls,
    checksum: u64,
}

impl Level {
    /// Parses level text; `origin` names it in messages.
    pub fn parse(text: &str, origin: &str) -> Result<Self, ScenarioError> {
        Self::parse_with(text, origin, &[])
    }

    /// [`Level::parse`] with `--set` overrides (`game.save=1000` reaches the
    /// `[game]` section too).
    pub fn parse_with(
        text: &str,
        origin: &str,
        overrides: &[Override],
    ) -> Result<Self, ScenarioError> {
        Self::from_scenario(Scenario::parse_options(text, origin, &options(overrides))?)
    }

    /// Reads and parses a level file (with the scenario loader's size and
    /// UTF-8 checks).
    pub fn load(path: &std::path::Path, overrides: &[Override]) -> Result<Self, ScenarioError> {
        Self::from_scenario(Scenario::load_options(path, &options(overrides))?)
    }

    /// Reads the `[game]` section of a scenario parsed with [`options`].
    fn from_scenario(scenario: Scenario) -> Result<Self, ScenarioError> {
        if scenario.dimension() != 2 {
            return Err(
                scenario.field_error("dimension", "levels are 2D: dimension must be 2".into())
            );
        }
        let Some(spec) = scenario.read_section::<GameSpec>(SECTION)? else {
            return Err(scenario.field_error(
                "",
                "a level needs a [game] section: at least `save` and `exit` (docs/GAME.md)".into(),
            ));
        };
        let err = |field: &str, m: String| scenario.field_error(field, m);
        let (swarm, creatures) = find_swarm(&scenario, &spec, &err)?;
        let swarm_name = scenario.species()[swarm].0.as_str();
        check_goal(&spec, creatures, swarm_name, &err)?;
        let par = read_par(&spec, creatures, &err)?;
        let hints = read_hints(&spec, &err)?;
        let plates = read_plates(&spec.plates, creatures, swarm_name, &err)?;
        let gates = read_gates(&spec.gates, &plates, &err)?;
        // The content, not the text: a comment or a blank line edited keeps the
        // level's recordings; a value changed, in the file or by --set, refuses them.
        let content = scenario.content();
        let checksum = murmuration::hash_bytes(content.as_bytes());
        Ok(Self {
            swarm,
            creatures,
            save: spec.save,
            time_limit: spec.time_limit,
            hints,
            par,
            dark: spec.dark,
            exit: spec.exit,
            focus: spec.focus.position,
            plates,
            gates,
            controls: spec.controls,
            checksum,
            scenario,
        })
    }

    /// The scenario under the level.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The level's title (the scenario's `name`).
    pub fn title(&self) -> &str {
        self.scenario.name()
    }

    /// Index of the species the player guides.
    pub fn swarm(&self) -> usize {
        self.swarm
    }

    /// Creatures of the swarm at the start.
    pub fn creatures(&self) -> u64 {
        self.creatures
    }

    /// A hash of the level's content (its values, not its comments or layout),
    /// which a recording names: a replay of another version of the level is
    /// refused instead of giving a wrong outcome.
    pub fn checksum(&self) -> u64 {
        self.checksum
    }

    /// The level's lower corner in world coordinates: the world runs relative to it.
    pub fn offset(&self) -> Vec2 {
        let o = self.scenario.offset();
        Vec2::new(o[0] as f32, o[1] as f32)
    }
}

/// Makes a located error for a field of the level's scenario.
type ErrAt<'a> = &'a dyn Fn(&str, String) -> ScenarioError;

/// The species the player guides (`game.swarm`, else the first) and how many
/// it has; its steering must use force priorities and smoothing (seed 001,
/// 6.2: strong forces in conflict never make creatures jitter).
fn find_swarm(
    scenario: &Scenario,
    spec: &GameSpec,
    err: ErrAt<'_>,
) -> Result<(usize, u64), ScenarioError> {
    let names: Vec<&str> = scenario.species().iter().map(|(n, _)| n.as_str()).collect();
    let swarm = match &spec.swarm {
        None => 0,
        Some(s) => names.iter().position(|n| n == s).ok_or_else(|| {
            err(
                "game.swarm",
                format!(
                    "game.swarm = {s:?} is not a species of this level (it has {})",
                    names.join(", ")
                ),
            )
        })?,
    };
    let swarm_name = names[swarm];
    let creatures = scenario.species()[swarm].1;
    // Seed 001, 6.2: strong forces in conflict never make creatures jitter.
    let params = scenario.species_params()[swarm];
    if params.combine != CombineMode::Prioritized {
        return Err(err(
            &format!("species.{swarm_name}.combine"),
            format!(
                "species.{swarm_name}.combine must be \"prioritized\" in a level: force priorities keep the swarm from jittering between strong forces (style \"lumen\" has it)"
            ),
        ));
    }
    if params.smoothing <= 0.0 {
        return Err(err(
            &format!("species.{swarm_name}.smoothing"),
            format!(
                "species.{swarm_name}.smoothing must be above 0 in a level: steering smoothing keeps the swarm from jittering (style \"lumen\" has 0.6)"
            ),
        ));
    }
    Ok((swarm, creatures))
}

/// The goal's values: how many to save, the time limit, the exit, the focus's
/// start and the controls' tuning.
fn check_goal(
    spec: &GameSpec,
    creatures: u64,
    swarm_name: &str,
    err: ErrAt<'_>,
) -> Result<(), ScenarioError> {
    if !(1..=creatures).contains(&spec.save) {
        return Err(err(
            "game.save",
            format!(
                "game.save = {} is out of range: the level has {creatures} {swarm_name}, so it must be in [1, {creatures}]",
                spec.save
            ),
        ));
    }
    seconds("game.time_limit", spec.time_limit, err)?;
    spec.exit
        .validate("game.exit")
        .map_err(|e| err("game.exit", e.to_string()))?;
    if let Some(p) = spec.focus.position
        && !p.is_finite()
    {
        return Err(err(
            "game.focus.position",
            format!("game.focus.position = {p} must be finite"),
        ));
    }
    if let Some((key, m)) = spec.controls.invalid() {
        return Err(err(
            &format!("game.controls.{key}"),
            format!("game.controls.{m}"),
        ));
    }
    Ok(())
}

/// The par for stars: `game.par`, checked, or its default.
fn read_par(spec: &GameSpec, creatures: u64, err: ErrAt<'_>) -> Result<Par, ScenarioError> {
    let Some(par) = spec.par else {
        return Ok(Par {
            saved: spec.save + (creatures - spec.save) * 3 / 4,
            time: f32::INFINITY,
        });
    };
    if !(spec.save..=creatures).contains(&par.saved) {
        return Err(err(
            "game.par.saved",
            format!(
                "game.par.saved = {} is out of range: it must be in [game.save = {}, {creatures}]",
                par.saved, spec.save
            ),
        ));
    }
    seconds("game.par.time", par.time, err)?;
    Ok(par)
}

/// A duration that must be positive (infinity allowed).
fn seconds(field: &str, value: f32, err: ErrAt<'_>) -> Result<(), ScenarioError> {
    if value.is_nan() || value <= 0.0 {
        return Err(err(
            field,
            format!("{field} = {value} must be a positive number of seconds (or inf)"),
        ));
    }
    Ok(())
}

/// The hints: `game.hint` (one line, until the swarm is led) or
/// `game.hints`, never both, none empty.
fn read_hints(spec: &GameSpec, err: ErrAt<'_>) -> Result<Vec<Hint>, ScenarioError> {
    let hints = match (&spec.hint, spec.hints.is_empty()) {
        (Some(_), false) => {
            return Err(err(
                "game.hints",
                "give game.hint (one line) or game.hints (a list), not both".into(),
            ));
        }
        (Some(text), true) => vec![Hint {
            text: text.clone(),
            until: Lesson::Lead,
        }],
        (None, _) => spec.hints.clone(),
    };
    if let Some(i) = hints.iter().position(|h| h.text.trim().is_empty()) {
        return Err(err(
            &format!("game.hints[{i}].text"),
            format!("game.hints[{i}].text is empty: a hint says something"),
        ));
    }
    Ok(hints)
}

/// The pressure plates, each checked: a unique name, a valid shape, a need the
/// swarm can meet, a release at most the need, a hold time in [0, 60] s.
fn read_plates(
    specs: &[PlateSpec],
    creatures: u64,
    swarm_name: &str,
    err: ErrAt<'_>,
) -> Result<Vec<Plate>, ScenarioError> {
    let mut plates = Vec::with_capacity(specs.len());
    for (i, p) in specs.iter().enumerate() {
        let field = format!("game.plates[{i}]");
        if p.name.is_empty() || plates.iter().any(|q: &Plate| q.name == p.name) {
            return Err(err(
                &format!("{field}.name"),
                format!(
                    "{field}.name = {:?} must be a name no other plate has",
                    p.name
                ),
            ));
        }
        p.shape
            .validate(&format!("{field}.shape"))
            .map_err(|e| err(&format!("{field}.shape"), e.to_string()))?;
        if !(1..=creatures).contains(&p.need) {
            return Err(err(
                &format!("{field}.need"),
                format!(
                    "{field}.need = {} is out of range: the level has {creatures} {swarm_name}, so a plate can need 1 to {creatures}",
                    p.need
                ),
            ));
        }
        let release = p.release.unwrap_or(p.need * 4 / 5);
        if release > p.need {
            return Err(err(
                &format!("{field}.release"),
                format!(
                    "{field}.release = {release} must not exceed {field}.need = {}",
                    p.need
                ),
            ));
        }
        if !(0.0..=60.0).contains(&p.hold) {
            return Err(err(
                &format!("{field}.hold"),
                format!(
                    "{field}.hold = {} is out of range: must be in [0, 60] s",
                    p.hold
                ),
            ));
        }
        plates.push(Plate {
            name: p.name.clone(),
            shape: p.shape.clone(),
            need: p.need,
            release,
            hold: p.hold,
        });
    }
    Ok(plates)
}

/// The gates, each naming at least one plate of the level and a valid shape.
fn read_gates(
    specs: &[GateSpec],
    plates: &[Plate],
    err: ErrAt<'_>,
) -> Result<Vec<Gate>, ScenarioError> {
    let mut gates = Vec::with_capacity(specs.len());
    for (i, g) in specs.iter().enumerate() {
        let field = format!("game.gates[{i}]");
        if g.plates.is_empty() {
            return Err(err(
                &format!("{field}.plates"),
                format!(
                    "{field}.plates is empty: a gate opens when its plates hold, so name at least one plate"
                ),
            ));
        }
        let mut idx = Vec::with_capacity(g.plates.len());
        for (k, name) in g.plates.iter().enumerate() {
            let Some(j) = plates.iter().position(|p| &p.name == name) else {
                let known: Vec<&str> = plates.iter().map(|p| p.name.as_str()).collect();
                return Err(err(
                    &format!("{field}.plates[{k}]"),
                    format!(
                        "{field}.plates[{k}] = {name:?} is no plate of this level (plates: {})",
                        if known.is_empty() {
                            "none".to_string()
                        } else {
                            known.join(", ")
                        }
                    ),
                ));
            };
            idx.push(j);
        }
        g.shape
            .validate(&format!("{field}.shape"))
            .map_err(|e| err(&format!("{field}.shape"), e.to_string()))?;
        gates.push(Gate {
            plates: idx,
            shape: g.shape.clone(),
            latch: g.latch,
            required: g.required,
        });
    }
    Ok(gates)
}

//! One level being played: the world, the player's focus, light paths, pulses
//! and recall, the plates and gates, creatures saved and lost, and the outcome.
//! Every rule runs here, once per fixed step, with no window: the app draws it,
//! the tests and `--headless` replays play it.

use crate::controls::{Command, Controls};
use crate::level::{Lesson, Level};
use crate::outcome::Outcome;
use crate::plates::{GateState, PlateState, wants_open};
use glam::Vec2;
use murmuration::{Attractor, Event, Path, Pulse, ScenarioError, World2, Zone};

/// Something that happened in one step, for the HUD and the sound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GameEvent {
    /// Plate `i` began to hold.
    PlateHeld(usize),
    /// Plate `i` let go.
    PlateReleased(usize),
    /// Gate `i` opened.
    GateOpened(usize),
    /// Gate `i` closed.
    GateClosed(usize),
    /// `n` creatures reached the exit.
    Saved(u64),
    /// A predator took a creature here.
    Eaten(Vec2),
    /// A repel pulse fired here.
    Pulse(Vec2),
    /// The swarm was recalled to the focus.
    Recall,
    /// The level ended.
    Ended,
}

/// A level in play.
#[derive(Clone, Debug)]
pub struct Game {
    level: Level,
    world: World2,
    swarm: u16,
    controls: Controls,
    /// Index of the focus among the world's attractors.
    focus: usize,
    goal: Vec2,
    keys: (i8, i8),
    /// The light path being drawn, and whether it is in the world yet (it is
    /// from its second point).
    stroke: Option<Vec<Vec2>>,
    scenario_paths: usize,
    pulse_ready: u64,
    recall_ready: u64,
    recall_until: u64,
    plates: Vec<PlateState>,
    plate_zones: Vec<usize>,
    gates: Vec<GateState>,
    /// The world's obstacles before the closed gates, which follow in gate order.
    gate_base: usize,
    exit_zone: usize,
    saved: u64,
    /// Creatures of the swarm in the world after the last step (counted, so a
    /// hunter eating another species is no loss of the swarm's).
    alive: u64,
    last_save: u64,
    outcome: Option<Outcome>,
    events: Vec<GameEvent>,
    /// The lessons the player has done, one bit per [`Lesson`].
    learned: u8,
    /// The swarm's centre at the start (leading it 15 units away teaches [`Lesson::Lead`]).
    start: Vec2,
}

impl Game {
    /// Starts `level`: builds its world, the plates, gates, exit and focus.
    pub fn new(level: &Level) -> Result<Self, ScenarioError> {
        let scenario = level.scenario();
        let mut world = scenario.build_world::<Vec2>()?;
        let swarm = level.swarm() as u16;
        let err = |field: &str, m: String| scenario.field_error(field, m);
        let gate_base = world.obstacles().len();
        for (i, g) in level.gates.iter().enumerate() {
            let inside = world
                .boids()
                .positions()
                .iter()
                .filter(|&&p| g.shape.surface(p).distance <= 0.0)
                .count();
            if inside > 0 {
                return Err(err(
                    &format!("game.gates[{i}].shape"),
                    format!(
                        "game.gates[{i}].shape overlaps a spawn region: {inside} creatures start inside the closed gate; move the gate or the spawn"
                    ),
                ));
            }
            world
                .add_obstacle(g.shape.clone())
                .map_err(|e| err(&format!("game.gates[{i}].shape"), e.to_string()))?;
        }
        let zone = |shape: &murmuration::Obstacle<Vec2>| Zone {
            species: Some(swarm),
            ..Zone::new(shape.clone())
        };
        let mut plate_zones = Vec::with_capacity(level.plates.len());
        for (i, p) in level.plates.iter().enumerate() {
            let z = world
                .add_zone(zone(&p.shape))
                .map_err(|e| err(&format!("game.plates[{i}].shape"), e.to_string()))?;
            plate_zones.push(z);
        }
        let exit_zone = world
            .add_zone(zone(&level.exit))
            .map_err(|e| err("game.exit", e.to_string()))?;
        let c = level.controls;
        let swarm_centre = centroid(&world, swarm, None).unwrap_or(Vec2::ZERO);
        let start = level.focus.unwrap_or(swarm_centre);
        let focus = world
            .add_attractor(Attractor {
                follow: c.focus_follow,
                range: c.focus_range,
                species: Some(swarm),
                // The swarm comes around walls to the focus, never presses
                // into one (issue 46: recall in The Mechanism pinned ~1,100).
                navigate: true,
                ..Attractor::new(start, c.focus_weight, c.focus_radius)
            })
            .map_err(|e| err("game.controls", e.to_string()))?;
        let scenario_paths = world.paths().len();
        Ok(Self {
            level: level.clone(),
            world,
            swarm,
            controls: c,
            focus,
            goal: start,
            keys: (0, 0),
            stroke: None,
            scenario_paths,
            pulse_ready: 0,
            recall_ready: 0,
            recall_until: 0,
            plates: vec![PlateState::default(); level.plates.len()],
            plate_zones,
            gates: vec![GateState::default(); level.gates.len()],
            gate_base,
            exit_zone,
            saved: 0,
            alive: level.creatures(),
            last_save: 0,
            outcome: None,
            events: Vec::new(),
            learned: 0,
            start: swarm_centre,
        })
    }

    /// Steps of `seconds` at the world's time step.
    fn steps(&self, seconds: f32) -> u64 {
        (seconds / self.world.config().dt).round() as u64
    }

    /// Applies the commands, advances one fixed step and applies the rules.
    /// Returns what happened. After the level has ended it does nothing.
    pub fn step(&mut self, commands: &[Command]) -> &[GameEvent] {
        self.events.clear();
        if self.outcome.is_some() {
            return &self.events;
        }
        for &c in commands {
            self.apply(c);
        }
        self.steer_focus();
        let dt = self.world.config().dt;
        let report = self.world.step();
        for e in report.events {
            if let Event::Eaten { position, .. } = e {
                self.events.push(GameEvent::Eaten(*position));
            }
        }
        self.save_at_exit();
        let swarm = self.swarm;
        self.alive = self
            .world
            .boids()
            .species()
            .iter()
            .filter(|&&s| s == swarm)
            .count() as u64;
        for (i, (p, s)) in self.level.plates.iter().zip(&mut self.plates).enumerate() {
            let count = self.world.zones()[self.plate_zones[i]].count() as u64;
            if s.update(p, count, dt) {
                self.events.push(if s.held {
                    GameEvent::PlateHeld(i)
                } else {
                    GameEvent::PlateReleased(i)
                });
            }
        }
        self.move_gates();
        self.learn();
        self.judge();
        &self.events
    }

    /// Marks the lessons this step's events and the swarm's position teach.
    fn learn(&mut self) {
        let mut bits = 0u8;
        for e in &self.events {
            bits |= match e {
                GameEvent::Recall => bit(Lesson::Recall),
                GameEvent::Pulse(_) => bit(Lesson::Pulse),
                GameEvent::PlateHeld(_) => bit(Lesson::Plate),
                GameEvent::GateOpened(_) => bit(Lesson::Gate),
                GameEvent::Saved(_) => bit(Lesson::Saved),
                _ => 0,
            };
        }
        if self.stroke.as_ref().is_some_and(|s| s.len() >= 2) {
            bits |= bit(Lesson::Path);
        }
        // Where the swarm's centre is, twice a second, until it has been led.
        if !self.learned(Lesson::Lead)
            && self.world.step_index().is_multiple_of(30)
            && (self.centroid() - self.start).length() > 15.0
        {
            bits |= bit(Lesson::Lead);
        }
        self.learned |= bits;
    }

    /// True once the player has done `lesson`.
    pub fn learned(&self, lesson: Lesson) -> bool {
        self.learned & bit(lesson) != 0
    }

    /// The hint to show now: the level's first whose lesson is not yet done.
    pub fn hint(&self) -> Option<&str> {
        self.level
            .hints
            .iter()
            .find(|h| !self.learned(h.until))
            .map(|h| h.text.as_str())
    }

    fn apply(&mut self, c: Command) {
        let c_ = self.controls;
        let now = self.world.step_index();
        match c {
            Command::Point(p) => self.goal = self.clamp(p),
            Command::Keys(x, y) => self.keys = (x.signum(), y.signum()),
            Command::PathBegin(p) => {
                self.end_stroke();
                self.stroke = Some(vec![self.clamp(p)]);
            }
            Command::PathTo(p) => {
                let p = self.clamp(p);
                let Some(points) = &mut self.stroke else {
                    return;
                };
                let last = *points.last().expect("a stroke has its first point");
                if (p - last).length() < c_.path_spacing || points.len() >= 4096 {
                    return;
                }
                let in_world = points.len() >= 2;
                points.push(p);
                let path = Path {
                    species: Some(self.swarm),
                    ..Path::new(points.clone(), c_.path_capture, c_.path_weight)
                };
                if in_world && let Some(i) = self.drawn_path() {
                    let _ = self.world.remove_path(i);
                }
                // Valid by construction (2+ finite points, ranges checked by the level).
                let _ = self.world.add_path(path);
            }
            Command::PathEnd => self.end_stroke(),
            Command::Pulse(p) => {
                if now >= self.pulse_ready {
                    let p = self.clamp(p);
                    let pulse =
                        Pulse::new(p, c_.pulse_radius, c_.pulse_strength, c_.pulse_duration);
                    if self.world.add_pulse(pulse).is_ok() {
                        self.pulse_ready = now + self.steps(c_.pulse_cooldown);
                        self.events.push(GameEvent::Pulse(p));
                    }
                }
            }
            Command::Recall => {
                if now >= self.recall_ready {
                    self.recall_ready = now + self.steps(c_.recall_cooldown);
                    self.recall_until = now + self.steps(c_.recall_duration);
                    self.events.push(GameEvent::Recall);
                }
            }
        }
    }

    /// The light path being drawn, among the world's paths: the one after the
    /// scenario's that never fades (released paths fade).
    fn drawn_path(&self) -> Option<usize> {
        self.world
            .paths()
            .iter()
            .enumerate()
            .skip(self.scenario_paths)
            .find(|(_, p)| p.lifetime.is_infinite())
            .map(|(i, _)| i)
    }

    /// Releases the path being drawn: it fades over `path_lifetime`.
    fn end_stroke(&mut self) {
        if self.stroke.take().is_some()
            && let Some(i) = self.drawn_path()
            && let Ok(mut p) = self.world.remove_path(i)
        {
            p.lifetime = self.controls.path_lifetime;
            p.age = 0.0;
            let _ = self.world.add_path(p);
        }
    }

    /// Moves the focus's goal with the keys and hands it to the attractor.
    fn steer_focus(&mut self) {
        let dt = self.world.config().dt;
        let (x, y) = self.keys;
        if (x, y) != (0, 0) {
            let d = Vec2::new(x as f32, y as f32).normalize();
            self.goal = self.clamp(self.goal + d * self.controls.key_speed * dt);
        }
        let mut a = self.world.attractors()[self.focus];
        a.goal = self.goal;
        // A recall reaches every creature, however far, and pulls harder;
        // the way around walls is the focus's flow field.
        (a.range, a.weight) = if self.recalling() {
            (f32::INFINITY, self.controls.recall_weight)
        } else {
            (self.controls.focus_range, self.controls.focus_weight)
        };
        let _ = self.world.set_attractor(self.focus, a);
    }

    /// `p` clamped into the world box (NaN becomes the box's lower corner).
    fn clamp(&self, p: Vec2) -> Vec2 {
        let cfg = self.world.config();
        let p = if p.is_finite() { p } else { cfg.min };
        p.clamp(cfg.min, cfg.max)
    }

    /// Creatures inside the exit are saved: counted and taken out of the world.
    fn save_at_exit(&mut self) {
        let inside = self.world.zones()[self.exit_zone].inside.clone();
        if inside.is_empty() {
            return;
        }
        if self.world.remove_boids(&inside).is_ok() {
            self.saved += inside.len() as u64;
            self.last_save = self.world.step_index();
            self.events.push(GameEvent::Saved(inside.len() as u64));
        }
    }

    /// Opens gates whose plates hold and closes the others (once their passage
    /// is clear); the world's gate obstacles are rebuilt when any changed.
    fn move_gates(&mut self) {
        let mut changed = false;
        let now = self.time() as f32;
        for (i, g) in self.level.gates.iter().enumerate() {
            let s = self.gates[i];
            let want = wants_open(g, s, &self.plates);
            if want && !s.open {
                self.gates[i] = GateState {
                    open: true,
                    closing: false,
                    opened: true,
                    changed_at: now,
                };
                self.events.push(GameEvent::GateOpened(i));
                changed = true;
            } else if !want && s.open {
                let blocked = self
                    .world
                    .boids()
                    .positions()
                    .iter()
                    .any(|&p| g.shape.surface(p).distance <= 0.05);
                if blocked {
                    self.gates[i].closing = true;
                } else {
                    self.gates[i] = GateState {
                        opened: true,
                        changed_at: now,
                        ..GateState::default()
                    };
                    self.events.push(GameEvent::GateClosed(i));
                    changed = true;
                }
            } else if want {
                self.gates[i].closing = false;
            }
        }
        if changed {
            while self.world.obstacles().len() > self.gate_base {
                let last = self.world.obstacles().len() - 1;
                let _ = self.world.remove_obstacle(last);
            }
            for (g, s) in self.level.gates.iter().zip(&self.gates) {
                if !s.open {
                    let _ = self.world.add_obstacle(g.shape.clone());
                }
            }
        }
    }

    /// Decides the outcome once it is certain.
    fn judge(&mut self) {
        let need = self.level.save;
        let alive = self.alive();
        let now = self.world.step_index();
        let outcome = if self.saved >= need
            && (alive == 0 || now - self.last_save >= self.steps(self.controls.finish_after))
        {
            Some(Outcome::won(self.saved, need, self.level.creatures()))
        } else if alive + self.saved < need {
            Some(Outcome::lost(
                format!("Only {} left — the exit needs {need}.", alive + self.saved),
                self.saved,
                need,
            ))
        } else if let Some(plate) = self.unreachable_plate(alive) {
            Some(Outcome::lost(
                format!("Only {alive} left — the plate needs {}.", plate.need),
                self.saved,
                need,
            ))
        } else if self.time() >= self.level.time_limit as f64 {
            Some(if self.saved >= need {
                Outcome::won(self.saved, need, self.level.creatures())
            } else {
                Outcome::lost(self.time_up(), self.saved, need)
            })
        } else {
            None
        };
        if let Some(o) = outcome {
            self.outcome = Some(o.rated(self.eaten(), self.time(), &self.level.par));
            self.events.push(GameEvent::Ended);
        }
    }

    /// The failure when the light runs out: saved, still in the dark and
    /// eaten, against what the exit needs.
    fn time_up(&self) -> String {
        let eaten = match self.eaten() {
            0 => String::new(),
            n => format!(", {n} eaten"),
        };
        // Where a required gate never opened, that is the story: the plate
        // that kept it shut and the most it held, or, where each plate held
        // enough at some time, that they never held together.
        let shut = self
            .level
            .gates
            .iter()
            .zip(&self.gates)
            .find(|(g, s)| g.required && !s.opened)
            .map_or(String::new(), |(g, _)| {
                let plates = || g.plates.iter().map(|&p| (&self.level.plates[p], self.plates[p]));
                match plates().find(|(p, s)| s.most < p.need) {
                    Some((p, s)) => format!(
                        " The gate never opened: the {} plate held at most {} at once and needs {}.",
                        p.name, s.most, p.need
                    ),
                    None => {
                        let names: Vec<&str> = plates().map(|(p, _)| p.name.as_str()).collect();
                        format!(
                            " The gate never opened: the {} plates never held at the same time.",
                            names.join(" and ")
                        )
                    }
                }
            });
        format!(
            "Time is up: {} saved, {} still in the dark{eaten} — the exit needs {}.{shut}",
            self.saved,
            self.alive(),
            self.level.save
        )
    }

    /// A plate of a required gate that never opened and needs more creatures
    /// than live. (Once a gate has opened, creatures may be past it: an
    /// unlatched gate closing behind the swarm loses nothing.)
    fn unreachable_plate(&self, alive: u64) -> Option<&crate::level::Plate> {
        self.level
            .gates
            .iter()
            .zip(&self.gates)
            .filter(|(g, s)| g.required && !s.opened)
            .flat_map(|(g, _)| g.plates.iter().map(|&p| &self.level.plates[p]))
            .find(|p| p.need > alive)
    }

    /// The level.
    pub fn level(&self) -> &Level {
        &self.level
    }

    /// The world (for drawing: level coordinates, see [`Level::offset`]).
    pub fn world(&self) -> &World2 {
        &self.world
    }

    /// Index of the species the player guides.
    pub fn swarm(&self) -> u16 {
        self.swarm
    }

    /// Where the focus is now (it trails its goal with smoothing).
    pub fn focus(&self) -> Vec2 {
        self.world.attractors()[self.focus].position
    }

    /// Where the focus is heading (the pointer, or where the keys moved it).
    pub fn goal(&self) -> Vec2 {
        self.goal
    }

    /// The points of the light path being drawn.
    pub fn stroke(&self) -> Option<&[Vec2]> {
        self.stroke.as_deref()
    }

    /// The centroid of the swarm the player leads: its living creatures within
    /// the focus's reach (`focus_range`), so a part split off elsewhere does not
    /// drag the camera and the light between the two; of all the living when
    /// none are in reach, and the focus when none live.
    pub fn centroid(&self) -> Vec2 {
        if self.alive() == 0 {
            return self.focus();
        }
        let focus = self.focus();
        centroid(
            &self.world,
            self.swarm,
            Some((focus, self.controls.focus_range)),
        )
        .or_else(|| centroid(&self.world, self.swarm, None))
        .unwrap_or(focus)
    }

    /// Brightness of the halo around the focus, in [0.2, 1]: full while the
    /// swarm's centroid is within twice the arrival radius, dimming as it goes
    /// farther (seed 001, 3.3), to 0.2 at eight times.
    pub fn halo(&self) -> f32 {
        let r = self.controls.focus_radius;
        let d = (self.centroid() - self.focus()).length();
        let t = ((d - 2.0 * r) / (6.0 * r)).clamp(0.0, 1.0);
        1.0 - 0.8 * t
    }

    /// Creatures of the swarm alive in the world.
    pub fn alive(&self) -> u64 {
        self.alive
    }

    /// Creatures that reached the exit.
    pub fn saved(&self) -> u64 {
        self.saved
    }

    /// Creatures taken by predators.
    pub fn eaten(&self) -> u64 {
        self.level.creatures() - self.saved - self.alive
    }

    /// Seconds played.
    pub fn time(&self) -> f64 {
        self.world.time()
    }

    /// Seconds until the next pulse (0 when ready).
    pub fn pulse_cooldown(&self) -> f32 {
        self.wait(self.pulse_ready)
    }

    /// Seconds until the next recall (0 when ready).
    pub fn recall_cooldown(&self) -> f32 {
        self.wait(self.recall_ready)
    }

    /// True while a recall runs (the focus reaches every creature).
    pub fn recalling(&self) -> bool {
        self.world.step_index() < self.recall_until
    }

    fn wait(&self, ready: u64) -> f32 {
        ready.saturating_sub(self.world.step_index()) as f32 * self.world.config().dt
    }

    /// Each plate's state (count on it, held).
    pub fn plates(&self) -> &[PlateState] {
        &self.plates
    }

    /// Each gate's state.
    pub fn gates(&self) -> &[GateState] {
        &self.gates
    }

    /// The outcome, once the level has ended.
    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    /// What happened in the last step.
    pub fn events(&self) -> &[GameEvent] {
        &self.events
    }

    /// The world's state digest (as `murmuration run` prints it).
    pub fn digest(&self) -> u64 {
        self.world.digest()
    }

    /// Fixed steps taken.
    pub fn step_index(&self) -> u64 {
        self.world.step_index()
    }
}

/// A lesson's bit in [`Game::learned`].
fn bit(lesson: Lesson) -> u8 {
    1 << lesson as u8
}

/// Mean position of species `swarm`, of those within `near`'s range of its
/// point when given; `None` when there are none.
fn centroid(world: &World2, swarm: u16, near: Option<(Vec2, f32)>) -> Option<Vec2> {
    let (mut sum, mut n) = (glam::DVec2::ZERO, 0u64);
    for (p, &s) in world
        .boids()
        .positions()
        .iter()
        .zip(world.boids().species())
    {
        if s == swarm && near.is_none_or(|(at, r)| p.distance_squared(at) <= r * r) {
            sum += p.as_dvec2();
            n += 1;
        }
    }
    (n > 0).then(|| (sum / n as f64).as_vec2())
}

//! The tuning panel: controls, view settings, A/B, every species parameter as a
//! slider over its documented range, boundary, live metric plots and the tuning
//! help table.

use super::sim::{HISTORY, Sim};
use crate::presets::PRESETS;
use egui::{Color32, RichText, Slider, Ui};
use murmuration::fields::{FieldGroup, SPECIES_FIELDS};
use murmuration::{Boundary, CombineMode, SpeciesParams, Steering};
use murmuration_render::{ColourMode, RenderSettings};

/// What the panel asks the window to do after it is drawn.
#[derive(Default)]
pub struct Requests {
    /// Load this preset.
    pub preset: Option<&'static str>,
    /// Load this scenario file.
    pub load: Option<String>,
}

/// State the panel keeps between frames.
pub struct Panel {
    /// The last refused change, shown in red.
    pub error: Option<String>,
    /// Follow the flock's centroid.
    pub follow: bool,
    /// Frames per second (smoothed).
    pub fps: f32,
    /// The file the save and load buttons use.
    pub file: String,
    /// The last save or load, for the status line.
    pub status: Option<String>,
}

/// Symptom → cause → fix, after the seeds' tuning tables (in our words).
const HELP: [(&str, &str, &str); 8] = [
    (
        "The flock bursts apart like popcorn",
        "separation too strong, or its radius close to perception",
        "lower separation weight; keep separation radius about half the perception radius",
    ),
    (
        "Everyone packs into one tight ball",
        "cohesion too strong, or separation too weak",
        "lower cohesion weight; raise separation radius",
    ),
    (
        "Directions are chaotic, boids mill in place",
        "alignment too weak, or too few neighbours",
        "raise alignment weight or the perception radii",
    ),
    (
        "Jittery, saw-tooth paths",
        "max force too high: velocity changes too abruptly",
        "lower max force; add smoothing; try prioritized combination",
    ),
    (
        "A marching parade, too uniform",
        "alignment too strong",
        "lower alignment weight; add a little jitter (under 0.02)",
    ),
    (
        "Boids leave and never come back",
        "no boundary force",
        "use wrap, or soft with a wider margin or stronger push",
    ),
    (
        "Slow frame rate with many boids",
        "perception radius much larger than needed: more neighbours per query",
        "narrow the radii; per boid cost grows with neighbours",
    ),
    (
        "The swarm ignores the target",
        "target weight too low compared with the flocking rules",
        "raise the attractor's weight or the species' max force",
    ),
];

impl Panel {
    /// A fresh panel.
    pub fn new() -> Self {
        Self {
            error: None,
            follow: false,
            fps: 60.0,
            file: "my-flock.toml".into(),
            status: None,
        }
    }

    /// Draws the panel; changes apply to `sim` and `settings` at once.
    pub fn ui(&mut self, ui: &mut Ui, sim: &mut Sim, settings: &mut RenderSettings) -> Requests {
        let mut req = Requests::default();
        self.status_lines(ui, sim);
        ui.separator();
        self.run_controls(ui, sim, &mut req);
        ui.separator();
        self.view(ui, settings);
        self.boundary(ui, sim);
        self.species(ui, sim);
        ui.separator();
        self.selection(ui, sim);
        self.plots(ui, sim);
        help(ui);
        req
    }

    /// The scenario, boid count, frame rate, step time, entities and engine,
    /// and the last error.
    fn status_lines(&mut self, ui: &mut Ui, sim: &mut Sim) {
        let name = sim.scenario.name().to_string();
        let n = sim.flock.len();
        ui.heading(RichText::new(format!("Murmuration: {name}")).strong());
        ui.label(format!(
            "{n} boids, {}D · {:.0} fps · step {:.2} ms",
            sim.scenario.dimension(),
            self.fps,
            sim.step_ms
        ));
        let e = sim.flock.entities();
        ui.label(format!(
            "step {} · {} targets, {} obstacles, {} paths, {} pulses",
            sim.flock.step_index(),
            e.attractors.len(),
            e.obstacles,
            e.paths,
            e.pulses
        ));
        ui.label(format!("engine: {}", sim.flock.engine_label()));
        if let Some(e) = &self.error {
            ui.colored_label(Color32::from_rgb(255, 110, 100), e);
        }
    }

    /// Preset, run / step / reset, speed, save and load, and the A/B switch.
    fn run_controls(&mut self, ui: &mut Ui, sim: &mut Sim, req: &mut Requests) {
        let name = sim.scenario.name().to_string();
        egui::ComboBox::from_label("preset")
            .selected_text(name.clone())
            .show_ui(ui, |ui| {
                for (p, _) in PRESETS {
                    if ui.selectable_label(p == name, p).clicked() {
                        req.preset = Some(p);
                    }
                }
            });
        ui.horizontal(|ui| {
            if ui
                .button(if sim.paused { "Run" } else { "Pause" })
                .clicked()
            {
                sim.paused = !sim.paused;
            }
            if ui.button("Step").clicked() {
                sim.paused = true;
                sim.step(1);
            }
            if ui
                .button("Reset")
                .on_hover_text("same seed, current parameters")
                .clicked()
                && let Err(e) = sim.reset()
            {
                self.error = Some(e.to_string());
            }
        });
        ui.add(
            Slider::new(&mut sim.speed, 0.25..=4.0)
                .logarithmic(true)
                .text("speed ×")
                .custom_formatter(|x, _| human(x)),
        );
        ui.horizontal(|ui| {
            ui.add(egui::TextEdit::singleline(&mut self.file).desired_width(150.0));
            if ui
                .button("Save")
                .on_hover_text("write the current world as a scenario file")
                .clicked()
            {
                self.status = Some(match save(sim, &self.file) {
                    Ok(()) => format!("saved {}", self.file),
                    Err(e) => format!("{e:#}"),
                });
            }
            if ui.button("Load").clicked() {
                req.load = Some(self.file.clone());
            }
        });
        if let Some(s) = &self.status {
            ui.label(s);
        }
        ui.horizontal(|ui| {
            let label = if sim.saved.is_none() {
                "Keep as A"
            } else {
                "Swap A/B"
            };
            if ui
                .button(label)
                .on_hover_text("keep these parameters, then compare them with your changes")
                .clicked()
                && let Err(e) = sim.swap_ab()
            {
                self.error = Some(e);
            }
            if sim.saved.is_some() {
                ui.label("(A kept)");
            }
        });
    }

    /// Colouring, glow, trails, overlays and the following camera.
    fn view(&mut self, ui: &mut Ui, settings: &mut RenderSettings) {
        ui.collapsing("View", |ui| {
            ui.horizontal(|ui| {
                ui.radio_value(&mut settings.colour, ColourMode::Species, "species");
                ui.radio_value(&mut settings.colour, ColourMode::Speed, "speed");
                ui.radio_value(&mut settings.colour, ColourMode::Neighbours, "neighbours");
            });
            ui.checkbox(&mut settings.bloom, "glow");
            ui.add(
                Slider::new(&mut settings.bloom_strength, 0.0..=4.0)
                    .text("glow strength")
                    .custom_formatter(|x, _| human(x)),
            );
            ui.add(Slider::new(&mut settings.trails, 0..=32).text("trail frames"));
            ui.checkbox(&mut settings.overlays, "obstacles, zones, targets");
            ui.checkbox(&mut self.follow, "follow the flock");
        });
    }

    /// One folder per species: its count and the sliders of its parameters.
    fn species(&mut self, ui: &mut Ui, sim: &mut Sim) {
        let counts = sim.counts();
        let dimension = sim.scenario.dimension();
        let names: Vec<String> = sim
            .scenario
            .species()
            .iter()
            .map(|(n, _)| n.clone())
            .collect();
        for (i, &n) in counts.iter().enumerate() {
            let mut p = sim.species()[i];
            let mut count = n;
            let name = names
                .get(i)
                .cloned()
                .unwrap_or_else(|| format!("species {i}"));
            egui::CollapsingHeader::new(format!("{name} ({count})"))
                .default_open(i == 0)
                .show(ui, |ui| {
                    if ui
                        .add(
                            Slider::new(&mut count, 0..=200_000)
                                .logarithmic(true)
                                .text("count"),
                        )
                        .changed()
                    {
                        self.result(sim.flock.set_count(i, count));
                    }
                    if species_sliders(ui, &mut p, dimension) {
                        self.result(sim.set_species(i, p));
                    }
                });
        }
    }

    /// The selected boid's summary, with clearing and removing it.
    fn selection(&mut self, ui: &mut Ui, sim: &mut Sim) {
        if let Some(text) = sim.selected_summary() {
            ui.label(RichText::new(text).small());
            ui.horizontal(|ui| {
                if ui.button("Clear selection").clicked() {
                    sim.selected = None;
                }
                if let Some(id) = sim.selected
                    && ui.button("Remove this boid").clicked()
                {
                    let r = sim.flock.remove_boid(id);
                    self.result(r);
                    sim.selected = None;
                }
            });
        }
    }

    fn result(&mut self, r: Result<(), String>) {
        self.error = r.err();
    }

    fn boundary(&mut self, ui: &mut Ui, sim: &mut Sim) {
        let mut config = sim.flock.boundary();
        let before = config.0;
        // Wrapped: five choices do not fit the panel's width on one line.
        ui.horizontal_wrapped(|ui| {
            ui.label("boundary");
            let b = &mut config.0;
            let band = 0.1 * config.1;
            let choices = [
                ("wrap", Boundary::Wrap),
                ("reflect", Boundary::Reflect),
                (
                    "soft",
                    Boundary::Soft {
                        margin: band,
                        strength: 4.0,
                    },
                ),
                ("open", Boundary::Unbounded),
                (
                    "roost",
                    Boundary::Roost {
                        margin: band,
                        strength: 4.0,
                    },
                ),
            ];
            for (label, fresh) in choices {
                // The kind, not its numbers: a soft wall stays as tuned.
                let chosen = std::mem::discriminant(b) == std::mem::discriminant(&fresh);
                if ui.radio(chosen, label).clicked() && !chosen {
                    *b = fresh;
                }
            }
        });
        let half = 0.5 * config.1;
        let roost = matches!(config.0, Boundary::Roost { .. });
        if let Boundary::Soft {
            ref mut margin,
            ref mut strength,
        }
        | Boundary::Roost {
            ref mut margin,
            ref mut strength,
        } = config.0
        {
            // A wall's band lies inside the box; a roost's pull grows outside it.
            let reach = if roost {
                (4.0 * half).max(*margin)
            } else {
                half
            };
            ui.add(
                Slider::new(margin, 0.01..=reach)
                    .text("margin")
                    .custom_formatter(|x, _| human(x)),
            );
            ui.add(
                Slider::new(strength, 0.01..=100.0)
                    .logarithmic(true)
                    .text("push")
                    .custom_formatter(|x, _| human(x)),
            );
        }
        if config.0 != before {
            let r = sim.flock.set_boundary(config.0);
            self.result(r);
        }
    }

    fn plots(&self, ui: &mut Ui, sim: &Sim) {
        let names = ["polarization", "milling", "nearest neighbour", "mean speed"];
        for (h, name) in sim.history.iter().zip(names) {
            let last = h.back().copied().unwrap_or(0.0);
            ui.label(format!("{name}: {last:.3}"));
            let (rect, _) = ui
                .allocate_exact_size(egui::vec2(ui.available_width(), 36.0), egui::Sense::hover());
            let painter = ui.painter_at(rect);
            painter.rect_filled(rect, 2.0, Color32::from_rgb(14, 18, 30));
            if h.len() < 2 {
                continue;
            }
            let (lo, hi) = h
                .iter()
                .fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), &v| {
                    if v.is_finite() {
                        (a.min(v), b.max(v))
                    } else {
                        (a, b)
                    }
                });
            let (lo, hi) = if name == "polarization" || name == "milling" {
                (0.0, 1.0)
            } else {
                (lo.min(0.0), hi.max(1e-6))
            };
            let pts: Vec<egui::Pos2> = h
                .iter()
                .enumerate()
                .filter(|(_, v)| v.is_finite())
                .map(|(i, &v)| {
                    egui::pos2(
                        rect.left() + rect.width() * i as f32 / (HISTORY - 1) as f32,
                        rect.bottom() - rect.height() * (v - lo) / (hi - lo).max(1e-6),
                    )
                })
                .collect();
            painter.add(egui::Shape::line(
                pts,
                egui::Stroke::new(1.5, Color32::from_rgb(90, 210, 255)),
            ));
        }
    }
}

/// A labelled slider over `[lo, hi]`, its value written as people write numbers
/// ([`human`]); true when it moved.
fn slider(ui: &mut Ui, v: &mut f32, lo: f32, hi: f32, log: bool, text: &str) -> bool {
    let s = Slider::new(v, lo..=hi)
        .logarithmic(log)
        .text(text)
        .custom_formatter(|x, _| human(x));
    ui.add(s).changed()
}

/// `x` with four significant digits and no trailing zeros: `400`, `103.7`,
/// `0.0125`, `12500`.
pub fn human(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let digits = 4 - 1 - x.abs().log10().floor() as i32;
    let s = format!("{:.*}", digits.max(0) as usize, x);
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    if digits < 0 {
        // Round to four significant digits above them too.
        let unit = 10f64.powi(-digits);
        return format!("{}", (x / unit).round() * unit);
    }
    s
}

/// How the mouse and keys work, and the symptom → cause → fix tuning table.
fn help(ui: &mut Ui) {
    ui.collapsing("Mouse and keys", |ui| {
        ui.label("2D: left click sets the target (a click on it lets the flock go); left drag draws a path; right click fires a pulse; O drops an obstacle at the cursor; ctrl + click (or I) selects the nearest boid to show its radii, vision cone and forces (separation red, alignment green, cohesion blue, boundary yellow, applied white); Esc clears it, and with nothing selected lets the flock go from its target; middle drag pans; wheel zooms.");
        ui.label("3D: drag orbits; wheel zooms. Space pauses, S steps, R resets.");
    });
    ui.collapsing("Tuning help", |ui| {
        // One block per symptom, wrapped to the panel's width (three columns
        // did not fit in 340 px and were cut off).
        for (symptom, cause, fix) in HELP {
            ui.add(egui::Label::new(RichText::new(symptom).strong()).wrap());
            ui.add(egui::Label::new(format!("cause: {cause}")).wrap());
            ui.add(egui::Label::new(format!("fix: {fix}")).wrap());
            ui.add_space(4.0);
        }
    });
}

/// One slider per row of the parameter table (`murmuration::fields`), over its
/// range and scale: the essentials, then the rest folded under "advanced"
/// (banked flight only in 3D, where it acts); true if any changed.
fn species_sliders(ui: &mut Ui, p: &mut SpeciesParams, dimension: usize) -> bool {
    if p.model != murmuration::Model::Reynolds {
        return model_sliders(ui, p);
    }
    let mut changed = false;
    let mut group = |ui: &mut Ui, p: &mut SpeciesParams, which: FieldGroup| {
        for f in SPECIES_FIELDS.iter().filter(|f| f.group == which) {
            let (lo, hi) = f.slider_range(p);
            changed |= slider(ui, (f.get_mut)(p), lo, hi, f.log, f.label);
        }
    };
    group(ui, p, FieldGroup::Essentials);
    let mut modes_changed = false;
    ui.collapsing("advanced", |ui| {
        for which in [FieldGroup::Motion, FieldGroup::Flight] {
            if which.applies_to(dimension) {
                group(ui, p, which);
            }
        }
        let before = (p.steering, p.combine, p.topological_neighbours);
        ui.horizontal_wrapped(|ui| {
            ui.label("steering");
            for mode in Steering::ALL {
                ui.radio_value(&mut p.steering, mode, mode.label());
            }
        });
        ui.horizontal(|ui| {
            ui.label("forces");
            for mode in CombineMode::ALL {
                ui.radio_value(&mut p.combine, mode, mode.label());
            }
        });
        // A whole number beside the table's real-valued rows: 0 is metric.
        ui.add(
            Slider::new(
                &mut p.topological_neighbours,
                0..=murmuration::MAX_TOPOLOGICAL,
            )
            .text("nearest neighbours (0: all in radius)"),
        );
        modes_changed = before != (p.steering, p.combine, p.topological_neighbours);
        ui.collapsing(FieldGroup::Behaviours.title(), |ui| {
            group(ui, p, FieldGroup::Behaviours)
        });
    });
    changed | modes_changed
}

/// A research model's species: one slider per row of its parameter table
/// (`murmuration::model::MODEL_FIELDS`), over its range up to four times the
/// paper's value; its derived rule radii and speed follow.
fn model_sliders(ui: &mut Ui, p: &mut SpeciesParams) -> bool {
    use murmuration::model::{MODEL_FIELDS, Model};
    let kind = p.model.kind();
    ui.label(format!("model: {} (docs/RESEARCH.md)", kind.name()));
    let paper = Model::default_of(kind);
    let mut m = p.model;
    let mut changed = false;
    for f in MODEL_FIELDS.iter().filter(|f| f.model == kind) {
        let d = (f.get)(&paper).unwrap_or(1.0).abs().max(1e-3);
        let hi = f.range.max.min((4.0 * d).max(1.0));
        let lo = if f.range.min_open {
            (0.01 * d).min(hi)
        } else {
            f.range.min
        };
        if let Some(v) = (f.get_mut)(&mut m) {
            let label = format!("{} {}", f.symbol, f.unit);
            changed |= slider(ui, v, lo, hi, f.range.min_open, &label);
        }
    }
    if changed {
        *p = SpeciesParams::of_model(m);
    }
    changed
}

/// Writes the current world as a scenario file (atomically).
fn save(sim: &mut Sim, path: &str) -> anyhow::Result<()> {
    let names: Vec<String> = sim
        .scenario
        .species()
        .iter()
        .map(|(n, _)| n.clone())
        .collect();
    let name = std::path::Path::new(path)
        .file_stem()
        .map_or("saved".into(), |s| s.to_string_lossy().into_owned());
    let description = format!("saved from the sandbox (from {})", sim.scenario.name());
    let text = sim
        .flock
        .to_toml(&names, sim.scenario.looks(), &name, &description);
    let mut f = crate::outputs::AtomicFile::create(std::path::Path::new(path), "save")?;
    std::io::Write::write_all(f.writer(), text.as_bytes())?;
    f.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use murmuration::scenario::Scenario;

    #[test]
    fn numbers_read_as_people_write_them() {
        assert_eq!(human(400.0), "400");
        assert_eq!(human(103.69999694824219), "103.7");
        assert_eq!(human(0.699999988079071), "0.7");
        assert_eq!(human(0.0125), "0.0125");
        assert_eq!(human(123_456.0), "123500");
        assert_eq!(human(-2.5), "-2.5");
        assert_eq!(human(0.0), "0");
    }

    #[test]
    fn saving_writes_a_scenario_that_loads_the_same_flock() {
        let text = crate::presets::preset("idle-crowd").unwrap();
        let mut sim = Sim::new(Scenario::parse(text, "idle-crowd").unwrap(), None).unwrap();
        let p = SpeciesParams {
            cohesion_weight: 0.9,
            ..sim.species()[0]
        };
        sim.set_species(0, p).unwrap();
        sim.flock.set_count(0, 123).unwrap();
        sim.flock.obstacle(glam::Vec3::new(5.0, 5.0, 0.0)).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("mine.toml");
        save(&mut sim, file.to_str().unwrap()).unwrap();
        let back = crate::presets::load(Some(file.to_str().unwrap()), &[]).unwrap();
        assert_eq!(back.name(), "mine");
        let loaded = Sim::new(back, None).unwrap();
        assert_eq!(loaded.species(), sim.species());
        assert_eq!(loaded.counts(), vec![123]);
        assert_eq!(loaded.flock.entities().obstacles, 2);
    }
}

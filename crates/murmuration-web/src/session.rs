//! One flock in a page: the world, the instance array the page draws from, and
//! the requests the page sends as JSON (open a preset, tune a parameter, set a
//! target, inspect a boid). Plain safe Rust, tested natively; `lib.rs` only
//! moves bytes across the WebAssembly boundary.
//!
//! A parameter is set from the text the user typed through the core's field
//! table (`SPECIES_FIELDS`) and `set_species_params`, so it is checked as the
//! command line checks it; a new count goes through `resize.rs`. The page's
//! panel (`web/panel.js`) is drawn from the field table `state` sends:
//! essentials first, the rest under "advanced", fields the world does not use
//! left out.

use crate::inspect::{inspect, nearest_inspections, pick, xy};
use crate::metrics::metrics;
use crate::resize::{Resize, count_overrides};
use murmuration::fields::{FieldGroup, SPECIES_FIELDS, species_field};
use murmuration::scenario::{AnyWorld, Look, Override, PRESETS, Scenario};
use murmuration::{
    Boundary, CombineMode, ModelKind, Obstacle, SpeciesId, SpeciesParams, Steering, Vector, World,
    error_chain,
};
use serde::Deserialize;
use serde_json::{Value, json};

/// Floats per boid in the instance array: x, y, heading (radians from +x, in
/// the xy plane) and species: one RGBA32F texel, as the page's shader reads it.
pub const INSTANCE_FLOATS: usize = 4;

/// The most boids the page steps: a step of 200,000 takes about 0.1 s in the
/// module here, so the page still answers; more would freeze the tab. (Their
/// memory, tens of MB, is far inside WebAssembly's 4 GiB.)
pub const PAGE_MAX_BOIDS: u64 = 200_000;

/// Runs `$body` with `$w` bound to the world, whatever its dimension.
macro_rules! with_world {
    ($any:expr, $w:ident => $body:expr) => {
        match $any {
            AnyWorld::D2($w) => $body,
            AnyWorld::D3($w) => $body,
        }
    };
}

/// What the page can ask for. Every request is answered with a JSON value or
/// an error message for the page to show.
#[derive(Debug, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
enum Request {
    /// The presets the page offers (boids presets; research models excluded).
    Presets,
    /// Opens a preset with `--set` style overrides (`species.boids.count=1000`).
    Open {
        preset: String,
        #[serde(default)]
        set: Vec<String>,
    },
    /// The world box, species, their parameters and the field table.
    State,
    /// Sets one species parameter from the text the user typed.
    Set {
        species: usize,
        key: String,
        value: String,
    },
    /// Moves the pointer target (attractor 0) to a point.
    Target { x: f32, y: f32 },
    /// Removes the pointer target.
    ClearTarget,
    /// Rebuilds the flock with a new count for one species (the text typed);
    /// the box follows the count where the preset allows (`resize.rs`).
    Count { species: usize, value: String },
    /// Fires a pulse at a point.
    Pulse { x: f32, y: f32 },
    /// The id of the boid nearest a point.
    Pick { x: f32, y: f32 },
    /// One boid taken apart: radii and the force of each rule.
    Inspect { id: u32 },
    /// The `n` boids nearest a point taken apart (at most `MAX_DEBUG_BOIDS`), nearest
    /// first: the page's debug drawing of the flock.
    Debug { x: f32, y: f32, n: u32 },
    /// Polarization, milling, speeds and counts.
    Metrics,
    /// The world's digest, as `murmuration run` prints it.
    Digest,
    /// What a mirror of this flock needs: preset, overrides, species parameters.
    Mirror,
    /// Opens a mirror of another session's flock (the metrics worker's).
    Adopt {
        preset: String,
        set: Vec<String>,
        species: Vec<SpeciesParams>,
    },
    /// Steps `n` times (the page's frames use `mm_step`).
    Step { n: u32 },
    /// Attractors and pulses, for drawing (they move; obstacles do not).
    Entities,
    /// The obstacles' shapes in the xy plane, for drawing.
    Obstacles,
}

/// The page's flock.
pub struct Session {
    world: AnyWorld,
    preset: String,
    /// Each species' name and count as opened.
    species: Vec<(String, u64)>,
    /// How the box follows a new count.
    resize: Resize,
    /// The overrides it was opened with.
    set: Vec<String>,
    /// The last kinematics array handed to the page.
    kinematics: Vec<f32>,
    /// Each species' drawing hints from its preset.
    looks: Vec<Look>,
    instances: Vec<f32>,
}

impl Session {
    /// A session on `preset` with overrides, refused with a message when the
    /// scenario is invalid, uses a research model, or would not fit.
    pub fn open(preset: &str, set: &[String]) -> Result<Self, String> {
        let Some(text) = murmuration::scenario::preset(preset) else {
            return Err(format!(
                "no preset named {preset:?}; the page offers {}",
                page_presets().join(", ")
            ));
        };
        let overrides = set
            .iter()
            .map(|s| s.parse::<Override>())
            .collect::<Result<Vec<_>, _>>()?;
        let scenario = Scenario::parse_with(text, &format!("<preset {preset}>"), &overrides)
            .map_err(|e| error_chain(&e))?;
        if scenario.total_boids() > PAGE_MAX_BOIDS {
            return Err(format!(
                "{} boids ({}) are more than the page steps ({PAGE_MAX_BOIDS} at most, about 0.1 s a step); `murmuration run {preset}` takes larger flocks",
                scenario.total_boids(),
                scenario
                    .species()
                    .iter()
                    .map(|(n, c)| format!("species.{n}.count = {c}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if let Some(k) = research_model(&scenario.species_params()) {
            return Err(format!(
                "preset {preset:?} moves by the {k:?} research model, which the page does not draw; run it with `murmuration run {preset}`"
            ));
        }
        let world = scenario.build().map_err(|e| error_chain(&e))?;
        let mut s = Self {
            world,
            preset: preset.to_string(),
            species: scenario.species().to_vec(),
            resize: Resize::of(text),
            set: set.to_vec(),
            kinematics: Vec::new(),
            looks: scenario.looks().to_vec(),
            instances: Vec::new(),
        };
        s.fill_instances();
        Ok(s)
    }

    /// [`Session::open`], then each species' parameters set to `species` (a
    /// count change keeping the user's tuning; the metrics worker's mirror).
    fn open_tuned(
        preset: &str,
        set: &[String],
        species: Vec<SpeciesParams>,
    ) -> Result<Self, String> {
        let mut s = Self::open(preset, set)?;
        for (i, p) in species.into_iter().enumerate() {
            with_world!(&mut s.world, w => w.set_species_params(SpeciesId::new(i), p))
                .map_err(|e| e.to_string())?;
        }
        Ok(s)
    }

    /// The flock's world (the WebGPU module steps a copy of it on the GPU and
    /// writes the state back).
    pub fn world(&self) -> &AnyWorld {
        &self.world
    }

    /// The flock's world, to write the GPU's state into; call
    /// [`Session::refresh`] after changing its boids.
    pub fn world_mut(&mut self) -> &mut AnyWorld {
        &mut self.world
    }

    /// Each species' drawing hints from its preset.
    pub fn looks(&self) -> &[Look] {
        &self.looks
    }

    /// Rebuilds the instance array from the world (after [`Session::world_mut`]).
    pub fn refresh(&mut self) {
        self.fill_instances();
    }

    /// Steps `n` times and refreshes the instance array.
    pub fn step(&mut self, n: u32) {
        with_world!(&mut self.world, w => w.step_n(n as u64));
        self.fill_instances();
    }

    /// The instance array: [`INSTANCE_FLOATS`] floats per boid.
    pub fn instances(&self) -> &[f32] {
        &self.instances
    }

    /// Number of boids.
    pub fn len(&self) -> usize {
        with_world!(&self.world, w => w.len())
    }

    /// True when every boid was eaten or removed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Each boid's position, velocity and species, for the metrics worker
    /// (`metrics.rs`), which measures them in its mirror off the frame's path.
    pub fn kinematics(&mut self) -> &[f32] {
        let out = &mut self.kinematics;
        out.clear();
        with_world!(&self.world, w => crate::metrics::fill_kinematics(w, out));
        out
    }

    /// The metrics of `kinematics` (another session's, whose mirror this
    /// session is) measured against this session's box and parameters.
    pub fn metrics_of(&self, kinematics: &[f32]) -> Result<Value, String> {
        with_world!(&self.world, w => crate::metrics::metrics_of(w, kinematics))
    }

    /// The digest `murmuration run` prints for the same scenario and steps.
    pub fn digest(&self) -> String {
        format!("{:016x}", with_world!(&self.world, w => w.digest()))
    }

    fn fill_instances(&mut self) {
        let out = &mut self.instances;
        out.clear();
        with_world!(&self.world, w => {
            let b = w.boids();
            for ((p, v), &s) in b.positions().iter().zip(b.velocities()).zip(b.species()) {
                let heading = libm::atan2f(v.get(1), v.get(0));
                out.extend_from_slice(&[p.get(0), p.get(1), heading, s as f32]);
            }
        });
    }

    /// Answers one JSON request; `Err` is a message for the page.
    pub fn call(session: &mut Option<Self>, request: &str) -> Result<Value, String> {
        let req: Request =
            serde_json::from_str(request).map_err(|e| format!("bad request {request}: {e}"))?;
        match req {
            Request::Presets => return Ok(json!(presets_json())),
            Request::Open { preset, set } => {
                *session = Some(Self::open(&preset, &set)?);
                return Ok(Value::Null);
            }
            Request::Adopt {
                preset,
                set,
                species,
            } => {
                *session = Some(Self::open_tuned(&preset, &set, species)?);
                return Ok(Value::Null);
            }
            _ => {}
        }
        let s = session.as_mut().ok_or("no flock is open")?;
        match req {
            Request::Presets | Request::Open { .. } | Request::Adopt { .. } => {
                unreachable!("answered above")
            }
            Request::Mirror => Ok(json!({
                "preset": s.preset,
                "set": s.set,
                "species": with_world!(&s.world, w => w.species().to_vec()),
            })),
            Request::State => Ok(s.state()),
            Request::Set {
                species,
                key,
                value,
            } => s.set(species, &key, &value).map(|()| s.state()),
            Request::Target { x, y } => {
                finite(&[x, y])?;
                with_world!(&mut s.world, w => w.set_pointer_target(at(w, x, y)))
                    .map_err(|e| e.to_string())?;
                Ok(Value::Null)
            }
            Request::ClearTarget => Ok(json!(
                with_world!(&mut s.world, w => w.clear_pointer_target())
            )),
            Request::Count { species, value } => {
                let text = murmuration::scenario::preset(&s.preset).unwrap_or_default();
                let set = count_overrides(text, &s.species, species, &value, PAGE_MAX_BOIDS)?;
                // The user's tuning stays: the same preset has the same species.
                let tuned = with_world!(&s.world, w => w.species().to_vec());
                *s = Self::open_tuned(&s.preset, &set, tuned)?;
                Ok(s.state())
            }
            Request::Pulse { x, y } => {
                finite(&[x, y])?;
                with_world!(&mut s.world, w => w.fire_pointer_pulse(at(w, x, y)))
                    .map_err(|e| e.to_string())?;
                Ok(Value::Null)
            }
            Request::Pick { x, y } => {
                finite(&[x, y])?;
                Ok(json!(with_world!(&s.world, w => pick(w, x, y))))
            }
            Request::Inspect { id } => Ok(with_world!(&s.world, w => inspect(w, id))),
            Request::Debug { x, y, n } => {
                finite(&[x, y])?;
                Ok(with_world!(&s.world, w => nearest_inspections(w, x, y, n)))
            }
            Request::Metrics => Ok(with_world!(&s.world, w => metrics(&w.metrics()))),
            Request::Digest => Ok(json!(s.digest())),
            Request::Step { n } => {
                if n > 100_000 {
                    return Err(format!(
                        "{n} steps at once would freeze the page; at most 100000"
                    ));
                }
                s.step(n);
                Ok(json!(with_world!(&s.world, w => w.step_index())))
            }
            Request::Entities => Ok(with_world!(&s.world, w => entities(w))),
            Request::Obstacles => Ok(with_world!(&s.world, w => obstacles(w))),
        }
    }

    /// Sets `key` of species `species` from `text`: a number for the field
    /// table and `topological_neighbours`, a name for `steering` and `combine`.
    fn set(&mut self, species: usize, key: &str, text: &str) -> Result<(), String> {
        let mut p = *with_world!(&self.world, w => w.species())
            .get(species)
            .ok_or_else(|| format!("no species {species}; the flock has {}", self.species.len()))?;
        let text = text.trim();
        match key {
            "steering" => p.steering = mode(&Steering::ALL, Steering::key, key, text)?,
            "combine" => p.combine = mode(&CombineMode::ALL, CombineMode::key, key, text)?,
            "topological_neighbours" => {
                p.topological_neighbours = text.parse().map_err(|_| {
                    format!(
                        "{}: nearest neighbours {text:?} is not a whole number",
                        self.species[species].0
                    )
                })?;
            }
            _ => {
                let f =
                    species_field(key).ok_or_else(|| format!("no species parameter {key:?}"))?;
                let v: f32 = text.parse().map_err(|_| {
                    format!(
                        "{}: {} {text:?} is not a number",
                        self.species[species].0, f.label
                    )
                })?;
                *(f.get_mut)(&mut p) = v;
            }
        }
        let id = SpeciesId::new(species);
        with_world!(&mut self.world, w => w.set_species_params(id, p)).map_err(|e| {
            // The page's words: "boids: max speed", not "species[0].max_speed".
            let name = &self.species[species].0;
            let labels = SPECIES_FIELDS.iter().map(|f| (f.key, f.label)).chain([
                (
                    "perception_radius",
                    "larger of the alignment and cohesion radii",
                ),
                ("topological_neighbours", "nearest neighbours"),
            ]);
            labels
                .fold(e.to_string(), |m, (key, label)| {
                    m.replace(&format!("{id}.{key}"), &format!("{name}: {label}"))
                })
                .replace(&format!("{id}."), &format!("{name}: "))
        })
    }

    fn state(&self) -> Value {
        with_world!(&self.world, w => {
            let c = w.config();
            let species: Vec<Value> = w
                .species()
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let count = w.boids().species().iter().filter(|&&s| s as usize == i).count();
                    let values: serde_json::Map<String, Value> = SPECIES_FIELDS
                        .iter()
                        .map(|f| (f.key.to_string(), json!(short((f.get)(p)))))
                        .collect();
                    let ranges: serde_json::Map<String, Value> = SPECIES_FIELDS
                        .iter()
                        .map(|f| {
                            let (lo, hi) = f.slider_range(p);
                            (f.key.to_string(), json!([short(lo), short(hi)]))
                        })
                        .collect();
                    json!({
                        "name": self.species.get(i).map_or_else(|| format!("species {i}"), |(n, _)| n.clone()),
                        "count": count,
                        "values": values,
                        "ranges": ranges,
                        "steering": p.steering.key(),
                        "combine": p.combine.key(),
                        "topological_neighbours": p.topological_neighbours,
                        "look": self.looks.get(i).map(|l| json!({"colour": l.colour, "size": l.size})),
                    })
                })
                .collect();
            json!({
                "preset": self.preset,
                "dimension": dimension(w),
                "min": [c.min.get(0), c.min.get(1)],
                "max": [c.max.get(0), c.max.get(1)],
                "dt": c.dt,
                "step": w.step_index(),
                "species": species,
                "fields": fields_json(dimension(w)),
                "steering_modes": Steering::ALL.map(|m| json!({"key": m.key(), "label": m.label()})),
                "combine_modes": CombineMode::ALL.map(|m| json!({"key": m.key(), "label": m.label()})),
                "resize": match &self.resize {
                    Resize::Density(_) => Value::Null,
                    Resize::Fixed(why) => json!(why),
                },
                "max_boids": PAGE_MAX_BOIDS,
                // Boids may leave the box: the page's camera follows the flock.
                "open": matches!(c.boundary, Boundary::Unbounded | Boundary::Roost { .. }),
            })
        })
    }
}

/// The mode of `all` whose scenario-file name is `text`, or a message listing them.
fn mode<M: Copy>(
    all: &[M],
    name: fn(M) -> &'static str,
    key: &str,
    text: &str,
) -> Result<M, String> {
    all.iter()
        .copied()
        .find(|&m| name(m) == text)
        .ok_or_else(|| {
            let names: Vec<&str> = all.iter().map(|&m| name(m)).collect();
            format!("{key} {text:?} is not one of {}", names.join(", "))
        })
}

/// The dimension of a world, for the page.
fn dimension<V: Vector>(_: &World<V>) -> usize {
    V::DIM
}

/// The shipped presets the page can draw, in the command line's order.
pub fn page_presets() -> Vec<&'static str> {
    PRESETS
        .iter()
        .filter(|(_, text)| {
            Scenario::parse(text, "preset")
                .is_ok_and(|s| research_model(&s.species_params()).is_none())
        })
        .map(|(n, _)| *n)
        .collect()
}

fn presets_json() -> Vec<Value> {
    page_presets()
        .into_iter()
        .filter_map(|name| {
            let s = Scenario::parse(murmuration::scenario::preset(name)?, name).ok()?;
            Some(json!({
                "name": name,
                "description": s.description(),
                "dimension": s.dimension(),
                "boids": s.total_boids(),
                "species": s.species().iter().map(|(n, c)| json!({"name": n, "count": c})).collect::<Vec<_>>(),
            }))
        })
        .collect()
}

/// The field table as the page shows it for a world of `dimension`: fields
/// that do nothing there (banked flight in 2D) left out.
fn fields_json(dimension: usize) -> Vec<Value> {
    SPECIES_FIELDS
        .iter()
        .filter(|f| f.group.applies_to(dimension))
        .map(|f| {
            json!({
                "key": f.key,
                "label": f.label,
                "unit": f.unit,
                "range": f.range.text(),
                "log": f.log,
                "group": match f.group {
                    FieldGroup::Essentials => "essentials",
                    FieldGroup::Motion => "motion",
                    FieldGroup::Flight => "flight",
                    FieldGroup::Behaviours => "behaviours",
                },
                "meaning": f.meaning,
            })
        })
        .collect()
}

/// The first research model among the species (the page draws boids only).
fn research_model(species: &[SpeciesParams]) -> Option<ModelKind> {
    species
        .iter()
        .map(|p| p.model.kind())
        .find(|&k| k != ModelKind::Reynolds)
}

/// An f32 as the f64 with the same shortest decimal text (0.8, not
/// 0.800000011920929), so the panel shows what the scenario says.
fn short(v: f32) -> f64 {
    v.to_string().parse().unwrap_or(f64::NAN)
}

fn finite(v: &[f32]) -> Result<(), String> {
    if v.iter().all(|x| x.is_finite()) {
        Ok(())
    } else {
        Err(format!("a point must be finite, not {v:?}"))
    }
}

/// A page point in world units; in 3D, at the middle of the box's depth.
fn at<V: Vector>(w: &World<V>, x: f32, y: f32) -> V {
    let c = w.config();
    let mid = (c.min + c.max) * 0.5;
    let mut p = mid;
    p.set(0, x);
    p.set(1, y);
    p
}

fn entities<V: Vector>(w: &World<V>) -> Value {
    json!({
        "attractors": w.attractors().iter().map(|a| json!({"position": xy(a.position), "radius": a.radius, "pointer": a.free_inside})).collect::<Vec<_>>(),
        "pulses": w.pulses().iter().map(|p| json!({"position": xy(p.position), "radius": p.radius, "fade": p.fade()})).collect::<Vec<_>>(),
    })
}

/// Each obstacle as the page draws it: `{"circle": [x, y, r]}`, `{"box": [x,
/// y, half x, half y]}`, `{"capsule": [ax, ay, bx, by, r]}`, `{"polygon": [[x,
/// y], …]}`; a baked field as `{"field": null}` (not drawn).
fn obstacles<V: Vector>(w: &World<V>) -> Value {
    w.obstacles()
        .iter()
        .map(|o| match o {
            Obstacle::Sphere { center, radius } => {
                json!({"circle": [center.get(0), center.get(1), radius]})
            }
            Obstacle::Box {
                center,
                half_extents,
            } => json!({"box": [center.get(0), center.get(1), half_extents.get(0), half_extents.get(1)]}),
            Obstacle::Capsule { a, b, radius } => {
                json!({"capsule": [a.get(0), a.get(1), b.get(0), b.get(1), radius]})
            }
            Obstacle::Polygon { points } => {
                json!({"polygon": points.iter().map(|&p| xy(p)).collect::<Vec<_>>()})
            }
            Obstacle::Field(_) => json!({"field": null}),
        })
        .collect()
}

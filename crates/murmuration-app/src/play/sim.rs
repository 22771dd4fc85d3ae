//! The sandbox's simulation: a world of either dimension stepped in real time
//! (fixed steps, speed ×0.25–×4, pause, single step), metric history for the
//! plots, and the A/B parameter sets.

use super::engine::{GPU_SAMPLE_EVERY, GpuEngine};
use glam::Vec3 as V3;
use murmuration::scenario::{AnyWorld, Scenario};
use murmuration::{Attractor, Obstacle, Path, Pulse, SpeciesParams, Vector, World};
use murmuration_render::{RenderSettings, Scene, Trails};
use std::collections::VecDeque;

/// Metric samples kept for the plots (one per frame, about a minute).
pub const HISTORY: usize = 3600;

/// A world of either dimension with the operations the sandbox needs.
pub struct Sim {
    /// The scenario it came from (reset rebuilds it).
    pub scenario: Scenario,
    /// The world.
    pub world: AnyWorld,
    /// Stepping is stopped.
    pub paused: bool,
    /// Steps per frame multiplier, in [0.25, 4].
    pub speed: f32,
    /// Fractional steps carried between frames.
    carry: f32,
    /// Polarization, milling, mean nearest-neighbour distance, mean speed.
    pub history: [VecDeque<f32>; 4],
    /// Milliseconds of the last frame's steps.
    pub step_ms: f32,
    /// The kept parameter set ("A") to compare against, if any.
    pub saved: Option<Vec<SpeciesParams>>,
    /// The boid whose radii, vision cone and forces are drawn.
    pub selected: Option<u32>,
    /// The GPU engine (`--backend gpu|auto`); `None` steps on the CPU.
    pub engine: Option<GpuEngine>,
    /// A GPU failure that switched the sandbox to the CPU.
    pub engine_error: Option<String>,
    /// Stepped frames since the last metric sample.
    since_sample: u32,
}

macro_rules! with_world {
    ($w:expr, $x:ident => $body:expr) => {
        match $w {
            murmuration::scenario::AnyWorld::D2($x) => $body,
            murmuration::scenario::AnyWorld::D3($x) => $body,
        }
    };
}
pub(crate) use with_world;

impl Sim {
    /// Builds the scenario's world.
    pub fn new(scenario: Scenario) -> anyhow::Result<Self> {
        let world = scenario.build()?;
        Ok(Self {
            scenario,
            world,
            paused: false,
            speed: 1.0,
            carry: 0.0,
            history: Default::default(),
            step_ms: 0.0,
            saved: None,
            selected: None,
            engine: None,
            engine_error: None,
            since_sample: 0,
        })
    }

    /// Rebuilds the world from the scenario with the same seed, keeping the
    /// current species parameters.
    pub fn reset(&mut self) -> anyhow::Result<()> {
        let params = self.species().to_vec();
        self.world = self.scenario.build()?;
        if let Some(e) = &mut self.engine {
            e.invalidate();
        }
        for (i, p) in params.into_iter().enumerate() {
            with_world!(&mut self.world, w => w.set_species_params(i, p))?;
        }
        for h in &mut self.history {
            h.clear();
        }
        Ok(())
    }

    /// Advances by one frame of real time (`dt_frame` seconds) at the current speed.
    pub fn frame(&mut self, dt_frame: f32) {
        if self.paused {
            return;
        }
        let dt = with_world!(&self.world, w => w.config().dt);
        self.carry += self.speed * dt_frame / dt;
        // Never more than 8 steps a frame: a slow machine runs slower, not jerkier.
        let steps = (self.carry.floor() as u64).min(8);
        self.carry = (self.carry - steps as f32).min(1.0);
        self.step(steps);
    }

    /// Runs `n` steps now (single-stepping while paused too).
    pub fn step(&mut self, n: u64) {
        if n == 0 {
            return;
        }
        let t = std::time::Instant::now();
        // The GPU engine steps the world itself, on the GPU or (for a feature the
        // GPU lacks) on the CPU; without it, or after a device error, the CPU does.
        let stepped = match &mut self.engine {
            Some(e) => match e.step(&mut self.world, n) {
                Ok(on_gpu) => Some(on_gpu),
                Err(err) => {
                    self.gpu_failed(err);
                    None
                }
            },
            None => None,
        };
        if stepped.is_none() {
            with_world!(&mut self.world, w => w.step_n(n));
        }
        let on_gpu = stepped == Some(true);
        self.step_ms = t.elapsed().as_secs_f32() * 1000.0 / n as f32;
        // On the GPU, metrics need a read-back: sample them less often.
        self.since_sample += 1;
        if on_gpu && self.since_sample < GPU_SAMPLE_EVERY {
            return;
        }
        self.since_sample = 0;
        self.sync();
        let m = with_world!(&self.world, w => {
            let m = w.metrics();
            [m.polarization, m.milling, m.mean_nn_distance, m.mean_speed]
        });
        for (h, v) in self.history.iter_mut().zip(m) {
            if h.len() == HISTORY {
                h.pop_front();
            }
            h.push_back(v as f32);
        }
    }

    /// Brings the world up to date with the GPU flock (a read-back), if it runs.
    pub fn sync(&mut self) {
        if let Some(e) = &mut self.engine
            && let Err(err) = e.sync(&mut self.world)
        {
            self.gpu_failed(err);
        }
    }

    /// Drops the GPU engine after a device error and goes on on the CPU from the
    /// last state the world holds (the GPU's state is lost with the device).
    fn gpu_failed(&mut self, err: murmuration_gpu::GpuError) {
        self.engine_error = Some(format!("GPU failed, stepping on the CPU: {err}"));
        self.engine = None;
    }

    /// Changes the world's boids or entities: the GPU state is read back first
    /// and the GPU flock rebuilt before the next step.
    fn edit<R>(&mut self, f: impl FnOnce(&mut AnyWorld) -> R) -> R {
        self.sync();
        let r = f(&mut self.world);
        if let Some(e) = &mut self.engine {
            e.invalidate();
        }
        r
    }

    /// Tells the GPU engine that parameters or the configuration changed.
    pub fn params_changed(&mut self) {
        if let Some(e) = &mut self.engine
            && let Err(err) = e.params_changed(&mut self.world)
        {
            self.gpu_failed(err);
        }
    }

    /// Which engine steps the flock, for the panel.
    pub fn engine_label(&self) -> String {
        match (&self.engine, &self.engine_error) {
            (Some(e), _) => match e.cpu_reason() {
                Some(why) => format!("CPU for now: {why}"),
                None => format!("GPU {}, drawn from its buffers", e.name()),
            },
            (None, Some(err)) => err.clone(),
            (None, None) => "CPU".to_string(),
        }
    }

    /// Species parameters.
    pub fn species(&self) -> &[SpeciesParams] {
        with_world!(&self.world, w => w.species())
    }

    /// Boids of each species.
    pub fn counts(&self) -> Vec<u64> {
        let n = self.species().len();
        let mut c = vec![0u64; n];
        for &s in with_world!(&self.world, w => w.boid_species()) {
            c[s as usize] += 1;
        }
        c
    }

    /// Sets one species' parameters (invalid sets are refused and reported).
    pub fn set_species(&mut self, i: usize, p: SpeciesParams) -> Result<(), String> {
        with_world!(&mut self.world, w => w.set_species_params(i, p)).map_err(|e| e.to_string())?;
        self.params_changed();
        Ok(())
    }

    /// Adds or removes boids of a species to reach `target`.
    pub fn set_count(&mut self, species: usize, target: u64) -> Result<(), String> {
        let now = self.counts()[species];
        let max = self.species()[species].max_speed;
        if target > now {
            self.edit(|world| {
                with_world!(world, w => w.spawn(species, target - now, None, max).map(|_| ()))
            })
            .map_err(|e| e.to_string())
        } else if target < now {
            let ids: Vec<u32> = with_world!(&self.world, w => w
                .ids()
                .iter()
                .zip(w.boid_species())
                .filter(|(_, s)| **s as usize == species)
                .map(|(id, _)| *id)
                .rev()
                .take((now - target) as usize)
                .collect());
            self.edit(|world| with_world!(world, w => w.remove_boids(&ids)))
                .map_err(|e| e.to_string())
        } else {
            Ok(())
        }
    }

    /// Keeps the current parameters as "A", or swaps them with the kept set.
    pub fn swap_ab(&mut self) -> Result<(), String> {
        let now = self.species().to_vec();
        match self.saved.replace(now) {
            None => Ok(()),
            Some(a) => {
                for (i, p) in a.into_iter().enumerate() {
                    self.set_species(i, p)?;
                }
                Ok(())
            }
        }
    }

    /// Updates the drawable scene (with the selected boid's debug drawing).
    ///
    /// On the GPU the boids are drawn straight from the flock's buffers, unless
    /// a selected boid, trails or neighbour colours need the state on the CPU.
    pub fn scene(&mut self, scene: &mut Scene, settings: &RenderSettings, trails: &mut Trails) {
        if self.selected.is_none()
            && !settings.needs_cpu_state()
            && let Some(buffers) = self.engine.as_ref().and_then(GpuEngine::boid_buffers)
        {
            with_world!(&self.world, w => scene.update_from_gpu(w, buffers, settings));
            return;
        }
        self.sync();
        with_world!(&self.world, w => scene.update(w, settings, trails));
        if let Some(id) = self.selected {
            let found = with_world!(&self.world, w => match w.inspect(id) {
                Some(ins) => {
                    murmuration_render::inspection(&ins, &w.species()[ins.species], &mut scene.lines);
                    true
                }
                None => false,
            });
            if !found {
                self.selected = None;
            }
        }
    }

    /// Selects the boid nearest a world point (or clears the selection when the
    /// world is empty).
    pub fn select_near(&mut self, p: [f32; 3]) {
        self.sync();
        self.selected = with_world!(&self.world, w => {
            let q = V3::from(p);
            w.ids()
                .iter()
                .zip(w.positions())
                .map(|(&id, x)| (id, (V3::from(x.to_array3()) - q).length_squared()))
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(id, _)| id)
        });
    }

    /// Selects the boid that appears nearest a ray (from the camera through the
    /// cursor): the smallest angle between the ray and the direction to the boid,
    /// among boids in front of the camera. For picking in 3D.
    pub fn select_on_ray(&mut self, origin: V3, dir: V3) {
        self.sync();
        let dir = dir.normalize_or_zero();
        self.selected = with_world!(&self.world, w => {
            w.ids()
                .iter()
                .zip(w.positions())
                .filter_map(|(&id, x)| {
                    let to = V3::from(x.to_array3()) - origin;
                    let along = to.dot(dir);
                    (along > 0.0).then(|| (id, (to - along * dir).length() / along))
                })
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(id, _)| id)
        });
    }

    /// The selected boid taken apart, as text for the panel.
    pub fn selected_summary(&self) -> Option<String> {
        let id = self.selected?;
        with_world!(&self.world, w => w.inspect(id).map(|i| {
            let m = |v: [f32; 3]| V3::from(v).length();
            format!(
                "boid {id} ({}): {} neighbours\nseparation {:.3}, alignment {:.3}, cohesion {:.3}, boundary {:.3}, applied {:.3}",
                self.scenario.species().get(i.species).map_or("?", |s| s.0.as_str()),
                i.neighbours,
                m(i.separation.to_array3()),
                m(i.alignment.to_array3()),
                m(i.cohesion.to_array3()),
                m(i.boundary.to_array3()),
                m(i.steering.to_array3()),
            )
        }))
    }

    /// Drops an attractor at a world point (2D; z ignored).
    pub fn attract(&mut self, p: [f32; 3]) -> Result<(), String> {
        fn go<V: Vector>(w: &mut World<V>, p: [f32; 3]) -> Result<(), String> {
            let extent = (w.config().max - w.config().min).get(0);
            // One attractor follows the mouse: move it if there is one.
            let a = Attractor::new(V::from_array3(p), 1.5, 0.05 * extent);
            if w.attractors().is_empty() {
                w.add_attractor(a).map(|_| ()).map_err(|e| e.to_string())
            } else {
                w.set_attractor(0, a).map_err(|e| e.to_string())
            }
        }
        self.edit(|world| with_world!(world, w => go(w, p)))
    }

    /// Fires a pulse at a world point.
    pub fn pulse(&mut self, p: [f32; 3]) -> Result<(), String> {
        fn go<V: Vector>(w: &mut World<V>, p: [f32; 3]) -> Result<(), String> {
            let extent = (w.config().max - w.config().min).get(0);
            let max_force = w.species().iter().map(|s| s.max_force).fold(0.0, f32::max);
            w.add_pulse(Pulse::new(
                V::from_array3(p),
                0.12 * extent,
                8.0 * max_force,
                1.5,
            ))
            .map_err(|e| e.to_string())
        }
        self.edit(|world| with_world!(world, w => go(w, p)))
    }

    /// Drops a round obstacle at a world point.
    pub fn obstacle(&mut self, p: [f32; 3]) -> Result<(), String> {
        fn go<V: Vector>(w: &mut World<V>, p: [f32; 3]) -> Result<(), String> {
            let extent = (w.config().max - w.config().min).get(0);
            w.add_obstacle(Obstacle::Sphere {
                center: V::from_array3(p),
                radius: 0.04 * extent,
            })
            .map(|_| ())
            .map_err(|e| e.to_string())
        }
        self.edit(|world| with_world!(world, w => go(w, p)))
    }

    /// Adds a path through the given points (lasting 20 s).
    pub fn path(&mut self, points: &[[f32; 3]]) -> Result<(), String> {
        fn go<V: Vector>(w: &mut World<V>, pts: &[[f32; 3]]) -> Result<(), String> {
            let extent = (w.config().max - w.config().min).get(0);
            let mut p = Path::new(
                pts.iter().map(|&q| V::from_array3(q)).collect(),
                0.06 * extent,
                2.0,
            );
            p.lifetime = 20.0;
            w.add_path(p).map(|_| ()).map_err(|e| e.to_string())
        }
        self.edit(|world| with_world!(world, w => go(w, points)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sim(preset: &str) -> Sim {
        let text = crate::presets::preset(preset).unwrap();
        let o: Vec<murmuration::scenario::Override> =
            vec!["species.people.count=50".parse().unwrap()];
        let s = if preset == "idle-crowd" {
            Scenario::parse_with(text, preset, &o).unwrap()
        } else {
            Scenario::parse(text, preset).unwrap()
        };
        Sim::new(s).unwrap()
    }

    #[test]
    fn mouse_tools_add_entities_to_the_world() {
        let mut s = sim("idle-crowd");
        s.attract([10.0, 10.0, 0.0]).unwrap();
        s.attract([12.0, 10.0, 0.0]).unwrap();
        s.pulse([20.0, 5.0, 0.0]).unwrap();
        s.obstacle([5.0, 30.0, 0.0]).unwrap();
        s.path(&[[1.0, 1.0, 0.0], [20.0, 2.0, 0.0], [30.0, 10.0, 0.0]])
            .unwrap();
        with_world!(&s.world, w => {
            assert_eq!(w.attractors().len(), 1, "one target follows the mouse");
            assert_eq!(w.attractors()[0].position.to_array3()[0], 12.0);
            assert_eq!(w.pulses().len(), 1);
            assert_eq!(w.obstacles().len(), 2);
            assert_eq!(w.paths().len(), 1);
        });
        s.step(5);
        assert_eq!(s.history[0].len(), 1);
    }

    #[test]
    fn counts_ab_and_reset() {
        let mut s = sim("idle-crowd");
        s.set_count(0, 80).unwrap();
        assert_eq!(s.counts(), vec![80]);
        s.set_count(0, 20).unwrap();
        assert_eq!(s.counts(), vec![20]);
        let a = s.species()[0];
        s.swap_ab().unwrap();
        let b = SpeciesParams {
            cohesion_weight: 2.0,
            ..a
        };
        s.set_species(0, b).unwrap();
        s.swap_ab().unwrap();
        assert_eq!(s.species()[0], a, "swapped back to A");
        s.swap_ab().unwrap();
        assert_eq!(s.species()[0], b, "and to B again");
        let bad = SpeciesParams {
            separation_radius: 100.0,
            ..a
        };
        assert!(
            s.set_species(0, bad)
                .unwrap_err()
                .contains("separation_radius")
        );
        s.reset().unwrap();
        assert_eq!(s.counts(), vec![50], "reset rebuilds the scenario's boids");
        assert_eq!(s.species()[0], b, "keeping the current parameters");
    }

    #[test]
    fn selecting_a_boid_draws_its_debug_overlay() {
        let mut s = sim("default");
        s.step(3);
        let settings = RenderSettings {
            overlays: false,
            ..RenderSettings::default()
        };
        let (mut scene, mut trails) = (Scene::new(), Trails::default());
        s.scene(&mut scene, &settings, &mut trails);
        assert!(scene.lines.is_empty());
        s.select_near([30.0, 30.0, 0.0]);
        let id = s.selected.unwrap();
        s.scene(&mut scene, &settings, &mut trails);
        assert!(scene.lines.len() > 100, "radii, cone and arrows");
        assert!(
            s.selected_summary()
                .unwrap()
                .starts_with(&format!("boid {id} (boids): "))
        );
        with_world!(&mut s.world, w => w.remove_boid(id)).unwrap();
        s.scene(&mut scene, &settings, &mut trails);
        assert_eq!(s.selected, None, "a removed boid is deselected");
    }

    /// The sandbox's GPU engine on the default adapter (lavapipe here), or `None`.
    fn gpu_engine() -> Option<GpuEngine> {
        match murmuration_gpu::Gpu::new() {
            Ok(g) => Some(GpuEngine::new(g)),
            Err(e) => {
                eprintln!("SKIPPED: no GPU adapter ({e})");
                None
            }
        }
    }

    #[test]
    fn on_the_gpu_frames_are_drawn_from_the_flock_buffers_and_edits_read_back() {
        let Some(engine) = gpu_engine() else { return };
        let mut s = sim("fish-school");
        s.engine = Some(engine);
        let before: Vec<[f32; 3]> =
            with_world!(&s.world, w => w.positions().iter().map(|p| p.to_array3()).collect());
        s.step(4);
        assert!(s.engine_label().starts_with("GPU "), "{}", s.engine_label());
        let settings = RenderSettings::default();
        let (mut scene, mut trails) = (Scene::new(), Trails::default());
        s.scene(&mut scene, &settings, &mut trails);
        let gpu = scene.gpu.as_ref().expect("drawn from the GPU buffers");
        assert_eq!(gpu.buffers.len, 400);
        assert!(scene.boids.is_empty(), "nothing uploaded from the CPU");
        // Steps ran on the GPU: the world lags until something reads it back.
        assert_eq!(with_world!(&s.world, w => w.step_index()), 0);
        // Trails need the state on the CPU: read back, drawn from the world.
        let trails_on = RenderSettings {
            trails: 4,
            ..settings
        };
        s.scene(&mut scene, &trails_on, &mut trails);
        assert!(scene.gpu.is_none());
        assert_eq!(scene.boids.len(), 400);
        assert_eq!(with_world!(&s.world, w => w.step_index()), 4);
        let after: Vec<[f32; 3]> = with_world!(&s.world, w => {
            let mut by_id = vec![[0.0; 3]; 400];
            for (&id, p) in w.ids().iter().zip(w.positions()) {
                by_id[id as usize] = p.to_array3();
            }
            by_id
        });
        let moved = before.iter().zip(&after).filter(|(a, b)| a != b).count();
        assert_eq!(moved, 400, "every boid moved on the GPU");
        // Metrics are sampled every GPU_SAMPLE_EVERY stepped frames.
        let sampled = s.history[0].len();
        for _ in 0..GPU_SAMPLE_EVERY {
            s.step(1);
        }
        assert_eq!(s.history[0].len(), sampled + 1);
        // Adding boids reads back, edits the world and rebuilds the flock.
        s.set_count(0, 450).unwrap();
        s.step(2);
        s.scene(&mut scene, &settings, &mut trails);
        assert_eq!(scene.gpu.as_ref().unwrap().buffers.len, 450);
        // A parameter change is uploaded to the live flock.
        let p = SpeciesParams {
            max_speed: s.species()[0].max_speed * 0.5,
            ..s.species()[0]
        };
        s.set_species(0, p).unwrap();
        s.step(1);
        assert!(scene.gpu.is_some());
        // A dropped obstacle is a feature the GPU lacks: the CPU steps meanwhile.
        s.obstacle([10.0, 10.0, 0.0]).unwrap();
        let at = with_world!(&s.world, w => w.step_index());
        s.step(3);
        assert!(
            s.engine_label().starts_with("CPU for now"),
            "{}",
            s.engine_label()
        );
        assert_eq!(with_world!(&s.world, w => w.step_index()), at + 3);
        s.scene(&mut scene, &settings, &mut trails);
        assert!(scene.gpu.is_none() && scene.boids.len() == 450);
        // Reset removes the obstacle: back on the GPU.
        s.reset().unwrap();
        s.step(1);
        assert!(s.engine_label().starts_with("GPU "), "{}", s.engine_label());
    }

    #[test]
    fn a_ray_selects_the_boid_it_passes_nearest() {
        let mut s = sim("starlings-3d");
        let (id, p) =
            with_world!(&s.world, w => (w.ids()[17], V3::from(w.positions()[17].to_array3())));
        let origin = p + V3::new(-40.0, 25.0, 60.0);
        s.select_on_ray(origin, p - origin);
        assert_eq!(s.selected, Some(id));
        s.select_on_ray(origin, origin - p);
        assert_eq!(s.selected, None, "nothing behind the camera");
    }

    #[test]
    fn frames_step_in_real_time_at_the_chosen_speed() {
        let mut s = sim("default");
        s.frame(1.0 / 60.0);
        assert_eq!(with_world!(&s.world, w => w.step_index()), 1);
        s.speed = 4.0;
        s.frame(1.0 / 60.0);
        assert_eq!(with_world!(&s.world, w => w.step_index()), 5);
        s.paused = true;
        s.frame(1.0);
        assert_eq!(with_world!(&s.world, w => w.step_index()), 5);
    }
}

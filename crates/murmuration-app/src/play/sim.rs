//! The sandbox's simulation: a world of either dimension stepped in real time
//! (fixed steps, speed ×0.25–×4, pause, single step), metric history for the
//! plots, and the A/B parameter sets. The world itself is a [`Flock`], written
//! once for both dimensions and both engines.

use super::flock::{self, Flock};
use glam::Vec3 as V3;
use murmuration::SpeciesParams;
use murmuration::scenario::Scenario;
use murmuration_gpu::Gpu;
use murmuration_render::{RenderSettings, Scene, Trails};
use std::collections::VecDeque;

/// Metric samples kept for the plots (one per frame, about a minute).
pub const HISTORY: usize = 3600;

/// On the GPU, stepped frames between two metric samples (a read-back each).
pub const GPU_SAMPLE_EVERY: u32 = 6;

/// A scenario's world with the operations the sandbox needs.
pub struct Sim {
    /// The scenario it came from (reset rebuilds it).
    pub scenario: Scenario,
    /// The world, on the CPU or the GPU.
    pub flock: Box<dyn Flock>,
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
    /// Stepped frames since the last metric sample.
    since_sample: u32,
}

impl Sim {
    /// Builds the scenario's world, stepped on `gpu` (`None`: the CPU).
    pub fn new(scenario: Scenario, gpu: Option<Gpu>) -> anyhow::Result<Self> {
        let flock = flock::open(scenario.build()?, gpu);
        Ok(Self {
            scenario,
            flock,
            paused: false,
            speed: 1.0,
            carry: 0.0,
            history: Default::default(),
            step_ms: 0.0,
            saved: None,
            selected: None,
            since_sample: 0,
        })
    }

    /// Rebuilds the world from the scenario with the same seed, keeping the
    /// current species parameters and engine.
    pub fn reset(&mut self) -> anyhow::Result<()> {
        let params = self.species().to_vec();
        self.flock = flock::open(self.scenario.build()?, self.flock.gpu());
        for (i, p) in params.into_iter().enumerate() {
            self.flock.set_species(i, p).map_err(anyhow::Error::msg)?;
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
        self.carry += self.speed * dt_frame / self.flock.dt();
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
        let on_gpu = self.flock.step(n);
        self.step_ms = t.elapsed().as_secs_f32() * 1000.0 / n as f32;
        // On the GPU, metrics need a read-back: sample them less often.
        self.since_sample += 1;
        if on_gpu && self.since_sample < GPU_SAMPLE_EVERY {
            return;
        }
        self.since_sample = 0;
        let m = self.flock.metrics();
        for (h, v) in self.history.iter_mut().zip(m) {
            if h.len() == HISTORY {
                h.pop_front();
            }
            h.push_back(v);
        }
    }

    /// Species parameters.
    pub fn species(&self) -> &[SpeciesParams] {
        self.flock.species()
    }

    /// Boids of each species.
    pub fn counts(&self) -> Vec<u64> {
        self.flock.counts()
    }

    /// Sets one species' parameters (invalid sets are refused and reported).
    pub fn set_species(&mut self, i: usize, p: SpeciesParams) -> Result<(), String> {
        self.flock.set_species(i, p)
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
        if scene.looks != self.scenario.looks() {
            scene.looks = self.scenario.looks().to_vec();
        }
        if !self.flock.scene(scene, settings, trails, self.selected) {
            self.selected = None;
        }
    }

    /// Selects the boid nearest a world point (or clears the selection when the
    /// world is empty).
    pub fn select_near(&mut self, p: [f32; 3]) {
        let q = V3::from(p);
        self.selected = self
            .flock
            .boids()
            .into_iter()
            .map(|(id, x)| (id, (x - q).length_squared()))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(id, _)| id);
    }

    /// Selects the boid that appears nearest a ray (from the camera through the
    /// cursor): the smallest angle between the ray and the direction to the boid,
    /// among boids in front of the camera. For picking in 3D.
    pub fn select_on_ray(&mut self, origin: V3, dir: V3) {
        let dir = dir.normalize_or_zero();
        self.selected = self
            .flock
            .boids()
            .into_iter()
            .filter_map(|(id, x)| {
                let to = x - origin;
                let along = to.dot(dir);
                (along > 0.0).then(|| (id, (to - along * dir).length() / along))
            })
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(id, _)| id);
    }

    /// The selected boid taken apart, as text for the panel.
    pub fn selected_summary(&self) -> Option<String> {
        let id = self.selected?;
        let f = self.flock.forces(id)?;
        let [sep, ali, coh, bound, applied] = f.magnitudes;
        Some(format!(
            "boid {id} ({}): {} neighbours\nseparation {sep:.3}, alignment {ali:.3}, cohesion {coh:.3}, boundary {bound:.3}, applied {applied:.3}",
            self.scenario
                .species()
                .get(f.species)
                .map_or("?", |s| s.0.as_str()),
            f.neighbours,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sim(preset: &str) -> Sim {
        sim_on(preset, None)
    }

    fn sim_on(preset: &str, gpu: Option<Gpu>) -> Sim {
        let text = crate::presets::preset(preset).unwrap();
        let o: Vec<murmuration::scenario::Override> =
            vec!["species.people.count=50".parse().unwrap()];
        let s = if preset == "idle-crowd" {
            Scenario::parse_with(text, preset, &o).unwrap()
        } else {
            Scenario::parse(text, preset).unwrap()
        };
        Sim::new(s, gpu).unwrap()
    }

    #[test]
    fn mouse_tools_add_entities_to_the_world() {
        let mut s = sim("idle-crowd");
        let f = &mut s.flock;
        f.attract(V3::new(10.0, 10.0, 0.0)).unwrap();
        f.attract(V3::new(12.0, 10.0, 0.0)).unwrap();
        f.pulse(V3::new(20.0, 5.0, 0.0)).unwrap();
        f.obstacle(V3::new(5.0, 30.0, 0.0)).unwrap();
        let pts = [[1.0, 1.0, 0.0], [20.0, 2.0, 0.0], [30.0, 10.0, 0.0]].map(V3::from);
        f.path(&pts).unwrap();
        let e = s.flock.entities();
        assert_eq!(e.attractors.len(), 1, "one target follows the mouse");
        assert_eq!(e.attractors[0].x, 12.0);
        assert_eq!((e.pulses, e.obstacles, e.paths), (1, 2, 1));
        s.step(5);
        assert_eq!(s.history[0].len(), 1);
        // The target is where the mouse put it, with the core's radius.
        let (at, radius) = s.flock.target().unwrap();
        assert_eq!((at.x, at.y), (12.0, 10.0));
        assert!(radius > 0.0);
        // Esc's release (or a click on the target) takes it away, once.
        assert!(s.flock.release() && !s.flock.release());
        assert!(s.flock.target().is_none());
        assert!(s.flock.entities().attractors.is_empty());
    }

    #[test]
    fn counts_ab_and_reset() {
        let mut s = sim("idle-crowd");
        s.flock.set_count(0, 80).unwrap();
        assert_eq!(s.counts(), vec![80]);
        s.flock.set_count(0, 20).unwrap();
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
        s.flock.remove_boid(id).unwrap();
        s.scene(&mut scene, &settings, &mut trails);
        assert_eq!(s.selected, None, "a removed boid is deselected");
    }

    /// The default adapter (lavapipe here), or `None` (a skip, or a failure
    /// under `cargo xtask test`).
    fn gpu() -> Option<Gpu> {
        murmuration_gpu::testing::gpu()
    }

    #[test]
    fn on_the_gpu_frames_are_drawn_from_the_flock_buffers_and_edits_read_back() {
        let Some(gpu) = gpu() else { return };
        let mut s = sim_on("fish-school", Some(gpu));
        let mut before = s.flock.boids();
        s.step(4);
        assert!(
            s.flock.engine_label().starts_with("GPU "),
            "{}",
            s.flock.engine_label()
        );
        let settings = RenderSettings::default();
        let (mut scene, mut trails) = (Scene::new(), Trails::default());
        s.scene(&mut scene, &settings, &mut trails);
        let gpu = scene.gpu.as_ref().expect("drawn from the GPU buffers");
        assert_eq!(gpu.buffers.len, 400);
        assert!(scene.boids.is_empty(), "nothing uploaded from the CPU");
        // Steps ran on the GPU: the world lags until something reads it back.
        assert_eq!(s.flock.step_index(), 0);
        // Trails need the state on the CPU: read back, drawn from the world.
        let trails_on = RenderSettings {
            trails: 4,
            ..settings
        };
        s.scene(&mut scene, &trails_on, &mut trails);
        assert!(scene.gpu.is_none());
        assert_eq!(scene.boids.len(), 400);
        assert_eq!(s.flock.step_index(), 4);
        let mut after = s.flock.boids();
        before.sort_by_key(|b| b.0);
        after.sort_by_key(|b| b.0);
        let moved = before.iter().zip(&after).filter(|(a, b)| a != b).count();
        assert_eq!(moved, 400, "every boid moved on the GPU");
        // Metrics are sampled every GPU_SAMPLE_EVERY stepped frames.
        let sampled = s.history[0].len();
        for _ in 0..GPU_SAMPLE_EVERY {
            s.step(1);
        }
        assert_eq!(s.history[0].len(), sampled + 1);
        // Adding boids reads back, edits the world and rebuilds the flock.
        s.flock.set_count(0, 450).unwrap();
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
        // A dropped obstacle is uploaded with the world: still on the GPU.
        s.flock.obstacle(V3::new(10.0, 10.0, 0.0)).unwrap();
        s.flock.sync();
        let at = s.flock.step_index();
        s.step(3);
        assert!(
            s.flock.engine_label().starts_with("GPU "),
            "{}",
            s.flock.engine_label()
        );
        s.flock.sync();
        assert_eq!(s.flock.step_index(), at + 3);
        s.scene(&mut scene, &settings, &mut trails);
        assert!(scene.gpu.is_some());
        assert_eq!(scene.gpu.as_ref().unwrap().buffers.len, 450);
    }

    #[test]
    fn a_ray_selects_the_boid_it_passes_nearest() {
        let mut s = sim("starlings-3d");
        let (id, p) = s.flock.boids()[17];
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
        assert_eq!(s.flock.step_index(), 1);
        s.speed = 4.0;
        s.frame(1.0 / 60.0);
        assert_eq!(s.flock.step_index(), 5);
        s.paused = true;
        s.frame(1.0);
        assert_eq!(s.flock.step_index(), 5);
    }
}

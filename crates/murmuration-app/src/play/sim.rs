//! The sandbox's simulation: a world of either dimension stepped in real time
//! (fixed steps, speed ×0.25–×4, pause, single step), metric history for the
//! plots, and the A/B parameter sets.

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
        })
    }

    /// Rebuilds the world from the scenario with the same seed, keeping the
    /// current species parameters.
    pub fn reset(&mut self) -> anyhow::Result<()> {
        let params = self.species().to_vec();
        self.world = self.scenario.build()?;
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
        with_world!(&mut self.world, w => w.step_n(n));
        self.step_ms = t.elapsed().as_secs_f32() * 1000.0 / n as f32;
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
        with_world!(&mut self.world, w => w.set_species_params(i, p)).map_err(|e| e.to_string())
    }

    /// Adds or removes boids of a species to reach `target`.
    pub fn set_count(&mut self, species: usize, target: u64) -> Result<(), String> {
        let now = self.counts()[species];
        let max = self.species()[species].max_speed;
        if target > now {
            with_world!(&mut self.world, w => w.spawn(species, target - now, None, max).map(|_| ()))
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
            with_world!(&mut self.world, w => w.remove_boids(&ids)).map_err(|e| e.to_string())
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
    pub fn scene(&mut self, scene: &mut Scene, settings: &RenderSettings, trails: &mut Trails) {
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
        with_world!(&mut self.world, w => go(w, p))
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
        with_world!(&mut self.world, w => go(w, p))
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
        with_world!(&mut self.world, w => go(w, p))
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
        with_world!(&mut self.world, w => go(w, points))
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

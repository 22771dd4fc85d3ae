//! The sandbox's world of either dimension: every operation written once, over
//! [`Simulation<V>`] (a world stepped on the CPU or the GPU), behind the
//! object-safe [`Flock`] trait, so the sandbox's [`super::sim::Sim`] never
//! matches on the dimension. [`open`] is the one place that does.
//!
//! A GPU failure never loses an edit: it moves the flock to the CPU from the
//! state the world last held, and [`Flock::engine_label`] says so.

use murmuration::{Spawn, SpeciesId};

use glam::{Vec2, Vec3};
use murmuration::scenario::{AnyWorld, Look};
use murmuration::{Boundary, Obstacle, Path, SpeciesParams, World};
use murmuration_gpu::{Gpu, GpuError, GpuVector, Simulation};
use murmuration_render::{RenderSettings, Scene, Trails};

/// One boid's forces for the panel: magnitudes, units/s².
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Forces {
    /// Its species index.
    pub species: usize,
    /// Neighbours it reacts to.
    pub neighbours: u32,
    /// Separation, alignment, cohesion, boundary and the applied steering.
    pub magnitudes: [f32; 5],
}

/// Entities in the world: attractors, pulses, obstacles, paths.
#[derive(Clone, Debug, PartialEq)]
pub struct Entities {
    /// Where the attractors (targets) are (z = 0 in 2D).
    pub attractors: Vec<Vec3>,
    /// Live pulses.
    pub pulses: usize,
    /// Obstacles.
    pub obstacles: usize,
    /// Paths.
    pub paths: usize,
}

/// What the sandbox does with its world, for either dimension and engine.
/// Reads that need positions copy the GPU state back first.
pub trait Flock {
    /// Boids alive.
    fn len(&self) -> usize;
    /// The time step, s.
    fn dt(&self) -> f32;
    /// Steps the world holds (it lags while the GPU is ahead; see [`Flock::sync`]).
    fn step_index(&self) -> u64;
    /// Steps `n` steps and waits for them (so the panel's step time is the
    /// engine's); true when they ran on the GPU.
    fn step(&mut self, n: u64) -> bool;
    /// Brings the world up to date with the GPU flock (a read-back).
    fn sync(&mut self);
    /// Polarization, milling, mean nearest-neighbour distance, mean speed.
    fn metrics(&mut self) -> [f32; 4];
    /// Species parameters.
    fn species(&self) -> &[SpeciesParams];
    /// Boids of each species.
    fn counts(&self) -> Vec<u64>;
    /// Sets one species' parameters (an invalid set is refused, with the reason).
    fn set_species(&mut self, i: usize, p: SpeciesParams) -> Result<(), String>;
    /// Adds boids at random places (at max speed) or removes the newest to
    /// reach `target` boids of `species`.
    fn set_count(&mut self, species: usize, target: u64) -> Result<(), String>;
    /// The boundary and the box's smaller side (units).
    fn boundary(&self) -> (Boundary, f32);
    /// Changes the boundary.
    fn set_boundary(&mut self, b: Boundary) -> Result<(), String>;
    /// Updates `scene` (from the GPU's buffers when nothing needs the CPU's
    /// state) and draws `selected`'s debug overlay; false when no such boid.
    fn scene(
        &mut self,
        scene: &mut Scene,
        settings: &RenderSettings,
        trails: &mut Trails,
        selected: Option<u32>,
    ) -> bool;
    /// Every boid's id and position (in 3D; z = 0 in 2D), read back first.
    fn boids(&mut self) -> Vec<(u32, Vec3)>;
    /// Boid `id`'s forces, if it exists (as of the world's last sync).
    fn forces(&self, id: u32) -> Option<Forces>;
    /// Entities in the world.
    fn entities(&self) -> Entities;
    /// Moves the one mouse attractor to `p` (adding it the first time).
    fn attract(&mut self, p: Vec3) -> Result<(), String>;
    /// Takes the mouse target away (the flock goes free); true when there was one.
    fn release(&mut self) -> bool;
    /// The mouse target: where it is and its radius (z = 0 in 2D).
    fn target(&self) -> Option<(Vec3, f32)>;
    /// Fires a pulse at `p`.
    fn pulse(&mut self, p: Vec3) -> Result<(), String>;
    /// Drops a round obstacle at `p`.
    fn obstacle(&mut self, p: Vec3) -> Result<(), String>;
    /// Adds a 20 s path through `points`.
    fn path(&mut self, points: &[Vec3]) -> Result<(), String>;
    /// Removes boid `id`.
    fn remove_boid(&mut self, id: u32) -> Result<(), String>;
    /// The world as a scenario file.
    fn to_toml(
        &mut self,
        names: &[String],
        looks: &[Look],
        name: &str,
        description: &str,
    ) -> String;
    /// Which engine steps the flock, and why the CPU when a GPU is open.
    fn engine_label(&self) -> String;
    /// The open GPU, if the flock runs on one.
    fn gpu(&self) -> Option<Gpu>;
    /// Moves the flock to `gpu` (`None`: the CPU).
    fn set_gpu(&mut self, gpu: Option<Gpu>);
}

/// Wraps a scenario's world (this is where the dimension is chosen, once).
pub fn open(world: AnyWorld, gpu: Option<Gpu>) -> Box<dyn Flock> {
    fn boxed<V: GpuVector>(world: World<V>, gpu: Option<Gpu>) -> Box<dyn Flock> {
        let mut sim = Simulation::with_gpu(world, None, None).expect("the CPU takes any world");
        Flock::set_gpu(&mut sim, gpu);
        Box::new(sim)
    }
    match world {
        AnyWorld::D2(w) => boxed::<Vec2>(w, gpu),
        AnyWorld::D3(w) => boxed::<Vec3>(w, gpu),
    }
}

/// Reports a device error by going on on the CPU (see [`Simulation::lose_gpu`]).
fn or_cpu<V: GpuVector, T>(sim: &mut Simulation<V>, r: Result<T, GpuError>) -> Option<T> {
    match r {
        Ok(t) => Some(t),
        Err(e) => {
            sim.lose_gpu(format!("GPU failed, stepping on the CPU: {e}"));
            None
        }
    }
}

/// The world for a change of boids or entities (read back first, and the GPU
/// flock rebuilt before the next step).
fn edit<V: GpuVector>(sim: &mut Simulation<V>) -> &mut World<V> {
    Flock::sync(sim);
    sim.world_mut()
        .expect("synced (or moved to the CPU): no read-back left to fail")
}

/// A parameter or configuration change through `f`, uploaded to a live flock.
fn tune<V: GpuVector, R>(
    sim: &mut Simulation<V>,
    f: impl FnOnce(&mut World<V>) -> R,
) -> Result<R, String> {
    // Read back first, so a failing device is dropped before `f` runs.
    Flock::sync(sim);
    let mut out = None;
    let r = sim.tune(|w| out = Some(f(w)));
    or_cpu(sim, r);
    out.ok_or_else(|| "the GPU failed before the change was made".to_string())
}

/// The smaller side of the world's box, for sizing mouse tools.
fn extent<V: GpuVector>(w: &World<V>) -> f32 {
    w.pointer_scale()
}

impl<V: GpuVector> Flock for Simulation<V> {
    fn len(&self) -> usize {
        self.world_unsynced().len()
    }

    fn dt(&self) -> f32 {
        self.world_unsynced().config().dt
    }

    fn step_index(&self) -> u64 {
        self.world_unsynced().step_index()
    }

    fn step(&mut self, n: u64) -> bool {
        let r = self.step_n(n);
        match or_cpu(self, r) {
            Some(true) => {
                let waited = self.gpu().map_or(Ok(()), Gpu::wait_idle);
                or_cpu(self, waited).is_some()
            }
            Some(false) => false,
            // The device failed: these steps run on the CPU instead.
            None => {
                let r = self.step_n(n);
                or_cpu(self, r);
                false
            }
        }
    }

    fn sync(&mut self) {
        let r = Simulation::sync(self);
        or_cpu(self, r);
    }

    fn metrics(&mut self) -> [f32; 4] {
        Flock::sync(self);
        let m = self.world_unsynced().metrics();
        [m.polarization, m.milling, m.mean_nn_distance, m.mean_speed].map(|x| x as f32)
    }

    fn species(&self) -> &[SpeciesParams] {
        self.world_unsynced().species()
    }

    fn counts(&self) -> Vec<u64> {
        let w = self.world_unsynced();
        let mut c = vec![0u64; w.species().len()];
        for &s in w.boid_species() {
            c[s as usize] += 1;
        }
        c
    }

    fn set_species(&mut self, i: usize, p: SpeciesParams) -> Result<(), String> {
        tune(self, |w| w.set_species_params(SpeciesId::new(i), p))?.map_err(|e| e.to_string())
    }

    fn set_count(&mut self, species: usize, target: u64) -> Result<(), String> {
        let now = *self.counts().get(species).ok_or("no such species")?;
        let max = self.species()[species].max_speed;
        if target > now {
            edit(self)
                .spawn(Spawn::new(SpeciesId::new(species), target - now).speed(max))
                .map(|_| ())
                .map_err(|e| e.to_string())
        } else if target < now {
            let w = self.world_unsynced();
            let ids: Vec<u32> = w
                .ids()
                .iter()
                .zip(w.boid_species())
                .filter(|(_, s)| **s as usize == species)
                .map(|(id, _)| *id)
                .rev()
                .take((now - target) as usize)
                .collect();
            edit(self).remove_boids(&ids).map_err(|e| e.to_string())
        } else {
            Ok(())
        }
    }

    fn boundary(&self) -> (Boundary, f32) {
        let w = self.world_unsynced();
        (w.config().boundary, extent(w))
    }

    fn set_boundary(&mut self, b: Boundary) -> Result<(), String> {
        tune(self, |w| {
            let mut c = *w.config();
            c.boundary = b;
            w.set_config(c)
        })?
        .map_err(|e| e.to_string())
    }

    fn scene(
        &mut self,
        scene: &mut Scene,
        settings: &RenderSettings,
        trails: &mut Trails,
        selected: Option<u32>,
    ) -> bool {
        if selected.is_none()
            && !settings.needs_cpu_state()
            && let Some(flock) = self.flock()
        {
            scene.update_from_gpu(self.world_unsynced(), flock.boid_buffers(), settings);
            return true;
        }
        Flock::sync(self);
        let w = self.world_unsynced();
        scene.update(w, settings, trails);
        let Some(id) = selected else { return true };
        match w.inspect(id) {
            Some(ins) => {
                let p = &w.species()[ins.species];
                murmuration_render::inspection(&ins, p, &mut scene.lines);
                true
            }
            None => false,
        }
    }

    fn boids(&mut self) -> Vec<(u32, Vec3)> {
        Flock::sync(self);
        let w = self.world_unsynced();
        let at = |x: &V| Vec3::from(x.to_array3());
        w.ids()
            .iter()
            .copied()
            .zip(w.positions().iter().map(at))
            .collect()
    }

    fn forces(&self, id: u32) -> Option<Forces> {
        let i = self.world_unsynced().inspect(id)?;
        let m = |v: V| Vec3::from(v.to_array3()).length();
        Some(Forces {
            species: i.species,
            neighbours: i.neighbours,
            magnitudes: [
                m(i.separation),
                m(i.alignment),
                m(i.cohesion),
                m(i.boundary),
                m(i.steering),
            ],
        })
    }

    fn entities(&self) -> Entities {
        let w = self.world_unsynced();
        Entities {
            attractors: w
                .attractors()
                .iter()
                .map(|a| Vec3::from(a.position.to_array3()))
                .collect(),
            pulses: w.pulses().len(),
            obstacles: w.obstacles().len(),
            paths: w.paths().len(),
        }
    }

    fn attract(&mut self, p: Vec3) -> Result<(), String> {
        edit(self)
            .set_pointer_target(V::from_array3(p.into()))
            .map_err(|e| e.to_string())
    }

    fn release(&mut self) -> bool {
        edit(self).clear_pointer_target()
    }

    fn target(&self) -> Option<(Vec3, f32)> {
        self.world_unsynced()
            .pointer_target()
            .map(|(p, r)| (Vec3::from(p.to_array3()), r))
    }

    fn pulse(&mut self, p: Vec3) -> Result<(), String> {
        edit(self)
            .fire_pointer_pulse(V::from_array3(p.into()))
            .map_err(|e| e.to_string())
    }

    fn obstacle(&mut self, p: Vec3) -> Result<(), String> {
        let w = edit(self);
        let o = Obstacle::Sphere {
            center: V::from_array3(p.into()),
            radius: 0.04 * extent(w),
        };
        w.add_obstacle(o).map(|_| ()).map_err(|e| e.to_string())
    }

    fn path(&mut self, points: &[Vec3]) -> Result<(), String> {
        let w = edit(self);
        let pts = points.iter().map(|&q| V::from_array3(q.into())).collect();
        let mut path = Path::new(pts, 0.06 * extent(w), 2.0);
        path.lifetime = 20.0;
        w.add_path(path).map(|_| ()).map_err(|e| e.to_string())
    }

    fn remove_boid(&mut self, id: u32) -> Result<(), String> {
        edit(self).remove_boid(id).map_err(|e| e.to_string())
    }

    fn to_toml(
        &mut self,
        names: &[String],
        looks: &[Look],
        name: &str,
        description: &str,
    ) -> String {
        Flock::sync(self);
        murmuration::scenario::to_toml(self.world_unsynced(), names, looks, name, description)
    }

    fn engine_label(&self) -> String {
        match (Simulation::gpu(self), self.fallback()) {
            (Some(_), Some(why)) => format!("CPU for now: {why}"),
            (Some(g), None) => format!("GPU {}, drawn from its buffers", g.name()),
            (None, Some(err)) => err.to_string(),
            (None, None) => "CPU".to_string(),
        }
    }

    fn gpu(&self) -> Option<Gpu> {
        Simulation::gpu(self).cloned()
    }

    fn set_gpu(&mut self, gpu: Option<Gpu>) {
        let r = Simulation::set_gpu(self, gpu);
        or_cpu(self, r);
    }
}

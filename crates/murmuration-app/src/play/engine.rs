//! The sandbox's GPU engine (`play --backend gpu|auto`): the GPU crate's
//! [`GpuStepper`] for the dimension of the sandbox's world, on the window's own
//! device, so the renderer draws the flock from its buffers. The world is read
//! back only when something needs it: the metric plots (every
//! [`GPU_SAMPLE_EVERY`] stepped frames), edits, a selected boid, trails, saving.

use glam::{Vec2, Vec3};
use murmuration::scenario::AnyWorld;
use murmuration_gpu::{BoidBuffers, Gpu, GpuError, GpuStepper};

/// On the GPU, stepped frames between two metric samples (a read-back each).
pub const GPU_SAMPLE_EVERY: u32 = 6;

/// A stepper of either dimension.
enum AnyStepper {
    D2(GpuStepper<Vec2>),
    D3(GpuStepper<Vec3>),
}

/// The sandbox's world on the GPU: a [`GpuStepper`] made for the world's
/// dimension (again when a preset of the other dimension is loaded).
pub struct GpuEngine {
    stepper: AnyStepper,
}

impl GpuEngine {
    /// An engine on `gpu` (the window's device).
    pub fn new(gpu: Gpu) -> Self {
        Self {
            stepper: AnyStepper::D2(GpuStepper::new(gpu)),
        }
    }

    /// The adapter's name.
    pub fn name(&self) -> String {
        self.gpu().name()
    }

    fn gpu(&self) -> &Gpu {
        match &self.stepper {
            AnyStepper::D2(s) => s.gpu(),
            AnyStepper::D3(s) => s.gpu(),
        }
    }

    /// Why the last steps ran on the CPU (a feature the GPU backend lacks).
    pub fn cpu_reason(&self) -> Option<&str> {
        match &self.stepper {
            AnyStepper::D2(s) => s.cpu_reason(),
            AnyStepper::D3(s) => s.cpu_reason(),
        }
    }

    /// Steps `world` `n` steps and waits for them (so the panel's step time is
    /// the GPU's): `Ok(true)` on the GPU, `Ok(false)` on the CPU because the
    /// world uses a feature the GPU backend lacks ([`GpuEngine::cpu_reason`]).
    pub fn step(&mut self, world: &mut AnyWorld, n: u64) -> Result<bool, GpuError> {
        let gpu = self.gpu().clone();
        let on_gpu = match (&mut self.stepper, world) {
            (AnyStepper::D2(s), AnyWorld::D2(w)) => s.step(w, n)?,
            (AnyStepper::D3(s), AnyWorld::D3(w)) => s.step(w, n)?,
            // A preset of the other dimension was loaded: a stepper for it (the
            // old one's state belonged to the old world).
            (stepper, AnyWorld::D2(w)) => {
                let mut s = GpuStepper::new(gpu.clone());
                let on = s.step(w, n)?;
                *stepper = AnyStepper::D2(s);
                on
            }
            (stepper, AnyWorld::D3(w)) => {
                let mut s = GpuStepper::new(gpu.clone());
                let on = s.step(w, n)?;
                *stepper = AnyStepper::D3(s);
                on
            }
        };
        if on_gpu {
            gpu.wait_idle()?;
        }
        Ok(on_gpu)
    }

    /// Copies the GPU state into `world` when the flock is ahead of it.
    pub fn sync(&mut self, world: &mut AnyWorld) -> Result<(), GpuError> {
        match (&mut self.stepper, world) {
            (AnyStepper::D2(s), AnyWorld::D2(w)) => s.sync(w),
            (AnyStepper::D3(s), AnyWorld::D3(w)) => s.sync(w),
            _ => Ok(()),
        }
    }

    /// Forgets the flock after the world's boids or entities changed (call
    /// [`GpuEngine::sync`] before the change): it is rebuilt before the next step.
    pub fn invalidate(&mut self) {
        match &mut self.stepper {
            AnyStepper::D2(s) => s.invalidate(),
            AnyStepper::D3(s) => s.invalidate(),
        }
    }

    /// Uploads changed parameters or configuration; rebuilds the flock when the
    /// change needs it (a different grid, say).
    pub fn params_changed(&mut self, world: &mut AnyWorld) -> Result<(), GpuError> {
        match (&mut self.stepper, world) {
            (AnyStepper::D2(s), AnyWorld::D2(w)) => s.params_changed(w),
            (AnyStepper::D3(s), AnyWorld::D3(w)) => s.params_changed(w),
            _ => Ok(()),
        }
    }

    /// The flock's live buffers, when it holds the current state.
    pub fn boid_buffers(&self) -> Option<BoidBuffers> {
        match &self.stepper {
            AnyStepper::D2(s) => s.flock().map(|f| f.boid_buffers()),
            AnyStepper::D3(s) => s.flock().map(|f| f.boid_buffers()),
        }
    }
}

//! The sandbox's GPU engine (`play --backend gpu|auto`): the flock steps on the
//! window's own device and the renderer draws it from the flock's buffers. The
//! world is read back only when something needs it: the metric plots (every
//! [`GPU_SAMPLE_EVERY`] stepped frames), edits, a selected boid, trails, saving.

use glam::{Vec2, Vec3};
use murmuration::scenario::AnyWorld;
use murmuration_gpu::{BoidBuffers, Gpu, GpuError, GpuFlock};

/// On the GPU, stepped frames between two metric samples (a read-back each).
pub const GPU_SAMPLE_EVERY: u32 = 6;

/// A GPU flock of either dimension.
enum AnyFlock {
    D2(GpuFlock<Vec2>),
    D3(GpuFlock<Vec3>),
}

/// The flock on the GPU, built from the sandbox's world and rebuilt after edits.
pub struct GpuEngine {
    gpu: Gpu,
    flock: Option<AnyFlock>,
    /// The flock holds newer state than the world.
    ahead: bool,
    /// Why the last steps ran on the CPU (a feature the GPU backend lacks).
    pub cpu_reason: Option<String>,
}

impl GpuEngine {
    /// An engine on `gpu` (the window's device); the flock is built at the first step.
    pub fn new(gpu: Gpu) -> Self {
        Self {
            gpu,
            flock: None,
            ahead: false,
            cpu_reason: None,
        }
    }

    /// The adapter's name.
    pub fn name(&self) -> String {
        self.gpu.name()
    }

    /// Steps `n` steps on the GPU and waits for them (so the panel's step time
    /// is the GPU's). `Ok(false)`: the world uses a feature the GPU backend lacks
    /// (an obstacle or attractor the mouse dropped, say) and nothing was stepped;
    /// the caller steps the CPU world, which is then current.
    pub fn step(&mut self, world: &mut AnyWorld, n: u64) -> Result<bool, GpuError> {
        let supported = match &*world {
            AnyWorld::D2(w) => GpuFlock::check_supported(w),
            AnyWorld::D3(w) => GpuFlock::check_supported(w),
        };
        if let Err(e) = supported {
            self.sync(world)?;
            self.flock = None;
            self.cpu_reason = Some(e.to_string());
            return Ok(false);
        }
        self.cpu_reason = None;
        if self.flock.is_none() {
            self.flock = Some(match &*world {
                AnyWorld::D2(w) => AnyFlock::D2(GpuFlock::new(&self.gpu, w)?),
                AnyWorld::D3(w) => AnyFlock::D3(GpuFlock::new(&self.gpu, w)?),
            });
        }
        match &mut self.flock {
            Some(AnyFlock::D2(f)) => f.step_n(n)?,
            Some(AnyFlock::D3(f)) => f.step_n(n)?,
            None => {}
        }
        self.ahead = true;
        self.gpu.wait_idle()?;
        Ok(true)
    }

    /// Copies the GPU state into `world` when the flock is ahead of it.
    pub fn sync(&mut self, world: &mut AnyWorld) -> Result<(), GpuError> {
        if self.ahead {
            match (&self.flock, world) {
                (Some(AnyFlock::D2(f)), AnyWorld::D2(w)) => f.read_into(w)?,
                (Some(AnyFlock::D3(f)), AnyWorld::D3(w)) => f.read_into(w)?,
                _ => {}
            }
            self.ahead = false;
        }
        Ok(())
    }

    /// Forgets the flock after the world's boids or entities changed (call
    /// [`GpuEngine::sync`] before the change): it is rebuilt before the next step.
    pub fn invalidate(&mut self) {
        self.flock = None;
        self.ahead = false;
    }

    /// Uploads changed parameters or configuration; rebuilds the flock when the
    /// change needs it (a different grid, say).
    pub fn params_changed(&mut self, world: &mut AnyWorld) -> Result<(), GpuError> {
        let updated = match (&mut self.flock, &*world) {
            (Some(AnyFlock::D2(f)), AnyWorld::D2(w)) => f.update_params(w).is_ok(),
            (Some(AnyFlock::D3(f)), AnyWorld::D3(w)) => f.update_params(w).is_ok(),
            _ => false,
        };
        if !updated {
            self.sync(world)?;
            self.invalidate();
        }
        Ok(())
    }

    /// The flock's live buffers, when it holds the current state.
    pub fn boid_buffers(&self) -> Option<BoidBuffers> {
        match &self.flock {
            Some(AnyFlock::D2(f)) => Some(f.boid_buffers()),
            Some(AnyFlock::D3(f)) => Some(f.boid_buffers()),
            None => None,
        }
    }
}

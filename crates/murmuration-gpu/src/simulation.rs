//! [`Simulation`]: one world stepped on the CPU or the GPU, chosen at run time.

use crate::device::Gpu;
use crate::dims::GpuVector;
use crate::error::GpuError;
use crate::flock::GpuFlock;
use murmuration::World;

/// Which engine steps the flock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Backend {
    /// The CPU engine (rayon, SIMD): bit-identical on any thread count.
    #[default]
    Cpu,
    /// The GPU engine; an error when no adapter opens.
    Gpu,
    /// The GPU when an adapter opens, else the CPU ([`Simulation::fallback`] says why).
    Auto,
}

/// A [`World`] and, on the GPU backend, its [`GpuFlock`]. The world is the source
/// of truth between steps: reading it copies the GPU state back first, and changing
/// it re-uploads before the next step.
pub struct Simulation<V: GpuVector> {
    world: World<V>,
    gpu: Option<Gpu>,
    flock: Option<GpuFlock<V>>,
    /// The GPU holds newer state than `world`.
    world_stale: bool,
    /// `world` changed since the upload.
    flock_stale: bool,
    fallback: Option<String>,
}

impl<V: GpuVector> Simulation<V> {
    /// Wraps `world` on `backend`. `Auto` never fails for want of a GPU.
    pub fn new(world: World<V>, backend: Backend) -> Result<Self, GpuError> {
        let (gpu, fallback) = match backend {
            Backend::Cpu => (None, None),
            Backend::Gpu => (Some(Gpu::new()?), None),
            Backend::Auto => match Gpu::new() {
                Ok(g) => (Some(g), None),
                Err(e) => (None, Some(e.to_string())),
            },
        };
        Self::with_gpu(world, gpu, fallback)
    }

    /// Wraps `world` on an already open GPU (`None`: the CPU).
    pub fn with_gpu(
        world: World<V>,
        gpu: Option<Gpu>,
        fallback: Option<String>,
    ) -> Result<Self, GpuError> {
        let flock = gpu.as_ref().map(|g| GpuFlock::new(g, &world)).transpose()?;
        Ok(Self {
            world,
            gpu,
            flock,
            world_stale: false,
            flock_stale: false,
            fallback,
        })
    }

    /// `cpu`, or the GPU adapter's name.
    pub fn engine(&self) -> String {
        self.gpu
            .as_ref()
            .map_or_else(|| "cpu".to_string(), Gpu::name)
    }

    /// Why [`Backend::Auto`] fell back to the CPU, if it did.
    pub fn fallback(&self) -> Option<&str> {
        self.fallback.as_deref()
    }

    /// True when the GPU steps the flock.
    pub fn on_gpu(&self) -> bool {
        self.gpu.is_some()
    }

    /// Advances `steps` steps.
    pub fn step_n(&mut self, steps: u64) -> Result<(), GpuError> {
        match &self.gpu {
            None => {
                self.world.step_n(steps);
                Ok(())
            }
            Some(g) => {
                if self.flock_stale || self.flock.is_none() {
                    self.flock = Some(GpuFlock::new(g, &self.world)?);
                    self.flock_stale = false;
                }
                if let Some(f) = &mut self.flock {
                    f.step_n(steps)?;
                }
                self.world_stale = true;
                Ok(())
            }
        }
    }

    fn sync(&mut self) -> Result<(), GpuError> {
        if self.world_stale {
            if let Some(f) = &self.flock {
                f.read_into(&mut self.world)?;
            }
            self.world_stale = false;
        }
        Ok(())
    }

    /// The GPU flock when it holds the current state (the GPU backend with no
    /// change waiting to be uploaded): a renderer can draw its buffers directly.
    pub fn flock(&self) -> Option<&GpuFlock<V>> {
        if self.flock_stale {
            None
        } else {
            self.flock.as_ref()
        }
    }

    /// The open GPU, on the GPU backend.
    pub fn gpu(&self) -> Option<&Gpu> {
        self.gpu.as_ref()
    }

    /// The world without copying the GPU state back: parameters, entities and the
    /// boid list are current; positions and velocities are as of the last read-back.
    pub fn world_unsynced(&self) -> &World<V> {
        &self.world
    }

    /// The world, with the GPU state copied back first when needed.
    pub fn world(&mut self) -> Result<&World<V>, GpuError> {
        self.sync()?;
        Ok(&self.world)
    }

    /// The world for changes (add or remove boids, set parameters); the GPU copy is
    /// rebuilt before the next step.
    pub fn world_mut(&mut self) -> Result<&mut World<V>, GpuError> {
        self.sync()?;
        self.flock_stale = true;
        Ok(&mut self.world)
    }

    /// The world, up to date.
    pub fn into_world(mut self) -> Result<World<V>, GpuError> {
        self.sync()?;
        Ok(self.world)
    }
}

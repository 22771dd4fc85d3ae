//! [`Simulation`]: one world stepped on the CPU or the GPU, chosen at run time.

use crate::device::Gpu;
use crate::dims::GpuVector;
use crate::error::GpuError;
use crate::flock::GpuFlock;
use murmuration::World;

/// Which engine steps the flock (`cpu`, `gpu` or `auto` on a command line and
/// in JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// The CPU engine (rayon, SIMD): bit-identical on any thread count.
    #[default]
    Cpu,
    /// The GPU engine; an error when no adapter opens.
    Gpu,
    /// The GPU when an adapter opens, else the CPU ([`Simulation::fallback`] says why).
    Auto,
}

impl Backend {
    /// Opens what this backend asks for: the GPU, or `None` for the CPU, with the
    /// reason when [`Backend::Auto`] chose the CPU (no adapter opened).
    pub fn open(self) -> Result<(Option<Gpu>, Option<String>), GpuError> {
        match self {
            Backend::Cpu => Ok((None, None)),
            Backend::Gpu => Ok((Some(Gpu::new()?), None)),
            Backend::Auto => match Gpu::new() {
                Ok(g) => Ok((Some(g), None)),
                Err(e) => Ok((None, Some(format!("the GPU is unavailable ({e})")))),
            },
        }
    }

    /// [`Backend::open`] for `world`: with `Auto`, also the CPU when the world
    /// uses a feature the GPU backend lacks (the reason says which).
    pub fn open_for<V: GpuVector>(
        self,
        world: &World<V>,
    ) -> Result<(Option<Gpu>, Option<String>), GpuError> {
        let (gpu, why) = self.open()?;
        if self == Backend::Auto
            && gpu.is_some()
            && let Err(e @ GpuError::Unsupported(_)) = GpuFlock::check_supported(world)
        {
            return Ok((None, Some(e.to_string())));
        }
        Ok((gpu, why))
    }
}

impl std::str::FromStr for Backend {
    type Err = String;

    /// `cpu`, `gpu` or `auto` (what `--backend` takes).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "cpu" => Ok(Backend::Cpu),
            "gpu" => Ok(Backend::Gpu),
            "auto" => Ok(Backend::Auto),
            _ => Err(format!("{s:?} is not a backend: use cpu, gpu or auto")),
        }
    }
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Backend::Cpu => "cpu",
            Backend::Gpu => "gpu",
            Backend::Auto => "auto",
        })
    }
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
    /// Wraps `world` on `backend` ([`Backend::open_for`]). `Auto` never fails for
    /// want of a GPU or of a feature; [`Simulation::fallback`] says why it chose the CPU.
    pub fn new(world: World<V>, backend: Backend) -> Result<Self, GpuError> {
        let (gpu, fallback) = backend.open_for(&world)?;
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

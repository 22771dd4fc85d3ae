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

/// A world's flock on the GPU, kept in step with a [`World`] its caller owns: the
/// one place that knows when the GPU copy is ahead of the world (read it back), when
/// the world changed (rebuild or re-upload), and when the world uses a feature the
/// GPU backend lacks (step the world on the CPU meanwhile, and say why).
/// [`Simulation`] wraps it with a world it owns.
struct GpuStepper<V: GpuVector> {
    gpu: Gpu,
    flock: Option<GpuFlock<V>>,
    /// The flock holds newer state than the world.
    ahead: bool,
    /// Why the last steps ran on the CPU.
    cpu_reason: Option<String>,
}

impl<V: GpuVector> GpuStepper<V> {
    /// A stepper on `gpu`; the flock is built at the first step.
    pub fn new(gpu: Gpu) -> Self {
        Self {
            gpu,
            flock: None,
            ahead: false,
            cpu_reason: None,
        }
    }

    /// The device.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// Why the last steps ran on the CPU (a feature the GPU backend lacks), if they did.
    pub fn cpu_reason(&self) -> Option<&str> {
        self.cpu_reason.as_deref()
    }

    /// Advances `world` by `steps`: on the GPU when it can (`Ok(true)`, the world
    /// then lags until [`GpuStepper::sync`]), else on the CPU (`Ok(false)`, the
    /// reason kept in [`GpuStepper::cpu_reason`]).
    pub fn step(&mut self, world: &mut World<V>, steps: u64) -> Result<bool, GpuError> {
        if let Err(e) = GpuFlock::check_supported(world) {
            self.sync(world)?;
            self.flock = None;
            self.cpu_reason = Some(e.to_string());
            world.step_n(steps);
            return Ok(false);
        }
        self.cpu_reason = None;
        if self.flock.is_none() {
            self.flock = Some(GpuFlock::new(&self.gpu, world)?);
        }
        if let Some(f) = &mut self.flock {
            f.step_n(steps)?;
        }
        // The entities' clock runs on the host either way: advance the world's
        // now, so what is drawn from it (pulses, moving attractors) stays current.
        world.advance_entities(steps);
        self.ahead = true;
        Ok(true)
    }

    /// Copies the GPU state into `world` when the flock is ahead of it.
    pub fn sync(&mut self, world: &mut World<V>) -> Result<(), GpuError> {
        if self.ahead {
            if let Some(f) = &self.flock {
                f.read_motion_into(world)?;
            }
            self.ahead = false;
        }
        Ok(())
    }

    /// Forgets the flock after the world's boids or entities changed (call
    /// [`GpuStepper::sync`] before the change): it is rebuilt at the next step.
    pub fn invalidate(&mut self) {
        self.flock = None;
        self.ahead = false;
    }

    /// Uploads changed parameters or configuration of `world`; rebuilds the flock
    /// at the next step when the change needs it (a different grid, say).
    pub fn params_changed(&mut self, world: &mut World<V>) -> Result<(), GpuError> {
        let updated = match &mut self.flock {
            Some(f) => f.update_params(world).is_ok(),
            None => false,
        };
        if !updated {
            self.sync(world)?;
            self.invalidate();
        }
        Ok(())
    }

    /// The flock, when it holds the current state: a renderer can draw its buffers.
    pub fn flock(&self) -> Option<&GpuFlock<V>> {
        self.flock.as_ref()
    }
}

/// A [`World`] and, on the GPU backend, its GPU flock (`GpuStepper`). The world is the source
/// of truth between steps: reading it copies the GPU state back first, and changing
/// it rebuilds the GPU copy before the next step.
pub struct Simulation<V: GpuVector> {
    world: World<V>,
    stepper: Option<GpuStepper<V>>,
    fallback: Option<String>,
}

impl<V: GpuVector> Simulation<V> {
    /// Wraps `world` on `backend` ([`Backend::open_for`]). `Auto` never fails for
    /// want of a GPU or of a feature; [`Simulation::fallback`] says why it chose the CPU.
    pub fn new(world: World<V>, backend: Backend) -> Result<Self, GpuError> {
        let (gpu, fallback) = backend.open_for(&world)?;
        Self::with_gpu(world, gpu, fallback)
    }

    /// Wraps `world` on an already open GPU (`None`: the CPU). On the GPU the flock
    /// is built now, so a world the GPU cannot run is an error here.
    pub fn with_gpu(
        world: World<V>,
        gpu: Option<Gpu>,
        fallback: Option<String>,
    ) -> Result<Self, GpuError> {
        let stepper = gpu.map(GpuStepper::new);
        if stepper.is_some() {
            GpuFlock::check_supported(&world)?;
        }
        Ok(Self {
            world,
            stepper,
            fallback,
        })
    }

    /// Moves the simulation to `gpu` (`None`: the CPU), keeping the world's
    /// current state. Unlike [`Simulation::with_gpu`] this never refuses a world:
    /// while it uses a feature the GPU backend lacks, steps run on the CPU and
    /// [`Simulation::fallback`] says why (an interactive sandbox wants that).
    pub fn set_gpu(&mut self, gpu: Option<Gpu>) -> Result<(), GpuError> {
        self.sync()?;
        self.stepper = gpu.map(GpuStepper::new);
        self.fallback = None;
        Ok(())
    }

    /// Goes on on the CPU after a device error, from the state the world last
    /// held (newer GPU state is lost with the device); `why` becomes the
    /// [`Simulation::fallback`].
    pub fn lose_gpu(&mut self, why: String) {
        self.stepper = None;
        self.fallback = Some(why);
    }

    /// `cpu`, or the GPU adapter's name.
    pub fn engine(&self) -> String {
        self.stepper
            .as_ref()
            .map_or_else(|| "cpu".to_string(), |s| s.gpu().name())
    }

    /// Why [`Backend::Auto`] fell back to the CPU, or why the last steps ran on the
    /// CPU although a GPU is open (a feature it lacks), if either.
    pub fn fallback(&self) -> Option<&str> {
        self.fallback
            .as_deref()
            .or_else(|| self.stepper.as_ref().and_then(GpuStepper::cpu_reason))
    }

    /// True when a GPU steps the flock.
    pub fn on_gpu(&self) -> bool {
        self.stepper.is_some()
    }

    /// Advances `steps` steps: `Ok(true)` when they ran on the GPU (queued, not
    /// waited for), `Ok(false)` on the CPU.
    pub fn step_n(&mut self, steps: u64) -> Result<bool, GpuError> {
        match &mut self.stepper {
            None => {
                self.world.step_n(steps);
                Ok(false)
            }
            Some(s) => s.step(&mut self.world, steps),
        }
    }

    /// Copies the GPU state back into the world when it is ahead.
    pub fn sync(&mut self) -> Result<(), GpuError> {
        match &mut self.stepper {
            Some(s) => s.sync(&mut self.world),
            None => Ok(()),
        }
    }

    /// The GPU flock when it holds the current state: a renderer can draw its
    /// buffers directly.
    pub fn flock(&self) -> Option<&GpuFlock<V>> {
        self.stepper.as_ref().and_then(GpuStepper::flock)
    }

    /// The open GPU, on the GPU backend.
    pub fn gpu(&self) -> Option<&Gpu> {
        self.stepper.as_ref().map(GpuStepper::gpu)
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
        if let Some(s) = &mut self.stepper {
            s.invalidate();
        }
        Ok(&mut self.world)
    }

    /// Changes parameters or the configuration (not boids or entities: use
    /// [`Simulation::world_mut`]) through `f`; a live GPU flock gets them
    /// uploaded, or is rebuilt before the next step when the change needs it.
    pub fn tune<R>(&mut self, f: impl FnOnce(&mut World<V>) -> R) -> Result<R, GpuError> {
        self.sync()?;
        let r = f(&mut self.world);
        if let Some(s) = &mut self.stepper {
            s.params_changed(&mut self.world)?;
        }
        Ok(r)
    }

    /// The world, up to date.
    pub fn into_world(mut self) -> Result<World<V>, GpuError> {
        self.sync()?;
        Ok(self.world)
    }
}

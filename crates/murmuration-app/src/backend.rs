//! `--backend cpu|gpu|auto`: which engine steps the flock.

use anyhow::Result;
use clap::ValueEnum;
use murmuration::World;
use murmuration_gpu::{Gpu, GpuError, GpuFlock, GpuVector};
use serde::{Deserialize, Serialize};

/// Which engine steps the flock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// The CPU engine (rayon, SIMD).
    #[default]
    Cpu,
    /// The GPU engine (wgpu compute); an error when no adapter exists.
    Gpu,
    /// The GPU when an adapter opens, else the CPU (saying why on stderr).
    Auto,
}

/// Opens the GPU the backend asks for: `None` means run on the CPU.
pub fn open(backend: Backend) -> Result<Option<Gpu>> {
    match backend {
        Backend::Cpu => Ok(None),
        Backend::Gpu => Ok(Some(Gpu::new()?)),
        Backend::Auto => match Gpu::new() {
            Ok(g) => Ok(Some(g)),
            Err(e) => {
                eprintln!("backend auto: using the CPU because the GPU is unavailable ({e})");
                Ok(None)
            }
        },
    }
}

/// [`open`], and with `auto` also the CPU when `world` uses a feature the GPU
/// backend lacks (saying which on stderr).
pub fn open_for<V: GpuVector>(backend: Backend, world: &World<V>) -> Result<Option<Gpu>> {
    let gpu = open(backend)?;
    if backend == Backend::Auto
        && gpu.is_some()
        && let Err(e @ GpuError::Unsupported(_)) = GpuFlock::check_supported(world)
    {
        eprintln!("backend auto: using the CPU because {e}");
        return Ok(None);
    }
    Ok(gpu)
}

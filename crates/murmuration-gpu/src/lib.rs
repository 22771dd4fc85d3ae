//! # murmuration-gpu — the flock on the GPU
//!
//! The same model as the CPU step of [`murmuration`] (separate radii, field of
//! view, periodic / soft / reflecting / unbounded worlds, species and relations,
//! weighted or prioritized steering, smoothing, keyed jitter) as wgpu compute
//! shaders, so it runs on Vulkan, Metal, DX12 and later WebGPU.
//!
//! Each step is one compute pass: the neighbour grid is built on the GPU (cell
//! counts with atomics, a two-level prefix sum, scatter, then each boid ranked in
//! its cell by its previous slot so the order is deterministic), the state is
//! scattered into cell order, and one thread per boid sums its neighbours from the contiguous cell runs
//! and integrates. The state is double-buffered and nothing is read back inside a
//! step.
//!
//! Results agree with the CPU within floating-point reassociation: the neighbour
//! sums run in a different order (scalar on the GPU, eight lanes on the CPU), and
//! `sin`/`cos` in jitter directions come from the device's own functions. Runs on
//! one device are repeatable bit for bit.
//!
//! [`Simulation`] picks the engine at run time (`Backend::Cpu`, `Gpu` or `Auto`,
//! which falls back to the CPU and says why) and keeps the [`murmuration::World`]
//! up to date on demand.
//!
//! ```no_run
//! use murmuration::World;
//! use murmuration_gpu::{Gpu, GpuFlock};
//!
//! let gpu = Gpu::new().expect("a GPU adapter");
//! let mut world = World::<glam::Vec2>::benchmark(100_000).unwrap();
//! let mut flock = GpuFlock::new(&gpu, &world).unwrap();
//! flock.step_n(100).unwrap();
//! flock.read_into(&mut world).unwrap();
//! println!("polarization {}", world.metrics().polarization);
//! ```

mod behaviours;
mod device;
mod dims;
mod error;
mod flock;
mod layouts;
mod relations;
#[cfg(not(target_arch = "wasm32"))]
mod simulation;
#[cfg(not(target_arch = "wasm32"))]
pub mod testing;
#[cfg(not(target_arch = "wasm32"))]
mod timing;
mod uniforms;

pub use device::{Gpu, instance};
pub use dims::GpuVector;
pub use error::GpuError;
pub use flock::{BoidBuffers, GpuFlock, GpuStats, MAX_TIMED_STEPS, ReadBack};
#[cfg(not(target_arch = "wasm32"))]
pub use simulation::{Backend, Simulation};
#[cfg(not(target_arch = "wasm32"))]
pub use timing::StepTimes;

/// Invocations per workgroup of every compute pass (the shaders' `WG`).
pub const WORKGROUP_SIZE: u32 = 256;

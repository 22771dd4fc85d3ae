//! `--backend cpu|gpu|auto`: the GPU crate's [`Backend`] chooses the engine; this
//! says on stderr why `auto` chose the CPU.

use anyhow::Result;
use murmuration::World;
pub use murmuration_gpu::Backend;
use murmuration_gpu::{Gpu, GpuVector};

/// [`Backend::open`], saying why `auto` fell back to the CPU.
pub fn open(backend: Backend) -> Result<Option<Gpu>> {
    let (gpu, why) = backend.open()?;
    say(why);
    Ok(gpu)
}

/// [`Backend::open_for`], saying why `auto` fell back to the CPU.
pub fn open_for<V: GpuVector>(backend: Backend, world: &World<V>) -> Result<Option<Gpu>> {
    let (gpu, why) = backend.open_for(world)?;
    say(why);
    Ok(gpu)
}

fn say(why: Option<String>) {
    if let Some(why) = why {
        eprintln!("backend auto: using the CPU because {why}");
    }
}

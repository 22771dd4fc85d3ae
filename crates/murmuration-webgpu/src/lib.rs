//! The page's flock on the GPU, for a browser with WebGPU: the GPU crate's
//! compute step (`murmuration_gpu::GpuFlock`) and the render crate's drawing
//! (`murmuration_render::Renderer`) into the page's canvas, compiled to
//! `wasm32-unknown-unknown` with wgpu's WebGPU backend. Everything else (the
//! presets, the JSON requests, validation, inspection) is the CPU module's own
//! `murmuration_web::Session`, whose world stays the source of truth between
//! read-backs.
//!
//! wgpu's browser backend needs wasm-bindgen: `murmuration web` builds this
//! crate, then runs `crates/murmuration-bindgen` (the generator, pinned to the
//! same version) to write `murmuration_webgpu.js`, which `web/gpu-engine.js`
//! loads. Natively the crate is empty, so the workspace's tests build nothing
//! here (and its dependencies are the browser's only: these names are not
//! links).

#[cfg(target_arch = "wasm32")]
mod engine;
#[cfg(target_arch = "wasm32")]
pub use engine::GpuEngine;

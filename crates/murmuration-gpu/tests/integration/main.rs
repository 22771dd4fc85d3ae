//! The GPU backend's integration tests, one binary (ARCHITECTURE.md, "Tests"):
//! `parity` (plain flocks against the CPU), `behaviours` (obstacles, entities,
//! predators, zones against the CPU), `presets` (every boids preset on the GPU),
//! `limits` (WebGPU's default limits).
//! Without an adapter (no GPU, no lavapipe) each test says so and passes.

mod behaviours;
mod common;
mod limits;
mod parity;
mod presets;

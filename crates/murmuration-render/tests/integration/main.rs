//! The renderer's integration tests, one binary (each binary compiles the
//! generic step again): golden images, and a GPU flock drawn from its own buffers.

mod golden;
mod gpu_direct;

//! Typed errors of the GPU backend. Each names what failed and the values involved.

use thiserror::Error;

/// Everything that can go wrong on the GPU path; none of it panics.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum GpuError {
    /// No adapter (GPU or software driver) is available.
    #[error("no GPU adapter found: {0}")]
    NoAdapter(String),
    /// The adapter refused to open a device.
    #[error("the GPU adapter {adapter} refused a device: {reason}")]
    Device {
        /// Adapter name.
        adapter: String,
        /// The driver's reason.
        reason: String,
    },
    /// The adapter lacks a capability the backend needs.
    #[error("the GPU adapter {adapter} cannot run the flock: {what} (needs {needed}, has {has})")]
    Capability {
        /// Adapter name.
        adapter: String,
        /// The capability.
        what: &'static str,
        /// What is needed.
        needed: u64,
        /// What the adapter offers.
        has: u64,
    },
    /// A world larger than the device's buffer limits.
    #[error(
        "the world does not fit on {adapter}: buffer {buffer} needs {bytes} bytes but the device allows {limit}"
    )]
    TooLarge {
        /// Adapter name.
        adapter: String,
        /// Which buffer.
        buffer: &'static str,
        /// Bytes needed.
        bytes: u64,
        /// The device limit.
        limit: u64,
    },
    /// A world feature the GPU backend does not implement yet.
    #[error("the GPU backend does not support {0} yet; use the CPU backend")]
    Unsupported(String),
    /// The device reported a validation or out-of-memory error, or was lost.
    #[error("GPU error: {0}")]
    Runtime(String),
    /// The state read back does not fit the world it is written into.
    #[error("GPU read-back does not match the world")]
    World(#[from] murmuration::WorldError),
}

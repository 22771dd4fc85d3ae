//! Opening a GPU: adapter, device and queue, with errors captured instead of panics.
//!
//! The crate (and the render crate) also build for `wasm32-unknown-unknown` with
//! wgpu's WebGPU backend. A browser cannot block, so there each blocking call
//! (`Gpu::new`, `GpuFlock::new`, `read_state`, `read_into`, ...) is left out and
//! its `_async` twin (`Gpu::request`, `mapped`, `GpuFlock::new_async`, ...)
//! awaits the device instead; `.ci/run` lints both crates for that target.

use crate::error::GpuError;
use std::sync::{Arc, Mutex};

/// An open GPU device, shared by every flock created on it.
#[derive(Clone, Debug)]
pub struct Gpu {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    pub(crate) info: wgpu::AdapterInfo,
    pub(crate) timestamps: bool,
    /// The first error the device reported outside an error scope (validation,
    /// out of memory, device lost); checked after each submission.
    pub(crate) failure: Arc<Mutex<Option<String>>>,
}

/// A wgpu instance on the primary backends (Vulkan, Metal, DX12; `WGPU_BACKEND`
/// overrides). OpenGL is left out: it cannot run the flock's compute step, and
/// loading Mesa's libEGL made processes abort at exit now and then when several
/// ran at once (glvnd's exit handler freed memory a Mesa thread was freeing).
pub fn instance() -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::PRIMARY;
    wgpu::Instance::new(desc.with_env())
}

impl Gpu {
    /// Opens the default adapter (`WGPU_BACKEND`, `WGPU_ADAPTER_NAME` and
    /// `WGPU_POWER_PREF` are honoured) with its own limits. Blocks: a browser
    /// uses [`Gpu::request`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new() -> Result<Self, GpuError> {
        pollster::block_on(Self::request(None))
    }

    /// Opens the default adapter with exactly `limits` (each flock then checks
    /// that its passes fit them): `wgpu::Limits::default()` are WebGPU's
    /// defaults, which a browser grants without asking, so a flock that runs
    /// under them runs in any browser with WebGPU.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn with_limits(limits: wgpu::Limits) -> Result<Self, GpuError> {
        pollster::block_on(Self::request(Some(limits)))
    }

    /// Opens a device on `adapter` with its limits: a window picks the adapter
    /// that can draw into its surface, and the flock, the renderer and the window
    /// then share one device (the renderer reads the flock's buffers).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn from_adapter(adapter: &wgpu::Adapter) -> Result<Self, GpuError> {
        pollster::block_on(Self::from_adapter_async(adapter))
    }

    /// [`Gpu::new`] (`limits: None`) or [`Gpu::with_limits`] without blocking,
    /// as a browser needs.
    pub async fn request(limits: Option<wgpu::Limits>) -> Result<Self, GpuError> {
        let instance = instance();
        let adapter = wgpu::util::initialize_adapter_from_env_or_default(&instance, None)
            .await
            .map_err(|e| GpuError::NoAdapter(e.to_string()))?;
        let limits = limits.unwrap_or_else(|| adapter.limits());
        Self::open_with(&adapter, limits).await
    }

    /// [`Gpu::from_adapter`] without blocking (a page's canvas picks the adapter).
    pub async fn from_adapter_async(adapter: &wgpu::Adapter) -> Result<Self, GpuError> {
        Self::open_with(adapter, adapter.limits()).await
    }

    async fn open_with(adapter: &wgpu::Adapter, limits: wgpu::Limits) -> Result<Self, GpuError> {
        let info = adapter.get_info();
        let timestamps = adapter.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        let required_features = if timestamps {
            wgpu::Features::TIMESTAMP_QUERY
        } else {
            wgpu::Features::empty()
        };
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("murmuration device"),
                required_features,
                required_limits: limits,
                ..Default::default()
            })
            .await
            .map_err(|e| GpuError::Device {
                adapter: info.name.clone(),
                reason: e.to_string(),
            })?;
        let failure = Arc::new(Mutex::new(None::<String>));
        let f = failure.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            let mut slot = f.lock().unwrap_or_else(|p| p.into_inner());
            slot.get_or_insert_with(|| e.to_string());
        }));
        let f = failure.clone();
        device.set_device_lost_callback(move |reason, msg| {
            let mut slot = f.lock().unwrap_or_else(|p| p.into_inner());
            slot.get_or_insert_with(|| format!("device lost ({reason:?}): {msg}"));
        });
        Ok(Self {
            device,
            queue,
            info,
            timestamps,
            failure,
        })
    }

    /// Adapter name and backend, e.g. `NVIDIA H200 (Vulkan)`.
    pub fn name(&self) -> String {
        format!("{} ({:?})", self.info.name, self.info.backend)
    }

    /// True for a software rasteriser (lavapipe, WARP, SwiftShader): correct, not fast.
    pub fn is_software(&self) -> bool {
        self.info.device_type == wgpu::DeviceType::Cpu
    }

    /// True when steps are timed with GPU timestamps (else wall time with a device poll).
    pub fn has_timestamps(&self) -> bool {
        self.timestamps
    }

    /// The wgpu device (for renderers that share it with the flock).
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// The wgpu queue.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }

    /// Waits until the queue is idle; an error when the device reported one.
    /// (In a browser it returns at once: the queue drains between frames.)
    pub fn wait_idle(&self) -> Result<(), GpuError> {
        self.wait()
    }

    /// Largest storage buffer binding the device allows, bytes.
    pub fn max_binding_bytes(&self) -> u64 {
        self.device.limits().max_storage_buffer_binding_size
    }

    /// Returns the first error the device reported outside an error scope
    /// (validation, out of memory, device lost), if any.
    pub fn check(&self) -> Result<(), GpuError> {
        let slot = self.failure.lock().unwrap_or_else(|p| p.into_inner());
        match &*slot {
            Some(e) => Err(GpuError::Runtime(e.clone())),
            None => Ok(()),
        }
    }

    /// Waits until the queue is idle (natively; a browser's device polls itself
    /// and this returns at once), running the callbacks of finished mappings.
    pub(crate) fn wait(&self) -> Result<(), GpuError> {
        self.device
            .poll(wgpu::PollType::Wait {
                submission_index: None,
                timeout: None,
            })
            .map_err(|e| GpuError::Runtime(e.to_string()))?;
        self.check()
    }
}

/// Maps `slice` for reading; resolves once the mapping is done. Natively the
/// callback runs inside [`Gpu::wait`] (call it before awaiting); in a browser
/// it runs when the page's event loop gets the GPU's answer.
pub(crate) fn mapped(
    slice: wgpu::BufferSlice<'_>,
) -> impl std::future::Future<Output = Result<(), GpuError>> + use<> {
    let (tx, rx) = futures_channel::oneshot::channel();
    slice.map_async(wgpu::MapMode::Read, move |r| {
        let _ = tx.send(r);
    });
    async move {
        rx.await
            .map_err(|_| GpuError::Runtime("a read-back was dropped unmapped".into()))?
            .map_err(|e| GpuError::Runtime(format!("read-back: {e}")))
    }
}

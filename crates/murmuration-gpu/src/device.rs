//! Opening a GPU: adapter, device and queue, with errors captured instead of panics.

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
    /// `WGPU_POWER_PREF` are honoured) with the limits the flock needs.
    pub fn new() -> Result<Self, GpuError> {
        pollster::block_on(Self::open())
    }

    async fn open() -> Result<Self, GpuError> {
        let instance = instance();
        let adapter = wgpu::util::initialize_adapter_from_env_or_default(&instance, None)
            .await
            .map_err(|e| GpuError::NoAdapter(e.to_string()))?;
        Self::open_adapter(&adapter).await
    }

    /// Opens a device on `adapter` with the limits the flock needs: a window picks
    /// the adapter that can draw into its surface, and the flock, the renderer and
    /// the window then share one device (the renderer reads the flock's buffers).
    pub fn from_adapter(adapter: &wgpu::Adapter) -> Result<Self, GpuError> {
        pollster::block_on(Self::open_adapter(adapter))
    }

    async fn open_adapter(adapter: &wgpu::Adapter) -> Result<Self, GpuError> {
        Self::open_with(adapter, adapter.limits()).await
    }

    /// Opens the default adapter with exactly `limits` (each flock then checks
    /// that its passes fit them): `wgpu::Limits::default()` are WebGPU's
    /// defaults, which a browser grants without asking, so a flock that runs
    /// under them runs in any browser with WebGPU.
    pub fn with_limits(limits: wgpu::Limits) -> Result<Self, GpuError> {
        pollster::block_on(async {
            let instance = instance();
            let adapter = wgpu::util::initialize_adapter_from_env_or_default(&instance, None)
                .await
                .map_err(|e| GpuError::NoAdapter(e.to_string()))?;
            Self::open_with(&adapter, limits).await
        })
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
    pub fn wait_idle(&self) -> Result<(), GpuError> {
        self.wait()
    }

    /// Largest storage buffer binding the device allows, bytes.
    pub fn max_binding_bytes(&self) -> u64 {
        self.device.limits().max_storage_buffer_binding_size
    }

    /// Returns the first error the device reported, if any.
    pub(crate) fn check(&self) -> Result<(), GpuError> {
        let slot = self.failure.lock().unwrap_or_else(|p| p.into_inner());
        match &*slot {
            Some(e) => Err(GpuError::Runtime(e.clone())),
            None => Ok(()),
        }
    }

    /// Waits until the queue is idle.
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

//! Rendering without a window: into a texture, read back as RGBA8 pixels.

use crate::camera::Camera;
use crate::renderer::Renderer;
use crate::scene::Scene;
use crate::settings::RenderSettings;
use crate::timing::FrameTimes;
use murmuration_gpu::{Gpu, GpuError};
use thiserror::Error;

/// Errors from offscreen rendering.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum RenderError {
    /// No GPU (or software rasteriser) could be opened, or it failed.
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// A picture size the device cannot hold.
    #[error("picture size {width}x{height} is out of range: each side must be in [1, {max}]")]
    Size {
        /// Width asked for.
        width: u32,
        /// Height asked for.
        height: u32,
        /// The device's largest texture side.
        max: u32,
    },
}

/// The output format of offscreen pictures (sRGB-encoded RGBA8).
pub const OFFSCREEN_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

/// A renderer that draws into an offscreen texture of a fixed size.
pub struct Offscreen {
    gpu: Gpu,
    renderer: Renderer,
    texture: wgpu::Texture,
    view: wgpu::TextureView,
    readback: wgpu::Buffer,
    width: u32,
    height: u32,
    padded_row: u32,
    /// Where the last frame's time went.
    times: FrameTimes,
}

impl Offscreen {
    /// Opens the default GPU (lavapipe on a machine without one) and makes a
    /// `width` × `height` target. Native only: a page opens its GPU with
    /// [`Gpu::request`] and calls [`Offscreen::with_gpu`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new(width: u32, height: u32) -> Result<Self, RenderError> {
        Self::with_gpu(Gpu::new()?, width, height)
    }

    /// Uses an open GPU (shared with a GPU flock, say).
    pub fn with_gpu(gpu: Gpu, width: u32, height: u32) -> Result<Self, RenderError> {
        Self::with_samples(gpu, width, height, 4)
    }

    /// [`Offscreen::with_gpu`] with `samples` per pixel in the scene pass (4,
    /// or 1: [`Renderer::with_samples`]).
    pub fn with_samples(
        gpu: Gpu,
        width: u32,
        height: u32,
        samples: u32,
    ) -> Result<Self, RenderError> {
        let device = gpu.device().clone();
        let max = device.limits().max_texture_dimension_2d;
        if width == 0 || height == 0 || width > max || height > max {
            return Err(RenderError::Size { width, height, max });
        }
        let renderer = Renderer::with_samples(&device, gpu.queue(), OFFSCREEN_FORMAT, samples);
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("offscreen picture"),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: OFFSCREEN_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = texture.create_view(&Default::default());
        let padded_row = (4 * width).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
            * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("offscreen read-back"),
            size: padded_row as u64 * height as u64,
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        Ok(Self {
            gpu,
            renderer,
            texture,
            view,
            readback,
            width,
            height,
            padded_row,
            times: FrameTimes::default(),
        })
    }

    /// Times each frame's passes with GPU timestamps (`on`), where the device
    /// has them; returns whether they are timed. Off by default: the queries
    /// and their read-back cost a little every frame.
    pub fn time_passes(&mut self, on: bool) -> bool {
        self.renderer.time_passes(on)
    }

    /// Where the last [`Offscreen::render`] spent its time: the host's parts,
    /// and the passes' GPU times while [`Offscreen::time_passes`] is on.
    pub fn last_times(&self) -> FrameTimes {
        self.times
    }

    /// Picture size in pixels.
    pub fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    /// The adapter's name (e.g. `llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan)`).
    pub fn adapter(&self) -> String {
        self.gpu.name()
    }

    /// Draws `scene` and returns the picture: `width × height` RGBA8 pixels, rows
    /// top to bottom, sRGB-encoded. It waits for the read-back, which a browser
    /// cannot: there it returns an error (a page draws into its canvas instead).
    pub fn render(
        &mut self,
        scene: &Scene,
        camera: &Camera,
        settings: &RenderSettings,
    ) -> Result<Vec<u8>, RenderError> {
        let mut since = clock();
        self.renderer
            .render(scene, camera, settings, &self.view, self.width, self.height);
        let device = self.gpu.device();
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("offscreen copy encoder"),
        });
        encoder.copy_texture_to_buffer(
            self.texture.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &self.readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(self.padded_row),
                    rows_per_image: Some(self.height),
                },
            },
            wgpu::Extent3d {
                width: self.width,
                height: self.height,
                depth_or_array_layers: 1,
            },
        );
        self.gpu.queue().submit([encoder.finish()]);
        self.readback
            .slice(..)
            .map_async(wgpu::MapMode::Read, |_| {});
        if let Some(timer) = self.renderer.timer() {
            timer.map();
        }
        let encode_ms = lap(&mut since);
        self.gpu.wait_idle()?;
        let wait_ms = lap(&mut since);
        let passes = self.renderer.timer().and_then(|t| t.read());
        let mut pixels = Vec::with_capacity((4 * self.width * self.height) as usize);
        {
            let view = self
                .readback
                .slice(..)
                .get_mapped_range()
                .map_err(|e| GpuError::Runtime(e.to_string()))?;
            for row in view.chunks(self.padded_row as usize) {
                pixels.extend_from_slice(&row[..4 * self.width as usize]);
            }
        }
        self.readback.unmap();
        self.times = FrameTimes {
            encode_ms,
            wait_ms,
            copy_ms: lap(&mut since),
            passes,
        };
        Ok(pixels)
    }
}

/// Now, on a machine with a clock (a browser's wasm32 has none to read here).
fn clock() -> Option<std::time::Instant> {
    (!cfg!(target_arch = "wasm32")).then(std::time::Instant::now)
}

/// Milliseconds since `since`, which restarts (0 without a clock).
fn lap(since: &mut Option<std::time::Instant>) -> f64 {
    let Some(t) = since else { return 0.0 };
    let ms = t.elapsed().as_secs_f64() * 1e3;
    *since = clock();
    ms
}

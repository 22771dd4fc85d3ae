//! A window to draw into, shared by the sandbox and the game: the winit window,
//! its wgpu surface, the flock renderer, egui (its input state and its
//! renderer), one frame's painting (scene, then egui over it) and scripted
//! screenshots.

use anyhow::{Context, Result, anyhow};
use murmuration_gpu::Gpu;
use murmuration_render::Renderer;
use std::sync::Arc;
use winit::dpi::PhysicalSize;
use winit::event_loop::ActiveEventLoop;
use winit::window::Window;

/// An open window with everything needed to draw a frame into it.
pub struct Gfx {
    /// The window.
    pub window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    /// The device drawing (the flock's own with the GPU backend).
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// The surface's configuration (size, format).
    pub config: wgpu::SurfaceConfiguration,
    /// The flock renderer.
    pub renderer: Renderer,
    /// egui's context.
    pub ctx: egui::Context,
    /// egui's window input.
    pub egui_state: egui_winit::State,
    egui_renderer: egui_wgpu::Renderer,
    /// The monitor's refresh rate, Hz, when the display reports it.
    pub refresh_hz: Option<f32>,
    /// The name of the GPU adapter drawing.
    pub adapter: String,
}

impl Gfx {
    /// Opens a window titled `title` of `size` pixels. `gpu` is asked, with the
    /// adapter that can draw into the window, for the GPU a flock should step on
    /// (`None`: the CPU); the window then draws on that GPU's device.
    pub fn open(
        el: &ActiveEventLoop,
        title: &str,
        size: (u32, u32),
        gpu: impl FnOnce(&wgpu::Adapter) -> Result<Option<Gpu>>,
    ) -> Result<(Self, Option<Gpu>)> {
        let window = Arc::new(
            el.create_window(
                Window::default_attributes()
                    .with_title(title)
                    .with_inner_size(PhysicalSize::new(size.0, size.1)),
            )
            .context("cannot open a window")?,
        );
        let refresh_hz = window
            .current_monitor()
            .and_then(|m| m.refresh_rate_millihertz())
            .map(|mhz| mhz as f32 / 1000.0);
        let instance = murmuration_gpu::instance();
        let surface = instance
            .create_surface(window.clone())
            .context("cannot draw into the window")?;
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            compatible_surface: Some(&surface),
            ..Default::default()
        }))
        .map_err(|e| anyhow!("no GPU adapter can draw into the window: {e}"))?;
        let gpu = gpu(&adapter)?;
        let (device, queue) = match &gpu {
            Some(g) => (g.device().clone(), g.queue().clone()),
            None => pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
                label: Some("murmuration window device"),
                ..Default::default()
            }))
            .context("the GPU adapter refused a device")?,
        };
        let caps = surface.get_capabilities(&adapter);
        let format = caps
            .formats
            .iter()
            .copied()
            .find(|f| f.is_srgb())
            .or(caps.formats.first().copied())
            .ok_or_else(|| anyhow!("the window surface offers no format"))?;
        let mut usage = wgpu::TextureUsages::RENDER_ATTACHMENT;
        if caps.usages.contains(wgpu::TextureUsages::COPY_SRC) {
            usage |= wgpu::TextureUsages::COPY_SRC;
        }
        let inner = window.inner_size();
        let config = wgpu::SurfaceConfiguration {
            usage,
            format,
            width: inner.width.max(1),
            height: inner.height.max(1),
            present_mode: wgpu::PresentMode::AutoVsync,
            desired_maximum_frame_latency: 2,
            alpha_mode: caps.alpha_modes[0],
            view_formats: vec![],
            color_space: wgpu::SurfaceColorSpace::Auto,
        };
        surface.configure(&device, &config);
        let renderer = Renderer::new(&device, &queue, format);
        let ctx = egui::Context::default();
        ctx.set_visuals(egui::Visuals::dark());
        let egui_state = egui_winit::State::new(
            ctx.clone(),
            egui::ViewportId::ROOT,
            &window,
            Some(window.scale_factor() as f32),
            None,
            Some(device.limits().max_texture_dimension_2d as usize),
        );
        let egui_renderer = egui_wgpu::Renderer::new(&device, format, Default::default());
        Ok((
            Self {
                window,
                surface,
                device,
                queue,
                config,
                renderer,
                ctx,
                egui_state,
                egui_renderer,
                refresh_hz,
                adapter: adapter.get_info().name,
            },
            gpu,
        ))
    }

    /// The surface follows the window's new size.
    pub fn resize(&mut self, size: PhysicalSize<u32>) {
        self.config.width = size.width.max(1);
        self.config.height = size.height.max(1);
        self.surface.configure(&self.device, &self.config);
    }

    /// Runs egui for this frame with the window's input; returns its output
    /// with new textures already uploaded and freed ones freed.
    pub fn run_ui(&mut self, ui: impl FnMut(&mut egui::Ui)) -> egui::FullOutput {
        let raw = self.egui_state.take_egui_input(&self.window);
        let mut full = self.ctx.run_ui(raw, ui);
        self.egui_state
            .handle_platform_output(&self.window, std::mem::take(&mut full.platform_output));
        // Apply new textures now; freed textures are not used by this frame's
        // shapes (egui frees only textures nothing refers to any more).
        let mut textures = std::mem::take(&mut full.textures_delta);
        for (id, deltas) in textures.set.drain() {
            for delta in deltas {
                self.egui_renderer
                    .update_texture(&self.device, &self.queue, id, &delta);
            }
        }
        for id in textures.free.drain() {
            self.egui_renderer.free_texture(&id);
        }
        full
    }

    /// Draws one frame: `scene` draws the flock into the surface's view, then
    /// egui's shapes go over it. With `screenshot`, the frame is also saved as a
    /// PNG before it is presented. A lost or outdated surface is reconfigured and
    /// the frame skipped: returns whether it was drawn.
    pub fn paint(
        &mut self,
        full: egui::FullOutput,
        scene: impl FnOnce(&mut Renderer, &wgpu::TextureView, (u32, u32)),
        screenshot: Option<&std::path::Path>,
    ) -> Result<bool> {
        let frame = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t)
            | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                self.surface.configure(&self.device, &self.config);
                return Ok(false);
            }
            _ => return Ok(false),
        };
        let view = frame.texture.create_view(&Default::default());
        let (w, h) = (self.config.width, self.config.height);
        scene(&mut self.renderer, &view, (w, h));
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: [w, h],
            pixels_per_point: full.pixels_per_point,
        };
        let jobs = self.ctx.tessellate(full.shapes, full.pixels_per_point);
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("window egui encoder"),
            });
        let extra = self.egui_renderer.update_buffers(
            &self.device,
            &self.queue,
            &mut encoder,
            &jobs,
            &screen,
        );
        {
            let pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("window egui pass"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Load,
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            self.egui_renderer
                .render(&mut pass.forget_lifetime(), &jobs, &screen);
        }
        self.queue
            .submit(extra.into_iter().chain([encoder.finish()]));
        if let Some(path) = screenshot {
            self.save_screenshot(&frame.texture, path)?;
        }
        self.queue.present(frame);
        Ok(true)
    }

    /// [`Gfx::paint`] for runs that may be scripted: counts drawn frames in
    /// `frame` and, when `frames` is given, saves the last one to `screenshot`.
    /// Returns true when that last frame has been drawn (the window should close).
    pub fn paint_counted(
        &mut self,
        full: egui::FullOutput,
        scene: impl FnOnce(&mut Renderer, &wgpu::TextureView, (u32, u32)),
        frame: &mut u64,
        frames: Option<u64>,
        screenshot: Option<&std::path::Path>,
    ) -> Result<bool> {
        let last = frames.is_some_and(|n| *frame + 1 >= n);
        let drawn = self.paint(full, scene, screenshot.filter(|_| last))?;
        if drawn {
            *frame += 1;
        }
        Ok(drawn && last)
    }

    /// Copies the frame about to be presented into a PNG.
    fn save_screenshot(&self, texture: &wgpu::Texture, path: &std::path::Path) -> Result<()> {
        if !self.config.usage.contains(wgpu::TextureUsages::COPY_SRC) {
            anyhow::bail!("this window surface cannot be read back for --screenshot");
        }
        let (w, h) = (self.config.width, self.config.height);
        let row = (4 * w).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
            * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("window screenshot read-back"),
            size: row as u64 * h as u64,
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let mut encoder = self.device.create_command_encoder(&Default::default());
        encoder.copy_texture_to_buffer(
            texture.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(row),
                    rows_per_image: Some(h),
                },
            },
            wgpu::Extent3d {
                width: w,
                height: h,
                depth_or_array_layers: 1,
            },
        );
        self.queue.submit([encoder.finish()]);
        buffer.slice(..).map_async(wgpu::MapMode::Read, |_| {});
        self.device
            .poll(wgpu::PollType::Wait {
                submission_index: None,
                timeout: None,
            })
            .map_err(|e| anyhow!("reading the screenshot back failed: {e}"))?;
        let mut rgba = Vec::with_capacity((4 * w * h) as usize);
        {
            let view = buffer
                .slice(..)
                .get_mapped_range()
                .map_err(|e| anyhow!("reading the screenshot back failed: {e}"))?;
            for r in view.chunks(row as usize) {
                rgba.extend_from_slice(&r[..4 * w as usize]);
            }
        }
        let bgra = matches!(
            self.config.format,
            wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb
        );
        if bgra {
            for p in rgba.chunks_mut(4) {
                p.swap(0, 2);
            }
        }
        for p in rgba.chunks_mut(4) {
            p[3] = 255;
        }
        crate::frames::write_png(path, &rgba, w, h)
    }
}

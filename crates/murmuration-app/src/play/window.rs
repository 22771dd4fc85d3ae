//! The sandbox window: winit events, the wgpu surface, the flock drawn by the
//! renderer with the egui panel over it, mouse tools, and scripted screenshots.

use super::PlayArgs;
use super::clock::{self, FrameClock};
use super::panel::Panel;
use super::sim::Sim;
use crate::backend::Backend;
use anyhow::{Context, Result, anyhow};
use glam::{Vec2, Vec3};
use murmuration::scenario::Scenario;
use murmuration_gpu::Gpu;
use murmuration_render::{Camera, RenderSettings, Renderer, Scene, Trails};
use std::sync::Arc;
use std::time::Instant;
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, KeyEvent, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::keyboard::{Key, ModifiersState, NamedKey};
use winit::window::{Window, WindowId};

/// Width of the tuning panel, logical pixels.
const PANEL: f32 = 340.0;

struct Gfx {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    device: wgpu::Device,
    queue: wgpu::Queue,
    config: wgpu::SurfaceConfiguration,
    renderer: Renderer,
    ctx: egui::Context,
    egui_state: egui_winit::State,
    egui_renderer: egui_wgpu::Renderer,
}

struct App<'a> {
    args: &'a PlayArgs,
    sim: Sim,
    gfx: Option<Gfx>,
    panel: Panel,
    settings: RenderSettings,
    scene: Scene,
    trails: Trails,
    camera: Option<Camera>,
    frame: u64,
    last: Instant,
    error: Option<anyhow::Error>,
    cursor: Vec2,
    modifiers: ModifiersState,
    drag: Option<(MouseButton, Vec2)>,
    stroke: Vec<[f32; 3]>,
    /// Frame times: the panel's rate and the summary printed at exit.
    clock: FrameClock,
    /// The monitor's refresh rate, Hz, when the display reports it.
    refresh_hz: Option<f32>,
}

/// Opens the window and runs until it is closed (or `--frames` are done).
pub fn run(args: &PlayArgs, scenario: Scenario) -> Result<()> {
    let event_loop = EventLoop::new().context("cannot connect to the display")?;
    let mut sim = Sim::new(scenario, None)?;
    sim.flock.step(args.warmup);
    sim.selected = args.select;
    let mut app = App {
        args,
        sim,
        gfx: None,
        panel: Panel::new(),
        settings: RenderSettings::default(),
        scene: Scene::new(),
        trails: Trails::default(),
        camera: None,
        frame: 0,
        last: Instant::now(),
        error: None,
        cursor: Vec2::ZERO,
        modifiers: ModifiersState::empty(),
        drag: None,
        stroke: Vec::new(),
        clock: FrameClock::default(),
        refresh_hz: None,
    };
    event_loop
        .run_app(&mut app)
        .context("the window's event loop failed")?;
    if let Some(e) = app.error {
        return Err(e);
    }
    if let Some(median) = app.clock.median_ms() {
        app.sim.flock.sync();
        let steps = app.sim.flock.step_index();
        let line = clock::summary(app.frame, median, app.sim.step_ms, steps, app.refresh_hz);
        println!("{line}");
    }
    Ok(())
}

impl App<'_> {
    fn open(&mut self, el: &ActiveEventLoop) -> Result<()> {
        let (w, h) = self.args.size;
        let window = Arc::new(
            el.create_window(
                Window::default_attributes()
                    .with_title("Murmuration")
                    .with_inner_size(PhysicalSize::new(w, h)),
            )
            .context("cannot open a window")?,
        );
        self.refresh_hz = window
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
        // With the GPU backend the flock, the renderer and the window share one
        // device, so the renderer draws straight from the flock's buffers.
        let gpu = match self.args.backend {
            Backend::Cpu => None,
            backend => match Gpu::from_adapter(&adapter) {
                Ok(g) => Some(g),
                Err(e) if backend == Backend::Auto => {
                    eprintln!("backend auto: stepping on the CPU because {e}");
                    None
                }
                Err(e) => return Err(e).context("the window's GPU cannot run the flock"),
            },
        };
        let (device, queue) = match &gpu {
            Some(g) => (g.device().clone(), g.queue().clone()),
            None => pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
                label: Some("murmuration play device"),
                ..Default::default()
            }))
            .context("the GPU adapter refused a device")?,
        };
        match &gpu {
            Some(g) => println!(
                "play: stepping on the GPU {} and drawing straight from its buffers",
                g.name()
            ),
            None => println!(
                "play: stepping on the CPU, drawing on {}",
                adapter.get_info().name
            ),
        }
        self.sim.flock.set_gpu(gpu);
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
        let size = window.inner_size();
        let config = wgpu::SurfaceConfiguration {
            usage,
            format,
            width: size.width.max(1),
            height: size.height.max(1),
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
        self.gfx = Some(Gfx {
            window,
            surface,
            device,
            queue,
            config,
            renderer,
            ctx,
            egui_state,
            egui_renderer,
        });
        Ok(())
    }

    /// The window area beside the panel, pixels: x, y, width, height.
    fn viewport(&self) -> [f32; 4] {
        match &self.gfx {
            Some(g) => viewport_of(g),
            None => [0.0, 0.0, 1.0, 1.0],
        }
    }

    /// A camera showing the world in the area beside the panel.
    fn fit_camera(&mut self) {
        let vp = self.viewport();
        self.sim
            .scene(&mut self.scene, &self.settings, &mut self.trails);
        let (lo, hi) = self.scene.bounds;
        self.camera = Some(Camera::fit(self.scene.dim, lo, hi, vp[2] / vp[3]));
    }

    fn world_at_cursor(&self) -> Option<[f32; 3]> {
        let p = self.unproject(self.cursor)?;
        Some([p.x, p.y, 0.0])
    }

    fn report(&mut self, r: Result<(), String>) {
        if let Err(e) = r {
            self.panel.error = Some(e);
        }
    }

    fn redraw(&mut self, el: &ActiveEventLoop) -> Result<()> {
        let now = Instant::now();
        let raw_dt = now.duration_since(self.last).as_secs_f32();
        // Simulated time advances at most 0.1 s a frame; the rate shown is real.
        let dt = raw_dt.min(0.1);
        self.last = now;
        if self.frame > 0 {
            self.clock.tick(raw_dt);
            self.panel.fps = self.clock.fps();
        }
        // Scripted runs step at a fixed 60 frames per second of simulated time.
        let frame_dt = if self.args.frames.is_some() {
            1.0 / 60.0
        } else {
            dt
        };
        self.sim.frame(frame_dt);
        let g = self.gfx.as_mut().expect("window open");
        let raw = g.egui_state.take_egui_input(&g.window);
        let (sim, settings, panel) = (&mut self.sim, &mut self.settings, &mut self.panel);
        let mut req = None;
        let full = g.ctx.run_ui(raw, |ui| {
            egui::Panel::left("tuning")
                .exact_size(PANEL)
                .show(ui, |ui| {
                    egui::ScrollArea::vertical().show(ui, |ui| {
                        req = Some(panel.ui(ui, sim, settings));
                    });
                });
        });
        let mut full = full;
        g.egui_state
            .handle_platform_output(&g.window, std::mem::take(&mut full.platform_output));
        // Apply new textures now; textures to free are freed after painting (or at
        // once when this frame is skipped).
        let mut textures = std::mem::take(&mut full.textures_delta);
        for (id, deltas) in textures.set.drain() {
            for delta in deltas {
                g.egui_renderer
                    .update_texture(&g.device, &g.queue, id, &delta);
            }
        }
        let free: Vec<egui::TextureId> = textures.free.drain().collect();
        for id in &free {
            // Freed textures are not used by this frame's shapes (egui frees only
            // textures nothing refers to any more).
            g.egui_renderer.free_texture(id);
        }
        let req = req.unwrap_or_default();
        let next = if let Some(name) = req.preset {
            let text = crate::presets::preset(name).expect("listed preset");
            Some(Scenario::parse(text, &format!("<preset {name}>")).map_err(anyhow::Error::from))
        } else {
            req.load.map(|f| crate::presets::load(Some(&f), &[]))
        };
        let gpu = self.sim.flock.gpu();
        match next.map(|s| s.and_then(|s| Sim::new(s, gpu))) {
            Some(Ok(sim)) => {
                self.sim = sim;
                self.trails.clear();
                self.fit_camera();
                self.panel.status = Some(format!("loaded {}", self.sim.scenario.origin()));
            }
            // A bad file is reported in the panel; the current world stays.
            Some(Err(e)) => self.panel.status = Some(format!("{e:#}")),
            None => {}
        }
        // Following, a wrap-around world is drawn around where the camera looks,
        // so the flock crosses the seam whole.
        self.scene.view_centre = self
            .camera
            .filter(|_| self.panel.follow)
            .map(|c| c.target());
        self.sim
            .scene(&mut self.scene, &self.settings, &mut self.trails);
        if self.camera.is_none() {
            self.fit_camera();
        }
        let g2 = self.gfx.as_mut().expect("window open");
        let mut camera = self.camera.expect("fitted");
        if self.panel.follow {
            // The centroid's image nearest the camera: it never jumps a world.
            let period = self.scene.period;
            let target =
                murmuration_render::nearest_image(self.scene.centroid, camera.target(), period);
            camera.set_target(target);
            self.camera = Some(camera);
        }
        let frame = match g2.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t)
            | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                g2.surface.configure(&g2.device, &g2.config);
                return Ok(());
            }
            _ => return Ok(()),
        };
        let view = frame.texture.create_view(&Default::default());
        let (w, h) = (g2.config.width, g2.config.height);
        let vp = viewport_of(g2);
        g2.renderer
            .render_in(&self.scene, &camera, &self.settings, &view, (w, h), vp);
        // The panel over the flock.
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: [w, h],
            pixels_per_point: full.pixels_per_point,
        };
        let jobs = g2.ctx.tessellate(full.shapes, full.pixels_per_point);
        let mut encoder = g2
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("play panel encoder"),
            });
        let extra =
            g2.egui_renderer
                .update_buffers(&g2.device, &g2.queue, &mut encoder, &jobs, &screen);
        {
            let pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("play panel pass"),
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
            g2.egui_renderer
                .render(&mut pass.forget_lifetime(), &jobs, &screen);
        }
        g2.queue.submit(extra.into_iter().chain([encoder.finish()]));
        self.frame += 1;
        let last_frame = self.args.frames.is_some_and(|n| self.frame >= n);
        if last_frame && let Some(path) = &self.args.screenshot {
            save_screenshot(g2, &frame.texture, path)?;
        }
        g2.queue.present(frame);
        if last_frame {
            el.exit();
        }
        Ok(())
    }

    fn mouse(&mut self, button: MouseButton, state: ElementState) {
        let three_d = self.sim.scenario.dimension() == 3;
        match state {
            ElementState::Pressed => {
                self.drag = Some((button, self.cursor));
                self.stroke.clear();
            }
            ElementState::Released => {
                let Some((b, start)) = self.drag.take() else {
                    return;
                };
                let moved = (self.cursor - start).length() > 4.0;
                if three_d
                    && b == button
                    && !moved
                    && button == MouseButton::Left
                    && self.modifiers.control_key()
                {
                    self.pick();
                    return;
                }
                if three_d || b != button {
                    return;
                }
                if self.stroke.len() >= 2 {
                    let pts: Vec<Vec3> = self.stroke.drain(..).map(Vec3::from).collect();
                    let r = self.sim.flock.path(&pts);
                    self.report(r);
                } else if !moved && button == MouseButton::Left && self.modifiers.control_key() {
                    self.pick();
                } else if !moved && let Some(p) = self.world_at_cursor() {
                    let r = match button {
                        MouseButton::Left => self.sim.flock.attract(p.into()),
                        MouseButton::Right => self.sim.flock.pulse(p.into()),
                        _ => Ok(()),
                    };
                    self.report(r);
                }
            }
        }
    }

    fn moved(&mut self, to: Vec2) {
        let from = self.cursor;
        self.cursor = to;
        let Some((button, _)) = self.drag else { return };
        let Some(cam) = &mut self.camera else { return };
        let three_d = self.sim.scenario.dimension() == 3;
        if three_d && button == MouseButton::Left {
            cam.drag((to - from) * Vec2::new(-0.006, 0.006));
        } else if !three_d && button == MouseButton::Middle {
            if let (Some(a), Some(b)) = (self.unproject(from), self.unproject(to))
                && let Some(cam) = &mut self.camera
            {
                cam.drag(a - b);
            }
        } else if !three_d
            && button == MouseButton::Left
            && let Some(p) = self.world_at_cursor()
        {
            let extent = (self.scene.bounds.1 - self.scene.bounds.0).max_element();
            let far = self
                .stroke
                .last()
                .is_none_or(|q| Vec2::new(p[0] - q[0], p[1] - q[1]).length() > 0.02 * extent);
            if far && self.stroke.len() < 4096 {
                self.stroke.push(p);
            }
        }
    }

    /// Selects the boid under the cursor: the nearest one in 2D, the one the
    /// cursor's ray passes closest to (in angle) in 3D.
    fn pick(&mut self) {
        if self.sim.scenario.dimension() == 3 {
            let Some(camera) = self.camera else { return };
            let vp = self.viewport();
            let (o, d) = camera.ray_in(
                self.cursor,
                Vec2::new(vp[0], vp[1]),
                Vec2::new(vp[2], vp[3]),
            );
            self.sim.select_on_ray(o, d);
        } else if let Some(p) = self.world_at_cursor() {
            self.sim.select_near(p);
        }
    }

    fn unproject(&self, pixel: Vec2) -> Option<Vec2> {
        let vp = self.viewport();
        self.camera?
            .unproject_in(pixel, Vec2::new(vp[0], vp[1]), Vec2::new(vp[2], vp[3]))
    }

    fn key(&mut self, event: &KeyEvent) {
        if event.state != ElementState::Pressed {
            return;
        }
        match &event.logical_key {
            Key::Named(NamedKey::Space) => self.sim.paused = !self.sim.paused,
            Key::Character(c) if c.as_str() == "s" => {
                self.sim.paused = true;
                self.sim.step(1);
            }
            Key::Character(c) if c.as_str() == "r" => {
                let r = self.sim.reset().map_err(|e| e.to_string());
                self.report(r);
            }
            Key::Character(c) if c.as_str() == "i" => self.pick(),
            Key::Named(NamedKey::Escape) => self.sim.selected = None,
            Key::Character(c) if c.as_str() == "o" => {
                if let Some(p) = self.world_at_cursor() {
                    let r = self.sim.flock.obstacle(p.into());
                    self.report(r);
                }
            }
            _ => {}
        }
    }
}

/// The window area beside the panel, pixels: x, y, width, height.
fn viewport_of(g: &Gfx) -> [f32; 4] {
    let (w, h) = (g.config.width as f32, g.config.height as f32);
    let panel = (PANEL * g.window.scale_factor() as f32).min(w - 1.0);
    [panel, 0.0, (w - panel).max(1.0), h]
}

/// Copies the frame about to be presented into a PNG.
fn save_screenshot(g: &Gfx, texture: &wgpu::Texture, path: &std::path::Path) -> Result<()> {
    if !g.config.usage.contains(wgpu::TextureUsages::COPY_SRC) {
        anyhow::bail!("this window surface cannot be read back for --screenshot");
    }
    let (w, h) = (g.config.width, g.config.height);
    let row =
        (4 * w).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    let buffer = g.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("play screenshot read-back"),
        size: row as u64 * h as u64,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = g.device.create_command_encoder(&Default::default());
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
    g.queue.submit([encoder.finish()]);
    buffer.slice(..).map_async(wgpu::MapMode::Read, |_| {});
    g.device
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
        g.config.format,
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

impl ApplicationHandler for App<'_> {
    fn resumed(&mut self, el: &ActiveEventLoop) {
        if self.gfx.is_none()
            && let Err(e) = self.open(el)
        {
            self.error = Some(e);
            el.exit();
        }
    }

    fn window_event(&mut self, el: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some(g) = self.gfx.as_mut() else { return };
        let consumed = g.egui_state.on_window_event(&g.window, &event).consumed;
        match event {
            WindowEvent::CloseRequested => el.exit(),
            WindowEvent::Resized(size) => {
                g.config.width = size.width.max(1);
                g.config.height = size.height.max(1);
                g.surface.configure(&g.device, &g.config);
                self.fit_camera();
            }
            WindowEvent::RedrawRequested => {
                if let Err(e) = self.redraw(el) {
                    self.error = Some(e);
                    el.exit();
                }
            }
            WindowEvent::ModifiersChanged(m) => self.modifiers = m.state(),
            WindowEvent::CursorMoved { position, .. } => {
                self.moved(Vec2::new(position.x as f32, position.y as f32));
            }
            WindowEvent::MouseInput { state, button, .. }
                if !consumed || state == ElementState::Released =>
            {
                self.mouse(button, state);
            }
            WindowEvent::MouseWheel { delta, .. } if !consumed => {
                let y = match delta {
                    MouseScrollDelta::LineDelta(_, y) => y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
                };
                if let Some(c) = &mut self.camera {
                    c.zoom(0.9f32.powf(y));
                }
            }
            WindowEvent::KeyboardInput { event, .. } if !consumed => self.key(&event),
            _ => {}
        }
    }

    fn about_to_wait(&mut self, _el: &ActiveEventLoop) {
        if let Some(g) = &self.gfx {
            g.window.request_redraw();
        }
    }
}

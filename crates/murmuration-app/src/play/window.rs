//! The sandbox window: winit events, the wgpu surface, the flock drawn by the
//! renderer with the egui panel over it, mouse tools, and scripted screenshots.

use super::PlayArgs;
use super::clock::{self, FrameClock};
use super::panel::Panel;
use super::sim::Sim;
use crate::backend::Backend;
use crate::gfx::Gfx;
use anyhow::{Context, Result};
use glam::{Vec2, Vec3};
use murmuration::scenario::Scenario;
use murmuration_gpu::Gpu;
use murmuration_render::{Camera, RenderSettings, Scene, Trails};
use std::time::Instant;
use winit::application::ApplicationHandler;
use winit::event::{ElementState, KeyEvent, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::keyboard::{Key, ModifiersState, NamedKey};
use winit::window::WindowId;

/// Width of the tuning panel, logical pixels.
const PANEL: f32 = 340.0;

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
        // With the GPU backend the flock, the renderer and the window share one
        // device, so the renderer draws straight from the flock's buffers.
        let backend = self.args.backend;
        let (gfx, gpu) = Gfx::open(el, "Murmuration", self.args.size, |adapter| match backend {
            Backend::Cpu => Ok(None),
            backend => match Gpu::from_adapter(adapter) {
                Ok(g) => Ok(Some(g)),
                Err(e) if backend == Backend::Auto => {
                    eprintln!("backend auto: stepping on the CPU because {e}");
                    Ok(None)
                }
                Err(e) => Err(e).context("the window's GPU cannot run the flock"),
            },
        })?;
        match &gpu {
            Some(g) => println!(
                "play: stepping on the GPU {} and drawing straight from its buffers",
                g.name()
            ),
            None => println!("play: stepping on the CPU, drawing on {}", gfx.adapter),
        }
        self.refresh_hz = gfx.refresh_hz;
        self.sim.flock.set_gpu(gpu);
        self.gfx = Some(gfx);
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
        self.scene.track_centroid = self.panel.follow;
        self.sim
            .scene(&mut self.scene, &self.settings, &mut self.trails);
        let (lo, hi) = self.scene.bounds;
        self.camera = Some(Camera::fit(self.scene.dim, lo, hi, vp[2] / vp[3]));
    }

    fn world_at_cursor(&self) -> Option<[f32; 3]> {
        let p = self.unproject(self.cursor)?;
        Some([p.x, p.y, 0.0])
    }

    /// Whether a click at world point `p` (under the cursor) lands on the
    /// mouse target.
    fn clicks_target(&self, p: Vec3) -> bool {
        let (Some((centre, radius)), Some(a), Some(b)) = (
            self.sim.flock.target(),
            self.unproject(self.cursor),
            self.unproject(self.cursor + Vec2::X),
        ) else {
            return false;
        };
        on_target(p, centre, radius, 1.0 / a.distance(b).max(1e-9))
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
        let (sim, settings, panel) = (&mut self.sim, &mut self.settings, &mut self.panel);
        let mut req = None;
        let full = g.run_ui(|ui| {
            egui::Panel::left("tuning")
                .exact_size(PANEL)
                .show(ui, |ui| {
                    egui::ScrollArea::vertical().show(ui, |ui| {
                        req = Some(panel.ui(ui, sim, settings));
                    });
                });
        });
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
        self.scene.track_centroid = self.panel.follow;
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
        let vp = viewport_of(g2);
        let (scene, settings) = (&self.scene, &self.settings);
        let done = g2.paint_counted(
            full,
            |r, view, size| r.render_in(scene, &camera, settings, view, size, vp),
            &mut self.frame,
            self.args.frames,
            self.args.screenshot.as_deref(),
        )?;
        if done {
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
                        // A click on the target lets the flock go (as on the page).
                        MouseButton::Left if self.clicks_target(p.into()) => {
                            self.sim.flock.release();
                            Ok(())
                        }
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
            // Esc clears the selection first, then lets the flock go.
            Key::Named(NamedKey::Escape) if self.sim.selected.take().is_none() => {
                self.sim.flock.release();
            }
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
                g.resize(size);
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

/// Whether a click at `click` lands on a target at `centre` of `radius`
/// (world units) drawn at `pixels` per unit: within its drawn disc, but never
/// less than 12 or more than 40 pixels from its centre (the page's rule).
fn on_target(click: Vec3, centre: Vec3, radius: f32, pixels: f32) -> bool {
    click.distance(centre) * pixels <= (radius * pixels).clamp(12.0, 40.0)
}

#[cfg(test)]
mod click_tests {
    use super::*;

    #[test]
    fn a_click_on_the_target_is_within_its_disc_and_12_to_40_pixels() {
        let c = Vec3::new(10.0, 10.0, 0.0);
        // A 2-unit target at 10 px a unit: its 20 px disc.
        assert!(on_target(Vec3::new(11.9, 10.0, 0.0), c, 2.0, 10.0));
        assert!(!on_target(Vec3::new(12.1, 10.0, 0.0), c, 2.0, 10.0));
        // Zoomed out (1 px a unit): still 12 px to hit it.
        assert!(on_target(Vec3::new(21.0, 10.0, 0.0), c, 2.0, 1.0));
        assert!(!on_target(Vec3::new(23.0, 10.0, 0.0), c, 2.0, 1.0));
        // Zoomed in (100 px a unit): at most 40 px, not the whole 200 px disc.
        assert!(on_target(Vec3::new(10.39, 10.0, 0.0), c, 2.0, 100.0));
        assert!(!on_target(Vec3::new(10.5, 10.0, 0.0), c, 2.0, 100.0));
    }
}

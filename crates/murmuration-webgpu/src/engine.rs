//! [`GpuEngine`]: the page's engine object on WebGPU. The JavaScript side
//! (`web/gpu-engine.js`) is synchronous per frame (`call`, `step`, `draw`);
//! the waits a browser imposes (the device, building a flock, reading it back)
//! run as tasks that hold no borrow across their await, and steps pause while
//! one is in flight.
//!
//! The session's world holds parameters, entities and the boid list; the GPU
//! flock holds the newer motion. A change of parameters, or a target moved, is
//! uploaded in place; an entity added or removed (a target set or cleared, a
//! pulse) or a new grid reads the motion back into the world, then builds a
//! new flock from it; opening a preset or a new count builds one from the
//! fresh world. Builds run one at a time (a device's error scopes are one
//! stack). A read-back (`GpuFlock::read_back_staged`) queues its copies at once
//! and returns a future that borrows nothing, so the flock steps on while the
//! page waits; `ReadBack::apply` then writes that step's state into the world.
//! A world the GPU backend refuses (`Unsupported`, `TooLarge`) is reported
//! apart from a device's failure.
//!
//! A frame: `step(k)` queues k steps, `draw` updates the scene from the flock's
//! buffers and renders into the canvas (one sample per pixel on a software
//! adapter); every few frames `sync` copies the state back for the metrics
//! worker, the follow camera and the overlays. The page (`web/app.js`) starts
//! on the CPU module, so the first frame never waits for this one, then probes
//! WebGPU, loads `web/gpu-engine.js` and reopens the preset here with its
//! tuning (`mirror`, then `adopt`: the flock restarts); a failure moves it back
//! the same way.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use glam::{Vec2, Vec3};
use murmuration::scenario::AnyWorld;
use murmuration_gpu::{Gpu, GpuError, GpuFlock, ReadBack};
use murmuration_render::{Camera, RenderSettings, Renderer, Scene, Trails};
use murmuration_web::Session;
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// A GPU flock of either dimension.
enum AnyFlock {
    D2(GpuFlock<Vec2>),
    D3(GpuFlock<Vec3>),
}

/// A read-back of either dimension.
enum AnyReadBack {
    D2(ReadBack<Vec2>),
    D3(ReadBack<Vec3>),
}

/// What a request changes, so the GPU copy can follow.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Change {
    /// Nothing the GPU holds.
    Nothing,
    /// Species parameters: uploaded in place when the grid keeps its size.
    Params,
    /// Entities (target, pulse): uploaded in place when they keep the
    /// flock's slots (a target moved), else the motion is read back and a
    /// flock built.
    Entities,
    /// A new world (a preset, a count): a flock built from it.
    World,
}

/// What `op` changes.
fn change_of(op: &str) -> Change {
    match op {
        "set" => Change::Params,
        "target" | "clear_target" | "pulse" => Change::Entities,
        "open" | "adopt" | "count" => Change::World,
        _ => Change::Nothing,
    }
}

/// The engine's state, shared with its tasks.
struct Inner {
    gpu: Gpu,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    /// The format drawn in (the surface's, as sRGB).
    view_format: wgpu::TextureFormat,
    renderer: Renderer,
    scene: Scene,
    session: Option<Session>,
    /// The GPU flock of the session's world (a read-back borrows nothing from
    /// it: it steps on while one is in flight).
    flock: Option<AnyFlock>,
    /// Counts the worlds: a task for an older one drops its result.
    generation: u64,
    /// The flock holds newer motion than the world.
    ahead: bool,
    /// The world changed in a way only a new flock carries.
    stale: bool,
    /// The world's entities changed since the flock last took them: uploaded
    /// at the next step.
    entities_dirty: bool,
    /// Counts the changes only a new flock carries: a build that started
    /// before the last one leaves the flock stale.
    edits: u64,
    /// Flocks built so far (the page's test sees a moved target cost none).
    builds: u32,
    /// A build is in flight (for this world or an older one): one at a time,
    /// as a device's error scopes form one stack that a build's waits would
    /// otherwise interleave.
    busy: bool,
    /// The first failure (the device's or a task's); the page falls back to
    /// the CPU module when it sees one.
    failure: Option<String>,
    /// Why the GPU backend refuses this world (a feature it lacks, a size
    /// past the device's limits), until another world is opened: the page
    /// runs that flock on the CPU module and keeps this engine.
    unsupported: Option<String>,
    /// Frames in a row the canvas gave no texture.
    lost_frames: u32,
}

/// The page's flock stepped and drawn on the GPU through WebGPU.
#[wasm_bindgen]
pub struct GpuEngine {
    inner: Rc<RefCell<Inner>>,
    adapter: String,
    software: bool,
}

#[wasm_bindgen]
impl GpuEngine {
    /// Opens WebGPU on `canvas` (an adapter that can draw into it, a device
    /// with the adapter's limits) and a renderer for it. `adapter` names it
    /// and `software` says it is a software rasteriser, as the page's probe
    /// found (wgpu sees neither in a browser); a software one draws with one
    /// sample per pixel. Fails with the reason when the browser has no
    /// WebGPU adapter.
    pub async fn open(
        canvas: web_sys::HtmlCanvasElement,
        adapter: String,
        software: bool,
    ) -> Result<GpuEngine, JsError> {
        console_error_panic_hook::set_once();
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends = wgpu::Backends::BROWSER_WEBGPU;
        let instance = wgpu::Instance::new(desc);
        let (width, height) = (canvas.width().max(1), canvas.height().max(1));
        let surface = instance
            .create_surface(wgpu::SurfaceTarget::Canvas(canvas))
            .map_err(|e| JsError::new(&format!("cannot draw into the canvas with WebGPU: {e}")))?;
        let name = adapter;
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                compatible_surface: Some(&surface),
                ..Default::default()
            })
            .await
            .map_err(|e| JsError::new(&format!("no WebGPU adapter: {e}")))?;
        let gpu = Gpu::from_adapter_async(&adapter)
            .await
            .map_err(|e| JsError::new(&e.to_string()))?;
        let caps = surface.get_capabilities(&adapter);
        let format = caps
            .formats
            .first()
            .copied()
            .ok_or_else(|| JsError::new("the canvas offers no WebGPU format"))?;
        // A canvas offers only linear formats; the renderer writes sRGB, so it
        // draws into an sRGB view of the canvas's texture.
        let view_format = format.add_srgb_suffix();
        let config = wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            format,
            width,
            height,
            present_mode: wgpu::PresentMode::Fifo,
            desired_maximum_frame_latency: 2,
            alpha_mode: wgpu::CompositeAlphaMode::Opaque,
            view_formats: vec![view_format],
            color_space: wgpu::SurfaceColorSpace::Auto,
        };
        surface.configure(gpu.device(), &config);
        // 4× multisampling costs a software rasteriser four times the fill
        // (SwiftShader: 2.5 → 4.5 frames/s at 2,000 boids).
        let samples = if software { 1 } else { 4 };
        let renderer = Renderer::with_samples(gpu.device(), gpu.queue(), view_format, samples);
        Ok(GpuEngine {
            adapter: name,
            software,
            inner: Rc::new(RefCell::new(Inner {
                gpu,
                surface,
                config,
                view_format,
                renderer,
                scene: Scene::new(),
                session: None,
                flock: None,
                generation: 0,
                ahead: false,
                stale: true,
                edits: 0,
                entities_dirty: false,
                builds: 0,
                busy: false,
                failure: None,
                unsupported: None,
                lost_frames: 0,
            })),
        })
    }

    /// The adapter's name and backend, for the panel.
    #[wasm_bindgen(getter)]
    pub fn adapter(&self) -> String {
        self.adapter.clone()
    }

    /// True on a software adapter (SwiftShader): correct, not fast.
    #[wasm_bindgen(getter)]
    pub fn software(&self) -> bool {
        self.software
    }

    /// Answers one JSON request as the CPU module does (`{"ok": …}` or
    /// `{"error": …}`), then brings the GPU copy up to date with what it
    /// changed. Reads (state, inspect, metrics, digest) see the world as of
    /// the last [`GpuEngine::sync`].
    pub fn call(&self, request: &str) -> String {
        let parsed = serde_json::from_str::<Value>(request).ok();
        let field = |key: &str| parsed.as_ref().and_then(|v| v.get(key));
        let op = field("op").and_then(Value::as_str).unwrap_or_default();
        let mut i = self.inner.borrow_mut();
        if op == "step" {
            // Steps go to the GPU; the answer is the step counter.
            let n = field("n").and_then(Value::as_u64).unwrap_or(1);
            if n > 100_000 {
                return murmuration_web::wrap(Err(format!(
                    "{n} steps at once would freeze the page; at most 100000"
                )));
            }
            drop(i);
            self.step(n as u32);
            let i = self.inner.borrow();
            return murmuration_web::wrap(Ok(serde_json::json!(i.step_index())));
        }
        let answer = murmuration_web::answer(&mut i.session, request);
        // `clear_target` with no target answers false: nothing changed.
        if answer.starts_with("{\"ok\"") && answer != "{\"ok\":false}" {
            match change_of(op) {
                Change::Nothing => {}
                Change::World => i.new_world(),
                Change::Entities => i.entities_dirty = true,
                Change::Params => i.params_changed(),
            }
        }
        answer
    }

    /// Steps the flock `n` times on the GPU (queued, not waited for); returns
    /// the boid count. While a flock is being built nothing steps; a flock
    /// that needs building starts that here.
    pub fn step(&self, n: u32) -> u32 {
        let mut i = self.inner.borrow_mut();
        let count = i.session.as_ref().map_or(0, Session::len) as u32;
        if i.failure.is_some() || i.unsupported.is_some() || i.busy || i.session.is_none() {
            return count;
        }
        if i.entities_dirty && !i.stale {
            i.upload_entities();
        }
        if i.stale || i.flock.is_none() {
            i.busy = true;
            let generation = i.generation;
            drop(i);
            wasm_bindgen_futures::spawn_local(rebuild(self.inner.clone(), generation));
            return count;
        }
        if n == 0 {
            return count;
        }
        let Some(flock) = i.flock.as_mut() else {
            return count;
        };
        let stepped = match flock {
            AnyFlock::D2(f) => f.step_n(n as u64),
            AnyFlock::D3(f) => f.step_n(n as u64),
        };
        if let Err(e) = stepped {
            i.fail(e.to_string());
            return count;
        }
        // The entities' clock runs on the host: what is drawn from the world
        // (the target, pulses) stays current between read-backs.
        if let Some(s) = &mut i.session {
            match s.world_mut() {
                AnyWorld::D2(w) => w.advance_entities(n as u64),
                AnyWorld::D3(w) => w.advance_entities(n as u64),
            }
        }
        i.ahead = true;
        count
    }

    /// Reads the GPU's state back into the world (positions, velocities, meals),
    /// so `instances`, `kinematics`, inspection and the digest are current.
    /// Resolves when done (at once when nothing is newer).
    pub fn sync(&self) -> js_sys::Promise {
        let inner = self.inner.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            read_back(&inner).await.map_err(|e| JsError::new(&e))?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// The steps the flock has taken (the GPU's count, ahead of the world's).
    #[wasm_bindgen(js_name = stepIndex)]
    pub fn step_index_js(&self) -> f64 {
        self.inner.borrow().step_index() as f64
    }

    /// Boids in the flock.
    pub fn count(&self) -> u32 {
        self.inner.borrow().session.as_ref().map_or(0, Session::len) as u32
    }

    /// x, y, heading, species per boid as of the last read-back (a copy).
    pub fn instances(&self) -> Vec<f32> {
        self.inner
            .borrow()
            .session
            .as_ref()
            .map(|s| s.instances().to_vec())
            .unwrap_or_default()
    }

    /// Position, velocity and species per boid as of the last read-back (the
    /// metrics worker's input; a copy).
    pub fn kinematics(&self) -> Vec<f32> {
        let mut i = self.inner.borrow_mut();
        i.session
            .as_mut()
            .map(|s| s.kinematics().to_vec())
            .unwrap_or_default()
    }

    /// GPU flocks built so far: one per preset, count or change of slots
    /// (a target set or taken away), none for a target moved.
    #[wasm_bindgen(getter)]
    pub fn builds(&self) -> u32 {
        self.inner.borrow().builds
    }

    /// True while a flock is being built (steps wait).
    #[wasm_bindgen(getter)]
    pub fn busy(&self) -> bool {
        self.inner.borrow().busy
    }

    /// The first failure of the device or of a task, if any (the page then
    /// goes back to the CPU module). A state left borrowed by a trap counts.
    #[wasm_bindgen(getter)]
    pub fn failure(&self) -> Option<String> {
        let Ok(i) = self.inner.try_borrow() else {
            return Some("the WebGPU engine stopped inside a call (a trap)".into());
        };
        i.failure
            .clone()
            .or_else(|| i.gpu.check().err().map(|e| e.to_string()))
    }

    /// Why the GPU backend refuses the open world, if it does (the page runs
    /// it on the CPU module; another preset may run here again).
    #[wasm_bindgen(getter)]
    pub fn unsupported(&self) -> Option<String> {
        self.inner.try_borrow().ok()?.unsupported.clone()
    }

    /// Draws the flock into the canvas (`width` × `height` pixels): a top-down
    /// view centred on (`cx`, `cy`) showing `half_height` units above and below,
    /// boids `size` units long, with the glow when `glow`. Boids come straight
    /// from the GPU's buffers; before the first flock is built, from the world.
    #[allow(
        clippy::too_many_arguments,
        reason = "the page's view as plain numbers, one call per frame"
    )]
    pub fn draw(
        &self,
        width: u32,
        height: u32,
        cx: f32,
        cy: f32,
        half_height: f32,
        size: f32,
        glow: bool,
    ) -> Result<(), JsError> {
        let mut guard = self.inner.borrow_mut();
        let i = &mut *guard;
        let Some(session) = &i.session else {
            return Ok(());
        };
        let (width, height) = (width.max(1), height.max(1));
        if (i.config.width, i.config.height) != (width, height) {
            i.config.width = width;
            i.config.height = height;
            i.surface.configure(i.gpu.device(), &i.config);
        }
        let frame = match i.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t)
            | wgpu::CurrentSurfaceTexture::Suboptimal(t) => {
                i.lost_frames = 0;
                t
            }
            other => {
                // A canvas that keeps refusing (a configuration it rejected)
                // is a failure, not a blank page.
                i.lost_frames += 1;
                if i.lost_frames > 60 {
                    i.fail(format!(
                        "the canvas gave no texture for 60 frames ({other:?})"
                    ));
                }
                i.surface.configure(i.gpu.device(), &i.config);
                return Ok(());
            }
        };
        let settings = RenderSettings {
            bloom: glow,
            boid_size: size.max(1e-4),
            // The page draws obstacles, targets and pulses over the canvas.
            overlays: false,
            // The page's background (#03050b), linear.
            background: [0.0010, 0.0015, 0.0037],
            ..RenderSettings::default()
        };
        // The flock's buffers hold the newest motion, even while a new flock
        // is being built for an edit.
        match (session.world(), i.flock.as_ref()) {
            (AnyWorld::D2(w), Some(AnyFlock::D2(f))) => {
                i.scene.update_from_gpu(w, f.boid_buffers(), &settings)
            }
            (AnyWorld::D3(w), Some(AnyFlock::D3(f))) => {
                i.scene.update_from_gpu(w, f.boid_buffers(), &settings)
            }
            (AnyWorld::D2(w), _) => i.scene.update(w, &settings, &mut Trails::default()),
            (AnyWorld::D3(w), _) => i.scene.update(w, &settings, &mut Trails::default()),
        }
        let camera = Camera::TopDown {
            center: Vec2::new(cx, cy),
            half_height: half_height.max(1e-6),
        };
        let view = frame.texture.create_view(&wgpu::TextureViewDescriptor {
            label: Some("page canvas view"),
            format: Some(i.view_format),
            ..Default::default()
        });
        i.renderer
            .render(&i.scene, &camera, &settings, &view, width, height);
        i.gpu.queue().present(frame);
        Ok(())
    }
}

impl Inner {
    /// The GPU's step count when it is ahead, else the world's.
    fn step_index(&self) -> u64 {
        let world = self.session.as_ref().map_or(0, |s| match s.world() {
            AnyWorld::D2(w) => w.step_index(),
            AnyWorld::D3(w) => w.step_index(),
        });
        match self.flock.as_ref() {
            Some(AnyFlock::D2(f)) if self.ahead => f.step_index(),
            Some(AnyFlock::D3(f)) if self.ahead => f.step_index(),
            _ => world,
        }
    }

    /// A new world replaced the old: its flock is built at the next step
    /// (after a build for the old one still in flight ends).
    fn new_world(&mut self) {
        self.generation += 1;
        if let Some(s) = &self.session {
            self.scene.looks = s.looks().to_vec();
        }
        self.unsupported = None;
        self.flock = None;
        self.ahead = false;
        self.stale = true;
    }

    /// Uploads new species parameters in place, or marks the flock for a
    /// rebuild when they change its grid.
    fn params_changed(&mut self) {
        // A build in flight copied the world before this change.
        if self.busy {
            self.mark_stale();
            return;
        }
        let (Some(s), Some(flock)) = (&self.session, self.flock.as_mut()) else {
            self.mark_stale();
            return;
        };
        let uploaded = match (s.world(), flock) {
            (AnyWorld::D2(w), AnyFlock::D2(f)) => f.update_params(w).is_ok(),
            (AnyWorld::D3(w), AnyFlock::D3(f)) => f.update_params(w).is_ok(),
            _ => false,
        };
        if !uploaded {
            self.mark_stale();
        }
    }

    /// Uploads the world's entities into the flock in place, or marks it for
    /// a rebuild when they no longer fit its slots. Waits (stays dirty) until
    /// there is a flock.
    fn upload_entities(&mut self) {
        let (Some(s), Some(flock)) = (&self.session, self.flock.as_mut()) else {
            return;
        };
        let uploaded = match (s.world(), flock) {
            (AnyWorld::D2(w), AnyFlock::D2(f)) => f.update_entities(w),
            (AnyWorld::D3(w), AnyFlock::D3(f)) => f.update_entities(w),
            _ => Ok(false),
        };
        self.entities_dirty = false;
        match uploaded {
            Ok(true) => {}
            Ok(false) => self.mark_stale(),
            Err(e) => self.fail(e.to_string()),
        }
    }

    /// The world changed in a way only a new flock carries.
    fn mark_stale(&mut self) {
        self.stale = true;
        self.edits += 1;
    }

    fn fail(&mut self, why: String) {
        self.failure.get_or_insert(why);
    }
}

/// A read-back of either dimension, in flight.
type Pending = Pin<Box<dyn Future<Output = Result<AnyReadBack, GpuError>>>>;

/// Reads the flock's motion back into the session's world when it is ahead.
/// The copies are queued at once and the wait borrows nothing: the flock steps
/// on meanwhile, and the world takes the state of the step it was read at
/// (still behind the flock, if it stepped).
async fn read_back(inner: &Rc<RefCell<Inner>>) -> Result<(), String> {
    let (pending, generation): (Pending, u64) = {
        let i = inner.borrow();
        let future: Pending = match &i.flock {
            Some(AnyFlock::D2(f)) if i.ahead => {
                let staged = f.read_back_staged();
                Box::pin(async move { staged.await.map(AnyReadBack::D2) })
            }
            Some(AnyFlock::D3(f)) if i.ahead => {
                let staged = f.read_back_staged();
                Box::pin(async move { staged.await.map(AnyReadBack::D3) })
            }
            _ => return Ok(()),
        };
        (future, i.generation)
    };
    let back = pending.await.map_err(|e| e.to_string())?;
    let mut guard = inner.borrow_mut();
    let i = &mut *guard;
    if i.generation != generation {
        return Ok(());
    }
    let Some(s) = &mut i.session else {
        return Ok(());
    };
    let read_at = match &back {
        AnyReadBack::D2(b) => b.step(),
        AnyReadBack::D3(b) => b.step(),
    };
    let now = match s.world() {
        AnyWorld::D2(w) => w.step_index(),
        AnyWorld::D3(w) => w.step_index(),
    };
    if read_at < now {
        // A newer read-back was written first: keep it.
        return Ok(());
    }
    let written = match (s.world_mut(), back) {
        (AnyWorld::D2(w), AnyReadBack::D2(b)) => b.apply(w).map(|_| ()),
        (AnyWorld::D3(w), AnyReadBack::D3(b)) => b.apply(w).map(|_| ()),
        _ => return Err("the flock and the world differ in dimension".into()),
    };
    written.map_err(|e| e.to_string())?;
    s.refresh();
    let flock_step = match &i.flock {
        Some(AnyFlock::D2(f)) => f.step_index(),
        Some(AnyFlock::D3(f)) => f.step_index(),
        None => read_at,
    };
    i.ahead = flock_step != read_at;
    Ok(())
}

/// Reads the motion back (when the flock is ahead), then builds a flock from
/// the world; steps wait meanwhile. A failure is kept for the page.
async fn rebuild(inner: Rc<RefCell<Inner>>, generation: u64) {
    let result = async {
        read_back(&inner).await.map_err(GpuError::Runtime)?;
        let (gpu, world, edits) = {
            let i = inner.borrow();
            if i.generation != generation {
                return Ok(None);
            }
            let Some(s) = &i.session else {
                return Ok(None);
            };
            (i.gpu.clone(), s.world().clone(), i.edits)
        };
        let flock = match &world {
            AnyWorld::D2(w) => GpuFlock::new_async(&gpu, w).await.map(AnyFlock::D2),
            AnyWorld::D3(w) => GpuFlock::new_async(&gpu, w).await.map(AnyFlock::D3),
        }?;
        Ok::<_, GpuError>(Some((flock, edits)))
    }
    .await;
    let mut i = inner.borrow_mut();
    i.busy = false;
    if i.generation != generation {
        return;
    }
    match result {
        Ok(Some((flock, edits))) => {
            i.flock = Some(flock);
            i.builds += 1;
            // Edits made while it was built wait for the next one.
            i.stale = i.edits != edits;
            i.ahead = false;
        }
        Ok(None) => {}
        // A world beyond the GPU backend is this world's refusal, not the
        // device's failure.
        Err(e @ (GpuError::Unsupported(_) | GpuError::TooLarge { .. })) => {
            i.unsupported = Some(e.to_string())
        }
        Err(e) => i.fail(e.to_string()),
    }
}

//! The game's window: the title screen and level select, a level played live at
//! a fixed 60 steps per second (the player's input turned into the commands a
//! recording holds), or a recording played back; the camera follows the swarm,
//! egui draws the HUD and the menus; progress is saved when a level ends.

use super::audio::Output;
use super::hud::{self, View};
use super::menus::{self, Choice};
use super::progress::Store;
use crate::gfx::Gfx;
use anyhow::{Context, Result};
use glam::{Vec2, Vec3};
use murmuration_game::keys::{Action, Keymap};
use murmuration_game::sound::Voice;
use murmuration_game::{Command, Game, Level, Recording, levels};
use murmuration_render::{Camera, RenderSettings, Scene, Trails};
use std::path::PathBuf;
use std::time::Instant;
use winit::application::ApplicationHandler;
use winit::event::{ElementState, KeyEvent, MouseButton, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::keyboard::{Key, ModifiersState};
use winit::window::{Fullscreen, WindowId};

/// Half the visible height, level units: maps are larger than the screen.
const VIEW: f32 = 30.0;

/// How the window was asked to run.
pub struct Options {
    /// Window size, pixels.
    pub size: (u32, u32),
    /// Open this level at once (shipped index or a loaded level with its key).
    pub start: Option<(Level, String, Option<usize>)>,
    /// Play this recording back instead of taking input.
    pub replay: Option<Recording>,
    /// Close after this many frames, stepping one fixed step per frame.
    pub frames: Option<u64>,
    /// Save the last frame (with `frames`).
    pub screenshot: Option<PathBuf>,
    /// Write what was played as a recording when the level ends or the window closes.
    pub record: Option<PathBuf>,
    /// Open the level with the pause menu shown.
    pub paused: bool,
}

/// A level in play.
struct Play {
    game: Game,
    level: Level,
    key: String,
    index: Option<usize>,
    recording: Recording,
    replay: Option<(Recording, usize)>,
    paused: bool,
    best: bool,
    saved_progress: bool,
    light: hud::LightTrail,
    /// Input gathered since the last step.
    pending: Vec<Command>,
    pointer_sent: Option<Vec2>,
    keys_sent: (i8, i8),
    /// The hunters' meals, flashing where they happened.
    meals: hud::Meals,
    /// The swarm's voice and one step's samples of it.
    voice: Voice,
    sound: Vec<f32>,
}

impl Play {
    fn new(
        level: Level,
        key: String,
        index: Option<usize>,
        replay: Option<Recording>,
    ) -> Result<Self> {
        let game = Game::new(&level)?;
        let recording = Recording::new(&level, &key);
        Ok(Self {
            game,
            recording,
            level,
            key,
            index,
            replay: replay.map(|r| (r, 0)),
            paused: false,
            best: false,
            saved_progress: false,
            light: hud::LightTrail::default(),
            pending: Vec::new(),
            pointer_sent: None,
            keys_sent: (0, 0),
            meals: hud::Meals::default(),
            voice: Voice::default(),
            sound: Vec::new(),
        })
    }

    /// One fixed step with the gathered input (or the recording's commands),
    /// its sound queued for `audio`.
    fn step(&mut self, audio: &Output) {
        let step = self.game.step_index();
        let commands = match &mut self.replay {
            Some((rec, next)) => rec.commands_at(step, next),
            None => std::mem::take(&mut self.pending),
        };
        self.recording.record(step, &commands);
        self.game.step(&commands);
        let dt = self.game.world().config().dt;
        self.meals.step(self.game.events(), dt);
        if audio.live() {
            self.sound.clear();
            self.voice.step(&self.game, &mut self.sound);
            audio.push(&self.sound);
        }
        self.light.step(step, self.game.centroid());
    }
}

enum Screen {
    Title,
    Playing(Box<Play>),
}

struct App {
    opts: Options,
    gfx: Option<Gfx>,
    screen: Screen,
    store: Store,
    /// The shipped levels' titles, for the title screen (parsed once).
    titles: Vec<String>,
    settings: RenderSettings,
    scene: Scene,
    trails: Trails,
    camera: Camera,
    frame: u64,
    last: Instant,
    carry: f64,
    error: Option<anyhow::Error>,
    /// The cursor in window pixels, once it has moved over the window.
    cursor: Option<Vec2>,
    modifiers: ModifiersState,
    keys: [bool; 4],
    drawing: bool,
    last_click: Option<Instant>,
    fullscreen: bool,
    audio: Output,
    /// The title screen's line about sound ([`Output::title_line`]).
    sound: String,
    /// The action waiting for its new key (pause menu, "rebind").
    rebinding: Option<Action>,
}

/// Opens the game's window and runs until it is closed.
pub fn run(opts: Options) -> Result<()> {
    let event_loop = EventLoop::new().context("cannot connect to the display")?;
    // Said once: where the sound goes, or why the game is silent.
    let (audio, opened) = Output::open();
    let sound = Output::title_line(&opened);
    match opened {
        Ok(device) => eprintln!("sound: playing on {device}"),
        Err(why) => eprintln!(
            "sound: the game plays silent: {why}; `--headless --audio-out FILE.wav` renders the swarm's sound"
        ),
    }
    let store = Store::open();
    let screen = match &opts.start {
        Some((level, key, index)) => {
            let mut play = Play::new(level.clone(), key.clone(), *index, opts.replay.clone())?;
            play.paused = opts.paused;
            Screen::Playing(Box::new(play))
        }
        None => Screen::Title,
    };
    let mut app = App {
        opts,
        gfx: None,
        screen,
        store,
        titles: levels::LEVELS
            .iter()
            .map(|l| {
                Level::parse(l.text, l.key)
                    .map_or_else(|_| l.key.to_string(), |lv| lv.title().to_string())
            })
            .collect(),
        settings: super::render_settings(),
        scene: Scene::new(),
        trails: Trails::default(),
        camera: Camera::fit(2, Vec3::ZERO, Vec3::ONE, 1.0),
        frame: 0,
        last: Instant::now(),
        carry: 0.0,
        error: None,
        cursor: None,
        modifiers: ModifiersState::empty(),
        keys: [false; 4],
        drawing: false,
        last_click: None,
        fullscreen: false,
        sound,
        audio,
        rebinding: None,
    };
    // A window destroyed under the game (no close request: `xdotool
    // windowclose`, a crashed window manager) panics inside winit's X11
    // backend; what was played is written all the same.
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        event_loop.run_app(&mut app)
    }));
    app.write_recording()?;
    match ran {
        Ok(r) => r.context("the window's event loop failed")?,
        Err(_) => {
            anyhow::bail!("the window was destroyed under the game (what was played is kept)")
        }
    }
    if let Some(e) = app.error {
        return Err(e);
    }
    Ok(())
}

impl App {
    fn view(&self) -> View {
        let ppp = self.points_per_pixel();
        let size = self.gfx.as_ref().map_or(egui::vec2(1.0, 1.0), |g| {
            egui::vec2(g.config.width as f32 * ppp, g.config.height as f32 * ppp)
        });
        let t = self.camera.target();
        View {
            centre: Vec2::new(t.x, t.y),
            half_height: VIEW,
            size,
        }
    }

    fn start(&mut self, index: usize) -> Result<()> {
        let s = &levels::LEVELS[index];
        let level = Level::parse(s.text, s.key)?;
        self.write_recording()?;
        self.screen = Screen::Playing(Box::new(Play::new(level, s.key.into(), Some(index), None)?));
        self.trails.clear();
        self.frame_camera(1.0);
        Ok(())
    }

    fn restart(&mut self) -> Result<()> {
        if let Screen::Playing(p) = &self.screen {
            let (level, key, index) = (p.level.clone(), p.key.clone(), p.index);
            let replay = p.replay.as_ref().map(|(r, _)| r.clone());
            self.write_recording()?;
            self.screen = Screen::Playing(Box::new(Play::new(level, key, index, replay)?));
            self.trails.clear();
            self.frame_camera(1.0);
        }
        Ok(())
    }

    /// Writes the level being played as a recording (`--record`).
    fn write_recording(&mut self) -> Result<()> {
        let (Some(path), Screen::Playing(p)) = (&self.opts.record, &self.screen) else {
            return Ok(());
        };
        let mut rec = p.recording.clone();
        rec.finish(&p.game);
        if p.game.outcome().is_none() {
            rec.end = None; // unfinished: nothing to verify against
        }
        let mut f = crate::outputs::AtomicFile::create(path, "--record")?;
        std::io::Write::write_all(f.writer(), rec.to_text().as_bytes())?;
        f.finish()
    }

    /// Eases the camera toward the swarm (`blend` 1 jumps there).
    fn frame_camera(&mut self, blend: f32) {
        let Screen::Playing(p) = &self.screen else {
            return;
        };
        let c = p.game.centroid();
        let v = self.view();
        let aspect = v.size.x / v.size.y.max(1.0);
        let half = Vec3::new(VIEW * aspect, VIEW, 0.0);
        let c = Vec3::new(c.x, c.y, 0.0);
        self.camera.frame(c - half, c + half, aspect, blend);
    }

    /// Turns the held movement keys into a command when they change.
    fn gather_keys(&mut self) {
        let Screen::Playing(p) = &mut self.screen else {
            return;
        };
        let [up, left, down, right] = self.keys;
        let k = ((right as i8) - (left as i8), (up as i8) - (down as i8));
        if k != p.keys_sent {
            p.pending.push(Command::Keys(k.0, k.1));
            p.keys_sent = k;
        }
    }

    /// egui points per window pixel: the screen's scale and the UI's zoom
    /// ([`hud::zoom`]) both count.
    fn points_per_pixel(&self) -> f32 {
        self.gfx
            .as_ref()
            .map_or(1.0, |g| 1.0 / g.ctx.pixels_per_point().max(1e-3))
    }

    fn pointer_level(&self) -> Vec2 {
        let c = self.cursor.unwrap_or(Vec2::ZERO) * self.points_per_pixel();
        self.view().to_level(egui::pos2(c.x, c.y))
    }

    /// The pointer's command, every frame: the point under the cursor as the
    /// camera shows the level now, so a still cursor keeps leading while the
    /// camera follows the swarm (pointer-in-world, not pointer deltas), drawn
    /// in to the focus's reach ([`murmuration_game::Controls::lead`]). Sent when it has moved a
    /// twentieth of a unit, so a recording holds what the player did.
    fn lead(&mut self) {
        if self.cursor.is_none() {
            return;
        }
        let at = self.pointer_level();
        let Some(p) = self.playing_input() else {
            return;
        };
        let at = p.level.controls.lead(at, p.game.centroid());
        if p.pointer_sent.is_some_and(|s| (s - at).length() < 0.05) {
            return;
        }
        // One pointer command per step is enough: replace a pending one.
        p.pending.retain(|c| !matches!(c, Command::Point(_)));
        p.pending.push(Command::Point(at));
        p.pointer_sent = Some(at);
    }

    fn redraw(&mut self, el: &ActiveEventLoop) -> Result<()> {
        let now = Instant::now();
        let real = now.duration_since(self.last).as_secs_f64().min(0.1);
        self.last = now;
        if let Some(g) = &self.gfx {
            // The UI scales with the window's height (its menus scroll where
            // they still do not fit).
            let logical = g.config.height as f32 / g.window.scale_factor() as f32;
            let zoom = hud::zoom(logical);
            if (g.ctx.zoom_factor() - zoom).abs() > 1e-3 {
                g.ctx.set_zoom_factor(zoom);
            }
        }
        self.lead();
        self.advance(real);
        self.frame_camera(if self.frame == 0 { 1.0 } else { 0.08 });
        let view = self.view();
        let mut choice = Choice::None;
        let g = self.gfx.as_mut().expect("window open");
        let (screen, store, titles) = (&self.screen, &self.store, &self.titles);
        let sound = self.sound.as_str();
        let rebinding = self.rebinding;
        let full = g.run_ui(|ui| {
            let ctx = ui.ctx().clone();
            match screen {
                Screen::Title => {
                    choice = menus::title(
                        &ctx,
                        titles,
                        &store.progress,
                        &store.keys,
                        store.note.as_deref(),
                        sound,
                    )
                }
                Screen::Playing(p) => {
                    let hint = p.game.hint();
                    hud::overlay(ui, &p.game, &view, &p.light, hint);
                    p.meals.draw(ui.painter(), &view);
                    if p.game.outcome().is_some() {
                        let has_next = p.index.is_some_and(|i| i + 1 < levels::LEVELS.len());
                        choice = menus::ended(&ctx, &p.game, p.best, has_next);
                    } else if p.paused {
                        choice = menus::pause(&ctx, &store.keys, rebinding);
                    }
                }
            }
        });
        match screen {
            Screen::Playing(p) => {
                super::look::update(&mut self.scene, &p.game, &self.settings, &mut self.trails)
            }
            Screen::Title => {
                self.scene.boids.clear();
                self.scene.lines.clear();
                self.scene.fills.clear();
            }
        }
        let (scene, settings, camera) = (&self.scene, &self.settings, &self.camera);
        let done = g.paint_counted(
            full,
            |r, view, (w, h)| {
                r.render_in(
                    scene,
                    camera,
                    settings,
                    view,
                    (w, h),
                    [0.0, 0.0, w as f32, h as f32],
                )
            },
            &mut self.frame,
            self.opts.frames,
            self.opts.screenshot.as_deref(),
        )?;
        if done {
            el.exit();
        }
        self.choose(choice, el)?;
        Ok(())
    }

    /// Fixed steps of the game being played: one per frame in scripted runs,
    /// else as many as the `real` seconds since the last frame allow (at most
    /// six); the best result is recorded when the level ends.
    fn advance(&mut self, real: f64) {
        self.gather_keys();
        let scripted = self.opts.frames.is_some();
        if let Screen::Playing(p) = &mut self.screen
            && !p.paused
            && p.game.outcome().is_none()
        {
            let dt = p.game.world().config().dt as f64;
            let steps = if scripted {
                1
            } else {
                self.carry += real;
                let n = (self.carry / dt).floor().min(6.0);
                self.carry -= n * dt;
                n as u64
            };
            for _ in 0..steps {
                p.step(&self.audio);
            }
            if p.game.outcome().is_some() && !p.saved_progress {
                p.saved_progress = true;
                if p.replay.is_none()
                    && let Some(o) = p.game.outcome()
                {
                    p.best = self.store.record(&p.key, o);
                }
            }
        }
    }

    /// What the player chose on a screen.
    fn choose(&mut self, choice: Choice, el: &ActiveEventLoop) -> Result<()> {
        match choice {
            Choice::None => {}
            Choice::Play(i) => self.start(i)?,
            Choice::Resume => {
                if let Screen::Playing(p) = &mut self.screen {
                    p.paused = false;
                }
            }
            Choice::Restart => self.restart()?,
            Choice::Next => {
                let next = match &self.screen {
                    Screen::Playing(p) => p.index.map(|i| i + 1),
                    Screen::Title => None,
                };
                match next {
                    Some(i) if i < levels::LEVELS.len() => self.start(i)?,
                    _ => self.screen = Screen::Title,
                }
            }
            Choice::Levels => {
                self.write_recording()?;
                self.screen = Screen::Title;
            }
            Choice::Quit => el.exit(),
            Choice::Rebind(a) => self.rebinding = Some(a),
            Choice::ResetKeys => {
                self.store.keys = Keymap::default();
                self.store.save_keys();
                self.rebinding = None;
            }
        }
        Ok(())
    }

    fn playing_input(&mut self) -> Option<&mut Play> {
        match &mut self.screen {
            Screen::Playing(p) if p.replay.is_none() && !p.paused => Some(p),
            _ => None,
        }
    }

    fn mouse(&mut self, button: MouseButton, state: ElementState) {
        let at = self.pointer_level();
        let shift = self.modifiers.shift_key();
        let now = Instant::now();
        let double = button == MouseButton::Left
            && state == ElementState::Pressed
            && self
                .last_click
                .is_some_and(|t| now.duration_since(t).as_secs_f32() < 0.35);
        if button == MouseButton::Left && state == ElementState::Pressed {
            self.last_click = Some(now);
        }
        let drawing = self.drawing;
        let Some(p) = self.playing_input() else {
            return;
        };
        match (button, state) {
            (MouseButton::Left, ElementState::Pressed) if shift => {
                p.pending.push(Command::PathBegin(at));
                self.drawing = true;
            }
            (MouseButton::Left, ElementState::Pressed) if double => p.pending.push(Command::Recall),
            (MouseButton::Left, ElementState::Released) if drawing => {
                p.pending.push(Command::PathEnd);
                self.drawing = false;
            }
            (MouseButton::Right, ElementState::Pressed) => p.pending.push(Command::Pulse(at)),
            _ => {}
        }
    }

    /// The cursor moved: a light path being drawn grows; the pointer's own
    /// command is sent each frame ([`Self::lead`]).
    fn moved(&mut self, to: Vec2) {
        self.cursor = Some(to);
        let at = self.pointer_level();
        let drawing = self.drawing;
        let Some(p) = self.playing_input() else {
            return;
        };
        if drawing {
            p.pending.push(Command::PathTo(at));
        }
    }

    fn key(&mut self, el: &ActiveEventLoop, event: &KeyEvent) -> Result<()> {
        let pressed = event.state == ElementState::Pressed;
        let Some(name) = key_name(&event.logical_key) else {
            return Ok(());
        };
        if let Some(action) = self.rebinding {
            if pressed && !event.repeat {
                self.rebinding = None;
                if name != "Escape" {
                    self.store.keys.rebind(action, &name);
                    self.store.save_keys();
                }
            }
            return Ok(());
        }
        let Some(action) = self.store.keys.action(&name) else {
            return Ok(());
        };
        if let Some(i) = action.held() {
            self.keys[i] = pressed;
            return Ok(());
        }
        if !pressed || event.repeat {
            return Ok(());
        }
        let at = self.pointer_level();
        match action {
            Action::Pause => match &mut self.screen {
                Screen::Playing(p) if p.game.outcome().is_none() => p.paused = !p.paused,
                Screen::Playing(_) => self.screen = Screen::Title,
                Screen::Title => el.exit(),
            },
            Action::Recall => {
                if let Some(p) = self.playing_input() {
                    p.pending.push(Command::Recall);
                }
            }
            Action::Fullscreen => {
                self.fullscreen = !self.fullscreen;
                if let Some(g) = &self.gfx {
                    g.window
                        .set_fullscreen(self.fullscreen.then_some(Fullscreen::Borderless(None)));
                }
            }
            Action::Restart => self.restart()?,
            Action::Pulse => {
                if let Some(p) = self.playing_input() {
                    p.pending.push(Command::Pulse(at));
                }
            }
            Action::FocusUp | Action::FocusLeft | Action::FocusDown | Action::FocusRight => {}
        }
        Ok(())
    }
}

/// A key as `keys.toml` names it: a character in upper case (`W`), or a named
/// key (`ArrowUp`, `Space`, `Escape`, `F11`).
fn key_name(key: &Key) -> Option<String> {
    match key {
        Key::Character(c) => Some(c.to_uppercase()),
        Key::Named(n) => Some(format!("{n:?}")),
        _ => None,
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, el: &ActiveEventLoop) {
        if self.gfx.is_none() {
            match Gfx::open(el, "Lumen Swarm", self.opts.size, |_| Ok(None)) {
                Ok((g, _)) => {
                    self.gfx = Some(g);
                    self.frame_camera(1.0);
                }
                Err(e) => {
                    self.error = Some(e);
                    el.exit();
                }
            }
        }
    }

    fn window_event(&mut self, el: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some(g) = self.gfx.as_mut() else { return };
        let consumed = g.egui_state.on_window_event(&g.window, &event).consumed;
        let result = match event {
            WindowEvent::CloseRequested => {
                el.exit();
                Ok(())
            }
            WindowEvent::Resized(size) => {
                g.resize(size);
                Ok(())
            }
            WindowEvent::RedrawRequested => self.redraw(el),
            WindowEvent::ModifiersChanged(m) => {
                self.modifiers = m.state();
                Ok(())
            }
            WindowEvent::CursorMoved { position, .. } => {
                let ppp = g.window.scale_factor() as f32;
                self.moved(Vec2::new(position.x as f32, position.y as f32) / ppp);
                Ok(())
            }
            WindowEvent::MouseInput { state, button, .. }
                if !consumed || state == ElementState::Released =>
            {
                self.mouse(button, state);
                Ok(())
            }
            // A key being bound reaches the game even when egui has the focus
            // (the "rebind" button just clicked).
            WindowEvent::KeyboardInput { event, .. } if !consumed || self.rebinding.is_some() => {
                self.key(el, &event)
            }
            _ => Ok(()),
        };
        if let Err(e) = result {
            self.error = Some(e);
            el.exit();
        }
    }

    fn about_to_wait(&mut self, _el: &ActiveEventLoop) {
        if let Some(g) = &self.gfx {
            g.window.request_redraw();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use winit::keyboard::NamedKey;

    #[test]
    fn every_default_key_is_a_name_the_window_gives_a_key() {
        let named = [
            NamedKey::ArrowUp,
            NamedKey::ArrowLeft,
            NamedKey::ArrowDown,
            NamedKey::ArrowRight,
            NamedKey::Space,
            NamedKey::Escape,
            NamedKey::F11,
        ];
        let given: Vec<String> = named
            .iter()
            .filter_map(|&n| key_name(&Key::Named(n)))
            .chain(
                ["w", "a", "s", "d", "e", "r"]
                    .map(|c| key_name(&Key::Character(c.into())).unwrap()),
            )
            .collect();
        for a in Action::ALL {
            for k in a.default_keys() {
                assert!(given.iter().any(|g| g == k), "{a:?}: no key is named {k:?}");
            }
        }
        assert_eq!(key_name(&Key::Character("q".into())).as_deref(), Some("Q"));
    }
}

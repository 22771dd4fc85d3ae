//! `murmuration game [LEVEL]`: Lumen Swarm (docs/GAME.md). The window opens on
//! the title screen, or on LEVEL; `--replay FILE` plays a recording back (in the
//! window, `--headless` printing its outcome, or `--render OUT` drawn offscreen
//! into a PNG, GIF, folder or MP4 with the camera following the swarm).

mod audio;
pub mod bench;
mod hud;
mod look;
mod menus;
mod progress;
mod window;

use crate::failure::invalid;
use crate::frames::{self, Sink};
use crate::out::outln;
use crate::render::parse_size;
use crate::run::thread_pool;
use anyhow::{Context, Result};
use clap::Args;
use murmuration::glam::Vec3;
use murmuration::scenario::Override;
use murmuration_game::sound::{SAMPLE_RATE, Voice};
use murmuration_game::{Game, Level, Recording, levels};
use murmuration_render::{Camera, Offscreen, RenderSettings, Scene, Trails};
use std::path::PathBuf;

/// Options of `murmuration game`.
#[derive(Args, Debug)]
pub struct GameArgs {
    /// The level: its number (1, 2, …), its key (first-light) or a level file.
    pub level: Option<String>,
    /// A recording to play (docs/GAME.md, "Recordings").
    #[arg(long, value_name = "FILE")]
    pub replay: Option<PathBuf>,
    /// Play the recording without a window and print the outcome, the creatures
    /// saved and the digest.
    #[arg(long)]
    pub headless: bool,
    /// Draw the replay offscreen: a .png (the last frame), .gif, folder or .mp4.
    #[arg(long, value_name = "OUT")]
    pub render: Option<PathBuf>,
    /// Render the swarm's sound to this WAV file (with --headless or --render):
    /// 44.1 kHz mono, one chirp after another from the creatures, its warmth
    /// following the swarm's density.
    #[arg(long, value_name = "FILE.wav")]
    pub audio_out: Option<PathBuf>,
    /// Write the replay, finished with its end, to FILE (re-record a recording
    /// that no longer replays, or finish a hand-written script).
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// At most this many frames are drawn (default: to the level's end); in
    /// the window, one fixed step per frame, then it closes (scripted runs).
    #[arg(long)]
    pub frames: Option<u32>,
    /// Save the window's last frame to this PNG (with --frames).
    #[arg(long, value_name = "FILE.png")]
    pub screenshot: Option<PathBuf>,
    /// Simulation steps between two drawn frames.
    #[arg(long, default_value_t = 4)]
    pub stride: u64,
    /// Frames per second of a GIF or MP4.
    #[arg(long, default_value_t = 15)]
    pub fps: u32,
    /// Picture or window size, WIDTHxHEIGHT pixels.
    #[arg(long, default_value = "1280x720", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Half the height of the view, level units.
    #[arg(long, default_value_t = VIEW)]
    pub view: f32,
    /// Change a level value (repeatable), e.g. game.save=1000.
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub set: Vec<Override>,
    /// Worker threads for the simulation.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Open LEVEL with the pause menu shown (its controls and their keys), as
    /// Esc does: for a screenshot of it with --frames and --screenshot.
    #[arg(long, requires = "level")]
    pub paused: bool,
}

/// The level `name` names, with the name a recording uses for it.
pub(crate) fn load(name: &str, set: &[Override]) -> Result<(Level, String)> {
    if let Some((_, s)) = levels::find(name) {
        let level = Level::parse_with(s.text, &format!("levels/{}", s.key), set)?;
        return Ok((level, s.key.to_string()));
    }
    let path = std::path::Path::new(name);
    if path.exists() {
        let level = Level::load(path, set)?;
        let key = path
            .file_stem()
            .map_or_else(|| name.to_string(), |s| s.to_string_lossy().into_owned());
        return Ok((level, key));
    }
    let keys: Vec<String> = levels::LEVELS
        .iter()
        .enumerate()
        .map(|(i, l)| format!("{} {}", i + 1, l.key))
        .collect();
    Err(invalid(format!(
        "no level {name:?}: give a number, a key ({}) or a level file",
        keys.join(", ")
    )))
}

/// Runs `murmuration game`.
pub fn run(args: &GameArgs) -> Result<()> {
    if args.headless || args.render.is_some() {
        return offline(args);
    }
    if !crate::play::display_available() {
        return Err(invalid(
            "the game needs a display (no DISPLAY or WAYLAND_DISPLAY is set); without one play a recording with --headless or draw it with --render OUT",
        ));
    }
    crate::play::check_script(args.frames.is_some(), args.screenshot.as_deref())?;
    if let Some(p) = &args.record {
        crate::outputs::probe(p, "--record")?;
    }
    let start = match &args.level {
        Some(name) => {
            let (level, key) = load(name, &args.set)?;
            let index = levels::find(name).map(|(i, _)| i);
            Some((level, key, index))
        }
        None => None,
    };
    let replay = match (&args.replay, &start) {
        (Some(path), Some((level, key, _))) => {
            let rec = Recording::load(path)?;
            rec.check_level(level, key, &path.display().to_string())?;
            Some(rec)
        }
        (Some(_), None) => return Err(invalid("--replay needs a LEVEL")),
        _ => None,
    };
    window::run(window::Options {
        size: args.size,
        start,
        replay,
        frames: args.frames.map(u64::from),
        screenshot: args.screenshot.clone(),
        record: args.record.clone(),
        paused: args.paused,
    })
}

/// `--headless` or `--render`: a recording played without a window.
fn offline(args: &GameArgs) -> Result<()> {
    let Some(name) = &args.level else {
        return Err(invalid(
            "--headless and --render play a LEVEL's recording: give the level",
        ));
    };
    let (level, key) = load(name, &args.set)?;
    let Some(replay) = &args.replay else {
        return Err(invalid(format!(
            "--headless and --render play a recording: give --replay FILE (the shipped solution is levels/solutions/{key}.replay)"
        )));
    };
    if args.stride == 0 || args.fps == 0 || args.fps > 100 || args.frames == Some(0) {
        return Err(invalid(
            "--stride and --frames must be at least 1, --fps in [1, 100]",
        ));
    }
    if !(args.view.is_finite() && args.view > 0.0) {
        return Err(invalid(format!("--view {} must be positive", args.view)));
    }
    let origin = replay.display().to_string();
    let rec = Recording::load(replay)?;
    rec.check_level(&level, &key, &origin)?;
    if let Some(out) = &args.record {
        crate::outputs::probe(out, "--record")?;
    }
    if let Some(out) = &args.audio_out {
        if out.extension().is_none_or(|e| e != "wav") {
            return Err(invalid(format!(
                "--audio-out {}: the sound is written as a .wav file",
                out.display()
            )));
        }
        crate::outputs::probe(out, "--audio-out")?;
    }
    let mut sound = args
        .audio_out
        .as_ref()
        .map(|_| (Voice::default(), Vec::new()));
    let kind = match &args.render {
        Some(out) => Some(frames::check(out, "--render")?),
        None => None,
    };
    let pool = thread_pool(args.threads)?;
    let game = pool.install(|| -> Result<Game> {
        match (&args.render, kind) {
            (Some(out), Some(kind)) => draw(&level, &rec, args, out, kind, sound.as_mut()),
            _ => {
                let mut game = Game::new(&level)?;
                play(&mut game, &rec, u64::MAX, &mut 0, sound.as_mut());
                Ok(game)
            }
        }
    })?;
    let verified = args.frames.is_none() || game.outcome().is_some();
    if verified {
        rec.verify(&game, &origin)?;
    }
    let o = game.outcome();
    outln!("level: {} ({key})", level.title())?;
    outln!("outcome: {}", o.map_or("undecided", |o| o.word()))?;
    if let Some(o) = o {
        outln!("message: {o}")?;
        outln!(
            "rating: {} ({} stars; par: {} saved, {} s)",
            o.star_text(),
            o.stars,
            level.par.saved,
            level.par.time
        )?;
    }
    outln!(
        "saved: {} / {} (of {})",
        game.saved(),
        level.save,
        level.creatures()
    )?;
    outln!("eaten: {}", game.eaten())?;
    outln!("time: {:.2} s ({} steps)", game.time(), game.step_index())?;
    outln!("digest: {:016x}", game.digest())?;
    if let (Some(out), Some((_, samples))) = (&args.audio_out, &sound) {
        write_wav(out, samples)?;
        outln!(
            "sound: {} ({:.1} s)",
            out.display(),
            samples.len() as f64 / SAMPLE_RATE as f64
        )?;
    }
    if let Some(out) = &args.record {
        let mut finished = rec.clone();
        finished.finish(&game);
        let mut file = crate::outputs::AtomicFile::create(out, "--record")?;
        std::io::Write::write_all(file.writer(), finished.to_text().as_bytes())?;
        file.finish()?;
        outln!("recorded: {}", out.display())?;
    }
    Ok(())
}

/// The swarm's voice and the samples it has given.
type Sound = (Voice, Vec<f32>);

/// Plays the recording's steps from where `game` is, at most `steps` of them
/// (or to the level's end); `next` is the cursor into its commands. With
/// `sound`, each step's samples are added.
fn play(
    game: &mut Game,
    rec: &Recording,
    steps: u64,
    next: &mut usize,
    mut sound: Option<&mut Sound>,
) {
    let end = game.step_index().saturating_add(steps).min(rec.steps);
    while game.step_index() < end && game.outcome().is_none() {
        let commands = rec.commands_at(game.step_index(), next);
        game.step(&commands);
        if let Some((voice, samples)) = sound.as_deref_mut() {
            voice.step(game, samples);
        }
    }
}

/// Writes mono samples in [-1, 1] as a 16-bit WAV file, atomically.
fn write_wav(out: &std::path::Path, samples: &[f32]) -> Result<()> {
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: SAMPLE_RATE,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut file = crate::outputs::AtomicFile::create(out, "--audio-out")?;
    {
        let mut w = hound::WavWriter::new(file.writer(), spec)
            .with_context(|| format!("cannot write {}", out.display()))?;
        for &s in samples {
            w.write_sample((s.clamp(-1.0, 1.0) * i16::MAX as f32) as i16)?;
        }
        w.finalize()?;
    }
    file.finish()
}

/// How the game draws (the window and offscreen): short motion trails.
pub(crate) fn render_settings() -> RenderSettings {
    RenderSettings {
        trails: 6,
        ..RenderSettings::default()
    }
}

/// Half the height of an offscreen view of a level, level units.
pub(crate) const VIEW: f32 = 34.0;

/// A game drawn offscreen, frame by frame, the camera easing after the led
/// swarm's centroid (`game --render` and `bench --level --render`).
pub(crate) struct Drawing {
    offscreen: Offscreen,
    settings: RenderSettings,
    scene: Scene,
    trails: Trails,
    camera: Option<Camera>,
    half: Vec3,
}

impl Drawing {
    /// Pictures of `w` × `h` pixels of `level`, `view` units half high.
    pub(crate) fn new(level: &Level, (w, h): (u32, u32), view: f32) -> Result<Self> {
        let offscreen = Offscreen::new(w, h).context(
            "offscreen rendering needs a GPU or Mesa's software Vulkan driver (apt-get install mesa-vulkan-drivers libvulkan1)",
        )?;
        let mut scene = Scene::new();
        scene.looks = level.scenario().looks().to_vec();
        Ok(Self {
            offscreen,
            settings: render_settings(),
            scene,
            trails: Trails::default(),
            camera: None,
            half: Vec3::new(view * w as f32 / h as f32, view, 0.0),
        })
    }

    /// The game's present state as RGBA pixels.
    pub(crate) fn frame(&mut self, game: &Game) -> Result<Vec<u8>> {
        let c = game.centroid();
        let c = Vec3::new(c.x, c.y, 0.0);
        let (lo, hi) = (c - self.half, c + self.half);
        let aspect = self.half.x / self.half.y;
        match &mut self.camera {
            Some(camera) => camera.frame(lo, hi, aspect, 0.12),
            None => self.camera = Some(Camera::fit(2, lo, hi, aspect)),
        }
        let camera = self.camera.as_ref().expect("framed above");
        look::update(&mut self.scene, game, &self.settings, &mut self.trails);
        Ok(self.offscreen.render(&self.scene, camera, &self.settings)?)
    }

    /// The adapter drawing.
    pub(crate) fn adapter(&self) -> String {
        self.offscreen.adapter()
    }
}

/// Draws the replay, the camera easing after the swarm's centroid.
fn draw(
    level: &Level,
    rec: &Recording,
    args: &GameArgs,
    out: &std::path::Path,
    kind: frames::Kind,
    mut sound: Option<&mut Sound>,
) -> Result<Game> {
    let mut drawing = Drawing::new(level, args.size, args.view)?;
    let mut game = Game::new(level)?;
    let mut sink = Sink::open(out, kind, args.size, args.fps)?;
    let mut next = 0;
    let limit = args.frames.unwrap_or(u32::MAX);
    loop {
        sink.push(drawing.frame(&game)?)?;
        if sink.frames() >= limit || game.outcome().is_some() || game.step_index() >= rec.steps {
            break;
        }
        play(&mut game, rec, args.stride, &mut next, sound.as_deref_mut());
    }
    let n = sink.frames();
    sink.finish()?;
    outln!("wrote {} ({n} frames)", out.display())?;
    Ok(game)
}

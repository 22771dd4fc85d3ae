//! `murmuration play [FILE]`: the sandbox — a window (winit + wgpu) drawing the
//! live flock with the renderer, and an egui panel bound to every parameter.

mod clock;
mod flock;
mod panel;
mod sim;
mod window;

use crate::backend::Backend;
use crate::failure::invalid;
use anyhow::Result;
use clap::Args;
use murmuration::scenario::Override;
use std::path::PathBuf;

/// Options of `murmuration play`.
#[derive(Args, Debug, Default)]
pub struct PlayArgs {
    /// Scenario file or preset name (default: the embedded default scenario).
    pub file: Option<String>,
    /// Window size, WIDTHxHEIGHT.
    #[arg(long, default_value = "1280x800", value_parser = crate::render::parse_size)]
    pub size: (u32, u32),
    /// Close after this many frames (for scripted runs and tests).
    #[arg(long)]
    pub frames: Option<u64>,
    /// Save the window's last frame to this PNG (with --frames).
    #[arg(long, value_name = "FILE.png")]
    pub screenshot: Option<PathBuf>,
    /// Steps run before the first frame, so a scripted screenshot shows a formed
    /// flock (on the CPU, before the window opens).
    #[arg(long, default_value_t = 0)]
    pub warmup: u64,
    /// Select this boid at the start (its radii, vision cone and forces are drawn).
    #[arg(long, value_name = "ID")]
    pub select: Option<u32>,
    /// Engine: cpu, gpu or auto. On the GPU the flock steps on the window's
    /// device and is drawn straight from its buffers, with every behaviour; a
    /// research model (vicsek, couzin, ...) steps on the CPU and the panel says so.
    #[arg(long, default_value_t = Backend::Cpu, value_name = "cpu|gpu|auto")]
    pub backend: Backend,
    /// Random seed (overrides world.seed).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Change a scenario value (repeatable).
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub set: Vec<Override>,
}

/// True when a window can be opened here (an X11 or Wayland display is set).
pub fn display_available() -> bool {
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()))
}

/// A scripted window run's options: a screenshot needs the frame count, and
/// its file must be writable before the window opens.
pub fn check_script(frames: bool, screenshot: Option<&std::path::Path>) -> Result<()> {
    if let Some(p) = screenshot {
        if !frames {
            return Err(invalid("--screenshot needs --frames N (the frame to save)"));
        }
        crate::outputs::probe(p, "--screenshot")?;
    }
    Ok(())
}

/// Runs the sandbox.
pub fn run(args: &PlayArgs) -> Result<()> {
    if !display_available() {
        return Err(invalid(
            "play needs a display (no DISPLAY or WAYLAND_DISPLAY is set); for pictures without one use `murmuration render FILE --frames 120 --out flock.gif`",
        ));
    }
    check_script(args.frames.is_some(), args.screenshot.as_deref())?;
    let scenario = crate::presets::load_seeded(args.file.as_deref(), args.seed, &args.set)?;
    window::run(args, scenario)
}

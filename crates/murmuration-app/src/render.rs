//! `murmuration render [FILE] --frames N --out flock.gif|flock.png|frames/|flock.mp4`:
//! headless pictures of a run, rendered offscreen (no window; lavapipe on a
//! machine without a GPU).

use crate::backend::{self, Backend};
use crate::failure::{Interrupted, invalid};
use crate::frames::{self, Kind, Sink};
use crate::out::outln;
use crate::run::thread_pool;
use crate::{presets, progress};
use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use murmuration::glam::Vec3;
use murmuration::scenario::{AnyWorld, Look, Override};
use murmuration::{Vector, World, WorldConfig};
use murmuration_gpu::{GpuVector, Simulation};
use murmuration_render::{
    Camera, ColourMode, FrameTimes, Offscreen, PassTimes, RenderSettings, Scene, Trails,
};
use std::path::PathBuf;

/// Boid colouring on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Colour {
    /// One colour per species.
    Species,
    /// By speed (blue slow, red at max speed).
    Speed,
    /// By neighbours within perception.
    Neighbours,
}

/// Options of `murmuration render`.
#[derive(Args, Debug)]
pub struct RenderArgs {
    /// Scenario file or preset name (default: the embedded default scenario).
    pub file: Option<String>,
    /// Frames to draw.
    #[arg(long, default_value_t = 60)]
    pub frames: u32,
    /// Output: a .png (the last frame), a .gif (animated), a folder (a PNG per
    /// frame; a trailing / or an existing folder) or an .mp4 (needs ffmpeg).
    #[arg(long, value_name = "PATH")]
    pub out: PathBuf,
    /// Picture size, WIDTHxHEIGHT pixels.
    #[arg(long, default_value = "960x540", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Simulation steps between two frames.
    #[arg(long, default_value_t = 2)]
    pub stride: u64,
    /// Steps run before the first frame (let the flock form).
    #[arg(long, default_value_t = 0)]
    pub warmup: u64,
    /// Frames per second of a GIF or MP4.
    #[arg(long, default_value_t = 30)]
    pub fps: u32,
    /// Boid colouring.
    #[arg(long, value_enum, default_value_t = Colour::Species)]
    pub colour: Colour,
    /// No glow.
    #[arg(long)]
    pub no_bloom: bool,
    /// Trail length in frames (0: none).
    #[arg(long, default_value_t = 0)]
    pub trails: u32,
    /// Frame the flock, not the box: the camera centres on the flock's bulk
    /// and zooms to hold 96 % of its boids on every axis, easing between frames.
    #[arg(long)]
    pub follow: bool,
    /// Zoom factor (2 shows half the width).
    #[arg(long, default_value_t = 1.0)]
    pub zoom: f32,
    /// Drawn length of a boid, units (0: from the separation radius and the box).
    #[arg(long, default_value_t = 0.0)]
    pub boid_size: f32,
    /// 3D camera angles in degrees: YAW,PITCH.
    #[arg(long, value_name = "YAW,PITCH", value_parser = parse_angles)]
    pub orbit: Option<(f32, f32)>,
    /// Random seed (overrides world.seed).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Change a scenario value (repeatable).
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub set: Vec<Override>,
    /// Engine: cpu, gpu, or auto. On the GPU the frames are drawn straight from
    /// the flock's buffers, except with --trails, --follow or --colour neighbours,
    /// which read the state back each frame.
    #[arg(long, default_value_t = Backend::Cpu, value_name = "cpu|gpu|auto")]
    pub backend: Backend,
    /// Worker threads for the simulation.
    #[arg(long)]
    pub threads: Option<usize>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

pub(crate) fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("{s:?} is not WIDTHxHEIGHT (e.g. 960x540)"))?;
    let p = |v: &str| v.trim().parse::<u32>().map_err(|e| format!("{v:?}: {e}"));
    let (w, h) = (p(w)?, p(h)?);
    if !(16..=8192).contains(&w) || !(16..=8192).contains(&h) {
        return Err(format!("{w}x{h} is out of range: each side in [16, 8192]"));
    }
    Ok((w, h))
}

fn parse_angles(s: &str) -> Result<(f32, f32), String> {
    let (a, b) = s
        .split_once(',')
        .ok_or_else(|| format!("{s:?} is not YAW,PITCH in degrees"))?;
    let p = |v: &str| {
        v.trim()
            .parse::<f32>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| format!("{v:?} is not a number of degrees"))
    };
    let (yaw, pitch) = (p(a)?, p(b)?);
    if pitch.abs() >= 89.0 {
        return Err(format!("pitch {pitch} is out of range: (-89, 89) degrees"));
    }
    Ok((yaw, pitch))
}

/// Runs `murmuration render`.
pub fn run(args: &RenderArgs) -> Result<()> {
    if args.frames == 0 || args.stride == 0 || args.fps == 0 || args.fps > 100 {
        return Err(invalid(
            "--frames and --stride must be at least 1, --fps in [1, 100]",
        ));
    }
    if !(args.boid_size.is_finite() && args.boid_size >= 0.0) {
        return Err(invalid(format!(
            "--boid-size {} must be 0 (automatic) or positive",
            args.boid_size
        )));
    }
    if !(args.zoom.is_finite() && args.zoom > 0.0) {
        return Err(invalid(format!("--zoom {} must be positive", args.zoom)));
    }
    let kind = frames::check(&args.out, "--out")?;
    let pool = thread_pool(args.threads)?;
    let scenario = presets::load_seeded(args.file.as_deref(), args.seed, &args.set)?;
    let settings = RenderSettings {
        colour: match args.colour {
            Colour::Species => ColourMode::Species,
            Colour::Speed => ColourMode::Speed,
            Colour::Neighbours => ColourMode::Neighbours,
        },
        bloom: !args.no_bloom,
        trails: args.trails.min(64),
        boid_size: args.boid_size,
        ..RenderSettings::default()
    };
    let name = presets::label(&scenario);
    let header = format!(
        "render: {name} ({}D, {} boids), {} frames every {} steps at {}x{}",
        scenario.dimension(),
        scenario.total_boids(),
        args.frames,
        args.stride,
        args.size.0,
        args.size.1,
    );
    let world = pool.install(|| scenario.build())?;
    let frames = pool.install(|| match world {
        AnyWorld::D2(w) => draw(w, args, &settings, &header, scenario.looks(), kind),
        AnyWorld::D3(w) => draw(w, args, &settings, &header, scenario.looks(), kind),
    })?;
    outln!("wrote {} ({frames} frames)", args.out.display())?;
    Ok(())
}

/// Opens the backend and the offscreen target (on the same device when the GPU
/// steps the flock, so frames are drawn from its buffers).
fn open<V: GpuVector>(
    world: World<V>,
    args: &RenderArgs,
    header: &str,
) -> Result<(Simulation<V>, Offscreen)> {
    let gpu = backend::open_for(args.backend, &world)?;
    let (w, h) = args.size;
    let offscreen = match &gpu {
        Some(g) => Offscreen::with_gpu(g.clone(), w, h)?,
        None => Offscreen::new(w, h).context(
            "offscreen rendering needs a GPU or Mesa's software Vulkan driver (apt-get install mesa-vulkan-drivers libvulkan1)",
        )?,
    };
    let engine = if gpu.is_some() {
        "stepped and drawn on the GPU"
    } else {
        "stepped on the CPU"
    };
    outln!("{header} on {} ({engine})", offscreen.adapter())?;
    Ok((Simulation::with_gpu(world, gpu, None)?, offscreen))
}

/// Rebuilds `scene` for the current state: straight from the GPU flock's buffers
/// when it can, else from the world (read back first on the GPU).
fn update_scene<V: GpuVector>(
    sim: &mut Simulation<V>,
    scene: &mut Scene,
    settings: &RenderSettings,
    trails: &mut Trails,
    follow: bool,
) -> Result<()> {
    if let Some(flock) = sim.flock()
        && !settings.needs_cpu_state()
        && !follow
    {
        scene.update_from_gpu(sim.world_unsynced(), flock.boid_buffers(), settings);
    } else {
        scene.update(sim.world()?, settings, trails);
    }
    Ok(())
}

/// The box a following camera frames: centred on the flock's per-axis median
/// (its bulk, not the midpoint of a trailing tail) and reaching the 2nd and 98th
/// percentiles on every axis (a few stragglers do not zoom the picture out),
/// scaled by `scale` about its centre. In a wrap-around world positions are
/// first taken at their images nearest the flock's circular
/// centroid, itself at its image nearest `around` (where the camera looks now):
/// a flock across the seam is framed whole and the camera never jumps a world.
fn flock_extent<V: Vector>(
    positions: &[V],
    config: &WorldConfig<V>,
    around: Vec3,
    scale: f32,
) -> (Vec3, Vec3) {
    let (mut centre, mut half) = (Vec3::ZERO, Vec3::ZERO);
    if positions.is_empty() {
        return (centre, centre);
    }
    let period = murmuration_render::period(config);
    let reference = murmuration_render::nearest_image(
        Vec3::from_array(murmuration::metrics::centroid(positions, config).to_array3()),
        around,
        period,
    );
    let mut axis = Vec::with_capacity(positions.len());
    let n = positions.len();
    let (a, m, b) = ((n - 1) * 2 / 100, (n - 1) / 2, (n - 1) * 98 / 100);
    for d in 0..V::DIM {
        axis.clear();
        axis.extend(positions.iter().map(|p| {
            let p = Vec3::from_array(p.to_array3());
            murmuration_render::nearest_image(p, reference, period)[d]
        }));
        let mut at = |k: usize| *axis.select_nth_unstable_by(k, f32::total_cmp).1;
        let (low, mid, high) = (at(a), at(m), at(b));
        centre[d] = mid;
        half[d] = (high - mid).max(mid - low) * scale;
    }
    (centre - half, centre + half)
}

/// Steps and draws every frame, writing them as they come; returns the count.
fn draw<V: GpuVector>(
    world: World<V>,
    args: &RenderArgs,
    settings: &RenderSettings,
    header: &str,
    looks: &[Look],
    kind: Kind,
) -> Result<u32> {
    let (mut sim, mut offscreen) = open(world, args, header)?;
    let out = &mut offscreen;
    let (w, h) = out.size();
    sim.step_n(args.warmup)?;
    let mut scene = Scene::new();
    scene.looks = looks.to_vec();
    let mut trails = Trails::default();
    update_scene(&mut sim, &mut scene, settings, &mut trails, args.follow)?;
    let (lo, hi) = scene.bounds;
    let mut camera = Camera::fit(V::DIM, lo, hi, w as f32 / h as f32);
    camera.zoom(1.0 / args.zoom);
    if let (
        Some((yaw, pitch)),
        Camera::Orbit {
            yaw: y, pitch: p, ..
        },
    ) = (args.orbit, &mut camera)
    {
        *y = yaw.to_radians();
        *p = pitch.to_radians();
    }
    let mut sink = Sink::open(&args.out, kind, (w, h), args.fps)?;
    progress::catch_ctrl_c();
    let bar = progress::bar(args.frames as u64, "frames", args.quiet);
    let mut drawn = 0;
    let mut frame_ms = Vec::with_capacity(args.frames as usize);
    // Where each frame's time went (printed with the frame time).
    out.time_passes(true);
    let mut parts = Vec::with_capacity(args.frames as usize);
    for f in 0..args.frames {
        if progress::stop_requested() {
            break;
        }
        let t = std::time::Instant::now();
        if f > 0 {
            sim.step_n(args.stride)?;
        }
        if args.follow {
            let world = sim.world()?;
            let (lo, hi) = flock_extent(
                world.positions(),
                world.config(),
                camera.target(),
                1.0 / args.zoom,
            );
            // The first frame jumps there; later ones ease in.
            let blend = if f == 0 { 1.0 } else { 0.2 };
            camera.frame(lo, hi, w as f32 / h as f32, blend);
            scene.view_centre = Some(camera.target());
        }
        if f > 0 || args.follow {
            update_scene(&mut sim, &mut scene, settings, &mut trails, args.follow)?;
        }
        let before_draw = t.elapsed().as_secs_f64() * 1e3;
        let rgba = out.render(&scene, &camera, settings)?;
        // Steps, scene, drawing and the read-back (which waits for the GPU);
        // the first frame (no steps) is left out.
        if f > 0 {
            frame_ms.push(t.elapsed().as_secs_f64() * 1e3);
            parts.push((before_draw, out.last_times()));
        }
        sink.push(rgba)?;
        drawn += 1;
        bar.inc(1);
    }
    bar.finish_and_clear();
    if !frame_ms.is_empty() {
        frame_ms.sort_by(f64::total_cmp);
        let q = |p: f64| frame_ms[((frame_ms.len() - 1) as f64 * p).round() as usize];
        outln!(
            "frame_ms: median {:.3}, p90 {:.3} over {} frames ({} steps, draw and read-back each)",
            q(0.5),
            q(0.9),
            frame_ms.len(),
            args.stride
        )?;
        outln!("{}", frame_parts(&parts))?;
    }
    sink.finish()?;
    if progress::stop_requested() {
        eprintln!(
            "interrupted after {drawn} frames: {} holds them",
            args.out.display()
        );
        return Err(Interrupted.into());
    }
    Ok(drawn)
}

/// The medians of where frames went: on the host, stepping and building the
/// scene, encoding the draw, waiting for the device (steps queued on a GPU
/// flock finish there too) and copying the picture; on the GPU, its passes
/// (timestamps, where the device has them).
fn frame_parts(parts: &[(f64, FrameTimes)]) -> String {
    let med = |f: &dyn Fn(&(f64, FrameTimes)) -> f64| {
        let mut v: Vec<f64> = parts.iter().map(f).collect();
        crate::timing::median(&mut v)
    };
    let mut line = format!(
        "frame parts (median ms): steps and scene {:.3}, encode and submit {:.3}, wait for the device {:.3}, copy out {:.3}",
        med(&|p| p.0),
        med(&|p| p.1.encode_ms),
        med(&|p| p.1.wait_ms),
        med(&|p| p.1.copy_ms)
    );
    if parts.iter().all(|p| p.1.passes.is_some()) {
        let pass = |f: fn(&PassTimes) -> f64| med(&|p| p.1.passes.as_ref().map_or(f64::NAN, f));
        line += &format!(
            "; GPU passes: scene {:.3}, glow {:.3}, composite {:.3}",
            pass(|t| t.scene_ms),
            pass(|t| t.glow_ms),
            pass(|t| t.composite_ms)
        );
    } else {
        line += "; GPU passes untimed (no timestamp queries on this device)";
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use murmuration::Boundary;
    use murmuration::glam::Vec2;

    /// Regression: in a wrap-around world a flock across the seam was framed by
    /// its per-axis median (mid-world) with the whole world's width, and the
    /// camera jumped a world's width when the flock crossed.
    #[test]
    fn a_flock_across_the_seam_is_framed_whole_where_the_camera_looks() {
        let config = WorldConfig::new(Vec2::splat(100.0), Boundary::Wrap);
        let flock: Vec<Vec2> = (0..200)
            .map(|k| {
                let x = (95.0 + 10.0 * k as f32 / 200.0) % 100.0;
                Vec2::new(x, 40.0 + (k % 20) as f32)
            })
            .collect();
        let (lo, hi) = flock_extent(&flock, &config, Vec3::new(90.0, 50.0, 0.0), 1.0);
        let (c, half) = (0.5 * (lo + hi), 0.5 * (hi - lo));
        assert!((c.x - 100.0).abs() < 1.0 && half.x < 6.0, "{lo} {hi}");
        assert!((c.y - 50.0).abs() < 1.5 && half.y < 11.0, "{lo} {hi}");
        // A camera that has followed it across the seam twice keeps going.
        let (lo, hi) = flock_extent(&flock, &config, Vec3::new(195.0, 50.0, 0.0), 1.0);
        assert!((0.5 * (lo.x + hi.x) - 200.0).abs() < 1.0, "{lo} {hi}");
        // Without wrapping the box is the plain percentiles.
        let open = WorldConfig::new(Vec2::splat(100.0), Boundary::Reflect);
        let (lo, hi) = flock_extent(&flock, &open, Vec3::new(90.0, 50.0, 0.0), 1.0);
        assert!(hi.x - lo.x > 80.0, "{lo} {hi}");
    }

    #[test]
    fn frame_parts_name_the_medians_and_say_when_passes_are_untimed() {
        use murmuration_render::{FrameTimes, PassTimes};
        let times = |ms: f64, passes| FrameTimes {
            encode_ms: ms,
            wait_ms: 2.0 * ms,
            copy_ms: 3.0 * ms,
            passes,
        };
        let pass = PassTimes {
            scene_ms: 4.0,
            glow_ms: 5.0,
            composite_ms: 6.0,
        };
        let timed = [(1.0, times(1.0, Some(pass))), (9.0, times(3.0, Some(pass)))];
        let line = super::frame_parts(&timed);
        assert!(
            line.contains("steps and scene 5.000, encode and submit 2.000"),
            "{line}"
        );
        assert!(
            line.contains("wait for the device 4.000, copy out 6.000"),
            "{line}"
        );
        assert!(
            line.contains("scene 4.000, glow 5.000, composite 6.000"),
            "{line}"
        );
        let untimed = [(1.0, times(1.0, None))];
        assert!(super::frame_parts(&untimed).contains("GPU passes untimed"));
    }
}

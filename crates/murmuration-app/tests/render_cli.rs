//! `murmuration render`: PNG, GIF, a folder of PNGs and MP4 (through ffmpeg),
//! frames drawn straight from the GPU backend's buffers, and bad options.

mod common;

use assert_cmd::Command;
use common::{bin, fails, ok};
use std::path::Path;

fn render_cmd() -> Command {
    let mut c = bin();
    c.env("XDG_RUNTIME_DIR", std::env::temp_dir());
    c
}

/// True when offscreen rendering works here (lavapipe or a GPU).
fn can_render(dir: &Path) -> bool {
    let out = render_cmd()
        .args(["render", "--frames", "1", "--size", "32x32", "-q", "--out"])
        .arg(dir.join("probe.png"))
        .output()
        .unwrap();
    if !out.status.success() {
        murmuration_gpu::testing::missing(&format!(
            "no adapter for offscreen rendering: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    out.status.success()
}

#[test]
fn render_writes_a_png_a_gif_and_a_folder_of_frames() {
    let dir = tempfile::tempdir().unwrap();
    if !can_render(dir.path()) {
        return;
    }
    let png = dir.path().join("flock.png");
    let out = ok(render_cmd()
        .args([
            "render",
            "idle-crowd",
            "--frames",
            "3",
            "--size",
            "160x90",
            "--out",
        ])
        .arg(&png));
    assert!(
        out.contains("render: idle-crowd (2D, 600 boids), 3 frames"),
        "{out}"
    );
    let img = image::open(&png).unwrap().to_rgba8();
    assert_eq!(img.dimensions(), (160, 90));
    let gif = dir.path().join("flock.gif");
    ok(render_cmd()
        .args([
            "render",
            "starlings-3d",
            "--set",
            "species.starlings.count=300",
            "--frames",
            "4",
        ])
        .args([
            "--size",
            "96x64",
            "--colour",
            "speed",
            "--no-bloom",
            "--trails",
            "3",
            "--out",
        ])
        .arg(&gif));
    let bytes = std::fs::read(&gif).unwrap();
    assert_eq!(&bytes[..6], b"GIF89a");
    let decoder = image::codecs::gif::GifDecoder::new(std::io::Cursor::new(bytes)).unwrap();
    use image::AnimationDecoder;
    assert_eq!(decoder.into_frames().count(), 4);
    let frames = dir.path().join("frames/");
    ok(render_cmd()
        .args([
            "render", "--frames", "2", "--stride", "5", "--size", "64x48", "--follow", "--out",
        ])
        .arg(&frames));
    let mut names: Vec<String> = std::fs::read_dir(&frames)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["frame_00000.png", "frame_00001.png"]);
}

fn ffmpeg_available() -> bool {
    std::process::Command::new("ffprobe")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn render_writes_an_mp4_through_ffmpeg() {
    let dir = tempfile::tempdir().unwrap();
    if !can_render(dir.path()) {
        return;
    }
    if !ffmpeg_available() {
        murmuration_gpu::testing::missing(
            "ffmpeg is not installed (`cargo xtask test` installs it)",
        );
        return;
    }
    let mp4 = dir.path().join("flock.mp4");
    // An odd width: the encoder needs even sides, so the frames are padded.
    let out = ok(render_cmd()
        .args([
            "render",
            "fish-school",
            "--frames",
            "6",
            "--size",
            "99x64",
            "--fps",
            "12",
            "--out",
        ])
        .arg(&mp4));
    assert!(out.contains("wrote"), "{out}");
    let probe = std::process::Command::new("ffprobe")
        .args([
            "-v",
            "error",
            "-count_frames",
            "-show_entries",
            "stream=codec_name,width,height,nb_read_frames",
            "-of",
            "csv=p=0",
        ])
        .arg(&mp4)
        .output()
        .unwrap();
    let info = String::from_utf8_lossy(&probe.stdout);
    assert_eq!(info.trim(), "h264,100,64,6", "ffprobe says {info}");
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "flock.mp4" && n != "probe.png")
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}

#[test]
fn render_on_the_gpu_backend_draws_from_the_flock_buffers() {
    let dir = tempfile::tempdir().unwrap();
    if !can_render(dir.path()) {
        return;
    }
    let picture = |backend: &str| {
        let png = dir.path().join(format!("{backend}.png"));
        let out = ok(render_cmd()
            .args([
                "render",
                "fish-school",
                "--frames",
                "1",
                "--size",
                "200x120",
            ])
            .args(["--backend", backend, "--out"])
            .arg(&png));
        (out, image::open(&png).unwrap().to_rgba8())
    };
    let (out, gpu) = picture("gpu");
    assert!(out.contains("stepped and drawn on the GPU"), "{out}");
    let (out, cpu) = picture("cpu");
    assert!(out.contains("stepped on the CPU"), "{out}");
    // One frame, no steps: the same state drawn two ways gives the same picture.
    let off = gpu
        .pixels()
        .zip(cpu.pixels())
        .filter(|(a, b)| (0..3).any(|c| a[c].abs_diff(b[c]) > 8))
        .count();
    assert!(
        off < 30,
        "{off} pixels differ between the GPU and CPU pictures"
    );
    let bright = gpu
        .pixels()
        .filter(|p| p[0].max(p[1]).max(p[2]) > 120)
        .count();
    assert!(bright > 200, "only {bright} bright pixels");
    // Trails need the state on the CPU: read back each frame, still on the GPU.
    let png = dir.path().join("trails.png");
    ok(render_cmd()
        .args([
            "render",
            "fish-school",
            "--frames",
            "3",
            "--size",
            "64x48",
            "--trails",
            "2",
        ])
        .args(["--backend", "gpu", "--out"])
        .arg(&png));
    // Predators that eat, followers and wanderers run on the GPU too: auto keeps it.
    let png = dir.path().join("auto.png");
    let out = render_cmd()
        .args([
            "render",
            "sharks-and-schools",
            "--frames",
            "1",
            "--size",
            "64x48",
            "-q",
        ])
        .args([
            "--set",
            "species.school_a.count=200",
            "--set",
            "species.school_b.count=200",
        ])
        .args(["--backend", "auto", "--out"])
        .arg(&png)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("using the CPU because"), "{err}");
    // A research model steps on the CPU: auto falls back and says why.
    let png = dir.path().join("vicsek.png");
    let out = render_cmd()
        .args(["render", "vicsek", "--frames", "1", "--size", "64x48", "-q"])
        .args(["--backend", "auto", "--out"])
        .arg(&png)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains(
            "backend auto: using the CPU because the GPU backend does not support the vicsek model"
        ),
        "{err}"
    );
}

#[test]
fn render_rejects_bad_options_with_exit_code_2() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&[&str], &str); 4] = [
        (&["--size", "10x10"], "out of range"),
        (
            &["--frames", "0"],
            "--frames and --stride must be at least 1",
        ),
        (&["--orbit", "10,95"], "pitch 95 is out of range"),
        (&["--zoom=-1"], "--zoom -1 must be positive"),
    ];
    for (args, want) in cases {
        let err = fails(
            render_cmd()
                .arg("render")
                .args(args)
                .arg("--out")
                .arg(dir.path().join("x.png")),
            2,
        );
        assert!(err.contains(want), "{args:?}: {err}");
    }
    let err = fails(
        render_cmd()
            .args(["render", "--out"])
            .arg(dir.path().join("x.bmp")),
        2,
    );
    assert!(err.contains("use a .png, .gif or .mp4"), "{err}");
    let err = fails(
        render_cmd()
            .args(["render", "--out"])
            .arg(dir.path().join("no/such/x.png")),
        2,
    );
    assert!(err.contains("cannot be written"), "{err}");
}

/// Regression: with the OpenGL backend enumerated, Mesa's libEGL was loaded, and
/// its exit handler now and then aborted the process ("double free or corruption")
/// when several renders ran at once. The primary backends never load it.
#[test]
fn render_never_loads_libegl_whose_exit_handler_aborted_concurrent_runs() {
    let dir = tempfile::tempdir().unwrap();
    if !can_render(dir.path()) {
        return;
    }
    for backend in ["cpu", "gpu"] {
        let out = render_cmd()
            .env("LD_DEBUG", "files")
            .args(["render", "--frames", "1", "--size", "32x32", "-q"])
            .args(["--backend", backend, "--out"])
            .arg(dir.path().join(format!("{backend}.png")))
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let loader = String::from_utf8_lossy(&out.stderr);
        assert!(
            loader.contains("file="),
            "LD_DEBUG printed nothing: {loader}"
        );
        assert!(!loader.contains("libEGL"), "{backend}: libEGL was loaded");
    }
}

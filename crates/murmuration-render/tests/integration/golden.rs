//! Offscreen golden images: a fixed scenario, seed and frame rendered on the
//! default adapter (lavapipe in CI) and compared with the pictures in
//! `tests/golden/` within a tolerance. `MURMURATION_BLESS=1 cargo test -p
//! murmuration-render --test integration golden` rewrites them (look at them before committing).

use murmuration::scenario::{AnyWorld, Scenario};
use murmuration_render::{Camera, ColourMode, Offscreen, RenderSettings, Scene, Trails};
use std::path::PathBuf;

const W: u32 = 320;
const H: u32 = 180;

/// Every overlay kind: an obstacle, a wall, a zone with its count, an attractor,
/// a path and a pulse, with two species.
const SCENE_2D: &str = r#"
name = "golden-2d"
[world]
size = [40, 24]
boundary = "wrap"
seed = 5
[species.fish]
count = 400
jitter = 0.01
[species.shark]
count = 3
chase_radius = 6.0
[relations.fish]
shark = "flee"
[relations.shark]
fish = "chase"
[[obstacles]]
shape = "sphere"
center = [12, 12]
radius = 3.0
[[obstacles]]
shape = "capsule"
a = [26, 4]
b = [32, 10]
radius = 0.6
[[zones]]
shape = { shape = "box", center = [32, 18], half_extents = [4, 3] }
[[attractors]]
position = [20, 20]
radius = 2.0
weight = 0.5
[[paths]]
points = [[2, 2], [10, 3], [18, 2]]
capture_radius = 1.5
[[pulses]]
position = [30, 12]
radius = 4.0
strength = 5.0
duration = 30.0
"#;

const SCENE_3D: &str = r#"
name = "golden-3d"
dimension = 3
[world]
size = [20, 12, 20]
boundary = { kind = "soft", margin = 2.0, strength = 4.0 }
seed = 5
[species.birds]
style = "birds"
count = 600
[[obstacles]]
shape = "sphere"
center = [10, 6, 10]
radius = 2.0
"#;

fn offscreen() -> Option<Offscreen> {
    match Offscreen::new(W, H) {
        Ok(o) => Some(o),
        Err(e) => {
            murmuration_gpu::testing::missing(&format!(
                "no GPU adapter for offscreen rendering ({e})"
            ));
            None
        }
    }
}

fn picture(out: &mut Offscreen, text: &str, steps: u64, settings: &RenderSettings) -> Vec<u8> {
    let s = Scenario::parse(text, "golden").unwrap();
    let mut scene = Scene::new();
    let mut trails = Trails::default();
    match s.build().unwrap() {
        AnyWorld::D2(mut w) => {
            w.step_n(steps);
            scene.update(&w, settings, &mut trails);
        }
        AnyWorld::D3(mut w) => {
            w.step_n(steps);
            scene.update(&w, settings, &mut trails);
        }
    }
    let camera = Camera::fit(
        scene.dim,
        scene.bounds.0,
        scene.bounds.1,
        W as f32 / H as f32,
    );
    out.render(&scene, &camera, settings).unwrap()
}

/// Compares with the stored picture: mean absolute channel difference ≤ 1.5 and
/// at most 0.5% of pixels off by more than 48 in a channel.
fn check(name: &str, rgba: &[u8]) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/golden/{name}.png"));
    if std::env::var_os("MURMURATION_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        image::save_buffer(&path, rgba, W, H, image::ExtendedColorType::Rgba8).unwrap();
        eprintln!("blessed {}", path.display());
        return;
    }
    let want = image::open(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (MURMURATION_BLESS=1 writes it)", path.display()))
        .to_rgba8();
    assert_eq!(want.dimensions(), (W, H));
    let want = want.into_raw();
    let mut sum = 0u64;
    let mut off = 0usize;
    for (a, b) in rgba.chunks(4).zip(want.chunks(4)) {
        let d = (0..3).map(|c| a[c].abs_diff(b[c])).max().unwrap();
        sum += (0..3).map(|c| a[c].abs_diff(b[c]) as u64).sum::<u64>();
        if d > 48 {
            off += 1;
        }
    }
    let mean = sum as f64 / (3 * W * H) as f64;
    let frac = off as f64 / (W * H) as f64;
    if mean > 1.5 || frac > 0.005 {
        let got = path.with_file_name(format!("{name}.actual.png"));
        let _ = image::save_buffer(&got, rgba, W, H, image::ExtendedColorType::Rgba8);
        panic!(
            "{name}: mean difference {mean:.3}, {:.2}% of pixels off (picture saved to {})",
            100.0 * frac,
            got.display()
        );
    }
}

/// The picture is not blank: some pixels are bright (boids) and most are dark.
fn assert_lively(rgba: &[u8]) {
    let bright = rgba
        .chunks(4)
        .filter(|p| p[0].max(p[1]).max(p[2]) > 120)
        .count();
    let dark = rgba
        .chunks(4)
        .filter(|p| p[0].max(p[1]).max(p[2]) < 70)
        .count();
    let n = (W * H) as usize;
    assert!(bright > n / 200, "only {bright} bright pixels");
    assert!(dark > n / 3, "only {dark} dark pixels");
}

#[test]
fn golden_2d_with_and_without_glow() {
    let Some(mut out) = offscreen() else { return };
    let glow = picture(&mut out, SCENE_2D, 120, &RenderSettings::default());
    check("2d-glow", &glow);
    assert_lively(&glow);
    let crisp = RenderSettings {
        bloom: false,
        ..RenderSettings::default()
    };
    let plain = picture(&mut out, SCENE_2D, 120, &crisp);
    check("2d-crisp", &plain);
    assert_lively(&plain);
    assert_ne!(glow, plain, "the glow changes the picture");
}

#[test]
fn golden_3d_with_and_without_glow() {
    let Some(mut out) = offscreen() else { return };
    let settings = RenderSettings {
        colour: ColourMode::Speed,
        ..RenderSettings::default()
    };
    let glow = picture(&mut out, SCENE_3D, 60, &settings);
    assert_lively(&glow);
    check("3d-glow", &glow);
    let crisp = RenderSettings {
        bloom: false,
        ..settings
    };
    let plain = picture(&mut out, SCENE_3D, 60, &crisp);
    check("3d-crisp", &plain);
}

#[test]
fn the_same_frame_renders_to_the_same_pixels() {
    let Some(mut out) = offscreen() else { return };
    let a = picture(&mut out, SCENE_2D, 10, &RenderSettings::default());
    let b = picture(&mut out, SCENE_2D, 10, &RenderSettings::default());
    assert_eq!(a, b);
    let later = picture(&mut out, SCENE_2D, 40, &RenderSettings::default());
    assert_ne!(a, later, "boids moved between the frames");
}

/// `render --backend gpu` times each frame's passes (issue 47): the timing
/// changes no pixel, and it times the scene, the glow (only while drawn) and
/// the composite, with the host's parts beside them.
#[test]
fn timed_passes_draw_the_same_pixels_and_time_each_part() {
    let Some(mut out) = offscreen() else { return };
    let glow = RenderSettings::default();
    let plain = RenderSettings {
        bloom: false,
        ..RenderSettings::default()
    };
    let untimed = [glow, plain].map(|s| picture(&mut out, SCENE_2D, 10, &s));
    assert_eq!(out.last_times().passes, None, "untimed by default");
    if !out.time_passes(true) {
        murmuration_gpu::testing::missing("no timestamp queries on this device");
        return;
    }
    for (settings, before) in [glow, plain].iter().zip(&untimed) {
        let rgba = picture(&mut out, SCENE_2D, 10, settings);
        assert!(&rgba == before, "timing changed the picture");
        let t = out.last_times();
        let p = t.passes.expect("timed passes");
        assert!(p.scene_ms > 0.0 && p.composite_ms > 0.0, "{t:?}");
        assert_eq!(p.glow_ms > 0.0, settings.bloom, "{t:?}");
        let host = [t.encode_ms, t.wait_ms, t.copy_ms];
        assert!(host.iter().all(|ms| ms.is_finite() && *ms >= 0.0), "{t:?}");
    }
    assert!(!out.time_passes(false));
    picture(&mut out, SCENE_2D, 10, &glow);
    assert_eq!(out.last_times().passes, None, "timing off again");
}

//! The scenario commands: run (outputs, resume, threads), check, sweep, presets,
//! and every bad-input case (exit code 2 with the file, line, column and field).

mod common;

use common::{bin, fails, ok};
use std::path::Path;

fn line<'a>(out: &'a str, key: &str) -> &'a str {
    out.lines()
        .find(|l| l.starts_with(key))
        .unwrap_or_else(|| panic!("no {key} in {out}"))
}

/// A small scenario that exercises species relations, obstacles and zones.
const SMALL: &str = r#"name = "small"
description = "prey, a predator, a rock and a zone"
steps = 60

[world]
size = [30, 30]
boundary = "wrap"
seed = 3

[species.fish]
style = "fish"
count = 300
jitter = 0.02

[species.shark]
count = 2
chase_radius = 6.0

[relations.fish]
shark = "flee"

[relations.shark]
fish = "chase"

[[obstacles]]
shape = "sphere"
center = [15, 15]
radius = 2.0

[[zones]]
shape = { shape = "sphere", center = [5, 5], radius = 4.0 }
"#;

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn run_writes_metrics_and_trajectories_and_the_same_digest_on_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "small.toml", SMALL);
    let m = dir.path().join("m.csv");
    let npy = dir.path().join("t.npy");
    let csv = dir.path().join("t.csv");
    let out = ok(bin()
        .args(["run", &file, "--threads", "1", "--metrics"])
        .arg(&m)
        .args(["--trajectory"])
        .arg(&npy)
        .args(["--every", "20"]));
    assert!(line(&out, "scenario: small (2D, 302 boids, 2 species").contains("60 steps"));
    assert!(out.contains("zone_0: "), "{out}");
    let d1 = line(&out, "digest: ").to_string();
    let out2 = ok(bin()
        .args(["run", &file, "--threads", "2", "--trajectory"])
        .arg(&csv)
        .args(["--every", "30"]));
    assert_eq!(d1, line(&out2, "digest: "));

    let metrics = std::fs::read_to_string(&m).unwrap();
    let rows: Vec<&str> = metrics.lines().collect();
    assert_eq!(rows.len(), 1 + 61, "header + steps 0..=60");
    assert!(
        rows[0].starts_with(
            "step,time,count,polarization,velocity_polarization,milling,angular_momentum"
        ),
        "{}",
        rows[0]
    );
    assert!(rows[0].ends_with(",zone_0"));
    assert!(rows[61].starts_with("60,"));

    let bytes = std::fs::read(&npy).unwrap();
    assert_eq!(&bytes[..6], b"\x93NUMPY");
    let header = String::from_utf8_lossy(&bytes[10..128]).to_string();
    assert!(
        header.contains("'descr': '<f4'") && header.contains("'shape': (4, 302, 2)"),
        "{header}"
    );
    assert_eq!(bytes.len(), 128 + 4 * 302 * 2 * 4);

    let traj = std::fs::read_to_string(&csv).unwrap();
    assert!(traj.starts_with("step,id,species,x,y,vx,vy\n"));
    let frames: std::collections::BTreeSet<&str> = traj
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap())
        .collect();
    assert_eq!(frames.into_iter().collect::<Vec<_>>(), ["0", "30", "60"]);
}

#[test]
fn a_run_resumed_from_a_snapshot_reaches_the_uninterrupted_digest() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "small.toml", SMALL);
    let snap = dir.path().join("half.snap");
    let whole = ok(bin().args(["run", &file, "--steps", "80"]));
    ok(bin()
        .args(["run", &file, "--steps", "40", "--snapshot"])
        .arg(&snap));
    let resumed = ok(bin().args(["run", "--steps", "40", "--resume"]).arg(&snap));
    assert!(resumed.contains("at step 40"), "{resumed}");
    assert_eq!(line(&whole, "digest: "), line(&resumed, "digest: "));
    // A corrupted snapshot is bad input.
    let mut bytes = std::fs::read(&snap).unwrap();
    bytes[100] ^= 0xff;
    std::fs::write(&snap, bytes).unwrap();
    let err = fails(bin().args(["run", "--resume"]).arg(&snap), 2);
    assert!(err.contains("checksum mismatch"), "{err}");
}

#[test]
fn seed_and_set_change_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "small.toml", SMALL);
    let a = ok(bin().args(["run", &file, "--steps", "5"]));
    let b = ok(bin().args(["run", &file, "--steps", "5", "--seed", "4"]));
    assert!(b.contains("seed 4"));
    assert_ne!(line(&a, "digest: "), line(&b, "digest: "));
    let c = ok(bin().args([
        "run",
        &file,
        "--steps",
        "5",
        "--set",
        "species.fish.count=10",
    ]));
    assert!(c.contains("12 boids"), "{c}");
}

#[test]
fn check_accepts_good_files_and_lints_doubtful_ones() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "small.toml", SMALL);
    let out = ok(bin().args(["check", &file]));
    assert!(
        out.contains(": ok: small, 2D, 302 boids (fish 300, shark 2)"),
        "{out}"
    );
    assert!(out.contains("0 warnings"), "{out}");
    let doubtful = SMALL
        .replace("jitter = 0.02", "jitter = 0.02\nmax_speed = 300.0")
        .replace("center = [5, 5]", "center = [50, 50]");
    let file = write(dir.path(), "doubt.toml", &doubtful);
    let out = ok(bin().args(["check", &file]));
    assert!(
        out.contains("doubt.toml:14:13: warning: species.fish moves up to"),
        "{out}"
    );
    assert!(
        out.contains("zones[0] lies wholly outside the world box"),
        "{out}"
    );
    assert!(out.contains("2 warnings"), "{out}");
}

#[test]
fn every_bad_scenario_is_exit_code_2_with_file_line_column_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &str, &str); 8] = [
        (
            "jitter = 0.02",
            "jitter = 0.02\nseparation_radius = 2.0",
            "bad.toml:14:21: species.fish.separation_radius = 2 must not exceed species.fish.perception_radius = 1.2",
        ),
        (
            "jitter = 0.02",
            "jitter = 0.02\nspeeed = 2.0",
            "bad.toml:14:10: species.fish.speeed: unknown field `speeed`",
        ),
        (
            "jitter = 0.02",
            "jitter = nan",
            "bad.toml:13:10: species.fish.jitter = NaN is not a finite number",
        ),
        (
            "chase_radius = 6.0",
            "chase_radius = -6.0",
            "bad.toml:17:16: species.shark.chase_radius = -6 is out of range",
        ),
        (
            "radius = 2.0",
            "radius = -2.0",
            "bad.toml:28:10: obstacles[0].radius = -2 is out of range",
        ),
        (
            "count = 300",
            "count = 2000000000",
            "bad.toml:12:9: species.fish.count = 2000000000 is out of range: the scenario would hold 2000000000 boids, more than the limit 268435456",
        ),
        (
            "seed = 3",
            "seed = 3\nmax = [1, 2]",
            "bad.toml:9:7: world has both size and max",
        ),
        ("[world]", "[world\n", "bad.toml:5:7: unclosed table"),
    ];
    for (from, to, want) in cases {
        let text = SMALL.replace(from, to);
        assert_ne!(text, SMALL);
        let file = write(dir.path(), "bad.toml", &text);
        for cmd in ["check", "run"] {
            let err = fails(bin().args([cmd, &file]), 2);
            assert!(
                err.contains(want),
                "{cmd} with {to:?}: expected {want:?} in {err}"
            );
        }
    }
    // No species at all; an empty file; a missing file; an unknown preset.
    let file = write(dir.path(), "empty.toml", "[world]\nsize = [10, 10]\n");
    assert!(fails(bin().args(["check", &file]), 2).contains("no species"));
    let file = write(dir.path(), "blank.toml", "");
    assert!(fails(bin().args(["check", &file]), 2).contains("world"));
    let err = fails(bin().args(["run", "no/such/file.toml"]), 2);
    assert!(
        err.contains("no such file, and no preset of that name"),
        "{err}"
    );
    let err = fails(
        bin().args(["run", "--set", "species.boids.max_speed=-1"]),
        2,
    );
    assert!(
        err.contains("(--set species.boids.max_speed=-1): species.boids.max_speed = -1"),
        "{err}"
    );
    let err = fails(bin().args(["run", "--set", "nonsense"]), 2);
    assert!(err.contains("PATH=VALUE"), "{err}");
}

#[test]
fn unwritable_outputs_fail_before_running_and_leave_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no/such/dir/m.csv");
    for opt in ["--metrics", "--snapshot"] {
        let err = fails(bin().args(["run", "--steps", "5", opt]).arg(&missing), 2);
        assert!(err.contains("cannot be written"), "{opt}: {err}");
    }
    let err = fails(
        bin()
            .args(["run", "--steps", "5", "--trajectory"])
            .arg(dir.path().join("t.txt")),
        2,
    );
    assert!(err.contains("must end in .npy or .csv"), "{err}");
    let err = fails(
        bin()
            .args(["run", "--steps", "5", "--metrics"])
            .arg(dir.path()),
        2,
    );
    assert!(err.contains("is a folder"), "{err}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn sweep_writes_one_row_per_run_in_grid_order_whatever_the_threads() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "small.toml", SMALL);
    let table = |threads: &str, out: &Path| {
        ok(bin()
            .args([
                "sweep",
                &file,
                "--set",
                "species.fish.alignment_weight=0.5,2",
                "--set",
                "species.fish.jitter=0,0.01",
            ])
            .args([
                "--seeds",
                "2",
                "--steps",
                "30",
                "--skip",
                "10",
                "--every",
                "5",
                "--threads",
                threads,
                "--out",
            ])
            .arg(out));
        std::fs::read_to_string(out).unwrap()
    };
    let (a, b) = (dir.path().join("a.csv"), dir.path().join("b.csv"));
    let one = table("1", &a);
    let two = table("2", &b);
    assert_eq!(one, two, "the table depends on the thread count");
    let rows: Vec<&str> = one.lines().collect();
    assert_eq!(rows.len(), 1 + 8);
    assert!(rows[0].starts_with("run,species.fish.alignment_weight,species.fish.jitter,seed,steps,skip,samples,count_mean,count_std,polarization_mean"), "{}", rows[0]);
    assert!(rows[1].starts_with("0,0.5,0,3,30,10,4,"), "{}", rows[1]);
    assert!(rows[2].starts_with("1,0.5,0,4,"), "{}", rows[2]);
    assert!(rows[3].starts_with("2,0.5,0.01,3,"), "{}", rows[3]);
    assert!(rows[8].starts_with("7,2,0.01,4,"), "{}", rows[8]);
    // A bad value anywhere in the grid is caught before any run.
    let err = fails(
        bin()
            .args([
                "sweep",
                &file,
                "--set",
                "species.fish.jitter=0,5",
                "--steps",
                "10",
                "--out",
            ])
            .arg(dir.path().join("c.csv")),
        2,
    );
    assert!(
        err.contains("(--set species.fish.jitter=5): species.fish.jitter = 5 is out of range"),
        "{err}"
    );
    let err = fails(
        bin()
            .args([
                "sweep",
                &file,
                "--set",
                "species.fish.jitter=0",
                "--steps",
                "10",
                "--skip",
                "10",
                "--out",
            ])
            .arg(dir.path().join("c.csv")),
        2,
    );
    assert!(err.contains("--skip 10 leaves nothing"), "{err}");
    assert!(!dir.path().join("c.csv").exists());
}

#[test]
fn sweep_plots_lines_and_heat_maps_and_links_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let sweep = |extra: &[&str], plot: &Path| {
        let mut c = bin();
        c.args(["sweep", "vicsek", "--set", "species.particles.eta=0.5,3"])
            .args(extra)
            .args(["--steps", "40", "--skip", "20", "--every", "5", "--out"])
            .arg(dir.path().join("t.csv"))
            .arg("--plot")
            .arg(plot);
        c
    };
    let linked = "species.particles.count&world.size=25&[2.5, 2.5],100&[5, 5]";
    for (name, extra) in [
        ("one.png", vec![]),
        ("lines.png", vec!["--set", linked, "--plot-lines"]),
        (
            "map.png",
            vec!["--set", linked, "--plot-metric", "polarization"],
        ),
    ] {
        let png = dir.path().join(name);
        ok(&mut sweep(&extra, &png));
        let img = image::open(&png).unwrap().to_rgb8();
        assert_eq!(img.dimensions(), (960, 640), "{name}");
        // Drawn, not blank: many distinct colours (lines, labels, a colour map).
        let mut colours: Vec<[u8; 3]> = img.pixels().map(|p| p.0).collect();
        colours.sort();
        colours.dedup();
        assert!(colours.len() > 50, "{name}: {} colours", colours.len());
    }
    let table = std::fs::read_to_string(dir.path().join("t.csv")).unwrap();
    assert!(
        table
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("0,0.5,\"25&[2.5, 2.5]\","),
        "{table}"
    );
    let png = dir.path().join("bad.png");
    let err = fails(&mut sweep(&["--plot-metric", "wobble"], &png), 2);
    assert!(err.contains("\"wobble\" is not a metric"), "{err}");
    let err = fails(
        &mut sweep(&["--set", "species.particles.count&world.size=25"], &png),
        2,
    );
    assert!(
        err.contains("has 1 part(s) but the axis links 2 paths"),
        "{err}"
    );
    let err = fails(
        bin()
            .args([
                "sweep",
                "vicsek",
                "--set",
                "species.particles.update=paper,forward",
            ])
            .args(["--steps", "10", "--out"])
            .arg(dir.path().join("u.csv"))
            .arg("--plot")
            .arg(&png),
        2,
    );
    assert!(
        err.contains(
            "--plot needs numbers on its x axis, but species.particles.update takes \"paper\""
        ),
        "{err}"
    );
    assert!(!dir.path().join("u.csv").exists(), "refused before any run");
    assert!(!png.exists());
}

#[test]
fn presets_are_listed_and_each_passes_check_and_runs_100_steps() {
    let list = ok(bin().arg("presets"));
    let names: Vec<&str> = list
        .lines()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    for want in [
        "default",
        "fish-school",
        "hurried-birds",
        "idle-crowd",
        "sharks-and-schools",
        "starlings-3d",
        "phaser-canvas",
        "bench-2d",
        "bench-3d",
    ] {
        assert!(names.contains(&want), "{want} missing from {list}");
    }
    for name in names {
        let out = ok(bin().args(["check", name]));
        assert!(
            out.contains(": ok: ") && out.contains("0 warnings"),
            "{name}: {out}"
        );
        let out = ok(bin().args(["run", name, "--steps", "100", "-q"]));
        assert!(out.contains("steps: 100"), "{name}: {out}");
        let text = ok(bin().args(["presets", "--show", name]));
        assert!(text.contains(&format!("name = \"{name}\"")), "{text}");
    }
}

#[test]
fn ctrl_c_stops_cleanly_and_keeps_every_output_valid() {
    stops_cleanly_on("-INT", 130);
}

/// Regression (issue 14): SIGTERM killed the run, leaving `.*.tmp` files and no
/// outputs; it now stops like Ctrl-C, with exit code 143.
#[test]
fn sigterm_stops_like_ctrl_c_with_exit_code_143() {
    stops_cleanly_on("-TERM", 143);
}

fn stops_cleanly_on(signal: &str, code: i32) {
    let dir = tempfile::tempdir().unwrap();
    let (m, t, s) = (
        dir.path().join("m.csv"),
        dir.path().join("t.npy"),
        dir.path().join("s.snap"),
    );
    let exe = assert_cmd::cargo::cargo_bin("murmuration");
    let child = std::process::Command::new(exe)
        .args(["run", "--steps", "1000000", "-q", "--metrics"])
        .arg(&m)
        .arg("--trajectory")
        .arg(&t)
        .args(["--every", "3", "--snapshot"])
        .arg(&s)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let status = std::process::Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(code));
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names.len(),
        3,
        "only the three outputs, no temporary files: {names:?}"
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let steps: u64 = line(&stdout, "steps: ")[7..].parse().unwrap();
    assert!(steps > 0 && steps < 1_000_000, "{stdout}");
    let metrics = std::fs::read_to_string(&m).unwrap();
    assert_eq!(
        metrics.lines().count() as u64,
        2 + steps,
        "header + steps 0..=stop"
    );
    let bytes = std::fs::read(&t).unwrap();
    let frames = steps / 3 + 1;
    assert_eq!(bytes.len() as u64, 128 + frames * 2000 * 2 * 4);
    assert!(
        String::from_utf8_lossy(&bytes[..128]).contains(&format!("'shape': ({frames}, 2000, 2)"))
    );
    // The snapshot resumes.
    let resumed = ok(bin().args(["run", "--steps", "1", "--resume"]).arg(&s));
    assert!(resumed.contains(&format!("at step {steps}")), "{resumed}");
}

#[test]
fn backend_auto_runs_worlds_the_gpu_lacks_features_for_on_the_cpu() {
    let out = bin()
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .args(["run", "vicsek", "--backend", "auto", "--steps", "5"])
        .assert()
        .success()
        .get_output()
        .clone();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stderr.contains("backend auto: using the CPU because"),
        "{stderr}"
    );
    assert!(stdout.contains(" threads"), "{stdout}");
    assert!(stdout.contains("periodic boundary"), "{stdout}");
}

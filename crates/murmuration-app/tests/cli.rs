//! The `murmuration` binary: default job, bench contract, bad input.

mod common;

use common::{bin, ok as stdout};

#[test]
fn no_arguments_runs_the_default_scenario_and_prints_a_digest() {
    // Without a display `murmuration` runs the main job headless.
    let out = stdout(bin().env_remove("DISPLAY").env_remove("WAYLAND_DISPLAY"));
    assert!(out.contains("scenario: default (2D, 2000 boids"), "{out}");
    for key in [
        "steps: 1000",
        "polarization: ",
        "milling: ",
        "mean_nn_distance: ",
        "digest: ",
    ] {
        assert!(out.contains(key), "missing {key:?} in {out}");
    }
}

#[test]
fn default_run_digest_is_the_same_on_one_and_two_threads() {
    let digest = |t: &str| {
        let out = stdout(bin().args(["run", "--steps", "200", "--threads", t]));
        out.lines()
            .find(|l| l.starts_with("digest: "))
            .unwrap()
            .to_string()
    };
    assert_eq!(digest("1"), digest("2"));
}

#[test]
fn bench_json_has_the_contract_fields() {
    let out = stdout(bin().args([
        "bench",
        "--dim",
        "2",
        "--n",
        "1000",
        "--phase",
        "uniform",
        "--threads",
        "1",
        "--json",
    ]));
    let line = out.lines().next().unwrap();
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    for key in [
        "dim",
        "n",
        "phase",
        "backend",
        "threads",
        "median_ms",
        "min_ms",
        "ns_per_boid_step",
        "neighbours",
        "candidates",
        "bytes_per_boid",
        "grid_ms",
        "gather_ms",
        "steer_ms",
    ] {
        assert!(v.get(key).is_some(), "missing {key} in {line}");
    }
    // The phases lie within the step: each positive, and the steering's
    // median no more than the step's (each step's part within that step).
    let parts: Vec<f64> = ["grid_ms", "gather_ms", "steer_ms"]
        .map(|k| v[k].as_f64().unwrap())
        .into();
    assert!(parts.iter().all(|&p| p > 0.0), "{line}");
    let median = v["median_ms"].as_f64().unwrap();
    assert!(parts.iter().all(|&p| p <= median), "{line}");
    assert_eq!(v["dim"], 2);
    assert_eq!(v["n"], 1000);
    assert_eq!(v["phase"], "uniform");
    assert_eq!(v["backend"], "cpu");
    let nb = v["neighbours"].as_f64().unwrap();
    assert!(
        (17.0..23.0).contains(&nb),
        "expected ~20.1 neighbours, got {nb}"
    );
}

/// `bench --scene` times a shipped scene as people run it, `--set` included,
/// and its JSON row names the scene and splits the step into its phases.
#[test]
fn bench_scene_times_a_preset_with_its_overrides_and_phases() {
    let out = stdout(bin().args([
        "bench",
        "--scene",
        "sharks-and-schools",
        "--set",
        "species.school_a.count=500",
        "--warmup",
        "2",
        "--steps",
        "5",
        "--threads",
        "1",
        "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(v["scene"], "sharks-and-schools");
    assert_eq!(v["set"][0], "species.school_a.count=500");
    assert_eq!(v["n"], 500 + 4000 + 2, "{out}");
    assert_eq!(
        (v["threads"].as_u64(), v["steps"].as_u64()),
        (Some(1), Some(5))
    );
    let f = |k: &str| v[k].as_f64().unwrap();
    assert!(f("median_ms") > 0.0 && f("min_ms") <= f("median_ms") && f("median_ms") <= f("p95_ms"));
    assert!(f("steer_ms") > 0.0 && f("grid_ms") > 0.0, "{out}");
    assert!((f("steps_per_s") - 1e3 / f("median_ms")).abs() < 1e-6);
    let err = String::from_utf8(
        bin()
            .args(["bench", "--scene", "default", "--dim", "2"])
            .output()
            .unwrap()
            .stderr,
    )
    .unwrap();
    assert!(err.contains("cannot be used with"), "{err}");
}

#[test]
fn bench_level_times_the_recorded_solution_to_its_end() {
    let out = stdout(bin().args(["bench", "--level", "1", "--threads", "1", "--json"]));
    let v: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(v["level"], "first-light");
    assert_eq!(v["creatures"], 1900);
    assert_eq!(v["threads"], 1);
    // The solution wins at step 3,450; the benchmark stops where the level ends.
    assert_eq!(v["steps"], 3450);
    let (median, p95, max) = (
        v["median_ms"].as_f64().unwrap(),
        v["p95_ms"].as_f64().unwrap(),
        v["max_ms"].as_f64().unwrap(),
    );
    assert!(0.0 < median && median <= p95 && p95 <= max, "{out}");
    // --steps times the level's start alone (the whole swarm in flight).
    let out = stdout(bin().args([
        "bench",
        "--level",
        "1",
        "--threads",
        "1",
        "--steps",
        "120",
        "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(v["steps"], 120);
}

#[test]
fn bench_table_3d_runs() {
    let out = bin()
        .args([
            "bench",
            "--dim",
            "3",
            "--n",
            "1000",
            "--phase",
            "uniform",
            "--threads",
            "2",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let table = String::from_utf8(out.stdout).unwrap();
    let note = String::from_utf8(out.stderr).unwrap();
    // stdout is exactly the header and one row, for scripts that read it; the
    // kernel width goes to stderr.
    assert_eq!(table.lines().count(), 2, "{table}");
    assert!(table.lines().next().unwrap().starts_with("dim"), "{table}");
    let row: Vec<&str> = table.lines().nth(1).unwrap().split_whitespace().collect();
    assert_eq!(&row[..5], ["3", "1000", "uniform", "cpu", "2"], "{table}");
    assert!(note.contains("CPU neighbour kernel: "), "{note}");
}

#[test]
fn bad_input_exits_non_zero_with_a_clear_message() {
    let cases: [(&[&str], &str); 6] = [
        (&["bench", "--threads", "0"], "--threads 0"),
        (&["bench", "--n", "0"], "--n 0"),
        (&["bench", "--backend", "quantum"], "quantum"),
        (&["bench", "--dim", "4"], "4"),
        (&["bench", "--level", "11"], "not a shipped level"),
        (&["run", "--threads", "0"], "--threads 0"),
    ];
    for (args, want) in cases {
        let out = bin()
            .args(args)
            .assert()
            .failure()
            .get_output()
            .stderr
            .clone();
        let err = String::from_utf8(out).unwrap();
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

#[test]
fn run_backend_auto_runs_on_a_gpu_or_says_why_it_fell_back() {
    let out = bin()
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .args(["run", "--backend", "auto", "--steps", "30"])
        .assert()
        .success()
        .get_output()
        .clone();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stdout.contains("digest: "), "{stdout}");
    assert!(
        stdout.contains("on GPU ") || stderr.contains("backend auto: using the CPU"),
        "{stdout}\n{stderr}"
    );
}

#[test]
fn bench_on_the_gpu_reports_the_device() {
    let out = bin()
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .args([
            "bench",
            "--backend",
            "auto",
            "--dim",
            "3",
            "--n",
            "500",
            "--phase",
            "uniform",
            "--json",
        ])
        .assert()
        .success()
        .get_output()
        .clone();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let v: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(v["n"], 500);
    if v["backend"] == "gpu" {
        assert!(v["device"].as_str().is_some_and(|d| !d.is_empty()), "{v}");
        assert!(v["median_ms"].as_f64().unwrap() > 0.0);
        assert!(v["neighbours"].as_f64().unwrap() > 5.0, "{v}");
    } else {
        murmuration_gpu::testing::missing("no GPU adapter: bench fell back to the CPU");
    }
}

#[test]
fn gpu_backend_without_an_adapter_is_a_clear_error_and_auto_falls_back() {
    // WGPU_BACKEND names a backend this build lacks on Linux, so no adapter opens.
    let out = bin()
        .env("WGPU_BACKEND", "metal")
        .args(["run", "--backend", "gpu", "--steps", "10"])
        .assert()
        .failure()
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("error: no GPU adapter found"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let out = bin()
        .env("WGPU_BACKEND", "metal")
        .args(["run", "--backend", "auto", "--steps", "10"])
        .assert()
        .success()
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("backend auto: using the CPU because"), "{err}");
    assert!(String::from_utf8(out.stdout).unwrap().contains("digest: "));
}

#[test]
fn a_closed_output_pipe_ends_the_run_quietly_instead_of_panicking() {
    // Regression: `murmuration run | head -1` panicked in println! on EPIPE.
    let exe = assert_cmd::cargo::cargo_bin("murmuration");
    let mut child = std::process::Command::new(exe)
        .args(["run", "--steps", "5"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // the reader goes away before anything is written
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.status.success(), "{err}");
}

/// The README's first command, `cargo run --release`, needs exactly one binary
/// among the workspace's default members (xtask, a second binary, made it
/// ambiguous once).
#[test]
fn cargo_run_at_the_root_means_the_murmuration_binary() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .unwrap();
    assert!(out.status.success());
    let json = String::from_utf8(out.stdout).unwrap();
    let key = "\"workspace_default_members\":[";
    let start = json
        .find(key)
        .expect("cargo metadata lists the default members")
        + key.len();
    let members = &json[start..start + json[start..].find(']').unwrap()];
    assert_eq!(
        members.matches('"').count(),
        2,
        "one default member: {members}"
    );
    assert!(members.contains("murmuration-app"), "{members}");
}

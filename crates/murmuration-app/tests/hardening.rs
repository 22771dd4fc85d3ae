//! Hostile input and hostile file systems (issue 14): each test is named for what
//! it catches. Bad input exits 2 with a reason and writes nothing; no output is
//! ever lost or replaced by surprise.

mod common;

use common::{bin, fails, ok};
use std::path::Path;

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `run default --steps 2 --set world.size=[1e-6,60]` ran for ever inside
/// `World::metrics`.
#[test]
fn a_world_one_micron_thin_runs_and_measures_in_bounded_time() {
    let started = std::time::Instant::now();
    let out = ok(bin().timeout(std::time::Duration::from_secs(60)).args([
        "run",
        "default",
        "--steps",
        "2",
        "-q",
        "--set",
        "world.size=[1e-6,60]",
    ]));
    assert!(out.contains("mean_nn_distance: "), "{out}");
    assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
}

/// `(ulimit -v 4000000; run fish-school --set species.fish.count=268435456)`
/// aborted with SIGABRT while `check` said ok: the memory check now reads the
/// process's own limits too.
#[test]
#[cfg(target_os = "linux")]
fn boids_beyond_the_address_space_limit_are_refused_before_allocating() {
    let exe = assert_cmd::cargo::cargo_bin("murmuration");
    for command in ["run", "check"] {
        let script = format!(
            "ulimit -v 4000000; exec '{}' {command} fish-school --set species.fish.count=268435456",
            exe.display()
        );
        let out = std::process::Command::new("sh")
            .args(["-c", &script])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{command}: {err}");
        assert!(
            err.contains("address-space limit (ulimit -v)"),
            "{command}: {err}"
        );
    }
}

/// `--metrics same.csv --trajectory same.csv` exited 0 with only the trajectory
/// in the file. Two outputs on one file are refused, also through `..`,
/// symbolic links and hard links, before anything runs.
#[test]
fn two_outputs_on_one_file_are_refused_through_dots_and_links() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("sub")).unwrap();
    std::fs::write(d.join("kept.npy"), b"old").unwrap();
    std::fs::hard_link(d.join("kept.npy"), d.join("hard.npy")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(d.join("kept.npy"), d.join("soft.npy")).unwrap();
    let before = files_in(d);
    let pairs: Vec<(&str, String, &str, String)> = vec![
        (
            "--metrics",
            "same.csv".into(),
            "--trajectory",
            "same.csv".into(),
        ),
        (
            "--metrics",
            "same.csv".into(),
            "--trajectory",
            "sub/../same.csv".into(),
        ),
        ("--trajectory", "x.npy".into(), "--snapshot", "x.npy".into()),
        (
            "--trajectory",
            "kept.npy".into(),
            "--snapshot",
            "hard.npy".into(),
        ),
        #[cfg(unix)]
        (
            "--trajectory",
            "soft.npy".into(),
            "--snapshot",
            "kept.npy".into(),
        ),
    ];
    for (a, pa, b, pb) in pairs {
        let err = fails(
            bin()
                .current_dir(d)
                .args(["run", "--steps", "3", "-q", a, &pa, b, &pb]),
            2,
        );
        assert!(
            err.contains("are the same file"),
            "{a} {pa} {b} {pb}: {err}"
        );
        assert_eq!(files_in(d), before, "nothing written for {pa} and {pb}");
    }
    assert_eq!(std::fs::read(d.join("kept.npy")).unwrap(), b"old");
    // A snapshot may replace the one it resumed from.
    ok(bin()
        .current_dir(d)
        .args(["run", "--steps", "3", "-q", "--snapshot", "r.snap"]));
    let out = ok(bin().current_dir(d).args([
        "run",
        "--steps",
        "3",
        "--resume",
        "r.snap",
        "--snapshot",
        "r.snap",
    ]));
    assert!(out.contains("at step 3"), "{out}");
    let err = fails(
        bin().current_dir(d).args([
            "run",
            "--steps",
            "3",
            "--resume",
            "r.snap",
            "--metrics",
            "r.snap",
        ]),
        2,
    );
    assert!(err.contains("are the same file"), "{err}");
}

/// A read-only output (mode 444) was replaced and became 0644; it is refused as
/// `cp` would, and left as it was.
#[test]
#[cfg(unix)]
fn a_read_only_output_is_refused_and_left_untouched() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let dest = dir.path().join("m.csv");
    std::fs::write(&dest, b"precious").unwrap();
    std::fs::set_permissions(&dest, std::fs::Permissions::from_mode(0o444)).unwrap();
    let err = fails(
        bin()
            .args(["run", "--steps", "2", "-q", "--metrics"])
            .arg(&dest),
        2,
    );
    assert!(err.contains("read-only"), "{err}");
    assert_eq!(std::fs::read(&dest).unwrap(), b"precious");
    let mode = std::fs::metadata(&dest).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o444);
}

/// The snapshot's temporary file was `.NAME.tmp<PID>`, created by following a
/// planted symlink. Temporary names are now unpredictable and created
/// exclusively: planted links at the old names are never followed, and the
/// snapshot lands as a regular file.
#[test]
#[cfg(unix)]
fn planted_symlinks_at_temporary_names_are_never_followed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let victim = d.join("victim.txt");
    std::fs::write(&victim, b"do not touch").unwrap();
    // Every pid the child could get on this machine is too many; plant a band
    // around ours and rely on the name no longer holding a bare pid at all.
    let me = std::process::id();
    for pid in me..me + 200 {
        std::os::unix::fs::symlink(&victim, d.join(format!(".out.snap.tmp{pid}"))).unwrap();
    }
    ok(bin()
        .current_dir(d)
        .args(["run", "--steps", "2", "-q", "--snapshot", "out.snap"]));
    assert_eq!(std::fs::read(&victim).unwrap(), b"do not touch");
    let meta = std::fs::symlink_metadata(d.join("out.snap")).unwrap();
    assert!(meta.file_type().is_file(), "the snapshot is a regular file");
}

/// kill -9 leaves a temporary file behind; the next run writing the same output
/// removes the one it can prove stale (its process is gone) and names it.
#[test]
#[cfg(target_os = "linux")]
fn a_later_run_removes_stale_temporary_files_of_killed_runs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let stale = d.join(".m.csv.4999999.Ab3xYz.tmp");
    std::fs::write(&stale, b"half a file").unwrap();
    let out = bin()
        .current_dir(d)
        .args(["run", "--steps", "2", "-q", "--metrics", "m.csv"])
        .assert()
        .success()
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("removed") && err.contains(".m.csv.4999999.Ab3xYz.tmp"),
        "{err}"
    );
    assert_eq!(files_in(d), vec!["m.csv".to_string()]);
}

/// Invalid UTF-8 said only "cannot read scenario"; it now names line, column
/// and byte.
#[test]
fn invalid_utf8_in_a_scenario_names_its_line_and_byte() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("bad.toml");
    let mut text = b"[world]\nsize = [10, 10]\nname = \"ab".to_vec();
    text.extend_from_slice(&[0xff, b'"', b'\n']);
    std::fs::write(&f, text).unwrap();
    let err = fails(bin().arg("check").arg(&f), 2);
    assert!(err.contains("bad.toml:3:11"), "{err}");
    assert!(err.contains("byte 34 (0xff) is not UTF-8"), "{err}");
}

/// `check` warned about nothing while idle-crowd spawned people inside its
/// fountain; spawning now keeps them out, and a region wholly inside obstacles
/// is bad input.
#[test]
fn a_spawn_region_wholly_inside_an_obstacle_is_bad_input() {
    let err = fails(
        bin().args(["check", "idle-crowd", "--set", "obstacles[0].radius=100"]),
        2,
    );
    assert!(err.contains("entirely inside obstacles"), "{err}");
    let out = ok(bin().args(["check", "idle-crowd", "--set", "obstacles[0].radius=17"]));
    assert!(out.contains("inside obstacles"), "{out}");
}

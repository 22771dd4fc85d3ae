//! The research commands a long experiment leans on: runs and sweeps killed
//! outright (SIGKILL: no handler runs) lose at most their last checkpoint or the
//! runs in flight and finish bit for bit when resumed; ladders; seeds-only sweeps.

mod common;

use common::{bin, fails, ok};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn line<'a>(out: &'a str, key: &str) -> &'a str {
    out.lines()
        .find(|l| l.starts_with(key))
        .unwrap_or_else(|| panic!("no {key} in {out}"))
}

fn spawn(args: &[&str], files: &[&Path]) -> Child {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("murmuration"));
    c.args(args);
    for f in files {
        c.arg(f);
    }
    c.stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Waits (up to 120 s) until `ready` holds, the child still running; then
/// kills it with SIGKILL and reaps it.
fn kill_9_when(child: &mut Child, what: &str, ready: impl Fn() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "finished before {what}: make the test's job longer"
        );
        assert!(start.elapsed() < Duration::from_secs(120), "no {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        child.try_wait().unwrap().is_none(),
        "finished before it was killed"
    );
    let status = Command::new("kill")
        .args(["-9", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let status = child.wait().unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(9), "{status:?}");
}

#[test]
fn a_run_killed_outright_resumes_from_its_checkpoint_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n);
    let (m, t, s) = (p("c.csv"), p("c.npy"), p("c.snap"));
    let common = ["--every", "10", "--checkpoint-every", "40", "-q"];
    let files = |c: &mut Command| {
        c.arg("--metrics")
            .arg(&m)
            .arg("--trajectory")
            .arg(&t)
            .arg("--snapshot")
            .arg(&s);
    };
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("murmuration"));
    c.args(["run", "--steps", "1200"]).args(common);
    files(&mut c);
    let mut child = c
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Killed once a checkpoint past the first is on disk, mid-run.
    kill_9_when(&mut child, "second checkpoint", || {
        std::fs::read_to_string(&m).is_ok_and(|t| t.lines().count() > 1 + 80)
    });
    // What the kill left is valid: a snapshot, and tables that end at a
    // checkpoint (every row whole).
    let left = std::fs::read_to_string(&m).unwrap();
    let last: u64 = left
        .lines()
        .last()
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        last.is_multiple_of(40) && last < 1200,
        "the table ends at step {last}"
    );
    // Resumed to the same end, with the same options, it ends as one run does.
    let mut c = bin();
    c.arg("run")
        .arg("--resume")
        .arg(&s)
        .args(["--until", "1200"])
        .args(common);
    c.arg("--metrics")
        .arg(&m)
        .arg("--trajectory")
        .arg(&t)
        .arg("--snapshot")
        .arg(&s);
    let resumed = ok(&mut c);
    let mut c = bin();
    c.args(["run", "--steps", "1200", "--every", "10", "-q"])
        .arg("--metrics")
        .arg(p("a.csv"))
        .arg("--trajectory")
        .arg(p("a.npy"))
        .arg("--snapshot")
        .arg(p("a.snap"));
    let whole = ok(&mut c);
    assert_eq!(line(&whole, "digest: "), line(&resumed, "digest: "));
    for (a, b) in [("a.csv", "c.csv"), ("a.npy", "c.npy"), ("a.snap", "c.snap")] {
        assert!(
            std::fs::read(p(a)).unwrap() == std::fs::read(p(b)).unwrap(),
            "{b} differs from the uninterrupted run's {a}"
        );
    }
    // Nothing else is left in the folder (the killed run's temporary files were
    // removed by the resumed run).
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["a.csv", "a.npy", "a.snap", "c.csv", "c.npy", "c.snap"]
    );
    // A table of another run is refused, not mixed in; --until behind the
    // snapshot is refused.
    // A trajectory taken at another interval cannot be told apart by its
    // frames' steps (NPY keeps none), so its frame count is checked.
    let err = fails(
        bin()
            .arg("run")
            .arg("--resume")
            .arg(&s)
            .args(["--every", "7", "--checkpoint-every", "40", "--snapshot"])
            .arg(&s)
            .arg("--trajectory")
            .arg(&t),
        2,
    );
    assert!(
        err.contains("cannot be continued: it holds 121 frames"),
        "{err}"
    );
    // Without --checkpoint-every a resumed run writes its files afresh, as
    // before checkpoints (a regression test: it continued any file it found).
    let fresh = p("fresh.csv");
    std::fs::copy(&m, &fresh).unwrap();
    ok(bin()
        .arg("run")
        .arg("--resume")
        .arg(&s)
        .args(["--steps", "20", "-q", "--metrics"])
        .arg(&fresh));
    let rows: Vec<String> = std::fs::read_to_string(&fresh)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().to_string())
        .collect();
    assert_eq!(rows.first().map(String::as_str), Some("1200"), "{rows:?}");
    assert_eq!(rows.len(), 21);
    std::fs::write(&m, "step,time,other\n0,0,1\n").unwrap();
    let err = fails(
        bin()
            .arg("run")
            .arg("--resume")
            .arg(&s)
            .args(["--checkpoint-every", "40", "--snapshot"])
            .arg(&s)
            .arg("--metrics")
            .arg(&m),
        2,
    );
    assert!(err.contains("its columns are not this run's"), "{err}");
    let err = fails(
        bin()
            .arg("run")
            .arg("--resume")
            .arg(&s)
            .args(["--until", "5"]),
        2,
    );
    assert!(err.contains("--until 5 is behind the snapshot"), "{err}");
    let err = fails(bin().args(["run", "--checkpoint-every", "10"]), 2);
    assert!(err.contains("--snapshot"), "{err}");
}

#[test]
fn a_sweep_killed_outright_keeps_its_finished_runs_and_resumes_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let (a, c) = (dir.path().join("a.csv"), dir.path().join("c.csv"));
    let sweep = [
        "sweep",
        "default",
        "--set",
        "species.boids.alignment_weight=0.5,1,1.5,2,2.5,3",
        "--steps",
        "300",
        "--skip",
        "100",
        "--every",
        "50",
        "--threads",
        "1",
        "-q",
        "--out",
    ];
    let mut child = spawn(&sweep, &[&c]);
    kill_9_when(&mut child, "a finished run in the table", || {
        std::fs::read_to_string(&c).is_ok_and(|t| t.lines().count() >= 2)
    });
    let left = std::fs::read_to_string(&c).unwrap();
    let kept = left.lines().count() - 1;
    assert!((1..6).contains(&kept), "{left}");
    assert!(left.ends_with('\n'), "the table ends with a whole row");
    let out = ok(bin().args(sweep).arg(&c).arg("--resume"));
    assert!(
        out.contains(&format!("resume: {kept} of 6 runs are in")),
        "{out}"
    );
    ok(bin().args(sweep).arg(&a));
    assert_eq!(
        std::fs::read_to_string(&a).unwrap(),
        std::fs::read_to_string(&c).unwrap(),
        "the resumed table differs from the uninterrupted one"
    );
    // A table of another sweep is refused.
    let err = fails(
        bin()
            .args(["sweep", "default", "--set", "species.boids.jitter=0,0.1"])
            .args(["--steps", "300", "--skip", "100", "--every", "50", "--out"])
            .arg(&c)
            .arg("--resume"),
        2,
    );
    assert!(err.contains("is not a table of this sweep"), "{err}");
}

#[test]
fn a_sweep_of_seeds_alone_needs_no_set() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s.csv");
    ok(bin()
        .args([
            "sweep", "vicsek", "--seeds", "3", "--steps", "20", "-q", "--out",
        ])
        .arg(&out));
    let t = std::fs::read_to_string(&out).unwrap();
    let rows: Vec<&str> = t.lines().collect();
    assert_eq!(rows.len(), 4, "{t}");
    assert!(
        rows[0].starts_with("run,seed,steps,skip,samples,"),
        "{}",
        rows[0]
    );
    assert!(rows[3].starts_with("2,3,20,0,20,"), "{}", rows[3]);
}

#[test]
fn a_ladder_goes_up_and_down_with_the_flock_carried_and_draws_it() {
    let dir = tempfile::tempdir().unwrap();
    let (out, png) = (dir.path().join("l.csv"), dir.path().join("l.png"));
    let ladder = |extra: &[&str]| {
        let mut c = bin();
        c.args(["ladder", "vicsek", "--set", "species.particles.eta=0.5,3,6"])
            .args(["--rung-steps", "60", "--every", "10"])
            .args(if extra.contains(&"--skip") {
                &[][..]
            } else {
                &["--skip", "30"][..]
            })
            .arg("--out")
            .arg(&out)
            .args(extra);
        c
    };
    let text = ok(ladder(&["--seeds", "2", "--plot"]).arg(&png));
    assert!(text.contains("5 rungs (up and down) x 2 seeds"), "{text}");
    let t = std::fs::read_to_string(&out).unwrap();
    let rows: Vec<&str> = t.lines().collect();
    assert_eq!(rows.len(), 1 + 2 * 5, "{t}");
    assert!(
        rows[0].starts_with(
            "rung,direction,species.particles.eta,seed,rung_steps,skip,samples,count_mean"
        ),
        "{}",
        rows[0]
    );
    assert!(rows[1].starts_with("0,up,0.5,1,60,30,3,"), "{}", rows[1]);
    assert!(rows[4].starts_with("3,down,3,1,"), "{}", rows[4]);
    assert!(rows[10].starts_with("4,down,0.5,2,"), "{}", rows[10]);
    // Carried, not restarted: the last rung (eta 0.5 again, after 6) is not the first.
    let pol = |r: &str| r.split(',').nth(9).unwrap().to_string();
    assert_ne!(pol(rows[1]), pol(rows[5]), "the flock was not carried");
    let img = image::open(&png).unwrap().to_rgb8();
    assert_eq!(img.dimensions(), (960, 640));
    let mut colours: Vec<[u8; 3]> = img.pixels().map(|p| p.0).collect();
    colours.sort();
    colours.dedup();
    assert!(colours.len() > 50, "{} colours: blank", colours.len());
    let text = ok(&mut ladder(&["--one-way"]));
    assert!(text.contains("3 rungs (up) x 1 seeds"), "{text}");
    // Refused before any step: a bad value on any rung, a transient as long as
    // a rung, a figure of a metric that does not exist.
    let err = fails(
        bin()
            .args(["ladder", "vicsek", "--set", "species.particles.eta=0.5,99"])
            .args(["--rung-steps", "10", "--out"])
            .arg(dir.path().join("x.csv")),
        2,
    );
    assert!(err.contains("eta = 99 is out of range"), "{err}");
    let err = fails(&mut ladder(&["--skip", "60"]), 2);
    assert!(err.contains("skip = 60 leaves nothing to measure"), "{err}");
    let err = fails(
        ladder(&["--plot-metric", "model_order", "--plot"]).arg(&png),
        2,
    );
    assert!(err.contains("replaced by order parameters"), "{err}");
    assert!(!dir.path().join("x.csv").exists());
}

#[test]
fn analyse_prints_and_writes_the_field_study_measures() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("a.json");
    let text = ok(bin()
        .args(["analyse", "fish-school", "--steps", "30", "--frames", "2"])
        .args(["--stride", "5", "--ranks", "8", "--out"])
        .arg(&out));
    for key in [
        "size_L: ",
        "correlation_length_xi: ",
        "anisotropy_gamma(n=1..): ",
        "forward_fraction(n=1..): ",
        "shape ",
        "density core->edge: ",
    ] {
        line(&text, key);
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let frames = json["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 2);
    assert_eq!(frames[0][0], 30);
    assert_eq!(frames[1][0], 35);
    assert_eq!(json["mean"]["anisotropy"].as_array().unwrap().len(), 8);
    assert_eq!(
        json["mean"]["shape"].as_array().unwrap().len(),
        2,
        "2D: width, length"
    );
    let err = fails(bin().args(["analyse", "fish-school", "--frames", "0"]), 2);
    assert!(
        err.contains("--frames and --stride must be at least 1"),
        "{err}"
    );
}

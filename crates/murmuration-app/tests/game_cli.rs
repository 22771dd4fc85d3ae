//! `murmuration game`: a shipped solution replays headless to its recorded win,
//! bad level files and stale recordings exit 2 with messages that say what is
//! wrong, and a replay draws offscreen.

mod common;

use common::{bin, fails, ok};
use std::path::PathBuf;

fn repo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
}

#[test]
fn a_shipped_solution_replays_headless_to_its_win() {
    let solution = repo("levels/solutions/the-mechanism.replay");
    let out = ok(bin()
        .args(["game", "3", "--headless", "--replay"])
        .arg(&solution));
    for line in [
        "level: The Mechanism (the-mechanism)",
        "outcome: won",
        "saved: 1671 / 1500 (of 1900)",
        "digest: 767a7cea4ae968dc",
        "rating: ★★☆ (2 stars; par: 1700 saved, 60 s)",
    ] {
        assert!(out.contains(line), "missing {line:?} in {out}");
    }
}

#[test]
fn bad_levels_and_stale_recordings_exit_2_and_say_why() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(repo("levels/3-the-mechanism.toml")).unwrap();
    let level = |name: &str, edit: &dyn Fn(&str) -> String| {
        let p = dir.path().join(name);
        std::fs::write(&p, edit(&text)).unwrap();
        p
    };
    let solution = repo("levels/solutions/the-mechanism.replay");
    let run = |level: &PathBuf, replay: &PathBuf| {
        fails(
            bin()
                .arg("game")
                .arg(level)
                .arg("--headless")
                .arg("--replay")
                .arg(replay),
            2,
        )
    };
    let unknown = level("unknown.toml", &|t| {
        t.replace("need = 900", "need = 900\nneeds = 3")
    });
    let e = run(&unknown, &solution);
    assert!(
        e.contains("unknown.toml:") && e.contains("game.plates[0].needs: unknown field"),
        "{e}"
    );
    let greedy = level("greedy.toml", &|t| t.replace("need = 900", "need = 5000"));
    let e = run(&greedy, &solution);
    assert!(
        e.contains("game.plates[0].need = 5000 is out of range: the level has 1900 lumen"),
        "{e}"
    );
    let orphan = level("orphan.toml", &|t| {
        t.replace("plates = [\"mechanism\"]", "plates = []")
    });
    let e = run(&orphan, &solution);
    assert!(e.contains("game.gates[0].plates is empty"), "{e}");
    // The shipped solution on an edited level: refused with both checksums.
    let edited = level("edited.toml", &|t| t.replace("save = 1500", "save = 1499"));
    let e = run(&edited, &solution);
    assert!(e.contains("the level has changed since"), "{e}");
    // A recording whose recorded end no longer matches names its version.
    let stale = dir.path().join("stale.replay");
    let rec = std::fs::read_to_string(&solution).unwrap();
    std::fs::write(
        &stale,
        rec.replace("engine 0.1.0", "engine 0.0.7")
            .replace("\nend won ", "\nend won 1"),
    )
    .unwrap();
    let e = fails(
        bin()
            .args(["game", "3", "--headless", "--replay"])
            .arg(&stale),
        2,
    );
    assert!(
        e.contains("was recorded with Murmuration 0.0.7 and no longer replays"),
        "{e}"
    );
    // No such level.
    let e = fails(
        bin()
            .args(["game", "11", "--headless", "--replay"])
            .arg(&solution),
        2,
    );
    assert!(e.contains("no level \"11\""), "{e}");
}

#[test]
fn a_replay_draws_offscreen_with_the_camera_on_the_swarm() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("swarm.png");
    let solution = repo("levels/solutions/first-light.replay");
    let out = ok(bin()
        .args([
            "game", "1", "--frames", "3", "--size", "320x180", "--render",
        ])
        .arg(&png)
        .arg("--replay")
        .arg(&solution));
    assert!(out.contains("outcome: undecided"), "{out}");
    let img = image::open(&png).unwrap().to_rgba8();
    assert_eq!(img.dimensions(), (320, 180));
    // The swarm fills the middle of the picture: many bright pixels there.
    let bright = img
        .enumerate_pixels()
        .filter(|(x, y, p)| (100..220).contains(x) && (50..130).contains(y) && p[2] > 120)
        .count();
    assert!(bright > 500, "only {bright} bright pixels around the swarm");
}

#[test]
fn bench_level_render_times_whole_frames_on_the_adapter() {
    let out = ok(bin().args([
        "bench", "--level", "1", "--render", "64x48", "--frames", "3", "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(v["level"], "first-light");
    assert_eq!(
        (v["width"].as_u64(), v["height"].as_u64()),
        (Some(64), Some(48))
    );
    assert_eq!(v["frames"], 3);
    assert!(!v["adapter"].as_str().unwrap().is_empty(), "{out}");
    assert!(v["median_ms"].as_f64().unwrap() > 0.0 && v["fps"].as_f64().unwrap() > 0.0);
}

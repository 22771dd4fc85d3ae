//! Every shipped preset looks like what it is named after, in numbers: each
//! states its bands of the metrics in `[expect]` (docs/SCENARIOS.md), and this
//! runs it past its transient, at its own seed and size, and checks them.

use murmuration::scenario::{AnyWorld, Scenario};
use std::path::PathBuf;

/// Presets that do not state bands yet, and why (issue 16 is open for them).
const NOT_YET: [&str; 1] = [
    // The predator rework (a shark that catches stragglers, a vacuole) is next.
    "sharks-and-schools",
];

fn check(name: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios")
        .join(format!("{name}.toml"));
    let s = Scenario::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let e = s
        .expectations()
        .unwrap_or_else(|| panic!("{name} states no [expect] bands"))
        .clone();
    assert!(e.bands.len() >= 3, "{name}: too few bands to say anything");
    let scalars = match s.build().unwrap() {
        AnyWorld::D2(mut w) => {
            w.step_n(e.after);
            w.metrics().scalars().to_vec()
        }
        AnyWorld::D3(mut w) => {
            w.step_n(e.after);
            w.metrics().scalars().to_vec()
        }
    };
    let missed: Vec<String> = e
        .check(&scalars)
        .iter()
        .filter(|v| !v.holds())
        .map(|v| format!("{} = {}", v.band, v.value))
        .collect();
    assert!(
        missed.is_empty(),
        "{name} after {} steps: {missed:?}",
        e.after
    );
}

#[test]
fn default_streams_in_ordered_flocks() {
    check("default");
}

#[test]
fn fish_school_is_one_school_inside_its_tank() {
    check("fish-school");
}

#[test]
fn hurried_birds_fly_fast_and_aligned() {
    check("hurried-birds");
}

#[test]
fn idle_crowd_strolls_without_gathering() {
    check("idle-crowd");
}

#[test]
fn phaser_canvas_flocks_sweep_the_canvas() {
    check("phaser-canvas");
}

#[test]
fn starlings_fly_as_one_body_over_their_roost() {
    check("starlings-3d");
}

/// A new preset gets bands (or a reason in `NOT_YET`) and a test above.
#[test]
fn every_preset_states_its_bands() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        if path.extension().is_none_or(|e| e != "toml")
            || name.starts_with("bench-")
            || NOT_YET.contains(&name.as_str())
        {
            continue;
        }
        let s = Scenario::load(&path).unwrap();
        assert!(
            s.expectations().is_some(),
            "{name} states no [expect] bands"
        );
        let tests = include_str!("presets_look.rs");
        assert!(
            tests.contains(&format!("check(\"{name}\")")),
            "{name} has no test here"
        );
    }
}

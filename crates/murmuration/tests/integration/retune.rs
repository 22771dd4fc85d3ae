//! Changing a running world through scenario paths (`Scenario::retune`, the
//! Python package's `World.set`) and the shared sweep statistics.

use murmuration::World2;
use murmuration::scenario::{Override, Scenario};
use murmuration::sweep::{self, Axis, Schedule};

fn set(path: &str, value: &str) -> Override {
    Override {
        path: path.into(),
        value: value.into(),
    }
}

#[test]
fn a_retune_before_the_first_step_equals_the_override_from_the_start() {
    let base = Scenario::resolve("default", &[]).unwrap();
    let mut live: World2 = base.build_world().unwrap();
    let changed = base
        .with_override(set("species.boids.separation_weight", "2.5"))
        .unwrap();
    let changed = changed.with_override(set("world.dt", "0.02")).unwrap();
    changed.retune(&base, &mut live).unwrap();
    let mut fresh: World2 = changed.build_world().unwrap();
    live.step_n(20);
    fresh.step_n(20);
    assert_eq!(live.digest(), fresh.digest());
}

#[test]
fn a_retune_that_would_respawn_or_rebuild_is_refused_and_changes_nothing() {
    let base = Scenario::resolve("default", &[]).unwrap();
    let mut live: World2 = base.build_world().unwrap();
    live.step_n(3);
    let before = live.digest();
    for (path, value) in [
        ("species.boids.count", "10"),
        ("species.boids.speed", "0.5"),
        ("species.boids.heading", "[1, 0]"),
    ] {
        let changed = base.with_override(set(path, value)).unwrap();
        let e = changed.retune(&base, &mut live).unwrap_err().to_string();
        assert!(e.contains(path) && e.contains("when it was built"), "{e}");
        assert_eq!(live.digest(), before);
    }
    // A change of max_speed alone moves the default spawn speed with it, but
    // the running boids keep theirs: accepted.
    let faster = base
        .with_override(set("species.boids.max_speed", "3"))
        .unwrap();
    faster.retune(&base, &mut live).unwrap();
    assert_eq!(live.species()[0].max_speed, 3.0);
}

#[test]
fn a_bad_value_names_the_file_the_setting_and_the_value() {
    let base = Scenario::resolve("default", &[]).unwrap();
    let e = base
        .with_override(set("species.boids.max_speed", "-2"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("<preset default>") && e.contains("max_speed") && e.contains("-2"),
        "{e}"
    );
    let e = Scenario::resolve("no-such-preset", &[])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("no such file, and no preset") && e.contains("fish-school"),
        "{e}"
    );
}

#[test]
fn a_sweep_run_samples_every_kth_step_after_the_transient() {
    let axes = [Axis {
        path: "species.boids.count".into(),
        values: vec!["200".into()],
    }];
    let runs = sweep::runs(&axes, 5, 1);
    let s = Scenario::resolve("default", &runs[0].overrides(&axes)).unwrap();
    let schedule = Schedule {
        steps: 30,
        skip: 10,
        every: 4,
    };
    let stats = sweep::run_stats(&s, schedule, &|| false, &|| ())
        .unwrap()
        .unwrap();
    // Steps 14, 18, 22, 26, 30.
    assert_eq!(stats.samples, 5);
    assert_eq!(stats.mean[0], 200.0);
    assert_eq!(stats.std(0), 0.0);
    let stopped = sweep::run_stats(&s, schedule, &|| true, &|| ()).unwrap();
    assert!(stopped.is_none());
}

//! Any text given to the scenario parser: a scenario or an error, never a panic;
//! a valid one (with its boid counts capped) builds, lints, steps and measures in
//! bounded time (run with `-timeout`, so a slow input is a finding), spawns no boid
//! inside an obstacle, and keeps every boid finite and inside a walled box.
#![no_main]

use libfuzzer_sys::fuzz_target;
use murmuration::scenario::{AnyWorld, Override, Scenario};
use murmuration::{Boundary, Vector, World};

fn exercise<V: Vector>(mut w: World<V>) {
    let solids = murmuration::ObstacleSet::new(w.obstacles());
    for (&p, &id) in w.boids().positions().iter().zip(w.boids().ids()) {
        if let Some(s) = solids.nearest(p, 0.0) {
            assert!(s.distance >= 0.0, "boid {id} spawned {} inside an obstacle", -s.distance);
        }
    }
    let _ = w.metrics();
    w.step_n(2);
    let m = w.metrics();
    let c = *w.config();
    for &p in w.boids().positions() {
        assert!(p.is_finite(), "a position is not finite: {:?}", p.to_array3());
        if matches!(c.boundary, Boundary::Wrap | Boundary::Reflect) {
            for a in 0..V::DIM {
                assert!(
                    p.get(a) >= c.min.get(a) && p.get(a) <= c.max.get(a),
                    "a boid left the box: {:?}",
                    p.to_array3()
                );
            }
        }
    }
    if m.count >= 2 {
        assert!(!m.mean_nn_distance.is_nan(), "{m:?}");
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(s) = Scenario::parse(text, "fuzz.toml") else {
        return;
    };
    let small: Vec<Override> = s
        .species()
        .iter()
        .map(|(n, c)| Override {
            path: format!("species.{n}.count"),
            value: c.min(&64).to_string(),
        })
        .collect();
    let Ok(s) = Scenario::parse_with(text, "fuzz.toml", &small) else {
        return;
    };
    let _ = s.lints();
    match s.build() {
        Ok(AnyWorld::D2(w)) => exercise(w),
        Ok(AnyWorld::D3(w)) => exercise(w),
        Err(_) => {}
    }
});

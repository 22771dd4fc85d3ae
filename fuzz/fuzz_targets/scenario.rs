//! Any text given to the scenario parser: a scenario or an error, never a panic;
//! a valid one (with its boid counts capped) builds, lints and steps.
#![no_main]

use libfuzzer_sys::fuzz_target;
use murmuration::scenario::{AnyWorld, Override, Scenario};

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
        Ok(AnyWorld::D2(mut w)) => w.step_n(2),
        Ok(AnyWorld::D3(mut w)) => w.step_n(2),
        Err(_) => {}
    }
});

//! What a flock costs per frame in a Bevy app, by boid count and [`BoidSync`]:
//! the bare `World::step`, the plugin without boid entities (a game draws the
//! world's positions itself), and with them (a `Transform` per boid, propagated
//! by Bevy's transform systems). Run it in release:
//!
//!     cargo run --release -p bevy_murmuration --example costs

use bevy_app::prelude::*;
use bevy_murmuration::{AnyFlock, BoidSync, MurmurationPlugin};
use bevy_time::{Fixed, Time, TimePlugin, TimeUpdateStrategy};
use bevy_transform::TransformPlugin;
use murmuration::scenario::{AnyWorld, Scenario};
use std::time::Instant;

/// The default scenario's boids at its density (2,000 in 60 × 60).
fn scenario(n: usize) -> Scenario {
    let side = 60.0 * (n as f64 / 2000.0).sqrt();
    let text = include_str!("../../../scenarios/default.toml")
        .replace("size = [60, 60]", &format!("size = [{side}, {side}]"))
        .replace("count = 2000", &format!("count = {n}"));
    Scenario::parse(&text, "costs").expect("the scaled default parses")
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Median milliseconds of `frame` over `frames` calls after `warm` unmeasured.
fn time(warm: usize, frames: usize, mut frame: impl FnMut()) -> f64 {
    for _ in 0..warm {
        frame();
    }
    let samples = (0..frames)
        .map(|_| {
            let t = Instant::now();
            frame();
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    median(samples)
}

fn main() {
    let (warm, frames) = (120, 300);
    println!(
        "boids   World::step   plugin, BoidSync::Off   plugin, BoidSync::Entities   (median ms per frame)"
    );
    for n in [1_000, 50_000] {
        let s = scenario(n);
        let AnyWorld::D2(mut world) = s.build().expect("builds") else {
            unreachable!("the default scenario is 2D")
        };
        let bare = time(warm, frames, || {
            world.step();
        });
        let plugin = |sync| {
            let mut app = App::new();
            app.add_plugins((TimePlugin, TransformPlugin, MurmurationPlugin::default()));
            AnyFlock::from_scenario(&s)
                .expect("builds")
                .with_sync(sync)
                .spawn(app.world_mut());
            app.update();
            let dt = app.world().resource::<Time<Fixed>>().timestep();
            app.insert_resource(TimeUpdateStrategy::ManualDuration(dt));
            time(warm, frames, || app.update())
        };
        let off = plugin(BoidSync::Off);
        let entities = plugin(BoidSync::Entities);
        println!("{n:>6}   {bare:>11.3}   {off:>21.3}   {entities:>26.3}");
    }
}

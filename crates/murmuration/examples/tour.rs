//! docs/LIBRARY.md's example, compiled with the workspace so it cannot drift from
//! the API (`crates/murmuration-app/tests/docs.rs` checks that the guide's block is
//! this file's): `cargo run --release -p murmuration --example tour`.

use murmuration::glam::Vec2;
use murmuration::{
    Attractor, Boundary, Obstacle, Relation, Spawn, SpeciesId, SpeciesParams, World2, WorldConfig,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let config = WorldConfig::new(Vec2::splat(40.0), Boundary::Wrap);
    let mut world = World2::new(config, vec![SpeciesParams::default()])?;
    let fish = SpeciesId::FIRST; // the species World2::new was given
    world.spawn(Spawn::new(fish, 500).speed(3.0))?; // 500 boids anywhere, speed 3
    let sharks = world.add_species(SpeciesParams {
        max_speed: 4.0,
        chase_radius: 6.0,
        ..SpeciesParams::default()
    })?;
    world.set_relation(fish, sharks, Relation::Flee)?;
    world.set_relation(sharks, fish, Relation::Chase)?;
    world.spawn(Spawn::new(sharks, 2).region(Vec2::ZERO, Vec2::splat(5.0)))?; // at max speed
    world.add_obstacle(Obstacle::Sphere {
        center: Vec2::new(20.0, 20.0),
        radius: 3.0,
    })?;
    world.add_attractor(Attractor::new(Vec2::new(30.0, 10.0), 1.0, 2.0))?;
    for _ in 0..600 {
        for event in world.step().events {
            // meals, zone crossings, in order
            println!("{event:?}");
        }
    }
    let m = world.metrics(); // polarization, local order, groups, ... (METRICS.md)
    println!(
        "polarization {:.2}, milling {:.2}",
        m.polarization, m.milling
    );
    world.save_snapshot(&std::env::temp_dir().join("flock.snap"))?;
    Ok(())
}

//! The README's library example, compiled with the workspace so it cannot drift
//! from the API (`crates/murmuration-app/tests/docs.rs` checks that the README's
//! block is this file's): `cargo run --release -p murmuration --example quickstart`.

use murmuration::glam::Vec2;
use murmuration::{Boundary, Relation, Spawn, SpeciesId, SpeciesParams, World2, WorldConfig};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut world = World2::new(
        WorldConfig::new(Vec2::splat(40.0), Boundary::Wrap),
        vec![SpeciesParams::default()],
    )?;
    let fish = SpeciesId::FIRST;
    world.spawn(Spawn::new(fish, 500).speed(3.0))?;
    let sharks = world.add_species(SpeciesParams {
        max_speed: 4.0,
        chase_radius: 6.0,
        ..SpeciesParams::default()
    })?;
    world.set_relation(fish, sharks, Relation::Flee)?;
    world.set_relation(sharks, fish, Relation::Chase)?;
    world.spawn(Spawn::new(sharks, 2))?;
    for _ in 0..600 {
        for event in world.step().events {
            println!("{event:?}"); // meals, zone crossings
        }
    }
    println!("polarization {:.2}", world.metrics().polarization);
    Ok(())
}

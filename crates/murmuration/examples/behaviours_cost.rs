//! Cost of behaviours against plain flocking (issue 3's performance check): the
//! standard 2D benchmark world at N boids, plain, and with 10 obstacles, 3
//! attractors and 2 predator species (50 each) that the prey flee and that chase
//! and eat the prey. Alternates the two, 30 measured steps each round, and prints
//! the medians and their ratio.
//!
//! `cargo run --release -p murmuration --example behaviours_cost -- [N]`

use murmuration::{Spawn, SpeciesId};

use murmuration::glam::Vec2;
use murmuration::{Attractor, Obstacle, Relation, SpeciesParams, World2};
use std::time::Instant;

fn loaded(n: u64, parts: &str) -> World2 {
    let mut w = World2::benchmark(n).unwrap();
    let l = w.config().size().x;
    let prey = SpeciesParams {
        flee_radius: 3.0,
        ..SpeciesParams::benchmark()
    };
    w.set_species_params(SpeciesId::FIRST, prey).unwrap();
    let shark = SpeciesParams {
        max_speed: 1.3,
        chase_radius: 4.0,
        eat_radius: 0.3,
        ..SpeciesParams::benchmark()
    };
    for s in 1..=2 {
        if parts.contains('m') {
            // Species only (the multi-species kernel), no predators.
            w.add_species(shark).unwrap();
            continue;
        }
        if !parts.contains('p') {
            break;
        }
        w.add_species(shark).unwrap();
        w.set_relation(SpeciesId::FIRST, SpeciesId::new(s), Relation::Flee)
            .unwrap();
        w.set_relation(SpeciesId::new(s), SpeciesId::FIRST, Relation::Chase)
            .unwrap();
        w.spawn(Spawn::new(SpeciesId::new(s), 50).speed(1.0))
            .unwrap();
    }
    for k in 0..10 {
        if !parts.contains('o') {
            break;
        }
        let c = Vec2::new((k as f32 * 0.37).fract() * l, (k as f32 * 0.61).fract() * l);
        let o = if k % 2 == 0 {
            Obstacle::Sphere {
                center: c,
                radius: 0.02 * l,
            }
        } else {
            Obstacle::Capsule {
                a: c,
                b: c + Vec2::new(0.1 * l, 0.0),
                radius: 0.2,
            }
        };
        w.add_obstacle(o).unwrap();
    }
    if parts.contains('z') {
        // A maze of thin walls on a 10-unit lattice (hundreds of shapes).
        let cells = (l / 10.0) as i32;
        for i in 0..cells {
            for j in 0..cells {
                let at = Vec2::new(i as f32 * 10.0 + 2.0, j as f32 * 10.0 + 2.0);
                if (i + 2 * j) % 3 != 0 {
                    let o = Obstacle::Capsule {
                        a: at,
                        b: at + Vec2::new(8.0, 0.0),
                        radius: 0.05,
                    };
                    w.add_obstacle(o).unwrap();
                }
                if (2 * i + j) % 3 != 1 {
                    let o = Obstacle::Capsule {
                        a: at,
                        b: at + Vec2::new(0.0, 8.0),
                        radius: 0.05,
                    };
                    w.add_obstacle(o).unwrap();
                }
            }
        }
    }
    if parts.contains('b') {
        // The same obstacles baked into one distance field.
        w.bake_obstacles(0.25).unwrap();
    }
    for k in 0..3 {
        if !parts.contains('a') {
            break;
        }
        let at = Vec2::new((0.2 + 0.3 * k as f32) * l, 0.5 * l);
        w.add_attractor(Attractor {
            range: 0.15 * l,
            ..Attractor::new(at, 0.5, 2.0)
        })
        .unwrap();
    }
    w
}

fn median_ms(w: &mut World2, steps: usize) -> f64 {
    w.step_n(5);
    let mut t: Vec<f64> = (0..steps)
        .map(|_| {
            let s = Instant::now();
            w.step();
            s.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[steps / 2]
}

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .map_or(100_000, |s| s.parse().expect("N"));
    // Which behaviours: o(bstacles), a(ttractors), p(redators), or m (two more
    // species without boids: the multi-species kernel alone); oap by default.
    // z adds a maze of hundreds of thin walls; b bakes the obstacles into one
    // distance field.
    let parts = std::env::args().nth(2).unwrap_or_else(|| "oap".into());
    let (mut plain, mut busy) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        plain.push(median_ms(&mut World2::benchmark(n).unwrap(), 30));
        busy.push(median_ms(&mut loaded(n, &parts), 30));
    }
    plain.sort_by(f64::total_cmp);
    busy.sort_by(f64::total_cmp);
    let (p, b) = (plain[1], busy[1]);
    println!(
        "n={n} behaviours={parts} threads={}: plain {p:.2} ms, with behaviours {b:.2} ms, ratio {:.2}",
        rayon::current_num_threads(),
        b / p
    );
}

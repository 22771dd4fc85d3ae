//! Cost of behaviours against plain flocking (issue 3's performance check): the
//! standard 2D benchmark world at N boids, plain, and with 10 obstacles, 3
//! attractors and 2 predator species (50 each) that the prey flee and that chase
//! and eat the prey. Alternates the two, 30 measured steps each round, and prints
//! the medians and their ratio.
//!
//! `cargo run --release -p murmuration --example behaviours_cost -- [N]`

use murmuration::World2;
use std::time::Instant;

fn loaded(n: u64, parts: &str) -> World2 {
    World2::benchmark_behaviours(n, parts).unwrap()
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

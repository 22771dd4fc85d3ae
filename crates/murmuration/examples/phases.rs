//! Where a step's time goes on the benchmark workload: the whole step, then grid
//! build, gather, steering.
//! `cargo run --release -p murmuration --example phases -- [N] [DIM] [K]`
//! (K > 0: the same workload with K topological neighbours, to price them;
//! `PHASES_STEPS` sets the number of measured steps, 20 by default;
//! `PHASES_COMBINE` and `PHASES_STEERING` another combination mode or steering
//! method by its scenario key).
use glam::{Vec2, Vec3};
use murmuration::Dimension;

/// The mode of `all` whose scenario key the environment variable `var` names.
fn from_env<T: Copy, const N: usize>(
    var: &str,
    all: [T; N],
    key: fn(T) -> &'static str,
) -> Option<T> {
    let name = std::env::var(var).ok()?;
    let found = all.into_iter().find(|&m| key(m) == name);
    Some(found.unwrap_or_else(|| panic!("{var}={name}: not a key of {N} modes")))
}

fn run<V: Dimension>(n: u64, k: u32) {
    let mut w = murmuration::World::<V>::benchmark(n).unwrap();
    let mut p = w.species()[0];
    p.topological_neighbours = k;
    // PHASES_COMBINE / PHASES_STEERING: another combination mode or steering
    // method, by its scenario key (`prioritized`; `directions`, `raw`).
    if let Some(m) = from_env("PHASES_COMBINE", murmuration::CombineMode::ALL, |m| m.key()) {
        p.combine = m;
    }
    if let Some(m) = from_env("PHASES_STEERING", murmuration::Steering::ALL, |m| m.key()) {
        p.steering = m;
    }
    if p != w.species()[0] {
        w.set_species_params(murmuration::SpeciesId::FIRST, p)
            .unwrap();
    }
    w.step_n(5);
    let (mut g, mut ga, mut s, mut all) = (vec![], vec![], vec![], vec![]);
    // PHASES_STEPS: more measured steps (for a profiler).
    let steps: usize = std::env::var("PHASES_STEPS").map_or(20, |s| s.parse().unwrap());
    for _ in 0..steps {
        let t = std::time::Instant::now();
        let st = w.step().stats;
        all.push(t.elapsed().as_secs_f64() * 1e3);
        g.push(st.grid_seconds * 1e3);
        ga.push(st.gather_seconds * 1e3);
        s.push(st.steer_seconds * 1e3);
    }
    let med = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        (v[v.len() / 2], v[0])
    };
    let [all, g, ga, s] = [&mut all, &mut g, &mut ga, &mut s].map(med);
    println!(
        "{}D n={n} k={k}: step {:.3} ms = grid {:.3} ms, gather {:.3} ms, steer {:.3} ms \
         (medians of {steps}; minima {:.3} = {:.3} + {:.3} + {:.3})",
        V::DIM,
        all.0,
        g.0,
        ga.0,
        s.0,
        all.1,
        g.1,
        ga.1,
        s.1
    );
}

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .map_or(100_000, |s| s.parse().unwrap());
    let k: u32 = std::env::args().nth(3).map_or(0, |s| s.parse().unwrap());
    // Steps run on a pool thread, as in `murmuration bench`: from the main
    // thread, every parallel section of a step would first wake a worker.
    let pool = rayon::ThreadPoolBuilder::new().build().unwrap();
    pool.install(|| match std::env::args().nth(2).as_deref() {
        Some("3") => run::<Vec3>(n, k),
        _ => run::<Vec2>(n, k),
    });
}

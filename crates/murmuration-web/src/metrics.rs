//! The page's metrics worker: a second instance of the module, in a Web
//! Worker, holding a mirror of the page's flock: the same preset, overrides
//! and species parameters (`Session::mirror`, sent again whenever they
//! change), without stepping it. Once a second the page copies the flock's
//! positions, velocities and species out of its module (`Session::kinematics`,
//! a plain array copy) and the worker measures them against the mirror's box,
//! boundary and parameters, so the metrics' cost (tens to hundreds of ms at
//! 50,000–100,000 boids: neighbour searches and group labelling) never lands
//! on a frame.

use murmuration::metrics::{self, Flock, Metrics};
use murmuration::{Vector, World};
use serde_json::Value;
use serde_json::json;

/// Floats per boid in the kinematics array of a `dim`-dimensional flock:
/// position, velocity, then the species index.
pub fn kinematics_floats(dim: usize) -> usize {
    2 * dim + 1
}

/// Appends each boid's position, velocity and species (as f32) to `out`.
pub(crate) fn fill_kinematics<V: Vector>(w: &World<V>, out: &mut Vec<f32>) {
    let b = w.boids();
    for ((p, v), &s) in b.positions().iter().zip(b.velocities()).zip(b.species()) {
        out.extend((0..V::DIM).map(|a| p.get(a)));
        out.extend((0..V::DIM).map(|a| v.get(a)));
        out.push(f32::from(s));
    }
}

/// The page's metrics of the boids in `kinematics` (see [`fill_kinematics`]),
/// measured in the mirror world `w`; `Err` when the array does not fit it.
pub(crate) fn metrics_of<V: Vector>(w: &World<V>, kinematics: &[f32]) -> Result<Value, String> {
    let per = kinematics_floats(V::DIM);
    if !kinematics.len().is_multiple_of(per) {
        return Err(format!(
            "{} floats are not whole boids of {per} floats",
            kinematics.len()
        ));
    }
    let n = kinematics.len() / per;
    let (mut positions, mut velocities, mut species) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    let vector = |xs: &[f32]| {
        let mut v = V::ZERO;
        for (a, &x) in xs.iter().enumerate() {
            v.set(a, x);
        }
        v
    };
    for b in kinematics.chunks_exact(per) {
        positions.push(vector(&b[..V::DIM]));
        velocities.push(vector(&b[V::DIM..2 * V::DIM]));
        let s = b[2 * V::DIM];
        if !(s >= 0.0 && (s as usize) < w.species().len()) {
            return Err(format!(
                "species {s} is not one of the mirror's {}",
                w.species().len()
            ));
        }
        species.push(s as u16);
    }
    let m = metrics::compute(&Flock {
        positions: &positions,
        velocities: &velocities,
        species: &species,
        params: w.species(),
        obstacles: w.obstacle_set(),
        config: w.config(),
    });
    Ok(metrics(&m))
}

/// The metrics the page shows, as JSON.
pub(crate) fn metrics<V: Vector>(m: &Metrics<V>) -> Value {
    json!({
        "count": m.count,
        "polarization": m.polarization,
        "milling": m.milling,
        "mean_speed": m.mean_speed,
        "median_nn_distance": m.median_nn_distance,
        "groups": m.structure.groups,
    })
}

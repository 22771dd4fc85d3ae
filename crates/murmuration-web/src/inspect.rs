//! Boids taken apart for drawing: the one nearest a point (`pick`), one boid's
//! radii and rule forces (`inspect`), and the same for the `n` boids nearest
//! a point, the page's debug drawing of the flock.

use glam::Vec2;
use murmuration::{BoidId, Inspection, Vector, World};
use serde_json::{Value, json};

/// The most boids one debug request takes apart: more arrows than this are
/// unreadable at any zoom, and the JSON answer grows with them (the gather
/// itself is one for all of them, `World::inspect_many`).
pub const MAX_DEBUG_BOIDS: u32 = 1_000;

/// The id of the boid nearest `(x, y)` in the xy plane.
pub(crate) fn pick<V: Vector>(w: &World<V>, x: f32, y: f32) -> Option<BoidId> {
    let q = Vec2::new(x, y);
    w.positions()
        .iter()
        .zip(w.ids())
        .map(|(p, &id)| (Vec2::new(p.get(0), p.get(1)).distance_squared(q), id))
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, id)| id)
}

/// A vector's x and y.
pub(crate) fn xy<V: Vector>(v: V) -> [f32; 2] {
    [v.get(0), v.get(1)]
}

/// One boid taken apart: position, velocity, radii and each rule's force
/// (`null` when no boid has the id).
pub(crate) fn inspect<V: Vector>(w: &World<V>, id: u32) -> Value {
    inspection_json(w, w.inspect(id as BoidId))
}

/// An inspection as the page reads it (`null` for `None`).
fn inspection_json<V: Vector>(w: &World<V>, i: Option<Inspection<V>>) -> Value {
    let Some(i) = i else {
        return Value::Null;
    };
    let p = &w.species()[i.species];
    json!({
        "id": i.id,
        "species": i.species,
        "position": xy(i.position),
        "velocity": xy(i.velocity),
        "neighbours": i.neighbours,
        "separation_radius": p.separation_radius,
        "perception_radius": p.perception_radius(),
        "forces": {
            "separation": xy(i.separation),
            "alignment": xy(i.alignment),
            "cohesion": xy(i.cohesion),
            "boundary": xy(i.boundary),
            "cruise": xy(i.cruise),
            "steering": xy(i.steering),
        },
        "max_force": p.max_force,
    })
}

/// [`inspect`] for the `n` boids nearest `(x, y)` in the xy plane (at most
/// [`MAX_DEBUG_BOIDS`]), nearest first, ties by id: one gather of the flock
/// for all of them (`World::inspect_many`).
pub(crate) fn nearest_inspections<V: Vector>(w: &World<V>, x: f32, y: f32, n: u32) -> Value {
    let q = Vec2::new(x, y);
    let mut by: Vec<(f32, BoidId)> = w
        .positions()
        .iter()
        .zip(w.ids())
        .map(|(p, &id)| (Vec2::new(p.get(0), p.get(1)).distance_squared(q), id))
        .collect();
    let n = (n.min(MAX_DEBUG_BOIDS) as usize).min(by.len());
    let order = |a: &(f32, BoidId), b: &(f32, BoidId)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
    if n > 0 && n < by.len() {
        by.select_nth_unstable_by(n - 1, order);
    }
    by.truncate(n);
    by.sort_unstable_by(order);
    let ids: Vec<BoidId> = by.iter().map(|&(_, id)| id).collect();
    Value::Array(
        w.inspect_many(&ids)
            .into_iter()
            .map(|i| inspection_json(w, i))
            .collect(),
    )
}

//! Levels far from the origin (seed 001, 6.1): every position of a parsed file is
//! moved by the world's lower corner in `f64`, before anything is read as `f32`,
//! so the world runs in coordinates near zero and a level placed 100,000 units
//! out steps exactly as the same level at the origin.

use toml::{Table, Value};

/// The lower corner `world.min` as written (the origin when absent or malformed:
/// validation reports a malformed one), one entry per axis.
pub(crate) fn lower_corner(table: &Table, dim: usize) -> Vec<f64> {
    let corner = table
        .get("world")
        .and_then(|w| w.get("min"))
        .and_then(Value::as_array)
        .filter(|a| a.len() == dim)
        .map(|a| a.iter().map(number).collect::<Option<Vec<f64>>>());
    corner.flatten().unwrap_or_else(|| vec![0.0; dim])
}

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Float(x) => Some(*x),
        Value::Integer(i) => Some(*i as f64),
        _ => None,
    }
}

/// Subtracts `by` from a vector value in place (left alone when it is not a
/// vector of `by.len()` numbers: validation reports it where it is written).
fn shift(v: &mut Value, by: &[f64]) {
    let Some(a) = v.as_array_mut() else { return };
    if a.len() != by.len() || a.iter().any(|x| number(x).is_none()) {
        return;
    }
    for (x, d) in a.iter_mut().zip(by) {
        *x = Value::Float(number(x).unwrap_or(0.0) - d);
    }
}

fn shift_key(t: &mut Value, key: &str, by: &[f64]) {
    if let Some(v) = t.get_mut(key) {
        shift(v, by);
    }
}

fn shift_points(t: &mut Value, by: &[f64]) {
    if let Some(points) = t.get_mut("points").and_then(Value::as_array_mut) {
        points.iter_mut().for_each(|p| shift(p, by));
    }
}

/// An obstacle (or zone) shape table: centres, capsule ends, polygon vertices,
/// a baked field's first node.
fn shift_shape(t: &mut Value, by: &[f64]) {
    for key in ["center", "a", "b", "origin"] {
        shift_key(t, key, by);
    }
    shift_points(t, by);
}

fn each(table: &mut Table, key: &str, mut f: impl FnMut(&mut Value)) {
    if let Some(items) = table.get_mut(key).and_then(Value::as_array_mut) {
        items.iter_mut().for_each(&mut f);
    }
}

/// Moves every position in a scenario table by `-by`: the box's corners, spawn
/// regions, obstacles, attractors (position and goal), pulses, paths and zones.
/// Sizes, headings and radii are not positions and stay.
pub(crate) fn shift_positions(table: &mut Table, by: &[f64]) {
    if by.iter().all(|&d| d == 0.0) {
        return;
    }
    if let Some(w) = table.get_mut("world") {
        shift_key(w, "min", by);
        shift_key(w, "max", by);
    }
    if let Some(species) = table.get_mut("species").and_then(Value::as_table_mut) {
        for (_, s) in species.iter_mut() {
            if let Some(spawn) = s.get_mut("spawn") {
                shift_key(spawn, "min", by);
                shift_key(spawn, "max", by);
            }
        }
    }
    each(table, "obstacles", |o| shift_shape(o, by));
    each(table, "attractors", |a| {
        shift_key(a, "position", by);
        shift_key(a, "goal", by);
    });
    each(table, "pulses", |p| shift_key(p, "position", by));
    each(table, "paths", |p| shift_points(p, by));
    each(table, "zones", |z| {
        if let Some(shape) = z.get_mut("shape") {
            shift_shape(shape, by);
        }
    });
}

/// The keys that hold positions in a scenario file, and so in an extra section
/// (a game's plates and exit are shapes with a `center`; its focus a `position`).
const POSITION_KEYS: [&str; 8] = [
    "center", "a", "b", "origin", "position", "goal", "min", "max",
];

/// Moves the positions of an extra section by `-by`: every vector under one of
/// the scenario's position keys, and every vertex of a `points` list, at any depth.
pub(crate) fn shift_section(v: &mut Value, by: &[f64]) {
    if by.iter().all(|&d| d == 0.0) {
        return;
    }
    match v {
        Value::Table(t) => {
            for (k, x) in t.iter_mut() {
                if POSITION_KEYS.contains(&k.as_str()) {
                    shift(x, by);
                } else if k == "points" {
                    if let Some(points) = x.as_array_mut() {
                        points.iter_mut().for_each(|p| shift(p, by));
                    }
                } else {
                    shift_section(x, by);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|x| shift_section(x, by)),
        _ => {}
    }
}

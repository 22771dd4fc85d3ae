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

/// The keys that hold positions in a scenario file, and so in an extra section
/// (a game's plates and exit are shapes with a `center`; its focus a `position`):
/// box corners and spawn regions (`min`, `max`), shapes (`center`, capsule ends
/// `a` and `b`, a baked field's `origin`), attractors (`position`, `goal`) and
/// pulses (`position`); `points` lists vertices (polygons, paths).
const POSITION_KEYS: [&str; 8] = [
    "center", "a", "b", "origin", "position", "goal", "min", "max",
];

/// Moves every position in a scenario table, its extra sections included, by
/// `-by`: every vector under a position key and every vertex of a `points`
/// list, at any depth. Sizes, headings, radii and colours are not positions and
/// stay; a table under a position-like key (a species named `a`) is searched.
pub(crate) fn shift_positions(table: &mut Table, by: &[f64]) {
    if by.iter().all(|&d| d == 0.0) {
        return;
    }
    for (k, x) in table.iter_mut() {
        shift_under(k, x, by);
    }
}

fn shift_under(key: &str, v: &mut Value, by: &[f64]) {
    match v {
        Value::Table(t) => shift_positions(t, by),
        Value::Array(items) if key == "points" => items.iter_mut().for_each(|p| shift(p, by)),
        Value::Array(_) if POSITION_KEYS.contains(&key) => shift(v, by),
        Value::Array(items) => items.iter_mut().for_each(|x| shift_under("", x, by)),
        _ => {}
    }
}

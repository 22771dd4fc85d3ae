//! The page's metrics worker: a second instance of the module, in a Web
//! Worker, holding no flock of its own. The page sends it the flock's snapshot
//! (`Session::snapshot`, a copy of a few MB at most) once a second and the
//! worker answers with the metrics, so their cost (tens to hundreds of ms at
//! 50,000–100,000 boids: neighbour searches and group labelling) never lands
//! on a frame.

use glam::{Vec2, Vec3};
use murmuration::World;
use serde_json::Value;

/// Offset of the dimension (u32, little-endian) in a snapshot: after the
/// magic (8 bytes) and the version (4).
const DIM_AT: usize = 12;

/// The page's metrics of the flock in `snapshot`; `Err`: why it does not load.
pub fn metrics_of_snapshot(snapshot: &[u8]) -> Result<Value, String> {
    let dim = snapshot
        .get(DIM_AT..DIM_AT + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    match dim {
        Some(3) => World::<Vec3>::from_snapshot_bytes(snapshot)
            .map(|w| crate::session::metrics(&w.metrics())),
        _ => World::<Vec2>::from_snapshot_bytes(snapshot)
            .map(|w| crate::session::metrics(&w.metrics())),
    }
    .map_err(|e| e.to_string())
}

//! [`Surface`]: what every solid answers about a point (an obstacle shape, a
//! baked distance field), kept apart so the shapes and the field need not
//! know each other.

/// Signed distance and outward unit normal at a point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Surface<V> {
    /// Signed distance, units: negative inside.
    pub distance: f32,
    /// Outward unit normal of the nearest surface point.
    pub normal: V,
}

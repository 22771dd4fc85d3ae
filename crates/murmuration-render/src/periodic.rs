//! Periodic images for drawing a wrap-around world around a moving view: a
//! following camera crosses the seam and the flock is drawn whole around it, not
//! split across the box's two edges with the camera jumping a world's width.

use glam::Vec3;
use murmuration::{Boundary, Vector, WorldConfig};

/// The world's period on each axis for drawing: its size on every axis of a
/// wrap-around world, zero on the others (and everywhere in other worlds).
pub fn period<V: Vector>(config: &WorldConfig<V>) -> Vec3 {
    if config.boundary != Boundary::Wrap {
        return Vec3::ZERO;
    }
    let s = config.size().to_array3();
    let mut p = Vec3::from_array(s);
    if V::DIM == 2 {
        p.z = 0.0;
    }
    p
}

/// The periodic image of `p` nearest `centre`, on each axis whose `period` is
/// above zero (`p` itself on the others).
pub fn nearest_image(p: Vec3, centre: Vec3, period: Vec3) -> Vec3 {
    let mut q = p;
    for a in 0..3 {
        let l = period[a];
        if l > 0.0 {
            q[a] = p[a] - l * ((p[a] - centre[a]) / l).round();
        }
    }
    q
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_image_is_within_half_a_period_of_the_centre() {
        let period = Vec3::new(10.0, 10.0, 0.0);
        let c = Vec3::new(9.5, 0.2, 0.0);
        let q = nearest_image(Vec3::new(0.5, 9.9, 3.0), c, period);
        assert!((q - Vec3::new(10.5, -0.1, 3.0)).length() < 1e-5, "{q}");
        // Far outside the box (a camera that has crossed the seam twice).
        let q = nearest_image(Vec3::new(1.0, 1.0, 0.0), Vec3::new(31.0, 1.0, 0.0), period);
        assert!((q.x - 31.0).abs() < 1e-5, "{q}");
        // Axes without a period are left alone.
        assert_eq!(
            nearest_image(Vec3::splat(7.0), Vec3::ZERO, Vec3::ZERO),
            Vec3::splat(7.0)
        );
    }
}

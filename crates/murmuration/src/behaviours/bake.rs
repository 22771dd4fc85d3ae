//! Baking obstacle shapes into a [`SdfGrid`]: their exact distance sampled at
//! the grid's nodes (in parallel rows), lowered by half a cell diagonal so the
//! baked solid contains every shape.

use crate::behaviours::obstacles::{Obstacle, ObstacleSet};
use crate::behaviours::sdf_grid::{MAX_SDF_SAMPLES, SdfGrid};
use crate::error::ParamError;
use crate::vector::Vector;
use rayon::prelude::*;

impl<V: Vector> SdfGrid<V> {
    /// Bakes the exact distance field of `shapes` over the box `min`–`max` at
    /// node spacing `cell`. Samples are lowered by half a cell diagonal, so the
    /// baked solid contains every shape (surfaces move out by at most a cell
    /// diagonal: choose `cell` below the narrowest gap that must stay open).
    pub fn bake(shapes: &[Obstacle<V>], min: V, max: V, cell: f32) -> Result<Self, ParamError> {
        if !(cell.is_finite() && cell > 0.0 && cell <= 1e6) {
            return Err(ParamError::OutOfRange {
                field: "bake.cell".into(),
                value: cell as f64,
                range: "in (0, 1e6]".into(),
            });
        }
        let mut dims = vec![0usize; V::DIM];
        let mut total = 1usize;
        for (i, n) in dims.iter_mut().enumerate() {
            let span = max.get(i) - min.get(i);
            if !(span.is_finite() && span > 0.0) {
                return Err(ParamError::OutOfRange {
                    field: format!("bake.max[{i}]"),
                    value: max.get(i) as f64,
                    range: format!("finite and above bake.min[{i}] = {}", min.get(i)),
                });
            }
            *n = ((span / cell).ceil() as usize).saturating_add(1).max(2);
            total = total.saturating_mul(*n);
        }
        if total > MAX_SDF_SAMPLES {
            return Err(ParamError::OutOfRange {
                field: "bake.cell".into(),
                value: cell as f64,
                range: format!(
                    "coarse enough for at most {MAX_SDF_SAMPLES} samples ({total} asked)"
                ),
            });
        }
        let set = ObstacleSet::new(shapes);
        let shift = 0.5 * cell * (V::DIM as f32).sqrt();
        let (nx, ny) = (dims[0], dims.get(1).copied().unwrap_or(1));
        let mut values = vec![0.0f32; total];
        values
            .par_chunks_mut(nx)
            .enumerate()
            .for_each(|(row, out)| {
                let (y, z) = (row % ny, row / ny);
                for (x, v) in out.iter_mut().enumerate() {
                    let mut p = min;
                    for (i, k) in [x, y, z].into_iter().enumerate().take(V::DIM) {
                        p.set(i, min.get(i) + k as f32 * cell);
                    }
                    let d = set.nearest(p, f32::INFINITY).map_or(1e6, |s| s.distance);
                    *v = d.min(1e6) - shift;
                }
            });
        Self::from_samples(min, cell, &dims, values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Vec2, Vec3};

    #[test]
    fn a_baked_circle_contains_the_circle_and_stays_within_a_cell_diagonal() {
        let disc = Obstacle::Sphere {
            center: Vec2::new(5.0, 5.0),
            radius: 2.0,
        };
        let cell = 0.25;
        let g = SdfGrid::bake(
            std::slice::from_ref(&disc),
            Vec2::ZERO,
            Vec2::splat(10.0),
            cell,
        )
        .unwrap();
        assert!(
            g.lipschitz() >= 0.99 && g.lipschitz() < 1.5,
            "{}",
            g.lipschitz()
        );
        for k in 0..400 {
            let p = Vec2::new((k % 20) as f32 * 0.5 + 0.1, (k / 20) as f32 * 0.5 + 0.13);
            let exact = disc.surface(p).distance;
            let baked = g.surface(p).distance;
            if exact < 0.0 {
                assert!(baked < 0.0, "inside the disc at {p} but not in the field");
            }
            assert!(
                baked <= exact + 1e-4,
                "overstates at {p}: {baked} > {exact}"
            );
            if exact > 1.5 * cell {
                assert!(baked > 0.0, "too thick at {p}: {baked} vs {exact}");
            }
        }
    }

    #[test]
    fn a_point_in_the_middle_of_a_thin_baked_wall_leaves_across_it() {
        // Nodes at x = 11.9 and 12.1 straddle a wall on x = 12: the interpolant is
        // flat across the wall, and its gradient alone once pushed boids along it.
        let wall = Obstacle::Capsule {
            a: Vec2::new(12.0, 2.0),
            b: Vec2::new(12.0, 10.0),
            radius: 0.05,
        };
        let g = SdfGrid::bake(&[wall], Vec2::new(3.5, -2.5), Vec2::new(20.5, 14.5), 0.2).unwrap();
        let s = g.surface(Vec2::new(11.99, 5.13));
        assert!(s.distance < 0.0);
        assert!(
            s.normal.x.abs() > 0.99,
            "leaves along the wall: {:?}",
            s.normal
        );
    }

    #[test]
    fn gradients_point_out_and_far_points_get_box_distances() {
        let ball = Obstacle::Sphere {
            center: Vec3::splat(2.0),
            radius: 1.0,
        };
        let g = SdfGrid::bake(&[ball], Vec3::ZERO, Vec3::splat(4.0), 0.2).unwrap();
        let s = g.surface(Vec3::new(3.5, 2.0, 2.0));
        assert!(s.normal.x > 0.95, "{:?}", s.normal);
        let far = g.surface(Vec3::new(14.0, 2.0, 2.0));
        assert!(
            far.distance >= 10.0 && far.distance <= 11.2,
            "{}",
            far.distance
        );
        assert!(far.normal.x > 0.9);
    }

    #[test]
    fn a_too_fine_bake_is_a_named_error() {
        let e = SdfGrid::bake(&[], Vec2::ZERO, Vec2::splat(1e6), 0.01)
            .unwrap_err()
            .to_string();
        assert!(e.contains("bake.cell"), "{e}");
    }
}

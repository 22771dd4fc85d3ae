//! A coarse lower bound on the distance to the nearest obstacle, one lookup per
//! point. Most boids are far from every obstacle, and this bound says so without
//! a query; only boids it cannot clear ask the exact distance field.

use crate::vector::Vector;

/// Cells per axis at most: 2D, 3D.
const MAX_DIM: [f32; 2] = [256.0, 64.0];
/// Distances are measured this many cells out; farther counts as this far.
const CAP_CELLS: f32 = 8.0;

/// Per cell of a uniform grid over the obstacles' bounding box: a distance no
/// point of the cell comes closer than to any obstacle.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Clearance {
    origin: [f32; 3],
    inv_cell: f32,
    dims: [usize; 3],
    lower: Vec<f32>,
}

/// A read-only view of the coarse distance bound: per cell of a uniform grid over
/// the obstacles' bounding box, a distance no point of the cell comes closer than
/// to any obstacle (for an engine that looks it up elsewhere, the GPU's).
#[derive(Clone, Copy, Debug)]
pub struct ClearanceGrid<'a> {
    /// The grid's lower corner, units (unused axes 0).
    pub origin: [f32; 3],
    /// Cell edge, units.
    pub cell: f32,
    /// Cells per axis (unused axes 1).
    pub dims: [usize; 3],
    /// Lower bounds, x fastest; empty when there are no obstacles (no bound).
    pub lower: &'a [f32],
}

impl Clearance {
    /// Bounds for obstacles with these bounding spheres (empty when there are
    /// none); `nearest(p, reach)` is the exact distance from `p` to the nearest
    /// surface within `reach`, if any.
    pub fn build<V: Vector>(bounds: &[(V, f32)], nearest: impl Fn(V, f32) -> Option<f32>) -> Self {
        if bounds.is_empty() {
            return Self::default();
        }
        let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
        for &(c, r) in bounds {
            for i in 0..V::DIM {
                lo[i] = lo[i].min(c.get(i) - r);
                hi[i] = hi[i].max(c.get(i) + r);
            }
        }
        let extent = (0..V::DIM).map(|i| hi[i] - lo[i]).fold(0.0f32, f32::max);
        let cell = (extent / MAX_DIM[V::DIM - 2]).max(1e-3);
        let mut dims = [1usize; 3];
        for i in 0..V::DIM {
            dims[i] = (((hi[i] - lo[i]) / cell).ceil() as usize).max(1);
        }
        let half_diag = 0.5 * cell * (V::DIM as f32).sqrt();
        let cap = CAP_CELLS * cell;
        let mut lower = Vec::with_capacity(dims[0] * dims[1] * dims[2]);
        for z in 0..dims[2] {
            for y in 0..dims[1] {
                for x in 0..dims[0] {
                    let mut centre = V::ZERO;
                    for (i, k) in [x, y, z].into_iter().enumerate().take(V::DIM) {
                        centre.set(i, lo[i] + (k as f32 + 0.5) * cell);
                    }
                    let d = nearest(centre, cap).map_or(cap, |d| d.min(cap));
                    lower.push((d - half_diag).max(0.0));
                }
            }
        }
        Self {
            origin: lo,
            inv_cell: 1.0 / cell,
            dims,
            lower,
        }
    }

    /// The grid as a view.
    pub fn grid(&self) -> ClearanceGrid<'_> {
        ClearanceGrid {
            origin: self.origin,
            cell: if self.inv_cell > 0.0 {
                1.0 / self.inv_cell
            } else {
                1.0
            },
            dims: self.dims,
            lower: &self.lower,
        }
    }

    /// A distance `p` is at least from every obstacle (0 when it may touch one).
    #[inline]
    pub fn lower_bound<V: Vector>(&self, p: V) -> f32 {
        if self.lower.is_empty() {
            return f32::INFINITY;
        }
        let (mut index, mut stride) = (0usize, 1usize);
        for i in 0..V::DIM {
            let x = (p.get(i) - self.origin[i]) * self.inv_cell;
            let n = self.dims[i];
            // False for NaN too.
            if !(x >= 0.0 && x < n as f32) {
                return self.outside(p);
            }
            index += x as usize * stride;
            stride *= n;
        }
        self.lower[index]
    }

    /// [`Clearance::lower_bound`] outside the grid: the distance to its box, which
    /// holds every obstacle (0 for NaN).
    #[cold]
    fn outside<V: Vector>(&self, p: V) -> f32 {
        let cell = 1.0 / self.inv_cell;
        let mut d2 = 0.0f32;
        for i in 0..V::DIM {
            let lo = self.origin[i];
            let hi = lo + self.dims[i] as f32 * cell;
            let x = p.get(i);
            if x.is_nan() {
                return 0.0;
            }
            let o = (lo - x).max(x - hi).max(0.0);
            d2 += o * o;
        }
        d2.sqrt()
    }
}

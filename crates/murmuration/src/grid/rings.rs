//! The cells around a point ring by ring (Chebyshev distance in cells), for
//! searches that stop once every cell left is farther than what they have
//! found: a chaser's nearest target and its straggler scores.

use super::Grid;
use crate::vector::Vector;
use std::ops::Range;

/// How far rings reach around a cell: cells per axis (0 on unused axes) and
/// the outermost ring, with what bounds each ring's distance.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Reach {
    per_axis: [i64; 3],
    /// The last ring holding any cell within the reach.
    pub last: u32,
    /// The narrowest cell edge, units.
    width: f32,
    /// The margin for rounding taken off each ring's floor, units.
    slack: f32,
}

impl Reach {
    /// No point of a cell in ring `k` around the cell of a point lies nearer
    /// to it than this, units: `k - 1` whole cells, less a margin for the
    /// rounding of positions into cells and of the distances measured (a
    /// hundredth of a cell, and 2^-16 of the largest coordinate in the box).
    pub(crate) fn floor(&self, k: u32) -> f32 {
        ((k as f32 - 1.0) * self.width - self.slack).max(0.0)
    }
}

impl Grid {
    /// The rings' reach for a search of `radius`: the same cells per axis as
    /// [`Grid::for_each_range_near`] visits, or `None` when some periodic axis
    /// would wrap onto itself (a cell would come twice; that walk measures the
    /// nearest image instead).
    pub(crate) fn ring_reach(&self, radius: f32) -> Option<Reach> {
        let mut per_axis = [0i64; 3];
        for (a, k) in per_axis.iter_mut().enumerate().take(self.dim) {
            *k = (radius * self.inv_cell[a]).ceil().clamp(1.0, 1e9) as i64;
            let n = self.dims[a] as i64;
            if self.period.is_some() {
                if 2 * *k + 1 >= n {
                    return None;
                }
            } else {
                // No cell lies farther than the grid is wide.
                *k = (*k).min(n - 1);
            }
        }
        let last = per_axis.iter().copied().max().unwrap_or(0) as u32;
        let width = self.min_cell_width();
        let extent = (0..self.dim)
            .map(|a| self.origin[a].abs() + self.dims[a] as f32 / self.inv_cell[a])
            .fold(0.0f32, f32::max);
        let slack = 0.01 * width + extent / 65536.0;
        Some(Reach {
            per_axis,
            last,
            width,
            slack,
        })
    }

    /// Calls `f(range, shift)` for the sorted ranges of the cells of ring `k`
    /// around cell `c` within `reach` (each cell once; `shift` as in
    /// [`Grid::for_each_range_near`]: measure from `p - shift`).
    pub(crate) fn for_each_range_in_ring<V: Vector>(
        &self,
        c: [u32; 3],
        k: u32,
        reach: &Reach,
        mut f: impl FnMut(Range<usize>, V),
    ) {
        let k = k as i64;
        let r = reach.per_axis;
        let [nx, ny, nz] = self.dims.map(|d| d as i64);
        // Coordinate `x` along axis `a` brought into the box, with its shift
        // (`None` outside a bounded grid).
        let wrap = |a: usize, x: i64, n: i64| -> Option<(i64, f32)> {
            match self.period {
                None => (0..n).contains(&x).then_some((x, 0.0)),
                Some(l) if x < 0 => Some((x + n, -l[a])),
                Some(l) if x >= n => Some((x - n, l[a])),
                Some(_) => Some((x, 0.0)),
            }
        };
        // The x offsets [x0, x1] of row (y, z), split where the box wraps.
        let mut row = |y: i64, sy: f32, z: i64, sz: f32, x0: i64, x1: i64| {
            let base = ((z * ny + y) * nx) as usize;
            let (lo, hi) = (c[0] as i64 + x0, c[0] as i64 + x1);
            let mut emit = |a: i64, b: i64, sx: f32| {
                let start = self.cell_start[base + a as usize] as usize;
                let end = self.cell_start[base + b as usize + 1] as usize;
                if start < end {
                    f(start..end, V::from_array3([sx, sy, sz]));
                }
            };
            // The part left of the box (wrapped), inside it, right of it (wrapped).
            let l = self.period.map_or(0.0, |l| l[0]);
            if self.period.is_some() && lo < 0 {
                emit(lo + nx, hi.min(-1) + nx, -l);
            }
            let (a, b) = (lo.max(0), hi.min(nx - 1));
            if a <= b {
                emit(a, b, 0.0);
            }
            if self.period.is_some() && hi >= nx {
                emit(lo.max(nx) - nx, hi - nx, l);
            }
        };
        let kz = k.min(r[2]);
        let ky = k.min(r[1]);
        let kx = k.min(r[0]);
        // Offsets along y and z that stay in a bounded grid (every offset
        // within reach, when it wraps).
        let span = |k: i64, c: u32, n: i64| match self.period {
            Some(_) => (-k, k),
            None => ((-k).max(-(c as i64)), k.min(n - 1 - c as i64)),
        };
        let (z0, z1) = span(kz, c[2], nz);
        let (y0, y1) = span(ky, c[1], ny);
        for dz in z0..=z1 {
            let Some((z, sz)) = wrap(2, c[2] as i64 + dz, nz) else {
                continue;
            };
            for dy in y0..=y1 {
                let Some((y, sy)) = wrap(1, c[1] as i64 + dy, ny) else {
                    continue;
                };
                if dz.abs() == k || dy.abs() == k {
                    row(y, sy, z, sz, -kx, kx);
                } else if k <= r[0] {
                    row(y, sy, z, sz, -k, -k);
                    if k > 0 {
                        row(y, sy, z, sz, k, k);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::grid::{Extent, Grid};
    use glam::{Vec2, Vec3};

    /// Rings 0..=last visit exactly the cells (and shifts) of the rectangle
    /// `for_each_range_near` walks, each once, in a wrapping and a bounded
    /// box, 2D and 3D; no boid in ring k lies nearer than its floor.
    #[test]
    fn rings_cover_the_walks_cells_once() {
        let pts2: Vec<Vec2> = (0..3000)
            .map(|i| {
                Vec2::new(
                    (i * 37 % 997) as f32 * 0.1003,
                    (i * 53 % 991) as f32 * 0.0611,
                )
            })
            .collect();
        let pts3: Vec<Vec3> = (0..3000)
            .map(|i| {
                Vec3::new(
                    (i * 37 % 997) as f32 * 0.1003,
                    (i * 53 % 991) as f32 * 0.0611,
                    (i * 71 % 983) as f32 * 0.0407,
                )
            })
            .collect();
        let mut checked = 0;
        for periodic in [true, false] {
            // 3.04: four cells along x, three along y and z (reach differs by axis).
            for radius in [0.7f32, 1.3, 2.9, 3.04] {
                let mut g = Grid::new();
                let e2 = if periodic {
                    Extent::Periodic {
                        min: Vec2::ZERO,
                        max: Vec2::new(100.0, 61.0),
                    }
                } else {
                    Extent::Open
                };
                g.build(&pts2, 1.0, e2);
                checked += compare::<Vec2>(&g, &pts2, radius);
                let e3 = if periodic {
                    Extent::Periodic {
                        min: Vec3::ZERO,
                        max: Vec3::new(100.0, 61.0, 40.0),
                    }
                } else {
                    Extent::Open
                };
                g.build(&pts3, 1.0, e3);
                checked += compare::<Vec3>(&g, &pts3, radius);
            }
        }
        assert!(checked > 10_000, "only {checked} boids compared");
    }

    fn compare<V: crate::vector::Vector>(g: &Grid, pts: &[V], radius: f32) -> usize {
        let mut n = 0;
        for (qi, &q) in pts.iter().enumerate().step_by(31) {
            let mut walk = Vec::new();
            g.for_each_range_near(q, radius, |range, shift: V, _| {
                for j in range {
                    walk.push((j, shift.to_array3().map(f32::to_bits)));
                }
            });
            let reach = g.ring_reach(radius).expect("no axis wraps onto itself");
            let c = g.coords_of(q);
            let mut rings = Vec::new();
            for k in 0..=reach.last {
                g.for_each_range_in_ring(c, k, &reach, |range, shift: V| {
                    for j in range {
                        let p = pts[g.order()[j] as usize] + shift;
                        assert!(
                            (p - q).length() >= reach.floor(k),
                            "boid {j} of ring {k} nearer than its floor (query {qi})"
                        );
                        rings.push((j, shift.to_array3().map(f32::to_bits)));
                    }
                });
            }
            walk.sort_unstable();
            rings.sort_unstable();
            assert_eq!(walk, rings, "query {qi}, radius {radius}");
            n += walk.len();
        }
        n
    }
}

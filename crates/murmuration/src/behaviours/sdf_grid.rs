//! A signed distance field sampled on a regular grid: a baked layout. However many
//! shapes went into it, a query is one multilinear lookup and its gradient.
//!
//! The solid is where the interpolated field is negative. Distances are divided
//! by the interpolant's Lipschitz constant (measured from the samples), so they
//! never overstate the way to the surface and the sweep that keeps boids out of
//! obstacles stays exact for the baked solid. Baking shapes shifts the samples
//! down by half a cell diagonal, so the baked solid contains every shape.

use crate::behaviours::surface::Surface;
use crate::error::ParamError;
use crate::vector::Vector;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Most samples in one field (64 MiB of `f32`).
pub const MAX_SDF_SAMPLES: usize = 1 << 24;

/// Samples of a signed distance field (negative inside) at the nodes of a grid:
/// node `(i, j, k)` sits at `origin + (i, j, k) × cell`. Build it with
/// [`SdfGrid::from_samples`] or [`SdfGrid::bake`]; use it as [`crate::Obstacle::Field`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "SdfGridData<V>", into = "SdfGridData<V>", bound = "")]
pub struct SdfGrid<V: Vector> {
    origin: V,
    cell: f32,
    dims: [usize; 3],
    values: Vec<f32>,
    /// Largest gradient norm of the interpolant (derived from the samples).
    lipschitz: f32,
}

/// The stored form of an [`SdfGrid`] (scenario and snapshot files).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, bound = "")]
struct SdfGridData<V: Vector> {
    /// Position of the first node, units.
    origin: V,
    /// Node spacing, units, in (0, 1e6].
    cell: f32,
    /// Nodes per axis (one entry per dimension), each at least 2.
    dims: Vec<usize>,
    /// Samples, x fastest, then y, then z; units.
    values: Vec<f32>,
}

impl<V: Vector> TryFrom<SdfGridData<V>> for SdfGrid<V> {
    type Error = ParamError;
    fn try_from(d: SdfGridData<V>) -> Result<Self, ParamError> {
        SdfGrid::from_samples(d.origin, d.cell, &d.dims, d.values)
    }
}

impl<V: Vector> From<SdfGrid<V>> for SdfGridData<V> {
    fn from(g: SdfGrid<V>) -> Self {
        Self {
            origin: g.origin,
            cell: g.cell,
            dims: g.dims[..V::DIM].to_vec(),
            values: g.values,
        }
    }
}

impl<V: Vector> SdfGrid<V> {
    /// A field from its samples (x fastest); `dims` has one entry per dimension,
    /// each at least 2, and `values` their product.
    pub fn from_samples(
        origin: V,
        cell: f32,
        dims: &[usize],
        values: Vec<f32>,
    ) -> Result<Self, ParamError> {
        let field = |name: &str| format!("field.{name}");
        for i in 0..V::DIM {
            if !origin.get(i).is_finite() {
                return Err(ParamError::NotFinite {
                    field: field("origin"),
                    value: origin.get(i) as f64,
                });
            }
        }
        if !(cell.is_finite() && cell > 0.0 && cell <= 1e6) {
            return Err(ParamError::OutOfRange {
                field: field("cell"),
                value: cell as f64,
                range: "in (0, 1e6]".into(),
            });
        }
        if dims.len() != V::DIM {
            return Err(ParamError::OutOfRange {
                field: field("dims"),
                value: dims.len() as f64,
                range: format!("{} entries, one per dimension", V::DIM),
            });
        }
        let mut d = [1usize; 3];
        let mut total = 1usize;
        for (i, &n) in dims.iter().enumerate() {
            if !(2..=MAX_SDF_SAMPLES).contains(&n) {
                return Err(ParamError::OutOfRange {
                    field: format!("field.dims[{i}]"),
                    value: n as f64,
                    range: format!("2 to {MAX_SDF_SAMPLES} nodes"),
                });
            }
            d[i] = n;
            total = total.saturating_mul(n);
        }
        if total > MAX_SDF_SAMPLES {
            return Err(ParamError::OutOfRange {
                field: field("dims"),
                value: total as f64,
                range: format!("at most {MAX_SDF_SAMPLES} samples in all"),
            });
        }
        if values.len() != total {
            return Err(ParamError::OutOfRange {
                field: field("values"),
                value: values.len() as f64,
                range: format!("exactly {total} samples (the product of dims)"),
            });
        }
        if let Some((i, &x)) = values.iter().enumerate().find(|(_, x)| !x.is_finite()) {
            return Err(ParamError::NotFinite {
                field: format!("field.values[{i}]"),
                value: x as f64,
            });
        }
        let mut g = Self {
            origin,
            cell,
            dims: d,
            values,
            lipschitz: 1.0,
        };
        g.lipschitz = g.measure_lipschitz();
        Ok(g)
    }

    /// Position of the first node, units.
    pub fn origin(&self) -> V {
        self.origin
    }
    /// Node spacing, units.
    pub fn cell(&self) -> f32 {
        self.cell
    }
    /// Nodes per axis (unused axes 1).
    pub fn dims(&self) -> [usize; 3] {
        self.dims
    }
    /// Samples, x fastest.
    pub fn values(&self) -> &[f32] {
        &self.values
    }
    /// Largest gradient norm of the interpolated field; distances are divided by it.
    pub fn lipschitz(&self) -> f32 {
        self.lipschitz
    }

    /// The far corner of the sampled box.
    fn max(&self) -> V {
        let mut m = self.origin;
        for i in 0..V::DIM {
            m.set(
                i,
                self.origin.get(i) + (self.dims[i] - 1) as f32 * self.cell,
            );
        }
        m
    }

    /// Bounding sphere of the solid (the sampled box).
    pub fn bounds(&self) -> (V, f32) {
        let m = self.max();
        ((self.origin + m) * 0.5, (m - self.origin).length() * 0.5)
    }

    #[inline]
    fn at(&self, x: usize, y: usize, z: usize) -> f32 {
        self.values[(z * self.dims[1] + y) * self.dims[0] + x]
    }

    /// Interpolated value and gradient at a point of the box, in node units.
    #[inline]
    fn sample(&self, q: [f32; 3]) -> (f32, V) {
        let mut base = [0usize; 3];
        let mut t = [0.0f32; 3];
        for i in 0..V::DIM {
            let b = (q[i].max(0.0) as usize).min(self.dims[i] - 2);
            base[i] = b;
            t[i] = q[i] - b as f32;
        }
        let mut value = 0.0;
        let mut grad = V::ZERO;
        let corners = 1usize << V::DIM;
        for c in 0..corners {
            let bit = |i: usize| (c >> i) & 1;
            let v = self.at(
                base[0] + bit(0),
                if V::DIM > 1 { base[1] + bit(1) } else { 0 },
                if V::DIM > 2 { base[2] + bit(2) } else { 0 },
            );
            // Weight: Π over axes of t or (1 − t); its partial derivatives.
            let w = |i: usize| if bit(i) == 1 { t[i] } else { 1.0 - t[i] };
            let mut weight = 1.0;
            for i in 0..V::DIM {
                weight *= w(i);
            }
            value += weight * v;
            for i in 0..V::DIM {
                let mut dw = if bit(i) == 1 { 1.0 } else { -1.0 };
                for j in 0..V::DIM {
                    if j != i {
                        dw *= w(j);
                    }
                }
                grad.set(i, grad.get(i) + dw * v);
            }
        }
        (value, grad)
    }

    /// Signed distance (a lower bound of the way to the surface, exact sign) and
    /// outward normal at `p`.
    pub fn surface(&self, p: V) -> Surface<V> {
        let mut q = [0.0f32; 3];
        let mut out = V::ZERO;
        for (i, qi) in q.iter_mut().enumerate().take(V::DIM) {
            let x = (p.get(i) - self.origin.get(i)) / self.cell;
            let xc = x.clamp(0.0, (self.dims[i] - 1) as f32);
            *qi = if xc.is_nan() { 0.0 } else { xc };
            if x.is_finite() {
                out.set(i, (x - *qi) * self.cell);
            }
        }
        let (value, grad) = self.sample(q);
        let d = value / self.lipschitz;
        let mut n = grad.normalize_or_zero();
        if value < 0.0 && grad.length_squared() < 0.01 * value * value {
            // Deep inside a plateau (the middle of a wall thinner than a cell
            // pair): the gradient says little, so leave along the axis whose
            // neighbouring sample is highest.
            n = self.escape(q);
        }
        if out == V::ZERO {
            return Surface {
                distance: d,
                normal: if n == V::ZERO { unit_x() } else { n },
            };
        }
        // Outside the box (which holds the solid): the box is convex, so the way
        // to any solid point is at least √(|out|² + d²) when the nearest box point
        // is outside the solid, and |out| otherwise.
        let o = out.length();
        if d > 0.0 {
            Surface {
                distance: (o * o + d * d).sqrt(),
                normal: (out + n * d).normalize_or_zero(),
            }
        } else {
            Surface {
                distance: o,
                normal: out * (1.0 / o),
            }
        }
    }

    /// The axis direction, one cell away from node coordinates `q`, where the
    /// field is highest (ties to the first axis, then the negative side).
    #[cold]
    fn escape(&self, q: [f32; 3]) -> V {
        let mut best = (f32::NEG_INFINITY, unit_x::<V>());
        for i in 0..V::DIM {
            for sign in [-1.0f32, 1.0] {
                let mut r = q;
                r[i] = (q[i] + sign).clamp(0.0, (self.dims[i] - 1) as f32);
                let (v, _) = self.sample(r);
                if v > best.0 {
                    let mut dir = V::ZERO;
                    dir.set(i, sign);
                    best = (v, dir);
                }
            }
        }
        best.1
    }

    /// Largest gradient norm of the multilinear interpolant over cells not wholly
    /// inside the solid (the way from an outside point to the surface never
    /// crosses one): per cell it peaks at a corner, where each component is the
    /// difference along that corner's edge.
    fn measure_lipschitz(&self) -> f32 {
        let [nx, ny, nz] = self.dims;
        let (cy, cz) = (
            if V::DIM > 1 { ny - 1 } else { 1 },
            if V::DIM > 2 { nz - 1 } else { 1 },
        );
        let corners = 1usize << V::DIM;
        let worst = (0..cz * cy)
            .into_par_iter()
            .map(|row| {
                let (y, z) = (row % cy, row / cy);
                let mut worst = 0.0f32;
                for x in 0..nx - 1 {
                    let at = |o: [usize; 3]| {
                        self.at(
                            x + o[0],
                            if V::DIM > 1 { y + o[1] } else { 0 },
                            if V::DIM > 2 { z + o[2] } else { 0 },
                        )
                    };
                    let inside =
                        (0..corners).all(|c| at([c & 1, (c >> 1) & 1, (c >> 2) & 1]) < 0.0);
                    if inside {
                        continue;
                    }
                    for c in 0..corners {
                        let corner = [c & 1, (c >> 1) & 1, (c >> 2) & 1];
                        let here = at(corner);
                        let mut g2 = 0.0;
                        for i in 0..V::DIM {
                            let mut other = corner;
                            other[i] ^= 1;
                            let d = at(other) - here;
                            g2 += d * d;
                        }
                        worst = worst.max(g2);
                    }
                }
                worst
            })
            .reduce(|| 0.0, f32::max);
        (worst.sqrt() / self.cell).max(1e-6)
    }
}

fn unit_x<V: Vector>() -> V {
    let mut x = V::ZERO;
    x.set(0, 1.0);
    x
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Vec2, Vec3};

    #[test]
    fn bad_samples_are_named_errors() {
        let e = SdfGrid::from_samples(Vec2::ZERO, 1.0, &[2, 2], vec![1.0, f32::NAN, 1.0, 1.0])
            .unwrap_err()
            .to_string();
        assert!(e.contains("field.values[1]"), "{e}");
        let e = SdfGrid::from_samples(Vec2::ZERO, 1.0, &[2, 3], vec![1.0; 4])
            .unwrap_err()
            .to_string();
        assert!(e.contains("field.values") && e.contains("6"), "{e}");
        let e = SdfGrid::<Vec3>::from_samples(Vec3::ZERO, 1.0, &[2, 2], vec![1.0; 4])
            .unwrap_err()
            .to_string();
        assert!(e.contains("field.dims"), "{e}");
    }
}

//! Solid obstacles as signed distance fields, the look-ahead avoidance force, and
//! the hard guarantee that no boid ends a step inside one.
//!
//! Every shape gives an exact signed distance (negative inside) and the outward
//! normal at the nearest surface point. Avoidance probes ahead along the velocity;
//! the guarantee comes after integration: the step's motion is swept against the
//! distance field (sphere tracing), stopped at first contact with the normal
//! velocity removed, and any remaining penetration is projected out.

use crate::behaviours::clearance::{Clearance, ClearanceGrid};
use crate::behaviours::sdf_grid::SdfGrid;
use crate::behaviours::surface::Surface;
use crate::error::ParamError;
use crate::vector::Vector;
use serde::{Deserialize, Serialize};

/// A solid shape boids never enter. Plain data; `V` sets the dimension.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "shape",
    rename_all = "snake_case",
    deny_unknown_fields,
    bound = ""
)]
pub enum Obstacle<V: Vector> {
    /// A circle (2D) or sphere (3D).
    Sphere {
        /// Centre, units.
        center: V,
        /// Radius, units, in (0, 1e6].
        radius: f32,
    },
    /// An axis-aligned box.
    Box {
        /// Centre, units.
        center: V,
        /// Half the edge length per axis, units, each in (0, 1e6].
        half_extents: V,
    },
    /// Every point within `radius` of the segment `a`–`b`: a wall with round ends.
    Capsule {
        /// One end of the core segment, units.
        a: V,
        /// The other end, units.
        b: V,
        /// Half the wall's thickness, units, in (0, 1e6].
        radius: f32,
    },
    /// A simple polygon (2D only): vertices in order, closed automatically, at
    /// least 3 and at most 4,096.
    Polygon {
        /// Vertices, units.
        points: Vec<V>,
    },
    /// A baked layout: a signed distance field sampled on a grid (one lookup per
    /// query however many shapes went into it). See [`SdfGrid`].
    Field(SdfGrid<V>),
}

fn unit_or_x<V: Vector>(d: V) -> V {
    let n = d.normalize_or_zero();
    if n == V::ZERO {
        let mut x = V::ZERO;
        x.set(0, 1.0);
        x
    } else {
        n
    }
}

/// Closest point to `p` on the segment `a`–`b`.
fn closest_on_segment<V: Vector>(p: V, a: V, b: V) -> V {
    let ab = b - a;
    let l2 = ab.length_squared();
    if l2 <= 0.0 {
        return a;
    }
    let t = ((p - a).dot(ab) / l2).clamp(0.0, 1.0);
    a + ab * t
}

impl<V: Vector> Obstacle<V> {
    /// Signed distance and outward normal at `p`.
    pub fn surface(&self, p: V) -> Surface<V> {
        match self {
            Obstacle::Sphere { center, radius } => {
                let d = p - *center;
                Surface {
                    distance: d.length() - radius,
                    normal: unit_or_x(d),
                }
            }
            Obstacle::Capsule { a, b, radius } => {
                let d = p - closest_on_segment(p, *a, *b);
                Surface {
                    distance: d.length() - radius,
                    normal: unit_or_x(d),
                }
            }
            Obstacle::Box {
                center,
                half_extents,
            } => {
                let rel = p - *center;
                let mut out = V::ZERO;
                let (mut inside_max, mut axis) = (f32::NEG_INFINITY, 0);
                for i in 0..V::DIM {
                    let q = rel.get(i).abs() - half_extents.get(i);
                    out.set(i, q.max(0.0) * rel.get(i).signum());
                    if q > inside_max {
                        inside_max = q;
                        axis = i;
                    }
                }
                if inside_max > 0.0 {
                    Surface {
                        distance: out.length(),
                        normal: unit_or_x(out),
                    }
                } else {
                    let mut n = V::ZERO;
                    n.set(axis, if rel.get(axis) < 0.0 { -1.0 } else { 1.0 });
                    Surface {
                        distance: inside_max,
                        normal: n,
                    }
                }
            }
            Obstacle::Field(g) => g.surface(p),
            Obstacle::Polygon { points } => {
                let (mut best2, mut best) = (f32::INFINITY, p);
                let mut inside = false;
                let k = points.len();
                for e in 0..k {
                    let (a, b) = (points[e], points[(e + 1) % k]);
                    let c = closest_on_segment(p, a, b);
                    let d2 = (p - c).length_squared();
                    if d2 < best2 {
                        best2 = d2;
                        best = c;
                    }
                    // Crossing number on the x/y plane.
                    let (ay, by, py) = (a.get(1), b.get(1), p.get(1));
                    if (ay > py) != (by > py) {
                        let x = a.get(0) + (py - ay) / (by - ay) * (b.get(0) - a.get(0));
                        if p.get(0) < x {
                            inside = !inside;
                        }
                    }
                }
                let d = best2.sqrt();
                let away = unit_or_x(p - best);
                if inside {
                    Surface {
                        distance: -d,
                        normal: -away,
                    }
                } else {
                    Surface {
                        distance: d,
                        normal: away,
                    }
                }
            }
        }
    }

    /// A sphere containing the shape: centre and radius.
    pub fn bounds(&self) -> (V, f32) {
        match self {
            Obstacle::Sphere { center, radius } => (*center, *radius),
            Obstacle::Box {
                center,
                half_extents,
            } => (*center, half_extents.length()),
            Obstacle::Capsule { a, b, radius } => {
                ((*a + *b) * 0.5, (*b - *a).length() * 0.5 + radius)
            }
            Obstacle::Field(g) => g.bounds(),
            Obstacle::Polygon { points } => {
                let mut c = V::ZERO;
                for &q in points {
                    c += q;
                }
                c *= 1.0 / points.len().max(1) as f32;
                let r = points.iter().map(|&q| (q - c).length()).fold(0.0, f32::max);
                (c, r)
            }
        }
    }

    /// Checks the shape's fields; `field` names it in messages (e.g. `obstacles[2]`).
    pub fn validate(&self, field: &str) -> Result<(), ParamError> {
        let vec = |name: &str, v: V| -> Result<(), ParamError> {
            match v.to_array3()[..V::DIM].iter().find(|x| !x.is_finite()) {
                Some(&x) => Err(ParamError::NotFinite {
                    field: format!("{field}.{name}"),
                    value: x as f64,
                }),
                None => Ok(()),
            }
        };
        let size = |name: &str, x: f32| -> Result<(), ParamError> {
            if !x.is_finite() {
                return Err(ParamError::NotFinite {
                    field: format!("{field}.{name}"),
                    value: x as f64,
                });
            }
            if !(x > 0.0 && x <= 1e6) {
                return Err(ParamError::OutOfRange {
                    field: format!("{field}.{name}"),
                    value: x as f64,
                    range: "in (0, 1e6]".into(),
                });
            }
            Ok(())
        };
        match self {
            Obstacle::Sphere { center, radius } => {
                vec("center", *center)?;
                size("radius", *radius)
            }
            Obstacle::Box {
                center,
                half_extents,
            } => {
                vec("center", *center)?;
                for i in 0..V::DIM {
                    size(&format!("half_extents[{i}]"), half_extents.get(i))?;
                }
                Ok(())
            }
            Obstacle::Capsule { a, b, radius } => {
                vec("a", *a)?;
                vec("b", *b)?;
                size("radius", *radius)
            }
            // Checked when built (from_samples, bake or deserialization).
            Obstacle::Field(_) => Ok(()),
            Obstacle::Polygon { points } => {
                if V::DIM != 2 {
                    return Err(ParamError::OutOfRange {
                        field: format!("{field}.points"),
                        value: points.len() as f64,
                        range: "a 2D shape: polygons exist only in 2D worlds".into(),
                    });
                }
                if !(3..=4096).contains(&points.len()) {
                    return Err(ParamError::OutOfRange {
                        field: format!("{field}.points"),
                        value: points.len() as f64,
                        range: "3 to 4096 vertices".into(),
                    });
                }
                for (i, &q) in points.iter().enumerate() {
                    vec(&format!("points[{i}]"), q)?;
                }
                Ok(())
            }
        }
    }
}

/// The contact gap kept between boids and obstacle surfaces: small against the
/// model's length scale (a thousandth of the widest perception radius).
pub(crate) fn contact_skin(species: &[crate::params::SpeciesParams]) -> f32 {
    1e-3 * species
        .iter()
        .map(crate::params::SpeciesParams::perception_radius)
        .fold(0.0f32, f32::max)
}

/// A world's obstacles with their bounding spheres and a coarse grid over them,
/// so a query looks only at obstacles near the point.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ObstacleSet<V: Vector> {
    shapes: Vec<Obstacle<V>>,
    bounds: Vec<(V, f32)>,
    bins: Bins,
    /// Built on first use after a change (adding many obstacles builds it once).
    clearance: std::sync::OnceLock<Clearance>,
}

/// Obstacles per cell of a uniform grid over the obstacles' bounding box; a cell
/// lists every obstacle whose bounding sphere's box overlaps it.
#[derive(Clone, Debug, Default, PartialEq)]
struct Bins {
    origin: [f32; 3],
    inv_cell: f32,
    dims: [i64; 3],
    /// Start of each cell's list in `items` (cells + 1 entries).
    starts: Vec<u32>,
    items: Vec<u32>,
}

/// Cells per axis at most.
const MAX_BIN_DIM: f32 = 128.0;

impl Bins {
    fn build<V: Vector>(bounds: &[(V, f32)]) -> Self {
        if bounds.len() < 8 {
            return Self::default(); // a plain scan is as fast
        }
        let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
        let mut mean_d = 0.0;
        for &(c, r) in bounds {
            for i in 0..V::DIM {
                lo[i] = lo[i].min(c.get(i) - r);
                hi[i] = hi[i].max(c.get(i) + r);
            }
            mean_d += 2.0 * r / bounds.len() as f32;
        }
        let extent = (0..V::DIM).map(|i| hi[i] - lo[i]).fold(0.0f32, f32::max);
        let cell = mean_d.max(extent / MAX_BIN_DIM).max(1e-3);
        let mut dims = [1i64; 3];
        for i in 0..V::DIM {
            dims[i] =
                (((hi[i] - lo[i]) / cell).floor() as i64 + 1).clamp(1, MAX_BIN_DIM as i64 + 1);
        }
        let mut b = Self {
            origin: lo,
            inv_cell: 1.0 / cell,
            dims,
            starts: Vec::new(),
            items: Vec::new(),
        };
        let cells = (dims[0] * dims[1] * dims[2]) as usize;
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); cells];
        for (k, &(c, r)) in bounds.iter().enumerate() {
            let (a, z) = b.range(c, r);
            b.for_cells(a, z, |cell| lists[cell].push(k as u32));
        }
        b.starts.push(0);
        for l in &lists {
            b.items.extend_from_slice(l);
            b.starts.push(b.items.len() as u32);
        }
        b
    }

    /// Cell coordinate ranges covering the box of the ball (p, r), clamped.
    fn range<V: Vector>(&self, p: V, r: f32) -> ([i64; 3], [i64; 3]) {
        let (mut a, mut z) = ([0i64; 3], [0i64; 3]);
        for i in 0..V::DIM {
            let f = |x: f32| {
                (((x - self.origin[i]) * self.inv_cell)
                    .floor()
                    .clamp(-1e9, 1e9)) as i64
            };
            a[i] = f(p.get(i) - r).max(0);
            z[i] = f(p.get(i) + r).min(self.dims[i] - 1);
        }
        (a, z)
    }

    fn for_cells(&self, a: [i64; 3], z: [i64; 3], mut f: impl FnMut(usize)) {
        for k in a[2]..=z[2] {
            for j in a[1]..=z[1] {
                for i in a[0]..=z[0] {
                    f(((k * self.dims[1] + j) * self.dims[0] + i) as usize);
                }
            }
        }
    }

    fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }
}

/// Most sphere-tracing steps of one sweep; past them the boid stops at the last
/// safe point (it lost at most a little speed, never the guarantee).
const MAX_TRACE: usize = 48;

impl<V: Vector> ObstacleSet<V> {
    /// A set of already validated shapes.
    pub fn new(shapes: &[Obstacle<V>]) -> Self {
        let bounds: Vec<(V, f32)> = shapes.iter().map(Obstacle::bounds).collect();
        Self {
            bins: Bins::build(&bounds),
            bounds,
            shapes: shapes.to_vec(),
            clearance: std::sync::OnceLock::new(),
        }
    }

    /// Rebuilds the culling structures after a change of shapes.
    fn rebuild(&mut self) {
        self.bins = Bins::build(&self.bounds);
        self.clearance = std::sync::OnceLock::new();
    }

    /// Builds the coarse distance bound now if a change dropped it (so it is not
    /// first built inside a parallel pass).
    pub(crate) fn prepare(&self) {
        self.coarse();
    }

    /// A distance `p` is at least from every obstacle: one lookup in a coarse
    /// grid, for culling (0 when it may touch one).
    #[inline]
    pub fn clearance(&self, p: V) -> f32 {
        self.coarse().lower_bound(p)
    }

    /// The coarse distance bound [`ObstacleSet::clearance`] looks up, as a grid.
    pub fn clearance_grid(&self) -> ClearanceGrid<'_> {
        self.coarse().grid()
    }

    /// The coarse distance bound, built on first use after a change.
    fn coarse(&self) -> &Clearance {
        self.clearance.get_or_init(|| {
            Clearance::build(&self.bounds, |p, reach| {
                self.nearest(p, reach).map(|s| s.distance)
            })
        })
    }

    /// The shapes, in the order they were added.
    pub fn shapes(&self) -> &[Obstacle<V>] {
        &self.shapes
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.shapes.is_empty()
    }

    /// Each obstacle's bounding sphere (centre, radius), in order: what a
    /// derived field ([`crate::behaviours::navigation`]) compares to see a change.
    pub(crate) fn bounds(&self) -> &[(V, f32)] {
        &self.bounds
    }

    /// Number of obstacles.
    pub fn len(&self) -> usize {
        self.shapes.len()
    }

    pub(crate) fn push(&mut self, shape: Obstacle<V>) {
        self.bounds.push(shape.bounds());
        self.shapes.push(shape);
        self.rebuild();
    }

    pub(crate) fn set(&mut self, index: usize, shape: Obstacle<V>) {
        self.bounds[index] = shape.bounds();
        self.shapes[index] = shape;
        self.rebuild();
    }

    pub(crate) fn remove(&mut self, index: usize) -> Obstacle<V> {
        self.bounds.remove(index);
        let shape = self.shapes.remove(index);
        self.rebuild();
        shape
    }

    /// The nearest surface to `p` among obstacles whose bounds come within `reach`
    /// of it; `None` when none does.
    pub fn nearest(&self, p: V, reach: f32) -> Option<Surface<V>> {
        let mut best: Option<Surface<V>> = None;
        let mut consider = |k: usize| {
            let (c, r) = self.bounds[k];
            if (p - c).length() - r > reach {
                return;
            }
            let s = self.shapes[k].surface(p);
            // Strict `<`: among equal distances the first visited wins; the visiting
            // order is fixed by the data, so results never depend on threads.
            if best.is_none_or(|b: Surface<V>| s.distance < b.distance) {
                best = Some(s);
            }
        };
        if self.bins.is_empty() {
            (0..self.shapes.len()).for_each(consider);
        } else {
            // An obstacle listed in several cells is looked at more than once;
            // the minimum is the same.
            let (a, z) = self.bins.range(p, reach);
            self.bins.for_cells(a, z, |cell| {
                let (s, e) = (
                    self.bins.starts[cell] as usize,
                    self.bins.starts[cell + 1] as usize,
                );
                for &k in &self.bins.items[s..e] {
                    consider(k as usize);
                }
            });
        }
        best
    }

    /// True when `p` lies at least `skin` outside every obstacle.
    pub fn is_free(&self, p: V, skin: f32) -> bool {
        self.nearest(p, skin).is_none_or(|s| s.distance >= skin)
    }

    /// Look-ahead avoidance: the acceleration (before weighting) steering a boid at
    /// `p` with velocity `v` away from the obstacle its path approaches.
    pub(crate) fn avoidance(
        &self,
        p: V,
        v: V,
        lookahead: f32,
        margin: f32,
        max_speed: f32,
        max_force: f32,
    ) -> V {
        let ahead = p + v * lookahead;
        let reach = margin + (v * lookahead).length();
        let s = match (self.nearest(p, reach), self.nearest(ahead, margin)) {
            (Some(a), Some(b)) => {
                if a.distance <= b.distance {
                    a
                } else {
                    b
                }
            }
            (Some(a), None) => a,
            (None, Some(b)) => b,
            (None, None) => return V::ZERO,
        };
        if s.distance >= margin {
            return V::ZERO;
        }
        let urgency = (1.0 - s.distance / margin.max(1e-6)).clamp(0.0, 2.0);
        // Keep the tangential part of the heading, turn the inward part outward.
        let dir = v.normalize_or_zero();
        let inward = dir.dot(s.normal).min(0.0);
        let desired = (dir - s.normal * (inward * 2.0) + s.normal * urgency).normalize_or_zero();
        if desired == V::ZERO {
            return V::ZERO;
        }
        ((desired * max_speed - v) * urgency).clamp_length_max(max_force)
    }

    /// Moves a boid from `from` (outside every obstacle) toward `to`, stopping at
    /// the first contact (normal velocity removed there), and pushes it out of any
    /// remaining penetration, so it ends at least `skin / 2` outside every obstacle.
    pub(crate) fn resolve(&self, from: V, to: V, v: &mut V, skin: f32) -> V {
        let seg = to - from;
        let len = seg.length();
        let reach = len + skin;
        let mut p = to;
        if len > 0.0 {
            let mut t = 0.0f32;
            let mut hit = false;
            let mut steps = 0;
            while t < 1.0 {
                let q = from + seg * t;
                let step = match self.nearest(q, reach) {
                    Some(s) if s.distance < skin => {
                        if seg.dot(s.normal) < 0.0 {
                            // Heading into the nearest surface: contact.
                            hit = true;
                            break;
                        }
                        // Leaving or sliding along it: a small step; the projection
                        // below catches a corner.
                        skin
                    }
                    Some(s) => s.distance - 0.5 * skin,
                    None => f32::INFINITY,
                };
                steps += 1;
                if steps > MAX_TRACE {
                    break;
                }
                t += step / len;
            }
            if hit || t < 1.0 {
                // Stop where the sweep stopped; keep only tangential velocity.
                p = from + seg * t.clamp(0.0, 1.0);
                if let Some(s) = self.nearest(p, 2.0 * skin) {
                    let vn = v.dot(s.normal);
                    if vn < 0.0 {
                        *v -= s.normal * vn;
                    }
                }
            }
        }
        // Project out what is left (spawned inside, overlapping shapes, rounding).
        for _ in 0..16 {
            match self.nearest(p, skin) {
                Some(s) if s.distance < 0.5 * skin => {
                    p += s.normal * (skin - s.distance);
                    let vn = v.dot(s.normal);
                    if vn < 0.0 {
                        *v -= s.normal * vn;
                    }
                }
                _ => return p,
            }
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Vec2, Vec3};

    #[test]
    fn signed_distances_and_normals_of_each_shape() {
        let s = Obstacle::Sphere {
            center: Vec2::ZERO,
            radius: 1.0,
        };
        assert!((s.surface(Vec2::new(3.0, 0.0)).distance - 2.0).abs() < 1e-6);
        assert!((s.surface(Vec2::new(0.5, 0.0)).distance + 0.5).abs() < 1e-6);
        let b = Obstacle::Box {
            center: Vec3::ZERO,
            half_extents: Vec3::new(1.0, 2.0, 3.0),
        };
        let o = b.surface(Vec3::new(2.0, 0.0, 0.0));
        assert!((o.distance - 1.0).abs() < 1e-6 && o.normal == Vec3::X);
        let i = b.surface(Vec3::new(0.0, 1.5, 0.0));
        assert!((i.distance + 0.5).abs() < 1e-6 && i.normal == Vec3::Y);
        let c = Obstacle::Capsule {
            a: Vec2::ZERO,
            b: Vec2::new(10.0, 0.0),
            radius: 0.1,
        };
        let w = c.surface(Vec2::new(5.0, -1.0));
        assert!(
            (w.distance - 0.9).abs() < 1e-5 && (w.normal - Vec2::new(0.0, -1.0)).length() < 1e-6
        );
        let sq = Obstacle::Polygon {
            points: vec![
                Vec2::ZERO,
                Vec2::new(2.0, 0.0),
                Vec2::new(2.0, 2.0),
                Vec2::new(0.0, 2.0),
            ],
        };
        assert!((sq.surface(Vec2::new(1.0, 0.5)).distance + 0.5).abs() < 1e-6);
        let out = sq.surface(Vec2::new(3.0, 1.0));
        assert!((out.distance - 1.0).abs() < 1e-6 && (out.normal - Vec2::X).length() < 1e-6);
    }

    #[test]
    fn a_fast_boid_does_not_tunnel_through_a_thin_wall() {
        let wall = Obstacle::Capsule {
            a: Vec2::new(0.0, -5.0),
            b: Vec2::new(0.0, 5.0),
            radius: 0.01,
        };
        let f = ObstacleSet::new(&[wall]);
        let mut v = Vec2::new(600.0, 0.0);
        let p = f.resolve(Vec2::new(-1.0, 0.0), Vec2::new(9.0, 0.0), &mut v, 1e-3);
        assert!(p.x < 0.0, "{p}");
        assert!(f.nearest(p, 1.0).unwrap().distance > 0.0);
        assert!(v.x.abs() < 1e-3, "normal velocity removed: {v}");
    }

    #[test]
    fn polygons_are_refused_in_3d() {
        let p = Obstacle::Polygon {
            points: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
        };
        let e = p.validate("obstacles[0]").unwrap_err().to_string();
        assert!(e.contains("obstacles[0].points") && e.contains("2D"), "{e}");
    }
}

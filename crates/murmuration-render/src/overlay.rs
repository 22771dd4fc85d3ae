//! Geometry for the behaviour entities: obstacles (filled in 2D, wireframe in 3D),
//! zones with their live counts, attractors, pulses and paths.

use crate::vertex::{ColourVertex, to3};
use glam::{Vec2, Vec3};
use murmuration::{Obstacle, SdfGrid, Vector, World};

const OBSTACLE_FILL: [f32; 4] = [0.011, 0.015, 0.028, 1.0];
const WORLD_EDGE: [f32; 4] = [0.016, 0.024, 0.055, 1.0];
const OBSTACLE_EDGE: [f32; 4] = [0.35, 0.48, 0.7, 1.0];
const ZONE_FILL: [f32; 4] = [0.35, 0.15, 0.6, 0.18];
const ZONE_EDGE: [f32; 4] = [0.8, 0.5, 1.2, 1.0];
const ATTRACTOR: [f32; 4] = [1.6, 1.2, 0.35, 1.0];
const PULSE: [f32; 4] = [1.6, 0.45, 0.25, 1.0];
const PATH: [f32; 4] = [0.35, 1.3, 0.55, 1.0];

/// Segments per full circle.
const ROUND: usize = 48;

/// A pen over a scene's line and fill buffers: what the overlays are drawn
/// with, public so a front end (the game) can draw its own world the same way.
pub struct Pen<'a> {
    /// Segment pairs (`Scene::lines`).
    pub lines: &'a mut Vec<ColourVertex>,
    /// Triangles (`Scene::fills`).
    pub fills: &'a mut Vec<ColourVertex>,
    /// 2 or 3: circles become three great circles in 3D.
    pub dim: usize,
}

impl Pen<'_> {
    /// A segment.
    pub fn line(&mut self, a: Vec3, b: Vec3, c: [f32; 4]) {
        self.lines.push(ColourVertex {
            position: a.to_array(),
            colour: c,
        });
        self.lines.push(ColourVertex {
            position: b.to_array(),
            colour: c,
        });
    }

    /// Segments through `pts`, back to the first when `closed`.
    pub fn polyline(&mut self, pts: &[Vec3], closed: bool, c: [f32; 4]) {
        for w in pts.windows(2) {
            self.line(w[0], w[1], c);
        }
        if closed && pts.len() > 2 {
            self.line(pts[pts.len() - 1], pts[0], c);
        }
    }

    /// A filled triangle.
    pub fn triangle(&mut self, a: Vec3, b: Vec3, c: Vec3, colour: [f32; 4]) {
        for p in [a, b, c] {
            self.fills.push(ColourVertex {
                position: p.to_array(),
                colour,
            });
        }
    }

    /// A circle in the plane spanned by `u` and `v`.
    pub fn circle(&mut self, centre: Vec3, r: f32, u: Vec3, v: Vec3, c: [f32; 4]) {
        let pts: Vec<Vec3> = (0..ROUND)
            .map(|k| {
                let a = k as f32 / ROUND as f32 * std::f32::consts::TAU;
                centre + r * (a.cos() * u + a.sin() * v)
            })
            .collect();
        self.polyline(&pts, true, c);
    }

    /// A circle (2D) or three great circles of a sphere (3D).
    pub fn ball(&mut self, centre: Vec3, r: f32, c: [f32; 4]) {
        self.circle(centre, r, Vec3::X, Vec3::Y, c);
        if self.dim == 3 {
            self.circle(centre, r, Vec3::X, Vec3::Z, c);
            self.circle(centre, r, Vec3::Y, Vec3::Z, c);
        }
    }

    /// A convex or concave simple polygon (2D) filled by ear clipping.
    pub fn fill_polygon(&mut self, pts: &[Vec2], colour: [f32; 4]) {
        let mut idx: Vec<usize> = (0..pts.len()).collect();
        let area: f32 = (0..pts.len())
            .map(|i| pts[i].perp_dot(pts[(i + 1) % pts.len()]))
            .sum();
        if area < 0.0 {
            idx.reverse();
        }
        let mut guard = 0;
        while idx.len() > 3 && guard < 4 * pts.len() * pts.len() + 16 {
            guard += 1;
            let n = idx.len();
            let mut clipped = false;
            for i in 0..n {
                let (a, b, c) = (
                    pts[idx[(i + n - 1) % n]],
                    pts[idx[i]],
                    pts[idx[(i + 1) % n]],
                );
                if (b - a).perp_dot(c - b) <= 0.0 {
                    continue;
                }
                let inside = idx.iter().any(|&k| {
                    let p = pts[k];
                    p != a
                        && p != b
                        && p != c
                        && (b - a).perp_dot(p - a) >= 0.0
                        && (c - b).perp_dot(p - b) >= 0.0
                        && (a - c).perp_dot(p - c) >= 0.0
                });
                if !inside {
                    self.triangle(a.extend(0.0), b.extend(0.0), c.extend(0.0), colour);
                    idx.remove(i);
                    clipped = true;
                    break;
                }
            }
            if !clipped {
                break;
            }
        }
        if idx.len() == 3 {
            let [a, b, c] = [pts[idx[0]], pts[idx[1]], pts[idx[2]]];
            self.triangle(a.extend(0.0), b.extend(0.0), c.extend(0.0), colour);
        }
    }

    /// Outline (and in 2D a fill) of a shape.
    pub fn shape<V: Vector>(&mut self, o: &Obstacle<V>, edge: [f32; 4], fill: [f32; 4]) {
        let d2 = self.dim == 2;
        match o {
            Obstacle::Sphere { center, radius } => {
                let c = to3(*center);
                if d2 {
                    let ring: Vec<Vec2> = (0..ROUND)
                        .map(|k| {
                            let a = k as f32 / ROUND as f32 * std::f32::consts::TAU;
                            c.truncate() + *radius * Vec2::new(a.cos(), a.sin())
                        })
                        .collect();
                    self.fill_polygon(&ring, fill);
                }
                self.ball(c, *radius, edge);
            }
            Obstacle::Box {
                center,
                half_extents,
            } => self.box_shape(to3(*center), to3(*half_extents), edge, fill),
            Obstacle::Capsule { a, b, radius } => {
                self.capsule(to3(*a), to3(*b), *radius, edge, fill)
            }
            Obstacle::Polygon { points } => {
                let pts: Vec<Vec2> = points.iter().map(|p| to3(*p).truncate()).collect();
                self.fill_polygon(&pts, fill);
                let p3: Vec<Vec3> = pts.iter().map(|p| p.extend(0.0)).collect();
                self.polyline(&p3, true, edge);
            }
            Obstacle::Field(f) => self.field(f, edge, fill),
        }
    }

    /// An axis-aligned box: outline and fill in 2D, its twelve edges in 3D.
    fn box_shape(&mut self, c: Vec3, h: Vec3, edge: [f32; 4], fill: [f32; 4]) {
        let d2 = self.dim == 2;
        if d2 {
            let r: Vec<Vec2> = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
                .iter()
                .map(|&(x, y)| c.truncate() + Vec2::new(x, y) * h.truncate())
                .collect();
            self.fill_polygon(&r, fill);
            let r3: Vec<Vec3> = r.iter().map(|p| p.extend(0.0)).collect();
            self.polyline(&r3, true, edge);
        } else {
            let corner = |i: usize| {
                c + h * Vec3::new(
                    if i & 1 == 0 { -1.0 } else { 1.0 },
                    if i & 2 == 0 { -1.0 } else { 1.0 },
                    if i & 4 == 0 { -1.0 } else { 1.0 },
                )
            };
            for i in 0..8 {
                for bit in [1, 2, 4] {
                    if i & bit == 0 {
                        self.line(corner(i), corner(i | bit), edge);
                    }
                }
            }
        }
    }

    /// A capsule: its rounded outline and fill in 2D, two balls and four side
    /// lines in 3D.
    fn capsule(&mut self, a: Vec3, b: Vec3, radius: f32, edge: [f32; 4], fill: [f32; 4]) {
        let d2 = self.dim == 2;
        let axis = (b - a).normalize_or(Vec3::X);
        if d2 {
            let base = axis.truncate().to_angle();
            let mut outline: Vec<Vec2> = Vec::new();
            for (end, start) in [
                (b, base - std::f32::consts::FRAC_PI_2),
                (a, base + std::f32::consts::FRAC_PI_2),
            ] {
                for k in 0..=ROUND / 2 {
                    let t = start + k as f32 / (ROUND / 2) as f32 * std::f32::consts::PI;
                    outline.push(end.truncate() + radius * Vec2::from_angle(t));
                }
            }
            self.fill_polygon(&outline, fill);
            let o3: Vec<Vec3> = outline.iter().map(|p| p.extend(0.0)).collect();
            self.polyline(&o3, true, edge);
        } else {
            self.ball(a, radius, edge);
            self.ball(b, radius, edge);
            let side = axis.any_orthonormal_vector();
            let other = axis.cross(side);
            for s in [side, -side, other, -other] {
                self.line(a + radius * s, b + radius * s, edge);
            }
        }
    }

    /// A baked field: its solid cells filled in 2D, its bounding box in 3D.
    fn field<V: Vector>(&mut self, f: &SdfGrid<V>, edge: [f32; 4], fill: [f32; 4]) {
        let d2 = self.dim == 2;
        let origin = to3(f.origin());
        let [nx, ny, nz] = f.dims();
        let cell = f.cell();
        if d2 {
            let v = f.values();
            for j in 0..ny.saturating_sub(1) {
                for i in 0..nx.saturating_sub(1) {
                    let s = v[j * nx + i]
                        + v[j * nx + i + 1]
                        + v[(j + 1) * nx + i]
                        + v[(j + 1) * nx + i + 1];
                    if s < 0.0 {
                        let p = origin + cell * Vec3::new(i as f32, j as f32, 0.0);
                        let q = p + Vec3::new(cell, cell, 0.0);
                        self.triangle(p, Vec3::new(q.x, p.y, 0.0), q, fill);
                        self.triangle(p, q, Vec3::new(p.x, q.y, 0.0), fill);
                    }
                }
            }
        } else {
            let size = cell * Vec3::new((nx - 1) as f32, (ny - 1) as f32, (nz.max(2) - 1) as f32);
            let b = Obstacle::<Vec3>::Box {
                center: origin + 0.5 * size,
                half_extents: 0.5 * size,
            };
            self.shape(&b, edge, fill);
        }
    }

    /// A number drawn with seven-segment strokes, `h` tall, centred at `at`.
    fn number(&mut self, value: usize, at: Vec3, h: f32, c: [f32; 4]) {
        const SEGS: [u8; 10] = [
            0b0111111, 0b0000110, 0b1011011, 0b1001111, 0b1100110, 0b1101101, 0b1111101, 0b0000111,
            0b1111111, 0b1101111,
        ];
        let text = value.to_string();
        let w = 0.5 * h;
        let gap = 0.3 * h;
        let total = text.len() as f32 * (w + gap) - gap;
        let mut x = at.x - 0.5 * total;
        let y0 = at.y - 0.5 * h;
        for ch in text.bytes() {
            let s = SEGS[(ch - b'0') as usize];
            let p = |px: f32, py: f32| Vec3::new(x + px * w, y0 + py * h, at.z);
            let segs = [
                (p(0.0, 1.0), p(1.0, 1.0)), // a: top
                (p(1.0, 1.0), p(1.0, 0.5)), // b
                (p(1.0, 0.5), p(1.0, 0.0)), // c
                (p(0.0, 0.0), p(1.0, 0.0)), // d: bottom
                (p(0.0, 0.0), p(0.0, 0.5)), // e
                (p(0.0, 0.5), p(0.0, 1.0)), // f
                (p(0.0, 0.5), p(1.0, 0.5)), // g: middle
            ];
            for (k, &(a, b)) in segs.iter().enumerate() {
                if s & (1 << k) != 0 {
                    self.line(a, b, c);
                }
            }
            x += w + gap;
        }
    }
}

/// Appends every entity of `world` to `lines` (segment pairs) and `fills` (triangles).
pub fn entities<V: Vector>(
    world: &World<V>,
    lines: &mut Vec<ColourVertex>,
    fills: &mut Vec<ColourVertex>,
) {
    let mut out = Pen {
        lines,
        fills,
        dim: V::DIM,
    };
    let cfg = world.config();
    let extent = (to3(cfg.max) - to3(cfg.min)).max_element();
    // The world box, faint, for orientation (none for an open sky: unbounded,
    // or over a roost).
    if !matches!(
        cfg.boundary,
        murmuration::Boundary::Unbounded | murmuration::Boundary::Roost { .. }
    ) {
        let (lo, hi) = (to3(cfg.min), to3(cfg.max));
        let b = Obstacle::<Vec3>::Box {
            center: 0.5 * (lo + hi),
            half_extents: (0.5 * (hi - lo)).max(Vec3::splat(1e-6)),
        };
        let mut edges = Pen {
            lines: &mut *out.lines,
            fills: &mut Vec::new(),
            dim: V::DIM,
        };
        edges.shape(&b, WORLD_EDGE, WORLD_EDGE);
    }
    for z in world.zones() {
        out.shape(&z.shape, ZONE_EDGE, ZONE_FILL);
        let (c, r) = z.shape.bounds();
        // The live count, in the middle of the zone.
        let h = (0.25 * r).clamp(extent / 80.0, extent / 25.0);
        out.number(z.count(), to3(c), h, ZONE_EDGE);
    }
    for o in world.obstacles() {
        out.shape(o, OBSTACLE_EDGE, OBSTACLE_FILL);
    }
    for p in world.paths() {
        let pts: Vec<Vec3> = p.points.iter().map(|q| to3(*q)).collect();
        let fade = if p.lifetime.is_finite() {
            1.0 - p.age / p.lifetime
        } else {
            1.0
        };
        let c = [PATH[0] * fade, PATH[1] * fade, PATH[2] * fade, 1.0];
        out.polyline(&pts, false, c);
        // Chevrons show the direction of travel.
        for w in pts.windows(2) {
            let (a, b) = (w[0], w[1]);
            let d = (b - a).normalize_or_zero();
            let m = 0.5 * (a + b);
            let s = (extent / 120.0).min((b - a).length() * 0.3);
            let n = d.cross(if V::DIM == 2 {
                Vec3::Z
            } else {
                d.any_orthonormal_vector()
            });
            out.line(m, m - s * d + s * n, c);
            out.line(m, m - s * d - s * n, c);
        }
    }
    for a in world.attractors() {
        let p = to3(a.position);
        let s = (0.4 * a.radius).clamp(extent / 150.0, extent / 30.0);
        for d in [Vec3::X, Vec3::Y, Vec3::Z].iter().take(V::DIM) {
            out.line(p - s * *d, p + s * *d, ATTRACTOR);
        }
        out.ball(
            p,
            a.radius,
            [
                ATTRACTOR[0] * 0.5,
                ATTRACTOR[1] * 0.5,
                ATTRACTOR[2] * 0.5,
                1.0,
            ],
        );
        if (to3(a.goal) - p).length() > 1e-3 {
            out.line(p, to3(a.goal), [0.5, 0.4, 0.1, 1.0]);
        }
    }
    for p in world.pulses() {
        let fade = 1.0 - p.age / p.duration;
        let c = [PULSE[0] * fade, PULSE[1] * fade, PULSE[2] * fade, 1.0];
        out.ball(to3(p.position), p.radius, c);
        out.ball(to3(p.position), p.radius * (1.0 - fade).max(0.05), c);
    }
}

/// Debug drawing of one inspected boid: its perception (white) and separation
/// (red) radii, its vision cone, and its forces as arrows coloured by rule —
/// separation red, alignment green, cohesion blue, boundary yellow, the applied
/// steering white — scaled so `max_force` spans the perception radius.
pub fn inspection<V: Vector>(
    ins: &murmuration::Inspection<V>,
    p: &murmuration::SpeciesParams,
    lines: &mut Vec<ColourVertex>,
) {
    let mut fills = Vec::new();
    let dim = V::DIM;
    let mut out = Pen {
        lines,
        fills: &mut fills,
        dim,
    };
    let c = to3(ins.position);
    let r = p.perception_radius();
    out.ball(c, r, [0.9, 0.9, 1.0, 1.0]);
    out.ball(c, p.separation_radius, [1.4, 0.3, 0.25, 1.0]);
    let h = to3(ins.velocity).normalize_or(Vec3::X);
    if p.has_vision_cone() {
        let half = 0.5 * p.fov_degrees.to_radians();
        let axis = if dim == 2 {
            Vec3::Z
        } else {
            h.any_orthonormal_vector()
        };
        for a in [half, -half] {
            let d = glam::Quat::from_axis_angle(axis, a) * h;
            out.line(c, c + r * d, [0.6, 0.6, 0.8, 1.0]);
        }
    }
    let scale = r / p.max_force.max(1e-6);
    let arrows = [
        (ins.separation, [1.6, 0.25, 0.2, 1.0]),
        (ins.alignment, [0.3, 1.5, 0.35, 1.0]),
        (ins.cohesion, [0.3, 0.5, 1.8, 1.0]),
        (ins.boundary, [1.5, 1.3, 0.2, 1.0]),
        (ins.steering, [1.6, 1.6, 1.6, 1.0]),
    ];
    for (f, colour) in arrows {
        let v = to3(f) * scale;
        let len = v.length();
        if len < 1e-6 {
            continue;
        }
        let tip = c + v;
        out.line(c, tip, colour);
        let d = v / len;
        let side = d.cross(if dim == 2 {
            Vec3::Z
        } else {
            d.any_orthonormal_vector()
        });
        let head = 0.2 * len.min(r);
        out.line(tip, tip - head * d + 0.5 * head * side, colour);
        out.line(tip, tip - head * d - 0.5 * head * side, colour);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn area(fills: &[ColourVertex]) -> f32 {
        fills
            .chunks(3)
            .map(|t| {
                let [a, b, c] = [t[0], t[1], t[2]].map(|v| Vec2::new(v.position[0], v.position[1]));
                0.5 * (b - a).perp_dot(c - a).abs()
            })
            .sum()
    }

    #[test]
    fn ear_clipping_fills_a_concave_polygon_exactly() {
        let (mut lines, mut fills) = (Vec::new(), Vec::new());
        let mut out = Pen {
            lines: &mut lines,
            fills: &mut fills,
            dim: 2,
        };
        // An L shape of area 3.
        let l = [
            Vec2::new(0.0, 0.0),
            Vec2::new(2.0, 0.0),
            Vec2::new(2.0, 1.0),
            Vec2::new(1.0, 1.0),
            Vec2::new(1.0, 2.0),
            Vec2::new(0.0, 2.0),
        ];
        out.fill_polygon(&l, OBSTACLE_FILL);
        assert_eq!(fills.len(), 3 * 4);
        assert!((area(&fills) - 3.0).abs() < 1e-5);
        fills.clear();
        let mut out = Pen {
            lines: &mut lines,
            fills: &mut fills,
            dim: 2,
        };
        let mut rev = l;
        rev.reverse();
        out.fill_polygon(&rev, OBSTACLE_FILL);
        assert!((area(&fills) - 3.0).abs() < 1e-5);
    }

    #[test]
    fn numbers_draw_seven_segment_strokes() {
        let (mut lines, mut fills) = (Vec::new(), Vec::new());
        let mut out = Pen {
            lines: &mut lines,
            fills: &mut fills,
            dim: 2,
        };
        out.number(18, Vec3::ZERO, 1.0, ZONE_EDGE);
        assert_eq!(lines.len(), 2 * (2 + 7), "1 has two strokes, 8 has seven");
    }
}

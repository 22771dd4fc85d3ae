//! World edges: the soft steering force, the roost's pull, periodic wrap and
//! reflection.

use crate::params::{Boundary, WorldConfig};
use crate::vector::Vector;

/// Inward acceleration of the soft boundary at `p` (zero for other boundaries).
/// Per axis, `strength · depth / margin` where depth is how far `p` is inside the
/// margin band (it keeps growing past the face).
#[inline(always)]
pub(crate) fn soft_force<V: Vector>(p: V, w: &WorldConfig<V>) -> V {
    let Boundary::Soft { margin, strength } = w.boundary else {
        return V::ZERO;
    };
    let k = strength / margin;
    let mut f = V::ZERO;
    for i in 0..V::DIM {
        let x = p.get(i);
        let lo = w.min.get(i) + margin - x;
        let hi = x - (w.max.get(i) - margin);
        if lo > 0.0 {
            f.set(i, k * lo);
        } else if hi > 0.0 {
            f.set(i, -k * hi);
        }
    }
    f
}

/// The boundary's steering at `p` with velocity `v`, on top of the budget: the
/// soft walls' push or the roost's pull (zero for the other boundaries).
#[inline(always)]
pub(crate) fn boundary_force<V: Vector>(p: V, v: V, w: &WorldConfig<V>) -> V {
    match w.boundary {
        Boundary::Soft { .. } => soft_force(p, w),
        Boundary::Roost { margin, strength } => roost_force(p, v, w, margin, strength),
        _ => V::ZERO,
    }
}

/// The vertical axis of a roost (y in 3D); 2D worlds have none.
const UP: usize = 1;

/// The roost's pull ([`Boundary::Roost`]): a sideways turn toward the roost
/// disc's centre beyond the disc, and in 3D a spring back into the height band.
#[inline(never)]
fn roost_force<V: Vector>(p: V, v: V, w: &WorldConfig<V>, margin: f32, strength: f32) -> V {
    let centre = (w.min + w.max) * 0.5;
    let mut h = p - centre;
    let mut radius = f32::INFINITY;
    for a in 0..V::DIM {
        if V::DIM == 3 && a == UP {
            h.set(a, 0.0);
        } else {
            radius = radius.min(0.5 * (w.max.get(a) - w.min.get(a)));
        }
    }
    let mut f = V::ZERO;
    let d = h.length();
    if d > radius {
        let pull = strength * ((d - radius) / margin).min(1.0);
        f = sideways_turn(h * (-1.0 / d), v, pull);
    }
    if V::DIM == 3 {
        let y = p.get(UP);
        let (lo, hi) = (w.min.get(UP), w.max.get(UP));
        let k = strength / margin;
        if y < lo {
            f.set(UP, f.get(UP) + k * (lo - y));
        } else if y > hi {
            f.set(UP, f.get(UP) - k * (y - hi));
        }
    }
    f
}

/// A turn of strength `pull` toward the unit direction `toward`, sideways to the
/// velocity `v` as a bird banks (no braking): the part of `toward` across the
/// heading, and the whole turn when heading away (to the nearer side; straight
/// away, to the left, so a flock agrees). At rest: straight toward.
#[inline]
pub(crate) fn sideways_turn<V: Vector>(toward: V, v: V, pull: f32) -> V {
    let speed = v.length();
    // At rest (or a NaN speed, as the roost always had it): straight toward.
    if speed.partial_cmp(&1e-12) != Some(std::cmp::Ordering::Greater) {
        return toward * pull;
    }
    let ahead = v * (1.0 / speed);
    let along = toward.dot(ahead);
    let mut side = toward - ahead * along;
    if along < 0.0 {
        side = side.normalize_or_zero();
        if side == V::ZERO {
            let last = V::DIM - 1;
            side.set(0, -ahead.get(last));
            side.set(last, ahead.get(0));
            side = side.normalize_or_zero();
        }
    }
    side * pull
}

/// Applies the positional boundary (wrap or reflect) after integration.
#[inline(always)]
pub(crate) fn confine<V: Vector>(p: &mut V, v: &mut V, w: &WorldConfig<V>) {
    match w.boundary {
        Boundary::Wrap => *p = wrap(*p, w),
        Boundary::Reflect => {
            for i in 0..V::DIM {
                let (lo, hi) = (w.min.get(i), w.max.get(i));
                let x = p.get(i);
                if x < lo {
                    p.set(i, (2.0 * lo - x).min(hi));
                    v.set(i, v.get(i).abs());
                } else if x > hi {
                    p.set(i, (2.0 * hi - x).max(lo));
                    v.set(i, -v.get(i).abs());
                }
            }
        }
        Boundary::Soft { .. } | Boundary::Unbounded | Boundary::Roost { .. } => {}
    }
}

/// `p` wrapped into the half-open box `[min, max)`.
#[inline(always)]
pub(crate) fn wrap<V: Vector>(mut p: V, w: &WorldConfig<V>) -> V {
    for i in 0..V::DIM {
        let (lo, hi) = (w.min.get(i), w.max.get(i));
        let x = p.get(i);
        if x < lo || x >= hi {
            let l = hi - lo;
            let mut y = lo + (x - lo).rem_euclid(l);
            // rem_euclid can round up to exactly l.
            if y >= hi || y < lo {
                y = lo;
            }
            p.set(i, y);
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec2;

    #[test]
    fn wrap_lands_in_the_half_open_box() {
        let w = WorldConfig::new(Vec2::splat(10.0), Boundary::Wrap);
        for x in [-10.0, -1e-9, 10.0, 25.5, -0.0, 9.999_999] {
            let p = wrap(Vec2::new(x, 3.0), &w);
            assert!((0.0..10.0).contains(&p.x), "{x} -> {}", p.x);
        }
    }

    #[test]
    fn reflect_mirrors_position_and_velocity() {
        let w = WorldConfig::new(Vec2::splat(10.0), Boundary::Reflect);
        let mut p = Vec2::new(-0.5, 10.25);
        let mut v = Vec2::new(-1.0, 2.0);
        confine(&mut p, &mut v, &w);
        assert_eq!(p, Vec2::new(0.5, 9.75));
        assert_eq!(v, Vec2::new(1.0, -2.0));
    }

    #[test]
    fn roost_turns_a_boid_beyond_the_disc_sideways_and_holds_altitude() {
        use glam::Vec3;
        let mut w = WorldConfig::new(
            Vec3::new(100.0, 20.0, 60.0),
            Boundary::Roost {
                margin: 10.0,
                strength: 4.0,
            },
        );
        w.min = Vec3::new(-50.0, 40.0, -30.0);
        w.max = Vec3::new(50.0, 60.0, 30.0);
        let v = Vec3::new(0.0, 0.0, 5.0);
        // Inside the disc (radius 30) and the band: nothing.
        assert_eq!(
            boundary_force(Vec3::new(29.0, 50.0, 0.0), v, &w),
            Vec3::ZERO
        );
        // 5 beyond the disc, flying along +z: half strength, toward -x, sideways only.
        let f = boundary_force(Vec3::new(35.0, 50.0, 0.0), v, &w);
        assert!((f - Vec3::new(-2.0, 0.0, 0.0)).length() < 1e-6, "{f}");
        // Heading straight away along +x: the full turn, perpendicular to the heading.
        let f = boundary_force(Vec3::new(50.0, 50.0, 0.0), Vec3::X, &w);
        assert!(
            (f.length() - 4.0).abs() < 1e-5 && f.dot(Vec3::X).abs() < 1e-6,
            "{f}"
        );
        // Heading toward the centre: no sideways component left to turn.
        let f = boundary_force(Vec3::new(50.0, 50.0, 0.0), -Vec3::X, &w);
        assert!(f.length() < 1e-6, "{f}");
        // Below the band: pulled up, growing with depth.
        let up = boundary_force(Vec3::new(0.0, 35.0, 0.0), v, &w).y;
        assert!((up - 2.0).abs() < 1e-6, "{up}");
        assert!(boundary_force(Vec3::new(0.0, 70.0, 0.0), v, &w).y < -3.9);
    }

    #[test]
    fn soft_force_grows_toward_the_edge() {
        let w = WorldConfig::new(
            Vec2::splat(10.0),
            Boundary::Soft {
                margin: 2.0,
                strength: 4.0,
            },
        );
        assert_eq!(soft_force(Vec2::splat(5.0), &w), Vec2::ZERO);
        let a = soft_force(Vec2::new(1.5, 5.0), &w).x;
        let b = soft_force(Vec2::new(0.5, 5.0), &w).x;
        assert!(a > 0.0 && b > a);
        assert!(soft_force(Vec2::new(9.5, 5.0), &w).x < 0.0);
    }
}

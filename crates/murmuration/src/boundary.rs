//! World edges: the soft steering force, periodic wrap and reflection.

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
        Boundary::Soft { .. } | Boundary::Unbounded => {}
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

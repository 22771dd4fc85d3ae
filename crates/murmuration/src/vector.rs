//! The small vector trait that lets one source build both the 2D and the 3D engine.
//!
//! Every algorithm in the crate is generic over [`Vector`]; [`glam::Vec2`] and
//! [`glam::Vec3`] implement it side by side below, so dimension-specific code is a
//! dozen lines in one place instead of two copies of the engine.

use glam::{Vec2, Vec3};
use serde::{Serialize, de::DeserializeOwned};
use std::fmt::Debug;
use std::ops::{Add, AddAssign, Div, Mul, MulAssign, Neg, Sub, SubAssign};

/// A position or velocity in 2D or 3D, `f32` components.
pub trait Vector:
    Copy
    + Send
    + Sync
    + Debug
    + Default
    + PartialEq
    + Add<Output = Self>
    + AddAssign
    + Sub<Output = Self>
    + SubAssign
    + Neg<Output = Self>
    + Mul<f32, Output = Self>
    + MulAssign<f32>
    + Div<f32, Output = Self>
    + Serialize
    + DeserializeOwned
    + 'static
{
    /// Number of components (2 or 3).
    const DIM: usize;
    /// The zero vector.
    const ZERO: Self;

    /// All components equal to `v`.
    fn splat(v: f32) -> Self;
    /// Component `i` (`i < DIM`).
    fn get(self, i: usize) -> f32;
    /// Sets component `i` (`i < DIM`).
    fn set(&mut self, i: usize, v: f32);
    /// Dot product.
    fn dot(self, o: Self) -> f32;
    /// Squared length.
    #[inline]
    fn length_squared(self) -> f32 {
        self.dot(self)
    }
    /// Length.
    #[inline]
    fn length(self) -> f32 {
        self.length_squared().sqrt()
    }
    /// Component-wise product.
    fn mul_elem(self, o: Self) -> Self;
    /// Component-wise minimum.
    fn min_elem(self, o: Self) -> Self;
    /// Component-wise maximum.
    fn max_elem(self, o: Self) -> Self;
    /// True when every component is finite.
    fn is_finite(self) -> bool;
    /// Angular momentum of `v` about the origin at offset `r`, as a 3D vector
    /// (2D: `(0, 0, r × v)`), used by the milling order parameter.
    fn cross3(r: Self, v: Self) -> Vec3;
    /// A unit vector from two independent uniform numbers in [0, 1): uniform
    /// on the circle (2D) or sphere (3D).
    fn unit_from_uniform(u: f32, w: f32) -> Self;
    /// [`Vector::unit_from_uniform`] given the sine `s` and cosine `c` of its
    /// angle `u · τ` (computed elsewhere, a group at a time), and `w`.
    fn unit_from_sincos(s: f32, c: f32, w: f32) -> Self;
    /// Components as an `[f32; 3]` (unused ones zero), for export and hashing.
    fn to_array3(self) -> [f32; 3];
    /// Builds from the first `DIM` components.
    fn from_array3(a: [f32; 3]) -> Self;

    /// The vector scaled to length `max` when longer than it.
    ///
    /// Branch-free: whether a force exceeds its cap is close to a coin toss, and a
    /// mispredicted branch cost more than the square root and division it skips.
    /// Multiplying by exactly 1.0 leaves a shorter vector bit-identical.
    #[inline]
    fn clamp_length_max(self, max: f32) -> Self {
        let l2 = self.length_squared();
        let scale = max / l2.sqrt();
        self * select(l2 > max * max, scale, 1.0)
    }
    /// The unit vector in this direction, or zero for a (near) zero vector.
    #[inline]
    fn normalize_or_zero(self) -> Self {
        let l2 = self.length_squared();
        if l2 > 1e-30 && l2.is_finite() {
            self * (1.0 / l2.sqrt())
        } else {
            Self::ZERO
        }
    }
}

impl Vector for Vec2 {
    const DIM: usize = 2;
    const ZERO: Self = Vec2::ZERO;
    #[inline]
    fn splat(v: f32) -> Self {
        Vec2::splat(v)
    }
    #[inline]
    fn get(self, i: usize) -> f32 {
        self[i]
    }
    #[inline]
    fn set(&mut self, i: usize, v: f32) {
        self[i] = v;
    }
    #[inline]
    fn dot(self, o: Self) -> f32 {
        Vec2::dot(self, o)
    }
    #[inline]
    fn mul_elem(self, o: Self) -> Self {
        self * o
    }
    #[inline]
    fn min_elem(self, o: Self) -> Self {
        self.min(o)
    }
    #[inline]
    fn max_elem(self, o: Self) -> Self {
        self.max(o)
    }
    #[inline]
    fn is_finite(self) -> bool {
        Vec2::is_finite(self)
    }
    #[inline]
    fn cross3(r: Self, v: Self) -> Vec3 {
        Vec3::new(0.0, 0.0, r.perp_dot(v))
    }
    #[inline]
    fn unit_from_uniform(u: f32, _w: f32) -> Self {
        // sincosf shares one range reduction; its bits are cosf's and sinf's
        // for every f32 angle in [0, τ] (checked exhaustively once; the test
        // `sincosf_keeps_the_bits_of_cosf_and_sinf` samples them).
        let (s, c) = libm::sincosf(u * std::f32::consts::TAU);
        Self::unit_from_sincos(s, c, 0.0)
    }
    #[inline]
    fn unit_from_sincos(s: f32, c: f32, _w: f32) -> Self {
        Vec2::new(c, s)
    }
    #[inline]
    fn to_array3(self) -> [f32; 3] {
        [self.x, self.y, 0.0]
    }
    #[inline]
    fn from_array3(a: [f32; 3]) -> Self {
        Vec2::new(a[0], a[1])
    }
}

impl Vector for Vec3 {
    const DIM: usize = 3;
    const ZERO: Self = Vec3::ZERO;
    #[inline]
    fn splat(v: f32) -> Self {
        Vec3::splat(v)
    }
    #[inline]
    fn get(self, i: usize) -> f32 {
        self[i]
    }
    #[inline]
    fn set(&mut self, i: usize, v: f32) {
        self[i] = v;
    }
    #[inline]
    fn dot(self, o: Self) -> f32 {
        Vec3::dot(self, o)
    }
    #[inline]
    fn mul_elem(self, o: Self) -> Self {
        self * o
    }
    #[inline]
    fn min_elem(self, o: Self) -> Self {
        self.min(o)
    }
    #[inline]
    fn max_elem(self, o: Self) -> Self {
        self.max(o)
    }
    #[inline]
    fn is_finite(self) -> bool {
        Vec3::is_finite(self)
    }
    #[inline]
    fn cross3(r: Self, v: Self) -> Vec3 {
        r.cross(v)
    }
    #[inline]
    fn unit_from_uniform(u: f32, w: f32) -> Self {
        let (s, c) = libm::sincosf(u * std::f32::consts::TAU);
        Self::unit_from_sincos(s, c, w)
    }
    #[inline]
    fn unit_from_sincos(s: f32, c: f32, w: f32) -> Self {
        // Archimedes: z uniform in [-1, 1], azimuth uniform.
        let z = 1.0 - 2.0 * w;
        let r = (1.0 - z * z).max(0.0).sqrt();
        Vec3::new(r * c, r * s, z)
    }
    #[inline]
    fn to_array3(self) -> [f32; 3] {
        self.to_array()
    }
    #[inline]
    fn from_array3(a: [f32; 3]) -> Self {
        Vec3::from_array(a)
    }
}

/// `if c { a } else { b }` as a data dependency rather than a branch (a compare
/// and blend), for conditions the branch predictor cannot learn.
#[inline(always)]
pub(crate) fn select(c: bool, a: f32, b: f32) -> f32 {
    // The mask is all ones or all zeros; the bit operations pick one operand.
    let m = (c as u32).wrapping_neg();
    f32::from_bits((a.to_bits() & m) | (b.to_bits() & !m))
}

/// Offset to the nearest periodic image, per axis.
#[inline(always)]
pub(crate) fn min_image<V: Vector>(mut d: V, period: V) -> V {
    for i in 0..V::DIM {
        let l = period.get(i);
        let x = d.get(i);
        d.set(i, x - l * (x / l).round());
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_vectors_have_unit_length() {
        for k in 0..100 {
            let u = k as f32 / 100.0;
            let w = (k * 37 % 100) as f32 / 100.0;
            assert!((Vec2::unit_from_uniform(u, w).length() - 1.0).abs() < 1e-5);
            assert!((Vec3::unit_from_uniform(u, w).length() - 1.0).abs() < 1e-5);
        }
    }

    /// Every random direction kept its bits when `unit_from_uniform` moved to
    /// one `sincosf` (digests and recorded runs depend on them): one f32 angle
    /// in 97 over [0, τ], about 11 million.
    #[test]
    fn sincosf_keeps_the_bits_of_cosf_and_sinf() {
        let top = std::f32::consts::TAU.to_bits();
        for b in (0..=top).step_by(97).chain([top]) {
            let a = f32::from_bits(b);
            let (s, c) = libm::sincosf(a);
            assert_eq!(
                (s.to_bits(), c.to_bits()),
                (libm::sinf(a).to_bits(), libm::cosf(a).to_bits()),
                "angle {a:e}"
            );
        }
    }

    #[test]
    fn clamp_and_normalize_handle_zero() {
        assert_eq!(Vec2::ZERO.normalize_or_zero(), Vec2::ZERO);
        assert_eq!(Vec3::ZERO.clamp_length_max(1.0), Vec3::ZERO);
        let v = Vec2::new(3.0, 4.0).clamp_length_max(1.0);
        assert!((v.length() - 1.0).abs() < 1e-6);
    }

    #[test]
    fn min_image_picks_the_nearest_copy() {
        let d = min_image(Vec2::new(9.0, -9.5), Vec2::splat(10.0));
        assert!((d - Vec2::new(-1.0, 0.5)).length() < 1e-6);
    }
}

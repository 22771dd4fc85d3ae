//! Lane vectors for the neighbour kernel, which is written once over [`Lanes`]:
//! eight lanes anywhere ([`wide::f32x8`]), sixteen with AVX-512
//! ([`crate::step::kernel512::W16`]).
//!
//! A lane holds one focal boid ([`crate::step::kernel`]). Every lane's arithmetic is
//! the same IEEE operation whatever the width, and the masked forms keep a lane's
//! accumulator where the 8-lane form adds +0 to it (the same bits: an accumulator
//! that starts at +0 never becomes -0), so both widths give the same sums.

use std::ops::{Add, Div, Mul, Sub};
use wide::f32x8;

/// A vector of [`Lanes::N`] `f32` lanes and its mask type.
pub(crate) trait Lanes:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Div<Output = Self>
{
    /// Lanes per vector.
    const N: usize;
    /// A set of lanes.
    type Mask: Copy;
    /// Every lane `x`.
    fn splat(x: f32) -> Self;
    /// The first [`Lanes::N`] values of `x` (which must hold that many).
    fn from_slice(x: &[f32]) -> Self;
    /// The lanes, into the first [`Lanes::N`] entries of `out`.
    fn write_to(self, out: &mut [f32]);
    /// Lane-wise maximum (neither operand NaN).
    fn max(self, o: Self) -> Self;
    /// Lane-wise minimum (neither operand NaN).
    fn min(self, o: Self) -> Self;
    /// Lane-wise square root.
    fn sqrt(self) -> Self;
    /// Lane-wise rounding, halves away from zero (as `f32::round`).
    fn round(self) -> Self;
    /// Lanes where `self < o` (false where either is NaN).
    fn lt(self, o: Self) -> Self::Mask;
    /// Lanes of `m` where `self < o`: `and(m, self.lt(o))`, one masked
    /// compare with AVX-512.
    fn lt_in(self, m: Self::Mask, o: Self) -> Self::Mask;
    /// Lanes where `self <= o`.
    fn le(self, o: Self) -> Self::Mask;
    /// Lanes where `self >= o`.
    fn ge(self, o: Self) -> Self::Mask;
    /// Lanes where `self == o`.
    fn eq(self, o: Self) -> Self::Mask;
    /// Lanes in both.
    fn and(a: Self::Mask, b: Self::Mask) -> Self::Mask;
    /// Lanes in either.
    fn or(a: Self::Mask, b: Self::Mask) -> Self::Mask;
    /// `self + x` in the lanes of `m`, `self` elsewhere.
    fn add_where(self, m: Self::Mask, x: Self) -> Self;
    /// [`Lanes::add_where`], the same bits, issued where it is cheapest: with
    /// AVX-512 as `x * one + self` (a fused multiply-add by one rounds once,
    /// as the add does) on the multiply units, leaving the adders to the rest.
    /// `one` must be 1, and opaque to the compiler, which would fold it back
    /// into an add.
    fn add_where_on_mul(self, m: Self::Mask, x: Self, one: Self) -> Self;
    /// `self - x` in the lanes of `m`, `self` elsewhere.
    fn sub_where(self, m: Self::Mask, x: Self) -> Self;
    /// `min(self, x)` in the lanes of `m`, `self` elsewhere (`x` not NaN there).
    fn min_where(self, m: Self::Mask, x: Self) -> Self;
    /// `a` in the lanes of `m`, `b` elsewhere.
    fn select(m: Self::Mask, a: Self, b: Self) -> Self;
    /// Bit `l` set where lane `l` is in `m`.
    fn bits(m: Self::Mask) -> u32;
    /// The lanes `l` with `f(l)`.
    fn mask_from(f: impl Fn(usize) -> bool) -> Self::Mask;
    /// Every lane but lane `l` (every lane when `l >= N`).
    fn all_but(l: usize) -> Self::Mask;
    /// The lanes `lo..hi` (`lo <= hi <= N`).
    fn lanes(lo: usize, hi: usize) -> Self::Mask;
    /// Lanes whose bit pattern has a bit of `bits` set.
    fn any_bits(self, bits: u32) -> Self::Mask;
    /// Lane `l` is `base[self[l].to_bits() & index]` (one gather with
    /// AVX-512).
    ///
    /// # Safety
    /// Every lane's `bits & index` is below `base.len()`.
    unsafe fn gather(self, base: &[f32], index: u32) -> Self;
}

/// Lane operations on bit patterns that the topological lists by keys
/// need (`step/nearest/keys.rs`; sixteen lanes only).
#[cfg_attr(
    not(target_arch = "x86_64"),
    allow(dead_code, reason = "the lists by keys run sixteen lanes wide only")
)]
pub(crate) trait KeyLanes: Lanes {
    /// Every lane the pattern `b`.
    fn splat_bits(b: u32) -> Self;
    /// Lane-wise unsigned minimum of the patterns.
    fn min_bits(self, o: Self) -> Self;
    /// Lane-wise unsigned maximum of the patterns.
    fn max_bits(self, o: Self) -> Self;
    /// Lanes whose pattern is below `o`'s, unsigned.
    fn lt_bits(self, o: Self) -> Self::Mask;
    /// Lanes whose patterns are equal.
    fn eq_bits(self, o: Self) -> Self::Mask;
    /// The patterns with the bits of `low` replaced by `slot` (within `low`).
    fn key_of(self, low: u32, slot: u32) -> Self;
    /// The largest pattern among the lanes of `m` (0 where `m` is empty).
    fn max_bits_in(self, m: Self::Mask) -> u32;
    /// Lanes `l` whose pattern has bit `l` set.
    fn own_bit(self) -> Self::Mask;
    /// The patterns with `bits` set in the lanes of `m`.
    fn set_bits(self, m: Self::Mask, bits: u32) -> Self;
}

const ON: f32 = f32::from_bits(u32::MAX);

/// `ALL_BUT8[l]`: every lane except lane `l`; `ALL_BUT8[8]`: every lane.
const ALL_BUT8: [f32x8; 9] = {
    let mut t = [f32x8::splat(0.0); 9];
    let mut k = 0;
    while k <= 8 {
        let mut a = [ON; 8];
        if k < 8 {
            a[k] = 0.0;
        }
        t[k] = f32x8::new(a);
        k += 1;
    }
    t
};

/// `FIRST8[k]`: the first `k` lanes.
const FIRST8: [f32x8; 9] = {
    let mut t = [f32x8::splat(0.0); 9];
    let mut k = 0;
    while k <= 8 {
        let mut a = [0.0; 8];
        let mut l = 0;
        while l < k {
            a[l] = ON;
            l += 1;
        }
        t[k] = f32x8::new(a);
        k += 1;
    }
    t
};

impl Lanes for f32x8 {
    const N: usize = 8;
    type Mask = f32x8;

    #[inline(always)]
    fn splat(x: f32) -> Self {
        f32x8::splat(x)
    }
    #[inline(always)]
    fn from_slice(x: &[f32]) -> Self {
        f32x8::new(x[..8].try_into().expect("eight lanes"))
    }
    #[inline(always)]
    fn write_to(self, out: &mut [f32]) {
        out[..8].copy_from_slice(&self.to_array());
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        self.fast_max(o)
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        self.fast_min(o)
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        f32x8::sqrt(self)
    }
    #[inline(always)]
    fn round(self) -> Self {
        f32x8::round(self)
    }
    #[inline(always)]
    fn lt(self, o: Self) -> Self {
        self.simd_lt(o)
    }
    #[inline(always)]
    fn lt_in(self, m: Self, o: Self) -> Self {
        m & self.simd_lt(o)
    }
    #[inline(always)]
    fn le(self, o: Self) -> Self {
        self.simd_le(o)
    }
    #[inline(always)]
    fn ge(self, o: Self) -> Self {
        self.simd_ge(o)
    }
    #[inline(always)]
    fn eq(self, o: Self) -> Self {
        self.simd_eq(o)
    }
    #[inline(always)]
    fn and(a: Self, b: Self) -> Self {
        a & b
    }
    #[inline(always)]
    fn or(a: Self, b: Self) -> Self {
        a | b
    }
    #[inline(always)]
    fn add_where(self, m: Self, x: Self) -> Self {
        // Mask after the product that made `x`: ∞·0 would be NaN.
        self + (x & m)
    }
    #[inline(always)]
    fn add_where_on_mul(self, m: Self, x: Self, _one: Self) -> Self {
        self.add_where(m, x)
    }
    #[inline(always)]
    fn sub_where(self, m: Self, x: Self) -> Self {
        self - (x & m)
    }
    #[inline(always)]
    fn min_where(self, m: Self, x: Self) -> Self {
        self.fast_min(m.select(x, self))
    }
    #[inline(always)]
    fn select(m: Self, a: Self, b: Self) -> Self {
        m.select(a, b)
    }
    #[inline(always)]
    fn bits(m: Self) -> u32 {
        m.to_bitmask()
    }
    #[inline(always)]
    fn mask_from(f: impl Fn(usize) -> bool) -> Self {
        f32x8::new(std::array::from_fn(|l| if f(l) { ON } else { 0.0 }))
    }
    #[inline(always)]
    fn all_but(l: usize) -> Self {
        ALL_BUT8[l.min(8)]
    }
    #[inline(always)]
    fn lanes(lo: usize, hi: usize) -> Self {
        FIRST8[hi] & !FIRST8[lo]
    }
    #[inline(always)]
    fn any_bits(self, bits: u32) -> Self {
        let a = self.to_array();
        Self::mask_from(|l| a[l].to_bits() & bits != 0)
    }
    #[inline(always)]
    unsafe fn gather(self, base: &[f32], index: u32) -> Self {
        // SAFETY: every index is in bounds (the caller's contract).
        f32x8::new(
            self.to_array()
                .map(|w| unsafe { *base.get_unchecked((w.to_bits() & index) as usize) }),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masked_forms_keep_the_lanes_outside_the_mask() {
        let acc = f32x8::new([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
        let x = f32x8::splat(10.0);
        let m = <f32x8 as Lanes>::mask_from(|l| l % 2 == 0);
        assert_eq!(<f32x8 as Lanes>::bits(m), 0b0101_0101);
        let got = acc.add_where(m, x).to_array();
        assert_eq!(got, [11.0, 2.0, 13.0, 4.0, 15.0, 6.0, 17.0, 8.0]);
        let got = acc.sub_where(m, x).to_array();
        assert_eq!(got, [-9.0, 2.0, -7.0, 4.0, -5.0, 6.0, -3.0, 8.0]);
        let got = acc.min_where(m, f32x8::splat(0.0)).to_array();
        assert_eq!(got, [0.0, 2.0, 0.0, 4.0, 0.0, 6.0, 0.0, 8.0]);
        assert_eq!(<f32x8 as Lanes>::bits(<f32x8 as Lanes>::all_but(3)), 0xf7);
        assert_eq!(<f32x8 as Lanes>::bits(<f32x8 as Lanes>::all_but(9)), 0xff);
        assert_eq!(
            <f32x8 as Lanes>::bits(<f32x8 as Lanes>::lanes(2, 5)),
            0b1_1100
        );
        assert_eq!(<f32x8 as Lanes>::bits(<f32x8 as Lanes>::lanes(0, 8)), 0xff);
        assert_eq!(<f32x8 as Lanes>::bits(<f32x8 as Lanes>::lanes(3, 3)), 0);
    }
}

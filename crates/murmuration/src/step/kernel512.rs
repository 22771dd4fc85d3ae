//! The 16-lane vectors of the neighbour kernel (AVX-512), chosen at run time,
//! and the choice.
//!
//! [`W16`] holds sixteen focal boids where `wide::f32x8` holds eight; the
//! kernel ([`crate::step::kernel::accumulate`]) is the same code over both. Each lane
//! adds its own neighbours in the same order at either width, and a masked-off
//! lane keeps its accumulator where the 8-lane form adds +0 (an accumulator that
//! starts at +0 never becomes -0), so the sums agree to the bit. No product is
//! fused into an add (Rust never contracts one implicitly); the only fused
//! multiply-add is by one ([`crate::step::lanes::Lanes::add_where_on_mul`], to issue an add on the
//! multiply units), which rounds once, as the add does. So a machine with
//! AVX-512 and one without step to the same digests; the golden-digest test
//! runs both.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set by [`limit_kernel_to_8_lanes`].
static LIMITED: AtomicBool = AtomicBool::new(false);

/// The environment variable that starts a process on the 8-lane kernel when
/// set to `8` (to compare the two widths from the command line).
pub const KERNEL_LANES_ENV: &str = "MURMURATION_KERNEL_LANES";

/// Whether this CPU runs the 16-lane kernel (AVX-512 F, DQ and VL), asked once.
fn cpu_has_16_lanes() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512dq")
                && std::arch::is_x86_feature_detected!("avx512vl")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    })
}

/// Whether the environment asks for the 8-lane kernel, read once.
fn env_limits() -> bool {
    static ENV: OnceLock<bool> = OnceLock::new();
    *ENV.get_or_init(|| std::env::var(KERNEL_LANES_ENV).is_ok_and(|v| v.trim() == "8"))
}

/// Boids the neighbour kernel steps at a time (its lanes) in steps started now:
/// 16 where the CPU has AVX-512 (unless limited), else 8. Both widths give the
/// same bits.
pub fn kernel_lanes() -> usize {
    if wide() { 16 } else { 8 }
}

/// Keeps the neighbour kernel at 8 lanes (`true`) even where the CPU has
/// AVX-512, or lets it widen again (`false`). Process-wide; both widths give the
/// same bits, so this exists to prove that and to measure the difference.
/// `MURMURATION_KERNEL_LANES=8` in the environment starts a process limited.
pub fn limit_kernel_to_8_lanes(on: bool) {
    LIMITED.store(on, Ordering::Relaxed);
}

/// Steps may set [`crate::step::kernel::WIDE`] (sixteen boids per group).
pub(crate) fn wide() -> bool {
    cpu_has_16_lanes() && !LIMITED.load(Ordering::Relaxed) && !env_limits()
}

#[cfg(target_arch = "x86_64")]
pub(crate) use x86::W16;

#[cfg(target_arch = "x86_64")]
mod x86 {
    use crate::step::lanes::Lanes;
    use core::arch::x86_64::*;
    use std::ops::{Add, Div, Mul, Sub};

    /// Sixteen `f32` lanes in an AVX-512 register; masks are `u16`.
    ///
    /// SAFETY (of every method): a `W16` is made only on paths taken where the
    /// CPU has AVX-512 F, DQ and VL ([`super::wide`]: the step's `kernel::WIDE`
    /// flag). Its methods are always inlined into `steer::steer_chunk_wide`,
    /// which enables those features, so each intrinsic compiles to one
    /// instruction; out of line, a method would be a call per operation.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct W16(__m512);

    macro_rules! binop {
        ($trait:ident, $method:ident, $intrinsic:ident) => {
            impl $trait for W16 {
                type Output = W16;
                #[inline(always)]
                fn $method(self, o: W16) -> W16 {
                    // SAFETY: see `W16`.
                    W16(unsafe { $intrinsic(self.0, o.0) })
                }
            }
        };
    }
    binop!(Add, add, _mm512_add_ps);
    binop!(Sub, sub, _mm512_sub_ps);
    binop!(Mul, mul, _mm512_mul_ps);
    binop!(Div, div, _mm512_div_ps);

    /// The bit pattern of every lane as an integer vector.
    #[inline(always)]
    fn int(x: W16) -> __m512i {
        // SAFETY: see `W16`.
        unsafe { _mm512_castps_si512(x.0) }
    }

    /// The integer vector's lanes as patterns.
    #[inline(always)]
    fn float(x: __m512i) -> W16 {
        // SAFETY: see `W16`.
        W16(unsafe { _mm512_castsi512_ps(x) })
    }

    #[allow(
        clippy::undocumented_unsafe_blocks,
        reason = "every block is one AVX-512 intrinsic: see `W16`"
    )]
    impl crate::step::lanes::KeyLanes for W16 {
        #[inline(always)]
        fn splat_bits(b: u32) -> Self {
            float(unsafe { _mm512_set1_epi32(b as i32) })
        }
        #[inline(always)]
        fn min_bits(self, o: Self) -> Self {
            float(unsafe { _mm512_min_epu32(int(self), int(o)) })
        }
        #[inline(always)]
        fn max_bits(self, o: Self) -> Self {
            float(unsafe { _mm512_max_epu32(int(self), int(o)) })
        }
        #[inline(always)]
        fn lt_bits(self, o: Self) -> u16 {
            unsafe { _mm512_cmplt_epu32_mask(int(self), int(o)) }
        }
        #[inline(always)]
        fn eq_bits(self, o: Self) -> u16 {
            unsafe { _mm512_cmpeq_epi32_mask(int(self), int(o)) }
        }
        #[inline(always)]
        fn key_of(self, low: u32, slot: u32) -> Self {
            let high = unsafe { _mm512_and_si512(int(self), _mm512_set1_epi32(!low as i32)) };
            float(unsafe { _mm512_or_si512(high, _mm512_set1_epi32(slot as i32)) })
        }
        #[inline(always)]
        fn max_bits_in(self, m: u16) -> u32 {
            unsafe { _mm512_mask_reduce_max_epu32(m, int(self)) }
        }
        #[inline(always)]
        fn own_bit(self) -> u16 {
            let lane_bits = unsafe {
                _mm512_sllv_epi32(
                    _mm512_set1_epi32(1),
                    _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                )
            };
            unsafe { _mm512_test_epi32_mask(int(self), lane_bits) }
        }
        #[inline(always)]
        fn set_bits(self, m: u16, bits: u32) -> Self {
            let b = unsafe { _mm512_set1_epi32(bits as i32) };
            float(unsafe { _mm512_mask_or_epi32(int(self), m, int(self), b) })
        }
    }

    #[allow(
        clippy::undocumented_unsafe_blocks,
        reason = "every block is one AVX-512 intrinsic: see `W16`"
    )]
    impl Lanes for W16 {
        const N: usize = 16;
        type Mask = u16;

        #[inline(always)]
        fn splat(x: f32) -> Self {
            W16(unsafe { _mm512_set1_ps(x) })
        }
        #[inline(always)]
        fn from_slice(x: &[f32]) -> Self {
            assert!(x.len() >= 16);
            // SAFETY: sixteen values in bounds, just checked.
            W16(unsafe { _mm512_loadu_ps(x.as_ptr()) })
        }
        #[inline(always)]
        fn write_to(self, out: &mut [f32]) {
            assert!(out.len() >= 16);
            // SAFETY: sixteen values in bounds, just checked.
            unsafe { _mm512_storeu_ps(out.as_mut_ptr(), self.0) }
        }
        #[inline(always)]
        fn max(self, o: Self) -> Self {
            W16(unsafe { _mm512_max_ps(self.0, o.0) })
        }
        #[inline(always)]
        fn min(self, o: Self) -> Self {
            W16(unsafe { _mm512_min_ps(self.0, o.0) })
        }
        #[inline(always)]
        fn sqrt(self) -> Self {
            W16(unsafe { _mm512_sqrt_ps(self.0) })
        }
        #[inline(always)]
        fn round(self) -> Self {
            // Only the minimum image rounds, and it never runs 16 lanes wide
            // (`kernel::WIDE` excludes `kernel::MIN_IMAGE`): lane by lane.
            let mut a = [0.0f32; 16];
            self.write_to(&mut a);
            Self::from_slice(&a.map(f32::round))
        }
        #[inline(always)]
        fn lt(self, o: Self) -> u16 {
            unsafe { _mm512_cmp_ps_mask::<_CMP_LT_OQ>(self.0, o.0) }
        }
        #[inline(always)]
        fn lt_in(self, m: u16, o: Self) -> u16 {
            unsafe { _mm512_mask_cmp_ps_mask::<_CMP_LT_OQ>(m, self.0, o.0) }
        }
        #[inline(always)]
        fn le(self, o: Self) -> u16 {
            unsafe { _mm512_cmp_ps_mask::<_CMP_LE_OQ>(self.0, o.0) }
        }
        #[inline(always)]
        fn ge(self, o: Self) -> u16 {
            unsafe { _mm512_cmp_ps_mask::<_CMP_GE_OQ>(self.0, o.0) }
        }
        #[inline(always)]
        fn eq(self, o: Self) -> u16 {
            unsafe { _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(self.0, o.0) }
        }
        #[inline(always)]
        fn and(a: u16, b: u16) -> u16 {
            a & b
        }
        #[inline(always)]
        fn or(a: u16, b: u16) -> u16 {
            a | b
        }
        #[inline(always)]
        fn add_where(self, m: u16, x: Self) -> Self {
            W16(unsafe { _mm512_mask_add_ps(self.0, m, self.0, x.0) })
        }
        #[inline(always)]
        fn add_where_on_mul(self, m: u16, x: Self, one: Self) -> Self {
            W16(unsafe { _mm512_mask3_fmadd_ps(x.0, one.0, self.0, m) })
        }
        #[inline(always)]
        fn sub_where(self, m: u16, x: Self) -> Self {
            W16(unsafe { _mm512_mask_sub_ps(self.0, m, self.0, x.0) })
        }
        #[inline(always)]
        fn min_where(self, m: u16, x: Self) -> Self {
            W16(unsafe { _mm512_mask_min_ps(self.0, m, self.0, x.0) })
        }
        #[inline(always)]
        fn select(m: u16, a: Self, b: Self) -> Self {
            W16(unsafe { _mm512_mask_blend_ps(m, b.0, a.0) })
        }
        #[inline(always)]
        fn bits(m: u16) -> u32 {
            m as u32
        }
        #[inline(always)]
        fn mask_from(f: impl Fn(usize) -> bool) -> u16 {
            (0..16).fold(0, |m, l| m | ((f(l) as u16) << l))
        }
        #[inline(always)]
        fn all_but(l: usize) -> u16 {
            // Bit `l` clear when `l < 16`; shifting 1 by up to 63 is defined.
            !(1u64 << l.min(63)) as u16
        }
        #[inline(always)]
        fn lanes(lo: usize, hi: usize) -> u16 {
            ((1u32 << hi) - (1u32 << lo)) as u16
        }
        #[inline(always)]
        fn any_bits(self, bits: u32) -> u16 {
            let b = unsafe { _mm512_set1_epi32(bits as i32) };
            unsafe { _mm512_test_epi32_mask(_mm512_castps_si512(self.0), b) }
        }
        #[inline(always)]
        unsafe fn gather(self, base: &[f32], index: u32) -> Self {
            let at = unsafe {
                _mm512_and_si512(_mm512_castps_si512(self.0), _mm512_set1_epi32(index as i32))
            };
            // SAFETY: every index is below `base.len()` (the caller's
            // contract), and the scale is an `f32`'s size.
            W16(unsafe { _mm512_i32gather_ps::<4>(at, base.as_ptr().cast()) })
        }
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::x86::W16;
    use crate::step::lanes::Lanes;

    /// `acc + x` in the lanes of `m`, as the add and as the multiply by one.
    #[target_feature(enable = "avx512f,avx512dq,avx512vl")]
    fn both_adds(acc: &[f32; 16], x: &[f32; 16], m: u16) -> ([f32; 16], [f32; 16]) {
        let (a, b) = (W16::from_slice(acc), W16::from_slice(x));
        let one = std::hint::black_box(W16::splat(1.0));
        let (mut plain, mut fused) = ([0.0; 16], [0.0; 16]);
        a.add_where(m, b).write_to(&mut plain);
        a.add_where_on_mul(m, b, one).write_to(&mut fused);
        (plain, fused)
    }

    #[test]
    fn an_add_on_the_multiply_units_has_the_bits_of_the_add() {
        if !super::cpu_has_16_lanes() {
            eprintln!("no AVX-512 here: the 16-lane forms cannot run");
            return;
        }
        let special = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            f32::MIN_POSITIVE,
            1e-45,
            -1e-45,
            f32::MAX,
            -f32::MAX,
            f32::INFINITY,
            f32::NEG_INFINITY,
            1.0 + f32::EPSILON,
            3.0e-8,
            -0.5,
            1e30,
            -1e30,
        ];
        // Every special value against every other, then random bit patterns
        // (NaN aside), each through a mask of alternate lanes.
        let mut state = 0x2545_f491_u32;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let x = f32::from_bits(state);
            if x.is_nan() { 0.25 } else { x }
        };
        for round in 0..4000 {
            let (acc, x): ([f32; 16], [f32; 16]) = if round < 16 {
                (
                    std::array::from_fn(|l| special[l]),
                    std::array::from_fn(|l| special[(l + round) % 16]),
                )
            } else {
                (
                    std::array::from_fn(|_| next()),
                    std::array::from_fn(|_| next()),
                )
            };
            // SAFETY: the CPU has the features (checked above).
            let (plain, fused) = unsafe { both_adds(&acc, &x, 0xaaaa ^ round as u16) };
            assert_eq!(
                plain.map(f32::to_bits),
                fused.map(f32::to_bits),
                "{acc:?} + {x:?}"
            );
        }
    }
}

//! Sine, cosine and arctangent of many angles at once with the bits of
//! `libm::sincosf` and `libm::atan2f`: the random directions of a jittering
//! flock and the banks of banked fliers, a group of lanes at a time (one
//! `sincosf` call per boid was 8 % of seed 002's step; two `atan2f` and a
//! `sincosf` per bird 12 % of the starlings').
//!
//! The kernels and the reductions are those of `libm`'s `sincosf`, `k_sinf`,
//! `k_cosf`, `atanf` and `atan2f` (FreeBSD's msun, © Sun Microsystems, freely
//! redistributable), written branch-free over lanes for the arguments the
//! flocks ask for (angles within ±9π/4, where `sincosf` needs no general
//! reduction; finite, non-zero ratios for `atan2f`); the rest go to `libm`.

#![allow(
    clippy::excessive_precision,
    reason = "msun's coefficients digit for digit as published; each rounds to the f64 libm uses"
)]

/// π/2 rounded to double precision (msun's `0.5 * 3.1415926535897931160`).
const PI_2: f64 = std::f64::consts::FRAC_PI_2;
const S1: f64 = -0.166666666416265235595;
const S2: f64 = 0.0083333293858894631756;
const S3: f64 = -0.000198393348360966317347;
const S4: f64 = 0.0000027183114939898219064;
const C0: f64 = -0.499999997251031003120;
const C1: f64 = 0.0416666233237390631894;
const C2: f64 = -0.00138867637746099294692;
const C3: f64 = 0.0000243904487962774090654;

/// `sin(x)` on [-π/4, π/4] (msun's `k_sinf`, the same operations in order).
#[inline(always)]
fn k_sin(x: f64) -> f32 {
    let z = x * x;
    let w = z * z;
    let r = S3 + z * S4;
    let s = z * x;
    ((x + s * (S1 + z * S2)) + s * w * r) as f32
}

/// `cos(x)` on [-π/4, π/4] (msun's `k_cosf`).
#[inline(always)]
fn k_cos(x: f64) -> f32 {
    let z = x * x;
    let w = z * z;
    let r = C2 + z * C3;
    (((1.0 + z * C0) + w * C1) + (w * z) * r) as f32
}

/// The multiple of π/2 that `sincosf` takes off a non-negative `x` (by its
/// bits, with msun's thresholds): 0 up to π/4, then 1, 2, 3 and 4 up to 9π/4.
#[inline(always)]
fn quadrant(ix: u32) -> u32 {
    (ix > 0x3f490fda) as u32
        + (ix > 0x4016cbe3) as u32
        + (ix > 0x407b53d1) as u32
        + (ix > 0x40afeddf) as u32
}

/// Most angles `sincos_lanes` takes at once.
pub(crate) const LANES: usize = 16;

/// `(sin, cos)` of each angle in `x`, each bit for bit `libm::sincosf`'s, for
/// angles within ±9π/4; others (never asked for) go to `libm::sincosf` itself.
#[inline(always)]
pub(crate) fn sincos_lanes(x: &[f32; LANES]) -> ([f32; LANES], [f32; LANES]) {
    let (mut s, mut c) = ([0.0f32; LANES], [0.0f32; LANES]);
    for l in 0..LANES {
        (s[l], c[l], _) = sincos_lane(x[l]);
    }
    for l in 0..LANES {
        if sincos_special(x[l]) {
            (s[l], c[l]) = libm::sincosf(x[l]);
        }
    }
    (s, c)
}

/// Angles [`sincos_lane`] leaves to `libm`: NaN and beyond ±9π/4.
#[inline(always)]
fn sincos_special(x: f32) -> bool {
    x.is_nan() || x.abs().to_bits() > 0x40e231d5
}

/// One lane of [`sincos_lanes`], branch-free: `libm::sincosf(x)`'s bits, and
/// whether `x` is an angle it leaves to `libm`, where the values are not them.
#[inline(always)]
pub(crate) fn sincos_lane(x: f32) -> (f32, f32, bool) {
    // sincosf's branches for a negative angle are those of its magnitude
    // with the kernels' arguments negated: the sine is odd, bit for bit
    // (the kernels are odd and even polynomials), the cosine even.
    let negative = x.is_sign_negative();
    let ax = x.abs();
    let ix = ax.to_bits();
    let k = quadrant(ix);
    // x − kπ/2 (for k = 1, sincosf takes π/2 − x: the kernels are odd and
    // even, so the sine's sign flips and the cosine is the same).
    let t = ax as f64 - k as f64 * PI_2;
    let (ks, kc) = (k_sin(t), k_cos(t));
    let (a, b) = match k {
        1 => (kc, -ks),
        2 => (-ks, -kc),
        3 => (-kc, ks),
        _ => (ks, kc),
    };
    // Below 2^-12 sincosf returns (x, 1).
    let tiny = ix < 0x39800000;
    let a = if tiny { ax } else { a };
    let s = if negative { -a } else { a };
    let c = if tiny { 1.0 } else { b };
    (s, c, sincos_special(x))
}

/// `atanf`'s split of [0, ∞) (by bits): below 7/16, 11/16, 19/16, 39/16.
const ATAN_SPLIT: [u32; 4] = [0x3ee00000, 0x3f300000, 0x3f980000, 0x401c0000];
/// atan(0.5), atan(1), atan(1.5), atan(∞), high and low parts.
const ATAN_HI: [f32; 4] = [
    4.6364760399e-01,
    7.8539812565e-01,
    9.8279368877e-01,
    1.5707962513e+00,
];
const ATAN_LO: [f32; 4] = [
    5.0121582440e-09,
    3.7748947079e-08,
    3.4473217170e-08,
    7.5497894159e-08,
];
const A_T: [f32; 5] = [
    3.3333328366e-01,
    -1.9999158382e-01,
    1.4253635705e-01,
    -1.0648017377e-01,
    6.1687607318e-02,
];
/// π and the part of it below f32's precision (msun's `pi`, `pi_lo`).
const PI: f32 = 3.1415927410e+00;
const PI_LO: f32 = -8.7422776573e-08;

/// `libm::atanf(t)` for `t >= 0` (finite), branch-free: the interval's
/// reduction picked by selects, one division, the same polynomial.
#[inline(always)]
fn atan_non_negative(t: f32) -> f32 {
    let it = t.to_bits();
    let (i0, i1, i2, i3) = (
        it >= ATAN_SPLIT[0],
        it >= ATAN_SPLIT[1],
        it >= ATAN_SPLIT[2],
        it >= ATAN_SPLIT[3],
    );
    // (2t − 1)/(2 + t), (t − 1)/(t + 1), (t − 1.5)/(1 + 1.5t), −1/t; t/1 = t.
    let pick = |a: f32, b: f32, c: f32, d: f32, e: f32| {
        let x = if i0 { b } else { a };
        let x = if i1 { c } else { x };
        let x = if i2 { d } else { x };
        if i3 { e } else { x }
    };
    let num = pick(t, 2.0 * t - 1.0, t - 1.0, t - 1.5, -1.0);
    let den = pick(1.0, 2.0 + t, t + 1.0, 1.0 + 1.5 * t, t);
    let x = num / den;
    let z = x * x;
    let w = z * z;
    let s1 = z * (A_T[0] + w * (A_T[2] + w * A_T[4]));
    let s2 = w * (A_T[1] + w * A_T[3]);
    let hi = pick(0.0, ATAN_HI[0], ATAN_HI[1], ATAN_HI[2], ATAN_HI[3]);
    let lo = pick(0.0, ATAN_LO[0], ATAN_LO[1], ATAN_LO[2], ATAN_LO[3]);
    let reduced = hi - ((x * (s1 + s2) - lo) - x);
    let near_zero = x - x * (s1 + s2);
    let z = if i0 { reduced } else { near_zero };
    // Below 2^-12, t itself; from 2^26, π/2 (rounded as atanf rounds it).
    let z = if it < 0x39800000 { t } else { z };
    if it >= 0x4c800000 {
        ATAN_HI[3] + f32::from_bits(0x03800000)
    } else {
        z
    }
}

/// `atan2(y, x)` of each lane by [`atan2_lane`], with `libm` where it leaves
/// off (the tests' harness; banked flight calls the lane kernel itself): finite,
/// non-zero arguments (x not 1) with `|y/x|` at most about 2^26 in lanes,
/// the rest by `libm::atan2f` itself.
#[cfg(test)]
fn atan2_lanes(y: &[f32; LANES], x: &[f32; LANES]) -> [f32; LANES] {
    let mut out = [0.0f32; LANES];
    let mut special = [false; LANES];
    for l in 0..LANES {
        (out[l], special[l]) = atan2_lane(y[l], x[l]);
    }
    for l in 0..LANES {
        if special[l] {
            out[l] = libm::atan2f(y[l], x[l]);
        }
    }
    out
}

/// One lane of [`atan2_lanes`], branch-free: `libm::atan2f(y, x)`'s bits,
/// and whether the arguments are ones it leaves to `libm` (NaN, and with y
/// not zero: x zero, either infinite, x = 1, |y/x| past 2^26), where the
/// value is not it.
#[inline(always)]
pub(crate) fn atan2_lane(y: f32, x: f32) -> (f32, bool) {
    let (iy, ix) = (y.to_bits(), x.to_bits());
    // 2 · sign(x) + sign(y), as atan2f's quadrant.
    let m = ((iy >> 31) & 1) | ((ix >> 30) & 2);
    let (ay, ax) = (iy & 0x7fff_ffff, ix & 0x7fff_ffff);
    // y = ±0 (x not NaN) is in lanes: a bird's first step asks atan2(±0, g).
    let on_axis = ay == 0;
    let special = ax > 0x7f80_0000
        || (!on_axis
            && (ix == 0x3f80_0000
                || ax == 0
                || ax >= 0x7f80_0000
                || ay >= 0x7f80_0000
                || ax + (26 << 23) < ay));
    // |y/x| below 2^-26 with x negative: atan2f takes 0 for atan(|y/x|).
    let flat = m & 2 != 0 && ay + (26 << 23) < ax;
    let z = atan_non_negative((y / x).abs());
    let z = if flat { 0.0 } else { z };
    // atan2f's quadrants: z, −z, π − (z − π_lo), (z − π_lo) − π.
    let right = if m & 1 != 0 { -z } else { z };
    let left = if m & 1 != 0 {
        (z - PI_LO) - PI
    } else {
        PI - (z - PI_LO)
    };
    let general = if m & 2 != 0 { left } else { right };
    // atan2f's y = ±0: y itself for x positive, ±π for x negative.
    let axis = if m & 2 == 0 {
        y
    } else if m & 1 == 0 {
        PI
    } else {
        -PI
    };
    (if on_axis { axis } else { general }, special)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bit for bit `sincosf` over [0, τ] (one f32 in 61, about 18 million;
    /// every one of the 1,086,918,620 was checked once), past 9π/4 and at
    /// the thresholds.
    #[test]
    fn the_lanes_keep_the_bits_of_sincosf() {
        let top = std::f32::consts::TAU.to_bits();
        let extra = [
            0x3f490fda, 0x3f490fdb, 0x4016cbe3, 0x4016cbe4, 0x407b53d1, 0x407b53d2, 0x40afeddf,
            0x40afede0, 0x40e231d5, 0x40e231d6, 0x39800000, 0x397fffff, top,
        ];
        let mut bits: Vec<u32> = (0..=top).step_by(61).chain(extra).collect();
        // Negative angles: the same magnitudes, one in 7 of them.
        let negative: Vec<u32> = bits.iter().step_by(7).map(|b| b | 0x8000_0000).collect();
        bits.extend(negative);
        bits.extend([-7.5f32, 7.5, 100.0, f32::NAN, f32::INFINITY].map(f32::to_bits));
        for chunk in bits.chunks(LANES) {
            let mut x = [0.0f32; LANES];
            for (l, &b) in chunk.iter().enumerate() {
                x[l] = f32::from_bits(b);
            }
            let (s, c) = sincos_lanes(&x);
            for l in 0..LANES {
                let (es, ec) = libm::sincosf(x[l]);
                assert_eq!(
                    (s[l].to_bits(), c[l].to_bits()),
                    (es.to_bits(), ec.to_bits()),
                    "angle {:e}",
                    x[l]
                );
            }
        }
    }

    /// Bit for bit `atan2f` over ratios of every magnitude and sign (both
    /// arguments' bits stepped through the finite range), at atanf's
    /// interval splits, and at the special arguments libm keeps.
    #[test]
    fn the_lanes_keep_the_bits_of_atan2f() {
        let mut pairs = Vec::new();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        // Random bits (any exponent, both signs), then ratios near 1 and
        // near the splits, where the reductions change.
        for _ in 0..400_000 {
            let r = next();
            pairs.push((f32::from_bits(r as u32), f32::from_bits((r >> 32) as u32)));
        }
        for _ in 0..400_000 {
            let r = next();
            let x = f32::from_bits(0x3c00_0000 + (r as u32 % 0x0800_0000))
                * [1.0, -1.0][(r >> 40) as usize & 1];
            let t = ATAN_SPLIT[(r >> 41) as usize % 4];
            let ratio = f32::from_bits(t.wrapping_add(((r >> 44) as u32 % 64).wrapping_sub(32)));
            let y = x * ratio * [1.0, -1.0][(r >> 50) as usize & 1];
            pairs.push((y, x));
        }
        for t in [
            0.0f32,
            -0.0,
            1.0,
            -1.0,
            1e-30,
            3e7,
            1e30,
            f32::INFINITY,
            -f32::INFINITY,
            f32::NAN,
        ] {
            for u in [
                0.0f32,
                -0.0,
                1.0,
                -1.0,
                2.5,
                -2.5,
                1e-30,
                1e30,
                f32::INFINITY,
                f32::NAN,
            ] {
                pairs.push((t, u));
            }
        }
        for chunk in pairs.chunks(LANES) {
            let (mut y, mut x) = ([1.0f32; LANES], [1.0f32; LANES]);
            for (l, &(a, b)) in chunk.iter().enumerate() {
                (y[l], x[l]) = (a, b);
            }
            let out = atan2_lanes(&y, &x);
            for l in 0..LANES {
                let want = libm::atan2f(y[l], x[l]);
                assert!(
                    out[l].to_bits() == want.to_bits() || (out[l].is_nan() && want.is_nan()),
                    "atan2({:e}, {:e}) = {:e}, libm {:e}",
                    y[l],
                    x[l],
                    out[l],
                    want
                );
            }
        }
    }
}

//! Sine and cosine of many angles at once with the bits of `libm::sincosf`: the
//! random directions of a jittering flock, a group of lanes at a time (one
//! `sincosf` call per boid was 8 % of seed 002's step).
//!
//! The kernels and the reduction by multiples of π/2 are those of `libm`'s
//! `sincosf`, `k_sinf` and `k_cosf` (FreeBSD's msun, © Sun Microsystems,
//! freely redistributable), written branch-free over lanes for angles in
//! [0, 9π/4], where `sincosf` needs no general reduction.

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
/// angles in [0, 9π/4]; others (never asked for) go to `libm::sincosf` itself.
pub(crate) fn sincos_lanes(x: &[f32; LANES]) -> ([f32; LANES], [f32; LANES]) {
    let (mut s, mut c) = ([0.0f32; LANES], [0.0f32; LANES]);
    for l in 0..LANES {
        let ix = x[l].to_bits();
        let k = quadrant(ix);
        // x − kπ/2 (for k = 1, sincosf takes π/2 − x: the kernels are odd and
        // even, so the sine's sign flips and the cosine is the same).
        let t = x[l] as f64 - k as f64 * PI_2;
        let (ks, kc) = (k_sin(t), k_cos(t));
        let (a, b) = match k {
            1 => (kc, -ks),
            2 => (-ks, -kc),
            3 => (-kc, ks),
            _ => (ks, kc),
        };
        // Below 2^-12 sincosf returns (x, 1).
        let tiny = ix < 0x39800000;
        s[l] = if tiny { x[l] } else { a };
        c[l] = if tiny { 1.0 } else { b };
    }
    for l in 0..LANES {
        if !(x[l] >= 0.0 && x[l].to_bits() <= 0x40e231d5) {
            (s[l], c[l]) = libm::sincosf(x[l]);
        }
    }
    (s, c)
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
        bits.extend([-1.0f32, 7.5, 100.0, f32::NAN, f32::INFINITY].map(f32::to_bits));
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
}

//! The neighbour kernel: sums the three rules over grid runs, eight candidates at a time.
//!
//! Which candidates fall inside a radius is unpredictable, so a branchy loop spends
//! most of its time in mispredictions. Here every test is a lane mask and the sums
//! are 8-lane accumulators ([`wide::f32x8`], SSE2 or AVX as compiled), reduced in a
//! fixed lane order at the end, so results stay a pure function of the state.
//! Neighbour data is structure-of-arrays in cell order, padded by [`LANES`] entries
//! so the last load of a run never reads past the end.

use crate::grid::Run;
use crate::params::Relation;
use crate::rules::{RuleConsts, Sums};
use crate::vector::Vector;
use wide::f32x8;

/// Candidates processed together.
pub(crate) const LANES: usize = 8;

/// Padding after neighbour data: the widest load (16 lanes, [`crate::kernel512`])
/// from the last entry stays in bounds.
pub(crate) const PAD: usize = 16;

pub(crate) type F = f32x8;

const ON: f32 = f32::from_bits(u32::MAX);

/// `TAIL[k]`: the first `k` lanes set.
pub(crate) const TAIL: [F; LANES + 1] = {
    let mut t = [F::splat(0.0); LANES + 1];
    let mut k = 0;
    while k <= LANES {
        let mut a = [0.0f32; LANES];
        let mut l = 0;
        while l < k {
            a[l] = ON;
            l += 1;
        }
        t[k] = F::new(a);
        k += 1;
    }
    t
};

/// Every lane set.
pub(crate) const ALL: F = TAIL[LANES];

/// `ALL_BUT[l]`: every lane except lane `l`.
pub(crate) const ALL_BUT: [F; LANES] = {
    let mut t = [F::splat(0.0); LANES];
    let mut k = 0;
    while k < LANES {
        let mut a = [ON; LANES];
        a[k] = 0.0;
        t[k] = F::new(a);
        k += 1;
    }
    t
};

/// Neighbour data in sorted (cell) order, structure-of-arrays, padded by [`PAD`].
#[derive(Clone, Debug, Default)]
pub(crate) struct SortedSoa {
    /// Position components; padding is +∞ so padded lanes are never within a radius.
    pub pos: [Vec<f32>; 3],
    /// Velocity components; padding is 0.
    pub vel: [Vec<f32>; 3],
    /// Species; padding is 0.
    pub species: Vec<u16>,
    /// Species as `f32` for lane compares (filled only with several species);
    /// padding is -1.
    pub species_f: Vec<f32>,
}

impl SortedSoa {
    /// Resizes for `n` boids plus padding (allocation-free once large enough).
    /// Only the padding is written: the gather fills the first `n` entries.
    pub fn resize(&mut self, n: usize, dim: usize) {
        for a in 0..3 {
            let len = if a < dim { n + PAD } else { 0 };
            self.pos[a].resize(len, 0.0);
            self.vel[a].resize(len, 0.0);
        }
        self.species.resize(n + PAD, 0);
        let with_f = !self.species_f.is_empty();
        if with_f {
            self.species_f.resize(n + PAD, -1.0);
        }
        self.pad(n, dim, with_f);
    }

    /// Writes the padding `n..n + PAD` (the arrays must hold that many):
    /// positions +∞, velocities 0, species 0, and `f32` species -1 when `with_f`.
    pub fn pad(&mut self, n: usize, dim: usize, with_f: bool) {
        for a in 0..dim {
            self.pos[a][n..n + PAD].fill(f32::INFINITY);
            self.vel[a][n..n + PAD].fill(0.0);
        }
        self.species[n..n + PAD].fill(0);
        if with_f {
            self.species_f[n..n + PAD].fill(-1.0);
        }
    }

    /// Position of sorted index `i`.
    #[inline(always)]
    pub fn position<V: Vector>(&self, i: usize) -> V {
        let mut v = V::ZERO;
        for a in 0..V::DIM {
            v.set(a, self.pos[a][i]);
        }
        v
    }

    /// Velocity of sorted index `i`.
    #[inline(always)]
    pub fn velocity<V: Vector>(&self, i: usize) -> V {
        let mut v = V::ZERO;
        for a in 0..V::DIM {
            v.set(a, self.vel[a][i]);
        }
        v
    }

    /// Bytes of heap memory held.
    pub fn heap_bytes(&self) -> usize {
        4 * self
            .pos
            .iter()
            .chain(&self.vel)
            .map(Vec::capacity)
            .sum::<usize>()
            + 2 * self.species.capacity()
            + 4 * self.species_f.capacity()
    }
}

/// The boid whose neighbours are summed.
pub(crate) struct Focal<'a, V> {
    pub sorted_index: usize,
    pub pos: V,
    /// Unit heading, or zero when the vision cone is off or the boid is at rest.
    pub heading: V,
    /// How this boid's species reacts to each species (row of the relation table).
    pub relations: &'a [Relation],
    /// The pattern of that row ([`RelationPattern`]), for lane compares.
    pub pattern: RelationPattern,
    /// This boid's species as `f32`.
    pub species: f32,
}

/// The shape of one species' relation row, when it allows a vector compare
/// instead of a per-lane table lookup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RelationPattern {
    /// Flocks with its own species, separates from every other: neighbours are
    /// every lane, flockmates the lanes of its own species.
    SelfFlockOthersSeparate,
    /// Flocks with its own species, no rules with any other (ignore, flee, chase).
    SelfFlockOnly,
    /// Anything else: look each lane up.
    General,
}

impl RelationPattern {
    /// The pattern of relation row `row` of species `me`.
    pub fn of(row: &[Relation], me: usize) -> Self {
        if row[me] != Relation::Flock {
            return Self::General;
        }
        let others = || {
            row.iter()
                .enumerate()
                .filter(move |&(b, _)| b != me)
                .map(|(_, r)| *r)
        };
        if others().all(|r| r == Relation::Separate) {
            Self::SelfFlockOthersSeparate
        } else if others().all(|r| !r.in_rules()) {
            Self::SelfFlockOnly
        } else {
            Self::General
        }
    }
}

/// Loads lanes `j..j + LANES`.
///
/// SAFETY: the caller guarantees `j + LANES <= s.len()` (checked once per call of
/// [`accumulate`]: every run ends at or before `n`, and arrays hold `n + PAD`).
#[inline(always)]
pub(crate) unsafe fn load(s: &[f32], j: usize) -> F {
    debug_assert!(j + LANES <= s.len());
    // SAFETY: in bounds by the caller's guarantee; `[f32; 8]` has f32 alignment.
    F::new(unsafe { std::ptr::read_unaligned(s.as_ptr().add(j) as *const [f32; LANES]) })
}

/// The sum of the lanes in a fixed order (pairs, quads, halves).
#[cfg_attr(
    all(target_arch = "x86_64", target_feature = "avx"),
    allow(
        dead_code,
        reason = "the AVX path is lane_sums; tests compare with this"
    )
)]
#[inline(always)]
fn lane_sum(x: F) -> f32 {
    let a = x.to_array();
    ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]))
}

/// [`lane_sum`] of eight vectors at once. With AVX a transposing tree of
/// horizontal adds forms every sum in exactly `lane_sum`'s order (pairs, then
/// quads, then the two halves), so the results are bit-identical, in about ten
/// instructions instead of ~15 per vector.
#[inline(always)]
fn lane_sums(x: [F; LANES]) -> [f32; LANES] {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx"))]
    {
        use core::arch::x86_64::{
            __m256, _mm256_add_ps, _mm256_hadd_ps, _mm256_loadu_ps, _mm256_permute2f128_ps,
            _mm256_storeu_ps,
        };
        let m = |v: F| -> __m256 {
            let a = v.to_array();
            // SAFETY: `a` holds eight f32; AVX is enabled at compile time.
            unsafe { _mm256_loadu_ps(a.as_ptr()) }
        };
        // SAFETY: AVX is enabled at compile time (the cfg above).
        unsafe {
            // Lanes (low half | high half): pair sums of two vectors each.
            let h01 = _mm256_hadd_ps(m(x[0]), m(x[1]));
            let h23 = _mm256_hadd_ps(m(x[2]), m(x[3]));
            let h45 = _mm256_hadd_ps(m(x[4]), m(x[5]));
            let h67 = _mm256_hadd_ps(m(x[6]), m(x[7]));
            // Quad sums: vectors 0-3 in q0, 4-7 in q1 (low quads | high quads).
            let q0 = _mm256_hadd_ps(h01, h23);
            let q1 = _mm256_hadd_ps(h45, h67);
            let lo = _mm256_permute2f128_ps(q0, q1, 0x20);
            let hi = _mm256_permute2f128_ps(q0, q1, 0x31);
            let mut out = [0.0f32; LANES];
            _mm256_storeu_ps(out.as_mut_ptr(), _mm256_add_ps(lo, hi));
            out
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx")))]
    {
        x.map(lane_sum)
    }
}

/// Kernel variant flag: apply the vision cone.
pub(crate) const FOV: u8 = 1;
/// Kernel variant flag: consult the species relations.
pub(crate) const MULTI: u8 = 2;
/// Kernel variant flag: correct offsets to the nearest periodic image (periodic
/// axes with fewer than three cells).
pub(crate) const MIN_IMAGE: u8 = 4;
/// Kernel variant flag: alignment and cohesion radii both equal the perception
/// radius (the common case), so their masks and counts are the neighbour mask.
pub(crate) const SAME_RADII: u8 = 8;
/// Kernel variant flag: scan 16 candidates at a time ([`crate::kernel512`]); set
/// only where the CPU has AVX-512 and the cell's candidates are one block (never
/// with [`MIN_IMAGE`]).
pub(crate) const WIDE: u8 = 16;

/// What a kernel's loop leaves behind: the 8-lane accumulators, each lane `l`
/// holding the candidates `l, l + 8, l + 16, …` of every run summed in that order.
/// Both kernels fill them so, which is why their sums agree to the bit.
pub(crate) struct Accumulated {
    pub sep: [F; 3],
    pub ali: [F; 3],
    pub coh: [F; 3],
    pub n_ali: F,
    pub n_coh: F,
    pub n_nb: F,
    /// Some candidate lies within `eps` of the focal boid (see [`finish`]).
    pub coincident: bool,
}

/// Sums the rules over `runs`; `FLAGS` selects the variant (see the flag constants).
/// `coincident(j)` is the push direction away from a neighbour at the same position.
#[inline(always)]
pub(crate) fn accumulate<V: Vector, const FLAGS: u8>(
    me: &Focal<'_, V>,
    k: &RuleConsts,
    runs: &[Run<V>],
    data: &SortedSoa,
    period: V,
    coincident: impl Fn(usize) -> V,
) -> Sums<V> {
    let fov = FLAGS & FOV != 0;
    let multi = FLAGS & MULTI != 0;
    let min_image = FLAGS & MIN_IMAGE != 0;
    let same = FLAGS & SAME_RADII != 0;
    let d_n = V::DIM;
    let zero = F::splat(0.0);
    let one = F::splat(1.0);
    let (max2, sep2, ali2, coh2, eps2) = (
        F::splat(k.max2),
        F::splat(k.sep2),
        F::splat(k.ali2),
        F::splat(k.coh2),
        F::splat(k.eps2),
    );
    let use_cone = fov && me.heading != V::ZERO;
    let cos_half = F::splat(k.cos_half_fov);
    let rel_row = me.relations;
    // Every load below reads `j..j + LANES` with `j < run.end`: one check covers them.
    let limit = runs.iter().map(|r| r.end as usize).max().unwrap_or(0) + LANES;
    for a in 0..d_n {
        assert!(data.pos[a].len() >= limit && data.vel[a].len() >= limit);
    }
    if multi {
        assert!(data.species.len() >= limit && data.species_f.len() >= limit);
    }
    let my_species = F::splat(me.species);
    let mut heading = [zero; 3];
    let mut per = [one; 3];
    for a in 0..d_n {
        heading[a] = F::splat(me.heading.get(a));
        per[a] = F::splat(period.get(a));
    }
    let (mut sep, mut ali, mut coh) = ([zero; 3], [zero; 3], [zero; 3]);
    let (mut n_ali, mut n_coh, mut n_nb) = (zero, zero, zero);
    // Smallest squared distance to a neighbour, per lane: coincident neighbours are
    // rare, so they are found from this after the loop instead of per chunk.
    let mut nearest2 = F::splat(f32::INFINITY);

    for run in runs {
        let mut origin = [zero; 3];
        for (a, o) in origin.iter_mut().enumerate().take(d_n) {
            *o = F::splat(me.pos.get(a) - run.shift.get(a));
        }
        let (start, end) = (run.start as usize, run.end as usize);
        // One chunk of lanes `j..j + LANES`, `valid` marking the lanes of the run.
        macro_rules! chunk {
            ($j:expr, $valid:expr, $whole:expr) => {{
                let j: usize = $j;
                let mut valid: F = $valid;
                // Whole chunks without the focal boid have every lane valid, and
                // the minimum needs no blend. (3D only: in 2D the extra branch cost
                // more than the blend, 1,001 → 1,015 instructions per boid-step.)
                let mut all_valid: bool = $whole && d_n == 3;
                let self_lane = me.sorted_index.wrapping_sub(j);
                if self_lane < LANES {
                    valid &= ALL_BUT[self_lane];
                    all_valid = false;
                }
                let mut d = [zero; 3];
                let mut d2 = zero;
                for a in 0..d_n {
                    // SAFETY: j < end, so j + LANES <= limit (asserted above).
                    let mut x = unsafe { load(&data.pos[a], j) } - origin[a];
                    if min_image {
                        x -= per[a] * (x / per[a]).round();
                    }
                    d[a] = x;
                    d2 += x * x;
                }
                let mut take = d2.simd_lt(max2) & valid;
                if use_cone {
                    let mut dot = zero;
                    for a in 0..d_n {
                        dot += d[a] * heading[a];
                    }
                    // A coincident neighbour has no direction to see it by: always seen.
                    take &= dot.simd_ge(cos_half * d2.sqrt()) | d2.simd_le(eps2);
                }
                let mut flock = take;
                if multi {
                    match me.pattern {
                        RelationPattern::SelfFlockOthersSeparate => {
                            // SAFETY: as above (species_f holds n + PAD entries).
                            let same = unsafe { load(&data.species_f, j) }.simd_eq(my_species);
                            flock = take & same;
                        }
                        RelationPattern::SelfFlockOnly => {
                            // SAFETY: as above.
                            let same = unsafe { load(&data.species_f, j) }.simd_eq(my_species);
                            take &= same;
                            flock = take;
                        }
                        RelationPattern::General => {
                            let (mut t, mut f) = ([0.0f32; LANES], [0.0f32; LANES]);
                            for l in 0..LANES {
                                let r = rel_row[data.species[j + l] as usize % rel_row.len()];
                                t[l] = if r.in_rules() { ON } else { 0.0 };
                                f[l] = if matches!(r, Relation::Flock | Relation::Follow) {
                                    ON
                                } else {
                                    0.0
                                };
                            }
                            take &= F::new(t);
                            flock = take & F::new(f);
                        }
                    }
                }
                let push = take & d2.simd_lt(sep2);
                // Over every candidate lane, not only the taken ones: a trigger for
                // the exact re-scan below, which applies the relation masks itself.
                // `valid` lanes hold real boids, so d2 is never NaN there and the
                // plain (fast) min is exact.
                nearest2 = if all_valid {
                    nearest2.fast_min(d2)
                } else {
                    nearest2.fast_min(valid.select(d2, nearest2))
                };
                // A coincident neighbour (d2 <= eps2) adds -d/eps2 here (the divisor is
                // at least eps2); after the loop that term is taken back out and its
                // keyed push added instead, so the hot loop carries no extra mask.
                // (A NaN d2 in a padded lane of a minimum-image run gives eps2 here
                // and is masked off below.)
                // In 3D few chunks hold a boid inside the separation radius (about
                // one in twelve), so the branch is well predicted and saves the
                // division; in 2D about a third do, and the branch would not be.
                // Skipping subtracts nothing where the masked form subtracts +0:
                // the same bits (an accumulator that starts at +0 never becomes -0).
                let separate = d_n != 3 || push.any();
                let inv = if separate {
                    one / d2.fast_max(eps2)
                } else {
                    zero
                };
                let (ma, mc) = if same {
                    (flock, flock)
                } else {
                    (flock & d2.simd_lt(ali2), flock & d2.simd_lt(coh2))
                };
                n_ali += ma & one;
                if !same {
                    n_coh += mc & one;
                }
                if multi || !same {
                    n_nb += take & one;
                }
                for a in 0..d_n {
                    // Mask after multiplying: padded lanes hold ∞, and ∞·0 would be NaN.
                    if separate {
                        sep[a] -= (d[a] * inv) & push;
                    }
                    // SAFETY: as above.
                    ali[a] += unsafe { load(&data.vel[a], j) } & ma;
                    coh[a] += d[a] & mc;
                }
            }};
        }
        // Whole chunks need no tail mask; the last, partial one does.
        let mut j = start;
        while j + LANES <= end {
            chunk!(j, ALL, true);
            j += LANES;
        }
        if j < end {
            chunk!(j, TAIL[end - j], false);
        }
    }

    let acc = Accumulated {
        sep,
        ali,
        coh,
        n_ali,
        n_coh,
        n_nb,
        coincident: nearest2.simd_le(eps2).any(),
    };
    finish::<V, FLAGS>(acc, me, k, runs, data, period, coincident)
}

/// Reduces a kernel's accumulators to the sums (every lane in the fixed order of
/// [`lane_sums`]) and, when some neighbour coincides with the focal boid, swaps
/// its offset push for the keyed one.
#[inline(always)]
pub(crate) fn finish<V: Vector, const FLAGS: u8>(
    acc: Accumulated,
    me: &Focal<'_, V>,
    k: &RuleConsts,
    runs: &[Run<V>],
    data: &SortedSoa,
    period: V,
    coincident: impl Fn(usize) -> V,
) -> Sums<V> {
    let multi = FLAGS & MULTI != 0;
    let min_image = FLAGS & MIN_IMAGE != 0;
    let same = FLAGS & SAME_RADII != 0;
    let d_n = V::DIM;
    let rel_row = me.relations;
    let Accumulated {
        sep,
        ali,
        coh,
        n_ali,
        n_coh,
        n_nb,
        coincident: near,
    } = acc;
    // Every accumulator reduced at once: sums by axis, then the counts.
    let zero = F::splat(0.0);
    let mut acc = [zero; 2 * LANES];
    for a in 0..d_n {
        acc[3 * a] = sep[a];
        acc[3 * a + 1] = ali[a];
        acc[3 * a + 2] = coh[a];
    }
    let c = 3 * d_n;
    acc[c] = n_ali;
    acc[c + 1] = n_coh;
    acc[c + 2] = n_nb;
    let used = c + if multi || !same { 3 } else { 1 };
    let mut total = [0.0f32; 2 * LANES];
    total[..LANES].copy_from_slice(&lane_sums(acc[..LANES].try_into().expect("8 lanes")));
    if used > LANES {
        total[LANES..].copy_from_slice(&lane_sums(acc[LANES..].try_into().expect("8 lanes")));
    }
    let mut s = Sums::<V>::default();
    for a in 0..d_n {
        s.sep.set(a, total[3 * a]);
        s.ali.set(a, total[3 * a + 1]);
        s.coh.set(a, total[3 * a + 2]);
    }
    // A count: a whole number of lanes from 0 to at most the boids in the world
    // (below 2³²), so the truncation is in range and `as`'s clamps are not
    // needed (they cost ~5 instructions per count per boid).
    // SAFETY: finite and in `0..2³²` as just said.
    let count = |x: f32| unsafe { x.to_int_unchecked::<u32>() };
    s.ali_n = count(total[c]);
    s.coh_n = if same { s.ali_n } else { count(total[c + 1]) };
    s.neighbours = if multi || !same {
        count(total[c + 2])
    } else {
        s.ali_n
    };
    if near {
        // Rare: neighbours at (almost) the same position push along a keyed
        // direction, not along their offset (rounding noise at that distance).
        let inv_eps2 = 1.0 / k.eps2;
        for run in runs {
            for j in run.start as usize..run.end as usize {
                if j == me.sorted_index {
                    continue;
                }
                // Same arithmetic as the lanes, so both agree on who is coincident.
                let mut dd = data.position::<V>(j) - (me.pos - run.shift);
                if min_image {
                    dd = crate::rules::min_image(dd, period);
                }
                let ignored = multi && !rel_row[data.species[j] as usize].in_rules();
                if dd.length_squared() <= k.eps2 && !ignored {
                    // The loop subtracted dd / eps2 (a coincident lane is always
                    // taken and inside the separation radius): undo it.
                    s.sep += dd * inv_eps2 + coincident(j) * k.coincident_push;
                }
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_sums_equal_lane_sum_bit_for_bit() {
        let mut x = [F::splat(0.0); LANES];
        for (k, v) in x.iter_mut().enumerate() {
            *v = F::new(std::array::from_fn(|l| {
                // Mixed signs and magnitudes from 1e-3 to 1e3, so another
                // association rounds differently.
                let h = ((k * 8 + l) as u32)
                    .wrapping_mul(0x9e37_79b9)
                    .rotate_left(7);
                let mag = 10f32.powi((h % 7) as i32 - 3);
                let sign = if h & 0x100 != 0 { -1.0 } else { 1.0 };
                sign * mag * (1.0 + (h >> 12) as f32 / (1 << 20) as f32)
            }));
        }
        let want = x.map(lane_sum);
        let got = lane_sums(x);
        assert_eq!(got.map(f32::to_bits), want.map(f32::to_bits));
        // The test can fail: another order gives other bits for these inputs.
        let other: Vec<f32> = x
            .iter()
            .map(|v| v.to_array().iter().fold(0.0, |a, b| a + b))
            .collect();
        assert_ne!(other, want.to_vec());
    }
}

//! The 16-lane neighbour kernel (AVX-512), chosen at run time, and the choice.
//!
//! It scans sixteen candidates per chunk where [`crate::kernel`] scans eight: the
//! distances, masks, divisions and products run once per sixteen. Its sums are
//! the 8-lane kernel's to the bit. Each 16-lane term is added to the 8-lane
//! accumulators in two halves, low then high: candidates `j..j + 8`, then
//! `j + 8..j + 16`, as the 8-lane kernel adds its two chunks. Lanes outside a mask
//! keep their accumulator, where the 8-lane kernel adds +0, and an accumulator
//! that starts at +0 never becomes -0, so the two agree. No fused multiply-add
//! (Rust never contracts one implicitly). The reduction is the shared
//! [`kernel::finish`]. So a machine with AVX-512 and one without step to the same
//! digests; the golden-digest test runs both.

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

/// Candidates the neighbour kernel scans at a time in steps started now: 16 where
/// the CPU has AVX-512 (unless limited), else 8. Both widths give the same bits.
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

/// Steps may use [`accumulate`].
pub(crate) fn wide() -> bool {
    cpu_has_16_lanes() && !LIMITED.load(Ordering::Relaxed) && !env_limits()
}

#[cfg(target_arch = "x86_64")]
pub(crate) use x86::accumulate;

#[cfg(target_arch = "x86_64")]
mod x86 {
    use crate::grid::Run;
    use crate::kernel::{
        self, Accumulated, F, FOV, Focal, MIN_IMAGE, MULTI, PAD, RelationPattern, SAME_RADII,
        SortedSoa,
    };
    use crate::params::Relation;
    use crate::rules::{RuleConsts, Sums};
    use crate::vector::Vector;
    use core::arch::x86_64::*;

    /// Candidates per chunk.
    const WIDTH: usize = 16;

    /// Loads entries `j..j + 16` of `s`.
    ///
    /// SAFETY: the caller guarantees `j + 16 <= s.len()`.
    #[inline(always)]
    unsafe fn load(s: &[f32], j: usize) -> __m512 {
        // SAFETY: in bounds by the caller's guarantee; unaligned load. (No
        // per-load checks: the kernel checks the lengths once, and the test
        // profile's checks here cost more than the arithmetic.)
        unsafe { _mm512_loadu_ps(s.as_ptr().wrapping_add(j)) }
    }

    /// An 8-lane accumulator as the 8-lane kernel's vector type.
    #[inline(always)]
    fn to_f(x: __m256) -> F {
        let mut a = [0.0f32; 8];
        // SAFETY: `a` holds eight f32.
        unsafe { _mm256_storeu_ps(a.as_mut_ptr(), x) };
        F::new(a)
    }

    /// [`kernel::accumulate`] sixteen candidates at a time, with the same bits.
    /// The cell's candidates must not need the minimum image (`FLAGS` without
    /// [`MIN_IMAGE`]); `data` is padded by [`PAD`].
    ///
    /// Always inlined, and without a `target_feature` of its own: a function
    /// with one cannot be forced inline, and called per boid (spilling its
    /// state) it ran 35 % slower than the 8-lane kernel in the test profile.
    /// Inlined into `steer::steer_chunk_wide`, which enables AVX-512, its
    /// intrinsics compile to single instructions.
    ///
    /// SAFETY: the CPU has AVX-512 F, DQ and VL ([`super::wide`]).
    #[inline(always)]
    #[allow(
        unsafe_op_in_unsafe_fn,
        reason = "every line is an AVX-512 intrinsic or an in-bounds load: one \
                  contract, stated above"
    )]
    pub(crate) unsafe fn accumulate<V: Vector, const FLAGS: u8>(
        me: &Focal<'_, V>,
        k: &RuleConsts,
        runs: &[Run<V>],
        data: &SortedSoa,
        period: V,
        coincident: impl Fn(usize) -> V,
    ) -> Sums<V> {
        let fov = FLAGS & FOV != 0;
        let multi = FLAGS & MULTI != 0;
        let same = FLAGS & SAME_RADII != 0;
        assert!(
            FLAGS & MIN_IMAGE == 0,
            "the wide kernel has no minimum image"
        );
        let d_n = V::DIM;
        let zero = _mm512_setzero_ps();
        let one = _mm512_set1_ps(1.0);
        let (max2, sep2, ali2, coh2, eps2) = (
            _mm512_set1_ps(k.max2),
            _mm512_set1_ps(k.sep2),
            _mm512_set1_ps(k.ali2),
            _mm512_set1_ps(k.coh2),
            _mm512_set1_ps(k.eps2),
        );
        let use_cone = fov && me.heading != V::ZERO;
        let cos_half = _mm512_set1_ps(k.cos_half_fov);
        let rel_row = me.relations;
        // Every load reads `j..j + 16` with `j < run.end`: one check covers them.
        let limit = runs.iter().map(|r| r.end as usize).max().unwrap_or(0) + PAD;
        for a in 0..d_n {
            assert!(data.pos[a].len() >= limit && data.vel[a].len() >= limit);
        }
        if multi {
            assert!(data.species.len() >= limit && data.species_f.len() >= limit);
        }
        let my_species = _mm512_set1_ps(me.species);
        let mut heading = [zero; 3];
        for (a, h) in heading.iter_mut().enumerate().take(d_n) {
            *h = _mm512_set1_ps(me.heading.get(a));
        }
        let z8 = _mm256_setzero_ps();
        let (mut sep, mut ali, mut coh) = ([z8; 3], [z8; 3], [z8; 3]);
        let (mut n_ali, mut n_coh, mut n_nb) = (z8, z8, z8);
        let mut nearest2 = _mm512_set1_ps(f32::INFINITY);

        // `acc` plus the lanes of `x` in `mask`, low half then high half.
        macro_rules! add2 {
            ($acc:expr, $mask:expr, $x:expr) => {{
                let (x, m): (__m512, u16) = ($x, $mask);
                let a = _mm256_mask_add_ps($acc, m as u8, $acc, _mm512_castps512_ps256(x));
                _mm256_mask_add_ps(a, (m >> 8) as u8, a, _mm512_extractf32x8_ps::<1>(x))
            }};
        }
        macro_rules! sub2 {
            ($acc:expr, $mask:expr, $x:expr) => {{
                let (x, m): (__m512, u16) = ($x, $mask);
                let a = _mm256_mask_sub_ps($acc, m as u8, $acc, _mm512_castps512_ps256(x));
                _mm256_mask_sub_ps(a, (m >> 8) as u8, a, _mm512_extractf32x8_ps::<1>(x))
            }};
        }

        for run in runs {
            let mut origin = [zero; 3];
            for (a, o) in origin.iter_mut().enumerate().take(d_n) {
                *o = _mm512_set1_ps(me.pos.get(a) - run.shift.get(a));
            }
            let (start, end) = (run.start as usize, run.end as usize);
            let mut j = start;
            while j < end {
                let rest = end - j;
                let mut valid: u16 = if rest >= WIDTH {
                    u16::MAX
                } else {
                    ((1u32 << rest) - 1) as u16
                };
                let self_lane = me.sorted_index.wrapping_sub(j);
                if self_lane < WIDTH {
                    valid &= !(1u16 << self_lane);
                }
                let mut d = [zero; 3];
                for (a, da) in d.iter_mut().enumerate().take(d_n) {
                    // In bounds: j < end, so j + 16 <= limit (asserted above).
                    *da = _mm512_sub_ps(load(&data.pos[a], j), origin[a]);
                }
                let mut d2 = _mm512_mul_ps(d[0], d[0]);
                for da in d.iter().take(d_n).skip(1) {
                    d2 = _mm512_add_ps(d2, _mm512_mul_ps(*da, *da));
                }
                let mut take = _mm512_mask_cmp_ps_mask::<_CMP_LT_OQ>(valid, d2, max2);
                if use_cone {
                    let mut dot = zero;
                    for a in 0..d_n {
                        dot = _mm512_add_ps(dot, _mm512_mul_ps(d[a], heading[a]));
                    }
                    let edge = _mm512_mul_ps(cos_half, _mm512_sqrt_ps(d2));
                    // A coincident neighbour has no direction to see it by: always seen.
                    take &= _mm512_cmp_ps_mask::<_CMP_GE_OQ>(dot, edge)
                        | _mm512_cmp_ps_mask::<_CMP_LE_OQ>(d2, eps2);
                }
                let mut flock = take;
                if multi {
                    match me.pattern {
                        RelationPattern::SelfFlockOthersSeparate => {
                            // In bounds as above (species_f holds n + PAD entries).
                            let s = load(&data.species_f, j);
                            flock = take & _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(s, my_species);
                        }
                        RelationPattern::SelfFlockOnly => {
                            let s = load(&data.species_f, j);
                            take &= _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(s, my_species);
                            flock = take;
                        }
                        RelationPattern::General => {
                            let (mut t, mut f) = (0u16, 0u16);
                            for l in 0..WIDTH {
                                let r = rel_row[data.species[j + l] as usize % rel_row.len()];
                                t |= (r.in_rules() as u16) << l;
                                f |= (matches!(r, Relation::Flock | Relation::Follow) as u16) << l;
                            }
                            take &= t;
                            flock = take & f;
                        }
                    }
                }
                let push = _mm512_mask_cmp_ps_mask::<_CMP_LT_OQ>(take, d2, sep2);
                nearest2 = _mm512_mask_min_ps(nearest2, valid, nearest2, d2);
                // Always divided, even in 3D where about one chunk in six has a
                // boid to separate from: skipping the others mispredicted often
                // enough to cost 17 % of the 3D step (BENCHMARKS.md).
                let inv = _mm512_div_ps(one, _mm512_max_ps(d2, eps2));
                let (ma, mc) = if same {
                    (flock, flock)
                } else {
                    (
                        _mm512_mask_cmp_ps_mask::<_CMP_LT_OQ>(flock, d2, ali2),
                        _mm512_mask_cmp_ps_mask::<_CMP_LT_OQ>(flock, d2, coh2),
                    )
                };
                n_ali = add2!(n_ali, ma, one);
                if !same {
                    n_coh = add2!(n_coh, mc, one);
                }
                if multi || !same {
                    n_nb = add2!(n_nb, take, one);
                }
                for a in 0..d_n {
                    sep[a] = sub2!(sep[a], push, _mm512_mul_ps(d[a], inv));
                    ali[a] = add2!(ali[a], ma, load(&data.vel[a], j));
                    coh[a] = add2!(coh[a], mc, d[a]);
                }
                j += WIDTH;
            }
        }
        let acc = Accumulated {
            // Element by element: `map` is a call per array in the test profile.
            sep: [to_f(sep[0]), to_f(sep[1]), to_f(sep[2])],
            ali: [to_f(ali[0]), to_f(ali[1]), to_f(ali[2])],
            coh: [to_f(coh[0]), to_f(coh[1]), to_f(coh[2])],
            n_ali: to_f(n_ali),
            n_coh: to_f(n_coh),
            n_nb: to_f(n_nb),
            coincident: _mm512_cmp_ps_mask::<_CMP_LE_OQ>(nearest2, eps2) != 0,
        };
        kernel::finish::<V, FLAGS>(acc, me, k, runs, data, period, coincident)
    }
}

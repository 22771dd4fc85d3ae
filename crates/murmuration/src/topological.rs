//! Topological neighbours: each boid reacts to its `k` nearest neighbours within
//! the perception radius instead of to all of them (Ballerini et al., PNAS 105,
//! 1232 (2008): starlings interact with about seven neighbours whatever the
//! flock's density).
//!
//! Exact and deterministic like the metric rules: the same candidates as the
//! kernel (the grid's runs around the boid's cell, the same offsets, the same
//! vision cone and relation tests), the `k` smallest distances chosen with ties
//! broken by the smaller boid id, and the sums taken nearest first. Candidates are
//! tested eight at a time with the kernel's lane arithmetic; those inside the
//! radius and the cone go through a short insertion (priced in BENCHMARKS.md).

use crate::grid::Run;
use crate::kernel::{self, ALL, ALL_BUT, F, Focal, LANES, SortedSoa, TAIL, load};
use crate::params::Relation;
use crate::rules::{RuleConsts, Sums};
use crate::vector::Vector;

/// The largest `topological_neighbours` a species may ask for.
pub const MAX_TOPOLOGICAL: u32 = 64;

/// One chosen neighbour: squared distance, offset from the focal boid, its
/// index in `data` (its id breaks ties), and whether the boid flocks with it
/// (all three rules) or only keeps apart.
#[derive(Clone, Copy)]
struct Chosen<V> {
    d2: f32,
    d: V,
    j: u32,
    flock: bool,
}

/// The rule sums of `me` over its `k` nearest neighbours within the perception
/// radius among `runs` (the candidates the kernel would scan, with `FLAGS`
/// its variant). `id_of(j)` is the boid id at index `j` of `data`, asked only
/// to break an exact tie; `coincident(j)` the push away from a neighbour at the
/// same position.
#[inline(never)]
#[allow(
    clippy::too_many_arguments,
    reason = "the kernel's own arguments plus k and the id lookup"
)]
pub(crate) fn accumulate<V: Vector, const FLAGS: u8>(
    me: &Focal<'_, V>,
    c: &RuleConsts,
    k: u32,
    runs: &[Run<V>],
    data: &SortedSoa,
    period: V,
    id_of: impl Fn(usize) -> u32,
    coincident: impl Fn(usize) -> V,
) -> Sums<V> {
    let multi = FLAGS & kernel::MULTI != 0;
    let min_image = FLAGS & kernel::MIN_IMAGE != 0;
    let use_cone = FLAGS & kernel::FOV != 0 && me.heading != V::ZERO;
    let k = (k.min(MAX_TOPOLOGICAL)) as usize;
    if k == 0 {
        return Sums::default();
    }
    let empty = Chosen {
        d2: f32::INFINITY,
        d: V::ZERO,
        j: 0,
        flock: false,
    };
    let mut best = [empty; MAX_TOPOLOGICAL as usize];
    let mut m = 0usize;
    // Every load reads `j..j + LANES` with `j < run.end`: one check covers them.
    let limit = runs.iter().map(|r| r.end as usize).max().unwrap_or(0) + LANES;
    for a in 0..V::DIM {
        assert!(data.pos[a].len() >= limit);
    }
    let zero = F::splat(0.0);
    let (max2, cos_half) = (F::splat(c.max2), F::splat(c.cos_half_fov));
    let mut heading = [zero; 3];
    let mut per = [zero; 3];
    for a in 0..V::DIM {
        heading[a] = F::splat(me.heading.get(a));
        per[a] = F::splat(period.get(a));
    }
    for run in runs {
        // The kernel's arithmetic: offsets from the focal boid's image origin,
        // eight candidates at a time; the lanes that pass go to the selection.
        let mut origin = [zero; 3];
        for (a, o) in origin.iter_mut().enumerate().take(V::DIM) {
            *o = F::splat(me.pos.get(a) - run.shift.get(a));
        }
        let (start, end) = (run.start as usize, run.end as usize);
        let mut j = start;
        while j < end {
            let mut valid = if j + LANES <= end { ALL } else { TAIL[end - j] };
            let self_lane = me.sorted_index.wrapping_sub(j);
            if self_lane < LANES {
                valid &= ALL_BUT[self_lane];
            }
            let mut d = [zero; 3];
            let mut d2 = zero;
            for a in 0..V::DIM {
                // SAFETY: j < end, so j + LANES <= limit (asserted above).
                let mut x = unsafe { load(&data.pos[a], j) } - origin[a];
                if min_image {
                    x -= per[a] * (x / per[a]).round();
                }
                d[a] = x;
                d2 += x * x;
            }
            let mut take = d2.simd_lt(max2) & valid;
            if m == k {
                // Full: only as near as the farthest chosen (a tie may still win).
                take &= d2.simd_le(F::splat(best[k - 1].d2));
            }
            if use_cone {
                let mut dot = zero;
                for a in 0..V::DIM {
                    dot += d[a] * heading[a];
                }
                take &= dot.simd_ge(cos_half * d2.sqrt());
            }
            let mut bits = take.to_bitmask();
            if bits != 0 {
                let d2s = d2.to_array();
                let ds = d.map(|x| x.to_array());
                while bits != 0 {
                    let l = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let jj = j + l;
                    let flock = if multi {
                        let r = me.relations[data.species[jj] as usize % me.relations.len()];
                        if !r.in_rules() {
                            continue;
                        }
                        matches!(r, Relation::Flock | Relation::Follow)
                    } else {
                        true
                    };
                    let d2 = d2s[l];
                    let mut dv = V::ZERO;
                    for (a, x) in ds.iter().enumerate().take(V::DIM) {
                        dv.set(a, x[l]);
                    }
                    // Insertion into the k nearest, ordered by (distance², id);
                    // ids are looked up only for an exact tie.
                    let before = |b: &Chosen<V>| {
                        b.d2 < d2 || (b.d2 == d2 && id_of(b.j as usize) < id_of(jj))
                    };
                    if m == k && before(&best[k - 1]) {
                        continue;
                    }
                    let mut at = m.min(k - 1);
                    while at > 0 && !before(&best[at - 1]) {
                        best[at] = best[at - 1];
                        at -= 1;
                    }
                    best[at] = Chosen {
                        d2,
                        d: dv,
                        j: jj as u32,
                        flock,
                    };
                    m = (m + 1).min(k);
                }
            }
            j += LANES;
        }
    }
    // The sums, nearest first.
    let mut s = Sums::<V>::default();
    for b in &best[..m] {
        if b.d2 < c.sep2 {
            s.sep -= b.d * (1.0 / b.d2.max(c.eps2));
            if b.d2 <= c.eps2 {
                s.sep += coincident(b.j as usize) * c.coincident_push;
            }
        }
        if b.flock && b.d2 < c.ali2 {
            s.ali += data.velocity::<V>(b.j as usize);
            s.ali_n += 1;
        }
        if b.flock && b.d2 < c.coh2 {
            s.coh += b.d;
            s.coh_n += 1;
        }
    }
    s.neighbours = m as u32;
    s
}

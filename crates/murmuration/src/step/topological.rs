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
//!
//! The step runs this per-boid form only in worlds of nearest images (and of
//! more boids than [`crate::step::nearest::MAX_SORTED`]); elsewhere the
//! groups' lanes make the same selection and sums ([`crate::step::nearest`]).

use crate::grid::Run;
use crate::params::{MAX_TOPOLOGICAL, Relation};
use crate::step::kernel::{self, ALL, ALL_BUT, F, Focal, LANES, SortedSoa, TAIL, load};
use crate::step::rules::{RuleConsts, Sums};
use crate::vector::Vector;

/// One candidate kept: squared distance, its index in `data` (its id breaks
/// ties) and the run it came from (for its offset).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Chosen {
    d2: f32,
    j: u32,
    run: u32,
}

/// The rule sums of `me` over its `k` nearest neighbours within the perception
/// radius among `runs` (the candidates the kernel would scan, with `FLAGS`
/// its variant). `best` is scratch reused from boid to boid (its first k
/// entries are written before they are read); `id_of(j)` is the
/// boid id at index `j` of `data`, asked only to break an exact tie;
/// `coincident(j)` the push away from a neighbour at the same position.
#[inline(never)]
#[allow(
    clippy::too_many_arguments,
    reason = "the kernel's own arguments plus k, the scratch and the id lookup"
)]
pub(crate) fn accumulate<V: Vector, const FLAGS: u8>(
    me: &Focal<'_, V>,
    c: &RuleConsts,
    k: u32,
    runs: &[Run<V>],
    data: &SortedSoa,
    period: V,
    best: &mut [Chosen; MAX_TOPOLOGICAL as usize],
    id_of: impl Fn(usize) -> u32,
    coincident: impl Fn(usize) -> V,
) -> Sums<V> {
    let multi = FLAGS & kernel::MULTI != 0;
    let min_image = FLAGS & kernel::MIN_IMAGE != 0;
    let use_cone = FLAGS & kernel::FOV != 0 && me.heading != V::ZERO;
    let k = (k.min(MAX_TOPOLOGICAL)) as usize;
    let mut m = 0usize;
    if k == 0 {
        return Sums::default();
    }
    // Every load reads `j..j + LANES` with `j < run.end`: one check covers them.
    let limit = runs.iter().map(|r| r.end as usize).max().unwrap_or(0) + LANES;
    for a in 0..V::DIM {
        assert!(data.pos[a].len() >= limit && data.vel[a].len() >= limit);
    }
    let zero = F::splat(0.0);
    let (max2, cos_half, eps2) = (F::splat(c.max2), F::splat(c.cos_half_fov), F::splat(c.eps2));
    let mut heading = [zero; 3];
    let mut per = [zero; 3];
    for a in 0..V::DIM {
        heading[a] = F::splat(me.heading.get(a));
        per[a] = F::splat(period.get(a));
    }
    // The kernel's arithmetic: offsets from the focal boid's image origin.
    let origin = |run: &Run<V>| {
        let mut o = [zero; 3];
        for (a, x) in o.iter_mut().enumerate().take(V::DIM) {
            *x = F::splat(me.pos.get(a) - run.shift.get(a));
        }
        o
    };
    let offsets = |j: usize, origin: &[F; 3]| {
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
        (d, d2)
    };
    let rule = |j: usize| me.relations[data.species[j] as usize % me.relations.len()];
    for (ri, run) in runs.iter().enumerate() {
        let o = origin(run);
        let (start, end) = (run.start as usize, run.end as usize);
        let mut j = start;
        // Eight candidates at a time; the lanes that pass go to the selection.
        while j < end {
            let mut valid = if j + LANES <= end { ALL } else { TAIL[end - j] };
            let self_lane = me.sorted_index.wrapping_sub(j);
            if self_lane < LANES {
                valid &= ALL_BUT[self_lane];
            }
            let (d, d2) = offsets(j, &o);
            let mut take = d2.simd_lt(max2) & valid;
            if m == k {
                // Full: only as near as the farthest kept (a tie may still win).
                take &= d2.simd_le(F::splat(best[k - 1].d2));
            }
            if use_cone {
                let mut dot = zero;
                for a in 0..V::DIM {
                    dot += d[a] * heading[a];
                }
                // A coincident neighbour has no direction to see it by: always seen.
                take &= dot.simd_ge(cos_half * d2.sqrt()) | d2.simd_le(eps2);
            }
            let mut bits = take.to_bitmask();
            if bits != 0 {
                let d2s = d2.to_array();
                while bits != 0 {
                    let l = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let jj = j + l;
                    if multi && !rule(jj).in_rules() {
                        continue;
                    }
                    let d2 = d2s[l];
                    // Insertion into the k nearest, ordered by (distance², id);
                    // ids are looked up only for an exact tie.
                    let before =
                        |b: &Chosen| b.d2 < d2 || (b.d2 == d2 && id_of(b.j as usize) < id_of(jj));
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
                        j: jj as u32,
                        run: ri as u32,
                    };
                    m = (m + 1).min(k);
                }
            }
            j += LANES;
        }
    }
    // The sums, nearest first, with each offset as the selection computed it.
    let mut s = Sums::<V>::default();
    for b in &best[..m] {
        let (j, d2) = (b.j as usize, b.d2);
        let (lanes, _) = offsets(j, &origin(&runs[b.run as usize]));
        let mut d = V::ZERO;
        for (a, x) in lanes.iter().enumerate().take(V::DIM) {
            d.set(a, x.to_array()[0]);
        }
        let flock = !multi || matches!(rule(j), Relation::Flock | Relation::Follow);
        if d2 <= c.eps2 {
            // Coincident: a keyed push, not one along rounding noise.
            s.sep += coincident(j) * c.coincident_push;
        } else if d2 < c.sep2 {
            s.sep -= d * (1.0 / d2);
        }
        if flock && d2 < c.ali2 {
            s.ali += data.velocity::<V>(j);
            s.ali_n += 1;
        }
        if flock && d2 < c.coh2 {
            s.coh += d;
            s.coh_n += 1;
        }
    }
    s.neighbours = m as u32;
    s
}

//! Topological lists by keys, with AVX-512: each candidate's squared
//! distance with its low bits replaced by its slot in the group's scan,
//! kept by an insertion of minima and maxima alone (two operations an
//! entry, where the exact network ([`super::select`]) needs five and a test
//! for ties).
//!
//! A key orders candidates by their distance's bucket (its bits above the
//! slot's), then by slot. Buckets keep the order of distances, so the `k`
//! first keys are the `k` nearest whenever the key after them lies in a
//! later bucket than the `k`-th: then every candidate left out is farther
//! than every one kept. Each list keeps that one key more to check. Where it
//! shares the `k`-th's bucket (about one lane in a few hundred; every lane
//! of a lattice), the group takes the exact network instead. The lists are
//! then decoded into the slots' index words, and a lane whose kept entries
//! share a bucket is measured again and put in (distance², id) order, so
//! the sums see exactly the network's lists. Each lane starts from a bound
//! ([`crate::step::reaches`]), checked at the end.
#![cfg_attr(
    not(target_arch = "x86_64"),
    allow(dead_code, reason = "the lists by keys run sixteen lanes wide only")
)]

use super::{BATCH, FLOCKS, Job, Kept, RUN_AT, offsets};
use crate::grid::Span;
use crate::step::kernel::{self, Group, SortedSoa};
use crate::step::lanes::KeyLanes;
use crate::vector::Vector;

/// The most slots one group's scan may take (the candidates of its runs
/// before any cut); a group with more takes the exact network.
pub(crate) const MAX_SLOTS: usize = 1 << 12;

/// The scratch one thread's scans write slots into: index words (run and
/// sorted index), then each slot's lanes that flock with it (written and
/// read only where relations apply; without them every taken candidate
/// flocks).
pub(crate) type Slots = [f32; 2 * MAX_SLOTS];

/// Each lane's `K` first keys and the one after them, in order
/// (`u32::MAX` past those found).
struct Keys<S, const K: usize> {
    key: [S; K],
    next: S,
}

impl<S: KeyLanes, const K: usize> Keys<S, K> {
    /// Inserts the candidate of keys `c` (`u32::MAX` in lanes that do not
    /// take it): each entry the least of itself and the greater of the entry
    /// before it and `c`.
    #[inline(always)]
    fn insert(&mut self, c: S) {
        self.next = self.next.min_bits(self.key[K - 1].max_bits(c));
        for i in (1..K).rev() {
            self.key[i] = self.key[i].min_bits(self.key[i - 1].max_bits(c));
        }
        self.key[0] = self.key[0].min_bits(c);
    }
}

/// [`super::select`] by keys, from each lane's bound ([`Job::bound`]; again
/// without where one was short); `None` where the exact network decides.
#[inline(always)]
pub(crate) fn select<V: Vector, S: KeyLanes, const K: usize>(
    job: &mut Job<'_, V, S>,
) -> Option<(Kept<S, K>, u64)> {
    job.check();
    let (g, span, own, cell_start) = (job.g, job.span, job.own, job.cell_start);
    let group = (g.first, g.first + g.count);
    // A key's slot must fit below MAX_SLOTS.
    let total: usize = super::Visits::new(span, own, cell_start, group)
        .map(|v| v.run.1 - v.run.0)
        .sum();
    if total >= MAX_SLOTS {
        return None;
    }
    let inf = S::splat(f32::INFINITY);
    // Anything but +0 to +∞ (NaN, negatives, -0: bits above +∞'s) is no
    // bound, so the check below never meets one it cannot order.
    let bound = S::from_slice(&job.bound);
    let mut hinted = S::select(bound.lt_bits(inf), bound, inf);
    // One scan in the loop, not two: the code stays the size it was.
    let mut wasted = 0;
    loop {
        match scan::<V, S, K>(job, total, hinted) {
            Found::Kept(kept, candidates) => return Some((kept, candidates + wasted)),
            Found::Tied => return None,
            // A bound was short: this group searches again without them.
            Found::Missed(candidates) => (hinted, wasted) = (inf, candidates),
        }
    }
}

/// The reach along x of squared distance `far` (as bits; +∞: `radius`): a
/// root a few ulps long, as far as `rules::reach_of` or farther (a longer
/// reach only measures more), without its loops.
#[inline(always)]
fn reach_of(far: u32, radius: f32) -> f32 {
    if far < f32::INFINITY.to_bits() {
        (f32::from_bits(far).sqrt() * (1.0 + 4.0 * f32::EPSILON)).min(radius)
    } else {
        radius
    }
}

/// What one scan by keys found ([`scan`]).
enum Found<S, const K: usize> {
    /// The lists, and the candidates measured.
    Kept(Kept<S, K>, u64),
    /// A lane's `K`-th key shares its bucket with the next.
    Tied,
    /// A lane's `K` nearest and the one after them were not all within its
    /// bound; the candidates measured.
    Missed(u64),
}

/// One scan by keys of `job`'s runs (`total` candidates before any cut), each
/// lane skipping those beyond its squared distance in `hinted`.
#[inline(always)]
fn scan<V: Vector, S: KeyLanes, const K: usize>(
    job: &mut Job<'_, V, S>,
    total: usize,
    hinted: S,
) -> Found<S, K> {
    let (g, topo, span, own, cell_start) = (job.g, job.topo, job.span, job.own, job.cell_start);
    let (data, ids, fov, multi) = (job.data, job.ids, job.fov, job.multi);
    let slots = &mut *job.slots;
    let group = (g.first, g.first + g.count);
    // Every slot is below `total`, so below 2^bits.
    let bits = usize::BITS - total.leading_zeros();
    let max = S::splat_bits(u32::MAX);
    let mut scan = Scan {
        g,
        topo,
        data,
        fov: fov && g.cones,
        multi,
        keys: Keys {
            key: [max; K],
            next: max,
        },
        hinted,
        bounded: {
            let far = hinted.max_bits_in(topo);
            (far < f32::INFINITY.to_bits()).then(|| reach_of(far, g.reach))
        },
        low: (1u32 << bits) - 1,
        count: 0,
        slots,
        candidates: 0,
    };
    for v in super::Visits::new(span, own, cell_start, group) {
        let (r, p) = (v.r, v.p);
        if v.mine {
            scan.run::<V, true>(group, span, r, p);
        }
        let (lo, hi) = scan.cut(v.run, span.pieces[p].2);
        if v.mine {
            scan.run::<V, false>((lo, group.0.max(lo)), span, r, p);
            scan.run::<V, false>((group.1.min(hi), hi), span, r, p);
        } else if lo < group.1 && group.0 < hi {
            // The group's own boids, seen as images (a shifted run).
            scan.run::<V, true>((lo, hi), span, r, p);
        } else {
            scan.run::<V, false>((lo, hi), span, r, p);
        }
    }
    // Each lane met itself once in its own cell.
    let candidates = scan.candidates - S::bits(topo).count_ones() as u64;
    if !scan.within_bounds() {
        return Found::Missed(candidates);
    }
    let Some(kept) = scan.decode(span, ids) else {
        return Found::Tied;
    };
    scan.reaches().write_to(&mut job.reach);
    Found::Kept(kept, candidates)
}

/// One group's scan by keys under way ([`select`]).
struct Scan<'a, S: KeyLanes, const K: usize> {
    g: &'a Group<'a, S>,
    topo: S::Mask,
    data: &'a SortedSoa,
    fov: bool,
    multi: bool,
    keys: Keys<S, K>,
    /// Each lane's bound: the squared distance beyond which it skips
    /// candidates (+∞: none).
    hinted: S,
    /// Where every lane has a bound, the farthest one's reach along x: it
    /// cuts every run, so no cut waits on the insertions before it.
    bounded: Option<f32>,
    /// The slot's bits of a key.
    low: u32,
    /// Slots taken.
    count: usize,
    slots: &'a mut Slots,
    candidates: u64,
}

impl<S: KeyLanes, const K: usize> Scan<'_, S, K> {
    /// `run` cut to the candidates some lane may still keep or that may share
    /// its `K`-th key's bucket: by the farthest bound where every lane has
    /// one, else within each lane's radius, bound and `K`-th key's bucket.
    #[inline(always)]
    fn cut(&self, run: (usize, usize), shift: f32) -> (usize, usize) {
        let g = self.g;
        if let Some(reach) = self.bounded {
            return super::cut(g, self.data, run, shift, reach);
        }
        let (max, all) = (S::splat_bits(u32::MAX), S::lanes(0, S::N));
        let kth = self.keys.key[K - 1];
        // The bucket's largest distance (no key of a later bucket is within
        // it), +∞ while the list is not full; non-negative, so ordered as
        // their bits.
        let kth = S::select(
            kth.lt_bits(max),
            kth.set_bits(all, self.low),
            S::splat(f32::INFINITY),
        );
        let far = kth.min(self.hinted).max_bits_in(self.topo);
        super::cut(g, self.data, run, shift, reach_of(far, g.reach))
    }

    /// Offers candidates `lo..hi` of the span's run `3 * r + p` to the lanes;
    /// `OWN`: the run may hold the group's own boids (each lane skips
    /// itself).
    #[inline(always)]
    fn run<V: Vector, const OWN: bool>(
        &mut self,
        (lo, hi): (usize, usize),
        span: &Span<V>,
        r: usize,
        p: usize,
    ) {
        let (g, d_n) = (self.g, V::DIM);
        if lo >= hi {
            return;
        }
        self.candidates += S::bits(self.topo).count_ones() as u64 * (hi - lo) as u64;
        let origin = super::origin(g, span, r, p);
        let tag = ((3 * r + p) as u32) << RUN_AT;
        let pos: [&[f32]; 3] = std::array::from_fn(|a| &self.data.pos[a][..]);
        let max = S::splat_bits(u32::MAX);
        let (all, inf) = (S::lanes(0, S::N), S::splat(f32::INFINITY));
        // As the exact network's scan: a batch measured, then the candidates
        // some lane may keep inserted: those as near as the bucket of the key
        // after its `K`-th when the batch began reaches (the keys only fall)
        // and its bound.
        // A candidate's slot, and so its key, is known only then.
        let none = S::lanes(0, 0);
        let mut b_d2 = [inf; BATCH];
        let mut b_take = [none; BATCH];
        let mut b_flock = [0u32; BATCH];
        let mut j = lo;
        while j < hi {
            let end = (j + BATCH).min(hi);
            let last = self.keys.next;
            let far = S::select(last.lt_bits(max), last.set_bits(all, self.low), inf);
            let far = far.min(self.hinted);
            let mut queued = 0u32;
            for (t, j) in (j..end).enumerate() {
                let valid = if OWN {
                    S::and(self.topo, S::all_but(j.wrapping_sub(g.first)))
                } else {
                    self.topo
                };
                // SAFETY: j < the boid count < the arrays' length (asserted
                // in `select`).
                let (d, d2) = unsafe { super::measure(&origin, &pos, j, d_n) };
                let (take, flock) =
                    kernel::takes::<S>(g, self.data, j, &d, d2, valid, self.fov, self.multi, d_n);
                let t = t % BATCH;
                b_d2[t] = d2;
                b_take[t] = take;
                if self.multi {
                    b_flock[t] = S::bits(flock);
                }
                queued |= ((S::bits(S::and(take, d2.le(far))) != 0) as u32) << t;
            }
            while queued != 0 {
                let t = queued.trailing_zeros() as usize % BATCH;
                queued &= queued - 1;
                let at = self.count % MAX_SLOTS;
                self.slots[at] = f32::from_bits((j + t) as u32 | tag);
                if self.multi {
                    self.slots[MAX_SLOTS + at] = f32::from_bits(b_flock[t]);
                }
                let key = b_d2[t].key_of(self.low, at as u32);
                self.keys.insert(S::select(b_take[t], key, max));
                self.count += 1;
            }
            j = end;
        }
    }

    /// Whether every bounded lane's key after its `K`-th lies in a bucket
    /// before its bound's: then all it skipped lie beyond its lists and that key.
    #[inline(always)]
    fn within_bounds(&self) -> bool {
        let bounded = S::and(self.topo, self.hinted.lt(S::splat(f32::INFINITY)));
        // The bound's bucket with slot 0: above every key of an earlier
        // bucket (a missing next, all ones, is above it).
        let before = self.keys.next.lt_bits(self.hinted.key_of(self.low, 0));
        S::bits(S::and(bounded, before)) == S::bits(bounded)
    }

    /// Each lane's reach: the farthest distance in the bucket of the key
    /// after its `K`-th (a bound on the distance of the neighbour after its
    /// `K` nearest), +∞ where it has none.
    #[inline(always)]
    fn reaches(&self) -> S {
        let (max, all) = (S::splat_bits(u32::MAX), S::lanes(0, S::N));
        let next = self.keys.next;
        let far = next.set_bits(all, self.low).sqrt();
        S::select(
            S::and(self.topo, next.lt_bits(max)),
            far,
            S::splat(f32::INFINITY),
        )
    }

    /// The lists as the exact network keeps them, or `None` where a lane's
    /// `K`-th key shares its bucket with the next.
    #[inline(always)]
    fn decode<V: Vector>(&self, span: &Span<V>, ids: &[u32]) -> Option<Kept<S, K>> {
        let (topo, keys, low) = (self.topo, &self.keys, self.low);
        let max = S::splat_bits(u32::MAX);
        let tied = S::and(
            S::and(topo, keys.next.lt_bits(max)),
            keys.next
                .key_of(low, 0)
                .eq_bits(keys.key[K - 1].key_of(low, 0)),
        );
        if S::bits(tied) != 0 {
            return None;
        }
        let (words, flocks) = self.slots.split_at(MAX_SLOTS);
        let zero = S::splat(0.0);
        let inf = S::splat(f32::INFINITY);
        // The distances only mark the entries found (the sums measure them
        // again), unless a lane's entries must be put in order.
        let mut kept = Kept {
            d2: [inf; K],
            j: [zero; K],
        };
        let mut shared = S::lanes(0, 0);
        for i in 0..K {
            let key = keys.key[i];
            let found = S::and(topo, key.lt_bits(max));
            if S::bits(found) == 0 {
                break;
            }
            if i > 0 {
                let same = key.key_of(low, 0).eq_bits(keys.key[i - 1].key_of(low, 0));
                shared = S::or(shared, S::and(found, same));
            }
            // SAFETY: a key's slot bits are within `low`, below MAX_SLOTS.
            let word = unsafe { key.gather(words, low) };
            // Without relations every candidate taken flocks.
            let flock = if self.multi {
                // SAFETY: as above.
                unsafe { key.gather(flocks, low) }.own_bit()
            } else {
                found
            };
            kept.j[i] = S::select(found, word.set_bits(flock, FLOCKS), zero);
            kept.d2[i] = S::select(found, zero, inf);
        }
        if S::bits(shared) != 0 {
            let data = self.data;
            let pos: [&[f32]; 3] = std::array::from_fn(|a| &data.pos[a][..]);
            let shifted = super::shifted(span);
            for i in 0..K {
                let d = offsets(self.g, span, shifted, &pos, kept.j[i]);
                let d2 = super::squared(d, V::DIM);
                kept.d2[i] = S::select(kept.d2[i].lt(inf), d2, inf);
            }
            kept.sort_lanes(shared, ids);
        }
        Some(kept)
    }
}

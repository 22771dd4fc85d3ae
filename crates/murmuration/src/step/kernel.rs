//! The neighbour kernel: sums the three rules for a group of boids, one boid per
//! lane ([`accumulate`]), eight lanes anywhere and sixteen with AVX-512.
//!
//! Which candidates fall inside a radius is unpredictable, so a branchy loop spends
//! most of its time in mispredictions. Here every test is a lane mask. Each lane
//! adds its neighbours one at a time, in a fixed order (rows of cells, cells
//! along x, sorted index), so a boid's sums are a pure function of the state:
//! the same at either width, in any group, on any thread. The boids of a group
//! share every candidate load, and nothing is reduced across lanes at the end.
//! Neighbour data is structure-of-arrays in cell order, padded by [`PAD`]
//! entries so a group's lanes load in one vector from any sorted index.
//!
//! The candidates-in-lanes form ([`load`], [`TAIL`], [`ALL_BUT`]) remains for
//! the topological kernel ([`crate::step::topological`]).

use crate::grid::Span;
use crate::params::Relation;
use crate::step::lanes::Lanes;
use crate::step::rules::{RuleConsts, Sums};
use crate::vector::Vector;
use wide::f32x8;

/// Lanes of the portable vector (boids per group; candidates per chunk in the
/// topological kernel).
pub(crate) const LANES: usize = 8;

/// Padding after neighbour data: the widest load (16 lanes, [`crate::step::kernel512`])
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
/// Kernel variant flag: sixteen boids per group ([`crate::step::kernel512`]); set
/// only where the CPU has AVX-512 (never with [`MIN_IMAGE`]).
pub(crate) const WIDE: u8 = 16;

/// Candidates noted for deferred separation before they are separated
/// ([`accumulate`]); a power of two.
const HELD: usize = 64;

/// The most lanes of any width.
pub(crate) const MAX_LANES: usize = 16;

/// A group's sums lane by lane, one row per quantity: [`SEP`], [`ALI`] and
/// [`COH`] by axis, then the counts as `f32` ([`N_ALI`], [`N_COH`], [`N_NB`]),
/// laid out the same whatever the kernel variant ([`GroupSums::write_to`]).
pub(crate) type GroupLanes = [[f32; MAX_LANES]; 12];

/// First row of the separation sums in [`GroupLanes`] (one per axis).
pub(crate) const SEP: usize = 0;
/// First row of the alignment sums (one per axis).
pub(crate) const ALI: usize = 3;
/// First row of the cohesion offsets (one per axis).
pub(crate) const COH: usize = 6;
/// Row of the alignment neighbour counts.
pub(crate) const N_ALI: usize = 9;
/// Row of the cohesion neighbour counts.
pub(crate) const N_COH: usize = 10;
/// Row of the neighbour counts (within the perception radius, reacted to).
pub(crate) const N_NB: usize = 11;

/// The focal boids of one group: consecutive sorted indices `first..first +
/// count` of one row of cells ([`Span`]), one per lane, with their species'
/// constants lane by lane.
pub(crate) struct Group<'a, S: Lanes> {
    /// Sorted index of lane 0.
    pub first: usize,
    /// Lanes in use.
    pub count: usize,
    /// Positions; lanes past `count` hold +∞ (never within a radius).
    pub pos: [S; 3],
    /// Unit headings where the vision cone applies, else zero.
    pub heading: [S; 3],
    /// Lanes without a vision cone (or at rest: no heading to see by).
    pub no_cone: S::Mask,
    /// Some lane has a vision cone (with [`FOV`]).
    pub cones: bool,
    /// The [`RuleConsts`] of each lane's species.
    pub max2: S,
    /// See [`RuleConsts::sep2`].
    pub sep2: S,
    /// See [`RuleConsts::ali2`].
    pub ali2: S,
    /// See [`RuleConsts::coh2`].
    pub coh2: S,
    /// See [`RuleConsts::eps2`].
    pub eps2: S,
    /// See [`RuleConsts::gate2`].
    pub gate2: S,
    /// See [`RuleConsts::cos_half_fov`].
    pub cos_half: S,
    /// The largest [`RuleConsts::reach`] of the lanes: candidates this far
    /// along x from every lane are cut from the runs.
    pub reach: f32,
    /// Species as `f32` (with [`MULTI`]).
    pub species: S,
    /// Lanes that take every species into their rules (flocking with their
    /// own, separating from the others: [`RelationPattern::SelfFlockOthersSeparate`]).
    pub takes_others: S::Mask,
    /// When some lane's pattern is [`RelationPattern::General`] and the world
    /// has at most [`RELATE_SPECIES`] species: for each candidate species, the
    /// lanes that take it into their rules and those that flock with it (one
    /// lookup per candidate).
    pub relate: Option<&'a [(S::Mask, S::Mask)]>,
    /// Each lane's relation row, when some lane's pattern is
    /// [`RelationPattern::General`] in a world of more species (looked up per
    /// candidate and lane).
    pub rows: Option<[&'a [Relation]; 16]>,
}

/// The most species for which a group's relations are tabled as lane masks
/// ([`Group::relate`]).
pub(crate) const RELATE_SPECIES: usize = 16;

/// A group's sums, lane by lane.
pub(crate) struct GroupSums<S> {
    pub sep: [S; 3],
    pub ali: [S; 3],
    pub coh: [S; 3],
    pub n_ali: S,
    pub n_coh: S,
    pub n_nb: S,
    /// Smallest squared distance to any candidate (other than itself), or in
    /// 3D to any under its `gate2` (+∞ if none): a lane at or under its `eps2`
    /// has a coincident neighbour ([`coincident_fix`]).
    pub nearest2: S,
    /// Candidates measured, over the lanes (itself not counted).
    pub candidates: u64,
}

/// Sums the rules over the cells of `span` for every lane of `g`; `FLAGS`
/// selects the variant (see the flag constants).
///
/// Each lane adds its neighbours one at a time in the span's fixed order (rows,
/// then cells along x, then sorted index), so a boid's sums are a pure function
/// of the state, the same at any lane width and however the boids are grouped:
/// every candidate a lane may take lies in the cells within one of its own
/// (cells are wider than the reach, [`crate::grid`]; with nearest images the
/// lane is masked to those cells), and a masked-off term leaves its
/// accumulator as it is (see [`crate::step::lanes`]). Every lane measures a whole
/// row piece's run: one loop per run, not one per cell.
#[inline(always)]
pub(crate) fn accumulate<V: Vector, S: Lanes, const FLAGS: u8>(
    g: &Group<'_, S>,
    span: &Span<V>,
    cell_start: &[u32],
    data: &SortedSoa,
    period: V,
) -> GroupSums<S> {
    // No lane with a cone (a school beside a shark that has one): the cone
    // test would pass every candidate.
    let fov = FLAGS & FOV != 0 && g.cones;
    let multi = FLAGS & MULTI != 0;
    let min_image = FLAGS & MIN_IMAGE != 0;
    let same = FLAGS & SAME_RADII != 0;
    let d_n = V::DIM;
    let zero = S::splat(0.0);
    let one = S::splat(1.0);
    // One the compiler cannot see, for `Lanes::add_where_on_mul`.
    let unit = std::hint::black_box(one);
    // Every candidate index is below the last cell start, the boid count.
    let n = cell_start.last().copied().unwrap_or(0) as usize;
    for a in 0..d_n {
        assert!(data.pos[a].len() >= n && data.vel[a].len() >= n);
    }
    if multi {
        assert!(data.species.len() >= n && data.species_f.len() >= n);
    }
    // The arrays as local slices, so the loops keep their addresses in registers.
    let pos: [&[f32]; 3] = std::array::from_fn(|a| &data.pos[a][..]);
    let vel: [&[f32]; 3] = std::array::from_fn(|a| &data.vel[a][..]);
    let mut per = [one; 3];
    for (a, p) in per.iter_mut().enumerate().take(d_n) {
        *p = S::splat(period.get(a));
    }
    let (mut sep, mut ali, mut coh) = ([zero; 3], [zero; 3], [zero; 3]);
    let (mut n_ali, mut n_coh, mut n_nb) = (zero, zero, zero);
    let mut nearest2 = S::splat(f32::INFINITY);
    let mut candidates = 0u64;
    let fill = S::lanes(0, g.count);
    // The group's least and greatest x: a row of cells is sorted by x
    // ([`crate::grid`]), and the group is consecutive along one row.
    let x_ends = (data.pos[0][g.first], data.pos[0][g.first + g.count - 1]);
    debug_assert!(
        data.pos[0][g.first..g.first + g.count]
            .windows(2)
            .all(|w| w[0] <= w[1])
    );
    // Every run's cut first, apart from the loops: the cuts are independent,
    // so their loads and compares overlap instead of each waiting at the head
    // of its row.
    let mut runs = [(0usize, 0usize); 27];
    // 3D: separation deferred. Some lane is within the separation gate of only
    // 7 % of candidates, at random, so a branch on it mispredicts often (it
    // cost a fifth of the pass). Instead the loop notes every candidate (its
    // index and run) and keeps only those some lane is near, without a
    // branch; the kept ones are separated in order afterwards, their offsets
    // and masks recomputed by the same operations, so every sum keeps its bits.
    // (Nearest-image worlds keep the branch.)
    let defer = d_n == 3 && !min_image;
    let mut held = [0u64; HELD];
    let mut k = 0usize;
    for (r, &(row, _)) in span.rows[..span.row_count].iter().enumerate() {
        for (p, &(x_a, x_b, x_shift, _)) in span.pieces[..span.piece_count].iter().enumerate() {
            let run = (
                cell_start[row + x_a as usize] as usize,
                cell_start[row + x_b as usize + 1] as usize,
            );
            runs[3 * r + p] = if min_image {
                run
            } else {
                cut_run::<S>(&data.pos[0], run, x_ends, x_shift, g.reach)
            };
        }
    }
    // The lanes' offsets from candidate `j` to `origin` (the lanes' positions
    // less the run's shift), and their squared lengths. Measured this way
    // round, `origin - p`, the candidate's load folds into the subtraction.
    // Each offset is the exact negation of `p - origin`, so the sums below
    // subtract what they would add (x - y is x + -y in IEEE arithmetic) and
    // keep their bits.
    macro_rules! offsets {
        ($j:expr, $origin:expr) => {{
            let mut d = [zero; 3];
            let mut d2 = zero;
            for a in 0..d_n {
                // SAFETY: j < n <= the array's length (asserted above).
                let p = unsafe { *pos[a].get_unchecked($j) };
                let mut x = $origin[a] - S::splat(p);
                if min_image {
                    x = x - per[a] * (x / per[a]).round();
                }
                d[a] = x;
                d2 = d2 + x * x;
            }
            (d, d2)
        }};
    }
    // The lanes that take candidate `j` into their rules, and those of them
    // that flock with it.
    macro_rules! takes {
        ($j:expr, $d:expr, $d2:expr, $valid:expr) => {{
            let (j, d, d2, valid): (usize, [S; 3], S, S::Mask) = ($j, $d, $d2, $valid);
            let mut take = d2.lt_in(valid, g.max2);
            if fov {
                let mut back = zero;
                for a in 0..d_n {
                    back = back + d[a] * g.heading[a];
                }
                // The offset points back at the lanes: negated, exactly.
                let dot = S::splat(-0.0) - back;
                // A coincident neighbour has no direction to see it by:
                // always seen.
                let seen = S::or(dot.ge(g.cos_half * d2.sqrt()), d2.le(g.eps2));
                take = S::and(take, S::or(seen, g.no_cone));
            }
            let mut flock = take;
            if multi {
                if let Some(relate) = g.relate {
                    // SAFETY: as above.
                    let s = unsafe { *data.species.get_unchecked(j) } as usize;
                    // Every species is below the table's length (a world's
                    // relations cover its species); past it, nothing is taken.
                    let none = S::lanes(0, 0);
                    let (takes, flocks) = relate.get(s).copied().unwrap_or((none, none));
                    take = S::and(take, takes);
                    flock = S::and(take, flocks);
                } else if let Some(rows) = &g.rows {
                    // SAFETY: as above.
                    let s = unsafe { *data.species.get_unchecked(j) } as usize;
                    let rel = |l: usize| rows[l][s % rows[l].len()];
                    take = S::and(take, S::mask_from(|l| rel(l).in_rules()));
                    let flocks =
                        S::mask_from(|l| matches!(rel(l), Relation::Flock | Relation::Follow));
                    flock = S::and(take, flocks);
                } else {
                    // SAFETY: as above.
                    let s = unsafe { *data.species_f.get_unchecked(j) };
                    let own = g.species.eq(S::splat(s));
                    take = S::and(take, S::or(own, g.takes_others));
                    flock = S::and(take, own);
                }
            }
            (take, flock)
        }};
    }
    // The lanes' positions less the shift of run `3 * r + p`.
    macro_rules! origin_of {
        ($r:expr, $p:expr) => {{
            let (row_shift, x_shift): (V, f32) = (span.rows[$r].1, span.pieces[$p].2);
            let mut origin = [zero; 3];
            for (a, o) in origin.iter_mut().enumerate().take(d_n) {
                let shift = if a == 0 { x_shift } else { row_shift.get(a) };
                *o = g.pos[a] - S::splat(shift);
            }
            origin
        }};
    }
    // Separation and the coincident trigger for one candidate.
    macro_rules! separate {
        ($d:expr, $d2:expr, $take:expr, $near:expr) => {{
            let (d, d2) = ($d, $d2);
            let push = d2.lt_in($take, g.sep2);
            // Over every candidate, not only the taken ones: a trigger for the
            // exact re-scan of `coincident_fix`, which applies the relation
            // masks itself.
            nearest2 = nearest2.min_where($near, d2);
            // A coincident neighbour (d2 <= eps2) adds -d/eps2 here;
            // `coincident_fix` takes that back out and adds its keyed push
            // instead, so this loop carries no extra mask.
            let inv = one / d2.max(g.eps2);
            for a in 0..d_n {
                sep[a] = sep[a].add_where(push, d[a] * inv);
            }
        }};
    }
    // Separates the candidates noted in `held`, in the order noted.
    macro_rules! separate_held {
        () => {{
            for &e in &held[..k] {
                let j = (e & 0xFFFF_FFFF) as usize;
                let rp = (e >> 48) as usize;
                let (d, d2) = offsets!(j, origin_of!(rp / 3, rp % 3));
                let valid = S::and(fill, S::all_but(j.wrapping_sub(g.first)));
                let (take, _) = takes!(j, d, d2, valid);
                let near = d2.lt_in(valid, g.gate2);
                separate!(d, d2, take, near);
            }
            k = 0;
        }};
    }
    for (r, &(row, _)) in span.rows[..span.row_count].iter().enumerate() {
        for (p, &(x_a, x_b, _, see0)) in span.pieces[..span.piece_count].iter().enumerate() {
            let origin = origin_of!(r, p);
            let run = runs[3 * r + p];
            // The run's number in `held` entries (bits 48 and up).
            let tag = ((3 * r + p) as u64) << 48;
            // One candidate `j`, in the lanes of `valid`.
            macro_rules! candidate {
                ($j:expr, $valid:expr) => {{
                    let j: usize = $j;
                    let valid: S::Mask = $valid;
                    let (d, d2) = offsets!(j, origin);
                    let (take, flock) = takes!(j, d, d2, valid);
                    // Separation and the coincident trigger. In 3D, only where
                    // some lane is this close (7 % of candidates; every lane of
                    // `push` and every coincident one is in `near`): deferred
                    // (`defer`), or behind a branch with nearest images. In 2D
                    // 28 % are this close: branchless, for every candidate.
                    let near = if d_n == 3 {
                        d2.lt_in(valid, g.gate2)
                    } else {
                        valid
                    };
                    if defer {
                        // Noted always, kept (k advances) only if near.
                        held[k % HELD] = tag | j as u64;
                        k += (S::bits(near) != 0) as usize;
                        if k == HELD {
                            separate_held!();
                        }
                    } else if d_n == 2 || S::bits(near) != 0 {
                        separate!(d, d2, take, near);
                    }
                    let (ma, mc) = if same {
                        (flock, flock)
                    } else {
                        (d2.lt_in(flock, g.ali2), d2.lt_in(flock, g.coh2))
                    };
                    n_ali = n_ali.add_where(ma, one);
                    if !same {
                        n_coh = n_coh.add_where(mc, one);
                    }
                    if multi || !same {
                        n_nb = n_nb.add_where(take, one);
                    }
                    for a in 0..d_n {
                        // SAFETY: as above.
                        let v = unsafe { *vel[a].get_unchecked(j) };
                        ali[a] = ali[a].add_where_on_mul(ma, S::splat(v), unit);
                        coh[a] = coh[a].sub_where(mc, d[a]);
                    }
                }};
            }
            if !min_image {
                // The whole run in one loop, every lane: a cell is wider than
                // the reach by more than any rounding ([`crate::grid`]), so a
                // lane never takes a candidate two cells from its own, and its
                // sums are those of its own cells, in the same order. Only the
                // focal boids' own entries skip their lane.
                let (lo, hi) = run;
                candidates += g.count as u64 * (hi - lo) as u64;
                let f0 = g.first.clamp(lo, hi);
                let f1 = (g.first + g.count).clamp(lo, hi);
                for j in lo..f0 {
                    candidate!(j, fill);
                }
                for j in f0..f1 {
                    candidate!(j, S::and(fill, S::all_but(j - g.first)));
                }
                for j in f1..hi {
                    candidate!(j, fill);
                }
                continue;
            }
            // Nearest images (some periodic axis under three cells): a lane
            // sees only the cells within one of its own.
            for x in x_a..=x_b {
                let (lo, hi) = span.see[(see0 + x - x_a) as usize];
                let see = S::lanes(lo as usize, hi as usize);
                let c = row + x as usize;
                let start = (cell_start[c] as usize).max(run.0);
                let end = (cell_start[c + 1] as usize).min(run.1).max(start);
                candidates += (hi - lo) as u64 * (end - start) as u64;
                if start < g.first + g.count && g.first < end {
                    // The cell holds focal boids: each lane skips itself.
                    for j in start..end {
                        candidate!(j, S::and(see, S::all_but(j.wrapping_sub(g.first))));
                    }
                } else {
                    for j in start..end {
                        candidate!(j, see);
                    }
                }
            }
        }
    }
    if defer {
        separate_held!();
        debug_assert_eq!(k, 0);
    }
    GroupSums {
        sep,
        ali,
        coh,
        n_ali,
        n_coh,
        n_nb,
        nearest2,
        // Each lane's own cell holds it: it is not its own candidate.
        candidates: candidates - g.count as u64,
    }
}

/// The lanes of `g` that take candidate `j` (at offsets `d`, squared
/// length `d2`, from the lanes) into their rules, among those of `valid`
/// within their radius and cone, and those of them that flock with it.
/// `fov`: some lane has a cone; `multi`: the relations apply.
///
/// For the topological lanes ([`crate::step::nearest`]). The same tests as
/// [`accumulate`]'s `takes!`, which keeps its own copy: calling this from
/// the metric loop measured 2 to 4 % slower on the standard 3D workload
/// (alternated, BENCHMARKS.md), though its hot loop compiled the same.
#[inline(always)]
#[allow(
    clippy::too_many_arguments,
    reason = "the kernel's loop-invariant switches, inlined away"
)]
pub(crate) fn takes<S: Lanes>(
    g: &Group<'_, S>,
    data: &SortedSoa,
    j: usize,
    d: &[S; 3],
    d2: S,
    valid: S::Mask,
    fov: bool,
    multi: bool,
    d_n: usize,
) -> (S::Mask, S::Mask) {
    let zero = S::splat(0.0);
    let mut take = d2.lt_in(valid, g.max2);
    if fov {
        let mut back = zero;
        for (x, h) in d.iter().zip(&g.heading).take(d_n) {
            back = back + *x * *h;
        }
        // The offset points back at the lanes: negated, exactly.
        let dot = S::splat(-0.0) - back;
        // A coincident neighbour has no direction to see it by: always seen.
        let seen = S::or(dot.ge(g.cos_half * d2.sqrt()), d2.le(g.eps2));
        take = S::and(take, S::or(seen, g.no_cone));
    }
    let mut flock = take;
    if multi {
        // The three lookups: `j` is below the boid count, which the kernels
        // assert the species arrays hold.
        if let Some(relate) = g.relate {
            // SAFETY: as just said.
            let s = unsafe { *data.species.get_unchecked(j) } as usize;
            // Every species is below the table's length (a world's relations
            // cover its species); past it, nothing is taken.
            let none = S::lanes(0, 0);
            let (takes, flocks) = relate.get(s).copied().unwrap_or((none, none));
            take = S::and(take, takes);
            flock = S::and(take, flocks);
        } else if let Some(rows) = &g.rows {
            // SAFETY: as above.
            let s = unsafe { *data.species.get_unchecked(j) } as usize;
            let rel = |l: usize| rows[l][s % rows[l].len()];
            take = S::and(take, S::mask_from(|l| rel(l).in_rules()));
            let flocks = S::mask_from(|l| matches!(rel(l), Relation::Flock | Relation::Follow));
            flock = S::and(take, flocks);
        } else {
            // SAFETY: as above.
            let s = unsafe { *data.species_f.get_unchecked(j) };
            let own = g.species.eq(S::splat(s));
            take = S::and(take, S::or(own, g.takes_others));
            flock = S::and(take, own);
        }
    }
    (take, flock)
}

/// Cuts the run `start..end` of one row piece (sorted by x, read from `xs`)
/// to the candidates some lane may reach: those less than `reach` along x
/// from the group's x range `x_ends` (the lanes' x, less the piece's `shift`,
/// rounded as the kernel rounds them). Exact: a lane's offset to a cut
/// candidate is at least as long as the offset measured here (rounding is
/// monotone), so its squared distance is at least the lane's `max2`.
///
/// Counts the cut candidates a window of lanes at a time: along a sorted run
/// those out of reach on the left are a prefix, on the right a suffix.
#[inline(always)]
pub(crate) fn cut_run<S: Lanes>(
    xs: &[f32],
    (mut start, mut end): (usize, usize),
    (x_min, x_max): (f32, f32),
    shift: f32,
    reach: f32,
) -> (usize, usize) {
    let reach = S::splat(reach);
    let (left, right) = (S::splat(x_min - shift), S::splat(x_max - shift));
    // Every index below `end` (at most the boid count) has PAD entries after it.
    while start < end {
        let w = S::from_slice(&xs[start..]);
        let cut = S::and((left - w).ge(reach), S::lanes(0, (end - start).min(S::N)));
        let k = S::bits(cut).count_ones() as usize;
        start += k;
        if k < S::N {
            break;
        }
    }
    while start < end {
        let from = end.saturating_sub(S::N).max(start);
        let w = S::from_slice(&xs[from..]);
        let cut = S::and((w - right).ge(reach), S::lanes(0, end - from));
        let k = S::bits(cut).count_ones() as usize;
        end -= k;
        if k < S::N {
            break;
        }
    }
    (start, end)
}

impl<S: Lanes> GroupSums<S> {
    /// Writes the sums into `out` row by row ([`GroupLanes`]); `FLAGS` are
    /// those of the kernel that summed them. With equal radii the variant
    /// counts only alignment neighbours: those rows get that count too.
    #[inline(always)]
    pub fn write_to<const FLAGS: u8>(&self, out: &mut GroupLanes, dim: usize) {
        let multi = FLAGS & MULTI != 0;
        let same = FLAGS & SAME_RADII != 0;
        for a in 0..dim {
            self.sep[a].write_to(&mut out[SEP + a]);
            self.ali[a].write_to(&mut out[ALI + a]);
            self.coh[a].write_to(&mut out[COH + a]);
        }
        self.n_ali.write_to(&mut out[N_ALI]);
        let n_coh = if same { self.n_ali } else { self.n_coh };
        n_coh.write_to(&mut out[N_COH]);
        let n_nb = if multi || !same {
            self.n_nb
        } else {
            self.n_ali
        };
        n_nb.write_to(&mut out[N_NB]);
    }
}

/// A count out of its `f32` lane: a whole number from 0 to at most the boids
/// in the world (below 2³²), so the truncation is in range and `as`'s clamps
/// are not needed (they cost ~5 instructions per count per boid).
#[inline(always)]
pub(crate) fn count(x: f32) -> u32 {
    // SAFETY: finite and in `0..2³²` as just said.
    unsafe { x.to_int_unchecked::<u32>() }
}

/// Lane `l`'s sums out of a group's rows ([`GroupSums::write_to`]).
#[inline(always)]
pub(crate) fn lane_sums<V: Vector>(acc: &GroupLanes, l: usize) -> Sums<V> {
    let mut s = Sums::<V>::default();
    for a in 0..V::DIM {
        s.sep.set(a, acc[SEP + a][l]);
        s.ali.set(a, acc[ALI + a][l]);
        s.coh.set(a, acc[COH + a][l]);
    }
    s.ali_n = count(acc[N_ALI][l]);
    s.coh_n = count(acc[N_COH][l]);
    s.neighbours = count(acc[N_NB][l]);
    s
}

/// Rare: neighbours at (almost) the same position as the boid at sorted index
/// `me` (lane `lane` of its group) push along a keyed direction, not along
/// their offset (rounding noise at that distance). Corrects `sep` for each, in
/// the span's order.
#[allow(
    clippy::too_many_arguments,
    reason = "one call site, all distinct inputs"
)]
pub(crate) fn coincident_fix<V: Vector, const FLAGS: u8>(
    (me, lane, pos): (usize, usize, V),
    rel_row: &[Relation],
    k: &RuleConsts,
    span: &Span<V>,
    cell_start: &[u32],
    data: &SortedSoa,
    period: V,
    coincident: impl Fn(usize) -> V,
    sep: &mut V,
) {
    let multi = FLAGS & MULTI != 0;
    let min_image = FLAGS & MIN_IMAGE != 0;
    let inv_eps2 = 1.0 / k.eps2;
    for &(row, row_shift) in &span.rows[..span.row_count] {
        for &(x_a, x_b, x_shift, see0) in &span.pieces[..span.piece_count] {
            let mut shift = row_shift;
            shift.set(0, x_shift);
            for x in x_a..=x_b {
                let (lo, hi) = span.see[(see0 + x - x_a) as usize];
                if !(lo as usize..hi as usize).contains(&lane) {
                    continue;
                }
                let c = row + x as usize;
                for j in cell_start[c] as usize..cell_start[c + 1] as usize {
                    if j == me {
                        continue;
                    }
                    // Same arithmetic as the lanes, so both agree on who is
                    // coincident.
                    let mut dd = data.position::<V>(j) - (pos - shift);
                    if min_image {
                        dd = crate::vector::min_image(dd, period);
                    }
                    let ignored = multi && !rel_row[data.species[j] as usize].in_rules();
                    if dd.length_squared() <= k.eps2 && !ignored {
                        // The loop subtracted dd / eps2 (a coincident neighbour is
                        // always taken and inside the separation radius): undo it.
                        *sep += dd * inv_eps2 + coincident(j) * k.coincident_push;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::step::rules::reach_of;

    /// A run sorted by x, clustered around the cut points so that some
    /// candidates sit exactly at, and one ulp either side of, the reach.
    fn run_around(left: f32, right: f32, reach: f32, k: u32) -> Vec<f32> {
        let mut xs = Vec::new();
        for (i, edge) in [left - reach, right + reach].into_iter().enumerate() {
            xs.extend([edge.next_down(), edge, edge.next_up()]);
            for j in 0..(5 + k % 13) {
                let f = ((k.wrapping_mul(2654435761) >> (j % 16)) % 1000) as f32 / 1000.0;
                xs.push(edge + (f - 0.5) * 2.0 * reach * (1 + i) as f32);
            }
        }
        xs.sort_by(f32::total_cmp);
        xs.extend([f32::INFINITY; PAD]);
        xs
    }

    /// The cut keeps every candidate some lane of the group may reach, and is
    /// the longest prefix and suffix the test allows (eight and sixteen lanes).
    #[test]
    fn cut_run_removes_exactly_the_unreachable_ends() {
        fn check<S: Lanes>() {
            for k in 0..400u32 {
                let max2 = 0.3 + (k % 17) as f32 * 0.37;
                let reach = reach_of(max2);
                let shift = [0.0, 37.5, -37.5][(k % 3) as usize];
                let (x_min, x_max) = (3.0 + (k % 7) as f32 * 0.1, 3.9 + (k % 5) as f32 * 0.3);
                let (left, right) = (x_min - shift, x_max - shift);
                let xs = run_around(left, right, reach, k);
                let n = xs.len() - PAD;
                let out_left = |p: f32| left - p >= reach;
                let out_right = |p: f32| p - right >= reach;
                for (a, b) in [(0, n), (1, n - 1), (n / 3, n / 2)] {
                    let (s, e) = cut_run::<S>(&xs, (a, b), (x_min, x_max), shift, reach);
                    assert!(a <= s && s <= e && e <= b, "{k}: {a}..{b} -> {s}..{e}");
                    assert!(xs[a..s].iter().all(|&p| out_left(p)), "{k}: left");
                    assert!(xs[e..b].iter().all(|&p| out_right(p)), "{k}: right");
                    if s < e {
                        assert!(!out_left(xs[s]) && !out_right(xs[e - 1]), "{k}: kept");
                    }
                    // What is cut is out of reach of every lane in between.
                    for &p in xs[a..s].iter().chain(&xs[e..b]) {
                        for lane in [x_min, 0.5 * (x_min + x_max), x_max] {
                            let d = p - (lane - shift);
                            assert!(d * d >= max2, "{k}: {p} reaches {lane}");
                        }
                    }
                }
            }
        }
        check::<F>();
        #[cfg(target_arch = "x86_64")]
        if crate::step::kernel512::wide() {
            check::<crate::step::kernel512::W16>();
        }
    }
}

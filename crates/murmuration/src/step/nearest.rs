//! Topological neighbours a group at a time: each lane (focal boid) of a
//! group keeps its `k` nearest candidates in lanes, the candidates shared
//! by every lane as in the metric kernel ([`crate::step::kernel`]).
//!
//! The selection and the sums are those of the per-boid kernel
//! ([`crate::step::topological`]), bit for bit: the same candidates (every
//! boid within a lane's radius and cone that its relations take), the `k`
//! smallest by (distance², id), and the sums taken nearest first with the
//! same arithmetic. Each lane's list is sorted. Candidates are measured a
//! batch at a time, and each one some lane may keep (about six in ten) goes
//! through a branchless insertion network over the lists (a lane that does
//! not keep it offers +∞; a branch per candidate on "some lane keeps it"
//! measured slower, the branch being unpredictable); an exact tie that
//! decides which entries stay (rare: coincident boids, lattices) is settled
//! by id lane by lane.
//!
//! With AVX-512 the lists are kept by keys first ([`keys`]: minima and
//! maxima of distances whose low bits name the candidate), which decide
//! exactly or hand the group to the network here. The sums over the lists
//! are in [`sums`].
//!
//! Worlds of nearest images (and of more than [`MAX_SORTED`] boids) keep
//! the per-boid kernel.

mod keys;
mod sums;

pub(crate) use keys::{MAX_SLOTS, Slots};
use sums::{offsets, shifted, squared};

use crate::grid::Span;
use crate::step::kernel::{self, Group, GroupLanes, MAX_LANES, SortedSoa};
use crate::step::lanes::Lanes;
use crate::vector::Vector;
use wide::f32x8;

/// Bit of a kept entry's index word set when the lane flocks with that
/// neighbour.
const FLOCKS: u32 = 1 << 31;

/// First bit of the run a kept entry came from in its index word (`3 * row +
/// piece` of the span, below 27), the sorted index in the bits below.
const RUN_AT: u32 = 26;

/// The sorted index bits of an index word.
const INDEX: u32 = (1 << RUN_AT) - 1;

/// Candidates measured before the insertions of those some lane may keep
/// ([`Scan::run`]).
const BATCH: usize = 16;

/// The most boids (with padding) whose sorted indices fit [`INDEX`]; larger
/// worlds take the per-boid kernel.
pub(crate) const MAX_SORTED: usize = INDEX as usize + 1;

/// Whether a world's topological lanes take the per-boid kernel
/// ([`crate::step::topological`]): nearest images, or more than
/// [`MAX_SORTED`] boids.
#[inline(always)]
pub(crate) fn per_boid(flags: u8, boids: usize) -> bool {
    flags & kernel::MIN_IMAGE != 0 || boids > MAX_SORTED
}

/// Each lane's nearest candidates so far, sorted by (distance², id): the
/// squared distances (+∞ past those found) and index words as `f32` bits
/// (sorted index, run, [`FLOCKS`]; 0 past those found).
pub(crate) struct Kept<S, const K: usize> {
    d2: [S; K],
    j: [S; K],
}

/// The list capacity that serves `k` neighbours: `k` itself for the common
/// counts (each capacity is a compiled copy of the loop, its list in
/// registers), else the next of 16, 32, 64 (a longer list only keeps more).
pub(crate) fn capacity(k: u32) -> usize {
    match k {
        0..=4 => 4,
        5..=8 => k as usize,
        9..=16 => 16,
        17..=32 => 32,
        _ => 64,
    }
}

/// One group's topological lanes to sum ([`NearestLanes::nearest`]).
pub(crate) struct Job<'a, V, S: Lanes> {
    /// The group (its lanes' positions, constants, cones and relations).
    pub g: &'a Group<'a, S>,
    /// Its topological lanes.
    pub topo: S::Mask,
    /// Each lane's `k` (0 outside `topo`).
    pub k: [u32; MAX_LANES],
    /// The group's cells.
    pub span: &'a Span<V>,
    /// The group's row of cells (its `cell_start` index at x = 0).
    pub own: usize,
    /// The grid's cell starts.
    pub cell_start: &'a [u32],
    /// Boids in cell order.
    pub data: &'a SortedSoa,
    /// Boid ids in sorted order.
    pub ids: &'a [u32],
    /// Some lane may have a vision cone ([`kernel::FOV`]).
    pub fov: bool,
    /// The relations apply ([`kernel::MULTI`]).
    pub multi: bool,
    /// Lane `l`'s keyed push from a coincident neighbour at sorted index `j`.
    pub push: &'a dyn Fn(usize, usize) -> V,
    /// The group's sums: the lanes of `topo` are written.
    pub out: &'a mut GroupLanes,
    /// Each lane's squared distance within which its `K` nearest and the one
    /// after them should lie ([`crate::step::reaches`]; +∞: none): a checked hint.
    #[cfg_attr(
        not(target_arch = "x86_64"),
        allow(dead_code, reason = "the lists by keys run sixteen lanes wide only")
    )]
    pub bound: [f32; MAX_LANES],
    /// Each lane's distance to the neighbour after its `K` nearest, or more;
    /// +∞ where not found (the exact network does not look).
    pub reach: [f32; MAX_LANES],
    /// This thread's slots for the lists by keys ([`keys`]).
    #[cfg_attr(
        not(target_arch = "x86_64"),
        allow(dead_code, reason = "the lists by keys run sixteen lanes wide only")
    )]
    pub slots: &'a mut Slots,
}

impl<V: Vector, S: Lanes> Job<'_, V, S> {
    /// Asserts that the columns hold every sorted index the runs name and
    /// one more (the sums read index 0 where nothing was found), so the
    /// selections may read them unchecked.
    #[inline(always)]
    fn check(&self) {
        let n = self.cell_start.last().copied().unwrap_or(0) as usize;
        let data = self.data;
        for a in 0..V::DIM {
            assert!(data.pos[a].len() > n && data.vel[a].len() > n);
        }
        assert!(self.ids.len() >= n && n <= MAX_SORTED);
        if self.multi {
            assert!(data.species.len() >= n && data.species_f.len() >= n);
        }
    }
}

/// The lane widths the k-nearest lists run at, each compiled for its width.
pub(crate) trait NearestLanes: Lanes {
    /// Selects and sums `job`'s lanes; returns the candidates measured.
    fn nearest<V: Vector>(job: &mut Job<'_, V, Self>) -> u64;
}

impl NearestLanes for f32x8 {
    #[inline(never)]
    fn nearest<V: Vector>(job: &mut Job<'_, V, Self>) -> u64 {
        run(job)
    }
}

#[cfg(target_arch = "x86_64")]
impl NearestLanes for crate::step::kernel512::W16 {
    fn nearest<V: Vector>(job: &mut Job<'_, V, Self>) -> u64 {
        // SAFETY: sixteen-lane groups exist only where the CPU has AVX-512
        // F, DQ and VL (`kernel::WIDE`).
        unsafe { run_wide(job) }
    }
}

/// The lists by keys ([`keys`]) where the capacity is at most eight and
/// they decide, else [`run`]; compiled with AVX-512, so every sixteen-lane
/// operation is one instruction.
///
/// SAFETY: the CPU has AVX-512 F, DQ and VL ([`crate::step::kernel512::wide`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
#[inline(never)]
unsafe fn run_wide<V: Vector>(job: &mut Job<'_, V, crate::step::kernel512::W16>) -> u64 {
    type S = crate::step::kernel512::W16;
    let kmax = job.k.iter().copied().max().unwrap_or(0);
    let k = S::from_slice(&job.k.map(|k| k as f32));
    macro_rules! by_keys {
        ($($cap:literal)*) => {
            match capacity(kmax) {
                $($cap => keys::select::<V, S, $cap>(job)
                .map(|(kept, candidates)| {
                    kept.sums::<V>(job, k);
                    candidates
                }),)*
                _ => None,
            }
        };
    }
    by_keys!(4 5 6 7 8).unwrap_or_else(|| run(job))
}

/// Selects each lane's nearest in a list of the capacity its largest `k`
/// needs ([`capacity`]), then sums them.
#[inline(always)]
fn run<V: Vector, S: Lanes>(job: &mut Job<'_, V, S>) -> u64 {
    let kmax = job.k.iter().copied().max().unwrap_or(0);
    let k = S::from_slice(&job.k.map(|k| k as f32));
    macro_rules! with_capacity {
        ($($cap:literal)*) => {
            match capacity(kmax) {
                $($cap => {
                    let (kept, candidates) = select::<V, S, $cap>(job);
                    kept.sums::<V>(job, k);
                    candidates
                })*
                _ => unreachable!("capacity gives one of these"),
            }
        };
    }
    with_capacity!(4 5 6 7 8 16 32 64)
}

/// The `K` nearest candidates of every lane of `job.topo` (a subset of the
/// group's lanes) among the candidates of `job.span` (no nearest images),
/// with the kernel's candidates, radii, cones and relations. Returns the
/// lists and the candidates measured by the lanes of `topo` (in a group of
/// mixed lanes, the metric kernel counts every lane too).
///
/// The order of the visit does not change the lists, only their cost: the
/// group's own boids first, then the rest of its row, then the other rows,
/// each cut along x to what the farthest kept entry of any lane reaches.
#[inline(always)]
pub(crate) fn select<V: Vector, S: Lanes, const K: usize>(
    job: &Job<'_, V, S>,
) -> (Kept<S, K>, u64) {
    job.check();
    let (g, topo, span, own, cell_start) = (job.g, job.topo, job.span, job.own, job.cell_start);
    let (data, ids, fov, multi) = (job.data, job.ids, job.fov, job.multi);
    let mut scan = Scan {
        g,
        topo,
        data,
        ids,
        fov: fov && g.cones,
        multi,
        kept: Kept {
            d2: [S::splat(f32::INFINITY); K],
            j: [S::splat(0.0); K],
        },
        candidates: 0,
    };
    let group = (g.first, g.first + g.count);
    for v in Visits::new(span, own, cell_start, group) {
        let (r, p) = (v.r, v.p);
        if v.mine {
            scan.run::<V>(group, span, r, p);
        }
        let (lo, hi) = scan.cut(v.run, span.pieces[p].2);
        if v.mine {
            scan.run::<V>((lo, group.0.max(lo)), span, r, p);
            scan.run::<V>((group.1.min(hi), hi), span, r, p);
        } else {
            scan.run::<V>((lo, hi), span, r, p);
        }
    }
    scan.kept.order_ties(ids);
    // Each lane met itself once in its own cell.
    let lanes = S::bits(topo).count_ones() as u64;
    (scan.kept, scan.candidates - lanes)
}

/// One group's selection under way ([`select`]).
struct Scan<'a, S: Lanes, const K: usize> {
    g: &'a Group<'a, S>,
    topo: S::Mask,
    data: &'a SortedSoa,
    ids: &'a [u32],
    fov: bool,
    multi: bool,
    kept: Kept<S, K>,
    candidates: u64,
}

impl<S: Lanes, const K: usize> Scan<'_, S, K> {
    /// `run` (one row piece's, sorted by x) cut to the candidates some lane
    /// may still keep: within its radius, and once every lane's list is
    /// full, nearer than the farthest entry kept by any lane (strictly: a
    /// tie may still win by id).
    #[inline(always)]
    fn cut(&self, run: (usize, usize), shift: f32) -> (usize, usize) {
        let g = self.g;
        let mut far = [0.0f32; kernel::MAX_LANES];
        S::select(self.topo, self.kept.d2[K - 1], S::splat(0.0)).write_to(&mut far);
        let far = far[..S::N].iter().copied().fold(0.0f32, f32::max);
        let reach = if far < f32::INFINITY {
            crate::step::rules::reach_of(far.next_up()).min(g.reach)
        } else {
            g.reach
        };
        cut(g, self.data, run, shift, reach)
    }

    /// Offers candidates `lo..hi` of the span's run `3 * r + p` to the lanes.
    #[inline(always)]
    fn run<V: Vector>(&mut self, (lo, hi): (usize, usize), span: &Span<V>, r: usize, p: usize) {
        let (g, d_n) = (self.g, V::DIM);
        if lo >= hi {
            return;
        }
        self.candidates += S::bits(self.topo).count_ones() as u64 * (hi - lo) as u64;
        let origin = origin(g, span, r, p);
        let tag = ((3 * r + p) as u32) << RUN_AT;
        let pos: [&[f32]; 3] = std::array::from_fn(|a| &self.data.pos[a][..]);
        // Candidates are measured a batch at a time, and only those some lane
        // may keep (as near as its farthest entry when the batch began; the
        // lists only shrink) go through the insertion network: about half of
        // them, with no branch to mispredict per candidate.
        let none = S::lanes(0, 0);
        let mut b_d2 = [S::splat(0.0); BATCH];
        let mut b_take = [none; BATCH];
        let mut b_flock = [none; BATCH];
        let mut b_j = [0u32; BATCH];
        let mut j = lo;
        while j < hi {
            let end = (j + BATCH).min(hi);
            let far = self.kept.d2[K - 1];
            let mut queued = 0usize;
            for j in j..end {
                let valid = S::and(self.topo, S::all_but(j.wrapping_sub(g.first)));
                // SAFETY: j < the boid count <= the arrays' length (asserted
                // in `select`).
                let (d, d2) = unsafe { measure(&origin, &pos, j, d_n) };
                let (take, flock) =
                    kernel::takes::<S>(g, self.data, j, &d, d2, valid, self.fov, self.multi, d_n);
                // Written always, kept only where some lane may take it.
                let at = queued % BATCH;
                b_d2[at] = d2;
                b_take[at] = take;
                b_flock[at] = flock;
                b_j[at] = j as u32;
                queued += (S::bits(S::and(take, d2.le(far))) != 0) as usize;
            }
            for b in 0..queued.min(BATCH) {
                // Only as near as the farthest kept now (a tie may still win).
                let d2 = b_d2[b];
                let pass = S::and(b_take[b], d2.le(self.kept.d2[K - 1]));
                self.kept
                    .insert(pass, b_flock[b], d2, b_j[b] | tag, self.ids);
            }
            j = end;
        }
    }
}

/// `run` (one row piece's, sorted by x, its periodic `shift`) cut to the
/// candidates less than `reach` along x from the group's lanes
/// ([`kernel::cut_run`]).
#[inline(always)]
fn cut<S: Lanes>(
    g: &Group<'_, S>,
    data: &SortedSoa,
    run: (usize, usize),
    shift: f32,
    reach: f32,
) -> (usize, usize) {
    let xs = &data.pos[0];
    let x_ends = (xs[g.first], xs[g.first + g.count - 1]);
    kernel::cut_run::<S>(xs, run, x_ends, shift, reach)
}

/// One run of a group's visit ([`Visits`]).
#[derive(Clone, Copy)]
struct Visit {
    /// The span's row.
    r: usize,
    /// The row's piece.
    p: usize,
    /// Its candidates (sorted indices), before any cut.
    run: (usize, usize),
    /// It is the group's own run, in its own (unshifted) row.
    mine: bool,
}

/// The runs of a span in the order both selections visit them: the
/// group's own row first, then the other rows, each piece by piece. The
/// order changes only what a visit costs, never the lists.
struct Visits<'a, V> {
    span: &'a Span<V>,
    cell_start: &'a [u32],
    /// The group's sorted indices.
    group: (usize, usize),
    /// The span's row that is the group's own, unshifted.
    own_row: Option<usize>,
    /// Rows visited so far, and the next piece of the row being visited.
    visit: usize,
    piece: usize,
}

impl<'a, V: Vector> Visits<'a, V> {
    /// The visit of `span` (its group `group`, whose row starts at
    /// `cell_start` index `own`).
    #[inline(always)]
    fn new(span: &'a Span<V>, own: usize, cell_start: &'a [u32], group: (usize, usize)) -> Self {
        let own_row =
            (0..span.row_count).find(|&r| span.rows[r].0 == own && span.rows[r].1 == V::ZERO);
        Self {
            span,
            cell_start,
            group,
            own_row,
            visit: 0,
            piece: 0,
        }
    }
}

impl<V: Vector> Iterator for Visits<'_, V> {
    type Item = Visit;

    #[inline(always)]
    fn next(&mut self) -> Option<Visit> {
        let span = self.span;
        if self.piece == span.piece_count {
            self.visit += 1;
            self.piece = 0;
        }
        if self.visit >= span.row_count {
            return None;
        }
        // The own row first, then the others in order.
        let r = match self.own_row {
            Some(o) if self.visit == 0 => o,
            Some(o) if self.visit > o => self.visit,
            Some(_) => self.visit - 1,
            None => self.visit,
        };
        let p = self.piece;
        self.piece += 1;
        let (row, _) = span.rows[r];
        let (x_a, x_b, _, _) = span.pieces[p];
        let run = (
            self.cell_start[row + x_a as usize] as usize,
            self.cell_start[row + x_b as usize + 1] as usize,
        );
        let (lo, hi) = self.group;
        let mine = self.visit == 0 && self.own_row.is_some() && run.0 <= lo && hi <= run.1;
        Some(Visit { r, p, run, mine })
    }
}

/// The lanes' positions less the shift of the span's run `3 * r + p`: the
/// kernel's origin for its candidates.
#[inline(always)]
fn origin<V: Vector, S: Lanes>(g: &Group<'_, S>, span: &Span<V>, r: usize, p: usize) -> [S; 3] {
    let mut origin = [S::splat(0.0); 3];
    for (a, o) in origin.iter_mut().enumerate().take(V::DIM) {
        let shift = if a == 0 {
            span.pieces[p].2
        } else {
            span.rows[r].1.get(a)
        };
        *o = g.pos[a] - S::splat(shift);
    }
    origin
}

/// The kernel's offsets of candidate `j` from `origin` (each the negation
/// of the per-boid one) and its squared distance.
///
/// # Safety
/// `j` is below the length of the first `dim` columns of `pos`.
#[inline(always)]
unsafe fn measure<S: Lanes>(
    origin: &[S; 3],
    pos: &[&[f32]; 3],
    j: usize,
    dim: usize,
) -> ([S; 3], S) {
    let mut d = [S::splat(0.0); 3];
    for a in 0..dim {
        // SAFETY: in bounds (the caller's contract).
        d[a] = origin[a] - S::splat(unsafe { *pos[a].get_unchecked(j) });
    }
    (d, squared(d, dim))
}

impl<S: Lanes, const K: usize> Kept<S, K> {
    /// Inserts the candidate of index word `word` (squared distances `d2`)
    /// into the lists of the lanes of `pass`, after every entry as near; it
    /// flocks with the lanes of `flock`. Where an exact tie decides which
    /// entries stay (the candidate as far as the last entry, or pushing out
    /// a last entry as far as the one before it), the lanes go by id
    /// ([`Self::insert_by_id`]); ties among the entries kept are put in id
    /// order at the end ([`Self::order_ties`]).
    #[inline(always)]
    fn insert(&mut self, pass: S::Mask, flock: S::Mask, d2: S, word: u32, ids: &[u32]) {
        let w = |bits: u32| S::splat(f32::from_bits(word | bits));
        let jw = S::select(flock, w(FLOCKS), w(0));
        let last = self.d2[K - 1];
        // `pass` holds only candidates as near as `last`: a tie decides if
        // the candidate equals it, or if the candidate (nearer) pushes out a
        // last entry that equals the one before it.
        let mut edge = d2.eq(last);
        if K > 1 {
            let split = S::and(self.d2[K - 2].eq(last), last.lt(S::splat(f32::INFINITY)));
            edge = S::or(edge, split);
        }
        if S::bits(S::and(pass, edge)) != 0 {
            return self.insert_by_id(pass, d2, jw, ids);
        }
        // Lanes outside `pass` offer +∞, which no entry moves for. The
        // distances by min and max (the same values the masks would pick),
        // the index words by the masks.
        let c = S::select(pass, d2, S::splat(f32::INFINITY));
        let mut lt = [pass; K];
        for (m, d) in lt.iter_mut().zip(&self.d2) {
            *m = c.lt(*d);
        }
        for i in (1..K).rev() {
            self.d2[i] = self.d2[i].min(self.d2[i - 1].max(c));
            self.j[i] = S::select(lt[i - 1], self.j[i - 1], S::select(lt[i], jw, self.j[i]));
        }
        self.d2[0] = self.d2[0].min(c);
        self.j[0] = S::select(lt[0], jw, self.j[0]);
    }

    /// The lists lane by lane as arrays: squared distances, index words.
    #[inline(always)]
    fn to_arrays(&self) -> ([[f32; MAX_LANES]; K], [[f32; MAX_LANES]; K]) {
        let mut kd = [[0.0f32; MAX_LANES]; K];
        let mut kj = [[0.0f32; MAX_LANES]; K];
        for i in 0..K {
            self.d2[i].write_to(&mut kd[i]);
            self.j[i].write_to(&mut kj[i]);
        }
        (kd, kj)
    }

    /// Lane `l` of `kd`, `kj` sorted by (distance², id): entries as far as
    /// one another in id order.
    #[inline(always)]
    fn sort_lane(
        kd: &mut [[f32; MAX_LANES]; K],
        kj: &mut [[f32; MAX_LANES]; K],
        l: usize,
        ids: &[u32],
    ) {
        let id = |w: f32| ids[(w.to_bits() & INDEX) as usize];
        for i in 1..K {
            let mut at = i;
            while at > 0
                && kd[at - 1][l] == kd[at][l]
                && kd[at][l] < f32::INFINITY
                && id(kj[at][l]) < id(kj[at - 1][l])
            {
                let (a, b) = (at - 1, at);
                (kd[a][l], kd[b][l]) = (kd[b][l], kd[a][l]);
                (kj[a][l], kj[b][l]) = (kj[b][l], kj[a][l]);
                at -= 1;
            }
        }
    }

    /// Sorts the lists of the lanes of `m` by (distance², id), each entry
    /// past those found (+∞) last.
    #[cfg_attr(
        not(target_arch = "x86_64"),
        allow(dead_code, reason = "the lists by keys run sixteen lanes wide only")
    )]
    #[inline(always)]
    fn sort_lanes(&mut self, m: S::Mask, ids: &[u32]) {
        let (mut kd, mut kj) = self.to_arrays();
        let id = |w: f32| ids[(w.to_bits() & INDEX) as usize];
        let mut bits = S::bits(m);
        while bits != 0 {
            let l = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            for i in 1..K {
                let mut at = i;
                while at > 0 && kd[at][l] < f32::INFINITY && {
                    let (a, b) = (kd[at - 1][l], kd[at][l]);
                    b < a || (b == a && id(kj[at][l]) < id(kj[at - 1][l]))
                } {
                    let (a, b) = (at - 1, at);
                    (kd[a][l], kd[b][l]) = (kd[b][l], kd[a][l]);
                    (kj[a][l], kj[b][l]) = (kj[b][l], kj[a][l]);
                    at -= 1;
                }
            }
        }
        self.set_arrays(&kd, &kj);
    }

    /// Puts the entries of a lane that are exactly as far as one another in
    /// id order (the insertions put them in the order found).
    #[inline(always)]
    fn order_ties(&mut self, ids: &[u32]) {
        let inf = S::splat(f32::INFINITY);
        let mut tied = S::lanes(0, 0);
        for i in 1..K {
            let same = S::and(self.d2[i].eq(self.d2[i - 1]), self.d2[i].lt(inf));
            tied = S::or(tied, same);
        }
        if S::bits(tied) == 0 {
            return;
        }
        let (mut kd, mut kj) = self.to_arrays();
        let mut bits = S::bits(tied);
        while bits != 0 {
            let l = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            Self::sort_lane(&mut kd, &mut kj, l, ids);
        }
        self.set_arrays(&kd, &kj);
    }

    /// Sets the lists from arrays ([`Self::to_arrays`]).
    #[inline(always)]
    fn set_arrays(&mut self, kd: &[[f32; MAX_LANES]; K], kj: &[[f32; MAX_LANES]; K]) {
        for i in 0..K {
            self.d2[i] = S::from_slice(&kd[i]);
            self.j[i] = S::from_slice(&kj[i]);
        }
    }

    /// [`Self::insert`] lane by lane by (distance², id), where a tie decides
    /// which entries stay: each lane's ties put in id order first.
    #[inline(always)]
    fn insert_by_id(&mut self, pass: S::Mask, d2: S, jw: S, ids: &[u32]) {
        let (mut kd, mut kj) = self.to_arrays();
        let (mut cd, mut cj) = ([0.0f32; MAX_LANES], [0.0f32; MAX_LANES]);
        d2.write_to(&mut cd);
        jw.write_to(&mut cj);
        let id = |w: f32| ids[(w.to_bits() & INDEX) as usize];
        let mut bits = S::bits(pass);
        while bits != 0 {
            let l = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            Self::sort_lane(&mut kd, &mut kj, l, ids);
            let (d, w) = (cd[l], cj[l]);
            let before = |kd: &[[f32; MAX_LANES]; K], kj: &[[f32; MAX_LANES]; K], i: usize| {
                kd[i][l] < d || (kd[i][l] == d && id(kj[i][l]) < id(w))
            };
            if before(&kd, &kj, K - 1) {
                continue;
            }
            let mut at = K - 1;
            while at > 0 && !before(&kd, &kj, at - 1) {
                kd[at][l] = kd[at - 1][l];
                kj[at][l] = kj[at - 1][l];
                at -= 1;
            }
            kd[at][l] = d;
            kj[at][l] = w;
        }
        self.set_arrays(&kd, &kj);
    }
}

//! The uniform neighbour grid, rebuilt each step by a stable counting sort.
//!
//! Build: one cell key per boid (parallel), a count per cell, an exclusive prefix sum
//! (`cell_start`), and a stable scatter of slot indices into cell order (`order`).
//! Cells are numbered x-fastest, so the three cells `x−1..=x+1` of one row are one
//! contiguous run of sorted indices: a 2D query scans 3 runs, a 3D query 9. Cell
//! edges exceed the query radius by a margin beyond any rounding, so those runs
//! hold every boid within it, and a boid two cells away along x never is.
//! Within a cell, boids are then ordered by x, ties by slot (storage) order
//! ([`Grid::sort_cells_along_x`]), which makes each row one run sorted by x and
//! the sorted order, and so every floating-point sum, a pure function of the
//! stored state.

mod along_x;
mod nearby;
mod prefix;
mod rings;
mod span;

pub(crate) use nearby::Nearby;
pub(crate) use span::Span;

use crate::params::{Boundary, WorldConfig};
use crate::vector::Vector;
use rayon::prelude::*;

/// Most cells the grid will allocate per boid; sparser worlds get larger cells
/// (still exact, only slower queries) instead of unbounded memory.
const MAX_CELLS_PER_BOID: usize = 4;
/// Cells always allowed, however few boids.
const MIN_CELL_BUDGET: usize = 4096;
/// Relative margin of a cell's edge over the query radius (2⁻¹²); the edge
/// also adds 2⁻²⁰ of the coordinates' magnitude, eight times their rounding
/// ([`Grid::build`]).
const EDGE_MARGIN: f32 = 1.0 / 4096.0;
/// Boids from which the counting sort splits into one block per thread.
const SPLIT_AT: usize = 4096;
/// The most blocks the counting sort splits into: each holds a count per cell.
/// Threads beyond them sit out the count and the scatter (the prefix and the
/// sort along x use every thread).
const MAX_BLOCKS: usize = 16;
// From SPLIT_AT boids, `ceil(n / ceil(n / b))` is `b` for every block count
// up to MAX_BLOCKS (it holds while n > (b - 1)²): every block gets keys, so
// every block zeroes its own counts (`count_and_scatter`).
const _: () = assert!((MAX_BLOCKS - 1) * (MAX_BLOCKS - 1) < SPLIT_AT);

/// A contiguous run of sorted indices `[start, end)` whose positions must be moved by
/// `shift` (a periodic image offset) before measuring distances.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Run<V> {
    /// First sorted index.
    pub start: u32,
    /// One past the last sorted index.
    pub end: u32,
    /// Offset added to the positions of this run (non-zero only across a periodic seam).
    pub shift: V,
}

/// Up to 18 runs covering the 3^DIM cells around one cell (9 rows × a seam split).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Runs<V> {
    len: usize,
    items: [Run<V>; 18],
}

impl<V: Vector> Runs<V> {
    fn new() -> Self {
        Self {
            len: 0,
            items: [Run {
                start: 0,
                end: 0,
                shift: V::ZERO,
            }; 18],
        }
    }
    /// The runs.
    #[inline]
    pub fn as_slice(&self) -> &[Run<V>] {
        &self.items[..self.len]
    }
}

/// The uniform grid with its counting-sort scratch. Owns only reusable memory: in
/// steady state a rebuild allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct Grid {
    origin: [f32; 3],
    inv_cell: [f32; 3],
    /// Cells per axis (unused axes are 1).
    dims: [u32; 3],
    /// Periodic box size per axis, when the world wraps.
    period: Option<[f32; 3]>,
    /// Dimension of the last build (2 or 3).
    dim: usize,
    /// True when some periodic axis has fewer than 3 cells: runs then cover the whole
    /// axis and distances need the minimum-image correction per pair.
    min_image: bool,
    /// Exclusive prefix sum of per-cell counts; `cell_start[c]..cell_start[c + 1]`.
    cell_start: Vec<u32>,
    /// Sorted index → slot (index into the positions the grid was built from).
    order: Vec<u32>,
    /// Cell key per slot.
    keys: Vec<u32>,
    /// Scatter cursors.
    cursor: Vec<u32>,
}

/// How to lay the grid over space.
#[derive(Clone, Copy, Debug)]
pub enum Extent<V> {
    /// A periodic box `[min, max)`: positions are already wrapped into it.
    Periodic {
        /// Lower corner.
        min: V,
        /// Upper corner.
        max: V,
    },
    /// Open space: the grid covers the bounding box of the positions.
    Open,
}

impl<V: Vector> Extent<V> {
    /// The extent a world's box implies: periodic when it wraps, else open.
    pub fn of(config: &WorldConfig<V>) -> Self {
        match config.boundary {
            Boundary::Wrap => Extent::Periodic {
                min: config.min,
                max: config.max,
            },
            _ => Extent::Open,
        }
    }
}

impl Grid {
    /// Empty grid.
    pub fn new() -> Self {
        Self::default()
    }

    /// Rebuilds for `positions` with cells at least `radius` wide.
    pub fn build<V: Vector>(&mut self, positions: &[V], radius: f32, extent: Extent<V>) {
        let n = positions.len();
        let budget = (n * MAX_CELLS_PER_BOID).max(MIN_CELL_BUDGET);
        let radius = radius.max(1e-6);
        let (origin, size, periodic) = match extent {
            Extent::Periodic { min, max } => (min, max - min, true),
            Extent::Open => {
                let (lo, hi) = bounding_box(positions);
                (lo, hi - lo, false)
            }
        };
        // Cells per axis: as many as fit at edge >= radius, within the budget.
        // The edge exceeds the radius by a margin far beyond the rounding of a
        // key or an offset at these coordinates, so a boid two cells away
        // along x is never within the radius (the kernel scans a row as one
        // run, every lane every candidate).
        let mut magnitude = 0.0f32;
        for i in 0..V::DIM {
            magnitude = magnitude.max(origin.get(i).abs() + size.get(i).abs());
        }
        let mut cell = radius + radius * EDGE_MARGIN + magnitude * EDGE_MARGIN / 256.0;
        let dims = loop {
            let mut d = [1u32; 3];
            let mut total = 1usize;
            for (i, di) in d.iter_mut().enumerate().take(V::DIM) {
                let s = size.get(i).max(0.0);
                let k = if periodic {
                    (s / cell).floor()
                } else {
                    (s / cell).floor() + 1.0
                };
                *di = k.clamp(1.0, 1e9) as u32;
                total = total.saturating_mul(*di as usize);
            }
            if total <= budget {
                break d;
            }
            cell *= 1.5;
        };
        let mut inv = [0.0f32; 3];
        let mut org = [0.0f32; 3];
        let mut min_image = false;
        for i in 0..V::DIM {
            org[i] = origin.get(i);
            inv[i] = if periodic {
                dims[i] as f32 / size.get(i)
            } else {
                1.0 / cell
            };
            if periodic && dims[i] < 3 {
                min_image = true;
            }
        }
        self.origin = org;
        self.inv_cell = inv;
        self.dims = dims;
        self.dim = V::DIM;
        self.min_image = min_image;
        self.period = periodic.then(|| {
            let mut p = [0.0f32; 3];
            for (i, pi) in p.iter_mut().enumerate().take(V::DIM) {
                *pi = size.get(i);
            }
            p
        });

        // Counting sort: keys, counts, prefix, stable scatter.
        let cells = (dims[0] * dims[1] * dims[2]) as usize;
        self.count_and_scatter(positions, cells);
        self.sort_cells_along_x(positions);
    }

    /// The stable counting sort of the keys: per-cell counts, their prefix sum
    /// (`cell_start`) and the scatter of slots into `order`.
    ///
    /// From [`SPLIT_AT`] boids the slots split into blocks, one per thread: each
    /// block computes and counts its keys (one parallel section for both), a
    /// prefix over (cell, block) gives every block its own range inside each
    /// cell, and the blocks scatter in parallel. Within a cell, lower blocks
    /// come first and each block keeps slot order, so `order` is exactly the serial
    /// stable sort whatever the number of blocks.
    ///
    /// Each block's counts span every cell, so each block adds a pass over
    /// the cells (zeroing and prefix: about 0.1 ms at a million boids); with
    /// a block per thread, up to [`MAX_BLOCKS`], that stays one pass per
    /// thread.
    fn count_and_scatter<V: Vector>(&mut self, positions: &[V], cells: usize) {
        let n = positions.len();
        let blocks = if n < SPLIT_AT {
            1
        } else {
            rayon::current_num_threads().clamp(1, MAX_BLOCKS)
        };
        let per = n.div_ceil(blocks).max(1);
        let mut keys = std::mem::take(&mut self.keys);
        keys.resize(n, 0);
        let mut cursor = std::mem::take(&mut self.cursor);
        // Split blocks zero their own rows below (from SPLIT_AT boids there is
        // a chunk of keys for every block); one block, perhaps of no boids, is
        // zeroed here.
        debug_assert!(blocks == 1 || n.div_ceil(per) == blocks);
        if blocks == 1 {
            cursor.clear();
        }
        cursor.resize(blocks * cells, 0);
        let this = &*self;
        cursor
            .par_chunks_mut(cells)
            .zip(keys.par_chunks_mut(per))
            .zip(positions.par_chunks(per))
            .for_each(|((count, keys), positions)| {
                count.fill(0);
                // Keys first, in a loop of their own (it vectorizes).
                for (k, &p) in keys.iter_mut().zip(positions) {
                    *k = this.key_of(p);
                }
                for &k in keys.iter() {
                    count[k as usize] += 1;
                }
            });
        self.keys = keys;
        self.cursor = cursor;
        self.order.resize(n, 0);
        let keys = &self.keys;
        // Exclusive prefix over cells, and within each cell over blocks
        // (every entry is written).
        self.cell_start.resize(cells + 1, 0);
        prefix::cells_then_blocks(&mut self.cursor, &mut self.cell_start, cells);
        if blocks == 1 {
            for (slot, &k) in self.keys.iter().enumerate() {
                let c = &mut self.cursor[k as usize];
                self.order[*c as usize] = slot as u32;
                *c += 1;
            }
            return;
        }
        let out = Disjoint::new(&mut self.order);
        self.cursor
            .par_chunks_mut(cells)
            .zip(keys.par_chunks(per))
            .enumerate()
            .for_each(|(b, (cursor, keys))| {
                let out = &out;
                for (i, &k) in keys.iter().enumerate() {
                    let c = &mut cursor[k as usize];
                    // SAFETY: `*c` lies in this block's own range of the cell.
                    unsafe { out.write(*c as usize, (b * per + i) as u32) };
                    *c += 1;
                }
            });
    }

    /// Cell coordinates of a position (clamped into the grid).
    #[inline]
    pub fn coords_of<V: Vector>(&self, p: V) -> [u32; 3] {
        let mut c = [0u32; 3];
        for (i, ci) in c.iter_mut().enumerate().take(V::DIM) {
            let f = ((p.get(i) - self.origin[i]) * self.inv_cell[i]).floor();
            // NaN and negatives go to 0 via the saturating cast.
            *ci = (f as u32).min(self.dims[i] - 1);
        }
        c
    }

    #[inline]
    fn key_of<V: Vector>(&self, p: V) -> u32 {
        self.cell_index(self.coords_of(p)) as u32
    }

    /// Cells per axis.
    #[inline]
    pub fn dims(&self) -> [u32; 3] {
        self.dims
    }

    /// Index of the cell at coordinates `c`.
    #[inline]
    pub fn cell_index(&self, c: [u32; 3]) -> usize {
        ((c[2] * self.dims[1] + c[1]) * self.dims[0] + c[0]) as usize
    }

    /// Centre of the cell at coordinates `c` and half its diagonal, units.
    pub fn cell_ball<V: Vector>(&self, c: [u32; 3]) -> (V, f32) {
        let (mut centre, mut h2) = (V::ZERO, 0.0f32);
        for (i, &ci) in c.iter().enumerate().take(V::DIM) {
            let w = 1.0 / self.inv_cell[i];
            centre.set(i, self.origin[i] + (ci as f32 + 0.5) * w);
            h2 += 0.25 * w * w;
        }
        (centre, h2.sqrt())
    }

    /// Narrowest cell edge over the used axes, units.
    pub fn min_cell_width(&self) -> f32 {
        (0..self.dim)
            .map(|i| 1.0 / self.inv_cell[i])
            .fold(f32::INFINITY, f32::min)
    }

    /// Cell edge per axis, units (unused axes 0).
    pub fn cell_widths(&self) -> [f32; 3] {
        std::array::from_fn(|i| {
            if i < self.dim {
                1.0 / self.inv_cell[i]
            } else {
                0.0
            }
        })
    }

    /// Number of cells.
    #[inline]
    pub fn cell_count(&self) -> usize {
        (self.dims[0] * self.dims[1] * self.dims[2]) as usize
    }

    /// Cell key per slot of the positions the grid was built from.
    #[inline]
    pub fn keys(&self) -> &[u32] {
        &self.keys
    }

    /// Sorted index → slot.
    #[inline]
    pub fn order(&self) -> &[u32] {
        &self.order
    }

    /// Sorted-index range of cell `c`.
    #[inline]
    pub fn cell_range(&self, c: usize) -> std::ops::Range<usize> {
        self.cell_start[c] as usize..self.cell_start[c + 1] as usize
    }

    /// The cell holding sorted index `si`, given that `si` lies past cell
    /// `after` (the walk's previous cell): the next non-empty cell, found in
    /// `cell_start` (read in order) instead of through `keys[order[si]]`, a
    /// cache miss per cell. Far past `after`, the keys answer.
    #[inline]
    pub fn cell_after(&self, after: usize, si: usize) -> usize {
        let si = si as u32;
        debug_assert!(
            self.cell_start[after + 1] <= si,
            "{si} lies past cell {after}"
        );
        // Every cell from `after + 1` on starts at or before `si`, so the first
        // that ends past it holds it.
        let last = self.cell_count().min(after + 9);
        if let Some(c) = (after + 1..last).find(|&c| si < self.cell_start[c + 1]) {
            return c;
        }
        self.keys[self.order[si as usize] as usize] as usize
    }

    /// Coordinates of cell index `c`.
    #[inline]
    pub fn cell_coords(&self, c: usize) -> [u32; 3] {
        let c = c as u32;
        let x = c % self.dims[0];
        let yz = c / self.dims[0];
        [x, yz % self.dims[1], yz / self.dims[1]]
    }

    /// True when pairs need the per-pair minimum-image correction.
    #[inline]
    pub fn needs_min_image(&self) -> bool {
        self.min_image
    }

    /// Periodic box size, if the world wraps.
    #[inline]
    pub fn period<V: Vector>(&self) -> Option<V> {
        self.period.map(V::from_array3)
    }

    /// Bytes of heap memory held.
    pub fn heap_bytes(&self) -> usize {
        4 * (self.cell_start.capacity()
            + self.order.capacity()
            + self.keys.capacity()
            + self.cursor.capacity())
    }

    /// The runs of sorted indices covering every cell within one cell of `c`.
    pub(crate) fn runs<V: Vector>(&self, c: [u32; 3]) -> Runs<V> {
        let mut out = Runs::new();
        self.runs_into(c, &mut out);
        out
    }

    /// [`Grid::runs`] writing into `out` (no copy of the run list).
    #[inline]
    pub(crate) fn runs_into<V: Vector>(&self, c: [u32; 3], out: &mut Runs<V>) {
        out.len = 0;
        // Fast path, most cells: a neighbour on both sides along every axis, so no
        // clipping, no seam and no shift. Same runs in the same order as below.
        if (0..self.dim).all(|a| c[a] >= 1 && c[a] + 1 < self.dims[a]) {
            let (z0, z1) = if self.dim == 3 {
                (c[2] - 1, c[2] + 1)
            } else {
                (c[2], c[2])
            };
            let x = c[0] as usize;
            for z in z0..=z1 {
                for y in c[1] - 1..=c[1] + 1 {
                    let base = ((z * self.dims[1] + y) * self.dims[0]) as usize;
                    let start = self.cell_start[base + x - 1];
                    let end = self.cell_start[base + x + 2];
                    if start < end {
                        out.items[out.len] = Run {
                            start,
                            end,
                            shift: V::ZERO,
                        };
                        out.len += 1;
                    }
                }
            }
            return;
        }
        let (ys, ny) = self.axis_options(1, c[1]);
        let (zs, nz) = self.axis_options(2, c[2]);
        let (xs, nx) = self.x_runs(c[0]);
        for &(z, sz) in &zs[..nz] {
            for &(y, sy) in &ys[..ny] {
                let base = ((z * self.dims[1] + y) * self.dims[0]) as usize;
                for &(x0, x1, sx) in &xs[..nx] {
                    let start = self.cell_start[base + x0 as usize];
                    let end = self.cell_start[base + x1 as usize + 1];
                    if start < end {
                        out.items[out.len] = Run {
                            start,
                            end,
                            shift: V::from_array3([sx, sy, sz]),
                        };
                        out.len += 1;
                    }
                }
            }
        }
    }

    /// Calls `f(slot, offset)` for every boid (other than `exclude`) strictly within
    /// `radius` of `p`, where `offset` is the vector from `p` to it (nearest periodic
    /// image). `positions` must be the slice the grid was built from, and `radius`
    /// at most the build radius.
    pub fn for_each_within<V: Vector>(
        &self,
        positions: &[V],
        p: V,
        radius: f32,
        exclude: Option<usize>,
        mut f: impl FnMut(usize, V),
    ) {
        let r2 = radius * radius;
        let period = self.period::<V>().unwrap_or(V::ZERO);
        for run in self.runs::<V>(self.coords_of(p)).as_slice() {
            let origin = p - run.shift;
            for &slot in &self.order[run.start as usize..run.end as usize] {
                let slot = slot as usize;
                let mut d = positions[slot] - origin;
                if self.min_image {
                    d = crate::vector::min_image(d, period);
                }
                if Some(slot) != exclude && d.length_squared() < r2 {
                    f(slot, d);
                }
            }
        }
    }

    /// Calls `f(range, shift, wrap)` with ranges of sorted indices that together
    /// hold, each once, every boid whose cell lies within `radius` of `p`'s cell
    /// along each axis (any radius, many cells). The offset from `p` to a boid of
    /// the range is `position - (p - shift)`, then the nearest periodic image when
    /// `wrap` is set (the search covers a whole periodic axis). `p` must lie in the
    /// grid's domain.
    pub fn for_each_range_near<V: Vector>(
        &self,
        p: V,
        radius: f32,
        mut f: impl FnMut(std::ops::Range<usize>, V, bool),
    ) {
        let c = self.coords_of(p);
        let mut wrap = false;
        // Up to two coordinate intervals per axis, each with its periodic shift.
        let mut span = |a: usize| -> ([(u32, u32, f32); 2], usize) {
            if a >= self.dim {
                return ([(0, 0, 0.0); 2], 1);
            }
            let n = self.dims[a] as i64;
            let k = (radius * self.inv_cell[a]).ceil().clamp(1.0, 1e9) as i64;
            let (lo, hi) = (c[a] as i64 - k, c[a] as i64 + k);
            let Some(period) = self.period else {
                return (
                    [(lo.max(0) as u32, hi.min(n - 1) as u32, 0.0), (0, 0, 0.0)],
                    1,
                );
            };
            let l = period[a];
            if hi - lo + 1 >= n {
                wrap = true;
                ([(0, n as u32 - 1, 0.0), (0, 0, 0.0)], 1)
            } else if lo < 0 {
                (
                    [((lo + n) as u32, n as u32 - 1, -l), (0, hi as u32, 0.0)],
                    2,
                )
            } else if hi >= n {
                ([(lo as u32, n as u32 - 1, 0.0), (0, (hi - n) as u32, l)], 2)
            } else {
                ([(lo as u32, hi as u32, 0.0), (0, 0, 0.0)], 1)
            }
        };
        let (xs, nx) = span(0);
        let (ys, ny) = span(1);
        let (zs, nz) = span(2);
        for &(z0, z1, sz) in &zs[..nz] {
            for z in z0..=z1 {
                for &(y0, y1, sy) in &ys[..ny] {
                    for y in y0..=y1 {
                        let base = ((z * self.dims[1] + y) * self.dims[0]) as usize;
                        for &(x0, x1, sx) in &xs[..nx] {
                            let start = self.cell_start[base + x0 as usize] as usize;
                            let end = self.cell_start[base + x1 as usize + 1] as usize;
                            if start < end {
                                f(start..end, V::from_array3([sx, sy, sz]), wrap);
                            }
                        }
                    }
                }
            }
        }
    }

    /// Neighbouring coordinates along axis `a` with their periodic shift (at most 3:
    /// a periodic axis of 1 or 2 cells lists each cell once).
    #[inline]
    pub(crate) fn axis_options(&self, a: usize, x: u32) -> ([(u32, f32); 3], usize) {
        let n = self.dims[a];
        let mut o = [(x, 0.0f32); 3];
        match self.period {
            Some(_) if n < 3 => {
                for (k, ok) in o.iter_mut().enumerate().take(n as usize) {
                    *ok = (k as u32, 0.0);
                }
                (o, n as usize)
            }
            Some(p) => {
                let l = p[a];
                o[0] = if x == 0 { (n - 1, -l) } else { (x - 1, 0.0) };
                o[2] = if x + 1 == n { (0, l) } else { (x + 1, 0.0) };
                (o, 3)
            }
            None => {
                let lo = x.saturating_sub(1);
                let count = ((x + 1).min(n - 1) - lo + 1) as usize;
                for (k, ok) in o.iter_mut().enumerate().take(count) {
                    *ok = (lo + k as u32, 0.0);
                }
                (o, count)
            }
        }
    }

    /// Neighbouring x coordinates merged into contiguous runs `(x0, x1, shift)`.
    #[inline]
    fn x_runs(&self, x: u32) -> ([(u32, u32, f32); 3], usize) {
        let (opts, n) = self.axis_options(0, x);
        let mut o = [(0u32, 0u32, 0.0f32); 3];
        let mut len = 0;
        for &(k, s) in &opts[..n] {
            if len > 0 && o[len - 1].2 == s && o[len - 1].1 + 1 == k {
                o[len - 1].1 = k;
            } else {
                o[len] = (k, k, s);
                len += 1;
            }
        }
        (o, len)
    }
}

/// Component-wise bounding box of finite positions (zero box when none).
pub(crate) fn bounding_box<V: Vector>(positions: &[V]) -> (V, V) {
    let init = || (V::splat(f32::INFINITY), V::splat(f32::NEG_INFINITY));
    let (lo, hi) = positions
        .par_iter()
        .with_min_len(8192)
        .fold(init, |(lo, hi), &p| (lo.min_elem(p), hi.max_elem(p)))
        .reduce(init, |a, b| (a.0.min_elem(b.0), a.1.max_elem(b.1)));
    if lo.is_finite() && hi.is_finite() {
        (lo, hi)
    } else {
        (V::ZERO, V::ZERO)
    }
}

/// A slice shared by threads that each touch only their own indices: the
/// scatter's `order` (each (cell, block) pair owns a range of it) and the
/// prefix's counts (each chunk of cells owns its cells in every block's row).
struct Disjoint<'a>(*mut u32, usize, std::marker::PhantomData<&'a mut [u32]>);

// SAFETY: the callers of `write` and `replace` guarantee that no two threads
// touch one index, and the slice is borrowed mutably for the struct's life.
unsafe impl Sync for Disjoint<'_> {}

impl<'a> Disjoint<'a> {
    /// Shares `s` for the length of the borrow.
    fn new(s: &'a mut [u32]) -> Self {
        Self(s.as_mut_ptr(), s.len(), std::marker::PhantomData)
    }

    /// Writes `s[i] = v`.
    ///
    /// SAFETY: no other thread reads or writes index `i` meanwhile.
    #[inline(always)]
    unsafe fn write(&self, i: usize, v: u32) {
        assert!(i < self.1);
        // SAFETY: in bounds (checked above); exclusive by the caller's guarantee.
        unsafe { self.0.add(i).write(v) }
    }

    /// Writes `s[i] = v` and returns what it held.
    ///
    /// SAFETY: no other thread reads or writes index `i` meanwhile.
    #[inline(always)]
    unsafe fn replace(&self, i: usize, v: u32) -> u32 {
        assert!(i < self.1);
        // SAFETY: in bounds (checked above); exclusive by the caller's guarantee.
        unsafe { self.0.add(i).replace(v) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec2;

    #[test]
    fn cells_are_complete_and_sorted_by_x_then_slot() {
        let pts: Vec<Vec2> = (0..1000)
            .map(|i| Vec2::new((i * 7 % 31) as f32 * 0.33, (i * 13 % 17) as f32 * 0.5))
            .collect();
        let mut g = Grid::new();
        g.build(&pts, 1.0, Extent::Open);
        let mut seen = vec![false; pts.len()];
        for c in 0..g.cell_count() {
            let r = g.cell_range(c);
            let slots = &g.order()[r];
            let key = |s: u32| (pts[s as usize].x, s);
            assert!(
                slots.windows(2).all(|w| key(w[0]) < key(w[1])),
                "by x within a cell, ties in slot order"
            );
            for &s in slots {
                assert_eq!(g.key_of(pts[s as usize]) as usize, c);
                seen[s as usize] = true;
            }
        }
        assert!(seen.iter().all(|&s| s));
    }

    /// The walk's cheap lookup of the next cell agrees with the keys, across
    /// runs of empty cells short and long (the long ones fall back to the keys).
    #[test]
    fn cell_after_finds_the_cell_of_the_next_sorted_index() {
        // Points in a few clumps along a line: most cells empty, gaps of every length.
        let pts: Vec<Vec2> = (0..400)
            .map(|i| {
                let clump = (i % 9) as f32 * (1.0 + (i % 9) as f32);
                Vec2::new(clump + (i % 5) as f32 * 0.1, ((i / 9) % 3) as f32 * 1.1)
            })
            .collect();
        let mut g = Grid::new();
        g.build(&pts, 1.0, Extent::Open);
        let cell_of = |si: usize| g.keys()[g.order()[si] as usize] as usize;
        let mut checked = 0;
        for si in 1..pts.len() {
            let prev = cell_of(si - 1);
            if g.cell_range(prev).end == si {
                assert_eq!(g.cell_after(prev, si), cell_of(si), "sorted index {si}");
                checked += 1;
            }
        }
        assert!(checked > 20, "only {checked} cell boundaries");
    }

    /// Grids from `SPLIT_AT` boids count and scatter in parallel blocks; the
    /// sort must be the serial stable sort, whatever the number of threads (and
    /// so of blocks, up to `MAX_BLOCKS`; past it the prefix still splits by
    /// thread), just above that size and far above it.
    #[test]
    fn parallel_counting_sort_equals_the_serial_one() {
        for n in [SPLIT_AT as u32 + 904, 150_000] {
            parallel_sort_equals_serial(n);
        }
    }

    fn parallel_sort_equals_serial(n: u32) {
        let pts: Vec<Vec2> = (0..n)
            .map(|i| {
                let h = i.wrapping_mul(0x9e37_79b9);
                Vec2::new((h % 1000) as f32 * 0.1, ((h >> 10) % 1000) as f32 * 0.1)
            })
            .collect();
        let build = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let mut g = Grid::new();
                g.build(&pts, 1.0, Extent::Open);
                // A block per thread, up to sixteen (a 16-thread machine
                // counts and scatters on every thread), each a count per cell.
                let blocks = threads.min(16);
                assert_eq!(g.cursor.len(), blocks * g.cell_count(), "{threads} threads");
                (g.order().to_vec(), g.cell_start.clone())
            })
        };
        let serial = build(1);
        // Complete and ordered: keys never decrease along the order; within
        // a cell, by x and then slot.
        let mut g = Grid::new();
        g.build(&pts, 1.0, Extent::Open);
        for w in serial.0.windows(2) {
            let (a, b) = (g.key_of(pts[w[0] as usize]), g.key_of(pts[w[1] as usize]));
            let (xa, xb) = (pts[w[0] as usize].x, pts[w[1] as usize].x);
            assert!(a < b || (a == b && (xa, w[0]) < (xb, w[1])));
        }
        for threads in [2, 3, 8, 16, 17, 65] {
            assert!(build(threads) == serial, "{threads} threads");
        }
    }

    #[test]
    fn runs_split_at_the_periodic_seam() {
        let pts = vec![
            Vec2::new(0.5, 0.5),
            Vec2::new(9.5, 0.5),
            Vec2::new(5.0, 5.0),
        ];
        let mut g = Grid::new();
        g.build(
            &pts,
            0.99,
            Extent::Periodic {
                min: Vec2::ZERO,
                max: Vec2::splat(10.0),
            },
        );
        assert_eq!(g.dims(), [10, 10, 1]);
        let runs = g.runs::<Vec2>(g.coords_of(pts[0]));
        let shifts: Vec<Vec2> = runs.as_slice().iter().map(|r| r.shift).collect();
        assert!(shifts.contains(&Vec2::new(-10.0, 0.0)), "{shifts:?}");
    }

    /// The kernel scans a row as one run and relies on this: a boid two or
    /// more cells away along x is never within the radius, as the kernel
    /// measures it (reach: the least offset whose rounded square reaches r²),
    /// even at cell edges, far from the origin and across the periodic seam.
    #[test]
    fn a_boid_two_cells_away_along_x_is_out_of_reach() {
        let cases = [
            (1.0f32, 0.0f32, 125.0f32, true),
            (1.0, 0.0, 125.0, false),
            (0.5, 1.0e4, 64.0, false),
            (0.37, -3.0e3, 40.0, true),
            (2.5, 7.5e4, 250.0, true),
            (1.0 / 3.0, 0.0, 100.0, true),
            (1.0 / 3.0, 0.0, 100.0, false),
            (0.1, 0.0, 70.0, true),
            (0.1, 0.0, 70.0, false),
            (0.7, 3.3, 77.7, true),
            (0.7, 3.3, 77.7, false),
            (1.1, 123.4, 110.0, true),
            (1.1, 123.4, 110.0, false),
        ];
        for (radius, at, side, periodic) in cases {
            // A strip four radii high: few enough cells for the budget of
            // the points below, so the cells stay at the radius.
            let (min, max) = (Vec2::splat(at), Vec2::new(at + side, at + 4.0 * radius));
            let extent = if periodic {
                Extent::Periodic { min, max }
            } else {
                Extent::Open
            };
            // The first and last x of every cell, as the keys round them.
            let far = Vec2::new(at + side * 0.999, at + 3.9 * radius);
            let mut g = Grid::new();
            g.build(&[min, far], radius, extent);
            let w = g.cell_widths()[0];
            let slack = 1.01 * radius + (at.abs() + side) / (1 << 19) as f32;
            assert!(w > radius && w < slack, "{radius} {at}: edge {w}");
            let cell = |x: f32| g.coords_of(Vec2::new(x, at))[0];
            let mut pts = vec![min, far];
            for k in 1..g.dims()[0] {
                let (mut lo, mut hi) = (at, far.x);
                while lo.next_up() < hi {
                    let mid = 0.5 * (lo + hi);
                    if cell(mid) >= k { hi = mid } else { lo = mid }
                }
                pts.extend([lo, hi].map(|x| Vec2::new(x, at + radius)));
            }
            g.build(&pts, radius, extent);
            let reach = crate::step::rules::reach_of(radius * radius);
            let period = if periodic { side } else { 0.0 };
            let n = g.dims()[0] as i64;
            for &a in &pts {
                for &b in &pts {
                    let (ca, cb) = (g.coords_of(a)[0] as i64, g.coords_of(b)[0] as i64);
                    // Cells apart along x, and the image the kernel would use.
                    let images = [
                        (cb - ca, 0.0),
                        (cb - ca - n, period),
                        (cb - ca + n, -period),
                    ];
                    for (apart, shift) in &images[..if periodic { 3 } else { 1 }] {
                        let (apart, shift) = (*apart, *shift);
                        if apart.abs() >= 2 {
                            let dx = b.x - (a.x + shift);
                            assert!(
                                dx.abs() >= reach,
                                "{radius} {at}: {} and {} are {apart} cells apart but {dx} away",
                                a.x,
                                b.x
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn sparse_worlds_get_bounded_cell_counts() {
        let pts = vec![Vec2::ZERO, Vec2::splat(1e6)];
        let mut g = Grid::new();
        g.build(&pts, 1.0, Extent::Open);
        assert!(g.cell_count() <= MIN_CELL_BUDGET);
    }
}

//! The cells a group of boids scans ([`Span`]), for the group kernel
//! ([`crate::step::kernel::accumulate`]).

use super::Grid;
use crate::vector::Vector;

/// Most cells of one row a group's boids may occupy ([`Grid::span_of`]).
pub(crate) const MAX_SPAN: u32 = 4;

/// The cells a group of boids scans: the consecutive boids of up to
/// [`MAX_SPAN`] cells of one row, each of whose neighbours lies in the cells
/// within one of its own. Rows of cells (3 in 2D, 9 in 3D), each cut along x
/// into up to three pieces (a periodic seam splits the span); per column of
/// the span, the lanes (boids) whose own cells it is among (the kernel masks
/// by it only with nearest images; the coincident re-scan always).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Span<V> {
    /// Per row: index in `cell_start` of its cell x = 0, and its periodic shift
    /// (x component zero).
    pub rows: [(usize, V); 9],
    /// Rows in use.
    pub row_count: usize,
    /// Per piece: first and last cell x, the shift along x, and the index in
    /// `see` of its first cell.
    pub pieces: [(u32, u32, f32, u32); 3],
    /// Pieces in use.
    pub piece_count: usize,
    /// Per column, from one left of the group's first cell to one right of its
    /// last (unwrapped): the lanes `lo..hi` whose cell lies within one of it.
    pub see: [(u8, u8); MAX_SPAN as usize + 2],
}

impl Grid {
    /// The sorted index a group starting in cell `c` (at x coordinate `x`)
    /// ends at, at the latest: the start of the cell [`MAX_SPAN`] cells on
    /// along the row, or the row's end.
    #[inline]
    pub(crate) fn span_end(&self, c: usize, x: u32) -> usize {
        let (dx, x) = (self.dims[0] as usize, x as usize);
        self.cell_start[c - x + (x + MAX_SPAN as usize).min(dx)] as usize
    }

    /// The cells scanned by the boids `first..end` (consecutive, of one row,
    /// `first` in cell `c` at `coords`, within [`Grid::span_end`]). The caller
    /// passes the coordinates it already has: each costs an integer division.
    #[inline]
    pub(crate) fn span_of<V: Vector>(
        &self,
        c: usize,
        coords: [u32; 3],
        first: usize,
        end: usize,
    ) -> Span<V> {
        debug_assert!(first < end && end <= self.span_end(c, coords[0]));
        debug_assert_eq!(coords, self.cell_coords(c));
        let x0 = coords[0];
        let row0 = c - x0 as usize;
        let start = |x: u32| self.cell_start[row0 + x as usize] as usize;
        // The group's last cell: the first whose successor starts at `end` or later.
        let mut x1 = x0;
        while start(x1 + 1) < end {
            x1 += 1;
        }
        let mut span = Span {
            rows: [(0, V::ZERO); 9],
            row_count: 0,
            pieces: [(0, 0, 0.0, 0); 3],
            piece_count: 0,
            see: [(0, 0); MAX_SPAN as usize + 2],
        };
        let count = (end - first) as u8;
        let n = self.dims[0];
        let mut piece = |a: u32, b: u32, shift: f32, see: u32| {
            span.pieces[span.piece_count] = (a, b, shift, see);
            span.piece_count += 1;
        };
        match self.period {
            // Fewer than three cells: one piece, the whole axis, seen by every
            // lane (the kernel takes the nearest image per pair).
            Some(_) if n < 3 => piece(0, n - 1, 0.0, 0),
            Some(p) => {
                if x0 == 0 {
                    piece(n - 1, n - 1, -p[0], 0);
                }
                let a = x0.max(1) - 1;
                piece(a, (x1 + 1).min(n - 1), 0.0, a + 1 - x0);
                if x1 + 1 == n {
                    piece(0, 0, p[0], x1 + 2 - x0);
                }
            }
            None => {
                let a = x0.max(1) - 1;
                piece(a, (x1 + 1).min(n - 1), 0.0, a + 1 - x0);
            }
        }
        if self.min_image && n < 3 {
            span.see = [(0, count); MAX_SPAN as usize + 2];
        } else {
            // Column x0 - 1 + i is seen by the lanes of cells i - 2 ..= i
            // (relative to x0), clipped to the group.
            for (i, see) in span.see.iter_mut().enumerate().take((x1 - x0 + 3) as usize) {
                let lo = start(x0 + (i as u32).max(2) - 2).max(first) - first;
                let hi = start(x0 + (i as u32 + 1).min(x1 - x0 + 1)).min(end) - first;
                *see = (lo as u8, hi.max(lo) as u8);
            }
        }
        let (ys, ny) = self.axis_options(1, coords[1]);
        let (zs, nz) = self.axis_options(2, coords[2]);
        for &(z, sz) in &zs[..nz] {
            for &(y, sy) in &ys[..ny] {
                let base = ((z * self.dims[1] + y) * self.dims[0]) as usize;
                span.rows[span.row_count] = (base, V::from_array3([0.0, sy, sz]));
                span.row_count += 1;
            }
        }
        span
    }

    /// Per-cell prefix sum: `cell_start[c]..cell_start[c + 1]` are the sorted
    /// indices of cell `c`.
    #[inline]
    pub(crate) fn cell_starts(&self) -> &[u32] {
        &self.cell_start
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::Extent;
    use glam::Vec2;

    /// The (sorted index, shift) pairs lane `lane` of a group visits, in order.
    fn through_span(g: &Grid, span: &Span<Vec2>, lane: usize) -> Vec<(usize, Vec2)> {
        let starts = g.cell_starts();
        let mut out = vec![];
        for &(row, row_shift) in &span.rows[..span.row_count] {
            for &(a, b, sx, see0) in &span.pieces[..span.piece_count] {
                for x in a..=b {
                    let (lo, hi) = span.see[(see0 + x - a) as usize];
                    if (lo as usize..hi as usize).contains(&lane) {
                        let c = row + x as usize;
                        for j in starts[c] as usize..starts[c + 1] as usize {
                            out.push((j, Vec2::new(sx, row_shift.y)));
                        }
                    }
                }
            }
        }
        out
    }

    /// The same pairs from the boid's own cell's runs.
    fn through_runs(g: &Grid, c: usize) -> Vec<(usize, Vec2)> {
        let runs = g.runs::<Vec2>(g.cell_coords(c));
        let mut out = vec![];
        for r in runs.as_slice() {
            for j in r.start as usize..r.end as usize {
                out.push((j, r.shift));
            }
        }
        out
    }

    /// Every boid of every group, however wide and wherever it starts (at a
    /// periodic seam, across the whole row, in an open box), sees exactly its
    /// own cell's neighbours with their shifts, in the runs' order: the order
    /// in which it adds them.
    #[test]
    fn a_group_sees_each_boid_s_own_cells_in_order() {
        let worlds: [(Extent<Vec2>, Vec2); 3] = [
            (
                Extent::Periodic {
                    min: Vec2::ZERO,
                    max: Vec2::new(7.0, 5.0),
                },
                Vec2::new(7.0, 5.0),
            ),
            (
                Extent::Periodic {
                    min: Vec2::ZERO,
                    max: Vec2::new(3.0, 4.0),
                },
                Vec2::new(3.0, 4.0),
            ),
            (Extent::Open, Vec2::new(6.0, 4.0)),
        ];
        for (extent, size) in worlds {
            let pts: Vec<Vec2> = (0..90u32)
                .map(|i| {
                    let h = i.wrapping_mul(0x9e37_79b9);
                    let u = (h >> 8) as f32 / (1u32 << 24) as f32;
                    let v = (h.rotate_left(13) >> 8) as f32 / (1u32 << 24) as f32;
                    Vec2::new(u * size.x * 0.999, v * size.y * 0.999)
                })
                .collect();
            let mut g = Grid::new();
            g.build(&pts, 1.0, extent);
            let n = pts.len();
            let key = |si: usize| g.keys()[g.order()[si] as usize] as usize;
            for width in [8usize, 16] {
                for first in 0..n {
                    let c = key(first);
                    let coords = g.cell_coords(c);
                    let end = g.span_end(c, coords[0]).min(first + width).min(n);
                    let span = g.span_of::<Vec2>(c, coords, first, end);
                    for lane in 0..end - first {
                        assert_eq!(
                            through_span(&g, &span, lane),
                            through_runs(&g, key(first + lane)),
                            "{extent:?}, width {width}, group from {first}, lane {lane}"
                        );
                    }
                }
            }
        }
    }
}

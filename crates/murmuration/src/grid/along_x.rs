//! Within each cell, boids in order of x ([`Grid::sort_cells_along_x`]): a row
//! of cells is then one run sorted by x, which lets the group kernel cut a
//! row's run to the x range its lanes can reach ([`crate::step::kernel::accumulate`]).

use super::Grid;
use crate::vector::Vector;

/// Boids at which the sort splits its rows between threads.
const PARALLEL_AT: usize = 4096;

impl Grid {
    /// Sorts each cell's slots by (x, slot). A cell key is monotone in x, so
    /// this is a stable sort by x of each row of cells as a whole: one
    /// insertion sort per row. The counting sort leaves a cell's slots
    /// ascending, and storage keeps last step's order, so a row is nearly in
    /// order already and the sort mostly confirms it.
    pub(super) fn sort_cells_along_x<V: Vector>(&mut self, positions: &[V]) {
        let dx = self.dims[0] as usize;
        let rows = (self.cell_start.len() - 1) / dx;
        sort_rows(&mut self.order, 0, &self.cell_start, dx, 0..rows, positions);
    }
}

/// Sorts rows `rows` (of `dx` cells; `cell_start` is the grid's) over their
/// slots `order`, which begin at sorted index `base`; halves across threads.
fn sort_rows<V: Vector>(
    order: &mut [u32],
    base: usize,
    cell_start: &[u32],
    dx: usize,
    rows: std::ops::Range<usize>,
    positions: &[V],
) {
    let start = |r: usize| cell_start[r * dx] as usize - base;
    if order.len() > PARALLEL_AT && rows.len() > 1 && rayon::current_num_threads() > 1 {
        let mid = rows.start + rows.len() / 2;
        let split = start(mid);
        let (a, b) = order.split_at_mut(split);
        rayon::join(
            || sort_rows(a, base, cell_start, dx, rows.start..mid, positions),
            || sort_rows(b, base + split, cell_start, dx, mid..rows.end, positions),
        );
        return;
    }
    let x = |slot: u32| positions[slot as usize].get(0);
    for r in rows {
        let row = &mut order[start(r)..start(r + 1)];
        let Some(&first) = row.first() else { continue };
        let mut last = x(first);
        // Stable: an item moves only past strictly greater x.
        for i in 1..row.len() {
            let slot = row[i];
            let xi = x(slot);
            if last <= xi {
                last = xi;
                continue;
            }
            let mut j = i;
            while j > 0 && x(row[j - 1]) > xi {
                row[j] = row[j - 1];
                j -= 1;
            }
            row[j] = slot;
        }
    }
}

//! The counting sort's exclusive prefix over cells, and within each cell over
//! blocks, split across threads: at a million boids in 2D the serial form
//! walked about 260,000 counts one after another (the grid's one serial part,
//! about 0.4 ms: a tenth of a 16-thread step's budget).

use super::Disjoint;
use rayon::prelude::*;

/// The most chunks of cells the prefix splits into (threads beyond share them).
const MAX_CHUNKS: usize = 64;

/// Given per-block cell counts `cursor` (`blocks` rows of `cells`), writes each
/// cell's first sorted index into `cell_start` (`cells + 1` long, the total
/// last) and turns each count into its block's first index in that cell.
/// Chunks of cells go to the threads: each sums its counts, a prefix over the
/// chunks' sums gives each its base, then each writes its own prefix. The
/// result is the serial loop's, on any thread count; nothing is allocated.
pub(super) fn cells_then_blocks(cursor: &mut [u32], cell_start: &mut [u32], cells: usize) {
    debug_assert!(cells > 0 && cursor.len().is_multiple_of(cells) && cell_start.len() == cells + 1);
    let blocks = cursor.len() / cells;
    let threads = rayon::current_num_threads();
    if blocks == 1 || threads == 1 {
        let total = serial(cursor, cell_start, cells, 0);
        cell_start[cells] = total;
        return;
    }
    let per = cells.div_ceil(threads.min(MAX_CHUNKS));
    let chunks = cells.div_ceil(per);
    // Each chunk's counts in every block summed, then the sums' exclusive
    // prefix: each chunk's first sorted index.
    let mut bases = [0u32; MAX_CHUNKS];
    let counts = &*cursor;
    bases[..chunks]
        .par_iter_mut()
        .enumerate()
        .for_each(|(k, sum)| {
            let own = k * per..((k + 1) * per).min(cells);
            *sum = (0..blocks)
                .map(|b| {
                    counts[b * cells + own.start..b * cells + own.end]
                        .iter()
                        .sum::<u32>()
                })
                .sum();
        });
    let mut base = 0u32;
    for b in &mut bases[..chunks] {
        (*b, base) = (base, base + *b);
    }
    cell_start[cells] = base;
    let counts = Disjoint::new(cursor);
    cell_start[..cells]
        .par_chunks_mut(per)
        .zip(&bases[..chunks])
        .enumerate()
        .for_each(|(k, (starts, &base))| {
            let mut running = base;
            for (c, start) in (k * per..).zip(starts) {
                *start = running;
                for b in 0..blocks {
                    // SAFETY: cell `c` is in chunk `k` alone, so no other
                    // thread touches its count in any block's row.
                    running += unsafe { counts.replace(b * cells + c, running) };
                }
            }
        });
}

/// The serial prefix from `running`; returns the total after it.
fn serial(cursor: &mut [u32], cell_start: &mut [u32], cells: usize, mut running: u32) -> u32 {
    let blocks = cursor.len() / cells;
    for c in 0..cells {
        cell_start[c] = running;
        for b in 0..blocks {
            let slot = &mut cursor[b * cells + c];
            let count = *slot;
            *slot = running;
            running += count;
        }
    }
    running
}

#[cfg(test)]
mod tests {
    use super::{cells_then_blocks, serial};

    /// Every thread count, and chunk edges that fall anywhere, give the serial
    /// loop's starts and cursors.
    #[test]
    fn the_split_prefix_equals_the_serial_one() {
        for (cells, blocks) in [(1, 3), (7, 2), (1000, 1), (1001, 3), (4099, 8), (5003, 16)] {
            let counts: Vec<u32> = (0..cells * blocks)
                .map(|i| (i as u32).wrapping_mul(0x9e37_79b9) >> 29)
                .collect();
            let mut want = (counts.clone(), vec![0u32; cells + 1]);
            let total = serial(&mut want.0, &mut want.1, cells, 0);
            want.1[cells] = total;
            for threads in [1, 2, 3, 5, 8, 16, 17, 65] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                let mut got = (counts.clone(), vec![u32::MAX; cells + 1]);
                pool.install(|| cells_then_blocks(&mut got.0, &mut got.1, cells));
                assert_eq!(
                    got, want,
                    "{cells} cells, {blocks} blocks, {threads} threads"
                );
            }
        }
    }
}

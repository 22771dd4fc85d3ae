//! A cache of the boids around one cell of a small index, for radius queries
//! that come from many boids of the same cell in a row (a school's fish asking
//! a leader's index for the leader: thousands of queries, one or two cells).
//!
//! The cached query visits the same slots in the same order, and measures each
//! offset with the same operations, as [`Grid::for_each_within`]: the same
//! calls with the same bits.

use super::{Grid, Run};
use crate::vector::Vector;

/// Slots kept per cell; a cell with more candidates around it is not cached.
const CAPACITY: usize = 16;

/// The candidates around the cell last asked about, with their periodic shifts.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Nearby<V> {
    /// The cell (and a caller's tag: which index) the list is for.
    key: Option<(usize, [u32; 3])>,
    /// Entries in use; `CAPACITY + 1` when the cell had too many to keep.
    len: usize,
    items: [(u32, V); CAPACITY],
}

impl<V: Vector> Default for Nearby<V> {
    fn default() -> Self {
        Self {
            key: None,
            len: 0,
            items: [(0, V::ZERO); CAPACITY],
        }
    }
}

impl Grid {
    /// [`Grid::for_each_within`] through `cache`, which must be used with this
    /// grid only for this step under tag `tag` (e.g. the index's species): the
    /// same slots, order and offsets, without walking the cells again while
    /// queries stay in one cell. `c` is `p`'s cell ([`Grid::coords_of`]),
    /// which a caller often needs too.
    #[allow(
        clippy::too_many_arguments,
        reason = "the plain query's arguments, the cache and its tag"
    )]
    #[inline]
    pub(crate) fn for_each_within_cached<V: Vector>(
        &self,
        cache: &mut Nearby<V>,
        tag: usize,
        positions: &[V],
        p: V,
        c: [u32; 3],
        radius: f32,
        mut f: impl FnMut(usize, V),
    ) {
        debug_assert_eq!(c, self.coords_of(p), "the cell of the query");
        let Some(items) = self.cached_around(cache, tag, c) else {
            return self.for_each_within(positions, p, radius, None, f);
        };
        let r2 = radius * radius;
        let period = self.period::<V>().unwrap_or(V::ZERO);
        for &(slot, shift) in items {
            let slot = slot as usize;
            let origin = p - shift;
            let mut d = positions[slot] - origin;
            if self.min_image {
                d = crate::vector::min_image(d, period);
            }
            if d.length_squared() < r2 {
                f(slot, d);
            }
        }
    }

    /// The candidates around cell `c` (slots of the positions the grid was
    /// built from, with their periodic shifts, in [`Grid::for_each_within`]'s
    /// order) through `cache` under tag `tag`, walked only when the cache
    /// holds another cell; `None` when they are more than the cache keeps.
    #[inline]
    pub(crate) fn cached_around<'c, V: Vector>(
        &self,
        cache: &'c mut Nearby<V>,
        tag: usize,
        c: [u32; 3],
    ) -> Option<&'c [(u32, V)]> {
        if cache.key != Some((tag, c)) {
            cache.key = Some((tag, c));
            cache.len = 0;
            for &Run { start, end, shift } in self.runs::<V>(c).as_slice() {
                for &slot in &self.order[start as usize..end as usize] {
                    if cache.len == CAPACITY {
                        cache.len = CAPACITY + 1;
                        break;
                    }
                    if cache.len < CAPACITY {
                        cache.items[cache.len] = (slot, shift);
                        cache.len += 1;
                    }
                }
            }
        }
        (cache.len <= CAPACITY).then(|| &cache.items[..cache.len])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::Extent;
    use glam::Vec2;

    /// Every query through the cache gives the calls of the plain query, bit
    /// for bit, across a periodic seam and with a crowded cell (not cached).
    #[test]
    fn cached_queries_match_the_grid_bit_for_bit() {
        let mut pts: Vec<Vec2> = (0..40)
            .map(|i| Vec2::new((i * 37 % 100) as f32 + 0.25, (i * 53 % 100) as f32 + 0.5))
            .collect();
        // A crowd of 30 in one place: more than the cache keeps.
        pts.extend((0..30).map(|i| Vec2::new(50.0 + i as f32 * 0.01, 50.0)));
        let mut queries = 0;
        // Five cells a side, and two (nearest images measured per candidate).
        for radius in [20.0, 40.0] {
            let extent = Extent::Periodic {
                min: Vec2::ZERO,
                max: Vec2::splat(100.0),
            };
            let mut grid = Grid::new();
            grid.build(&pts, radius, extent);
            let mut cache = Nearby::default();
            for qx in 0..50 {
                for qy in 0..5 {
                    let p = Vec2::new(qx as f32 * 2.0 + 0.1, qy as f32 * 24.0 + 0.3);
                    let (mut plain, mut cached) = (Vec::new(), Vec::new());
                    grid.for_each_within(&pts, p, radius, None, |k, d| {
                        plain.push((k, d.to_array()))
                    });
                    let c = grid.coords_of(p);
                    grid.for_each_within_cached(&mut cache, 0, &pts, p, c, radius, |k, d| {
                        cached.push((k, d.to_array()))
                    });
                    let bits = |v: &[(usize, [f32; 2])]| {
                        v.iter()
                            .map(|(k, d)| (*k, d.map(f32::to_bits)))
                            .collect::<Vec<_>>()
                    };
                    assert_eq!(bits(&plain), bits(&cached), "query at {p}");
                    queries += plain.len();
                }
            }
        }
        assert!(queries > 500, "the queries found {queries} boids");
    }
}

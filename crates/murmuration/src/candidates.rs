//! The candidates of one grid cell: its neighbour runs copied into one contiguous
//! block, periodic shifts already applied.
//!
//! Every boid of a cell scans the same 3 (2D) or 9 (3D) runs. Scanned run by run,
//! each run ends in a partly empty chunk of lanes and pays its own set-up; copied
//! once per cell into one block, the boids of the cell scan it in whole chunks
//! (about 20% fewer chunks in 2D, 25% in 3D) with a single origin. The copy costs
//! a few instructions per candidate, shared by the ~5 boids of the cell.
//!
//! The block is a pure function of the state (runs in their fixed order), so the
//! lane each candidate lands in, and so every sum, is too.

use crate::grid::Run;
use crate::kernel::{LANES, PAD, SortedSoa};
use crate::vector::Vector;

/// Most runs of one cell (see [`crate::grid::Runs`]).
const MAX_RUNS: usize = 18;

/// The neighbour runs of one cell, copied and shifted. Reused from cell to cell:
/// steady state allocates nothing.
#[derive(Clone, Debug, Default)]
pub(crate) struct Candidates {
    /// Positions (shift applied), velocities and species, padded by [`PAD`] like
    /// [`SortedSoa`].
    pub data: SortedSoa,
    /// Candidates in the block (without padding).
    pub len: usize,
    /// Per run: (first sorted index, offset in the block, length).
    runs: [(u32, u32, u32); MAX_RUNS],
    run_count: usize,
}

impl Candidates {
    /// Copies `runs` of `src` into the block. `multi`: also copy the `f32` species
    /// the multi-species kernel compares.
    ///
    /// Copies go eight entries at a time here, sixteen in [`Self::fill_wide`]
    /// (one vector load and store each): a run's last copy spills up to a group
    /// less one past it, which the next run or the padding overwrites. Reading
    /// that far is in bounds: `src` is padded by [`PAD`] past every run.
    pub fn fill<V: Vector>(&mut self, src: &SortedSoa, runs: &[Run<V>], multi: bool) {
        self.fill_groups::<V, LANES>(src, runs, multi);
    }

    /// [`Self::fill`], sixteen entries at a time when `wide` (the step runs the
    /// 16-lane kernel, [`crate::kernel::WIDE`]): the same block.
    #[inline(always)]
    pub fn fill_for<V: Vector>(
        &mut self,
        src: &SortedSoa,
        runs: &[Run<V>],
        multi: bool,
        wide: bool,
    ) {
        #[cfg(target_arch = "x86_64")]
        if wide {
            // SAFETY: WIDE is set only where the CPU has AVX-512
            // (`kernel512::wide`).
            return unsafe { self.fill_wide(src, runs, multi) };
        }
        let _ = wide;
        self.fill(src, runs, multi);
    }

    /// [`Self::fill`] sixteen entries at a time, compiled with AVX-512 (one
    /// 64-byte load and store per group); the same block.
    ///
    /// SAFETY: the CPU has AVX-512 F ([`crate::kernel512`] checks before a step
    /// takes this path).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn fill_wide<V: Vector>(&mut self, src: &SortedSoa, runs: &[Run<V>], multi: bool) {
        self.fill_groups::<V, 16>(src, runs, multi);
    }

    /// [`Self::fill`] in groups of `G` entries (at most [`PAD`]).
    #[inline(always)]
    fn fill_groups<V: Vector, const G: usize>(
        &mut self,
        src: &SortedSoa,
        runs: &[Run<V>],
        multi: bool,
    ) {
        const { assert!(G <= PAD) };
        let total: usize = runs.iter().map(|r| (r.end - r.start) as usize).sum();
        let need = total + PAD;
        let d = &mut self.data;
        // Grow only: lengths stay at the largest block seen, so no allocation in
        // steady state.
        for a in 0..V::DIM {
            if d.pos[a].len() < need {
                d.pos[a].resize(need, 0.0);
                d.vel[a].resize(need, 0.0);
            }
        }
        if d.species.len() < need {
            d.species.resize(need, 0);
        }
        if multi && d.species_f.len() < need {
            d.species_f.resize(need, 0.0);
        }
        // Every group below reads `src[i..i + G]` with `i < run end` and writes
        // `d[o..o + G]` with `o < total`: these checks cover them all.
        let src_need = runs.iter().map(|r| r.end as usize).max().unwrap_or(0) + G;
        for a in 0..V::DIM {
            assert!(src.pos[a].len() >= src_need && src.vel[a].len() >= src_need);
            assert!(d.pos[a].len() >= need && d.vel[a].len() >= need);
        }
        assert!(src.species.len() >= src_need && d.species.len() >= need);
        if multi {
            assert!(src.species_f.len() >= src_need && d.species_f.len() >= need);
        }
        // Base pointers, fetched once: the copies below cannot then make the
        // compiler reload them from the vectors after every store.
        let (mut sp, mut sv) = ([std::ptr::null::<f32>(); 3], [std::ptr::null::<f32>(); 3]);
        let (mut dp, mut dv) = (
            [std::ptr::null_mut::<f32>(); 3],
            [std::ptr::null_mut::<f32>(); 3],
        );
        for a in 0..V::DIM {
            (sp[a], sv[a]) = (src.pos[a].as_ptr(), src.vel[a].as_ptr());
            (dp[a], dv[a]) = (d.pos[a].as_mut_ptr(), d.vel[a].as_mut_ptr());
        }
        let (ss, ds) = (src.species.as_ptr(), d.species.as_mut_ptr());
        let (sf, df) = if multi {
            (src.species_f.as_ptr(), d.species_f.as_mut_ptr())
        } else {
            (std::ptr::null(), std::ptr::null_mut())
        };
        let mut offset = 0usize;
        self.run_count = 0;
        for r in runs {
            let (s, len) = (r.start as usize, (r.end - r.start) as usize);
            let mut shift = [0.0f32; 3];
            for (a, sh) in shift.iter_mut().enumerate().take(V::DIM) {
                *sh = r.shift.get(a);
            }
            let shifted = shift != [0.0; 3];
            // Groups of eight, every array in one loop (a run is one to three
            // groups: per-array loops and per-group checks cost more than the
            // copies).
            let mut k = 0;
            while k < len {
                let (o, i) = (offset + k, s + k);
                // SAFETY: i < run end and o < total, so `i..i + 8` and `o..o + 8`
                // are in bounds of every array by the assertions above; the
                // pointers come from those arrays, unchanged since.
                unsafe {
                    for a in 0..V::DIM {
                        let g = group::<f32, G>(sp[a], i);
                        let g = if shifted { g.map(|x| x + shift[a]) } else { g };
                        put(dp[a], o, g);
                        put(dv[a], o, group::<f32, G>(sv[a], i));
                    }
                    put(ds, o, group::<u16, G>(ss, i));
                    if multi {
                        put(df, o, group::<f32, G>(sf, i));
                    }
                }
                k += G;
            }
            self.runs[self.run_count] = (r.start, offset as u32, len as u32);
            self.run_count += 1;
            offset += len;
        }
        self.len = total;
        self.data.pad(total, V::DIM, multi);
    }

    /// Block index of sorted index `si`; `None` when no run holds it. (Without the
    /// minimum-image correction every cell appears in at most one run.)
    pub fn index_of(&self, si: usize) -> Option<usize> {
        let si = si as u32;
        self.runs[..self.run_count]
            .iter()
            .find(|(start, _, len)| si >= *start && si - start < *len)
            .map(|(start, offset, _)| (offset + (si - start)) as usize)
    }

    /// Sorted index of block index `j`.
    pub fn sorted_index(&self, j: usize) -> usize {
        let j = j as u32;
        let &(start, offset, _) = self.runs[..self.run_count]
            .iter()
            .find(|(_, offset, len)| j >= *offset && j - offset < *len)
            .expect("a block index comes from a run");
        (start + (j - offset)) as usize
    }

    /// The whole block as one unshifted run.
    pub fn run<V: Vector>(&self) -> Run<V> {
        Run {
            start: 0,
            end: self.len as u32,
            shift: V::ZERO,
        }
    }
}

/// The `G` values at `src + i`.
///
/// SAFETY: `src + i .. src + i + G` lies in one live allocation.
#[inline(always)]
unsafe fn group<T: Copy, const G: usize>(src: *const T, i: usize) -> [T; G] {
    // SAFETY: by the caller's guarantee; unaligned read of plain data.
    unsafe { std::ptr::read_unaligned(src.add(i) as *const [T; G]) }
}

/// Writes `G` values at `dst + o`.
///
/// SAFETY: `dst + o .. dst + o + G` lies in one live allocation, borrowed mutably.
#[inline(always)]
unsafe fn put<T: Copy, const G: usize>(dst: *mut T, o: usize, g: [T; G]) {
    // SAFETY: by the caller's guarantee.
    unsafe { std::ptr::write_unaligned(dst.add(o) as *mut [T; G], g) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec2;

    #[test]
    fn the_block_holds_every_run_shifted_in_order_and_padded() {
        let n = 40;
        let mut src = SortedSoa::default();
        src.resize(n, 2);
        for i in 0..n {
            src.pos[0][i] = i as f32;
            src.pos[1][i] = -(i as f32);
            src.vel[0][i] = 0.5 * i as f32;
            src.vel[1][i] = 1.0;
            src.species[i] = (i % 3) as u16;
        }
        let run = |start, end, shift| Run { start, end, shift };
        // Lengths 3, 9 and 1: partial groups, a group boundary and a single.
        let runs = [
            run(2, 5, Vec2::ZERO),
            run(20, 29, Vec2::new(-100.0, 0.0)),
            run(39, 40, Vec2::new(0.0, 7.0)),
        ];
        let mut b = Candidates::default();
        // A larger block first: refilling must not leave stale entries behind.
        b.fill(&src, &[run(0, 40, Vec2::ZERO)], false);
        b.fill(&src, &runs, false);
        assert_eq!(b.len, 13);
        let mut j = 0;
        for r in &runs {
            for si in r.start as usize..r.end as usize {
                let p: Vec2 = b.data.position(j);
                assert_eq!(p, src.position::<Vec2>(si) + r.shift, "entry {j}");
                assert_eq!(b.data.velocity::<Vec2>(j), src.velocity::<Vec2>(si));
                assert_eq!(b.data.species[j], src.species[si]);
                assert_eq!(b.sorted_index(j), si);
                assert_eq!(b.index_of(si), Some(j));
                j += 1;
            }
        }
        for k in b.len..b.len + LANES {
            assert_eq!(b.data.pos[0][k], f32::INFINITY);
            assert_eq!(b.data.vel[0][k], 0.0);
        }
        assert_eq!(b.index_of(10), None);
    }
}

//! The rule sums over each lane's kept entries, nearest first
//! ([`Kept::sums`]), and the offsets both selections measure them by.

use super::{FLOCKS, INDEX, Job, Kept, RUN_AT};
use crate::grid::Span;
use crate::step::kernel::{self, Group};
use crate::step::lanes::Lanes;
use crate::vector::Vector;

impl<S: Lanes, const K: usize> Kept<S, K> {
    /// The rule sums of each lane of `job.topo` over its first `k[l]`
    /// entries, nearest first, written into its column of `job.out`
    /// ([`kernel::GroupLanes`]); a coincident neighbour pushes by `job.push`. Each
    /// entry is measured again (the same bits as the scan's): the lists'
    /// distances say only which entries were found (+∞ past them).
    #[inline(always)]
    pub(crate) fn sums<V: Vector>(&self, job: &mut Job<'_, V, S>, k: S) {
        let (g, span, topo, data) = (job.g, job.span, job.topo, job.data);
        const W: usize = kernel::MAX_LANES;
        let d_n = V::DIM;
        let (zero, one) = (S::splat(0.0), S::splat(1.0));
        let (mut sep, mut ali, mut coh) = ([zero; 3], [zero; 3], [zero; 3]);
        let (mut n_ali, mut n_coh, mut n_nb) = (zero, zero, zero);
        let inf = S::splat(f32::INFINITY);
        let mut words = [0.0f32; W];
        // Every index word is below the boid count, and index 0 is read
        // where nothing was found: the columns hold at least one more.
        job.check();
        let (pos, vel): ([&[f32]; 3], [&[f32]; 3]) = (
            std::array::from_fn(|a| &data.pos[a][..]),
            std::array::from_fn(|a| &data.vel[a][..]),
        );
        let shifted = shifted(span);
        for i in 0..K {
            let found = S::and(S::and(topo, self.d2[i].lt(inf)), S::splat(i as f32).lt(k));
            if S::bits(found) == 0 {
                break;
            }
            let word = self.j[i];
            let flocks = word.any_bits(FLOCKS);
            let mut v = [zero; 3];
            for a in 0..d_n {
                // SAFETY: every index word holds a sorted index below the
                // boid count (0 where nothing was found), which the columns
                // hold (`Job::check`).
                v[a] = unsafe { word.gather(vel[a], INDEX) };
            }
            let d = offsets(g, span, shifted, &pos, word);
            // Measured again with the scan's operations: the same bits.
            let d2 = squared(d, d_n);
            // Coincident: a keyed push, not one along rounding noise.
            let co = S::and(found, d2.le(g.eps2));
            let near = S::and(found, d2.lt(g.sep2));
            let inv = one / d2;
            for a in 0..d_n {
                let s = sep[a].sub_where(near, d[a] * inv);
                sep[a] = S::select(co, sep[a], s);
            }
            if S::bits(co) != 0 {
                word.write_to(&mut words);
                let at = |l: usize| (words[l].to_bits() & INDEX) as usize;
                let mut extra = [[0.0f32; W]; 3];
                let mut bits = S::bits(co);
                while bits != 0 {
                    let l = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let e = (job.push)(l, at(l));
                    for (a, x) in extra.iter_mut().enumerate().take(d_n) {
                        x[l] = e.get(a);
                    }
                }
                for a in 0..d_n {
                    sep[a] = sep[a].add_where(co, S::from_slice(&extra[a]));
                }
            }
            let flock = S::and(found, flocks);
            let (ma, mc) = (d2.lt_in(flock, g.ali2), d2.lt_in(flock, g.coh2));
            for a in 0..d_n {
                ali[a] = ali[a].add_where(ma, v[a]);
                coh[a] = coh[a].add_where(mc, d[a]);
            }
            n_ali = n_ali.add_where(ma, one);
            n_coh = n_coh.add_where(mc, one);
            n_nb = n_nb.add_where(found, one);
        }
        // Rows by a loop, not a closure: a closure would not inherit the
        // caller's target features, and each select would be a call.
        let mut rows = [(0usize, zero); 12];
        for a in 0..d_n {
            rows[3 * a] = (kernel::SEP + a, sep[a]);
            rows[3 * a + 1] = (kernel::ALI + a, ali[a]);
            rows[3 * a + 2] = (kernel::COH + a, coh[a]);
        }
        rows[3 * d_n] = (kernel::N_ALI, n_ali);
        rows[3 * d_n + 1] = (kernel::N_COH, n_coh);
        rows[3 * d_n + 2] = (kernel::N_NB, n_nb);
        for &(row, x) in &rows[..3 * d_n + 3] {
            let old = S::from_slice(&job.out[row]);
            S::select(topo, x, old).write_to(&mut job.out[row]);
        }
    }
}

/// Whether some run of `span` is shifted (a periodic image).
#[inline(always)]
pub(super) fn shifted<V: Vector>(span: &Span<V>) -> bool {
    span.rows[..span.row_count].iter().any(|r| r.1 != V::ZERO)
        || span.pieces[..span.piece_count].iter().any(|p| p.2 != 0.0)
}

/// The per-boid kernel's offsets of the entries of index words `word`: the
/// neighbour less the focal position less the run's shift (the position
/// itself, exactly, where no run is `shifted`). `pos` holds more entries
/// than any index word's sorted index.
#[inline(always)]
pub(super) fn offsets<V: Vector, S: Lanes>(
    g: &Group<'_, S>,
    span: &Span<V>,
    shifted: bool,
    pos: &[&[f32]; 3],
    word: S,
) -> [S; 3] {
    const W: usize = kernel::MAX_LANES;
    let d_n = V::DIM;
    let mut origin = g.pos;
    if shifted {
        let mut words = [0.0f32; W];
        word.write_to(&mut words);
        let mut sh = [[0.0f32; W]; 3];
        for l in 0..S::N {
            let run = ((words[l].to_bits() & !FLOCKS) >> RUN_AT) as usize;
            sh[0][l] = span.pieces[run % 3].2;
            for (a, x) in sh.iter_mut().enumerate().take(d_n).skip(1) {
                x[l] = span.rows[run / 3].1.get(a);
            }
        }
        for a in 0..d_n {
            origin[a] = g.pos[a] - S::from_slice(&sh[a]);
        }
    }
    // A loop, not `array::from_fn`: its closure would not inherit the
    // caller's target features, and each gather would be a call.
    let mut d = [S::splat(0.0); 3];
    for a in 0..d_n {
        // SAFETY: every index word's sorted index is below `pos[a].len()`
        // (the caller's contract).
        d[a] = unsafe { word.gather(pos[a], INDEX) } - origin[a];
    }
    d
}

/// The squared length of the offsets `d` (`dim` axes), summed as the scans
/// sum it (from +0, axis by axis; an offset and its negation square alike).
#[inline(always)]
pub(super) fn squared<S: Lanes>(d: [S; 3], dim: usize) -> S {
    let mut d2 = S::splat(0.0);
    for x in d.iter().take(dim) {
        d2 = d2 + *x * *x;
    }
    d2
}

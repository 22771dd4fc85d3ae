//! Each topological boid's reach of the last step: how far its neighbour
//! after the `k` nearest lay, grown by what two boids can move in the step.
//! The next step's k-nearest search ([`crate::step::nearest`]) starts from
//! it, so it skips from the first candidate those that cannot be kept instead
//! of learning that from the candidates it has met.
//!
//! A reach is only a hint: the search checks that each lane found its `k`
//! nearest and the one after them within the bound it started from, and
//! searches again without it where one did not (a boid turned, sped, was
//! moved or spawned). So the lists, and every bit of the step, never depend
//! on the hints; stale or foreign hints cost only time.

use crate::step::kernel::MAX_LANES;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// The reaches read by this step (by storage slot: last step's sorted
/// order) and written by it (by sorted index), swapped after the step.
#[derive(Default)]
pub(crate) struct Reaches {
    last: Vec<AtomicU32>,
    next: Vec<AtomicU32>,
}

/// The bits of a reach not known: +∞.
const NONE: u32 = f32::INFINITY.to_bits();

impl Reaches {
    /// Readies both sides for a step of `n` boids: last step's reaches are
    /// kept where its boids are as many (usually each slot's own), else none.
    pub fn prepare(&mut self, n: usize) {
        for side in [&mut self.last, &mut self.next] {
            if side.len() != n {
                side.clear();
                side.resize_with(n, || AtomicU32::new(NONE));
            }
        }
    }

    /// This step's view: last step's reaches to read, this step's to write,
    /// each grown by `growth` (units) as it is written.
    pub fn sides(&self, growth: f32) -> Sides<'_> {
        Sides {
            last: &self.last,
            next: &self.next,
            growth,
        }
    }

    /// After the step: this step's reaches become the last.
    pub fn finish(&mut self) {
        std::mem::swap(&mut self.last, &mut self.next);
    }

    /// Frees both sides (a world without topological species).
    pub fn clear(&mut self) {
        *self = Self::default();
    }

    /// Bytes of heap memory held.
    pub fn heap_bytes(&self) -> usize {
        (self.last.capacity() + self.next.capacity()) * 4
    }
}

impl Clone for Reaches {
    fn clone(&self) -> Self {
        let copy = |v: &Vec<AtomicU32>| v.iter().map(|r| AtomicU32::new(r.load(Relaxed))).collect();
        Self {
            last: copy(&self.last),
            next: copy(&self.next),
        }
    }
}

impl std::fmt::Debug for Reaches {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reaches")
            .field("boids", &self.last.len())
            .finish()
    }
}

/// One step's reaches ([`Reaches::sides`]); empty where the step keeps none.
#[derive(Clone, Copy, Default)]
pub(crate) struct Sides<'a> {
    last: &'a [AtomicU32],
    next: &'a [AtomicU32],
    /// What two boids may close or open between them in this step (twice
    /// the fastest top speed times the time step), units.
    growth: f32,
}

impl Sides<'_> {
    /// The squared bounds of the lanes `lanes` (bits) of a group from sorted
    /// index `first` (`order`: each sorted index's storage slot), +∞ where
    /// none is known; a little over the grown reach, for rounding.
    #[inline(always)]
    pub fn bounds(&self, order: &[u32], first: usize, lanes: u32) -> [f32; MAX_LANES] {
        let mut bound = [f32::INFINITY; MAX_LANES];
        if self.last.is_empty() {
            return bound;
        }
        let order = order.get(first..).unwrap_or_default();
        let mut bits = lanes;
        while bits != 0 {
            let l = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if let Some(r) = order.get(l).and_then(|&s| self.last.get(s as usize)) {
                let b = f32::from_bits(r.load(Relaxed)) * (1.0 + 1.0 / 1024.0);
                // +∞ for anything not finite, NaN included.
                bound[l] = if b * b < f32::INFINITY {
                    b * b
                } else {
                    f32::INFINITY
                };
            }
        }
        bound
    }

    /// Sets the reach of the boid at sorted index `si` (+∞: none), grown by
    /// this step's motion. Each sorted index is written by one group only.
    #[inline(always)]
    pub fn set(&self, si: usize, reach: f32) {
        if let Some(r) = self.next.get(si) {
            r.store((reach + self.growth).to_bits(), Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Boundary, Spawn, SpeciesId, SpeciesParams, World, WorldConfig};
    use glam::Vec2;

    /// A wrapped 2D flock of 3,000 boids with seven topological neighbours,
    /// a few steps in, so (with sixteen lanes) most boids have a reach.
    fn flock() -> World<Vec2> {
        let mut config = WorldConfig::new(Vec2::splat(22.0), Boundary::Wrap);
        config.seed = 7;
        let species = SpeciesParams {
            topological_neighbours: 7,
            ..SpeciesParams::benchmark()
        };
        let mut w = World::new(config, vec![species]).unwrap();
        w.spawn(Spawn::new(SpeciesId::FIRST, 3_000)).unwrap();
        w.step_n(4);
        w
    }

    /// A reach by storage slot.
    type Reach = fn(usize) -> f32;

    /// Sets every last reach of `w`'s pipeline by `f(slot)`.
    fn set_reaches(w: &mut World<Vec2>, f: impl Fn(usize) -> f32) {
        let reaches = &w.pipeline_mut().reaches;
        // Reaches are kept only where the sixteen-lane lists by keys run.
        if crate::step::kernel512::wide() {
            assert_eq!(reaches.last.len(), 3_000, "the flock keeps its reaches");
        }
        for (slot, r) in reaches.last.iter().enumerate() {
            r.store(f(slot).to_bits(), Relaxed);
        }
    }

    /// Only sixteen-lane machines read reaches; elsewhere this checks only
    /// that they are harmless.
    #[test]
    fn wrong_reaches_never_change_the_step() {
        let clean = flock();
        let mut want = clean.clone();
        want.step();
        let honest = want.last_stats().candidates;
        want.step_n(2);
        // Too short for every boid (each group searches again), short for
        // some, too long for others, bounded and unbounded lanes in one
        // group, values no step writes, and none at all.
        let cases: [(&str, Reach); 7] = [
            ("zero", |_| 0.0),
            ("mixed", |s| [0.0, 0.05, 0.3, 5.0][s % 4]),
            ("long", |_| 50.0),
            ("some unknown", |s| {
                if s % 3 == 0 { f32::INFINITY } else { 0.05 }
            }),
            ("garbage", |s| {
                [f32::NAN, -1.0, -0.0, f32::MAX, 1e-40, -f32::INFINITY][s % 6]
            }),
            ("not finite", |s| [f32::NAN, f32::NEG_INFINITY][s % 2]),
            ("none", |_| f32::INFINITY),
        ];
        let mut measured = [0u64; 7];
        for (i, (what, f)) in cases.into_iter().enumerate() {
            let mut w = clean.clone();
            set_reaches(&mut w, f);
            w.step();
            measured[i] = w.last_stats().candidates;
            w.step_n(2);
            assert_eq!(w.digest(), want.digest(), "reaches {what} changed the step");
        }
        if crate::step::kernel512::wide() {
            let [zero, .., none] = measured;
            // Honest reaches save measurements; short ones were used, found
            // short, and cost a second search.
            assert!(
                honest < none,
                "reaches saved nothing: {honest} against {none}"
            );
            assert!(
                zero > none,
                "short reaches cost no second search: {zero} against {none}"
            );
        }
    }

    #[test]
    fn a_clone_keeps_the_reaches() {
        let mut w = flock();
        let mut c = w.clone();
        let (a, b) = (&w.pipeline_mut().reaches, &c.pipeline_mut().reaches);
        let bits = |r: &Reaches| r.last.iter().map(|x| x.load(Relaxed)).collect::<Vec<_>>();
        assert_eq!(bits(a), bits(b));
        if crate::step::kernel512::wide() {
            let known = bits(a)
                .iter()
                .filter(|&&x| f32::from_bits(x) < f32::INFINITY)
                .count();
            assert!(known > 2_900, "{known} of 3,000 boids have a reach");
        }
    }
}

//! Followers a group at a time: the leader each of up to sixteen boids
//! follows, and the heading it adds, in lanes the compiler vectorizes.
//!
//! A school of 50,000 fish following one target (seed 002) asked the
//! target's index once per fish: the cell, the cached candidates, the nearest
//! leader, then a square root and two divisions, a long chain of latencies
//! per fish. Here the group's cell and candidates are found once, and each
//! lane measures and steers with [`Interactions::forces`]'s operations in its
//! order: the same bits.

use super::{Interactions, NEAR_SLOTS, Near};
use crate::boids::BoidId;
use crate::params::{SpeciesParams, Steering};
use crate::step::kernel::SortedSoa;
use crate::vector::Vector;

/// Lanes of a group.
pub(crate) const LANES: usize = 16;

/// Per lane: what [`Interactions::forces`] adds to the boid's heading for
/// the leader it follows, or `None` when no leader is in sight.
pub(crate) type Headings<V> = [Option<V>; LANES];

impl<V: Vector> Interactions<V> {
    /// The leader's heading of the `m` boids from sorted index `si0` (each
    /// lane as [`Interactions::forces`] computes it), or `None` when the
    /// group is not for lanes: some species follows no one, follows more
    /// than one species or steers otherwise than by directions, the boids
    /// follow different species, those within reach lie in different cells
    /// of the leaders' index, or that cell has more candidates than the
    /// cache keeps. Those groups take `forces`' own query.
    pub(crate) fn follow_lanes(
        &self,
        species: &[SpeciesParams],
        data: &SortedSoa,
        ids: &[BoidId],
        si0: usize,
        m: usize,
        near: &mut Near<V>,
    ) -> Option<Headings<V>> {
        if m == 0 || m > LANES {
            return None;
        }
        let mut leader = None;
        for l in 0..m {
            let a = data.species[si0 + l] as usize;
            let b = (*self.follows.get(a)?)?;
            if species[a].steering != Steering::Directions || leader.is_some_and(|x| x != b) {
                return None;
            }
            leader = Some(b);
        }
        let b = leader?;
        let t = self.targets[b].as_ref()?;
        let g = &t.grid;
        // Each lane's position, id, radius and weight.
        let mut p = [[0.0f32; LANES]; 3];
        let mut id = [0 as BoidId; LANES];
        let mut radius = [0.0f32; LANES];
        let mut weight = [0.0f32; LANES];
        for l in 0..m {
            let si = si0 + l;
            for (a, pa) in p.iter_mut().enumerate().take(V::DIM) {
                pa[l] = data.pos[a][si];
            }
            id[l] = ids[si];
            let sp = &species[data.species[si] as usize];
            radius[l] = sp.follow_radius;
            weight[l] = sp.follow_weight;
        }
        // The one cell of the lanes that may reach a leader (cells are
        // monotone in each coordinate: when the group's box lies in one cell,
        // so does every lane).
        let (mut lo, mut hi) = (V::ZERO, V::ZERO);
        for (a, col) in p.iter().enumerate().take(V::DIM) {
            let col = &col[..m];
            lo.set(a, col.iter().copied().fold(f32::INFINITY, f32::min));
            hi.set(a, col.iter().copied().fold(f32::NEG_INFINITY, f32::max));
        }
        let mut r2 = [f32::NEG_INFINITY; LANES]; // lanes out of reach take nothing
        let c = g.coords_of(lo);
        let finite = p
            .iter()
            .take(V::DIM)
            .all(|col| col[..m].iter().all(|x| x.is_finite()));
        let cell = if finite && c == g.coords_of(hi) {
            if t.may_reach(c) {
                for l in 0..m {
                    r2[l] = radius[l] * radius[l];
                }
            }
            Some(c)
        } else {
            let mut cell = None;
            for l in 0..m {
                let mut pos = V::ZERO;
                for (a, pa) in p.iter().enumerate().take(V::DIM) {
                    pos.set(a, pa[l]);
                }
                let c = g.coords_of(pos);
                if !t.may_reach(c) {
                    continue;
                }
                if cell.is_some_and(|x| x != c) {
                    return None;
                }
                cell = Some(c);
                r2[l] = radius[l] * radius[l];
            }
            cell
        };
        let mut out = [None; LANES];
        let Some(c) = cell else {
            return Some(out);
        };
        if r2[..m].iter().all(|&r| r == f32::NEG_INFINITY) {
            return Some(out);
        }
        let items = g.cached_around(&mut near[b % NEAR_SLOTS], b, c)?;
        let period = g.period::<V>().unwrap_or(V::ZERO);
        let wrap = g.needs_min_image();
        // The nearest leader in sight per lane, ties to the lower id, with
        // that leader's heading (normalized once per candidate).
        let mut found = [false; LANES];
        let mut best_d2 = [0.0f32; LANES];
        let mut best_id = [0 as BoidId; LANES];
        let mut best_d = [[0.0f32; LANES]; 3];
        let mut best_h = [[0.0f32; LANES]; 3];
        for &(slot, shift) in items {
            let k = slot as usize;
            let (tp, tid) = (t.positions[k], t.ids[k]);
            let th = t.velocities[k].normalize_or_zero();
            for l in 0..LANES {
                // d = tp - (p - shift), then the nearest image: as the cache's query.
                let mut d = [0.0f32; 3];
                for a in 0..V::DIM {
                    let x = tp.get(a) - (p[a][l] - shift.get(a));
                    d[a] = if wrap {
                        let len = period.get(a);
                        x - len * (x / len).round()
                    } else {
                        x
                    };
                }
                let d2 = if V::DIM == 2 {
                    d[0] * d[0] + d[1] * d[1]
                } else {
                    d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
                };
                let beats =
                    !found[l] | (d2 < best_d2[l]) | ((d2 == best_d2[l]) & (tid < best_id[l]));
                let take = (d2 < r2[l]) & (tid != id[l]) & beats;
                found[l] |= take;
                best_d2[l] = if take { d2 } else { best_d2[l] };
                best_id[l] = if take { tid } else { best_id[l] };
                for a in 0..V::DIM {
                    best_d[a][l] = if take { d[a] } else { best_d[a][l] };
                    best_h[a][l] = if take { th.get(a) } else { best_h[a][l] };
                }
            }
        }
        // Match the leader's heading; farther than half the radius, turn
        // toward it too (fully at the radius): forces' formula, per lane.
        let mut h = [[0.0f32; LANES]; 3];
        for l in 0..LANES {
            let d2 = best_d2[l];
            let r0 = 0.5 * radius[l];
            let pull = ((d2.sqrt() - r0) / r0).clamp(0.0, 1.0);
            // normalize_or_zero
            let unit = d2 > 1e-30 && d2.is_finite();
            let inv = 1.0 / d2.sqrt();
            for a in 0..V::DIM {
                let n = if unit { best_d[a][l] * inv } else { 0.0 };
                h[a][l] = (best_h[a][l] + n * pull) * weight[l];
            }
        }
        for l in 0..m {
            if found[l] {
                let mut v = V::ZERO;
                for (a, ha) in h.iter().enumerate().take(V::DIM) {
                    v.set(a, ha[l]);
                }
                out[l] = Some(v);
            }
        }
        Some(out)
    }
}

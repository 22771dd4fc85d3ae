//! Followers a group at a time: the leader each of up to sixteen boids
//! follows, and what it adds (a heading by directions, a seek force
//! otherwise), in lanes the compiler vectorizes.
//!
//! A school of 50,000 fish following one target (seed 002) asked the
//! target's index once per fish: the cell, the cached candidates, the nearest
//! leader, then a square root and two divisions, a long chain of latencies
//! per fish. Here the group's cell and candidates are found once, and each
//! lane measures and steers with [`Interactions::forces`]'s operations in its
//! order: the same bits. Lanes steering by directions get the leader's
//! heading term; the others (Reynolds' per-rule and the rest) get the same
//! `seek` force `forces` computes, a lane at a time.

use super::{Interactions, NEAR_SLOTS, Near, TargetIndex};
use crate::behaviours::seek;
use crate::boids::BoidId;
use crate::params::{SpeciesParams, Steering};
use crate::step::kernel::SortedSoa;
use crate::vector::Vector;

/// Lanes of a group.
pub(crate) const LANES: usize = 16;

/// Per lane: what [`Interactions::forces`] adds for the leader the boid
/// follows (to its heading when it steers by directions, else to its pull
/// toward targets), or `None` when no leader is in sight.
pub(crate) type Leads<V> = [Option<V>; LANES];

/// Adds a lane's lead (of [`Leads`]) where [`Interactions::forces`] adds a
/// leader's term for a boid of species `sp`: to `heading` when it steers by
/// directions, else to `pull` (the force `forces` returns).
#[inline(always)]
pub(crate) fn add_lead<V: Vector>(
    lead: Option<V>,
    sp: &SpeciesParams,
    heading: &mut V,
    pull: &mut V,
) {
    if let Some(h) = lead {
        if sp.steering == Steering::Directions {
            *heading += h;
        } else {
            *pull += h;
        }
    }
}

impl<V: Vector> Interactions<V> {
    /// What the leader adds to each of the `m` boids from sorted index `si0`
    /// (each lane as [`Interactions::forces`] computes it, [`Leads`]), or
    /// `None` when the group is not for lanes: some species follows no one
    /// or more than one species, the boids follow different species, those
    /// within reach lie in different cells
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
    ) -> Option<Leads<V>> {
        if m == 0 || m > LANES {
            return None;
        }
        let b = self.leader_of(data, si0, m)?;
        let t = self.targets[b].as_ref()?;
        let mut group = Followers::load::<V>(species, data, ids, si0, m);
        let Some(c) = group.cell(t, m)? else {
            return Some([None; LANES]); // no lane can reach a leader
        };
        let items = t.grid.cached_around(&mut near[b % NEAR_SLOTS], b, c)?;
        Some(Nearest::of(&group, t, items).leads(&group, species, data, si0, m))
    }

    /// The one species every lane's boid follows, if so.
    fn leader_of(&self, data: &SortedSoa, si0: usize, m: usize) -> Option<usize> {
        let mut leader = None;
        for l in 0..m {
            let a = data.species[si0 + l] as usize;
            let b = (*self.follows.get(a)?)?;
            if leader.is_some_and(|x| x != b) {
                return None;
            }
            leader = Some(b);
        }
        leader
    }
}

/// A group's followers, a lane each: position, id, follow radius and weight,
/// and the radius² of those that may reach a leader (−∞ for the others).
struct Followers {
    p: [[f32; LANES]; 3],
    id: [BoidId; LANES],
    radius: [f32; LANES],
    weight: [f32; LANES],
    r2: [f32; LANES],
}

impl Followers {
    fn load<V: Vector>(
        species: &[SpeciesParams],
        data: &SortedSoa,
        ids: &[BoidId],
        si0: usize,
        m: usize,
    ) -> Self {
        let mut f = Followers {
            p: [[0.0; LANES]; 3],
            id: [0; LANES],
            radius: [0.0; LANES],
            weight: [0.0; LANES],
            r2: [f32::NEG_INFINITY; LANES], // lanes out of reach take nothing
        };
        for l in 0..m {
            let si = si0 + l;
            for (a, pa) in f.p.iter_mut().enumerate().take(V::DIM) {
                pa[l] = data.pos[a][si];
            }
            f.id[l] = ids[si];
            let sp = &species[data.species[si] as usize];
            f.radius[l] = sp.follow_radius;
            f.weight[l] = sp.follow_weight;
        }
        f
    }

    /// The one cell of the leaders' index holding every lane that may reach
    /// a leader (their radius² set): `Some(None)` when none may, `None` when
    /// they lie in different cells. Cells are monotone in each coordinate:
    /// when the group's box lies in one cell, so does every lane.
    fn cell<V: Vector>(&mut self, t: &TargetIndex<V>, m: usize) -> Option<Option<[u32; 3]>> {
        let g = &t.grid;
        let (mut lo, mut hi) = (V::ZERO, V::ZERO);
        for (a, col) in self.p.iter().enumerate().take(V::DIM) {
            let col = &col[..m];
            lo.set(a, col.iter().copied().fold(f32::INFINITY, f32::min));
            hi.set(a, col.iter().copied().fold(f32::NEG_INFINITY, f32::max));
        }
        let finite = self
            .p
            .iter()
            .take(V::DIM)
            .all(|col| col[..m].iter().all(|x| x.is_finite()));
        let c = g.coords_of(lo);
        if finite && c == g.coords_of(hi) {
            if !t.may_reach(c) {
                return Some(None);
            }
            for l in 0..m {
                self.r2[l] = self.radius[l] * self.radius[l];
            }
            return Some(Some(c));
        }
        let mut cell = None;
        for l in 0..m {
            let mut pos = V::ZERO;
            for (a, pa) in self.p.iter().enumerate().take(V::DIM) {
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
            self.r2[l] = self.radius[l] * self.radius[l];
        }
        Some(cell)
    }
}

/// Per lane: the nearest leader in sight (ties to the lower id), its offset
/// and its heading.
struct Nearest {
    found: [bool; LANES],
    d2: [f32; LANES],
    id: [BoidId; LANES],
    d: [[f32; LANES]; 3],
    heading: [[f32; LANES]; 3],
}

#[allow(
    clippy::needless_range_loop,
    reason = "lanes and axes indexed alike across the columns, as loops the compiler vectorizes"
)]
impl Nearest {
    /// Measures every candidate (`items`: slots of the leaders' index with
    /// their shifts) in every lane, as the cache's query does: `d = tp - (p -
    /// shift)`, then the nearest image where the index needs it.
    fn of<V: Vector>(f: &Followers, t: &TargetIndex<V>, items: &[(u32, V)]) -> Self {
        let g = &t.grid;
        let period = g.period::<V>().unwrap_or(V::ZERO);
        let wrap = g.needs_min_image();
        let mut n = Nearest {
            found: [false; LANES],
            d2: [0.0; LANES],
            id: [0; LANES],
            d: [[0.0; LANES]; 3],
            heading: [[0.0; LANES]; 3],
        };
        for &(slot, shift) in items {
            let k = slot as usize;
            let (tp, tid) = (t.positions[k], t.ids[k]);
            // The leader's heading, normalized once per candidate.
            let th = t.velocities[k].normalize_or_zero();
            for l in 0..LANES {
                let mut d = [0.0f32; 3];
                for a in 0..V::DIM {
                    let x = tp.get(a) - (f.p[a][l] - shift.get(a));
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
                let beats = !n.found[l] | (d2 < n.d2[l]) | ((d2 == n.d2[l]) & (tid < n.id[l]));
                let take = (d2 < f.r2[l]) & (tid != f.id[l]) & beats;
                n.found[l] |= take;
                n.d2[l] = if take { d2 } else { n.d2[l] };
                n.id[l] = if take { tid } else { n.id[l] };
                for a in 0..V::DIM {
                    n.d[a][l] = if take { d[a] } else { n.d[a][l] };
                    n.heading[a][l] = if take { th.get(a) } else { n.heading[a][l] };
                }
            }
        }
        n
    }

    /// By directions, match the leader's heading; farther than half the
    /// radius, turn toward it too (fully at the radius). Otherwise seek the
    /// leader. `forces`' formulas, per lane.
    fn leads<V: Vector>(
        &self,
        f: &Followers,
        species: &[SpeciesParams],
        data: &SortedSoa,
        si0: usize,
        m: usize,
    ) -> Leads<V> {
        let mut h = [[0.0f32; LANES]; 3];
        for l in 0..LANES {
            let d2 = self.d2[l];
            let r0 = 0.5 * f.radius[l];
            let pull = ((d2.sqrt() - r0) / r0).clamp(0.0, 1.0);
            // normalize_or_zero
            let unit = d2 > 1e-30 && d2.is_finite();
            let inv = 1.0 / d2.sqrt();
            for a in 0..V::DIM {
                let n = if unit { self.d[a][l] * inv } else { 0.0 };
                h[a][l] = (self.heading[a][l] + n * pull) * f.weight[l];
            }
        }
        let mut out = [None; LANES];
        for l in 0..m {
            if !self.found[l] {
                continue;
            }
            let sp = &species[data.species[si0 + l] as usize];
            let mut v = V::ZERO;
            if sp.steering == Steering::Directions {
                for (a, ha) in h.iter().enumerate().take(V::DIM) {
                    v.set(a, ha[l]);
                }
            } else {
                let mut d = V::ZERO;
                for (a, da) in self.d.iter().enumerate().take(V::DIM) {
                    d.set(a, da[l]);
                }
                v = seek(d, data.velocity::<V>(si0 + l), sp) * sp.follow_weight;
            }
            out[l] = Some(v);
        }
        out
    }
}

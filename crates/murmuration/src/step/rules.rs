//! The three Reynolds rules: neighbour sums over grid runs, then steering forces and
//! their combination (weighted sum or prioritized allocation).
//!
//! A model plugs in as a pair (neighbour accumulation, force from the sums); other
//! research models (Vicsek, Couzin zones) fit the same shape with their own sums.

use crate::behaviours::seek;
use crate::boids::BoidId;
use crate::params::{CombineMode, SpeciesParams, Steering};
use crate::rng::{CounterRng, Stream};
use crate::vector::Vector;

/// Per-species constants derived once per step from [`SpeciesParams`]: the one
/// definition the CPU kernel and the GPU's species uniform both use.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RuleConsts {
    /// Separation radius², units².
    pub sep2: f32,
    /// Alignment radius², units².
    pub ali2: f32,
    /// Cohesion radius², units².
    pub coh2: f32,
    /// Square of the largest radius: a candidate farther than this is not a neighbour.
    pub max2: f32,
    /// cos(fov / 2); a neighbour is visible when `d·heading ≥ cos_half_fov·|d|`.
    pub cos_half_fov: f32,
    /// Distance² under which two boids count as coincident, units²: such a
    /// neighbour is seen whatever the vision cone and pushes along
    /// [`coincident_direction`], not its offset.
    pub eps2: f32,
    /// Distance² under which a neighbour may push or be coincident, units²:
    /// `max(sep2, next float above eps2)`, so every `d2 < sep2` and every
    /// `d2 ≤ eps2` is under it (the 3D CPU kernel does its separation work
    /// only for candidates this close).
    pub gate2: f32,
    /// 1 / sqrt(eps2): the separation push of a coincident neighbour (in place of
    /// its -d/|d|² term).
    pub coincident_push: f32,
    /// The least offset along one axis that puts a candidate out of reach: the
    /// smallest `t ≥ 0` whose rounded square is at least `max2`, so a boid `t`
    /// or more away along x is never a neighbour, whatever the rounding (the
    /// CPU kernel cuts its candidate runs with it).
    pub reach: f32,
}

impl RuleConsts {
    /// The constants of one species.
    pub fn new(p: &SpeciesParams) -> Self {
        let eps = 1e-4 * p.separation_radius;
        let (sep2, eps2) = (p.separation_radius * p.separation_radius, eps * eps);
        let max2 = p.perception_radius() * p.perception_radius();
        Self {
            sep2,
            ali2: p.alignment_radius * p.alignment_radius,
            coh2: p.cohesion_radius * p.cohesion_radius,
            max2,
            cos_half_fov: p.cos_half_fov(),
            eps2,
            gate2: sep2.max(eps2.next_up()),
            coincident_push: 1.0 / eps,
            // (eps2 >= max2 only when both underflow: then cut nothing, so the
            // coincident trigger still sees every candidate.)
            reach: if eps2 < max2 {
                reach_of(max2)
            } else {
                f32::INFINITY
            },
        }
    }
}

/// The smallest `t ≥ 0` with `t * t >= max2` in `f32` arithmetic (squaring is
/// monotone, so every larger `t` passes too).
pub(crate) fn reach_of(max2: f32) -> f32 {
    let mut t = max2.sqrt();
    while t * t < max2 {
        t = t.next_up();
    }
    while t > 0.0 && (t.next_down() * t.next_down()) >= max2 {
        t = t.next_down();
    }
    t
}

/// Neighbour sums for one boid.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Sums<V> {
    /// Σ (self − other) / |d|² over neighbours within the separation radius.
    pub sep: V,
    /// Σ other velocity within the alignment radius.
    pub ali: V,
    pub ali_n: u32,
    /// Σ (other − self) within the cohesion radius (offsets, not positions: exact far
    /// from the origin).
    pub coh: V,
    pub coh_n: u32,
    /// Neighbours within the perception radius that this boid reacts to.
    pub neighbours: u32,
}

/// The rule forces of one boid, in priority order (highest first), already weighted,
/// as the species' [`Steering`] method makes them. `heading` (weighted
/// directions toward leaders) joins the one desired direction of
/// [`Steering::Directions`]; the other methods never receive one.
#[inline(always)]
pub(crate) fn forces<V: Vector>(s: &Sums<V>, v: V, p: &SpeciesParams, heading: V) -> [V; 3] {
    match p.steering {
        Steering::PerRule => {
            let sep = seek(s.sep, v, p) * p.separation_weight;
            let coh = if s.coh_n > 0 {
                seek(s.coh, v, p) * p.cohesion_weight
            } else {
                V::ZERO
            };
            let ali = if s.ali_n > 0 {
                // Mean velocity direction; when neighbours' velocities cancel, there is
                // nothing to align with.
                seek(s.ali, v, p) * p.alignment_weight
            } else {
                V::ZERO
            };
            [sep, coh, ali]
        }
        Steering::Directions => {
            // Seed 000: weighted unit directions, one desired direction, one seek.
            let [sep, coh, ali] = directions(s, p);
            let mut dir = sep + heading;
            if s.ali_n > 0 {
                dir += ali;
            }
            if s.coh_n > 0 {
                dir += coh;
            }
            [seek(dir, v, p), V::ZERO, V::ZERO]
        }
        Steering::Raw => {
            // Seed 001: the rule vectors themselves, weighted.
            let sep = s.sep * p.separation_weight;
            let coh = if s.coh_n > 0 {
                s.coh * (p.cohesion_weight / s.coh_n as f32)
            } else {
                V::ZERO
            };
            let ali = if s.ali_n > 0 {
                (s.ali * (1.0 / s.ali_n as f32) - v) * p.alignment_weight
            } else {
                V::ZERO
            };
            [sep, coh, ali]
        }
    }
}

/// Seed 000's weighted unit directions of separation, cohesion and alignment
/// (zero for a rule without neighbours): what [`Steering::Directions`] sums and
/// seeks once.
#[inline(always)]
pub(crate) fn directions<V: Vector>(s: &Sums<V>, p: &SpeciesParams) -> [V; 3] {
    let unit = |x: V, n: u32, w: f32| {
        if n > 0 {
            x.normalize_or_zero() * w
        } else {
            V::ZERO
        }
    };
    [
        s.sep.normalize_or_zero() * p.separation_weight,
        unit(s.coh, s.coh_n, p.cohesion_weight),
        unit(s.ali, s.ali_n, p.alignment_weight),
    ]
}

/// The cruise-speed relaxation: `(cruise_speed − |v|) / cruise_time` along the
/// heading; zero when the species has no cruising speed or the boid is at rest.
#[inline(always)]
pub(crate) fn cruise<V: Vector>(v: V, p: &SpeciesParams, afraid: bool) -> V {
    if p.cruise_speed <= 0.0 {
        return V::ZERO;
    }
    let speed = v.length();
    if speed <= 1e-12 {
        return V::ZERO;
    }
    let cruise = if afraid {
        afraid_cruise(p)
    } else {
        p.cruise_speed
    };
    v * ((cruise - speed) / (p.cruise_time * speed))
}

/// The cruising speed with a threat in sight: fear lifts it toward max speed
/// (the plain cruising speed without fear). The scalar path and the lanes
/// both take it from here.
#[inline(always)]
pub(crate) fn afraid_cruise(p: &SpeciesParams) -> f32 {
    if p.fear > 0.0 {
        p.cruise_speed + p.fear * (p.max_speed - p.cruise_speed).max(0.0)
    } else {
        p.cruise_speed
    }
}

/// Combines forces given in priority order (highest first: obstacle avoidance,
/// pulses, flight, targets, then the rules) into one acceleration with magnitude at most
/// `max_force`. Zero forces change nothing, bit for bit.
#[inline(always)]
pub(crate) fn combine<V: Vector>(forces: &[V], p: &SpeciesParams) -> V {
    match p.combine {
        CombineMode::WeightedSum => {
            let mut acc = forces[0];
            for &f in &forces[1..] {
                acc += f;
            }
            acc.clamp_length_max(p.max_force)
        }
        CombineMode::Prioritized => {
            let mut left = p.max_force;
            let mut acc = V::ZERO;
            for &f in forces {
                let m = f.length();
                if m <= left {
                    acc += f;
                    left -= m;
                } else {
                    if m > 0.0 {
                        acc += f * (left / m);
                    }
                    break;
                }
            }
            acc
        }
    }
}

/// Direction that pushes boid `me` away from a coincident boid `other` (closer than
/// [`RuleConsts::eps2`](crate::RuleConsts::eps2)): a keyed random unit vector for
/// the pair, with opposite signs for the two boids. Public for reference models.
#[inline(never)]
pub fn coincident_direction<V: Vector>(seed: u64, me: BoidId, other: BoidId) -> V {
    let (lo, hi) = if me < other { (me, other) } else { (other, me) };
    let key = ((lo as u64) << 32) | hi as u64;
    let mut r = CounterRng::new(seed, key, 0, Stream::Coincident);
    let u = V::unit_from_uniform(r.next_f32(), r.next_f32());
    if me < other { u } else { -u }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec2;

    /// `reach_of` is the least `t` whose rounded square reaches `max2`.
    #[test]
    fn reach_is_the_least_offset_whose_square_reaches_max2() {
        let mut max2 = 1e-30f32;
        while max2 < 1e9 {
            for m in [max2, max2.next_up(), max2.next_down()] {
                let t = reach_of(m);
                assert!(t * t >= m && t.next_down() * t.next_down() < m, "{m}: {t}");
            }
            max2 *= 1.37;
        }
    }

    /// The 3D kernel does separation only under `gate2`: every pushing
    /// distance (`< sep2`) and every coincident one (`<= eps2`) must be under
    /// it, also with no separation radius at all.
    #[test]
    fn gate2_admits_every_push_and_every_coincident_distance() {
        for sep in [0.0f32, 1e-30, 1e-6, 0.013, 0.4, 1.0, 7.5] {
            let p = SpeciesParams {
                separation_radius: sep,
                ..SpeciesParams::benchmark()
            };
            let k = RuleConsts::new(&p);
            assert!(
                k.sep2 <= k.gate2,
                "{sep}: sep2 {} gate2 {}",
                k.sep2,
                k.gate2
            );
            assert!(k.eps2 < k.gate2, "{sep}: eps2 {} gate2 {}", k.eps2, k.gate2);
            assert!(
                k.gate2 <= k.max2.max(k.eps2.next_up()),
                "{sep}: {}",
                k.gate2
            );
        }
    }

    #[test]
    fn prioritized_gives_the_budget_to_higher_forces_first() {
        let p = SpeciesParams {
            max_force: 1.0,
            combine: CombineMode::Prioritized,
            ..SpeciesParams::benchmark()
        };
        let a = combine(
            &[
                Vec2::new(0.75, 0.0),
                Vec2::new(0.0, 1.0),
                Vec2::new(-5.0, 0.0),
                Vec2::ZERO,
            ],
            &p,
        );
        assert!((a - Vec2::new(0.75, 0.25)).length() < 1e-6, "{a}");
        let w = combine(
            &[
                Vec2::new(0.75, 0.0),
                Vec2::new(0.0, 1.0),
                Vec2::new(-5.0, 0.0),
                Vec2::ZERO,
            ],
            &SpeciesParams {
                combine: CombineMode::WeightedSum,
                ..p
            },
        );
        assert!((w.length() - 1.0).abs() < 1e-6);
        assert!(
            w.x < 0.0,
            "weighted sum lets the big low-priority force win"
        );
    }

    /// Each steering method turns the same sums into its documented forces.
    #[test]
    fn steering_methods_make_their_documented_forces() {
        let s = Sums {
            sep: Vec2::new(4.0, 0.0),
            ali: Vec2::new(0.0, 6.0),
            ali_n: 2,
            coh: Vec2::new(-2.0, 2.0),
            coh_n: 2,
            neighbours: 2,
        };
        let v = Vec2::new(1.0, 0.0);
        let p = SpeciesParams {
            max_speed: 2.0,
            max_force: 100.0,
            separation_weight: 2.0,
            alignment_weight: 1.0,
            cohesion_weight: 0.5,
            ..SpeciesParams::default()
        };
        let near = |a: Vec2, b: Vec2| (a - b).length() < 1e-5;
        // Per rule: three seeks at max speed, weighted.
        let [sep, coh, ali] = forces(&s, v, &p, Vec2::ZERO);
        assert!(near(sep, Vec2::new(2.0, 0.0)), "{sep}");
        assert!(near(ali, Vec2::new(-1.0, 2.0)), "{ali}");
        let c = (Vec2::new(-1.0, 1.0).normalize() * 2.0 - v) * 0.5;
        assert!(near(coh, c), "{coh}");
        // Directions: one seek toward the weighted sum of unit directions.
        let dirs = SpeciesParams {
            steering: Steering::Directions,
            ..p
        };
        let d = Vec2::new(2.0, 0.0) + Vec2::new(0.0, 1.0) + Vec2::new(-1.0, 1.0).normalize() * 0.5;
        let [one, zero_a, zero_b] = forces(&s, v, &dirs, Vec2::ZERO);
        assert!(near(one, d.normalize() * 2.0 - v), "{one}");
        assert_eq!((zero_a, zero_b), (Vec2::ZERO, Vec2::ZERO));
        // Raw: the vectors themselves (mean offset, mean velocity − velocity).
        let raw = SpeciesParams {
            steering: Steering::Raw,
            ..p
        };
        let [sep, coh, ali] = forces(&s, v, &raw, Vec2::ZERO);
        assert!(near(sep, Vec2::new(8.0, 0.0)), "{sep}");
        assert!(near(coh, Vec2::new(-0.5, 0.5)), "{coh}");
        assert!(near(ali, Vec2::new(-1.0, 3.0)), "{ali}");
    }

    #[test]
    fn cruise_relaxes_speed_along_the_heading() {
        let p = SpeciesParams {
            cruise_speed: 2.0,
            cruise_time: 0.5,
            ..SpeciesParams::default()
        };
        assert_eq!(cruise(Vec2::new(0.0, 1.0), &p, false), Vec2::new(0.0, 2.0));
        assert_eq!(cruise(Vec2::new(3.0, 0.0), &p, false), Vec2::new(-2.0, 0.0));
        assert_eq!(cruise(Vec2::ZERO, &p, false), Vec2::ZERO);
        let off = SpeciesParams {
            cruise_speed: 0.0,
            ..p
        };
        assert_eq!(cruise(Vec2::new(3.0, 0.0), &off, false), Vec2::ZERO);
        // Fear lifts the cruise toward max speed (10) only while afraid.
        let afraid = SpeciesParams {
            fear: 0.5,
            max_speed: 10.0,
            ..p
        };
        assert_eq!(
            cruise(Vec2::new(0.0, 1.0), &afraid, false),
            Vec2::new(0.0, 2.0)
        );
        // Cruise 2 + 0.5 · (10 − 2) = 6: (6 − 1) / 0.5 = 10 along the heading.
        assert_eq!(
            cruise(Vec2::new(0.0, 1.0), &afraid, true),
            Vec2::new(0.0, 10.0)
        );
    }
}

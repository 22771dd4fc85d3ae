//! Shared test helpers: a brute-force O(n²) reference step that follows the documented
//! semantics literally, and small world builders.

use murmuration::{Spawn, SpeciesId};

use murmuration::glam::{Vec2, Vec3};
use murmuration::{
    Boundary, CombineMode, Relation, RuleConsts, SpeciesParams, Steering, Vector, World,
    WorldConfig, coincident_direction,
};

/// Nearest-image offset from `a` to `b`.
pub fn offset<V: Vector>(a: V, b: V, cfg: &WorldConfig<V>) -> V {
    let mut d = b - a;
    if cfg.boundary == Boundary::Wrap {
        let l = cfg.size();
        for i in 0..V::DIM {
            let x = d.get(i);
            d.set(i, x - l.get(i) * (x / l.get(i)).round());
        }
    }
    d
}

fn seek<V: Vector>(dir: V, v: V, p: &SpeciesParams) -> V {
    let l = dir.length();
    if l <= 1e-15 {
        return V::ZERO;
    }
    (dir * (p.max_speed / l) - v).clamp_length_max(p.max_force)
}

/// Relative width of the band around a radius or the vision cone's edge in
/// which rounding decides whether a neighbour counts (the step's f32 offsets
/// and the reference's differ in their last bits, about 1e-7 of a distance):
/// ten times that, and no wider, for near 180° the cone's band of cosines is
/// a wide band of angles.
const EDGE: f32 = 1e-6;

/// One step computed by brute force from the public state (no jitter): each
/// boid's position and velocity. Coincident neighbours (within
/// `RuleConsts::eps2`) are seen whatever the cone and push along
/// `coincident_direction`. Also, for each boid, whether its result hangs on rounding:
/// a neighbour within [`EDGE`] of a radius or of the cone's edge (counted by
/// one computation and not the other), or a rule's sum that nearly cancels
/// (its direction, once normalised, is then rounding noise). Such a boid's
/// result may differ discontinuously from the step's; nothing else may.
pub fn reference_step<V: Vector>(w: &World<V>) -> (Vec<V>, Vec<V>, Vec<bool>) {
    let cfg = *w.config();
    let pos = w.positions();
    let vel = w.velocities();
    let spc = w.boid_species();
    let steer = w.steering();
    let ids = w.ids();
    let n = pos.len();
    let mut out_p = Vec::with_capacity(n);
    let mut out_v = Vec::with_capacity(n);
    let mut marks = Vec::with_capacity(n);
    for i in 0..n {
        let s = spc[i] as usize;
        let p = w.species()[s];
        let (mut sep, mut ali, mut coh) = (V::ZERO, V::ZERO, V::ZERO);
        let (mut na, mut nc) = (0, 0);
        let (mut sep_abs, mut ali_abs, mut coh_abs) = (0.0f32, 0.0f32, 0.0f32);
        let mut ambiguous = false;
        let r = p.perception_radius();
        let h = vel[i].normalize_or_zero();
        let cos_half = (p.fov_degrees.to_radians() * 0.5).cos();
        let rc = RuleConsts::new(&p);
        // Everyone it reacts to: (distance², id, offset, flocks with it).
        let mut seen = Vec::new();
        for j in 0..n {
            if i == j {
                continue;
            }
            let d = offset(pos[i], pos[j], &cfg);
            let d2 = d.length_squared();
            // Exactly on an edge (a lattice's exact distances) both sides
            // compute alike; only a hair's breadth away can they disagree.
            let near = |radius: f32| {
                let e = (d2 - radius * radius).abs();
                e > 0.0 && e <= 2.0 * EDGE * radius * radius
            };
            if near(r)
                || near(p.separation_radius)
                || near(p.alignment_radius)
                || near(p.cohesion_radius)
            {
                ambiguous = true;
            }
            if p.fov_degrees < 360.0
                && h != V::ZERO
                && d2 > rc.eps2
                && (d.dot(h) - cos_half * d2.sqrt()).abs() <= EDGE * d2.sqrt()
                && d.dot(h) != cos_half * d2.sqrt()
            {
                ambiguous = true;
            }
            if d2 >= r * r {
                continue;
            }
            let coincident = d2 <= rc.eps2;
            if p.fov_degrees < 360.0
                && h != V::ZERO
                && !coincident
                && d.dot(h) < cos_half * d2.sqrt()
            {
                continue;
            }
            let rel = w.relations().get(s, spc[j] as usize);
            if rel == Relation::Ignore {
                continue;
            }
            seen.push((d2, ids[j], d, j, rel != Relation::Separate));
        }
        // Topological: only the k nearest (ties by the smaller id).
        if p.topological_neighbours > 0 {
            seen.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            seen.truncate(p.topological_neighbours as usize);
        }
        for &(d2, _, d, j, flock) in &seen {
            if d2 <= rc.eps2 {
                sep += coincident_direction::<V>(cfg.seed, ids[i], ids[j]) * rc.coincident_push;
            } else if d2 < p.separation_radius * p.separation_radius {
                sep -= d / d2;
                sep_abs += 1.0 / d2.sqrt();
            }
            if !flock {
                continue;
            }
            if d2 < p.alignment_radius * p.alignment_radius {
                ali += vel[j];
                ali_abs += vel[j].length();
                na += 1;
            }
            if d2 < p.cohesion_radius * p.cohesion_radius {
                coh += d;
                coh_abs += d2.sqrt();
                nc += 1;
            }
        }
        // A sum that nearly cancels has a direction made of rounding.
        for (sum, abs) in [(sep, sep_abs), (ali, ali_abs), (coh, coh_abs)] {
            if sum != V::ZERO && sum.length() <= 1e-4 * abs {
                ambiguous = true;
            }
        }
        let v = vel[i];
        // The documented steering methods (docs/SCENARIOS.md, "Steering methods").
        let unit = |x: V| x.normalize_or_zero();
        let [f_sep, f_coh, f_ali] = match p.steering {
            Steering::PerRule => [
                seek(sep, v, &p) * p.separation_weight,
                if nc > 0 {
                    seek(coh, v, &p) * p.cohesion_weight
                } else {
                    V::ZERO
                },
                if na > 0 {
                    seek(ali, v, &p) * p.alignment_weight
                } else {
                    V::ZERO
                },
            ],
            Steering::Directions => {
                let mut dir = unit(sep) * p.separation_weight;
                if na > 0 {
                    dir += unit(ali) * p.alignment_weight;
                }
                if nc > 0 {
                    dir += unit(coh) * p.cohesion_weight;
                }
                [seek(dir, v, &p), V::ZERO, V::ZERO]
            }
            Steering::Raw => [
                sep * p.separation_weight,
                if nc > 0 {
                    coh * (p.cohesion_weight / nc as f32)
                } else {
                    V::ZERO
                },
                if na > 0 {
                    (ali * (1.0 / na as f32) - v) * p.alignment_weight
                } else {
                    V::ZERO
                },
            ],
        };
        // The soft wall acts on top of the steering budget.
        let mut wall = V::ZERO;
        if let Boundary::Soft { margin, strength } = cfg.boundary {
            for a in 0..V::DIM {
                let x = pos[i].get(a);
                let lo = cfg.min.get(a) + margin - x;
                let hi = x - (cfg.max.get(a) - margin);
                if lo > 0.0 {
                    wall.set(a, strength / margin * lo);
                } else if hi > 0.0 {
                    wall.set(a, -strength / margin * hi);
                }
            }
        }
        // Cruise: relax toward the cruise speed along the heading.
        let speed = v.length();
        let cruise = if p.cruise_speed > 0.0 && speed > 1e-12 {
            v * ((p.cruise_speed - speed) / (p.cruise_time * speed))
        } else {
            V::ZERO
        };
        let mut acc = match p.combine {
            CombineMode::WeightedSum => (f_sep + f_coh + f_ali).clamp_length_max(p.max_force),
            CombineMode::Prioritized => {
                let mut left = p.max_force;
                let mut acc = V::ZERO;
                for f in [f_sep, f_coh, f_ali] {
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
        } + wall
            + cruise;
        if p.smoothing > 0.0 {
            acc = steer[i] * p.smoothing + acc * (1.0 - p.smoothing);
        }
        let mut v2 = v + acc * cfg.dt;
        let sp = v2.length();
        if sp > p.max_speed {
            v2 *= p.max_speed / sp;
        } else if p.min_speed > 0.0 && sp < p.min_speed && sp > 1e-6 {
            v2 *= p.min_speed / sp;
        }
        let mut p2 = pos[i] + v2 * cfg.dt;
        match cfg.boundary {
            Boundary::Wrap => {
                for a in 0..V::DIM {
                    let (lo, hi) = (cfg.min.get(a), cfg.max.get(a));
                    let x = p2.get(a);
                    if x < lo || x >= hi {
                        let mut y = lo + (x - lo).rem_euclid(hi - lo);
                        if y >= hi {
                            y = lo;
                        }
                        p2.set(a, y);
                    }
                }
            }
            Boundary::Reflect => {
                for a in 0..V::DIM {
                    let (lo, hi) = (cfg.min.get(a), cfg.max.get(a));
                    let x = p2.get(a);
                    if x < lo {
                        p2.set(a, (2.0 * lo - x).min(hi));
                        v2.set(a, v2.get(a).abs());
                    } else if x > hi {
                        p2.set(a, (2.0 * hi - x).max(lo));
                        v2.set(a, -v2.get(a).abs());
                    }
                }
            }
            _ => {}
        }
        out_p.push(p2);
        out_v.push(v2);
        marks.push(ambiguous);
    }
    (out_p, out_v, marks)
}

/// A flock in a box of side `side` with the benchmark species.
pub fn flock<V: Vector>(n: u64, side: f32, boundary: Boundary, seed: u64) -> World<V> {
    let mut cfg = WorldConfig::new(V::splat(side), boundary);
    cfg.seed = seed;
    let mut w = World::new(cfg, vec![SpeciesParams::benchmark()]).unwrap();
    w.spawn(Spawn::new(SpeciesId::FIRST, n).speed(1.0)).unwrap();
    w
}

/// Busy 2D and 3D worlds with every feature that affects the step switched on.
pub fn busy2(seed: u64) -> World<Vec2> {
    busy::<Vec2>(seed)
}
/// See [`busy2`].
pub fn busy3(seed: u64) -> World<Vec3> {
    busy::<Vec3>(seed)
}

fn busy<V: Vector>(seed: u64) -> World<V> {
    let mut cfg = WorldConfig::new(
        V::splat(12.0),
        Boundary::Soft {
            margin: 2.0,
            strength: 3.0,
        },
    );
    cfg.seed = seed;
    let a = SpeciesParams {
        jitter: 0.02,
        fov_degrees: 270.0,
        smoothing: 0.3,
        min_speed: 0.3,
        ..SpeciesParams::benchmark()
    };
    let b = SpeciesParams {
        combine: CombineMode::Prioritized,
        max_speed: 1.5,
        separation_radius: 0.6,
        cohesion_radius: 1.4,
        ..SpeciesParams::benchmark()
    };
    let mut w = World::new(cfg, vec![a, b]).unwrap();
    w.set_relation(SpeciesId::FIRST, SpeciesId::new(1), Relation::Separate)
        .unwrap();
    w.set_relation(SpeciesId::new(1), SpeciesId::FIRST, Relation::Ignore)
        .unwrap();
    w.spawn(Spawn::new(SpeciesId::FIRST, 700).speed(1.0))
        .unwrap();
    w.spawn(Spawn::new(SpeciesId::new(1), 300).speed(1.0))
        .unwrap();
    w
}

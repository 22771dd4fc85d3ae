//! The standard benchmark workload (BENCHMARKS.md, "The standard workload"), shared by
//! `murmuration bench`, the criterion benches and the profiling example.

use crate::behaviours::attractors::Attractor;
use crate::behaviours::obstacles::Obstacle;
use crate::error::WorldError;
use crate::params::Relation;
use crate::params::SpeciesParams as Params;
use crate::params::model::{AbmFlocking, Couzin, Dorsogna, Model, ModelKind, Vicsek};
use crate::params::{Boundary, SpeciesId, SpeciesParams, WorldConfig};
use crate::vector::Vector;
use crate::world::World;
use crate::world::spawn::Spawn;

impl<V: Vector> World<V> {
    /// The standard benchmark world: `n` boids of [`SpeciesParams::benchmark`] in a
    /// periodic box at 6.4 boids/unit² (2D) or 4.8 boids/unit³ (3D) — about 20.1
    /// neighbours within radius 1 — positions and headings uniform, speed = max
    /// speed, seed 1.
    pub fn benchmark(n: u64) -> Result<Self, WorldError> {
        let density = if V::DIM == 2 { 6.4 } else { 4.8 };
        let side = libm::pow(n as f64 / density, 1.0 / V::DIM as f64) as f32;
        let mut config = WorldConfig::new(V::splat(side), Boundary::Wrap);
        config.seed = 1;
        let mut world = World::new(config, vec![SpeciesParams::benchmark()])?;
        world.spawn(Spawn::new(SpeciesId::FIRST, n))?;
        Ok(world)
    }

    /// The benchmark world with its species moving by `model` instead, scaled to
    /// the same interaction range (1) and speed (1 unit/s) in the same box and
    /// time step, so its row reads beside the boids' (`murmuration bench --model`).
    pub fn benchmark_model(n: u64, model: ModelKind) -> Result<Self, WorldError> {
        let mut world = Self::benchmark(n)?;
        let model = match Model::default_of(model) {
            Model::Reynolds => return Ok(world),
            Model::Vicsek(m) => Model::Vicsek(Vicsek {
                r: 1.0,
                v0: 1.0,
                ..m
            }),
            Model::Couzin(m) => {
                let k = 1.0 / m.r_a();
                Model::Couzin(Couzin {
                    r_r: m.r_r * k,
                    delta_r_o: m.delta_r_o * k,
                    delta_r_a: m.delta_r_a * k,
                    s: 1.0,
                    ..m
                })
            }
            Model::Dorsogna(m) => {
                let k = 1.0 / m.cutoff;
                Model::Dorsogna(Dorsogna {
                    l_r: m.l_r * k,
                    l_a: m.l_a * k,
                    cutoff: 1.0,
                    ..m
                })
            }
            Model::AbmFlocking(m) => Model::AbmFlocking(AbmFlocking {
                visual_distance: 1.0,
                separation: 0.2,
                speed: 1.0,
                ..m
            }),
        };
        world.set_species_params(SpeciesId::FIRST, Params::of_model(model))?;
        Ok(world)
    }

    /// The benchmark world with behaviours (`murmuration bench --workload oap`,
    /// BENCHMARKS.md's `oap`): `parts` picks them — `o` 10 obstacles (spheres and
    /// capsules), `a` 3 attractors, `p` 2 predator species of 50 boids each that
    /// the prey flee and that chase and eat them, `m` the 2 species without
    /// boids or relations (the multi-species kernel alone), `z` a maze of
    /// hundreds of thin walls on a 10-unit lattice (in the x–y plane), `b` the
    /// obstacles baked into one distance field.
    pub fn benchmark_behaviours(n: u64, parts: &str) -> Result<Self, WorldError> {
        let mut w = Self::benchmark(n)?;
        let l = w.config().size().get(0);
        let at = |x: f32, y: f32| {
            let mut v = V::splat(0.5 * l);
            v.set(0, x);
            v.set(1, y);
            v
        };
        let prey = SpeciesParams {
            flee_radius: 3.0,
            ..SpeciesParams::benchmark()
        };
        w.set_species_params(SpeciesId::FIRST, prey)?;
        let shark = SpeciesParams {
            max_speed: 1.3,
            chase_radius: 4.0,
            eat_radius: 0.3,
            ..SpeciesParams::benchmark()
        };
        for s in 1..=2 {
            if parts.contains('m') {
                w.add_species(shark)?;
                continue;
            }
            if !parts.contains('p') {
                break;
            }
            w.add_species(shark)?;
            w.set_relation(SpeciesId::FIRST, SpeciesId::new(s), Relation::Flee)?;
            w.set_relation(SpeciesId::new(s), SpeciesId::FIRST, Relation::Chase)?;
            w.spawn(Spawn::new(SpeciesId::new(s), 50).speed(1.0))?;
        }
        if parts.contains('o') {
            for k in 0..10 {
                let c = at((k as f32 * 0.37).fract() * l, (k as f32 * 0.61).fract() * l);
                let o = if k % 2 == 0 {
                    Obstacle::Sphere {
                        center: c,
                        radius: 0.02 * l,
                    }
                } else {
                    let mut b = c;
                    b.set(0, c.get(0) + 0.1 * l);
                    Obstacle::Capsule {
                        a: c,
                        b,
                        radius: 0.2,
                    }
                };
                w.add_obstacle(o)?;
            }
        }
        if parts.contains('z') {
            let cells = (l / 10.0) as i32;
            for i in 0..cells {
                for j in 0..cells {
                    let a = at(i as f32 * 10.0 + 2.0, j as f32 * 10.0 + 2.0);
                    if (i + 2 * j) % 3 != 0 {
                        let mut b = a;
                        b.set(0, a.get(0) + 8.0);
                        w.add_obstacle(Obstacle::Capsule { a, b, radius: 0.05 })?;
                    }
                    if (2 * i + j) % 3 != 1 {
                        let mut b = a;
                        b.set(1, a.get(1) + 8.0);
                        w.add_obstacle(Obstacle::Capsule { a, b, radius: 0.05 })?;
                    }
                }
            }
        }
        if parts.contains('b') {
            w.bake_obstacles(0.25)?;
        }
        if parts.contains('a') {
            for k in 0..3 {
                w.add_attractor(Attractor {
                    range: 0.15 * l,
                    ..Attractor::new(at((0.2 + 0.3 * k as f32) * l, 0.5 * l), 0.5, 2.0)
                })?;
            }
        }
        Ok(w)
    }
}

//! Vicsek et al., "Novel type of phase transition in a system of self-driven
//! particles", PRL 75, 1226 (1995): constant speed v0 in a periodic box; each
//! step every particle takes the direction of the summed velocities of all
//! particles within r (itself included) plus a uniform angle in [−η/2, η/2], all
//! at once (synchronous update).

use super::Model;
use super::neighbours::{Scratch, for_each_near, update_each};
use crate::boids::Boids;
use crate::boundary::wrap;
use crate::params::{SpeciesParams, WorldConfig};
use crate::pipeline::StepStats;
use crate::rng::{CounterRng, Stream};
use crate::vector::Vector;
use serde::{Deserialize, Serialize};

/// Which velocity moves a particle during the step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VicsekUpdate {
    /// The paper's: x(t + Δt) = x(t) + v(t) Δt, the old velocity.
    #[default]
    Paper,
    /// The later "forward" form: x(t + Δt) = x(t) + v(t + Δt) Δt, the new one.
    Forward,
}

/// Parameters of the Vicsek model (symbols of the paper; Δt is `world.dt`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Vicsek {
    /// v0, units/s: every particle's speed, in (0, 1e5].
    pub v0: f32,
    /// r, units: interaction radius (neighbours strictly within it), in (0, 1e4].
    pub r: f32,
    /// η, rad: noise amplitude, in [0, 2π].
    pub eta: f32,
    /// Which velocity moves the particle (the paper's old one by default).
    pub update: VicsekUpdate,
}

impl Default for Vicsek {
    /// The paper's Fig. 1–2 values: v0 = 0.03, r = 1, η = 2 (Δt = 1 in the presets).
    fn default() -> Self {
        Self {
            v0: 0.03,
            r: 1.0,
            eta: 2.0,
            update: VicsekUpdate::Paper,
        }
    }
}

pub(super) fn step<V: Vector>(
    scratch: &mut Scratch<V>,
    boids: &mut Boids<V>,
    config: &WorldConfig<V>,
    species: &[SpeciesParams],
    step: u64,
) -> StepStats {
    let params: Vec<Vicsek> = species
        .iter()
        .map(|s| match s.model {
            Model::Vicsek(m) => m,
            _ => Vicsek::default(),
        })
        .collect();
    let radius = params.iter().map(|m| m.r).fold(0.0, f32::max);
    scratch.gather(boids, config, radius);
    let Scratch {
        grid,
        pos,
        vel,
        ids,
        species: sp,
        new_pos,
        new_vel,
        ..
    } = &mut *scratch;
    let (grid, pos, vel, ids, sp) = (&*grid, &*pos, &*vel, &*ids, &*sp);
    let dt = config.dt;
    let seed = config.seed;
    update_each(new_pos, new_vel, |i| {
        let m = &params[sp[i] as usize];
        let p = pos[i];
        let mut sum = V::ZERO;
        for_each_near(grid, pos, p, m.r * m.r, |j, _, _| sum += vel[j]);
        let (sx, sy) = (sum.get(0), sum.get(1));
        let mean = if sx == 0.0 && sy == 0.0 {
            vel[i].get(1).atan2(vel[i].get(0))
        } else {
            sy.atan2(sx)
        };
        let mut rng = CounterRng::new(seed, ids[i] as u64, step, Stream::ModelNoise);
        let theta = mean + m.eta * (rng.next_f32() - 0.5);
        let v = V::from_array3([m.v0 * theta.cos(), m.v0 * theta.sin(), 0.0]);
        let moved = match m.update {
            VicsekUpdate::Paper => vel[i],
            VicsekUpdate::Forward => v,
        };
        (wrap(p + moved * dt, config), v)
    });
    let stats = StepStats {
        boids: boids.len() as u64,
        cells: scratch.grid.cell_count() as u64,
        ..StepStats::default()
    };
    scratch.store(boids, dt);
    stats
}

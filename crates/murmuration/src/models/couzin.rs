//! Couzin, Krause, James, Ruxton & Franks, "Collective memory and spatial sorting
//! in animal groups", J. theor. Biol. 218, 1 (2002): zones of repulsion,
//! orientation and attraction, a blind volume behind, a maximum turning rate,
//! constant speed and Gaussian rotational noise; synchronous update with time step
//! τ = `world.dt`.

use super::neighbours::{Scratch, for_each_near, perpendicular, turn_toward, update_each};
use crate::behaviours::boundary::confine;
use crate::boids::Boids;
use crate::params::model::Couzin;
use crate::params::{SpeciesParams, WorldConfig};
use crate::rng::{CounterRng, Stream};
use crate::stats::StepStats;
use crate::vector::Vector;

/// A standard normal number from two uniforms (Box–Muller).
#[inline]
pub(super) fn gaussian(rng: &mut CounterRng) -> f32 {
    let u1 = 1.0 - rng.next_f32(); // (0, 1]
    let u2 = rng.next_f32();
    (-2.0 * libm::logf(u1)).sqrt() * libm::cosf(std::f32::consts::TAU * u2)
}

/// The desired direction d_i(t + τ) of the paper's equations (1)–(3), before
/// noise, from the offsets and headings of the individuals `i` perceives; `None`
/// when it perceives nobody or the sum vanishes (it keeps its heading).
pub(super) fn desired<V: Vector>(
    m: &Couzin,
    heading: V,
    mut neighbours: impl FnMut(&mut dyn FnMut(V, f32, V)),
) -> Option<V> {
    let (r_r2, r_o2) = (m.r_r * m.r_r, m.r_o() * m.r_o());
    let cos_half = libm::cosf(m.alpha.to_radians() * 0.5);
    let blind = m.alpha < 360.0;
    let (mut d_r, mut d_o, mut d_a) = (V::ZERO, V::ZERO, V::ZERO);
    let (mut n_r, mut n_o, mut n_a) = (0u32, 0u32, 0u32);
    neighbours(&mut |d: V, d2: f32, v: V| {
        let dist = d2.sqrt();
        let unit = if dist > 0.0 { d / dist } else { V::ZERO };
        if blind && unit.dot(heading) < cos_half {
            return;
        }
        if d2 < r_r2 {
            d_r -= unit;
            n_r += 1;
        } else if d2 < r_o2 {
            d_o += v.normalize_or_zero();
            n_o += 1;
        } else {
            d_a += unit;
            n_a += 1;
        }
    });
    let d = if n_r > 0 {
        d_r
    } else {
        match (n_o > 0, n_a > 0) {
            (true, true) => (d_o.normalize_or_zero() + d_a.normalize_or_zero()) * 0.5,
            (true, false) => d_o,
            (false, true) => d_a,
            (false, false) => V::ZERO,
        }
    };
    let d = d.normalize_or_zero();
    (d != V::ZERO).then_some(d)
}

pub(super) fn step<V: Vector>(
    scratch: &mut Scratch<V>,
    boids: &mut Boids<V>,
    config: &WorldConfig<V>,
    species: &[SpeciesParams],
    step: u64,
) -> StepStats {
    let params = |s: u16| species[s as usize].model_params::<Couzin>();
    scratch.gather(boids, config, super::widest(species));
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
    let tau = config.dt;
    let seed = config.seed;
    update_each(new_pos, new_vel, |i| {
        let m = &params(sp[i]);
        let p = pos[i];
        let mut rng = CounterRng::new(seed, ids[i] as u64, step, Stream::ModelNoise);
        let mut heading = vel[i].normalize_or_zero();
        if heading == V::ZERO {
            heading = V::unit_from_uniform(rng.next_f32(), rng.next_f32());
        }
        let r_a2 = m.r_a() * m.r_a();
        let want = desired(m, heading, |f| {
            for_each_near(grid, pos, p, r_a2, |j, d, d2| {
                if j != i {
                    f(d, d2, vel[j]);
                }
            });
        })
        .unwrap_or(heading);
        let mut target = want;
        if m.sigma > 0.0 {
            let g = m.sigma * gaussian(&mut rng);
            let w = perpendicular(target, || rng.next_f32());
            target = (target * libm::cosf(g) + w * libm::sinf(g)).normalize_or_zero();
        }
        let perp = perpendicular(heading, || rng.next_f32());
        let d = turn_toward(heading, target, m.theta.to_radians() * tau, perp);
        let mut v = d * m.s;
        let mut q = p + v * tau;
        confine(&mut q, &mut v, config);
        (q, v)
    });
    let stats = StepStats {
        boids: boids.len() as u64,
        cells: scratch.grid.cell_count() as u64,
        ..StepStats::default()
    };
    scratch.store(boids, tau);
    stats
}

//! D'Orsogna, Chuang, Bertozzi & Chayes, "Self-propelled particles with soft-core
//! interactions: patterns, stability, and collapse", PRL 96, 104302 (2006):
//!
//! ```text
//! dx_i/dt = v_i
//! m dv_i/dt = (α − β|v_i|²) v_i − ∇_i U,   U = Σ_{j≠i} C_r e^{−|x_i−x_j|/l_r} − C_a e^{−|x_i−x_j|/l_a}
//! ```
//!
//! integrated by the classical fourth-order Runge–Kutta method with step
//! `world.dt`; pairs farther apart than the cutoff r_c do not interact. Each of
//! the four stages finds its neighbours on a grid over that stage's positions, so
//! the cutoff is exact at every stage.

use super::neighbours::Scratch;
use crate::behaviours::boundary::{confine, wrap};
use crate::boids::Boids;
use crate::grid::Extent;
use crate::params::model::Dorsogna;
use crate::params::{Boundary, SpeciesParams, WorldConfig};
use crate::stats::StepStats;
use crate::vector::Vector;
use rayon::prelude::*;

/// Accelerations `out[i]` of every particle at stage positions `xs` and
/// velocities `vs` (index order), on a grid built over `xs`.
fn accelerations<V: Vector>(
    scratch_grid: &mut crate::grid::Grid,
    xs: &[V],
    vs: &[V],
    sp: &[u16],
    species: &[SpeciesParams],
    config: &WorldConfig<V>,
    out: &mut [V],
) {
    scratch_grid.build(xs, super::widest(species), Extent::of(config));
    let grid = &*scratch_grid;
    out.par_chunks_mut(super::neighbours::CHUNK)
        .enumerate()
        .for_each(|(c, chunk)| {
            for (k, a) in chunk.iter_mut().enumerate() {
                let i = c * super::neighbours::CHUNK + k;
                let m = &species[sp[i] as usize].model_params::<Dorsogna>();
                let mut f = V::ZERO;
                grid.for_each_within(xs, xs[i], m.cutoff, Some(i), |_, d| {
                    let r = d.length();
                    if r > 0.0 {
                        // The force on i points away from j when repulsive.
                        f -= d * (m.pair_force(r) / r);
                    }
                });
                let v = vs[i];
                *a = (v * (m.alpha - m.beta * v.length_squared()) + f) * (1.0 / m.mass);
            }
        });
}

pub(super) fn step<V: Vector>(
    scratch: &mut Scratch<V>,
    boids: &mut Boids<V>,
    config: &WorldConfig<V>,
    species: &[SpeciesParams],
) -> StepStats {
    scratch.gather(boids, config, super::widest(species));
    let n = scratch.pos.len();
    scratch.extra.resize_with(5, Vec::new);
    for e in &mut scratch.extra {
        e.clear();
        e.resize(n, V::ZERO);
    }
    let h = config.dt;
    let periodic = matches!(config.boundary, Boundary::Wrap);
    let [xs, vs, kv, acc_x, acc_v] = &mut scratch.extra[..] else {
        unreachable!("five stage vectors were just made");
    };
    xs.copy_from_slice(&scratch.pos);
    vs.copy_from_slice(&scratch.vel);
    // Stage weights and the fraction of h each next stage looks ahead.
    const WEIGHT: [f32; 4] = [1.0, 2.0, 2.0, 1.0];
    const NEXT: [f32; 3] = [0.5, 0.5, 1.0];
    for stage in 0..4 {
        accelerations(
            &mut scratch.grid,
            xs,
            vs,
            &scratch.species,
            species,
            config,
            kv,
        );
        let w = WEIGHT[stage];
        // k_x of this stage is the stage velocity vs.
        acc_x
            .par_iter_mut()
            .zip(acc_v.par_iter_mut())
            .zip(vs.par_iter().zip(kv.par_iter()))
            .for_each(|((ax, av), (&v, &a))| {
                *ax += v * w;
                *av += a * w;
            });
        if stage < 3 {
            let c = NEXT[stage] * h;
            let (x0, v0) = (&scratch.pos, &scratch.vel);
            xs.par_iter_mut()
                .zip(vs.par_iter_mut())
                .zip(kv.par_iter())
                .enumerate()
                .for_each(|(i, ((x, v), &a))| {
                    let kx = *v;
                    let y = x0[i] + kx * c;
                    *x = if periodic { wrap(y, config) } else { y };
                    *v = v0[i] + a * c;
                });
        }
    }
    let sixth = h / 6.0;
    for i in 0..n {
        let mut v = scratch.vel[i] + acc_v[i] * sixth;
        let mut x = scratch.pos[i] + acc_x[i] * sixth;
        confine(&mut x, &mut v, config);
        scratch.new_pos[i] = x;
        scratch.new_vel[i] = v;
    }
    let stats = StepStats {
        boids: n as u64,
        cells: scratch.grid.cell_count() as u64,
        ..StepStats::default()
    };
    scratch.store(boids, h);
    stats
}

//! The Flocking model of the ABM frameworks comparison (JuliaDynamics'
//! ABMFrameworksComparison, `Flocking/DECLARATION.md`; the model Agents.jl, Mesa,
//! NetLogo and MASON are timed on): birds in a periodic 2D box, activated one by
//! one in a new random order each step, each reading the others' current state.

use super::neighbours::Scratch;
use crate::behaviours::boundary::wrap;
use crate::boids::Boids;
use crate::grid::Extent;
use crate::params::model::AbmFlocking;
use crate::params::{SpeciesParams, WorldConfig};
use crate::rng::{CounterRng, Stream};
use crate::stats::StepStats;
use crate::vector::Vector;
use crate::vector::min_image;

pub(super) fn step<V: Vector>(
    scratch: &mut Scratch<V>,
    boids: &mut Boids<V>,
    config: &WorldConfig<V>,
    species: &[SpeciesParams],
    step: u64,
) -> StepStats {
    let params = |s: u16| species[s as usize].model_params::<AbmFlocking>();
    let dt = config.dt;
    // A bird reads the others as they are now; each has moved at most
    // speed·dt since the grid was built, so cells this wide hold every candidate.
    let reach = (0..species.len() as u16)
        .map(|s| params(s).visual_distance + 2.0 * params(s).speed * dt)
        .fold(0.0, f32::max);
    let grid = &mut scratch.grid;
    grid.build(&boids.positions, reach, Extent::of(config));
    let n = boids.len();
    // A new random order each step (Fisher–Yates keyed by the step).
    let order = &mut scratch.slots;
    order.clear();
    order.extend(0..n as u32);
    let mut rng = CounterRng::new(config.seed, u64::MAX, step, Stream::Activation);
    for i in (1..n).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    let period = config.max - config.min;
    let old_vel = &mut scratch.vel;
    old_vel.clear();
    old_vel.extend_from_slice(&boids.velocities);
    let grid = &scratch.grid;
    let mut neighbours = 0u64;
    for &slot in order.iter() {
        let i = slot as usize;
        let m = &params(boids.species[i]);
        let p = boids.positions[i];
        let vd2 = m.visual_distance * m.visual_distance;
        let sep2 = m.separation * m.separation;
        let (mut cohere, mut separate, mut matching) = (V::ZERO, V::ZERO, V::ZERO);
        let mut count = 0u32;
        for run in grid
            .runs::<V>(grid.cell_coords(grid.keys()[i] as usize))
            .as_slice()
        {
            for &s in &grid.order()[run.start as usize..run.end as usize] {
                let j = s as usize;
                if j == i {
                    continue;
                }
                // Positions change during the sweep: measure the nearest image.
                let d = min_image(boids.positions[j] - p, period);
                let d2 = d.length_squared();
                if d2 <= vd2 {
                    count += 1;
                    cohere += d;
                    if d2 < sep2 {
                        separate -= d;
                    }
                    matching += boids.velocities[j].normalize_or_zero();
                }
            }
        }
        neighbours += count as u64;
        let k = 1.0 / count.max(1) as f32;
        let heading = boids.velocities[i].normalize_or_zero();
        let v = (heading
            + cohere * (k * m.cohere_factor)
            + separate * (k * m.separate_factor)
            + matching * (k * m.match_factor))
            * 0.5;
        let v = v.normalize_or_zero();
        boids.velocities[i] = v * m.speed;
        boids.positions[i] = wrap(p + v * (m.speed * dt), config);
    }
    let inv = 1.0 / dt;
    for ((s, &a), &b) in boids
        .steering
        .iter_mut()
        .zip(&boids.velocities)
        .zip(old_vel.iter())
    {
        *s = (a - b) * inv;
    }
    StepStats {
        boids: n as u64,
        neighbours,
        cells: scratch.grid.cell_count() as u64,
        ..StepStats::default()
    }
}

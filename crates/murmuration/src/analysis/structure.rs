//! Metrics that tell a flock from noise: local order, groups, speed against the
//! species' limit, and boids where they must not be. Exact and deterministic:
//! neighbours come from the same uniform grid as the step, sums run in a fixed
//! order in `f64`, and groups are numbered by their smallest member.

use crate::grid::{Extent, Grid};
use crate::params::{SpeciesParams, WorldConfig};
use crate::vector::Vector;
use rayon::prelude::*;

/// The structure of a flock (see each field for its definition).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Structure {
    /// Local order in [0, 1]: for each boid with at least one other boid within its
    /// species' perception radius, `|Σ v̂|` over itself and those neighbours divided
    /// by their number; the mean over such boids (NaN when there are none). A
    /// flock's local order stays high where its global polarization may not (a
    /// mill, several groups); noise gives about `1/√(k+1)` for k neighbours.
    pub local_order: f64,
    /// Groups: classes of boids linked by chains of pairs closer than the link
    /// distance (the largest perception radius of the world's species). A lone
    /// boid is a group of one.
    pub groups: usize,
    /// Share of the boids in the largest group, in [0, 1] (0 without boids).
    pub largest_group_fraction: f64,
    /// Mean of each boid's speed over its species' max speed (for a research
    /// model its characteristic speed: v₀, s, √(α/β), `speed`); not capped, so a
    /// D'Orsogna particle above its free speed counts above 1.
    pub speed_fraction: f64,
}

/// [`Structure`] of boids at `positions` with `velocities` and species indices
/// `species` (into `params`).
pub fn structure<V: Vector>(
    positions: &[V],
    velocities: &[V],
    species: &[u16],
    params: &[SpeciesParams],
    config: &WorldConfig<V>,
) -> Structure {
    let n = positions.len();
    let link = params
        .iter()
        .map(SpeciesParams::perception_radius)
        .fold(0.0f32, f32::max);
    if n == 0 {
        return Structure {
            local_order: f64::NAN,
            groups: 0,
            largest_group_fraction: 0.0,
            speed_fraction: 0.0,
        };
    }
    let speed_fraction = velocities
        .iter()
        .zip(species)
        .map(|(v, &s)| {
            let max = params[s as usize].max_speed;
            if max > 0.0 {
                (v.length() / max) as f64
            } else {
                0.0
            }
        })
        .sum::<f64>()
        / n as f64;
    let mut grid = Grid::new();
    grid.build(positions, link.max(1e-6), Extent::of(config));
    let local: Vec<Option<f64>> = (0..n)
        .into_par_iter()
        .with_min_len(1024)
        .map(|i| {
            let r = params[species[i] as usize].perception_radius();
            let mut sum = velocities[i].normalize_or_zero();
            let mut count = 1u32;
            grid.for_each_within(positions, positions[i], r, Some(i), |j, _| {
                sum += velocities[j].normalize_or_zero();
                count += 1;
            });
            (count > 1).then(|| sum.length() as f64 / count as f64)
        })
        .collect();
    let (order_sum, with_neighbours) = local
        .iter()
        .flatten()
        .fold((0.0f64, 0usize), |(s, k), &x| (s + x, k + 1));
    let local_order = if with_neighbours > 0 {
        order_sum / with_neighbours as f64
    } else {
        f64::NAN
    };
    let (groups, largest) = groups(positions, &grid, link);
    Structure {
        local_order,
        groups,
        largest_group_fraction: largest as f64 / n as f64,
        speed_fraction,
    }
}

/// Number of groups linked within `link`, and the size of the largest
/// (union-find over the grid's pairs, processed in index order).
fn groups<V: Vector>(positions: &[V], grid: &Grid, link: f32) -> (usize, usize) {
    let n = positions.len();
    let mut parent: Vec<u32> = (0..n as u32).collect();
    fn root(parent: &mut [u32], mut i: u32) -> u32 {
        while parent[i as usize] != i {
            let up = parent[parent[i as usize] as usize];
            parent[i as usize] = up;
            i = up;
        }
        i
    }
    if link > 0.0 {
        let mut near = Vec::new();
        for i in 0..n {
            near.clear();
            grid.for_each_within(positions, positions[i], link, Some(i), |j, _| {
                if j > i {
                    near.push(j as u32);
                }
            });
            for &j in &near {
                let (a, b) = (root(&mut parent, i as u32), root(&mut parent, j));
                if a != b {
                    // The smaller index becomes the root: the numbering is canonical.
                    parent[a.max(b) as usize] = a.min(b);
                }
            }
        }
    }
    let mut size = vec![0usize; n];
    for i in 0..n as u32 {
        size[root(&mut parent, i) as usize] += 1;
    }
    let groups = size.iter().filter(|&&s| s > 0).count();
    (groups, size.into_iter().max().unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec2;

    fn params(radius: f32) -> Vec<SpeciesParams> {
        vec![SpeciesParams {
            separation_radius: 0.5 * radius,
            alignment_radius: radius,
            cohesion_radius: radius,
            max_speed: 2.0,
            ..SpeciesParams::default()
        }]
    }

    #[test]
    fn two_aligned_clumps_are_two_groups_with_full_local_order() {
        use crate::params::Boundary;
        let cfg = WorldConfig::new(Vec2::splat(100.0), Boundary::Unbounded);
        let mut pos = Vec::new();
        let mut vel = Vec::new();
        for k in 0..30 {
            pos.push(Vec2::new(
                10.0 + 0.3 * (k % 6) as f32,
                10.0 + 0.3 * (k / 6) as f32,
            ));
            vel.push(Vec2::X);
        }
        for k in 0..10 {
            pos.push(Vec2::new(60.0 + 0.3 * k as f32, 60.0));
            vel.push(-Vec2::Y);
        }
        let s = structure(&pos, &vel, &[0; 40], &params(1.0), &cfg);
        assert_eq!(s.groups, 2);
        assert!((s.largest_group_fraction - 0.75).abs() < 1e-12);
        assert!((s.local_order - 1.0).abs() < 1e-6, "{}", s.local_order);
        assert!(
            (s.speed_fraction - 0.5).abs() < 1e-6,
            "{}",
            s.speed_fraction
        );
    }

    #[test]
    fn random_headings_have_low_local_order_and_lone_boids_are_groups() {
        use crate::params::Boundary;
        let cfg = WorldConfig::new(Vec2::splat(20.0), Boundary::Wrap);
        let mut rng = 12345u64;
        let mut next = || {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (rng >> 40) as f32 / (1u64 << 24) as f32
        };
        let pos: Vec<Vec2> = (0..2000)
            .map(|_| Vec2::new(20.0 * next(), 20.0 * next()))
            .collect();
        let vel: Vec<Vec2> = (0..2000)
            .map(|_| {
                let a = std::f32::consts::TAU * next();
                Vec2::new(libm::cosf(a), libm::sinf(a))
            })
            .collect();
        let s = structure(&pos, &vel, &[0; 2000], &params(1.0), &cfg);
        // About 15 neighbours each: |Σ| of 16 random unit vectors / 16 ≈ 0.22.
        assert!(
            s.local_order > 0.15 && s.local_order < 0.32,
            "{}",
            s.local_order
        );
        // Dense enough to percolate: one group holds nearly everyone.
        assert!(
            s.largest_group_fraction > 0.95,
            "{}",
            s.largest_group_fraction
        );
        let sparse = structure(&pos[..3], &vel[..3], &[0; 3], &params(0.01), &cfg);
        assert_eq!(sparse.groups, 3);
        assert!(sparse.local_order.is_nan(), "no boid has a neighbour");
    }
}

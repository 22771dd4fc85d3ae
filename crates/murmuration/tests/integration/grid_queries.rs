//! The neighbour grid against brute force: random points, points on cell borders,
//! across the periodic seam, coincident points, tiny periodic worlds.

use crate::common;

use murmuration::glam::{Vec2, Vec3};
use murmuration::{Boundary, Vector, WorldConfig};
use murmuration::{Extent, Grid};
use proptest::prelude::*;

/// The grid extent of a world: periodic when it wraps.
fn extent_of<V: Vector>(cfg: &WorldConfig<V>) -> Extent<V> {
    if cfg.boundary == Boundary::Wrap {
        Extent::Periodic {
            min: cfg.min,
            max: cfg.max,
        }
    } else {
        Extent::Open
    }
}

fn check<V: Vector>(points: &[V], radius: f32, cfg: &WorldConfig<V>) {
    let mut grid = Grid::new();
    grid.build(points, radius, extent_of(cfg));
    for (i, &p) in points.iter().enumerate() {
        let mut got = Vec::new();
        grid.for_each_within(points, p, radius, Some(i), |j, _| got.push(j));
        got.sort_unstable();
        let want: Vec<usize> = (0..points.len())
            .filter(|&j| {
                j != i && common::offset(p, points[j], cfg).length_squared() < radius * radius
            })
            .collect();
        assert_eq!(got, want, "boid {i} at {p:?}");
    }
}

/// Points snapped to a lattice of step `cell / 2` so many sit exactly on cell borders,
/// plus duplicates.
fn snapped<V: Vector>(raw: &[[f32; 3]], side: f32, snap: bool) -> Vec<V> {
    let mut pts: Vec<V> = raw
        .iter()
        .map(|a| {
            let mut v = V::from_array3(a.map(|x| x * side));
            if snap {
                for i in 0..V::DIM {
                    v.set(i, ((v.get(i) * 2.0).floor() / 2.0).min(side - 0.5));
                }
            }
            v
        })
        .collect();
    if pts.len() > 3 {
        pts.push(pts[0]);
        pts.push(pts[1]);
    }
    pts
}

fn unit3() -> impl Strategy<Value = [f32; 3]> {
    [0.0f32..1.0, 0.0f32..1.0, 0.0f32..1.0]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn periodic_2d_matches_brute_force(raw in prop::collection::vec(unit3(), 1..300),
                                       side in 2.0f32..12.0, radius in 0.3f32..1.5, snap: bool) {
        let cfg = WorldConfig::new(Vec2::splat(side), Boundary::Wrap);
        check::<Vec2>(&snapped(&raw, side, snap), radius, &cfg);
    }

    #[test]
    fn periodic_3d_matches_brute_force(raw in prop::collection::vec(unit3(), 1..300),
                                       side in 2.0f32..8.0, radius in 0.3f32..1.5, snap: bool) {
        let cfg = WorldConfig::new(Vec3::splat(side), Boundary::Wrap);
        check::<Vec3>(&snapped(&raw, side, snap), radius, &cfg);
    }

    #[test]
    fn open_2d_and_3d_match_brute_force(raw in prop::collection::vec(unit3(), 1..300),
                                        side in 1.0f32..20.0, radius in 0.2f32..2.0, snap: bool) {
        let cfg2 = WorldConfig::new(Vec2::splat(side), Boundary::Unbounded);
        check::<Vec2>(&snapped(&raw, side, snap), radius, &cfg2);
        let cfg3 = WorldConfig::new(Vec3::splat(side), Boundary::Reflect);
        check::<Vec3>(&snapped(&raw, side, snap), radius, &cfg3);
    }
}

#[test]
fn neighbours_across_the_seam_are_found() {
    let cfg = WorldConfig::new(Vec2::splat(10.0), Boundary::Wrap);
    let pts = vec![
        Vec2::new(0.1, 5.0),
        Vec2::new(9.95, 5.0),
        Vec2::new(0.05, 9.9),
        Vec2::new(9.9, 0.05),
    ];
    check(&pts, 1.0, &cfg);
    let mut grid = Grid::new();
    grid.build(
        &pts,
        1.0,
        Extent::Periodic {
            min: cfg.min,
            max: cfg.max,
        },
    );
    let mut n = 0;
    grid.for_each_within(&pts, pts[2], 1.0, Some(2), |_, _| n += 1);
    assert_eq!(
        n, 1,
        "corner (0.05, 9.9) sees (9.9, 0.05) across both seams"
    );
}

#[test]
fn tiny_periodic_worlds_count_each_neighbour_once() {
    // 2 cells per axis: the minimum-image path.
    let cfg = WorldConfig::new(Vec2::splat(2.5), Boundary::Wrap);
    let pts: Vec<Vec2> = (0..40)
        .map(|i| Vec2::new((i as f32 * 0.37) % 2.5, (i as f32 * 0.71) % 2.5))
        .collect();
    check(&pts, 1.2, &cfg);
}

/// [`Grid::for_each_range_near`] (any radius, used by chasers and scattering
/// threats) against brute force: every point within `far` found, each once.
fn check_far<V: Vector>(points: &[V], radius: f32, far: f32, cfg: &WorldConfig<V>) {
    let mut grid = Grid::new();
    grid.build(points, radius, extent_of(cfg));
    let period = cfg.max - cfg.min;
    for &p in points {
        let mut got = Vec::new();
        grid.for_each_range_near(p, far, |range, shift, wrap| {
            for s in range {
                let j = grid.order()[s] as usize;
                let mut d = points[j] - (p - shift);
                if wrap {
                    for i in 0..V::DIM {
                        let l = period.get(i);
                        d.set(i, d.get(i) - l * (d.get(i) / l).round());
                    }
                }
                if d.length_squared() < far * far {
                    got.push(j);
                }
            }
        });
        got.sort_unstable();
        let want: Vec<usize> = (0..points.len())
            .filter(|&j| common::offset(p, points[j], cfg).length_squared() < far * far)
            .collect();
        assert_eq!(got, want, "from {p:?} within {far}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn far_queries_match_brute_force(raw in prop::collection::vec(unit3(), 1..200),
                                     side in 3.0f32..20.0, radius in 0.3f32..1.5,
                                     far_cells in 0.5f32..6.0, snap: bool) {
        let far = (radius * far_cells).min(0.45 * side);
        let pts2 = snapped::<Vec2>(&raw, side, snap);
        check_far(&pts2, radius, far, &WorldConfig::new(Vec2::splat(side), Boundary::Wrap));
        check_far(&pts2, radius, far, &WorldConfig::new(Vec2::splat(side), Boundary::Unbounded));
        let pts3 = snapped::<Vec3>(&raw, side, snap);
        check_far(&pts3, radius, far, &WorldConfig::new(Vec3::splat(side), Boundary::Wrap));
    }
}

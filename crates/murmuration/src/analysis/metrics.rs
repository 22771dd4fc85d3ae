//! Order parameters and spatial statistics, computed on demand.
//!
//! All sums run in the order of the given slices in `f64`, so metrics are
//! deterministic too. In a
//! periodic world the centroid is the per-axis circular mean and offsets use the
//! nearest periodic image.

pub use crate::analysis::structure::Structure;
use crate::analysis::structure::structure;
use crate::behaviours::obstacles::ObstacleSet;
use crate::grid::{Extent, Grid};
use crate::params::{Boundary, SpeciesParams, WorldConfig};
use crate::vector::Vector;
use crate::vector::min_image;
use rayon::prelude::*;
use serde::Serialize;

/// A summary of the flock's state.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(bound = "")]
pub struct Metrics<V: Vector> {
    /// Number of boids.
    pub count: usize,
    /// Polarization `|Σ v̂| / N` in [0, 1]: 1 when all head the same way
    /// (Couzin's p; Vicsek's v_a, every speed being v₀).
    pub polarization: f64,
    /// Velocity polarization `|Σ v| / Σ |v|` in [0, 1]: polarization weighted by
    /// speed (D'Orsogna's P); NaN when nothing moves.
    pub velocity_polarization: f64,
    /// Milling `|Σ r̂ × v̂| / N` in [0, 1] (normalised angular momentum about the
    /// centroid, `r` the offset from it; Couzin's m): 1 for a perfect rotating mill.
    pub milling: f64,
    /// Angular momentum `|Σ r × v| / Σ |r| |v|` in [0, 1] about the centroid
    /// (D'Orsogna's M): weights each particle by its distance and speed; NaN when
    /// nothing moves or all sit on the centroid.
    pub angular_momentum: f64,
    /// Mean distance to the nearest other boid, units (NaN with fewer than 2 boids).
    pub mean_nn_distance: f64,
    /// Median distance to the nearest other boid, units (NaN with fewer than 2 boids).
    pub median_nn_distance: f64,
    /// Smallest distance between any two boids, units (NaN with fewer than 2 boids).
    pub min_pair_distance: f64,
    /// Mean speed, units/s.
    pub mean_speed: f64,
    /// Variance of speed, (units/s)².
    pub speed_variance: f64,
    /// Centroid, units.
    pub centroid: V,
    /// Size of the bounding box of offsets from the centroid, units.
    pub extent: V,
    /// Local order in [0, 1], groups, largest group and speed over max speed
    /// (see [`Structure`]).
    pub structure: Structure,
    /// Boids outside the world box (possible only with a soft boundary); `None`
    /// where the world has no edges (`unbounded`, `roost`: the box there is
    /// where boids start, or the roost, and leaving it is no error).
    pub outside: Option<usize>,
    /// Boids inside an obstacle (0 by construction: a check, not a statistic).
    pub inside_obstacles: usize,
    /// The flock's width over its length: the square roots of the second and
    /// first eigenvalues of the offsets' covariance (its principal axes), in
    /// [0, 1]; NaN with fewer than 2 boids.
    pub width_ratio: f64,
    /// The flock's thickness over its length (third over first principal
    /// axis), in [0, 1]; NaN in 2D.
    pub thickness_ratio: f64,
}

/// One scalar metric: its name in tables and `[expect]`, unit and definition,
/// as `docs/METRICS.md` documents it (a test holds the page to this table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MetricRow {
    /// Column name (`polarization`).
    pub name: &'static str,
    /// Unit as the documentation writes it (`—` for none).
    pub unit: &'static str,
    /// What it measures, in one sentence of Markdown.
    pub definition: &'static str,
}

impl MetricRow {
    /// The metric's row of the table in `docs/METRICS.md`.
    pub fn markdown_row(&self) -> String {
        format!("| `{}` | {} | {} |", self.name, self.unit, self.definition)
    }
}

/// The scalar metrics, one row each: name, unit, definition, and how the value
/// is read from a [`Metrics`]. A new metric is a field of [`Metrics`], its
/// computation in [`compute`] and one row here.
macro_rules! metric_rows {
    ($($name:ident, $unit:literal, $definition:literal, |$m:ident| $value:expr;)*) => {
        /// Every scalar metric, in table order.
        pub const METRICS: [MetricRow; [$(stringify!($name)),*].len()] = [
            $(MetricRow { name: stringify!($name), unit: $unit, definition: $definition }),*
        ];

        impl<V: Vector> Metrics<V> {
            /// `(name, value)` pairs of the scalar metrics, in [`METRICS`] order
            /// (for CSV and summaries).
            pub fn scalars(&self) -> [(&'static str, f64); METRICS.len()] {
                [$((stringify!($name), { let $m = self; $value })),*]
            }
        }
    };
}

metric_rows! {
    count, "boids", "boids alive",
        |m| m.count as f64;
    polarization, "—", "`\\|Σ v̂\\| / N` in [0, 1]: 1 when all head the same way. Couzin's p; Vicsek's v_a (every speed is v₀)",
        |m| m.polarization;
    velocity_polarization, "—", "`\\|Σ v\\| / Σ \\|v\\|` in [0, 1]: polarization weighted by speed. D'Orsogna's P (NaN when nothing moves)",
        |m| m.velocity_polarization;
    milling, "—", "`\\|Σ r̂ × v̂\\| / N` in [0, 1], `r` the offset from the centroid: 1 for a perfect mill. Couzin's m",
        |m| m.milling;
    angular_momentum, "—", "`\\|Σ r × v\\| / Σ \\|r\\| \\|v\\|` in [0, 1] about the centroid: milling weighted by distance and speed. D'Orsogna's M (NaN when nothing moves)",
        |m| m.angular_momentum;
    mean_nn_distance, "units", "mean distance to the nearest other boid (exact, by the nearest periodic image; NaN with fewer than 2 boids)",
        |m| m.mean_nn_distance;
    median_nn_distance, "units", "median distance to the nearest other boid (as above)",
        |m| m.median_nn_distance;
    min_pair_distance, "units", "smallest distance between two boids (NaN with fewer than 2 boids)",
        |m| m.min_pair_distance;
    mean_speed, "units/s", "mean speed",
        |m| m.mean_speed;
    speed_variance, "(units/s)²", "variance of speed",
        |m| m.speed_variance;
    local_order, "—", "for each boid with another boid within its species' perception radius: `\\|Σ v̂\\|` over itself and those neighbours divided by their number; the mean over such boids (NaN if none). High in a flock even when it mills or splits; about `1/√(k+1)` for k neighbours heading at random",
        |m| m.structure.local_order;
    groups, "groups", "classes of boids linked by chains of pairs closer than the link distance, the largest perception radius of the world's species; a lone boid is a group of one",
        |m| m.structure.groups as f64;
    largest_group_fraction, "—", "share of the boids in the largest group",
        |m| m.structure.largest_group_fraction;
    speed_fraction, "—", "mean of each boid's speed over its species' reference speed: the max speed for boids, v₀ (Vicsek), s (Couzin), the free speed √(α/β) (D'Orsogna), `speed` (ABM); not capped: a D'Orsogna particle faster than its free speed counts above 1 (a flock of boids cruising near 0.3 is braking itself)",
        |m| m.structure.speed_fraction;
    outside, "boids", "boids outside the world box (possible only with a soft boundary); NaN where the world has no edges (`unbounded`, `roost`), whose box is only where boids start or roost",
        |m| m.outside.map_or(f64::NAN, |n| n as f64);
    inside_obstacles, "boids", "boids inside an obstacle: always 0, a check rather than a statistic",
        |m| m.inside_obstacles as f64;
    width_ratio, "—", "the flock's width over its length: √(λ₂/λ₁) of the eigenvalues λ₁ ≥ λ₂ (≥ λ₃) of the covariance of the offsets from the centroid (its principal axes); NaN with fewer than 2 boids",
        |m| m.width_ratio;
    thickness_ratio, "—", "the flock's thickness over its length, √(λ₃/λ₁) (as above; Ballerini et al. 2008: starling flocks are thin); NaN in 2D",
        |m| m.thickness_ratio;
}

/// Names of the scalar metrics, in [`METRICS`] order.
pub const SCALAR_NAMES: [&str; METRICS.len()] = {
    let mut names = [""; METRICS.len()];
    let mut i = 0;
    while i < METRICS.len() {
        names[i] = METRICS[i].name;
        i += 1;
    }
    names
};

/// Units of the scalar metrics, in [`METRICS`] order (`—`: dimensionless).
pub const SCALAR_UNITS: [&str; METRICS.len()] = {
    let mut units = [""; METRICS.len()];
    let mut i = 0;
    while i < METRICS.len() {
        units[i] = METRICS[i].unit;
        i += 1;
    }
    units
};

/// Column names of a metrics table (the `--metrics` CSV, the Python package's
/// `run`): `step`, `time`, every scalar metric, then `zone_0`, … one per zone;
/// [`World::metrics_row`](crate::World::metrics_row) fills a row.
pub fn table_columns(zones: usize) -> Vec<String> {
    let mut c = vec!["step".to_string(), "time".to_string()];
    c.extend(SCALAR_NAMES.iter().map(|s| s.to_string()));
    c.extend((0..zones).map(|z| format!("zone_{z}")));
    c
}

/// What the metrics are computed over: the state and what it lives in.
#[derive(Clone, Copy, Debug)]
pub struct Flock<'a, V: Vector> {
    /// Positions, units.
    pub positions: &'a [V],
    /// Velocities, units/s.
    pub velocities: &'a [V],
    /// Each boid's species index (into `species`).
    pub species: &'a [u16],
    /// Parameters per species.
    pub params: &'a [SpeciesParams],
    /// The obstacles.
    pub obstacles: &'a ObstacleSet<V>,
    /// The box and its boundary.
    pub config: &'a WorldConfig<V>,
}

/// Computes every metric.
pub fn compute<V: Vector>(flock: &Flock<'_, V>) -> Metrics<V> {
    let Flock {
        positions,
        velocities,
        config,
        ..
    } = *flock;
    let n = positions.len();
    let periodic = config.boundary == Boundary::Wrap;
    let centroid = centroid(positions, config);
    let offset = |p: V| {
        let d = p - centroid;
        if periodic {
            min_image(d, config.size())
        } else {
            d
        }
    };

    let mut pol = [0.0f64; 3];
    let mut mill = [0.0f64; 3];
    let mut vel = [0.0f64; 3];
    let (mut mom, mut mom_norm) = ([0.0f64; 3], 0.0f64);
    let mut cov = [[0.0f64; 3]; 3];
    let (mut s1, mut s2) = (0.0f64, 0.0f64);
    let mut lo = V::splat(f32::INFINITY);
    let mut hi = V::splat(f32::NEG_INFINITY);
    for (&p, &v) in positions.iter().zip(velocities) {
        let speed = v.length() as f64;
        s1 += speed;
        s2 += speed * speed;
        let vh = v.normalize_or_zero();
        let r = offset(p);
        lo = lo.min_elem(r);
        hi = hi.max_elem(r);
        let m = V::cross3(r.normalize_or_zero(), vh);
        let l = V::cross3(r, v);
        let va = v.to_array3();
        for i in 0..3 {
            pol[i] += vh.to_array3()[i] as f64;
            mill[i] += m[i] as f64;
            vel[i] += va[i] as f64;
            mom[i] += l[i] as f64;
        }
        mom_norm += r.length() as f64 * speed;
        crate::analysis::axes::add_outer(&mut cov, r.to_array3().map(f64::from));
    }
    let norm = |a: [f64; 3]| (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
    let nf = n.max(1) as f64;
    let mean_speed = s1 / nf;

    let mut nn = nearest_neighbour_distances(positions, config);
    let (mean_nn, median_nn, min_nn) = if n < 2 {
        (f64::NAN, f64::NAN, f64::NAN)
    } else {
        let mean = nn.iter().map(|&d| d as f64).sum::<f64>() / nf;
        nn.sort_unstable_by(f32::total_cmp);
        let median = if n % 2 == 1 {
            nn[n / 2] as f64
        } else {
            0.5 * (nn[n / 2 - 1] as f64 + nn[n / 2] as f64)
        };
        (mean, median, nn[0] as f64)
    };

    let (width_ratio, thickness_ratio) = shape_ratios(cov, n, V::DIM);
    Metrics {
        count: n,
        polarization: if n == 0 { 0.0 } else { norm(pol) / nf },
        // Rounding can put an aligned flock a hair above 1.
        velocity_polarization: at_most_one(norm(vel) / s1),
        milling: if n == 0 { 0.0 } else { norm(mill) / nf },
        angular_momentum: at_most_one(norm(mom) / mom_norm),
        mean_nn_distance: mean_nn,
        median_nn_distance: median_nn,
        min_pair_distance: min_nn,
        mean_speed,
        speed_variance: (s2 / nf - mean_speed * mean_speed).max(0.0),
        centroid,
        extent: if n == 0 { V::ZERO } else { hi - lo },
        structure: structure(positions, velocities, flock.species, flock.params, config),
        outside: outside(positions, config),
        inside_obstacles: if flock.obstacles.is_empty() {
            0
        } else {
            positions
                .iter()
                .filter(|&&p| flock.obstacles.clearance(p) < 0.0)
                .count()
        },
        width_ratio,
        thickness_ratio,
    }
}

/// Boids outside the world box; `None` where the world has no edges.
fn outside<V: Vector>(positions: &[V], config: &WorldConfig<V>) -> Option<usize> {
    match config.boundary {
        Boundary::Unbounded | Boundary::Roost { .. } => None,
        _ => Some(
            positions
                .iter()
                .filter(|p| {
                    (0..V::DIM)
                        .any(|i| p.get(i) < config.min.get(i) || p.get(i) > config.max.get(i))
                })
                .count(),
        ),
    }
}

/// `x` capped at 1, NaN kept (`f64::min` would turn NaN into 1).
fn at_most_one(x: f64) -> f64 {
    if x > 1.0 { 1.0 } else { x }
}

/// Width and thickness over length from the offsets' summed outer products
/// (`cov`, unnormalised: ratios of eigenvalues do not need the count).
fn shape_ratios(cov: [[f64; 3]; 3], n: usize, dim: usize) -> (f64, f64) {
    if n < 2 {
        return (f64::NAN, f64::NAN);
    }
    let (_, l) = crate::analysis::axes::symmetric_eigen(cov, dim);
    // Smallest first: thickness (3D), width, length.
    let r = crate::analysis::axes::axis_ratios(&l, dim);
    (r[dim - 2], if dim == 3 { r[0] } else { f64::NAN })
}

/// A former metric's name and what replaced it, for the message refusing it.
pub fn replaced_metric(name: &str) -> Option<&'static str> {
    (name == "model_order").then_some(
        "model_order (whose meaning changed with the model) was replaced by order parameters \
         named for what they are: polarization (Couzin's p; Vicsek's v_a) and \
         velocity_polarization (D'Orsogna's P)",
    )
}

/// Centroid: arithmetic mean, or per-axis circular mean in a periodic world.
pub fn centroid<V: Vector>(positions: &[V], config: &WorldConfig<V>) -> V {
    let n = positions.len();
    if n == 0 {
        return V::ZERO;
    }
    let mut c = V::ZERO;
    if config.boundary == Boundary::Wrap {
        for i in 0..V::DIM {
            let (lo, l) = (config.min.get(i) as f64, config.size().get(i) as f64);
            let (mut sc, mut ss) = (0.0f64, 0.0f64);
            for p in positions {
                let a = (p.get(i) as f64 - lo) / l * std::f64::consts::TAU;
                sc += libm::cos(a);
                ss += libm::sin(a);
            }
            let a = libm::atan2(ss, sc).rem_euclid(std::f64::consts::TAU);
            c.set(i, (lo + a / std::f64::consts::TAU * l) as f32);
        }
    } else {
        let mut s = [0.0f64; 3];
        for p in positions {
            let a = p.to_array3();
            for i in 0..3 {
                s[i] += a[i] as f64;
            }
        }
        c = V::from_array3(s.map(|x| (x / n as f64) as f32));
    }
    c
}

/// Distance from each boid (in the order of `positions`) to its nearest other boid (periodic images
/// counted in a wrapping world). Exact: a grid ring search that stops once no
/// unvisited cell can hold anything closer. Empty for fewer than 2 boids.
pub fn nearest_neighbour_distances<V: Vector>(
    positions: &[V],
    config: &WorldConfig<V>,
) -> Vec<f32> {
    let n = positions.len();
    if n < 2 {
        return Vec::new();
    }
    let periodic = config.boundary == Boundary::Wrap;
    let (extent, size) = if periodic {
        (
            Extent::Periodic {
                min: config.min,
                max: config.max,
            },
            config.size(),
        )
    } else {
        let (lo, hi) = crate::grid::bounding_box(positions);
        (Extent::Open, hi - lo)
    };
    let h = nn_cell_edge::<V>(size, n);
    let mut grid = Grid::new();
    grid.build(positions, h, extent);
    let order = grid.order();
    let dims = grid.dims();
    let widths = grid.cell_widths();
    let period = size;

    (0..n)
        .into_par_iter()
        .with_min_len(1024)
        .map(|i| {
            let p = positions[i];
            let c = grid.coords_of(p);
            // Per axis, the window of cell offsets that names every cell once: the
            // whole grid from this cell (open), or the nearest images (periodic).
            let mut lo = [0i64; 3];
            let mut hi = [0i64; 3];
            for a in 0..V::DIM {
                let n = dims[a] as i64;
                (lo[a], hi[a]) = if periodic {
                    (-((n - 1) / 2), n / 2)
                } else {
                    (-(c[a] as i64), n - 1 - c[a] as i64)
                };
            }
            let last = (0..V::DIM).map(|a| (-lo[a]).max(hi[a])).max().unwrap_or(0);
            let mut best2 = f32::INFINITY;
            for k in 0..=last {
                for_each_ring_cell(c, k, lo, hi, dims, |cell| {
                    for &slot in &order[grid.cell_range(grid.cell_index(cell))] {
                        let slot = slot as usize;
                        if slot == i {
                            continue;
                        }
                        let mut d = positions[slot] - p;
                        if periodic {
                            d = min_image(d, period);
                        }
                        best2 = best2.min(d.length_squared());
                    }
                });
                // Every unvisited cell lies beyond ring k along some axis that still
                // has cells left, so at least k cell widths of that axis away.
                let reach = (0..V::DIM)
                    .filter(|&a| k < (-lo[a]).max(hi[a]))
                    .map(|a| k as f32 * widths[a])
                    .fold(f32::INFINITY, f32::min);
                if best2 <= reach * reach {
                    break;
                }
            }
            best2.sqrt()
        })
        .collect()
}

/// Cell edge for the nearest-neighbour grid: about one boid per cell over the axes
/// the boids actually spread along. An axis much thinner than the others (a world
/// 1e-6 × 60, boids on a line) gets one cell instead of shrinking every cell to it.
fn nn_cell_edge<V: Vector>(size: V, n: usize) -> f32 {
    let mut sides: Vec<f64> = (0..V::DIM).map(|i| size.get(i).max(0.0) as f64).collect();
    sides.sort_by(|a, b| b.total_cmp(a));
    let mut h = 0.0f64;
    for d in (1..=V::DIM).rev() {
        let volume: f64 = sides[..d].iter().product();
        h = libm::pow(volume / n as f64, 1.0 / d as f64);
        if sides[d - 1] >= h {
            break;
        }
    }
    (h as f32).max(1e-6)
}

/// Calls `f` for every cell whose offset from `c`, taken inside the per-axis window
/// `lo..=hi`, has Chebyshev length exactly `k`: each cell of the grid comes once over
/// all rings, and a ring costs its surface, not its volume.
fn for_each_ring_cell(
    c: [u32; 3],
    k: i64,
    lo: [i64; 3],
    hi: [i64; 3],
    dims: [u32; 3],
    mut f: impl FnMut([u32; 3]),
) {
    let cell = |o: [i64; 3]| -> [u32; 3] {
        std::array::from_fn(|a| (c[a] as i64 + o[a]).rem_euclid(dims[a] as i64) as u32)
    };
    let (x0, x1) = ((-k).max(lo[0]), k.min(hi[0]));
    for oz in (-k).max(lo[2])..=k.min(hi[2]) {
        for oy in (-k).max(lo[1])..=k.min(hi[1]) {
            if oy.abs() == k || oz.abs() == k {
                for ox in x0..=x1 {
                    f(cell([ox, oy, oz]));
                }
            } else {
                // Inside the ring along y and z: only the two x faces.
                if -k >= lo[0] {
                    f(cell([-k, oy, oz]));
                }
                if k != 0 && k <= hi[0] {
                    f(cell([k, oy, oz]));
                }
            }
        }
    }
}

/// For each boid, how many others lie strictly within `radii[species[i]]` of it
/// (nearest periodic image; vision cones and relations ignored): the "colour by
/// neighbour count" view. Counts are in the order of `positions`.
pub fn neighbour_counts<V: Vector>(
    positions: &[V],
    species: &[u16],
    radii: &[f32],
    config: &WorldConfig<V>,
) -> Vec<u32> {
    let n = positions.len();
    let widest = radii.iter().copied().fold(0.0f32, f32::max);
    if n == 0 || widest <= 0.0 {
        return vec![0; n];
    }
    let mut grid = Grid::new();
    grid.build(positions, widest, Extent::of(config));
    (0..n)
        .into_par_iter()
        .with_min_len(1024)
        .map(|i| {
            let r = radii[species[i] as usize];
            let mut count = 0u32;
            grid.for_each_within(positions, positions[i], r, Some(i), |_, _| count += 1);
            count
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Vec2, Vec3};

    const DOC: &str = include_str!("../../../../docs/METRICS.md");

    /// `docs/METRICS.md`'s table is [`METRICS`], row for row: a new,
    /// renamed or redefined metric fails here until the page follows.
    #[test]
    fn the_documentation_table_is_the_metrics_table() {
        let section = DOC
            .split("\n## The metrics table\n")
            .nth(1)
            .expect("docs/METRICS.md has the metrics table");
        let section = section.split("\n## ").next().unwrap();
        let documented: Vec<&str> = section.lines().filter(|l| l.starts_with("| `")).collect();
        let rows: Vec<String> = METRICS.iter().map(MetricRow::markdown_row).collect();
        assert_eq!(documented, rows, "regenerate the table from METRICS");
    }

    /// The `--metrics` columns `docs/SCENARIOS.md` lists are the table's.
    #[test]
    fn the_documented_csv_columns_are_the_tables() {
        let columns = table_columns(0).join(",");
        let line = include_str!("../../../../docs/SCENARIOS.md")
            .lines()
            .find(|l| l.starts_with("| `--metrics m.csv"))
            .expect("docs/SCENARIOS.md documents --metrics");
        assert!(line.contains(&format!("`{columns}[,zone_0,…]`")), "{line}");
    }

    #[test]
    fn scalars_follow_the_table() {
        let w = WorldConfig::new(Vec2::splat(10.0), Boundary::Wrap);
        let m = compute(&[Vec2::ZERO, Vec2::ONE], &[Vec2::X, Vec2::X], &w);
        let scalars = m.scalars();
        assert_eq!(scalars.map(|(n, _)| n), SCALAR_NAMES);
        assert_eq!(scalars[0].1, 2.0);
        assert_eq!(scalars[1], ("polarization", 1.0));
        assert_eq!(SCALAR_UNITS[9], "(units/s)²");
    }

    fn compute<V: Vector>(
        positions: &[V],
        velocities: &[V],
        config: &WorldConfig<V>,
    ) -> Metrics<V> {
        super::compute(&Flock {
            positions,
            velocities,
            species: &vec![0; positions.len()],
            params: &[SpeciesParams::default()],
            obstacles: &ObstacleSet::default(),
            config,
        })
    }

    #[test]
    fn aligned_flock_has_polarization_one_and_a_mill_has_milling_one() {
        let w = WorldConfig::new(Vec2::splat(100.0), Boundary::Unbounded);
        let pos: Vec<Vec2> = (0..64)
            .map(|i| {
                let a = i as f32 / 64.0 * std::f32::consts::TAU;
                Vec2::new(50.0 + 10.0 * libm::cosf(a), 50.0 + 10.0 * libm::sinf(a))
            })
            .collect();
        let same: Vec<Vec2> = vec![Vec2::X; 64];
        let m = compute(&pos, &same, &w);
        assert!((m.polarization - 1.0).abs() < 1e-6);
        let tangent: Vec<Vec2> = pos
            .iter()
            .map(|p| (*p - Vec2::splat(50.0)).perp())
            .collect();
        let m = compute(&pos, &tangent, &w);
        assert!(m.polarization < 1e-5, "{}", m.polarization);
        assert!((m.milling - 1.0).abs() < 1e-5, "{}", m.milling);
        assert!((m.centroid - Vec2::splat(50.0)).length() < 1e-4);
    }

    /// The papers' weighted definitions differ from the unit-vector ones in a
    /// mixed state: an inner ring milling one way fast and an outer ring the
    /// other way slowly cancel in `milling` but not in `angular_momentum`; a fast
    /// boid outweighs two slow ones in `velocity_polarization` only.
    #[test]
    fn dorsogna_weighted_order_parameters_weigh_by_distance_and_speed() {
        let w = WorldConfig::new(Vec2::splat(100.0), Boundary::Unbounded);
        let ring = |r: f32, speed: f32, n: usize| -> (Vec<Vec2>, Vec<Vec2>) {
            (0..n)
                .map(|i| {
                    let a = i as f32 / n as f32 * std::f32::consts::TAU;
                    let d = Vec2::new(libm::cosf(a), libm::sinf(a));
                    (Vec2::splat(50.0) + r * d, speed * d.perp())
                })
                .unzip()
        };
        let (mut pos, mut vel) = ring(2.0, 1.0, 32);
        let (p2, v2) = ring(8.0, -3.0, 32);
        pos.extend(p2);
        vel.extend(v2);
        let m = compute(&pos, &vel, &w);
        assert!(m.milling < 1e-4, "unit vectors cancel: {}", m.milling);
        // |Σ r × v| / Σ |r||v| = (32·8·3 − 32·2·1) / (32·8·3 + 32·2·1) = 704 / 832.
        assert!(
            (m.angular_momentum - 704.0 / 832.0).abs() < 1e-4,
            "{}",
            m.angular_momentum
        );
        let vel = [Vec2::X * 4.0, -Vec2::X, -Vec2::X];
        let pos = [Vec2::ZERO, Vec2::ONE, Vec2::splat(2.0)];
        let m = compute(&pos, &vel, &w);
        assert!((m.polarization - 1.0 / 3.0).abs() < 1e-9);
        assert!((m.velocity_polarization - 2.0 / 6.0).abs() < 1e-9);
        let m = compute(&pos, &[Vec2::ZERO; 3], &w);
        assert!(m.velocity_polarization.is_nan() && m.angular_momentum.is_nan());
    }

    /// `outside` means something only where the world has edges; `speed_fraction`
    /// is not capped (a regression test: it read 0.973 in a mill at 0.992 of
    /// the free speed because faster particles counted as 1).
    #[test]
    fn outside_is_nan_without_edges_and_the_speed_fraction_is_not_capped() {
        let pos = [Vec2::splat(-5.0), Vec2::splat(5.0)];
        let vel = [Vec2::X * 6.0, Vec2::X * 2.0];
        for (b, want) in [
            (Boundary::Unbounded, None),
            (
                Boundary::Roost {
                    margin: 1.0,
                    strength: 1.0,
                },
                None,
            ),
            (
                Boundary::Soft {
                    margin: 1.0,
                    strength: 1.0,
                },
                Some(1),
            ),
        ] {
            let w = WorldConfig::new(Vec2::splat(10.0), b);
            let m = compute(&pos, &vel, &w);
            assert_eq!(m.outside, want, "{b:?}");
            let outside = m.scalars().iter().find(|s| s.0 == "outside").unwrap().1;
            assert_eq!(outside.is_nan(), want.is_none());
            // Default max speed 3: (6/3 + 2/3) / 2.
            let f = m.structure.speed_fraction;
            assert!((f - 4.0 / 3.0).abs() < 1e-6, "{f}");
        }
    }

    /// The principal-axis ratios of a box of points 4 × 2 × 1 (uniform on a
    /// lattice): width 1/2 and thickness 1/4 of the length; a 2D line has no width.
    #[test]
    fn shape_ratios_are_the_principal_axes_over_the_length() {
        let w = WorldConfig::new(Vec3::splat(100.0), Boundary::Unbounded);
        let mut pos = Vec::new();
        for x in 0..40 {
            for y in 0..20 {
                for z in 0..10 {
                    pos.push(Vec3::new(x as f32, y as f32, z as f32) * 0.1);
                }
            }
        }
        let m = compute(&pos, &vec![Vec3::X; pos.len()], &w);
        // A lattice of k points has variance (k² − 1)/12 per axis.
        let var = |k: f64| (k * k - 1.0) / 12.0;
        assert!(
            (m.width_ratio - (var(20.0) / var(40.0)).sqrt()).abs() < 1e-6,
            "{}",
            m.width_ratio
        );
        assert!((m.thickness_ratio - (var(10.0) / var(40.0)).sqrt()).abs() < 1e-6);
        let w2 = WorldConfig::new(Vec2::splat(100.0), Boundary::Unbounded);
        let line: Vec<Vec2> = (0..10)
            .map(|i| Vec2::new(i as f32, 2.0 * i as f32))
            .collect();
        let m = compute(&line, &[Vec2::X; 10], &w2);
        assert!(
            m.width_ratio.abs() < 1e-6 && m.thickness_ratio.is_nan(),
            "{m:?}"
        );
        // A tiny flock is measured like a large one (a regression test: an
        // absolute convergence threshold left its matrix unrotated, width 1).
        let tiny: Vec<Vec2> = line.iter().map(|p| *p * 1e-9).collect();
        let m = compute(&tiny, &[Vec2::X; 10], &w2);
        assert!(m.width_ratio < 1e-3, "{}", m.width_ratio);
    }

    #[test]
    fn a_replaced_metric_name_says_what_replaced_it() {
        let why = replaced_metric("model_order").unwrap();
        assert!(why.contains("velocity_polarization") && why.contains("polarization (Couzin"));
        assert!(replaced_metric("polarization").is_none());
    }

    #[test]
    fn periodic_centroid_straddles_the_seam() {
        let w = WorldConfig::new(Vec3::splat(10.0), Boundary::Wrap);
        let pos = vec![Vec3::new(9.5, 5.0, 5.0), Vec3::new(0.5, 5.0, 5.0)];
        let c = centroid(&pos, &w);
        assert!(c.x < 0.01 || c.x > 9.99, "{c}");
        let m = compute(&pos, &[Vec3::X, Vec3::X], &w);
        assert!((m.min_pair_distance - 1.0).abs() < 1e-5);
        assert!((m.extent.x - 1.0).abs() < 1e-4, "{}", m.extent);
    }

    fn brute_nn<V: Vector>(pos: &[V], config: &WorldConfig<V>) -> Vec<f32> {
        (0..pos.len())
            .map(|i| {
                (0..pos.len())
                    .filter(|&j| j != i)
                    .map(|j| {
                        let d = pos[j] - pos[i];
                        if config.boundary == Boundary::Wrap {
                            min_image(d, config.size()).length()
                        } else {
                            d.length()
                        }
                    })
                    .fold(f32::INFINITY, f32::min)
            })
            .collect()
    }

    /// Regression (issue 14.1): a world with one side of 1e-6 made the ring search
    /// step by the thin axis's cell width and ran for ever.
    #[test]
    fn nearest_neighbours_of_a_thin_world_are_exact_and_finish() {
        let mut rng = crate::rng::CounterRng::new(3, 0, 0, crate::rng::Stream::SpawnPosition);
        for (size, boundary) in [
            (Vec2::new(1e-6, 60.0), Boundary::Wrap),
            (Vec2::new(1e-6, 60.0), Boundary::Reflect),
            (Vec2::new(60.0, 2.5e-4), Boundary::Wrap),
            (Vec2::new(60.0, 0.0), Boundary::Unbounded),
            (Vec2::new(7.0, 5.0), Boundary::Wrap),
        ] {
            let config = WorldConfig::new(size, boundary);
            let pos: Vec<Vec2> = (0..2000)
                .map(|_| Vec2::new(size.x * rng.next_f32(), size.y * rng.next_f32()))
                .collect();
            let started = std::time::Instant::now();
            let got = nearest_neighbour_distances(&pos, &config);
            assert!(
                started.elapsed().as_secs_f32() < 5.0,
                "{size} took {:?}",
                started.elapsed()
            );
            assert_eq!(got, brute_nn(&pos, &config), "{size} {boundary:?}");
        }
        for (size, boundary) in [
            (Vec3::new(1e-6, 1e-6, 80.0), Boundary::Wrap),
            (Vec3::new(40.0, 1e-5, 40.0), Boundary::Wrap),
            (Vec3::new(10.0, 20.0, 0.0), Boundary::Unbounded),
            (Vec3::new(9.0, 8.0, 7.0), Boundary::Wrap),
        ] {
            let config = WorldConfig::new(size, boundary);
            let pos: Vec<Vec3> = (0..1500)
                .map(|_| {
                    Vec3::new(
                        size.x * rng.next_f32(),
                        size.y * rng.next_f32(),
                        size.z * rng.next_f32(),
                    )
                })
                .collect();
            assert_eq!(
                nearest_neighbour_distances(&pos, &config),
                brute_nn(&pos, &config),
                "{size} {boundary:?}"
            );
        }
    }

    #[test]
    fn neighbour_counts_equal_brute_force_across_the_seam() {
        let config = WorldConfig::new(Vec2::splat(10.0), Boundary::Wrap);
        let mut rng = crate::rng::CounterRng::new(9, 0, 0, crate::rng::Stream::SpawnPosition);
        let pos: Vec<Vec2> = (0..400)
            .map(|_| Vec2::new(10.0 * rng.next_f32(), 10.0 * rng.next_f32()))
            .collect();
        let species: Vec<u16> = (0..400).map(|i| (i % 2) as u16).collect();
        let radii = [1.0, 1.7];
        let got = neighbour_counts(&pos, &species, &radii, &config);
        for i in 0..pos.len() {
            let r = radii[species[i] as usize];
            let want = (0..pos.len())
                .filter(|&j| j != i)
                .filter(|&j| min_image(pos[j] - pos[i], config.size()).length() < r)
                .count() as u32;
            assert_eq!(got[i], want, "boid {i}");
        }
    }
}

//! The measurements field studies of real flocks make, so a model can be held
//! to them: the connected velocity correlation function and its correlation
//! length (Cavagna et al., PNAS 2010), the anisotropy of nearest neighbours and
//! the number of interaction neighbours it gives (Ballerini et al., PNAS 2008),
//! and the flock's shape and density from edge to core (Ballerini et al., Anim.
//! Behav. 2008). Exact (every pair, every neighbour rank), in `f64`, in a fixed
//! order: the same flock gives the same digits on any thread count. Pairs cost
//! O(N²): meant for flocks of up to tens of thousands.
//! Definitions, with their choices, are in docs/METRICS.md ("Field-study analyses").

use crate::analysis::axes::{add_outer, axis_ratios, symmetric_eigen};
use crate::vector::Vector;
use rayon::prelude::*;
use serde::Serialize;

/// Everything [`analyse`] measures of one flock.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FieldAnalysis {
    /// Individuals measured.
    pub count: usize,
    /// Dimension of the world (2 or 3).
    pub dim: usize,
    /// The flock's linear size L: the largest distance between two individuals, units.
    pub size: f64,
    /// C(r), the connected velocity correlation (1 at r → 0 by its normalisation).
    pub correlation: Vec<CorrelationBin>,
    /// ξ: the first zero of C(r), units (linearly between the bins around it;
    /// NaN if C never crosses zero, e.g. a flock with no fluctuations).
    pub correlation_length: f64,
    /// γ(n) for the n-th nearest neighbour, n = 1, 2, … (Ballerini's anisotropy:
    /// (W·V̂)², W the least crowded direction). One snapshot's γ is noisy where
    /// the neighbours are nearly isotropic (W is then any direction); the paper
    /// averages over flocks, `murmuration analyse --frames` over snapshots.
    pub anisotropy: Vec<f64>,
    /// f(n) = mean of (û_n·V̂)² over individuals, û_n the direction to the
    /// n-th nearest neighbour: where neighbours sit relative to the motion
    /// (below the isotropic value: to the side; above: ahead and behind).
    /// Stable in one snapshot, unlike γ.
    pub forward_fraction: Vec<f64>,
    /// γ of an isotropic arrangement: 1/3 in 3D, 1/2 in 2D.
    pub isotropic_anisotropy: f64,
    /// n_c: the first rank n at which γ(n) has fallen to within
    /// [`ISOTROPY_TOLERANCE`] of the isotropic value (NaN if it never does in
    /// the ranks measured) — the number of neighbours that shape the structure.
    pub interaction_neighbours: f64,
    /// Thickness : width : length, the square roots of the eigenvalues of the
    /// positions' covariance, smallest first, divided by the largest (3D: three
    /// numbers; 2D: width and length).
    pub shape: Vec<f64>,
    /// Density from the core (first) to the edge (last), in shells of equal count.
    pub density_profile: Vec<DensityShell>,
}

/// One bin of C(r).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CorrelationBin {
    /// Centre of the bin, units.
    pub r: f64,
    /// C at that distance (NaN where the bin holds no pair).
    pub c: f64,
    /// Pairs (i < j) in the bin.
    pub pairs: u64,
}

/// One shell of the density profile.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct DensityShell {
    /// Mean normalised depth of the shell's individuals: 0 at the centroid, 1
    /// at the outermost (the ellipsoidal radius in the principal axes, over
    /// the largest).
    pub depth: f64,
    /// Mean distance to the nearest neighbour in the shell, units.
    pub nn_distance: f64,
    /// Individuals per unit volume (area in 2D) of the shell.
    pub density: f64,
}

/// How close γ(n) must come to the isotropic value for n_c.
pub const ISOTROPY_TOLERANCE: f64 = 0.02;

/// Options of [`analyse`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FieldOptions {
    /// Bins of C(r) over [0, L].
    pub bins: usize,
    /// Neighbour ranks of γ(n): 1 ..= this.
    pub ranks: usize,
    /// Shells of the density profile.
    pub shells: usize,
}

impl Default for FieldOptions {
    fn default() -> Self {
        Self {
            bins: 40,
            ranks: 20,
            shells: 5,
        }
    }
}

/// Measures the flock at `positions` with `velocities` (open space: offsets
/// are plain differences; give a periodic world's flock unwrapped).
pub fn analyse<V: Vector>(positions: &[V], velocities: &[V], opts: FieldOptions) -> FieldAnalysis {
    let n = positions.len();
    let dim = V::DIM;
    let p: Vec<[f64; 3]> = positions
        .iter()
        .map(|x| x.to_array3().map(f64::from))
        .collect();
    let v: Vec<[f64; 3]> = velocities
        .iter()
        .map(|x| x.to_array3().map(f64::from))
        .collect();
    let size = max_distance(&p);
    let (correlation, correlation_length) = correlation(&p, &v, size, opts.bins.max(1));
    let isotropic = 1.0 / dim as f64;
    let (anisotropy, forward_fraction) =
        anisotropy(&p, &v, opts.ranks.min(n.saturating_sub(1)), dim);
    let interaction_neighbours = interaction_neighbours(&anisotropy, isotropic);
    let (axes, values) = principal_axes(&p, dim);
    let shape = axis_ratios(&values, dim);
    let open = crate::params::WorldConfig::new(V::splat(1.0), crate::params::Boundary::Unbounded);
    let nn = crate::analysis::metrics::nearest_neighbour_distances(positions, &open);
    let density_profile = density_profile(&p, &nn, &axes, &values, dim, opts.shells.max(1));
    FieldAnalysis {
        count: n,
        dim,
        size,
        correlation,
        correlation_length,
        anisotropy,
        forward_fraction,
        isotropic_anisotropy: isotropic,
        interaction_neighbours,
        shape,
        density_profile,
    }
}

/// n_c of a γ(n) curve: the first rank within [`ISOTROPY_TOLERANCE`] of the
/// isotropic value, NaN if none.
pub fn interaction_neighbours(anisotropy: &[f64], isotropic: f64) -> f64 {
    anisotropy
        .iter()
        .position(|&g| g <= isotropic + ISOTROPY_TOLERANCE)
        .map_or(f64::NAN, |k| (k + 1) as f64)
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn mean(x: &[[f64; 3]]) -> [f64; 3] {
    let mut m = [0.0; 3];
    for a in x {
        for k in 0..3 {
            m[k] += a[k];
        }
    }
    m.map(|s| s / x.len().max(1) as f64)
}

/// The largest distance between two individuals.
fn max_distance(p: &[[f64; 3]]) -> f64 {
    (0..p.len())
        .into_par_iter()
        .map(|i| {
            p[i + 1..]
                .iter()
                .map(|q| dot(sub(*q, p[i]), sub(*q, p[i])))
                .fold(0.0f64, f64::max)
        })
        .collect::<Vec<f64>>()
        .into_iter()
        .fold(0.0f64, f64::max)
        .sqrt()
}

/// C(r) = Σ_{i<j} u_i·u_j δ(r − r_ij) / Σ_{i<j} δ(r − r_ij), with u_i the
/// velocity fluctuation v_i − V̄ over its root mean square (so C → 1 as r → 0),
/// binned over [0, size]; and its first zero.
fn correlation(
    p: &[[f64; 3]],
    v: &[[f64; 3]],
    size: f64,
    bins: usize,
) -> (Vec<CorrelationBin>, f64) {
    let n = p.len();
    let vbar = mean(v);
    let mut u: Vec<[f64; 3]> = v.iter().map(|x| sub(*x, vbar)).collect();
    let rms = (u.iter().map(|x| dot(*x, *x)).sum::<f64>() / n.max(1) as f64).sqrt();
    let width = size / bins as f64;
    let empty = || (vec![0.0f64; bins], vec![0u64; bins]);
    if rms > 0.0 {
        u.iter_mut().for_each(|x| *x = x.map(|c| c / rms));
    }
    // Per row, then summed row by row in index order: the same digits on any
    // thread count.
    let rows: Vec<(Vec<f64>, Vec<u64>)> = (0..n)
        .into_par_iter()
        .map(|i| {
            let (mut s, mut c) = empty();
            for j in i + 1..n {
                let d = sub(p[j], p[i]);
                let r = dot(d, d).sqrt();
                let b = ((r / width) as usize).min(bins - 1);
                s[b] += dot(u[i], u[j]);
                c[b] += 1;
            }
            (s, c)
        })
        .collect();
    let (mut sum, mut count) = empty();
    for (s, c) in rows {
        for b in 0..bins {
            sum[b] += s[b];
            count[b] += c[b];
        }
    }
    let out: Vec<CorrelationBin> = (0..bins)
        .map(|b| CorrelationBin {
            r: (b as f64 + 0.5) * width,
            c: if count[b] > 0 && rms > 0.0 {
                sum[b] / count[b] as f64
            } else {
                f64::NAN
            },
            pairs: count[b],
        })
        .collect();
    let filled: Vec<&CorrelationBin> = out.iter().filter(|b| b.c.is_finite()).collect();
    let xi = filled
        .windows(2)
        .find(|w| w[0].c > 0.0 && w[1].c <= 0.0)
        .map_or(f64::NAN, |w| {
            w[0].r + (w[1].r - w[0].r) * w[0].c / (w[0].c - w[1].c)
        });
    (out, xi)
}

/// γ(n) for n = 1 ..= ranks: for each individual the unit vector to its n-th
/// nearest neighbour; M = (1/N) Σ u uᵀ; W the eigenvector of M's smallest
/// eigenvalue (the direction least crowded with n-th neighbours); γ = (W·V̂)²
/// with V̂ the flock's direction of motion.
fn anisotropy(p: &[[f64; 3]], v: &[[f64; 3]], ranks: usize, dim: usize) -> (Vec<f64>, Vec<f64>) {
    let n = p.len();
    if ranks == 0 {
        return (Vec::new(), Vec::new());
    }
    let vbar = mean(v);
    let speed = dot(vbar, vbar).sqrt();
    if speed == 0.0 {
        return (vec![f64::NAN; ranks], vec![f64::NAN; ranks]);
    }
    let heading = vbar.map(|c| c / speed);
    // Each individual's nearest `ranks` neighbours by (distance², index).
    let near: Vec<Vec<[f64; 3]>> = (0..n)
        .into_par_iter()
        .map(|i| {
            // The `ranks` nearest so far, sorted; a candidate is inserted
            // only if it beats the last (no list of all n per individual).
            let mut d: Vec<(f64, usize)> = Vec::with_capacity(ranks + 1);
            for j in (0..n).filter(|&j| j != i) {
                let o = sub(p[j], p[i]);
                let key = (dot(o, o), j);
                if d.len() == ranks && key.0 >= d[ranks - 1].0 {
                    continue;
                }
                let at = d.partition_point(|e| e.0 < key.0 || (e.0 == key.0 && e.1 < key.1));
                d.insert(at, key);
                d.truncate(ranks);
            }
            d.iter()
                .map(|&(r2, j)| sub(p[j], p[i]).map(|c| c / r2.sqrt().max(1e-300)))
                .collect()
        })
        .collect();
    (0..ranks)
        .map(|k| {
            let mut m = [[0.0f64; 3]; 3];
            let (mut forward, mut count) = (0.0f64, 0usize);
            for u in near.iter().filter_map(|u| u.get(k)) {
                add_outer(&mut m, *u);
                forward += dot(*u, heading).powi(2);
                count += 1;
            }
            let (vectors, _) = symmetric_eigen(m, dim);
            let w = vectors[dim - 1];
            (dot(w, heading).powi(2), forward / count.max(1) as f64)
        })
        .unzip()
}

/// Principal axes of the positions (unit vectors) and the covariance's
/// eigenvalues, largest first; only the first `dim` are meaningful.
fn principal_axes(p: &[[f64; 3]], dim: usize) -> ([[f64; 3]; 3], [f64; 3]) {
    let c = mean(p);
    let mut m = [[0.0f64; 3]; 3];
    for x in p {
        add_outer(&mut m, sub(*x, c));
    }
    let n = p.len().max(1) as f64;
    m.iter_mut().flatten().for_each(|x| *x /= n);
    symmetric_eigen(m, dim)
}

/// The density from core to edge: individuals ordered by their ellipsoidal
/// radius in the principal axes, cut into shells of equal count; per shell the
/// mean nearest-neighbour distance and the count over the shell's volume.
fn density_profile(
    p: &[[f64; 3]],
    nn: &[f32],
    axes: &[[f64; 3]; 3],
    values: &[f64; 3],
    dim: usize,
    shells: usize,
) -> Vec<DensityShell> {
    let n = p.len();
    if n < 2 || values[..dim].iter().any(|&l| l <= 0.0) {
        return Vec::new();
    }
    let c = mean(p);
    let sigma: Vec<f64> = values[..dim].iter().map(|l| l.sqrt()).collect();
    let rho: Vec<f64> = p
        .iter()
        .map(|x| {
            let d = sub(*x, c);
            (0..dim)
                .map(|k| (dot(d, axes[k]) / sigma[k]).powi(2))
                .sum::<f64>()
                .sqrt()
        })
        .collect();
    let rho_max = rho.iter().copied().fold(0.0f64, f64::max);
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| rho[i].total_cmp(&rho[j]).then(i.cmp(&j)));
    let unit = match dim {
        2 => std::f64::consts::PI * sigma[0] * sigma[1],
        _ => 4.0 / 3.0 * std::f64::consts::PI * sigma[0] * sigma[1] * sigma[2],
    };
    let shells = shells.min(n);
    (0..shells)
        .map(|s| {
            let part = &order[s * n / shells..(s + 1) * n / shells];
            let inner = if s == 0 {
                0.0
            } else {
                rho[order[s * n / shells - 1]]
            };
            let outer = rho[*part.last().expect("a shell holds someone")];
            let volume = unit * (outer.powi(dim as i32) - inner.powi(dim as i32));
            let k = part.len() as f64;
            DensityShell {
                depth: part.iter().map(|&i| rho[i]).sum::<f64>() / k / rho_max,
                nn_distance: part.iter().map(|&i| nn[i] as f64).sum::<f64>() / k,
                density: if volume > 0.0 { k / volume } else { f64::NAN },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Vec2, Vec3};

    /// A long line of boids whose velocity fluctuation is a cosine wave of
    /// wavelength λ along it: C(r) ≈ cos(2πr/λ), so ξ = λ/4.
    #[test]
    fn a_cosine_fluctuation_has_its_correlation_length_at_a_quarter_wavelength() {
        let (n, spacing, lambda) = (2000, 0.05f32, 20.0f32);
        let pos: Vec<Vec2> = (0..n).map(|i| Vec2::new(i as f32 * spacing, 0.0)).collect();
        let vel: Vec<Vec2> = pos
            .iter()
            .map(|p| Vec2::new(1.0, libm::cosf(std::f32::consts::TAU * p.x / lambda)))
            .collect();
        let a = analyse(
            &pos,
            &vel,
            FieldOptions {
                bins: 200,
                ..Default::default()
            },
        );
        assert!((a.size - 99.95).abs() < 1e-3, "{}", a.size);
        assert!(
            (a.correlation_length - lambda as f64 / 4.0).abs() < 0.3,
            "xi {} against {}",
            a.correlation_length,
            lambda / 4.0
        );
        assert!(a.correlation[0].c > 0.95, "{:?}", a.correlation[0]);
        // No fluctuation at all: no crossing.
        let still = vec![Vec2::X; n];
        assert!(
            analyse(&pos, &still, FieldOptions::default())
                .correlation_length
                .is_nan()
        );
    }

    /// A 3D lattice stretched along the direction of motion: every nearest
    /// neighbour sits to the side, the least crowded direction is ahead, so
    /// γ(1) = 1; a cubic lattice is isotropic beyond its first shells.
    #[test]
    fn a_lattice_sparse_along_the_motion_has_anisotropy_one() {
        let mut pos = Vec::new();
        for x in 0..12 {
            for y in 0..12 {
                for z in 0..12 {
                    pos.push(Vec3::new(x as f32 * 2.0, y as f32, z as f32));
                }
            }
        }
        let vel = vec![Vec3::X; pos.len()];
        let a = analyse(&pos, &vel, FieldOptions::default());
        assert!((a.anisotropy[0] - 1.0).abs() < 1e-6, "{:?}", a.anisotropy);
        assert!(a.forward_fraction[0] < 1e-9, "{:?}", a.forward_fraction);
        assert_eq!(a.isotropic_anisotropy, 1.0 / 3.0);
        // Thickness : width : length of a 24 x 12 x 12 block: 1/2 : 1/2 : 1.
        assert!(
            (a.shape[0] - 0.5).abs() < 0.02 && (a.shape[2] - 1.0).abs() < 1e-12,
            "{:?}",
            a.shape
        );
        // The same block moving across its long side: the first neighbours lie
        // along y and z, the least crowded direction is x, across the motion.
        let across = vec![Vec3::Y; pos.len()];
        let b = analyse(&pos, &across, FieldOptions::default());
        assert!(b.anisotropy[0] < 1e-6, "{:?}", b.anisotropy);
    }

    /// Uniform points in a disc put their neighbours in every direction alike
    /// (f = 1/2 at every rank, within sampling) and have an even density.
    #[test]
    fn uniform_points_are_isotropic_with_an_even_density() {
        let mut pos = Vec::new();
        let mut s = 12345u64;
        let mut next = || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 40) as f32 / (1u64 << 24) as f32
        };
        while pos.len() < 3000 {
            let p = Vec2::new(next() * 2.0 - 1.0, next() * 2.0 - 1.0);
            if p.length() < 1.0 {
                pos.push(p * 10.0);
            }
        }
        let vel = vec![Vec2::new(0.6, 0.8); pos.len()];
        let a = analyse(&pos, &vel, FieldOptions::default());
        for f in &a.forward_fraction[..5] {
            assert!((f - 0.5).abs() < 0.03, "{:?}", a.forward_fraction);
        }
        let d: Vec<f64> = a.density_profile.iter().map(|s| s.density).collect();
        let expected = 3000.0 / (std::f64::consts::PI * 100.0);
        // The outermost shell ends at the farthest individual, and an ellipse
        // fitted to a sampled disc misses its rim a little: a looser band there.
        for (k, x) in d.iter().enumerate() {
            let band = if k + 1 == d.len() { 0.2 } else { 0.08 };
            assert!(
                (x / expected - 1.0).abs() < band,
                "{d:?} against {expected}"
            );
        }
        assert!((a.shape[0] - 1.0).abs() < 0.05, "{:?}", a.shape);
    }
}

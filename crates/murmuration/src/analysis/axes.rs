//! Principal axes of a cloud of points: the symmetric 3×3 eigen solver (cyclic
//! Jacobi) and what the metrics and the field analyses read from it.

/// Adds the outer product d dᵀ to `m`.
pub(crate) fn add_outer(m: &mut [[f64; 3]; 3], d: [f64; 3]) {
    for a in 0..3 {
        for b in 0..3 {
            m[a][b] += d[a] * d[b];
        }
    }
}

/// The principal axes' lengths over the longest, smallest first, from the
/// covariance's eigenvalues (largest first); NaN when the flock has no extent.
pub(crate) fn axis_ratios(values: &[f64; 3], dim: usize) -> Vec<f64> {
    let largest = values[0].max(0.0).sqrt();
    if !largest.is_finite() || largest == 0.0 {
        return vec![f64::NAN; dim];
    }
    values[..dim]
        .iter()
        .rev()
        .map(|l| l.max(0.0).sqrt() / largest)
        .collect()
}

/// Eigenvectors and eigenvalues of a symmetric matrix (its top-left `dim` ×
/// `dim` block), largest eigenvalue first, by cyclic Jacobi rotations (exact
/// to rounding for these sizes; hand-written: a 3×3 does not justify a
/// linear-algebra crate).
pub(crate) fn symmetric_eigen(mut a: [[f64; 3]; 3], dim: usize) -> ([[f64; 3]; 3], [f64; 3]) {
    let mut v = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    for _sweep in 0..50 {
        let off: f64 = (0..dim)
            .flat_map(|i| (0..dim).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| a[i][j] * a[i][j])
            .sum();
        // Relative to the diagonal, so a tiny flock's matrix is rotated too
        // and a large one stops as soon as it is diagonal to rounding.
        let diag: f64 = (0..dim).map(|i| a[i][i] * a[i][i]).sum();
        if off <= 1e-26 * diag {
            break;
        }
        for p in 0..dim {
            for q in p + 1..dim {
                if a[p][q].abs() < 1e-300 {
                    continue;
                }
                let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for row in a.iter_mut().take(dim) {
                    let (akp, akq) = (row[p], row[q]);
                    row[p] = c * akp - s * akq;
                    row[q] = s * akp + c * akq;
                }
                let (rp, rq) = (a[p], a[q]);
                for k in 0..dim {
                    a[p][k] = c * rp[k] - s * rq[k];
                    a[q][k] = s * rp[k] + c * rq[k];
                }
                for row in v.iter_mut().take(dim) {
                    let (vp, vq) = (row[p], row[q]);
                    row[p] = c * vp - s * vq;
                    row[q] = s * vp + c * vq;
                }
            }
        }
    }
    let mut order: Vec<usize> = (0..dim).collect();
    order.sort_by(|&i, &j| a[j][j].total_cmp(&a[i][i]));
    let mut vectors = [[0.0; 3]; 3];
    let mut values = [0.0; 3];
    for (k, &i) in order.iter().enumerate() {
        values[k] = a[i][i];
        vectors[k] = [v[0][i], v[1][i], v[2][i]];
    }
    (vectors, values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jacobi_finds_the_eigenvalues_of_a_known_matrix() {
        // [[2,1,0],[1,2,0],[0,0,5]]: eigenvalues 5, 3, 1.
        let (v, l) = symmetric_eigen([[2.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 5.0]], 3);
        assert!(
            (l[0] - 5.0).abs() < 1e-12 && (l[1] - 3.0).abs() < 1e-12 && (l[2] - 1.0).abs() < 1e-12
        );
        let w = v[2];
        assert!((w[0].abs() - 0.5f64.sqrt()).abs() < 1e-9 && (w[0] + w[1]).abs() < 1e-9);
    }
}

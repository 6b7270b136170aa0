//! Small 3-vector and 3×3-matrix helpers over `f64`: validating specs, importing URDF and DH
//! tables, computing parameters.

pub(crate) type V3 = [f64; 3];
pub(crate) type M3 = [[f64; 3]; 3];

pub(crate) const IDENTITY: M3 = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

pub(crate) fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub(crate) fn norm(a: V3) -> f64 {
    dot(a, a).sqrt()
}

/// `a`, a vector of nonzero length near 1, scaled to unit length unless it is unit already to
/// rounding (within 4 ε), as the spec reader takes a direction: so that a direction written
/// into a spec reads back bit for bit.
pub(crate) fn unit_to_rounding(a: V3) -> V3 {
    let n = norm(a);
    if (n - 1.0).abs() > 4.0 * f64::EPSILON {
        scale(a, 1.0 / n)
    } else {
        a
    }
}

pub(crate) fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

pub(crate) fn scale(a: V3, s: f64) -> V3 {
    [a[0] * s, a[1] * s, a[2] * s]
}

pub(crate) fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

pub(crate) fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

pub(crate) fn mul(a: &M3, b: &M3) -> M3 {
    let mut c = [[0.0; 3]; 3];
    for (i, row) in c.iter_mut().enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            *v = (0..3).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    c
}

pub(crate) fn mat_vec(a: &M3, v: V3) -> V3 {
    [dot(a[0], v), dot(a[1], v), dot(a[2], v)]
}

/// `aᵀ v`.
pub(crate) fn mat_t_vec(a: &M3, v: V3) -> V3 {
    mat_vec(&transpose(a), v)
}

pub(crate) fn transpose(a: &M3) -> M3 {
    let mut t = [[0.0; 3]; 3];
    for (i, row) in a.iter().enumerate() {
        for (j, v) in row.iter().enumerate() {
            t[j][i] = *v;
        }
    }
    t
}

pub(crate) fn det(a: &M3) -> f64 {
    a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1])
        - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
        + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])
}

/// `m (|c|² E - c cᵀ)`: the inertia tensor of a point mass `m` at `c` (tensor entries), i.e. the
/// parallel-axis shift from the centre of mass to the origin.
pub(crate) fn point_mass_inertia(m: f64, c: V3) -> M3 {
    let c2 = dot(c, c);
    let mut t = [[0.0; 3]; 3];
    for (i, row) in t.iter_mut().enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            let delta = if i == j { c2 } else { 0.0 };
            *v = m * (delta - c[i] * c[j]);
        }
    }
    t
}

pub(crate) fn mat_add(a: &M3, b: &M3) -> M3 {
    let mut c = *a;
    for (i, row) in c.iter_mut().enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            *v += b[i][j];
        }
    }
    c
}

pub(crate) fn mat_sub(a: &M3, b: &M3) -> M3 {
    let mut c = *a;
    for (i, row) in c.iter_mut().enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            *v -= b[i][j];
        }
    }
    c
}

/// Eigen-decomposition of a symmetric matrix: `a = R diag(values) Rᵀ` (cyclic Jacobi with a
/// fixed number of sweeps, so it ends on any input).
pub(crate) fn sym_eigen(a: &M3) -> (V3, M3) {
    let mut m = *a;
    let mut r = IDENTITY;
    for _ in 0..64 {
        let off = m[0][1].abs() + m[0][2].abs() + m[1][2].abs();
        if off == 0.0 || off.is_nan() {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            if m[p][q] == 0.0 {
                continue;
            }
            // Rotation that zeroes m[p][q] (Golub & Van Loan's symmetric Schur step).
            let theta = (m[q][q] - m[p][p]) / (2.0 * m[p][q]);
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let t = if t.is_finite() { t } else { 0.0 };
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            let mut g = IDENTITY;
            g[p][p] = c;
            g[q][q] = c;
            g[p][q] = s;
            g[q][p] = -s;
            m = mul(&transpose(&g), &mul(&m, &g));
            r = mul(&r, &g);
        }
    }
    ([m[0][0], m[1][1], m[2][2]], r)
}

/// Eigenvalues of a symmetric matrix, ascending ([`sym_eigen`]'s).
pub(crate) fn sym_eigenvalues(a: &M3) -> V3 {
    let mut ev = sym_eigen(a).0;
    ev.sort_by(|x, y| x.total_cmp(y));
    ev
}

/// `R I Rᵀ`: a tensor given in rotated axes, expressed in the outer axes.
pub(crate) fn rotate_tensor(r: &M3, i: &M3) -> M3 {
    // The two products round the mirrored entries differently; the upper ones are kept on
    // both sides so that the tensor is exactly symmetric, as a spec reads it back.
    let mut t = mul(&mul(r, i), &transpose(r));
    (t[1][0], t[2][0], t[2][1]) = (t[0][1], t[0][2], t[1][2]);
    t
}

pub(crate) fn rot_x(a: f64) -> M3 {
    let (s, c) = a.sin_cos();
    [[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]]
}

pub(crate) fn rot_y(a: f64) -> M3 {
    let (s, c) = a.sin_cos();
    [[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]]
}

pub(crate) fn rot_z(a: f64) -> M3 {
    let (s, c) = a.sin_cos();
    [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]
}

/// URDF roll-pitch-yaw: `R = Rz(yaw) Ry(pitch) Rx(roll)`.
pub(crate) fn rpy(v: V3) -> M3 {
    mul(&mul(&rot_z(v[2]), &rot_y(v[1])), &rot_x(v[0]))
}

/// Normalises an axis; `None` if it is (nearly) zero or not finite.
pub(crate) fn normalize(v: V3) -> Option<V3> {
    let n = dot(v, v).sqrt();
    if n.is_finite() && n > 1e-12 {
        Some(scale(v, 1.0 / n))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eigenvalues_of_rotated_diagonal() {
        // diag(1, 2, 3) rotated by 30° about z: the eigenvalues stay 1, 2, 3.
        let (s, c) = (0.5f64, 3f64.sqrt() / 2.0);
        let r = [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]];
        let d = [[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 3.0]];
        let a = mul(&r, &mul(&d, &transpose(&r)));
        let ev = sym_eigenvalues(&a);
        for (got, want) in ev.iter().zip([1.0, 2.0, 3.0]) {
            assert!((got - want).abs() < 1e-12, "{ev:?}");
        }
    }

    #[test]
    fn eigenvalues_of_full_matrix() {
        let a = [[2.0, 1.0, 0.0], [1.0, 2.0, 1.0], [0.0, 1.0, 2.0]];
        let ev = sym_eigenvalues(&a);
        let want = [2.0 - 2f64.sqrt(), 2.0, 2.0 + 2f64.sqrt()];
        for (got, want) in ev.iter().zip(want) {
            assert!((got - want).abs() < 1e-12, "{ev:?}");
        }
    }
}

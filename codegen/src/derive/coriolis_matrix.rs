//! The Coriolis matrix of the Christoffel symbols,
//! `C_ij = Σ_k ½ (∂M_ij/∂q_k + ∂M_ik/∂q_j - ∂M_jk/∂q_i) q̇_k`.
//!
//! Summed over `k` first, the three terms are `½ Ṁ`, `½ ∂(M q̇)/∂q` and minus its transpose
//! (with `q̇` held fixed in `M q̇`): one time derivative of the mass matrix and `N` partial
//! derivatives of an `N`-vector on the graph, instead of `N` derivatives of the matrix.
//! With this `C`, `C q̇ + g` are the nonlinear effects (the two last terms cancel in `C q̇`
//! and `½ Ṁ q̇ + ½ ∂(M q̇)/∂q q̇ - ½ ∂(q̇ᵀ M q̇)/∂q` is the velocity product of Lagrange's
//! equations) and `Ṁ - 2C = ∂(M q̇)/∂qᵀ - ∂(M q̇)/∂q` is skew-symmetric.

//!
//! A floating base's six coordinates are quasi-velocities (the base's linear and angular
//! velocity in its own axes), for which Lagrange's equations take Euler-Poincaré form: the
//! Christoffel matrix of the tangent-space derivatives (the mass matrix does not depend on the
//! base's pose, so only the joints' columns of `∂(M q̇)/∂q` are nonzero) gives the joints'
//! rows of the velocity forces but misses `ad*_v h` in the base's rows (`h` the base rows of
//! `M v`, `ad*_v = [[ω×, 0], [v×, ω×]]`). Pinocchio's `computeCoriolisMatrix` adds it as the
//! skew-symmetric `D = ½ (A - Aᵀ) + ½ h̄`, where `A` holds `ad*_v M_b` in the base rows (`M_b`
//! the base rows of `M`) and `h̄ = [[0, -F×], [-F×, -T×]]` (so that `h̄ v = ad*_v h`) fills the
//! base block: `D v` is `ad*_v h` in the base rows and zero in the joints', and `D` being skew
//! keeps `Ṁ - 2C` skew.

use super::elastic::time_derivative;
use crate::ir::{BaseVar, Graph, NodeId, Var};

/// `C(q, v)`, `NV×NV` row-major, from the mass matrix `m` (`NV×NV` row-major, of `q` alone):
/// `base` is 6 for a floating base (its coordinates first), 0 for a fixed one.
pub fn coriolis_matrix(g: &mut Graph, nv: usize, base: usize, m: &[NodeId]) -> Vec<NodeId> {
    let rate = |g: &mut Graph, j: usize| {
        if j < base {
            g.var(Var::Base(BaseVar::Vel(
                u8::try_from(j).expect("a base coordinate"),
            )))
        } else {
            g.var(Var::Qd(index(j - base)))
        }
    };
    let m_dot = time_derivative(g, m);
    let momentum: Vec<NodeId> = (0..nv)
        .map(|i| {
            let terms: Vec<NodeId> = (0..nv)
                .map(|j| {
                    let v = rate(g, j);
                    g.mul(m[i * nv + j], v)
                })
                .collect();
            g.sum(&terms)
        })
        .collect();
    // p[i][j] = ∂(M v)_i / ∂q_j; the base's columns are zero (`M` is of the joints alone).
    let zero = g.constant(0.0);
    let mut p = vec![zero; nv * nv];
    for j in base..nv {
        let column = g.diff_many(&momentum, Var::Q(index(j - base)));
        for (i, d) in column.into_iter().enumerate() {
            p[i * nv + j] = d;
        }
    }
    let half = g.constant(0.5);
    let mut c: Vec<NodeId> = (0..nv * nv)
        .map(|k| {
            let (i, j) = (k / nv, k % nv);
            let skew = g.sub(p[k], p[j * nv + i]);
            let sum = g.add(m_dot[k], skew);
            g.mul(half, sum)
        })
        .collect();
    if base == 6 {
        add_euler_poincare(g, nv, m, &momentum, &mut c);
    }
    c
}

/// Adds `D = ½ (A - Aᵀ) + ½ h̄` of a floating base to `c` (module docs).
fn add_euler_poincare(
    g: &mut Graph,
    nv: usize,
    m: &[NodeId],
    momentum: &[NodeId],
    c: &mut [NodeId],
) {
    let v: Vec<NodeId> = (0..6u8)
        .map(|k| g.var(Var::Base(BaseVar::Vel(k))))
        .collect();
    let (lin, ang) = ([v[0], v[1], v[2]], [v[3], v[4], v[5]]);
    // A = ad*_v M_b: rows 0-2 ω × (force rows), rows 3-5 v × (force rows) + ω × (moment rows).
    let mut a = vec![g.constant(0.0); 6 * nv];
    for k in 0..nv {
        let force = [m[k], m[nv + k], m[2 * nv + k]];
        let moment = [m[3 * nv + k], m[4 * nv + k], m[5 * nv + k]];
        let wf = g.cross(ang, force);
        let vf = g.cross(lin, force);
        let wt = g.cross(ang, moment);
        for r in 0..3 {
            a[r * nv + k] = wf[r];
            a[(r + 3) * nv + k] = g.add(vf[r], wt[r]);
        }
    }
    let half = g.constant(0.5);
    let entry = |i: usize, j: usize| if i < 6 { Some(a[i * nv + j]) } else { None };
    for i in 0..nv {
        for j in 0..nv {
            let mut d = match (entry(i, j), entry(j, i)) {
                (Some(x), Some(y)) => g.sub(x, y),
                (Some(x), None) => x,
                (None, Some(y)) => g.neg(y),
                (None, None) => continue,
            };
            if i < 6 && j < 6 {
                let bar = bar_entry(g, i, j, &momentum[..6]);
                d = g.add(d, bar);
            }
            let half_d = g.mul(half, d);
            c[i * nv + j] = g.add(c[i * nv + j], half_d);
        }
    }
}

/// Entry `(i, j)` of `h̄ = [[0, -F×], [-F×, -T×]]` for `h = (F, T)`.
fn bar_entry(g: &mut Graph, i: usize, j: usize, h: &[NodeId]) -> NodeId {
    let (force, moment) = (&h[..3], &h[3..]);
    let block = match (i < 3, j < 3) {
        (true, true) => return g.constant(0.0),
        (false, false) => moment,
        _ => force,
    };
    // -(x×)_{r col} = ε_{r col k} x_k.
    let (r, col) = (i % 3, j % 3);
    if r == col {
        return g.constant(0.0);
    }
    let k = 3 - r - col;
    let x = block[k];
    // `(r, col, k)` an even permutation: ε = 1.
    let even = (col + 3 - r) % 3 == 1;
    if even {
        x
    } else {
        g.neg(x)
    }
}

fn index(j: usize) -> u16 {
    u16::try_from(j).expect("at most 64 joints")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Env;
    use crate::spec::parse_spec;

    /// The planar two-link arm of the textbooks: with `b = m2 l1 lc2`, `M12 = c + b cos q2`
    /// and `M11 = a + 2 b cos q2`, the Christoffel form is
    /// `C = b sin q2 [[-q2', -(q1' + q2')], [q1', 0]]`.
    #[test]
    fn the_two_link_arm_by_hand() {
        let (l1, lc2, m2) = (0.9, 0.35, 1.7);
        let spec = format!(
            "version = 1\nname = \"two_link\"\n\
             [[body]]\nname = \"a\"\njoint = \"revolute\"\naxis = \"z\"\nnext = [{l1:?}, 0.0, 0.0]\n\
             mass = 2.0\ncom = [0.4, 0.0, 0.0]\ninertia = {{ ixx = 0.01, iyy = 0.02, izz = 0.03 }}\n\
             [[body]]\nname = \"b\"\njoint = \"revolute\"\naxis = \"z\"\nnext = [0.8, 0.0, 0.0]\n\
             mass = {m2:?}\ncom = [{lc2:?}, 0.0, 0.0]\n\
             inertia = {{ ixx = 0.03, iyy = 0.04, izz = 0.05 }}\n"
        );
        let robot = parse_spec(&spec, "two_link.toml").expect("valid spec");
        let mut g = Graph::new();
        let m = super::super::derive(&mut g, &robot).mass_matrix;
        let c = coriolis_matrix(&mut g, 2, 0, &m);
        let (q2, q1d, q2d) = (0.6_f64, 0.8_f64, -1.1_f64);
        let env = Env {
            q: vec![0.3, q2],
            qd: vec![q1d, q2d],
            ..Env::default()
        };
        let b = m2 * l1 * lc2 * q2.sin();
        let want = [-b * q2d, -b * (q1d + q2d), b * q1d, 0.0];
        for (got, want) in g.eval_many(&c, &env).iter().zip(want) {
            assert!((got - want).abs() < 1e-13, "{got} vs {want}");
        }
    }
}

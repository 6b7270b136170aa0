//! The Coriolis matrix of the Christoffel symbols,
//! `C_ij = Σ_k ½ (∂M_ij/∂q_k + ∂M_ik/∂q_j - ∂M_jk/∂q_i) q̇_k`.
//!
//! Summed over `k` first, the three terms are `½ Ṁ`, `½ ∂(M q̇)/∂q` and minus its transpose
//! (with `q̇` held fixed in `M q̇`): one time derivative of the mass matrix and `N` partial
//! derivatives of an `N`-vector on the graph, instead of `N` derivatives of the matrix.
//! With this `C`, `C q̇ + g` are the nonlinear effects (the two last terms cancel in `C q̇`
//! and `½ Ṁ q̇ + ½ ∂(M q̇)/∂q q̇ - ½ ∂(q̇ᵀ M q̇)/∂q` is the velocity product of Lagrange's
//! equations) and `Ṁ - 2C = ∂(M q̇)/∂qᵀ - ∂(M q̇)/∂q` is skew-symmetric.

use super::elastic::time_derivative;
use crate::ir::{Graph, NodeId, Var};

/// `C(q, q̇)`, `N×N` row-major, from the mass matrix `m` (`N×N` row-major, of `q` alone) of a
/// fixed base.
pub fn coriolis_matrix(g: &mut Graph, n: usize, m: &[NodeId]) -> Vec<NodeId> {
    let m_dot = time_derivative(g, m);
    let momentum: Vec<NodeId> = (0..n)
        .map(|i| {
            let terms: Vec<NodeId> = (0..n)
                .map(|j| {
                    let qd = g.var(Var::Qd(index(j)));
                    g.mul(m[i * n + j], qd)
                })
                .collect();
            g.sum(&terms)
        })
        .collect();
    // p[i][j] = ∂(M q̇)_i / ∂q_j.
    let mut p = vec![g.constant(0.0); n * n];
    for j in 0..n {
        let column = g.diff_many(&momentum, Var::Q(index(j)));
        for (i, d) in column.into_iter().enumerate() {
            p[i * n + j] = d;
        }
    }
    let half = g.constant(0.5);
    (0..n * n)
        .map(|k| {
            let (i, j) = (k / n, k % n);
            let skew = g.sub(p[k], p[j * n + i]);
            let sum = g.add(m_dot[k], skew);
            g.mul(half, sum)
        })
        .collect()
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
        let c = coriolis_matrix(&mut g, 2, &m);
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

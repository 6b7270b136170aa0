//! Analytical derivatives of the joint-space dynamics, taken on the expression graph.
//!
//! Everything here works on the derived outputs (graph nodes), not on the recursions, so it
//! applies unchanged to any robot the derivation supports. Each derivative is built by
//! [`Graph::diff_many`] through the simplifying constructors; the emitters then lower and share
//! the result like any other function.
//!
//! - `∂τ/∂q`, `∂τ/∂q̇` of the inverse dynamics (`∂τ/∂q̈ = M`). `τ` is quadratic in `q̇`, so
//!   `∂τ/∂q̇` is linear in `q̇` by construction.
//! - `∂g/∂q` of the gravity forces.
//! - Forward dynamics, by the identities `∂q̈/∂q = -M⁻¹ ∂τ/∂q`, `∂q̈/∂q̇ = -M⁻¹ ∂τ/∂q̇` with
//!   `∂τ/∂·` evaluated at `q̈ = FD(q, q̇, τ)` (the inverse dynamics' derivative, linear in
//!   `q̈`, with `q̈` replaced by the forward dynamics), and `∂q̈/∂τ = M⁻¹` from the same
//!   straight-line `L D Lᵀ` factorisation that solves for `q̈`. Differentiating the
//!   division-heavy solve itself would be larger.

use rustc_hash::FxHashMap as HashMap;

use crate::ir::{Graph, Node, NodeId, Var};

/// The derivative outputs, row-major `N×N` (`[i*n + j] = ∂ out_i / ∂ in_j`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Derivatives {
    /// `∂τ/∂q` of the inverse dynamics (inputs `q`, `q̇`, `q̈`).
    pub dtau_dq: Vec<NodeId>,
    /// `∂τ/∂q̇` of the inverse dynamics (inputs `q`, `q̇`), linear in `q̇`.
    pub dtau_dqd: Vec<NodeId>,
    /// `∂g/∂q` (input `q`).
    pub dg_dq: Vec<NodeId>,
    /// `∂q̈/∂q` of the forward dynamics (inputs `q`, `q̇`, `τ`).
    pub dqdd_dq: Vec<NodeId>,
    /// `∂q̈/∂q̇` of the forward dynamics (inputs `q`, `q̇`, `τ`).
    pub dqdd_dqd: Vec<NodeId>,
    /// `M⁻¹ = ∂q̈/∂τ` (input `q`), full and symmetric.
    pub minv: Vec<NodeId>,
}

/// Derives [`Derivatives`] from the inverse dynamics `tau` (`N`), the gravity forces
/// `gravity` (`N`), the nonlinear effects `nle` (`N`) and the mass matrix `mass` (`N×N`,
/// row-major) of one graph.
pub fn derivatives(
    g: &mut Graph,
    tau: &[NodeId],
    gravity: &[NodeId],
    nle: &[NodeId],
    mass: &[NodeId],
) -> Derivatives {
    let n = tau.len();
    let jacobian = |g: &mut Graph, f: &[NodeId], wrt: fn(u16) -> Var| -> Vec<NodeId> {
        let mut out = vec![NodeId(0); n * f.len()];
        for j in 0..n {
            let col = g.diff_many(f, wrt(joint(j)));
            for (i, d) in col.into_iter().enumerate() {
                out[i * n + j] = d;
            }
        }
        out
    };
    let dtau_dq = jacobian(g, tau, Var::Q);
    let dtau_dqd = jacobian(g, tau, Var::Qd);
    let dg_dq = jacobian(g, gravity, Var::Q);

    // Forward dynamics: q̈ from the factorisation, then the identities.
    let f = Ldlt::factor(g, mass, n);
    let rhs: Vec<NodeId> = (0..n)
        .map(|j| {
            let t = g.var(Var::Tau(joint(j)));
            g.sub(t, nle[j])
        })
        .collect();
    let qdd = f.solve(g, &rhs);
    let minv = f.inverse(g);
    let at_fd: HashMap<Var, NodeId> = (0..n).map(|k| (Var::Qdd(joint(k)), qdd[k])).collect();
    let dtau_dq_fd = substitute(g, &dtau_dq, &at_fd);
    let dqdd_dq = neg_product(g, &minv, &dtau_dq_fd, n);
    let dqdd_dqd = neg_product(g, &minv, &dtau_dqd, n);
    Derivatives {
        dtau_dq,
        dtau_dqd,
        dg_dq,
        dqdd_dq,
        dqdd_dqd,
        minv,
    }
}

fn joint(j: usize) -> u16 {
    u16::try_from(j).expect("at most 64 joints")
}

/// `-(a b)` for row-major `N×N` matrices.
fn neg_product(g: &mut Graph, a: &[NodeId], b: &[NodeId], n: usize) -> Vec<NodeId> {
    let mut out = Vec::with_capacity(n * n);
    for i in 0..n {
        for j in 0..n {
            let terms: Vec<NodeId> = (0..n).map(|k| g.mul(a[i * n + k], b[k * n + j])).collect();
            let s = g.sum(&terms);
            out.push(g.neg(s));
        }
    }
    out
}

/// `roots` with the leaves of `subs` replaced by the given nodes, rebuilt through the
/// simplifying constructors (so the result is simplified like any other expression).
pub(crate) fn substitute(
    g: &mut Graph,
    roots: &[NodeId],
    subs: &HashMap<Var, NodeId>,
) -> Vec<NodeId> {
    let live = g.reachable(roots);
    let mut map: HashMap<NodeId, NodeId> = HashMap::default();
    for (i, _) in live.iter().enumerate().filter(|(_, l)| **l) {
        let id = NodeId(i as u32);
        let node = g.node(id).clone();
        let unchanged = node.children().all(|c| map[&c] == c);
        let new = match node {
            Node::Var(v) => subs.get(&v).copied().unwrap_or(id),
            _ if unchanged => id,
            Node::Const(_) => id,
            Node::Add(ch) => {
                let v: Vec<NodeId> = ch.iter().map(|c| map[c]).collect();
                g.sum(&v)
            }
            Node::Mul(ch) => {
                let v: Vec<NodeId> = ch.iter().map(|c| map[c]).collect();
                g.product(&v)
            }
            Node::Neg(x) => g.neg(map[&x]),
            Node::Div(a, b) => g.div(map[&a], map[&b]),
            Node::Sqrt(x) => g.sqrt(map[&x]),
        };
        map.insert(id, new);
    }
    roots.iter().map(|r| map[r]).collect()
}

/// A straight-line `L D Lᵀ` factorisation of a symmetric positive definite matrix on the
/// graph (no pivoting; known zeros fold, so sparsity is kept where no fill-in occurs).
struct Ldlt {
    n: usize,
    /// `L_ik` (unit lower triangular, row-major; entries above the diagonal unused).
    l: Vec<NodeId>,
    /// `1 / D_k`.
    dinv: Vec<NodeId>,
}

impl Ldlt {
    fn factor(g: &mut Graph, m: &[NodeId], n: usize) -> Ldlt {
        let zero = g.constant(0.0);
        let one = g.constant(1.0);
        // t[i][k] = L_ik D_k (saves a multiplication per update).
        let mut t = vec![zero; n * n];
        let mut l = vec![zero; n * n];
        let mut dinv = vec![zero; n];
        for j in 0..n {
            for i in j..n {
                let mut v = m[i * n + j];
                for k in 0..j {
                    let p = g.mul(t[i * n + k], l[j * n + k]);
                    v = g.sub(v, p);
                }
                t[i * n + j] = v;
            }
            dinv[j] = g.div(one, t[j * n + j]);
            l[j * n + j] = one;
            for i in j + 1..n {
                l[i * n + j] = g.mul(t[i * n + j], dinv[j]);
            }
        }
        Ldlt { n, l, dinv }
    }

    /// `x` with `L D Lᵀ x = b`.
    fn solve(&self, g: &mut Graph, b: &[NodeId]) -> Vec<NodeId> {
        let n = self.n;
        let mut y = b.to_vec();
        for i in 0..n {
            for k in 0..i {
                let p = g.mul(self.l[i * n + k], y[k]);
                y[i] = g.sub(y[i], p);
            }
        }
        let mut x = y.clone();
        for i in (0..n).rev() {
            let mut v = g.mul(y[i], self.dinv[i]);
            for k in i + 1..n {
                let p = g.mul(self.l[k * n + i], x[k]);
                v = g.sub(v, p);
            }
            x[i] = v;
        }
        x
    }

    /// The inverse, full and symmetric (mirrored entries are the same nodes):
    /// `M⁻¹ = Xᵀ D⁻¹ X` with `X = L⁻¹`.
    fn inverse(&self, g: &mut Graph) -> Vec<NodeId> {
        let n = self.n;
        let zero = g.constant(0.0);
        let one = g.constant(1.0);
        // X = L⁻¹, unit lower triangular: X_ij = -Σ_{k=j}^{i-1} L_ik X_kj for i > j.
        let mut x = vec![zero; n * n];
        for j in 0..n {
            x[j * n + j] = one;
            for i in j + 1..n {
                let terms: Vec<NodeId> = (j..i)
                    .map(|k| g.mul(self.l[i * n + k], x[k * n + j]))
                    .collect();
                let s = g.sum(&terms);
                x[i * n + j] = g.neg(s);
            }
        }
        // W = D⁻¹ X, then (M⁻¹)_ij = Σ_{k ≥ i} X_ki W_kj for i ≥ j.
        let mut w = vec![zero; n * n];
        for k in 0..n {
            for j in 0..=k {
                w[k * n + j] = g.mul(self.dinv[k], x[k * n + j]);
            }
        }
        let mut inv = vec![zero; n * n];
        for i in 0..n {
            for j in 0..=i {
                let terms: Vec<NodeId> =
                    (i..n).map(|k| g.mul(x[k * n + i], w[k * n + j])).collect();
                let s = g.sum(&terms);
                inv[i * n + j] = s;
                inv[j * n + i] = s;
            }
        }
        inv
    }
}

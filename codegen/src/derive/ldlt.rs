//! Forward dynamics: `M q̈ = τ - h` solved by a straight-line `L D Lᵀ` factorisation.
//!
//! No pivoting: `M` is symmetric positive definite. Known-zero entries of `M` (e.g. decoupled
//! joints) fold away at derivation time, so the written-out factorisation keeps their sparsity
//! wherever no fill-in occurs. Each factorisation is a value ([`Dense`], [`Tree`]) so one
//! factor serves many solves (the forward-dynamics derivatives solve a column per coordinate).

use super::scalar::{Cx, S};
use crate::algebra::Algebra;

/// `M = L D Lᵀ` factorised from the base, `L` unit lower triangular (a chain: no zeros to
/// keep).
pub(crate) struct Dense<E> {
    /// `l[i][k] = L_ik` for `k ≤ i` (`L_ii = 1`).
    pub l: Vec<Vec<S<E>>>,
    /// `1 / D_k`.
    pub dinv: Vec<S<E>>,
}

impl<E: Copy> Dense<E> {
    /// Factorises the symmetric positive definite `m` (full, `m[i][j]`).
    pub(crate) fn factor<A: Algebra<E = E>>(cx: &mut Cx<'_, A>, m: &[Vec<S<E>>]) -> Self {
        let n = m.len();
        // t[i][k] = L_ik D_k (kept to save a multiplication per update), l[i][k] = L_ik.
        let mut t = vec![vec![S::K(0.0); n]; n];
        let mut l = vec![vec![S::K(0.0); n]; n];
        let mut dinv = vec![S::K(0.0); n];
        for j in 0..n {
            for i in j..n {
                let mut v = m[i][j];
                for k in 0..j {
                    let p = cx.mul(t[i][k], l[j][k]);
                    v = cx.sub(v, p);
                }
                t[i][j] = v;
            }
            dinv[j] = cx.div(S::K(1.0), t[j][j]);
            l[j][j] = S::K(1.0);
            for i in j + 1..n {
                l[i][j] = cx.mul(t[i][j], dinv[j]);
                cx.label(l[i][j], || format!("L{}_{}", i + 1, j + 1));
            }
        }
        Dense { l, dinv }
    }

    /// `x` with `M x = b`: `L y = b`, then `x = D⁻¹ y - Lᵀ x` from the bottom.
    pub(crate) fn solve<A: Algebra<E = E>>(&self, cx: &mut Cx<'_, A>, b: &[S<E>]) -> Vec<S<E>> {
        let y = self.forward(cx, b);
        self.backward(cx, &y)
    }

    /// The first half of a solve, `y = L⁻¹ b`: `M⁻¹ = L⁻ᵀ D⁻¹ L⁻¹`, so `bᵀ M⁻¹ c` is
    /// `yᵀ D⁻¹ z` for the halves `y`, `z` of `b`, `c`.
    pub(crate) fn forward<A: Algebra<E = E>>(&self, cx: &mut Cx<'_, A>, b: &[S<E>]) -> Vec<S<E>> {
        let n = b.len();
        let mut y = vec![S::K(0.0); n];
        for i in 0..n {
            let mut v = b[i];
            for k in 0..i {
                let p = cx.mul(self.l[i][k], y[k]);
                v = cx.sub(v, p);
            }
            y[i] = v;
        }
        y
    }

    /// The second half, `x = L⁻ᵀ D⁻¹ y`.
    pub(crate) fn backward<A: Algebra<E = E>>(&self, cx: &mut Cx<'_, A>, y: &[S<E>]) -> Vec<S<E>> {
        let n = y.len();
        let mut x = vec![S::K(0.0); n];
        for i in (0..n).rev() {
            let mut v = cx.mul(y[i], self.dinv[i]);
            for k in i + 1..n {
                let p = cx.mul(self.l[k][i], x[k]);
                v = cx.sub(v, p);
            }
            x[i] = v;
        }
        x
    }
}

/// `M = Lᵀ D L` factorised from the leaves (Featherstone's LTDL): row `k` of `L` is nonzero
/// only at the ancestors of `k`, so unlike a factorisation from the base there is no fill-in
/// and no work on the zeros between branches.
pub(crate) struct Tree<E> {
    parent: Vec<Option<usize>>,
    /// `l[k][i] = L_ki` for `i` an ancestor of `k` (other entries unused).
    pub l: Vec<Vec<S<E>>>,
    /// `1 / D_k`.
    pub dinv: Vec<S<E>>,
}

impl<E: Copy> Tree<E> {
    /// Factorises `m` (full, symmetric positive definite); `parent[k]` is the carrier of
    /// coordinate `k` (parents before children).
    pub(crate) fn factor<A: Algebra<E = E>>(
        cx: &mut Cx<'_, A>,
        m: &[Vec<S<E>>],
        parent: &[Option<usize>],
    ) -> Self {
        let n = m.len();
        // Lower triangle of M, overwritten by L (below the diagonal) and D (diagonal).
        let mut f = Tree {
            parent: parent.to_vec(),
            l: m.to_vec(),
            dinv: vec![S::K(0.0); n],
        };
        for k in (0..n).rev() {
            f.dinv[k] = cx.div(S::K(1.0), f.l[k][k]);
            let anc = f.ancestors(k);
            for (pos, &i) in anc.iter().enumerate() {
                let a = cx.mul(f.l[k][i], f.dinv[k]);
                // M_ij -= a M_kj for i and every ancestor j of i (j ≤ i on the path).
                for &j in &anc[pos..] {
                    let p = cx.mul(a, f.l[k][j]);
                    f.l[i][j] = cx.sub(f.l[i][j], p);
                }
                f.l[k][i] = a;
                cx.label(a, || format!("L{}_{}", k + 1, i + 1));
            }
        }
        f
    }

    /// The ancestors of `k`, nearest first.
    pub(crate) fn ancestors(&self, k: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut at = self.parent[k];
        while let Some(i) = at {
            out.push(i);
            at = self.parent[i];
        }
        out
    }

    /// `x` with `M x = b`: `Lᵀ y = b` from the leaves, then `x = D⁻¹ y - L x` from the base.
    pub(crate) fn solve<A: Algebra<E = E>>(&self, cx: &mut Cx<'_, A>, b: &[S<E>]) -> Vec<S<E>> {
        let y = self.forward(cx, b);
        self.backward(cx, &y)
    }

    /// The first half of a solve, `y = L⁻ᵀ b` from the leaves: `M⁻¹ = L⁻¹ D⁻¹ L⁻ᵀ`, so
    /// `bᵀ M⁻¹ c` is `yᵀ D⁻¹ z` for the halves `y`, `z` of `b`, `c`. A `b` nonzero only on a
    /// path to the base (a frame's Jacobian row) keeps `y` on that path.
    pub(crate) fn forward<A: Algebra<E = E>>(&self, cx: &mut Cx<'_, A>, b: &[S<E>]) -> Vec<S<E>> {
        let n = b.len();
        let mut y = b.to_vec();
        for i in (0..n).rev() {
            for j in self.ancestors(i) {
                let p = cx.mul(self.l[i][j], y[i]);
                y[j] = cx.sub(y[j], p);
            }
        }
        y
    }

    /// The second half, `x = L⁻¹ D⁻¹ y` from the base.
    pub(crate) fn backward<A: Algebra<E = E>>(&self, cx: &mut Cx<'_, A>, y: &[S<E>]) -> Vec<S<E>> {
        let n = y.len();
        let mut x = vec![S::K(0.0); n];
        for i in 0..n {
            let mut v = cx.mul(y[i], self.dinv[i]);
            for j in self.ancestors(i) {
                let p = cx.mul(self.l[i][j], x[j]);
                v = cx.sub(v, p);
            }
            x[i] = v;
        }
        x
    }
}

impl<E: Copy> Tree<E> {
    /// `M⁻¹` (full, symmetric: `m[i][j]` and `m[j][i]` the same value) from the factors, by
    /// the tree's ancestor pattern: `M = Lᵀ D L` gives `M⁻¹ = X D⁻¹ Xᵀ` with `X = L⁻¹`, which
    /// keeps `L`'s pattern (row `k` nonzero at `k`'s ancestors alone), so `(M⁻¹)_ij` is a sum
    /// over the common ancestors of `i` and `j` only. A column solve instead runs over every
    /// coordinate from the base for each column, so this is shorter wherever branches share
    /// few ancestors.
    pub(crate) fn inverse_by_ancestors<A: Algebra<E = E>>(
        &self,
        cx: &mut Cx<'_, A>,
    ) -> Vec<Vec<S<E>>> {
        let n = self.dinv.len();
        // Each coordinate's ancestors, itself first then nearest first.
        let path: Vec<Vec<usize>> = (0..n)
            .map(|k| std::iter::once(k).chain(self.ancestors(k)).collect())
            .collect();
        // x[k][i] = X_ki for i on path[k]: X_kk = 1 and, for an ancestor i of k,
        // X_ki = -Σ L_km X_mi over the ancestors m of k that i is an ancestor (or self) of.
        let mut x = vec![vec![S::K(0.0); n]; n];
        for k in 0..n {
            x[k][k] = S::K(1.0);
            for (pos, &i) in path[k].iter().enumerate().skip(1) {
                let mut v = S::K(0.0);
                for &m in &path[k][1..=pos] {
                    let p = cx.mul(self.l[k][m], x[m][i]);
                    v = cx.sub(v, p);
                }
                x[k][i] = v;
            }
        }
        // (M⁻¹)_ij = Σ_k X_ik D_k⁻¹ X_jk over the common ancestors k (i ≥ j: the ancestors of
        // j that are on i's path too, since parents come before children).
        let mut inv = vec![vec![S::K(0.0); n]; n];
        for i in 0..n {
            let scaled: Vec<S<E>> = path[i]
                .iter()
                .map(|&k| cx.mul(x[i][k], self.dinv[k]))
                .collect();
            for j in 0..=i {
                let mut v = S::K(0.0);
                for (&k, &w) in path[i].iter().zip(&scaled) {
                    if path[j].contains(&k) {
                        let p = cx.mul(w, x[j][k]);
                        v = cx.add(v, p);
                    }
                }
                inv[i][j] = v;
                inv[j][i] = v;
            }
        }
        inv
    }
}

/// Solves `m x = b` for symmetric positive definite `m` (full, `m[k][j]`).
pub(crate) fn solve<A: Algebra>(
    cx: &mut Cx<'_, A>,
    m: &[Vec<S<A::E>>],
    b: &[S<A::E>],
) -> Vec<S<A::E>> {
    Dense::factor(cx, m).solve(cx, b)
}

/// Solves `m x = b` for a tree's mass matrix by the factorisation from the leaves ([`Tree`]).
/// `parent[k]` is the carrier of body `k` (parents before children).
pub(crate) fn solve_tree<A: Algebra>(
    cx: &mut Cx<'_, A>,
    m: &[Vec<S<A::E>>],
    b: &[S<A::E>],
    parent: &[Option<usize>],
) -> Vec<S<A::E>> {
    Tree::factor(cx, m, parent).solve(cx, b)
}

/// `M = Lᵀ D L`, row-major, for tests: `L` unit lower triangular with `off(k, i)` at each
/// ancestor `i` of `k` (`parent` as [`Tree::factor`] takes it), `D` the diagonal `d(k)`; so
/// `M` is symmetric positive definite (for positive `d`) with the tree's pattern. Also each
/// coordinate's ancestors, itself first.
#[cfg(test)]
pub(crate) fn on_tree(
    parent: &[Option<usize>],
    off: impl Fn(usize, usize) -> f64,
    d: impl Fn(usize) -> f64,
) -> (Vec<f64>, Vec<Vec<usize>>) {
    let n = parent.len();
    let path: Vec<Vec<usize>> = (0..n)
        .map(|k| {
            let mut out = vec![k];
            let mut at = parent[k];
            while let Some(i) = at {
                out.push(i);
                at = parent[i];
            }
            out
        })
        .collect();
    let mut l = vec![0.0; n * n];
    for (k, anc) in path.iter().enumerate() {
        l[k * n + k] = 1.0;
        for &i in &anc[1..] {
            l[k * n + i] = off(k, i);
        }
    }
    let mut m = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            m[i * n + j] = (0..n).map(|k| l[k * n + i] * d(k) * l[k * n + j]).sum();
        }
    }
    (m, path)
}

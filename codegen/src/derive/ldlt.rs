//! Forward dynamics: `M q̈ = τ - h` solved by a straight-line `L D Lᵀ` factorisation.
//!
//! No pivoting: `M` is symmetric positive definite. Known-zero entries of `M` (e.g. decoupled
//! joints) fold away at derivation time, so the written-out factorisation keeps their sparsity
//! wherever no fill-in occurs.

use super::scalar::{Cx, S};
use crate::algebra::Algebra;

/// Solves `m x = b` for symmetric positive definite `m` (full, `m[k][j]`).
pub(crate) fn solve<A: Algebra>(
    cx: &mut Cx<'_, A>,
    m: &[Vec<S<A::E>>],
    b: &[S<A::E>],
) -> Vec<S<A::E>> {
    let n = b.len();
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
    // L y = b, then x = D⁻¹ y - Lᵀ x from the bottom.
    let mut y = vec![S::K(0.0); n];
    for i in 0..n {
        let mut v = b[i];
        for k in 0..i {
            let p = cx.mul(l[i][k], y[k]);
            v = cx.sub(v, p);
        }
        y[i] = v;
    }
    let mut x = vec![S::K(0.0); n];
    for i in (0..n).rev() {
        let mut v = cx.mul(y[i], dinv[i]);
        for k in i + 1..n {
            let p = cx.mul(l[k][i], x[k]);
            v = cx.sub(v, p);
        }
        x[i] = v;
    }
    x
}

/// Solves `m x = b` for a tree's mass matrix by the factorisation `M = Lᵀ D L` taken from the
/// leaves (Featherstone's LTDL): row `k` of `L` is nonzero only at the ancestors of `k`, so
/// unlike a factorisation from the base there is no fill-in and no work on the zeros between
/// branches. `parent[k]` is the carrier of body `k` (parents before children).
pub(crate) fn solve_tree<A: Algebra>(
    cx: &mut Cx<'_, A>,
    m: &[Vec<S<A::E>>],
    b: &[S<A::E>],
    parent: &[Option<usize>],
) -> Vec<S<A::E>> {
    let n = b.len();
    let ancestors = |k: usize| {
        let mut out = Vec::new();
        let mut at = parent[k];
        while let Some(i) = at {
            out.push(i);
            at = parent[i];
        }
        out
    };
    // Lower triangle of H, overwritten by L (below the diagonal) and D (diagonal).
    let mut h: Vec<Vec<S<A::E>>> = m.to_vec();
    let mut dinv = vec![S::K(0.0); n];
    for k in (0..n).rev() {
        dinv[k] = cx.div(S::K(1.0), h[k][k]);
        let anc = ancestors(k);
        for (pos, &i) in anc.iter().enumerate() {
            let a = cx.mul(h[k][i], dinv[k]);
            // H_ij -= a H_kj for i and every ancestor j of i (j ≤ i on the path).
            for &j in &anc[pos..] {
                let p = cx.mul(a, h[k][j]);
                h[i][j] = cx.sub(h[i][j], p);
            }
            h[k][i] = a;
            cx.label(a, || format!("L{}_{}", k + 1, i + 1));
        }
    }
    // Lᵀ y = b from the leaves, then x = D⁻¹ y - (L x) from the base.
    let mut y = b.to_vec();
    for i in (0..n).rev() {
        for j in ancestors(i) {
            let p = cx.mul(h[i][j], y[i]);
            y[j] = cx.sub(y[j], p);
        }
    }
    let mut x = vec![S::K(0.0); n];
    for i in 0..n {
        let mut v = cx.mul(y[i], dinv[i]);
        for j in ancestors(i) {
            let p = cx.mul(h[i][j], x[j]);
            v = cx.sub(v, p);
        }
        x[i] = v;
    }
    x
}

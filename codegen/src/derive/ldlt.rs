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

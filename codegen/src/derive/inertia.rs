//! Symmetric inertia tensors in generated code: turned into another frame, moved to another
//! point, added. Shared by the mass matrix, the base parameters' regrouping, the articulated
//! inertias and the composite derivatives.

use super::scalar::{Cx, Mat3, Vec3, S};
use crate::algebra::Algebra;

/// Symmetric 3×3 as a full matrix of handles (`m[a][b]` and `m[b][a]` are the same handle).
type Sym<E> = Mat3<E>;

/// `Rot J Rotᵀ`, computing only the upper triangle.
pub(crate) fn rotate_sym<A: Algebra>(
    cx: &mut Cx<'_, A>,
    rot: &Mat3<A::E>,
    j: &Sym<A::E>,
) -> Sym<A::E> {
    if let Some(out) = rotate_sym_about_axis(cx, rot, j) {
        return out;
    }
    let (rj, _) = cx.mat_mul(rot, j);
    let mut out = [[S::K(0.0); 3]; 3];
    for a in 0..3 {
        for b in a..3 {
            let v = cx.dot(&rj[a], &rot[b]);
            out[a][b] = v;
            out[b][a] = v;
        }
    }
    out
}

/// [`rotate_sym`] for a rotation about a coordinate axis (a joint rotation seen from a frame
/// whose axes are the joint axis and two normals, up to order and sign): `rot[i0][j0] = ±1`,
/// the rest of row `i0` and column `j0` zero, and the other rows `(p, q)`, `(r, t)` an
/// orthogonal 2×2 block whose determinant follows from the `±1` and its place (`rot` is a
/// rotation). The in-plane block by the double angle, `C = p² - q²`, `S = 2pq`:
/// `(a+b)/2 ± ((a-b)/2 C + d S)` on the diagonal and `±(d C - (a-b)/2 S)` off it, 8
/// multiplications where the products with `rot` take 14 (`C` and `S` shared by every body
/// the joint turns). `None` when `rot` has another pattern or a constant block.
fn rotate_sym_about_axis<A: Algebra>(
    cx: &mut Cx<'_, A>,
    rot: &Mat3<A::E>,
    j: &Sym<A::E>,
) -> Option<Sym<A::E>> {
    if !cx.alg.double_angle() {
        return None;
    }
    let (i0, j0, unit) = (0..3)
        .flat_map(|i| (0..3).map(move |k| (i, k)))
        .find_map(|(i, k)| {
            let S::K(v) = rot[i][k] else { return None };
            let alone = (0..3).all(|o| o == k || rot[i][o].is_zero())
                && (0..3).all(|o| o == i || rot[o][k].is_zero());
            ((v == 1.0 || v == -1.0) && alone).then_some((i, k, v))
        })?;
    let [i1, i2] = others(i0);
    let [j1, j2] = others(j0);
    let (p, q) = (rot[i1][j1], rot[i1][j2]);
    if matches!((p, q), (S::K(_), S::K(_))) {
        return None;
    }
    // det rot = unit · (-1)^(i0+j0) · det B = 1.
    let det = if (i0 + j0) % 2 == 0 { unit } else { -unit };
    // Second row of B: (-q, p) for det B = 1, (q, -p) for det B = -1.
    let (r, t) = if det > 0.0 {
        (cx.neg(q), p)
    } else {
        (q, cx.neg(p))
    };
    let (a, b, d) = (j[j1][j1], j[j2][j2], j[j1][j2]);
    let pp = cx.mul(p, p);
    let qq = cx.mul(q, q);
    let c2 = cx.sub(pp, qq);
    let pq = cx.mul(p, q);
    let s2 = cx.mul(S::K(2.0), pq);
    let sum = cx.add(a, b);
    let mean = cx.mul(S::K(0.5), sum);
    let diff = cx.sub(a, b);
    let half = cx.mul(S::K(0.5), diff);
    let hc = cx.mul(half, c2);
    let ds = cx.mul(d, s2);
    let swing = cx.add(hc, ds);
    let mut out = [[S::K(0.0); 3]; 3];
    out[i0][i0] = j[j0][j0];
    out[i1][i1] = cx.add(mean, swing);
    out[i2][i2] = cx.sub(mean, swing);
    let dc = cx.mul(d, c2);
    let hs = cx.mul(half, s2);
    let cross = cx.sub(dc, hs);
    out[i1][i2] = if det > 0.0 { cross } else { cx.neg(cross) };
    // Row i0 of rot is unit · e_j0: out[i0][x] = unit · (J row j0) · (row x of rot).
    for (x, (rx1, rx2)) in [(i1, (p, q)), (i2, (r, t))] {
        let t1 = cx.mul(j[j0][j1], rx1);
        let t2 = cx.mul(j[j0][j2], rx2);
        let v = cx.add(t1, t2);
        out[i0][x] = if unit > 0.0 { v } else { cx.neg(v) };
    }
    for (a, b) in [(i0, i1), (i0, i2), (i1, i2)] {
        out[b][a] = out[a][b];
    }
    Some(out)
}

/// The two indices of `0..3` other than `i`, in order.
fn others(i: usize) -> [usize; 2] {
    match i {
        0 => [1, 2],
        1 => [0, 2],
        _ => [0, 1],
    }
}

/// Inertia about `O_j` of a system with mass `m`, first moment `h` and inertia `jo` about the
/// point `O_j + d`: `jo + m(|d|²I - d dᵀ) + 2(d·h)I - d hᵀ - h dᵀ`, with the diagonal written
/// as `Σ_{c≠a} d_c (m d_c + 2 h_c)` so nothing cancels at run time.
pub(crate) fn shift_sym<A: Algebra>(
    cx: &mut Cx<'_, A>,
    jo: &Sym<A::E>,
    m: S<A::E>,
    h: &Vec3<A::E>,
    d: &Vec3<A::E>,
) -> Sym<A::E> {
    let mut out = *jo;
    for a in 0..3 {
        for b in a..3 {
            let mut v = jo[a][b];
            if a == b {
                for c in (0..3).filter(|&c| c != a) {
                    if d[c].is_zero() {
                        continue;
                    }
                    let md = cx.mul(m, d[c]);
                    let h2 = cx.mul(S::K(2.0), h[c]);
                    let s = cx.add(md, h2);
                    let t = cx.mul(d[c], s);
                    v = cx.add(v, t);
                }
            } else {
                // m d_a d_b + d_a h_b + h_a d_b = d_a (m d_b + h_b) + h_a d_b
                let mdb = cx.mul(m, d[b]);
                let s = cx.add(mdb, h[b]);
                let t1 = cx.mul(d[a], s);
                let t2 = cx.mul(h[a], d[b]);
                let t = cx.add(t1, t2);
                v = cx.sub(v, t);
            }
            out[a][b] = v;
            out[b][a] = v;
        }
    }
    out
}

/// `a + b` for symmetric matrices, upper triangle mirrored.
pub(crate) fn sym_add<A: Algebra>(
    cx: &mut Cx<'_, A>,
    a: &Mat3<A::E>,
    b: &Mat3<A::E>,
) -> Mat3<A::E> {
    let mut out = *a;
    for r in 0..3 {
        for c in r..3 {
            let v = cx.add(a[r][c], b[r][c]);
            out[r][c] = v;
            out[c][r] = v;
        }
    }
    out
}

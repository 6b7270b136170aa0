//! Spatial algebra on the derivation's scalars: motion and force 6-vectors about one point,
//! in one frame ([`Spatial`]), rigid-body inertias ([`Inertia`]) and articulated inertias
//! ([`ArticulatedInertia`]), with the products, frame changes and rates the recursions use.
//! Shared by the derivatives by composite quantities and the articulated-body forward dynamics.
// Index loops mirror the component formulas.
#![allow(clippy::needless_range_loop)]

use super::inertia::{rotate_sym, shift_sym, sym_add};
use super::scalar::{transpose, Cx, Mat3, Vec3, S};
use crate::algebra::Algebra;

/// A spatial vector: angular part, then linear part (about the reference point, in the
/// reference frame): a motion `(ω, v)` or a force `(n, f)`.
#[derive(Clone, Copy)]
pub(crate) struct Spatial<E> {
    /// Angular velocity, or moment about the reference point.
    pub(crate) ang: Vec3<E>,
    /// Velocity of the body point at the reference point, or force.
    pub(crate) lin: Vec3<E>,
}

/// A spatial inertia (or its rate) about the reference point, in the reference frame.
#[derive(Clone, Copy)]
pub(crate) struct Inertia<E> {
    /// Mass.
    pub(crate) m: S<E>,
    /// First moment about the reference point.
    pub(crate) h: Vec3<E>,
    /// Inertia tensor about the reference point.
    pub(crate) j: Mat3<E>,
}

/// A motion about the origin, in the frame the derivatives are written in, seen in the frame
/// turned by `r` about the point `p`: `(rᵀ ω, rᵀ (v + ω × p))`.
pub(crate) fn motion_to_frame<A: Algebra>(
    cx: &mut Cx<'_, A>,
    m: &Spatial<A::E>,
    r: &Mat3<A::E>,
    p: &Vec3<A::E>,
) -> Spatial<A::E> {
    let wp = cx.cross(&m.ang, p);
    let at_p = cx.vadd(&m.lin, &wp);
    Spatial {
        ang: cx.mat_t_vec(r, &m.ang),
        lin: cx.mat_t_vec(r, &at_p),
    }
}

/// A force about `p` in the frame turned by `r`, written about the origin in the unturned
/// frame: `(r n + p × r f, r f)`.
pub(crate) fn force_from_frame<A: Algebra>(
    cx: &mut Cx<'_, A>,
    f: &Spatial<A::E>,
    r: &Mat3<A::E>,
    p: &Vec3<A::E>,
) -> Spatial<A::E> {
    let lin = cx.mat_vec(r, &f.lin);
    let n = cx.mat_vec(r, &f.ang);
    let pf = cx.cross(p, &lin);
    Spatial {
        ang: cx.vadd(&n, &pf),
        lin,
    }
}

/// A spatial inertia (or its rate) about `p` in the frame turned by `r`, written about the
/// origin in the unturned frame: the first moment and the inertia turned, then shifted.
pub(crate) fn inertia_from_frame<A: Algebra>(
    cx: &mut Cx<'_, A>,
    i: &Inertia<A::E>,
    r: &Mat3<A::E>,
    p: &Vec3<A::E>,
) -> Inertia<A::E> {
    let h = cx.mat_vec(r, &i.h);
    let j = rotate_sym(cx, r, &i.j);
    let mp = cx.scale(i.m, p);
    Inertia {
        m: i.m,
        h: cx.vadd(&mp, &h),
        j: shift_sym(cx, &j, i.m, &h, p),
    }
}

pub(crate) fn add<A: Algebra>(
    cx: &mut Cx<'_, A>,
    a: &Spatial<A::E>,
    b: &Spatial<A::E>,
) -> Spatial<A::E> {
    Spatial {
        ang: cx.vadd(&a.ang, &b.ang),
        lin: cx.vadd(&a.lin, &b.lin),
    }
}

pub(crate) fn sub<A: Algebra>(
    cx: &mut Cx<'_, A>,
    a: &Spatial<A::E>,
    b: &Spatial<A::E>,
) -> Spatial<A::E> {
    Spatial {
        ang: cx.vsub(&a.ang, &b.ang),
        lin: cx.vsub(&a.lin, &b.lin),
    }
}

pub(crate) fn scaled<A: Algebra>(
    cx: &mut Cx<'_, A>,
    s: S<A::E>,
    a: &Spatial<A::E>,
) -> Spatial<A::E> {
    Spatial {
        ang: cx.scale(s, &a.ang),
        lin: cx.scale(s, &a.lin),
    }
}

/// `a × b` of two motions.
pub(crate) fn motion_cross<A: Algebra>(
    cx: &mut Cx<'_, A>,
    a: &Spatial<A::E>,
    b: &Spatial<A::E>,
) -> Spatial<A::E> {
    let lin1 = cx.cross(&a.ang, &b.lin);
    let lin2 = cx.cross(&a.lin, &b.ang);
    Spatial {
        ang: cx.cross(&a.ang, &b.ang),
        lin: cx.vadd(&lin1, &lin2),
    }
}

/// `m ×* f`: the rate of the force `f` carried by the motion `m`.
pub(crate) fn force_cross<A: Algebra>(
    cx: &mut Cx<'_, A>,
    m: &Spatial<A::E>,
    f: &Spatial<A::E>,
) -> Spatial<A::E> {
    let ang1 = cx.cross(&m.ang, &f.ang);
    let ang2 = cx.cross(&m.lin, &f.lin);
    Spatial {
        ang: cx.vadd(&ang1, &ang2),
        lin: cx.cross(&m.ang, &f.lin),
    }
}

/// `m · f`: the power of the force `f` on the motion `m`.
pub(crate) fn pair<A: Algebra>(
    cx: &mut Cx<'_, A>,
    m: &Spatial<A::E>,
    f: &Spatial<A::E>,
) -> S<A::E> {
    let a = cx.dot(&m.ang, &f.ang);
    let b = cx.dot(&m.lin, &f.lin);
    cx.add(a, b)
}

/// `I (ω, v) = (J ω + h × v, m v - h × ω)`.
pub(crate) fn apply<A: Algebra>(
    cx: &mut Cx<'_, A>,
    i: &Inertia<A::E>,
    m: &Spatial<A::E>,
) -> Spatial<A::E> {
    let jw = cx.mat_vec(&i.j, &m.ang);
    let hv = cx.cross(&i.h, &m.lin);
    let mv = cx.scale(i.m, &m.lin);
    let hw = cx.cross(&i.h, &m.ang);
    Spatial {
        ang: cx.vadd(&jw, &hv),
        lin: cx.vsub(&mv, &hw),
    }
}

pub(crate) fn inertia_add<A: Algebra>(
    cx: &mut Cx<'_, A>,
    a: &Inertia<A::E>,
    b: &Inertia<A::E>,
) -> Inertia<A::E> {
    let j = sym_add(cx, &a.j, &b.j);
    Inertia {
        m: cx.add(a.m, b.m),
        h: cx.vadd(&a.h, &b.h),
        j,
    }
}

/// The rate of the inertia `i` of a body moving with `(ω, v)`: mass rate zero,
/// `ḣ = ω × h + m v`, `J̇ = [ω]× J - J [ω]× + 2 (h · v) 1 - v hᵀ - h vᵀ` (every point `r`
/// of the body moves with `v + ω × r`).
pub(crate) fn inertia_rate<A: Algebra>(
    cx: &mut Cx<'_, A>,
    i: &Inertia<A::E>,
    m: &Spatial<A::E>,
) -> Inertia<A::E> {
    let (w, v) = (&m.ang, &m.lin);
    let wh = cx.cross(w, &i.h);
    let mv = cx.scale(i.m, v);
    let h = cx.vadd(&wh, &mv);
    // Column c of [ω]× J is ω × (column c of J).
    let mut wj = [[S::K(0.0); 3]; 3];
    for col in 0..3 {
        let column = [i.j[0][col], i.j[1][col], i.j[2][col]];
        let x = cx.cross(w, &column);
        for r in 0..3 {
            wj[r][col] = x[r];
        }
    }
    let hv = cx.dot(&i.h, v);
    let hv2 = cx.mul(S::K(2.0), hv);
    let mut j = [[S::K(0.0); 3]; 3];
    for r in 0..3 {
        for col in r..3 {
            let mut x = cx.add(wj[r][col], wj[col][r]);
            if r == col {
                x = cx.add(x, hv2);
                let vh = cx.mul(v[r], i.h[r]);
                let vh2 = cx.mul(S::K(2.0), vh);
                x = cx.sub(x, vh2);
            } else {
                let a = cx.mul(v[r], i.h[col]);
                let b = cx.mul(i.h[r], v[col]);
                let s = cx.add(a, b);
                x = cx.sub(x, s);
            }
            j[r][col] = x;
            j[col][r] = x;
        }
    }
    Inertia { m: S::K(0.0), h, j }
}

/// A symmetric 6×6 inertia by blocks: `a` (force per linear acceleration, symmetric), `b`
/// (force per angular acceleration) and `c` (moment per angular acceleration, symmetric).
#[derive(Clone, Copy)]
pub(crate) struct ArticulatedInertia<E> {
    pub(crate) a: Mat3<E>,
    pub(crate) b: Mat3<E>,
    pub(crate) c: Mat3<E>,
}

/// `[v]×` as a matrix.
pub(crate) fn skew<A: Algebra>(cx: &mut Cx<'_, A>, v: &Vec3<A::E>) -> Mat3<A::E> {
    let zero = S::K(0.0);
    let n = [cx.neg(v[0]), cx.neg(v[1]), cx.neg(v[2])];
    [[zero, n[2], v[1]], [v[2], zero, n[0]], [n[1], v[0], zero]]
}

/// `p q` for 3×3 matrices (zeros skipped by the scalar layer).
pub(crate) fn mul3<A: Algebra>(cx: &mut Cx<'_, A>, p: &Mat3<A::E>, q: &Mat3<A::E>) -> Mat3<A::E> {
    cx.mat_mul(p, q).0
}

/// `p qᵀ`, only the upper triangle when `symmetric` (then mirrored).
pub(crate) fn mul3_t<A: Algebra>(
    cx: &mut Cx<'_, A>,
    p: &Mat3<A::E>,
    q: &Mat3<A::E>,
    symmetric: bool,
) -> Mat3<A::E> {
    let mut out = [[S::K(0.0); 3]; 3];
    for r in 0..3 {
        let from = if symmetric { r } else { 0 };
        for c in from..3 {
            out[r][c] = cx.dot(&p[r], &q[c]);
            if symmetric {
                out[c][r] = out[r][c];
            }
        }
    }
    out
}

/// `p + q` (upper triangle mirrored when `symmetric`).
pub(crate) fn add3<A: Algebra>(
    cx: &mut Cx<'_, A>,
    p: &Mat3<A::E>,
    q: &Mat3<A::E>,
    symmetric: bool,
) -> Mat3<A::E> {
    let mut out = *p;
    for r in 0..3 {
        let from = if symmetric { r } else { 0 };
        for c in from..3 {
            out[r][c] = cx.add(p[r][c], q[r][c]);
            if symmetric {
                out[c][r] = out[r][c];
            }
        }
    }
    out
}

/// The articulated inertia `i` of a subsystem about `O_k` (frame `k`) seen about the
/// carrier's pole `O_i = O_k - d` in the carrier's frame (`rot`: frame `k` in frame `i`):
/// rotated, then shifted by `d` with `D = [d]×`: `B' = B - A D`,
/// `C' = C + D B' + (D B')ᵀ + D A D`.
pub(crate) fn articulated_to_carrier<A: Algebra>(
    cx: &mut Cx<'_, A>,
    rot: &Mat3<A::E>,
    d: &Vec3<A::E>,
    i: &ArticulatedInertia<A::E>,
) -> ArticulatedInertia<A::E> {
    let a = rotate_sym(cx, rot, &i.a);
    let b = {
        let rb = mul3(cx, rot, &i.b);
        mul3_t(cx, &rb, rot, false)
    };
    let c = rotate_sym(cx, rot, &i.c);
    if d.iter().all(S::is_zero) {
        return ArticulatedInertia { a, b, c };
    }
    let dm = skew(cx, d);
    let ad = mul3(cx, &a, &dm);
    let b1 = {
        let mut out = b;
        for r in 0..3 {
            for col in 0..3 {
                out[r][col] = cx.sub(b[r][col], ad[r][col]);
            }
        }
        out
    };
    // D A D = (D A)(Dᵀ)ᵀ with Dᵀ = -D: symmetric, so only its upper triangle.
    let da = mul3(cx, &dm, &a);
    let dm_t = transpose(&dm);
    let dad = mul3_t(cx, &da, &dm_t, true);
    let db = mul3(cx, &dm, &b1);
    let mut c1 = c;
    for r in 0..3 {
        for col in r..3 {
            let s = cx.add(db[r][col], db[col][r]);
            let s = cx.add(s, dad[r][col]);
            c1[r][col] = cx.add(c[r][col], s);
            c1[col][r] = c1[r][col];
        }
    }
    ArticulatedInertia { a, b: b1, c: c1 }
}

/// `i x` for a motion `x` (the force and the moment about the pole).
pub(crate) fn apply_articulated<A: Algebra>(
    cx: &mut Cx<'_, A>,
    i: &ArticulatedInertia<A::E>,
    x: &Spatial<A::E>,
) -> Spatial<A::E> {
    let bt = transpose(&i.b);
    let f1 = cx.mat_vec(&i.a, &x.lin);
    let f2 = cx.mat_vec(&i.b, &x.ang);
    let m1 = cx.mat_vec(&bt, &x.lin);
    let m2 = cx.mat_vec(&i.c, &x.ang);
    Spatial {
        lin: cx.vadd(&f1, &f2),
        ang: cx.vadd(&m1, &m2),
    }
}

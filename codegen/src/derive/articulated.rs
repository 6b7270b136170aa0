//! Forward dynamics in `O(N)`: `M x = b` solved by articulated bodies (Featherstone's
//! articulated-body recursion with the velocities and the weight taken out, since `b = τ - h`
//! already holds them), in the method's frames and poles.
//!
//! Why: the factorisation of `M` ([`super::ldlt`]) is cubic in the number of joints, and every
//! entry of `M` is already an expression of its own; from a dozen joints on, the recursion is
//! the shorter code (and generation that scales). Both are built for small robots and the
//! shorter kept.
//!
//! Each subsystem `j` is summarised about its pole `O_j`, in frame `j`, by its articulated
//! inertia `[[A, B], [Bᵀ, C]]` (the linear map from the acceleration of the pole and `ω̇` to the
//! force and the moment about `O_j`): a rigid body of mass `m`, first moment `h` and inertia
//! `J` about its pole is `[[m I, -[h]×], [[h]×, J]]`. Because the pole lies on the joint axis,
//! a hinge's motion subspace is `(0, u)` and a slide's `(u, 0)`, so the projections are dot
//! products with the axis.

use super::dynamics::Statics;
use super::inertia::rotate_sym;
use super::scalar::{k3, transpose, Cx, M3, S, V3};
use crate::algebra::Algebra;
use crate::model::{JointKind, Robot};

/// A symmetric 6×6 inertia by blocks: `a` (force per linear acceleration, symmetric), `b`
/// (force per angular acceleration) and `c` (moment per angular acceleration, symmetric).
#[derive(Clone, Copy)]
struct Inertia6<E> {
    a: M3<E>,
    b: M3<E>,
    c: M3<E>,
}

/// A motion or force 6-vector: linear (force) part, angular (moment) part.
type Six<E> = [V3<E>; 2];

/// `[v]×` as a matrix.
fn skew<A: Algebra>(cx: &mut Cx<'_, A>, v: &V3<A::E>) -> M3<A::E> {
    let zero = S::K(0.0);
    let n = [cx.neg(v[0]), cx.neg(v[1]), cx.neg(v[2])];
    [[zero, n[2], v[1]], [v[2], zero, n[0]], [n[1], v[0], zero]]
}

/// `p q` for 3×3 matrices (zeros skipped by the scalar layer).
fn mul3<A: Algebra>(cx: &mut Cx<'_, A>, p: &M3<A::E>, q: &M3<A::E>) -> M3<A::E> {
    cx.mat_mul(p, q).0
}

/// `p qᵀ`, only the upper triangle when `symmetric` (then mirrored).
fn mul3_t<A: Algebra>(cx: &mut Cx<'_, A>, p: &M3<A::E>, q: &M3<A::E>, symmetric: bool) -> M3<A::E> {
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
fn add3<A: Algebra>(cx: &mut Cx<'_, A>, p: &M3<A::E>, q: &M3<A::E>, symmetric: bool) -> M3<A::E> {
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
fn to_carrier<A: Algebra>(
    cx: &mut Cx<'_, A>,
    rot: &M3<A::E>,
    d: &V3<A::E>,
    i: &Inertia6<A::E>,
) -> Inertia6<A::E> {
    let a = rotate_sym(cx, rot, &i.a);
    let b = {
        let rb = mul3(cx, rot, &i.b);
        mul3_t(cx, &rb, rot, false)
    };
    let c = rotate_sym(cx, rot, &i.c);
    if d.iter().all(S::is_zero) {
        return Inertia6 { a, b, c };
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
    Inertia6 { a, b: b1, c: c1 }
}

/// `i x` for a motion 6-vector `x`.
fn apply<A: Algebra>(cx: &mut Cx<'_, A>, i: &Inertia6<A::E>, x: &Six<A::E>) -> Six<A::E> {
    let bt = transpose(&i.b);
    let f1 = cx.mat_vec(&i.a, &x[0]);
    let f2 = cx.mat_vec(&i.b, &x[1]);
    let m1 = cx.mat_vec(&bt, &x[0]);
    let m2 = cx.mat_vec(&i.c, &x[1]);
    [cx.vadd(&f1, &f2), cx.vadd(&m1, &m2)]
}

/// Solves `M x = b` for the joint-space inertia matrix of `robot` with the parameters and the
/// geometry of `st`, without forming `M`.
pub(crate) fn solve<A: Algebra>(
    cx: &mut Cx<'_, A>,
    robot: &Robot,
    st: &Statics<'_, A::E>,
    b: &[S<A::E>],
) -> Vec<S<A::E>> {
    let n = robot.dof();
    let topo = robot.topology();
    let zero = S::K(0.0);
    let revolute = |j: usize| robot.bodies[j].joint == JointKind::Revolute;
    // Per body, from the leaves: the articulated inertia and bias force after the joint
    // (what the carrier sees), in the carrier's frame about its pole.
    let mut inertia: Vec<Option<Inertia6<A::E>>> = vec![None; n];
    let mut bias: Vec<Six<A::E>> = vec![[[zero; 3]; 2]; n];
    let mut unit: Vec<Six<A::E>> = vec![[[zero; 3]; 2]; n];
    let mut dinv = vec![zero; n];
    let mut rest = vec![zero; n];
    for j in (0..n).rev() {
        let body = &st.par.body[j];
        // B = -[h]× = [h]×ᵀ.
        let hx = skew(cx, &body.h);
        let hx = transpose(&hx);
        let mut ia = Inertia6 {
            a: [
                [body.m, zero, zero],
                [zero, body.m, zero],
                [zero, zero, body.m],
            ],
            b: hx,
            c: body.j,
        };
        let mut pa: Six<A::E> = [[zero; 3]; 2];
        for &k in topo.children(j) {
            let ik = inertia[k].take().expect("children after their carrier");
            ia.a = add3(cx, &ia.a, &ik.a, true);
            ia.b = add3(cx, &ia.b, &ik.b, false);
            ia.c = add3(cx, &ia.c, &ik.c, true);
            pa = [cx.vadd(&pa[0], &bias[k][0]), cx.vadd(&pa[1], &bias[k][1])];
        }
        let u = k3::<A::E>(robot.bodies[j].axis);
        let s: Six<A::E> = if revolute(j) {
            [[zero; 3], u]
        } else {
            [u, [zero; 3]]
        };
        // U = I S, D = Sᵀ U, r = b_j - Sᵀ p.
        let uu = apply(cx, &ia, &s);
        let (d, sp) = if revolute(j) {
            (cx.dot(&u, &uu[1]), cx.dot(&u, &pa[1]))
        } else {
            (cx.dot(&u, &uu[0]), cx.dot(&u, &pa[0]))
        };
        dinv[j] = cx.div(S::K(1.0), d);
        rest[j] = cx.sub(b[j], sp);
        cx.label(dinv[j], || format!("Dinv{}", j + 1));
        unit[j] = uu;
        if topo.parent(j).is_none() {
            continue;
        }
        // Ia = I - U D⁻¹ Uᵀ, pa = p + U D⁻¹ r.
        let w = [cx.scale(dinv[j], &uu[0]), cx.scale(dinv[j], &uu[1])];
        let outer = |cx: &mut Cx<'_, A>, x: &V3<A::E>, y: &V3<A::E>, sym: bool| {
            let mut o = [[zero; 3]; 3];
            for r in 0..3 {
                for c in (if sym { r } else { 0 })..3 {
                    o[r][c] = cx.mul(x[r], y[c]);
                    if sym {
                        o[c][r] = o[r][c];
                    }
                }
            }
            o
        };
        let ua = outer(cx, &w[0], &uu[0], true);
        let ub = outer(cx, &w[0], &uu[1], false);
        let uc = outer(cx, &w[1], &uu[1], true);
        let sub = |cx: &mut Cx<'_, A>, p: &M3<A::E>, q: &M3<A::E>, sym: bool| {
            let mut o = *p;
            for r in 0..3 {
                for c in (if sym { r } else { 0 })..3 {
                    o[r][c] = cx.sub(p[r][c], q[r][c]);
                    if sym {
                        o[c][r] = o[r][c];
                    }
                }
            }
            o
        };
        let art = Inertia6 {
            a: sub(cx, &ia.a, &ua, true),
            b: sub(cx, &ia.b, &ub, false),
            c: sub(cx, &ia.c, &uc, true),
        };
        let pj = [
            {
                let t = cx.scale(rest[j], &w[0]);
                cx.vadd(&pa[0], &t)
            },
            {
                let t = cx.scale(rest[j], &w[1]);
                cx.vadd(&pa[1], &t)
            },
        ];
        // To the carrier: forces rotate, moments also pick up d × f.
        let rot = &st.ori.local[j];
        let d = &st.poles.o[j];
        inertia[j] = Some(to_carrier(cx, rot, d, &art));
        let f = cx.mat_vec(rot, &pj[0]);
        let m1 = cx.mat_vec(rot, &pj[1]);
        let df = cx.cross(d, &f);
        bias[j] = [f, cx.vadd(&m1, &df)];
    }
    // Outwards: the acceleration of each pole (zero velocity, so spatial = classical).
    let mut acc: Vec<Six<A::E>> = vec![[[zero; 3]; 2]; n];
    let mut x = vec![zero; n];
    for j in 0..n {
        let a_in: Six<A::E> = match topo.parent(j) {
            None => [[zero; 3]; 2],
            Some(i) => {
                let rot = &st.ori.local[j];
                let d = &st.poles.o[j];
                let [lin, ang] = acc[i];
                let wd = cx.cross(&ang, d);
                let lin = cx.vadd(&lin, &wd);
                [cx.mat_t_vec(rot, &lin), cx.mat_t_vec(rot, &ang)]
            }
        };
        // x_j = D⁻¹ (r_j - Uᵀ a).
        let ua = {
            let l = cx.dot(&unit[j][0], &a_in[0]);
            let r = cx.dot(&unit[j][1], &a_in[1]);
            cx.add(l, r)
        };
        let r = cx.sub(rest[j], ua);
        x[j] = cx.mul(dinv[j], r);
        let u = k3::<A::E>(robot.bodies[j].axis);
        let su = cx.scale(x[j], &u);
        acc[j] = if revolute(j) {
            [a_in[0], cx.vadd(&a_in[1], &su)]
        } else {
            [cx.vadd(&a_in[0], &su), a_in[1]]
        };
    }
    x
}

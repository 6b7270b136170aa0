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
use super::mass_matrix::with_armature;
use super::scalar::{k3, transpose, Cx, Mat3, Vec3, S};
use super::spatial::{
    add3, apply_articulated, articulated_to_carrier, skew, ArticulatedInertia, Spatial,
};
use crate::algebra::Algebra;
use crate::model::{JointKind, Robot};

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
    let mut inertia: Vec<Option<ArticulatedInertia<A::E>>> = vec![None; n];
    let none = Spatial {
        ang: [zero; 3],
        lin: [zero; 3],
    };
    let mut bias: Vec<Spatial<A::E>> = vec![none; n];
    let mut unit: Vec<Spatial<A::E>> = vec![none; n];
    let mut dinv = vec![zero; n];
    let mut rest = vec![zero; n];
    for j in (0..n).rev() {
        let body = &st.par.body[j];
        // B = -[h]× = [h]×ᵀ.
        let hx = skew(cx, &body.h);
        let hx = transpose(&hx);
        let mut ia = ArticulatedInertia {
            a: [
                [body.m, zero, zero],
                [zero, body.m, zero],
                [zero, zero, body.m],
            ],
            b: hx,
            c: body.j,
        };
        let mut pa = none;
        for &k in topo.children(j) {
            let ik = inertia[k].take().expect("children after their carrier");
            ia.a = add3(cx, &ia.a, &ik.a, true);
            ia.b = add3(cx, &ia.b, &ik.b, false);
            ia.c = add3(cx, &ia.c, &ik.c, true);
            pa = Spatial {
                lin: cx.vadd(&pa.lin, &bias[k].lin),
                ang: cx.vadd(&pa.ang, &bias[k].ang),
            };
        }
        let u = k3::<A::E>(robot.bodies[j].axis);
        let s = if revolute(j) {
            Spatial { ang: u, ..none }
        } else {
            Spatial { lin: u, ..none }
        };
        // U = I S, D = Sᵀ U, r = b_j - Sᵀ p.
        let uu = apply_articulated(cx, &ia, &s);
        let (d, sp) = if revolute(j) {
            (cx.dot(&u, &uu.ang), cx.dot(&u, &pa.ang))
        } else {
            (cx.dot(&u, &uu.lin), cx.dot(&u, &pa.lin))
        };
        // A rotor turning with the joint adds its armature to D alone (not to U).
        let d = with_armature(cx, robot, j, d);
        dinv[j] = cx.div(S::K(1.0), d);
        rest[j] = cx.sub(b[j], sp);
        cx.label(dinv[j], || format!("Dinv{}", j + 1));
        unit[j] = uu;
        if topo.parent(j).is_none() {
            continue;
        }
        // Ia = I - U D⁻¹ Uᵀ, pa = p + U D⁻¹ r.
        let w = Spatial {
            lin: cx.scale(dinv[j], &uu.lin),
            ang: cx.scale(dinv[j], &uu.ang),
        };
        let outer = |cx: &mut Cx<'_, A>, x: &Vec3<A::E>, y: &Vec3<A::E>, sym: bool| {
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
        let ua = outer(cx, &w.lin, &uu.lin, true);
        let ub = outer(cx, &w.lin, &uu.ang, false);
        let uc = outer(cx, &w.ang, &uu.ang, true);
        let sub = |cx: &mut Cx<'_, A>, p: &Mat3<A::E>, q: &Mat3<A::E>, sym: bool| {
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
        let art = ArticulatedInertia {
            a: sub(cx, &ia.a, &ua, true),
            b: sub(cx, &ia.b, &ub, false),
            c: sub(cx, &ia.c, &uc, true),
        };
        let pj = Spatial {
            lin: {
                let t = cx.scale(rest[j], &w.lin);
                cx.vadd(&pa.lin, &t)
            },
            ang: {
                let t = cx.scale(rest[j], &w.ang);
                cx.vadd(&pa.ang, &t)
            },
        };
        // To the carrier: forces rotate, moments also pick up d × f.
        let rot = &st.ori.local[j];
        let d = &st.poles.o[j];
        inertia[j] = Some(articulated_to_carrier(cx, rot, d, &art));
        let f = cx.mat_vec(rot, &pj.lin);
        let m1 = cx.mat_vec(rot, &pj.ang);
        let df = cx.cross(d, &f);
        bias[j] = Spatial {
            lin: f,
            ang: cx.vadd(&m1, &df),
        };
    }
    // Outwards: the acceleration of each pole (zero velocity, so spatial = classical).
    let mut acc: Vec<Spatial<A::E>> = vec![none; n];
    let mut x = vec![zero; n];
    for j in 0..n {
        let a_in = match topo.parent(j) {
            None => none,
            Some(i) => {
                let rot = &st.ori.local[j];
                let d = &st.poles.o[j];
                let Spatial { ang, lin } = acc[i];
                let wd = cx.cross(&ang, d);
                let lin = cx.vadd(&lin, &wd);
                Spatial {
                    lin: cx.mat_t_vec(rot, &lin),
                    ang: cx.mat_t_vec(rot, &ang),
                }
            }
        };
        // x_j = D⁻¹ (r_j - Uᵀ a).
        let ua = {
            let l = cx.dot(&unit[j].lin, &a_in.lin);
            let r = cx.dot(&unit[j].ang, &a_in.ang);
            cx.add(l, r)
        };
        let r = cx.sub(rest[j], ua);
        x[j] = cx.mul(dinv[j], r);
        let u = k3::<A::E>(robot.bodies[j].axis);
        let su = cx.scale(x[j], &u);
        acc[j] = if revolute(j) {
            Spatial {
                lin: a_in.lin,
                ang: cx.vadd(&a_in.ang, &su),
            }
        } else {
            Spatial {
                lin: cx.vadd(&a_in.lin, &su),
                ang: a_in.ang,
            }
        };
    }
    x
}

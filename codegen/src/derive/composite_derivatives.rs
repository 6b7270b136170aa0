//! Derivatives of the inverse dynamics by composite quantities in the base frame: `O(N)` vector
//! work per body and a few 6-vector dot products per pair of joints, where differentiating the
//! recursion on the graph costs about a hundred operations per pair.
//!
//! Quantities are spatial vectors about one point, in one frame ([`SpatialFrame`]: the base's,
//! or body 0's about its pole): a motion `(ω, v)` (`v` the velocity of the body point at the
//! reference point), a force `(n, f)` (`n` the moment about that point); a spatial inertia is
//! a mass `m`, a first moment `h` and an inertia `J` about the point,
//! `I (ω, v) = (J ω + h × v, m v - h × ω)`. Joint `k` has the axis `S_k`
//! (`(u, p_k × u)` for a hinge through the pole `p_k`, `(0, u)` for a slide), body `k` the
//! velocity `v_k = v_λ + S_k q̇_k`, the acceleration `a_k = a_λ + S_k q̈_k + v_λ × S_k q̇_k`
//! (the base's is `-g`, plus a prescribed base's own motion), the momentum `h_k = I_k v_k`
//! and the force `f_k = I_k a_k + v_k ×* h_k`; `τ_i = S_i · F_i` with `F_i` the sum of `f_k` over the
//! subsystem `i` (superscript `c`: such sums).
//!
//! Turning joint `j` turns its subsystem rigidly, axes, inertias and the velocity each body has
//! relative to `λ(j)`, and `τ_i` is invariant under a rigid turn of everything it reads. What
//! is not turned is `λ(j)`'s motion: with `u_j = S_j × v_λ(j)` and
//! `c_j = S_j × a_λ(j) - u_j × v_λ(j)`, `∂v_k/∂q_j` differs from a rigid turn by `-u_j` and
//! `∂a_k/∂q_j` by `-c_j - u_j × v_k`. With `İ_k = v_k ×* I_k - I_k v_k ×` (the inertia's rate,
//! again a spatial inertia, of mass rate zero):
//!
//! - `j ⪯ i` (`j` carries `i` or is `i`): `∂τ_i/∂q_j = -F_i · c_j - G_i · u_j` and
//!   `∂τ_i/∂q̇_j = -2 F_i · u_j + G_i · S_j`, with `F_i = I^c_i S_i` and
//!   `G_i · x = S_i · (İ^c_i x + x ×* h^c_i)`;
//! - `i ≺ j`: `∂τ_i/∂q_j = S_i · (S_j ×* F^c_j - I^c_j c_j - İ^c_j u_j - u_j ×* h^c_j)` and
//!   `∂τ_i/∂q̇_j = S_i · (-2 I^c_j u_j + İ^c_j S_j + S_j ×* h^c_j)`;
//! - otherwise zero.
//!
//! A floating base's six coordinates come first, as directions that carry every body
//! ([`spatial_derivatives`]). The gravity forces' derivatives are the same at rest (`v = 0`,
//! `a_k = -g`). The inertial
//! parameters are the regrouped ones where the dynamics use them (same joint forces, fewer
//! nonzeros).

use super::kinematics::Poles;
use super::kinematics::{base_poles, poles};
use super::orientation::orientation;
use super::orientation::Orientation;
use super::params::{params, regroup, Params};
use super::scalar::{k3, k33, zero3, Cx, Mat3, Vec3, S};
use super::spatial::{
    add, apply, force_cross, force_from_frame, inertia_add, inertia_from_frame, inertia_rate,
    motion_cross, motion_to_frame, pair, scaled, sub, Inertia, Spatial,
};
use crate::algebra::Algebra;
use crate::ir::BaseVar;
use crate::mat3::IDENTITY;
use crate::model::{BaseMotion, JointKind, ParameterSet, Robot};

/// `∂τ/∂q`, `∂τ/∂q̇` and `∂g/∂q`, row-major `N×N` (`[i*n + j] = ∂ τ_i / ∂ q_j`).
pub struct SpatialDerivatives<E> {
    /// `∂τ/∂q` of the inverse dynamics.
    pub dtau_dq: Vec<E>,
    /// `∂τ/∂q̇` of the inverse dynamics.
    pub dtau_dqd: Vec<E>,
    /// `∂g/∂q` of the gravity forces.
    pub dg_dq: Vec<E>,
}

/// The frame the spatial quantities are written in. Which gives the shorter code depends on
/// the robot: body 0's makes its axis and the turns near it constants and starts the lever
/// arms at its pole, while the gravity then turns with `q_0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpatialFrame {
    /// The base frame, about its origin.
    Base,
    /// Each root body's frame, about its pole, for the bodies it carries (body 0's on a chain):
    /// the subtrees of two roots share no derivative with respect to the joints; a moving
    /// base's motion is seen from each root, and a floating base's rows and columns see its
    /// directions turned into each root's frame and its totals turned back.
    FirstBody,
}

/// The derivatives of `robot` (no elasticity, physical parameters) written in `frame`, or
/// `None` where this form does not apply. A prescribed base's derivatives are with respect to
/// the joints, its motion held: the base frame then moves, its velocity and acceleration those
/// of the root bodies' carrier. A floating base's are `NV × NV` along the tangent of its pose
/// (its displacement in its own frame, linear then angular, then the joints): its six
/// directions carry every body, turn everything but gravity (`u = 0`, `c = S × a_world`), and
/// leave its own acceleration alone when its velocity changes, so
/// `∂τ_i/∂v_j = -F_i · w_j + G_i · S_j` with `w_j = S_j × v_base`.
pub fn spatial_derivatives<A: Algebra>(
    alg: &mut A,
    robot: &Robot,
    use_regrouped: bool,
    frame: SpatialFrame,
) -> Option<SpatialDerivatives<A::E>> {
    let fixed = robot.motion == BaseMotion::Fixed;
    let floating = robot.is_floating();
    if robot.has_elasticity() || robot.parameters == ParameterSet::Base {
        return None;
    }
    let robot = &super::prepare(robot);
    let n = robot.dof();
    let topo = robot.topology();
    let mut cx = Cx::new(alg);
    let cx = &mut cx;
    let physical = params(cx, robot);
    let ori = orientation(cx, robot);
    let poles = poles(cx, robot);
    // A prescribed base's dynamics use the physical parameters, as the recursion does.
    let par: Params<A::E> = if use_regrouped && fixed {
        regroup(cx, robot, &physical, &poles)
    } else {
        physical
    };
    let in_first = frame == SpatialFrame::FirstBody;
    let Placements(rot, pole) = reference_frames(cx, robot, &ori, &poles, in_first);
    let zero = Spatial {
        ang: zero3(),
        lin: zero3(),
    };
    // The base's motion: at rest for a fixed base. A prescribed base's is seen from the
    // inertial frame moving with its origin's velocity at this instant (forces do not change
    // under that constant boost): angular velocity and acceleration as given (zero for a
    // base that only translates), the origin at rest, and its acceleration the classical one
    // the recursion reads; gravity `Rᵀ g` from its pose.
    let (gravity, base_vel, base_acc) = if floating {
        // A floating base is seen from the inertial frame that coincides with its own at
        // this instant (no boost: turning the base turns its velocity with it): its twist
        // `(ω, v)` and Pinocchio's spatial acceleration, gravity `Rᵀ g`.
        let rot = super::moving_base::base_rotation(cx);
        let g = cx.mat_t_vec(&rot, &k3(robot.gravity));
        let down = cx.vsub(&zero3(), &g);
        let v = super::moving_base::base3(cx, BaseVar::Vel);
        let w = super::moving_base::base3(cx, |k| BaseVar::Vel(k + 3));
        let a = super::moving_base::base3(cx, BaseVar::Acc);
        let wd = super::moving_base::base3(cx, |k| BaseVar::Acc(k + 3));
        let gravity = Spatial {
            ang: zero3(),
            lin: down,
        };
        let acc = Spatial {
            ang: wd,
            lin: cx.vsub(&a, &g),
        };
        (gravity, Spatial { ang: w, lin: v }, acc)
    } else if fixed {
        let gravity = Spatial {
            ang: zero3(),
            lin: k3(robot.gravity.map(|g| -g)),
        };
        (gravity, zero, gravity)
    } else {
        let [moving, _] = super::moving_base::prescribed_motion(cx, robot);
        let down = cx.vsub(&zero3(), &moving.g);
        let vel = Spatial {
            ang: moving.w,
            lin: zero3(),
        };
        let acc = Spatial {
            ang: moving.wd,
            lin: cx.vsub(&moving.a, &moving.g),
        };
        (
            Spatial {
                ang: zero3(),
                lin: down,
            },
            vel,
            acc,
        )
    };

    // Each body's reference frame is its root's with `in_first`: the base's motion and
    // gravity are seen from there (turned into the root's axes, about its pole).
    let root_of: Vec<usize> = (0..n)
        .map(|k| {
            let mut root = k;
            while let Some(p) = topo.parent(root) {
                root = p;
            }
            root
        })
        .collect();
    // Every body's placement in the base frame, read at the roots.
    let roots: Option<Placements<A::E>> = in_first.then(|| {
        let at = base_poles(cx, robot, &ori, &poles);
        Placements(ori.abs.clone(), at)
    });
    let seen = |cx: &mut Cx<'_, A>, m: &Spatial<A::E>, k: usize| match &roots {
        Some(Placements(r, p)) => motion_to_frame(cx, m, &r[root_of[k]], &p[root_of[k]]),
        None => *m,
    };
    let gravity_of: Vec<Spatial<A::E>> = (0..n).map(|k| seen(cx, &gravity, k)).collect();
    let base_vel_of: Vec<Spatial<A::E>> = (0..n).map(|k| seen(cx, &base_vel, k)).collect();
    let base_acc_of: Vec<Spatial<A::E>> = (0..n).map(|k| seen(cx, &base_acc, k)).collect();

    // Outwards: axes, motion, the terms of the turned parent's motion, inertias.
    let mut axis = Vec::with_capacity(n);
    let mut vel: Vec<Spatial<A::E>> = Vec::with_capacity(n);
    let mut acc: Vec<Spatial<A::E>> = Vec::with_capacity(n);
    let mut u = Vec::with_capacity(n);
    let mut c = Vec::with_capacity(n);
    let mut c_rest = Vec::with_capacity(n);
    let mut inertia = Vec::with_capacity(n);
    let mut rate = Vec::with_capacity(n);
    let mut momentum = Vec::with_capacity(n);
    let mut force = Vec::with_capacity(n);
    let mut force_rest = Vec::with_capacity(n);
    for k in 0..n {
        let parent = topo.parent(k);
        let (r, p) = (&rot[k], pole[k]);
        let dir = cx.mat_vec(r, &k3(robot.bodies[k].axis));
        let s = match robot.bodies[k].joint {
            JointKind::Revolute => Spatial {
                ang: dir,
                lin: cx.cross(&p, &dir),
            },
            JointKind::Prismatic => Spatial {
                ang: zero3(),
                lin: dir,
            },
        };
        let (v_parent, a_parent) =
            parent.map_or((base_vel_of[k], base_acc_of[k]), |i| (vel[i], acc[i]));
        let uk = motion_cross(cx, &s, &v_parent);
        let qd = S::X(cx.alg.qd(k));
        let qdd = S::X(cx.alg.qdd(k));
        let sqd = scaled(cx, qd, &s);
        let vk = add(cx, &v_parent, &sqd);
        let sqdd = scaled(cx, qdd, &s);
        let uqd = scaled(cx, qd, &uk);
        let ak = add(cx, &a_parent, &sqdd);
        let ak = sub(cx, &ak, &uqd);
        let sa = motion_cross(cx, &s, &a_parent);
        let uv = motion_cross(cx, &uk, &v_parent);
        let ck = sub(cx, &sa, &uv);
        c_rest.push(motion_cross(cx, &s, &gravity_of[k]));

        let body = &par.body[k];
        let own = Inertia {
            m: body.m,
            h: body.h,
            j: body.j,
        };
        let ik = inertia_from_frame(cx, &own, r, &p);
        let hk = apply(cx, &ik, &vk);
        let ia = apply(cx, &ik, &ak);
        let vh = force_cross(cx, &vk, &hk);
        force.push(add(cx, &ia, &vh));
        force_rest.push(apply(cx, &ik, &gravity_of[k]));
        rate.push(inertia_rate(cx, &ik, &vk));
        momentum.push(hk);
        inertia.push(ik);
        axis.push(s);
        vel.push(vk);
        acc.push(ak);
        u.push(uk);
        c.push(ck);
    }

    // Inwards: sums over each subsystem.
    for k in (0..n).rev() {
        if let Some(i) = topo.parent(k) {
            inertia[i] = inertia_add(cx, &inertia[i], &inertia[k]);
            rate[i] = inertia_add(cx, &rate[i], &rate[k]);
            momentum[i] = add(cx, &momentum[i], &momentum[k]);
            force[i] = add(cx, &force[i], &force[k]);
            force_rest[i] = add(cx, &force_rest[i], &force_rest[k]);
        }
    }

    // Per joint: F_i, the rows G_i (as the force whose product with x is G_i · x), and the
    // columns for the joints a joint carries.
    let mut f_axis = Vec::with_capacity(n);
    let mut g_row = Vec::with_capacity(n);
    let mut dq_col = Vec::with_capacity(n);
    let mut dqd_col = Vec::with_capacity(n);
    let mut dg_col = Vec::with_capacity(n);
    for k in 0..n {
        let s = axis[k];
        f_axis.push(apply(cx, &inertia[k], &s));
        // G_k · x = S_k · (İ^c_k x + x ×* h^c_k) = (İ^c_k S_k - S_k ×* h^c_k) · x (the rate
        // is symmetric, and S · (x ×* h) = -x · (S ×* h)); both terms recur in the column below.
        let rate_axis = apply(cx, &rate[k], &s);
        let turned_momentum = force_cross(cx, &s, &momentum[k]);
        g_row.push(sub(cx, &rate_axis, &turned_momentum));
        // A root joint's column is read by the rows of the joints carrying it: a floating
        // base's six only.
        if topo.parent(k).is_none() && !floating {
            dq_col.push(zero);
            dqd_col.push(zero);
            dg_col.push(zero);
            continue;
        }
        // S_j ×* F^c_j - I^c_j c_j - (İ^c_j u_j + u_j ×* h^c_j)
        let turned = force_cross(cx, &s, &force[k]);
        let ic = apply(cx, &inertia[k], &c[k]);
        let iu = apply(cx, &rate[k], &u[k]);
        let uh = force_cross(cx, &u[k], &momentum[k]);
        let col = sub(cx, &turned, &ic);
        let col = sub(cx, &col, &iu);
        dq_col.push(sub(cx, &col, &uh));
        // -2 I^c_j u_j + İ^c_j S_j + S_j ×* h^c_j
        let iu2 = apply(cx, &inertia[k], &u[k]);
        let iu2 = scaled(cx, S::K(-2.0), &iu2);
        let col = add(cx, &iu2, &rate_axis);
        dqd_col.push(add(cx, &col, &turned_momentum));
        // At rest: S_j ×* F^c_j - I^c_j c_j.
        let turned = force_cross(cx, &s, &force_rest[k]);
        let ic = apply(cx, &inertia[k], &c_rest[k]);
        dg_col.push(sub(cx, &turned, &ic));
    }

    // A floating base's six coordinates come first (Pinocchio's tangent: the base's
    // displacement in its own frame, linear then angular), its body's own quantities and the
    // sums over everything for its rows.
    let nb = if floating { 6 } else { 0 };
    let size = nb + n;
    let mut dtau_dq = vec![S::K(0.0); size * size];
    let mut dtau_dqd = vec![S::K(0.0); size * size];
    let mut dg_dq = vec![S::K(0.0); size * size];
    for i in 0..n {
        let row = (nb + i) * size + nb;
        for j in topo.path(i) {
            // -F_i · c_j - G_i · u_j, -2 F_i · u_j + G_i · S_j, -F_i · c_j at rest.
            let fc = pair(cx, &c[j], &f_axis[i]);
            let gu = pair(cx, &u[j], &g_row[i]);
            let sum = cx.add(fc, gu);
            dtau_dq[row + j] = cx.neg(sum);
            let fu = pair(cx, &u[j], &f_axis[i]);
            let fu2 = cx.mul(S::K(-2.0), fu);
            let gs = pair(cx, &axis[j], &g_row[i]);
            dtau_dqd[row + j] = cx.add(fu2, gs);
            let fg = pair(cx, &c_rest[j], &f_axis[i]);
            dg_dq[row + j] = cx.neg(fg);
        }
        for j in topo.subtree(i).into_iter().skip(1) {
            dtau_dq[row + j] = pair(cx, &axis[i], &dq_col[j]);
            dtau_dqd[row + j] = pair(cx, &axis[i], &dqd_col[j]);
            dg_dq[row + j] = pair(cx, &axis[i], &dg_col[j]);
        }
    }
    if floating {
        let body = robot
            .base_body
            .as_ref()
            .expect("a floating base has its inertia (checked by the spec)");
        let bp = super::params::base_body_params(cx, body);
        let ib = Inertia {
            m: bp.m,
            h: bp.h,
            j: bp.j,
        };
        // The whole robot's inertia, its rate and momentum in the base frame: the base
        // body's, then what every root carries (turned back from the root's frame). (No total
        // force: against the base's own columns its rows are `-F_i · c_j`, as a joint's against
        // a coordinate carrying it, since turning the axis and the force together leaves
        // their product as it is.)
        let mut all_rate = inertia_rate(cx, &ib, &base_vel);
        let mut all_momentum = apply(cx, &ib, &base_vel);
        let mut all_inertia = ib;
        for k in (0..n).filter(|&k| topo.parent(k).is_none()) {
            let (i, d, h) = match &roots {
                Some(Placements(r, p)) => (
                    inertia_from_frame(cx, &inertia[k], &r[k], &p[k]),
                    inertia_from_frame(cx, &rate[k], &r[k], &p[k]),
                    force_from_frame(cx, &momentum[k], &r[k], &p[k]),
                ),
                None => (inertia[k], rate[k], momentum[k]),
            };
            all_inertia = inertia_add(cx, &all_inertia, &i);
            all_rate = inertia_add(cx, &all_rate, &d);
            all_momentum = add(cx, &all_momentum, &h);
        }
        // The base's directions: along its axes, then about them through its origin.
        let unit = |k: usize| {
            let mut e = zero3();
            e[k % 3] = S::K(1.0);
            if k < 3 {
                Spatial {
                    ang: zero3(),
                    lin: e,
                }
            } else {
                Spatial {
                    ang: e,
                    lin: zero3(),
                }
            }
        };
        // Moving the base turns everything with it but gravity (`u = 0`, `c = S × a_world`,
        // the same at rest); its rates leave its own acceleration alone, so a body's
        // acceleration changes by `S × v_k - S × v_base` (`w` below) where a joint's changes
        // by `S × v_k - 2 u`. Each as seen in the base frame and in each root's.
        let base_axis: Vec<Spatial<A::E>> = (0..6).map(unit).collect();
        let directions = |cx: &mut Cx<'_, A>, k: Option<usize>| -> [Vec<Spatial<A::E>>; 3] {
            let (axis, gravity, vel) = match k {
                Some(k) => (
                    base_axis.iter().map(|s| seen(cx, s, k)).collect(),
                    gravity_of[k],
                    base_vel_of[k],
                ),
                None => (base_axis.clone(), gravity, base_vel),
            };
            let c = axis.iter().map(|s| motion_cross(cx, s, &gravity)).collect();
            let w = axis.iter().map(|s| motion_cross(cx, s, &vel)).collect();
            [axis, c, w]
        };
        let in_base = directions(cx, None);
        let in_root: Vec<[Vec<Spatial<A::E>>; 3]> = (0..n)
            .map(|k| {
                if root_of[k] == k {
                    directions(cx, Some(k))
                } else {
                    [Vec::new(), Vec::new(), Vec::new()]
                }
            })
            .collect();
        let seen_from = |k: usize| {
            if in_first {
                &in_root[root_of[k]]
            } else {
                &in_base
            }
        };
        let base_f: Vec<Spatial<A::E>> = base_axis
            .iter()
            .map(|s| apply(cx, &all_inertia, s))
            .collect();
        let base_g: Vec<Spatial<A::E>> = base_axis
            .iter()
            .map(|s| {
                let rate_axis = apply(cx, &all_rate, s);
                let turned = force_cross(cx, s, &all_momentum);
                sub(cx, &rate_axis, &turned)
            })
            .collect();
        // Rows (the base's or a joint's, with its F and G, and the base's directions seen
        // from its frame) against the base's columns.
        let rows = (0..6)
            .map(|i| (i, base_f[i], base_g[i], &in_base))
            .chain((0..n).map(|i| (nb + i, f_axis[i], g_row[i], seen_from(i))));
        for (row, f, gr, [axis, c, w]) in rows {
            for j in 0..6 {
                let fc = pair(cx, &c[j], &f);
                dtau_dq[row * size + j] = cx.neg(fc);
                dg_dq[row * size + j] = cx.neg(fc);
                let fw = pair(cx, &w[j], &f);
                let gs = pair(cx, &axis[j], &gr);
                dtau_dqd[row * size + j] = cx.sub(gs, fw);
            }
        }
        // The base's rows against the joints' columns: the columns' components along the
        // base's directions.
        for j in 0..n {
            let [axis, _, _] = seen_from(j);
            for (i, s) in axis.iter().enumerate() {
                let at = i * size + nb + j;
                dtau_dq[at] = pair(cx, s, &dq_col[j]);
                dtau_dqd[at] = pair(cx, s, &dqd_col[j]);
                dg_dq[at] = pair(cx, s, &dg_col[j]);
            }
        }
    }
    let mut out = |v: &[S<A::E>]| -> Vec<A::E> { v.iter().map(|&s| cx.e(s)).collect() };
    Some(SpatialDerivatives {
        dtau_dq: out(&dtau_dq),
        dtau_dqd: out(&dtau_dqd),
        dg_dq: out(&dg_dq),
    })
}

/// Each body's axes (`.0`) and pole (`.1`) in the frame the derivatives are written in.
struct Placements<E>(Vec<Mat3<E>>, Vec<Vec3<E>>);

/// Each body's axes and pole in its root body's frame about that root's pole (`in_first`),
/// else in the base frame.
fn reference_frames<A: Algebra>(
    cx: &mut Cx<'_, A>,
    robot: &Robot,
    ori: &Orientation<A::E>,
    poles: &Poles<A::E>,
    in_first: bool,
) -> Placements<A::E> {
    let n = robot.dof();
    let topo = robot.topology();
    if !in_first {
        return Placements(ori.abs.clone(), base_poles(cx, robot, ori, poles));
    }
    let mut rot: Vec<Mat3<A::E>> = Vec::with_capacity(n);
    let mut pole: Vec<Vec3<A::E>> = Vec::with_capacity(n);
    for k in 0..n {
        let (r, p) = match topo.parent(k) {
            None => (k33(IDENTITY), zero3()),
            Some(i) => {
                let r = cx.mat_mul(&rot[i], &ori.local[k]).0;
                let o = cx.mat_vec(&rot[i], &poles.o[k]);
                (r, cx.vadd(&pole[i], &o))
            }
        };
        rot.push(r);
        pole.push(p);
    }
    Placements(rot, pole)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::derive::derive_with;
    use crate::ir::{Env, Graph, Var};
    use crate::load_input;
    use crate::workspace_files::{workspace_file, workspace_text};

    /// The spatial derivatives against the graph's exact derivatives of the same robot's
    /// inverse dynamics and gravity forces, at a few states.
    fn matches_graph_derivatives(path: &str, tip: Option<&str>) {
        let Some(file) = workspace_file(path) else {
            return;
        };
        let robot = load_input(&file, tip).expect("valid input");
        matches_graph_derivatives_of(&robot, path);
    }

    fn matches_graph_derivatives_of(robot: &Robot, path: &str) {
        let n = robot.dof();
        let mut g = Graph::new();
        let d = derive_with(&mut g, robot, true);
        let spatial = spatial_derivatives(&mut g, robot, true, SpatialFrame::Base)
            .expect("a fixed or prescribed base");
        let physical = spatial_derivatives(&mut g, robot, false, SpatialFrame::Base)
            .expect("a fixed or prescribed base");
        // The root bodies' frames (body 0's on a chain; each leg's or finger's first body on
        // the quadrupeds and the hand).
        let first =
            spatial_derivatives(&mut g, robot, true, SpatialFrame::FirstBody).expect("every base");
        let joint = |j: usize| u16::try_from(j).expect("few joints");
        let column = |g: &mut Graph, f: &[_], v: Var| g.diff_many(f, v);
        let mut dq = Vec::new();
        let mut dqd = Vec::new();
        let mut dg = Vec::new();
        for j in 0..n {
            dq.push(column(&mut g, &d.inverse_dynamics, Var::Q(joint(j))));
            dqd.push(column(&mut g, &d.inverse_dynamics, Var::Qd(joint(j))));
            dg.push(column(&mut g, &d.gravity, Var::Q(joint(j))));
        }
        for seed in 0..4 {
            let x = |k: usize| ((seed * 7 + k * 13) as f64 * 0.731).sin() * 1.7;
            // A base pose (a quaternion of any length: the functions normalise it), and
            // its velocity and acceleration.
            let base: Vec<f64> = (0..19).map(|k| x(k + 97)).collect();
            let env = Env {
                q: (0..n).map(x).collect(),
                qd: (0..n).map(|k| x(k + 31)).collect(),
                qdd: (0..n).map(|k| x(k + 67)).collect(),
                base,
                ..Env::default()
            };
            for (mine, exact) in [
                (&spatial.dtau_dq, &dq),
                (&spatial.dtau_dqd, &dqd),
                (&spatial.dg_dq, &dg),
                (&physical.dtau_dq, &dq),
                (&physical.dtau_dqd, &dqd),
                (&physical.dg_dq, &dg),
            ]
            .into_iter()
            .chain([
                (&first.dtau_dq, &dq),
                (&first.dtau_dqd, &dqd),
                (&first.dg_dq, &dg),
            ]) {
                let scale = 1.0
                    + exact
                        .iter()
                        .flatten()
                        .map(|&e| g.eval(e, &env).abs())
                        .fold(0.0, f64::max);
                for i in 0..n {
                    for j in 0..n {
                        let a = g.eval(mine[i * n + j], &env);
                        let b = g.eval(exact[j][i], &env);
                        assert!(
                            (a - b).abs() <= 1e-9 * scale,
                            "{path} ({i}, {j}): {a} against {b}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn match_the_graph_derivatives_on_chains_trees_and_slides() {
        for path in [
            "robots/ur5.toml",
            "robots/planar3r.toml",
            "robots/stanford.toml",
            "robots/cylindrical6.toml",
            "robots/cartesian6.toml",
            "robots/hand.toml",
            "robots/quadruped_fixed.toml",
            "robots/synthetic_tree.toml",
        ] {
            matches_graph_derivatives(path, None);
        }
        matches_graph_derivatives("tests/fixtures/urdf/panda.urdf", Some("panda_hand_tcp"));
        matches_graph_derivatives("tests/fixtures/urdf/xarm7.urdf", None);
    }

    #[test]
    fn match_the_graph_derivatives_with_a_prescribed_base() {
        for path in [
            "tests/fixtures/floating/floater.toml",
            "robots/quadruped_floating.toml",
        ] {
            let Some(file) = workspace_file(path) else {
                return;
            };
            let floating = load_input(&file, None).expect("valid input");
            for motion in [BaseMotion::Prescribed, BaseMotion::Translating] {
                let robot = Robot {
                    motion,
                    ..floating.clone()
                };
                matches_graph_derivatives_of(&robot, path);
            }
        }
    }

    /// A floating base's derivatives along the tangent of its pose against the graph's
    /// (forward mode through the quaternion, [`Coordinates::floating`]).
    #[test]
    fn match_the_graph_derivatives_with_a_floating_base() {
        use crate::derive::{derivatives, Coordinates};
        let Some(text) = workspace_text("tests/fixtures/floating/floater.toml") else {
            return;
        };
        let load = |path: &str| {
            let file = workspace_file(path).expect("in the repository");
            load_input(&file, None).expect("valid input")
        };
        // The floater again with every inertial parameter symbolic, the base's included.
        let symbolic = text.replacen(
            "gravity =",
            "symbolic = [\"mass\", \"com\", \"inertia\"]\ngravity =",
            1,
        );
        let symbolic = crate::parse_spec(&symbolic, "floater.toml").expect("valid spec");
        for (path, robot) in [
            (
                "tests/fixtures/floating/floater.toml",
                load("tests/fixtures/floating/floater.toml"),
            ),
            ("floater, symbolic", symbolic),
            (
                "robots/quadruped_floating.toml",
                load("robots/quadruped_floating.toml"),
            ),
            (
                "tests/fixtures/floating/humanoid30.toml",
                load("tests/fixtures/floating/humanoid30.toml"),
            ),
        ] {
            let nv = robot.dof() + 6;
            let mut g = Graph::new();
            let d = derive_with(&mut g, &robot, true);
            let parent: Vec<Option<usize>> = robot.bodies.iter().map(|b| b.parent).collect();
            let coordinates = Coordinates::floating(&mut g, &parent);
            let exact = derivatives(
                &mut g,
                &coordinates,
                &d.inverse_dynamics,
                &d.gravity,
                &d.nonlinear_effects,
                &d.mass_matrix,
                None,
            );
            // The base's frame, and each root body's for what that root carries.
            let forms: Vec<SpatialDerivatives<_>> = [SpatialFrame::Base, SpatialFrame::FirstBody]
                .into_iter()
                .map(|frame| {
                    spatial_derivatives(&mut g, &robot, true, frame).expect("a floating base")
                })
                .collect();
            // Only the symbolic variant has parameters as inputs.
            let symbolic = path.ends_with("symbolic");
            assert_eq!(!g.params().is_empty(), symbolic, "{path}");
            for seed in 0..3 {
                let x = |k: usize| ((seed * 7 + k * 13) as f64 * 0.731).sin() * 1.7;
                let env = Env {
                    q: (0..robot.dof()).map(x).collect(),
                    qd: (0..robot.dof()).map(|k| x(k + 31)).collect(),
                    qdd: (0..robot.dof()).map(|k| x(k + 67)).collect(),
                    base: (0..19).map(|k| x(k + 97)).collect(),
                    ..Env::default()
                };
                for (name, a, b) in forms.iter().flat_map(|mine| {
                    [
                        ("dtau_dq", &mine.dtau_dq, &exact.dtau_dq),
                        ("dtau_dqd", &mine.dtau_dqd, &exact.dtau_dqd),
                        ("dg_dq", &mine.dg_dq, &exact.dg_dq),
                    ]
                }) {
                    assert_eq!(a.len(), nv * nv);
                    let scale = 1.0 + b.iter().map(|&e| g.eval(e, &env).abs()).fold(0.0, f64::max);
                    for (k, (&p, &q)) in a.iter().zip(b.iter()).enumerate() {
                        let (p, q) = (g.eval(p, &env), g.eval(q, &env));
                        assert!(
                            (p - q).abs() <= 1e-9 * scale,
                            "{path} {name} ({}, {}): {p} against {q}",
                            k / nv,
                            k % nv
                        );
                    }
                }
            }
        }
    }
}

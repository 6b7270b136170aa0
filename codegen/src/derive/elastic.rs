//! Elastic joints and flexible links: first-order kinematics (seed 002, Ghukasyan), static
//! deflection.
//!
//! The positions are expanded to first order about the rigid configuration (seed 002 (1.11)):
//! `tool = f(q) + f1*(q, beta) + f2*(q, w)`, with `f1* = F2 beta` and `f2* = F4 w` linear in the
//! small quantities. Here `f` is the rigid tool pose, so:
//!
//! - an elastic joint `j` turns (or slides) by `q_j + beta_j`: `d tool / d beta_j` is the
//!   derivative of the rigid tool pose with respect to `q_j`, the tool Jacobian's column `j`
//!   (point and small rotation);
//! - mode `k` of direction `n` of the flexible link `i` moves the link's end `E_i` by
//!   `w phi_k(L_i) n = w n` and turns the end frame, with everything it carries, by
//!   `w phi_k'(L_i) (e_i × n)`: the column of `F4` is `(R_i n + theta × (p - E_i), theta)`,
//!   `theta = phi_k'(L_i) R_i (e_i × n)` (see [`crate::beam`]).
//!
//! The velocity and acceleration are the time derivatives of these expressions, taken
//! symbolically on the graph (the chain rule over `q`, `beta`, `w` and their rates: seed 002's
//! `F qd + F1 qd + F2 betad + F3 qd + F4 wd`, (2.1), and (2.11)-(2.21)); the angular velocity
//! is that of the first-order rotation `(I + [dtheta]x) R0`: `omega0 + dtheta' + dtheta ×
//! omega0`, which drops only second-order terms.

use std::collections::BTreeSet;

use super::kinematics::SitePose;
use super::orientation::Orientation;
use super::scalar::{k3, Cx, Vec3, S};
use crate::algebra::Algebra;
use crate::beam::clamped_free_tip_slope;
use crate::ir::{ElasticVar, Graph, Node, NodeId, Var};
use crate::mat3;
use crate::model::{JointKind, Robot};

/// The elastic quantities of a chain, as handles of the algebra (row-major matrices).
#[derive(Clone, Debug, PartialEq)]
pub struct Elastic<E> {
    /// `F2`, `6×NBETA`: tool point displacement (rows 0-2) and small rotation (rows 3-5) per
    /// unit compliance angle, base frame.
    pub f2: Vec<E>,
    /// `F4`, `6×NW`: the same per unit modal coordinate.
    pub f4: Vec<E>,
    /// First-order tool rotation `R0 + [dtheta]x R0`, `3×3`.
    pub rotation: Vec<E>,
    /// First-order tool point `p0 + dp`, `3`.
    pub position: Vec<E>,
    /// `dp = F2_lin beta + F4_lin w`, `3`.
    pub dp: Vec<E>,
    /// `dtheta = F2_ang beta + F4_ang w`, `3`.
    pub dtheta: Vec<E>,
    /// `beta = -K^-1 g(q)`, `NBETA`.
    pub static_deflection: Vec<E>,
    /// `F2 beta` at the static deflection: `dp` then `dtheta`, `6`.
    pub tool_error: Vec<E>,
}

/// One column of `F2` or `F4`: the tool point's displacement and the small rotation.
type Column<E> = (Vec3<E>, Vec3<E>);

/// The F2 and F4 columns, the first-order pose and the statics of a chain (on any algebra).
///
/// `pose` and `jac` are the rigid tool pose and Jacobian, `gravity` the joint forces `g(q)`.
pub(crate) fn elastic<A: Algebra>(
    cx: &mut Cx<'_, A>,
    robot: &Robot,
    ori: &Orientation<A::E>,
    pose: &SitePose<A::E>,
    jac: &[S<A::E>],
    gravity: &[S<A::E>],
) -> Elastic<S<A::E>> {
    let n = robot.dof();
    let joints = robot.elastic_joints();
    let coords = robot.flex_coordinates();
    // Columns as (linear, angular).
    let mut f2: Vec<Column<A::E>> = Vec::with_capacity(joints.len());
    for &j in &joints {
        let col = |r: usize| jac[r * n + j];
        f2.push(([col(0), col(1), col(2)], [col(3), col(4), col(5)]));
    }
    let mut f4: Vec<Column<A::E>> = Vec::with_capacity(coords.len());
    for &(i, d, m) in &coords {
        let b = &robot.bodies[i];
        let flex = b.flex.as_ref().expect("a flexible body");
        let beam = if i + 1 < n {
            robot.bodies[i + 1].origin
        } else {
            b.next
        };
        let len = mat3::norm(beam);
        let e = mat3::scale(beam, 1.0 / len);
        let dir = flex.directions[d].vector;
        let slope = clamped_free_tip_slope(m + 1) / len;
        let moved = cx.mat_vec(&ori.abs[i], &k3(dir));
        let turn_axis = cx.mat_vec(&ori.abs[i], &k3(mat3::cross(e, dir)));
        let ang = cx.scale(S::K(slope), &turn_axis);
        // p - E_i: from the link's end to the tool point (zero for the last link).
        let lever = if i + 1 < n {
            let mut l = pose.arm[i + 1];
            let next = &robot.bodies[i + 1];
            if next.joint == JointKind::Prismatic {
                let q = S::X(cx.alg.q(i + 1));
                let axis = cx.mat_vec(&ori.abs[i], &k3(next.axis));
                let slide = cx.scale(q, &axis);
                l = cx.vadd(&l, &slide);
            }
            l
        } else {
            [S::K(0.0); 3]
        };
        let swing = cx.cross(&ang, &lever);
        let lin = cx.vadd(&moved, &swing);
        f4.push((lin, ang));
    }

    // dp, dtheta = F2 beta + F4 w.
    let mut dp = [S::K(0.0); 3];
    let mut dtheta = [S::K(0.0); 3];
    let mut inputs: Vec<S<A::E>> = Vec::with_capacity(f2.len() + f4.len());
    for k in 0..joints.len() {
        inputs.push(S::X(cx.alg.elastic(ElasticVar::Beta(index(k)))));
    }
    for k in 0..coords.len() {
        inputs.push(S::X(cx.alg.elastic(ElasticVar::W(index(k)))));
    }
    for (x, (lin, ang)) in inputs.into_iter().zip(f2.iter().chain(&f4)) {
        let l = cx.scale(x, lin);
        dp = cx.vadd(&dp, &l);
        let a = cx.scale(x, ang);
        dtheta = cx.vadd(&dtheta, &a);
    }
    let position = cx.vadd(&pose.position, &dp);
    let rotation = first_order_rotation(cx, &pose.rotation, &dtheta);

    // Statics: beta = -K^-1 g(q), and the tool error it causes.
    let deflection: Vec<S<A::E>> = joints
        .iter()
        .map(|&j| {
            let k = robot.bodies[j]
                .elastic
                .as_ref()
                .expect("an elastic joint")
                .stiffness;
            cx.mul(S::K(-1.0 / k), gravity[j])
        })
        .collect();
    let mut err_p = [S::K(0.0); 3];
    let mut err_t = [S::K(0.0); 3];
    for (x, (lin, ang)) in deflection.iter().zip(&f2) {
        let l = cx.scale(*x, lin);
        err_p = cx.vadd(&err_p, &l);
        let a = cx.scale(*x, ang);
        err_t = cx.vadd(&err_t, &a);
    }

    let matrix = |cols: &[Column<A::E>]| -> Vec<S<A::E>> {
        let mut out = Vec::with_capacity(6 * cols.len());
        for r in 0..6 {
            for (lin, ang) in cols {
                out.push(if r < 3 { lin[r] } else { ang[r - 3] });
            }
        }
        out
    };
    Elastic {
        f2: matrix(&f2),
        f4: matrix(&f4),
        rotation: rotation.iter().flatten().copied().collect(),
        position: position.to_vec(),
        dp: dp.to_vec(),
        dtheta: dtheta.to_vec(),
        static_deflection: deflection,
        tool_error: err_p.iter().chain(&err_t).copied().collect(),
    }
}

/// `R0 + [dtheta]x R0`: each column `c` of `R0` plus `dtheta × c`.
fn first_order_rotation<A: Algebra>(
    cx: &mut Cx<'_, A>,
    r0: &[[S<A::E>; 3]; 3],
    dtheta: &Vec3<A::E>,
) -> [[S<A::E>; 3]; 3] {
    let mut out = *r0;
    for c in 0..3 {
        let col = [r0[0][c], r0[1][c], r0[2][c]];
        let turn = cx.cross(dtheta, &col);
        for r in 0..3 {
            out[r][c] = cx.add(r0[r][c], turn[r]);
        }
    }
    out
}

fn index(k: usize) -> u16 {
    u16::try_from(k).expect("at most 65535 elastic coordinates")
}

/// The tool's velocity and acceleration (linear, then angular; `6` each) with elastic joints
/// and links, from the rigid Jacobian `jac` (`6×N`) and the first-order increments `dp`,
/// `dtheta` of one graph.
pub fn elastic_rates(
    g: &mut Graph,
    n: usize,
    jac: &[NodeId],
    dp: &[NodeId],
    dtheta: &[NodeId],
) -> (Vec<NodeId>, Vec<NodeId>) {
    let qd: Vec<NodeId> = (0..n).map(|j| g.qd(j)).collect();
    let row = |g: &mut Graph, r: usize| -> NodeId {
        let terms: Vec<NodeId> = (0..n).map(|j| g.mul(jac[r * n + j], qd[j])).collect();
        g.sum(&terms)
    };
    let v0: Vec<NodeId> = (0..3).map(|r| row(g, r)).collect();
    let omega0: Vec<NodeId> = (3..6).map(|r| row(g, r)).collect();
    let dp_rate = time_derivative(g, dp);
    let dtheta_rate = time_derivative(g, dtheta);
    let mut v = Vec::with_capacity(6);
    for r in 0..3 {
        v.push(g.add(v0[r], dp_rate[r]));
    }
    for r in 0..3 {
        let (a, b) = ((r + 1) % 3, (r + 2) % 3);
        let p = g.mul(dtheta[a], omega0[b]);
        let q = g.mul(dtheta[b], omega0[a]);
        let cross = g.sub(p, q);
        v.push(g.sum(&[omega0[r], dtheta_rate[r], cross]));
    }
    let a = time_derivative(g, &v);
    (v, a)
}

/// The elastic-joint dynamics of a chain whose elastic joints all have a motor inertia, from
/// its inverse and forward dynamics (`N` each, one graph): the forward dynamics `(qdd[N],
/// thetadd[NBETA])` and, when no elastic joint has damping, the feedforward `(theta[NBETA],
/// tau[N])`. `None` for a robot without elastic joints or with one lacking `motor_inertia`.
///
/// The reduced model: `M(q) qdd + h(q, qd) = tau_s` with the spring torque
/// `tau_s = K (theta - q) + D (thetad - qd)` on the elastic rows (the motor torque `tau` on the
/// rigid rows), and `B thetadd + tau_s = tau` on the elastic joints. So `qdd` is the rigid
/// forward dynamics at `tau_s`, and without damping the link trajectory fixes
/// `theta = q + K^-1 tau_id(q, qd, qdd)` and `tau = B thetadd + tau_id` with
/// `thetadd = qdd + K^-1 d²/dt² tau_id`, the inverse dynamics differentiated in time twice
/// (symbolically, through the joints' third and fourth derivatives).
#[allow(clippy::type_complexity)]
pub fn elastic_dynamics(
    g: &mut Graph,
    robot: &Robot,
    inverse_dynamics: &[NodeId],
    forward_dynamics: &[NodeId],
) -> Option<(
    (Vec<NodeId>, Vec<NodeId>),
    Option<(Vec<NodeId>, Vec<NodeId>)>,
)> {
    let joints = robot.elastic_joints();
    let params: Vec<(f64, f64, f64)> = joints
        .iter()
        .map(|&j| {
            let e = robot.bodies[j].elastic.as_ref().expect("an elastic joint");
            e.motor_inertia
                .map(|b| (e.stiffness, e.damping.unwrap_or(0.0), b))
        })
        .collect::<Option<_>>()?;
    if joints.is_empty() {
        return None;
    }
    let joint = |j: usize| u16::try_from(j).expect("at most 64 joints");
    let mut subs = rustc_hash::FxHashMap::default();
    let mut thetadd = Vec::with_capacity(joints.len());
    for (k, (&j, &(stiffness, damping, inertia))) in joints.iter().zip(&params).enumerate() {
        let theta = g.var(Var::Elastic(ElasticVar::Theta(index(k))));
        let q = g.var(Var::Q(joint(j)));
        let stretch = g.sub(theta, q);
        let kc = g.constant(stiffness);
        let mut spring = g.mul(kc, stretch);
        if damping != 0.0 {
            let thetad = g.var(Var::Elastic(ElasticVar::ThetaD(index(k))));
            let qd = g.var(Var::Qd(joint(j)));
            let rate = g.sub(thetad, qd);
            let dc = g.constant(damping);
            let d = g.mul(dc, rate);
            spring = g.add(spring, d);
        }
        let tau = g.var(Var::Tau(joint(j)));
        let net = g.sub(tau, spring);
        let inv = g.constant(1.0 / inertia);
        thetadd.push(g.mul(inv, net));
        subs.insert(Var::Tau(joint(j)), spring);
    }
    let qdd = super::derivatives::substitute(g, forward_dynamics, &subs);

    let feedforward = params.iter().all(|p| p.1 == 0.0).then(|| {
        let rows: Vec<NodeId> = joints.iter().map(|&j| inverse_dynamics[j]).collect();
        let rate = time_derivative(g, &rows);
        let accel = time_derivative(g, &rate);
        let mut tau = inverse_dynamics.to_vec();
        let mut theta = Vec::with_capacity(joints.len());
        for (k, (&j, &(stiffness, _, inertia))) in joints.iter().zip(&params).enumerate() {
            let compliance = g.constant(1.0 / stiffness);
            let q = g.var(Var::Q(joint(j)));
            let stretch = g.mul(compliance, rows[k]);
            theta.push(g.add(q, stretch));
            let qdd = g.var(Var::Qdd(joint(j)));
            let bend = g.mul(compliance, accel[k]);
            let motor_accel = g.add(qdd, bend);
            let b = g.constant(inertia);
            let motor = g.mul(b, motor_accel);
            tau[j] = g.add(motor, rows[k]);
        }
        (theta, tau)
    });
    Some(((qdd, thetadd), feedforward))
}

/// `d/dt` of each root by the chain rule over the leaves it reads: joint positions (directly
/// or through `sin`/`cos`) and rates, compliance angles, modal coordinates and their rates.
///
/// # Panics
/// If a root reads a leaf whose rate is not an input (a joint acceleration, a parameter).
pub fn time_derivative(g: &mut Graph, roots: &[NodeId]) -> Vec<NodeId> {
    let live = g.reachable(roots);
    let mut wrt: BTreeSet<Var> = BTreeSet::new();
    for (i, node) in g.nodes().iter().enumerate() {
        if !live[i] {
            continue;
        }
        if let Node::Var(v) = node {
            match *v {
                Var::Q(j) => {
                    wrt.insert(Var::Q(j));
                }
                Var::Sin(m) | Var::Cos(m) => {
                    for j in 0..64u16 {
                        if m & (1u64 << j) != 0 {
                            wrt.insert(Var::Q(j));
                        }
                    }
                }
                Var::Param(_) => {}
                other => {
                    wrt.insert(other);
                }
            }
        }
    }
    let mut terms: Vec<Vec<NodeId>> = vec![Vec::new(); roots.len()];
    for var in wrt {
        let rate = match var {
            Var::Q(j) => Var::Qd(j),
            Var::Qd(j) => Var::Qdd(j),
            Var::Qdd(j) => Var::Elastic(ElasticVar::Qddd(j)),
            Var::Elastic(e) => Var::Elastic(
                e.rate()
                    .unwrap_or_else(|| panic!("{var:?} has no rate among the inputs")),
            ),
            other => panic!("{other:?} has no rate among the inputs"),
        };
        let rate = g.var(rate);
        let col = g.diff_many(roots, var);
        for (t, d) in terms.iter_mut().zip(col) {
            if g.as_const(d) != Some(0.0) {
                t.push(g.mul(d, rate));
            }
        }
    }
    terms.iter().map(|t| g.sum(t)).collect()
}

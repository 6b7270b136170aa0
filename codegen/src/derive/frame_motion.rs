//! The motion of each named frame: its velocity, its acceleration at zero joint acceleration
//! and the time derivative of its Jacobian.
//!
//! Everything is taken in the base frame first, as rates seen from the world: for a vector
//! `x` of base components, `D(x) = x' + ω_B × x` (`ω_B` the base's angular velocity, zero on a
//! fixed base), which the base's attitude `R` turns into the world rate, `(R x)' = R D(x)`.
//!
//! Column `k` of the Jacobian, for joint `k` on the frame's path with axis `z_k` and lever
//! arm `r_k = p - O_k`, is `[z_k × r_k; z_k]` (revolute) or `[z_k; 0]` (prismatic). The axis is
//! fixed in the carrier of body `k`, so `D(z_k) = W_k × z_k` with `W_k` the angular velocity of
//! that carrier; and `D(r_k) = W_k × r_k + S_k`, where `S_k` sums the linear columns of joint
//! `k` and those after it times their rates (what moves the point relative to the carrier).
//! A floating base's columns are those of a body whose axes are the base's: `[e_c; 0]` for its
//! linear velocity, `[e_c × r; e_c]` for its angular one, with `W = ω_B` and `S` the joints'.
//! The acceleration at zero joint acceleration is `J' v`, the velocity `J v`.

use super::dynamics;
use super::kinematics::{self, Site};
use super::moving_base::{base3, base_rotation};
use super::scalar::{zero3, Cx, Mat3, Vec3, S};
use crate::algebra::Algebra;
use crate::ir::BaseVar;
use crate::model::{JointKind, Robot};

/// The motion of one named frame, as handles of the algebra (world axes).
#[derive(Clone, Debug, PartialEq)]
pub struct FrameMotion<E> {
    /// Velocity of the frame's origin, then its angular velocity, `6`.
    pub velocity: Vec<E>,
    /// `J' v`: the classical acceleration of the origin and the angular acceleration at zero
    /// joint acceleration, `6`.
    pub acceleration_bias: Vec<E>,
    /// `J'`, `6×NV` row-major.
    pub jacobian_derivative: Vec<E>,
}

/// A Jacobian column (linear, angular) in base axes.
type Column<E> = [Vec3<E>; 2];

/// Derives [`FrameMotion`] for every named frame of a fixed or floating base, in frame order.
pub fn frame_motion<A: Algebra>(alg: &mut A, robot: &Robot) -> Vec<FrameMotion<A::E>> {
    let robot = &super::prepare(robot);
    let n = robot.dof();
    let mut cx = Cx::new(alg);
    let cx = &mut cx;
    let (bodies, ()) = dynamics::Bodies::derive(cx, robot, robot, |_, _, _| ());
    let (ori, poles) = (&bodies.ori, &bodies.poles);
    let base = robot.is_floating().then(|| Base {
        rotation: base_rotation(cx),
        linear: base3(cx, BaseVar::Vel),
        angular: base3(cx, |k| BaseVar::Vel(k + 3)),
    });
    let qd: Vec<S<A::E>> = (0..n).map(|j| S::X(cx.alg.qd(j))).collect();
    let mut out = Vec::with_capacity(robot.frames.len());
    for frame in &robot.frames {
        let site = Site {
            body: frame.body,
            position: frame.position,
            rotation: frame.rotation,
            labelled: false,
        };
        let pose = kinematics::site_pose(cx, robot, ori, poles, &site);
        let jac = kinematics::jacobian(cx, robot, ori, &pose);
        let column = |j: usize| -> Column<A::E> {
            [
                [0, 1, 2].map(|r| jac[r * n + j]),
                [0, 1, 2].map(|r| jac[(r + 3) * n + j]),
            ]
        };
        let motion = one_frame(cx, robot, base.as_ref(), &pose, &column, &qd);
        out.push(motion);
    }
    out
}

/// A floating base's attitude (world from base) and velocity (base axes).
struct Base<E> {
    rotation: Mat3<E>,
    linear: Vec3<E>,
    angular: Vec3<E>,
}

/// The motion of the site `pose` whose joint columns (base axes) `column` gives.
fn one_frame<A: Algebra>(
    cx: &mut Cx<'_, A>,
    robot: &Robot,
    base: Option<&Base<A::E>>,
    pose: &kinematics::SitePose<A::E>,
    column: &dyn Fn(usize) -> Column<A::E>,
    qd: &[S<A::E>],
) -> FrameMotion<A::E> {
    let n = robot.dof();
    let nv = n + if base.is_some() { 6 } else { 0 };
    let offset = nv - n;
    let w_base = base.map_or(zero3(), |b| b.angular);
    // S_k over the path, from the site's body back to the base.
    let mut tail: Vec<Vec3<A::E>> = vec![zero3(); pose.path.len() + 1];
    for (at, &j) in pose.path.iter().enumerate().rev() {
        let t = cx.scale(qd[j], &column(j)[0]);
        tail[at] = cx.vadd(&tail[at + 1], &t);
    }
    let mut derivative: Vec<Column<A::E>> = vec![[zero3(), zero3()]; nv];
    let mut w = w_base;
    for (at, &j) in pose.path.iter().enumerate() {
        let [lin, ang] = column(j);
        derivative[offset + j] = match robot.bodies[j].joint {
            JointKind::Revolute => {
                let dz = cx.cross(&w, &ang);
                let arm = &pose.arm[j];
                let w_arm = cx.cross(&w, arm);
                let darm = cx.vadd(&w_arm, &tail[at]);
                let a = cx.cross(&dz, arm);
                let b = cx.cross(&ang, &darm);
                [cx.vadd(&a, &b), dz]
            }
            JointKind::Prismatic => [cx.cross(&w, &lin), zero3()],
        };
        let t = cx.scale(qd[j], &ang);
        w = cx.vadd(&w, &t);
    }
    // Velocity in base axes: the joints' part, then the base's.
    let mut linear = tail[0];
    if let Some(b) = base {
        let r = &pose.position;
        let w_r = cx.cross(&w_base, r);
        let darm = cx.vadd(&w_r, &tail[0]);
        for c in 0..3 {
            let mut e = zero3();
            e[c] = S::K(1.0);
            let de = cx.cross(&w_base, &e);
            derivative[c] = [de, zero3()];
            let a = cx.cross(&de, r);
            let bb = cx.cross(&e, &darm);
            derivative[3 + c] = [cx.vadd(&a, &bb), de];
        }
        let v = cx.vadd(&b.linear, &w_r);
        linear = cx.vadd(&linear, &v);
    }
    let velocities: Vec<S<A::E>> = match base {
        Some(b) => b
            .linear
            .iter()
            .chain(&b.angular)
            .chain(qd)
            .copied()
            .collect(),
        None => qd.to_vec(),
    };
    let mut bias = [zero3(), zero3()];
    for (col, &v) in derivative.iter().zip(&velocities) {
        for (sum, part) in bias.iter_mut().zip(col) {
            let t = cx.scale(v, part);
            *sum = cx.vadd(sum, &t);
        }
    }
    // World axes.
    let turn = |cx: &mut Cx<'_, A>, v: &Vec3<A::E>| match base {
        Some(b) => cx.mat_vec(&b.rotation, v),
        None => *v,
    };
    let velocity = [turn(cx, &linear), turn(cx, &w)];
    let bias = bias.map(|v| turn(cx, &v));
    let mut jd = vec![S::K(0.0); 6 * nv];
    for (c, [lin, ang]) in derivative.iter().enumerate() {
        let (lin, ang) = (turn(cx, lin), turn(cx, ang));
        for r in 0..3 {
            jd[r * nv + c] = lin[r];
            jd[(r + 3) * nv + c] = ang[r];
        }
    }
    let mut out = |v: &[S<A::E>]| -> Vec<A::E> { v.iter().map(|&s| cx.e(s)).collect() };
    FrameMotion {
        velocity: out(&velocity.concat()),
        acceleration_bias: out(&bias.concat()),
        jacobian_derivative: out(&jd),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Env, Graph};
    use crate::spec::parse_spec;

    /// A pendulum about `z` with a frame at `L` along `x`: its origin is `L (cos q, sin q, 0)`,
    /// moves at `L q' (-sin q, cos q, 0)` and accelerates at `-L q'^2 (cos q, sin q, 0)` when
    /// `q'' = 0`; `J = L (-sin q, cos q, 0, 0, 0, 1)`, so `J' = -L q' (cos q, sin q, 0, ..)`.
    #[test]
    fn a_pendulum_by_hand() {
        let l = 0.7;
        let spec = format!(
            "version = 1\nname = \"pendulum\"\n[[body]]\nname = \"arm\"\njoint = \"revolute\"\n\
             axis = \"z\"\nnext = [1.0, 0.0, 0.0]\nmass = 1.0\ncom = [0.5, 0.0, 0.0]\n\
             inertia = {{ ixx = 0.1, iyy = 0.2, izz = 0.3 }}\n[[frame]]\nname = \"tip\"\n\
             body = \"arm\"\nposition = [{l:?}, 0.0, 0.0]\n"
        );
        let robot = parse_spec(&spec, "pendulum.toml").expect("valid spec");
        let mut g = Graph::new();
        let motion = frame_motion(&mut g, &robot);
        let (q, qd) = (0.4_f64, -1.3_f64);
        let env = Env {
            q: vec![q],
            qd: vec![qd],
            ..Env::default()
        };
        let eval = |v: &[crate::ir::NodeId]| g.eval_many(v, &env);
        let close = |got: Vec<f64>, want: [f64; 6]| {
            for (a, b) in got.iter().zip(want) {
                assert!((a - b).abs() < 1e-14, "{got:?} vs {want:?}");
            }
        };
        let (s, c) = q.sin_cos();
        let m = &motion[0];
        close(
            eval(&m.velocity),
            [-l * qd * s, l * qd * c, 0.0, 0.0, 0.0, qd],
        );
        let w2 = qd * qd;
        close(
            eval(&m.acceleration_bias),
            [-l * w2 * c, -l * w2 * s, 0.0, 0.0, 0.0, 0.0],
        );
        close(
            eval(&m.jacobian_derivative),
            [-l * qd * c, -l * qd * s, 0.0, 0.0, 0.0, 0.0],
        );
    }
}

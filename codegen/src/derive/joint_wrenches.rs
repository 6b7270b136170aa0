//! The wrench each joint transmits while the robot moves: the Newton-Euler recursion's force
//! on each body by its carrier and moment about its pole (the inverse dynamics' pass, which
//! projects them onto the joint axes for the torques), turned into world axes.
//!
//! The pole of a body is on its joint's axis, and a prismatic joint's pole slides with the
//! body, so the moment is about the joint's origin on the body's side, as Pinocchio's `data.f`.

use super::dynamics::{self, MovingBase, PassInputs, Weight};
use super::moving_base::{base3, base_rotation, prescribed_motion};
use super::params::base_body_params;
use super::scalar::{k3, Cx, Vec3, S};
use crate::algebra::Algebra;
use crate::ir::BaseVar;
use crate::model::Robot;

/// `F` and `T`, `N×3` row-major each (row `i` for joint `i`), world axes (a floating or
/// prescribed base's motion and attitude enter).
pub fn joint_wrenches<A: Algebra>(alg: &mut A, robot: &Robot) -> [Vec<A::E>; 2] {
    let robot = &super::prepare(robot);
    let n = robot.dof();
    let mut cx = Cx::new(alg);
    let cx = &mut cx;
    let (bodies, ()) = dynamics::Bodies::derive(cx, robot, robot, |_, _, _| ());
    let st = bodies.statics();
    let qd: Vec<S<A::E>> = (0..n).map(|j| S::X(cx.alg.qd(j))).collect();
    let qdd: Vec<S<A::E>> = (0..n).map(|j| S::X(cx.alg.qdd(j))).collect();
    let inputs = PassInputs {
        body_forces: true,
        ..PassInputs::fixed(&qd, &qdd, Weight::BaseAcceleration)
    };
    let (pass, attitude) = match &robot.base_body {
        Some(body) if robot.is_floating() => {
            let par = base_body_params(cx, body);
            let rot = base_rotation(cx);
            let g_world = k3(robot.gravity);
            let v = base3(cx, BaseVar::Vel);
            let w = base3(cx, |k| BaseVar::Vel(k + 3));
            let a_lin = base3(cx, BaseVar::Acc);
            // The classical acceleration of the base origin, base frame: a_lin + ω × v.
            let wxv = cx.cross(&w, &v);
            let moving = MovingBase {
                w,
                wd: base3(cx, |k| BaseVar::Acc(k + 3)),
                a: cx.vadd(&a_lin, &wxv),
                g: cx.mat_t_vec(&rot, &g_world),
                body: Some(&par),
            };
            let inputs = PassInputs {
                base: Some(&moving),
                ..inputs
            };
            (dynamics::newton_euler(cx, robot, &st, &inputs), Some(rot))
        }
        _ if robot.is_prescribed() => {
            let [moving, _] = prescribed_motion(cx, robot);
            let rot = base_rotation(cx);
            let inputs = PassInputs {
                base: Some(&moving),
                ..inputs
            };
            (dynamics::newton_euler(cx, robot, &st, &inputs), Some(rot))
        }
        _ => (dynamics::newton_euler(cx, robot, &st, &inputs), None),
    };
    let mut rows = [Vec::with_capacity(3 * n), Vec::with_capacity(3 * n)];
    for j in 0..n {
        for (out, body) in rows.iter_mut().zip([&pass.force[j], &pass.moment[j]]) {
            let mut world: Vec3<A::E> = cx.mat_vec(&st.ori.abs[j], body);
            if let Some(rot) = &attitude {
                world = cx.mat_vec(rot, &world);
            }
            out.extend(world);
        }
    }
    rows.map(|r| r.into_iter().map(|s| cx.e(s)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Env, Graph};
    use crate::spec::parse_spec;

    /// A pendulum about `z` under gravity along `-y`, its centre of mass at `L` along `x`: the
    /// joint carries `m (a_c - g)` and, about the axis, `izz q'' + L x (m (a_c - g))`, with
    /// `a_c = L (-q'^2 c - q'' s, -q'^2 s + q'' c, 0)`.
    #[test]
    fn a_pendulum_by_hand() {
        let (l, m, izz, g) = (0.7, 2.0, 0.3, 9.81);
        let spec = format!(
            "version = 1\nname = \"pendulum\"\ngravity = [0.0, {:?}, 0.0]\n[[body]]\n\
             name = \"arm\"\njoint = \"revolute\"\naxis = \"z\"\nnext = [1.0, 0.0, 0.0]\n\
             mass = {m:?}\ncom = [{l:?}, 0.0, 0.0]\n\
             inertia = {{ ixx = 0.1, iyy = 0.2, izz = {izz:?} }}\n",
            -g
        );
        let robot = parse_spec(&spec, "pendulum.toml").expect("valid spec");
        let mut graph = Graph::new();
        let [f, t] = joint_wrenches(&mut graph, &robot);
        let (q, qd, qdd) = (0.4_f64, -1.3_f64, 0.8_f64);
        let env = Env {
            q: vec![q],
            qd: vec![qd],
            qdd: vec![qdd],
            ..Env::default()
        };
        let (s, c) = q.sin_cos();
        let ac = [
            l * (-qd * qd * c - qdd * s),
            l * (-qd * qd * s + qdd * c),
            0.0,
        ];
        let force = [m * ac[0], m * (ac[1] + g), 0.0];
        let arm = [l * c, l * s];
        let moment = izz * qdd + arm[0] * force[1] - arm[1] * force[0];
        let close = |got: Vec<f64>, want: [f64; 3]| {
            for (a, b) in got.iter().zip(want) {
                assert!((a - b).abs() < 1e-13, "{got:?} vs {want:?}");
            }
        };
        close(graph.eval_many(&f, &env), force);
        close(graph.eval_many(&t, &env), [0.0, 0.0, moment]);
    }
}

//! The kinetic and potential energy of the whole robot.
//!
//! Kinetic energy body by body, from each body's angular velocity `ω` and the velocity `v` of
//! its pole, both in its own frame: the body's points move at `v + ω × r`, so
//! `T = ½ m v·v + v·(ω × h) + ½ ωᵀ J ω` with `h` the first moment and `J` the inertia about the
//! pole. The velocities go outwards as the Newton-Euler recursion's: a body on carrier `p` at
//! `o` (carrier frame) has `v = Rotᵀ (v_p + ω_p × o + q̇ axis)` (the slide of a prismatic
//! joint) and `ω = Rotᵀ ω_p + q̇ axis` (a revolute one). Each body costs a few dozen
//! operations, where `½ q̇ᵀ M q̇` would cost the mass matrix and `N²` products more.
//! A joint's armature adds its rotor's `½ a q̇²`, so that `T = ½ q̇ᵀ M q̇` with the armature on
//! the mass matrix's diagonal; a floating base's free-joint armature `½ a` times its six
//! velocity entries squared ([`base_armature_energy`]).
//!
//! Potential energy `V = -g · Σ m_i c_i` over the bodies (Pinocchio's `computePotentialEnergy`,
//! zero with every centre of mass at the world origin), without any body's absolute
//! orientation: with `γ_i` gravity in body `i`'s frame (`γ_i = Rotᵢᵀ γ_p`, outwards from the
//! base's), `g · Σ m_i c_i = Σ_i γ_i · (h_i + Σ_k M_k o_k)` over the bodies `k` that body `i`
//! carries (`M_k` the mass of `k`'s subtree, `o_k` its pole in `i`'s frame), the base's own
//! term likewise, plus a floating base's `M g · p_base`.

use super::dynamics::Bodies;
use super::moving_base::{base3, base_rotation};
use super::params::{base_body_params, BodyInertia};
use super::scalar::{k3, zero3, Cx, Vec3, S};
use crate::algebra::Algebra;
use crate::ir::BaseVar;
use crate::model::{BaseMotion, JointKind, Robot};

/// A body's velocity: its pole's, then its angular velocity, in its own frame.
type Motion<E> = (Vec3<E>, Vec3<E>);

/// `T(q, q̇)` of `robot`: a floating or prescribed base's velocity (its quasi-velocities,
/// own axes) enters, a prescribed base having no mass of its own.
pub fn kinetic_energy<A: Algebra>(alg: &mut A, robot: &Robot) -> A::E {
    let robot = &super::prepare(robot);
    let n = robot.dof();
    let mut cx = Cx::new(alg);
    let cx = &mut cx;
    let (bodies, ()) = Bodies::derive(cx, robot, robot, |_, _, _| ());
    let (mut total, base_motion) = match &robot.base_body {
        Some(body) if robot.is_floating() => {
            let par = base_body_params(cx, body);
            let v = base3(cx, BaseVar::Vel);
            let w = base3(cx, |k| BaseVar::Vel(k + 3));
            let mut own = body_energy(cx, &par, &v, &w);
            if body.armature != 0.0 {
                let rotor = S::X(base_armature_energy(cx.alg, body.armature));
                own = cx.add(own, rotor);
            }
            (own, (v, w))
        }
        _ if robot.is_prescribed() => {
            let v = base3(cx, BaseVar::Vel);
            let w = if robot.motion == BaseMotion::Translating {
                zero3()
            } else {
                base3(cx, |k| BaseVar::Vel(k + 3))
            };
            (S::K(0.0), (v, w))
        }
        _ => (S::K(0.0), (zero3(), zero3())),
    };
    let mut motion: Vec<Motion<A::E>> = Vec::with_capacity(n);
    for j in 0..n {
        let b = &robot.bodies[j];
        let (v_p, w_p) = match b.parent {
            Some(p) => motion[p],
            None => base_motion,
        };
        let qd = S::X(cx.alg.qd(j));
        let axis = k3(b.axis);
        let lever = cx.cross(&w_p, &bodies.poles.o[j]);
        let mut v = cx.vadd(&v_p, &lever);
        if b.joint == JointKind::Prismatic {
            let slide = cx.scale(qd, &axis);
            v = cx.vadd(&v, &slide);
        }
        let rot = &bodies.ori.local[j];
        let v = cx.mat_t_vec(rot, &v);
        let mut w = cx.mat_t_vec(rot, &w_p);
        if b.joint != JointKind::Prismatic {
            let spin = cx.scale(qd, &axis);
            w = cx.vadd(&w, &spin);
        }
        let t = body_energy(cx, &bodies.par.body[j], &v, &w);
        total = cx.add(total, t);
        if b.armature != 0.0 {
            // The rotor's own energy, `½ a q̇²`, as the armature's entry of the mass matrix.
            let qd2 = cx.mul(qd, qd);
            let rotor = cx.mul(S::K(0.5 * b.armature), qd2);
            total = cx.add(total, rotor);
        }
        motion.push((v, w));
    }
    cx.e(total)
}

/// `½ a Σ v_k²` over a floating base's six velocity inputs, in its layout: the energy its
/// free joint's armature `a` adds (`½ vᵀ (a I) v`, the armature's part of `½ vᵀ M v`; the
/// same in both layouts, whose base velocities differ by a rotation). Zero for `a = 0`.
pub fn base_armature_energy<A: Algebra>(alg: &mut A, armature: f64) -> A::E {
    let mut cx = Cx::new(alg);
    let cx = &mut cx;
    let v = base3(cx, BaseVar::Vel);
    let w = base3(cx, |k| BaseVar::Vel(k + 3));
    let vv = cx.dot(&v, &v);
    let ww = cx.dot(&w, &w);
    let sum = cx.add(vv, ww);
    let t = cx.mul(S::K(0.5 * armature), sum);
    cx.e(t)
}

/// `½ m v·v + v·(ω × h) + ½ ωᵀ J ω` of one body.
fn body_energy<A: Algebra>(
    cx: &mut Cx<'_, A>,
    body: &BodyInertia<A::E>,
    v: &Vec3<A::E>,
    w: &Vec3<A::E>,
) -> S<A::E> {
    let vv = cx.dot(v, v);
    let half_m = cx.mul(S::K(0.5), body.m);
    let translation = cx.mul(half_m, vv);
    let wxh = cx.cross(w, &body.h);
    let coupling = cx.dot(v, &wxh);
    let jw: Vec3<A::E> = [0, 1, 2].map(|r| cx.dot(&body.j[r], w));
    let wjw = cx.dot(w, &jw);
    let rotation = cx.mul(S::K(0.5), wjw);
    let t = cx.add(translation, coupling);
    cx.add(t, rotation)
}

/// `V(q)` of `robot`: a floating or prescribed base's pose enters (a prescribed base has no
/// mass of its own).
pub fn potential_energy<A: Algebra>(alg: &mut A, robot: &Robot) -> A::E {
    let robot = &super::prepare(robot);
    let n = robot.dof();
    let topo = robot.topology();
    let mut cx = Cx::new(alg);
    let cx = &mut cx;
    let (bodies, ()) = Bodies::derive(cx, robot, robot, |_, _, _| ());
    // Each subtree's mass (children come after their carriers).
    let mut subtree: Vec<S<A::E>> = bodies.par.body.iter().map(|b| b.m).collect();
    for j in (0..n).rev() {
        if let Some(p) = topo.parent(j) {
            subtree[p] = cx.add(subtree[p], subtree[j]);
        }
    }
    let floating = robot.is_floating();
    let moving = floating || robot.is_prescribed();
    let base = match &robot.base_body {
        Some(body) if floating => Some(base_body_params(cx, body)),
        _ => None,
    };
    // What each body (and the base) holds up, in its own frame: its first moment, and its
    // carried subtrees' masses at their poles.
    let mut held: Vec<Vec3<A::E>> = bodies.par.body.iter().map(|b| b.h).collect();
    let mut held_by_base = base.as_ref().map_or_else(zero3, |b| b.h);
    let mut mass = base.as_ref().map_or(S::K(0.0), |b| b.m);
    for j in 0..n {
        let moment = cx.scale(subtree[j], &bodies.poles.o[j]);
        match topo.parent(j) {
            Some(p) => held[p] = cx.vadd(&held[p], &moment),
            None => {
                held_by_base = cx.vadd(&held_by_base, &moment);
                mass = cx.add(mass, subtree[j]);
            }
        }
    }
    // Gravity in each body's frame, outwards from the base's.
    let gravity = k3(robot.gravity);
    let rot = moving.then(|| base_rotation(cx));
    let in_base = match &rot {
        Some(rot) => cx.mat_t_vec(rot, &gravity),
        None => gravity,
    };
    let mut lifted = cx.dot(&in_base, &held_by_base);
    let mut in_body: Vec<Vec3<A::E>> = Vec::with_capacity(n);
    for j in 0..n {
        let carrier = topo.parent(j).map_or(in_base, |p| in_body[p]);
        let g = cx.mat_t_vec(&bodies.ori.local[j], &carrier);
        let term = cx.dot(&g, &held[j]);
        lifted = cx.add(lifted, term);
        in_body.push(g);
    }
    if rot.is_some() {
        // The whole mass at the base's position in the world.
        let position = base3(cx, BaseVar::Pose);
        let at = cx.dot(&gravity, &position);
        let at = cx.mul(mass, at);
        lifted = cx.add(lifted, at);
    }
    let v = cx.neg(lifted);
    cx.e(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Env, Graph};
    use crate::spec::parse_spec;

    /// A pendulum about `z` with its centre of mass at `L` along `x` and inertia `izz` about
    /// the centre: `T = ½ (izz + m L²) q'²`, `V = m g L sin q` under gravity along `-y`.
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
        let t = kinetic_energy(&mut graph, &robot);
        let v = potential_energy(&mut graph, &robot);
        let (q, qd) = (0.4_f64, -1.3_f64);
        let env = Env {
            q: vec![q],
            qd: vec![qd],
            ..Env::default()
        };
        let want_t = 0.5 * (izz + m * l * l) * qd * qd;
        let want_v = m * g * l * q.sin();
        assert!((graph.eval(t, &env) - want_t).abs() < 1e-12);
        assert!((graph.eval(v, &env) - want_v).abs() < 1e-12);

        // With an armature `a` on the joint, its rotor adds `½ a q'²`.
        let armed = spec.replace("axis = \"z\"\n", "axis = \"z\"\narmature = 0.25\n");
        let robot = parse_spec(&armed, "pendulum.toml").expect("valid spec");
        let mut graph = Graph::new();
        let t = kinetic_energy(&mut graph, &robot);
        let want_t = want_t + 0.5 * 0.25 * qd * qd;
        assert!((graph.eval(t, &env) - want_t).abs() < 1e-12);
    }
}

//! The centre of mass and the centroidal momentum of the whole robot.
//!
//! The composite bodies of the mass matrix (`mass_matrix::composites`) summarise each
//! subsystem `j` (body `j` and all it carries) about its pole in its frame, and the unit wrench
//! of joint `j` (`mass_matrix::unit_wrench`) is the spatial momentum that subsystem has per
//! unit rate of its joint. Turned into the base frame and taken about the centre of mass, it is
//! column `j` of the centroidal momentum matrix `Ag`; its force rows divided by the total mass
//! are column `j` of the centre of mass Jacobian. A floating base adds six columns, from the
//! whole robot summarised about the base origin.
//!
//! At zero joint acceleration the momentum changes at the rate of the net wrenches on the
//! bodies, which is what a Newton-Euler pass without gravity returns at the base (the wrench
//! the joints on the base transmit, or a floating base's own wrench): taken about the centre
//! of mass it is the momentum's bias `Ag' qd`, its force over the mass the centre of mass's.
//!
//! Results are in world axes: the base frame of a fixed base, the base frame turned by the
//! base's attitude for a floating one (the centre of mass also moved by the base position).

use super::dynamics::{self, MovingBase, PassInputs, Statics, Weight};
use super::inertia::{rotate_sym, shift_sym, sym_add};
use super::kinematics;
use super::mass_matrix::{composites, unit_wrench, Composite};
use super::moving_base::{base3, base_rotation};
use super::params::{base_body_params, BodyInertia};
use super::scalar::{zero3, Cx, Mat3, Vec3, S};
use crate::algebra::Algebra;
use crate::ir::BaseVar;
use crate::model::Robot;

/// The centroidal quantities of a robot, as handles of the algebra (row-major matrices,
/// columns over the `NV` velocities).
#[derive(Clone, Debug, PartialEq)]
pub struct Centroidal<E> {
    /// Centre of mass, `3`.
    pub center_of_mass: Vec<E>,
    /// `3×NV`: `c' = Jc v`.
    pub jacobian: Vec<E>,
    /// `Jc' v`, `3`.
    pub acceleration_bias: Vec<E>,
    /// `6×NV`: linear momentum, then angular momentum about the centre of mass.
    pub momentum_matrix: Vec<E>,
    /// `Ag v`, `6`.
    pub momentum: Vec<E>,
    /// `Ag' v`, `6`.
    pub momentum_bias: Vec<E>,
}

/// A force and a moment, base frame, about the centre of mass.
type Column<E> = [Vec3<E>; 2];

/// The whole robot (a floating base's body included) about the base origin, base frame.
struct Whole<E> {
    mass: S<E>,
    first_moment: Vec3<E>,
    /// Inertia about the base origin (only with a floating base, whose columns need it).
    inertia: Mat3<E>,
}

/// Derives [`Centroidal`] for a fixed or floating base with the standard parameters.
pub fn centroidal<A: Algebra>(alg: &mut A, robot: &Robot) -> Centroidal<A::E> {
    let robot = &super::prepare(robot);
    let n = robot.dof();
    let floating = robot.is_floating();
    let nv = if floating { n + 6 } else { n };
    let mut cx = Cx::new(alg);
    let cx = &mut cx;
    let base_par = robot
        .base_body
        .as_ref()
        .filter(|_| floating)
        .map(|b| base_body_params(cx, b));
    let (bodies, ()) = dynamics::Bodies::derive(cx, robot, robot, |_, _, _| ());
    let st = bodies.statics();
    let comp = composites(cx, robot, &st);
    let whole = whole_robot(cx, robot, &st, &comp, base_par.as_ref());
    let inv_mass = cx.div(S::K(1.0), whole.mass);
    let com_b = cx.scale(inv_mass, &whole.first_moment);

    // Columns of Ag in the base frame about the centre of mass.
    let mut columns: Vec<Column<A::E>> = Vec::with_capacity(nv);
    if floating {
        for k in 0..3 {
            let mut e = zero3();
            e[k] = S::K(1.0);
            columns.push([cx.scale(whole.mass, &e), zero3()]);
        }
        for k in 0..3 {
            let mut e = zero3();
            e[k] = S::K(1.0);
            let f = cx.cross(&e, &whole.first_moment);
            let n_o = cx.mat_vec(&whole.inertia, &e);
            let cf = cx.cross(&com_b, &f);
            columns.push([f, cx.vsub(&n_o, &cf)]);
        }
    }
    let poles = kinematics::base_poles(cx, robot, st.ori, st.poles);
    for j in 0..n {
        let [f, m] = unit_wrench(cx, robot, &st, &comp, j);
        let rot = &st.ori.abs[j];
        let f = cx.mat_vec(rot, &f);
        let m = cx.mat_vec(rot, &m);
        columns.push(about_center(cx, &poles[j], &com_b, f, m));
    }

    let velocities: Vec<S<A::E>> = if floating {
        let v = base3(cx, BaseVar::Vel);
        let w = base3(cx, |k| BaseVar::Vel(k + 3));
        let joints = (0..n).map(|j| S::X(cx.alg.qd(j)));
        v.into_iter().chain(w).chain(joints).collect()
    } else {
        (0..n).map(|j| S::X(cx.alg.qd(j))).collect()
    };
    let mut momentum = [zero3(), zero3()];
    for (column, &v) in columns.iter().zip(&velocities) {
        for (sum, part) in momentum.iter_mut().zip(column) {
            let t = cx.scale(v, part);
            *sum = cx.vadd(sum, &t);
        }
    }
    let bias = momentum_rate(cx, robot, &st, base_par.as_ref(), &velocities, &com_b);

    // World axes: a floating base turns everything by its attitude.
    let (world, com) = if floating {
        let rot = base_rotation(cx);
        let p = base3(cx, BaseVar::Pose);
        let rc = cx.mat_vec(&rot, &com_b);
        (Some(rot), cx.vadd(&p, &rc))
    } else {
        (None, com_b)
    };
    let turn = |cx: &mut Cx<'_, A>, v: &Vec3<A::E>| match &world {
        Some(rot) => cx.mat_vec(rot, v),
        None => *v,
    };
    let columns: Vec<Column<A::E>> = columns
        .iter()
        .map(|[f, m]| [turn(cx, f), turn(cx, m)])
        .collect();
    let momentum = momentum.map(|v| turn(cx, &v));
    let bias = bias.map(|v| turn(cx, &v));

    let mut ag = vec![S::K(0.0); 6 * nv];
    let mut jc = vec![S::K(0.0); 3 * nv];
    for (col, [f, m]) in columns.iter().enumerate() {
        for r in 0..3 {
            ag[r * nv + col] = f[r];
            ag[(r + 3) * nv + col] = m[r];
            jc[r * nv + col] = cx.mul(inv_mass, f[r]);
        }
    }
    let acceleration_bias = cx.scale(inv_mass, &bias[0]);
    let mut out = |v: &[S<A::E>]| -> Vec<A::E> { v.iter().map(|&s| cx.e(s)).collect() };
    Centroidal {
        center_of_mass: out(&com),
        jacobian: out(&jc),
        acceleration_bias: out(&acceleration_bias),
        momentum_matrix: out(&ag),
        momentum: out(&momentum.concat()),
        momentum_bias: out(&bias.concat()),
    }
}

/// A force `f` and a moment `m` about the point `at` (base frame) taken about `center`.
fn about_center<A: Algebra>(
    cx: &mut Cx<'_, A>,
    at: &Vec3<A::E>,
    center: &Vec3<A::E>,
    f: Vec3<A::E>,
    m: Vec3<A::E>,
) -> Column<A::E> {
    let arm = cx.vsub(at, center);
    let t = cx.cross(&arm, &f);
    [f, cx.vadd(&m, &t)]
}

/// Mass, first moment and (with a floating base) inertia of the whole robot about the base
/// origin, from the composite bodies on the base.
fn whole_robot<A: Algebra>(
    cx: &mut Cx<'_, A>,
    robot: &Robot,
    st: &Statics<'_, A::E>,
    comp: &Composite<A::E>,
    base: Option<&BodyInertia<A::E>>,
) -> Whole<A::E> {
    let mut whole = Whole {
        mass: base.map_or(S::K(0.0), |b| b.m),
        first_moment: base.map_or(zero3(), |b| b.h),
        inertia: base.map_or([zero3(); 3], |b| b.j),
    };
    for r in robot.topology().roots() {
        let msub = st.par.msub[r];
        let rot = &st.ori.local[r];
        let c1 = cx.mat_vec(rot, &comp.c[r]);
        let mo = cx.scale(msub, &st.poles.o[r]);
        whole.mass = cx.add(whole.mass, msub);
        whole.first_moment = cx.vadd(&whole.first_moment, &mo);
        whole.first_moment = cx.vadd(&whole.first_moment, &c1);
        if base.is_some() {
            let j1 = rotate_sym(cx, rot, &comp.j[r]);
            let j1 = shift_sym(cx, &j1, msub, &c1, &st.poles.o[r]);
            whole.inertia = sym_add(cx, &whole.inertia, &j1);
        }
    }
    whole
}

/// The rate of the momentum at zero joint acceleration, force then moment about the centre
/// of mass `com` (base frame): the net wrench on all bodies from a pass without gravity.
fn momentum_rate<A: Algebra>(
    cx: &mut Cx<'_, A>,
    robot: &Robot,
    st: &Statics<'_, A::E>,
    base: Option<&BodyInertia<A::E>>,
    velocities: &[S<A::E>],
    com: &Vec3<A::E>,
) -> Column<A::E> {
    let n = robot.dof();
    let no_weight = vec![zero3(); n];
    let st0 = Statics {
        grav: &no_weight,
        ..*st
    };
    let zero = vec![S::K(0.0); n];
    let origin = zero3();
    match base {
        Some(body) => {
            let (qd, base_v) = (&velocities[6..], &velocities[..6]);
            let v = [base_v[0], base_v[1], base_v[2]];
            let w = [base_v[3], base_v[4], base_v[5]];
            // At zero acceleration the base origin still accelerates by ω × v.
            let moving = MovingBase {
                w,
                wd: zero3(),
                a: cx.cross(&w, &v),
                g: zero3(),
                body: Some(body),
            };
            let inputs = PassInputs {
                base: Some(&moving),
                ..PassInputs::fixed(qd, &zero, Weight::BaseAcceleration)
            };
            let pass = dynamics::newton_euler(cx, robot, &st0, &inputs);
            let [f, m] = pass
                .base_wrench
                .expect("a floating base returns its wrench");
            about_center(cx, &origin, com, f, m)
        }
        None => {
            let inputs = PassInputs {
                body_forces: true,
                ..PassInputs::fixed(velocities, &zero, Weight::BodyRows)
            };
            let pass = dynamics::newton_euler(cx, robot, &st0, &inputs);
            let mut total = [zero3(), zero3()];
            for r in robot.topology().roots() {
                let rot = &st.ori.abs[r];
                let f = cx.mat_vec(rot, &pass.force[r]);
                let m = cx.mat_vec(rot, &pass.moment[r]);
                let arm = cx.cross(&st.poles.o[r], &f);
                let m = cx.vadd(&m, &arm);
                total = [cx.vadd(&total[0], &f), cx.vadd(&total[1], &m)];
            }
            let [f, m] = total;
            about_center(cx, &origin, com, f, m)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Env, Graph};
    use crate::spec::parse_spec;

    /// One body turning about `z`, its centre of mass at `L` along `x` from the axis, with
    /// inertia `izz` about it: `c = L (cos q, sin q, 0)`, `c' = L q' (-sin q, cos q, 0)`,
    /// `c''(q'' = 0) = -L q'^2 (cos q, sin q, 0)`, the angular momentum about `c` is
    /// `izz q'` about `z`, and its rate at `q'' = 0` is zero.
    #[test]
    fn a_pendulum_by_hand() {
        let (l, m, izz) = (0.7, 2.0, 0.3);
        let spec = format!(
            "version = 1\nname = \"pendulum\"\n[[body]]\nname = \"arm\"\njoint = \"revolute\"\n\
             axis = \"z\"\nnext = [1.0, 0.0, 0.0]\nmass = {m:?}\ncom = [{l:?}, 0.0, 0.0]\n\
             inertia = {{ ixx = 0.1, iyy = 0.2, izz = {izz:?} }}\n"
        );
        let robot = parse_spec(&spec, "pendulum.toml").expect("valid spec");
        let mut g = Graph::new();
        let c = centroidal(&mut g, &robot);
        let (q, qd) = (0.4_f64, -1.3_f64);
        let env = Env {
            q: vec![q],
            qd: vec![qd],
            ..Env::default()
        };
        let eval = |v: &[crate::ir::NodeId]| g.eval_many(v, &env);
        let close = |got: Vec<f64>, want: [f64; 3]| {
            for (a, b) in got.iter().zip(want) {
                assert!((a - b).abs() < 1e-14, "{got:?} vs {want:?}");
            }
        };
        let (s, co) = q.sin_cos();
        close(eval(&c.center_of_mass), [l * co, l * s, 0.0]);
        close(eval(&c.jacobian), [-l * s, l * co, 0.0]);
        let w2 = qd * qd;
        close(eval(&c.acceleration_bias), [-l * w2 * co, -l * w2 * s, 0.0]);
        let ag = eval(&c.momentum_matrix);
        close(ag[..3].to_vec(), [-m * l * s, m * l * co, 0.0]);
        close(ag[3..].to_vec(), [0.0, 0.0, izz]);
        let hg = eval(&c.momentum);
        close(hg[3..].to_vec(), [0.0, 0.0, izz * qd]);
        let dhg = eval(&c.momentum_bias);
        close(dhg[..3].to_vec(), [-m * l * w2 * co, -m * l * w2 * s, 0.0]);
        close(dhg[3..].to_vec(), [0.0, 0.0, 0.0]);
    }
}

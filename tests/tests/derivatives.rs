//! The generated analytical derivatives (`inverse_dynamics_derivatives`, `gravity_derivatives`,
//! `forward_dynamics_derivatives`) of every robot in robots/, Rust and C: against Pinocchio's
//! computeRNEADerivatives / computeGeneralizedGravityDerivatives / computeABADerivatives
//! fixtures, against central finite differences of the generated inverse dynamics, gravity and
//! forward dynamics, and the structure `∂τ/∂q̇` must keep (linear in `q̇`). The URDF arms of
//! tests/fixtures/urdf (where the derivatives by composite quantities are the shorter form):
//! the generator's graph, that form alone, and the Panda's C, against Pinocchio.

use quasidyn_codegen::derive::{spatial_derivatives, SpatialFrame};
use quasidyn_codegen::import::ImportOptions;
use quasidyn_codegen::ir::{Env, Graph};
use quasidyn_codegen::{build_module, load_input_with, FunctionKind};
use quasidyn_tests::generated::{self, ROBOTS};
use quasidyn_tests::{
    assert_close, flat, load_derivative_fixture, random_states, workspace_root, Evaluate, State,
};

/// Agreement with Pinocchio.
const PINOCCHIO: f64 = 1e-9;
/// Agreement with central finite differences (relative to the largest entry, at least 1).
const DIFFERENCES: f64 = 1e-6;
/// Step of the central differences.
const STEP: f64 = 1e-6;

const KINDS: [FunctionKind; 3] = [
    FunctionKind::InverseDynamicsDerivatives,
    FunctionKind::GravityDerivatives,
    FunctionKind::ForwardDynamicsDerivatives,
];

/// The generated Rust (`false`) and C (`true`), as `GeneratedRobot::extra` takes them.
const LANGS: [(&str, bool); 2] = [("rust", false), ("c", true)];

#[test]
fn derivatives_match_pinocchio_on_every_robot() {
    for r in ROBOTS {
        let fixture = load_derivative_fixture(r.stem);
        assert_eq!(fixture.dof, r.dof);
        assert!(!fixture.states.is_empty());
        for (lang, c) in LANGS {
            for (k, s) in fixture.states.iter().enumerate() {
                let x = State {
                    q: s.q.clone(),
                    qd: s.qd.clone(),
                    qdd: s.qdd.clone(),
                    tau: s.tau.clone(),
                };
                let what = |f: &str| format!("{} {lang} state {k} {f}", r.stem);
                let id = (r.extra)(c, FunctionKind::InverseDynamicsDerivatives, &x);
                assert_close(&what("dtau_dq"), &id[0], &flat(&s.dtau_dq), PINOCCHIO);
                assert_close(&what("dtau_dqd"), &id[1], &flat(&s.dtau_dqd), PINOCCHIO);
                let g = (r.extra)(c, FunctionKind::GravityDerivatives, &x);
                assert_close(&what("dg_dq"), &g[0], &flat(&s.dg_dq), PINOCCHIO);
                let fd = (r.extra)(c, FunctionKind::ForwardDynamicsDerivatives, &x);
                assert_close(&what("dqdd_dq"), &fd[0], &flat(&s.dqdd_dq), PINOCCHIO);
                assert_close(&what("dqdd_dqd"), &fd[1], &flat(&s.dqdd_dqd), PINOCCHIO);
                assert_close(&what("Minv"), &fd[2], &flat(&s.minv), PINOCCHIO);
            }
        }
    }
}

fn q(s: &mut State) -> &mut Vec<f64> {
    &mut s.q
}

fn qd(s: &mut State) -> &mut Vec<f64> {
    &mut s.qd
}

fn tau(s: &mut State) -> &mut Vec<f64> {
    &mut s.tau
}

/// Columns `∂f/∂x_j` of `f` (one output vector) by central differences in the input `which`.
fn central(
    imp: &dyn Evaluate,
    kind: FunctionKind,
    x: &State,
    which: fn(&mut State) -> &mut Vec<f64>,
) -> Vec<f64> {
    let n = imp.dof();
    let mut out = vec![0.0; n * n];
    for j in 0..n {
        let (mut plus, mut minus) = (x.clone(), x.clone());
        which(&mut plus)[j] += STEP;
        which(&mut minus)[j] -= STEP;
        let (fp, fm) = (&imp.call(kind, &plus)[0], &imp.call(kind, &minus)[0]);
        for i in 0..n {
            out[i * n + j] = (fp[i] - fm[i]) / (2.0 * STEP);
        }
    }
    out
}

/// `|a - e| ≤ DIFFERENCES · max(1, ‖e‖∞) + rounding`, the rounding of the differences being a
/// few ulps of the largest function value over the step.
#[track_caller]
fn assert_differences(what: &str, actual: &[f64], expected: &[f64], fmax: f64) {
    let scale = expected.iter().fold(1.0_f64, |m, v| m.max(v.abs()));
    let rounding = 8.0 * f64::EPSILON * fmax.max(1.0) / STEP;
    for (k, (a, e)) in actual.iter().zip(expected).enumerate() {
        assert!(
            (a - e).abs() <= DIFFERENCES * scale + rounding,
            "{what}[{k}]: got {a:e}, differences give {e:e}"
        );
    }
}

fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0_f64, |m, x| m.max(x.abs()))
}

#[test]
fn derivatives_match_finite_differences_of_the_generated_functions() {
    for r in ROBOTS {
        let robot = r.spec();
        for (lang, c) in LANGS {
            let plain = if c { r.c } else { r.rust };
            for (k, x) in random_states(&robot, 29, 20).iter().enumerate() {
                let what = |f: &str| format!("{} {lang} state {k} {f}", r.stem);

                let tau_max = max_abs(&plain.call(FunctionKind::InverseDynamics, x)[0]);
                let id = (r.extra)(c, FunctionKind::InverseDynamicsDerivatives, x);
                let fd_q = central(plain, FunctionKind::InverseDynamics, x, q);
                assert_differences(&what("dtau_dq"), &id[0], &fd_q, tau_max);
                let fd_qd = central(plain, FunctionKind::InverseDynamics, x, qd);
                assert_differences(&what("dtau_dqd"), &id[1], &fd_qd, tau_max);

                let g_max = max_abs(&plain.call(FunctionKind::Gravity, x)[0]);
                let g = (r.extra)(c, FunctionKind::GravityDerivatives, x);
                let fd_g = central(plain, FunctionKind::Gravity, x, q);
                assert_differences(&what("dg_dq"), &g[0], &fd_g, g_max);

                let qdd_max = max_abs(&plain.call(FunctionKind::ForwardDynamics, x)[0]);
                let fd = (r.extra)(c, FunctionKind::ForwardDynamicsDerivatives, x);
                let fd_fq = central(plain, FunctionKind::ForwardDynamics, x, q);
                assert_differences(&what("dqdd_dq"), &fd[0], &fd_fq, qdd_max);
                let fd_fqd = central(plain, FunctionKind::ForwardDynamics, x, qd);
                assert_differences(&what("dqdd_dqd"), &fd[1], &fd_fqd, qdd_max);
                let fd_tau = central(plain, FunctionKind::ForwardDynamics, x, tau);
                assert_differences(&what("Minv"), &fd[2], &fd_tau, qdd_max);
            }
        }
    }
}

/// `∂τ/∂q̇` is linear in `q̇` (zero at rest, doubling with `q̇`), and since the velocity forces
/// are quadratic in `q̇`, `(∂τ/∂q̇) q̇ = 2 (h - g)` (Euler's theorem on homogeneous functions);
/// `M⁻¹ M = I`.
#[test]
fn velocity_derivative_is_linear_in_velocity() {
    for r in ROBOTS {
        let robot = r.spec();
        let n = r.dof;
        for (lang, c) in LANGS {
            let plain = if c { r.c } else { r.rust };
            for (k, x) in random_states(&robot, 31, 20).iter().enumerate() {
                let what = |f: &str| format!("{} {lang} state {k} {f}", r.stem);
                let d = |s: &State| (r.extra)(c, FunctionKind::InverseDynamicsDerivatives, s);
                let at_rest = State {
                    qd: vec![0.0; n],
                    ..x.clone()
                };
                assert_close(&what("at rest"), &d(&at_rest)[1], &vec![0.0; n * n], 1e-14);
                let doubled = State {
                    qd: x.qd.iter().map(|v| 2.0 * v).collect(),
                    ..x.clone()
                };
                let twice: Vec<f64> = d(x)[1].iter().map(|v| 2.0 * v).collect();
                assert_close(&what("doubled"), &d(&doubled)[1], &twice, 1e-12);

                let dqd = &d(x)[1];
                let h = &plain.call(FunctionKind::NonlinearEffects, x)[0];
                let g = &plain.call(FunctionKind::Gravity, x)[0];
                let lhs: Vec<f64> = (0..n)
                    .map(|i| (0..n).map(|j| dqd[i * n + j] * x.qd[j]).sum())
                    .collect();
                let rhs: Vec<f64> = (0..n).map(|i| 2.0 * (h[i] - g[i])).collect();
                assert_close(&what("euler"), &lhs, &rhs, 1e-12);

                let m = &plain.call(FunctionKind::MassMatrix, x)[0];
                let minv = &(r.extra)(c, FunctionKind::ForwardDynamicsDerivatives, x)[2];
                let mut prod = vec![0.0; n * n];
                let mut eye = vec![0.0; n * n];
                for i in 0..n {
                    eye[i * n + i] = 1.0;
                    for j in 0..n {
                        prod[i * n + j] = (0..n).map(|l| minv[i * n + l] * m[l * n + j]).sum();
                    }
                }
                assert_close(&what("Minv M"), &prod, &eye, 1e-9);
            }
        }
    }
}

#[test]
fn derivative_functions_exist_for_every_kind() {
    for r in ROBOTS {
        let x = random_states(&r.spec(), 3, 1).remove(0);
        for kind in KINDS {
            for (_, c) in LANGS {
                let out = (r.extra)(c, kind, &x);
                assert!(out.iter().flatten().all(|v| v.is_finite()), "{kind:?}");
                assert!(out.iter().all(|o| o.len() == r.dof * r.dof), "{kind:?}");
            }
        }
    }
}

/// The URDF arms with derivative fixtures, and the tip each is imported to.
const URDF_ARMS: [(&str, &str); 5] = [
    ("panda", "panda_hand_tcp"),
    ("xarm7", "link_eef"),
    ("so101", "gripper_frame_link"),
    ("ur10", "tool0"),
    ("kinova", "j2s6s200_end_effector"),
];

#[test]
fn derivatives_of_urdf_arms_match_pinocchio() {
    for (name, tip) in URDF_ARMS {
        let path = workspace_root().join(format!("tests/fixtures/urdf/{name}.urdf"));
        // Pinocchio reads the values as written: the literal import.
        let options = ImportOptions {
            tip: Some(tip.to_owned()),
            snap: false,
            ..Default::default()
        };
        let robot = load_input_with(&path, &options).expect("imports").robot;
        let fixture = load_derivative_fixture(&format!("urdf/{name}"));
        assert_eq!(fixture.dof, robot.dof());
        assert!(!fixture.states.is_empty());
        let module = build_module(&robot);
        let mut spatial_graph = Graph::new();
        let frames = [SpatialFrame::Base, SpatialFrame::FirstBody];
        let forms: Vec<_> = frames
            .map(|frame| spatial_derivatives(&mut spatial_graph, &robot, true, frame))
            .into_iter()
            .map(|form| form.expect("a fixed base, body 0 carrying the others"))
            .collect();
        for (k, s) in fixture.states.iter().enumerate() {
            let env = Env {
                q: s.q.clone(),
                qd: s.qd.clone(),
                qdd: s.qdd.clone(),
                tau: s.tau.clone(),
                ..Env::default()
            };
            let what = |f: &str| format!("{name} state {k} {f}");
            let eval = |kind: FunctionKind| -> Vec<Vec<f64>> {
                let f = module.function(kind).expect("generated");
                f.outputs
                    .iter()
                    .map(|o| module.graph.eval_many(&o.values, &env))
                    .collect()
            };
            let id = eval(FunctionKind::InverseDynamicsDerivatives);
            assert_close(&what("dtau_dq"), &id[0], &flat(&s.dtau_dq), PINOCCHIO);
            assert_close(&what("dtau_dqd"), &id[1], &flat(&s.dtau_dqd), PINOCCHIO);
            let g = eval(FunctionKind::GravityDerivatives);
            assert_close(&what("dg_dq"), &g[0], &flat(&s.dg_dq), PINOCCHIO);
            let fd = eval(FunctionKind::ForwardDynamicsDerivatives);
            assert_close(&what("dqdd_dq"), &fd[0], &flat(&s.dqdd_dq), PINOCCHIO);
            assert_close(&what("dqdd_dqd"), &fd[1], &flat(&s.dqdd_dqd), PINOCCHIO);
            assert_close(&what("Minv"), &fd[2], &flat(&s.minv), PINOCCHIO);
            // The composite-quantity forms themselves, whichever form the generator kept.
            let spatial_eval = |v: &[_]| spatial_graph.eval_many(v, &env);
            for (form, frame) in forms.iter().zip(frames) {
                let what = |f: &str| format!("{name} state {k} composite form {frame:?} {f}");
                for (label, values, expected) in [
                    ("dtau_dq", &form.dtau_dq, &s.dtau_dq),
                    ("dtau_dqd", &form.dtau_dqd, &s.dtau_dqd),
                    ("dg_dq", &form.dg_dq, &s.dg_dq),
                ] {
                    let actual = spatial_eval(values);
                    assert_close(&what(label), &actual, &flat(expected), PINOCCHIO);
                }
            }
        }
    }
}

/// The Panda's generated C derivatives (the benchmarks' `panda_c`, imported with the values
/// snapped as users get them) against Pinocchio.
#[test]
fn panda_c_derivatives_match_pinocchio() {
    let fixture = load_derivative_fixture("urdf/panda");
    let n = fixture.dof;
    for (k, s) in fixture.states.iter().enumerate() {
        let what = |f: &str| format!("panda C state {k} {f}");
        let (mut dq, mut dqd) = (vec![0.0; n * n], vec![0.0; n * n]);
        let mut dg = vec![0.0; n * n];
        let (mut fq, mut fqd, mut minv) = (vec![0.0; n * n], vec![0.0; n * n], vec![0.0; n * n]);
        // SAFETY: every array has the length the C function reads or writes (7 or 49).
        unsafe {
            generated::panda_c_inverse_dynamics_derivatives(
                s.q.as_ptr(),
                s.qd.as_ptr(),
                s.qdd.as_ptr(),
                dq.as_mut_ptr(),
                dqd.as_mut_ptr(),
            );
            generated::panda_c_gravity_derivatives(s.q.as_ptr(), dg.as_mut_ptr());
            generated::panda_c_forward_dynamics_derivatives(
                s.q.as_ptr(),
                s.qd.as_ptr(),
                s.tau.as_ptr(),
                fq.as_mut_ptr(),
                fqd.as_mut_ptr(),
                minv.as_mut_ptr(),
            );
        }
        assert_close(&what("dtau_dq"), &dq, &flat(&s.dtau_dq), PINOCCHIO);
        assert_close(&what("dtau_dqd"), &dqd, &flat(&s.dtau_dqd), PINOCCHIO);
        assert_close(&what("dg_dq"), &dg, &flat(&s.dg_dq), PINOCCHIO);
        assert_close(&what("dqdd_dq"), &fq, &flat(&s.dqdd_dq), PINOCCHIO);
        assert_close(&what("dqdd_dqd"), &fqd, &flat(&s.dqdd_dqd), PINOCCHIO);
        assert_close(&what("Minv"), &minv, &flat(&s.minv), PINOCCHIO);
    }
}

//! The generated analytical derivatives (`inverse_dynamics_derivatives`, `gravity_derivatives`,
//! `forward_dynamics_derivatives`) of every robot in robots/, Rust and C: against Pinocchio's
//! computeRNEADerivatives / computeGeneralizedGravityDerivatives / computeABADerivatives
//! fixtures, against central finite differences of the generated inverse dynamics, gravity and
//! forward dynamics, and the structure `∂τ/∂q̇` must keep (linear in `q̇`).

use quasidyn_codegen::FunctionKind;
use quasidyn_tests::generated::ROBOTS;
use quasidyn_tests::{assert_close, flat, load_derivative_fixture, random_states, Evaluate, State};

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

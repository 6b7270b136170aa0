//! The floating-base robots of `robots/` as users get them: the generated Rust and the generated
//! C (compiled with the strict C99 flags by the build script), every function (the
//! derivatives along the tangent of `q` included), against the
//! Pinocchio free-flyer fixtures of `tests/fixtures/floating/` (tools/floating_reference.py),
//! 1e-9 relative, at states whose quaternion is of unit length and at states where it is not
//! (the generated functions normalise it). The regressor against Pinocchio's
//! `computeJointTorqueRegressor` (the base body's ten columns first) and its dynamic parameters;
//! the base regressor: `Yb π_b` equal to Pinocchio's inverse dynamics, full column rank, and
//! `NB` the numeric rank of the full regressor.

use quasidyn_codegen::FunctionKind;
use quasidyn_tests::generated::FLOATING;
use quasidyn_tests::{numeric_rank, workspace_root, State};
use serde_json::Value;

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect()
}

fn close(what: &str, got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let scale = want.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-9 * scale,
            "{what}[{k}]: generated {g}, Pinocchio {w}"
        );
    }
}

/// The fixture's values of `kind`'s outputs at one state.
fn expected(kind: FunctionKind, st: &Value) -> Vec<Vec<f64>> {
    let frame = |k: u16, key: &str| numbers(&st["frames"][usize::from(k)][key]);
    match kind {
        FunctionKind::InverseDynamics => vec![numbers(&st["inverse_dynamics"])],
        FunctionKind::Gravity => vec![numbers(&st["gravity"])],
        FunctionKind::NonlinearEffects => vec![numbers(&st["nonlinear_effects"])],
        FunctionKind::MassMatrix => vec![numbers(&st["mass_matrix"])],
        FunctionKind::ForwardDynamics => vec![numbers(&st["forward_dynamics"])],
        FunctionKind::FrameKinematics(k) => vec![frame(k, "rotation"), frame(k, "position")],
        FunctionKind::FrameJacobian(k) => vec![frame(k, "jacobian")],
        FunctionKind::InverseDynamicsDerivatives => {
            vec![numbers(&st["dtau_dq"]), numbers(&st["dtau_dv"])]
        }
        FunctionKind::GravityDerivatives => vec![numbers(&st["dg_dq"])],
        FunctionKind::ForwardDynamicsDerivatives => vec![
            numbers(&st["dqdd_dq"]),
            numbers(&st["dqdd_dv"]),
            numbers(&st["Minv"]),
        ],
        FunctionKind::Regressor => vec![numbers(&st["regressor"])],
        other => panic!("no fixture values for {other:?}"),
    }
}

/// `Y π` for `Y` row-major with `π.len()` columns.
fn times(y: &[f64], pi: &[f64]) -> Vec<f64> {
    y.chunks(pi.len())
        .map(|row| row.iter().zip(pi).map(|(a, b)| a * b).sum())
        .collect()
}

#[test]
fn floating_robots_are_shipped_and_registered() {
    let names: Vec<&str> = FLOATING.iter().map(|r| r.stem).collect();
    assert!(
        names.contains(&"quadruped_floating"),
        "robots/ ships a floating quadruped, registered: {names:?}"
    );
}

#[test]
fn generated_rust_and_c_match_pinocchio() {
    for robot in FLOATING {
        let path = workspace_root().join(format!("tests/fixtures/floating/{}.json", robot.stem));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!("{}: {e} (run tools/floating_reference.py)", path.display())
        });
        let fixture: Value = serde_json::from_str(&text).expect("fixture is JSON");
        let (nq, nv) = (robot.dof + 7, robot.dof + 6);
        assert_eq!(
            fixture["nq"].as_u64(),
            Some(nq as u64),
            "{}: NQ",
            robot.stem
        );
        assert_eq!(
            fixture["nv"].as_u64(),
            Some(nv as u64),
            "{}: NV",
            robot.stem
        );
        let frames: Vec<&str> = fixture["frames"]
            .as_array()
            .expect("frames")
            .iter()
            .map(|f| f.as_str().expect("frame name"))
            .collect();
        assert_eq!(robot.frames, frames.as_slice(), "{}: frames", robot.stem);
        // Every function of the floating-base contract is generated.
        let mut want_kinds = vec![
            FunctionKind::InverseDynamics,
            FunctionKind::Gravity,
            FunctionKind::NonlinearEffects,
            FunctionKind::MassMatrix,
            FunctionKind::ForwardDynamics,
            FunctionKind::InverseDynamicsDerivatives,
            FunctionKind::GravityDerivatives,
            FunctionKind::ForwardDynamicsDerivatives,
            FunctionKind::Regressor,
            FunctionKind::BaseRegressor,
        ];
        for k in 0..frames.len() as u16 {
            want_kinds.push(FunctionKind::FrameKinematics(k));
            want_kinds.push(FunctionKind::FrameJacobian(k));
        }
        for k in &want_kinds {
            assert!(robot.kinds.contains(k), "{}: {k:?} generated", robot.stem);
        }

        let states = fixture["states"].as_array().expect("states");
        let mut non_unit = 0;
        for (s, st) in states.iter().enumerate() {
            let q = numbers(&st["q"]);
            let norm = q[3..7].iter().map(|x| x * x).sum::<f64>().sqrt();
            if (norm - 1.0).abs() > 1e-6 {
                non_unit += 1;
            }
            for &kind in robot.kinds {
                // Forward dynamics reads the fixture's torques; the others its accelerations.
                let x = State {
                    q: q.clone(),
                    qd: numbers(&st["v"]),
                    qdd: numbers(&st["a"]),
                    tau: numbers(&st["tau_fd"]),
                };
                if kind == FunctionKind::BaseRegressor {
                    // Checked below, through Yb pi_b.
                    continue;
                }
                if kind == FunctionKind::Regressor && st.get("regressor").is_none() {
                    // Recorded for the first states only.
                    continue;
                }
                let want = expected(kind, st);
                for (lang, imp) in [("Rust", robot.rust), ("C", robot.c)] {
                    let got = imp.call(kind, &x);
                    assert_eq!(got.len(), want.len(), "{} {kind:?}: outputs", robot.stem);
                    for (o, (g, w)) in got.iter().zip(&want).enumerate() {
                        close(
                            &format!("{} {lang} state {s} {kind:?} output {o}", robot.stem),
                            g,
                            w,
                        );
                    }
                }
            }
        }
        assert!(
            non_unit > 0 && non_unit < states.len(),
            "{}: states with and without a unit quaternion",
            robot.stem
        );
    }
}

#[test]
fn regressors_match_pinocchio_and_are_minimal() {
    for robot in FLOATING {
        let path = workspace_root().join(format!("tests/fixtures/floating/{}.json", robot.stem));
        let text = std::fs::read_to_string(&path).expect("fixture readable");
        let fixture: Value = serde_json::from_str(&text).expect("fixture is JSON");
        let nv = robot.dof + 6;
        let width = 10 * (robot.dof + 1);
        let pi = robot.standard_parameters;
        close(
            &format!("{} standard parameters", robot.stem),
            pi,
            &numbers(&fixture["standard_parameters"]),
        );
        let nb = robot.base_parameters.len();
        let states = fixture["states"].as_array().expect("states");
        for (lang, imp) in [("Rust", robot.rust), ("C", robot.c)] {
            let (mut ys, mut ybs) = (Vec::new(), Vec::new());
            for (s, st) in states.iter().enumerate() {
                let x = State {
                    q: numbers(&st["q"]),
                    qd: numbers(&st["v"]),
                    qdd: numbers(&st["a"]),
                    tau: vec![0.0; nv],
                };
                let y = imp.call(FunctionKind::Regressor, &x).remove(0);
                let yb = imp.call(FunctionKind::BaseRegressor, &x).remove(0);
                assert_eq!((y.len(), yb.len()), (nv * width, nv * nb));
                let tau = numbers(&st["inverse_dynamics"]);
                let what = |w: &str| format!("{} {lang} state {s} {w}", robot.stem);
                close(&what("Y pi"), &times(&y, pi), &tau);
                close(&what("Yb pi_b"), &times(&yb, robot.base_parameters), &tau);
                ys.extend(y);
                ybs.extend(yb);
            }
            let rows = nv * states.len();
            assert_eq!(
                numeric_rank(&ys, rows, width),
                nb,
                "{} {lang}: NB is the rank of Y over the fixture's states",
                robot.stem
            );
            assert_eq!(
                numeric_rank(&ybs, rows, nb),
                nb,
                "{} {lang}: Yb has full column rank",
                robot.stem
            );
        }
    }
}

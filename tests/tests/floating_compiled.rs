//! The floating-base robots of `robots/` as users get them: the generated Rust and the generated
//! C (compiled with the strict C99 flags by the build script), every function (the
//! derivatives along the tangent of `q` included), against the
//! Pinocchio free-flyer fixtures of `tests/fixtures/floating/` (tools/floating_reference.py),
//! 1e-9 relative, at states whose quaternion is of unit length and at states where it is not
//! (the generated functions normalise it).

use quasidyn_codegen::FunctionKind;
use quasidyn_tests::generated::FLOATING;
use quasidyn_tests::{workspace_root, State};
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
        other => panic!("no fixture values for {other:?}"),
    }
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

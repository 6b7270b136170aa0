//! The default functions of MJCF models (a floating humanoid in MuJoCo's layout, the synthetic
//! free model, a fixed-base arm, a model with locked joints and armature) compiled, in C and
//! Rust, against MuJoCo itself (`tests/fixtures/mjcf/`, written by tools/mjcf_reference.py) at
//! 1e-9 relative: `qpos`, `qvel` and `qacc` in, MuJoCo's `mj_fullM`, `qfrc_bias`, forward
//! dynamics and sites' poses and `mj_jacSite` out, and where the fixture has them the
//! derivatives of those functions along MuJoCo's tangent, a fixed base's static joint
//! reactions (MuJoCo's `cfrc_int` at rest in the bodies' axes), and the functions on request
//! (centroidal, `M⁻¹`, energies, joint wrenches, frames' motion; the Coriolis matrix by the
//! bias and the skew rate it gives).

use quasidyn_codegen::FunctionKind;
use quasidyn_tests::generated::MJCF;
use quasidyn_tests::{assert_close, json_numbers as flat, workspace_root};
use serde_json::Value;

const REL: f64 = 1e-9;

fn fixture(name: &str) -> Value {
    let path = workspace_root().join(format!("tests/fixtures/mjcf/{name}.json"));
    serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("json")
}

#[test]
fn compiled_mjcf_functions_match_mujoco() {
    assert_eq!(MJCF.len(), 4);
    for robot in MJCF {
        let doc = fixture(robot.fixture);
        let frames = doc["frames"].as_array().expect("frames").len();
        // Every function of the fixture: five of the dynamics, two per frame, the three
        // derivatives where it has them (its first states).
        let states = doc["states"].as_array().expect("states");
        let derivatives = states[0].get("derivatives").is_some();
        let mut count = 5 + 2 * frames + if derivatives { 3 } else { 0 };
        // The static joint reactions of a fixed base.
        if states[0].get("static_joint_reactions").is_some() {
            count += 1;
        }
        // The centroidal six, M^-1, the two energies, the joint wrenches and the Coriolis
        // matrix, and the frames' three motion functions where there are at most five frames.
        if states[0].get("whole_body").is_some() {
            count += 11 + if frames <= 5 { 3 * frames } else { 0 };
        }
        assert_eq!(robot.kinds.len(), count, "{}", robot.fixture);
        for (s, state) in states.iter().enumerate() {
            let [q, qd, qdd, tau_fd] = ["q", "qd", "qdd", "tau_fd"].map(|k| flat(&state[k]));
            let derived = |keys: &[&str]| -> Vec<f64> {
                keys.iter()
                    .flat_map(|k| flat(&state["derivatives"][*k]))
                    .collect()
            };
            for &(kind, name) in robot.kinds {
                let has = state.get("derivatives").is_some();
                let (third, expected) = match kind {
                    FunctionKind::InverseDynamicsDerivatives if has => {
                        (&qdd, derived(&["dtau_dq", "dtau_dqd"]))
                    }
                    FunctionKind::GravityDerivatives if has => (&qdd, derived(&["dg_dq"])),
                    FunctionKind::ForwardDynamicsDerivatives if has => {
                        (&tau_fd, derived(&["dqdd_dq", "dqdd_dqd", "minv"]))
                    }
                    FunctionKind::InverseDynamicsDerivatives
                    | FunctionKind::GravityDerivatives
                    | FunctionKind::ForwardDynamicsDerivatives => continue,
                    FunctionKind::FrameVelocity(k)
                    | FunctionKind::FrameAccelerationBias(k)
                    | FunctionKind::JacobianDerivative(k) => {
                        let Some(motion) = state.get("whole_body") else {
                            continue;
                        };
                        let key = match kind {
                            FunctionKind::FrameVelocity(_) => "velocity",
                            FunctionKind::FrameAccelerationBias(_) => "acceleration_bias",
                            _ => "jacobian_derivative",
                        };
                        (&qdd, flat(&motion["frames"][usize::from(k)][key]))
                    }
                    FunctionKind::JointWrenches => {
                        let Some(motion) = state.get("whole_body") else {
                            continue;
                        };
                        let mut wrenches = flat(&motion["joint_forces"]);
                        wrenches.extend(flat(&motion["joint_moments"]));
                        (&qdd, wrenches)
                    }
                    FunctionKind::CoriolisMatrix => {
                        let Some(motion) = state.get("whole_body") else {
                            continue;
                        };
                        for (language, call) in [("rust", robot.rust), ("c", robot.c)] {
                            let what = format!("{} state {s} {name} ({language})", robot.fixture);
                            let c = call(kind, &q, &qd, &qdd);
                            check_coriolis_matrix(&what, &c, state, motion);
                        }
                        continue;
                    }
                    other if other.frame().is_none() && other.entry().group.on_request() => {
                        let Some(motion) = state.get("whole_body") else {
                            continue;
                        };
                        (&qdd, flat(&motion[other.name()]))
                    }
                    FunctionKind::StaticJointReactions => {
                        (&qdd, flat(&state["static_joint_reactions"]))
                    }
                    FunctionKind::InverseDynamics => (&qdd, flat(&state["tau"])),
                    FunctionKind::Gravity => (&qdd, flat(&state["gravity"])),
                    FunctionKind::NonlinearEffects => (&qdd, flat(&state["nonlinear_effects"])),
                    FunctionKind::MassMatrix => (&qdd, flat(&state["mass_matrix"])),
                    FunctionKind::ForwardDynamics => (&tau_fd, flat(&state["qdd_fd"])),
                    FunctionKind::FrameKinematics(k) => {
                        let frame = &state["frames"][usize::from(k)];
                        let mut pose = flat(&frame["rotation"]);
                        pose.extend(flat(&frame["position"]));
                        (&qdd, pose)
                    }
                    FunctionKind::FrameJacobian(k) => {
                        (&qdd, flat(&state["frames"][usize::from(k)]["jacobian"]))
                    }
                    other => panic!("{other:?} is not compiled here"),
                };
                for (language, call) in [("rust", robot.rust), ("c", robot.c)] {
                    let what = format!("{} state {s} {name} ({language})", robot.fixture);
                    assert_close(&what, &call(kind, &q, &qd, third), &expected, REL);
                }
            }
        }
    }
}

/// The Coriolis matrix (not unique) by what it is for, against MuJoCo: `C qvel + qfrc_bias` at
/// rest is `qfrc_bias`, and `M' - 2C` is skew with `M'` MuJoCo's `mj_fullM` differentiated
/// along its motion.
fn check_coriolis_matrix(what: &str, c: &[f64], state: &Value, motion: &Value) {
    let qd = flat(&state["qd"]);
    let nv = qd.len();
    assert_eq!(c.len(), nv * nv, "{what}");
    let gravity = flat(&state["gravity"]);
    let bias: Vec<f64> = (0..nv)
        .map(|i| gravity[i] + (0..nv).map(|j| c[i * nv + j] * qd[j]).sum::<f64>())
        .collect();
    let nle = flat(&state["nonlinear_effects"]);
    assert_close(&format!("{what}: C qd + g"), &bias, &nle, REL);
    let rate = flat(&motion["mass_matrix_rate"]);
    let scale = rate.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
    let skew: Vec<f64> = (0..nv * nv)
        .map(|k| {
            let t = (k % nv) * nv + k / nv;
            ((rate[k] - 2.0 * c[k]) + (rate[t] - 2.0 * c[t])) / scale
        })
        .collect();
    let what = format!("{what}: (M' - 2C) + its transpose, on the scale of M'");
    assert_close(&what, &skew, &vec![0.0; nv * nv], REL);
}

//! Robots with joints that follow others (URDF `<mimic>`: a follower on a sibling branch with
//! a negative multiplier and an offset, prismatic followers, a follower its master carries,
//! the Franka Panda's second finger;
//! MJCF joint equalities with `ref` on both joints and armature, damping and a spring on the
//! follower), on fixed and floating bases: every function they have, compiled in C and Rust,
//! against Pinocchio 4's mimic model and its full model seen through the coupling, and against
//! MuJoCo's full quantities seen through it (`tests/fixtures/mimic/`,
//! tools/mimic_reference.py) at 1e-9 relative.

use quasidyn_codegen::import::ImportOptions;
use quasidyn_codegen::{build_module_only, load_input_with, FunctionKind};
use quasidyn_tests::generated::{MIMIC, MIMIC_JOINTS};
use quasidyn_tests::{assert_close, json_numbers as flat, numeric_rank, workspace_root};
use serde_json::Value;

const REL: f64 = 1e-9;
/// The functions checked through the inverse dynamics rather than a fixture entry.
const REGRESSORS: [FunctionKind; 2] = [FunctionKind::Regressor, FunctionKind::BaseRegressor];

fn fixture(name: &str) -> Value {
    let path = workspace_root().join(format!("tests/fixtures/mimic/{name}.json"));
    serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("json")
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .expect("a list")
        .iter()
        .map(|s| s.as_str().expect("a name").to_owned())
        .collect()
}

/// The fixture's robot as the generator imports it.
fn robot_of(doc: &Value) -> quasidyn_codegen::Robot {
    let options = ImportOptions {
        floating_base: doc["floating_base"].as_bool().expect("floating_base"),
        ..ImportOptions::default()
    };
    let path = workspace_root().join(doc["input"].as_str().expect("input"));
    load_input_with(&path, &options).expect("imports").robot
}

#[test]
fn coordinates_and_frames_are_pinocchios() {
    assert_eq!(MIMIC.len(), 6);
    for robot in MIMIC {
        let doc = fixture(robot.fixture);
        let imported = robot_of(&doc);
        let coordinates: Vec<String> = imported
            .coordinate_joints()
            .into_iter()
            .map(|j| imported.bodies[j].joint_name.clone())
            .collect();
        assert_eq!(
            coordinates,
            strings(&doc["coordinates"]),
            "{}",
            robot.fixture
        );
        let frames: Vec<String> = imported.frames.iter().map(|f| f.name.clone()).collect();
        assert_eq!(frames, strings(&doc["frames"]), "{}", robot.fixture);
        // The joint wrenches' rows: every joint, the followers too, in Pinocchio's order.
        if !doc["joints"].is_null() {
            let joints: Vec<String> = imported
                .bodies
                .iter()
                .map(|b| b.joint_name.clone())
                .collect();
            assert_eq!(joints, strings(&doc["joints"]), "{}", robot.fixture);
        }
        // The generated constant naming them.
        let (_, generated) = MIMIC_JOINTS
            .iter()
            .find(|(fixture, _)| *fixture == robot.fixture)
            .expect("every mimic robot's joints");
        let every: Vec<String> = imported
            .bodies
            .iter()
            .map(|b| b.joint_name.clone())
            .collect();
        assert_eq!(every, *generated, "{}: ALL_JOINT_NAMES", robot.fixture);
    }
}

#[test]
fn every_function_matches_pinocchio() {
    for robot in MIMIC {
        let doc = fixture(robot.fixture);
        let states = doc["states"].as_array().expect("states");
        // Every function the fixture holds is generated, and every generated one but the
        // regressors (checked below) is in the fixture.
        let keys: Vec<&str> = states[0]
            .as_object()
            .expect("a state")
            .keys()
            .map(String::as_str)
            .filter(|k| !["q", "v", "a"].contains(k))
            .collect();
        for key in &keys {
            assert!(
                robot.kinds.iter().any(|(_, name)| name == key),
                "{}: `{key}` not generated",
                robot.fixture
            );
        }
        let regressors = robot
            .kinds
            .iter()
            .filter(|(k, _)| REGRESSORS.contains(k))
            .count();
        assert_eq!(
            robot.kinds.len(),
            keys.len() + regressors,
            "{}",
            robot.fixture
        );
        for (s, state) in states.iter().enumerate() {
            let [q, v, a] = ["q", "v", "a"].map(|k| flat(&state[k]));
            for &(kind, name) in robot.kinds {
                if REGRESSORS.contains(&kind) {
                    continue;
                }
                let expected = flat(&state[name]);
                for (label, call) in [("rust", robot.rust), ("c", robot.c)] {
                    assert_close(
                        &format!("{} {label} state {s} {name}", robot.fixture),
                        &call(kind, &q, &v, &a),
                        &expected,
                        REL,
                    );
                }
            }
        }
    }
}

/// `Y(q, v, a) pi = tau` with the generated standard parameters and `Yb(q, v, a) pi_b = tau`
/// with the base parameters, so the regressors in the independent coordinates are checked
/// against Pinocchio's inverse dynamics; `NB` is the rank of `Y` over the fixture's states
/// and `Yb` has full column rank there.
#[test]
fn regressor_times_the_parameters_is_pinocchios_inverse_dynamics() {
    for robot in MIMIC
        .iter()
        .filter(|r| r.kinds.iter().any(|(k, _)| *k == FunctionKind::Regressor))
    {
        let doc = fixture(robot.fixture);
        let module = build_module_only(&robot_of(&doc), Some(&[FunctionKind::BaseRegressor]));
        let constant = |name: &str| {
            &module
                .constants
                .iter()
                .find(|c| c.name == name)
                .unwrap_or_else(|| panic!("{name}"))
                .values
        };
        let (pi, pi_b) = (constant("standard_parameters"), constant("base_parameters"));
        let (mut ys, mut ybs, mut rows) = (Vec::new(), Vec::new(), 0);
        for (s, state) in doc["states"].as_array().expect("states").iter().enumerate() {
            let [q, v, a] = ["q", "v", "a"].map(|k| flat(&state[k]));
            let tau = flat(&state["inverse_dynamics"]);
            for (label, call) in [("rust", robot.rust), ("c", robot.c)] {
                for (kind, params, what) in [
                    (FunctionKind::Regressor, pi, "Y pi"),
                    (FunctionKind::BaseRegressor, pi_b, "Yb pi_b"),
                ] {
                    let y = call(kind, &q, &v, &a);
                    assert_eq!(
                        y.len(),
                        tau.len() * params.len(),
                        "{} {what}",
                        robot.fixture
                    );
                    let product: Vec<f64> = y
                        .chunks(params.len())
                        .map(|row| row.iter().zip(params).map(|(y, p)| y * p).sum())
                        .collect();
                    assert_close(
                        &format!("{} {label} state {s} {what}", robot.fixture),
                        &product,
                        &tau,
                        REL,
                    );
                }
            }
            ys.extend((robot.c)(FunctionKind::Regressor, &q, &v, &a));
            ybs.extend((robot.c)(FunctionKind::BaseRegressor, &q, &v, &a));
            rows += tau.len();
        }
        let nb = pi_b.len();
        assert_eq!(
            numeric_rank(&ys, rows, pi.len()),
            nb,
            "{}: NB = rank of Y",
            robot.fixture
        );
        assert_eq!(
            numeric_rank(&ybs, rows, nb),
            nb,
            "{}: Yb of full rank",
            robot.fixture
        );
    }
}

/// Identities in the independent coordinates, from the generated functions alone (a second
/// formulation beside the fixtures): `C v + g = h` (the Coriolis matrix against the
/// nonlinear effects and gravity), `h_c + h_o + h_g + g = h` and `v . h_g = 0` (the velocity
/// split), and the contact forces balancing the dynamics, `M a + h = tau + Jcᵀ λ` (the mass
/// matrix, the nonlinear effects and the contact Jacobian against the contact dynamics).
#[test]
fn coriolis_matrix_and_contact_forces_balance_the_coupled_dynamics() {
    let (mut contacts, mut splits) = (0, 0);
    for robot in MIMIC {
        let has = |kind| robot.kinds.iter().any(|(k, _)| *k == kind);
        let doc = fixture(robot.fixture);
        for (s, state) in doc["states"].as_array().expect("states").iter().enumerate() {
            let [q, v, tau] = ["q", "v", "a"].map(|k| flat(&state[k]));
            let nv = v.len();
            for (label, call) in [("rust", robot.rust), ("c", robot.c)] {
                let what = |name: &str| format!("{} {label} state {s} {name}", robot.fixture);
                let h = call(FunctionKind::NonlinearEffects, &q, &v, &tau);
                if has(FunctionKind::CoriolisMatrix) {
                    let c = call(FunctionKind::CoriolisMatrix, &q, &v, &tau);
                    let g = call(FunctionKind::Gravity, &q, &v, &tau);
                    let cv: Vec<f64> = (0..nv)
                        .map(|i| g[i] + (0..nv).map(|j| c[i * nv + j] * v[j]).sum::<f64>())
                        .collect();
                    assert_close(&what("C v + g"), &cv, &h, REL);
                }
                if has(FunctionKind::Centrifugal) {
                    splits += 1;
                    let g = call(FunctionKind::Gravity, &q, &v, &tau);
                    let parts = [
                        FunctionKind::Centrifugal,
                        FunctionKind::Coriolis,
                        FunctionKind::Gyroscopic,
                    ]
                    .map(|kind| call(kind, &q, &v, &tau));
                    let sum: Vec<f64> = (0..nv)
                        .map(|i| g[i] + parts.iter().map(|p| p[i]).sum::<f64>())
                        .collect();
                    assert_close(&what("h_c + h_o + h_g + g"), &sum, &h, REL);
                    let power: f64 = parts[2].iter().zip(&v).map(|(x, y)| x * y).sum();
                    let scale = parts[2].iter().fold(1.0_f64, |m, x| m.max(x.abs()));
                    let speed = v.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
                    assert!(
                        power.abs() <= REL * scale * speed,
                        "{}: v . h_g = {power}",
                        what("h_g")
                    );
                }
                if !has(FunctionKind::ContactForwardDynamics) {
                    continue;
                }
                contacts += 1;
                let m = call(FunctionKind::MassMatrix, &q, &v, &tau);
                let jc = call(FunctionKind::ContactJacobian, &q, &v, &tau);
                let out = call(FunctionKind::ContactForwardDynamics, &q, &v, &tau);
                let (a, lambda) = out.split_at(nv);
                let left: Vec<f64> = (0..nv)
                    .map(|i| h[i] + (0..nv).map(|j| m[i * nv + j] * a[j]).sum::<f64>())
                    .collect();
                let right: Vec<f64> = (0..nv)
                    .map(|i| {
                        tau[i]
                            + (0..lambda.len())
                                .map(|r| jc[r * nv + i] * lambda[r])
                                .sum::<f64>()
                    })
                    .collect();
                assert_close(&what("M a + h = tau + Jc^T lambda"), &left, &right, REL);
            }
        }
    }
    // The floating tree and the Panda, in both languages, over every state.
    assert!(
        contacts >= 2 * 2,
        "contact dynamics checked {contacts} times"
    );
    // The fixed-base ones: the tree, the chain, the Panda and the MJCF model.
    assert!(splits >= 4 * 2, "velocity split checked {splits} times");
}

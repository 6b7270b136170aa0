//! Robots with joints that follow others (URDF `<mimic>`: a follower on a sibling branch with
//! a negative multiplier and an offset, prismatic followers, the Franka Panda's second finger;
//! MJCF joint equalities with `ref` on both joints and armature, damping and a spring on the
//! follower), on fixed and floating bases: every function they have, compiled in C and Rust,
//! against Pinocchio 4's mimic model and its full model seen through the coupling, and against
//! MuJoCo's full quantities seen through it (`tests/fixtures/mimic/`,
//! tools/mimic_reference.py) at 1e-9 relative.

use quasidyn_codegen::import::ImportOptions;
use quasidyn_codegen::{build_module_only, load_input_with, FunctionKind};
use quasidyn_tests::generated::MIMIC;
use quasidyn_tests::{assert_close, json_numbers as flat, workspace_root};
use serde_json::Value;

const REL: f64 = 1e-9;

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
    assert_eq!(MIMIC.len(), 4);
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
    }
}

#[test]
fn every_function_matches_pinocchio() {
    for robot in MIMIC {
        let doc = fixture(robot.fixture);
        let states = doc["states"].as_array().expect("states");
        // Every function the fixture holds is generated, and every generated one but the
        // regressor (checked below) is in the fixture.
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
        let regressor = robot
            .kinds
            .iter()
            .any(|(k, _)| *k == FunctionKind::Regressor);
        assert_eq!(
            robot.kinds.len(),
            keys.len() + usize::from(regressor),
            "{}",
            robot.fixture
        );
        for (s, state) in states.iter().enumerate() {
            let [q, v, a] = ["q", "v", "a"].map(|k| flat(&state[k]));
            for &(kind, name) in robot.kinds {
                if kind == FunctionKind::Regressor {
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

/// `Y(q, v, a) pi = tau` with the generated standard parameters, so the regressor in the
/// independent coordinates is checked against Pinocchio's inverse dynamics.
#[test]
fn regressor_times_the_parameters_is_pinocchios_inverse_dynamics() {
    for robot in MIMIC
        .iter()
        .filter(|r| r.kinds.iter().any(|(k, _)| *k == FunctionKind::Regressor))
    {
        let doc = fixture(robot.fixture);
        let module = build_module_only(&robot_of(&doc), Some(&[FunctionKind::Gravity]));
        let pi = &module
            .constants
            .iter()
            .find(|c| c.name == "standard_parameters")
            .expect("standard parameters")
            .values;
        for (s, state) in doc["states"].as_array().expect("states").iter().enumerate() {
            let [q, v, a] = ["q", "v", "a"].map(|k| flat(&state[k]));
            let tau = flat(&state["inverse_dynamics"]);
            for (label, call) in [("rust", robot.rust), ("c", robot.c)] {
                let y = call(FunctionKind::Regressor, &q, &v, &a);
                assert_eq!(y.len(), tau.len() * pi.len(), "{} regressor", robot.fixture);
                let product: Vec<f64> = y
                    .chunks(pi.len())
                    .map(|row| row.iter().zip(pi).map(|(y, p)| y * p).sum())
                    .collect();
                assert_close(
                    &format!("{} {label} state {s} Y pi", robot.fixture),
                    &product,
                    &tau,
                    REL,
                );
            }
        }
    }
}

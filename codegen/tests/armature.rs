//! Joint armature (a rotor's inertia about its joint axis, `armature` in a spec): the functions
//! of a fixed-base tree with armature, evaluated through the IR, against Pinocchio with
//! `model.armature` set (tests/fixtures/armature/, written by tools/reference.py) at 1e-9
//! relative, both forms of the mass matrix and of forward dynamics included; what armature
//! leaves unchanged; the regressors refused; the spec's checks; and a robot whose armature is
//! all zero generates the code it generates without the key. (The floating base with
//! armature is checked in floating.rs, MJCF armature in mjcf.rs.)

use std::path::{Path, PathBuf};

use quasidyn_codegen::algebra::Numeric;
use quasidyn_codegen::derive::derive;
use quasidyn_codegen::ir::Env;
use quasidyn_codegen::{
    available_functions, build_module, build_module_only, c_code, emit_c, load_spec, parse_spec,
    select_functions, to_toml, COptions, Error, FunctionKind, Module, Robot,
};
use serde_json::Value;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/armature")
}

fn rotors() -> Robot {
    load_spec(&dir().join("rotors.toml")).expect("the fixture spec loads")
}

fn fixture() -> Value {
    let text = std::fs::read_to_string(dir().join("rotors.json"))
        .expect("fixture readable (run tools/reference.py tests/fixtures/armature/rotors.toml)");
    serde_json::from_str(&text).expect("fixture is JSON")
}

fn numbers(v: &Value) -> Vec<f64> {
    match v {
        Value::Array(items) => items.iter().flat_map(numbers).collect(),
        Value::Number(n) => vec![n.as_f64().expect("a number")],
        other => panic!("not a number: {other}"),
    }
}

/// `|a − e| ≤ 1e-9 · max(1, ‖expected‖∞)` per entry.
#[track_caller]
fn assert_close(what: &str, actual: &[f64], expected: &[f64]) {
    assert_eq!(actual.len(), expected.len(), "{what}: length");
    let scale = expected.iter().fold(1.0_f64, |m, v| m.max(v.abs()));
    for (k, (a, e)) in actual.iter().zip(expected).enumerate() {
        assert!(
            (a - e).abs() <= 1e-9 * scale,
            "{what}[{k}]: got {a:e}, Pinocchio {e:e}"
        );
    }
}

fn eval(module: &Module, kind: FunctionKind, env: &Env) -> Vec<Vec<f64>> {
    let function = module
        .function(kind)
        .unwrap_or_else(|| panic!("{kind:?} generated"));
    function
        .outputs
        .iter()
        .map(|o| module.graph.eval_many(&o.values, env))
        .collect()
}

fn env(state: &Value, tau: &str) -> Env {
    Env {
        q: numbers(&state["q"]),
        qd: numbers(&state["qd"]),
        qdd: numbers(&state["qdd"]),
        tau: numbers(&state[tau]),
        ..Env::default()
    }
}

#[test]
fn every_function_matches_pinocchio_with_armature() {
    let robot = rotors();
    assert!(robot.has_armature());
    let mut kinds = available_functions(&robot);
    kinds.push(FunctionKind::MassMatrixInverse);
    let module = build_module_only(&robot, Some(&kinds));
    let states = fixture()["states"].as_array().expect("states").clone();
    assert_eq!(states.len(), 50);
    for (s, state) in states.iter().enumerate() {
        let what = |f: &str| format!("state {s} {f}");
        let (with_a, with_tau) = (env(state, "tau_fd"), env(state, "tau_fd"));
        let with_a = Env {
            tau: Vec::new(),
            ..with_a
        };
        let with_tau = Env {
            qdd: Vec::new(),
            ..with_tau
        };
        let mut checked = 0;
        for f in &module.functions {
            let got = |env: &Env| eval(&module, f.kind, env);
            let want = |key: &str| numbers(&state[key]);
            match f.kind {
                FunctionKind::InverseDynamics => {
                    assert_close(&what("tau"), &got(&with_a)[0], &want("tau"));
                }
                FunctionKind::Gravity => {
                    assert_close(&what("gravity"), &got(&with_a)[0], &want("gravity"));
                }
                FunctionKind::NonlinearEffects => {
                    let h = &want("nonlinear_effects");
                    assert_close(&what("nonlinear effects"), &got(&with_a)[0], h);
                }
                FunctionKind::MassMatrix => {
                    let m = &want("mass_matrix");
                    assert_close(&what("mass matrix"), &got(&with_a)[0], m);
                }
                FunctionKind::ForwardDynamics => {
                    assert_close(&what("qdd_fd"), &got(&with_tau)[0], &want("qdd_fd"));
                }
                FunctionKind::Centrifugal => {
                    assert_close(&what("h_c"), &got(&with_a)[0], &want("centrifugal"));
                }
                FunctionKind::Coriolis => {
                    assert_close(&what("h_o"), &got(&with_a)[0], &want("coriolis"));
                }
                FunctionKind::Gyroscopic => {
                    assert_close(&what("h_g"), &got(&with_a)[0], &want("gyroscopic"));
                }
                FunctionKind::StaticJointReactions => {
                    let [f, t] = [0, 1].map(|k| got(&with_a)[k].clone());
                    assert_close(&what("static force"), &f, &want("static_force"));
                    assert_close(&what("static moment"), &t, &want("static_moment"));
                }
                FunctionKind::InverseDynamicsDerivatives => {
                    let out = got(&with_a);
                    assert_close(&what("dtau_dq"), &out[0], &want("dtau_dq"));
                    assert_close(&what("dtau_dqd"), &out[1], &want("dtau_dqd"));
                }
                FunctionKind::ForwardDynamicsDerivatives => {
                    let out = got(&with_tau);
                    assert_close(&what("dqdd_dq"), &out[0], &want("dqdd_dq"));
                    assert_close(&what("dqdd_dqd"), &out[1], &want("dqdd_dqd"));
                    assert_close(&what("Minv"), &out[2], &want("Minv"));
                }
                FunctionKind::MassMatrixInverse => {
                    assert_close(&what("M^-1"), &got(&with_a)[0], &want("Minv"));
                }
                FunctionKind::FrameKinematics(0) => {
                    let frame = &state["frames"][0];
                    let out = got(&with_a);
                    assert_close(&what("R"), &out[0], &numbers(&frame["rotation"]));
                    assert_close(&what("p"), &out[1], &numbers(&frame["position"]));
                }
                FunctionKind::FrameJacobian(0) => {
                    let jacobian = numbers(&state["frames"][0]["jacobian"]);
                    assert_close(&what("J"), &got(&with_a)[0], &jacobian);
                }
                // Gravity's derivatives do not see the armature; the derivative fixtures
                // check them on the robots without it.
                FunctionKind::GravityDerivatives => {}
                other => panic!("{other:?} is not checked"),
            }
            checked += 1;
        }
        assert_eq!(checked, 15, "every function checked");
    }
}

/// The mass matrix and forward dynamics in both of their forms (the generator keeps the
/// shorter: the wrench carried joint by joint or the products in the base frame; articulated
/// bodies or the factorisation), computed numerically.
#[test]
fn both_forms_carry_the_armature() {
    let robot = rotors();
    let n = robot.dof();
    for state in fixture()["states"]
        .as_array()
        .expect("states")
        .iter()
        .take(5)
    {
        let mut num = Numeric {
            q: numbers(&state["q"]),
            qd: numbers(&state["qd"]),
            qdd: numbers(&state["qdd"]),
            tau: numbers(&state["tau_fd"]),
            ..Numeric::default()
        };
        let d = derive(&mut num, &robot);
        assert_eq!(d.mass_matrix_in_base.len(), n * n);
        assert_eq!(d.forward_dynamics_factored.len(), n);
        let m = numbers(&state["mass_matrix"]);
        assert_close("M", &d.mass_matrix, &m);
        assert_close("M in base", &d.mass_matrix_in_base, &m);
        let qdd = numbers(&state["qdd_fd"]);
        assert_close("articulated", &d.forward_dynamics, &qdd);
        assert_close("factored", &d.forward_dynamics_factored, &qdd);
        assert_close("tau", &d.inverse_dynamics, &numbers(&state["tau"]));
    }
}

/// `robot` with every joint's armature zero.
fn bare(robot: &Robot) -> Robot {
    let mut out = robot.clone();
    for b in &mut out.bodies {
        b.armature = 0.0;
    }
    out
}

/// Armature enters the mass matrix and the joint forces only: gravity, the nonlinear effects,
/// the Coriolis matrix, the centroidal quantities (Pinocchio's `ccrba` and
/// `computeCoriolisMatrix` do not change with `model.armature`: tools/floating_reference.py
/// checks it) and the joint wrenches (what the links transmit) are the robot's without it.
#[test]
fn what_armature_leaves_unchanged() {
    let robot = rotors();
    let kinds = select_functions(
        &robot,
        &[
            "gravity",
            "nonlinear_effects",
            "coriolis_matrix",
            "centroidal",
            "joint_wrenches",
        ],
    )
    .expect("the robot has them");
    assert!(kinds.len() >= 9, "{kinds:?}");
    let with = build_module_only(&robot, Some(&kinds));
    let without = build_module_only(&bare(&robot), Some(&kinds));
    let env = Env {
        q: vec![0.3, -1.1, 0.2, 0.7, -0.4],
        qd: vec![1.2, 0.5, -0.8, 0.3, 2.0],
        qdd: vec![-0.6, 1.4, 0.9, -1.7, 0.2],
        ..Env::default()
    };
    for kind in kinds {
        assert_eq!(
            eval(&with, kind, &env),
            eval(&without, kind, &env),
            "{kind:?}"
        );
    }
}

#[test]
fn regressors_are_refused_with_armature() {
    let robot = rotors();
    let kinds = available_functions(&robot);
    assert!(!kinds.contains(&FunctionKind::Regressor));
    assert!(!kinds.contains(&FunctionKind::BaseRegressor));
    assert!(build_module(&robot)
        .function(FunctionKind::Regressor)
        .is_none());
    for name in ["regressor", "base_regressor"] {
        match select_functions(&robot, &[name]) {
            Err(e @ Error::RegressorWithArmature { .. }) => {
                assert!(e.to_string().contains("armature"), "{e}");
            }
            other => panic!("{name}: {other:?}"),
        }
    }
    // Without armature they are there again.
    let kinds = available_functions(&bare(&robot));
    assert!(kinds.contains(&FunctionKind::Regressor));
    assert!(kinds.contains(&FunctionKind::BaseRegressor));
}

const CHAIN: &str = r#"
name = "pair"
[[body]]
joint = "revolute"
axis = "z"
next = [0.3, 0.0, 0.0]
mass = 1.0
com = [0.15, 0.0, 0.0]
inertia = { ixx = 0.001, iyy = 0.01, izz = 0.01 }
ARMATURE1
[[body]]
joint = "prismatic"
axis = "x"
next = [0.2, 0.0, 0.0]
mass = 0.5
com = [0.1, 0.0, 0.0]
ARMATURE2
"#;

fn chain(first: &str, second: &str) -> String {
    CHAIN
        .replace("ARMATURE1", first)
        .replace("ARMATURE2", second)
}

#[test]
fn the_spec_checks_armature() {
    let robot = parse_spec(&chain("armature = 0.5", "armature = 2.0"), "pair.toml").unwrap();
    let armature: Vec<f64> = robot.bodies.iter().map(|b| b.armature).collect();
    assert_eq!(armature, [0.5, 2.0]);
    // The printed spec reads back as the same robot.
    let printed = to_toml(&robot);
    assert!(printed.contains("armature = 0.5"), "{printed}");
    assert_eq!(parse_spec(&printed, "printed.toml").unwrap(), robot);

    let e = parse_spec(&chain("armature = -0.1", ""), "pair.toml").unwrap_err();
    assert_eq!(
        (e.field(), e.line()),
        (Some("body[1].armature"), Some(10)),
        "{e}"
    );
    assert!(e.message().contains("must not be negative"), "{e}");
    let elastic = chain("stiffness = 100.0\narmature = 0.1", "");
    let e = parse_spec(&elastic, "pair.toml").unwrap_err();
    assert_eq!(e.field(), Some("body[1].armature"), "{e}");
    assert!(e.message().contains("motor_inertia"), "{e}");
    let e = parse_spec(&chain("armature = \"big\"", ""), "pair.toml").unwrap_err();
    assert!(e.to_string().contains("armature"), "{e}");
}

/// A robot whose armature is all zero is the robot without the key: the same spec text, so
/// the same generated code (its header records the spec's hash).
#[test]
fn zero_armature_changes_nothing() {
    let without = parse_spec(&chain("", ""), "pair.toml").unwrap();
    let with = parse_spec(&chain("armature = 0.0", "armature = 0"), "pair.toml").unwrap();
    assert_eq!(with, without);
    assert_eq!(to_toml(&with), to_toml(&without));
    let c = |robot: &Robot| emit_c(&build_module(robot), &COptions::default()).expect("C");
    assert_eq!(c(&with), c(&without));
}

/// A joint that moves nothing but its rotor is regular: the armature alone is its inertia.
#[test]
fn a_rotor_alone_makes_the_mass_matrix_regular() {
    let massless = chain("", "").replace("mass = 0.5", "mass = 0.0");
    let robot = parse_spec(&massless, "pair.toml").unwrap();
    let c = |robot: &Robot| c_code(robot, "pair", &COptions::default());
    let e = c(&robot).unwrap_err();
    assert!(matches!(e, Error::SingularMassMatrix { .. }), "{e:?}");
    let robot = parse_spec(
        &massless.replace(
            "com = [0.1, 0.0, 0.0]\n",
            "com = [0.1, 0.0, 0.0]\narmature = 0.3\n",
        ),
        "pair.toml",
    )
    .unwrap();
    c(&robot).expect("regular with the rotor");
}

/// A prescribed base's functions carry the armature too: `tau(qdd) - tau(0) = M qdd` with
/// `M` the bare robot's plus the armature on its diagonal, and forward dynamics inverts it.
#[test]
fn a_prescribed_base_carries_the_armature() {
    let spec = format!(
        "{}\n[base]\nmotion = \"prescribed\"\n",
        chain("armature = 0.5", "armature = 2.0")
    );
    let robot = parse_spec(&spec, "pair.toml").unwrap();
    let kinds = [
        FunctionKind::InverseDynamics,
        FunctionKind::MassMatrix,
        FunctionKind::ForwardDynamics,
    ];
    let with = build_module_only(&robot, Some(&kinds));
    let without = build_module_only(&bare(&robot), Some(&kinds));
    let (q, qd, qdd) = (vec![0.7, 0.1], vec![-1.3, 0.4], vec![0.9, -2.1]);
    // Pose (position, quaternion x y z w), velocity, acceleration of the base.
    let mut base = vec![0.1, -0.2, 0.3, 0.1, 0.2, -0.3, 0.9];
    base.extend([
        0.5, -0.1, 0.2, 0.3, -0.6, 0.4, 1.1, 0.2, -0.7, -0.2, 0.5, 0.8,
    ]);
    let env = |qdd: &[f64], tau: &[f64]| Env {
        q: q.clone(),
        qd: qd.clone(),
        qdd: qdd.to_vec(),
        tau: tau.to_vec(),
        base: base.clone(),
        ..Env::default()
    };
    let one = |m: &Module, kind, env: &Env| eval(m, kind, env).remove(0);
    let tau = one(&with, FunctionKind::InverseDynamics, &env(&qdd, &[]));
    let tau0 = one(&with, FunctionKind::InverseDynamics, &env(&[0.0; 2], &[]));
    let m = one(&with, FunctionKind::MassMatrix, &env(&[], &[]));
    let m_bare = one(&without, FunctionKind::MassMatrix, &env(&[], &[]));
    let mut m_expected = m_bare.clone();
    m_expected[0] += 0.5;
    m_expected[3] += 2.0;
    assert_close("M", &m, &m_expected);
    let m_qdd: Vec<f64> = (0..2)
        .map(|i| tau0[i] + m[2 * i] * qdd[0] + m[2 * i + 1] * qdd[1])
        .collect();
    assert_close("tau", &tau, &m_qdd);
    let fd = one(&with, FunctionKind::ForwardDynamics, &env(&[], &tau));
    assert_close("qdd", &fd, &qdd);
}

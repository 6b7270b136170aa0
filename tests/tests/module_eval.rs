//! The generator's expression graph, evaluated numerically, against the Pinocchio fixtures:
//! every generated function of every shipped robot, before any code is emitted.

use quasidyn_codegen::ir::Env;
use quasidyn_codegen::{build_module, FunctionKind, Module};
use quasidyn_tests::{
    assert_close, flat, load_fixture, shipped_robots, workspace_root, Fixture, FixtureState,
};

const REL: f64 = 1e-10;

fn eval(module: &Module, kind: FunctionKind, env: &Env) -> Vec<Vec<f64>> {
    let function = module.function(kind).expect("function generated");
    function
        .outputs
        .iter()
        .map(|o| module.graph.eval_many(&o.values, env))
        .collect()
}

fn check_state(module: &Module, s: &FixtureState, what: &dyn Fn(&str) -> String) {
    let mut env = Env {
        q: s.q.clone(),
        qd: s.qd.clone(),
        qdd: s.qdd.clone(),
        tau: s.tau.clone(),
        params: Vec::new(),
        base: Vec::new(),
        elastic: Default::default(),
    };
    // Forward dynamics driven by Pinocchio's inverse-dynamics torque gives back its qdd.
    let fd = eval(module, FunctionKind::ForwardDynamics, &env).remove(0);
    assert_close(&what("qdd from tau"), &fd, &s.qdd, REL);
    let optional = !s.tau_fd.is_empty();
    if optional {
        env.tau = s.tau_fd.clone();
    }
    let one = |kind| eval(module, kind, &env).remove(0);
    assert_close(
        &what("tau"),
        &one(FunctionKind::InverseDynamics),
        &s.tau,
        REL,
    );
    assert_close(
        &what("gravity"),
        &one(FunctionKind::Gravity),
        &s.gravity,
        REL,
    );
    assert_close(
        &what("nle"),
        &one(FunctionKind::NonlinearEffects),
        &s.nonlinear_effects,
        REL,
    );
    assert_close(
        &what("M"),
        &one(FunctionKind::MassMatrix),
        &flat(&s.mass_matrix),
        REL,
    );
    let fk = eval(module, FunctionKind::ForwardKinematics, &env);
    assert_close(&what("R"), &fk[0], &flat(&s.tool_rotation), REL);
    assert_close(&what("p"), &fk[1], &s.tool_position, REL);
    assert_close(
        &what("J"),
        &one(FunctionKind::Jacobian),
        &flat(&s.jacobian),
        REL,
    );
    if !optional {
        // URDF and DH fixtures stop here: no forward-dynamics torque, split or statics.
        return;
    }
    assert_close(
        &what("qdd_fd"),
        &one(FunctionKind::ForwardDynamics),
        &s.qdd_fd,
        REL,
    );
    assert_close(
        &what("hc"),
        &one(FunctionKind::Centrifugal),
        &s.centrifugal,
        REL,
    );
    assert_close(&what("ho"), &one(FunctionKind::Coriolis), &s.coriolis, REL);
    assert_close(
        &what("hg"),
        &one(FunctionKind::Gyroscopic),
        &s.gyroscopic,
        REL,
    );
    let statics = eval(module, FunctionKind::StaticJointReactions, &env);
    assert_close(&what("F"), &statics[0], &flat(&s.static_force), REL);
    assert_close(&what("T"), &statics[1], &flat(&s.static_moment), REL);
}

#[test]
fn generated_expressions_match_pinocchio_fixtures() {
    for path in shipped_robots() {
        let robot = quasidyn_codegen::load_spec(&path).expect("shipped spec parses");
        if !robot.is_chain() {
            continue; // the tree robots' modules: tests/tests/trees.rs
        }
        let fixture = load_fixture(path.file_stem().unwrap().to_str().unwrap());
        for module in [build_module(&robot), build_module(&robot).lowered()] {
            for (k, s) in fixture.states.iter().enumerate() {
                check_state(&module, s, &|f| format!("{} state {k} {f}", robot.name));
            }
        }
    }
}

fn check_imported(kind: &str, name: &str, tip: Option<&str>) {
    let dir = workspace_root().join("tests/fixtures").join(kind);
    let input = if kind == "urdf" {
        dir.join(format!("{name}.urdf"))
    } else {
        dir.join(format!("{name}.toml"))
    };
    // Pinocchio reads the values as written: the literal import (snapping is checked against
    // it in codegen/tests/snap.rs).
    let options = quasidyn_codegen::import::ImportOptions {
        tip: tip.map(str::to_owned),
        snap: false,
        ..Default::default()
    };
    let robot = quasidyn_codegen::load_input_with(&input, &options)
        .expect("fixture input imports")
        .robot;
    let text = std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap();
    let fixture: Fixture = serde_json::from_str(&text).unwrap();
    assert_eq!(fixture.dof, robot.dof());
    assert!(!fixture.states.is_empty());
    let module = build_module(&robot);
    for (k, s) in fixture.states.iter().enumerate() {
        check_state(&module, s, &|f| format!("{kind} {name} state {k} {f}"));
    }
}

#[test]
fn generated_expressions_match_pinocchio_for_urdf_imports() {
    check_imported("urdf", "ur5", Some("tool0"));
    check_imported("urdf", "panda", Some("panda_hand_tcp"));
    check_imported("urdf", "so101", Some("gripper_frame_link"));
    check_imported("urdf", "synthetic", Some("tool"));
}

#[test]
fn generated_expressions_match_pinocchio_for_dh_tables() {
    for name in [
        "puma560",
        "rx90",
        "synthetic_standard",
        "synthetic_modified",
    ] {
        check_imported("dh", name, None);
    }
}

//! Elastic joints and flexible links in the spec: the keys, the counts and names of `beta` and
//! `w`, the round trip through `to_toml`, and every rejection located at its key.

use quasidyn_codegen::beam::{clamped_free_eigenvalue, clamped_free_tip_slope};
use quasidyn_codegen::{build_module, parse_spec, to_toml, FunctionKind, Robot, SpecError};

/// Seed 002's two-link arm on a turntable, all joints elastic, the forearm flexible.
const ARM: &str = r#"name = "arm"
gravity = [0.0, 0.0, -9.81]

[[body]]
name = "turntable"
joint = "revolute"
axis = "z"
mass = 2.0
inertia = { ixx = 0.01, iyy = 0.01, izz = 0.02 }
stiffness = 2.0e4
motor_inertia = 0.2

[[body]]
name = "upper"
joint = "revolute"
joint_name = "shoulder"
axis = "x"
next = [0.0, 0.5, 0.0]
mass = 3.0
com = [0.0, 0.25, 0.0]
stiffness = 1.5e4
damping = 3.0
motor_inertia = 0.5

[[body]]
name = "forearm"
joint = "revolute"
axis = "-x"
next = [0.0, 0.4, 0.0]
mass = 1.0
com = [0.0, 0.2, 0.0]

[body.flex]
directions = ["x", "+z"]
modes = 2
"#;

fn parse(text: &str) -> Robot {
    parse_spec(text, "test.toml").unwrap_or_else(|e| panic!("expected a valid spec, got: {e}"))
}

/// 1-based line and column (in characters) of the first `needle` in `text`, after `after`.
fn at(text: &str, after: &str, needle: &str) -> (usize, usize) {
    let start = text.find(after).expect("anchor present");
    let k = start + text[start..].find(needle).expect("needle present");
    let line = text[..k].matches('\n').count() + 1;
    let line_start = text[..k].rfind('\n').map_or(0, |i| i + 1);
    (line, text[line_start..k].chars().count() + 1)
}

/// Asserts that `text` is rejected at `pos` on `field` with a message containing `phrase`.
#[track_caller]
fn rejects(text: &str, pos: (usize, usize), field: &str, phrase: &str) -> SpecError {
    let e = match parse_spec(text, "test.toml") {
        Ok(_) => panic!("expected rejection ({field}: {phrase})"),
        Err(e) => e,
    };
    let shown = e.to_string();
    assert_eq!(
        (e.line(), e.column(), e.field()),
        (Some(pos.0), Some(pos.1), Some(field)),
        "location of: {shown}"
    );
    assert!(
        e.message().contains(phrase),
        "message of {shown:?} lacks {phrase:?}"
    );
    e
}

#[test]
fn reads_the_keys_counts_and_names() {
    let r = parse(ARM);
    assert!(r.has_elasticity());
    assert_eq!(r.elastic_joints(), vec![0, 1]);
    assert_eq!(r.beta_names(), vec!["q1", "shoulder"]);
    let e = r.bodies[1].elastic.as_ref().unwrap();
    assert_eq!(
        (e.stiffness, e.damping, e.motor_inertia),
        (1.5e4, Some(3.0), Some(0.5))
    );
    let e = r.bodies[0].elastic.as_ref().unwrap();
    assert_eq!((e.damping, e.motor_inertia), (None, Some(0.2)));
    assert!(r.bodies[2].elastic.is_none());
    // w: body by body, direction as listed, mode innermost; "+z" is named "z".
    assert_eq!(
        r.w_names(),
        vec!["forearm.x.1", "forearm.x.2", "forearm.z.1", "forearm.z.2"]
    );
    let f = r.bodies[2].flex.as_ref().unwrap();
    assert_eq!(f.modes, 2);
    assert_eq!(f.directions[1].vector, [0.0, 0.0, 1.0]);

    let m = build_module(&r);
    assert_eq!((m.nbeta(), m.nw()), (2, 4));
    assert_eq!(m.beta_names, r.beta_names());
    assert_eq!(m.w_names, r.w_names());
    // With damping the feedforward is an ODE, not a formula: not generated.
    for kind in FunctionKind::ELASTIC {
        let want = kind != FunctionKind::ElasticFeedforward;
        assert_eq!(m.function(kind).is_some(), want, "{kind:?}");
    }
    let undamped = build_module(&parse(&ARM.replace("damping = 3.0\n", "")));
    assert!(undamped
        .function(FunctionKind::ElasticFeedforward)
        .is_some());
    // Without motor inertias: the kinematics and statics only.
    let kinematic = ARM
        .replace("motor_inertia = 0.2\n", "")
        .replace("motor_inertia = 0.5\n", "");
    let m = build_module(&parse(&kinematic));
    assert!(m.function(FunctionKind::StaticDeflection).is_some());
    assert!(m.function(FunctionKind::ElasticForwardDynamics).is_none());
    assert!(m.function(FunctionKind::ElasticFeedforward).is_none());
}

#[test]
fn rejects_motor_inertia_on_some_elastic_joints_only() {
    let text = ARM.replace("motor_inertia = 0.2\n", "");
    rejects(
        &text,
        at(&text, "stiffness = ", "2.0e4"),
        "body[1].motor_inertia",
        "need `motor_inertia` on every elastic joint",
    );
}

#[test]
fn modes_default_to_one_and_directions_may_be_vectors() {
    let text = ARM
        .replace(
            "directions = [\"x\", \"+z\"]",
            "directions = [[0.6, 0.0, 0.8], \"-x\"]",
        )
        .replace("modes = 2\n", "");
    let r = parse(&text);
    assert_eq!(r.w_names(), vec!["forearm.d1.1", "forearm.-x.1"]);
}

#[test]
fn written_specs_read_back_identically() {
    for text in [
        ARM.to_owned(),
        ARM.replace(
            "directions = [\"x\", \"+z\"]",
            "directions = [[0.6, 0.0, 0.8]]",
        ),
    ] {
        let r = parse(&text);
        let written = to_toml(&r);
        assert!(written.contains("stiffness = 15000.0"), "{written}");
        assert_eq!(parse(&written), r, "{written}");
    }
}

#[test]
fn rigid_specs_have_no_elastic_functions() {
    let rigid = ARM
        .replace("stiffness = 2.0e4\nmotor_inertia = 0.2\n", "")
        .replace(
            "stiffness = 1.5e4\ndamping = 3.0\nmotor_inertia = 0.5\n",
            "",
        );
    let rigid = &rigid[..rigid.find("[body.flex]").unwrap()];
    let r = parse(rigid);
    assert!(!r.has_elasticity());
    let m = build_module(&r);
    assert_eq!((m.nbeta(), m.nw()), (0, 0));
    for kind in FunctionKind::ELASTIC {
        assert!(m.function(kind).is_none(), "{kind:?} not generated");
    }
    assert!(!to_toml(&r).contains("stiffness"));
}

/// Flexible links only: no static deflection (no elastic joint), F2 without columns.
#[test]
fn flexible_links_without_elastic_joints() {
    let text = ARM
        .replace("stiffness = 2.0e4\nmotor_inertia = 0.2\n", "")
        .replace(
            "stiffness = 1.5e4\ndamping = 3.0\nmotor_inertia = 0.5\n",
            "",
        );
    let m = build_module(&parse(&text));
    assert_eq!((m.nbeta(), m.nw()), (0, 4));
    let f = m.function(FunctionKind::ComplianceJacobians).unwrap();
    assert_eq!((f.outputs[0].rows, f.outputs[0].cols), (6, 0));
    assert!(m.function(FunctionKind::StaticDeflection).is_none());
    assert!(m.function(FunctionKind::DeflectedToolError).is_none());
    let c = quasidyn_codegen::emit_c(&m, &Default::default()).unwrap();
    assert!(c.header.contains("#define ARM_NBETA 0"));
    assert!(
        !c.header.contains("arm_beta_names"),
        "C has no empty arrays"
    );
    assert!(c.source.unwrap().contains("(void)F2;"));
    let rust = quasidyn_codegen::emit_rust(&m).unwrap();
    assert!(rust.contains("pub const BETA_NAMES: [&str; NBETA] = [];"));
}

#[test]
fn rejects_a_non_positive_stiffness() {
    for bad in ["-2.0e4", "0.0"] {
        let text = ARM.replacen("stiffness = 2.0e4", &format!("stiffness = {bad}"), 1);
        rejects(
            &text,
            at(&text, "stiffness = ", bad),
            "body[1].stiffness",
            "stiffness must be positive",
        );
    }
}

#[test]
fn rejects_negative_damping_and_inertia() {
    let text = ARM.replace("damping = 3.0", "damping = -3.0");
    rejects(
        &text,
        at(&text, "damping", "-3.0"),
        "body[2].damping",
        "damping must not be negative",
    );
    let text = ARM.replace("motor_inertia = 0.5", "motor_inertia = -0.5");
    rejects(
        &text,
        at(&text, "motor_inertia = -0.5", "-0.5"),
        "body[2].motor_inertia",
        "motor_inertia must be positive",
    );
    let text = ARM.replace("motor_inertia = 0.5", "motor_inertia = 0.0");
    rejects(
        &text,
        at(&text, "motor_inertia = 0.0", "0.0"),
        "body[2].motor_inertia",
        "motor_inertia must be positive",
    );
}

#[test]
fn rejects_damping_or_motor_inertia_without_stiffness() {
    let text = ARM.replace("stiffness = 1.5e4\n", "").replace(
        "stiffness = 2.0e4\nmotor_inertia = 0.2\n",
        "stiffness = 2.0e4\n",
    );
    rejects(
        &text,
        at(&text, "damping = ", "3.0"),
        "body[2].damping",
        "give its `stiffness`",
    );
}

#[test]
fn rejects_flex_on_a_link_without_length() {
    let text = ARM.replace("next = [0.0, 0.4, 0.0]", "next = [0.0, 0.0, 0.0]");
    rejects(
        &text,
        at(&text, "[body.flex]", "[body.flex]"),
        "body[3].flex",
        "needs a length",
    );
    // A flexible link whose next pole coincides with its own.
    let text = ARM.replace(
        "inertia = { ixx = 0.01, iyy = 0.01, izz = 0.02 }\nstiffness = 2.0e4\n",
        "inertia = { ixx = 0.01, iyy = 0.01, izz = 0.02 }\nstiffness = 2.0e4\nflex = { directions = [\"x\"] }\n",
    );
    rejects(
        &text,
        at(&text, "flex = ", "{ directions"),
        "body[1].flex",
        "the next body's pole is at this body's pole",
    );
}

#[test]
fn rejects_a_direction_along_the_link_or_unknown() {
    let text = ARM.replace(
        "directions = [\"x\", \"+z\"]",
        "directions = [\"x\", \"y\"]",
    );
    rejects(
        &text,
        at(&text, "directions", "\"y\""),
        "body[3].flex.directions[2]",
        "perpendicular to the link",
    );
    let text = ARM.replace(
        "directions = [\"x\", \"+z\"]",
        "directions = [[0.0, 0.6, 0.8]]",
    );
    rejects(
        &text,
        at(&text, "directions", "[0.0"),
        "body[3].flex.directions[1]",
        "perpendicular to the link",
    );
    let text = ARM.replace(
        "directions = [\"x\", \"+z\"]",
        "directions = [\"x\", \"w\"]",
    );
    rejects(
        &text,
        at(&text, "directions", "\"w\""),
        "body[3].flex.directions[2]",
        "expected an axis letter",
    );
    let text = ARM.replace(
        "directions = [\"x\", \"+z\"]",
        "directions = [\"x\", \"-x\"]",
    );
    rejects(
        &text,
        at(&text, "directions", "\"-x\""),
        "body[3].flex.directions[2]",
        "parallel to directions[1]",
    );
    let text = ARM.replace("directions = [\"x\", \"+z\"]", "directions = []");
    rejects(
        &text,
        at(&text, "directions", "[]"),
        "body[3].flex.directions",
        "at least one bending direction",
    );
}

#[test]
fn rejects_modes_out_of_range_and_unknown_flex_keys() {
    for bad in ["0", "11", "-1"] {
        let text = ARM.replace("modes = 2", &format!("modes = {bad}"));
        rejects(
            &text,
            at(&text, "modes = ", bad),
            "body[3].flex.modes",
            "expected 1 to 10 modes",
        );
    }
    let text = ARM.replace("modes = 2", "mode = 2");
    let e = parse_spec(&text, "test.toml").unwrap_err();
    assert_eq!(e.field(), Some("body[3].flex.mode"), "{e}");
    assert_eq!(e.line(), Some(at(&text, "[body.flex]", "mode").0));
}

#[test]
fn rejects_elasticity_in_trees_and_on_moving_bases() {
    // Two bodies on the turntable.
    let tree = ARM[..ARM.find("[[body]]\nname = \"forearm\"").unwrap()].replace(
        "[[body]]\nname = \"upper\"",
        "[[body]]\nname = \"other\"\njoint = \"prismatic\"\naxis = \"y\"\nmass = 0.1\n\n\
         [[body]]\nname = \"upper\"\nparent = \"turntable\"",
    );
    let tree = tree.replace("next = [0.0, 0.5, 0.0]\n", "");
    rejects(
        &tree,
        at(&tree, "stiffness", "2.0e4"),
        "body[1].stiffness",
        "not yet supported in a tree",
    );
    let moving = ARM.replace(
        "gravity = [0.0, 0.0, -9.81]\n",
        "gravity = [0.0, 0.0, -9.81]\n\n[base]\nmotion = \"prescribed\"\n",
    );
    rejects(
        &moving,
        at(&moving, "stiffness", "2.0e4"),
        "body[1].stiffness",
        "not yet supported with a moving or floating base",
    );
    let flex_only = moving
        .replace("stiffness = 2.0e4\nmotor_inertia = 0.2\n", "")
        .replace(
            "stiffness = 1.5e4\ndamping = 3.0\nmotor_inertia = 0.5\n",
            "",
        );
    rejects(
        &flex_only,
        at(&flex_only, "[body.flex]", "[body.flex]"),
        "body[3].flex",
        "not yet supported with a moving or floating base",
    );
}

/// The documented eigenvalues and end slopes (docs/spec.md).
#[test]
fn documented_mode_numbers() {
    let table = [
        (1.8751, 1.3765),
        (4.6941, 4.7808),
        (7.8548, 7.8487),
        (10.9955, 10.9959),
    ];
    for (k, (x, r)) in table.iter().enumerate() {
        assert!((clamped_free_eigenvalue(k + 1) - x).abs() < 5e-5);
        assert!((clamped_free_tip_slope(k + 1) - r).abs() < 5e-5);
    }
}

/// `quasidyn equations --function elastic_velocity` writes seed 002's blocks, and they add up
/// to the velocity: `v = F qd + F1 qd + F2 betad + F3 qd + F4 wd` (linear part).
#[test]
fn equations_write_seed_002_blocks_that_add_up_to_the_velocity() {
    use quasidyn_codegen::equations::{add_seed_002_blocks, try_equations, Format};
    use quasidyn_codegen::ir::{ElasticInputs, Env};
    let robot = parse(&ARM.replace("damping = 3.0\n", ""));
    let text = try_equations(&robot, FunctionKind::ElasticVelocity, Format::Text).unwrap();
    for name in [
        "\nv1 = ",
        "\nF_1_1 = ",
        "\nF1_3_3 = ",
        "\nF2_1_2 = ",
        "\nF3_2_1 = ",
        "\nF4_3_4 = ",
    ] {
        assert!(text.contains(name), "{name} missing:\n{text}");
    }
    let latex = try_equations(&robot, FunctionKind::ElasticVelocity, Format::Latex).unwrap();
    assert!(latex.contains("F^{(4)}_{3,4}"), "{latex}");
    let rigid = ARM
        .replace("stiffness = 2.0e4\nmotor_inertia = 0.2\n", "")
        .replace(
            "stiffness = 1.5e4\ndamping = 3.0\nmotor_inertia = 0.5\n",
            "",
        );
    let rigid = parse(&rigid[..rigid.find("[body.flex]").unwrap()]);
    assert!(try_equations(&rigid, FunctionKind::ElasticVelocity, Format::Text).is_none());

    let mut m = quasidyn_codegen::build_module_physical(&robot);
    add_seed_002_blocks(&mut m);
    let f = m.function(FunctionKind::ElasticVelocity).unwrap();
    let names: Vec<&str> = f.outputs.iter().map(|o| o.name).collect();
    assert_eq!(names, ["v", "F_", "F1_", "F2_", "F3_", "F4_"]);
    let env = Env {
        q: vec![0.3, -0.7, 1.1],
        qd: vec![0.5, -1.2, 0.8],
        elastic: ElasticInputs {
            beta: vec![0.02, -0.01],
            betad: vec![0.3, -0.2],
            w: vec![0.01, -0.02, 0.005, 0.015],
            wd: vec![0.1, 0.2, -0.3, 0.05],
            ..Default::default()
        },
        ..Env::default()
    };
    let out: Vec<Vec<f64>> = f
        .outputs
        .iter()
        .map(|o| m.graph.eval_many(&o.values, &env))
        .collect();
    let e = &env.elastic;
    for r in 0..3 {
        let dot = |block: &[f64], x: &[f64]| -> f64 {
            let cols = x.len();
            (0..cols).map(|j| block[r * cols + j] * x[j]).sum()
        };
        let sum = dot(&out[1], &env.qd)
            + dot(&out[2], &env.qd)
            + dot(&out[3], &e.betad)
            + dot(&out[4], &env.qd)
            + dot(&out[5], &e.wd);
        assert!(
            (out[0][r] - sum).abs() < 1e-12,
            "row {r}: {} vs {sum}",
            out[0][r]
        );
    }
}

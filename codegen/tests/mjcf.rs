//! MJCF import: what is read (compiler settings, defaults, includes, joints, armature,
//! springs, equalities, locks, roots), the compiled C of free models against MuJoCo, and the
//! located errors of what is refused. Every fixture model against MuJoCo is in
//! `mjcf_against_mujoco.rs`.

mod fixture_data;

use std::path::PathBuf;

use fixture_data::{assert_close, env, eval, fixture_dir, numbers};
use quasidyn_codegen::import::{
    import_mjcf, import_mjcf_reading, ImportError, ImportOptions, JointLock,
};
use quasidyn_codegen::{build_module_only, load_input_with, BaseLayout, FunctionKind, Robot};
use serde_json::Value;

/// The error of importing `xml` (a single file; `files` are what includes can read).
fn error_of(xml: &str, files: &[(&str, &str)]) -> ImportError {
    let read = |path: &str| {
        files
            .iter()
            .find(|(name, _)| *name == path)
            .map(|(_, text)| (*text).to_owned())
            .ok_or_else(|| "no such file".to_owned())
    };
    match import_mjcf_reading(xml, "dir/model.xml", &ImportOptions::default(), &read) {
        Ok(_) => panic!("imported: {xml}"),
        Err(e) => e,
    }
}

/// A one-body model with `body` inside its body, `extra` after the worldbody.
fn model(body: &str, extra: &str) -> String {
    format!(
        "<mujoco>\n<worldbody>\n<body name=\"b\">\n{body}\n<geom size=\"0.1\"/>\n</body>\n\
         </worldbody>\n{extra}\n</mujoco>"
    )
}

#[test]
fn ball_joints_are_refused_where_written() {
    let e = error_of(&model("<joint type=\"ball\"/>", ""), &[]);
    assert!(matches!(e, ImportError::UnsupportedJoint { .. }), "{e:?}");
    assert_eq!(e.what(), "joint.type", "{e}");
    assert_eq!(
        (e.location().line, e.location().file.as_str()),
        (4, "dir/model.xml")
    );
    assert!(e.message().contains("ball joints are not supported"), "{e}");
}

/// A free body with a hinge below it: `inner` goes in the free body, `outer` after it.
fn floating(free: &str, inner: &str, outer: &str) -> String {
    format!(
        "<mujoco>\n<worldbody>\n<body name=\"trunk\">\n{free}\n<geom size=\"0.1\"/>\n\
         <body name=\"leg\"><joint name=\"hip\"/><geom size=\"0.1\"/>{inner}</body>\n</body>\n\
         {outer}\n</worldbody>\n</mujoco>"
    )
}

#[test]
fn free_joints_make_a_floating_base_in_mujocos_layout() {
    for free in ["<freejoint name=\"root\"/>", "<joint type=\"free\"/>"] {
        let xml = floating(free, "", "<body name=\"table\"><geom size=\"1\"/></body>");
        let robot = import_mjcf(&xml, "model.xml", &ImportOptions::default())
            .unwrap_or_else(|e| panic!("{free}: {e}"))
            .robot;
        assert!(robot.is_mujoco_floating(), "{free}");
        assert_eq!(robot.dof(), 1);
        // The free body's geom is the base body (the table, welded to the world, is not).
        let base = robot.base_body.as_ref().unwrap();
        assert!((base.mass - 1000.0 * 4.0 / 3.0 * std::f64::consts::PI * 1e-3).abs() < 1e-9);
        assert_eq!(base.armature, 0.0, "{free}");
    }
}

/// A free joint's armature is the base's, from the joint's default class too; `<freejoint>`
/// takes no class, so none; the spec says it and reads it back.
#[test]
fn free_joint_armature_is_the_bases() {
    let classed = "<default><joint armature=\"0.25\"/></default>";
    for (free, armature) in [
        ("<joint type=\"free\" armature=\"0.1\"/>", 0.1),
        ("<joint type=\"free\"/>", 0.25),
        ("<freejoint/>", 0.0),
    ] {
        let xml =
            floating(free, "", "").replacen("<worldbody>", &format!("{classed}<worldbody>"), 1);
        let robot = import_mjcf(&xml, "model.xml", &ImportOptions::default())
            .unwrap_or_else(|e| panic!("{free}: {e}"))
            .robot;
        assert_eq!(robot.base_armature(), armature, "{free}");
        assert!(robot.has_armature(), "{free}: the hinge's class armature");
        let text = quasidyn_codegen::to_toml(&robot);
        assert_eq!(
            text.contains("\narmature = 0.1\n"),
            armature == 0.1,
            "{text}"
        );
        let again = quasidyn_codegen::parse_spec(&text, "free.toml").expect("reads back");
        assert_eq!(again, robot, "{free}");
    }
}

#[test]
fn free_joint_refusals_are_located() {
    let cases = [
        // (xml, line, what the message says)
        (
            floating("<freejoint/>", "<body><freejoint/></body>", ""),
            6,
            "only be in a top-level body",
        ),
        (
            floating("<freejoint/><joint name=\"x\"/>", "", ""),
            4,
            "a free joint and other joints",
        ),
        (
            floating(
                "<freejoint/>",
                "",
                "<body name=\"ball\"><freejoint/><geom size=\"1\"/></body>",
            ),
            8,
            "a second free body (after `trunk`)",
        ),
        (
            floating(
                "<freejoint/>",
                "",
                "<body name=\"door\"><joint name=\"d\"/><geom size=\"1\"/></body>",
            ),
            8,
            "joints outside the tree of the free body `trunk`",
        ),
        (
            floating("<freejoint align=\"true\"/>", "", ""),
            4,
            "align=\"true\"",
        ),
        (
            floating("<joint type=\"free\" armature=\"-0.1\"/>", "", ""),
            4,
            "armature",
        ),
    ];
    for (xml, line, says) in cases {
        let e = error_of(&xml, &[]);
        assert_eq!(e.location().line, line, "{e}\n{xml}");
        assert!(e.message().contains(says), "{e}\n{xml}");
    }
    let aligned = "<mujoco><compiler alignfree=\"true\"/><worldbody/></mujoco>";
    let e = error_of(aligned, &[]);
    assert!(e.message().contains("alignfree"), "{e}");
}

/// A free joint's floating base in MuJoCo's layout has every function Pinocchio's layout
/// has.
#[test]
fn mujoco_layout_has_every_function_of_pinocchios() {
    let xml = floating("<freejoint/>", "<site name=\"toe\"/>", "");
    let robot = import_mjcf(&xml, "model.xml", &ImportOptions::default())
        .unwrap()
        .robot;
    assert!(robot.is_mujoco_floating());
    let pinocchio = Robot {
        base_layout: BaseLayout::Pinocchio,
        ..robot.clone()
    };
    let every = quasidyn_codegen::functions::every_function_of(&robot);
    assert_eq!(
        every,
        quasidyn_codegen::functions::every_function_of(&pinocchio)
    );
    for kind in [
        FunctionKind::InverseDynamicsDerivatives,
        FunctionKind::Regressor,
        FunctionKind::CenterOfMass,
        FunctionKind::CoriolisMatrix,
        FunctionKind::JointWrenches,
        FunctionKind::FrameVelocity(0),
    ] {
        assert!(every.contains(&kind), "{kind:?}");
    }
}

/// The joints' armature of the MJCF `xml`, in joint order.
fn armature_of(xml: &str) -> Vec<f64> {
    let imported = import_mjcf(xml, "m.xml", &ImportOptions::default())
        .unwrap_or_else(|e| panic!("{e}: {xml}"));
    imported.robot.bodies.iter().map(|b| b.armature).collect()
}

/// `model` with a `<default>` section first.
fn with_default(default: &str, body: &str, extra: &str) -> String {
    format!(
        "<mujoco>\n<default>{default}</default>{}",
        &model(body, extra)["<mujoco>".len()..]
    )
}

#[test]
fn armature_is_read_from_joints_defaults_and_actuators() {
    assert_eq!(armature_of(&model("<joint armature=\"0.1\"/>", "")), [0.1]);
    let two = "<joint name=\"j\"/><joint name=\"k\" class=\"c\" type=\"slide\"/>";
    let xml = with_default(
        "<joint armature=\"0.2\"/><default class=\"c\"><joint armature=\"0.5\"/></default>",
        two,
        "",
    );
    assert_eq!(armature_of(&xml), [0.2, 0.5]);
    // An actuator's armature times its gear squared, added to the joint's own; one actuator
    // default per class, whichever shortcut sets it (as MuJoCo).
    let xml = with_default(
        "<joint armature=\"0.2\"/><general armature=\"0.25\" gear=\"2\"/>",
        "<joint name=\"j\"/><joint name=\"k\" type=\"slide\"/>",
        "<actuator><motor joint=\"j\" gear=\"-3\" armature=\"1\"/>\
         <position jointinparent=\"k\"/><velocity joint=\"k\" armature=\"0\"/></actuator>",
    );
    assert_eq!(armature_of(&xml), [0.2 + 9.0, 0.2 + 0.25 * 4.0]);
}

#[test]
fn armature_is_refused_where_mujoco_would_need_more() {
    // Through a tendon (or a site, a body) the moment arm changes with the configuration.
    let e = error_of(
        &model(
            "<joint name=\"j\"/><site name=\"s\"/>",
            "<actuator><general name=\"m\" site=\"s\" armature=\"1\"/></actuator>",
        ),
        &[],
    );
    assert_eq!(e.what(), "general[m].armature", "{e}");
    assert!(matches!(e, ImportError::Unsupported { .. }), "{e:?}");
    assert_eq!(e.location().line, 8);
    // A tendon's armature, also through a default class.
    let xml = with_default(
        "<tendon armature=\"0.5\"/>",
        "<joint name=\"j\"/>",
        "<tendon><fixed name=\"a\"><joint joint=\"j\" coef=\"1\"/></fixed></tendon>",
    );
    let e = error_of(&xml, &[]);
    assert_eq!(e.what(), "fixed[a].armature", "{e}");
    assert!(matches!(e, ImportError::Unsupported { .. }), "{e:?}");
    // Negative armature (MuJoCo takes it, and its mass matrix may then be indefinite), where
    // it is written.
    let xml = with_default("<joint armature=\"-0.1\"/>", "<joint name=\"j\"/>", "");
    let e = error_of(&xml, &[]);
    assert_eq!(
        (e.what(), e.location().line),
        ("joint[j].armature", 2),
        "{e}"
    );
    let e = error_of(
        &model(
            "<joint name=\"j\"/>",
            "<actuator><motor name=\"m\" joint=\"j\" armature=\"-1\"/></actuator>",
        ),
        &[],
    );
    assert_eq!(e.what(), "motor[m].armature", "{e}");
    // An actuator on a joint that is not there.
    let e = error_of(
        &model(
            "<joint name=\"j\"/>",
            "<actuator><motor name=\"m\" joint=\"k\" armature=\"1\"/></actuator>",
        ),
        &[],
    );
    assert_eq!(e.what(), "motor[m].joint", "{e}");
}

#[test]
fn inactive_equalities_take_the_equality_defaults() {
    // An equality takes the equality defaults, not a joint's.
    let xml = format!(
        "<mujoco>\n<default><equality active=\"false\"/></default>{}",
        &model(
            "<joint name=\"j\"/><body><joint name=\"k\"/><geom size=\"1\"/></body>",
            "<equality><joint joint1=\"j\" joint2=\"k\"/></equality>"
        )["<mujoco>".len()..]
    );
    assert!(import_mjcf(&xml, "m.xml", &ImportOptions::default()).is_ok());
}

/// Closed loops are refused with the way out (`ignore_equality`, which lists them as
/// ignored), joint couplings make a joint follow another (refused where only one is locked, or
/// the polynomial is not linear), and inactive equalities are ignored and listed.
#[test]
fn equalities_are_refused_ignored_or_listed() {
    let two = "<joint name=\"j\"/><body name=\"c\"><joint name=\"k\"/><geom size=\"0.1\"/></body>";
    let ignoring = ImportOptions {
        ignore_equality: true,
        ..ImportOptions::default()
    };
    for eq in ["connect body1=\"b\" anchor=\"0 0 0\"", "weld body1=\"b\""] {
        let xml = model(two, &format!("<equality><{eq}/></equality>"));
        let e = error_of(&xml, &[]);
        assert!(matches!(e, ImportError::Unsupported { .. }), "{e:?}");
        assert_eq!(e.location().line, 8, "{e}");
        assert!(
            e.message().contains("closed loops are not supported")
                && e.message().contains("--ignore-equality"),
            "{e}"
        );
        let imported = import_mjcf(&xml, "m.xml", &ignoring).unwrap();
        assert_eq!(imported.robot.dof(), 2);
        assert_eq!(imported.ignored.len(), 1, "{:?}", imported.ignored);
        assert_eq!(imported.ignored[0].at.line, 8);
        assert!(imported.ignored[0].why.contains("closed loop"));
    }
    let coupled = model(
        two,
        "<equality><joint joint1=\"k\" joint2=\"j\"/></equality>",
    );
    let locking = |joints: &[&str]| ImportOptions {
        locks: joints.iter().map(|j| JointLock::at(*j, 0.1)).collect(),
        ..ImportOptions::default()
    };
    for options in [ImportOptions::default(), ignoring] {
        let robot = import_mjcf(&coupled, "m.xml", &options).unwrap().robot;
        assert_eq!(
            robot.bodies[1].mimic,
            Some(quasidyn_codegen::Mimic {
                master: 0,
                multiplier: 1.0,
                offset: 0.0,
            })
        );
        assert_eq!(robot.coordinate_joints(), [0]);
    }
    for (locked, field) in [("k", "joint.joint1"), ("j", "joint.joint2")] {
        let e = import_mjcf(&coupled, "m.xml", &locking(&[locked])).unwrap_err();
        assert_eq!(e.what(), field, "{e}");
        assert!(
            e.message().contains("`k` follows `j`")
                && e.message().contains(&format!("`{locked}` is locked")),
            "{e}"
        );
    }
    // MuJoCo's `joint1 - qpos0_1 = c0 + c1 (joint2 - qpos0_2)`, `ref` in degrees.
    let refs = "<joint name=\"j\" ref=\"30\"/><body name=\"c\"><joint name=\"k\" ref=\"-10\"/>\
                <geom size=\"0.1\"/></body>";
    let linear = model(
        refs,
        "<equality><joint joint1=\"k\" joint2=\"j\" polycoef=\"0.1 -2\"/></equality>",
    );
    let robot = import_mjcf(&linear, "m.xml", &ImportOptions::default())
        .unwrap()
        .robot;
    let m = robot.bodies[1].mimic.expect("k follows j");
    let (qpos0_j, qpos0_k) = (30f64.to_radians(), (-10f64).to_radians());
    assert_eq!((m.master, m.multiplier), (0, -2.0));
    assert!(
        (m.offset - (0.1 + qpos0_k + 2.0 * qpos0_j)).abs() < 1e-15,
        "{m:?}"
    );
    for (coefficients, message) in [
        ("0 1 0.5 0 0", "only linear couplings"),
        ("0.2 0", "with c1 = 0 holds `k` at c0"),
    ] {
        let xml = model(
            two,
            &format!(
                "<equality><joint joint1=\"k\" joint2=\"j\" polycoef=\"{coefficients}\"/>\
                 </equality>"
            ),
        );
        let e = import_mjcf(&xml, "m.xml", &ImportOptions::default()).unwrap_err();
        assert_eq!(e.what(), "joint.polycoef", "{e}");
        assert!(e.message().contains(message), "{e}");
    }
    // Both joints locked: the coupling holds nothing, and is listed as ignored.
    let three = format!("{two}<body name=\"d\"><joint name=\"m\"/><geom size=\"0.1\"/></body>");
    let coupled = model(
        &three,
        "<equality><joint joint1=\"k\" joint2=\"j\"/></equality>",
    );
    let imported = import_mjcf(&coupled, "m.xml", &locking(&["j", "k"])).unwrap();
    assert_eq!(imported.robot.dof(), 1);
    assert_eq!(
        imported.ignored[0].why,
        "a coupling of two joints that are both locked"
    );
    // A chain of couplings, written in either order, is combined into one: `m` follows `k`,
    // which follows `j`, so `m = -0.5 (2 j + 0.1) + 0.3`.
    for equalities in [
        "<joint joint1=\"m\" joint2=\"k\" polycoef=\"0.3 -0.5\"/>\
         <joint joint1=\"k\" joint2=\"j\" polycoef=\"0.1 2\"/>",
        "<joint joint1=\"k\" joint2=\"j\" polycoef=\"0.1 2\"/>\
         <joint joint1=\"m\" joint2=\"k\" polycoef=\"0.3 -0.5\"/>",
    ] {
        let xml = model(&three, &format!("<equality>{equalities}</equality>"));
        let robot = import_mjcf(&xml, "m.xml", &ImportOptions::default())
            .unwrap()
            .robot;
        assert_eq!(robot.coordinate_joints(), [0], "{equalities}");
        let (k, m) = (
            robot.bodies[1].mimic.unwrap(),
            robot.bodies[2].mimic.unwrap(),
        );
        assert_eq!((k.master, k.multiplier), (0, 2.0));
        assert_eq!((m.master, m.multiplier), (0, -1.0));
        assert!((k.offset - 0.1).abs() < 1e-15 && (m.offset - 0.25).abs() < 1e-15);
    }
    // A joint that follows two, and couplings that close on themselves, are refused where
    // the coupling that makes them is written.
    for (equalities, line, message) in [
        (
            "<joint joint1=\"m\" joint2=\"k\"/>\n<joint joint1=\"m\" joint2=\"j\"/>",
            9,
            "`m` follows `k` already (line 8)",
        ),
        (
            "<joint joint1=\"k\" joint2=\"m\"/>\n<joint joint1=\"m\" joint2=\"k\"/>",
            8,
            "the couplings form a loop through `k`",
        ),
    ] {
        let xml = model(&three, &format!("<equality>{equalities}</equality>"));
        let e = import_mjcf(&xml, "m.xml", &ImportOptions::default()).unwrap_err();
        assert_eq!(e.location().line, line, "{e}");
        assert!(e.message().contains(message), "{e}");
    }
    let inactive = model(
        two,
        "<equality><joint joint1=\"j\" joint2=\"k\" active=\"false\"/>\
         <tendon tendon1=\"t\"/></equality>",
    );
    let imported = import_mjcf(&inactive, "m.xml", &ImportOptions::default()).unwrap();
    let why: Vec<&str> = imported.ignored.iter().map(|i| i.why.as_str()).collect();
    assert_eq!(
        why,
        [
            "an inactive equality",
            "a tendon equality (tendons do not enter the generated functions)"
        ]
    );
}

/// A joint equality without `joint2` holds its joint at `qpos0 + polycoef[0]`: the same robot
/// as `--lock` at that value; a `--lock` of the same joint wins, and an equality naming no
/// joint is located at its `joint1`.
#[test]
fn a_joint_equality_without_joint2_locks_its_joint() {
    // In radians: `ref` is in the compiler's unit, `polycoef` and the lock's value are not.
    let radians = |xml: String| xml.replace("<mujoco>", "<mujoco><compiler angle=\"radian\"/>");
    let model = |body: &str, extra: &str| radians(model(body, extra));
    let two = "<joint name=\"j\"/><body name=\"c\" pos=\"0 0 1\"><joint name=\"k\" ref=\"0.25\"/>\
               <geom size=\"0.1\" pos=\"0.3 0 0\"/></body>";
    let held = model(
        two,
        "<equality><joint joint1=\"k\" polycoef=\"0.5 1 0 0 0\"/></equality>",
    );
    let by_equality = import_mjcf(&held, "m.xml", &ImportOptions::default())
        .unwrap()
        .robot;
    let locking = |value: f64| ImportOptions {
        locks: vec![JointLock::at("k", value)],
        ..ImportOptions::default()
    };
    let by_lock = import_mjcf(&model(two, ""), "m.xml", &locking(0.75))
        .unwrap()
        .robot;
    assert!(by_equality == by_lock);
    assert_eq!(by_equality.dof(), 1);
    let overridden = import_mjcf(&held, "m.xml", &locking(-0.4)).unwrap().robot;
    let by_lock = import_mjcf(&model(two, ""), "m.xml", &locking(-0.4))
        .unwrap()
        .robot;
    assert!(overridden == by_lock && overridden != by_equality);
    let e = error_of(
        &model(two, "<equality><joint joint1=\"q\"/></equality>"),
        &[],
    );
    assert_eq!(e.what(), "joint.joint1", "{e}");
    assert_eq!(e.location().line, 8, "{e}");
}

#[test]
fn a_mesh_needed_for_mass_is_a_located_error_naming_body_and_mesh() {
    let body = "<joint/>\n<geom type=\"mesh\" mesh=\"shell\"/>";
    let e = error_of(&model(body, ""), &[]);
    assert_eq!(e.location().line, 5, "{e}");
    assert!(
        e.message().contains("body `b`") && e.message().contains("mesh `shell`"),
        "{e}"
    );
    // With an inertial, the mesh is not needed (inertiafromgeom auto), and never read.
    let body = "<joint/>\n<inertial pos=\"0 0 0\" mass=\"1\" diaginertia=\"1 1 1\"/>\n\
                <geom type=\"mesh\" mesh=\"shell\"/>";
    assert!(import_mjcf(&model(body, ""), "m.xml", &ImportOptions::default()).is_ok());
}

#[test]
fn includes_are_read_relative_to_the_including_file() {
    let main = "<mujoco>\n<include file=\"parts/a.xml\"/>\n<worldbody><body><joint/>\
                <geom size=\"0.1\"/></body></worldbody></mujoco>";
    let a = "<mujoco>\n<include file=\"b.xml\"/>\n</mujoco>";
    let b = "<mujoco>\n\n<option gravity=\"0 0 x\"/></mujoco>";
    let e = error_of(main, &[("dir/parts/a.xml", a), ("dir/parts/b.xml", b)]);
    assert_eq!(e.location().file, "dir/parts/b.xml", "{e}");
    assert_eq!(e.location().line, 3);
    assert_eq!(e.what(), "option.gravity");
    let e = error_of(main, &[("dir/parts/a.xml", a)]);
    assert_eq!(e.location().file, "dir/parts/a.xml", "{e}");
    assert_eq!((e.location().line, e.what()), (2, "include.file"));
    assert!(
        e.message()
            .contains("cannot read the included file `dir/parts/b.xml`"),
        "{e}"
    );
    // In memory, an include cannot be read: a located error.
    let e = import_mjcf(main, "m.xml", &ImportOptions::default()).unwrap_err();
    assert_eq!((e.location().line, e.what()), (2, "include.file"), "{e}");
}

#[test]
fn bad_values_are_located() {
    let cases = [
        (
            "<joint pos=\"0 0\"/>",
            "joint.pos",
            "3 numbers expected, found 2",
        ),
        (
            "<joint axis=\"0 0 nan\"/>",
            "joint.axis",
            "not a finite number",
        ),
        (
            "<joint axis=\"0 0 0\"/>",
            "joint.axis",
            "the axis is (nearly) zero",
        ),
        (
            "<joint type=\"screw\"/>",
            "joint.type",
            "`screw` is not one of",
        ),
        ("<joint ref=\"one\"/>", "joint.ref", "`one` is not a number"),
        (
            "<joint class=\"nope\"/>",
            "joint.class",
            "no default class `nope`",
        ),
    ];
    for (body, what, message) in cases {
        let e = error_of(&model(body, ""), &[]);
        assert_eq!(e.what(), what, "{e}");
        assert_eq!(e.location().line, 4, "{e}");
        assert!(e.message().contains(message), "{e}");
    }
    let e = error_of(
        &model("<joint/><geom type=\"capsule\" size=\"0.1\"/>", ""),
        &[],
    );
    assert_eq!(e.what(), "geom.size", "{e}");
    assert!(e.message().contains("2 positive size numbers"), "{e}");
    let deep = format!(
        "<mujoco>{}{}</mujoco>",
        "<a>".repeat(2000),
        "</a>".repeat(2000)
    );
    let e = error_of(&deep, &[]);
    assert!(e.message().contains("nested more than"), "{e}");
    let e = error_of("<mujoco><worldbody>", &[]);
    assert!(matches!(e, ImportError::Syntax { .. }), "{e:?}");
    let e = error_of(
        &model("<joint/><geom quat=\"1 0 0 0\" euler=\"0 0 1\"/>", ""),
        &[],
    );
    assert!(e.message().contains("orientation given twice"), "{e}");
}

#[test]
fn names_that_read_the_same_are_refused() {
    let body = "<joint name=\"a-b\"/><body><joint name=\"a_b\"/><geom size=\"1\"/></body>";
    let e = error_of(&model(body, ""), &[]);
    assert_eq!(e.what(), "joint[a_b].name", "{e}");
    assert!(e.message().contains("same identifier"), "{e}");
}

#[test]
fn unnamed_joints_and_bodies_take_mujocos_numbers() {
    let xml = "<mujoco><worldbody><body><joint/><joint name=\"n\" type=\"slide\"/>\
               <geom size=\"0.1\"/><body><joint/><geom size=\"0.1\"/></body></body>\
               </worldbody></mujoco>";
    let robot = import_mjcf(xml, "m.xml", &ImportOptions::default())
        .unwrap()
        .robot;
    let joints: Vec<&str> = robot.bodies.iter().map(|b| b.joint_name.as_str()).collect();
    assert_eq!(joints, ["joint0", "n", "joint2"]);
    let bodies: Vec<&str> = robot.bodies.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(bodies, ["body1/joint0", "body1", "body2"]);
}

#[test]
fn autolimits_off_needs_limited_with_a_range() {
    let xml = "<mujoco>\n<compiler autolimits=\"false\"/>\n<worldbody><body>\n\
               <joint range=\"0 1\"/><geom size=\"1\"/></body></worldbody></mujoco>";
    let e = error_of(xml, &[]);
    assert_eq!((e.what(), e.location().line), ("joint.range", 4), "{e}");
    let fixed = xml.replace("range=", "limited=\"true\" range=");
    assert!(import_mjcf(&fixed, "m.xml", &ImportOptions::default()).is_ok());
}

#[test]
fn the_builder_and_detection_take_mjcf_files() {
    let path = fixture_dir().join("synthetic_degree.xml");
    let robot = quasidyn_codegen::Builder::new().spec(&path).load().unwrap();
    assert_eq!(robot.dof(), 7);
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        quasidyn_codegen::import::detect(&path, &text),
        quasidyn_codegen::import::InputKind::Mjcf
    );
    // In memory, the includes cannot be read: the located error says so.
    let e = quasidyn_codegen::parse_input(&text, "synthetic_degree.xml", None).unwrap_err();
    assert!(e.to_string().contains("cannot include files"), "{e}");
    // Bodies asked for become frames; the tip option is refused for MJCF.
    let options = ImportOptions {
        frames: vec!["hand".to_owned()],
        ..ImportOptions::default()
    };
    let robot = load_input_with(&path, &options).unwrap().robot;
    assert_eq!(robot.frames.last().map(|f| f.name.as_str()), Some("hand"));
    let options = ImportOptions {
        tip: Some("hand".to_owned()),
        ..ImportOptions::default()
    };
    assert!(load_input_with(&path, &options).is_err());
}

/// `values` as a C array initialiser with every digit.
fn c_array(values: &[f64]) -> String {
    let items: Vec<String> = values.iter().map(|v| format!("{v:e}")).collect();
    format!("{{{}}}", items.join(", "))
}

/// The C of a floating model in MuJoCo's layout, compiled with the strict flags and run at
/// a fixture state, gives MuJoCo's values: qpos, qvel and qacc go in as MuJoCo holds them.
#[test]
fn compiled_c_of_free_models_matches_mujoco() {
    for name in ["synthetic_free", "humanoid"] {
        let fixture: Value = serde_json::from_str(
            &std::fs::read_to_string(fixture_dir().join(format!("{name}.json"))).unwrap(),
        )
        .unwrap();
        let path = fixture_dir().join(format!("{name}.xml"));
        let robot = load_input_with(&path, &ImportOptions::default())
            .unwrap()
            .robot;
        let frame = fixture["frames"][0].as_str().unwrap().to_owned();
        let module = quasidyn_codegen::build_module(&robot);
        let files = quasidyn_codegen::emit_c(&module, &Default::default()).expect("C emits");
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join(&files.header_name), &files.header).unwrap();
        let source = files.source_name.clone().expect("a source file");
        std::fs::write(dir.path().join(&source), files.source.as_ref().unwrap()).unwrap();
        let state = &fixture["states"][3];
        let nv = fixture["dof"].as_u64().unwrap() as usize;
        let ident = quasidyn_codegen::names::frame_ident(&frame);
        let main = format!(
            "#include <stdio.h>\n#include \"{header}\"\n\
             static void put(const char *what, const double *x, int n) {{\n\
               int i; printf(\"%s\", what); for (i = 0; i < n; ++i) printf(\" %.17g\", x[i]);\n\
               printf(\"\\n\");\n}}\n\
             int main(void) {{\n\
               const double q[] = {q}; const double v[] = {v}; const double a[] = {a};\n\
               const double f[] = {f};\n\
               double tau[{nv}], g[{nv}], h[{nv}], M[{nv} * {nv}], qdd[{nv}], J[6 * {nv}];\n\
               double R[9], p[3];\n\
               {name}_inverse_dynamics(q, v, a, tau); put(\"tau\", tau, {nv});\n\
               {name}_gravity(q, g); put(\"gravity\", g, {nv});\n\
               {name}_nonlinear_effects(q, v, h); put(\"nonlinear_effects\", h, {nv});\n\
               {name}_mass_matrix(q, M); put(\"mass_matrix\", M, {nv} * {nv});\n\
               {name}_forward_dynamics(q, v, f, qdd); put(\"qdd_fd\", qdd, {nv});\n\
               {name}_forward_kinematics_{ident}(q, R, p); put(\"rotation\", R, 9);\n\
               put(\"position\", p, 3);\n\
               {name}_jacobian_{ident}(q, J); put(\"jacobian\", J, 6 * {nv});\n\
               return 0;\n}}\n",
            header = files.header_name,
            q = c_array(&numbers(&state["q"])),
            v = c_array(&numbers(&state["qd"])),
            a = c_array(&numbers(&state["qdd"])),
            f = c_array(&numbers(&state["tau_fd"])),
        );
        std::fs::write(dir.path().join("main.c"), main).unwrap();
        let gcc = std::process::Command::new("gcc")
            .args([
                "-std=c99",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-pedantic",
                "-O1",
            ])
            .args([source.as_str(), "main.c", "-lm", "-o", "check"])
            .current_dir(dir.path())
            .output()
            .expect("gcc runs");
        assert!(
            gcc.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&gcc.stderr)
        );
        let run = std::process::Command::new(dir.path().join("check"))
            .output()
            .expect("the check runs");
        let out = String::from_utf8(run.stdout).unwrap();
        for line in out.lines() {
            let mut words = line.split_whitespace();
            let key = words.next().unwrap();
            let got: Vec<f64> = words.map(|w| w.parse().unwrap()).collect();
            let expected = match key {
                "rotation" | "position" | "jacobian" => numbers(&state["frames"][0][key]),
                _ => numbers(&state[key]),
            };
            assert_close(&format!("{name} compiled C {key}"), &got, &expected);
        }
        assert_eq!(out.lines().count(), 8, "{name}: {out}");
    }
}

/// `[base] layout = "mujoco"` is what an imported free model's spec says: the spec reads back
/// as the same robot, gives the same functions, and the key is refused where it means nothing.
#[test]
fn the_mujoco_layout_round_trips_through_the_spec() {
    let path = fixture_dir().join("synthetic_free.xml");
    let robot = load_input_with(&path, &ImportOptions::default())
        .unwrap()
        .robot;
    let text = quasidyn_codegen::to_toml(&robot);
    assert!(text.contains("layout = \"mujoco\""), "{text}");
    let again = quasidyn_codegen::parse_spec(&text, "free.toml").expect("reads back");
    assert!(again.is_mujoco_floating());
    let kinds = [
        FunctionKind::InverseDynamics,
        FunctionKind::MassMatrix,
        FunctionKind::PassiveForces,
    ];
    assert!(text.contains("passive = { stiffness = 4"), "{text}");
    let (a, b) = (
        build_module_only(&robot, Some(&kinds)),
        build_module_only(&again, Some(&kinds)),
    );
    let env = env(
        true,
        &[0.1, 0.2, 0.3, 0.5, 0.5, -0.5, 0.5, 0.4, -0.3, 0.2, 0.1],
        &[0.3; 10],
        &[-0.2; 10],
        &[0.0; 10],
    );
    for kind in kinds {
        let (x, y) = (eval(&a, kind, &env), eval(&b, kind, &env));
        assert_close(&format!("{kind:?} from the spec"), &y[0], &x[0]);
    }
    let body = "[[body]]\nname = \"b\"\njoint = \"revolute\"\naxis = \"z\"\nmass = 1.0\n";
    for (base, line, says) in [
        (
            "motion = \"fixed\"\nlayout = \"mujoco\"",
            4,
            "needs motion = \"floating\"",
        ),
        (
            "motion = \"floating\"\nmass = 1.0\nlayout = \"drake\"",
            5,
            "unknown base layout",
        ),
    ] {
        let text = format!("name = \"r\"\n[base]\n{base}\n{body}");
        let e = quasidyn_codegen::parse_spec(&text, "a.toml").expect_err("refused");
        let msg = e.to_string();
        assert!(
            msg.contains(&format!("a.toml:{line}:")) && msg.contains(says),
            "{msg}"
        );
    }
}

/// `root` keeps one top-level body's tree; a name that is none, a frame outside the tree and
/// the option on an input that is not MJCF are refused with the reason.
#[test]
fn the_root_option_keeps_one_tree() {
    let xml = floating(
        "<freejoint/>",
        "",
        "<body name=\"ball\"><freejoint/><geom size=\"1\"/></body>",
    );
    let with_root = |root: &str, frames: &[&str]| ImportOptions {
        root: Some(root.to_owned()),
        frames: frames.iter().map(|f| (*f).to_owned()).collect(),
        ..ImportOptions::default()
    };
    let robot = import_mjcf(&xml, "m.xml", &with_root("trunk", &[]))
        .unwrap()
        .robot;
    assert!(robot.is_mujoco_floating() && robot.dof() == 1);
    let e = import_mjcf(&xml, "m.xml", &with_root("leg", &[])).unwrap_err();
    assert!(
        e.message().contains("no top-level body") && e.message().contains("trunk, ball"),
        "{e}"
    );
    let e = import_mjcf(&xml, "m.xml", &with_root("trunk", &["ball"])).unwrap_err();
    assert!(e.message().contains("not in the tree"), "{e}");
    let spec = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../robots/ur5.toml"),
    )
    .unwrap();
    let e =
        quasidyn_codegen::parse_input_with(&spec, "ur5.toml", &with_root("base", &[])).unwrap_err();
    assert!(e.to_string().contains("one tree of an MJCF file"), "{e}");
}

/// Springs and dampers: a spec's `[body.passive]` and an MJCF joint's `stiffness`, `damping`
/// and `springref` (in degrees by default, as `ref`), with what is refused.
#[test]
fn joint_springs_and_dampers_are_read_and_checked() {
    let xml = model(
        "<joint name=\"j\" stiffness=\"2\" damping=\"0.5\" springref=\"90\"/>",
        "",
    );
    let robot = import_mjcf(&xml, "m.xml", &ImportOptions::default())
        .unwrap()
        .robot;
    let p = robot.bodies[0].passive;
    assert_eq!((p.stiffness, p.damping), (2.0, 0.5));
    assert!((p.reference - std::f64::consts::FRAC_PI_2).abs() < 1e-15);
    for (joint, says) in [
        (
            "<joint stiffness=\"-1\"/>",
            "stiffness must not be negative",
        ),
        ("<joint springdamper=\"0.1 1\"/>", "springdamper"),
    ] {
        let e = error_of(&model(joint, ""), &[]);
        assert_eq!(e.location().line, 4, "{e}");
        assert!(e.message().contains(says), "{e}");
    }
    let e = error_of(
        &floating("<joint type=\"free\" damping=\"1\"/>", "", ""),
        &[],
    );
    assert!(e.message().contains("damping on a free joint"), "{e}");

    let body = |passive: &str| {
        format!(
            "name = \"r\"\n[[body]]\nname = \"b\"\njoint = \"revolute\"\naxis = \"z\"\n\
             mass = 1.0\npassive = {passive}\n"
        )
    };
    let robot = quasidyn_codegen::parse_spec(
        &body("{ stiffness = 3.0, damping = 0.25, reference = -0.5 }"),
        "a.toml",
    )
    .unwrap();
    assert_eq!(robot.bodies[0].passive.reference, -0.5);
    for (passive, says) in [
        ("{ damping = -1.0 }", "damping must not be negative"),
        ("{ stiff = 1.0 }", "unknown key `stiff`"),
    ] {
        let e = quasidyn_codegen::parse_spec(&body(passive), "a.toml").unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("a.toml:7:") && msg.contains(says), "{msg}");
    }
}

/// `--lock` fixes hinge and slide joints (an actuator's armature on a locked joint does
/// nothing); a name that is no joint of the file, a free joint and a lock on a spec are
/// refused with the reason.
#[test]
fn locks_fix_hinges_and_slides_and_are_refused_elsewhere() {
    let xml = floating(
        "<freejoint name=\"root\"/>",
        "",
        "<body name=\"ball\"><geom size=\"1\"/></body>",
    );
    let locking = |locks: &[JointLock]| ImportOptions {
        locks: locks.to_vec(),
        ..ImportOptions::default()
    };
    let e = import_mjcf(&xml, "m.xml", &locking(&[JointLock::at("elbow", 1.0)])).unwrap_err();
    assert!(
        e.message()
            .contains("no hinge or slide joint named `elbow`"),
        "{e}"
    );
    let e = import_mjcf(&xml, "m.xml", &locking(&[JointLock::at_reference("root")])).unwrap_err();
    assert!(
        e.message().contains("free joint `root` cannot be locked"),
        "{e}"
    );
    assert_eq!(e.location().line, 4, "{e}");

    let arm = "<mujoco><worldbody><body name=\"a\"><joint name=\"j1\"/><geom size=\"0.1\"/>\
               <body name=\"b\" pos=\"0 0 1\"><joint name=\"j2\" ref=\"0.5\"/>\
               <geom size=\"0.1\"/></body></body></worldbody>\
               <actuator><motor joint=\"j2\" armature=\"0.3\"/></actuator></mujoco>";
    let robot = import_mjcf(arm, "arm.xml", &locking(&[JointLock::at_reference("j2")]))
        .unwrap()
        .robot;
    let joints: Vec<&str> = robot.bodies.iter().map(|b| b.joint_name.as_str()).collect();
    assert_eq!(joints, ["j1"]);

    let spec = "name = \"r\"\n[[body]]\njoint = \"revolute\"\nmass = 1.0\n";
    let e =
        quasidyn_codegen::parse_input_with(spec, "r.toml", &locking(&[JointLock::at("j", 0.0)]))
            .unwrap_err();
    assert!(e.to_string().contains("URDF or MJCF"), "{e}");
}

/// A fixed tendon's spring and damper: read from MJCF (rest length from the joints'
/// `springref`, a locked joint's share folded in), written to a spec and read back, and the
/// spec's `[[tendon]]` refused where it is wrong, located.
#[test]
fn fixed_tendon_springs_are_read_written_and_checked() {
    let two = "<joint name=\"j\" springref=\"0.5\"/><body name=\"c\" pos=\"0 0 1\">\
               <joint name=\"k\"/><body name=\"d\" pos=\"0 0 1\"><joint name=\"m\"/>\
               <geom size=\"0.1\"/></body><geom size=\"0.1\"/></body>";
    let tendon = "<tendon><fixed name=\"t\" stiffness=\"3\" damping=\"0.5\">\
                  <joint joint=\"j\" coef=\"2\"/><joint joint=\"k\" coef=\"-1\"/>\
                  <joint joint=\"m\" coef=\"0.5\"/></fixed>\
                  <fixed name=\"loose\"><joint joint=\"j\" coef=\"1\"/></fixed></tendon>";
    let xml = model(two, tendon).replace("<mujoco>", "<mujoco><compiler angle=\"radian\"/>");
    let options = ImportOptions {
        locks: vec![JointLock::at("m", 0.25)],
        ..ImportOptions::default()
    };
    let imported = import_mjcf(&xml, "m.xml", &options).unwrap();
    let robot = imported.robot;
    assert_eq!(robot.tendons.len(), 1);
    let t = &robot.tendons[0];
    assert_eq!(t.joints, [(0, 2.0), (1, -1.0)]);
    assert_eq!((t.stiffness, t.damping), (3.0, 0.5));
    // Rest length 2 * 0.5 (j's springref) + 0.5 * 0 (m's), less m's locked share 0.5 * 0.25.
    assert!((t.length - (1.0 - 0.125)).abs() < 1e-15, "{}", t.length);
    assert!(imported.ignored.iter().any(|i| i.what == "fixed[loose]"));
    let written = quasidyn_codegen::to_toml(&robot);
    assert!(written.contains("[[tendon]]"), "{written}");
    assert!(quasidyn_codegen::parse_spec(&written, "w.toml").unwrap() == robot);

    let spec = |tendon: &str| {
        format!(
            "name = \"r\"\n[[body]]\nname = \"a\"\njoint_name = \"a\"\njoint = \"revolute\"\naxis = \"z\"\nmass = 1.0\n\
             [[body]]\nname = \"b\"\njoint_name = \"b\"\njoint = \"revolute\"\naxis = \"y\"\nmass = 1.0\n\
             [[tendon]]\nname = \"t\"\n{tendon}\n"
        )
    };
    for (tendon, line, says) in [
        (
            "joints = [\"a\", \"x\"]\ncoefficients = [1.0, 1.0]\nstiffness = 1.0",
            16,
            "no joint named \"x\"",
        ),
        (
            "joints = [\"a\", \"b\"]\ncoefficients = [1.0]\nstiffness = 1.0",
            17,
            "one coefficient per joint",
        ),
        (
            "joints = [\"a\", \"a\"]\ncoefficients = [1.0, 1.0]\nstiffness = 1.0",
            16,
            "listed twice",
        ),
        (
            "joints = [\"a\"]\ncoefficients = [1.0]\nstiffness = -1.0",
            18,
            "stiffness must not be negative",
        ),
        (
            "joints = [\"a\"]\ncoefficients = [1.0]",
            14,
            "needs a stiffness or a damping",
        ),
    ] {
        let e = quasidyn_codegen::parse_spec(&spec(tendon), "a.toml").expect_err(tendon);
        let msg = e.to_string();
        assert!(
            msg.contains(&format!("a.toml:{line}:")) && msg.contains(says),
            "{msg}"
        );
    }
}

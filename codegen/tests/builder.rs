//! The build-script API: `Builder` and `compile`.

use std::path::{Path, PathBuf};

use quasidyn_codegen::{Builder, Error};

fn robots() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../robots")
}

#[test]
fn writes_once_and_only_when_changed() {
    let out = tempfile::tempdir().unwrap();
    let builder = Builder::new()
        .spec(robots().join("planar3r.toml"))
        .out_dir(out.path())
        .quiet();
    let path = builder.generate().unwrap();
    assert_eq!(path, out.path().join("planar3r.rs"));
    let code = std::fs::read_to_string(&path).unwrap();
    assert!(
        code.contains("@generated"),
        "header marks the file generated"
    );
    let first = std::fs::metadata(&path).unwrap().modified().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    builder.generate().unwrap();
    let second = std::fs::metadata(&path).unwrap().modified().unwrap();
    assert_eq!(first, second, "unchanged contents are not rewritten");
    // A different module name writes a different file.
    let renamed = builder.clone().name("arm").generate().unwrap();
    assert_eq!(renamed, out.path().join("arm.rs"));
}

#[test]
fn render_needs_no_output_directory() {
    let (name, code) = Builder::new()
        .spec(robots().join("gimbal.toml"))
        .render()
        .unwrap();
    assert_eq!(name, "gimbal");
    assert!(code.contains("pub fn inverse_dynamics"));
}

#[test]
fn reports_located_errors() {
    let err = Builder::new()
        .inline(
            "name = \"x\"\n[[body]]\njoint = \"revolute\"\naxis = \"q\"\nmass = 1\n",
            "inline.toml",
        )
        .render()
        .unwrap_err();
    let shown = format!("{err:?}");
    assert!(
        shown.starts_with("inline.toml:4:8: body[1].axis:"),
        "{shown}"
    );
    assert!(matches!(err, Error::Spec(_)));
    assert!(matches!(Builder::new().render(), Err(Error::NoInput)));
    let missing = Builder::new()
        .spec("no/such/robot.toml")
        .render()
        .unwrap_err();
    assert!(
        missing.to_string().contains("no/such/robot.toml"),
        "{missing}"
    );
}

#[test]
fn accepts_urdf_with_tip_and_dh_tables() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
    let (name, _) = Builder::new()
        .spec(fixtures.join("urdf/panda.urdf"))
        .tip("panda_hand_tcp")
        .render()
        .unwrap();
    assert_eq!(name, "panda");
    let (name, _) = Builder::new()
        .spec(fixtures.join("dh/rx90.toml"))
        .render()
        .unwrap();
    assert_eq!(name, "rx90");
}

#[test]
fn urdf_trees_and_extra_frames() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
    let robot = Builder::new()
        .spec(fixtures.join("urdf/synthetic_tree.urdf"))
        .frame("torso")
        .frame("left_carriage")
        .load()
        .unwrap();
    assert!(!robot.is_chain());
    let frames: Vec<&str> = robot.frames.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        frames,
        [
            "torso",
            "head_link",
            "left_carriage",
            "left_tool",
            "right_camera",
            "right_hand",
            "side_arm"
        ]
    );
    let (_, code) = Builder::new()
        .spec(fixtures.join("urdf/panda.urdf"))
        .tip("panda_hand_tcp")
        .frame("panda_link4")
        .render()
        .unwrap();
    assert!(code.contains("pub fn forward_kinematics_panda_link4("));
    assert!(code.contains("pub fn forward_kinematics("));
}

/// `lock` and `lock_at` fix joints as the importer's locks do (checked against Pinocchio's
/// reduced model in tests/import.rs).
#[test]
fn locks_fix_joints() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
    let robot = Builder::new()
        .spec(fixtures.join("urdf/ur5.urdf"))
        .tip("tool0")
        .lock_at("elbow_joint", -1.2)
        .lock("wrist_2_joint")
        .load()
        .unwrap();
    let joints: Vec<&str> = robot.bodies.iter().map(|b| b.joint_name.as_str()).collect();
    assert_eq!(
        joints,
        [
            "shoulder_pan_joint",
            "shoulder_lift_joint",
            "wrist_1_joint",
            "wrist_3_joint"
        ]
    );
    let options = quasidyn_codegen::import::ImportOptions {
        tip: Some("tool0".to_owned()),
        locks: vec![
            quasidyn_codegen::import::JointLock::at("elbow_joint", -1.2),
            quasidyn_codegen::import::JointLock::at_reference("wrist_2_joint"),
        ],
        ..Default::default()
    };
    let imported = quasidyn_codegen::load_input_with(&fixtures.join("urdf/ur5.urdf"), &options);
    assert!(imported.unwrap().robot == robot);
    let e = Builder::new()
        .spec(fixtures.join("urdf/ur5.urdf"))
        .lock("gripper")
        .load()
        .unwrap_err();
    assert!(e.to_string().contains("no joint named `gripper`"), "{e}");
}

#[test]
fn frames_and_snapping_together() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
    let load = |snap: bool| {
        Builder::new()
            .spec(fixtures.join("urdf/allegro_left_hand.urdf"))
            .frame("link_1.0")
            .snap(snap)
            .load()
            .unwrap()
    };
    let (snapped, literal) = (load(true), load(false));
    for robot in [&snapped, &literal] {
        assert_eq!(robot.frames[0].name, "link_1.0");
        assert_eq!(robot.frames.len(), 5);
    }
    // The first body's centre of mass is -6.9e-18 off the axis as written (composed in base
    // axes), 0 snapped.
    assert_eq!(literal.bodies[0].com[1], -6.938893903907228e-18);
    assert_eq!(snapped.bodies[0].com[1], 0.0);
}

#[test]
fn refuses_a_singular_mass_matrix() {
    // Body 2 turns about x, but all its mass sits on that axis and it has no inertia.
    let spec = "name = \"sing\"\n\
        [[body]]\njoint = \"revolute\"\naxis = \"z\"\nnext = [0.5, 0, 0]\nmass = 1.0\n\
        com = [0.25, 0, 0]\ninertia = { ixx = 0.01, iyy = 0.01, izz = 0.01 }\n\
        [[body]]\njoint = \"revolute\"\naxis = \"x\"\nmass = 1.0\n";
    let err = Builder::new()
        .inline(spec, "sing.toml")
        .render()
        .unwrap_err();
    assert!(
        matches!(&err, Error::SingularMassMatrix { joint, body } if joint == "q2" && body == "body2"),
        "{err}"
    );
    assert!(err.to_string().contains("singular"), "{err}");
}

#[test]
fn snap_is_on_by_default_and_can_be_turned_off() {
    let urdf = robots().join("../tests/fixtures/urdf/ur5.urdf");
    let builder = Builder::new().spec(&urdf).tip("tool0");
    let snapped = builder.load().unwrap();
    let literal = builder.clone().snap(false).load().unwrap();
    // The shoulder-lift joint is pitched by 1.57079632679 in the URDF: its axis in base axes
    // keeps a 4.9e-12 component as written, none snapped.
    let noise = |axis: &[f64; 3]| axis.iter().any(|x| *x != 0.0 && x.abs() < 1e-9);
    assert!(literal.bodies.iter().any(|b| noise(&b.axis)));
    assert!(!snapped.bodies.iter().any(|b| noise(&b.axis)));
    assert_eq!(builder.clone().snap(true).load().unwrap(), snapped);
}

#[test]
fn only_generates_the_functions_asked_for() {
    let names: &[&str] = &["inverse_dynamics", "mass_matrix"];
    let (_, code) = Builder::new()
        .spec(robots().join("ur5.toml"))
        .only(names)
        .render()
        .unwrap();
    let functions: Vec<&str> = code
        .lines()
        .filter_map(|l| l.strip_prefix("pub fn "))
        .map(|l| l.split('(').next().unwrap())
        .collect();
    assert_eq!(functions, ["inverse_dynamics", "mass_matrix"]);
    // The constants stay; no Dynamics implementation without all eleven functions.
    for item in [
        "pub const DOF: usize = 6;",
        "pub const JOINT_NAMES",
        "pub const STANDARD_PARAMETERS",
    ] {
        assert!(code.contains(item), "{item} missing");
    }
    assert!(!code.contains("impl ::quasidyn::Dynamics"));
    // Names as an iterator of `String`s, repeats and order of no account.
    let names = vec!["mass_matrix".to_owned(), "inverse_dynamics".to_owned()];
    let (_, again) = Builder::new()
        .spec(robots().join("ur5.toml"))
        .only(names.iter().chain(&names))
        .render()
        .unwrap();
    assert_eq!(code, again);
}

#[test]
fn only_rejects_a_name_the_robot_does_not_generate() {
    let out = tempfile::tempdir().unwrap();
    let err = Builder::new()
        .spec(robots().join("ur5.toml"))
        .only(["gravity", "inverse_dynamic"])
        .out_dir(out.path())
        .quiet()
        .generate()
        .unwrap_err();
    let Error::UnknownFunction { name, valid, .. } = &err else {
        panic!("{err}");
    };
    assert_eq!(name, "inverse_dynamic");
    assert!(valid.iter().any(|v| v == "inverse_dynamics"), "{valid:?}");
    assert!(err
        .to_string()
        .contains("no function `inverse_dynamic` for `ur5`"));
    assert!(
        std::fs::read_dir(out.path()).unwrap().next().is_none(),
        "nothing written"
    );
    // A tree has no tool: its frames are named instead.
    let tree = Builder::new()
        .spec(robots().join("synthetic_tree.toml"))
        .only(["forward_kinematics"])
        .render()
        .unwrap_err();
    let shown = tree.to_string();
    assert!(shown.contains("forward_kinematics_"), "{shown}");
    // The families close the list.
    assert!(
        shown.ends_with(", default, all, frames, centroidal, whole_body, frame_motion"),
        "{shown}"
    );
}

#[test]
fn progress_reaches_the_callback_stage_by_stage() {
    use std::sync::{Arc, Mutex};
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let (_, code) = Builder::new()
        .spec(robots().join("planar3r.toml"))
        .only(["gravity", "coriolis"])
        .progress(move |step| sink.lock().unwrap().push(step.to_string()))
        .render()
        .unwrap();
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        [
            "derive: part 1/2: dynamics and kinematics",
            "derive: part 2/2: velocity split (centrifugal, coriolis, gyroscopic)",
            "simplify: function 1/2: gravity",
            "simplify: function 2/2: coriolis",
            "emit: function 1/2: gravity",
            "emit: function 2/2: coriolis",
        ]
    );
    // Reporting changes nothing in the code.
    let (_, silent) = Builder::new()
        .spec(robots().join("planar3r.toml"))
        .only(["gravity", "coriolis"])
        .render()
        .unwrap();
    assert_eq!(code, silent);
}

#[test]
fn batch_adds_the_batched_functions() {
    let (_, code) = Builder::new()
        .spec(robots().join("planar3r.toml"))
        .only(["inverse_dynamics", "forward_kinematics"])
        .batch(16)
        .render()
        .unwrap();
    for item in [
        "pub const BATCH: usize = 16;",
        "pub fn inverse_dynamics(q: &[f64; 3], qd: &[f64; 3], qdd: &[f64; 3]) -> [f64; 3]",
        "pub fn inverse_dynamics_batch(\n    q: &[[f64; BATCH]; 3],\n    qd: &[[f64; BATCH]; 3],\n    \
         qdd: &[[f64; BATCH]; 3],\n    tau: &mut [[f64; BATCH]; 3],\n)",
        "pub fn forward_kinematics_batch(\n    q: &[[f64; BATCH]; 3],\n    R: &mut [[f64; BATCH]; \
         9],\n    p: &mut [[f64; BATCH]; 3],\n)",
    ] {
        assert!(code.contains(item), "{item} missing:\n{code}");
    }
    let (_, scalar) = Builder::new()
        .spec(robots().join("planar3r.toml"))
        .only(["inverse_dynamics", "forward_kinematics"])
        .render()
        .unwrap();
    assert!(!scalar.contains("BATCH"));
    let err = Builder::new()
        .spec(robots().join("planar3r.toml"))
        .batch(0)
        .render()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot emit code: batch size 0: the batched functions take 1 to 1024 states"
    );
}

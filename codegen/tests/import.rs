//! Importer tests: every Pinocchio fixture state (tests/fixtures/{urdf,dh}/*.json, written by
//! tools/urdf_reference.py) is checked against a small textbook Newton–Euler evaluator over the
//! imported `Robot`, plus the located error messages and link merging.

// Matrix code reads best with explicit indices.
#![allow(clippy::needless_range_loop)]

mod fixture_data;

use std::path::{Path, PathBuf};

use quasidyn_codegen::import::{
    detect, import_dh, import_urdf, import_urdf_with, ImportError, ImportOptions, InputKind,
    JointLock,
};
use quasidyn_codegen::{parse_spec, to_toml, JointKind, Robot};

type V3 = [f64; 3];
type M3 = [[f64; 3]; 3];

// ---------------------------------------------------------------------------------------------
// A self-contained reference evaluator in the method's frames (docs/design.md): frame i is
// frame i-1 moved to the pole O_i and rotated by q_i about the axis (or the pole shifted by
// q_i along it). Everything below is in base coordinates.

fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn scale(s: f64, a: V3) -> V3 {
    [s * a[0], s * a[1], s * a[2]]
}
fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn mv(m: &M3, v: V3) -> V3 {
    [dot(m[0], v), dot(m[1], v), dot(m[2], v)]
}
fn mm(a: &M3, b: &M3) -> M3 {
    let mut c = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            c[i][j] = (0..3).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    c
}
fn tr(a: &M3) -> M3 {
    let mut t = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            t[j][i] = a[i][j];
        }
    }
    t
}
const EYE: M3 = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

/// Rodrigues: rotation by `angle` about unit `k`.
fn axis_angle(k: V3, angle: f64) -> M3 {
    let (s, c) = angle.sin_cos();
    let v = 1.0 - c;
    [
        [
            c + k[0] * k[0] * v,
            k[0] * k[1] * v - k[2] * s,
            k[0] * k[2] * v + k[1] * s,
        ],
        [
            k[1] * k[0] * v + k[2] * s,
            c + k[1] * k[1] * v,
            k[1] * k[2] * v - k[0] * s,
        ],
        [
            k[2] * k[0] * v - k[1] * s,
            k[2] * k[1] * v + k[0] * s,
            c + k[2] * k[2] * v,
        ],
    ]
}

struct Kinematics {
    rot: Vec<M3>,
    pole: Vec<V3>,
    /// Joint axes in base coordinates.
    z: Vec<V3>,
    tool_rotation: M3,
    tool_position: V3,
}

fn kinematics(robot: &Robot, q: &[f64]) -> Kinematics {
    let n = robot.dof();
    let mut rot = Vec::with_capacity(n);
    let mut pole = Vec::with_capacity(n);
    let mut z = Vec::with_capacity(n);
    let mut r_prev = EYE;
    let mut o_prev = robot.base;
    for (i, b) in robot.bodies.iter().enumerate() {
        let zi = mv(&r_prev, b.axis);
        let mut o = if i == 0 {
            robot.base
        } else {
            add(o_prev, mv(&r_prev, robot.bodies[i - 1].next))
        };
        let r = match b.joint {
            JointKind::Revolute => mm(&r_prev, &axis_angle(b.axis, q[i])),
            JointKind::Prismatic => {
                o = add(o, scale(q[i], zi));
                r_prev
            }
        };
        rot.push(r);
        pole.push(o);
        z.push(zi);
        r_prev = r;
        o_prev = o;
    }
    let last = n - 1;
    Kinematics {
        tool_position: add(pole[last], mv(&rot[last], robot.bodies[last].next)),
        tool_rotation: mm(&rot[last], &robot.tool_rotation),
        rot,
        pole,
        z,
    }
}

/// Recursive Newton–Euler: joint forces for `(q, qd, qdd)` with gravity `g`.
fn rnea(robot: &Robot, q: &[f64], qd: &[f64], qdd: &[f64], g: V3) -> Vec<f64> {
    let n = robot.dof();
    let k = kinematics(robot, q);
    let mut w = [0.0; 3];
    let mut wd = [0.0; 3];
    // Gravity enters as an upward acceleration of the base.
    let mut acc = scale(-1.0, g);
    let mut o_prev = robot.base;
    let mut force = vec![[0.0; 3]; n];
    let mut moment = vec![[0.0; 3]; n];
    for i in 0..n {
        let b = &robot.bodies[i];
        let zi = k.z[i];
        let d = sub(k.pole[i], o_prev);
        // Acceleration of the pole, carried by body i-1 (d = 0 for the first body).
        acc = add(acc, add(cross(wd, d), cross(w, cross(w, d))));
        match b.joint {
            JointKind::Revolute => {
                let w_new = add(w, scale(qd[i], zi));
                wd = add(wd, add(scale(qdd[i], zi), cross(w, scale(qd[i], zi))));
                w = w_new;
            }
            JointKind::Prismatic => {
                acc = add(
                    acc,
                    add(scale(qdd[i], zi), scale(2.0 * qd[i], cross(w, zi))),
                );
            }
        }
        let rho = mv(&k.rot[i], b.com);
        let a_c = add(acc, add(cross(wd, rho), cross(w, cross(w, rho))));
        let inertia = mm(&mm(&k.rot[i], &b.inertia_com), &tr(&k.rot[i]));
        force[i] = scale(b.mass, a_c);
        // Moment about the pole: Euler's equation about the com plus the force's lever.
        moment[i] = add(
            add(mv(&inertia, wd), cross(w, mv(&inertia, w))),
            cross(rho, force[i]),
        );
        o_prev = k.pole[i];
    }
    let mut tau = vec![0.0; n];
    let mut f_next = [0.0; 3];
    let mut n_next = [0.0; 3];
    for i in (0..n).rev() {
        let lever = if i + 1 < n {
            sub(k.pole[i + 1], k.pole[i])
        } else {
            [0.0; 3]
        };
        let f = add(force[i], f_next);
        let m = add(add(moment[i], n_next), cross(lever, f_next));
        tau[i] = match robot.bodies[i].joint {
            JointKind::Revolute => dot(k.z[i], m),
            JointKind::Prismatic => dot(k.z[i], f),
        };
        f_next = f;
        n_next = m;
    }
    tau
}

/// Geometric Jacobian at the tool point: rows 0-2 linear, 3-5 angular velocity.
fn jacobian(robot: &Robot, q: &[f64]) -> Vec<Vec<f64>> {
    let k = kinematics(robot, q);
    let n = robot.dof();
    let mut jac = vec![vec![0.0; n]; 6];
    for i in 0..n {
        let (lin, ang) = match robot.bodies[i].joint {
            JointKind::Revolute => (cross(k.z[i], sub(k.tool_position, k.pole[i])), k.z[i]),
            JointKind::Prismatic => (k.z[i], [0.0; 3]),
        };
        for r in 0..3 {
            jac[r][i] = lin[r];
            jac[r + 3][i] = ang[r];
        }
    }
    jac
}

// ---------------------------------------------------------------------------------------------
// Fixtures.

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("tests")
        .join("fixtures")
}

fn vector(v: &serde_json::Value) -> Vec<f64> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect()
}

fn matrix(v: &serde_json::Value) -> Vec<Vec<f64>> {
    v.as_array().expect("rows").iter().map(vector).collect()
}

/// Largest difference, relative to the reference's largest entry (or 1, for small values).
fn rel_err(got: &[f64], want: &[f64]) -> f64 {
    assert_eq!(got.len(), want.len());
    let scale = want.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
    got.iter()
        .zip(want)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max)
        / scale
}

const TOL: f64 = 1e-10;

fn check_against_fixture(robot: &Robot, json_path: &Path) {
    let text = std::fs::read_to_string(json_path).expect("fixture");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    let n = doc["dof"].as_u64().expect("dof") as usize;
    let label = json_path.display().to_string();
    assert_eq!(robot.dof(), n, "{label}: dof");
    let joint_names: Vec<&str> = doc["joints"]
        .as_array()
        .expect("joints")
        .iter()
        .map(|j| j.as_str().expect("name"))
        .collect();
    let ours: Vec<&str> = robot.bodies.iter().map(|b| b.joint_name.as_str()).collect();
    assert_eq!(ours, joint_names, "{label}: joint names");
    let g = robot.gravity;
    let states = doc["states"].as_array().expect("states");
    assert_eq!(states.len(), 30, "{label}: state count");
    for (s, state) in states.iter().enumerate() {
        let q = vector(&state["q"]);
        let qd = vector(&state["qd"]);
        let qdd = vector(&state["qdd"]);
        let zero = vec![0.0; n];
        let ctx = |what: &str| format!("{label} state {s}: {what}");
        let check = |what: &str, got: &[f64], want: &[f64]| {
            let e = rel_err(got, want);
            assert!(
                e <= TOL,
                "{}: relative error {e:e}\n got  {got:?}\n want {want:?}",
                ctx(what)
            );
        };

        check(
            "tau",
            &rnea(robot, &q, &qd, &qdd, g),
            &vector(&state["tau"]),
        );
        check(
            "nonlinear_effects",
            &rnea(robot, &q, &qd, &zero, g),
            &vector(&state["nonlinear_effects"]),
        );
        check(
            "gravity",
            &rnea(robot, &q, &zero, &zero, g),
            &vector(&state["gravity"]),
        );

        // Mass matrix by columns: inverse dynamics of unit accelerations without gravity.
        let mut mass = vec![0.0; n * n];
        for j in 0..n {
            let mut e = vec![0.0; n];
            e[j] = 1.0;
            let col = rnea(robot, &q, &zero, &e, [0.0; 3]);
            for i in 0..n {
                mass[i * n + j] = col[i];
            }
        }
        let want_m: Vec<f64> = matrix(&state["mass_matrix"]).concat();
        check("mass_matrix", &mass, &want_m);

        let k = kinematics(robot, &q);
        check(
            "tool_position",
            &k.tool_position,
            &vector(&state["tool_position"]),
        );
        check(
            "tool_rotation",
            &k.tool_rotation.concat(),
            &matrix(&state["tool_rotation"]).concat(),
        );
        check(
            "jacobian",
            &jacobian(robot, &q).concat(),
            &matrix(&state["jacobian"]).concat(),
        );
    }
}

fn urdf_case(name: &str) {
    let dir = fixtures_dir().join("urdf");
    let json = dir.join(format!("{name}.json"));
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("fixture")).expect("json");
    let tip = doc["tip"].as_str().expect("tip");
    let file = doc["file"]
        .as_str()
        .map_or_else(|| format!("{name}.urdf"), str::to_owned);
    let xml = std::fs::read_to_string(dir.join(&file)).expect("urdf");
    let locks = fixture_data::fixture_locks(&doc);
    // Pinocchio reads the values as written: compare the literal import (the snapped one is
    // compared with the literal one in tests/snap.rs).
    let options = ImportOptions {
        tip: Some(tip.to_owned()),
        snap: false,
        locks,
        ..ImportOptions::default()
    };
    let robot = import_urdf_with(&xml, &file, &options)
        .unwrap_or_else(|e| panic!("{e}"))
        .robot;
    assert_eq!(robot.gravity, [0.0, 0.0, -9.81]);
    reads_back(&robot);
    check_against_fixture(&robot, &json);
}

/// What `quasidyn import` writes for `robot` is a spec that reads back to the same robot (an
/// inertia that is not physical, as published tables give, marked `physical = false`).
fn reads_back(robot: &Robot) {
    let written = to_toml(robot);
    match parse_spec(&written, "imported.toml") {
        Ok(back) => assert!(
            back == *robot,
            "{} reads back different:\n{written}",
            robot.name
        ),
        Err(e) => panic!("{e}\n{written}"),
    }
}

fn dh_case(name: &str) {
    let dir = fixtures_dir().join("dh");
    let file = format!("{name}.toml");
    let text = std::fs::read_to_string(dir.join(&file)).expect("table");
    assert_eq!(detect(Path::new(&file), &text), InputKind::Dh);
    let robot = import_dh(&text, &file).unwrap_or_else(|e| panic!("{e}"));
    reads_back(&robot);
    check_against_fixture(&robot, &dir.join(format!("{name}.json")));
}

#[test]
fn urdf_ur5_matches_pinocchio() {
    urdf_case("ur5");
}

#[test]
fn urdf_panda_matches_pinocchio() {
    urdf_case("panda");
}

#[test]
fn urdf_so101_matches_pinocchio() {
    urdf_case("so101");
}

#[test]
fn urdf_synthetic_matches_pinocchio() {
    urdf_case("synthetic");
}

#[test]
fn urdf_ur10_matches_pinocchio() {
    urdf_case("ur10");
}

#[test]
fn urdf_kinova_matches_pinocchio() {
    urdf_case("kinova");
}

#[test]
fn urdf_xarm7_matches_pinocchio() {
    urdf_case("xarm7");
}

/// A massless link between two joints imports as a massless body (it was refused).
#[test]
fn urdf_locked_joints_match_pinocchio_reduced_models() {
    urdf_case("ur5_locked");
    urdf_case("panda_locked");
}

#[test]
fn urdf_massless_link_matches_pinocchio() {
    urdf_case("massless_link");
}

#[test]
fn dh_puma560_matches_pinocchio() {
    dh_case("puma560");
}

#[test]
fn dh_rx90_matches_pinocchio() {
    dh_case("rx90");
}

#[test]
fn dh_synthetic_standard_matches_pinocchio() {
    dh_case("synthetic_standard");
}

#[test]
fn dh_synthetic_modified_matches_pinocchio() {
    dh_case("synthetic_modified");
}

fn load_synthetic() -> (Robot, PathBuf) {
    let dir = fixtures_dir().join("urdf");
    let xml = std::fs::read_to_string(dir.join("synthetic.urdf")).expect("urdf");
    let robot = import_urdf(&xml, "synthetic.urdf", Some("tool")).expect("import");
    (robot, dir.join("synthetic.json"))
}

#[test]
#[should_panic(expected = "relative error")]
fn fixture_check_detects_a_wrong_inertia() {
    let (mut robot, json) = load_synthetic();
    robot.bodies[1].inertia_com[0][1] += 1e-7;
    check_against_fixture(&robot, &json);
}

#[test]
#[should_panic(expected = "tool_position")]
fn fixture_check_detects_a_wrong_tool_point() {
    let (mut robot, json) = load_synthetic();
    // Inertial data untouched: only the kinematic checks can catch this.
    robot.bodies[3].next[2] += 1e-8;
    check_against_fixture(&robot, &json);
}

// ---------------------------------------------------------------------------------------------
// Merging of fixed and locked links.

fn approx(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12
}

#[test]
fn fixed_child_and_off_path_finger_are_merged() {
    // l1 (mass 1 at x = 0.1) carries l1b through a fixed joint (mass 1 at x = 0.2, its frame
    // turned 90° about z) and a finger on a prismatic joint off the path to the tip l1b (mass
    // 0.5 at y = 0.1). The base link's mass is dropped.
    let xml = r#"<robot name="merge">
  <link name="base"><inertial><mass value="7"/><inertia ixx="1" iyy="1" izz="1"/></inertial></link>
  <joint name="j1" type="revolute">
    <parent link="base"/><child link="l1"/><origin xyz="0 0 0.5"/><axis xyz="0 0 1"/>
  </joint>
  <link name="l1">
    <inertial><origin xyz="0.1 0 0"/><mass value="1"/><inertia ixx="0" iyy="0" izz="0"/></inertial>
  </link>
  <joint name="fix" type="fixed">
    <parent link="l1"/><child link="l1b"/><origin xyz="0.2 0 0" rpy="0 0 1.5707963267948966"/>
  </joint>
  <link name="l1b">
    <inertial>
      <mass value="1"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.03"/>
    </inertial>
  </link>
  <joint name="finger_joint" type="prismatic">
    <parent link="l1"/><child link="finger"/><origin xyz="0 0.1 0"/><axis xyz="1 0 0"/>
  </joint>
  <link name="finger">
    <inertial><mass value="0.5"/><inertia ixx="0" iyy="0" izz="0"/></inertial>
  </link>
</robot>"#;
    let robot = import_urdf(xml, "merge.urdf", Some("l1b")).expect("import");
    assert_eq!(robot.name, "merge");
    assert_eq!(robot.dof(), 1);
    assert_eq!(robot.base, [0.0, 0.0, 0.5]);
    let b = &robot.bodies[0];
    assert_eq!((b.name.as_str(), b.joint_name.as_str()), ("l1", "j1"));
    assert_eq!(b.joint, JointKind::Revolute);
    assert_eq!(b.axis, [0.0, 0.0, 1.0]);
    assert!(approx(b.mass, 2.5));
    let com = [0.12, 0.02, 0.0];
    for k in 0..3 {
        assert!(approx(b.com[k], com[k]), "com {:?}", b.com);
        assert!(approx(b.next[k], [0.2, 0.0, 0.0][k]), "next {:?}", b.next);
    }
    // Point masses about the joint com plus l1b's tensor turned by 90° about z.
    let want = [[0.024, 0.006, 0.0], [0.006, 0.024, 0.0], [0.0, 0.0, 0.048]];
    for i in 0..3 {
        for j in 0..3 {
            assert!(
                approx(b.inertia_com[i][j], want[i][j]),
                "{:?}",
                b.inertia_com
            );
        }
    }
    let rz = [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
    for i in 0..3 {
        for j in 0..3 {
            assert!(approx(robot.tool_rotation[i][j], rz[i][j]));
        }
    }
}

#[test]
fn continuous_and_default_axis() {
    let xml = r#"<robot name="c">
  <link name="a"/>
  <joint name="j" type="continuous"><parent link="a"/><child link="b"/></joint>
  <link name="b"><inertial><mass value="2"/><inertia ixx="0.1" iyy="0.1" izz="0.1"/></inertial></link>
</robot>"#;
    let robot = import_urdf(xml, "c.urdf", None).expect("import");
    assert_eq!(robot.bodies[0].axis, [1.0, 0.0, 0.0]);
    assert_eq!(robot.bodies[0].joint, JointKind::Revolute);
    assert_eq!(
        robot.tool_rotation,
        [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    );
}

// ---------------------------------------------------------------------------------------------
// Errors: each one located, printed as FILE:LINE:COL: WHAT: MESSAGE.

const LINK_B: &str = r#"<link name="b"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1"/></inertial></link>"#;

fn urdf_err(xml: &str, tip: Option<&str>) -> ImportError {
    match import_urdf(xml, "r.urdf", tip) {
        Ok(_) => panic!("expected an error for\n{xml}"),
        Err(e) => e,
    }
}

#[test]
fn malformed_xml_is_located() {
    let e = urdf_err("<robot name=\"x\">\n  <link name=\"a\">\n</robot>\n", None);
    assert!(matches!(e, ImportError::Syntax { .. }), "{e:?}");
    assert_eq!(e.location().line, 3, "{e}");
    assert!(e.to_string().starts_with("r.urdf:3:"), "{e}");
}

#[test]
fn floating_and_planar_joints_are_rejected() {
    for ty in ["floating", "planar"] {
        let xml = format!(
            "<robot name=\"x\">\n<link name=\"a\"/>\n{LINK_B}\n<joint name=\"j\" type=\"{ty}\">\
             <parent link=\"a\"/><child link=\"b\"/></joint>\n</robot>"
        );
        let e = urdf_err(&xml, None);
        assert!(matches!(e, ImportError::UnsupportedJoint { .. }), "{e:?}");
        assert_eq!(
            e.to_string(),
            format!(
                "r.urdf:4:23: joint[j].type: {ty} joints are not supported: the method \
                 describes serial chains of revolute and prismatic joints"
            )
        );
    }
}

#[test]
fn link_with_two_parents_is_rejected() {
    let xml = format!(
        "<robot name=\"x\">\n<link name=\"a\"/>\n{LINK_B}\n<link name=\"c\"/>\n\
         <joint name=\"j1\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/></joint>\n\
         <joint name=\"j2\" type=\"revolute\"><parent link=\"a\"/><child link=\"c\"/></joint>\n\
         <joint name=\"j3\" type=\"fixed\"><parent link=\"c\"/><child link=\"b\"/></joint>\n</robot>"
    );
    let e = urdf_err(&xml, Some("b"));
    assert!(matches!(e, ImportError::Topology { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "r.urdf:7:49: joint[j3]: link `b` has two parents (joints `j1` and `j3`); closed \
         kinematic loops are not supported"
    );
}

#[test]
fn closed_loop_is_rejected() {
    let xml = format!(
        "<robot name=\"x\">\n<link name=\"a\"/>\n{LINK_B}\n\
         <joint name=\"j1\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/></joint>\n\
         <joint name=\"j2\" type=\"revolute\"><parent link=\"b\"/><child link=\"a\"/></joint>\n</robot>"
    );
    let e = urdf_err(&xml, None);
    assert!(matches!(e, ImportError::Topology { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "r.urdf:1:1: robot: every link has a parent joint: the joints form a closed loop"
    );
}

#[test]
fn unknown_tip_is_rejected() {
    let xml = format!(
        "<robot name=\"x\">\n<link name=\"a\"/>\n{LINK_B}\n\
         <joint name=\"j1\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/></joint>\n</robot>"
    );
    let e = urdf_err(&xml, Some("hand"));
    assert!(matches!(e, ImportError::UnknownTip { .. }), "{e:?}");
    assert_eq!(e.to_string(), "r.urdf:1:1: tip: no link named `hand`");
}

/// A palm with four one-link fingers, listed in the file as 8, 4, 0, 12 (as in the Allegro
/// hand), `extra` spliced in before `</robot>`.
fn palm(extra: &str) -> String {
    let mut xml = String::from("<robot name=\"palm\">\n<link name=\"palm\"/>\n");
    for k in ["8", "4", "0", "12"] {
        xml.push_str(&format!(
            "<joint name=\"joint_{k}.0\" type=\"revolute\"><parent link=\"palm\"/>\
             <child link=\"link_{k}.0\"/><origin xyz=\"0 0.{k} 0\"/><axis xyz=\"0 1 0\"/></joint>\n\
             <link name=\"link_{k}.0\"><inertial><mass value=\"1\"/>\
             <inertia ixx=\"1\" iyy=\"1\" izz=\"1\"/></inertial></link>\n"
        ));
    }
    xml.push_str(extra);
    xml.push_str("</robot>\n");
    xml
}

#[test]
fn several_leaves_import_as_a_tree_in_pinocchio_order() {
    let robot = import_urdf(&palm(""), "palm.urdf", None).expect("import");
    assert!(!robot.is_chain());
    let joints: Vec<&str> = robot.bodies.iter().map(|b| b.joint_name.as_str()).collect();
    // Siblings by joint name as plain strings, not by file order.
    assert_eq!(
        joints,
        ["joint_0.0", "joint_12.0", "joint_4.0", "joint_8.0"]
    );
    assert!(robot.bodies.iter().all(|b| b.parent.is_none()));
    let frames: Vec<&str> = robot.frames.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(frames, ["link_0.0", "link_12.0", "link_4.0", "link_8.0"]);
    for (k, b) in robot.bodies.iter().enumerate() {
        assert_eq!(robot.frames[k].body, Some(k));
        assert_eq!(robot.frames[k].position, [0.0; 3]);
        assert_eq!(b.next, [0.0; 3], "a leaf of a tree has no tool point");
    }
    assert_eq!(robot.bodies[1].origin, [0.0, 0.12, 0.0]);
    assert_eq!(
        robot.description.as_deref(),
        Some("imported from URDF `palm.urdf`, tree from `palm`")
    );
    // The printed spec reads back as the same robot.
    let back = quasidyn_codegen::parse_spec(&quasidyn_codegen::spec::to_toml(&robot), "p.toml")
        .expect("printed spec parses");
    assert_eq!(back, robot);
}

#[test]
fn depth_first_through_fixed_joints() {
    // b_fix carries a finger through a fixed joint; its name sorts between the palm's joints,
    // so the finger's joint comes between theirs; the tip link of the fixed joint is a frame on
    // the finger's body, at the link frame.
    let extra = "<joint name=\"joint_1_fix\" type=\"fixed\"><parent link=\"palm\"/>\
                 <child link=\"knuckle\"/><origin xyz=\"0 0 0.5\" rpy=\"0 0 1.5707963267948966\"/></joint>\n\
                 <link name=\"knuckle\"/>\n\
                 <joint name=\"a_last\" type=\"prismatic\"><parent link=\"knuckle\"/>\
                 <child link=\"slider\"/><origin xyz=\"0.1 0 0\"/><axis xyz=\"1 0 0\"/></joint>\n\
                 <link name=\"slider\"><inertial><mass value=\"1\"/>\
                 <inertia ixx=\"1\" iyy=\"1\" izz=\"1\"/></inertial></link>\n\
                 <joint name=\"tip_fix\" type=\"fixed\"><parent link=\"slider\"/>\
                 <child link=\"tip\"/><origin xyz=\"0 0 0.2\"/></joint>\n<link name=\"tip\"/>\n";
    let robot = import_urdf(&palm(extra), "palm.urdf", None).expect("import");
    let joints: Vec<&str> = robot.bodies.iter().map(|b| b.joint_name.as_str()).collect();
    assert_eq!(
        joints,
        [
            "joint_0.0",
            "joint_12.0",
            "a_last",
            "joint_4.0",
            "joint_8.0"
        ]
    );
    assert_eq!(robot.bodies[2].joint, JointKind::Prismatic);
    let b = &robot.bodies[2];
    // The knuckle is turned 90° about z: its x is the base's y.
    assert!(
        approx(b.axis[1], 1.0) && approx(b.axis[0], 0.0),
        "{:?}",
        b.axis
    );
    assert!(
        approx(b.origin[1], 0.1) && approx(b.origin[2], 0.5),
        "{:?}",
        b.origin
    );
    let frames: Vec<&str> = robot.frames.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        frames,
        ["link_0.0", "link_12.0", "tip", "link_4.0", "link_8.0"]
    );
    let tip = &robot.frames[2];
    assert_eq!(tip.body, Some(2));
    assert!(approx(tip.position[2], 0.2) && approx(tip.position[0], 0.0));
    assert!(approx(tip.rotation[1][0], 1.0) && approx(tip.rotation[0][1], -1.0));
}

#[test]
fn extra_frames_and_their_errors() {
    let options = ImportOptions {
        tip: None,
        frames: vec!["link_4.0".to_owned(), "link_0.0".to_owned()],
        ..ImportOptions::default()
    };
    // Asking for a leaf again changes nothing; frames stay in link order.
    let robot = import_urdf_with(&palm(""), "palm.urdf", &options)
        .expect("import")
        .robot;
    assert_eq!(robot.frames.len(), 4);
    // With a tip: the chain, its tool, and only the frames asked for.
    let options = ImportOptions {
        tip: Some("link_4.0".to_owned()),
        frames: vec!["link_4.0".to_owned()],
        ..ImportOptions::default()
    };
    let robot = import_urdf_with(&palm(""), "palm.urdf", &options)
        .expect("import")
        .robot;
    assert!(robot.is_chain());
    assert_eq!(robot.dof(), 1);
    assert_eq!(robot.frames.len(), 1);
    assert_eq!(robot.frames[0].name, "link_4.0");
    // A finger locked on the base does not move: no frame on it.
    let options = ImportOptions {
        tip: Some("link_4.0".to_owned()),
        frames: vec!["link_8.0".to_owned()],
        ..ImportOptions::default()
    };
    let e = import_urdf_with(&palm(""), "palm.urdf", &options).expect_err("an error");
    assert!(
        e.to_string()
            .contains("link `link_8.0` is fixed to the base"),
        "{e}"
    );
    let with = |frames: &[&str], extra: &str| {
        let options = ImportOptions {
            tip: None,
            frames: frames.iter().map(|f| (*f).to_owned()).collect(),
            ..ImportOptions::default()
        };
        import_urdf_with(&palm(extra), "r.urdf", &options)
            .expect_err("an error")
            .to_string()
    };
    assert_eq!(
        with(&["nose"], ""),
        "r.urdf:1:1: frame: no link named `nose`"
    );
    assert_eq!(
        with(&["palm"], ""),
        "r.urdf:2:1: link[palm]: link `palm` is fixed to the base (no movable joint above \
         it), so a frame on it never moves"
    );
    let clash = "<joint name=\"z\" type=\"fixed\"><parent link=\"link_0.0\"/>\
                 <child link=\"link_0_0\"/></joint>\n<link name=\"link_0_0\"/>\n";
    assert_eq!(
        with(&["link_0.0"], clash),
        "r.urdf:12:1: link[link_0_0]: the frame of link `link_0_0` gets the same function \
         names as the frame of link `link_0.0` (`link_0_0`)"
    );
}

#[test]
fn mimic_joints_are_named() {
    let mimic = "<joint name=\"joint_9.0\" type=\"revolute\"><parent link=\"link_8.0\"/>\
                 <child link=\"link_9.0\"/><axis xyz=\"0 1 0\"/>\
                 <mimic joint=\"joint_8.0\" multiplier=\"0.5\"/></joint>\n\
                 <link name=\"link_9.0\"><inertial><mass value=\"1\"/>\
                 <inertia ixx=\"1\" iyy=\"1\" izz=\"1\"/></inertial></link>\n";
    // The whole tree: the joint follows joint_8.0, whose coordinate it reads.
    let robot = import_urdf(&palm(mimic), "r.urdf", None).expect("import");
    let k = robot
        .bodies
        .iter()
        .position(|b| b.joint_name == "joint_9.0")
        .unwrap();
    let master = robot
        .bodies
        .iter()
        .position(|b| b.joint_name == "joint_8.0")
        .unwrap();
    assert_eq!(
        robot.bodies[k].mimic,
        Some(quasidyn_codegen::Mimic {
            master,
            multiplier: 0.5,
            offset: 0.0,
        })
    );
    assert_eq!(robot.coordinate_joints().len(), robot.dof() - 1);
    // A follower of a follower follows the first master, the factors combined.
    let chained = format!(
        "{mimic}<joint name=\"joint_10.0\" type=\"revolute\"><parent link=\"link_9.0\"/>\
         <child link=\"link_10.0\"/><axis xyz=\"1 0 0\"/>\
         <mimic joint=\"joint_9.0\" multiplier=\"2\" offset=\"0.25\"/></joint>\n\
         <link name=\"link_10.0\"><inertial><mass value=\"1\"/>\
         <inertia ixx=\"1\" iyy=\"1\" izz=\"1\"/></inertial></link>\n"
    );
    let robot = import_urdf(&palm(&chained), "r.urdf", None).expect("import");
    let last = robot
        .bodies
        .iter()
        .position(|b| b.joint_name == "joint_10.0")
        .unwrap();
    assert_eq!(
        robot.bodies[last].mimic,
        Some(quasidyn_codegen::Mimic {
            master,
            multiplier: 1.0,
            offset: 0.25,
        })
    );
    // Factors that overflow once combined are refused, located at the follower's tag.
    let huge = chained
        .replace("multiplier=\"0.5\"", "multiplier=\"1e200\"")
        .replace("multiplier=\"2\"", "multiplier=\"1e200\"");
    let e = urdf_err(&palm(&huge), None).to_string();
    assert!(
        e.contains("joint[joint_10.0].mimic") && e.contains("overflow"),
        "{e}"
    );
    // Refused, located: an unknown joint, a multiplier of zero, a loop.
    for (tag, message) in [
        (
            "<mimic joint=\"joint_99\"/>",
            "joint[joint_9.0].mimic: no joint named `joint_99` to follow",
        ),
        (
            "<mimic joint=\"joint_8.0\" multiplier=\"0\"/>",
            "joint[joint_9.0].mimic: a multiplier of 0 holds the joint at its offset",
        ),
        (
            "<mimic joint=\"joint_9.0\"/>",
            "joint[joint_9.0].mimic: the mimic tags form a loop",
        ),
    ] {
        let xml = mimic.replace("<mimic joint=\"joint_8.0\" multiplier=\"0.5\"/>", tag);
        let e = urdf_err(&palm(&xml), None).to_string();
        assert!(e.starts_with("r.urdf:11:"), "{e}");
        assert!(e.contains(message), "{e}");
    }
    // Off the chain to a tip, a mimic joint is locked like any other.
    let robot = import_urdf(&palm(mimic), "r.urdf", Some("link_0.0")).expect("import");
    assert_eq!(robot.dof(), 1);
}

/// Massless links import as massless bodies; what is refused, when code is generated, is a
/// mass matrix that is singular everywhere, naming the joint.
#[test]
fn a_singular_mass_matrix_is_refused_naming_the_joint() {
    use quasidyn_codegen::{c_code, COptions, Error};
    // One joint over a massless link: it moves nothing.
    let xml = "<robot name=\"x\">\n<link name=\"a\"/>\n<link name=\"b\"/>\n\
               <joint name=\"j1\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/></joint>\n</robot>";
    let robot = import_urdf(xml, "r.urdf", None).expect("a massless link imports");
    assert_eq!(robot.bodies[0].mass, 0.0);
    reads_back(&robot);
    let e = c_code(&robot, "x", &COptions::default()).expect_err("singular");
    assert!(
        matches!(e, Error::SingularMassMatrix { ref joint, .. } if joint == "j1"),
        "{e}"
    );

    // A massless floating root with a single joint under it: turning the base one way and the
    // joint the other moves nothing, though no diagonal entry is zero.
    let xml = "<robot name=\"x\">\n<link name=\"trunk\"/>\n\
               <link name=\"arm\"><inertial><origin xyz=\"0.1 0 0\"/><mass value=\"1\"/>\
               <inertia ixx=\"0.01\" iyy=\"0.01\" izz=\"0.01\"/></inertial></link>\n\
               <joint name=\"shoulder\" type=\"revolute\"><parent link=\"trunk\"/><child link=\"arm\"/>\
               <axis xyz=\"0 0 1\"/></joint>\n</robot>";
    let options = ImportOptions {
        floating_base: true,
        ..ImportOptions::default()
    };
    let robot = import_urdf_with(xml, "r.urdf", &options)
        .expect("a massless root imports")
        .robot;
    reads_back(&robot);
    let e = c_code(&robot, "x", &COptions::default()).expect_err("singular");
    assert_eq!(
        e.to_string(),
        "joint shoulder (body `arm`): the mass matrix is singular at every configuration: its \
         motion, with the other joints' (and the floating base's), moves no mass or inertia; \
         give the bodies it moves mass or inertia"
    );

    // The same root with two legs is regular.
    let leg = |side: &str, y: f64| {
        format!(
            "<link name=\"{side}\"><inertial><origin xyz=\"0 0 -0.1\"/><mass value=\"1\"/>\
             <inertia ixx=\"0.01\" iyy=\"0.01\" izz=\"0.01\"/></inertial></link>\n\
             <joint name=\"hip_{side}\" type=\"revolute\"><parent link=\"trunk\"/>\
             <child link=\"{side}\"/><origin xyz=\"0 {y} 0\"/><axis xyz=\"1 0 0\"/></joint>\n"
        )
    };
    let xml = format!(
        "<robot name=\"x\">\n<link name=\"trunk\"/>\n{}{}</robot>",
        leg("l", 0.1),
        leg("r", -0.1)
    );
    let robot = import_urdf_with(&xml, "r.urdf", &options)
        .expect("imports")
        .robot;
    c_code(&robot, "x", &COptions::default()).expect("two legs under a massless root are regular");
}

#[test]
fn nan_is_rejected() {
    let xml = "<robot name=\"x\">\n<link name=\"a\"/>\n<link name=\"b\"><inertial><mass value=\"NaN\"/>\
               <inertia ixx=\"1\" iyy=\"1\" izz=\"1\"/></inertial></link>\n\
               <joint name=\"j1\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/></joint>\n</robot>";
    let e = urdf_err(xml, None);
    assert!(matches!(e, ImportError::NotFinite { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "r.urdf:3:39: link[b].inertial.mass: numbers must be finite, got `NaN`"
    );
}

#[test]
fn other_urdf_errors_are_located() {
    let cases: &[(&str, &str)] = &[
        (
            "<robot name=\"x\">\n<link name=\"a\"/>\n<joint name=\"j\" type=\"screw\"><parent link=\"a\"/><child link=\"a\"/></joint>\n</robot>",
            "r.urdf:3:23: joint[j].type: unknown joint type `screw`; expected revolute, continuous, prismatic or fixed",
        ),
        (
            "<robot name=\"x\">\n<link name=\"a\"/>\n<joint name=\"j\" type=\"fixed\"><parent link=\"a\"/><child link=\"zz\"/></joint>\n</robot>",
            "r.urdf:3:61: joint[j].child: no link named `zz`",
        ),
        (
            "<robot name=\"x\">\n<link name=\"a\"/>\n<link name=\"b\"/>\n<joint name=\"j\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/><axis xyz=\"0 0\"/></joint>\n</robot>",
            "r.urdf:4:79: joint[j].axis.xyz: expected 3 numbers, got 2 in `0 0`",
        ),
        (
            "<robot name=\"x\">\n<link name=\"a\"/>\n<link name=\"b\"/>\n<joint name=\"j\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/><axis xyz=\"0 0 0\"/></joint>\n</robot>",
            "r.urdf:4:79: joint[j].axis.xyz: the joint axis must not be zero",
        ),
        (
            "<robot name=\"x\">\n<link name=\"a\"/>\n<link name=\"a\"/>\n</robot>",
            "r.urdf:3:13: link[a]: duplicate link name `a`",
        ),
        (
            "<robot name=\"x\">\n<link name=\"a\"/>\n<link name=\"b\"/>\n<joint name=\"j\" type=\"fixed\"><parent link=\"a\"/><child link=\"b\"/></joint>\n</robot>",
            "r.urdf:1:1: chain: no movable joint between the root link `a` and the tip link `b`",
        ),
        (
            "<urdf/>",
            "r.urdf:1:1: <urdf>: the root element of a URDF file must be <robot>",
        ),
    ];
    for (xml, want) in cases {
        assert_eq!(urdf_err(xml, None).to_string(), *want);
    }
}

// ---------------------------------------------------------------------------------------------
// DH tables.

fn dh_err(text: &str) -> ImportError {
    match import_dh(text, "t.toml") {
        Ok(_) => panic!("expected an error for\n{text}"),
        Err(e) => e,
    }
}

const DH_HEAD: &str = "convention = \"modified\"\nname = \"t\"\n";

#[test]
fn dh_errors_are_located() {
    let cases: &[(&str, &str)] = &[
        (
            "convention = \"craig\"\nname = \"t\"\n[[link]]\na = 0.0\nalpha = 0.0\nd = 0.0\nmass = 1.0\n",
            "t.toml:1:14: convention: expected \"standard\" or \"modified\", got \"craig\"",
        ),
        (
            "[[link]]\na = 0.0\nalpha = 0.0\nd = 0.0\nmass = -1.0\n",
            "t.toml:5:8: link[1].mass: mass must be positive, got -1",
        ),
        (
            "[[link]]\na = 0.0\nalpha = nan\nd = 0.0\nmass = 1.0\n",
            "t.toml:3:9: link[1].alpha: numbers must be finite (no nan or inf)",
        ),
        (
            "[[link]]\njoint = \"spherical\"\na = 0.0\nalpha = 0.0\nd = 0.0\nmass = 1.0\n",
            "t.toml:2:9: link[1].joint: expected \"revolute\" or \"prismatic\", got \"spherical\"",
        ),
        (
            "[[link]]\na = 0.0\nalpha = 0.0\nd = 0.0\nmass = 1.0\n[[link]]\na = 0.0\nalpha = 0.0\nd = 0.0\nmass = 1.0\nname = \"link1\"\n",
            "t.toml:11:8: link[2].name: duplicate name `link1`",
        ),
    ];
    for (body, want) in cases {
        let text = if body.starts_with("convention") {
            body.to_string()
        } else {
            format!("{DH_HEAD}{body}")
        };
        // Line numbers in `want` count from the table body; shift them past the header.
        let want = if body.starts_with("convention") {
            want.to_string()
        } else {
            shift_line(want, 2)
        };
        assert_eq!(dh_err(&text).to_string(), want);
    }
}

fn shift_line(located: &str, by: u32) -> String {
    let mut parts = located.splitn(3, ':');
    let file = parts.next().unwrap_or_default();
    let line: u32 = parts.next().unwrap_or_default().parse().expect("line");
    format!("{file}:{}:{}", line + by, parts.next().unwrap_or_default())
}

#[test]
fn dh_syntax_and_unknown_fields_are_located() {
    let e = dh_err(&format!("{DH_HEAD}[[link]]\na = 0.0\nalpha = \n"));
    assert!(matches!(e, ImportError::Syntax { .. }), "{e:?}");
    assert_eq!(e.location().line, 5, "{e}");
    let e = dh_err(&format!(
        "{DH_HEAD}[[link]]\na = 0.0\nalpha = 0.0\nd = 0.0\nmass = 1.0\nlength = 2.0\n"
    ));
    assert!(matches!(e, ImportError::Syntax { .. }), "{e:?}");
    assert!(e.message().contains("unknown field `length`"), "{e}");
    let e = dh_err(DH_HEAD);
    assert!(e.message().contains("at least one [[link]]"), "{e}");
}

#[test]
fn dh_standard_pole_is_on_the_previous_z_axis() {
    // One standard-DH link: joint 1 turns about z0 (the base z), whatever alpha and a are, and
    // the pole is frame 0's origin; the tool point is frame 1's origin.
    let text = "convention = \"standard\"\nname = \"s\"\n[[link]]\na = 0.5\nalpha = 1.0\nd = 0.2\n\
                theta = 0.3\nmass = 1.0\ncom = [-0.25, 0.0, 0.0]\n";
    let robot = import_dh(text, "s.toml").expect("import");
    let b = &robot.bodies[0];
    assert_eq!(robot.base, [0.0; 3]);
    assert_eq!(b.axis, [0.0, 0.0, 1.0]);
    let (s, c) = 0.3_f64.sin_cos();
    let next = [0.5 * c, 0.5 * s, 0.2];
    let com = [0.25 * c, 0.25 * s, 0.2];
    for k in 0..3 {
        assert!(approx(b.next[k], next[k]), "{:?}", b.next);
        assert!(approx(b.com[k], com[k]), "{:?}", b.com);
    }
    assert_eq!(robot.gravity, [0.0, 0.0, -9.81]);
}

#[test]
fn floating_base_takes_a_massless_root() {
    let xml = "<robot name=\"r\">\n<link name=\"trunk\"/>\n\
        <link name=\"leg\"><inertial><mass value=\"1\"/>\
        <inertia ixx=\"0.1\" iyy=\"0.1\" izz=\"0.1\"/></inertial></link>\n\
        <joint name=\"hip\" type=\"revolute\"><parent link=\"trunk\"/><child link=\"leg\"/>\
        <axis xyz=\"0 0 1\"/></joint>\n</robot>";
    let options = ImportOptions {
        floating_base: true,
        ..ImportOptions::default()
    };
    // A massless root is a massless base body (whether the mass matrix is regular is checked
    // when code is generated).
    let robot = import_urdf_with(xml, "r.urdf", &options)
        .expect("a massless floating base")
        .robot;
    assert_eq!(robot.base_body.as_ref().map(|b| b.mass), Some(0.0));
    // Without the option the root's mass is dropped as before, and the base is fixed.
    let robot = import_urdf_with(xml, "r.urdf", &ImportOptions::default())
        .expect("fixed base")
        .robot;
    assert!(!robot.is_floating());
    // With mass on the root it becomes the base body, in the root link's frame.
    let massive = xml.replace(
        "<link name=\"trunk\"/>",
        "<link name=\"trunk\"><inertial><origin xyz=\"0.1 0 0\"/><mass value=\"3\"/>\
         <inertia ixx=\"0.2\" iyy=\"0.3\" izz=\"0.4\"/></inertial></link>",
    );
    let robot = import_urdf_with(&massive, "r.urdf", &options)
        .expect("floating base")
        .robot;
    assert!(robot.is_floating());
    let base = robot.base_body.expect("a base body");
    assert_eq!((base.mass, base.com), (3.0, [0.1, 0.0, 0.0]));
    assert_eq!(base.inertia_com[2][2], 0.4);
}

#[test]
fn leaves_fixed_to_a_floating_base_are_frames_on_it() {
    let path = fixtures_dir().join("urdf/trunk_sensors.urdf");
    let xml = std::fs::read_to_string(&path).expect("fixture");
    let import = |floating_base: bool, frames: &[&str]| {
        let options = ImportOptions {
            floating_base,
            frames: frames.iter().map(|f| (*f).to_owned()).collect(),
            ..ImportOptions::default()
        };
        import_urdf_with(&xml, "trunk_sensors.urdf", &options)
    };
    let names =
        |robot: &Robot| -> Vec<String> { robot.frames.iter().map(|f| f.name.clone()).collect() };
    // The camera and the IMU are welded to the trunk: on a fixed base they never move.
    let fixed = import(false, &[]).expect("import").robot;
    assert_eq!(names(&fixed), ["fl_foot", "rh_foot"]);
    // On a floating base they move with the trunk: frames on the base, in Pinocchio's order.
    let floating = import(true, &[]).expect("import").robot;
    assert_eq!(names(&floating), ["camera", "fl_foot", "imu", "rh_foot"]);
    let bodies: Vec<Option<usize>> = floating.frames.iter().map(|f| f.body).collect();
    assert_eq!(bodies, [None, Some(1), None, Some(3)]);
    // From the base origin (the trunk's frame), as written in the fixed joint.
    assert_eq!(floating.frames[0].position, [0.28, 0.015, 0.06]);
    assert_eq!(
        parse_spec(&to_toml(&floating), "t.toml").ok(),
        Some(floating)
    );
    // A link asked for as a frame may be the floating root link itself.
    let trunk = import(true, &["trunk"]).expect("import").robot;
    assert_eq!(trunk.frames[0].name, "trunk");
    assert_eq!(trunk.frames[0].body, None);
    assert_eq!(trunk.frames[0].position, [0.0; 3]);
    let e = import(false, &["trunk"]).expect_err("fixed to a fixed base");
    assert!(
        e.to_string().contains("so a frame on it never moves"),
        "{e}"
    );
}

/// `--lock` names a movable joint: a name that is no joint, or a fixed joint, is refused.
#[test]
fn locks_name_movable_joints() {
    let xml = format!(
        "<robot name=\"x\">\n<link name=\"a\"/>\n{LINK_B}\n<link name=\"c\"/>\n\
         <joint name=\"j1\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/></joint>\n\
         <joint name=\"weld\" type=\"fixed\"><parent link=\"b\"/><child link=\"c\"/></joint>\n\
         </robot>"
    );
    let lock = |joint: &str| ImportOptions {
        locks: vec![JointLock::at(joint, 0.3)],
        ..ImportOptions::default()
    };
    let e = import_urdf_with(&xml, "r.urdf", &lock("nothing")).unwrap_err();
    assert!(matches!(e, ImportError::UnknownTip { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "r.urdf:1:1: lock: no joint named `nothing` to lock"
    );
    let e = import_urdf_with(&xml, "r.urdf", &lock("weld")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "r.urdf:6:1: lock: joint `weld` is fixed already: it cannot be locked"
    );
}

//! Snapping of imported URDF values: on every URDF fixture (chains and whole trees) the snapped
//! model gives the same values as the literal one (`--no-snap`) to 1e-9 relative, for every
//! generated function, named frames included;
//! the snaps are listed where they are written; `--no-snap` keeps every value.

// The URDF values under test are approximations of pi/2 on purpose.
#![allow(clippy::approx_constant)]

use std::path::{Path, PathBuf};

use quasidyn_codegen::import::snap::{ANGLE_TOL, AXIS_TOL};
use quasidyn_codegen::import::{ImportOptions, Imported};
use quasidyn_codegen::ir::Env;
use quasidyn_codegen::{build_module, parse_input_with, FunctionKind, Robot};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/urdf")
}

/// A URDF fixture: file name, text, the tip its Pinocchio fixture was computed for (`None`: the
/// whole tree) and the links named as frames.
type Fixture = (String, String, Option<String>, Vec<String>);

/// Every URDF fixture.
fn urdf_fixtures() -> Vec<Fixture> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(fixtures()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("urdf") {
            continue;
        }
        let json: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(path.with_extension("json")).expect("each URDF has a fixture"),
        )
        .unwrap();
        let tip = json["tip"].as_str().map(str::to_owned);
        let frames: Vec<String> = json["frame_links"]
            .as_array()
            .map(|a| a.iter().map(|v| v.as_str().unwrap().to_owned()).collect())
            .unwrap_or_default();
        assert!(tip.is_some() || json["frames"].is_array(), "{path:?}");
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        out.push((name, std::fs::read_to_string(&path).unwrap(), tip, frames));
    }
    out.sort();
    assert!(out.len() >= 9, "URDF fixtures: {out:?}");
    assert!(
        out.iter().filter(|f| f.2.is_none()).count() >= 2,
        "the tree fixtures are among them"
    );
    out
}

fn import(xml: &str, file: &str, tip: &str, snap: bool) -> Imported {
    import_with(xml, file, Some(tip), &[], snap)
}

fn import_with(
    xml: &str,
    file: &str,
    tip: Option<&str>,
    frames: &[String],
    snap: bool,
) -> Imported {
    let options = ImportOptions {
        tip: tip.map(str::to_owned),
        frames: frames.to_vec(),
        snap,
        ..ImportOptions::default()
    };
    parse_input_with(xml, file, &options).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// A small deterministic generator (xorshift), for reproducible states.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    fn vec(&mut self, n: usize, a: f64) -> Vec<f64> {
        (0..n).map(|_| a * (2.0 * self.next() - 1.0)).collect()
    }
}

/// Values of every function of `robot` (the dynamics, the split and every frame's kinematics
/// and Jacobian) at `env`, by function.
fn evaluate(robot: &Robot, envs: &[Env]) -> Vec<(FunctionKind, Vec<Vec<f64>>)> {
    let module = build_module(robot);
    let frames = (0..robot.frames.len())
        .map(|k| u16::try_from(k).unwrap())
        .flat_map(|k| {
            [
                FunctionKind::FrameKinematics(k),
                FunctionKind::FrameJacobian(k),
            ]
        });
    FunctionKind::ALL
        .into_iter()
        .chain(frames)
        .filter_map(|kind| {
            let f = module.function(kind)?;
            let roots = f.roots();
            let values = envs
                .iter()
                .map(|env| module.graph.eval_many(&roots, env))
                .collect();
            Some((kind, values))
        })
        .collect()
}

#[test]
fn snapped_models_match_the_literal_ones_on_every_function() {
    for (file, xml, tip, frames) in urdf_fixtures() {
        let literal = import_with(&xml, &file, tip.as_deref(), &frames, false);
        let snapped = import_with(&xml, &file, tip.as_deref(), &frames, true);
        assert!(literal.snaps.is_empty());
        assert_eq!(literal.robot.is_chain(), tip.is_some(), "{file}");
        assert_eq!(literal.robot.frames.len(), snapped.robot.frames.len());
        let n = literal.robot.dof();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let envs: Vec<Env> = (0..4)
            .map(|_| Env {
                q: rng.vec(n, 3.0),
                qd: rng.vec(n, 2.0),
                qdd: rng.vec(n, 5.0),
                tau: rng.vec(n, 20.0),
                params: Vec::new(),
                base: Vec::new(),
                elastic: Default::default(),
            })
            .collect();
        let want = evaluate(&literal.robot, &envs);
        let got = evaluate(&snapped.robot, &envs);
        // A tree has no tool (`forward_kinematics`, `jacobian`) but a pair per frame.
        let tool = if tip.is_some() { 2 } else { 0 };
        assert_eq!(
            want.len(),
            FunctionKind::ALL.len() - 2 + tool + 2 * literal.robot.frames.len(),
            "{file}"
        );
        for ((kind, want), (kind2, got)) in want.iter().zip(&got) {
            assert_eq!(kind, kind2);
            for (w, g) in want.iter().zip(got) {
                let scale = w.iter().fold(0.0f64, |m, x| m.max(x.abs()));
                assert!(scale > 0.0, "{file} {kind:?}: all zero");
                let err = w
                    .iter()
                    .zip(g)
                    .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
                assert!(
                    err <= 1e-9 * scale,
                    "{file} {kind:?}: snapped differs by {err:e} (scale {scale:e})"
                );
            }
        }
    }
}

#[test]
fn snapping_shrinks_the_ur5_and_lists_every_snap() {
    let (_, xml, tip, _) = urdf_fixtures()
        .into_iter()
        .find(|(f, _, _, _)| f == "ur5.urdf")
        .unwrap();
    let tip = tip.unwrap();
    let snapped = import(&xml, "ur5.urdf", &tip, true);
    let literal = import(&xml, "ur5.urdf", &tip, false);
    // Every joint axis of the literal import has rounding noise of 4.9e-12 where the snapped
    // one has exact zeros.
    let noisy = |r: &Robot| {
        r.bodies
            .iter()
            .flat_map(|b| b.axis.iter().chain(&b.next).chain(&b.com))
            .filter(|x| **x != 0.0 && x.abs() < 1e-9)
            .count()
    };
    assert!(noisy(&literal.robot) > 0);
    assert_eq!(noisy(&snapped.robot), 0);
    for b in &snapped.robot.bodies {
        assert!(b.axis.iter().all(|x| [0.0, 1.0, -1.0].contains(x)), "{b:?}");
        let i = b.inertia_com;
        assert_eq!((i[0][1], i[0][2], i[1][2]), (0.0, 0.0, 0.0));
    }
    // The shoulder-lift joint's pitch of 1.57079632679 (line 30 of the fixture), located at
    // the attribute's value.
    let pitch = snapped
        .snaps
        .iter()
        .find(|s| s.what == "joint[shoulder_lift_joint].origin.rpy.pitch")
        .expect("the pitch is snapped");
    assert_eq!(pitch.from, 1.57079632679);
    assert_eq!(pitch.to, std::f64::consts::FRAC_PI_2);
    assert!((pitch.by() - (std::f64::consts::FRAC_PI_2 - 1.57079632679)).abs() < 1e-15);
    let line = xml.lines().nth(pitch.at.line as usize - 1).unwrap();
    let col = pitch.at.col as usize - 1;
    assert!(line[col..].starts_with("0.0 1.57079632679 0.0"), "{line}");
    assert_eq!(
        pitch.to_string(),
        format!(
            "ur5.urdf:{}:{}: joint[shoulder_lift_joint].origin.rpy.pitch: 1.57079632679 -> \
             pi/2 (by 4.9e-12)",
            pitch.at.line, pitch.at.col
        )
    );
    // Fewer operations than the literal model.
    let ops = |r: &Robot| {
        let m = build_module(r).lowered();
        let f = m.function(FunctionKind::InverseDynamics).unwrap();
        m.graph.op_count(&f.roots()).total()
    };
    assert!(ops(&snapped.robot) * 10 < ops(&literal.robot) * 6);
}

#[test]
fn values_off_by_more_than_the_tolerance_are_kept() {
    let xml = |rpy: &str, axis: &str, ixy: &str| {
        format!(
            r#"<robot name="r">
  <link name="a"/>
  <link name="b"><inertial><mass value="1"/>
    <inertia ixx="1" iyy="1" izz="1" ixy="{ixy}" ixz="{ixy}"/></inertial></link>
  <joint name="j" type="revolute"><parent link="a"/><child link="b"/>
    <origin xyz="0 0 1" rpy="{rpy}"/><axis xyz="{axis}"/></joint>
</robot>"#
        )
    };
    // 1.5708 is 3.7e-6 from pi/2, 1e-6 is no rounding noise, 1e-7 is no negligible product
    // (in the link's axes, nor rolled by 1.5708 into base axes).
    let kept = import(&xml("1.5708 0 0", "0 1e-6 1", "1e-7"), "r.urdf", "b", true);
    assert!(kept.snaps.is_empty(), "{:?}", kept.snaps);
    let snapped = import(
        &xml("1.5707963268 0 0", "0 1e-12 1", "1e-12"),
        "r.urdf",
        "b",
        true,
    );
    let what: Vec<&str> = snapped.snaps.iter().map(|s| s.what.as_str()).collect();
    assert!(what.contains(&"joint[j].origin.rpy.roll"), "{what:?}");
    assert!(what.contains(&"joint[j].axis.xyz.y"), "{what:?}");
    assert!(what.contains(&"link[b].inertial.inertia.ixy"), "{what:?}");
    assert!(what.contains(&"link[b].inertial.inertia.ixz"), "{what:?}");
    // The axis (0, 0, 1) in the joint frame, rolled by exactly pi/2, is -y.
    assert_eq!(snapped.robot.bodies[0].axis, [0.0, -1.0, 0.0]);
    assert_eq!(snapped.robot.bodies[0].inertia_com[0][1], 0.0);
}

#[test]
fn nothing_near_exact_is_left_after_snapping() {
    for (file, xml, tip, frames) in urdf_fixtures() {
        let imported = import_with(&xml, &file, tip.as_deref(), &frames, true);
        if file == "allegro_left_hand.urdf" {
            // The thumb's yaw is written `1.5707963259`, 8.9e-10 from pi/2: beyond the angle
            // tolerance, kept as written, and so are the values composed from it (its axes
            // carry components of 7.8e-11 and 8.9e-10). Snapping it would move the thumb's
            // torques by 1.07e-9 relative.
            let yaw = 1.5707963259;
            assert!(yaw - std::f64::consts::FRAC_PI_2 < -ANGLE_TOL);
            assert!(!imported.snaps.iter().any(|s| s.what.contains("joint_12.0")));
            continue;
        }
        let robot = imported.robot;
        let length: f64 = robot
            .bodies
            .iter()
            .map(|b| b.next.iter().map(|x| x * x).sum::<f64>().sqrt())
            .sum();
        let near = |x: f64, tol: f64| x != 0.0 && x.abs() <= tol;
        for (k, b) in robot.bodies.iter().enumerate() {
            let what = format!("{file} body[{}]", k + 1);
            assert!(!b.axis.iter().any(|&x| near(x, AXIS_TOL)), "{what} axis");
            assert!(
                !b.axis
                    .iter()
                    .any(|&x| x.abs() != 1.0 && (x.abs() - 1.0).abs() <= 1e-15),
                "{what} axis"
            );
            for v in [&b.origin, &b.next, &b.com] {
                assert!(!v.iter().any(|&x| near(x, 1e-10 * length)), "{what}: {v:?}");
            }
            let i = b.inertia_com;
            let moment = i[0][0].max(i[1][1]).max(i[2][2]);
            for x in [i[0][1], i[0][2], i[1][2]] {
                assert!(!near(x, 1e-9 * moment), "{what} inertia {i:?}");
            }
        }
        // Entries near 1 are legitimate in a rotation tilted by 1e-5 (cos = 1 - 5e-11); entries
        // near 0 are not.
        for x in robot.tool_rotation.iter().flatten() {
            assert!(!near(*x, AXIS_TOL), "{file} tool rotation");
        }
        for f in &robot.frames {
            let what = format!("{file} frame {}", f.name);
            assert!(
                !f.position.iter().any(|&x| near(x, 1e-10 * length)),
                "{what}"
            );
            assert!(
                !f.rotation.iter().flatten().any(|&x| near(x, AXIS_TOL)),
                "{what}"
            );
        }
    }
}

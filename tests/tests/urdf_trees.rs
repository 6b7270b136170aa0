//! URDF files imported as whole trees (the Allegro hand of example-robot-data and a synthetic
//! tree with tilted axes, prismatic, continuous and fixed joints), generated, emitted and
//! compiled by `build.rs`: every function, named frames included, in Rust and C, against the
//! Pinocchio models `tools/urdf_reference.py` built from the same files, whose joint order
//! (depth first, siblings by joint name) and frame order the importer must reproduce.

use quasidyn_codegen::import::ImportOptions;
use quasidyn_codegen::{load_input_with, FunctionKind};
use quasidyn_tests::generated::URDF_TREES;
use quasidyn_tests::{
    assert_outputs_close, fixture_inputs, fixture_outputs, load_fixture, workspace_root,
};

/// Agreement required of double-precision generated code with Pinocchio.
const REL: f64 = 1e-9;

/// A fixture's list of strings `key` (`joints`, `frames`, `frame_links`).
fn names(stem: &str, key: &str) -> Vec<String> {
    let path = workspace_root()
        .join("tests/fixtures")
        .join(format!("{stem}.json"));
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("fixture")).expect("json");
    doc[key]
        .as_array()
        .unwrap_or_else(|| panic!("{stem}: no `{key}`"))
        .iter()
        .map(|v| v.as_str().expect("a name").to_owned())
        .collect()
}

#[test]
fn every_urdf_tree_is_tested() {
    let stems: Vec<&str> = URDF_TREES.iter().map(|t| t.stem).collect();
    assert_eq!(stems, ["urdf/allegro_left_hand", "urdf/synthetic_tree"]);
}

#[test]
fn joint_and_frame_order_is_pinocchios() {
    for tree in URDF_TREES {
        let path = workspace_root()
            .join("tests/fixtures")
            .join(format!("{}.urdf", tree.stem));
        let options = ImportOptions {
            tip: None,
            frames: names(tree.stem, "frame_links"),
            ..ImportOptions::default()
        };
        let robot = load_input_with(&path, &options).expect("imports").robot;
        assert!(!robot.is_chain(), "{}", tree.stem);
        let joints: Vec<&str> = robot.bodies.iter().map(|b| b.joint_name.as_str()).collect();
        assert_eq!(joints, names(tree.stem, "joints"), "{}", tree.stem);
        let frames: Vec<&str> = robot.frames.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(frames, names(tree.stem, "frames"), "{}", tree.stem);
        assert_eq!(tree.frames, frames.as_slice(), "{}", tree.stem);
    }
}

#[test]
fn every_function_matches_pinocchio() {
    for tree in URDF_TREES {
        let fixture = load_fixture(tree.stem);
        assert_eq!(fixture.dof, tree.dof, "{}", tree.stem);
        assert_eq!(fixture.states.len(), 30, "{}", tree.stem);
        let mut expected: Vec<FunctionKind> = FunctionKind::ALL
            .into_iter()
            .filter(|k| !matches!(k, FunctionKind::ForwardKinematics | FunctionKind::Jacobian))
            .collect();
        for k in 0..tree.frames.len() {
            let k = u16::try_from(k).expect("few frames");
            expected.extend([
                FunctionKind::FrameKinematics(k),
                FunctionKind::FrameJacobian(k),
            ]);
        }
        let mut got = tree.kinds.to_vec();
        got.sort();
        expected.sort();
        assert_eq!(got, expected, "{}: the functions of a tree", tree.stem);
        for (k, s) in fixture.states.iter().enumerate() {
            assert_eq!(s.frames.len(), tree.frames.len(), "{} frames", tree.stem);
            for (f, name) in s.frames.iter().zip(tree.frames) {
                assert_eq!(f.name, *name, "{} frame order", tree.stem);
            }
            let x = fixture_inputs(s);
            for &kind in tree.kinds {
                let expected = fixture_outputs(s, kind);
                for (label, imp) in [("rust", tree.rust), ("c", tree.c)] {
                    assert_outputs_close(
                        &format!("{} {label} fixture state {k} {kind:?}", tree.stem),
                        &imp.call(kind, &x),
                        &expected,
                        REL,
                    );
                }
            }
        }
    }
}

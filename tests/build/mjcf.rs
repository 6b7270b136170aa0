//! The default functions of a few MJCF fixtures (the derivatives and functions on request where
//! the fixture has MuJoCo's; tests/fixtures/mjcf/, written by
//! tools/mjcf_reference.py from MuJoCo itself), in Rust and C, and `MJCF`: each robot's
//! functions called uniformly from either language (`tau` in the place of `a` for the forward
//! dynamics), so that the compiled code is checked against MuJoCo as the expression graph is
//! in the generator's tests.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use quasidyn_codegen::emit::RustOptions;
use quasidyn_codegen::import::{ImportOptions, JointLock};
use quasidyn_codegen::{build_module_only, load_input_with, FunctionKind};

use crate::whole_body::{registry_entry, robot_glue, Emitted};

/// The fixtures compiled: a floating humanoid in MuJoCo's layout, the synthetic free model
/// (slides, several joints in a body), a fixed-base arm and a model with locked joints and
/// armature.
const MJCF_COMPILED: [&str; 4] = [
    "humanoid",
    "synthetic_free",
    "kinova_gen3",
    "synthetic_armature_locked",
];

/// The whole-body functions the fixtures hold MuJoCo's values of (tools/mjcf_reference.py),
/// and the Coriolis matrix, checked by what it gives with them.
const WHOLE_BODY_CHECKED: [FunctionKind; 5] = [
    FunctionKind::MassMatrixInverse,
    FunctionKind::KineticEnergy,
    FunctionKind::PotentialEnergy,
    FunctionKind::JointWrenches,
    FunctionKind::CoriolisMatrix,
];

/// The most frames whose motion functions are compiled for one robot.
const FRAME_MOTION_MAX_FRAMES: usize = 5;

/// The import options a fixture records: frames on bodies, the tree kept, the joints locked.
fn fixture_options(json: &serde_json::Value) -> ImportOptions {
    let strings = |key: &str| -> Vec<String> {
        json[key].as_array().map_or_else(Vec::new, |a| {
            a.iter()
                .map(|v| v.as_str().expect("a name").to_owned())
                .collect()
        })
    };
    let locks = json["locks"].as_object().map_or_else(Vec::new, |locks| {
        locks
            .iter()
            .map(|(joint, value)| match value.as_f64() {
                Some(v) => JointLock::at(joint, v),
                None => JointLock::at_reference(joint),
            })
            .collect()
    });
    ImportOptions {
        frames: strings("frame_bodies"),
        root: json["root"].as_str().map(str::to_owned),
        locks,
        ..ImportOptions::default()
    }
}

/// Writes each robot's code, returns the Rust glue and the C sources to compile.
pub fn mjcf_variants(
    manifest: &Path,
    rust_dir: &Path,
    c_dir: &Path,
    write: fn(&Path, &str),
    write_c: fn(&Path, &quasidyn_codegen::CFiles) -> PathBuf,
) -> (String, Vec<PathBuf>) {
    let dir = manifest.join("fixtures/mjcf");
    let (mut glue, mut sources, mut registry) = (String::new(), Vec::new(), String::new());
    for fixture in MJCF_COMPILED {
        let json_path = dir.join(format!("{fixture}.json"));
        println!("cargo:rerun-if-changed={}", json_path.display());
        let text = fs::read_to_string(&json_path).expect("fixture");
        let json: serde_json::Value = serde_json::from_str(&text).expect("json");
        let file = json["file"]
            .as_str()
            .map_or_else(|| format!("{fixture}.xml"), str::to_owned);
        let input = dir.join(&file);
        println!("cargo:rerun-if-changed={}", input.display());
        let mut robot = load_input_with(&input, &fixture_options(&json))
            .unwrap_or_else(|e| panic!("{file}: {e}"))
            .robot;
        // Renamed so that the C symbols do not clash with other robots'.
        robot.name = format!("mjcf_{fixture}");
        let mut kinds = vec![
            FunctionKind::InverseDynamics,
            FunctionKind::Gravity,
            FunctionKind::NonlinearEffects,
            FunctionKind::MassMatrix,
            FunctionKind::ForwardDynamics,
        ];
        for k in 0..robot.frames.len() {
            let k = u16::try_from(k).expect("a few frames");
            kinds.extend([
                FunctionKind::FrameKinematics(k),
                FunctionKind::FrameJacobian(k),
            ]);
        }
        // The static joint reactions, where the fixture has MuJoCo's (the fixed bases).
        if json["states"][0].get("static_joint_reactions").is_some() {
            kinds.push(FunctionKind::StaticJointReactions);
        }
        // The derivatives, where the fixture has MuJoCo's.
        if json["states"][0].get("derivatives").is_some() {
            kinds.extend(FunctionKind::DERIVATIVES);
        }
        // The functions on request, where the fixture has MuJoCo's: the frames' motion only
        // where there are a few frames (the humanoid's 25 would double this crate's build).
        if json["states"][0].get("whole_body").is_some() {
            kinds.extend(FunctionKind::CENTROIDAL);
            kinds.extend(WHOLE_BODY_CHECKED);
            if robot.frames.len() <= FRAME_MOTION_MAX_FRAMES {
                for k in 0..robot.frames.len() {
                    let k = u16::try_from(k).expect("a few frames");
                    kinds.extend(FunctionKind::FRAME_MOTION.map(|kind| kind.for_frame(k)));
                }
            }
        }
        let module = build_module_only(&robot, Some(&kinds));
        let name = robot.name.clone();
        let out = Emitted {
            rust_dir,
            c_dir,
            write,
            write_c,
        };
        sources.push(out.emit(&module, &name, &RustOptions::default()));
        glue.push_str(&robot_glue(&name, &module));
        registry.push_str(&registry_entry(fixture, &name, &module, &kinds));
    }
    let _ = writeln!(
        glue,
        "/// A few robots of `tests/fixtures/mjcf/`, their default functions compiled; the \
         third argument of a call is `tau` for the forward dynamics.\npub static MJCF: \
         &[WholeBodyRobot] = &[\n{registry}];\n"
    );
    (glue, sources)
}

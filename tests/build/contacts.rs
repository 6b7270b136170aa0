//! The contact functions of the robots of `tests/fixtures/contacts/`
//! (tools/contact_reference.py), in Rust and C, with the mass matrix, the nonlinear effects and
//! the contact frames' motion the identities read, and `CONTACTS`: each robot's functions
//! called uniformly from either language (`tau` in the place of `a`); the Rust also with
//! batched functions, and `CONTACTS_BATCHED`: each robot's batched contact functions.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use quasidyn_codegen::emit::RustOptions;
use quasidyn_codegen::import::ImportOptions;
use quasidyn_codegen::names::snake_ident;
use quasidyn_codegen::{build_module_only, load_input_with};
use quasidyn_codegen::{FunctionKind, Robot};

use crate::whole_body::{registry_entry, robot_glue, Emitted};

/// States per call of the batched Rust of the contact functions.
const CONTACT_BATCH: usize = 4;

/// The functions generated for a fixture robot: the contact functions and what the
/// identities read.
pub fn contact_test_kinds(robot: &Robot) -> Vec<FunctionKind> {
    let mut kinds = vec![
        FunctionKind::MassMatrix,
        FunctionKind::NonlinearEffects,
        FunctionKind::ContactJacobian,
        FunctionKind::ContactForwardDynamics,
    ];
    for c in &robot.contacts {
        let k = u16::try_from(c.frame).expect("a few frames");
        kinds.push(FunctionKind::FrameVelocity(k));
        kinds.push(FunctionKind::FrameAccelerationBias(k));
    }
    kinds.sort();
    kinds.dedup();
    kinds
}

/// Writes each fixture robot's code, returns the Rust glue and the C sources to compile.
pub fn contact_variants(
    manifest: &Path,
    rust_dir: &Path,
    c_dir: &Path,
    write: fn(&Path, &str),
    write_c: fn(&Path, &quasidyn_codegen::CFiles) -> PathBuf,
) -> (String, Vec<PathBuf>) {
    let fixtures = crate::whole_body::json_fixtures(manifest, "contacts");
    let (mut glue, mut sources, mut registry) = (String::new(), Vec::new(), String::new());
    let mut batched = String::new();
    for path in &fixtures {
        let text = fs::read_to_string(path).expect("fixture");
        let json: serde_json::Value = serde_json::from_str(&text).expect("json");
        let fixture = json["name"].as_str().expect("name");
        let input = json["input"].as_str().expect("input");
        let contacts: Vec<String> = json["contacts"]
            .as_array()
            .expect("contacts")
            .iter()
            .map(|c| c.as_str().expect("a contact").to_owned())
            .collect();
        let options = ImportOptions {
            contacts,
            ..ImportOptions::default()
        };
        let input_path = manifest.join("..").join(input);
        println!("cargo:rerun-if-changed={}", input_path.display());
        let mut robot = load_input_with(&input_path, &options)
            .unwrap_or_else(|e| panic!("{input}: {e}"))
            .robot;
        // Renamed so that the C symbols do not clash with the robot's other libraries.
        robot.name = format!("{}_contacts", snake_ident(fixture));
        let kinds = contact_test_kinds(&robot);
        let module = build_module_only(&robot, Some(&kinds));
        let name = snake_ident(&robot.name);
        let options = RustOptions {
            batch: Some(CONTACT_BATCH),
            ..RustOptions::default()
        };
        let out = Emitted {
            rust_dir,
            c_dir,
            write,
            write_c,
        };
        sources.push(out.emit(&module, &name, &options));
        glue.push_str(&robot_glue(&name, &module));
        let size = |key: &str| json[key].as_u64().expect("a size");
        let rows = u64::try_from(robot.contact_rows()).expect("a few rows");
        assert_eq!(rows, size("nc"), "{fixture}: NC");
        glue.push_str(&batch_glue(&name, size("nq"), size("nv"), size("nc")));
        let _ = writeln!(
            batched,
            "    ContactBatch {{ fixture: {fixture:?}, batch: {CONTACT_BATCH}, rust: \
             rust_batch_{name} }},"
        );
        registry.push_str(&registry_entry(fixture, &name, &module, &kinds));
    }
    let _ = writeln!(
        glue,
        "/// The robots of `tests/fixtures/contacts/`, their contact functions (with the mass \
         matrix, the nonlinear effects and the contact frames' motion) compiled; the third \
         argument of a call is `tau`.\npub static CONTACTS: &[WholeBodyRobot] = \
         &[\n{registry}];\n\n\
         /// The same robots' batched contact functions in Rust.\npub static CONTACTS_BATCHED: \
         &[ContactBatch] = &[\n{batched}];\n"
    );
    (glue, sources)
}

/// `rust_batch_NAME(kind, states)`: the batched form of a contact function over
/// `CONTACT_BATCH` states (`q`, `qd` standing for `v`, and `tau` of each), per state its
/// outputs flattened row-major one after the other.
fn batch_glue(name: &str, nq: u64, nv: u64, nc: u64) -> String {
    let jc = nc * nv;
    format!(
        "fn rust_batch_{name}(kind: FunctionKind, x: &[State]) -> Vec<Vec<f64>> {{\n    \
         const B: usize = {name}::BATCH;\n    \
         let q: [[f64; B]; {nq}] = lanes(x, |s| &s.q);\n    \
         match kind {{\n        \
         FunctionKind::ContactJacobian => {{\n            \
         let mut jc = [[0.0; B]; {jc}];\n            \
         {name}::contact_jacobian_batch(&q, &mut jc);\n            \
         unlanes(&jc)\n        }}\n        \
         FunctionKind::ContactForwardDynamics => {{\n            \
         let v: [[f64; B]; {nv}] = lanes(x, |s| &s.qd);\n            \
         let tau: [[f64; B]; {nv}] = lanes(x, |s| &s.tau);\n            \
         let (mut a, mut lambda) = ([[0.0; B]; {nv}], [[0.0; B]; {nc}]);\n            \
         {name}::contact_forward_dynamics_batch(&q, &v, &tau, &mut a, &mut lambda);\n            \
         unlanes(&a).into_iter().zip(unlanes(&lambda)).map(|(a, l)| [a, l].concat()).collect()\n        \
         }}\n        \
         _ => panic!(\"{{kind:?}} has no batched form here\"),\n    }}\n}}\n\n"
    )
}

//! The functions generated on request of the robots of `tests/fixtures/prescribed/`
//! (tools/prescribed_reference.py), with the static joint reactions and the contacts each
//! fixture names: floating-base specs with their base's motion prescribed instead, once in
//! general and once translating only, in Rust and C, and `PRESCRIBED`: each robot's functions
//! called uniformly from either language, the base's arrays in the floating base's layout
//! ([`robot_glue`]).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use quasidyn_codegen::emit::RustOptions;
use quasidyn_codegen::import::ImportOptions;
use quasidyn_codegen::{
    build_module_only, every_function_of, load_input_with, BaseMotion, FunctionKind,
};

use crate::whole_body::{fixture_json, json_fixtures, registry_entry, robot_glue, Emitted};

/// Writes each fixture robot's code, returns the Rust glue and the C sources to compile.
pub fn prescribed_variants(manifest: &Path, out: &Emitted<'_>) -> (String, Vec<PathBuf>) {
    let fixtures = json_fixtures(manifest, "prescribed");
    let (mut glue, mut sources, mut registry) = (String::new(), Vec::new(), String::new());
    for path in &fixtures {
        let json = fixture_json(path);
        let fixture = json["name"].as_str().expect("name");
        let input = json["input"].as_str().expect("input");
        let input_path = manifest.join("..").join(input);
        println!("cargo:rerun-if-changed={}", input_path.display());
        // The contacts, as `--contact` names them.
        let contacts = serde_json::from_value(json["contacts"].clone()).expect("contacts");
        let options = ImportOptions {
            contacts,
            ..ImportOptions::default()
        };
        for (motion, tag) in [
            (BaseMotion::Prescribed, "prescribed"),
            (BaseMotion::Translating, "translating"),
        ] {
            let mut robot = load_input_with(&input_path, &options)
                .unwrap_or_else(|e| panic!("{input}: {e}"))
                .robot;
            robot.motion = motion;
            robot.base_body = None;
            robot.name = format!("{tag}_{fixture}");
            let kinds: Vec<FunctionKind> = every_function_of(&robot)
                .into_iter()
                .filter(|k| {
                    k.entry().group.on_request() || *k == FunctionKind::StaticJointReactions
                })
                .collect();
            let module = build_module_only(&robot, Some(&kinds));
            let name = robot.name.clone();
            sources.push(out.emit(&module, &name, &RustOptions::default()));
            glue.push_str(&robot_glue(&name, &module));
            let key = format!("{fixture}/{tag}");
            registry.push_str(&registry_entry(&key, &name, &module, &kinds));
        }
    }
    let _ = writeln!(
        glue,
        "/// The robots of `tests/fixtures/prescribed/` (`FIXTURE/prescribed` and \
         `FIXTURE/translating`), their functions on request compiled; `q`, `v` and `a` hold the \
         base's arrays first.\npub static PRESCRIBED: &[WholeBodyRobot] = &[\n{registry}];\n"
    );
    (glue, sources)
}

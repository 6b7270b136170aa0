//! Every function of the robots of `tests/fixtures/mimic/` (URDFs and MJCF models with joints
//! that follow others, tools/mimic_reference.py), generated with `--only all` (or those the
//! fixture lists), in Rust and C, and `MIMIC`:
//! each robot's functions called uniformly from either language (`tau` in the place of `a`
//! for the forward dynamics).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use quasidyn_codegen::emit::RustOptions;
use quasidyn_codegen::import::ImportOptions;
use quasidyn_codegen::{build_module_only, every_function_of, load_input_with, select_functions};

use crate::whole_body::{fixture_json, json_fixtures, registry_entry, robot_glue, Emitted};

/// Writes each fixture robot's code, returns the Rust glue and the C sources to compile.
pub fn mimic_variants(manifest: &Path, out: &Emitted<'_>) -> (String, Vec<PathBuf>) {
    let fixtures = json_fixtures(manifest, "mimic");
    let (mut glue, mut sources, mut registry) = (String::new(), Vec::new(), String::new());
    let mut joints = String::new();
    for path in &fixtures {
        let json = fixture_json(path);
        let fixture = json["name"].as_str().expect("name");
        let input = json["input"].as_str().expect("input");
        // The contacts, as `--contact` names them (the MJCF fixtures have none).
        let contacts: Vec<String> = json["contacts"]
            .as_array()
            .map(|c| {
                c.iter()
                    .map(|c| c.as_str().expect("a contact").to_owned())
                    .collect()
            })
            .unwrap_or_default();
        let options = ImportOptions {
            floating_base: json["floating_base"].as_bool().expect("floating_base"),
            contacts,
            ..ImportOptions::default()
        };
        let input_path = manifest.join("..").join(input);
        println!("cargo:rerun-if-changed={}", input_path.display());
        let mut robot = load_input_with(&input_path, &options)
            .unwrap_or_else(|e| panic!("{input}: {e}"))
            .robot;
        // Renamed so that the C symbols do not clash with other robots'.
        robot.name = format!("mimic_{fixture}");
        // Every function the robot has, or those the fixture lists (MuJoCo's quantities).
        let kinds = match json["functions"].as_array() {
            Some(names) => {
                let names: Vec<&str> = names.iter().map(|n| n.as_str().expect("a name")).collect();
                select_functions(&robot, &names).unwrap_or_else(|e| panic!("{fixture}: {e}"))
            }
            None => every_function_of(&robot),
        };
        let module = build_module_only(&robot, Some(&kinds));
        let name = robot.name.clone();
        sources.push(out.emit(&module, &name, &RustOptions::default()));
        glue.push_str(&robot_glue(&name, &module));
        registry.push_str(&registry_entry(fixture, &name, &module, &kinds));
        let _ = writeln!(joints, "    ({fixture:?}, &{name}::ALL_JOINT_NAMES),");
    }
    let _ = writeln!(
        glue,
        "/// The robots of `tests/fixtures/mimic/`, every function they have compiled; the third \
         argument of a call is `tau` for the forward dynamics.\npub static MIMIC: \
         &[WholeBodyRobot] = &[\n{registry}];\n\n\
         /// Each of them with its generated Rust's `ALL_JOINT_NAMES`.\npub static MIMIC_JOINTS: \
         &[(&str, &[&str])] = &[\n{joints}];\n"
    );
    (glue, sources)
}

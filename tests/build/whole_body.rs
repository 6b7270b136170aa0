//! The functions generated on request (the centre of mass, the centroidal momentum, the
//! Coriolis matrix) of the robots of `tests/fixtures/whole_body/`
//! (tools/whole_body_reference.py), in Rust and C, and `WHOLE_BODY`: each robot's functions
//! called uniformly from either language.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use quasidyn_codegen::functions::Input;
use quasidyn_codegen::import::ImportOptions;
use quasidyn_codegen::names::snake_ident;
use quasidyn_codegen::{
    build_module_only, emit_c, emit_rust, every_function_of, load_input_with, COptions,
};
use quasidyn_codegen::{FunctionKind, Module};

/// Writes each fixture robot's code, returns the Rust glue and the C sources to compile.
pub fn whole_body_variants(
    manifest: &Path,
    rust_dir: &Path,
    c_dir: &Path,
    write: fn(&Path, &str),
    write_c: fn(&Path, &quasidyn_codegen::CFiles) -> PathBuf,
) -> (String, Vec<PathBuf>) {
    let dir = manifest.join("fixtures/whole_body");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut fixtures: Vec<PathBuf> = fs::read_dir(&dir)
        .expect("tests/fixtures/whole_body exists")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    fixtures.sort();
    let (mut glue, mut sources, mut registry) = (String::new(), Vec::new(), String::new());
    for path in &fixtures {
        let text = fs::read_to_string(path).expect("fixture");
        let json: serde_json::Value = serde_json::from_str(&text).expect("json");
        let fixture = json["name"].as_str().expect("name");
        let input = json["input"].as_str().expect("input");
        let floating = json["floating_base"].as_bool().expect("floating_base");
        let options = ImportOptions {
            floating_base: floating && input.ends_with(".urdf"),
            ..ImportOptions::default()
        };
        let input_path = manifest.join("..").join(input);
        println!("cargo:rerun-if-changed={}", input_path.display());
        let mut robot = load_input_with(&input_path, &options)
            .unwrap_or_else(|e| panic!("{input}: {e}"))
            .robot;
        // Renamed so that the C symbols do not clash with the robot's default library.
        robot.name = format!("{}_whole_body", snake_ident(fixture));
        let on_request: Vec<FunctionKind> = every_function_of(&robot)
            .into_iter()
            .filter(|k| k.entry().group.on_request())
            .collect();
        let module = build_module_only(&robot, Some(&on_request));
        let name = snake_ident(&robot.name);
        let rust = emit_rust(&module).unwrap_or_else(|e| panic!("{name}: {e}"));
        write(&rust_dir.join(format!("{name}.rs")), &rust);
        let c = emit_c(&module, &COptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        sources.push(write_c(c_dir, &c));
        glue.push_str(&robot_glue(&name, &module));
        let _ = writeln!(
            registry,
            "    WholeBodyRobot {{ fixture: {fixture:?}, kinds: &[{}], rust: rust_{name}, c: \
             c_{name} }},",
            on_request
                .iter()
                .map(|k| format!("FunctionKind::{k:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let _ = writeln!(
        glue,
        "/// The robots of `tests/fixtures/whole_body/`, their functions generated on request \
         and compiled.\npub static WHOLE_BODY: &[WholeBodyRobot] = &[\n{registry}];\n"
    );
    (glue, sources)
}

/// The module, its C declarations and two functions `rust_NAME(kind, q, v)` and
/// `c_NAME(kind, q, v)` returning the one output of `kind`, flattened row-major.
fn robot_glue(name: &str, module: &Module) -> String {
    let (mut decls, mut rust_arms, mut c_arms) = (String::new(), String::new(), String::new());
    for f in &module.functions {
        let entry = f.kind.entry();
        let fname = entry.name;
        let inputs = entry.inputs_for(module.motion);
        let takes_velocity = inputs.iter().any(|i| matches!(i, Input::Qd | Input::V));
        let output = &f.outputs[0];
        let len = output.rows * output.cols;
        let mut c_params = vec!["q: *const f64".to_owned()];
        let mut rust_args = vec!["q.try_into().expect(\"q\")".to_owned()];
        let mut c_args = vec!["q.as_ptr()".to_owned()];
        if takes_velocity {
            c_params.push("v: *const f64".to_owned());
            rust_args.push("v.try_into().expect(\"v\")".to_owned());
            c_args.push("v.as_ptr()".to_owned());
        }
        c_params.push("out: *mut f64".to_owned());
        c_args.push("out.as_mut_ptr()".to_owned());
        let _ = writeln!(
            decls,
            "        pub fn {name}_{fname}({});",
            c_params.join(", ")
        );
        let flatten = if entry.outputs[0].cols.is_some() {
            ".iter().flatten().copied().collect()"
        } else {
            ".to_vec()"
        };
        let path = format!("FunctionKind::{:?}", f.kind);
        let _ = writeln!(
            rust_arms,
            "        {path} => {name}::{fname}({}){flatten},",
            rust_args.join(", ")
        );
        let _ = writeln!(
            c_arms,
            "        {path} => {{\n            let mut out = vec![0.0; {len}];\n            \
             // SAFETY: q and v hold NQ and NV values (checked) and out the output's length.\n            \
             unsafe {{ {name}_c::{name}_{fname}({}) }};\n            out\n        }}",
            c_args.join(", ")
        );
    }
    let nq = if module.motion == quasidyn_codegen::BaseMotion::Floating {
        module.dof + 7
    } else {
        module.dof
    };
    let nv = if nq == module.dof { nq } else { module.dof + 6 };
    format!(
        "/// Generated Rust of the functions on request of `{name}`.\npub mod {name} {{\n    \
         include!(concat!(env!(\"OUT_DIR\"), \"/rust/{name}.rs\"));\n}}\n\n\
         /// Its generated C.\npub mod {name}_c {{\n    extern \"C\" {{\n{decls}    }}\n}}\n\n\
         fn rust_{name}(kind: FunctionKind, q: &[f64], v: &[f64]) -> Vec<f64> {{\n    \
         match kind {{\n{rust_arms}        _ => panic!(\"{{kind:?}} is not generated\"),\n    }}\n}}\n\n\
         fn c_{name}(kind: FunctionKind, q: &[f64], v: &[f64]) -> Vec<f64> {{\n    \
         assert_eq!((q.len(), v.len()), ({nq}, {nv}));\n    \
         match kind {{\n{c_arms}\n        _ => panic!(\"{{kind:?}} is not generated\"),\n    }}\n}}\n\n"
    )
}

//! The functions generated on request (the centre of mass, the centroidal momentum, the
//! Coriolis matrix, the inverse mass matrix, the joint wrenches, the frames' motion) of the
//! robots of `tests/fixtures/whole_body/`
//! (tools/whole_body_reference.py), in Rust and C, and `WHOLE_BODY`: each robot's functions
//! called uniformly from either language.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use quasidyn_codegen::emit::RustOptions;
use quasidyn_codegen::functions::Input;
use quasidyn_codegen::import::ImportOptions;
use quasidyn_codegen::names::snake_ident;
use quasidyn_codegen::{
    build_module_only, emit_c, emit_rust_reporting, every_function_of, load_input_with, COptions,
};
use quasidyn_codegen::{FunctionKind, Module, Silent};

/// The JSON fixtures of `manifest/fixtures/NAME`, sorted (and a rerun of the build script when
/// the directory changes).
pub(crate) fn json_fixtures(manifest: &Path, name: &str) -> Vec<PathBuf> {
    let dir = manifest.join("fixtures").join(name);
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut fixtures: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("tests/fixtures/{name}: {e}"))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    fixtures.sort();
    fixtures
}

/// A fixture's JSON.
pub(crate) fn fixture_json(path: &Path) -> serde_json::Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Writes each fixture robot's code, returns the Rust glue and the C sources to compile.
pub fn whole_body_variants(
    manifest: &Path,
    rust_dir: &Path,
    c_dir: &Path,
    write: fn(&Path, &str),
    write_c: fn(&Path, &quasidyn_codegen::CFiles) -> PathBuf,
) -> (String, Vec<PathBuf>) {
    let fixtures = json_fixtures(manifest, "whole_body");
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
        let out = Emitted {
            rust_dir,
            c_dir,
            write,
            write_c,
        };
        sources.push(out.emit(&module, &name, &RustOptions::default()));
        glue.push_str(&robot_glue(&name, &module));
        registry.push_str(&registry_entry(fixture, &name, &module, &on_request));
    }
    let _ = writeln!(
        glue,
        "/// The robots of `tests/fixtures/whole_body/`, their functions generated on request \
         and compiled.\npub static WHOLE_BODY: &[WholeBodyRobot] = &[\n{registry}];\n"
    );
    (glue, sources)
}

/// Where a test robot's generated code goes, and how it is written.
pub(crate) struct Emitted<'a> {
    pub rust_dir: &'a Path,
    pub c_dir: &'a Path,
    pub write: fn(&Path, &str),
    pub write_c: fn(&Path, &quasidyn_codegen::CFiles) -> PathBuf,
}

impl Emitted<'_> {
    /// Writes `module`'s Rust (`rust_dir/NAME.rs`, with `options`) and C; returns the C source.
    pub(crate) fn emit(&self, module: &Module, name: &str, options: &RustOptions) -> PathBuf {
        let rust = emit_rust_reporting(module, options, &mut Silent)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        (self.write)(&self.rust_dir.join(format!("{name}.rs")), &rust);
        let c = emit_c(module, &COptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        (self.write_c)(self.c_dir, &c)
    }
}

/// The registry entry `WholeBodyRobot { .. }` of the robot `name` (compiled from `module`,
/// glued by [`robot_glue`]) for `fixture`, with its functions `kinds`.
pub(crate) fn registry_entry(
    fixture: &str,
    name: &str,
    module: &Module,
    kinds: &[FunctionKind],
) -> String {
    let kinds: Vec<String> = kinds
        .iter()
        .map(|&k| {
            let fname = module.function_name(k).expect("named");
            format!("(FunctionKind::{k:?}, {fname:?})")
        })
        .collect();
    format!(
        "    WholeBodyRobot {{ fixture: {fixture:?}, kinds: &[{}], rust: rust_{name}, c: \
         c_{name} }},\n",
        kinds.join(", ")
    )
}

/// The module, its C declarations and two functions `rust_NAME(kind, q, v, a)` and
/// `c_NAME(kind, q, v, a)` returning the outputs of `kind`, flattened row-major one after the
/// other (a function that takes the forces `tau` reads them from `a`'s place). A prescribed
/// base's arrays come in the floating base's layout: `q` is `base_pose` then the joints', `v`
/// `base_vel` then `qd`, `a` `base_acc` then `qdd`.
pub(crate) fn robot_glue(name: &str, module: &Module) -> String {
    let (mut decls, mut rust_arms, mut c_arms) = (String::new(), String::new(), String::new());
    let prescribed = matches!(
        module.motion,
        quasidyn_codegen::BaseMotion::Prescribed | quasidyn_codegen::BaseMotion::Translating
    );
    for f in &module.functions {
        let entry = f.kind.entry();
        let fname = module.function_name(f.kind).expect("named");
        let (mut c_params, mut rust_args, mut c_args) = (Vec::new(), Vec::new(), Vec::new());
        for input in entry.inputs_for(module.motion) {
            let (param, arg) = match (input, prescribed) {
                (Input::BasePose, true) => ("base_pose", "q[..7]"),
                (Input::BaseVel, true) => ("base_vel", "v[..6]"),
                (Input::BaseAcc, true) => ("base_acc", "a[..6]"),
                (Input::Q, true) => ("q", "q[7..]"),
                (Input::Qd, true) => ("qd", "v[6..]"),
                (Input::Qdd | Input::Tau, true) => ("qdd", "a[6..]"),
                (Input::Q, false) => ("q", "q"),
                (Input::Qd | Input::V, false) => ("v", "v"),
                (Input::Qdd | Input::A | Input::Tau, false) => ("a", "a"),
                (other, _) => panic!("{fname}: no {other:?} in these tests"),
            };
            c_params.push(format!("{param}: *const f64"));
            rust_args.push(format!("{arg}.try_into().expect(\"{param}\")"));
            c_args.push(format!("{arg}.as_ptr()"));
        }
        let scalar = entry.returns_scalar();
        let mut allocs = String::new();
        for (k, output) in f.outputs.iter().enumerate() {
            if scalar {
                break;
            }
            c_params.push(format!("out{k}: *mut f64"));
            c_args.push(format!("out{k}.as_mut_ptr()"));
            let _ = write!(
                allocs,
                "let mut out{k} = vec![0.0; {}]; ",
                output.rows * output.cols
            );
        }
        let returns = if scalar { " -> f64" } else { "" };
        let _ = writeln!(
            decls,
            "        pub fn {name}_{fname}({}){returns};",
            c_params.join(", ")
        );
        let flatten = |o: usize| {
            if entry.outputs[o].cols.is_some() {
                ".iter().flatten().copied()"
            } else {
                ".iter().copied()"
            }
        };
        let call = format!("{name}::{fname}({})", rust_args.join(", "));
        let rust_value = if scalar {
            format!("vec![{call}]")
        } else if f.outputs.len() == 1 && entry.outputs[0].cols.is_none() {
            format!("{call}.to_vec()")
        } else if f.outputs.len() == 1 {
            format!("{call}{}.collect()", flatten(0))
        } else {
            let parts: Vec<String> = (0..f.outputs.len())
                .map(|o| format!("r.{o}{}", flatten(o)))
                .collect();
            let chained = parts
                .iter()
                .skip(1)
                .fold(parts[0].clone(), |acc, p| format!("{acc}.chain({p})"));
            format!("{{ let r = {call}; {chained}.collect() }}")
        };
        let path = format!("FunctionKind::{:?}", f.kind);
        let _ = writeln!(rust_arms, "        {path} => {rust_value},");
        if scalar {
            let _ = writeln!(
                c_arms,
                "        {path} => {{\n            \
                 // SAFETY: q, v and a hold NQ, NV and NV values (checked).\n            \
                 vec![unsafe {{ {name}_c::{name}_{fname}({}) }}]\n        }}",
                c_args.join(", ")
            );
            continue;
        }
        let outs: Vec<String> = (0..f.outputs.len()).map(|k| format!("out{k}")).collect();
        let _ = writeln!(
            c_arms,
            "        {path} => {{\n            {allocs}\n            \
             // SAFETY: q, v and a hold NQ, NV and NV values (checked) and each output its \
             length.\n            \
             unsafe {{ {name}_c::{name}_{fname}({}) }};\n            [{}].concat()\n        }}",
            c_args.join(", "),
            outs.join(", ")
        );
    }
    let nq = if module.motion == quasidyn_codegen::BaseMotion::Floating || prescribed {
        module.dof + 7
    } else {
        module.dof
    };
    let nv = if nq == module.dof { nq } else { module.dof + 6 };
    format!(
        "/// Generated Rust of the functions on request of `{name}`.\npub mod {name} {{\n    \
         include!(concat!(env!(\"OUT_DIR\"), \"/rust/{name}.rs\"));\n}}\n\n\
         /// Its generated C.\npub mod {name}_c {{\n    extern \"C\" {{\n{decls}    }}\n}}\n\n\
         fn rust_{name}(kind: FunctionKind, q: &[f64], v: &[f64], a: &[f64]) -> Vec<f64> {{\n    \
         let _ = (&v, &a);\n    \
         match kind {{\n{rust_arms}        _ => panic!(\"{{kind:?}} is not generated\"),\n    }}\n}}\n\n\
         fn c_{name}(kind: FunctionKind, q: &[f64], v: &[f64], a: &[f64]) -> Vec<f64> {{\n    \
         assert_eq!((q.len(), v.len(), a.len()), ({nq}, {nv}, {nv}));\n    \
         match kind {{\n{c_arms}\n        _ => panic!(\"{{kind:?}} is not generated\"),\n    }}\n}}\n\n"
    )
}

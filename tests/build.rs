//! Generates, compiles and registers the code of every robot in `robots/`:
//!
//! - `$OUT_DIR/rust/NAME.rs`: `emit_rust` output, included by `src/lib.rs` as `generated::NAME`;
//! - `$OUT_DIR/c/NAME.{h,c}`: `emit_c` output, compiled with strict C99 flags into a static
//!   library linked into the crate; plus the single-precision variant of one robot and the
//!   header-only variant of another (through a small wrapper file), so that every emitter
//!   path goes through the same strict compile;
//! - the same for the URDF trees of `tests/fixtures/urdf/` listed in `URDF_TREES`, imported as
//!   whole trees (module `urdf_STEM`);
//! - the functions generated on request of the robots of `tests/fixtures/whole_body/`
//!   (build/whole_body.rs), and the contact functions of those of `tests/fixtures/contacts/`
//!   (build/contacts.rs), and the default functions of a few MJCF fixtures of
//!   `tests/fixtures/mjcf/` (build/mjcf.rs); every function of the robots with mimic joints
//!   of `tests/fixtures/mimic/` (build/mimic.rs), and the functions on request of the
//!   prescribed bases of `tests/fixtures/prescribed/` (build/prescribed.rs);
//! - `$OUT_DIR/generated.rs`: the `include!`s, FFI declarations and registries the tests iterate.

#[path = "build/c_compile.rs"]
mod c_compile;
#[path = "build/contacts.rs"]
mod contacts;
#[path = "build/mimic.rs"]
mod mimic;
#[path = "build/mjcf.rs"]
mod mjcf;
#[path = "build/prescribed.rs"]
mod prescribed;
#[path = "build/whole_body.rs"]
mod whole_body;

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use quasidyn_codegen::emit::param_fields;
use quasidyn_codegen::emit::{PartSizes, RustOptions};
use quasidyn_codegen::import::ImportOptions;
use quasidyn_codegen::names::{camel_ident, frame_ident, snake_ident};
use quasidyn_codegen::{
    build_module, build_module_only, emit_c, emit_rust, emit_rust_reporting, load_input_with,
    load_spec, COptions, FunctionKind, Module, Silent, SymbolicInertial,
};

/// Robot generated a second time with its last body (the payload) symbolic.
const PAYLOAD_ROBOT: &str = "ur5";
/// Robot whose `float` C variant is compiled and tested.
const FLOAT_ROBOT: &str = "planar3r";
/// Robot whose header-only C variant is compiled and tested.
const HEADER_ONLY_ROBOT: &str = "gimbal";
/// URDF files of `tests/fixtures/urdf/` imported as whole trees, with the links asked for as
/// extra frames (as `tools/urdf_reference.py`'s `URDF_TREES`, which wrote their fixtures).
const URDF_TREES: &[(&str, &[&str])] = &[
    ("allegro_left_hand", &["link_1.0", "link_13.0"]),
    ("synthetic_tree", &["torso"]),
];
/// Robots of `robots/` generated a second time with batched functions (module `STEM_batch`),
/// and their batch sizes.
const BATCHES: &[(&str, usize)] = &[("ur5", 8), ("synthetic_tree", 4)];
/// A one-joint robot (about z) with batched functions (module `pendulum_batch`, 64 states):
/// its tool rotation is the batched `cos` and `sin` of the joint angle, entries `[0]`, `[3]`.
const PENDULUM: &str = "name = \"pendulum_batch\"\n[[body]]\njoint = \"revolute\"\naxis = \"z\"\n\
                        next = [1.0, 0.0, 0.0]\nmass = 1.0\ncom = [1.0, 0.0, 0.0]\n";
/// Batch size of `pendulum_batch`.
const PENDULUM_BATCH: usize = 64;
/// Batch sizes of the UR5 inverse dynamics generated alone for the batch benchmark (module
/// `ur5_id_bN`, C `ur5_id_bN_inverse_dynamics{,_batch}`).
const BENCH_BATCHES: [usize; 3] = [4, 8, 64];
/// Operations per part of the modules generated in parts (`parted_variants`).
const PARTED_OPERATIONS: usize = 40;
/// Set (to anything), the fixture robots of `tests/fixtures/{whole_body, contacts, mjcf, mimic,
/// prescribed}/` are not generated and their registries are empty: for a build that runs only
/// the tests of the other robots (CI's AVX2 stage), which then compiles less than half the
/// generated code.
const ROBOTS_ONLY: &str = "QUASIDYN_TESTS_ROBOTS_ONLY";
/// The fixture robots' registries when [`ROBOTS_ONLY`] is set.
const EMPTY_FIXTURE_REGISTRIES: &str =
    "/// Not generated in this build (QUASIDYN_TESTS_ROBOTS_ONLY).
pub static WHOLE_BODY: &[WholeBodyRobot] = &[];
/// Not generated in this build (QUASIDYN_TESTS_ROBOTS_ONLY).
pub static CONTACTS: &[WholeBodyRobot] = &[];
/// Not generated in this build (QUASIDYN_TESTS_ROBOTS_ONLY).
pub static CONTACTS_BATCHED: &[ContactBatch] = &[];
/// Not generated in this build (QUASIDYN_TESTS_ROBOTS_ONLY).
pub static MJCF: &[WholeBodyRobot] = &[];
/// Not generated in this build (QUASIDYN_TESTS_ROBOTS_ONLY).
pub static MIMIC: &[WholeBodyRobot] = &[];
/// Not generated in this build (QUASIDYN_TESTS_ROBOTS_ONLY).
pub static MIMIC_JOINTS: &[(&str, &[&str])] = &[];
/// Not generated in this build (QUASIDYN_TESTS_ROBOTS_ONLY).
pub static PRESCRIBED: &[WholeBodyRobot] = &[];
";

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let robots_dir = manifest.join("../robots");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo"));
    let (rust_dir, c_dir) = (out.join("rust"), out.join("c"));
    fs::create_dir_all(&rust_dir).expect("create rust dir");
    fs::create_dir_all(c_dir.join("header_only")).expect("create c dir");
    println!("cargo:rerun-if-changed={}", robots_dir.display());
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=build");
    let args = c_compile::start(&c_dir, &out);

    let mut specs: Vec<PathBuf> = fs::read_dir(&robots_dir)
        .expect("robots/ exists")
        .map(|e| e.expect("readable robots/ entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    specs.sort();

    let mut gen = String::new();
    let mut c_files = Vec::new();
    let mut registry = String::new();
    let mut trees = String::new();
    let mut floating = String::new();
    let mut elastic = String::new();
    for spec in &specs {
        println!("cargo:rerun-if-changed={}", spec.display());
        let stem = spec
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("utf-8 name");
        let robot = load_spec(spec).unwrap_or_else(|e| panic!("{}: {e}", spec.display()));
        let module = build_module(&robot);
        let name = snake_ident(&robot.name);
        let dof = module.dof;

        let rust = emit_rust(&module).unwrap_or_else(|e| panic!("{name}: emit_rust: {e}"));
        write(&rust_dir.join(format!("{name}.rs")), &rust);
        let c =
            emit_c(&module, &COptions::default()).unwrap_or_else(|e| panic!("{name}: emit_c: {e}"));
        let source = write_c(&c_dir, &c);
        c_files.push(source);

        let ty = camel_ident(&robot.name);
        let _ = writeln!(
            gen,
            "/// Generated Rust of `robots/{stem}.toml`.\npub mod {name} {{\n    \
             include!(concat!(env!(\"OUT_DIR\"), \"/rust/{name}.rs\"));\n}}\n"
        );
        if robot.is_floating() {
            gen.push_str(&floating_glue(stem, &name, &module));
            let _ = writeln!(floating, "    &FLOATING_{},", name.to_ascii_uppercase());
            continue;
        }
        if !robot.is_chain() {
            // A tree has no tool, hence no `Dynamics` impl: adapters call its functions.
            gen.push_str(&tree_glue(stem, &name, &module));
            let _ = writeln!(trees, "    &TREE_{},", name.to_ascii_uppercase());
            continue;
        }
        gen.push_str(&ffi_block(&name, "f64"));
        gen.push_str(&c_robot_const(&name, dof, "f64"));
        gen.push_str(&extra_block(&name, dof));
        gen.push_str(&constants_block(&name));
        if module.elastic() {
            gen.push_str(&elastic_block(stem, &name, &module));
            let _ = writeln!(elastic, "    &ELASTIC_{},", name.to_ascii_uppercase());
        }
        let _ = writeln!(
            registry,
            "    GeneratedRobot {{\n        stem: {stem:?},\n        name: {name:?},\n        \
             dof: {dof},\n        rust: &ViaTrait::<{name}::{ty}, {dof}>({name}::{ty}),\n        \
             c: &C_{upper},\n        extra: extra_{name},\n        constants: \
             constants_{name},\n    }},",
            upper = name.to_ascii_uppercase()
        );

        if stem == FLOAT_ROBOT {
            // Renamed so its symbols do not clash with the double-precision library.
            let mut renamed = module.clone();
            renamed.robot_name = format!("{name}_f32");
            let c = emit_c(
                &renamed,
                &COptions {
                    float: true,
                    header_only: false,
                    ..COptions::default()
                },
            )
            .unwrap_or_else(|e| panic!("{name}: emit_c float: {e}"));
            let source = write_c(&c_dir, &c);
            c_files.push(source);
            let f32_name = format!("{name}_f32");
            gen.push_str(&ffi_block(&f32_name, "f32"));
            gen.push_str(&c_robot_const(&f32_name, dof, "f32"));
            let _ = writeln!(
                gen,
                "/// Which robot the `float` C variant is, and the variant.\npub static \
                 FLOAT_C: (&str, &CRobot<f32>) = ({stem:?}, &C_{});\n",
                f32_name.to_ascii_uppercase()
            );
        }
        if stem == HEADER_ONLY_ROBOT {
            // Same names as the regular library, but `static inline`: a wrapper file gives
            // them external, distinct names so the tests can call them.
            let c = emit_c(
                &module,
                &COptions {
                    float: false,
                    header_only: true,
                    ..COptions::default()
                },
            )
            .unwrap_or_else(|e| panic!("{name}: emit_c header-only: {e}"));
            assert!(c.source.is_none(), "header-only emits no source");
            write(&c_dir.join("header_only").join(&c.header_name), &c.header);
            let wrapper_name = format!("{name}_header_only");
            let wrapper = c_dir.join(format!("{wrapper_name}.c"));
            write(
                &wrapper,
                &header_only_wrapper(&name, &wrapper_name, &c.header_name),
            );
            c_files.push(wrapper);
            gen.push_str(&ffi_block(&wrapper_name, "f64"));
            gen.push_str(&c_robot_const(&wrapper_name, dof, "f64"));
            let _ = writeln!(
                gen,
                "/// Which robot the header-only C variant is, and the variant.\npub static \
                 HEADER_ONLY_C: (&str, &CRobot<f64>) = ({stem:?}, &C_{});\n",
                wrapper_name.to_ascii_uppercase()
            );
        }
    }

    let mut urdf_trees = String::new();
    for (stem, frames) in URDF_TREES {
        let path = manifest.join("fixtures/urdf").join(format!("{stem}.urdf"));
        println!("cargo:rerun-if-changed={}", path.display());
        // Snapped, as imported by default: the snapped model is checked against Pinocchio's
        // reading of the values as written.
        let options = ImportOptions {
            tip: None,
            frames: frames.iter().map(|f| (*f).to_owned()).collect(),
            snap: true,
            floating_base: false,
            ..ImportOptions::default()
        };
        let mut robot = load_input_with(&path, &options)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .robot;
        robot.name = format!("urdf_{stem}");
        let module = build_module(&robot);
        let name = robot.name.clone();
        let rust = emit_rust(&module).unwrap_or_else(|e| panic!("{name}: emit_rust: {e}"));
        write(&rust_dir.join(format!("{name}.rs")), &rust);
        let c =
            emit_c(&module, &COptions::default()).unwrap_or_else(|e| panic!("{name}: emit_c: {e}"));
        let source = write_c(&c_dir, &c);
        c_files.push(source);
        let _ = writeln!(
            gen,
            "/// Generated Rust of `tests/fixtures/urdf/{stem}.urdf`, the whole tree.
pub mod              {name} {{
    include!(concat!(env!(\"OUT_DIR\"), \"/rust/{name}.rs\"));
}}
"
        );
        gen.push_str(&tree_glue(&format!("urdf/{stem}"), &name, &module));
        let _ = writeln!(urdf_trees, "    &TREE_{},", name.to_ascii_uppercase());
    }

    let mut batches = String::new();
    // (robot, batch size, every function cut into parts: the batched forms of functions in
    // parts call the scalar function once per state).
    let parted_batch = (PAYLOAD_ROBOT, 4, true);
    for (stem, batch, parted) in BATCHES
        .iter()
        .map(|&(stem, batch)| (stem, batch, false))
        .chain([parted_batch])
    {
        let spec = robots_dir.join(format!("{stem}.toml"));
        let mut robot = load_spec(&spec).unwrap_or_else(|e| panic!("{}: {e}", spec.display()));
        robot.name = format!("{stem}{}_batch", if parted { "_parts" } else { "" });
        let module = build_module(&robot);
        let name = robot.name.clone();
        let parts = if parted {
            PartSizes {
                above: 0,
                operations: PARTED_OPERATIONS,
            }
        } else {
            PartSizes::default()
        };
        let rust = emit_rust_reporting(
            &module,
            &RustOptions {
                batch: Some(batch),
                parts,
            },
            &mut Silent,
        )
        .unwrap_or_else(|e| panic!("{name}: emit_rust: {e}"));
        write(&rust_dir.join(format!("{name}.rs")), &rust);
        // The UR5 in parts also has each function in a source file of its own (`--split`),
        // compiled and linked as the users' builds do.
        let c = emit_c(
            &module,
            &COptions {
                batch: Some(batch),
                parts,
                split: parted,
                ..COptions::default()
            },
        )
        .unwrap_or_else(|e| panic!("{name}: emit_c: {e}"));
        if parted {
            let once = "the function once per state";
            assert!(
                rust.contains(once) && c.units.iter().any(|(_, unit)| unit.contains(once)),
                "{name}: batches by calls"
            );
            assert!(c.units.len() >= 16, "{name}: a source file per function");
        }
        let source = write_c(&c_dir, &c);
        c_files.push(source);
        let _ =
            writeln!(
            gen,
            "/// Generated Rust of `robots/{stem}.toml` with batched functions{}.\npub mod {name} \
             {{\n    \
             include!(concat!(env!(\"OUT_DIR\"), \"/rust/{name}.rs\"));\n}}\n",
            if parted { ", every function in parts" } else { "" }
        );
        gen.push_str(&batch_glue(&name, &module, batch));
        let _ = writeln!(batches, "    &BATCH_{},", name.to_ascii_uppercase());
    }
    {
        let robot = quasidyn_codegen::parse_spec(PENDULUM, "pendulum.toml").expect("valid spec");
        let module = build_module_only(&robot, Some(&[FunctionKind::ForwardKinematics]));
        let batch = Some(PENDULUM_BATCH);
        let rust = emit_rust_reporting(
            &module,
            &RustOptions {
                batch,
                ..RustOptions::default()
            },
            &mut Silent,
        )
        .unwrap_or_else(|e| panic!("pendulum: emit_rust: {e}"));
        write(&rust_dir.join("pendulum_batch.rs"), &rust);
        let c = emit_c(
            &module,
            &COptions {
                batch,
                ..COptions::default()
            },
        )
        .unwrap_or_else(|e| panic!("pendulum: emit_c: {e}"));
        let source = write_c(&c_dir, &c);
        c_files.push(source);
        let _ = writeln!(
            gen,
            "/// A one-joint robot about z with batched functions over {PENDULUM_BATCH} states.\n\
             pub mod pendulum_batch {{\n    include!(concat!(env!(\"OUT_DIR\"), \
             \"/rust/pendulum_batch.rs\"));\n}}\n\nextern \"C\" {{\n    /// \
             `pendulum_batch_forward_kinematics_batch` of the C: `R[9][B]`, `p[3][B]`.\n    pub fn \
             pendulum_batch_forward_kinematics_batch(q: *const f64, r: *mut f64, p: *mut f64);\n}}\n"
        );
    }
    for batch in BENCH_BATCHES {
        let spec = robots_dir.join("ur5.toml");
        let mut robot = load_spec(&spec).unwrap_or_else(|e| panic!("{}: {e}", spec.display()));
        let name = format!("ur5_id_b{batch}");
        robot.name.clone_from(&name);
        let module = build_module_only(&robot, Some(&[FunctionKind::InverseDynamics]));
        let rust = emit_rust_reporting(
            &module,
            &RustOptions {
                batch: Some(batch),
                ..RustOptions::default()
            },
            &mut Silent,
        )
        .unwrap_or_else(|e| panic!("{name}: emit_rust: {e}"));
        write(&rust_dir.join(format!("{name}.rs")), &rust);
        let c = emit_c(
            &module,
            &COptions {
                batch: Some(batch),
                ..COptions::default()
            },
        )
        .unwrap_or_else(|e| panic!("{name}: emit_c: {e}"));
        let source = write_c(&c_dir, &c);
        c_files.push(source);
        let _ = writeln!(
            gen,
            "/// The UR5 inverse dynamics alone, batched over {batch} states (benchmarks).\npub mod \
             {name} {{\n    include!(concat!(env!(\"OUT_DIR\"), \"/rust/{name}.rs\"));\n}}\n\n\
             extern \"C\" {{\n    /// `{name}_inverse_dynamics` of the C.\n    pub fn \
             {name}_inverse_dynamics(q: *const f64, qd: *const f64, qdd: *const f64, tau: *mut \
             f64);\n    /// `{name}_inverse_dynamics_batch` of the C: arrays `[6][{batch}]`.\n    \
             pub fn {name}_inverse_dynamics_batch(q: *const f64, qd: *const f64, qdd: *const f64, \
             tau: *mut f64);\n}}\n"
        );
    }
    let _ = writeln!(
        gen,
        "/// The modules generated with batched functions.\npub static BATCHES: &[&GeneratedBatch] \
         = &[\n{batches}];\n"
    );

    c_files.push(panda_derivatives_c(&manifest, &c_dir, &mut gen));

    let (glue, payload_c) = payload_variant(&robots_dir, &rust_dir, &c_dir);
    gen.push_str(&glue);
    c_files.extend(payload_c);
    gen.push_str(&parted_variants(&robots_dir, &rust_dir));
    println!("cargo:rerun-if-env-changed={ROBOTS_ONLY}");
    if std::env::var_os(ROBOTS_ONLY).is_some() {
        gen.push_str(EMPTY_FIXTURE_REGISTRIES);
    } else {
        let (glue, whole_body_c) =
            whole_body::whole_body_variants(&manifest, &rust_dir, &c_dir, write, write_c);
        gen.push_str(&glue);
        c_files.extend(whole_body_c);
        let (glue, contacts_c) =
            contacts::contact_variants(&manifest, &rust_dir, &c_dir, write, write_c);
        gen.push_str(&glue);
        c_files.extend(contacts_c);
        let (glue, mjcf_c) = mjcf::mjcf_variants(&manifest, &rust_dir, &c_dir, write, write_c);
        gen.push_str(&glue);
        c_files.extend(mjcf_c);
        let emitted = whole_body::Emitted {
            rust_dir: &rust_dir,
            c_dir: &c_dir,
            write,
            write_c,
        };
        let (glue, mimic_c) = mimic::mimic_variants(&manifest, &emitted);
        gen.push_str(&glue);
        c_files.extend(mimic_c);
        let (glue, prescribed_c) = prescribed::prescribed_variants(&manifest, &emitted);
        gen.push_str(&glue);
        c_files.extend(prescribed_c);
    }

    c_compile::finish(&c_files, &out);
    let _ = writeln!(
        gen,
        "/// Every generated robot, sorted by spec file name.\npub static ROBOTS: \
         &[GeneratedRobot] = &[\n{registry}];\n"
    );
    let _ = writeln!(
        gen,
        "/// Every generated tree robot, sorted by spec file name.\npub static TREES: \
         &[&GeneratedTree] = &[\n{trees}];\n"
    );
    let _ = writeln!(
        gen,
        "/// Every generated floating-base robot, sorted by spec file name.\npub static \
         FLOATING: &[&GeneratedFloating] = &[\n{floating}];\n"
    );
    let _ = writeln!(
        gen,
        "/// Every generated robot with elastic joints or flexible links, sorted by spec file \
         name.\npub static ELASTIC_ROBOTS: &[&ElasticRobot] = &[\n{elastic}];\n"
    );
    let _ = writeln!(
        gen,
        "/// The URDF trees of `tests/fixtures/urdf/`, imported whole (`stem` is `urdf/NAME`).\n\
         pub static URDF_TREES: &[&GeneratedTree] = &[\n{urdf_trees}];\n"
    );
    let _ = writeln!(
        gen,
        "/// The C compiler's arguments for the generated C (as `cc` built them).\npub const \
         C_COMPILER_ARGS: &[&str] = &{args:?};"
    );
    write(&out.join("generated.rs"), &gen);
}

/// The payload variant: `PAYLOAD_ROBOT` with every inertial parameter of its last body kept
/// symbolic, as Rust module `NAME_payload` and as C with a wrapper taking the parameter values
/// as an array (in `PAYLOAD_PARAMS` order). Returns the generated Rust glue and the C files.
fn payload_variant(robots_dir: &Path, rust_dir: &Path, c_dir: &Path) -> (String, Vec<PathBuf>) {
    let spec = robots_dir.join(format!("{PAYLOAD_ROBOT}.toml"));
    let mut robot = load_spec(&spec).unwrap_or_else(|e| panic!("{}: {e}", spec.display()));
    robot.name = format!("{PAYLOAD_ROBOT}_payload");
    robot.bodies.last_mut().expect("a body").symbolic = SymbolicInertial {
        mass: true,
        com: true,
        inertia: true,
    };
    let module = build_module(&robot);
    let name = snake_ident(&robot.name);
    let fields = param_fields(&module.graph);
    let rust = emit_rust(&module).unwrap_or_else(|e| panic!("{name}: emit_rust: {e}"));
    write(&rust_dir.join(format!("{name}.rs")), &rust);
    let c = emit_c(&module, &COptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
    let source = write_c(c_dir, &c);
    // One wrapper per function the test calls: fill the struct from an array.
    let mut wrapper = format!("#include \"{}\"\n\n", c.header_name);
    for (f, params, args) in [
        (
            "inverse_dynamics",
            "const double q[], const double qd[], const double qdd[], double tau[]",
            "q, qd, qdd, tau",
        ),
        ("mass_matrix", "const double q[], double M[]", "q, M"),
    ] {
        let proto = format!("void {name}_{f}_with(const double values[], {params})");
        let _ = writeln!(wrapper, "{proto};\n{proto}\n{{\n    {name}_params p;");
        for (k, field) in fields.iter().enumerate() {
            let _ = writeln!(wrapper, "    p.{field} = values[{k}];");
        }
        let _ = writeln!(wrapper, "    {name}_{f}(&p, {args});\n}}\n");
    }
    let wrapper_path = c_dir.join(format!("{name}_wrap.c"));
    write(&wrapper_path, &wrapper);
    let mut glue = format!(
        "/// Generated Rust of `robots/{PAYLOAD_ROBOT}.toml` with a symbolic payload.\npub mod \
         {name} {{\n    include!(concat!(env!(\"OUT_DIR\"), \"/rust/{name}.rs\"));\n}}\n\n"
    );
    let _ = writeln!(
        glue,
        "/// Fields of `{name}::Params`, in the order the C wrappers read them.\npub const \
         PAYLOAD_PARAMS: &[&str] = &{fields:?};\n"
    );
    let _ = writeln!(
        glue,
        "extern \"C\" {{\n    /// C inverse dynamics with the payload parameters as an array.\n    \
         pub fn {name}_inverse_dynamics_with(values: *const f64, q: *const f64, qd: *const f64, \
         qdd: *const f64, tau: *mut f64);\n    /// C mass matrix with the payload parameters \
         as an array.\n    pub fn {name}_mass_matrix_with(values: *const f64, q: *const f64, \
         m: *mut f64);\n}}\n"
    );
    (glue, vec![source, wrapper_path])
}

/// The UR5's Rust (`ur5_parts`) and its symbolic-payload variant's (`ur5_payload_parts`)
/// with every function cut into parts of about [`PARTED_OPERATIONS`] operations (long
/// functions are, above 65,536), so that inputs, parameters, sines and cosines, locals and
/// output entries cross parts; `tests/tests/parts.rs` checks them against the modules in one
/// body.
fn parted_variants(robots_dir: &Path, rust_dir: &Path) -> String {
    let spec = robots_dir.join(format!("{PAYLOAD_ROBOT}.toml"));
    let robot = load_spec(&spec).unwrap_or_else(|e| panic!("{}: {e}", spec.display()));
    let mut payload = robot.clone();
    payload.bodies.last_mut().expect("a body").symbolic = SymbolicInertial {
        mass: true,
        com: true,
        inertia: true,
    };
    let mut glue = String::new();
    for (mut robot, what) in [(robot, ""), (payload, " with a symbolic payload")] {
        robot.name = format!(
            "{PAYLOAD_ROBOT}{}_parts",
            if what.is_empty() { "" } else { "_payload" }
        );
        let module = build_module(&robot);
        let options = RustOptions {
            parts: PartSizes {
                above: 0,
                operations: PARTED_OPERATIONS,
            },
            ..RustOptions::default()
        };
        let name = robot.name.clone();
        let rust = emit_rust_reporting(&module, &options, &mut Silent)
            .unwrap_or_else(|e| panic!("{name}: emit_rust: {e}"));
        assert!(rust.contains("fn part2("), "{name}: cut into parts");
        write(&rust_dir.join(format!("{name}.rs")), &rust);
        let _ = writeln!(
            glue,
            "/// Generated Rust of `robots/{PAYLOAD_ROBOT}.toml`{what}, every function in parts.\npub \
             mod {name} {{\n    include!(concat!(env!(\"OUT_DIR\"), \"/rust/{name}.rs\"));\n}}\n"
        );
    }
    glue
}

/// Writes `text` unless the file already holds it (keeps timestamps of unchanged files).
fn write(path: &Path, text: &str) {
    if fs::read_to_string(path).is_ok_and(|old| old == text) {
        return;
    }
    fs::write(path, text).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}

/// C name, input arrays and number of outputs of each function (the emitter's contract,
/// restated here so that a change to it fails to link instead of passing silently).
fn c_signature(kind: FunctionKind) -> (&'static str, &'static [&'static str], usize) {
    match kind {
        FunctionKind::InverseDynamics => ("inverse_dynamics", &["q", "qd", "qdd"], 1),
        FunctionKind::Gravity => ("gravity", &["q"], 1),
        FunctionKind::NonlinearEffects => ("nonlinear_effects", &["q", "qd"], 1),
        FunctionKind::MassMatrix => ("mass_matrix", &["q"], 1),
        FunctionKind::ForwardDynamics => ("forward_dynamics", &["q", "qd", "tau"], 1),
        FunctionKind::ForwardKinematics => ("forward_kinematics", &["q"], 2),
        FunctionKind::Jacobian => ("jacobian", &["q"], 1),
        FunctionKind::Centrifugal => ("centrifugal", &["q", "qd"], 1),
        FunctionKind::Coriolis => ("coriolis", &["q", "qd"], 1),
        FunctionKind::Gyroscopic => ("gyroscopic", &["q", "qd"], 1),
        FunctionKind::StaticJointReactions => ("static_joint_reactions", &["q"], 2),
        FunctionKind::InverseDynamicsDerivatives => {
            ("inverse_dynamics_derivatives", &["q", "qd", "qdd"], 2)
        }
        FunctionKind::GravityDerivatives => ("gravity_derivatives", &["q"], 1),
        FunctionKind::ForwardDynamicsDerivatives => {
            ("forward_dynamics_derivatives", &["q", "qd", "tau"], 3)
        }
        FunctionKind::Regressor => ("regressor", &["q", "qd", "qdd"], 1),
        FunctionKind::BaseRegressor => ("base_regressor", &["q", "qd", "qdd"], 1),
        // Named frames (not in `FunctionKind::ALL`): the frame's identifier follows the name.
        FunctionKind::FrameKinematics(_) => ("forward_kinematics", &["q"], 2),
        FunctionKind::FrameJacobian(_) => ("jacobian", &["q"], 1),
        elastic => elastic_signature(elastic),
    }
}

/// Constant arrays of every generated module: C name suffix and Rust name.
const CONSTANTS: [(&str, &str); 2] = [
    ("standard_parameters", "STANDARD_PARAMETERS"),
    ("base_parameters", "BASE_PARAMETERS"),
];

/// `constants_NAME(c, which)`: a constant array of `name`, from the Rust module or the C.
fn constants_block(name: &str) -> String {
    let mut s = String::from("extern \"C\" {\n");
    for (c, r) in CONSTANTS {
        let _ = writeln!(s, "    static {name}_{c}: [f64; {name}::{r}.len()];");
    }
    s.push_str("}\n\n");
    let _ = writeln!(
        s,
        "/// The constant arrays of `{name}` by C name: Rust, or C with `c`.\npub fn \
         constants_{name}(c: bool, which: &str) -> Vec<f64> {{\n    match (c, which) {{"
    );
    for (c, r) in CONSTANTS {
        let _ = writeln!(
            s,
            "        // SAFETY: an array the C defines with this length, never written.\n        \
             (true, {c:?}) => unsafe {{ {name}_{c}.to_vec() }},\n        (false, {c:?}) => \
             {name}::{r}.to_vec(),"
        );
    }
    s.push_str("        _ => panic!(\"no constant {which}\"),\n    }\n}\n\n");
    s
}

/// The functions outside the `Dynamics` trait.
fn extra_kinds() -> Vec<FunctionKind> {
    FunctionKind::every()
        .filter(|k| !FunctionKind::ALL.contains(k))
        .collect()
}

/// FFI declarations of the extra functions of `name`, and `extra_NAME(c, kind, x)`: their
/// outputs in Rust (`c = false`) or C, flattened row-major as `Evaluate::call` gives them.
fn extra_block(name: &str, dof: usize) -> String {
    let mut s = String::from("extern \"C\" {\n");
    for kind in extra_kinds() {
        let (f, inputs, outputs) = c_signature(kind);
        let mut args: Vec<String> = inputs.iter().map(|i| format!("{i}: *const f64")).collect();
        args.extend((0..outputs).map(|k| format!("out{k}: *mut f64")));
        let _ = writeln!(
            s,
            "    /// The generated C `{name}_{f}`.\n    pub fn {name}_{f}({});",
            args.join(", ")
        );
    }
    s.push_str("}\n\n");
    let _ = writeln!(
        s,
        "/// Outputs of the functions of `{name}` outside the `Dynamics` trait: the generated \
         Rust, or the C with `c`.\npub fn extra_{name}(c: bool, kind: FunctionKind, x: &State) \
         -> Vec<Vec<f64>> {{\n    const N: usize = {dof};\n    let a = |v: &[f64]| -> [f64; N] \
         {{ v.try_into().expect(\"one value per joint\") }};\n    let (q, qd, qdd, tau) = \
         (a(&x.q), a(&x.qd), a(&x.qdd), a(&x.tau));\n    let _ = (&qd, &qdd, &tau);\n    \
         let lengths = if kind == FunctionKind::BaseRegressor {{ vec![N * {name}::NB] }} else \
         {{ output_lengths(kind, N) }};\n    let mut o: Vec<Vec<f64>> = \
         lengths.into_iter().map(|l| vec![0.0; l]).collect();\n    let p: Vec<*mut f64> = o.iter_mut().map(|v| v.as_mut_ptr()).\
         collect();\n    match (c, kind) {{"
    );
    for kind in extra_kinds() {
        let (f, inputs, outputs) = c_signature(kind);
        let variant = format!("FunctionKind::{kind:?}");
        let mut c_args: Vec<String> = inputs.iter().map(|i| format!("{i}.as_ptr()")).collect();
        c_args.extend((0..outputs).map(|k| format!("p[{k}]")));
        let _ = writeln!(
            s,
            "        // SAFETY: inputs hold N values, outputs the lengths the contract writes.\n        \
             (true, {variant}) => unsafe {{ {name}_{f}({}) }},",
            c_args.join(", ")
        );
        let r_args: Vec<String> = inputs.iter().map(|i| format!("&{i}")).collect();
        let outs: Vec<String> = (0..outputs).map(|k| format!("r{k}")).collect();
        let pattern = if outputs == 1 {
            "r0".to_owned()
        } else {
            format!("({})", outs.join(", "))
        };
        let _ = writeln!(
            s,
            "        (false, {variant}) => {{\n            let {pattern} = {name}::{f}({});\n            \
             o = vec![{}];\n        }}",
            r_args.join(", "),
            outs.iter()
                .map(|r| format!("flat_rows(&{r})"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    s.push_str(
        "        _ => panic!(\"{kind:?} is a `Dynamics` trait function\"),\n    }\n    o\n}\n\n",
    );
    s
}

/// C name, inputs and number of outputs of each elastic function (the emitter's contract,
/// restated so that a change to it fails to link).
fn elastic_signature(kind: FunctionKind) -> (&'static str, &'static [&'static str], usize) {
    match kind {
        FunctionKind::ElasticForwardKinematics => {
            ("elastic_forward_kinematics", &["q", "beta", "w"], 2)
        }
        FunctionKind::ComplianceJacobians => ("compliance_jacobians", &["q"], 2),
        FunctionKind::ElasticVelocity => (
            "elastic_velocity",
            &["q", "beta", "w", "qd", "betad", "wd"],
            1,
        ),
        FunctionKind::ElasticAcceleration => (
            "elastic_acceleration",
            &[
                "q", "beta", "w", "qd", "betad", "wd", "qdd", "betadd", "wdd",
            ],
            1,
        ),
        FunctionKind::StaticDeflection => ("static_deflection", &["q"], 1),
        FunctionKind::DeflectedToolError => ("deflected_tool_error", &["q"], 2),
        FunctionKind::ElasticForwardDynamics => (
            "elastic_forward_dynamics",
            &["q", "qd", "theta", "thetad", "tau"],
            2,
        ),
        FunctionKind::ElasticFeedforward => (
            "elastic_feedforward",
            &["q", "qd", "qdd", "qddd", "qdddd"],
            2,
        ),
        other => panic!("{other:?} is not an elastic function"),
    }
}

/// FFI declarations of the elastic functions of `name` and `ELASTIC_NAME`, an `ElasticRobot`
/// calling them in Rust or C.
fn elastic_block(stem: &str, name: &str, module: &Module) -> String {
    let (n, nbeta, nw) = (module.dof, module.nbeta(), module.nw());
    let kinds: Vec<FunctionKind> = FunctionKind::ELASTIC
        .into_iter()
        .filter(|k| module.function(*k).is_some())
        .collect();
    let mut s = String::from("extern \"C\" {\n");
    for &kind in &kinds {
        let (f, inputs, outputs) = elastic_signature(kind);
        let mut args: Vec<String> = inputs.iter().map(|i| format!("{i}: *const f64")).collect();
        args.extend((0..outputs).map(|k| format!("out{k}: *mut f64")));
        let _ = writeln!(s, "    fn {name}_{f}({});", args.join(", "));
    }
    s.push_str("}\n\n");
    let _ = writeln!(
        s,
        "/// The elastic functions of `{name}`: the generated Rust, or the C with `c`.\n\
         fn elastic_call_{name}(c: bool, kind: FunctionKind, x: &ElasticState) -> Vec<Vec<f64>> {{\n    \
         const N: usize = {n};\n    const NBETA: usize = {nbeta};\n    const NW: usize = {nw};\n    \
         let a = |v: &[f64]| -> [f64; N] {{ v.try_into().expect(\"one value per joint\") }};\n    \
         let b = |v: &[f64]| -> [f64; NBETA] {{ v.try_into().expect(\"one value per elastic joint\") }};\n    \
         let m = |v: &[f64]| -> [f64; NW] {{ v.try_into().expect(\"one value per modal coordinate\") }};\n    \
         let _ = (&a, &b, &m);\n    \
         let mut o: Vec<Vec<f64>> = elastic_output_lengths(kind, N, NBETA, NW).into_iter().map(|l| vec![0.0; l]).collect();\n    \
         let p: Vec<*mut f64> = o.iter_mut().map(|v| v.as_mut_ptr()).collect();\n    \
         match (c, kind) {{"
    );
    for &kind in &kinds {
        let (f, inputs, outputs) = elastic_signature(kind);
        let variant = format!("FunctionKind::{kind:?}");
        let mut c_args: Vec<String> = inputs.iter().map(|i| format!("x.{i}.as_ptr()")).collect();
        c_args.extend((0..outputs).map(|k| format!("p[{k}]")));
        let _ = writeln!(
            s,
            "        // SAFETY: inputs hold the lengths the contract reads, outputs the lengths \
             it writes.\n        (true, {variant}) => unsafe {{ {name}_{f}({}) }},",
            c_args.join(", ")
        );
        let r_args: Vec<String> = inputs
            .iter()
            .map(|i| {
                let conv = match *i {
                    "beta" | "betad" | "betadd" | "theta" | "thetad" => "b",
                    "w" | "wd" | "wdd" => "m",
                    _ => "a",
                };
                format!("&{conv}(&x.{i})")
            })
            .collect();
        let (pattern, outs) = match (kind, outputs) {
            (FunctionKind::ElasticForwardKinematics, _) => {
                ("(r0, r1)", "vec![flat_rows(&r0), r1.to_vec()]")
            }
            (FunctionKind::ComplianceJacobians, _) => {
                ("(r0, r1)", "vec![flat_rows(&r0), flat_rows(&r1)]")
            }
            (
                FunctionKind::DeflectedToolError
                | FunctionKind::ElasticForwardDynamics
                | FunctionKind::ElasticFeedforward,
                _,
            ) => ("(r0, r1)", "vec![r0.to_vec(), r1.to_vec()]"),
            _ => ("r0", "vec![r0.to_vec()]"),
        };
        let _ = writeln!(
            s,
            "        (false, {variant}) => {{\n            let {pattern} = {name}::{f}({});\n            \
             o = {outs};\n        }}",
            r_args.join(", ")
        );
    }
    s.push_str("        _ => panic!(\"{kind:?} is not generated\"),\n    }\n    o\n}\n\n");
    let upper = name.to_ascii_uppercase();
    let kind_list: Vec<String> = kinds
        .iter()
        .map(|k| format!("FunctionKind::{k:?}"))
        .collect();
    let _ = writeln!(
        s,
        "/// `robots/{stem}.toml`'s elastic functions, generated and compiled.\n\
         pub static ELASTIC_{upper}: ElasticRobot = ElasticRobot {{\n    stem: {stem:?},\n    \
         name: {name:?},\n    dof: {n},\n    nbeta: {name}::NBETA,\n    nw: {name}::NW,\n    \
         beta_names: &{name}::BETA_NAMES,\n    w_names: &{name}::W_NAMES,\n    kinds: &[{}],\n    \
         call: elastic_call_{name},\n}};\n",
        kind_list.join(", ")
    );
    s
}

/// The public name (without the robot prefix) of a function of `module`.
fn function_name(module: &Module, kind: FunctionKind) -> String {
    let (base, _, _) = c_signature(kind);
    match kind {
        FunctionKind::FrameKinematics(k) | FunctionKind::FrameJacobian(k) => {
            format!(
                "{base}_{}",
                frame_ident(&module.frame_names[usize::from(k)])
            )
        }
        _ => base.to_owned(),
    }
}

/// For a tree robot: `extern "C"` declarations of its C functions, and `Evaluate` adapters
/// over its Rust and C functions (every function of the module, named frames included),
/// registered as `TREE_NAME`.
fn tree_glue(stem: &str, name: &str, module: &Module) -> String {
    let n = module.dof;
    let upper = name.to_ascii_uppercase();
    // Adapter type names in upper camel case (`dual_arm` -> `TreeRustDualArm`).
    let camel = camel_ident(name);
    // The dynamics and the frames (`kinds`, checked against the dynamics fixtures), then the
    // derivative and identification functions (`extra_kinds`, against the derivative fixtures).
    let is_dynamics_or_frame = |k: &FunctionKind| {
        FunctionKind::ALL.contains(k)
            || matches!(
                k,
                FunctionKind::FrameKinematics(_) | FunctionKind::FrameJacobian(_)
            )
    };
    let generated: Vec<FunctionKind> = module.functions.iter().map(|f| f.kind).collect();
    let kinds: Vec<FunctionKind> = generated
        .iter()
        .copied()
        .filter(is_dynamics_or_frame)
        .collect();
    let extra: Vec<FunctionKind> = generated
        .iter()
        .copied()
        .filter(|k| !is_dynamics_or_frame(k))
        .collect();
    let mut s = String::from("extern \"C\" {\n");
    for &kind in &generated {
        let (_, inputs, outputs) = c_signature(kind);
        let mut args: Vec<String> = inputs.iter().map(|i| format!("{i}: *const f64")).collect();
        args.extend((0..outputs).map(|k| format!("out{k}: *mut f64")));
        let f = function_name(module, kind);
        let _ = writeln!(s, "    pub fn {name}_{f}({});", args.join(", "));
    }
    s.push_str("}\n\n");
    let mut rust_arms = String::new();
    let mut c_arms = String::new();
    for &kind in &generated {
        let (_, inputs, outputs) = c_signature(kind);
        let f = function_name(module, kind);
        let rust_args: Vec<String> = inputs.iter().map(|i| format!("&a(&x.{i})")).collect();
        let call = format!("{name}::{f}({})", rust_args.join(", "));
        // How each output comes back from the Rust function, flattened.
        let rust_out = match kind {
            FunctionKind::MassMatrix | FunctionKind::Jacobian | FunctionKind::FrameJacobian(_) => {
                format!("vec![flat_rows(&{call})]")
            }
            FunctionKind::ForwardKinematics | FunctionKind::FrameKinematics(_) => {
                format!("{{ let (o0, o1) = {call}; vec![flat_rows(&o0), o1.to_vec()] }}")
            }
            FunctionKind::StaticJointReactions | FunctionKind::InverseDynamicsDerivatives => {
                format!("{{ let (o0, o1) = {call}; vec![flat_rows(&o0), flat_rows(&o1)] }}")
            }
            FunctionKind::ForwardDynamicsDerivatives => format!(
                "{{ let (o0, o1, o2) = {call}; vec![flat_rows(&o0), flat_rows(&o1), \
                 flat_rows(&o2)] }}"
            ),
            FunctionKind::GravityDerivatives
            | FunctionKind::Regressor
            | FunctionKind::BaseRegressor => format!("vec![flat_rows(&{call})]"),
            _ => format!("vec![{call}.to_vec()]"),
        };
        let path = kind_path(kind);
        let _ = writeln!(rust_arms, "            {path} => {rust_out},");
        let mut c_args: Vec<String> = inputs.iter().map(|i| format!("x.{i}.as_ptr()")).collect();
        c_args.extend((0..outputs).map(|k| format!("out[{k}].as_mut_ptr()")));
        let _ = writeln!(
            c_arms,
            "            {path} => unsafe {{ {name}_{f}({}) }},",
            c_args.join(", ")
        );
    }
    let frames: Vec<&str> = module.frame_names.iter().map(String::as_str).collect();
    let _ = writeln!(
        s,
        "/// The generated Rust of the tree `{stem}`, called uniformly.\npub struct TreeRust{camel};\n\
         impl Evaluate for TreeRust{camel} {{\n    fn dof(&self) -> usize {{\n        {n}\n    }}\n    \
         fn call(&self, kind: FunctionKind, x: &State) -> Vec<Vec<f64>> {{\n        \
         let a = |v: &[f64]| -> [f64; {n}] {{ v.try_into().expect(\"one value per joint\") }};\n        \
         match kind {{\n{rust_arms}            _ => panic!(\"{{kind:?}} is not generated for {stem}\"),\n        \
         }}\n    }}\n}}\n\n\
         /// The generated C of the tree `{stem}`, called uniformly through FFI.\npub struct TreeC{camel};\n\
         impl Evaluate for TreeC{camel} {{\n    fn dof(&self) -> usize {{\n        {n}\n    }}\n    \
         fn call(&self, kind: FunctionKind, x: &State) -> Vec<Vec<f64>> {{\n        \
         let lengths = if kind == FunctionKind::BaseRegressor {{ vec![{n} * {name}::NB] }} else {{ output_lengths(kind, {n}) }};\n        \
         let mut out: Vec<Vec<f64>> = lengths.into_iter().map(|l| vec![0.0; l]).collect();\n        \
         // SAFETY: inputs hold {n} values and outputs the lengths the contract writes.\n        \
         match kind {{\n{c_arms}            _ => panic!(\"{{kind:?}} is not generated for {stem}\"),\n        \
         }}\n        out\n    }}\n}}\n\n\
         /// The tree `robots/{stem}.toml`, generated and compiled.\npub static TREE_{upper}: GeneratedTree = GeneratedTree {{\n    \
         stem: {stem:?},\n    name: {name:?},\n    dof: {n},\n    frames: &{frames:?},\n    \
         kinds: &[{}],\n    extra_kinds: &[{}],\n    standard_parameters: &{name}::STANDARD_PARAMETERS,\n    \
         base_parameters: {base_parameters},\n    rust: &TreeRust{camel},\n    c: &TreeC{camel},\n}};\n",
        kinds
            .iter()
            .map(|&k| kind_path(k))
            .collect::<Vec<_>>()
            .join(", "),
        extra
            .iter()
            .map(|&k| kind_path(k))
            .collect::<Vec<_>>()
            .join(", "),
        base_parameters = if extra.contains(&FunctionKind::BaseRegressor) {
            format!("&{name}::BASE_PARAMETERS")
        } else {
            "&[]".to_owned()
        },
    );
    s
}

/// Inputs and number of outputs of a floating-base function (the emitter's contract restated:
/// `q` holds `NQ` values, `v`, `a` and `tau` `NV`).
fn floating_signature(kind: FunctionKind) -> (&'static [&'static str], usize) {
    match kind {
        FunctionKind::InverseDynamics => (&["q", "v", "a"], 1),
        FunctionKind::Gravity | FunctionKind::MassMatrix | FunctionKind::FrameJacobian(_) => {
            (&["q"], 1)
        }
        FunctionKind::NonlinearEffects => (&["q", "v"], 1),
        FunctionKind::ForwardDynamics => (&["q", "v", "tau"], 1),
        FunctionKind::FrameKinematics(_) => (&["q"], 2),
        FunctionKind::InverseDynamicsDerivatives => (&["q", "v", "a"], 2),
        FunctionKind::GravityDerivatives => (&["q"], 1),
        FunctionKind::ForwardDynamicsDerivatives => (&["q", "v", "tau"], 3),
        FunctionKind::Regressor | FunctionKind::BaseRegressor => (&["q", "v", "a"], 1),
        other => panic!("no floating-base contract for {other:?}"),
    }
}

/// Rust and C adapters and the registry entry of a floating-base robot: its functions called
/// uniformly, with `State::q` of `NQ` values and `qd`, `qdd`, `tau` standing for `v`, `a`,
/// `tau` of `NV` values.
fn floating_glue(stem: &str, name: &str, module: &Module) -> String {
    let (n, nq, nv) = (module.dof, module.dof + 7, module.dof + 6);
    let upper = name.to_ascii_uppercase();
    let camel = camel_ident(name);
    let kinds: Vec<FunctionKind> = module.functions.iter().map(|f| f.kind).collect();
    // The state field holding each input.
    let field = |i: &'static str| -> &'static str {
        match i {
            "v" => "qd",
            "a" => "qdd",
            other => other,
        }
    };
    let mut s = format!("/// C functions of the floating-base `{stem}`.\npub mod {name}_c {{\n    extern \"C\" {{\n");
    let (mut rust_arms, mut c_arms, mut length_arms) =
        (String::new(), String::new(), String::new());
    for f in &module.functions {
        let kind = f.kind;
        let lengths: Vec<usize> = f.outputs.iter().map(|o| o.rows * o.cols).collect();
        let _ = writeln!(
            length_arms,
            "            {} => vec!{lengths:?},",
            kind_path(kind)
        );
        let (inputs, outputs) = floating_signature(kind);
        let f = function_name(module, kind);
        let mut args: Vec<String> = inputs.iter().map(|i| format!("{i}: *const f64")).collect();
        args.extend((0..outputs).map(|k| format!("out{k}: *mut f64")));
        let _ = writeln!(s, "        pub fn {name}_{f}({});", args.join(", "));
        let rust_args: Vec<String> = inputs
            .iter()
            .map(|&i| format!("&{}(&x.{})", if i == "q" { "aq" } else { "av" }, field(i)))
            .collect();
        let call = format!("{name}::{f}({})", rust_args.join(", "));
        let rust_out = match kind {
            FunctionKind::MassMatrix
            | FunctionKind::FrameJacobian(_)
            | FunctionKind::GravityDerivatives
            | FunctionKind::Regressor
            | FunctionKind::BaseRegressor => {
                format!("vec![flat_rows(&{call})]")
            }
            FunctionKind::FrameKinematics(_) => {
                format!("{{ let (o0, o1) = {call}; vec![flat_rows(&o0), o1.to_vec()] }}")
            }
            FunctionKind::InverseDynamicsDerivatives => {
                format!("{{ let (o0, o1) = {call}; vec![flat_rows(&o0), flat_rows(&o1)] }}")
            }
            FunctionKind::ForwardDynamicsDerivatives => format!(
                "{{ let (o0, o1, o2) = {call}; vec![flat_rows(&o0), flat_rows(&o1), flat_rows(&o2)] }}"
            ),
            _ => format!("vec![{call}.to_vec()]"),
        };
        let path = kind_path(kind);
        let _ = writeln!(rust_arms, "            {path} => {rust_out},");
        let mut c_args: Vec<String> = inputs
            .iter()
            .map(|i| format!("x.{}.as_ptr()", field(i)))
            .collect();
        c_args.extend((0..outputs).map(|k| format!("out[{k}].as_mut_ptr()")));
        let _ = writeln!(
            c_arms,
            "            {path} => unsafe {{ {name}_c::{name}_{f}({}) }},",
            c_args.join(", ")
        );
    }
    s.push_str("    }\n}\n\n");
    let frames: Vec<&str> = module.frame_names.iter().map(String::as_str).collect();
    let _ = writeln!(
        s,
        "/// The generated Rust of the floating-base `{stem}`, called uniformly.\n\
         pub struct FloatingRust{camel};\n\
         impl Evaluate for FloatingRust{camel} {{\n    fn dof(&self) -> usize {{\n        {n}\n    }}\n    \
         fn call(&self, kind: FunctionKind, x: &State) -> Vec<Vec<f64>> {{\n        \
         let aq = |v: &[f64]| -> [f64; {nq}] {{ v.try_into().expect(\"NQ values\") }};\n        \
         let av = |v: &[f64]| -> [f64; {nv}] {{ v.try_into().expect(\"NV values\") }};\n        \
         match kind {{\n{rust_arms}            _ => panic!(\"{{kind:?}} is not generated for {stem}\"),\n        \
         }}\n    }}\n}}\n\n\
         /// The generated C of the floating-base `{stem}`, called uniformly through FFI.\n\
         pub struct FloatingC{camel};\n\
         impl Evaluate for FloatingC{camel} {{\n    fn dof(&self) -> usize {{\n        {n}\n    }}\n    \
         fn call(&self, kind: FunctionKind, x: &State) -> Vec<Vec<f64>> {{\n        \
         assert_eq!((x.q.len(), x.qd.len(), x.qdd.len(), x.tau.len()), ({nq}, {nv}, {nv}, {nv}));\n        \
         let lengths: Vec<usize> = match kind {{\n{length_arms}            _ => panic!(\"{{kind:?}} is not generated for {stem}\"),\n        }};\n        \
         let mut out: Vec<Vec<f64>> = lengths.into_iter().map(|l| vec![0.0; l]).collect();\n        \
         // SAFETY: inputs hold NQ / NV values (asserted) and outputs the lengths the module writes.\n        \
         match kind {{\n{c_arms}            _ => panic!(\"{{kind:?}} is not generated for {stem}\"),\n        \
         }}\n        out\n    }}\n}}\n\n\
         /// The floating-base robot `robots/{stem}.toml`, generated and compiled.\n\
         pub static FLOATING_{upper}: GeneratedFloating = GeneratedFloating {{\n    \
         stem: {stem:?},\n    name: {name:?},\n    dof: {n},\n    frames: &{frames:?},\n    \
         kinds: &[{}],\n    standard_parameters: &{name}::STANDARD_PARAMETERS,\n    \
         base_parameters: &{name}::BASE_PARAMETERS,\n    rust: &FloatingRust{camel},\n    c: &FloatingC{camel},\n}};\n",
        kinds
            .iter()
            .map(|&k| kind_path(k))
            .collect::<Vec<_>>()
            .join(", "),
    );
    s
}

/// For a module generated with batched functions: `extern "C"` declarations of its scalar and
/// batched C functions, and `GeneratedBatch` `BATCH_NAME` calling either form, Rust or C.
fn batch_glue(name: &str, module: &Module, batch: usize) -> String {
    let n = module.dof;
    let upper = name.to_ascii_uppercase();
    let kinds: Vec<FunctionKind> = module.functions.iter().map(|f| f.kind).collect();
    let mut s = String::from("extern \"C\" {\n");
    let mut arms = String::new();
    for f in &module.functions {
        let kind = f.kind;
        let (_, inputs, outputs) = c_signature(kind);
        assert_eq!(outputs, f.outputs.len(), "{kind:?}: outputs");
        let fname = function_name(module, kind);
        let mut args: Vec<String> = inputs.iter().map(|i| format!("{i}: *const f64")).collect();
        args.extend((0..outputs).map(|k| format!("out{k}: *mut f64")));
        let _ = writeln!(s, "    fn {name}_{fname}({});", args.join(", "));
        let _ = writeln!(s, "    fn {name}_{fname}_batch({});", args.join(", "));
        let lens: Vec<usize> = f.outputs.iter().map(|o| o.rows * o.cols).collect();
        let path = kind_path(kind);
        // Scalar: one call per state.
        let a_args: Vec<String> = inputs.iter().map(|i| format!("&a(&x.{i})")).collect();
        let outs: Vec<String> = (0..outputs).map(|k| format!("r{k}")).collect();
        let pattern = if outputs == 1 {
            "r0".to_owned()
        } else {
            format!("({})", outs.join(", "))
        };
        let flats: Vec<String> = outs.iter().map(|r| format!("{r}.flat()")).collect();
        let _ = writeln!(
            arms,
            "        (false, false, {path}) => x.iter().map(|x| {{ let {pattern} = \
             {name}::{fname}({}); vec![{}] }}).collect(),",
            a_args.join(", "),
            flats.join(", ")
        );
        let c_in: Vec<String> = inputs.iter().map(|i| format!("x.{i}.as_ptr()")).collect();
        let c_out: Vec<String> = (0..outputs)
            .map(|k| format!("o[{k}].as_mut_ptr()"))
            .collect();
        let _ = writeln!(
            arms,
            "        (true, false, {path}) => x.iter().map(|x| {{ let mut o: Vec<Vec<f64>> = \
             vec![{}]; \
             // SAFETY: inputs hold N values, outputs the lengths the module writes.\n            \
             unsafe {{ {name}_{fname}({}) }}; o }}).collect(),",
            lens.iter()
                .map(|l| format!("vec![0.0; {l}]"))
                .collect::<Vec<_>>()
                .join(", "),
            c_in.iter()
                .chain(&c_out)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        );
        // Batched: one call for all states.
        let mut setup = String::new();
        for i in inputs {
            let _ = write!(setup, "let {i}: [[f64; B]; {n}] = lanes(x, |s| &s.{i}); ");
        }
        for (k, l) in lens.iter().enumerate() {
            let _ = write!(setup, "let mut o{k} = [[0.0; B]; {l}]; ");
        }
        let r_args: Vec<String> = inputs
            .iter()
            .map(|i| format!("&{i}"))
            .chain((0..outputs).map(|k| format!("&mut o{k}")))
            .collect();
        let collect: Vec<String> = (0..outputs).map(|k| format!("unlanes(&o{k})")).collect();
        let gather = format!(
            "let per_output = [{}]; (0..B).map(|k| per_output.iter().map(|o| \
             o[k].clone()).collect()).collect()",
            collect.join(", ")
        );
        let _ = writeln!(
            arms,
            "        (false, true, {path}) => {{ {setup}{name}::{fname}_batch({}); {gather} }}",
            r_args.join(", ")
        );
        let c_args: Vec<String> = inputs
            .iter()
            .map(|i| format!("{i}.as_ptr().cast::<f64>()"))
            .chain((0..outputs).map(|k| format!("o{k}.as_mut_ptr().cast::<f64>()")))
            .collect();
        let _ = writeln!(
            arms,
            "        (true, true, {path}) => {{ {setup}\
             // SAFETY: every array is [rows][B], as the C function reads and writes them.\n            \
             unsafe {{ {name}_{fname}_batch({}) }}; {gather} }}",
            c_args.join(", ")
        );
    }
    s.push_str("}\n\n");
    let _ = writeln!(
        s,
        "fn batch_call_{name}(c: bool, batched: bool, kind: FunctionKind, x: &[State]) -> \
         Vec<Vec<Vec<f64>>> {{\n    const B: usize = {batch};\n    let a = |v: &[f64]| -> \
         [f64; {n}] {{ v.try_into().expect(\"one value per joint\") }};\n    let _ = &a;\n    \
         match (c, batched, kind) {{\n{arms}        _ => panic!(\"{{kind:?}} is not generated for \
         {name}\"),\n    }}\n}}\n\n\
         /// `{name}`: scalar and batched functions, Rust and C.\npub static BATCH_{upper}: \
         GeneratedBatch = GeneratedBatch {{\n    name: {name:?},\n    dof: {n},\n    batch: \
         {batch},\n    kinds: &[{}],\n    call: batch_call_{name},\n}};\n",
        kinds
            .iter()
            .map(|&k| kind_path(k))
            .collect::<Vec<_>>()
            .join(", ")
    );
    s
}

/// `kind` as a Rust path expression or pattern.
fn kind_path(kind: FunctionKind) -> String {
    format!("FunctionKind::{kind:?}")
}

/// `extern "C"` declarations of the functions `PREFIX_<function>`.
fn ffi_block(prefix: &str, real: &str) -> String {
    let mut s = String::from("extern \"C\" {\n");
    for kind in FunctionKind::ALL {
        let (f, inputs, outputs) = c_signature(kind);
        let mut args: Vec<String> = inputs
            .iter()
            .map(|i| format!("{i}: *const {real}"))
            .collect();
        args.extend((0..outputs).map(|k| format!("out{k}: *mut {real}")));
        let _ = writeln!(s, "    fn {prefix}_{f}({});", args.join(", "));
    }
    s.push_str("}\n\n");
    s
}

/// A `CRobot` constant over the functions `PREFIX_<function>`.
fn c_robot_const(prefix: &str, dof: usize, real: &str) -> String {
    let mut s = format!(
        "/// The C functions `{prefix}_*`.\npub static C_{}: CRobot<{real}> = CRobot {{\n    \
         dof: {dof},\n",
        prefix.to_ascii_uppercase()
    );
    for kind in FunctionKind::ALL {
        let (f, _, _) = c_signature(kind);
        let _ = writeln!(s, "    {f}: {prefix}_{f},");
    }
    s.push_str("};\n\n");
    s
}

/// Writes the header and source of `c` into `c_dir`; returns the source's path.
fn write_c(c_dir: &Path, c: &quasidyn_codegen::CFiles) -> PathBuf {
    write(&c_dir.join(&c.header_name), &c.header);
    let source = c_dir.join(c.source_name.as_deref().expect("a source file"));
    write(&source, c.source.as_deref().expect("a source file"));
    c_compile::submit(&source);
    // The other source files of a split output (`COptions::split`).
    for (name, text) in &c.units {
        let unit = c_dir.join(name);
        write(&unit, text);
        c_compile::submit(&unit);
    }
    source
}

/// The C derivatives and regressor of the Franka Panda (`tests/fixtures/urdf/panda.urdf` to
/// `panda_hand_tcp`, the chain the derivatives benchmark's `robot!` imports), for that
/// benchmark: writes the files, declares the functions in `gen`, returns the source.
fn panda_derivatives_c(manifest: &Path, c_dir: &Path, gen: &mut String) -> PathBuf {
    let path = manifest.join("fixtures/urdf/panda.urdf");
    println!("cargo:rerun-if-changed={}", path.display());
    let options = ImportOptions {
        tip: Some("panda_hand_tcp".to_owned()),
        frames: Vec::new(),
        snap: true,
        floating_base: false,
        ..ImportOptions::default()
    };
    let mut robot = load_input_with(&path, &options)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .robot;
    robot.name = "panda_c".to_owned();
    let module = build_module_only(
        &robot,
        Some(&[
            FunctionKind::InverseDynamicsDerivatives,
            FunctionKind::GravityDerivatives,
            FunctionKind::ForwardDynamicsDerivatives,
            FunctionKind::Regressor,
        ]),
    );
    let c = emit_c(&module, &COptions::default()).unwrap_or_else(|e| panic!("panda_c: {e}"));
    let source = write_c(c_dir, &c);
    gen.push_str(
        "extern \"C\" {\n    /// The Panda's C `inverse_dynamics_derivatives` (benchmarks).\n    \
         pub fn panda_c_inverse_dynamics_derivatives(q: *const f64, qd: *const f64, qdd: \
         *const f64, dtau_dq: *mut f64, dtau_dqd: *mut f64);\n    /// The Panda's C \
         `gravity_derivatives`.\n    pub fn panda_c_gravity_derivatives(q: *const f64, dg_dq: \
         *mut f64);\n    /// The Panda's C `forward_dynamics_derivatives`.\n    pub fn \
         panda_c_forward_dynamics_derivatives(q: *const f64, qd: *const f64, tau: *const f64, \
         dqdd_dq: *mut f64, dqdd_dqd: *mut f64, minv: *mut f64);\n    /// The Panda's C \
         `regressor`.\n    pub fn panda_c_regressor(q: *const f64, qd: *const f64, qdd: *const \
         f64, y: *mut f64);\n}\n\n",
    );
    source
}

/// A C file giving the `static inline` functions of a header-only variant external names.
fn header_only_wrapper(name: &str, prefix: &str, header: &str) -> String {
    let mut s = format!("/* External wrappers of the header-only `{name}`. */\n");
    let _ = writeln!(s, "#include \"header_only/{header}\"\n");
    for kind in FunctionKind::ALL {
        let (f, inputs, outputs) = c_signature(kind);
        let out_names = ["out0", "out1"];
        let mut params: Vec<String> = inputs
            .iter()
            .map(|i| format!("const double {i}[]"))
            .collect();
        params.extend(out_names[..outputs].iter().map(|o| format!("double {o}[]")));
        let mut args: Vec<&str> = inputs.to_vec();
        args.extend(&out_names[..outputs]);
        let proto = format!("void {prefix}_{f}({})", params.join(", "));
        let _ = writeln!(
            s,
            "{proto};\n{proto}\n{{\n    {name}_{f}({});\n}}\n",
            args.join(", ")
        );
    }
    s
}

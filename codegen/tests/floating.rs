//! Floating-base robots (`[base] motion = "floating"`) against Pinocchio: every generated
//! function, evaluated through the IR at the fixture states of tests/fixtures/floating/ (written
//! by tools/floating_reference.py with a free-flyer root joint), agrees to 1e-9 relative,
//! including states whose quaternion is not of unit length; the emitted C compiles cleanly and
//! the emitted Rust parses.

use std::path::{Path, PathBuf};
use std::process::Command;

use quasidyn_codegen::import::ImportOptions;
use quasidyn_codegen::ir::Env;
use quasidyn_codegen::{
    available_functions, build_module, build_module_only, emit_c, emit_rust, load_input_with,
    load_spec, parse_spec, to_toml, COptions, FunctionKind, Module,
};
use serde_json::Value;

/// Fixture stems under tests/fixtures: four specs (a 30-joint humanoid, a small floater, the
/// same with joint armature, which has no regressors, and the quadruped, whose spec is shipped
/// in robots/), and URDFs imported with `--floating-base`
/// (their fixtures from Pinocchio's own URDF parser under a free-flyer): Solo-12, and a trunk
/// whose sensor links, welded to it, are frames on the base body, and a massless trunk that
/// carries two legs and an arm.
const SPECS: [&str; 7] = [
    "floating/humanoid30",
    "floating/floater",
    "floating/floater_rotors",
    "floating/quadruped_floating",
    "urdf/solo12",
    "urdf/trunk_sensors",
    "urdf/massless_root",
];

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures")
}

fn module(name: &str) -> Module {
    let urdf = dir().join(format!("{name}.urdf"));
    let robot = if urdf.exists() {
        let options = ImportOptions {
            floating_base: true,
            ..ImportOptions::default()
        };
        let robot = load_input_with(&urdf, &options)
            .expect("fixture URDF imports")
            .robot;
        let joints: Vec<&str> = robot.bodies.iter().map(|b| b.joint_name.as_str()).collect();
        let fixture: Value = serde_json::from_str(
            &std::fs::read_to_string(dir().join(format!("{name}.json"))).unwrap(),
        )
        .unwrap();
        let want: Vec<&str> = fixture["joints"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j.as_str().unwrap())
            .collect();
        assert_eq!(joints, want, "{name}: Pinocchio's joint order");
        // What `quasidyn import --floating-base` prints reads back as the same robot.
        let printed = parse_spec(&to_toml(&robot), "printed.toml").expect("printed spec parses");
        assert_eq!(printed, robot, "{name}: the printed spec reads back");
        robot
    } else {
        // A spec shipped in robots/ keeps its fixture here.
        let stem = name.rsplit('/').next().expect("a stem");
        let shipped = dir().join(format!("../../robots/{stem}.toml"));
        let spec = if shipped.exists() {
            shipped
        } else {
            dir().join(format!("{name}.toml"))
        };
        load_spec(&spec).expect("fixture spec loads")
    };
    assert!(robot.is_floating(), "{name} has a floating base");
    if has_derivatives(name) {
        build_module(&robot)
    } else {
        // The 30-joint humanoid's fixture has no derivatives (NV x NV each, per state) and no
        // regressor.
        let kinds: Vec<FunctionKind> = available_functions(&robot)
            .into_iter()
            .filter(|k| {
                !FunctionKind::DERIVATIVES.contains(k)
                    && !matches!(k, FunctionKind::Regressor | FunctionKind::BaseRegressor)
            })
            .collect();
        build_module_only(&robot, Some(&kinds))
    }
}

/// Whether the fixture records the derivatives (tools/floating_reference.py does for robots
/// of at most 12 joints).
fn has_derivatives(name: &str) -> bool {
    fixture(name)["states"][0].get("dtau_dq").is_some()
}

/// The values of one of the module's constants.
fn constant(module: &Module, name: &str) -> Vec<f64> {
    module
        .constants
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("constant {name}"))
        .values
        .clone()
}

fn fixture(name: &str) -> Value {
    let text = std::fs::read_to_string(dir().join(format!("{name}.json")))
        .expect("fixture readable (run tools/floating_reference.py)");
    serde_json::from_str(&text).expect("fixture is JSON")
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect()
}

/// The IR inputs for NQ/NV-shaped q, v, a, tau: the base's entries go to `Env::base` (pose,
/// velocity, acceleration, wrench), the joints' to q, qd, qdd, tau.
fn env(q: &[f64], v: &[f64], a: &[f64], tau: &[f64], params: Vec<f64>) -> Env {
    let mut base = q[..7].to_vec();
    base.extend_from_slice(&v[..6]);
    base.extend_from_slice(&a[..6]);
    base.extend_from_slice(&tau[..6]);
    Env {
        q: q[7..].to_vec(),
        qd: v[6..].to_vec(),
        qdd: a[6..].to_vec(),
        tau: tau[6..].to_vec(),
        base,
        params,
        elastic: Default::default(),
    }
}

fn close(name: &str, what: &str, state: usize, got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{name} {what}: length");
    let scale = want.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-9 * scale,
            "{name} state {state} {what}[{k}]: generated {g}, Pinocchio {w}"
        );
    }
}

#[test]
fn every_function_matches_pinocchio() {
    for name in SPECS {
        let module = module(name);
        let fixture = fixture(name);
        let derivatives = has_derivatives(name);
        let nv = fixture["nv"].as_u64().expect("nv") as usize;
        let nq = fixture["nq"].as_u64().expect("nq") as usize;
        assert_eq!((nq, nv), (module.dof + 7, module.dof + 6), "{name}: NQ, NV");
        let frames: Vec<String> = fixture["frames"]
            .as_array()
            .expect("frames")
            .iter()
            .map(|f| f.as_str().expect("frame name").to_string())
            .collect();
        assert_eq!(module.frame_names, frames, "{name}: frame order");
        if derivatives {
            // Pinocchio's dynamic parameters, the base body's first.
            let pi = constant(&module, "standard_parameters");
            close(
                name,
                "standard parameters",
                0,
                &pi,
                &numbers(&fixture["standard_parameters"]),
            );
        }
        let params: Vec<f64> = module.graph.params().iter().map(|p| p.default).collect();
        let states = fixture["states"].as_array().expect("states");
        assert_eq!(states.len(), 20);
        let mut unit = 0;
        let mut scaled = 0;
        for (s, st) in states.iter().enumerate() {
            let q = numbers(&st["q"]);
            let (v, a, tau) = (numbers(&st["v"]), numbers(&st["a"]), numbers(&st["tau_fd"]));
            let norm = q[3..7].iter().map(|x| x * x).sum::<f64>().sqrt();
            if (norm - 1.0).abs() < 1e-12 {
                unit += 1;
            } else if (norm - 1.3).abs() < 1e-12 {
                scaled += 1;
            }
            let zero = vec![0.0; nv];
            // Inverse dynamics reads a; forward dynamics reads tau_fd; the others neither.
            let with_a = env(&q, &v, &a, &zero, params.clone());
            let with_tau = env(&q, &v, &zero, &tau, params.clone());
            let mut checked = 0;
            for f in &module.functions {
                let eval = |env: &Env, i: usize| module.graph.eval_many(&f.outputs[i].values, env);
                match f.kind {
                    FunctionKind::InverseDynamics => {
                        close(
                            name,
                            "inverse_dynamics",
                            s,
                            &eval(&with_a, 0),
                            &numbers(&st["inverse_dynamics"]),
                        );
                    }
                    FunctionKind::Gravity => {
                        close(
                            name,
                            "gravity",
                            s,
                            &eval(&with_a, 0),
                            &numbers(&st["gravity"]),
                        );
                    }
                    FunctionKind::NonlinearEffects => {
                        close(
                            name,
                            "nonlinear_effects",
                            s,
                            &eval(&with_a, 0),
                            &numbers(&st["nonlinear_effects"]),
                        );
                    }
                    FunctionKind::MassMatrix => {
                        close(
                            name,
                            "mass_matrix",
                            s,
                            &eval(&with_a, 0),
                            &numbers(&st["mass_matrix"]),
                        );
                    }
                    FunctionKind::ForwardDynamics => {
                        close(
                            name,
                            "forward_dynamics",
                            s,
                            &eval(&with_tau, 0),
                            &numbers(&st["forward_dynamics"]),
                        );
                    }
                    FunctionKind::FrameKinematics(i) => {
                        let fr = &st["frames"][usize::from(i)];
                        close(
                            name,
                            "frame rotation",
                            s,
                            &eval(&with_a, 0),
                            &numbers(&fr["rotation"]),
                        );
                        close(
                            name,
                            "frame position",
                            s,
                            &eval(&with_a, 1),
                            &numbers(&fr["position"]),
                        );
                    }
                    FunctionKind::FrameJacobian(i) => {
                        let fr = &st["frames"][usize::from(i)];
                        close(
                            name,
                            "frame jacobian",
                            s,
                            &eval(&with_a, 0),
                            &numbers(&fr["jacobian"]),
                        );
                    }
                    // Along the tangent of q, as Pinocchio (base displacement in its own
                    // frame, then the joints).
                    FunctionKind::InverseDynamicsDerivatives => {
                        close(
                            name,
                            "dtau_dq",
                            s,
                            &eval(&with_a, 0),
                            &numbers(&st["dtau_dq"]),
                        );
                        close(
                            name,
                            "dtau_dv",
                            s,
                            &eval(&with_a, 1),
                            &numbers(&st["dtau_dv"]),
                        );
                    }
                    FunctionKind::GravityDerivatives => {
                        close(name, "dg_dq", s, &eval(&with_a, 0), &numbers(&st["dg_dq"]));
                    }
                    FunctionKind::ForwardDynamicsDerivatives => {
                        let (dq, dv, minv) =
                            (eval(&with_tau, 0), eval(&with_tau, 1), eval(&with_tau, 2));
                        close(name, "dqdd_dq", s, &dq, &numbers(&st["dqdd_dq"]));
                        close(name, "dqdd_dv", s, &dv, &numbers(&st["dqdd_dv"]));
                        close(name, "Minv", s, &minv, &numbers(&st["Minv"]));
                    }
                    // Pinocchio's computeJointTorqueRegressor (recorded for the first states),
                    // the base body's columns first.
                    FunctionKind::Regressor => {
                        if let Some(y) = st.get("regressor") {
                            close(name, "regressor", s, &eval(&with_a, 0), &numbers(y));
                        }
                    }
                    FunctionKind::BaseRegressor => {
                        let pi_b = constant(&module, "base_parameters");
                        let yb = eval(&with_a, 0);
                        let tau: Vec<f64> = yb
                            .chunks(pi_b.len())
                            .map(|row| row.iter().zip(&pi_b).map(|(y, p)| y * p).sum())
                            .collect();
                        close(name, "Yb pi_b", s, &tau, &numbers(&st["inverse_dynamics"]));
                    }
                    other => panic!("{name}: {other:?} has no floating-base reference"),
                }
                checked += 1;
            }
            let identification = if module.function(FunctionKind::Regressor).is_some() {
                2
            } else {
                0
            };
            assert_eq!(
                checked,
                5 + 2 * frames.len() + if derivatives { 3 + identification } else { 0 },
                "{name}: every function checked"
            );
        }
        assert_eq!(
            (unit, scaled),
            (10, 10),
            "{name}: unit and scaled quaternions"
        );
    }
}

#[test]
fn emitted_code_compiles_and_parses() {
    for name in SPECS {
        let module = module(name);
        let rust = emit_rust(&module).expect("Rust emits");
        syn::parse_file(&rust).expect("generated Rust parses");
        assert!(rust.contains("pub const NQ: usize") && rust.contains("pub const NV: usize"));
        for float in [false, true] {
            let files = emit_c(
                &module,
                &COptions {
                    float,
                    header_only: false,
                    ..COptions::default()
                },
            )
            .expect("C emits");
            let upper = module.robot_name.to_ascii_uppercase();
            assert!(files.header.contains(&format!("{upper}_NQ")));
            assert!(files.header.contains(&format!("{upper}_NV")));
            let out = tempfile::tempdir().expect("temp dir");
            std::fs::write(out.path().join(&files.header_name), &files.header).expect("write");
            let source = files.source_name.as_ref().expect("source file");
            std::fs::write(
                out.path().join(source),
                files.source.as_ref().expect("source"),
            )
            .expect("write");
            let gcc = Command::new("gcc")
                .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-c"])
                .arg(source)
                .args(["-o", "out.o"])
                .current_dir(out.path())
                .output()
                .expect("gcc runs");
            assert!(
                gcc.status.success(),
                "{name} (float: {float}): {}",
                String::from_utf8_lossy(&gcc.stderr)
            );
        }
    }
}

/// With armature on the joints and on the free-flyer (`floater_rotors`), the kinetic energy is
/// `½ vᵀ M v` with Pinocchio's mass matrix, armature included (Pinocchio's own
/// `computeKineticEnergy` leaves the revolute joints' armature out, so it is not the
/// reference); without the base's armature it is not.
#[test]
fn kinetic_energy_with_armature_is_half_v_m_v() {
    let name = "floating/floater_rotors";
    let robot = load_spec(&dir().join(format!("{name}.toml"))).expect("spec loads");
    assert!(robot.base_armature() > 0.0, "the fixture has base armature");
    let bare = {
        let mut bare = robot.clone();
        bare.base_body.as_mut().expect("base body").armature = 0.0;
        bare
    };
    let kind = [FunctionKind::KineticEnergy];
    let (module, bare_module) = (
        build_module_only(&robot, Some(&kind)),
        build_module_only(&bare, Some(&kind)),
    );
    let fixture = fixture(name);
    let nv = fixture["nv"].as_u64().expect("nv") as usize;
    for (s, st) in fixture["states"]
        .as_array()
        .expect("states")
        .iter()
        .enumerate()
    {
        let (q, v) = (numbers(&st["q"]), numbers(&st["v"]));
        let m = numbers(&st["mass_matrix"]);
        let want = 0.5
            * (0..nv)
                .map(|i| (0..nv).map(|j| v[i] * m[i * nv + j] * v[j]).sum::<f64>())
                .sum::<f64>();
        let zero = vec![0.0; nv];
        let energy = |module: &Module| {
            let params: Vec<f64> = module.graph.params().iter().map(|p| p.default).collect();
            let env = env(&q, &v, &zero, &zero, params);
            let f = &module.functions[0];
            assert_eq!(f.kind, FunctionKind::KineticEnergy);
            module.graph.eval_many(&f.outputs[0].values, &env)
        };
        close(name, "kinetic energy", s, &energy(&module), &[want]);
        let base_part = 0.5 * robot.base_armature() * v[..6].iter().map(|x| x * x).sum::<f64>();
        close(
            name,
            "kinetic energy without the base's armature",
            s,
            &energy(&bare_module),
            &[want - base_part],
        );
    }
}

//! The functions generated on request (the centre of mass, the centroidal momentum, the
//! Coriolis matrix) against Pinocchio (`tests/fixtures/whole_body/`, written by
//! tools/whole_body_reference.py): fixed-base chains and trees (tilted axes, prismatic joints,
//! a URDF hand), floating quadrupeds and a 30-joint floating humanoid, at 1e-9 relative,
//! evaluated on the generator's expression graph and through the generated C and Rust; and
//! the identities between them.

use quasidyn_codegen::import::ImportOptions;
use quasidyn_codegen::ir::Env;
use quasidyn_codegen::{
    build_module_only, every_function_of, load_input_with, FunctionKind, Module, Robot,
};
use quasidyn_tests::generated::WHOLE_BODY;
use quasidyn_tests::{assert_close, workspace_root};
use serde_json::Value;

const REL: f64 = 1e-9;

/// The fixture's robots: name, and the values of each state.
struct Fixture {
    name: String,
    input: String,
    floating: bool,
    mass: f64,
    states: Vec<Value>,
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap_or_else(|| panic!("array, got {v}"))
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect()
}

fn fixtures() -> Vec<Fixture> {
    let dir = workspace_root().join("tests/fixtures/whole_body");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures written by tools/whole_body_reference.py")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| {
            let v: Value =
                serde_json::from_str(&std::fs::read_to_string(p).expect("read")).expect("json");
            Fixture {
                name: v["name"].as_str().expect("name").to_owned(),
                input: v["input"].as_str().expect("input").to_owned(),
                floating: v["floating_base"].as_bool().expect("floating_base"),
                mass: v["mass"].as_f64().expect("mass"),
                states: v["states"].as_array().expect("states").clone(),
            }
        })
        .collect()
}

/// The robot as the fixture's input reads: a URDF as a whole tree, under a free-flyer when
/// Pinocchio had one.
fn robot_of(f: &Fixture) -> Robot {
    let options = ImportOptions {
        floating_base: f.floating && f.input.ends_with(".urdf"),
        ..ImportOptions::default()
    };
    load_input_with(&workspace_root().join(&f.input), &options)
        .expect("fixture input loads")
        .robot
}

/// `got` against `want` at [`REL`] relative to `want`'s largest entry (at least 1).
fn close(what: &str, got: &[f64], want: &[f64]) {
    assert_close(what, got, want, REL);
}

/// Pinocchio's value of `kind` at a state.
fn expected(kind: FunctionKind, st: &Value) -> Vec<f64> {
    numbers(&st[kind.name()])
}

/// The graph's inputs for a state: a floating base's pose and velocity go to `base`.
fn env_of(f: &Fixture, st: &Value) -> Env {
    let (q, v) = (numbers(&st["q"]), numbers(&st["v"]));
    let (q, qd, base) = if f.floating {
        let base = q[..7].iter().chain(&v[..6]).copied().collect();
        (q[7..].to_vec(), v[6..].to_vec(), base)
    } else {
        (q, v, Vec::new())
    };
    Env {
        q,
        qd,
        base,
        ..Env::default()
    }
}

/// The functions on request the robot has.
fn on_request(robot: &Robot) -> Vec<FunctionKind> {
    every_function_of(robot)
        .into_iter()
        .filter(|k| k.entry().group.on_request())
        .collect()
}

/// The module of the functions on request, with the mass matrix, gravity and nonlinear
/// effects the identities read.
fn module_of(f: &Fixture) -> Module {
    let robot = robot_of(f);
    let mut kinds = on_request(&robot);
    kinds.extend([
        FunctionKind::Gravity,
        FunctionKind::NonlinearEffects,
        FunctionKind::MassMatrix,
    ]);
    kinds.sort();
    build_module_only(&robot, Some(&kinds))
}

#[test]
fn every_fixture_robot_has_the_family() {
    let names: Vec<String> = fixtures().into_iter().map(|f| f.name).collect();
    for want in [
        "ur5",
        "hand",
        "quadruped_floating",
        "humanoid30",
        "synthetic_tree",
    ] {
        assert!(names.iter().any(|n| n == want), "{want} in {names:?}");
    }
    for f in fixtures() {
        let robot = robot_of(&f);
        let mut want = FunctionKind::CENTROIDAL.to_vec();
        if !f.floating {
            want.extend(FunctionKind::WHOLE_BODY);
        }
        assert_eq!(on_request(&robot), want, "{}", f.name);
        let fixed = f.states[0].get("coriolis_matrix").is_some();
        assert_eq!(fixed, !f.floating, "{}: Coriolis matrix fixtures", f.name);
    }
}

#[test]
fn the_graph_matches_pinocchio() {
    for f in fixtures() {
        let module = module_of(&f);
        for (s, st) in f.states.iter().enumerate() {
            let env = env_of(&f, st);
            for function in &module.functions {
                if !function.kind.entry().group.on_request() {
                    continue;
                }
                let got = module.graph.eval_many(&function.outputs[0].values, &env);
                let what = format!("{} state {s} {}", f.name, function.kind.name());
                close(&what, &got, &expected(function.kind, st));
            }
        }
    }
}

#[test]
fn identities_hold_on_the_graph() {
    for f in fixtures() {
        let module = module_of(&f);
        let eval = |kind: FunctionKind, env: &Env| {
            let function = module.function(kind).expect("generated");
            module.graph.eval_many(&function.outputs[0].values, env)
        };
        let st = &f.states[0];
        let env = env_of(&f, st);
        let v = numbers(&st["v"]);
        let nv = v.len();
        let ag = eval(FunctionKind::CentroidalMomentumMatrix, &env);
        let jc = eval(FunctionKind::CenterOfMassJacobian, &env);
        let hg = eval(FunctionKind::CentroidalMomentum, &env);
        // Ag v = hg.
        let agv: Vec<f64> = ag
            .chunks(nv)
            .map(|row| row.iter().zip(&v).map(|(a, b)| a * b).sum())
            .collect();
        close(&format!("{}: Ag v", f.name), &agv, &hg);
        // The linear rows of Ag are the total mass times Jc.
        let mjc: Vec<f64> = jc.iter().map(|x| x * f.mass).collect();
        close(&format!("{}: m Jc", f.name), &ag[..3 * nv], &mjc);
        // The centre of mass's acceleration bias is the momentum bias's force over the mass.
        let dhg = eval(FunctionKind::CentroidalMomentumBias, &env);
        let ac = eval(FunctionKind::CenterOfMassAccelerationBias, &env);
        let want: Vec<f64> = dhg[..3].iter().map(|x| x / f.mass).collect();
        close(&format!("{}: ac", f.name), &ac, &want);
        if !f.floating {
            coriolis_identities(&f, &module, &env);
        }
        // Jc by central differences of the centre of mass along each velocity (joints only:
        // a floating base's quaternion moves along its tangent, checked by Pinocchio above).
        let skip = if f.floating { 6 } else { 0 };
        let h = 1e-6;
        for j in skip..nv {
            let shifted = |sign: f64| {
                let mut e = env.clone();
                e.q[j - skip] += sign * h;
                eval(FunctionKind::CenterOfMass, &e)
            };
            let (plus, minus) = (shifted(1.0), shifted(-1.0));
            for r in 0..3 {
                let fd = (plus[r] - minus[r]) / (2.0 * h);
                assert!(
                    (fd - jc[r * nv + j]).abs() <= 1e-6,
                    "{}: dc_{r}/dq_{j} {fd} vs Jc {}",
                    f.name,
                    jc[r * nv + j]
                );
            }
        }
    }
}

#[test]
fn generated_rust_and_c_match_pinocchio() {
    let fixtures = fixtures();
    assert_eq!(WHOLE_BODY.len(), fixtures.len(), "every fixture generated");
    for robot in WHOLE_BODY {
        let f = fixtures
            .iter()
            .find(|f| f.name == robot.fixture)
            .expect("registered from the fixtures");
        for (s, st) in f.states.iter().enumerate() {
            let (q, v) = (numbers(&st["q"]), numbers(&st["v"]));
            for &kind in robot.kinds {
                let want = expected(kind, st);
                let what = |lang: &str| format!("{} state {s} {} ({lang})", f.name, kind.name());
                close(&what("Rust"), &(robot.rust)(kind, &q, &v), &want);
                close(&what("C"), &(robot.c)(kind, &q, &v), &want);
            }
        }
    }
}

/// `C qd + g` are the nonlinear effects, and `M' - 2C` is skew (`M'` by central differences of
/// the mass matrix along `qd`).
fn coriolis_identities(f: &Fixture, module: &Module, env: &Env) {
    let eval = |kind: FunctionKind, env: &Env| {
        let function = module.function(kind).expect("generated");
        module.graph.eval_many(&function.outputs[0].values, env)
    };
    let n = env.q.len();
    let c = eval(FunctionKind::CoriolisMatrix, env);
    let g = eval(FunctionKind::Gravity, env);
    let cv: Vec<f64> = c
        .chunks(n)
        .zip(&g)
        .map(|(row, gi)| row.iter().zip(&env.qd).map(|(a, b)| a * b).sum::<f64>() + gi)
        .collect();
    close(
        &format!("{}: C qd + g", f.name),
        &cv,
        &eval(FunctionKind::NonlinearEffects, env),
    );
    let h = 1e-6;
    let at = |sign: f64| {
        let mut e = env.clone();
        for (q, qd) in e.q.iter_mut().zip(&env.qd) {
            *q += sign * h * qd;
        }
        eval(FunctionKind::MassMatrix, &e)
    };
    let (plus, minus) = (at(1.0), at(-1.0));
    let s: Vec<f64> = (0..n * n)
        .map(|k| (plus[k] - minus[k]) / (2.0 * h) - 2.0 * c[k])
        .collect();
    for i in 0..n {
        for j in 0..n {
            assert!(
                (s[i * n + j] + s[j * n + i]).abs() <= 1e-6,
                "{}: M' - 2C not skew at ({i}, {j})",
                f.name
            );
        }
    }
}

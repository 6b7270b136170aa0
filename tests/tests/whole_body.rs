//! The functions generated on request (the centre of mass, the centroidal momentum, the
//! Coriolis matrix) against Pinocchio (`tests/fixtures/whole_body/`, written by
//! tools/whole_body_reference.py): fixed-base chains and trees (tilted axes, prismatic joints,
//! a URDF hand), floating quadrupeds and a 30-joint floating humanoid, at 1e-9 relative,
//! evaluated on the generator's expression graph and through the generated C and Rust; and
//! the identities between them.

mod common;

use common::{fixture_robot, fixture_values, graph_outputs, moving_base_env, numbers};
use quasidyn_codegen::import::ImportOptions;
use quasidyn_codegen::ir::Env;
use quasidyn_codegen::{build_module_only, every_function_of, FunctionKind, Module, Robot};
use quasidyn_tests::assert_close;
use quasidyn_tests::generated::WHOLE_BODY;
use serde_json::Value;

const REL: f64 = 1e-9;

/// The fixture's robots: name, and the values of each state.
struct Fixture {
    name: String,
    input: String,
    floating: bool,
    mass: f64,
    /// Named frames, in the robot's order.
    frames: Vec<String>,
    states: Vec<Value>,
}

fn fixtures() -> Vec<Fixture> {
    fixture_values("whole_body", "whole_body_reference.py")
        .iter()
        .map(|v| Fixture {
            name: v["name"].as_str().expect("name").to_owned(),
            input: v["input"].as_str().expect("input").to_owned(),
            floating: v["floating_base"].as_bool().expect("floating_base"),
            mass: v["mass"].as_f64().expect("mass"),
            frames: v["frames"]
                .as_array()
                .expect("frames")
                .iter()
                .map(|n| n.as_str().expect("a frame name").to_owned())
                .collect(),
            states: v["states"].as_array().expect("states").clone(),
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
    fixture_robot(&f.input, &options)
}

/// `got` against `want` at [`REL`] relative to `want`'s largest entry (at least 1).
fn close(what: &str, got: &[f64], want: &[f64]) {
    assert_close(what, got, want, REL);
}

/// Pinocchio's value of the function named `name` at a state.
fn expected(name: &str, st: &Value) -> Vec<f64> {
    match st[name].as_f64() {
        // A function returning one number (the energies).
        Some(x) => vec![x],
        None => numbers(&st[name]),
    }
}

/// The graph's inputs for a state: a floating base's pose, velocity and acceleration go to
/// `base`.
fn env_of(f: &Fixture, st: &Value) -> Env {
    let (q, v, a) = (numbers(&st["q"]), numbers(&st["v"]), numbers(&st["a"]));
    if f.floating {
        return moving_base_env(&q, &v, &a);
    }
    Env {
        q,
        qd: v,
        qdd: a,
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
    if !f.floating {
        kinds.push(FunctionKind::StaticJointReactions);
    }
    kinds.extend(
        every_function_of(&robot)
            .into_iter()
            .filter(|k| k.frame().is_some()),
    );
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
        want.extend([
            FunctionKind::CoriolisMatrix,
            FunctionKind::MassMatrixInverse,
            FunctionKind::JointWrenches,
            FunctionKind::KineticEnergy,
            FunctionKind::PotentialEnergy,
        ]);
        let frames = u16::try_from(f.frames.len()).expect("a few frames");
        for kind in FunctionKind::FRAME_MOTION {
            want.extend((0..frames).map(|k| kind.for_frame(k)));
        }
        assert_eq!(on_request(&robot), want, "{}", f.name);
        let names: Vec<&str> = robot.frames.iter().map(|fr| fr.name.as_str()).collect();
        assert_eq!(names, f.frames, "{}: frames in Pinocchio's order", f.name);
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
                let got = graph_outputs(&module, function, &env);
                let name = module.function_name(function.kind).expect("named");
                let what = format!("{} state {s} {name}", f.name);
                close(&what, &got, &expected(&name, st));
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
        coriolis_identities(&f, &module, &env, &v);
        if !f.floating {
            wrenches_at_rest(&f, &module, &env);
        }
        frame_identities(&f, &module, &env, &v);
        energy_identities(&f, &module, &env);
        // M Minv = I.
        let m = eval(FunctionKind::MassMatrix, &env);
        let minv = eval(FunctionKind::MassMatrixInverse, &env);
        let identity: Vec<f64> = (0..nv * nv)
            .map(|k| f64::from(u8::from(k % (nv + 1) == 0)))
            .collect();
        let product: Vec<f64> = (0..nv * nv)
            .map(|k| {
                (0..nv)
                    .map(|j| m[k / nv * nv + j] * minv[j * nv + k % nv])
                    .sum()
            })
            .collect();
        close(&format!("{}: M Minv", f.name), &product, &identity);
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
            let (q, v, a) = (numbers(&st["q"]), numbers(&st["v"]), numbers(&st["a"]));
            for &(kind, name) in robot.kinds {
                let want = expected(name, st);
                let what = |lang: &str| format!("{} state {s} {name} ({lang})", f.name);
                close(&what("Rust"), &(robot.rust)(kind, &q, &v, &a), &want);
                close(&what("C"), &(robot.c)(kind, &q, &v, &a), &want);
            }
        }
    }
}

/// `C v + g` are the nonlinear effects, and `M' - 2C` is skew (`M'` by central differences of
/// the mass matrix along the joint rates: a floating base's mass matrix does not depend on its
/// pose).
fn coriolis_identities(f: &Fixture, module: &Module, env: &Env, v: &[f64]) {
    let eval = |kind: FunctionKind, env: &Env| {
        let function = module.function(kind).expect("generated");
        module.graph.eval_many(&function.outputs[0].values, env)
    };
    let n = v.len();
    let c = eval(FunctionKind::CoriolisMatrix, env);
    let g = eval(FunctionKind::Gravity, env);
    let cv: Vec<f64> = c
        .chunks(n)
        .zip(&g)
        .map(|(row, gi)| row.iter().zip(v).map(|(a, b)| a * b).sum::<f64>() + gi)
        .collect();
    close(
        &format!("{}: C v + g", f.name),
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

/// The kinetic energy is `1/2 v^T M v`; on a fixed base its rate along a motion is
/// `qd^T (tau - g)` with `tau` the inverse dynamics (`M qdd + nle`), and the gradient of the
/// potential energy is the gravity torque (both by central differences).
fn energy_identities(f: &Fixture, module: &Module, env: &Env) {
    let eval = |kind: FunctionKind, env: &Env| {
        let function = module.function(kind).expect("generated");
        module.graph.eval_many(&function.outputs[0].values, env)
    };
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    let st = &f.states[0];
    let v = numbers(&st["v"]);
    let m = eval(FunctionKind::MassMatrix, env);
    let mv: Vec<f64> = m.chunks(v.len()).map(|row| dot(row, &v)).collect();
    let t = eval(FunctionKind::KineticEnergy, env);
    close(
        &format!("{}: T = v M v / 2", f.name),
        &t,
        &[0.5 * dot(&v, &mv)],
    );
    if f.floating {
        return;
    }
    let h = 1e-6;
    let along = |sign: f64| {
        let mut e = env.clone();
        for ((q, qd), qdd) in e.q.iter_mut().zip(e.qd.iter_mut()).zip(&env.qdd) {
            *q += sign * h * *qd;
            *qd += sign * h * qdd;
        }
        eval(FunctionKind::KineticEnergy, &e)[0]
    };
    let rate = (along(1.0) - along(-1.0)) / (2.0 * h);
    let mqdd: Vec<f64> = m.chunks(v.len()).map(|row| dot(row, &env.qdd)).collect();
    let nle = eval(FunctionKind::NonlinearEffects, env);
    let g = eval(FunctionKind::Gravity, env);
    let power: f64 = (0..v.len())
        .map(|i| env.qd[i] * (mqdd[i] + nle[i] - g[i]))
        .sum();
    assert!(
        (rate - power).abs() <= 1e-6 * power.abs().max(1.0),
        "{}: dT/dt = {rate}, qd (tau - g) = {power}",
        f.name
    );
    for (j, gj) in g.iter().enumerate() {
        let shifted = |sign: f64| {
            let mut e = env.clone();
            e.q[j] += sign * h;
            eval(FunctionKind::PotentialEnergy, &e)[0]
        };
        let dv = (shifted(1.0) - shifted(-1.0)) / (2.0 * h);
        assert!(
            (dv - gj).abs() <= 1e-6 * gj.abs().max(1.0),
            "{}: dV/dq{j} = {dv}, g = {gj}",
            f.name
        );
    }
}

/// Per named frame: the velocity is `J v`, the acceleration bias `J' v`, and `J'` the central
/// difference of the Jacobian along the joint rates (a fixed base; a floating base's pose moves
/// along its tangent, which Pinocchio's values check).
fn frame_identities(f: &Fixture, module: &Module, env: &Env, v: &[f64]) {
    let eval = |kind: FunctionKind, env: &Env| {
        let function = module.function(kind).expect("generated");
        module.graph.eval_many(&function.outputs[0].values, env)
    };
    let times = |m: &[f64], v: &[f64]| -> Vec<f64> {
        m.chunks(v.len())
            .map(|row| row.iter().zip(v).map(|(a, b)| a * b).sum())
            .collect()
    };
    let frames = u16::try_from(f.frames.len()).expect("a few frames");
    for k in 0..frames {
        let what = |x: &str| format!("{} frame {k}: {x}", f.name);
        let jac = eval(FunctionKind::FrameJacobian(k), env);
        let jd = eval(FunctionKind::JacobianDerivative(k), env);
        let vel = eval(FunctionKind::FrameVelocity(k), env);
        let acc = eval(FunctionKind::FrameAccelerationBias(k), env);
        close(&what("J v"), &times(&jac, v), &vel);
        close(&what("J' v"), &times(&jd, v), &acc);
        if f.floating {
            continue;
        }
        let h = 1e-6;
        let at = |sign: f64| {
            let mut e = env.clone();
            for (q, qd) in e.q.iter_mut().zip(&env.qd) {
                *q += sign * h * qd;
            }
            eval(FunctionKind::FrameJacobian(k), &e)
        };
        let (plus, minus) = (at(1.0), at(-1.0));
        for (c, want) in jd.iter().enumerate() {
            let fd = (plus[c] - minus[c]) / (2.0 * h);
            assert!(
                (fd - want).abs() <= 1e-6,
                "{}: entry {c} {fd} vs {want}",
                what("J'")
            );
        }
    }
}

/// At rest the joint wrenches are the static joint reactions (given in body axes) turned into
/// world axes: the same lengths, row by row.
fn wrenches_at_rest(f: &Fixture, module: &Module, env: &Env) {
    let rest = Env {
        qd: vec![0.0; env.q.len()],
        qdd: vec![0.0; env.q.len()],
        ..env.clone()
    };
    let function = |kind| module.function(kind).expect("generated");
    let world = graph_outputs(module, function(FunctionKind::JointWrenches), &rest);
    let body = graph_outputs(module, function(FunctionKind::StaticJointReactions), &rest);
    let norm = |row: &[f64]| row.iter().map(|x| x * x).sum::<f64>().sqrt();
    let lengths = |v: &[f64]| v.chunks(3).map(norm).collect::<Vec<f64>>();
    close(
        &format!("{}: joint wrenches at rest", f.name),
        &lengths(&world),
        &lengths(&body),
    );
}

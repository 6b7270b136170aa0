//! The functions generated on request with a prescribed base (`[base] motion = "prescribed"`,
//! and `translation_only`) against Pinocchio (`tests/fixtures/prescribed/`, written by
//! tools/prescribed_reference.py: the floating-base specs under a free-flyer whose body has no
//! mass, at the base's given motion; one with a joint that follows another, seen through the
//! coupling), at 1e-9 relative, on the generator's expression graph and through the generated
//! C and Rust; and the identities that tie them to the default functions.

mod common;

use common::{fixture_robot, fixture_values, graph_outputs, moving_base_env, numbers};
use quasidyn_codegen::import::ImportOptions;
use quasidyn_codegen::ir::Env;
use quasidyn_codegen::{
    build_module_only, every_function_of, BaseMotion, FunctionKind, Module, Robot,
};
use quasidyn_tests::assert_close;
use quasidyn_tests::generated::PRESCRIBED;
use serde_json::Value;

const REL: f64 = 1e-9;

/// What a translating base's code must not read: its angular entries get these instead.
const UNREAD: [f64; 3] = [0.7, -1.9, 2.3];

fn fixtures() -> Vec<Value> {
    fixture_values("prescribed", "prescribed_reference.py")
}

fn robot_of(fixture: &Value, motion: BaseMotion) -> Robot {
    let input = fixture["input"].as_str().expect("input");
    let contacts = serde_json::from_value(fixture["contacts"].clone()).expect("contacts");
    let options = ImportOptions {
        contacts,
        ..ImportOptions::default()
    };
    let mut robot = fixture_robot(input, &options);
    robot.motion = motion;
    robot.base_body = None;
    robot
}

/// The functions on request and the static joint reactions (both from the fixture).
fn on_request(robot: &Robot) -> Vec<FunctionKind> {
    every_function_of(robot)
        .into_iter()
        .filter(|k| k.entry().group.on_request() || *k == FunctionKind::StaticJointReactions)
        .collect()
}

/// Pinocchio's value of the function named `name` at a state.
fn expected(name: &str, st: &Value) -> Vec<f64> {
    match st[name].as_f64() {
        Some(x) => vec![x],
        None => numbers(&st[name]),
    }
}

/// The state's `q`, `v` and `a` (the base's arrays first), with a translating base's angular
/// entries replaced by [`UNREAD`]; `None` for a state the motion cannot have (a turning base
/// for a translating one).
fn state(st: &Value, motion: BaseMotion) -> Option<[Vec<f64>; 3]> {
    let (q, mut v, mut a) = (numbers(&st["q"]), numbers(&st["v"]), numbers(&st["a"]));
    if motion == BaseMotion::Translating {
        if !st["translating"].as_bool().expect("translating") {
            return None;
        }
        v[3..6].copy_from_slice(&UNREAD);
        a[3..6].copy_from_slice(&UNREAD);
    }
    Some([q, v, a])
}

/// The graph's inputs at a state, with the state's joint forces where it has them (the
/// contact dynamics').
fn env_of([q, v, a]: &[Vec<f64>; 3], st: &Value) -> Env {
    Env {
        tau: st.get("tau").map(numbers).unwrap_or_default(),
        ..moving_base_env(q, v, a)
    }
}

/// `env` (in the independent coordinates) as the graph reads it: with joints that follow
/// others, every joint's position, rate and acceleration, and the forces at the coordinates'
/// own joints (a follower's sines and cosines are leaves of its own angle).
fn every_joint(module: &Module, env: &Env) -> Env {
    if module.joint_inputs.is_empty() {
        return env.clone();
    }
    let spread = |x: &[f64], offsets: bool| -> Vec<f64> {
        module
            .joint_inputs
            .iter()
            .map(|j| {
                let value = j.multiplier * x.get(j.coordinate).copied().unwrap_or(0.0);
                value + if offsets { j.offset } else { 0.0 }
            })
            .collect()
    };
    let tau = if env.tau.is_empty() {
        Vec::new()
    } else {
        // A joint's force input is read at the coordinates' own joints alone.
        module
            .joint_inputs
            .iter()
            .map(|j| env.tau[j.coordinate])
            .collect()
    };
    Env {
        q: spread(&env.q, true),
        qd: spread(&env.qd, false),
        qdd: spread(&env.qdd, false),
        tau,
        ..env.clone()
    }
}

/// `a` as the glue passes it to `kind`: a function of the joint forces reads them from the
/// joint accelerations' place (after the base's acceleration).
fn accelerations_for(kind: FunctionKind, a: &[f64], st: &Value) -> Vec<f64> {
    match kind {
        FunctionKind::ContactForwardDynamics => {
            let tau = numbers(&st["tau"]);
            a[..6].iter().chain(&tau).copied().collect()
        }
        _ => a.to_vec(),
    }
}

const MOTIONS: [BaseMotion; 2] = [BaseMotion::Prescribed, BaseMotion::Translating];

#[test]
fn every_function_on_request_exists() {
    let mut with_contacts = 0;
    for fixture in fixtures() {
        for motion in MOTIONS {
            let robot = robot_of(&fixture, motion);
            let kinds = on_request(&robot);
            let frames = robot.frames.len();
            let contacts = if robot.contacts.is_empty() {
                0
            } else {
                with_contacts += 1;
                2
            };
            // The static reactions; six centroidal, Coriolis matrix, inverse, wrenches, two
            // energies, three per frame, and the two contact functions.
            assert_eq!(
                kinds.len(),
                12 + 3 * frames + contacts,
                "{motion:?}: {kinds:?}"
            );
        }
    }
    assert!(with_contacts >= 4, "{with_contacts} robots with contacts");
}

#[test]
fn the_graph_matches_pinocchio() {
    let mut checked = 0;
    for fixture in fixtures() {
        let name = fixture["name"].as_str().expect("name");
        for motion in MOTIONS {
            let robot = robot_of(&fixture, motion);
            let module = build_module_only(&robot, Some(&on_request(&robot)));
            for (s, st) in fixture["states"]
                .as_array()
                .expect("states")
                .iter()
                .enumerate()
            {
                let Some(state) = state(st, motion) else {
                    continue;
                };
                let env = env_of(&state, st);
                for f in &module.functions {
                    let fname = module.function_name(f.kind).expect("named");
                    let what = format!("{name} {motion:?} state {s} {fname}");
                    let got = graph_outputs(&module, f, &every_joint(&module, &env));
                    assert_close(&what, &got, &expected(&fname, st), REL);
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 100, "{checked} values checked");
}

#[test]
fn generated_rust_and_c_match_pinocchio() {
    let fixtures = fixtures();
    assert_eq!(
        PRESCRIBED.len(),
        2 * fixtures.len(),
        "every fixture generated twice"
    );
    for robot in PRESCRIBED {
        let (name, tag) = robot.fixture.split_once('/').expect("FIXTURE/MOTION");
        let motion = match tag {
            "prescribed" => BaseMotion::Prescribed,
            "translating" => BaseMotion::Translating,
            other => panic!("{other}"),
        };
        let fixture = fixtures
            .iter()
            .find(|f| f["name"] == name)
            .expect("registered from the fixtures");
        for (s, st) in fixture["states"]
            .as_array()
            .expect("states")
            .iter()
            .enumerate()
        {
            let Some([q, v, a]) = state(st, motion) else {
                continue;
            };
            for &(kind, fname) in robot.kinds {
                let want = expected(fname, st);
                let what = |lang: &str| format!("{} state {s} {fname} ({lang})", robot.fixture);
                let a = accelerations_for(kind, &a, st);
                assert_close(&what("Rust"), &(robot.rust)(kind, &q, &v, &a), &want, REL);
                assert_close(&what("C"), &(robot.c)(kind, &q, &v, &a), &want, REL);
            }
        }
    }
}

fn eval(module: &Module, kind: FunctionKind, env: &Env) -> Vec<f64> {
    let f = module
        .functions
        .iter()
        .find(|f| f.kind == kind)
        .unwrap_or_else(|| panic!("{kind:?} generated"));
    graph_outputs(module, f, &every_joint(module, env))
}

/// From the generated functions alone: with the base at rest, `C qd + gravity` is the
/// nonlinear effects; the gravity torques are `dV/dq` (central differences); without the
/// base's velocity the kinetic energy is `1/2 qd^T M qd`; a frame's velocity is its Jacobian
/// times `qd`, the linear momentum the robot's mass times `Jc qd`, at rest the joint
/// wrenches' rows as long as the static reactions', and the contact forces balance the
/// joints' dynamics at the base's motion.
#[test]
fn identities_with_the_default_functions() {
    for fixture in fixtures() {
        let name = fixture["name"].as_str().expect("name");
        let robot = robot_of(&fixture, BaseMotion::Prescribed);
        // The independent coordinates (the inputs' joints).
        let n = robot.coordinate_joints().len();
        let mut kinds = on_request(&robot);
        kinds.extend([
            FunctionKind::Gravity,
            FunctionKind::NonlinearEffects,
            FunctionKind::MassMatrix,
        ]);
        kinds.extend(
            every_function_of(&robot)
                .into_iter()
                .filter(|k| matches!(k, FunctionKind::FrameJacobian(_))),
        );
        kinds.sort();
        let module = build_module_only(&robot, Some(&kinds));
        for (s, st) in fixture["states"]
            .as_array()
            .expect("states")
            .iter()
            .enumerate()
        {
            let what = |f: &str| format!("{name} state {s}: {f}");
            let mut env = env_of(&state(st, BaseMotion::Prescribed).expect("a state"), st);
            let qd = env.qd.clone();
            let g = eval(&module, FunctionKind::Gravity, &env);

            let mv = |m: &[f64], x: &[f64], rows: usize| -> Vec<f64> {
                (0..rows)
                    .map(|i| (0..x.len()).map(|j| m[i * x.len() + j] * x[j]).sum())
                    .collect()
            };
            let c = eval(&module, FunctionKind::CoriolisMatrix, &env);
            let jc = eval(&module, FunctionKind::CenterOfMassJacobian, &env);
            let want_c_dot = mv(&jc, &qd, 3);
            let mut at_rest = env.clone();
            at_rest.base[7..].fill(0.0);
            let h = eval(&module, FunctionKind::NonlinearEffects, &at_rest);
            let cqd_g: Vec<f64> = mv(&c, &qd, n).iter().zip(&g).map(|(a, b)| a + b).collect();
            assert_close(&what("C qd + g = h at rest"), &cqd_g, &h, REL);

            let m = eval(&module, FunctionKind::MassMatrix, &env);
            let mut still = env.clone();
            still.base[7..13].fill(0.0);
            let t = eval(&module, FunctionKind::KineticEnergy, &still);
            let half: f64 = 0.5
                * qd.iter()
                    .zip(mv(&m, &qd, n))
                    .map(|(a, b)| a * b)
                    .sum::<f64>();
            assert_close(&what("T = 1/2 qd^T M qd"), &t, &[half], REL);

            let step = 1e-6;
            let dv: Vec<f64> = (0..n)
                .map(|j| {
                    let q0 = env.q[j];
                    env.q[j] = q0 + step;
                    let up = eval(&module, FunctionKind::PotentialEnergy, &env)[0];
                    env.q[j] = q0 - step;
                    let down = eval(&module, FunctionKind::PotentialEnergy, &env)[0];
                    env.q[j] = q0;
                    (up - down) / (2.0 * step)
                })
                .collect();
            assert_close(&what("dV/dq = g"), &dv, &g, 1e-6);

            let momentum = eval(&module, FunctionKind::CentroidalMomentum, &env);
            let mass: f64 = robot.bodies.iter().map(|b| b.mass).sum();
            let want_momentum: Vec<f64> = want_c_dot.iter().map(|x| mass * x).collect();
            assert_close(
                &what("linear momentum = m Jc qd"),
                &momentum[..3],
                &want_momentum,
                REL,
            );
            // At rest the joint wrenches are the static reactions in other axes: row lengths.
            let mut rest = env.clone();
            rest.base[7..].fill(0.0);
            rest.qd.fill(0.0);
            rest.qdd.fill(0.0);
            let wrenches = eval(&module, FunctionKind::JointWrenches, &rest);
            let reactions = eval(&module, FunctionKind::StaticJointReactions, &rest);
            let lengths = |v: &[f64]| -> Vec<f64> {
                v.chunks(3)
                    .map(|r| r.iter().map(|x| x * x).sum::<f64>().sqrt())
                    .collect()
            };
            assert_close(
                &what("joint wrenches at rest = static reactions"),
                &lengths(&wrenches),
                &lengths(&reactions),
                REL,
            );
            for k in 0..u16::try_from(robot.frames.len()).expect("few frames") {
                let j = eval(&module, FunctionKind::FrameJacobian(k), &env);
                let vel = eval(&module, FunctionKind::FrameVelocity(k), &env);
                assert_close(&what("frame velocity = J qd"), &vel, &mv(&j, &qd, 6), REL);
            }
            if !robot.contacts.is_empty() {
                // The contact forces balance the joints' dynamics at the base's motion.
                let held = eval(&module, FunctionKind::ContactForwardDynamics, &env);
                let (qdd, lambda) = held.split_at(n);
                let jc = eval(&module, FunctionKind::ContactJacobian, &env);
                let h = eval(&module, FunctionKind::NonlinearEffects, &env);
                let lhs: Vec<f64> = mv(&m, qdd, n).iter().zip(&h).map(|(a, b)| a + b).collect();
                let rhs: Vec<f64> = (0..n)
                    .map(|j| {
                        let jt: f64 = (0..lambda.len()).map(|i| jc[i * n + j] * lambda[i]).sum();
                        env.tau[j] + jt
                    })
                    .collect();
                assert_close(&what("M qdd + h = tau + Jc^T lambda"), &lhs, &rhs, REL);
            }
        }
    }
}

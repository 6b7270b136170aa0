//! The contact functions against Pinocchio (`tests/fixtures/contacts/`, written by
//! tools/contact_reference.py from `constraintDynamics`): point contacts on the floating and
//! the fixed quadruped, a 6d contact on the UR5's flange and two 6d feet of a 30-joint floating
//! humanoid, at 1e-9 relative, on the generator's expression graph and through the generated
//! C and Rust, and through the batched Rust (the batched C: codegen/tests/contacts_batch.rs);
//! and the two equations they solve, `M a + h = tau + Jc^T lambda` and `Jc a + gamma = 0`, at
//! the returned values.

mod common;

use common::{fixture_robot, fixture_values, graph_outputs, numbers};
use quasidyn_codegen::import::ImportOptions;
use quasidyn_codegen::ir::Env;
use quasidyn_codegen::{build_module_only, FunctionKind, Module, Robot};
use quasidyn_tests::generated::{CONTACTS, CONTACTS_BATCHED};
use quasidyn_tests::{assert_close, State};
use serde_json::Value;

const REL: f64 = 1e-9;

struct Fixture {
    name: String,
    input: String,
    floating: bool,
    nv: usize,
    nc: usize,
    /// The contacts given besides the input's own, as `--contact` takes them.
    contacts: Vec<String>,
    states: Vec<Value>,
}

fn fixtures() -> Vec<Fixture> {
    fixture_values("contacts", "contact_reference.py")
        .iter()
        .map(|v| {
            let size = |key: &str| {
                usize::try_from(v[key].as_u64().expect("a size")).expect("a small size")
            };
            Fixture {
                name: v["name"].as_str().expect("name").to_owned(),
                input: v["input"].as_str().expect("input").to_owned(),
                floating: v["floating_base"].as_bool().expect("floating_base"),
                nv: size("nv"),
                nc: size("nc"),
                contacts: v["contacts"]
                    .as_array()
                    .expect("contacts")
                    .iter()
                    .map(|c| c.as_str().expect("a contact").to_owned())
                    .collect(),
                states: v["states"].as_array().expect("states").clone(),
            }
        })
        .collect()
}

fn robot_of(f: &Fixture) -> Robot {
    let options = ImportOptions {
        contacts: f.contacts.clone(),
        ..ImportOptions::default()
    };
    fixture_robot(&f.input, &options)
}

/// The contact functions, the mass matrix and nonlinear effects, and the contact frames'
/// velocity and acceleration bias.
fn kinds_of(robot: &Robot) -> Vec<FunctionKind> {
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

/// The graph's inputs for a state: a floating base's pose, velocity and wrench go to `base`.
fn env_of(f: &Fixture, st: &Value) -> Env {
    let (q, v, tau) = (numbers(&st["q"]), numbers(&st["v"]), numbers(&st["tau"]));
    if f.floating {
        let mut base: Vec<f64> = q[..7].iter().chain(&v[..6]).copied().collect();
        base.extend([0.0; 6]);
        base.extend(&tau[..6]);
        Env {
            q: q[7..].to_vec(),
            qd: v[6..].to_vec(),
            tau: tau[6..].to_vec(),
            base,
            ..Env::default()
        }
    } else {
        Env {
            q,
            qd: v,
            tau,
            ..Env::default()
        }
    }
}

/// `a` and `lambda` of a fixture state (or of a call's flattened outputs) apart, each checked
/// at its own scale.
fn close_dynamics(what: &str, got: &[f64], want: &[f64], nv: usize) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    assert_close(&format!("{what}: a"), &got[..nv], &want[..nv], REL);
    assert_close(&format!("{what}: lambda"), &got[nv..], &want[nv..], REL);
}

#[test]
fn the_fixtures_cover_point_and_6d_contacts_on_fixed_and_floating_bases() {
    let fixtures = fixtures();
    for want in [
        "quadruped_floating",
        "quadruped_fixed",
        "ur5_flange",
        "humanoid30",
    ] {
        assert!(fixtures.iter().any(|f| f.name == want), "{want}");
    }
    for f in &fixtures {
        let robot = robot_of(f);
        assert_eq!(robot.contact_rows(), f.nc, "{}: NC", f.name);
        assert_eq!(robot.is_floating(), f.floating, "{}", f.name);
        let kinds: Vec<FunctionKind> = quasidyn_codegen::every_function_of(&robot)
            .into_iter()
            .filter(|k| k.entry().group == quasidyn_codegen::functions::Group::Contacts)
            .collect();
        assert_eq!(kinds, FunctionKind::CONTACTS, "{}", f.name);
    }
}

#[test]
fn the_graph_matches_pinocchio() {
    for f in fixtures() {
        let robot = robot_of(&f);
        let module = build_module_only(&robot, Some(&kinds_of(&robot)));
        let eval = |module: &Module, kind: FunctionKind, env: &Env| {
            graph_outputs(module, module.function(kind).expect("generated"), env)
        };
        for (s, st) in f.states.iter().enumerate() {
            let env = env_of(&f, st);
            let what = format!("{} state {s}", f.name);
            assert_close(
                &format!("{what} contact_jacobian"),
                &eval(&module, FunctionKind::ContactJacobian, &env),
                &numbers(&st["contact_jacobian"]),
                REL,
            );
            close_dynamics(
                &format!("{what} contact_forward_dynamics"),
                &eval(&module, FunctionKind::ContactForwardDynamics, &env),
                &numbers(&st["contact_forward_dynamics"]),
                f.nv,
            );
        }
    }
}

#[test]
fn generated_rust_and_c_match_pinocchio_and_solve_both_equations() {
    let fixtures = fixtures();
    assert_eq!(CONTACTS.len(), fixtures.len(), "every fixture generated");
    for robot in CONTACTS {
        let f = fixtures
            .iter()
            .find(|f| f.name == robot.fixture)
            .expect("registered from the fixtures");
        let contacts = robot_of(f).contacts;
        let (nv, nc) = (f.nv, f.nc);
        for (s, st) in f.states.iter().enumerate() {
            let (q, v, tau) = (numbers(&st["q"]), numbers(&st["v"]), numbers(&st["tau"]));
            let name_of = |kind: FunctionKind| {
                robot
                    .kinds
                    .iter()
                    .find(|(k, _)| *k == kind)
                    .map(|(_, n)| *n)
                    .expect("generated")
            };
            for (lang, call) in [("Rust", robot.rust), ("C", robot.c)] {
                let what = format!("{} state {s} ({lang})", f.name);
                let jc = call(FunctionKind::ContactJacobian, &q, &v, &tau);
                assert_close(
                    &format!("{what} {}", name_of(FunctionKind::ContactJacobian)),
                    &jc,
                    &numbers(&st["contact_jacobian"]),
                    REL,
                );
                let out = call(FunctionKind::ContactForwardDynamics, &q, &v, &tau);
                close_dynamics(
                    &format!("{what} contact_forward_dynamics"),
                    &out,
                    &numbers(&st["contact_forward_dynamics"]),
                    nv,
                );
                let (a, lambda) = out.split_at(nv);
                // M a + h - tau - Jc^T lambda = 0, relative to the largest of the terms.
                let m = call(FunctionKind::MassMatrix, &q, &v, &tau);
                let h = call(FunctionKind::NonlinearEffects, &q, &v, &tau);
                let mut scale = 1.0_f64;
                let residual: Vec<f64> = (0..nv)
                    .map(|i| {
                        let ma: f64 = (0..nv).map(|j| m[i * nv + j] * a[j]).sum();
                        let jl: f64 = (0..nc).map(|r| jc[r * nv + i] * lambda[r]).sum();
                        scale = scale.max(ma.abs()).max(h[i].abs()).max(jl.abs());
                        ma + h[i] - tau[i] - jl
                    })
                    .collect();
                assert_close(
                    &format!("{what}: M a + h - tau - Jc^T lambda"),
                    &residual,
                    &vec![0.0; nv],
                    REL * scale,
                );
                // Jc a + gamma = 0, gamma from the frames' velocity and acceleration bias.
                let mut gamma = Vec::with_capacity(nc);
                for c in &contacts {
                    let k = u16::try_from(c.frame).expect("a few frames");
                    let vel = call(FunctionKind::FrameVelocity(k), &q, &v, &tau);
                    let acc = call(FunctionKind::FrameAccelerationBias(k), &q, &v, &tau);
                    if c.kind.rows() == 3 {
                        gamma.extend(&acc[..3]);
                    } else {
                        // The spatial acceleration: the classical one less w x v.
                        let (p, w) = (&vel[..3], &vel[3..]);
                        let wxv = [
                            w[1] * p[2] - w[2] * p[1],
                            w[2] * p[0] - w[0] * p[2],
                            w[0] * p[1] - w[1] * p[0],
                        ];
                        gamma.extend((0..3).map(|r| acc[r] - wxv[r]));
                        gamma.extend(&acc[3..]);
                    }
                }
                let mut scale = 1.0_f64;
                let constraint: Vec<f64> = (0..nc)
                    .map(|r| {
                        let ja: f64 = (0..nv).map(|j| jc[r * nv + j] * a[j]).sum();
                        scale = scale.max(ja.abs()).max(gamma[r].abs());
                        ja + gamma[r]
                    })
                    .collect();
                assert_close(
                    &format!("{what}: Jc a + gamma"),
                    &constraint,
                    &vec![0.0; nc],
                    REL * scale,
                );
            }
        }
    }
}

#[test]
fn batched_rust_matches_pinocchio() {
    let fixtures = fixtures();
    assert_eq!(
        CONTACTS_BATCHED.len(),
        fixtures.len(),
        "every fixture batched"
    );
    for robot in CONTACTS_BATCHED {
        let f = fixtures
            .iter()
            .find(|f| f.name == robot.fixture)
            .expect("registered from the fixtures");
        // Slot k of batch b holds state (b B + k) mod S: the last batch repeats the first states.
        let slot = |b: usize, k: usize| (b * robot.batch + k) % f.states.len();
        for b in 0..f.states.len().div_ceil(robot.batch) {
            let states: Vec<State> = (0..robot.batch)
                .map(|k| {
                    let st = &f.states[slot(b, k)];
                    State {
                        q: numbers(&st["q"]),
                        qd: numbers(&st["v"]),
                        qdd: Vec::new(),
                        tau: numbers(&st["tau"]),
                    }
                })
                .collect();
            let jc = (robot.rust)(FunctionKind::ContactJacobian, &states);
            let dynamics = (robot.rust)(FunctionKind::ContactForwardDynamics, &states);
            assert_eq!((jc.len(), dynamics.len()), (robot.batch, robot.batch));
            for k in 0..robot.batch {
                let s = slot(b, k);
                let st = &f.states[s];
                let what = format!("{} state {s} (batch {b}, slot {k}, batched Rust)", f.name);
                assert_close(
                    &format!("{what} contact_jacobian_batch"),
                    &jc[k],
                    &numbers(&st["contact_jacobian"]),
                    REL,
                );
                close_dynamics(
                    &format!("{what} contact_forward_dynamics_batch"),
                    &dynamics[k],
                    &numbers(&st["contact_forward_dynamics"]),
                    f.nv,
                );
            }
        }
    }
}

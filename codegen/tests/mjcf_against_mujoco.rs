//! Every model in tests/fixtures/mjcf/ (synthetic models, dm_control suite models and MuJoCo
//! Menagerie models) imported, its functions built and evaluated (the expression graph, not
//! compiled code) at the states `tools/mjcf_reference.py` computed with MuJoCo 4, at 1e-9
//! relative: the dynamics and frames, a fixed base's static joint reactions, and where the
//! fixture has them the derivatives along MuJoCo's tangent, the functions on request and the
//! contact dynamics.

mod fixture_data;

use fixture_data::{assert_close, env, eval, fixture, fixture_dir, fixture_locks, numbers};
use quasidyn_codegen::import::ImportOptions;
use quasidyn_codegen::ir::Env;
use quasidyn_codegen::{build_module_only, load_input_with, FunctionKind, Module};
use serde_json::Value;

const MODELS: [&str; 28] = [
    "synthetic_degree",
    "synthetic_radian",
    "synthetic_flags",
    "acrobot",
    "cartpole",
    "reacher",
    "finger",
    "kinova_gen3",
    "pendulum",
    "point_mass",
    "ball_in_cup",
    "swimmer",
    "manipulator",
    "stacker",
    "synthetic_armature",
    "synthetic_free",
    "humanoid",
    "cheetah",
    "hopper",
    "walker",
    "fish",
    "quadruped",
    "unitree_go2",
    "unitree_h1",
    "leap_hand",
    "synthetic_degree_locked",
    "synthetic_armature_locked",
    "humanoid_locked",
];

#[test]
fn every_function_matches_mujoco() {
    check_models(false);
}

/// Snapping (on by default) moves values by far less than the agreement asked for.
#[test]
fn snapped_imports_still_match_mujoco() {
    check_models(true);
}

fn check_models(snap: bool) {
    for name in MODELS {
        let fixture = fixture(name);
        let frame_bodies = fixture["frame_bodies"].as_array().unwrap();
        let options = ImportOptions {
            snap,
            frames: frame_bodies
                .iter()
                .map(|v| v.as_str().unwrap().to_owned())
                .collect(),
            root: fixture["root"].as_str().map(str::to_owned),
            locks: fixture_locks(&fixture),
            ..ImportOptions::default()
        };
        let file = fixture["file"]
            .as_str()
            .map_or_else(|| format!("{name}.xml"), str::to_owned);
        let path = fixture_dir().join(file);
        let robot = load_input_with(&path, &options)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .robot;
        let nv = robot.dof() + if robot.is_floating() { 6 } else { 0 };
        assert_eq!(nv, fixture["dof"].as_u64().unwrap() as usize, "{name}");
        let joints: Vec<String> = robot.bodies.iter().map(|b| b.joint_name.clone()).collect();
        // A free joint is the floating base, not one of the method's joints.
        let free: Vec<u64> = fixture["free_joints"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(robot.is_floating(), !free.is_empty(), "{name}: floating");
        assert_eq!(
            robot.is_mujoco_floating(),
            !free.is_empty(),
            "{name}: layout"
        );
        // With a root, the joints of its tree alone.
        let kept: Vec<u64> = fixture["kept_joints"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        let expected_joints: Vec<String> = fixture["joints"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .filter(|(j, _)| kept.contains(&(*j as u64)) && !free.contains(&(*j as u64)))
            .map(|(j, v)| v.as_str().map_or(format!("joint{j}"), str::to_owned))
            .collect();
        assert_eq!(joints, expected_joints, "{name}: joints in MuJoCo's order");
        let frames: Vec<&str> = robot.frames.iter().map(|f| f.name.as_str()).collect();
        let expected_frames: Vec<&str> = fixture["frames"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(frames, expected_frames, "{name}: frames");

        let mut kinds = vec![
            FunctionKind::InverseDynamics,
            FunctionKind::Gravity,
            FunctionKind::NonlinearEffects,
            FunctionKind::MassMatrix,
            FunctionKind::ForwardDynamics,
        ];
        for k in 0..frames.len() {
            let k = u16::try_from(k).unwrap();
            kinds.extend([
                FunctionKind::FrameKinematics(k),
                FunctionKind::FrameJacobian(k),
            ]);
        }
        // The joints' springs and dampers, where the fixture has MuJoCo's (no tendon adds to
        // them) and the model has any.
        let passive = robot.has_passive_joints();
        if passive {
            kinds.push(FunctionKind::PassiveForces);
        }
        // The derivatives, where the fixture has MuJoCo's (its first states).
        let states = fixture["states"].as_array().unwrap();
        let derivatives = states[0].get("derivatives").is_some();
        if derivatives {
            kinds.extend(FunctionKind::DERIVATIVES);
        }
        // The static joint reactions, where the fixture has MuJoCo's (the fixed bases).
        let reactions = states[0].get("static_joint_reactions").is_some();
        if reactions {
            kinds.push(FunctionKind::StaticJointReactions);
        }
        // The functions on request, where the fixture has MuJoCo's.
        if states[0].get("whole_body").is_some() {
            kinds.extend(FunctionKind::CENTROIDAL);
            kinds.extend([
                FunctionKind::MassMatrixInverse,
                FunctionKind::JointWrenches,
                FunctionKind::KineticEnergy,
                FunctionKind::PotentialEnergy,
            ]);
            for k in 0..frames.len() {
                let k = u16::try_from(k).unwrap();
                kinds.extend(FunctionKind::FRAME_MOTION.map(|kind| kind.for_frame(k)));
            }
        }
        let module = build_module_only(&robot, Some(&kinds));
        for (s, state) in fixture["states"].as_array().unwrap().iter().enumerate() {
            let what = |f: &str| format!("{name} state {s} {f}");
            let floating = robot.is_floating();
            let mut env = env(
                floating,
                &numbers(&state["q"]),
                &numbers(&state["qd"]),
                &numbers(&state["qdd"]),
                &numbers(&state["tau_fd"]),
            );
            let one = |kind, env: &Env| eval(&module, kind, env).remove(0);
            let pairs = [
                (FunctionKind::InverseDynamics, "tau"),
                (FunctionKind::Gravity, "gravity"),
                (FunctionKind::NonlinearEffects, "nonlinear_effects"),
                (FunctionKind::MassMatrix, "mass_matrix"),
                (FunctionKind::ForwardDynamics, "qdd_fd"),
            ];
            for (kind, key) in pairs {
                assert_close(&what(key), &one(kind, &env), &numbers(&state[key]));
            }
            match (&state.get("passive_forces"), passive) {
                (Some(expected), true) => assert_close(
                    &what("passive_forces"),
                    &one(FunctionKind::PassiveForces, &env),
                    &numbers(expected),
                ),
                (Some(expected), false) => {
                    assert!(numbers(expected).iter().all(|&f| f == 0.0), "{name}")
                }
                (None, _) => {}
            }
            for (k, frame) in state["frames"].as_array().unwrap().iter().enumerate() {
                let kk = u16::try_from(k).unwrap();
                let fk = eval(&module, FunctionKind::FrameKinematics(kk), &env);
                let label = frame["name"].as_str().unwrap();
                assert_close(
                    &what(&format!("{label} R")),
                    &fk[0],
                    &numbers(&frame["rotation"]),
                );
                assert_close(
                    &what(&format!("{label} p")),
                    &fk[1],
                    &numbers(&frame["position"]),
                );
                let jac = one(FunctionKind::FrameJacobian(kk), &env);
                assert_close(
                    &what(&format!("{label} J")),
                    &jac,
                    &numbers(&frame["jacobian"]),
                );
            }
            if let Some(expected) = state.get("static_joint_reactions") {
                let got = eval(&module, FunctionKind::StaticJointReactions, &env);
                let expected = expected.as_array().unwrap();
                for ((got, expected), key) in got.iter().zip(expected).zip(["F", "T"]) {
                    let key = format!("static_joint_reactions {key}");
                    assert_close(&what(&key), got, &numbers(expected));
                }
            }
            if let Some(expected) = state.get("derivatives") {
                check_derivatives(&module, &what, &env, expected);
            }
            if let Some(expected) = state.get("whole_body") {
                check_whole_body(&module, &what, &env, expected);
            }
            // Forward dynamics driven by the inverse-dynamics torque gives back qacc.
            let tau = numbers(&state["tau"]);
            env = self::env(
                floating,
                &numbers(&state["q"]),
                &numbers(&state["qd"]),
                &numbers(&state["qdd"]),
                &tau,
            );
            assert_close(
                &what("qdd from tau"),
                &one(FunctionKind::ForwardDynamics, &env),
                &numbers(&state["qdd"]),
            );
        }
    }
}

/// The three derivative functions at the state of `env` (its `tau` is the fixture's `tau_fd`)
/// against MuJoCo's functions differentiated along its own tangent (`expected`).
fn check_derivatives(module: &Module, what: &dyn Fn(&str) -> String, env: &Env, expected: &Value) {
    let id = eval(module, FunctionKind::InverseDynamicsDerivatives, env);
    let gravity = eval(module, FunctionKind::GravityDerivatives, env);
    let fd = eval(module, FunctionKind::ForwardDynamicsDerivatives, env);
    for (actual, key) in [
        (&id[0], "dtau_dq"),
        (&id[1], "dtau_dqd"),
        (&gravity[0], "dg_dq"),
        (&fd[0], "dqdd_dq"),
        (&fd[1], "dqdd_dqd"),
        (&fd[2], "minv"),
    ] {
        assert_close(&what(key), actual, &numbers(&expected[key]));
    }
}

/// The functions on request at the state of `env` against MuJoCo's (`expected`, see
/// tools/mjcf_reference.py `whole_body`).
fn check_whole_body(module: &Module, what: &dyn Fn(&str) -> String, env: &Env, expected: &Value) {
    let pairs = [
        (FunctionKind::CenterOfMass, "center_of_mass"),
        (
            FunctionKind::CenterOfMassJacobian,
            "center_of_mass_jacobian",
        ),
        (
            FunctionKind::CenterOfMassAccelerationBias,
            "center_of_mass_acceleration_bias",
        ),
        (
            FunctionKind::CentroidalMomentumMatrix,
            "centroidal_momentum_matrix",
        ),
        (FunctionKind::CentroidalMomentum, "centroidal_momentum"),
        (
            FunctionKind::CentroidalMomentumBias,
            "centroidal_momentum_bias",
        ),
        (FunctionKind::MassMatrixInverse, "mass_matrix_inverse"),
        (FunctionKind::KineticEnergy, "kinetic_energy"),
        (FunctionKind::PotentialEnergy, "potential_energy"),
    ];
    for (kind, key) in pairs {
        let got = eval(module, kind, env).remove(0);
        assert_close(&what(key), &got, &numbers(&expected[key]));
    }
    let wrenches = eval(module, FunctionKind::JointWrenches, env);
    for (got, key) in wrenches.iter().zip(["joint_forces", "joint_moments"]) {
        assert_close(&what(key), got, &numbers(&expected[key]));
    }
    for (k, frame) in expected["frames"].as_array().unwrap().iter().enumerate() {
        let k = u16::try_from(k).unwrap();
        let label = frame["name"].as_str().unwrap();
        for (kind, key) in [
            (FunctionKind::FrameVelocity(k), "velocity"),
            (FunctionKind::FrameAccelerationBias(k), "acceleration_bias"),
            (FunctionKind::JacobianDerivative(k), "jacobian_derivative"),
        ] {
            let got = eval(module, kind, env).remove(0);
            assert_close(
                &what(&format!("{label} {key}")),
                &got,
                &numbers(&frame[key]),
            );
        }
    }
}

/// `A x = b` by Gaussian elimination with partial pivoting (`A` row-major, `n×n`).
fn solve_dense(mut a: Vec<f64>, mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    for col in 0..n {
        let pivot = (col..n)
            .max_by(|&i, &j| a[i * n + col].abs().total_cmp(&a[j * n + col].abs()))
            .unwrap();
        for k in 0..n {
            a.swap(col * n + k, pivot * n + k);
        }
        b.swap(col, pivot);
        for row in col + 1..n {
            let f = a[row * n + col] / a[col * n + col];
            for k in col..n {
                a[row * n + k] -= f * a[col * n + k];
            }
            b[row] -= f * b[col];
        }
    }
    for row in (0..n).rev() {
        let tail: f64 = (row + 1..n).map(|k| a[row * n + k] * b[k]).sum();
        b[row] = (b[row] - tail) / a[row * n + row];
    }
    b
}

/// The contact Jacobian and the contact forward dynamics of free models in MuJoCo's layout
/// (a point contact and a 6d one) against MuJoCo's own numbers: `Jc` from `mj_jacSite`, and
/// `[M -Jcᵀ; Jc 0] [qacc; λ] = [tau − qfrc_bias; −γ]` solved here from MuJoCo's `mj_fullM`,
/// `qfrc_bias` and the sites' accelerations at `qacc = 0` (the fixture's).
#[test]
fn contact_dynamics_in_mujocos_layout_match_mujoco() {
    for (name, point, six) in [
        ("humanoid", "right_right_foot", "left_hand"),
        ("synthetic_free", "foot", "hand"),
    ] {
        let fixture = fixture(name);
        let options = ImportOptions {
            contacts: vec![point.to_owned(), format!("{six}:6d")],
            ..ImportOptions::default()
        };
        let robot = load_input_with(&fixture_dir().join(format!("{name}.xml")), &options)
            .unwrap()
            .robot;
        assert!(robot.is_mujoco_floating(), "{name}");
        let kinds = [
            FunctionKind::ContactJacobian,
            FunctionKind::ContactForwardDynamics,
        ];
        let module = build_module_only(&robot, Some(&kinds));
        let frames = fixture["frames"].as_array().unwrap();
        let index = |frame: &str| frames.iter().position(|f| f == frame).unwrap();
        let mut checked = 0;
        for (s, state) in fixture["states"].as_array().unwrap().iter().enumerate() {
            let Some(motion) = state.get("whole_body") else {
                continue;
            };
            let what = |f: &str| format!("{name} state {s} {f}");
            let nv = numbers(&state["qd"]).len();
            // The contacts' rows of Jc and γ (a 6d contact's linear rows are spatial: less ω × v).
            let (mut jc, mut gamma) = (Vec::new(), Vec::new());
            for (frame, rows) in [(point, 3), (six, 6)] {
                let k = index(frame);
                let jac = numbers(&state["frames"][k]["jacobian"]);
                jc.extend_from_slice(&jac[..rows * nv]);
                let bias = numbers(&motion["frames"][k]["acceleration_bias"]);
                let vel = numbers(&motion["frames"][k]["velocity"]);
                for (r, linear) in bias[..3].iter().enumerate() {
                    let (i, j) = ((r + 1) % 3, (r + 2) % 3);
                    let wxv = vel[3 + i] * vel[j] - vel[3 + j] * vel[i];
                    gamma.push(if rows == 6 { linear - wxv } else { *linear });
                }
                if rows == 6 {
                    gamma.extend_from_slice(&bias[3..]);
                }
            }
            let nc = gamma.len();
            let size = nv + nc;
            let mass = numbers(&state["mass_matrix"]);
            let mut kkt = vec![0.0; size * size];
            for r in 0..nv {
                for c in 0..nv {
                    kkt[r * size + c] = mass[r * nv + c];
                }
            }
            for r in 0..nc {
                for c in 0..nv {
                    kkt[c * size + nv + r] = -jc[r * nv + c];
                    kkt[(nv + r) * size + c] = jc[r * nv + c];
                }
            }
            let tau = numbers(&state["tau_fd"]);
            let bias = numbers(&state["nonlinear_effects"]);
            let mut rhs: Vec<f64> = tau.iter().zip(&bias).map(|(t, h)| t - h).collect();
            rhs.extend(gamma.iter().map(|g| -g));
            let expected = solve_dense(kkt, rhs);
            let env = env(
                true,
                &numbers(&state["q"]),
                &numbers(&state["qd"]),
                &numbers(&state["qdd"]),
                &tau,
            );
            let got = eval(&module, FunctionKind::ContactJacobian, &env).remove(0);
            assert_close(&what("contact_jacobian"), &got, &jc);
            let got = eval(&module, FunctionKind::ContactForwardDynamics, &env);
            assert_close(&what("contact qacc"), &got[0], &expected[..nv]);
            assert_close(&what("contact forces"), &got[1], &expected[nv..]);
            checked += 1;
        }
        assert_eq!(checked, 3, "{name}: the states with MuJoCo's motion");
    }
}

/// The value of the module's constant `name`.
fn constant(module: &Module, name: &str) -> Vec<f64> {
    let c = module.constants.iter().find(|c| c.name == name);
    c.unwrap_or_else(|| panic!("constant {name}"))
        .values
        .clone()
}

/// The regressor and the base regressor of a free model without armature in MuJoCo's layout,
/// and of a fixed-base one: `Y π` and `Yb πb` with the standard and base parameters are
/// MuJoCo's `M qacc + qfrc_bias` at every state of the fixture.
#[test]
fn regressors_give_mujocos_inverse_dynamics() {
    for name in ["fish", "acrobot"] {
        let fixture = fixture(name);
        let path = fixture_dir().join(format!("{name}.xml"));
        let robot = load_input_with(&path, &ImportOptions::default())
            .unwrap()
            .robot;
        assert!(!robot.has_armature(), "{name}");
        assert_eq!(robot.is_mujoco_floating(), name == "fish", "{name}: layout");
        let kinds = [FunctionKind::Regressor, FunctionKind::BaseRegressor];
        let module = build_module_only(&robot, Some(&kinds));
        let pi = constant(&module, "standard_parameters");
        let pi_b = constant(&module, "base_parameters");
        let states = fixture["states"].as_array().unwrap();
        for (s, state) in states.iter().enumerate() {
            let env = env(
                robot.is_floating(),
                &numbers(&state["q"]),
                &numbers(&state["qd"]),
                &numbers(&state["qdd"]),
                &numbers(&state["tau_fd"]),
            );
            let tau = numbers(&state["tau"]);
            for (kind, params) in [
                (FunctionKind::Regressor, &pi),
                (FunctionKind::BaseRegressor, &pi_b),
            ] {
                let y = eval(&module, kind, &env).remove(0);
                assert_eq!(y.len(), tau.len() * params.len(), "{name}");
                let product: Vec<f64> = y
                    .chunks(params.len())
                    .map(|row| row.iter().zip(params).map(|(a, b)| a * b).sum())
                    .collect();
                assert_close(&format!("{name} state {s} {kind:?}"), &product, &tau);
            }
        }
    }
}

/// The Coriolis matrix (not unique) by what it is for, against MuJoCo: `C qvel + qfrc_bias` at
/// rest is `qfrc_bias`, and `M' − 2C` is skew with `M'` MuJoCo's `mj_fullM` differentiated
/// along its motion at `qacc = 0`; for free models in MuJoCo's layout and fixed ones.
#[test]
fn the_coriolis_matrix_gives_mujocos_bias_and_a_skew_rate() {
    for name in ["synthetic_free", "humanoid", "unitree_go2", "kinova_gen3"] {
        let fixture = fixture(name);
        let path = fixture_dir().join(format!("{name}.xml"));
        let robot = load_input_with(&path, &ImportOptions::default())
            .unwrap()
            .robot;
        let module = build_module_only(&robot, Some(&[FunctionKind::CoriolisMatrix]));
        let mut checked = 0;
        for (s, state) in fixture["states"].as_array().unwrap().iter().enumerate() {
            let Some(motion) = state.get("whole_body") else {
                continue;
            };
            let what = |f: &str| format!("{name} state {s} {f}");
            let qd = numbers(&state["qd"]);
            let nv = qd.len();
            let env = env(
                robot.is_floating(),
                &numbers(&state["q"]),
                &qd,
                &numbers(&state["qdd"]),
                &numbers(&state["tau_fd"]),
            );
            let c = eval(&module, FunctionKind::CoriolisMatrix, &env).remove(0);
            let gravity = numbers(&state["gravity"]);
            let bias: Vec<f64> = (0..nv)
                .map(|i| gravity[i] + (0..nv).map(|j| c[i * nv + j] * qd[j]).sum::<f64>())
                .collect();
            assert_close(
                &what("C qd + g"),
                &bias,
                &numbers(&state["nonlinear_effects"]),
            );
            let rate = numbers(&motion["mass_matrix_rate"]);
            let skew: Vec<f64> = (0..nv * nv)
                .map(|k| {
                    let t = (k % nv) * nv + k / nv;
                    (rate[k] - 2.0 * c[k]) + (rate[t] - 2.0 * c[t])
                })
                .collect();
            // Zero, on the scale of M'.
            let scale = rate.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
            let zero = vec![0.0; nv * nv];
            let scaled: Vec<f64> = skew.iter().map(|x| x / scale).collect();
            assert_close(&what("(M' - 2C) + its transpose"), &scaled, &zero);
            checked += 1;
        }
        assert_eq!(checked, 3, "{name}: the states with MuJoCo's motion");
    }
}

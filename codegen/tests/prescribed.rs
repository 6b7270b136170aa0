//! A prescribed base (`[base] motion = "prescribed"`): the joint rows of the floating-base
//! dynamics with the base's motion given. The floating fixtures of tests/fixtures/floating/
//! (Pinocchio with a free-flyer root joint) give the reference: with the base's pose, velocity
//! and acceleration set to the fixture's `q[..7]`, `v[..6]`, `a[..6]`, the prescribed inverse
//! dynamics equals Pinocchio's joint rows `tau[6..]`, gravity its `g[6..]`, the nonlinear
//! effects `M[6.., ..6] a_b + h[6..]`, and the forward dynamics solves `M[6.., 6..] qdd =
//! tau - h_prescribed`. A base that only translates is the general case with no angular motion,
//! at a lower operation count.

use std::path::{Path, PathBuf};
use std::process::Command;

use quasidyn_codegen::derive::{spatial_derivatives, SpatialFrame};
use quasidyn_codegen::ir::Env;
use quasidyn_codegen::{
    build_module, emit_c, emit_rust, load_spec, parse_spec, BaseMotion, COptions, FunctionKind,
    Graph, Module, Robot,
};
use serde_json::Value;

const SPECS: [&str; 2] = ["floater", "quadruped_floating"];

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/floating")
}

/// A floating-base spec: shipped in robots/, or a test-only one next to its fixture.
fn spec_path(name: &str) -> PathBuf {
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../robots/{name}.toml"));
    if shipped.exists() {
        shipped
    } else {
        dir().join(format!("{name}.toml"))
    }
}

/// The fixture robot with its base's motion prescribed instead of free.
fn robot(name: &str, motion: BaseMotion) -> Robot {
    let mut robot = load_spec(&spec_path(name)).expect("fixture spec loads");
    robot.motion = motion;
    robot.base_body = None;
    robot
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect()
}

fn env(base: &[f64], q: &[f64], qd: &[f64], qdd: &[f64], tau: &[f64], params: &[f64]) -> Env {
    Env {
        q: q.to_vec(),
        qd: qd.to_vec(),
        qdd: qdd.to_vec(),
        tau: tau.to_vec(),
        params: params.to_vec(),
        base: base.to_vec(),
        elastic: Default::default(),
    }
}

fn close(what: &str, got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let scale = want.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-9 * scale,
            "{what}[{k}]: generated {g}, reference {w}"
        );
    }
}

fn eval(module: &Module, kind: FunctionKind, output: usize, env: &Env) -> Vec<f64> {
    let f = module
        .functions
        .iter()
        .find(|f| f.kind == kind)
        .unwrap_or_else(|| panic!("{kind:?} generated"));
    module.graph.eval_many(&f.outputs[output].values, env)
}

/// Rotation (world from base) of a possibly non-unit quaternion x y z w.
fn rotation(q: &[f64]) -> [[f64; 3]; 3] {
    let n = q.iter().map(|x| x * x).sum::<f64>().sqrt();
    let [x, y, z, w] = [q[0] / n, q[1] / n, q[2] / n, q[3] / n];
    [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y - z * w),
            2.0 * (x * z + y * w),
        ],
        [
            2.0 * (x * y + z * w),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z - x * w),
        ],
        [
            2.0 * (x * z - y * w),
            2.0 * (y * z + x * w),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ]
}

#[test]
fn joint_rows_of_the_floating_base_pinocchio() {
    for name in SPECS {
        let module = build_module(&robot(name, BaseMotion::Prescribed));
        let n = module.dof;
        let nv = n + 6;
        let text = std::fs::read_to_string(dir().join(format!("{name}.json")))
            .expect("fixture readable (run tools/floating_reference.py)");
        let fixture: Value = serde_json::from_str(&text).expect("fixture is JSON");
        let params: Vec<f64> = module.graph.params().iter().map(|p| p.default).collect();
        let states = fixture["states"].as_array().expect("states");
        assert!(!states.is_empty());
        for (s, st) in states.iter().enumerate() {
            let what = |f: &str| format!("{name} state {s} {f}");
            let (q, v, a) = (numbers(&st["q"]), numbers(&st["v"]), numbers(&st["a"]));
            let tau = numbers(&st["tau_fd"]);
            let m = numbers(&st["mass_matrix"]);
            let h = numbers(&st["nonlinear_effects"]);
            let mut base = q[..7].to_vec();
            base.extend_from_slice(&v[..6]);
            base.extend_from_slice(&a[..6]);
            let zero = vec![0.0; n];
            let e = env(&base, &q[7..], &v[6..], &a[6..], &tau[6..], &params);

            let id = numbers(&st["inverse_dynamics"]);
            let got = eval(&module, FunctionKind::InverseDynamics, 0, &e);
            close(&what("inverse_dynamics"), &got, &id[6..]);

            let g = numbers(&st["gravity"]);
            let got = eval(&module, FunctionKind::Gravity, 0, &e);
            close(&what("gravity"), &got, &g[6..]);

            // At qdd = 0 the base still accelerates: h_j + M[j, base] a_b.
            let nle_ref: Vec<f64> = (0..n)
                .map(|i| h[6 + i] + (0..6).map(|k| m[(6 + i) * nv + k] * a[k]).sum::<f64>())
                .collect();
            let got = eval(&module, FunctionKind::NonlinearEffects, 0, &e);
            close(&what("nonlinear_effects"), &got, &nle_ref);

            let m_jj: Vec<f64> = (0..n)
                .flat_map(|i| (0..n).map(move |j| (i, j)))
                .map(|(i, j)| m[(6 + i) * nv + 6 + j])
                .collect();
            let got = eval(&module, FunctionKind::MassMatrix, 0, &e);
            close(&what("mass_matrix"), &got, &m_jj);

            // Forward dynamics: M_jj qdd + h_prescribed = tau.
            let qdd = eval(&module, FunctionKind::ForwardDynamics, 0, &e);
            let lhs: Vec<f64> = (0..n)
                .map(|i| nle_ref[i] + (0..n).map(|j| m_jj[i * n + j] * qdd[j]).sum::<f64>())
                .collect();
            close(&what("forward_dynamics residual"), &lhs, &tau[6..]);

            // Frames stay in the base frame: world = base pose composed with them.
            let rb = rotation(&q[3..7]);
            for (i, frame) in module.frame_names.iter().enumerate() {
                let k = u16::try_from(i).expect("few frames");
                let r = eval(&module, FunctionKind::FrameKinematics(k), 0, &e);
                let p = eval(&module, FunctionKind::FrameKinematics(k), 1, &e);
                let fr = &st["frames"][i];
                let want_r = numbers(&fr["rotation"]);
                let want_p = numbers(&fr["position"]);
                let world_r: Vec<f64> = (0..9)
                    .map(|rc| (0..3).map(|l| rb[rc / 3][l] * r[l * 3 + rc % 3]).sum())
                    .collect();
                let world_p: Vec<f64> = (0..3)
                    .map(|row| q[row] + (0..3).map(|l| rb[row][l] * p[l]).sum::<f64>())
                    .collect();
                close(&what(&format!("{frame} rotation")), &world_r, &want_r);
                close(&what(&format!("{frame} position")), &world_p, &want_p);
            }
            let _ = zero;
        }
    }
}

/// The joint-space derivatives of a prescribed base: with the base's motion held, the
/// inverse-dynamics and gravity derivatives are the joint block of Pinocchio's floating-base
/// derivatives (`[6.., 6..]` of computeRNEADerivatives and
/// computeGeneralizedGravityDerivatives); `M⁻¹` inverts Pinocchio's joint block of `M`; the
/// forward-dynamics derivatives agree with central differences of the generated forward
/// dynamics (itself checked against Pinocchio above).
#[test]
fn derivatives_are_the_joint_block_of_the_floating_base_pinocchio() {
    for name in SPECS {
        let module = build_module(&robot(name, BaseMotion::Prescribed));
        // The derivatives by composite quantities, whether or not the module keeps them.
        let mut graph = Graph::new();
        let composite = spatial_derivatives(
            &mut graph,
            &robot(name, BaseMotion::Prescribed),
            true,
            SpatialFrame::Base,
        )
        .expect("a prescribed base");
        let composite_params: Vec<f64> = graph.params().iter().map(|p| p.default).collect();
        let n = module.dof;
        let nv = n + 6;
        let text = std::fs::read_to_string(dir().join(format!("{name}.json")))
            .expect("fixture readable (run tools/floating_reference.py)");
        let fixture: Value = serde_json::from_str(&text).expect("fixture is JSON");
        let params: Vec<f64> = module.graph.params().iter().map(|p| p.default).collect();
        let states = fixture["states"].as_array().expect("states");
        let block = |m: &[f64]| -> Vec<f64> {
            (0..n)
                .flat_map(|i| (0..n).map(move |j| m[(6 + i) * nv + 6 + j]))
                .collect()
        };
        for (s, st) in states.iter().enumerate() {
            let what = |f: &str| format!("{name} state {s} {f}");
            let (q, v, a) = (numbers(&st["q"]), numbers(&st["v"]), numbers(&st["a"]));
            let tau = numbers(&st["tau_fd"]);
            let mut base = q[..7].to_vec();
            base.extend_from_slice(&v[..6]);
            base.extend_from_slice(&a[..6]);
            let e = env(&base, &q[7..], &v[6..], &a[6..], &tau[6..], &params);
            let kind = FunctionKind::InverseDynamicsDerivatives;
            close(
                &what("dtau_dq"),
                &eval(&module, kind, 0, &e),
                &block(&numbers(&st["dtau_dq"])),
            );
            close(
                &what("dtau_dqd"),
                &eval(&module, kind, 1, &e),
                &block(&numbers(&st["dtau_dv"])),
            );
            close(
                &what("dg_dq"),
                &eval(&module, FunctionKind::GravityDerivatives, 0, &e),
                &block(&numbers(&st["dg_dq"])),
            );
            let ec = env(
                &base,
                &q[7..],
                &v[6..],
                &a[6..],
                &tau[6..],
                &composite_params,
            );
            for (label, values, key) in [
                ("composite dtau_dq", &composite.dtau_dq, "dtau_dq"),
                ("composite dtau_dqd", &composite.dtau_dqd, "dtau_dv"),
                ("composite dg_dq", &composite.dg_dq, "dg_dq"),
            ] {
                let got = graph.eval_many(values, &ec);
                close(&what(label), &got, &block(&numbers(&st[key])));
            }

            let kind = FunctionKind::ForwardDynamicsDerivatives;
            let minv = eval(&module, kind, 2, &e);
            let m = block(&numbers(&st["mass_matrix"]));
            let product: Vec<f64> = (0..n * n)
                .map(|ij| {
                    (0..n)
                        .map(|k| minv[ij / n * n + k] * m[k * n + ij % n])
                        .sum()
                })
                .collect();
            let identity: Vec<f64> = (0..n * n)
                .map(|ij| if ij / n == ij % n { 1.0 } else { 0.0 })
                .collect();
            close(&what("Minv M"), &product, &identity);
            // Central differences, step 1e-6: truncation about 1e-12 times the third
            // derivative, rounding about 1e-10 of the accelerations.
            let h = 1e-6;
            let fd = |e: &Env| eval(&module, FunctionKind::ForwardDynamics, 0, e);
            for (output, wrt_q) in [(0, true), (1, false)] {
                let got = eval(&module, kind, output, &e);
                let mut want = vec![0.0; n * n];
                for j in 0..n {
                    let (mut plus, mut minus) = (e.clone(), e.clone());
                    let (p, m) = if wrt_q {
                        (&mut plus.q, &mut minus.q)
                    } else {
                        (&mut plus.qd, &mut minus.qd)
                    };
                    p[j] += h;
                    m[j] -= h;
                    let (fp, fm) = (fd(&plus), fd(&minus));
                    for i in 0..n {
                        want[i * n + j] = (fp[i] - fm[i]) / (2.0 * h);
                    }
                }
                let scale = want.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
                for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                    assert!(
                        (g - w).abs() <= 1e-6 * scale,
                        "{}[{k}]: generated {g}, differences {w}",
                        what(if wrt_q { "dqdd_dq" } else { "dqdd_dqd" })
                    );
                }
            }
        }
    }
}

/// Numeric rank of the `rows × cols` row-major `a` (Gram-Schmidt on the columns, twice, a
/// column counting when its residual exceeds `1e-9` of its norm; a column whose norm is
/// rounding noise against the largest, `1e-10` of it, is zero).
fn rank(a: &[f64], rows: usize, cols: usize) -> usize {
    let column = |j: usize| -> Vec<f64> { (0..rows).map(|i| a[i * cols + j]).collect() };
    let norm_of = |c: &[f64]| c.iter().map(|x| x * x).sum::<f64>().sqrt();
    let largest = (0..cols).map(|j| norm_of(&column(j))).fold(0.0, f64::max);
    let mut basis: Vec<Vec<f64>> = Vec::new();
    for j in 0..cols {
        let mut col = column(j);
        let norm = norm_of(&col);
        let norm = if norm <= 1e-10 * largest { 0.0 } else { norm };
        for _ in 0..2 {
            for b in &basis {
                let t: f64 = b.iter().zip(&col).map(|(x, y)| x * y).sum();
                for (c, x) in col.iter_mut().zip(b) {
                    *c -= t * x;
                }
            }
        }
        let rest = col.iter().map(|x| x * x).sum::<f64>().sqrt();
        if norm > 0.0 && rest > 1e-9 * norm {
            basis.push(col.iter().map(|x| x / rest).collect());
        }
    }
    basis.len()
}

/// The regressors of a prescribed base (the base arrays first, as the inverse dynamics):
/// `Y π` and `Yb π_b` equal the joint rows of Pinocchio's floating-base inverse dynamics at
/// every fixture state, with `π` and `π_b` the exported parameters; `NB` is the rank of `Y`
/// over the fixture's states and `Yb` has full column rank there.
#[test]
fn regressor_times_the_standard_parameters_is_pinocchio_inverse_dynamics() {
    for name in SPECS {
        let module = build_module(&robot(name, BaseMotion::Prescribed));
        let n = module.dof;
        let constant = |name: &str| {
            &module
                .constants
                .iter()
                .find(|c| c.name == name)
                .unwrap_or_else(|| panic!("{name} exported"))
                .values
        };
        let pi = constant("standard_parameters");
        let pi_b = constant("base_parameters");
        let nb = pi_b.len();
        let (mut ys, mut ybs, mut rows) = (Vec::new(), Vec::new(), 0);
        assert_eq!(pi.len(), 10 * n, "{name}: ten parameters per body");
        let text = std::fs::read_to_string(dir().join(format!("{name}.json")))
            .expect("fixture readable (run tools/floating_reference.py)");
        let fixture: Value = serde_json::from_str(&text).expect("fixture is JSON");
        let params: Vec<f64> = module.graph.params().iter().map(|p| p.default).collect();
        for (s, st) in fixture["states"]
            .as_array()
            .expect("states")
            .iter()
            .enumerate()
        {
            let (q, v, a) = (numbers(&st["q"]), numbers(&st["v"]), numbers(&st["a"]));
            let mut base = q[..7].to_vec();
            base.extend_from_slice(&v[..6]);
            base.extend_from_slice(&a[..6]);
            let e = env(&base, &q[7..], &v[6..], &a[6..], &vec![0.0; n], &params);
            let y = eval(&module, FunctionKind::Regressor, 0, &e);
            assert_eq!(y.len(), n * 10 * n, "{name}: Y is N x 10N");
            let tau: Vec<f64> = (0..n)
                .map(|i| (0..10 * n).map(|c| y[i * 10 * n + c] * pi[c]).sum())
                .collect();
            let id = numbers(&st["inverse_dynamics"]);
            close(&format!("{name} state {s} Y pi"), &tau, &id[6..]);
            let yb = eval(&module, FunctionKind::BaseRegressor, 0, &e);
            assert_eq!(yb.len(), n * nb, "{name}: Yb is N x NB");
            let tau_b: Vec<f64> = yb
                .chunks(nb)
                .map(|row| row.iter().zip(pi_b).map(|(y, p)| y * p).sum())
                .collect();
            close(&format!("{name} state {s} Yb pi_b"), &tau_b, &id[6..]);
            ys.extend(y);
            ybs.extend(yb);
            rows += n;
        }
        assert_eq!(rank(&ys, rows, 10 * n), nb, "{name}: NB = rank of Y");
        assert_eq!(rank(&ybs, rows, nb), nb, "{name}: Yb has full column rank");
    }
}

#[test]
fn a_translating_base_is_the_general_case_without_rotation_and_cheaper() {
    for name in SPECS {
        let general = build_module(&robot(name, BaseMotion::Prescribed));
        let translating = build_module(&robot(name, BaseMotion::Translating));
        let n = general.dof;
        let params: Vec<f64> = general.graph.params().iter().map(|p| p.default).collect();
        let mut seed = 7_u64;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        for _ in 0..10 {
            let mut base: Vec<f64> = (0..19).map(|_| next()).collect();
            let (q, qd, qdd, tau): (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>) = (
                (0..n).map(|_| 3.0 * next()).collect(),
                (0..n).map(|_| 2.0 * next()).collect(),
                (0..n).map(|_| 5.0 * next()).collect(),
                (0..n).map(|_| 20.0 * next()).collect(),
            );
            let e_t = env(&base, &q, &qd, &qdd, &tau, &params);
            // The general case with the angular velocity and acceleration zeroed.
            for k in [10, 11, 12, 16, 17, 18] {
                base[k] = 0.0;
            }
            let e_g = env(&base, &q, &qd, &qdd, &tau, &params);
            for kind in [
                FunctionKind::InverseDynamics,
                FunctionKind::NonlinearEffects,
                FunctionKind::Gravity,
                FunctionKind::ForwardDynamics,
            ] {
                close(
                    &format!("{name} {kind:?}"),
                    &eval(&translating, kind, 0, &e_t),
                    &eval(&general, kind, 0, &e_g),
                );
            }
        }
        let flops = |m: &Module, kind: FunctionKind| {
            let (_, c) = m
                .lowered()
                .op_counts()
                .into_iter()
                .find(|(k, _)| *k == kind)
                .expect("counted");
            c.mul + c.add + c.div + c.neg
        };
        for kind in [
            FunctionKind::InverseDynamics,
            FunctionKind::NonlinearEffects,
        ] {
            let (t, g) = (flops(&translating, kind), flops(&general, kind));
            assert!(t < g, "{name} {kind:?}: translating {t} vs general {g} ops");
        }
    }
}

#[test]
fn emitted_code_takes_the_base_arrays_and_compiles() {
    for motion in [BaseMotion::Prescribed, BaseMotion::Translating] {
        let module = build_module(&robot("floater", motion));
        let rust = emit_rust(&module).expect("Rust emits");
        syn::parse_file(&rust).expect("generated Rust parses");
        assert!(
            rust.contains("pub fn inverse_dynamics(\n    base_pose: &[f64; 7],")
                || rust.contains("base_pose: &[f64; 7]"),
            "{rust}"
        );
        let files = emit_c(&module, &COptions::default()).expect("C emits");
        for sig in [
            "void floater_inverse_dynamics(const double base_pose[], const double base_vel[], \
             const double base_acc[], const double q[], const double qd[], const double qdd[], \
             double tau[]);",
            "void floater_nonlinear_effects(const double base_pose[], const double base_vel[], \
             const double base_acc[], const double q[], const double qd[], double h[]);",
            "void floater_forward_dynamics(const double base_pose[], const double base_vel[], \
             const double base_acc[], const double q[], const double qd[], const double tau[], \
             double qdd[]);",
            "void floater_gravity(const double base_pose[], const double q[], double tau[]);",
            "void floater_mass_matrix(const double q[], double M[]);",
        ] {
            assert!(files.header.contains(sig), "{motion:?}: header lacks {sig}");
        }
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
            "{motion:?}: {}",
            String::from_utf8_lossy(&gcc.stderr)
        );
    }
}

const BODY: &str = r#"
[[body]]
name = "arm"
joint = "revolute"
axis = "z"
next = [0.0, 0.0, 0.5]
mass = 1.0
"#;

#[test]
fn spec_reads_and_rejects() {
    let ok = format!("name = \"r\"\n[base]\nmotion = \"prescribed\"\n{BODY}");
    assert_eq!(
        parse_spec(&ok, "a.toml").expect("valid").motion,
        BaseMotion::Prescribed
    );
    let ok =
        format!("name = \"r\"\n[base]\nmotion = \"prescribed\"\ntranslation_only = true\n{BODY}");
    let robot = parse_spec(&ok, "a.toml").expect("valid");
    assert_eq!(robot.motion, BaseMotion::Translating);
    // The canonical text reads back as the same model.
    let again = parse_spec(&quasidyn_codegen::to_toml(&robot), "b.toml").expect("round trip");
    assert_eq!(again.motion, BaseMotion::Translating);

    for (text, line, field) in [
        (
            format!("name = \"r\"\n[base]\nmotion = \"fixed\"\ntranslation_only = true\n{BODY}"),
            4,
            "base.translation_only",
        ),
        (
            format!("name = \"r\"\n[base]\nmotion = \"prescribed\"\nmass = 3.0\n{BODY}"),
            4,
            "base.mass",
        ),
        (
            format!("name = \"r\"\nparameters = \"base\"\n[base]\nmotion = \"prescribed\"\n{BODY}"),
            2,
            "parameters",
        ),
    ] {
        let err = parse_spec(&text, "a.toml").expect_err("rejected");
        let msg = err.to_string();
        assert!(
            msg.contains(&format!("a.toml:{line}:")) && msg.contains(field),
            "{msg}"
        );
    }
}

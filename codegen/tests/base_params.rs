//! Base parameters as inputs (`parameters = "base"`): with the base parameters computed from
//! random physical ones, every generated function equals that of the physical-parameter module
//! at random states, for chains with revolute and prismatic joints.

use std::path::Path;

use quasidyn_codegen::derive::{base_parameters, base_set};
use quasidyn_codegen::import::import_dh;
use quasidyn_codegen::ir::Env;
use quasidyn_codegen::{
    build_module, build_module_only, emit_c, emit_rust, load_spec, parse_spec, to_toml, COptions,
    FunctionKind, ParameterSet, Robot,
};

struct Rng(u64);

impl Rng {
    /// Uniform in `[-1, 1)`.
    fn uniform(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

/// Every inertial parameter symbolic, with random values.
fn randomised(mut robot: Robot, rng: &mut Rng) -> Robot {
    for b in &mut robot.bodies {
        b.symbolic.mass = true;
        b.symbolic.com = true;
        b.symbolic.inertia = true;
        b.mass = 1.0 + rng.uniform().abs();
        b.com = [rng.uniform(), rng.uniform(), rng.uniform()];
        for r in 0..3 {
            for c in r..3 {
                b.inertia_com[r][c] = rng.uniform() + if r == c { 2.0 } else { 0.0 };
                b.inertia_com[c][r] = b.inertia_com[r][c];
            }
        }
    }
    robot
}

fn robots() -> Vec<Robot> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("../tests/fixtures/dh/rx90.toml"))
        .expect("fixture readable");
    let mut out = vec![import_dh(&text, "rx90.toml").expect("fixture imports")];
    for name in ["ur5", "puma560", "stanford", "cylindrical6", "cartesian6"] {
        let path = root.join("../robots").join(format!("{name}.toml"));
        out.push(load_spec(&path).expect("shipped robot parses"));
    }
    out
}

#[test]
fn base_parameters_change_no_joint_space_output() {
    let mut rng = Rng(98_765);
    for robot in robots() {
        for _ in 0..3 {
            let physical = randomised(robot.clone(), &mut rng);
            let base = Robot {
                parameters: ParameterSet::Base,
                ..physical.clone()
            };
            let mp = build_module(&physical).lowered();
            let mb = build_module(&base).lowered();
            // The inputs are the base parameters only, at the converted values.
            let listed = base_parameters(&physical);
            let names: Vec<(String, f64)> = mb
                .graph
                .params()
                .iter()
                .map(|p| (p.name.clone(), p.default))
                .collect();
            assert_eq!(names, listed, "{}", robot.name);
            assert!(mb
                .functions
                .iter()
                .all(|f| f.kind != FunctionKind::StaticJointReactions));
            assert_eq!(mb.functions.len(), mp.functions.len() - 1);
            let n = robot.dof();
            for _ in 0..3 {
                let env = Env {
                    q: (0..n).map(|_| 3.0 * rng.uniform()).collect(),
                    qd: (0..n).map(|_| rng.uniform()).collect(),
                    qdd: (0..n).map(|_| rng.uniform()).collect(),
                    tau: (0..n).map(|_| rng.uniform()).collect(),
                    params: Vec::new(),
                    base: Vec::new(),
                    elastic: Default::default(),
                };
                let env_p = Env {
                    params: mp.graph.params().iter().map(|p| p.default).collect(),
                    ..env.clone()
                };
                let env_b = Env {
                    params: mb.graph.params().iter().map(|p| p.default).collect(),
                    ..env
                };
                for fb in &mb.functions {
                    let fp = mp
                        .functions
                        .iter()
                        .find(|f| f.kind == fb.kind)
                        .expect("same function");
                    for (a, b) in fb.roots().iter().zip(fp.roots()) {
                        let (x, y) = (mb.graph.eval(*a, &env_b), mp.graph.eval(b, &env_p));
                        assert!(
                            (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0),
                            "{} {:?}: base {x}, physical {y}",
                            robot.name,
                            fb.kind
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn base_parameter_spec_round_trips_and_emits() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("../robots/puma560.toml")).expect("readable");
    let text =
        format!("parameters = \"base\"\nsymbolic = [\"mass\", \"com\", \"inertia\"]\n{text}");
    let robot = parse_spec(&text, "puma560.toml").expect("parses");
    assert_eq!(robot.parameters, ParameterSet::Base);
    assert_eq!(
        parse_spec(&to_toml(&robot), "x.toml").expect("round trip"),
        robot
    );
    let module = build_module(&robot);
    assert!(module.graph.params().iter().all(|p| p.name.contains('r')));
    // Joint 1 is vertical: the first moment of body 1 normal to it is read by no output.
    assert!(module
        .graph
        .params()
        .iter()
        .all(|p| p.name != "mxr1" && p.name != "myr1"));
    emit_rust(&module).expect("Rust emits");
    emit_c(&module, &COptions::default()).expect("C emits");
    assert!(parse_spec("parameters = \"bad\"\n", "x.toml").is_err());
}

/// The base parameters' combinations of the standard ones depend on the geometry alone: with
/// a wrist of 1e-9 kg or of 1e-300 kg the UR5 has the combinations it has with the spec's
/// masses, finite values, and code that emits (the combinations were found by differences
/// about the robot's own values, which for a light body moved its centre of mass by the step
/// over its mass: spurious coefficients of 7e-9 at 1e-9 kg, NaN at 1e-300 kg).
#[test]
fn light_bodies_give_the_combinations_of_the_geometry() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ur5 = load_spec(&root.join("../robots/ur5.toml")).expect("shipped robot parses");
    let reference = base_set(&ur5);
    for mass in [1e-9, 1e-300] {
        let mut light = ur5.clone();
        light.bodies[5].mass = mass;
        let set = base_set(&light);
        assert_eq!(set.names, reference.names, "{mass} kg");
        for (k, (a, b)) in set
            .combination
            .iter()
            .zip(&reference.combination)
            .enumerate()
        {
            assert!(
                (a - b).abs() <= 1e-12 * b.abs().max(1.0),
                "{mass} kg: entry {k} of the combinations is {a}, {b} with the spec's masses"
            );
        }
        assert!(set.values.iter().all(|v| v.is_finite()), "{mass} kg");
        let module = build_module_only(&light, Some(&[FunctionKind::BaseRegressor]));
        emit_rust(&module).expect("Rust emits");
        emit_c(&module, &COptions::default()).expect("C emits");
    }
}

/// The base set is as large as the numeric rank of Pinocchio's joint-torque regressor
/// (tests/fixtures/regressor_ranks.json, written by tools/regressor_rank.py) on every URDF and
/// DH fixture, and its regressor's columns are independent at random states. The xArm 7 had two
/// base parameters too many: axes `3.7e-6` rad from perpendicular (the URDF's `1.5708`) left
/// sets of columns independent to that little, and the column-by-column elimination missed
/// two exact dependences among them.
#[test]
fn base_sets_have_the_rank_of_pinocchios_regressor() {
    use quasidyn_codegen::import::ImportOptions;
    use quasidyn_codegen::{load_input_with, Graph};

    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
    let text = std::fs::read_to_string(root.join("regressor_ranks.json")).expect("fixture");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("fixture is JSON");
    let robots = doc["robots"].as_object().expect("robots");
    assert!(robots.len() >= 14, "every URDF and DH fixture");
    let mut rng = Rng(4_242);
    for (name, entry) in robots {
        let gap = entry["gap"].as_array().expect("gap");
        let (kept, cut) = (gap[0].as_f64().unwrap(), gap[1].as_f64().unwrap());
        assert!(
            kept > 1e-3 && cut < 1e-8,
            "{name}: the rank is clear ({kept} | {cut})"
        );
        let options = ImportOptions {
            tip: entry["tip"].as_str().map(str::to_owned),
            floating_base: entry["floating_base"].as_bool().unwrap(),
            ..ImportOptions::default()
        };
        let input = root.join(entry["input"].as_str().unwrap());
        let robot = load_input_with(&input, &options)
            .expect("fixture imports")
            .robot;
        let rank = entry["rank"].as_u64().unwrap() as usize;
        let set = base_set(&robot);
        assert_eq!(
            set.names.len(),
            rank,
            "{name}: base parameters against the rank"
        );

        // The base regressor's columns at random states: full column rank, with the same
        // margin the fixture's rank has.
        let mut g = Graph::new();
        let (set, yb) = quasidyn_codegen::derive::base_regressor(&mut g, &robot);
        let nb = set.names.len();
        let rows = yb.len() / nb;
        let samples = (3 * nb).div_ceil(rows);
        let mut stacked = Vec::with_capacity(samples * rows * nb);
        for _ in 0..samples {
            let n = robot.dof();
            let env = Env {
                q: (0..n).map(|_| 3.0 * rng.uniform()).collect(),
                qd: (0..n).map(|_| 2.0 * rng.uniform()).collect(),
                qdd: (0..n).map(|_| 2.0 * rng.uniform()).collect(),
                base: (0..19).map(|_| rng.uniform()).collect(),
                ..Env::default()
            };
            stacked.extend(g.eval_many(&yb, &env));
        }
        let mut m = nalgebra::DMatrix::from_row_slice(samples * rows, nb, &stacked);
        for mut col in m.column_iter_mut() {
            let norm = col.norm();
            col /= norm;
        }
        let s = m.singular_values();
        let ratio = s.min() / s.max();
        assert!(
            ratio > 1e-8,
            "{name}: base regressor columns dependent (smallest singular value {ratio:e} of the largest)"
        );
    }
}

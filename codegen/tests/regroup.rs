//! The regrouped (base) inertial parameters change no output: every function of
//! `build_module` equals that of `build_module_physical` at random states and random values of
//! every inertial parameter, for chains with revolute and prismatic joints.

use std::path::Path;

use quasidyn_codegen::import::import_dh;
use quasidyn_codegen::ir::Env;
use quasidyn_codegen::{build_module, build_module_physical, load_spec, Robot};

fn all_symbolic(mut robot: Robot) -> Robot {
    for b in &mut robot.bodies {
        b.symbolic.mass = true;
        b.symbolic.com = true;
        b.symbolic.inertia = true;
    }
    robot
}

fn robots() -> Vec<Robot> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("../tests/fixtures/dh/rx90.toml"))
        .expect("fixture readable");
    let mut out = vec![all_symbolic(
        import_dh(&text, "rx90.toml").expect("fixture imports"),
    )];
    for name in ["ur5", "puma560", "stanford", "cylindrical6", "cartesian6"] {
        let path = root.join("../robots").join(format!("{name}.toml"));
        out.push(all_symbolic(
            load_spec(&path).expect("shipped robot parses"),
        ));
    }
    out
}

#[test]
fn regrouped_parameters_change_no_output() {
    let mut state = 12_345u64;
    let mut uniform = || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    };
    for robot in robots() {
        let regrouped = build_module(&robot).lowered();
        let physical = build_module_physical(&robot).lowered();
        let n = robot.dof();
        for _ in 0..5 {
            let params: Vec<f64> = regrouped.graph.params().iter().map(|_| uniform()).collect();
            let env = Env {
                q: (0..n).map(|_| 3.0 * uniform()).collect(),
                qd: (0..n).map(|_| uniform()).collect(),
                qdd: (0..n).map(|_| uniform()).collect(),
                tau: (0..n).map(|_| uniform()).collect(),
                params: params.clone(),
                base: Vec::new(),
                elastic: Default::default(),
            };
            // The same values by parameter name.
            let by_name = physical
                .graph
                .params()
                .iter()
                .map(|p| {
                    let k = regrouped
                        .graph
                        .params()
                        .iter()
                        .position(|x| x.name == p.name)
                        .expect("same parameters");
                    params[k]
                })
                .collect();
            let env_physical = Env {
                params: by_name,
                ..env.clone()
            };
            for (fr, fp) in regrouped.functions.iter().zip(&physical.functions) {
                for (a, b) in fr.roots().iter().zip(fp.roots()) {
                    let (x, y) = (
                        regrouped.graph.eval(*a, &env),
                        physical.graph.eval(b, &env_physical),
                    );
                    assert!(
                        (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0),
                        "{} {:?}: regrouped {x}, physical {y}",
                        robot.name,
                        fr.kind
                    );
                }
            }
        }
    }
}

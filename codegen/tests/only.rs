//! `--only` (`Builder::only`, `robot!(only = ...)`): which functions a robot has without deriving,
//! names resolved against them, only the asked-for functions derived, with the values of the
//! full module.

use std::path::{Path, PathBuf};

use quasidyn_codegen::ir::Env;
use quasidyn_codegen::{
    available_functions, build_module, build_module_only, every_function_of, load_spec,
    select_functions, BaseMotion, Error, FunctionKind, Module, ParameterSet, Robot,
};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn robot(path: &str) -> Robot {
    load_spec(&root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn kinds(module: &Module) -> Vec<FunctionKind> {
    let mut k: Vec<FunctionKind> = module.functions.iter().map(|f| f.kind).collect();
    k.sort();
    k
}

/// A chain, a tree with frames, a floating and a prescribed base, and base parameters.
fn variants() -> Vec<(String, Robot)> {
    let mut out = vec![
        ("ur5".to_owned(), robot("robots/ur5.toml")),
        ("planar3r".to_owned(), robot("robots/planar3r.toml")),
        (
            "synthetic_tree".to_owned(),
            robot("robots/synthetic_tree.toml"),
        ),
        (
            "floater".to_owned(),
            robot("tests/fixtures/floating/floater.toml"),
        ),
        // Elastic joints only (kinematics and statics), and an elastic arm with dynamics.
        ("ur5_elastic".to_owned(), robot("robots/ur5_elastic.toml")),
        (
            "two_link_elastic".to_owned(),
            robot("robots/two_link_elastic.toml"),
        ),
    ];
    let mut prescribed = robot("tests/fixtures/floating/floater.toml");
    prescribed.motion = BaseMotion::Prescribed;
    prescribed.base_body = None;
    out.push(("floater prescribed".to_owned(), prescribed));
    let mut base = robot("robots/planar3r.toml");
    base.parameters = ParameterSet::Base;
    for b in &mut base.bodies {
        b.symbolic.mass = true;
    }
    out.push(("planar3r base parameters".to_owned(), base));
    out
}

#[test]
fn available_functions_are_those_generated() {
    for (what, robot) in variants() {
        assert_eq!(
            available_functions(&robot),
            kinds(&build_module(&robot)),
            "{what}"
        );
    }
}

#[test]
fn names_resolve_to_the_robots_functions() {
    let ur5 = robot("robots/ur5.toml");
    assert_eq!(
        select_functions(&ur5, &["mass_matrix", "inverse_dynamics", "mass_matrix"]).unwrap(),
        [FunctionKind::InverseDynamics, FunctionKind::MassMatrix]
    );
    assert_eq!(
        select_functions(&ur5, &["coriolis", "regressor", "gravity_derivatives"]).unwrap(),
        [
            FunctionKind::Coriolis,
            FunctionKind::GravityDerivatives,
            FunctionKind::Regressor
        ]
    );
    let tree = robot("robots/synthetic_tree.toml");
    let frames = tree.frames.len();
    assert!(frames >= 2);
    let all = select_functions(&tree, &["frames"]).unwrap();
    assert_eq!(all.len(), 2 * frames);
    let ident = quasidyn_codegen::names::frame_ident(&tree.frames[1].name);
    assert_eq!(
        select_functions(&tree, &[format!("jacobian_{ident}")]).unwrap(),
        [FunctionKind::FrameJacobian(1)]
    );
    // What the robot does not generate is an error naming it and listing what it does.
    for (robot, bad) in [(&ur5, "frames"), (&ur5, "inverse"), (&tree, "jacobian")] {
        match select_functions(robot, &["gravity", bad]) {
            Err(Error::UnknownFunction { name, valid, .. }) => {
                assert_eq!(name, bad);
                // Every function, those on request too, then the families it has.
                let families: Vec<&str> = [
                    "default",
                    "all",
                    "frames",
                    "centroidal",
                    "whole_body",
                    "frame_motion",
                ]
                .into_iter()
                .filter(|f| select_functions(robot, &[*f]).is_ok())
                .collect();
                assert_eq!(valid.len(), every_function_of(robot).len() + families.len());
                let owned: Vec<String> = families.iter().map(|f| (*f).to_owned()).collect();
                assert!(valid.ends_with(&owned), "{valid:?}");
            }
            other => panic!("{bad}: {other:?}"),
        }
    }
}

#[test]
fn families_name_the_default_set_everything_and_the_functions_on_request() {
    for (what, robot) in variants() {
        let default = available_functions(&robot);
        assert_eq!(
            select_functions(&robot, &["default"]).unwrap(),
            default,
            "{what}"
        );
        let every = every_function_of(&robot);
        assert_eq!(select_functions(&robot, &["all"]).unwrap(), every, "{what}");
        // The functions on request are what `all` adds, and never in the default set.
        let extra: Vec<FunctionKind> = every
            .iter()
            .copied()
            .filter(|k| !default.contains(k))
            .collect();
        assert!(extra.iter().all(|k| k.entry().group.on_request()), "{what}");
        assert!(
            default.iter().all(|k| !k.entry().group.on_request()),
            "{what}"
        );
        // Every base has them (a prescribed base's motion enters the energies and the
        // wrenches), but the base parameter set does not give the mass distribution.
        let has = robot.parameters != ParameterSet::Base;
        let mut want = Vec::new();
        if has {
            want.extend(FunctionKind::CENTROIDAL);
        }
        want.extend([
            FunctionKind::CoriolisMatrix,
            FunctionKind::MassMatrixInverse,
        ]);
        if has {
            want.extend([
                FunctionKind::JointWrenches,
                FunctionKind::KineticEnergy,
                FunctionKind::PotentialEnergy,
            ]);
        }
        let frames = u16::try_from(robot.frames.len()).expect("a few frames");
        for kind in FunctionKind::FRAME_MOTION {
            want.extend((0..frames).map(|k| kind.for_frame(k)));
        }
        assert_eq!(extra, want, "{what}");
        if !has {
            assert!(
                matches!(
                    select_functions(&robot, &["centroidal"]),
                    Err(Error::UnknownFunction { .. })
                ),
                "{what}"
            );
        }
        // Asking for all of them leaves the default functions' code as it was.
        let both = build_module_only(&robot, Some(&every)).lowered();
        let alone = build_module(&robot).lowered();
        for f in &alone.functions {
            let g = both.function(f.kind).expect("generated");
            assert_eq!(
                both.graph.op_count(&g.roots()),
                alone.graph.op_count(&f.roots()),
                "{what} {:?}",
                f.kind
            );
        }
    }
}

#[test]
fn only_the_asked_for_functions_are_derived() {
    let ur5 = robot("robots/ur5.toml");
    let full = build_module(&ur5);
    let only = build_module_only(&ur5, Some(&[FunctionKind::InverseDynamics]));
    assert_eq!(kinds(&only), [FunctionKind::InverseDynamics]);
    // The split, the derivatives and the regressors are most of the graph: not built at all.
    assert!(
        only.graph.len() * 2 < full.graph.len(),
        "{} nodes with --only, {} without",
        only.graph.len(),
        full.graph.len()
    );
    // The constants stay (the base parameters come with the base regressor).
    let names = |m: &Module| m.constants.iter().map(|c| c.name).collect::<Vec<_>>();
    assert_eq!(names(&only), ["standard_parameters"]);
    assert_eq!(only.constants[0], full.constants[0]);
    let yb = build_module_only(&ur5, Some(&[FunctionKind::BaseRegressor]));
    assert_eq!(yb.constants, full.constants);
    assert_eq!(only.joint_names, full.joint_names);
}

/// Pseudo-random numbers in [-1, 1) (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
}

#[test]
fn each_function_alone_has_the_values_of_the_full_module() {
    for path in ["robots/ur5.toml", "robots/synthetic_tree.toml"] {
        let robot = robot(path);
        let n = robot.dof();
        let full = build_module(&robot).lowered();
        let mut rng = Rng(7);
        let envs: Vec<Env> = (0..3)
            .map(|_| Env {
                q: (0..n).map(|_| 3.0 * rng.next()).collect(),
                qd: (0..n).map(|_| 2.0 * rng.next()).collect(),
                qdd: (0..n).map(|_| 2.0 * rng.next()).collect(),
                tau: (0..n).map(|_| 10.0 * rng.next()).collect(),
                ..Env::default()
            })
            .collect();
        for f in &full.functions {
            let alone = build_module_only(&robot, Some(&[f.kind])).lowered();
            assert_eq!(kinds(&alone), [f.kind], "{path}");
            let g = &alone.functions[0];
            for env in &envs {
                let want = full.graph.eval_many(&f.roots(), env);
                let got = alone.graph.eval_many(&g.roots(), env);
                let scale = want.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
                for (k, (a, b)) in got.iter().zip(&want).enumerate() {
                    assert!(
                        (a - b).abs() <= 1e-12 * scale,
                        "{path} {:?}[{k}]: {a} alone, {b} in the full module",
                        f.kind
                    );
                }
            }
        }
    }
}

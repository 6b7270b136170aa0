//! The derivative and identification functions of every tree robot in robots/ (Rust and C):
//! against Pinocchio's computeRNEADerivatives / computeGeneralizedGravityDerivatives /
//! computeABADerivatives / computeJointTorqueRegressor fixtures
//! (`tests/fixtures/derivatives/<stem>.json`, tools/derivatives_reference.py), and the base
//! regressor: full column rank over random states, `Yb * base_parameters` equal to Pinocchio's
//! inverse dynamics.

use quasidyn_codegen::FunctionKind;
use quasidyn_tests::generated::TREES;
use quasidyn_tests::{
    assert_close, flat, load_derivative_fixture, numeric_rank, random_states, GeneratedTree, State,
};

/// Agreement with Pinocchio.
const PINOCCHIO: f64 = 1e-9;

/// The derivative and identification functions every fixed-base tree gets.
const EXTRA: [FunctionKind; 5] = [
    FunctionKind::InverseDynamicsDerivatives,
    FunctionKind::GravityDerivatives,
    FunctionKind::ForwardDynamicsDerivatives,
    FunctionKind::Regressor,
    FunctionKind::BaseRegressor,
];

fn implementations(
    tree: &GeneratedTree,
) -> [(&'static str, &'static dyn quasidyn_tests::Evaluate); 2] {
    [("rust", tree.rust), ("c", tree.c)]
}

/// `y` (rows of width `pi.len()`) times `pi`.
fn times(y: &[f64], pi: &[f64]) -> Vec<f64> {
    y.chunks(pi.len())
        .map(|row| row.iter().zip(pi).map(|(a, b)| a * b).sum())
        .collect()
}

#[test]
fn trees_have_the_derivative_and_identification_functions() {
    for tree in TREES {
        let mut got = tree.extra_kinds.to_vec();
        got.sort();
        let mut expected = EXTRA.to_vec();
        expected.sort();
        assert_eq!(got, expected, "{}", tree.stem);
        assert_eq!(
            tree.standard_parameters.len(),
            10 * tree.dof,
            "{}",
            tree.stem
        );
        assert!(!tree.base_parameters.is_empty(), "{}", tree.stem);
    }
}

#[test]
fn tree_derivatives_and_regressor_match_pinocchio() {
    for tree in TREES {
        let fixture = load_derivative_fixture(tree.stem);
        assert_eq!(fixture.dof, tree.dof, "{}", tree.stem);
        assert!(!fixture.states.is_empty());
        assert_close(
            &format!("{} standard parameters", tree.stem),
            tree.standard_parameters,
            &fixture.standard_parameters,
            1e-12,
        );
        for (lang, imp) in implementations(tree) {
            for (k, s) in fixture.states.iter().enumerate() {
                let x = State {
                    q: s.q.clone(),
                    qd: s.qd.clone(),
                    qdd: s.qdd.clone(),
                    tau: s.tau.clone(),
                };
                let what = |f: &str| format!("{} {lang} state {k} {f}", tree.stem);
                let id = imp.call(FunctionKind::InverseDynamicsDerivatives, &x);
                assert_close(&what("dtau_dq"), &id[0], &flat(&s.dtau_dq), PINOCCHIO);
                assert_close(&what("dtau_dqd"), &id[1], &flat(&s.dtau_dqd), PINOCCHIO);
                let g = imp.call(FunctionKind::GravityDerivatives, &x);
                assert_close(&what("dg_dq"), &g[0], &flat(&s.dg_dq), PINOCCHIO);
                let fd = imp.call(FunctionKind::ForwardDynamicsDerivatives, &x);
                assert_close(&what("dqdd_dq"), &fd[0], &flat(&s.dqdd_dq), PINOCCHIO);
                assert_close(&what("dqdd_dqd"), &fd[1], &flat(&s.dqdd_dqd), PINOCCHIO);
                assert_close(&what("Minv"), &fd[2], &flat(&s.minv), PINOCCHIO);
                let y = imp.call(FunctionKind::Regressor, &x);
                assert_close(&what("regressor"), &y[0], &flat(&s.regressor), PINOCCHIO);
                // Y pi and Yb pi_b both give Pinocchio's inverse dynamics (Y pi = rnea is
                // checked in the fixture tooling).
                let tau = times(&flat(&s.regressor), &fixture.standard_parameters);
                let yb = imp.call(FunctionKind::BaseRegressor, &x);
                assert_close(
                    &what("Yb pi_b"),
                    &times(&yb[0], tree.base_parameters),
                    &tau,
                    PINOCCHIO,
                );
            }
        }
    }
}

#[test]
fn tree_base_parameter_count_is_the_rank_of_the_full_regressor() {
    for tree in TREES {
        let n = tree.dof;
        let nb = tree.base_parameters.len();
        let states = random_states(&tree.spec(), 43, 40);
        let stacked = |imp: &dyn quasidyn_tests::Evaluate, kind| -> Vec<f64> {
            states
                .iter()
                .flat_map(|x| imp.call(kind, x).remove(0))
                .collect()
        };
        let y = stacked(tree.rust, FunctionKind::Regressor);
        assert_eq!(
            numeric_rank(&y, 40 * n, 10 * n),
            nb,
            "{}: rank of Y over 40 states vs NB",
            tree.stem
        );
        for (lang, imp) in implementations(tree) {
            let yb = stacked(imp, FunctionKind::BaseRegressor);
            assert_eq!(yb.len(), 40 * n * nb, "{} {lang}", tree.stem);
            assert_eq!(
                numeric_rank(&yb, 40 * n, nb),
                nb,
                "{} {lang}: Yb has full column rank",
                tree.stem
            );
        }
    }
}

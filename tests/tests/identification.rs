//! The generated regressor and standard parameters of every robot in robots/, Rust and C:
//! `Y π = τ` against both numeric reference models, at the spec's parameters and at changed
//! ones; `Y` and `π` against Pinocchio's `computeJointTorqueRegressor` and dynamic parameters.

use quasidyn_codegen::{FunctionKind, Robot};
use quasidyn_reference::{NewtonEulerModel, QuasiVelocityModel, ReferenceModel};
use quasidyn_tests::generated::ROBOTS;
use quasidyn_tests::{
    assert_close, chain_of, flat, load_derivative_fixture, random_states, Rng, State,
};

/// Agreement with the reference models and Pinocchio.
const REL: f64 = 1e-10;
/// The generated Rust (`false`) and C (`true`).
const LANGS: [(&str, bool); 2] = [("rust", false), ("c", true)];

/// `Y π` for `Y` of `n` rows, row-major.
fn times(y: &[f64], pi: &[f64]) -> Vec<f64> {
    y.chunks(pi.len())
        .map(|row| row.iter().zip(pi).map(|(a, b)| a * b).sum())
        .collect()
}

/// Standard parameters of `robot` computed here from its mass, centre of mass and inertia
/// about the centre of mass: `m`, `m c`, `I_C + m (|c|² E - c cᵀ)`.
fn standard_of(robot: &Robot) -> Vec<f64> {
    let mut pi = Vec::new();
    for b in &robot.bodies {
        let (m, c) = (b.mass, b.com);
        let cc: f64 = c.iter().map(|x| x * x).sum();
        let pole = |a: usize, d: usize| {
            let delta = if a == d { cc } else { 0.0 };
            b.inertia_com[a][d] + m * (delta - c[a] * c[d])
        };
        pi.extend([m, m * c[0], m * c[1], m * c[2]]);
        pi.extend([
            pole(0, 0),
            pole(0, 1),
            pole(0, 2),
            pole(1, 1),
            pole(1, 2),
            pole(2, 2),
        ]);
    }
    pi
}

/// `robot` with every body's mass, centre of mass and inertia changed (still physical).
fn perturbed(robot: &Robot, rng: &mut Rng) -> Robot {
    let mut out = robot.clone();
    for b in &mut out.bodies {
        b.mass *= rng.range(0.5, 1.5);
        for x in &mut b.com {
            *x += rng.range(-0.05, 0.05);
        }
        for a in 0..3 {
            b.inertia_com[a][a] += rng.range(0.0, 0.02);
        }
        let off = rng.range(-0.001, 0.001);
        b.inertia_com[0][1] += off;
        b.inertia_com[1][0] += off;
    }
    out
}

#[test]
fn standard_parameters_are_the_spec_values() {
    for r in ROBOTS {
        let expected = standard_of(&r.spec());
        for (lang, c) in LANGS {
            let pi = (r.constants)(c, "standard_parameters");
            assert_close(&format!("{} {lang} pi", r.stem), &pi, &expected, 1e-14);
        }
        let fixture = load_derivative_fixture(r.stem);
        let pi = (r.constants)(false, "standard_parameters");
        assert_close(
            &format!("{} pi vs Pinocchio", r.stem),
            &pi,
            &fixture.standard_parameters,
            1e-12,
        );
    }
}

#[test]
fn regressor_times_parameters_is_the_reference_inverse_dynamics() {
    for r in ROBOTS {
        let robot = r.spec();
        let n = r.dof;
        let mut rng = Rng::new(41);
        // The spec's parameters, then two changed sets: Y does not depend on them.
        let mut robots = vec![robot.clone()];
        robots.push(perturbed(&robot, &mut rng));
        robots.push(perturbed(&robot, &mut rng));
        for (k, x) in random_states(&robot, 37, 30).iter().enumerate() {
            for (lang, c) in LANGS {
                let y = &(r.extra)(c, FunctionKind::Regressor, x)[0];
                assert_eq!(y.len(), n * 10 * n);
                for (v, variant) in robots.iter().enumerate() {
                    let chain = chain_of(variant);
                    let pi = standard_of(variant);
                    let models: [(&dyn ReferenceModel, &str); 2] = [
                        (&QuasiVelocityModel::new(&chain), "quasi"),
                        (&NewtonEulerModel::new(&chain), "newton"),
                    ];
                    for (model, label) in models {
                        let mut tau = vec![0.0; n];
                        model.inverse_dynamics(&x.q, &x.qd, &x.qdd, &mut tau);
                        assert_close(
                            &format!("{} {lang} state {k} variant {v} {label}", r.stem),
                            &times(y, &pi),
                            &tau,
                            REL,
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn regressor_matches_pinocchio() {
    for r in ROBOTS {
        let fixture = load_derivative_fixture(r.stem);
        for (k, s) in fixture.states.iter().enumerate() {
            let x = State {
                q: s.q.clone(),
                qd: s.qd.clone(),
                qdd: s.qdd.clone(),
                tau: s.tau.clone(),
            };
            for (lang, c) in LANGS {
                let y = &(r.extra)(c, FunctionKind::Regressor, &x)[0];
                assert_close(
                    &format!("{} {lang} state {k} Y", r.stem),
                    y,
                    &flat(&s.regressor),
                    REL,
                );
            }
        }
    }
}

/// Rows of `kind`'s single matrix output (width `cols`) stacked over `states`.
fn stacked(
    r: &quasidyn_tests::GeneratedRobot,
    c: bool,
    kind: FunctionKind,
    states: &[State],
) -> Vec<f64> {
    states
        .iter()
        .flat_map(|x| (r.extra)(c, kind, x).remove(0))
        .collect()
}

#[test]
fn base_parameter_count_is_the_rank_of_the_full_regressor() {
    for r in ROBOTS {
        let robot = r.spec();
        let n = r.dof;
        let nb = (r.constants)(false, "base_parameters").len();
        assert_eq!((r.constants)(true, "base_parameters").len(), nb);
        let states = random_states(&robot, 43, 40);
        let y = stacked(r, false, FunctionKind::Regressor, &states);
        let rank = quasidyn_tests::numeric_rank(&y, 40 * n, 10 * n);
        assert_eq!(rank, nb, "{}: rank of Y over 40 states vs NB", r.stem);
        for (lang, c) in LANGS {
            let yb = stacked(r, c, FunctionKind::BaseRegressor, &states);
            assert_eq!(yb.len(), 40 * n * nb);
            let rank = quasidyn_tests::numeric_rank(&yb, 40 * n, nb);
            assert_eq!(rank, nb, "{} {lang}: Yb has full column rank", r.stem);
        }
    }
}

#[test]
fn base_regressor_times_base_parameters_is_the_reference_inverse_dynamics() {
    for r in ROBOTS {
        let robot = r.spec();
        let n = r.dof;
        let set = quasidyn_codegen::derive::base_set(&robot);
        let combination = |pi: &[f64]| -> Vec<f64> {
            set.combination
                .chunks(10 * n)
                .map(|row| row.iter().zip(pi).map(|(a, b)| a * b).sum())
                .collect()
        };
        for (lang, c) in LANGS {
            let generated = (r.constants)(c, "base_parameters");
            assert_close(
                &format!("{} {lang} base parameters", r.stem),
                &generated,
                &combination(&standard_of(&robot)),
                1e-12,
            );
        }
        let mut rng = Rng::new(47);
        let mut robots = vec![robot.clone()];
        robots.push(perturbed(&robot, &mut rng));
        for (k, x) in random_states(&robot, 53, 30).iter().enumerate() {
            for (lang, c) in LANGS {
                let yb = &(r.extra)(c, FunctionKind::BaseRegressor, x)[0];
                for (v, variant) in robots.iter().enumerate() {
                    let chain = chain_of(variant);
                    let pib = combination(&standard_of(variant));
                    let mut tau = vec![0.0; n];
                    NewtonEulerModel::new(&chain).inverse_dynamics(&x.q, &x.qd, &x.qdd, &mut tau);
                    assert_close(
                        &format!("{} {lang} state {k} variant {v}", r.stem),
                        &times(yb, &pib),
                        &tau,
                        REL,
                    );
                }
            }
        }
    }
}

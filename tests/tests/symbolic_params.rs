//! Generated code with symbolic parameters: the UR5 with its last body (the payload) kept
//! symbolic, in Rust (`Params`) and C (`ur5_payload_params`), against the all-numeric module
//! at the spec's values and against the reference model of the robot with another payload.

use quasidyn_reference::{NewtonEulerModel, ReferenceModel};
use quasidyn_tests::generated::{
    ur5, ur5_payload, ur5_payload_inverse_dynamics_with, ur5_payload_mass_matrix_with,
    PAYLOAD_PARAMS,
};
use quasidyn_tests::{assert_close, chain_of, random_states, workspace_root, Rng};

const REL: f64 = 1e-10;
const N: usize = 6;

fn ur5_robot() -> quasidyn_codegen::Robot {
    quasidyn_codegen::load_spec(&workspace_root().join("robots/ur5.toml")).unwrap()
}

fn arr(v: &[f64]) -> [f64; N] {
    v.try_into().expect("six joints")
}

#[test]
fn spec_values_reproduce_the_numeric_module() {
    let params = ur5_payload::Params::default();
    for (k, x) in random_states(&ur5_robot(), 31, 100).iter().enumerate() {
        let (q, qd, qdd) = (arr(&x.q), arr(&x.qd), arr(&x.qdd));
        let what = |f: &str| format!("state {k} {f}");
        assert_close(
            &what("tau"),
            &ur5_payload::inverse_dynamics(&params, &q, &qd, &qdd),
            &ur5::inverse_dynamics(&q, &qd, &qdd),
            REL,
        );
        let m: Vec<f64> = ur5_payload::mass_matrix(&params, &q).concat();
        assert_close(&what("M"), &m, &ur5::mass_matrix(&q).concat(), REL);
    }
}

/// A random physical payload: mass, centre of mass from the pole, inertia about the CoM.
fn random_payload(rng: &mut Rng) -> (f64, [f64; 3], [[f64; 3]; 3]) {
    let mass = rng.range(0.5, 3.0);
    let com = [
        rng.range(-0.1, 0.1),
        rng.range(-0.1, 0.1),
        rng.range(0.0, 0.2),
    ];
    // Principal moments obeying the triangle inequality, in axes rotated about z.
    let (a, b) = (rng.range(0.01, 0.05), rng.range(0.01, 0.05));
    let c = rng.range((a - b).abs() + 0.001, a + b);
    let t = rng.range(-1.0, 1.0);
    let (s, co) = t.sin_cos();
    let inertia = [
        [co * co * a + s * s * b, co * s * (a - b), 0.0],
        [co * s * (a - b), s * s * a + co * co * b, 0.0],
        [0.0, 0.0, c],
    ];
    (mass, com, inertia)
}

#[test]
fn another_payload_matches_the_reference_model() {
    let robot = ur5_robot();
    let mut rng = Rng::new(7);
    for trial in 0..20 {
        let (mass, com, inertia) = random_payload(&mut rng);
        let mut chain = chain_of(&robot);
        let body = chain.bodies.last_mut().unwrap();
        (body.mass, body.com, body.inertia_com) = (mass, com, inertia);
        let reference = NewtonEulerModel::new(&chain);

        // The generated parameters: mass, first moment and inertia about the pole.
        let c2 = com.iter().map(|c| c * c).sum::<f64>();
        let pole = |i: usize, j: usize| {
            inertia[i][j] + mass * (if i == j { c2 } else { 0.0 } - com[i] * com[j])
        };
        let mut p = ur5_payload::Params::default();
        (p.m6, p.mx6, p.my6, p.mz6) = (mass, mass * com[0], mass * com[1], mass * com[2]);
        (p.ixx6, p.ixy6, p.ixz6) = (pole(0, 0), pole(0, 1), pole(0, 2));
        (p.iyy6, p.iyz6, p.izz6) = (pole(1, 1), pole(1, 2), pole(2, 2));
        let values: Vec<f64> = PAYLOAD_PARAMS
            .iter()
            .map(|field| match *field {
                "m6" => p.m6,
                "mx6" => p.mx6,
                "my6" => p.my6,
                "mz6" => p.mz6,
                "ixx6" => p.ixx6,
                "ixy6" => p.ixy6,
                "ixz6" => p.ixz6,
                "iyy6" => p.iyy6,
                "iyz6" => p.iyz6,
                "izz6" => p.izz6,
                other => panic!("unexpected parameter {other}"),
            })
            .collect();

        for (k, x) in random_states(&robot, 100 + trial, 5).iter().enumerate() {
            let what = |f: &str| format!("payload {trial} state {k} {f}");
            let (q, qd, qdd) = (arr(&x.q), arr(&x.qd), arr(&x.qdd));
            let mut tau = [0.0; N];
            reference.inverse_dynamics(&x.q, &x.qd, &x.qdd, &mut tau);
            let mut m = [0.0; N * N];
            reference.mass_matrix(&x.q, &mut m);

            let rust_tau = ur5_payload::inverse_dynamics(&p, &q, &qd, &qdd);
            assert_close(&what("Rust tau"), &rust_tau, &tau, REL);
            let rust_m = ur5_payload::mass_matrix(&p, &q).concat();
            assert_close(&what("Rust M"), &rust_m, &m, REL);

            let (mut c_tau, mut c_m) = ([0.0; N], [0.0; N * N]);
            // SAFETY: the C functions read `values` (one entry per parameter) and six-entry
            // joint arrays, and write six (tau) or 36 (M) entries; all buffers have that size.
            unsafe {
                ur5_payload_inverse_dynamics_with(
                    values.as_ptr(),
                    q.as_ptr(),
                    qd.as_ptr(),
                    qdd.as_ptr(),
                    c_tau.as_mut_ptr(),
                );
                ur5_payload_mass_matrix_with(values.as_ptr(), q.as_ptr(), c_m.as_mut_ptr());
            }
            assert_close(&what("C tau"), &c_tau, &tau, REL);
            assert_close(&what("C M"), &c_m, &m, REL);
        }
    }
}

//! Timing of the analytical derivatives and the regressors: generated Rust and C of the UR5
//! and of the Franka Panda (7 joints, from its URDF: the Rust through `robot!`, the C by the
//! tests' build script), next to the
//! inverse dynamics of the numeric reference models and central differences of it (the cost
//! of `∂τ/∂q` and `∂τ/∂q̇` without analytical derivatives: `4N` calls).
//!
//! Run with `cargo bench -p quasidyn-tests --bench derivatives`.

use quasidyn_tests::timing::{ns_per_call, SAMPLES, STATES};
use std::hint::black_box;

use quasidyn_reference::{NewtonEulerModel, ReferenceModel};
use quasidyn_tests::generated::{self, ur5};
use quasidyn_tests::{chain_of, random_states, workspace_root};

quasidyn::robot!(
    file = "fixtures/urdf/panda.urdf",
    tip = "panda_hand_tcp",
    name = "panda"
);

type States<const N: usize> = Vec<([f64; N], [f64; N], [f64; N])>;

fn states<const N: usize>(robot: &quasidyn_codegen::Robot) -> States<N> {
    let arr = |v: &[f64]| -> [f64; N] { v.try_into().expect("N joints") };
    random_states(robot, 0xde21, STATES)
        .iter()
        .map(|s| (arr(&s.q), arr(&s.qd), arr(&s.qdd)))
        .collect()
}

/// The reference model's inverse dynamics, and central differences of it in `q` and `qd`.
fn reference_rows<const N: usize>(
    robot: &quasidyn_codegen::Robot,
    x: &States<N>,
) -> Vec<(&'static str, f64)> {
    let chain = chain_of(robot);
    let model = NewtonEulerModel::new(&chain);
    let mut out = [0.0; N];
    let id = ns_per_call(|i| {
        let (q, qd, qdd) = black_box(&x[i]);
        model.inverse_dynamics(q, qd, qdd, &mut out);
        black_box(&out);
    });
    let differences = ns_per_call(|i| {
        let (q, qd, qdd) = black_box(x[i]);
        let mut d = [[0.0; N]; N];
        let (mut plus, mut minus) = ([0.0; N], [0.0; N]);
        for j in 0..N {
            for (which, base) in [(0, q), (1, qd)] {
                let (mut a, mut b) = (base, base);
                a[j] += 1e-6;
                b[j] -= 1e-6;
                if which == 0 {
                    model.inverse_dynamics(&a, &qd, &qdd, &mut plus);
                    model.inverse_dynamics(&b, &qd, &qdd, &mut minus);
                } else {
                    model.inverse_dynamics(&q, &a, &qdd, &mut plus);
                    model.inverse_dynamics(&q, &b, &qdd, &mut minus);
                }
                for r in 0..N {
                    d[r][j] = (plus[r] - minus[r]) / 2e-6;
                }
            }
        }
        black_box(&d);
    });
    vec![
        ("reference Newton-Euler: inverse dynamics", id),
        (
            "reference Newton-Euler: dtau/dq, dtau/dqd by differences",
            differences,
        ),
    ]
}

fn print(title: &str, rows: &[(&str, f64)]) {
    println!("\n{title}, {STATES} random states, best of {SAMPLES}");
    println!("  {:<58} {:>10}", "", "ns/call");
    for (label, ns) in rows {
        println!("  {label:<58} {ns:>10.1}");
    }
}

/// The C functions of one robot's derivatives and regressor (raw pointers, as declared).
struct CDerivatives {
    inverse_dynamics_derivatives:
        unsafe extern "C" fn(*const f64, *const f64, *const f64, *mut f64, *mut f64),
    gravity_derivatives: unsafe extern "C" fn(*const f64, *mut f64),
    forward_dynamics_derivatives:
        unsafe extern "C" fn(*const f64, *const f64, *const f64, *mut f64, *mut f64, *mut f64),
    regressor: unsafe extern "C" fn(*const f64, *const f64, *const f64, *mut f64),
}

/// Timing rows of the C functions `f` of an `N`-joint robot.
fn c_rows<const N: usize>(x: &States<N>, f: &CDerivatives) -> Vec<(&'static str, f64)> {
    let (mut a, mut b, mut c) = (vec![0.0; N * N], vec![0.0; N * N], vec![0.0; N * N]);
    let mut y = vec![0.0; N * 10 * N];
    // SAFETY (all calls below): N-value inputs, outputs of the lengths the C contract writes.
    vec![
        (
            "generated C: inverse_dynamics_derivatives",
            ns_per_call(|i| {
                let (q, qd, qdd) = black_box(&x[i]);
                unsafe {
                    (f.inverse_dynamics_derivatives)(
                        q.as_ptr(),
                        qd.as_ptr(),
                        qdd.as_ptr(),
                        a.as_mut_ptr(),
                        b.as_mut_ptr(),
                    );
                }
                black_box((&a, &b));
            }),
        ),
        (
            "generated C: gravity_derivatives",
            ns_per_call(|i| {
                unsafe { (f.gravity_derivatives)(black_box(&x[i].0).as_ptr(), a.as_mut_ptr()) };
                black_box(&a);
            }),
        ),
        (
            "generated C: forward_dynamics_derivatives",
            ns_per_call(|i| {
                let (q, qd, tau) = black_box(&x[i]);
                unsafe {
                    (f.forward_dynamics_derivatives)(
                        q.as_ptr(),
                        qd.as_ptr(),
                        tau.as_ptr(),
                        a.as_mut_ptr(),
                        b.as_mut_ptr(),
                        c.as_mut_ptr(),
                    );
                }
                black_box((&a, &b, &c));
            }),
        ),
        (
            "generated C: regressor",
            ns_per_call(|i| {
                let (q, qd, qdd) = black_box(&x[i]);
                unsafe { (f.regressor)(q.as_ptr(), qd.as_ptr(), qdd.as_ptr(), y.as_mut_ptr()) };
                black_box(&y);
            }),
        ),
    ]
}

fn bench_ur5() {
    const N: usize = 6;
    let robot = quasidyn_codegen::load_spec(&workspace_root().join("robots/ur5.toml"))
        .expect("shipped spec parses");
    let x = states::<N>(&robot);
    let mut rows = vec![
        (
            "generated Rust: inverse_dynamics",
            ns_per_call(|i| {
                let (q, qd, qdd) = black_box(&x[i]);
                black_box(&ur5::inverse_dynamics(q, qd, qdd));
            }),
        ),
        (
            "generated Rust: inverse_dynamics_derivatives",
            ns_per_call(|i| {
                let (q, qd, qdd) = black_box(&x[i]);
                black_box(&ur5::inverse_dynamics_derivatives(q, qd, qdd));
            }),
        ),
        (
            "generated Rust: gravity_derivatives",
            ns_per_call(|i| {
                black_box(&ur5::gravity_derivatives(black_box(&x[i].0)));
            }),
        ),
        (
            "generated Rust: forward_dynamics_derivatives",
            ns_per_call(|i| {
                let (q, qd, tau) = black_box(&x[i]);
                black_box(&ur5::forward_dynamics_derivatives(q, qd, tau));
            }),
        ),
        (
            "generated Rust: regressor",
            ns_per_call(|i| {
                let (q, qd, qdd) = black_box(&x[i]);
                black_box(&ur5::regressor(q, qd, qdd));
            }),
        ),
        (
            "generated Rust: base_regressor",
            ns_per_call(|i| {
                let (q, qd, qdd) = black_box(&x[i]);
                black_box(&ur5::base_regressor(q, qd, qdd));
            }),
        ),
    ];
    rows.extend(c_rows(
        &x,
        &CDerivatives {
            inverse_dynamics_derivatives: generated::ur5_inverse_dynamics_derivatives,
            gravity_derivatives: generated::ur5_gravity_derivatives,
            forward_dynamics_derivatives: generated::ur5_forward_dynamics_derivatives,
            regressor: generated::ur5_regressor,
        },
    ));
    rows.extend(reference_rows(&robot, &x));
    print("ur5: derivatives and regressors, 6 joints", &rows);
}

fn bench_panda() {
    const N: usize = 7;
    let robot = quasidyn_codegen::load_input(
        &workspace_root().join("tests/fixtures/urdf/panda.urdf"),
        Some("panda_hand_tcp"),
    )
    .expect("the Panda URDF imports");
    let x = states::<N>(&robot);
    let mut rows = vec![
        (
            "generated Rust: inverse_dynamics",
            ns_per_call(|i| {
                let (q, qd, qdd) = black_box(&x[i]);
                black_box(&panda::inverse_dynamics(q, qd, qdd));
            }),
        ),
        (
            "generated Rust: inverse_dynamics_derivatives",
            ns_per_call(|i| {
                let (q, qd, qdd) = black_box(&x[i]);
                black_box(&panda::inverse_dynamics_derivatives(q, qd, qdd));
            }),
        ),
        (
            "generated Rust: gravity_derivatives",
            ns_per_call(|i| {
                black_box(&panda::gravity_derivatives(black_box(&x[i].0)));
            }),
        ),
        (
            "generated Rust: forward_dynamics_derivatives",
            ns_per_call(|i| {
                let (q, qd, tau) = black_box(&x[i]);
                black_box(&panda::forward_dynamics_derivatives(q, qd, tau));
            }),
        ),
        (
            "generated Rust: regressor",
            ns_per_call(|i| {
                let (q, qd, qdd) = black_box(&x[i]);
                black_box(&panda::regressor(q, qd, qdd));
            }),
        ),
        (
            "generated Rust: base_regressor",
            ns_per_call(|i| {
                let (q, qd, qdd) = black_box(&x[i]);
                black_box(&panda::base_regressor(q, qd, qdd));
            }),
        ),
    ];
    rows.extend(c_rows(
        &x,
        &CDerivatives {
            inverse_dynamics_derivatives: generated::panda_c_inverse_dynamics_derivatives,
            gravity_derivatives: generated::panda_c_gravity_derivatives,
            forward_dynamics_derivatives: generated::panda_c_forward_dynamics_derivatives,
            regressor: generated::panda_c_regressor,
        },
    ));
    rows.extend(reference_rows(&robot, &x));
    print("panda: derivatives and regressors, 7 joints", &rows);
}

fn main() {
    bench_ur5();
    bench_panda();
}

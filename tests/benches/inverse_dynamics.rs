//! Inverse dynamics timing: generated Rust, generated C (through FFI), both numeric reference
//! models, and the floor every implementation pays, `sin`/`cos` of every joint angle. One
//! process, the same random states for all, printed as ns per call and ratios to the floor.
//! Then a tree (the 16-joint hand) and a floating-base robot (the 12-joint quadruped):
//! inverse dynamics and mass matrix, generated Rust and C, and for the tree the reference
//! models built from it (they have no floating base).
//!
//! Run with `cargo bench -p quasidyn-tests --bench inverse_dynamics`.

use quasidyn_tests::timing::{ns_per_call, print_rows, SAMPLES, STATES};
use std::hint::black_box;

use quasidyn::math::{cos, sin};
use quasidyn_reference::{NewtonEulerModel, QuasiVelocityModel, ReferenceModel};
use quasidyn_tests::generated::{
    self, hand, quadruped_floating, quadruped_floating_c, C_PUMA560, C_UR5,
};
use quasidyn_tests::{chain_of, random_states, tree_of, workspace_root, CRobot, Rng};

type Arrays<const N: usize> = Vec<([f64; N], [f64; N], [f64; N])>;

/// A generated Rust inverse dynamics function.
type InverseDynamics<const N: usize> = fn(&[f64; N], &[f64; N], &[f64; N]) -> [f64; N];

fn bench<const N: usize>(stem: &str, rust: InverseDynamics<N>, c: &CRobot<f64>) {
    let robot = quasidyn_codegen::load_spec(&workspace_root().join(format!("robots/{stem}.toml")))
        .expect("shipped spec parses");
    let chain = chain_of(&robot);
    let quasi = QuasiVelocityModel::new(&chain);
    let newton = NewtonEulerModel::new(&chain);
    let arr = |v: &[f64]| -> [f64; N] { v.try_into().expect("N joints") };
    let states: Arrays<N> = random_states(&robot, 0xbe4c, STATES)
        .iter()
        .map(|s| (arr(&s.q), arr(&s.qd), arr(&s.qdd)))
        .collect();
    let mut out = [0.0; N];

    let floor = ns_per_call(|i| {
        let q = black_box(&states[i].0);
        let mut sc = [[0.0; 2]; N];
        for j in 0..N {
            sc[j] = [sin(q[j]), cos(q[j])];
        }
        black_box(&sc);
    });
    let mut rows = vec![("sin/cos of every joint (floor)", floor)];
    rows.push((
        "generated Rust",
        ns_per_call(|i| {
            let (q, qd, qdd) = black_box(&states[i]);
            black_box(&rust(q, qd, qdd));
        }),
    ));
    rows.push((
        "generated C (FFI)",
        ns_per_call(|i| {
            let (q, qd, qdd) = black_box(&states[i]);
            // SAFETY: N-value inputs and an N-value output, as the C contract requires.
            unsafe {
                (c.inverse_dynamics)(q.as_ptr(), qd.as_ptr(), qdd.as_ptr(), out.as_mut_ptr());
            }
            black_box(&out);
        }),
    ));
    let models: [(&str, &dyn ReferenceModel); 2] = [
        ("reference: quasi-velocity model", &quasi),
        ("reference: Newton-Euler model", &newton),
    ];
    for (label, model) in models {
        rows.push((
            label,
            ns_per_call(|i| {
                let (q, qd, qdd) = black_box(&states[i]);
                model.inverse_dynamics(q, qd, qdd, &mut out);
                black_box(&out);
            }),
        ));
    }

    println!("\n{stem}: inverse dynamics, {N} joints, {STATES} random states, best of {SAMPLES}");
    println!("  {:<34} {:>10} {:>10}", "", "ns/call", "x floor");
    for (label, ns) in rows {
        println!("  {label:<34} {ns:>10.1} {:>10.2}", ns / floor);
    }
}

/// The hand of robots/ (a tree of 16 joints): inverse dynamics and mass matrix.
fn bench_tree() {
    const N: usize = hand::DOF;
    let robot = quasidyn_codegen::load_spec(&workspace_root().join("robots/hand.toml"))
        .expect("shipped spec parses");
    let tree = tree_of(&robot);
    let quasi = QuasiVelocityModel::from_tree(&tree);
    let newton = NewtonEulerModel::from_tree(&tree);
    let arr = |v: &[f64]| -> [f64; N] { v.try_into().expect("N joints") };
    let states: Arrays<N> = random_states(&robot, 0xbe4c, STATES)
        .iter()
        .map(|s| (arr(&s.q), arr(&s.qd), arr(&s.qdd)))
        .collect();
    let mut tau = [0.0; N];
    let mut m = [0.0; N * N];
    let mut rows = vec![
        (
            "generated Rust: inverse dynamics",
            ns_per_call(|i| {
                let (q, qd, qdd) = black_box(&states[i]);
                black_box(&hand::inverse_dynamics(q, qd, qdd));
            }),
        ),
        (
            "generated C (FFI): inverse dynamics",
            ns_per_call(|i| {
                let (q, qd, qdd) = black_box(&states[i]);
                // SAFETY: N-value inputs and output, as the C contract requires.
                unsafe {
                    generated::hand_inverse_dynamics(
                        q.as_ptr(),
                        qd.as_ptr(),
                        qdd.as_ptr(),
                        tau.as_mut_ptr(),
                    );
                }
                black_box(&tau);
            }),
        ),
        (
            "generated Rust: mass matrix",
            ns_per_call(|i| {
                black_box(&hand::mass_matrix(black_box(&states[i].0)));
            }),
        ),
        (
            "generated C (FFI): mass matrix",
            ns_per_call(|i| {
                let q = black_box(&states[i].0);
                // SAFETY: an N-value input and an N x N output.
                unsafe { generated::hand_mass_matrix(q.as_ptr(), m.as_mut_ptr()) };
                black_box(&m);
            }),
        ),
    ];
    let models: [(&str, &str, &dyn ReferenceModel); 2] = [
        (
            "reference quasi-velocity: inverse dynamics",
            "reference quasi-velocity: mass matrix",
            &quasi,
        ),
        (
            "reference Newton-Euler: inverse dynamics",
            "reference Newton-Euler: mass matrix",
            &newton,
        ),
    ];
    for (id_label, m_label, model) in models {
        rows.push((
            id_label,
            ns_per_call(|i| {
                let (q, qd, qdd) = black_box(&states[i]);
                model.inverse_dynamics(q, qd, qdd, &mut tau);
                black_box(&tau);
            }),
        ));
        rows.push((
            m_label,
            ns_per_call(|i| {
                model.mass_matrix(black_box(&states[i].0), &mut m);
                black_box(&m);
            }),
        ));
    }
    print_rows(&format!("hand: tree of {N} joints"), &rows);
}

/// The floating quadruped of robots/ (12 joints, NQ = 19, NV = 18): inverse dynamics and mass
/// matrix at random base poses (unit quaternions) and joint states.
fn bench_floating() {
    use quadruped_floating::{NQ, NV};
    let mut rng = Rng::new(0xf10a);
    let states: Vec<([f64; NQ], [f64; NV], [f64; NV])> = (0..STATES)
        .map(|_| {
            let mut q = [0.0; NQ];
            for x in &mut q {
                *x = rng.range(-1.0, 1.0);
            }
            let norm = q[3..7].iter().map(|x| x * x).sum::<f64>().sqrt();
            for x in &mut q[3..7] {
                *x /= norm;
            }
            let mut v = [0.0; NV];
            let mut a = [0.0; NV];
            for (x, y) in v.iter_mut().zip(&mut a) {
                *x = rng.range(-2.0, 2.0);
                *y = rng.range(-2.0, 2.0);
            }
            (q, v, a)
        })
        .collect();
    let mut tau = [0.0; NV];
    let mut m = [0.0; NV * NV];
    let rows = [
        (
            "generated Rust: inverse dynamics",
            ns_per_call(|i| {
                let (q, v, a) = black_box(&states[i]);
                black_box(&quadruped_floating::inverse_dynamics(q, v, a));
            }),
        ),
        (
            "generated C (FFI): inverse dynamics",
            ns_per_call(|i| {
                let (q, v, a) = black_box(&states[i]);
                // SAFETY: NQ / NV-value inputs and an NV-value output, as the C contract requires.
                unsafe {
                    quadruped_floating_c::quadruped_floating_inverse_dynamics(
                        q.as_ptr(),
                        v.as_ptr(),
                        a.as_ptr(),
                        tau.as_mut_ptr(),
                    );
                }
                black_box(&tau);
            }),
        ),
        (
            "generated Rust: mass matrix",
            ns_per_call(|i| {
                black_box(&quadruped_floating::mass_matrix(black_box(&states[i].0)));
            }),
        ),
        (
            "generated C (FFI): mass matrix",
            ns_per_call(|i| {
                let q = black_box(&states[i].0);
                // SAFETY: an NQ-value input and an NV x NV output.
                unsafe {
                    quadruped_floating_c::quadruped_floating_mass_matrix(
                        q.as_ptr(),
                        m.as_mut_ptr(),
                    );
                }
                black_box(&m);
            }),
        ),
    ];
    print_rows(
        &format!(
            "quadruped_floating: floating base and {} joints (NV {NV})",
            quadruped_floating::DOF
        ),
        &rows,
    );
}

fn main() {
    bench::<6>("ur5", generated::ur5::inverse_dynamics, &C_UR5);
    bench::<6>("puma560", generated::puma560::inverse_dynamics, &C_PUMA560);
    bench_tree();
    bench_floating();
}

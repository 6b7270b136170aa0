//! Inverse dynamics timing: generated Rust, generated C (through FFI), both numeric reference
//! models, and the floor every implementation pays, `sin`/`cos` of every joint angle. One
//! process, the same random states for all, printed as ns per call and ratios to the floor.
//!
//! Run with `cargo bench -p quasidyn-tests --bench inverse_dynamics`.

use std::hint::black_box;
use std::time::Instant;

use quasidyn::math::{cos, sin};
use quasidyn::reference::{NewtonEulerModel, QuasiVelocityModel, ReferenceModel};
use quasidyn_tests::generated::{self, C_PUMA560, C_UR5};
use quasidyn_tests::{chain_of, random_states, workspace_root, CRobot};

/// States cycled through per sample (enough to defeat branch and value prediction, small
/// enough to stay in L1).
const STATES: usize = 256;
/// Samples per implementation; the minimum is reported (least disturbed by other load).
const SAMPLES: usize = 15;
/// Target duration of one sample.
const SAMPLE_NS: f64 = 20e6;

/// Best-of-`SAMPLES` time per call of `f(i)` over states `i`, in ns.
fn ns_per_call(mut f: impl FnMut(usize)) -> f64 {
    let pass = |f: &mut dyn FnMut(usize), reps: usize| {
        let start = Instant::now();
        for _ in 0..reps {
            for i in 0..STATES {
                f(i);
            }
        }
        start.elapsed().as_nanos() as f64 / (reps * STATES) as f64
    };
    let warm = pass(&mut f, 10);
    let reps = ((SAMPLE_NS / (warm * STATES as f64)) as usize).max(1);
    (0..SAMPLES)
        .map(|_| pass(&mut f, reps))
        .fold(f64::INFINITY, f64::min)
}

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
            black_box(rust(q, qd, qdd));
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

fn main() {
    bench::<6>("ur5", generated::ur5::inverse_dynamics, &C_UR5);
    bench::<6>("puma560", generated::puma560::inverse_dynamics, &C_PUMA560);
}

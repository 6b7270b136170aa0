//! Batched inverse dynamics of the UR5 (`--batch N`): time per state of `inverse_dynamics_batch`
//! over N = 4, 8 and 64 states against N calls of the scalar `inverse_dynamics`, generated Rust
//! and generated C (through FFI), the same random states for all.
//!
//! Run with `cargo bench -p quasidyn-tests --bench batch`; for AVX2, build with
//! `RUSTFLAGS="-C target-cpu=x86-64-v3" CFLAGS="-march=x86-64-v3"` (the C is compiled with
//! `-O3` and the strict C99 flags, so without floating-point contraction).

use quasidyn_tests::timing::{ns_per_state, SAMPLES, STATES};
use std::hint::black_box;

use quasidyn_tests::generated::{self, *};
use quasidyn_tests::{random_states, workspace_root, State};

type Lanes<const B: usize> = [[f64; B]; 6];

/// The states as batches of `B`: `(q, qd, qdd)` per batch, state `k` in lane `k`.
fn batches<const B: usize>(states: &[State]) -> Vec<(Lanes<B>, Lanes<B>, Lanes<B>)> {
    states
        .chunks(B)
        .map(|c| {
            (
                quasidyn_tests::lanes(c, |s| &s.q),
                quasidyn_tests::lanes(c, |s| &s.qd),
                quasidyn_tests::lanes(c, |s| &s.qdd),
            )
        })
        .collect()
}

type Scalar = fn(&[f64; 6], &[f64; 6], &[f64; 6]) -> [f64; 6];
type CScalar = unsafe extern "C" fn(*const f64, *const f64, *const f64, *mut f64);

/// Per-state time of one call per state: the scalar Rust and C of the UR5 module.
fn scalar(states: &[State], rust: Scalar, c: CScalar) -> [f64; 2] {
    let arr = |v: &[f64]| -> [f64; 6] { v.try_into().expect("6 joints") };
    let single: Vec<([f64; 6], [f64; 6], [f64; 6])> = states
        .iter()
        .map(|s| (arr(&s.q), arr(&s.qd), arr(&s.qdd)))
        .collect();
    let mut out = [0.0; 6];
    let rust = ns_per_state(single.len(), 1, |i| {
        let (q, qd, qdd) = black_box(&single[i]);
        black_box(rust(q, qd, qdd));
    });
    let c = ns_per_state(single.len(), 1, |i| {
        let (q, qd, qdd) = black_box(&single[i]);
        // SAFETY: 6-value inputs and a 6-value output, as the C contract requires.
        unsafe { c(q.as_ptr(), qd.as_ptr(), qdd.as_ptr(), out.as_mut_ptr()) };
        black_box(&out);
    });
    [rust, c]
}

/// Per-state time of the batched Rust and C over `B` states.
fn batched<const B: usize>(
    states: &[State],
    rust: fn(&Lanes<B>, &Lanes<B>, &Lanes<B>, &mut Lanes<B>),
    c: CScalar,
) -> [f64; 2] {
    let packed = batches::<B>(states);
    let mut out = [[0.0; B]; 6];
    let rust = ns_per_state(packed.len(), B, |i| {
        let (q, qd, qdd) = black_box(&packed[i]);
        rust(q, qd, qdd, &mut out);
        black_box(&out);
    });
    let c = ns_per_state(packed.len(), B, |i| {
        let (q, qd, qdd) = black_box(&packed[i]);
        // SAFETY: [6][B] arrays, as the batched C function reads and writes them.
        unsafe {
            c(
                q.as_ptr().cast(),
                qd.as_ptr().cast(),
                qdd.as_ptr().cast(),
                out.as_mut_ptr().cast(),
            );
        }
        black_box(&out);
    });
    [rust, c]
}

fn main() {
    let robot = quasidyn_codegen::load_spec(&workspace_root().join("robots/ur5.toml"))
        .expect("shipped spec parses");
    let states = random_states(&robot, 0xba7c, STATES);
    // The scalar functions of the regular UR5 module (the same code as the modules below).
    let [rust, c] = scalar(
        &states,
        generated::ur5::inverse_dynamics,
        C_UR5.inverse_dynamics,
    );
    let rows = [
        (
            4,
            batched::<4>(
                &states,
                generated::ur5_id_b4::inverse_dynamics_batch,
                ur5_id_b4_inverse_dynamics_batch,
            ),
        ),
        (
            8,
            batched::<8>(
                &states,
                generated::ur5_id_b8::inverse_dynamics_batch,
                ur5_id_b8_inverse_dynamics_batch,
            ),
        ),
        (
            64,
            batched::<64>(
                &states,
                generated::ur5_id_b64::inverse_dynamics_batch,
                ur5_id_b64_inverse_dynamics_batch,
            ),
        ),
    ];
    println!(
        "\nur5: inverse dynamics per state, batched over N states and one call per state, \
         {STATES} random states, best of {SAMPLES} (built {} AVX2)",
        if cfg!(target_feature = "avx2") {
            "with"
        } else {
            "without"
        }
    );
    println!(
        "  {:<26} {:>10} {:>8}   {:>10} {:>8}",
        "", "Rust ns", "speedup", "C ns", "speedup"
    );
    println!(
        "  {:<26} {rust:>10.1} {:>8}   {c:>10.1} {:>8}",
        "one call per state", "1.00x", "1.00x"
    );
    for (n, [rb, cb]) in rows {
        println!(
            "  {:<26} {rb:>10.1} {:>7.2}x   {cb:>10.1} {:>7.2}x",
            format!("batch of N = {n}"),
            rust / rb,
            c / cb
        );
    }
}

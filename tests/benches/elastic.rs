//! Timing of the elastic functions (seed 002): the elastic UR5 of robots/ (six elastic joints,
//! six modal coordinates of its flexible upper arm and forearm) and the elastic-joint dynamics
//! of the two-link arm with an elastic forearm (the UR5 has no motor inertias, hence no
//! dynamics), generated Rust, next to the rigid inverse dynamics of the same robot.
//!
//! Run with `cargo bench -p quasidyn-tests --bench elastic`.

use quasidyn_tests::timing::{ns_per_call, print_rows, STATES};
use std::hint::black_box;

use quasidyn_tests::generated::{two_link_elastic as arm, ur5_elastic as ur5};
use quasidyn_tests::Rng;

/// `STATES` vectors of `N` values in `[-scale, scale]`.
fn vectors<const N: usize>(rng: &mut Rng, scale: f64) -> Vec<[f64; N]> {
    (0..STATES)
        .map(|_| std::array::from_fn(|_| rng.range(-scale, scale)))
        .collect()
}

fn bench_ur5() {
    let mut rng = Rng::new(0xe1a5);
    let q = vectors::<{ ur5::DOF }>(&mut rng, 3.0);
    let qd = vectors::<{ ur5::DOF }>(&mut rng, 2.0);
    let qdd = vectors::<{ ur5::DOF }>(&mut rng, 2.0);
    let beta = vectors::<{ ur5::NBETA }>(&mut rng, 1e-3);
    let betad = vectors::<{ ur5::NBETA }>(&mut rng, 1e-2);
    let betadd = vectors::<{ ur5::NBETA }>(&mut rng, 1e-1);
    let w = vectors::<{ ur5::NW }>(&mut rng, 1e-3);
    let wd = vectors::<{ ur5::NW }>(&mut rng, 1e-2);
    let wdd = vectors::<{ ur5::NW }>(&mut rng, 1e-1);
    let rows = [
        (
            "rigid inverse_dynamics",
            ns_per_call(|i| {
                black_box(ur5::inverse_dynamics(black_box(&q[i]), &qd[i], &qdd[i]));
            }),
        ),
        (
            "elastic_forward_kinematics",
            ns_per_call(|i| {
                black_box(ur5::elastic_forward_kinematics(
                    black_box(&q[i]),
                    &beta[i],
                    &w[i],
                ));
            }),
        ),
        (
            "compliance_jacobians",
            ns_per_call(|i| {
                black_box(ur5::compliance_jacobians(black_box(&q[i])));
            }),
        ),
        (
            "elastic_velocity",
            ns_per_call(|i| {
                black_box(ur5::elastic_velocity(
                    black_box(&q[i]),
                    &beta[i],
                    &w[i],
                    &qd[i],
                    &betad[i],
                    &wd[i],
                ));
            }),
        ),
        (
            "elastic_acceleration",
            ns_per_call(|i| {
                black_box(ur5::elastic_acceleration(
                    black_box(&q[i]),
                    &beta[i],
                    &w[i],
                    &qd[i],
                    &betad[i],
                    &wd[i],
                    &qdd[i],
                    &betadd[i],
                    &wdd[i],
                ));
            }),
        ),
        (
            "static_deflection",
            ns_per_call(|i| {
                black_box(ur5::static_deflection(black_box(&q[i])));
            }),
        ),
        (
            "deflected_tool_error",
            ns_per_call(|i| {
                black_box(ur5::deflected_tool_error(black_box(&q[i])));
            }),
        ),
    ];
    print_rows(
        &format!(
            "ur5_elastic: {} joints, NBETA {}, NW {}",
            ur5::DOF,
            ur5::NBETA,
            ur5::NW
        ),
        &rows,
    );
}

fn bench_arm() {
    let mut rng = Rng::new(0xa2e1);
    let q = vectors::<{ arm::DOF }>(&mut rng, 3.0);
    let qd = vectors::<{ arm::DOF }>(&mut rng, 2.0);
    let qdd = vectors::<{ arm::DOF }>(&mut rng, 2.0);
    let qddd = vectors::<{ arm::DOF }>(&mut rng, 2.0);
    let qdddd = vectors::<{ arm::DOF }>(&mut rng, 2.0);
    let theta = vectors::<{ arm::DOF }>(&mut rng, 3.0);
    let thetad = vectors::<{ arm::DOF }>(&mut rng, 2.0);
    let tau = vectors::<{ arm::DOF }>(&mut rng, 5.0);
    let rows = [
        (
            "rigid forward_dynamics",
            ns_per_call(|i| {
                black_box(arm::forward_dynamics(black_box(&q[i]), &qd[i], &tau[i]));
            }),
        ),
        (
            "elastic_forward_dynamics",
            ns_per_call(|i| {
                black_box(arm::elastic_forward_dynamics(
                    black_box(&q[i]),
                    &qd[i],
                    &theta[i],
                    &thetad[i],
                    &tau[i],
                ));
            }),
        ),
        (
            "elastic_feedforward",
            ns_per_call(|i| {
                black_box(arm::elastic_feedforward(
                    black_box(&q[i]),
                    &qd[i],
                    &qdd[i],
                    &qddd[i],
                    &qdddd[i],
                ));
            }),
        ),
    ];
    print_rows(&format!("two_link_elastic: {} joints", arm::DOF), &rows);
}

fn main() {
    bench_ur5();
    bench_arm();
}

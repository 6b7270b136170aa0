//! The functions generated on request (centre of mass, centroidal momentum, Coriolis matrix,
//! inverse mass matrix, joint wrenches, energies, the last named frame's motion) of the UR5, the hand, the floating
//! quadruped and the 30-joint floating humanoid, generated Rust, the same random states for
//! all. Pinocchio's algorithms of the same names are timed
//! by `tools/pinocchio_timing.py` on the same robots.
//!
//! Run with `cargo bench -p quasidyn-tests --bench whole_body`; for AVX2, build with
//! `RUSTFLAGS="-C target-cpu=x86-64-v3"` (and time Pinocchio with `--march x86-64-v3`).

use std::hint::black_box;

use quasidyn_tests::generated::{
    hand_whole_body, humanoid30_whole_body, quadruped_floating_whole_body, ur5_whole_body,
};
use quasidyn_tests::timing::{ns_per_call, print_rows, STATES};
use quasidyn_tests::Rng;

/// `STATES` states of `NQ` positions and `NV` velocities: positions in [-1, 1] (a floating
/// base's quaternion too: the functions normalise it), velocities in [-2, 2].
fn states<const NQ: usize, const NV: usize>(seed: u64) -> Vec<([f64; NQ], [f64; NV])> {
    let mut rng = Rng::new(seed);
    (0..STATES)
        .map(|_| {
            let q = std::array::from_fn(|_| rng.range(-1.0, 1.0));
            let v = std::array::from_fn(|_| rng.range(-2.0, 2.0));
            (q, v)
        })
        .collect()
}

/// Times each listed function of a module: `f(q)`, `f(q, v)`, or `f(q, v, a)` (the joint
/// wrenches; the velocities serve as accelerations too).
macro_rules! time_module {
    ($title:expr, $m:ident, $nq:expr, $nv:expr, [$($q:ident),*], [$($qv:ident),*]) => {{
        let states = states::<{ $nq }, { $nv }>(20261128);
        let rows: Vec<(&str, f64)> = vec![
            $((stringify!($q), ns_per_call(|i| {
                black_box($m::$q(black_box(&states[i].0)));
            })),)*
            $((stringify!($qv), ns_per_call(|i| {
                let (q, v) = black_box(&states[i]);
                black_box($m::$qv(q, v));
            })),)*
            ("joint_wrenches", ns_per_call(|i| {
                let (q, v) = black_box(&states[i]);
                black_box($m::joint_wrenches(q, v, v));
            })),
        ];
        print_rows($title, &rows);
    }};
}

fn main() {
    time_module!(
        "ur5: generated Rust (6 joints)",
        ur5_whole_body,
        6,
        6,
        [
            center_of_mass,
            center_of_mass_jacobian,
            centroidal_momentum_matrix,
            mass_matrix_inverse,
            potential_energy
        ],
        [
            center_of_mass_acceleration_bias,
            centroidal_momentum,
            centroidal_momentum_bias,
            kinetic_energy,
            coriolis_matrix
        ]
    );
    time_module!(
        "hand: generated Rust (16 joints)",
        hand_whole_body,
        16,
        16,
        [
            center_of_mass,
            center_of_mass_jacobian,
            centroidal_momentum_matrix,
            mass_matrix_inverse,
            potential_energy
        ],
        [
            center_of_mass_acceleration_bias,
            centroidal_momentum,
            centroidal_momentum_bias,
            kinetic_energy,
            coriolis_matrix,
            frame_velocity_link_15_0_tip,
            frame_acceleration_bias_link_15_0_tip,
            jacobian_derivative_link_15_0_tip
        ]
    );
    time_module!(
        "quadruped_floating: generated Rust (6 + 12 coordinates)",
        quadruped_floating_whole_body,
        19,
        18,
        [
            center_of_mass,
            center_of_mass_jacobian,
            centroidal_momentum_matrix,
            mass_matrix_inverse,
            potential_energy
        ],
        [
            center_of_mass_acceleration_bias,
            centroidal_momentum,
            centroidal_momentum_bias,
            kinetic_energy,
            frame_velocity_rl_foot,
            frame_acceleration_bias_rl_foot,
            jacobian_derivative_rl_foot
        ]
    );
    time_module!(
        "humanoid30: generated Rust (6 + 30 coordinates)",
        humanoid30_whole_body,
        37,
        36,
        [
            center_of_mass,
            center_of_mass_jacobian,
            centroidal_momentum_matrix,
            mass_matrix_inverse,
            potential_energy
        ],
        [
            center_of_mass_acceleration_bias,
            centroidal_momentum,
            centroidal_momentum_bias,
            kinetic_energy,
            frame_velocity_head,
            frame_acceleration_bias_head,
            jacobian_derivative_head
        ]
    );
}

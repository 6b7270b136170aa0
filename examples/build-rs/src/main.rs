//! Drives the simulated UR5 to a setpoint and prints the final joint error.

use example_build_rs::{max_error, simulate, ur5};

fn main() {
    let target = [0.3, -0.8, 1.0, -0.5, 0.6, 0.2];
    // 2 s at 1 kHz from the zero configuration.
    let (q, _) = simulate(&ur5::Ur5, [0.0; ur5::DOF], target, 2000);
    println!(
        "ur5: {} joints, final joint error after 2 s: {:.3e} rad",
        ur5::DOF,
        max_error(&q, &target)
    );
}

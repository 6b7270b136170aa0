//! Drives the simulated UR5 to a setpoint and prints the final joint error and speed.

use quasidyn::Dynamics;

// The module `ur5` that build.rs wrote to `$OUT_DIR/ur5.rs`.
quasidyn::include_robot!("ur5");

/// Control and integration step: 1 kHz.
const DT: f64 = 1e-3;

/// Simulates PD control with gravity compensation from rest at `q0` towards `target` for
/// `steps` steps of [`DT`], integrating the forward dynamics with semi-implicit Euler.
/// Returns the final joint positions and velocities.
fn simulate<const N: usize>(
    robot: &impl Dynamics<N>,
    q0: [f64; N],
    target: [f64; N],
    steps: usize,
) -> ([f64; N], [f64; N]) {
    // PD gains shaped by the mass matrix at the target, so that near it every joint behaves
    // as a decoupled, critically damped oscillator at OMEGA.
    const OMEGA: f64 = 10.0;
    let m = robot.mass_matrix(&target);
    let (mut q, mut qd) = (q0, [0.0; N]);
    for _ in 0..steps {
        let g = robot.gravity(&q);
        let pd: [f64; N] =
            std::array::from_fn(|j| OMEGA * OMEGA * (target[j] - q[j]) - 2.0 * OMEGA * qd[j]);
        let tau: [f64; N] =
            std::array::from_fn(|i| m[i].iter().zip(&pd).map(|(m, a)| m * a).sum::<f64>() + g[i]);
        let qdd = robot.forward_dynamics(&q, &qd, &tau);
        // Semi-implicit Euler: the new velocity moves the position.
        for ((q, qd), qdd) in q.iter_mut().zip(&mut qd).zip(qdd) {
            *qd += DT * qdd;
            *q += DT * *qd;
        }
    }
    (q, qd)
}

/// Largest absolute difference between two joint vectors.
fn max_error<const N: usize>(a: &[f64; N], b: &[f64; N]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

fn main() {
    let target = [0.3, -0.8, 1.0, -0.5, 0.6, 0.2];
    // 2 s at 1 kHz from rest at the zero configuration.
    let (q, qd) = simulate(&ur5::Ur5, [0.0; ur5::DOF], target, 2000);
    println!(
        "ur5: {} joints, after 2 s: joint error {:.3e} rad, joint speed {:.3e} rad/s",
        ur5::DOF,
        max_error(&q, &target),
        max_error(&qd, &[0.0; ur5::DOF])
    );
}

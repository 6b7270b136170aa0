//! Simulates an exciting UR5 trajectory with noisy torques, identifies the base inertial
//! parameters by least squares and prints them against the true ones.

use example_identify::{exciting_trajectory, identify, measure, ur5, Noise};

fn main() {
    let sigma = 0.05;
    let trajectory = exciting_trajectory(2000, 20.0);
    let torques = measure(&trajectory, sigma, &mut Noise::new(2026));
    let id = identify(&trajectory, &torques);
    println!(
        "ur5: {} base parameters from {} samples of {} joints, torque noise sigma {sigma} N m",
        ur5::NB,
        trajectory.len(),
        ur5::DOF
    );
    println!(
        "condition number (scaled columns) {:.1}, torque residual rms {:.4} N m\n",
        id.condition, id.residual_rms
    );
    println!(
        "{:>4} {:>14} {:>14} {:>12}",
        "k", "true", "estimated", "error"
    );
    for (k, (t, e)) in ur5::BASE_PARAMETERS.iter().zip(&id.estimate).enumerate() {
        println!("{:>4} {t:>14.6} {e:>14.6} {:>12.2e}", k + 1, e - t);
    }
}

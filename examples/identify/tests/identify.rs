//! The identification example: exact recovery without noise, a residual at the noise level
//! and accurate torque predictions with noise.

use example_identify::{exciting_trajectory, identify, measure, ur5, Noise};

#[test]
fn noise_free_torques_give_the_true_base_parameters() {
    let trajectory = exciting_trajectory(400, 20.0);
    let torques = measure(&trajectory, 0.0, &mut Noise::new(1));
    let id = identify(&trajectory, &torques);
    let scale = ur5::BASE_PARAMETERS
        .iter()
        .fold(1.0_f64, |m, v| m.max(v.abs()));
    for (k, (t, e)) in ur5::BASE_PARAMETERS.iter().zip(&id.estimate).enumerate() {
        assert!(
            (t - e).abs() <= 1e-8 * scale,
            "base parameter {k}: {e} vs {t}"
        );
    }
    assert!(id.residual_rms < 1e-10, "{}", id.residual_rms);
}

#[test]
fn noisy_torques_give_a_residual_at_the_noise_level_and_good_predictions() {
    let sigma = 0.05;
    let trajectory = exciting_trajectory(2000, 20.0);
    let torques = measure(&trajectory, sigma, &mut Noise::new(2026));
    let id = identify(&trajectory, &torques);
    // Least squares leaves (rows - NB) / rows of the noise variance in the residual.
    assert!(
        (0.9 * sigma..1.1 * sigma).contains(&id.residual_rms),
        "{}",
        id.residual_rms
    );
    // The identified model predicts the true torques on another trajectory far below the noise.
    let check = exciting_trajectory(300, 7.0);
    let truth = measure(&check, 0.0, &mut Noise::new(1));
    let mut worst = 0.0_f64;
    for ((q, qd, qdd), t) in check.iter().zip(&truth) {
        let yb = ur5::base_regressor(q, qd, qdd);
        for i in 0..ur5::DOF {
            let predicted: f64 = yb[i].iter().zip(&id.estimate).map(|(a, b)| a * b).sum();
            worst = worst.max((predicted - t[i]).abs());
        }
    }
    assert!(worst < 0.5 * sigma, "worst torque prediction error {worst}");
}

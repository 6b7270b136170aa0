//! The generated robots obey their physics: the controller converges, gravity compensation
//! holds them at rest, and the inline pendulum matches its closed form.

use example_macro::{acrobot, max_error, pendulum, planar3r, simulate};
use quasidyn::Dynamics;

#[test]
fn pd_with_gravity_compensation_reaches_the_setpoint() {
    let target = [0.6, -0.4, 0.9];
    let (q, qd) = simulate(&planar3r::Planar3r, [0.0; planar3r::DOF], target, 2000);
    assert!(max_error(&q, &target) < 1e-3, "q = {q:?}");
    assert!(max_error(&qd, &[0.0; 3]) < 1e-2, "qd = {qd:?}");
    let (q, _) = simulate(&pendulum::Pendulum, [0.0], [-1.0], 2000);
    assert!(max_error(&q, &[-1.0]) < 1e-3, "q = {q:?}");
}

#[test]
fn gravity_compensation_holds_the_arm_at_rest() {
    for q in [[0.0; 3], [0.6, -0.4, 0.9], [2.5, -1.9, 0.3]] {
        let qdd = planar3r::forward_dynamics(&q, &[0.0; 3], &planar3r::gravity(&q));
        assert!(
            max_error(&qdd, &[0.0; 3]) < 1e-9,
            "q = {q:?}: qdd = {qdd:?}"
        );
    }
}

#[test]
fn pendulum_matches_its_closed_form() {
    // A point mass m = 1 kg at l = 1 m: M = m l^2, g(q) = m g l cos q (gravity along -y).
    for q in [0.0, 0.7, -2.0] {
        assert!((pendulum::mass_matrix(&[q])[0][0] - 1.0).abs() < 1e-12);
        assert!((pendulum::gravity(&[q])[0] - 9.81 * q.cos()).abs() < 1e-12);
        let qdd = pendulum::Pendulum.forward_dynamics(&[q], &[0.0], &[0.0]);
        assert!((qdd[0] + 9.81 * q.cos()).abs() < 1e-12);
    }
}

#[test]
fn the_mjcf_acrobot_matches_mujoco() {
    // State 0 of tests/fixtures/mjcf/acrobot.json: MuJoCo 4's mj_fullM and qfrc_bias at
    // qvel = 0 (tools/mjcf_reference.py).
    let q = [-1.2903793400848886, 2.394892138964769];
    let m = [
        [0.9569400305834989, -0.021663312360002407],
        [-0.021663312360002407, 0.3453036571964958],
    ];
    let g = [9.758865806952812, -4.381368031304625];
    assert_eq!(acrobot::JOINT_NAMES, ["shoulder", "elbow"]);
    let got = acrobot::mass_matrix(&q);
    for (row, want) in got.iter().zip(&m) {
        assert!(max_error(row, want) < 1e-12, "{got:?}");
    }
    assert!(max_error(&acrobot::gravity(&q), &g) < 1e-12);
}

//! The generated robots obey their physics: the controller converges, gravity compensation
//! holds them at rest, and the inline pendulum matches its closed form.

use example_macro::{max_error, pendulum, planar3r, simulate};
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

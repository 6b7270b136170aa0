//! The controller converges, and gravity compensation alone holds the arm at rest.

use example_build_rs::{max_error, simulate, ur5};
use quasidyn::Dynamics;

#[test]
fn pd_with_gravity_compensation_reaches_the_setpoint() {
    let target = [0.3, -0.8, 1.0, -0.5, 0.6, 0.2];
    let (q, qd) = simulate(&ur5::Ur5, [0.0; ur5::DOF], target, 2000);
    assert!(max_error(&q, &target) < 1e-3, "q = {q:?}");
    assert!(max_error(&qd, &[0.0; ur5::DOF]) < 1e-2, "qd = {qd:?}");
}

#[test]
fn gravity_compensation_holds_the_arm_at_rest() {
    for q in [
        [0.0; 6],
        [0.3, -0.8, 1.0, -0.5, 0.6, 0.2],
        [-1.2, 0.4, -2.1, 1.7, -0.9, 2.8],
    ] {
        let tau = ur5::gravity(&q);
        let qdd = ur5::Ur5.forward_dynamics(&q, &[0.0; 6], &tau);
        assert!(
            max_error(&qdd, &[0.0; 6]) < 1e-9,
            "q = {q:?}: qdd = {qdd:?}"
        );
    }
}

//! The controller converges, and gravity compensation alone holds the arm at rest.

use example_build_rs::{max_error, ur5};
use quasidyn::Dynamics;

/// The number after `label` in the program's output line.
fn value_after(line: &str, label: &str) -> f64 {
    let (_, rest) = line
        .split_once(label)
        .unwrap_or_else(|| panic!("no `{label}` in {line}"));
    rest.split_whitespace().next().unwrap().parse().unwrap()
}

/// The README's `cargo run -p example-build-rs`: src/main.rs holds the controller, so the
/// program is what is checked.
#[test]
fn pd_with_gravity_compensation_reaches_the_setpoint() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_example-build-rs"))
        .output()
        .expect("the example runs");
    assert!(out.status.success());
    let line = String::from_utf8(out.stdout).unwrap();
    assert!(line.starts_with("ur5: 6 joints, after 2 s:"), "{line}");
    assert!(value_after(&line, "joint error ") < 1e-3, "{line}");
    assert!(value_after(&line, "joint speed ") < 1e-2, "{line}");
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

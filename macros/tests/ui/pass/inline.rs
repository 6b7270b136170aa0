// An inline spec becomes a module with the free functions and a `Dynamics` implementation.
use quasidyn::Dynamics;

quasidyn::robot!(pub r#"
name = "Two Link"
gravity = [0.0, -9.81, 0.0]

[[body]]
joint = "revolute"
axis = "z"
next = [1.0, 0.0, 0.0]
mass = 1.0
com = [0.5, 0.0, 0.0]

[[body]]
joint = "revolute"
axis = "z"
next = [1.0, 0.0, 0.0]
mass = 1.0
com = [0.5, 0.0, 0.0]
"#, name = "arm");

fn main() {
    const _: () = assert!(arm::DOF == 2);
    let q = [0.3, -0.2];
    let tau = arm::gravity(&q);
    let qdd = arm::Arm.forward_dynamics(&q, &[0.0; 2], &tau);
    assert!(qdd.iter().all(|a| a.abs() < 1e-12));
    let (_, p) = arm::forward_kinematics(&[0.0, 0.0]);
    assert!((p[0] - 2.0).abs() < 1e-12);
}

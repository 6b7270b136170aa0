// `only`: the module holds just the functions asked for (and the constants), with the values
// of the full module.
quasidyn::robot!(r#"
name = "arm"
gravity = [0.0, -9.81, 0.0]

[[body]]
joint = "revolute"
axis = "z"
next = [1.0, 0.0, 0.0]
mass = 1.0
com = [0.5, 0.0, 0.0]

[[body]]
joint = "revolute"
axis = "y"
next = [1.0, 0.0, 0.0]
mass = 1.0
com = [0.5, 0.1, 0.0]
"#, only = ["inverse_dynamics", "mass_matrix"]);

quasidyn::robot!(r#"
name = "arm"
gravity = [0.0, -9.81, 0.0]

[[body]]
joint = "revolute"
axis = "z"
next = [1.0, 0.0, 0.0]
mass = 1.0
com = [0.5, 0.0, 0.0]

[[body]]
joint = "revolute"
axis = "y"
next = [1.0, 0.0, 0.0]
mass = 1.0
com = [0.5, 0.1, 0.0]
"#, name = "full");

fn main() {
    const _: () = assert!(arm::DOF == 2);
    assert_eq!(arm::JOINT_NAMES, full::JOINT_NAMES);
    assert_eq!(arm::STANDARD_PARAMETERS, full::STANDARD_PARAMETERS);
    let (q, qd, qdd) = ([0.3, -0.2], [1.0, -0.5], [0.1, 0.2]);
    let a = arm::inverse_dynamics(&q, &qd, &qdd);
    let b = full::inverse_dynamics(&q, &qd, &qdd);
    for (x, y) in a.iter().zip(&b) {
        assert!((x - y).abs() <= 1e-12 * x.abs().max(1.0), "{x} {y}");
    }
    let m = arm::mass_matrix(&q);
    let n = full::mass_matrix(&q);
    for (x, y) in m.iter().flatten().zip(n.iter().flatten()) {
        assert!((x - y).abs() <= 1e-12 * x.abs().max(1.0), "{x} {y}");
    }
}

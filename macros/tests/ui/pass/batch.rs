// `batch = N`: each function also over N states at once, as N scalar calls.
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
"#, batch = 4);

fn main() {
    assert_eq!(arm::BATCH, 4);
    let states = [[0.3, -0.2], [1.1, 0.4], [-0.6, 2.0], [0.0, -1.3]];
    let mut q = [[0.0; arm::BATCH]; arm::DOF];
    let mut qd = q;
    let mut qdd = q;
    for (k, s) in states.iter().enumerate() {
        for j in 0..arm::DOF {
            q[j][k] = s[j];
            qd[j][k] = 0.5 * s[j] - 0.1;
            qdd[j][k] = s[j] * s[j];
        }
    }
    let mut tau = [[0.0; arm::BATCH]; arm::DOF];
    arm::inverse_dynamics_batch(&q, &qd, &qdd, &mut tau);
    let mut m = [[0.0; arm::BATCH]; 4];
    arm::mass_matrix_batch(&q, &mut m);
    for k in 0..arm::BATCH {
        let at = |x: &[[f64; arm::BATCH]; arm::DOF]| [x[0][k], x[1][k]];
        // Equal but for the batched sin and cos (within 2 ulp of the C library's).
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-13 * a.abs().max(1.0);
        let one = arm::inverse_dynamics(&at(&q), &at(&qd), &at(&qdd));
        assert!(close(one[0], tau[0][k]) && close(one[1], tau[1][k]));
        let mm = arm::mass_matrix(&at(&q));
        for (i, row) in mm.iter().enumerate() {
            for (j, x) in row.iter().enumerate() {
                assert!(close(*x, m[2 * i + j][k]));
            }
        }
    }
}

//! The tree and the floating-base robot of the example, through the generated Rust.

use example_build_rs::{hand, max_error, quadruped_floating as quadruped};

#[test]
fn hand_fingers_do_not_couple_and_dynamics_agree() {
    let q: [f64; hand::DOF] = std::array::from_fn(|i| 0.1 + 0.05 * i as f64);
    let qd: [f64; hand::DOF] = std::array::from_fn(|i| 0.7 - 0.1 * i as f64);
    let qdd: [f64; hand::DOF] = std::array::from_fn(|i| 1.5 - 0.2 * i as f64);
    let m = hand::mass_matrix(&q);
    for (i, row) in m.iter().enumerate() {
        for (j, &entry) in row.iter().enumerate() {
            if i / 4 != j / 4 {
                assert_eq!(entry, 0.0, "M[{i}][{j}] couples two fingers");
            }
        }
    }
    let tau = hand::inverse_dynamics(&q, &qd, &qdd);
    let back = hand::forward_dynamics(&q, &qd, &tau);
    assert!(max_error(&back, &qdd) < 1e-9, "{back:?}");
}

#[test]
fn quadruped_standing_wrench_is_its_weight() {
    let mut q = [0.0; quadruped::NQ];
    // Trunk turned by 0.5 rad about x: unit quaternion (sin 0.25, 0, 0, cos 0.25).
    q[3] = 0.25_f64.sin();
    q[6] = 0.25_f64.cos();
    for leg in 0..4 {
        q[7 + 3 * leg..10 + 3 * leg].copy_from_slice(&[0.1, 0.7, -1.4]);
    }
    let g = quadruped::gravity(&q);
    // m g upwards, in trunk axes (0, sin 0.5, cos 0.5); the total mass is the mass matrix's
    // linear block m I.
    let m = quadruped::mass_matrix(&q)[0][0];
    let want = [0.0, 9.81 * m * 0.5_f64.sin(), 9.81 * m * 0.5_f64.cos()];
    assert!(max_error(&[g[0], g[1], g[2]], &want) < 1e-9, "{g:?}");
    // The same state with the quaternion scaled: normalised inside.
    let mut scaled = q;
    for x in &mut scaled[3..7] {
        *x *= 2.0;
    }
    assert!(max_error(&quadruped::gravity(&scaled), &g) < 1e-12);
}

#[test]
fn quadruped_forward_dynamics_undoes_inverse_dynamics() {
    let mut q = [0.0; quadruped::NQ];
    q[6] = 1.0;
    let v: [f64; quadruped::NV] = std::array::from_fn(|i| 0.3 - 0.05 * i as f64);
    let a: [f64; quadruped::NV] = std::array::from_fn(|i| -1.0 + 0.1 * i as f64);
    let tau = quadruped::inverse_dynamics(&q, &v, &a);
    let back = quadruped::forward_dynamics(&q, &v, &tau);
    assert!(max_error(&back, &a) < 1e-9, "{back:?}");
}

//! Both numeric reference models against Pinocchio fixtures, for every chain in robots/ (the
//! trees: tree_reference.rs).

use quasidyn_reference::{NewtonEulerModel, QuasiVelocityModel, ReferenceModel};
use quasidyn_tests::{assert_close, chain_of, flat, load_fixture, random_states, shipped_robots};

const REL: f64 = 1e-10;

#[test]
fn reference_models_match_pinocchio_fixtures() {
    let robots = shipped_robots();
    assert!(robots.len() >= 9, "robots/ must ship the nine specs");
    for path in robots {
        let robot = quasidyn_codegen::load_spec(&path).expect("shipped spec parses");
        if !robot.is_chain() {
            continue; // trees: tests/tests/tree_reference.rs
        }
        let chain = chain_of(&robot);
        let fixture = load_fixture(path.file_stem().unwrap().to_str().unwrap());
        assert_eq!(fixture.dof, robot.dof());
        assert!(!fixture.states.is_empty());
        let quasi = QuasiVelocityModel::new(&chain);
        let newton = NewtonEulerModel::new(&chain);
        let models: [(&dyn ReferenceModel, &str); 2] = [(&quasi, "quasi"), (&newton, "newton")];
        let n = robot.dof();
        for (model, label) in models {
            for (k, s) in fixture.states.iter().enumerate() {
                let what = |f: &str| format!("{} {label} state {k} {f}", robot.name);
                let mut out = vec![0.0; n];
                model.inverse_dynamics(&s.q, &s.qd, &s.qdd, &mut out);
                assert_close(&what("tau"), &out, &s.tau, REL);
                model.gravity(&s.q, &mut out);
                assert_close(&what("gravity"), &out, &s.gravity, REL);
                model.nonlinear_effects(&s.q, &s.qd, &mut out);
                assert_close(&what("nle"), &out, &s.nonlinear_effects, REL);
                model.forward_dynamics(&s.q, &s.qd, &s.tau_fd, &mut out);
                assert_close(&what("qdd_fd"), &out, &s.qdd_fd, REL);
                let mut m = vec![0.0; n * n];
                model.mass_matrix(&s.q, &mut m);
                assert_close(&what("M"), &m, &flat(&s.mass_matrix), REL);
                let (rot, pos) = model.forward_kinematics(&s.q);
                let rot: Vec<f64> = rot.iter().flatten().copied().collect();
                assert_close(&what("tool R"), &rot, &flat(&s.tool_rotation), REL);
                assert_close(&what("tool p"), &pos, &s.tool_position, REL);
                let mut j = vec![0.0; 6 * n];
                model.jacobian(&s.q, &mut j);
                assert_close(&what("J"), &j, &flat(&s.jacobian), REL);
                let ke = model.kinetic_energy(&s.q, &s.qd);
                let ke_ref = s.kinetic_energy.expect("fixture has kinetic energy");
                assert_close(&what("T"), &[ke], &[ke_ref], REL);
                let (mut f, mut t) = (vec![0.0; 3 * n], vec![0.0; 3 * n]);
                model.static_joint_reactions(&s.q, &mut f, &mut t);
                assert_close(&what("F static"), &f, &flat(&s.static_force), REL);
                assert_close(&what("T static"), &t, &flat(&s.static_moment), REL);
            }
        }
    }
}

/// The papers' recursion and the textbook Newton–Euler agree to 1e-12 on every shipped robot
/// at 100 random states, on every quantity both compute.
#[test]
fn reference_models_agree_on_every_shipped_robot() {
    const AGREE: f64 = 1e-12;
    for path in shipped_robots() {
        let robot = quasidyn_codegen::load_spec(&path).expect("shipped spec parses");
        if !robot.is_chain() {
            continue; // trees: tests/tests/tree_reference.rs
        }
        let chain = chain_of(&robot);
        let (quasi, newton) = (
            QuasiVelocityModel::new(&chain),
            NewtonEulerModel::new(&chain),
        );
        let n = robot.dof();
        for (k, x) in random_states(&robot, 17, 100).iter().enumerate() {
            let what = |f: &str| format!("{} state {k} {f}", robot.name);
            let (mut a, mut b) = (vec![0.0; n], vec![0.0; n]);
            quasi.inverse_dynamics(&x.q, &x.qd, &x.qdd, &mut a);
            newton.inverse_dynamics(&x.q, &x.qd, &x.qdd, &mut b);
            assert_close(&what("tau"), &a, &b, AGREE);
            quasi.nonlinear_effects(&x.q, &x.qd, &mut a);
            newton.nonlinear_effects(&x.q, &x.qd, &mut b);
            assert_close(&what("nle"), &a, &b, AGREE);
            quasi.gravity(&x.q, &mut a);
            newton.gravity(&x.q, &mut b);
            assert_close(&what("gravity"), &a, &b, AGREE);
            quasi.forward_dynamics(&x.q, &x.qd, &x.tau, &mut a);
            newton.forward_dynamics(&x.q, &x.qd, &x.tau, &mut b);
            assert_close(&what("qdd"), &a, &b, AGREE);
            let (mut ma, mut mb) = (vec![0.0; n * n], vec![0.0; n * n]);
            quasi.mass_matrix(&x.q, &mut ma);
            newton.mass_matrix(&x.q, &mut mb);
            assert_close(&what("M"), &ma, &mb, AGREE);
            let (mut ja, mut jb) = (vec![0.0; 6 * n], vec![0.0; 6 * n]);
            quasi.jacobian(&x.q, &mut ja);
            newton.jacobian(&x.q, &mut jb);
            assert_close(&what("J"), &ja, &jb, AGREE);
            let ((ra, pa), (rb, pb)) = (
                quasi.forward_kinematics(&x.q),
                newton.forward_kinematics(&x.q),
            );
            assert_close(&what("R"), ra.as_flattened(), rb.as_flattened(), AGREE);
            assert_close(&what("p"), &pa, &pb, AGREE);
            let (ka, kb) = (
                quasi.kinetic_energy(&x.q, &x.qd),
                newton.kinetic_energy(&x.q, &x.qd),
            );
            assert_close(&what("T"), &[ka], &[kb], AGREE);
            let (mut fa, mut ta) = (vec![0.0; 3 * n], vec![0.0; 3 * n]);
            let (mut fb, mut tb) = (vec![0.0; 3 * n], vec![0.0; 3 * n]);
            quasi.static_joint_reactions(&x.q, &mut fa, &mut ta);
            newton.static_joint_reactions(&x.q, &mut fb, &mut tb);
            assert_close(&what("F"), &fa, &fb, AGREE);
            assert_close(&what("T static"), &ta, &tb, AGREE);
        }
    }
}

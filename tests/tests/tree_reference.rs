//! Both numeric reference models against the Pinocchio fixtures of the tree robots, at 1e-9
//! relative, on every function they have: inverse and forward dynamics, gravity, nonlinear
//! effects, mass matrix, kinetic energy, static joint reactions, the seed-001 split, and every
//! frame's pose and Jacobian.
//!
//! The tree robots of `robots/` are read by the spec parser and turned into the reference
//! models' tree by `tree_of`.

use std::path::{Path, PathBuf};

use quasidyn_reference::{JointKind, NewtonEulerModel, QuasiVelocityModel, ReferenceModel, Tree};
use quasidyn_tests::{assert_close, flat, load_fixture, shipped_robots, tree_of};

const REL: f64 = 1e-9;

/// Every tree robot of `robots/` (a robot that is not a chain), sorted by file name.
fn tree_specs() -> Vec<PathBuf> {
    shipped_robots()
        .into_iter()
        .filter(|path| !read_tree(path).2)
        .collect()
}

/// Name, reference tree and whether the spec is a chain.
fn read_tree(path: &Path) -> (String, Tree, bool) {
    let robot =
        quasidyn_codegen::load_spec(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (robot.name.clone(), tree_of(&robot), robot.is_chain())
}

#[test]
fn reference_models_of_every_robot_as_a_tree_match_the_fixtures() {
    assert!(
        tree_specs().len() >= 4,
        "robots/ ships the hand, dual arm, quadruped and synthetic tree"
    );
    // Chains too: their tree (no frames) must give the chain fixtures' dynamics.
    for path in shipped_robots() {
        let (name, tree, chain) = read_tree(&path);
        let fixture = load_fixture(&name);
        let n = tree.dof();
        assert_eq!(fixture.dof, n, "{name}: dof");
        assert_eq!(fixture.states.len(), 50, "{name}: states");
        let quasi = QuasiVelocityModel::from_tree(&tree);
        let newton = NewtonEulerModel::from_tree(&tree);
        let models: [(&dyn ReferenceModel, &str); 2] = [(&quasi, "quasi"), (&newton, "newton")];
        for (model, label) in models {
            assert_eq!(model.frame_count(), tree.frames.len());
            for (k, s) in fixture.states.iter().enumerate() {
                let what = |f: &str| format!("{name} {label} state {k} {f}");
                assert_eq!(s.frames.len(), tree.frames.len(), "{}", what("frames"));
                assert_eq!(
                    s.tool_position.is_empty(),
                    !chain,
                    "{}",
                    what("tool iff chain")
                );
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
                let ke = model.kinetic_energy(&s.q, &s.qd);
                let ke_ref = s.kinetic_energy.expect("fixture has kinetic energy");
                assert_close(&what("T"), &[ke], &[ke_ref], REL);
                let (mut f, mut t) = (vec![0.0; 3 * n], vec![0.0; 3 * n]);
                model.static_joint_reactions(&s.q, &mut f, &mut t);
                assert_close(&what("F static"), &f, &flat(&s.static_force), REL);
                assert_close(&what("T static"), &t, &flat(&s.static_moment), REL);
                let (mut hc, mut ho, mut hg) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
                model.velocity_split(&s.q, &s.qd, &mut hc, &mut ho, &mut hg);
                assert_close(&what("h_c"), &hc, &s.centrifugal, REL);
                assert_close(&what("h_o"), &ho, &s.coriolis, REL);
                assert_close(&what("h_g"), &hg, &s.gyroscopic, REL);
                for (i, frame) in s.frames.iter().enumerate() {
                    let label = |f: &str| what(&format!("frame {} {f}", frame.name));
                    let (r, p) = model.frame_pose(i, &s.q);
                    assert_close(&label("R"), r.as_flattened(), &flat(&frame.rotation), REL);
                    assert_close(&label("p"), &p, &frame.position, REL);
                    let mut j = vec![0.0; 6 * n];
                    model.frame_jacobian(i, &s.q, &mut j);
                    assert_close(&label("J"), &j, &flat(&frame.jacobian), REL);
                }
            }
        }
    }
}

/// The papers' recursion and the textbook Newton–Euler agree to 1e-12 on every tree robot at
/// 100 random states (joint angles anywhere, rates and accelerations within ±2), on every
/// quantity both compute.
#[test]
fn reference_models_agree_on_every_tree_robot() {
    const AGREE: f64 = 1e-12;
    // splitmix64, so a failure is reproducible.
    let mut seed = 0x7EE5_u64;
    let mut uniform = move |lo: f64, hi: f64| {
        seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = seed;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        lo + (hi - lo) * ((z >> 11) as f64 / (1u64 << 53) as f64)
    };
    for path in tree_specs() {
        let (name, tree, _) = read_tree(&path);
        let (quasi, newton) = (
            QuasiVelocityModel::from_tree(&tree),
            NewtonEulerModel::from_tree(&tree),
        );
        let n = tree.dof();
        for k in 0..100 {
            let q: Vec<f64> = tree
                .bodies
                .iter()
                .map(|b| match b.joint {
                    JointKind::Revolute => uniform(-3.2, 3.2),
                    JointKind::Prismatic => uniform(-0.5, 0.5),
                })
                .collect();
            let qd: Vec<f64> = (0..n).map(|_| uniform(-2.0, 2.0)).collect();
            let qdd: Vec<f64> = (0..n).map(|_| uniform(-2.0, 2.0)).collect();
            let what = |f: &str| format!("{name} state {k} {f}");
            let (mut a, mut b) = (vec![0.0; n], vec![0.0; n]);
            quasi.inverse_dynamics(&q, &qd, &qdd, &mut a);
            newton.inverse_dynamics(&q, &qd, &qdd, &mut b);
            assert_close(&what("tau"), &a, &b, AGREE);
            quasi.forward_dynamics(&q, &qd, &qdd, &mut a);
            newton.forward_dynamics(&q, &qd, &qdd, &mut b);
            assert_close(&what("qdd"), &a, &b, AGREE);
            let (mut ma, mut mb) = (vec![0.0; n * n], vec![0.0; n * n]);
            quasi.mass_matrix(&q, &mut ma);
            newton.mass_matrix(&q, &mut mb);
            assert_close(&what("M"), &ma, &mb, AGREE);
            let (ka, kb) = (
                quasi.kinetic_energy(&q, &qd),
                newton.kinetic_energy(&q, &qd),
            );
            assert_close(&what("T"), &[ka], &[kb], AGREE);
            let (mut fa, mut ta) = (vec![0.0; 3 * n], vec![0.0; 3 * n]);
            let (mut fb, mut tb) = (vec![0.0; 3 * n], vec![0.0; 3 * n]);
            quasi.static_joint_reactions(&q, &mut fa, &mut ta);
            newton.static_joint_reactions(&q, &mut fb, &mut tb);
            assert_close(&what("F"), &fa, &fb, AGREE);
            assert_close(&what("T static"), &ta, &tb, AGREE);
            let mut split_a = [vec![0.0; n], vec![0.0; n], vec![0.0; n]];
            let mut split_b = [vec![0.0; n], vec![0.0; n], vec![0.0; n]];
            let [hc, ho, hg] = &mut split_a;
            quasi.velocity_split(&q, &qd, hc, ho, hg);
            let [hc, ho, hg] = &mut split_b;
            newton.velocity_split(&q, &qd, hc, ho, hg);
            for (part, (x, y)) in ["h_c", "h_o", "h_g"]
                .iter()
                .zip(split_a.iter().zip(&split_b))
            {
                assert_close(&what(part), x, y, AGREE);
            }
            for f in 0..tree.frames.len() {
                let ((ra, pa), (rb, pb)) = (quasi.frame_pose(f, &q), newton.frame_pose(f, &q));
                assert_close(
                    &what("frame R"),
                    ra.as_flattened(),
                    rb.as_flattened(),
                    AGREE,
                );
                assert_close(&what("frame p"), &pa, &pb, AGREE);
                let (mut ja, mut jb) = (vec![0.0; 6 * n], vec![0.0; 6 * n]);
                quasi.frame_jacobian(f, &q, &mut ja);
                newton.frame_jacobian(f, &q, &mut jb);
                assert_close(&what("frame J"), &ja, &jb, AGREE);
            }
        }
    }
}

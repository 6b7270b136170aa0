//! The reference models on trees: agreement of the two independent models on random trees
//! (branching, tilted axes, prismatic joints, frames), physical properties, the seed-001 split's
//! identities, finite-difference checks of the frame Jacobians and of the mass-matrix
//! derivatives, and a closed form.

use quasidyn_reference::{
    Frame, JointKind, NewtonEulerModel, QuasiVelocityModel, ReferenceModel, Tree, TreeBody,
};

/// Both models are exact formulations evaluated in f64: they may differ only by rounding.
const AGREE: f64 = 1e-12;

/// Deterministic random numbers (splitmix64), so failures are reproducible from the seed.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    fn vec3(&mut self, lo: f64, hi: f64) -> [f64; 3] {
        [self.range(lo, hi), self.range(lo, hi), self.range(lo, hi)]
    }

    fn unit_vector(&mut self) -> [f64; 3] {
        loop {
            let v = self.vec3(-1.0, 1.0);
            let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
            if n > 0.1 && n <= 1.0 {
                return [v[0] / n, v[1] / n, v[2] / n];
            }
        }
    }

    /// Rotation about a random unit axis by a random angle (Rodrigues).
    fn rotation(&mut self) -> [[f64; 3]; 3] {
        let k = self.unit_vector();
        let (s, c) = self.range(-3.1, 3.1).sin_cos();
        let mut r = [[0.0; 3]; 3];
        let skew = [[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]];
        for (a, row) in r.iter_mut().enumerate() {
            for (b, entry) in row.iter_mut().enumerate() {
                let delta = if a == b { 1.0 } else { 0.0 };
                *entry = c * delta + s * skew[a][b] + (1.0 - c) * k[a] * k[b];
            }
        }
        r
    }
}

/// A valid inertia tensor about the CoM: `R diag(I1, I2, I3) Rᵀ` with `I_k = Σ_{l≠k} s_l`.
fn random_inertia(rng: &mut Rng) -> [[f64; 3]; 3] {
    let s = rng.vec3(0.002, 0.1);
    let principal = [s[1] + s[2], s[0] + s[2], s[0] + s[1]];
    let r = rng.rotation();
    let mut i = [[0.0; 3]; 3];
    for (a, row) in i.iter_mut().enumerate() {
        for (b, entry) in row.iter_mut().enumerate() {
            *entry = (0..3).map(|k| r[a][k] * principal[k] * r[b][k]).sum();
        }
    }
    i
}

/// A random tree of `n` bodies: each body hangs from the base (probability 0.2) or from a
/// random earlier body, so branching at the base and at bodies is common; a third of the joints
/// are prismatic, half of the axes are tilted, two to four frames sit on random bodies.
fn random_tree(rng: &mut Rng, n: usize) -> Tree {
    let bodies = (0..n)
        .map(|i| TreeBody {
            parent: if i == 0 || rng.unit() < 0.2 {
                None
            } else {
                Some(rng.below(i))
            },
            joint: if rng.unit() < 0.3 {
                JointKind::Prismatic
            } else {
                JointKind::Revolute
            },
            axis: if rng.unit() < 0.5 {
                rng.unit_vector()
            } else {
                let mut a = [0.0; 3];
                a[rng.below(3)] = if rng.unit() < 0.5 { -1.0 } else { 1.0 };
                a
            },
            origin: rng.vec3(-0.6, 0.6),
            mass: rng.range(0.3, 3.0),
            com: rng.vec3(-0.4, 0.4),
            inertia_com: random_inertia(rng),
        })
        .collect();
    let frames = (0..2 + rng.below(3))
        .map(|_| Frame {
            body: rng.below(n),
            position: rng.vec3(-0.5, 0.5),
            rotation: rng.rotation(),
        })
        .collect();
    let d = rng.unit_vector();
    let g = rng.range(1.0, 12.0);
    Tree {
        bodies,
        gravity: [g * d[0], g * d[1], g * d[2]],
        frames,
    }
}

fn random_state(rng: &mut Rng, n: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let q = (0..n).map(|_| rng.range(-3.2, 3.2)).collect();
    let qd = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
    let qdd = (0..n).map(|_| rng.range(-3.0, 3.0)).collect();
    (q, qd, qdd)
}

fn models(tree: &Tree) -> [(Box<dyn ReferenceModel>, &'static str); 2] {
    [
        (Box::new(QuasiVelocityModel::from_tree(tree)), "quasi"),
        (Box::new(NewtonEulerModel::from_tree(tree)), "newton-euler"),
    ]
}

fn inf_norm(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m, x| m.max(x.abs()))
}

/// `|a - b| <= tol * max(1, |b|_inf)` entry by entry.
#[track_caller]
fn assert_close(a: &[f64], b: &[f64], tol: f64, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths differ");
    let bound = tol * inf_norm(b).max(1.0);
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= bound,
            "{what}[{k}]: {x} vs {y} (diff {:e}, bound {bound:e})",
            (x - y).abs()
        );
    }
}

/// Every output of a model on one state, flattened in a fixed order.
fn outputs(
    model: &dyn ReferenceModel,
    q: &[f64],
    qd: &[f64],
    qdd: &[f64],
) -> Vec<(String, Vec<f64>)> {
    let n = model.dof();
    let mut out = Vec::new();
    let mut v = vec![0.0; n];
    model.inverse_dynamics(q, qd, qdd, &mut v);
    out.push(("inverse_dynamics".to_string(), v.clone()));
    model.gravity(q, &mut v);
    out.push(("gravity".to_string(), v.clone()));
    model.nonlinear_effects(q, qd, &mut v);
    out.push(("nonlinear_effects".to_string(), v.clone()));
    model.forward_dynamics(q, qd, qdd, &mut v);
    out.push(("forward_dynamics".to_string(), v.clone()));
    let mut m = vec![0.0; n * n];
    model.mass_matrix(q, &mut m);
    out.push(("mass_matrix".to_string(), m));
    out.push((
        "kinetic_energy".to_string(),
        vec![model.kinetic_energy(q, qd)],
    ));
    let (mut f, mut t) = (vec![0.0; 3 * n], vec![0.0; 3 * n]);
    model.static_joint_reactions(q, &mut f, &mut t);
    out.push(("static force".to_string(), f));
    out.push(("static moment".to_string(), t));
    let (mut hc, mut ho, mut hg) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    model.velocity_split(q, qd, &mut hc, &mut ho, &mut hg);
    out.push(("centrifugal".to_string(), hc));
    out.push(("coriolis".to_string(), ho));
    out.push(("gyroscopic".to_string(), hg));
    for k in 0..model.frame_count() {
        let (r, p) = model.frame_pose(k, q);
        out.push((format!("frame {k} rotation"), r.as_flattened().to_vec()));
        out.push((format!("frame {k} position"), p.to_vec()));
        let mut j = vec![0.0; 6 * n];
        model.frame_jacobian(k, q, &mut j);
        out.push((format!("frame {k} jacobian"), j));
    }
    out
}

#[test]
fn models_agree_on_random_trees() {
    let mut rng = Rng(0x7EE0_0001);
    for n in 1..=12 {
        for t in 0..4 {
            let tree = random_tree(&mut rng, n);
            let [(a, _), (b, _)] = models(&tree);
            for s in 0..25 {
                let (q, qd, qdd) = random_state(&mut rng, n);
                let (x, y) = (
                    outputs(a.as_ref(), &q, &qd, &qdd),
                    outputs(b.as_ref(), &q, &qd, &qdd),
                );
                assert_eq!(x.len(), y.len());
                for ((what, u), (_, v)) in x.iter().zip(&y) {
                    assert_close(u, v, AGREE, &format!("n={n} tree {t} state {s}: {what}"));
                }
            }
        }
    }
}

/// A chain given as a tree (parent i-1, origins from `next`, the tool as frame 0) and the chain
/// itself give the same numbers in each model, and `forward_kinematics`/`jacobian` are frame 0.
#[test]
fn a_chain_as_a_tree_is_the_chain() {
    let mut rng = Rng(0x7EE0_0002);
    for n in 1..=6 {
        let mut tree = random_tree(&mut rng, n);
        for (i, body) in tree.bodies.iter_mut().enumerate() {
            body.parent = i.checked_sub(1);
        }
        tree.frames.truncate(1);
        tree.frames[0].body = n - 1;
        let chain = quasidyn_reference::Chain {
            bodies: (0..n)
                .map(|i| quasidyn_reference::Body {
                    joint: tree.bodies[i].joint,
                    axis: tree.bodies[i].axis,
                    next: if i + 1 < n {
                        tree.bodies[i + 1].origin
                    } else {
                        tree.frames[0].position
                    },
                    mass: tree.bodies[i].mass,
                    com: tree.bodies[i].com,
                    inertia_com: tree.bodies[i].inertia_com,
                })
                .collect(),
            base: tree.bodies[0].origin,
            gravity: tree.gravity,
            tool_rotation: tree.frames[0].rotation,
        };
        assert_eq!(Tree::from(&chain), tree);
        let (q, qd, qdd) = random_state(&mut rng, n);
        let pairs: [(Box<dyn ReferenceModel>, Box<dyn ReferenceModel>); 2] = [
            (
                Box::new(QuasiVelocityModel::new(&chain)),
                Box::new(QuasiVelocityModel::from_tree(&tree)),
            ),
            (
                Box::new(NewtonEulerModel::new(&chain)),
                Box::new(NewtonEulerModel::from_tree(&tree)),
            ),
        ];
        for (a, b) in pairs {
            for ((what, u), (_, v)) in
                outputs(a.as_ref(), &q, &qd, &qdd)
                    .iter()
                    .zip(&outputs(b.as_ref(), &q, &qd, &qdd))
            {
                assert_eq!(u, v, "{what}");
            }
            let (r, p) = a.forward_kinematics(&q);
            let (rf, pf) = a.frame_pose(0, &q);
            assert_eq!((r, p), (rf, pf));
            let (mut j, mut jf) = (vec![0.0; 6 * n], vec![0.0; 6 * n]);
            a.jacobian(&q, &mut j);
            a.frame_jacobian(0, &q, &mut jf);
            assert_eq!(j, jf);
        }
    }
}

#[test]
fn mass_matrix_is_spd_with_branch_zeros_and_gives_kinetic_energy() {
    let mut rng = Rng(0x7EE0_0003);
    for n in 1..=12 {
        let tree = random_tree(&mut rng, n);
        for (model, name) in models(&tree) {
            for _ in 0..20 {
                let (q, qd, _) = random_state(&mut rng, n);
                let mut m = vec![0.0; n * n];
                model.mass_matrix(&q, &mut m);
                let scale = inf_norm(&m).max(1.0);
                for i in 0..n {
                    for j in 0..n {
                        assert!(
                            (m[i * n + j] - m[j * n + i]).abs() <= AGREE * scale,
                            "{name}: M not symmetric at ({i},{j})"
                        );
                        // Bodies on different branches: no inertial coupling at all.
                        if !tree.carries(i, j) && !tree.carries(j, i) {
                            assert_eq!(m[i * n + j], 0.0, "{name}: M[{i}][{j}] across branches");
                        }
                    }
                }
                // Cholesky pivots all positive: positive definite.
                let mut l = m.clone();
                for j in 0..n {
                    let mut d = l[j * n + j];
                    for k in 0..j {
                        d -= l[j * n + k] * l[j * n + k];
                    }
                    assert!(d > 0.0, "{name}: M not positive definite");
                    let d = d.sqrt();
                    l[j * n + j] = d;
                    for i in j + 1..n {
                        let mut s = l[i * n + j];
                        for k in 0..j {
                            s -= l[i * n + k] * l[j * n + k];
                        }
                        l[i * n + j] = s / d;
                    }
                }
                let quad: f64 = (0..n)
                    .map(|i| (0..n).map(|j| qd[i] * m[i * n + j] * qd[j]).sum::<f64>())
                    .sum();
                let t = model.kinetic_energy(&q, &qd);
                assert_close(
                    &[t],
                    &[0.5 * quad],
                    AGREE,
                    &format!("{name}: T = ½ qdᵀ M qd"),
                );
            }
        }
    }
}

#[test]
fn forward_dynamics_inverts_inverse_dynamics_on_trees() {
    let mut rng = Rng(0x7EE0_0004);
    for n in 1..=12 {
        let tree = random_tree(&mut rng, n);
        for (model, name) in models(&tree) {
            for _ in 0..20 {
                let (q, qd, qdd) = random_state(&mut rng, n);
                let mut tau = vec![0.0; n];
                model.inverse_dynamics(&q, &qd, &qdd, &mut tau);
                let mut back = vec![0.0; n];
                model.forward_dynamics(&q, &qd, &tau, &mut back);
                // The solve loses about cond(M) ulps; these trees keep cond(M) well below 1e5.
                assert_close(&back, &qdd, 1e-10, &format!("{name}: round trip"));
                let mut m = vec![0.0; n * n];
                model.mass_matrix(&q, &mut m);
                let mut h = vec![0.0; n];
                model.nonlinear_effects(&q, &qd, &mut h);
                let rebuilt: Vec<f64> = (0..n)
                    .map(|i| h[i] + (0..n).map(|j| m[i * n + j] * qdd[j]).sum::<f64>())
                    .collect();
                assert_close(&rebuilt, &tau, AGREE, &format!("{name}: M qdd + h"));
            }
        }
    }
}

/// Statement 3's identities: `h_c + h_o + h_g = h - g` and `h_g · q̇ = 0` (no power).
#[test]
fn velocity_split_sums_to_the_velocity_forces_and_the_gyroscopic_part_does_no_work() {
    let mut rng = Rng(0x7EE0_0005);
    for n in 1..=12 {
        let tree = random_tree(&mut rng, n);
        for (model, name) in models(&tree) {
            for _ in 0..10 {
                let (q, qd, _) = random_state(&mut rng, n);
                let (mut hc, mut ho, mut hg) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
                model.velocity_split(&q, &qd, &mut hc, &mut ho, &mut hg);
                let (mut h, mut g) = (vec![0.0; n], vec![0.0; n]);
                model.nonlinear_effects(&q, &qd, &mut h);
                model.gravity(&q, &mut g);
                let sum: Vec<f64> = (0..n).map(|i| hc[i] + ho[i] + hg[i]).collect();
                let velocity: Vec<f64> = (0..n).map(|i| h[i] - g[i]).collect();
                assert_close(&sum, &velocity, 1e-11, &format!("{name}: h_c + h_o + h_g"));
                let power: f64 = hg.iter().zip(&qd).map(|(a, b)| a * b).sum();
                let size = inf_norm(&hg).max(1.0) * inf_norm(&qd);
                assert!(power.abs() <= 1e-11 * size, "{name}: h_g · qd = {power:e}");
            }
        }
    }
}

/// The exact derivatives of M against central differences of M.
#[test]
fn mass_matrix_derivatives_match_finite_differences() {
    // Step 1e-5: truncation ~h²·|M'''| ≈ 1e-10·scale, rounding ~ε·|M|/h ≈ 2e-11·scale.
    const H: f64 = 1e-5;
    let mut rng = Rng(0x7EE0_0006);
    for n in 1..=8 {
        let tree = random_tree(&mut rng, n);
        for (model, name) in models(&tree) {
            let (q, _, _) = random_state(&mut rng, n);
            let mut dm = vec![0.0; n * n * n];
            model.mass_matrix_derivatives(&q, &mut dm);
            for i in 0..n {
                let (mut qp, mut qm) = (q.clone(), q.clone());
                qp[i] += H;
                qm[i] -= H;
                let (mut mp, mut mm) = (vec![0.0; n * n], vec![0.0; n * n]);
                model.mass_matrix(&qp, &mut mp);
                model.mass_matrix(&qm, &mut mm);
                let fd: Vec<f64> = mp
                    .iter()
                    .zip(&mm)
                    .map(|(a, b)| (a - b) / (2.0 * H))
                    .collect();
                let exact: Vec<f64> = (0..n * n).map(|kj| dm[kj * n + i]).collect();
                assert_close(&exact, &fd, 1e-7, &format!("{name}: dM/dq{i}"));
            }
        }
    }
}

/// Skew part of `Ṙ Rᵀ` as a vector.
fn spin(rd: &[[f64; 3]; 3], r: &[[f64; 3]; 3]) -> [f64; 3] {
    let w = |a: usize, b: usize| (0..3).map(|k| rd[a][k] * r[b][k]).sum::<f64>();
    [
        0.5 * (w(2, 1) - w(1, 2)),
        0.5 * (w(0, 2) - w(2, 0)),
        0.5 * (w(1, 0) - w(0, 1)),
    ]
}

#[test]
fn frame_jacobians_match_finite_differences_of_frame_poses() {
    // As for the chain tool: h = 1e-5, frames within a few metres, error below ~1e-8.
    const H: f64 = 1e-5;
    const TOL: f64 = 1e-7;
    let mut rng = Rng(0x7EE0_0007);
    for n in 1..=12 {
        let tree = random_tree(&mut rng, n);
        for (model, name) in models(&tree) {
            for _ in 0..10 {
                let (q, _, _) = random_state(&mut rng, n);
                for f in 0..model.frame_count() {
                    let mut jac = vec![0.0; 6 * n];
                    model.frame_jacobian(f, &q, &mut jac);
                    let (r0, _) = model.frame_pose(f, &q);
                    for k in 0..n {
                        let (mut qp, mut qm) = (q.clone(), q.clone());
                        qp[k] += H;
                        qm[k] -= H;
                        let (rp, pp) = model.frame_pose(f, &qp);
                        let (rm, pm) = model.frame_pose(f, &qm);
                        let mut rd = [[0.0; 3]; 3];
                        for a in 0..3 {
                            for b in 0..3 {
                                rd[a][b] = (rp[a][b] - rm[a][b]) / (2.0 * H);
                            }
                        }
                        let w = spin(&rd, &r0);
                        let v = (0..3).map(|a| (pp[a] - pm[a]) / (2.0 * H));
                        let fd: Vec<f64> = v.chain(w).collect();
                        let column: Vec<f64> = (0..6).map(|r| jac[r * n + k]).collect();
                        assert_close(&column, &fd, TOL, &format!("{name}: frame {f} column {k}"));
                        if !tree.carries(k, tree.frames[f].body) {
                            assert!(column.iter().all(|&x| x == 0.0), "{name}: column {k}");
                        }
                    }
                }
            }
        }
    }
}

/// Two pendulums hanging from the base side by side (revolute about z, gravity -y): each
/// drive is its own pendulum's `I ω̇ + m g l sin q`, with no coupling.
#[test]
fn two_pendulums_on_the_base_closed_form() {
    let (g, l, m, izz) = (9.81, [0.4, 0.7], [1.5, 0.8], [0.02, 0.05]);
    let pendulum = |k: usize| TreeBody {
        parent: None,
        joint: JointKind::Revolute,
        axis: [0.0, 0.0, 1.0],
        origin: [k as f64 * 0.5, 0.3, 0.0],
        mass: m[k],
        com: [0.0, -l[k], 0.0],
        inertia_com: [[0.01, 0.0, 0.0], [0.0, 0.01, 0.0], [0.0, 0.0, izz[k]]],
    };
    let tree = Tree {
        bodies: vec![pendulum(0), pendulum(1)],
        gravity: [0.0, -g, 0.0],
        frames: vec![Frame {
            body: 1,
            position: [0.0, -2.0 * l[1], 0.0],
            rotation: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        }],
    };
    let (q, qd, qdd) = ([0.3, -1.1], [0.7, 1.9], [-0.4, 2.2]);
    for (model, name) in models(&tree) {
        let mut tau = [0.0; 2];
        model.inverse_dynamics(&q, &qd, &qdd, &mut tau);
        let expected: Vec<f64> = (0..2)
            .map(|k| (izz[k] + m[k] * l[k] * l[k]) * qdd[k] + m[k] * g * l[k] * q[k].sin())
            .collect();
        assert_close(&tau, &expected, AGREE, &format!("{name}: tau"));
        let (_, p) = model.frame_pose(0, &q);
        let tip = [
            0.5 + 2.0 * l[1] * q[1].sin(),
            0.3 - 2.0 * l[1] * q[1].cos(),
            0.0,
        ];
        assert_close(&p, &tip, AGREE, &format!("{name}: tip"));
        let mut f = [0.0; 6];
        let mut t = [0.0; 6];
        model.static_joint_reactions(&q, &mut f, &mut t);
        // Body 1's support force m g y, in its own axes (rotated by q_1 about z).
        let (s, c) = q[1].sin_cos();
        let w = m[1] * g;
        assert_close(
            &f[3..],
            &[w * s, w * c, 0.0],
            AGREE,
            &format!("{name}: F_1"),
        );
    }
}

#[test]
#[should_panic(expected = "is not listed before it")]
fn a_parent_after_its_child_is_refused() {
    let mut rng = Rng(0x7EE0_0008);
    let mut tree = random_tree(&mut rng, 3);
    tree.bodies[1].parent = Some(2);
    let _ = NewtonEulerModel::from_tree(&tree);
}

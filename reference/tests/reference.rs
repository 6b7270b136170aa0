//! Cross-checks of the two reference models against each other, against physical properties
//! and against textbook closed forms.

use quasidyn_reference::{
    Body, Chain, JointKind, NewtonEulerModel, QuasiVelocityModel, ReferenceModel, MAX_BODIES,
};

/// Agreement between the two models: both are exact formulations evaluated in f64, so they may
/// differ only by rounding.
const AGREE: f64 = 1e-12;

// ---------------------------------------------------------------------------------------------
// Deterministic random numbers (splitmix64), so failures are reproducible from the seed.

struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    fn vec3(&mut self, lo: f64, hi: f64) -> [f64; 3] {
        [self.range(lo, hi), self.range(lo, hi), self.range(lo, hi)]
    }

    fn unit_vector(&mut self) -> [f64; 3] {
        loop {
            let v = self.vec3(-1.0, 1.0);
            let n = norm(v);
            if n > 0.1 && n <= 1.0 {
                return [v[0] / n, v[1] / n, v[2] / n];
            }
        }
    }

    /// Random rotation from a random unit quaternion.
    fn rotation(&mut self) -> [[f64; 3]; 3] {
        let (w, x, y, z) = loop {
            let q = [
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            ];
            let n = q.iter().map(|c| c * c).sum::<f64>().sqrt();
            if n > 0.1 && n <= 1.0 {
                break (q[0] / n, q[1] / n, q[2] / n, q[3] / n);
            }
        };
        [
            [
                1.0 - 2.0 * (y * y + z * z),
                2.0 * (x * y - w * z),
                2.0 * (x * z + w * y),
            ],
            [
                2.0 * (x * y + w * z),
                1.0 - 2.0 * (x * x + z * z),
                2.0 * (y * z - w * x),
            ],
            [
                2.0 * (x * z - w * y),
                2.0 * (y * z + w * x),
                1.0 - 2.0 * (x * x + y * y),
            ],
        ]
    }
}

fn norm(v: [f64; 3]) -> f64 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

/// How random a chain is.
#[derive(Clone, Copy)]
enum Style {
    /// Everything random: general axes, prismatic joints, gravity, tool rotation, base.
    General,
    /// The papers' setting: coordinate axes only, gravity `-9.81 y`, base at the origin.
    Paper,
}

fn coordinate_axis(rng: &mut Rng) -> [f64; 3] {
    let mut a = [0.0; 3];
    a[(rng.next_u64() % 3) as usize] = if rng.unit() < 0.5 { -1.0 } else { 1.0 };
    a
}

/// A valid inertia tensor about the CoM: `R diag(I1, I2, I3) Rᵀ` with `I_k = Σ_{l≠k} s_l`
/// for second moments `s_l >= 0`, so the triangle inequality holds by construction.
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

fn random_chain(rng: &mut Rng, n: usize, style: Style) -> Chain {
    let mut bodies = Vec::with_capacity(n);
    for _ in 0..n {
        let joint = match style {
            Style::General if rng.unit() < 0.3 => JointKind::Prismatic,
            Style::Paper if rng.unit() < 0.2 => JointKind::Prismatic,
            _ => JointKind::Revolute,
        };
        let axis = match style {
            Style::General if rng.unit() < 0.5 => rng.unit_vector(),
            _ => coordinate_axis(rng),
        };
        let next = if rng.unit() < 0.1 {
            [0.0; 3]
        } else {
            rng.vec3(-0.8, 0.8)
        };
        bodies.push(Body {
            joint,
            axis,
            next,
            mass: rng.range(0.3, 3.0),
            com: rng.vec3(-0.4, 0.4),
            inertia_com: random_inertia(rng),
        });
    }
    match style {
        Style::General => Chain {
            bodies,
            base: rng.vec3(-1.0, 1.0),
            gravity: {
                let d = rng.unit_vector();
                let g = rng.range(1.0, 12.0);
                [g * d[0], g * d[1], g * d[2]]
            },
            tool_rotation: rng.rotation(),
        },
        Style::Paper => Chain {
            bodies,
            base: [0.0; 3],
            gravity: [0.0, -9.81, 0.0],
            tool_rotation: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        },
    }
}

/// A random state: angles anywhere, slides within a metre, moderate rates.
fn random_state(rng: &mut Rng, n: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let q = (0..n).map(|_| rng.range(-3.2, 3.2)).collect();
    let qd = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
    let qdd = (0..n).map(|_| rng.range(-3.0, 3.0)).collect();
    (q, qd, qdd)
}

fn inf_norm(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m, x| m.max(x.abs()))
}

/// `|a - b| <= tol * max(1, |b|_inf)` entry by entry.
fn assert_close(a: &[f64], b: &[f64], tol: f64, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths differ");
    let bound = tol * inf_norm(b).max(1.0);
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= bound,
            "{what}[{k}]: {x} vs {y} (diff {:e}, bound {bound:e})\n a = {a:?}\n b = {b:?}",
            (x - y).abs()
        );
    }
}

fn flat(r: &[[f64; 3]; 3]) -> Vec<f64> {
    r.iter().flatten().copied().collect()
}

/// Every output of the two models on one state.
fn compare_models(chain: &Chain, q: &[f64], qd: &[f64], qdd: &[f64], tol: f64, tag: &str) {
    let a = QuasiVelocityModel::new(chain);
    let b = NewtonEulerModel::new(chain);
    let n = chain.bodies.len();
    assert_eq!((a.dof(), b.dof()), (n, n));
    let pair = |f: &dyn Fn(&dyn ReferenceModel, &mut [f64]), len: usize, what: &str| {
        let mut x = vec![0.0; len];
        let mut y = vec![0.0; len];
        f(&a, &mut x);
        f(&b, &mut y);
        assert_close(&x, &y, tol, &format!("{tag}: {what}"));
    };
    pair(
        &|m, out| m.inverse_dynamics(q, qd, qdd, out),
        n,
        "inverse_dynamics",
    );
    pair(&|m, out| m.gravity(q, out), n, "gravity");
    pair(
        &|m, out| m.nonlinear_effects(q, qd, out),
        n,
        "nonlinear_effects",
    );
    pair(&|m, out| m.mass_matrix(q, out), n * n, "mass_matrix");
    pair(
        &|m, out| m.forward_dynamics(q, qd, qdd, out),
        n,
        "forward_dynamics",
    );
    pair(&|m, out| m.jacobian(q, out), 6 * n, "jacobian");
    pair(
        &|m, out| {
            let (f, t) = out.split_at_mut(3 * n);
            m.static_joint_reactions(q, f, t);
        },
        6 * n,
        "static_joint_reactions",
    );
    pair(
        &|m, out| {
            let (r, p) = m.forward_kinematics(q);
            out[..9].copy_from_slice(&flat(&r));
            out[9..].copy_from_slice(&p);
        },
        12,
        "forward_kinematics",
    );
    pair(
        &|m, out| out[0] = m.kinetic_energy(q, qd),
        1,
        "kinetic_energy",
    );
}

#[test]
fn models_agree_on_random_chains() {
    let mut rng = Rng(0x5EED_0001);
    for n in 1..=8 {
        for (c, style) in [Style::General, Style::General, Style::Paper]
            .into_iter()
            .enumerate()
        {
            let chain = random_chain(&mut rng, n, style);
            for s in 0..100 {
                let (q, qd, qdd) = random_state(&mut rng, n);
                compare_models(
                    &chain,
                    &q,
                    &qd,
                    &qdd,
                    AGREE,
                    &format!("n={n} chain={c} state={s}"),
                );
            }
        }
    }
}

#[test]
fn models_agree_on_a_long_chain() {
    let mut rng = Rng(0x5EED_0002);
    let chain = random_chain(&mut rng, 24, Style::General);
    for s in 0..20 {
        let (q, qd, qdd) = random_state(&mut rng, 24);
        compare_models(&chain, &q, &qd, &qdd, AGREE, &format!("n=24 state={s}"));
    }
}

#[test]
fn models_accept_the_largest_chain() {
    let mut rng = Rng(0x5EED_0003);
    let chain = random_chain(&mut rng, MAX_BODIES, Style::Paper);
    let (q, qd, qdd) = random_state(&mut rng, MAX_BODIES);
    for model in [
        &QuasiVelocityModel::new(&chain) as &dyn ReferenceModel,
        &NewtonEulerModel::new(&chain),
    ] {
        let mut tau = vec![0.0; MAX_BODIES];
        model.inverse_dynamics(&q, &qd, &qdd, &mut tau);
        let mut back = vec![0.0; MAX_BODIES];
        model.forward_dynamics(&q, &qd, &tau, &mut back);
        assert!(back.iter().all(|x| x.is_finite()));
    }
}

// ---------------------------------------------------------------------------------------------
// Properties, checked on both models.

fn models(chain: &Chain) -> [(Box<dyn ReferenceModel>, &'static str); 2] {
    [
        (Box::new(QuasiVelocityModel::new(chain)), "quasi"),
        (Box::new(NewtonEulerModel::new(chain)), "newton-euler"),
    ]
}

/// Cholesky pivots of a symmetric matrix; all positive iff it is positive definite.
fn cholesky_pivots(m: &[f64], n: usize) -> Vec<f64> {
    let mut l = m.to_vec();
    let mut pivots = Vec::with_capacity(n);
    for j in 0..n {
        let mut d = l[j * n + j];
        for k in 0..j {
            d -= l[j * n + k] * l[j * n + k];
        }
        pivots.push(d);
        let d = d.max(f64::MIN_POSITIVE).sqrt();
        l[j * n + j] = d;
        for i in j + 1..n {
            let mut s = l[i * n + j];
            for k in 0..j {
                s -= l[i * n + k] * l[j * n + k];
            }
            l[i * n + j] = s / d;
        }
    }
    pivots
}

#[test]
fn mass_matrix_is_symmetric_positive_definite_and_gives_kinetic_energy() {
    let mut rng = Rng(0x5EED_0004);
    for n in 1..=8 {
        let chain = random_chain(&mut rng, n, Style::General);
        for (model, name) in models(&chain) {
            for _ in 0..100 {
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
                    }
                }
                assert!(
                    cholesky_pivots(&m, n).iter().all(|&p| p > 0.0),
                    "{name}: M not positive definite"
                );
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
fn forward_dynamics_inverts_inverse_dynamics() {
    let mut rng = Rng(0x5EED_0005);
    for n in 1..=8 {
        let chain = random_chain(&mut rng, n, Style::General);
        for (model, name) in models(&chain) {
            for _ in 0..100 {
                let (q, qd, qdd) = random_state(&mut rng, n);
                let mut tau = vec![0.0; n];
                model.inverse_dynamics(&q, &qd, &qdd, &mut tau);
                let mut back = vec![0.0; n];
                model.forward_dynamics(&q, &qd, &tau, &mut back);
                // The solve loses about cond(M) ulps; the random chains keep cond(M) below ~1e4.
                assert_close(&back, &qdd, 1e-10, &format!("{name}: round trip"));
                // Consistency of the split: tau = M qdd + h.
                let mut m = vec![0.0; n * n];
                model.mass_matrix(&q, &mut m);
                let mut h = vec![0.0; n];
                model.nonlinear_effects(&q, &qd, &mut h);
                let rebuilt: Vec<f64> = (0..n)
                    .map(|i| h[i] + (0..n).map(|j| m[i * n + j] * qdd[j]).sum::<f64>())
                    .collect();
                assert_close(&rebuilt, &tau, AGREE, &format!("{name}: M qdd + h"));
                let mut g = vec![0.0; n];
                model.gravity(&q, &mut g);
                let zero = vec![0.0; n];
                let mut g2 = vec![0.0; n];
                model.nonlinear_effects(&q, &zero, &mut g2);
                assert_close(&g, &g2, AGREE, &format!("{name}: h(q, 0) = g"));
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
fn jacobian_matches_finite_differences_of_the_tool_pose() {
    // Central differences with step h err by about h²/6·|f'''| + ε·|f|/h. Tool points stay
    // within ~15 m of the base here and every derivative of a pose is bounded by the same lever
    // arms, so with h = 1e-5 the error is below ~1e-9·15 + 2e-16·15/1e-5 ≈ 2e-8; 1e-7 leaves a
    // margin without hiding a wrong column (those are off by O(1)).
    const H: f64 = 1e-5;
    const TOL: f64 = 1e-7;
    let mut rng = Rng(0x5EED_0006);
    for n in 1..=8 {
        let chain = random_chain(&mut rng, n, Style::General);
        for (model, name) in models(&chain) {
            for _ in 0..100 {
                let (q, _, _) = random_state(&mut rng, n);
                let mut jac = vec![0.0; 6 * n];
                model.jacobian(&q, &mut jac);
                let (r0, _) = model.forward_kinematics(&q);
                for k in 0..n {
                    let mut qp = q.clone();
                    let mut qm = q.clone();
                    qp[k] += H;
                    qm[k] -= H;
                    let (rp, pp) = model.forward_kinematics(&qp);
                    let (rm, pm) = model.forward_kinematics(&qm);
                    let mut rd = [[0.0; 3]; 3];
                    for a in 0..3 {
                        for b in 0..3 {
                            rd[a][b] = (rp[a][b] - rm[a][b]) / (2.0 * H);
                        }
                    }
                    let w = spin(&rd, &r0);
                    let v: Vec<f64> = (0..3).map(|a| (pp[a] - pm[a]) / (2.0 * H)).collect();
                    let column: Vec<f64> = (0..6).map(|r| jac[r * n + k]).collect();
                    let fd: Vec<f64> = v.iter().chain(w.iter()).copied().collect();
                    assert_close(&column, &fd, TOL, &format!("{name}: n={n} column {k}"));
                }
            }
        }
    }
}

#[test]
fn static_force_at_zero_is_the_subsystem_weight() {
    // S003 (3)-(4): with g = -g y and every frame parallel to the base at q = 0, the force on
    // body i is m_i g y with m_i the mass of bodies i..N.
    let mut rng = Rng(0x5EED_0007);
    for n in 1..=8 {
        let chain = random_chain(&mut rng, n, Style::Paper);
        let g = 9.81;
        for (model, name) in models(&chain) {
            let q = vec![0.0; n];
            let mut f = vec![0.0; 3 * n];
            let mut t = vec![0.0; 3 * n];
            model.static_joint_reactions(&q, &mut f, &mut t);
            for i in 0..n {
                let m_i: f64 = chain.bodies[i..].iter().map(|b| b.mass).sum();
                assert_close(
                    &f[3 * i..3 * i + 3],
                    &[0.0, m_i * g, 0.0],
                    AGREE,
                    &format!("{name}: F_{i}"),
                );
            }
            // The drives are the axis projections of the reactions (S003 §2).
            let mut tau = vec![0.0; n];
            model.gravity(&q, &mut tau);
            for (i, body) in chain.bodies.iter().enumerate() {
                let v = if body.joint == JointKind::Revolute {
                    &t[3 * i..3 * i + 3]
                } else {
                    &f[3 * i..3 * i + 3]
                };
                let proj: f64 = (0..3).map(|k| v[k] * body.axis[k]).sum();
                assert_close(&[proj], &[tau[i]], AGREE, &format!("{name}: drive {i}"));
            }
        }
    }
}

#[test]
fn static_force_norm_is_the_subsystem_weight_everywhere() {
    // |F_i| = m_i |g| in any configuration (S003's suggested check), for any gravity vector.
    let mut rng = Rng(0x5EED_0008);
    for n in 1..=6 {
        let chain = random_chain(&mut rng, n, Style::General);
        let g = norm(chain.gravity);
        for (model, name) in models(&chain) {
            for _ in 0..20 {
                let (q, _, _) = random_state(&mut rng, n);
                let mut f = vec![0.0; 3 * n];
                let mut t = vec![0.0; 3 * n];
                model.static_joint_reactions(&q, &mut f, &mut t);
                for i in 0..n {
                    let m_i: f64 = chain.bodies[i..].iter().map(|b| b.mass).sum();
                    let fi = [f[3 * i], f[3 * i + 1], f[3 * i + 2]];
                    assert_close(&[norm(fi)], &[m_i * g], AGREE, &format!("{name}: |F_{i}|"));
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Hand-checkable closed forms.

const IDENTITY: [[f64; 3]; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

/// A planar link along `x`, turning about `z`, with its CoM at `lc` on the link and inertia
/// `izz` about the CoM.
fn planar_link(l: f64, m: f64, lc: f64, izz: f64) -> Body {
    Body {
        joint: JointKind::Revolute,
        axis: [0.0, 0.0, 1.0],
        next: [l, 0.0, 0.0],
        mass: m,
        com: [lc, 0.0, 0.0],
        inertia_com: [
            [0.3 * izz, 0.0, 0.0],
            [0.0, 0.7 * izz, 0.0],
            [0.0, 0.0, izz],
        ],
    }
}

#[test]
fn single_pendulum_closed_form() {
    let (l, m, lc, izz, g) = (0.8, 1.7, 0.35, 0.04, 9.81);
    let chain = Chain {
        bodies: vec![planar_link(l, m, lc, izz)],
        base: [0.0; 3],
        gravity: [0.0, -g, 0.0],
        tool_rotation: IDENTITY,
    };
    let mut rng = Rng(0x5EED_0009);
    for (model, name) in models(&chain) {
        for _ in 0..50 {
            let (q, qd, qdd) = random_state(&mut rng, 1);
            let (s, c) = q[0].sin_cos();
            // (I_c + m lc²) q̈ + m g lc cos q: the potential is m g lc sin q.
            let mut tau = [0.0];
            model.inverse_dynamics(&q, &qd, &qdd, &mut tau);
            let expected = (izz + m * lc * lc) * qdd[0] + m * g * lc * c;
            assert_close(&tau, &[expected], AGREE, &format!("{name}: tau"));
            let t = model.kinetic_energy(&q, &qd);
            let expected_t = 0.5 * (izz + m * lc * lc) * qd[0] * qd[0];
            assert_close(&[t], &[expected_t], AGREE, &format!("{name}: T"));
            let (r, p) = model.forward_kinematics(&q);
            assert_close(&p, &[l * c, l * s, 0.0], AGREE, &format!("{name}: tip"));
            assert_close(
                &flat(&r),
                &[c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0],
                AGREE,
                &format!("{name}: rotation"),
            );
            let mut jac = [0.0; 6];
            model.jacobian(&q, &mut jac);
            assert_close(
                &jac,
                &[-l * s, l * c, 0.0, 0.0, 0.0, 1.0],
                AGREE,
                &format!("{name}: jacobian"),
            );
            // At rest the carrier holds the weight: force m g y and moment c × m g y, in the
            // link frame (turned by q about z).
            let mut f = [0.0; 3];
            let mut t3 = [0.0; 3];
            model.static_joint_reactions(&q, &mut f, &mut t3);
            assert_close(
                &f,
                &[m * g * s, m * g * c, 0.0],
                AGREE,
                &format!("{name}: F"),
            );
            assert_close(
                &t3,
                &[0.0, 0.0, m * g * lc * c],
                AGREE,
                &format!("{name}: M"),
            );
        }
    }
}

#[test]
fn planar_two_link_closed_form() {
    let (l1, m1, lc1, i1) = (0.9, 2.0, 0.4, 0.12);
    let (l2, m2, lc2, i2) = (0.6, 1.2, 0.25, 0.05);
    let g = 9.81;
    let chain = Chain {
        bodies: vec![planar_link(l1, m1, lc1, i1), planar_link(l2, m2, lc2, i2)],
        base: [0.0; 3],
        gravity: [0.0, -g, 0.0],
        tool_rotation: IDENTITY,
    };
    let mut rng = Rng(0x5EED_000A);
    for (model, name) in models(&chain) {
        for _ in 0..50 {
            let (q, qd, qdd) = random_state(&mut rng, 2);
            let (s1, c1) = q[0].sin_cos();
            let (s2, c2) = q[1].sin_cos();
            let (s12, c12) = (q[0] + q[1]).sin_cos();
            // Textbook 2R arm (e.g. Spong, Hutchinson & Vidyasagar, §7.3).
            let m11 = i1 + i2 + m1 * lc1 * lc1 + m2 * (l1 * l1 + lc2 * lc2 + 2.0 * l1 * lc2 * c2);
            let m12 = i2 + m2 * (lc2 * lc2 + l1 * lc2 * c2);
            let m22 = i2 + m2 * lc2 * lc2;
            let hh = m2 * l1 * lc2 * s2;
            let h1 = -hh * (2.0 * qd[0] * qd[1] + qd[1] * qd[1]);
            let h2 = hh * qd[0] * qd[0];
            let g1 = (m1 * lc1 + m2 * l1) * g * c1 + m2 * lc2 * g * c12;
            let g2 = m2 * lc2 * g * c12;

            let mut m = [0.0; 4];
            model.mass_matrix(&q, &mut m);
            assert_close(&m, &[m11, m12, m12, m22], AGREE, &format!("{name}: M"));
            let mut gv = [0.0; 2];
            model.gravity(&q, &mut gv);
            assert_close(&gv, &[g1, g2], AGREE, &format!("{name}: g"));
            let mut h = [0.0; 2];
            model.nonlinear_effects(&q, &qd, &mut h);
            assert_close(&h, &[h1 + g1, h2 + g2], AGREE, &format!("{name}: h"));
            let mut tau = [0.0; 2];
            model.inverse_dynamics(&q, &qd, &qdd, &mut tau);
            let expected = [
                m11 * qdd[0] + m12 * qdd[1] + h1 + g1,
                m12 * qdd[0] + m22 * qdd[1] + h2 + g2,
            ];
            assert_close(&tau, &expected, AGREE, &format!("{name}: tau"));

            let (_, p) = model.forward_kinematics(&q);
            assert_close(
                &p,
                &[l1 * c1 + l2 * c12, l1 * s1 + l2 * s12, 0.0],
                AGREE,
                &format!("{name}: tip"),
            );
            let mut jac = [0.0; 12];
            model.jacobian(&q, &mut jac);
            let expected_j = [
                -l1 * s1 - l2 * s12,
                -l2 * s12,
                l1 * c1 + l2 * c12,
                l2 * c12,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
                1.0,
                1.0,
            ];
            assert_close(&jac, &expected_j, AGREE, &format!("{name}: jacobian"));
        }
    }
}

#[test]
fn slider_carrying_a_pendulum_closed_form() {
    // Cart on a horizontal rail (x) carrying a pendulum about z: the textbook cart-pole.
    let (mc, m, lc, ic, g) = (2.5, 0.7, 0.45, 0.02, 9.81);
    let chain = Chain {
        bodies: vec![
            Body {
                joint: JointKind::Prismatic,
                axis: [1.0, 0.0, 0.0],
                next: [0.0; 3],
                mass: mc,
                com: [0.0, 0.1, 0.0],
                inertia_com: [[0.1, 0.0, 0.0], [0.0, 0.1, 0.0], [0.0, 0.0, 0.1]],
            },
            Body {
                joint: JointKind::Revolute,
                axis: [0.0, 0.0, 1.0],
                next: [0.9, 0.0, 0.0],
                mass: m,
                com: [lc, 0.0, 0.0],
                inertia_com: [[0.001, 0.0, 0.0], [0.0, ic, 0.0], [0.0, 0.0, ic]],
            },
        ],
        base: [0.0; 3],
        gravity: [0.0, -g, 0.0],
        tool_rotation: IDENTITY,
    };
    let mut rng = Rng(0x5EED_000B);
    for (model, name) in models(&chain) {
        for _ in 0..50 {
            let (q, qd, qdd) = random_state(&mut rng, 2);
            let (s, c) = q[1].sin_cos();
            // x_c = x + lc cos θ, y_c = lc sin θ; Lagrange's equations.
            let f = (mc + m) * qdd[0] - m * lc * s * qdd[1] - m * lc * c * qd[1] * qd[1];
            let t = (ic + m * lc * lc) * qdd[1] - m * lc * s * qdd[0] + m * g * lc * c;
            let mut tau = [0.0; 2];
            model.inverse_dynamics(&q, &qd, &qdd, &mut tau);
            assert_close(&tau, &[f, t], AGREE, &format!("{name}: tau"));
        }
    }
}

#[test]
fn vertical_slider_at_an_offset_closed_form() {
    // A prismatic joint along y after a revolute joint about x: the slide changes the lever
    // arm of the carried mass, which the prismatic extension must account for.
    let (m1, m2, g) = (1.0, 2.0, 9.81);
    let i2 = 0.03;
    let chain = Chain {
        bodies: vec![
            Body {
                joint: JointKind::Revolute,
                axis: [1.0, 0.0, 0.0],
                next: [0.0; 3],
                mass: m1,
                com: [0.0; 3],
                inertia_com: [[0.01, 0.0, 0.0], [0.0, 0.01, 0.0], [0.0, 0.0, 0.01]],
            },
            Body {
                joint: JointKind::Prismatic,
                axis: [0.0, 1.0, 0.0],
                next: [0.0; 3],
                mass: m2,
                com: [0.0; 3],
                inertia_com: [[i2, 0.0, 0.0], [0.0, i2, 0.0], [0.0, 0.0, i2]],
            },
        ],
        base: [0.0; 3],
        gravity: [0.0, -g, 0.0],
        tool_rotation: IDENTITY,
    };
    let mut rng = Rng(0x5EED_000C);
    for (model, name) in models(&chain) {
        for _ in 0..50 {
            let (q, qd, qdd) = random_state(&mut rng, 2);
            let (th, r) = (q[0], q[1]);
            // Mass m2 at (0, r cos θ, r sin θ): T = ½ (I1 + i2 + m2 r²) θ̇² + ½ m2 ṙ²,
            // V = m2 g r cos θ; Lagrange's equations.
            let tau1 = (0.01 + i2 + m2 * r * r) * qdd[0] + 2.0 * m2 * r * qd[1] * qd[0]
                - m2 * g * r * th.sin();
            let tau2 = m2 * qdd[1] - m2 * r * qd[0] * qd[0] + m2 * g * th.cos();
            let mut tau = [0.0; 2];
            model.inverse_dynamics(&q, &qd, &qdd, &mut tau);
            assert_close(&tau, &[tau1, tau2], AGREE, &format!("{name}: tau"));
        }
    }
}

#[test]
fn portal_arm_static_force_of_seed_003_task_1() {
    // p1 = z, p2 = x, q3 = y, p4 = -y, q5 = z, q6 = y: F_6 = m_6 g (s5 c6, c5, s5 s6) in frame 6,
    // and the drives of the slides are the weights they carry along their axes.
    let joints = [
        (JointKind::Prismatic, [0.0, 0.0, 1.0]),
        (JointKind::Prismatic, [1.0, 0.0, 0.0]),
        (JointKind::Revolute, [0.0, 1.0, 0.0]),
        (JointKind::Prismatic, [0.0, -1.0, 0.0]),
        (JointKind::Revolute, [0.0, 0.0, 1.0]),
        (JointKind::Revolute, [0.0, 1.0, 0.0]),
    ];
    let mut rng = Rng(0x5EED_000D);
    let bodies: Vec<Body> = joints
        .iter()
        .map(|&(joint, axis)| Body {
            joint,
            axis,
            next: rng.vec3(-0.3, 0.3),
            mass: rng.range(0.5, 2.0),
            com: rng.vec3(-0.1, 0.1),
            inertia_com: random_inertia(&mut rng),
        })
        .collect();
    let g = 9.81;
    let chain = Chain {
        bodies,
        base: [0.0; 3],
        gravity: [0.0, -g, 0.0],
        tool_rotation: IDENTITY,
    };
    let mass_from = |i: usize| chain.bodies[i..].iter().map(|b| b.mass).sum::<f64>();
    for (model, name) in models(&chain) {
        for _ in 0..20 {
            let (q, _, _) = random_state(&mut rng, 6);
            let (s5, c5) = q[4].sin_cos();
            let (s6, c6) = q[5].sin_cos();
            let mut f = [0.0; 18];
            let mut t = [0.0; 18];
            model.static_joint_reactions(&q, &mut f, &mut t);
            let mg6 = chain.bodies[5].mass * g;
            assert_close(
                &f[15..18],
                &[mg6 * s5 * c6, mg6 * c5, mg6 * s5 * s6],
                AGREE,
                &format!("{name}: F_6"),
            );
            let mut tau = [0.0; 6];
            model.gravity(&q, &mut tau);
            assert_close(
                &tau[..2],
                &[0.0, 0.0],
                AGREE,
                &format!("{name}: horizontal slides"),
            );
            assert_close(
                &tau[3..4],
                &[-mass_from(3) * g],
                AGREE,
                &format!("{name}: slide -y"),
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Property-based variant: proptest picks the chain seed, length and style.

mod prop {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn models_agree(seed in any::<u64>(), n in 1usize..=8, paper in any::<bool>()) {
            let mut rng = Rng(seed);
            let style = if paper { Style::Paper } else { Style::General };
            let chain = random_chain(&mut rng, n, style);
            for s in 0..10 {
                let (q, qd, qdd) = random_state(&mut rng, n);
                compare_models(&chain, &q, &qd, &qdd, AGREE, &format!("seed={seed} state={s}"));
            }
        }
    }
}

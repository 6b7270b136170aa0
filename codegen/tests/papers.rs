//! The papers' worked examples (METHOD.md §4) as regression tests.
//!
//! Each example has a spec in `tests/papers/` with every inertial parameter symbolic. The test
//! builds the module, draws random physically valid parameters (masses, first moments about the
//! pole, principal pole inertias with the symmetries the paper assumes) and random states, and
//! compares the generated expressions with the closed form printed in the paper, written below
//! in the paper's notation (b_i, a_i, L_i, p_i, I^x_i, E^ξ_i, Ω̇^ξ_xi, c_23, ...). Where METHOD.md
//! §3 marks a misprint, the corrected form is used and the comment names the correction.
//!
//! Quasi-velocities and quasi-accelerations are inputs of the papers' formulas, not results, so
//! the harness computes them with the standard recursion (METHOD.md §1.3) and also checks the
//! generated `w`/`wd` nodes against it.

#![allow(clippy::needless_range_loop, clippy::too_many_lines)]

use std::collections::HashMap;
use std::f64::consts::PI;

use quasidyn_codegen::ir::Env;
use quasidyn_codegen::{build_module, load_spec, FunctionKind, JointKind, Module, NodeId, Robot};

type V = [f64; 3];
type Mat = [[f64; 3]; 3];

const G: f64 = 9.81;
const SAMPLES: usize = 24;
const TOL: f64 = 1e-10;

// ------------------------------------------------------------------ small numeric helpers

fn dot(a: V, b: V) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn cross(a: V, b: V) -> V {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn add(a: V, b: V) -> V {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
fn mv(m: &Mat, v: V) -> V {
    [dot(m[0], v), dot(m[1], v), dot(m[2], v)]
}
fn mtv(m: &Mat, v: V) -> V {
    let mut o = [0.0; 3];
    for r in 0..3 {
        for c in 0..3 {
            o[c] += m[r][c] * v[r];
        }
    }
    o
}
fn mm(a: &Mat, b: &Mat) -> Mat {
    let mut o = [[0.0; 3]; 3];
    for r in 0..3 {
        for c in 0..3 {
            o[r][c] = (0..3).map(|k| a[r][k] * b[k][c]).sum();
        }
    }
    o
}
/// Active rotation by `q` about the unit axis `u`.
fn rot(u: V, q: f64) -> Mat {
    let (s, c) = q.sin_cos();
    let k = [[0.0, -u[2], u[1]], [u[2], 0.0, -u[0]], [-u[1], u[0], 0.0]];
    let mut r = [[0.0; 3]; 3];
    for a in 0..3 {
        for b in 0..3 {
            let d = if a == b { 1.0 } else { 0.0 };
            r[a][b] = c * d + s * k[a][b] + (1.0 - c) * u[a] * u[b];
        }
    }
    r
}

/// Deterministic generator (splitmix64), so failures reproduce.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)
    }
}

fn close(what: &str, got: f64, want: f64) {
    let scale = got.abs().max(want.abs()).max(1.0);
    assert!(
        (got - want).abs() <= TOL * scale,
        "{what}: generated {got:.15e}, paper {want:.15e}, diff {:.3e}",
        got - want
    );
}

// ------------------------------------------------------------------ inertial parameters

/// One body's inertial parameters as the generator reads them: mass `m_oi`, first moment about
/// the pole `h = m_oi O_iC_i`, inertia tensor about the pole (tensor entries).
#[derive(Clone, Copy, Debug)]
struct Inertial {
    m: f64,
    h: V,
    j: Mat,
}

impl Inertial {
    /// A massless, inertia-free body (a pure gimbal joint).
    const ZERO: Inertial = Inertial {
        m: 0.0,
        h: [0.0; 3],
        j: [[0.0; 3]; 3],
    };
    /// Axial moments about the pole, the papers' `I^x, I^y, I^z`.
    fn ix(&self) -> f64 {
        self.j[0][0]
    }
    fn iy(&self) -> f64 {
        self.j[1][1]
    }
    fn iz(&self) -> f64 {
        self.j[2][2]
    }
}

/// A body with mass in [0.5, 3], centre of mass `com` and a principal pole frame. With
/// `symmetric_about = Some(k)` the two axial moments other than `k` are equal (a body of
/// revolution about axis `k`, as the papers assume).
///
/// Drawn through the second moment about the pole `S_O = diag(s)`, `J_O = tr(S_O) E - S_O`: the
/// body is physically valid (inertia PSD, triangle inequality) iff `S_C = S_O - m c cᵀ` is PSD,
/// which `s_k >= m |c|²` guarantees; the check below confirms it.
fn body(rng: &mut Rng, com: V, symmetric_about: Option<usize>) -> Inertial {
    let m = rng.uniform(0.5, 3.0);
    let mc2 = m * dot(com, com);
    let mut s = [0.0; 3];
    for k in 0..3 {
        s[k] = mc2 + rng.uniform(0.02, 0.3);
    }
    if let Some(k) = symmetric_about {
        let (a, b) = ((k + 1) % 3, (k + 2) % 3);
        s[b] = s[a];
    }
    let tr = s[0] + s[1] + s[2];
    let mut sc = [[0.0; 3]; 3];
    for a in 0..3 {
        for b in 0..3 {
            sc[a][b] = if a == b { s[a] } else { 0.0 } - m * com[a] * com[b];
        }
    }
    assert!(psd3(&sc), "drawn body is not physically valid");
    let j = [
        [tr - s[0], 0.0, 0.0],
        [0.0, tr - s[1], 0.0],
        [0.0, 0.0, tr - s[2]],
    ];
    Inertial {
        m,
        h: com.map(|c| m * c),
        j,
    }
}

/// A body as in [`body`] with its centre of mass on axis `axis`, at a coordinate drawn in
/// `[lo, hi]`.
fn body_on(
    rng: &mut Rng,
    axis: usize,
    lo: f64,
    hi: f64,
    symmetric_about: Option<usize>,
) -> Inertial {
    let mut com = [0.0; 3];
    com[axis] = rng.uniform(lo, hi);
    body(rng, com, symmetric_about)
}

/// Symmetric 3×3 positive semidefinite: every principal minor non-negative.
fn psd3(a: &Mat) -> bool {
    let eps = -1e-12;
    let m2 = |i: usize, k: usize| a[i][i] * a[k][k] - a[i][k] * a[k][i];
    let det = a[0][0] * m2(1, 2) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
        + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
    (0..3).all(|i| a[i][i] >= eps)
        && m2(0, 1) >= eps
        && m2(0, 2) >= eps
        && m2(1, 2) >= eps
        && det >= eps
}

// ------------------------------------------------------------------ the generated module

/// A paper example: its robot, the generated module, and lookups by name.
struct Case {
    robot: Robot,
    module: Module,
    param_index: HashMap<String, usize>,
    by_name: HashMap<String, NodeId>,
}

impl Case {
    fn load(file: &str) -> Case {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/papers")
            .join(file);
        let robot = load_spec(&path).unwrap_or_else(|e| panic!("{file}: {e:?}"));
        let module = build_module(&robot);
        let param_index = module
            .graph
            .params()
            .iter()
            .enumerate()
            .map(|(k, p)| (p.name.clone(), k))
            .collect();
        let by_name = module
            .graph
            .names()
            .iter()
            .map(|(id, name)| (name.clone(), *id))
            .collect();
        Case {
            robot,
            module,
            param_index,
            by_name,
        }
    }

    fn n(&self) -> usize {
        self.robot.dof()
    }

    /// The parameter vector for `bodies` (1-based bodies in order), indexed like the graph's.
    fn params(&self, bodies: &[Inertial]) -> Vec<f64> {
        assert_eq!(bodies.len(), self.n());
        let mut p = vec![f64::NAN; self.module.graph.params().len()];
        let axes = ["x", "y", "z"];
        for (i, b) in bodies.iter().enumerate() {
            let n = i + 1;
            let mut set = |name: String, v: f64| {
                let k = self.param_index[&name];
                p[k] = v;
            };
            set(format!("m{n}"), b.m);
            for a in 0..3 {
                set(format!("m{}{n}", axes[a]), b.h[a]);
                for c in a..3 {
                    set(format!("i{}{}{n}", axes[a], axes[c]), b.j[a][c]);
                }
            }
        }
        assert!(p.iter().all(|v| !v.is_nan()), "every parameter is set");
        p
    }

    /// A random state: angles in [-π, π], slides in [0.1, 1], rates in [-2, 2], accelerations in
    /// [-3, 3].
    fn state(&self, rng: &mut Rng, params: Vec<f64>) -> Env {
        let n = self.n();
        let q = (0..n)
            .map(|j| match self.robot.bodies[j].joint {
                JointKind::Revolute => rng.uniform(-PI, PI),
                JointKind::Prismatic => rng.uniform(0.1, 1.0),
            })
            .collect();
        Env {
            q,
            qd: (0..n).map(|_| rng.uniform(-2.0, 2.0)).collect(),
            qdd: (0..n).map(|_| rng.uniform(-3.0, 3.0)).collect(),
            tau: vec![0.0; n],
            params,
            base: Vec::new(),
            elastic: Default::default(),
        }
    }

    /// Every node's value at `env`.
    fn eval(&self, env: &Env) -> Values<'_> {
        let g = &self.module.graph;
        let vals = g.eval_prefix(NodeId(g.len() as u32 - 1), env);
        Values { case: self, vals }
    }
}

/// Values of every node of a case's graph at one state.
struct Values<'a> {
    case: &'a Case,
    vals: Vec<f64>,
}

impl Values<'_> {
    /// Output `output` of function `kind`, row-major.
    fn out(&self, kind: FunctionKind, output: usize) -> Vec<f64> {
        let f = self.case.module.function(kind).expect("function generated");
        f.outputs[output]
            .values
            .iter()
            .map(|id| self.vals[id.index()])
            .collect()
    }
    fn tau(&self) -> Vec<f64> {
        self.out(FunctionKind::InverseDynamics, 0)
    }
    /// Value of the node labelled `name` (an intermediate quantity of the derivation).
    fn named(&self, name: &str) -> Option<f64> {
        self.case.by_name.get(name).map(|id| self.vals[id.index()])
    }
    /// Mass matrix entry `H_kj` (1-based).
    fn h(&self, k: usize, j: usize) -> f64 {
        let n = self.case.n();
        self.out(FunctionKind::MassMatrix, 0)[(k - 1) * n + (j - 1)]
    }
    /// Tool rotation (columns = tool axes in the base frame).
    fn rotation(&self) -> Mat {
        let r = self.out(FunctionKind::ForwardKinematics, 0);
        [[r[0], r[1], r[2]], [r[3], r[4], r[5]], [r[6], r[7], r[8]]]
    }
}

/// Quasi-velocities `ω_i` and quasi-accelerations `ω̇_i` (frame-`i` components) and the absolute
/// orientations `R_i`, by the standard recursion (METHOD.md §1.3), 0-based bodies.
struct Kin {
    w: Vec<V>,
    wd: Vec<V>,
    r: Vec<Mat>,
}

fn kinematics(robot: &Robot, env: &Env) -> Kin {
    let (mut w, mut wd, mut r) = (Vec::new(), Vec::new(), Vec::new());
    let (mut wp, mut wdp) = ([0.0; 3], [0.0; 3]);
    let mut rp = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    for (j, b) in robot.bodies.iter().enumerate() {
        let (wj, wdj, rj) = match b.joint {
            JointKind::Prismatic => (wp, wdp, rp),
            JointKind::Revolute => {
                let rl = rot(b.axis, env.q[j]);
                let wt = mtv(&rl, wp);
                let wdt = mtv(&rl, wdp);
                let u = b.axis;
                let wj = add(wt, u.map(|x| x * env.qd[j]));
                let cor = cross(wt, u).map(|x| x * env.qd[j]);
                let wdj = add(add(wdt, u.map(|x| x * env.qdd[j])), cor);
                (wj, wdj, mm(&rp, &rl))
            }
        };
        w.push(wj);
        wd.push(wdj);
        r.push(rj);
        (wp, wdp, rp) = (wj, wdj, rj);
    }
    Kin { w, wd, r }
}

/// The generated quasi-velocities / quasi-accelerations (nodes `w5_x`, `wd5_x`, ...) agree with
/// the recursion, wherever the derivation named them.
fn check_quasi(v: &Values<'_>, k: &Kin) {
    let axes = ["x", "y", "z"];
    let mut found = 0;
    for i in 0..k.w.len() {
        for a in 0..3 {
            for (prefix, want) in [("w", k.w[i][a]), ("wd", k.wd[i][a])] {
                let name = format!("{prefix}{}_{}", i + 1, axes[a]);
                if let Some(x) = v.named(&name) {
                    close(&name, x, want);
                    found += 1;
                }
            }
        }
    }
    // Components that are known zeros have no node, but every body has a moving one.
    assert!(found >= k.w.len(), "quasi-velocity nodes are named");
}

/// The papers' principal-axis Euler terms `E_i = (E^x, E^y, E^z)` (1.5).
fn euler_terms(b: &Inertial, w: V, wd: V) -> V {
    let (ia, ib, ic) = (b.iz() - b.iy(), b.ix() - b.iz(), b.iy() - b.ix());
    [
        b.ix() * wd[0] + ia * w[1] * w[2],
        b.iy() * wd[1] + ib * w[0] * w[2],
        b.iz() * wd[2] + ic * w[0] * w[1],
    ]
}

/// The generated Euler-term nodes `E{i}_ξ` agree with (1.5), wherever named.
fn check_euler(v: &Values<'_>, i: usize, e: V) {
    let mut found = false;
    for (a, ax) in ["x", "y", "z"].iter().enumerate() {
        if let Some(x) = v.named(&format!("E{i}_{ax}")) {
            close(&format!("E{i}_{ax}"), x, e[a]);
            found = true;
        }
    }
    assert!(found, "Euler terms of body {i} are named");
}

/// `Ω̇_xi`: the frame-`i` components of `ẍ_i` (METHOD.md §2.1, special case u = x).
fn omega_dot_x(w: V, wd: V) -> V {
    [
        -(w[1] * w[1]) - w[2] * w[2],
        wd[2] + w[0] * w[1],
        -wd[1] + w[0] * w[2],
    ]
}

fn sc(q: &[f64], joints: &[usize]) -> (f64, f64) {
    let a: f64 = joints.iter().map(|&j| q[j - 1]).sum();
    a.sin_cos()
}

// ------------------------------------------------------------------ seed 000

/// §4.1.1: body with a fixed point. Bodies 1 and 2 are a massless gimbal, so body 3 turns with
/// a general angular velocity about the fixed pole and the moment it receives is the Euler
/// equations with gravity, `M = [A ṗ + (C - B) q r] x + [B q̇ + (A - C) p r] y +
/// [C ṙ + (B - A) p q] z + g b a × y`.
#[test]
fn s000_body_with_fixed_point() {
    let case = Case::load("s000_fixed_point.toml");
    let mut rng = Rng(1);
    for _ in 0..SAMPLES {
        let com = [
            rng.uniform(-0.2, 0.2),
            rng.uniform(-0.2, 0.2),
            rng.uniform(-0.2, 0.2),
        ];
        let b = body(&mut rng, com, None);
        let env = case.state(&mut rng, case.params(&[Inertial::ZERO, Inertial::ZERO, b]));
        let v = case.eval(&env);
        let k = kinematics(&case.robot, &env);
        check_quasi(&v, &k);
        let (a, bb, c) = (b.ix(), b.iy(), b.iz());
        let ([p, q, r], [pd, qd, rd]) = (k.w[2], k.wd[2]);
        // The vertical y in body-3 components (the y-row of R_3); b_1 a_1 = h (L = 0).
        let y3 = mtv(&k.r[2], [0.0, 1.0, 0.0]);
        let gm = cross(b.h, y3).map(|x| G * x);
        let m = [
            a * pd + (c - bb) * q * r + gm[0],
            bb * qd + (a - c) * p * r + gm[1],
            c * rd + (bb - a) * p * q + gm[2],
        ];
        for (i, ax) in ["x", "y", "z"].iter().enumerate() {
            let name = format!("M3_{ax}");
            close(&name, v.named(&name).expect("M3 is named"), m[i]);
        }
        // The joint torques are M projected on each joint axis (massless gimbal, one pole).
        let tau = v.tau();
        let rot3 = rot(case.robot.bodies[2].axis, env.q[2]);
        let rot2 = rot(case.robot.bodies[1].axis, env.q[1]);
        let m2 = mv(&rot3, m);
        let m1 = mv(&rot2, m2);
        close("tau3", tau[2], m[2]);
        close("tau2", tau[1], m2[1]);
        close("tau1", tau[0], m1[0]);
    }
}

/// §4.1.2: gyroscope in a gimbal, formula (1.7) in E-form. The expanded forms printed in the
/// paper carry T8 (`s_2 E^z_2`, not `s_2 (I^y_2 ω̇^y_2 + ...)`) and T9 (`s_3 E^x_3` with `I^a_3`);
/// the E-form is used.
#[test]
fn s000_gimbal_gyroscope() {
    let case = Case::load("s000_gimbal.toml");
    let mut rng = Rng(2);
    for _ in 0..SAMPLES {
        // Outer ring CoM on its axis x1; inner ring and rotor CoMs at the suspension point.
        let b1 = body_on(&mut rng, 0, -0.1, 0.1, None);
        let b2 = body(&mut rng, [0.0; 3], None);
        let b3 = body(&mut rng, [0.0; 3], Some(2));
        let env = case.state(&mut rng, case.params(&[b1, b2, b3]));
        let v = case.eval(&env);
        let k = kinematics(&case.robot, &env);
        check_quasi(&v, &k);
        let q = &env.q;
        let qd = &env.qd;
        let (s2, c2) = sc(q, &[2]);
        let (s3, c3) = sc(q, &[3]);
        // The paper's quasi-velocities.
        let w = [
            [qd[0], 0.0, 0.0],
            [c2 * qd[0], qd[1], s2 * qd[0]],
            [
                c3 * c2 * qd[0] + s3 * qd[1],
                -s3 * c2 * qd[0] + c3 * qd[1],
                s2 * qd[0] + qd[2],
            ],
        ];
        for i in 0..3 {
            for a in 0..3 {
                close(&format!("omega_{}[{a}]", i + 1), k.w[i][a], w[i][a]);
            }
        }
        let e1 = euler_terms(&b1, k.w[0], k.wd[0]);
        let e2 = euler_terms(&b2, k.w[1], k.wd[1]);
        let e3 = euler_terms(&b3, k.w[2], k.wd[2]);
        check_euler(&v, 1, e1);
        check_euler(&v, 2, e2);
        check_euler(&v, 3, e3);
        close("E1_x = I1x wd1x", e1[0], b1.ix() * k.wd[0][0]);
        let m3 = e3[2];
        let m2 = e2[1] + s3 * e3[0] + c3 * e3[1];
        let m1 = e1[0] + c2 * e2[0] + s2 * e2[2] + c2 * c3 * e3[0] - c2 * s3 * e3[1] + s2 * e3[2];
        let tau = v.tau();
        close("M3", tau[2], m3);
        close("M2", tau[1], m2);
        close("M1", tau[0], m1);
        // G_1 = G_2 = G_3 = 0.
        for (j, g) in v.out(FunctionKind::Gravity, 0).iter().enumerate() {
            close(&format!("G{}", j + 1), *g, 0.0);
        }
    }
}

/// Paper-notation parameters of the angular 6-DOF arm (§4.1.3).
struct Angular6 {
    b: [f64; 7],
    l2: f64,
    l4: f64,
    p2: f64,
    p4: f64,
}

impl Angular6 {
    fn new(case: &Case, bodies: &[Inertial]) -> Angular6 {
        let l2 = case.robot.bodies[1].next[0];
        let l4 = case.robot.bodies[3].next[0];
        let msub = |i: usize| bodies[i - 1..].iter().map(|b| b.m).sum::<f64>();
        let (p2, p4) = (l2 * msub(3), l4 * msub(5));
        // b_i a_i = m_oi O_iC_i + m_{i+1} L_i e_i with a_i = e_i = x_i.
        let mut b = [0.0; 7];
        for i in 2..=6 {
            b[i] = bodies[i - 1].h[0];
        }
        b[2] += p2;
        b[4] += p4;
        Angular6 { b, l2, l4, p2, p4 }
    }
}

/// §4.1.3: the angular 6-DOF manipulator, M_6 .. M_1 with the corrections T2 (M_3: `d^y_43 =
/// d^x_5 c_4 s_5`), T3 (M_1: `L_4 c_23` and the extra `L_4 s_23 d^y_4 Ω̇^z_x4`), T4 (M_2:
/// `z^y_i2`) and T5 (M_4: `z^x_64 = s_5 s_6`, `c_5 E^x_6`), and the Ω̇ terms with squares (T6).
/// Also the intermediates G_5, G_4, G_3, G_q2 (through the gravity function: at rest M_j = G_j)
/// and K̇_5 (M_5 with b_5 = b_6 = 0, so d^x_5 = 0).
#[test]
fn s000_angular_6dof() {
    let case = Case::load("s000_angular6.toml");
    let mut rng = Rng(3);
    for sample in 0..SAMPLES {
        let mut bodies: Vec<Inertial> = (0..6)
            .map(|_| body_on(&mut rng, 0, 0.02, 0.3, Some(0)))
            .collect();
        // Every fourth sample puts the CoMs of bodies 5 and 6 at their pole: b_5 = b_6 = 0.
        let kdot5_case = sample % 4 == 3;
        if kdot5_case {
            for i in [4, 5] {
                bodies[i].h = [0.0; 3];
            }
        }
        let env = case.state(&mut rng, case.params(&bodies));
        let v = case.eval(&env);
        let k = kinematics(&case.robot, &env);
        check_quasi(&v, &k);
        let pn = Angular6::new(&case, &bodies);
        let (b, l2, l4, p2, p4) = (pn.b, pn.l2, pn.l4, pn.p2, pn.p4);
        let q = &env.q;
        let s = |i: usize| q[i - 1].sin();
        let c = |i: usize| q[i - 1].cos();
        let (s23, c23) = sc(q, &[2, 3]);
        let e: Vec<V> = (0..6)
            .map(|i| euler_terms(&bodies[i], k.w[i], k.wd[i]))
            .collect();
        for i in 0..6 {
            check_euler(&v, i + 1, e[i]);
        }
        // E^ξ_i and Ω̇^ξ_xi with 1-based body and 0-based component.
        let ee = |i: usize, a: usize| e[i - 1][a];
        let od: Vec<V> = (0..6).map(|i| omega_dot_x(k.w[i], k.wd[i])).collect();
        let o = |i: usize, a: usize| od[i - 1][a];
        let (x, y, z) = (0, 1, 2);

        // Shorthand of the paper.
        let d5x = b[5] + b[6];
        let d4y = d5x * s(5);
        let d3x = b[3] + b[4] + d5x * c(5);
        let d3y = d5x * c(4) * s(5);
        let d43x = p4 + d5x * c(5);
        let x53z = s(4) * s(5);

        // Direction cosines (METHOD.md §4.1.3).
        let y52 = [
            -s(3) * c(4) * c(5) - c(3) * s(5),
            c(3) * c(4) * c(5) - s(3) * s(5),
            s(4) * c(5),
        ];
        let y5y = c23 * c(4) * c(5) - s23 * s(5);
        // (x^y_k3, y^y_k3, z^y_k3) and (x^z_k3, ...) for k = 5, 6.
        let y53 = [c(4) * s(5), c(4) * c(5), -s(4)];
        let y63 = [
            c(4) * s(5),
            c(4) * c(5) * c(6) - s(4) * s(6),
            -c(4) * c(5) * s(6) - s(4) * c(6),
        ];
        let z53 = [s(4) * s(5), s(4) * c(5), c(4)];
        let z63 = [
            s(4) * s(5),
            s(4) * c(5) * c(6) + c(4) * s(6),
            -s(4) * c(5) * s(6) + c(4) * c(6),
        ];
        // Components along y_2 of the axes of bodies 4, 5, 6.
        let yy2 = [
            [s(3), c(3) * c(4), -c(3) * s(4)],
            [
                s(3) * c(5) + c(3) * c(4) * s(5),
                c(3) * c(4) * c(5) - s(3) * s(5),
                -c(3) * s(4),
            ],
            [
                s(3) * c(5) + c(3) * c(4) * s(5),
                (c(3) * c(4) * c(5) - s(3) * s(5)) * c(6) - c(3) * s(4) * s(6),
                -(c(3) * c(4) * c(5) - s(3) * s(5)) * s(6) - c(3) * s(4) * c(6),
            ],
        ];
        // Components along y_1 of the axes of bodies 4, 5 and (by y_6 = c_6 y_5 + s_6 z_5,
        // z_6 = c_6 z_5 - s_6 y_5, x_6 = x_5) 6.
        let y41 = [s23, c23 * c(4), -c23 * s(4)];
        let y51 = [
            c23 * c(4) * s(5) + s23 * c(5),
            c23 * c(4) * c(5) - s23 * s(5),
            -c23 * s(4),
        ];
        let y61 = [
            y51[0],
            c(6) * y51[1] + s(6) * y51[2],
            c(6) * y51[2] - s(6) * y51[1],
        ];
        let x51x = c23 * c(5) - s23 * c(4) * s(5);
        let sum3 = |dc: [f64; 3], i: usize| (0..3).map(|a| dc[a] * o(i, a)).sum::<f64>();
        let sum_e = |dc: [f64; 3], i: usize| (0..3).map(|a| dc[a] * ee(i, a)).sum::<f64>();

        let m6 = bodies[5].ix() * k.wd[5][0];
        let kdot5 = ee(5, z) + s(6) * ee(6, y) + c(6) * ee(6, z);
        let g5 = G * d5x * y5y;
        let m5 = d5x
            * (l2 * (y52[0] * o(2, x) + y52[1] * o(2, y) + y52[2] * o(2, z))
                + l4 * (c(5) * o(4, y) - s(5) * o(4, x)))
            + kdot5
            + g5;
        let g4 = -G * d4y * c23 * s(4);
        // T5: z^x_64 E^z_6 = s_5 s_6 E^z_6 and c_5 E^x_6.
        let m4 = d4y
            * (l2 * (s(3) * s(4) * o(2, x) - c(3) * s(4) * o(2, y) + c(4) * o(2, z))
                + l4 * o(4, z))
            + ee(4, x)
            + c(5) * ee(5, x)
            - s(5) * ee(5, y)
            + c(5) * ee(6, x)
            - s(5) * c(6) * ee(6, y)
            + s(5) * s(6) * ee(6, z)
            + g4;
        let g3 = G * (d3x * c23 - d3y * s23);
        // T2: the last L_4 term is d^x_5 c_4 s_5 Ω̇^x_x4.
        let m3 = l2 * ((d3x * c(3) - d3y * s(3)) * o(2, y) - (d3x * s(3) + d3y * c(3)) * o(2, x))
            + l4 * (d43x * (c(4) * o(4, y) - s(4) * o(4, z))
                + b[5] * sum3(y53, 5)
                + b[6] * sum3(y63, 6)
                - d5x * c(4) * s(5) * o(4, x))
            + ee(3, z)
            + s(4) * ee(4, y)
            + c(4) * ee(4, z)
            + sum_e(z53, 5)
            + sum_e(z63, 6)
            + g3;
        let gq2 = G * b[2] * c(2);
        // T4: z^y_i2 (not z^z_i2) multiplies Ω̇^z_xi.
        let m2 = m3
            + ee(2, z)
            + l2 * p2 * o(2, y)
            + l2 * b[3] * (s(3) * o(3, x) + c(3) * o(3, y))
            + (4..=6)
                .map(|i| l2 * b[i] * sum3(yy2[i - 4], i))
                .sum::<f64>()
            + gq2;
        // T3: L_4 c_23 in three places and the extra L_4 s_23 d^y_4 Ω̇^z_x4.
        let d21x = p2 * c(2) + (b[3] + b[4]) * c23 + d5x * x51x;
        let m1 = d5x * x53z * (l2 * (c(2) * o(2, x) - s(2) * o(2, y)) + l4 * c23 * o(4, x))
            - l2 * (d21x * o(2, z) + b[3] * c(2) * o(3, z))
            - (l2 * b[4] * c(2) + l4 * c23 * d43x) * (s(4) * o(4, y) + c(4) * o(4, z))
            + l4 * s23 * d4y * o(4, z)
            - (l2 * c(2) + l4 * c23) * (b[5] * sum3(z53, 5) + b[6] * sum3(z63, 6))
            + ee(1, y)
            + s(2) * ee(2, x)
            + c(2) * ee(2, y)
            + s23 * ee(3, x)
            + c23 * ee(3, y)
            + sum_e(y41, 4)
            + sum_e(y51, 5)
            + sum_e(y61, 6);

        let tau = v.tau();
        close("M6", tau[5], m6);
        close("M5", tau[4], m5);
        close("M4", tau[3], m4);
        close("M3", tau[2], m3);
        close("M2", tau[1], m2);
        close("M1", tau[0], m1);
        if kdot5_case {
            close("M5 = K5dot when d5x = 0", tau[4], kdot5);
        }
        let grav = v.out(FunctionKind::Gravity, 0);
        close("G5", grav[4], g5);
        close("G4", grav[3], g4);
        close("G3", grav[2], g3);
        close("G_q2 = G2 - G3", grav[1] - grav[2], gq2);
        close("G1", grav[0], 0.0);
    }
}

/// §4.1.4: effect of the CoM placement. M_3 and M_2 with `a_3 = (cos α, sin α, 0)`; the final
/// M_2 of the paper lacks `L_2 p_2 (ω̇^z_2 + ω^x_2 ω^y_2)` and writes `q_2 · K_03` (T7), both
/// corrected here.
#[test]
fn s000_com_placement() {
    let case = Case::load("s000_com_placement.toml");
    let mut rng = Rng(4);
    let l2 = case.robot.bodies[1].next[0];
    for _ in 0..SAMPLES {
        let alpha = rng.uniform(-PI, PI);
        let r3 = rng.uniform(0.02, 0.3);
        let b1 = body_on(&mut rng, 1, 0.0, 0.3, Some(1));
        let b2 = body_on(&mut rng, 0, 0.02, 0.3, Some(0));
        let b3 = body(&mut rng, [r3 * alpha.cos(), r3 * alpha.sin(), 0.0], None);
        let env = case.state(&mut rng, case.params(&[b1, b2, b3]));
        let v = case.eval(&env);
        let k = kinematics(&case.robot, &env);
        check_quasi(&v, &k);
        let q = &env.q;
        // b_3 = m_o3 |O_3C_3| (p_3 = 0); b_2 a_2 = h_2 + m_3 L_2 x_2; p_2 = L_2 m_3.
        let b3v = b3.m * r3;
        let p2 = l2 * b3.m;
        let b2v = b2.h[0] + p2;
        let l23 = l2 * b3v;
        let (s3, c3) = sc(q, &[3]);
        let (sa, ca) = alpha.sin_cos();
        let (sa3, ca3) = (alpha + q[2]).sin_cos();
        let (w2, wd2, w3, wd3) = (k.w[1], k.wd[1], k.w[2], k.wd[2]);
        let e2 = euler_terms(&b2, w2, wd2);
        let e3 = euler_terms(&b3, w3, wd3);
        let m3 = e3[2]
            + l23 * (ca3 * wd2[2] + sa3 * (w2[1] * w2[1] + w2[2] * w2[2]) + ca3 * w2[0] * w2[1])
            + G * b3v * (alpha + q[1] + q[2]).cos();
        let m2 = m3
            + e2[2]
            + l2 * p2 * (wd2[2] + w2[0] * w2[1])
            + l23
                * (ca3 * wd3[2]
                    - sa * c3 * w3[0] * w3[0]
                    - ca * s3 * w3[1] * w3[1]
                    - sa3 * w3[2] * w3[2]
                    + (sa * s3 + ca * c3) * w3[0] * w3[1])
            + G * b2v * q[1].cos();
        let tau = v.tau();
        close("M3", tau[2], m3);
        close("M2", tau[1], m2);
    }
}

/// §4.1.5: the planar 3-link arm in the vertical plane, (3.2) with `a_i = e_i = x_i` (the second
/// sum uses `a_i` of the carried body, T1, which for `a_i = x_i` is the printed form).
#[test]
fn s000_planar_3link() {
    let case = Case::load("s000_planar3r.toml");
    let mut rng = Rng(5);
    let l: Vec<f64> = case.robot.bodies.iter().map(|b| b.next[0]).collect();
    for _ in 0..SAMPLES {
        let bodies: Vec<Inertial> = (0..3)
            .map(|_| body_on(&mut rng, 0, 0.02, 0.3, Some(0)))
            .collect();
        let env = case.state(&mut rng, case.params(&bodies));
        let v = case.eval(&env);
        check_quasi(&v, &kinematics(&case.robot, &env));
        let msub = |i: usize| bodies[i - 1..].iter().map(|b| b.m).sum::<f64>();
        // L_3 is the tool point: p_3 = L_3 m_4 = 0.
        let p = |i: usize| if i < 3 { l[i - 1] * msub(i + 1) } else { 0.0 };
        let b = |i: usize| bodies[i - 1].h[0] + p(i);
        let lij = |i: usize, j: usize| l[i - 1] * b(j);
        let ip = |j: usize| bodies[j - 1].iz() + l[j - 1] * p(j);
        let (q, qd, qdd) = (&env.q, &env.qd, &env.qdd);
        let al = |j: usize| q[..j].iter().sum::<f64>();
        let ald = |j: usize| qd[..j].iter().sum::<f64>();
        let aldd = |j: usize| qdd[..j].iter().sum::<f64>();
        let cij = |i: usize, j: usize| (al(j) - al(i)).cos();
        let sij = |i: usize, j: usize| (al(j) - al(i)).sin();
        let m3 = (1..=2)
            .map(|i| lij(i, 3) * (cij(i, 3) * aldd(i) + sij(i, 3) * ald(i).powi(2)))
            .sum::<f64>()
            + ip(3) * aldd(3)
            + G * b(3) * al(3).cos();
        let m2 = m3
            + lij(1, 2) * (cij(1, 2) * aldd(1) + sij(1, 2) * ald(1).powi(2))
            + ip(2) * aldd(2)
            + lij(2, 3) * (cij(2, 3) * aldd(3) - sij(2, 3) * ald(3).powi(2))
            + G * b(2) * al(2).cos();
        let m1 = m2
            + (2..=3)
                .map(|i| lij(1, i) * (cij(1, i) * aldd(i) - sij(1, i) * ald(i).powi(2)))
                .sum::<f64>()
            + ip(1) * aldd(1)
            + G * b(1) * q[0].cos();
        let tau = v.tau();
        close("M3", tau[2], m3);
        close("M2", tau[1], m2);
        close("M1", tau[0], m1);
    }
}

// ------------------------------------------------------------------ seed 001

/// What a seed-001 example prints: the lower triangle of the MIK (`H_kj`, k >= j, 1-based; the
/// rest zero) and the split `h_c`, `h_o`, `h_g`.
struct Split {
    h: Vec<((usize, usize), f64)>,
    hc: Vec<f64>,
    ho: Vec<f64>,
    hg: Vec<f64>,
}

/// Compares the generated mass matrix (both triangles), the centrifugal / Coriolis / gyroscopic
/// functions and the equations of motion `H q̈ + h_c + h_o + h_g = Q_g` (Q_g holds gravity) with
/// the paper, and checks the zero power of the gyroscopic forces, `Σ h_g q̇ = 0`.
fn check_split(v: &Values<'_>, env: &Env, want: &Split) {
    let n = v.case.n();
    let mut h = vec![vec![0.0; n]; n];
    for &((k, j), x) in &want.h {
        assert!(k >= j, "lower triangle");
        h[k - 1][j - 1] = x;
        h[j - 1][k - 1] = x;
    }
    for k in 1..=n {
        for j in 1..=n {
            close(&format!("H{k}{j}"), v.h(k, j), h[k - 1][j - 1]);
        }
    }
    let hc = v.out(FunctionKind::Centrifugal, 0);
    let ho = v.out(FunctionKind::Coriolis, 0);
    let hg = v.out(FunctionKind::Gyroscopic, 0);
    let tau = v.tau();
    let grav = v.out(FunctionKind::Gravity, 0);
    for i in 0..n {
        close(&format!("h_c{}", i + 1), hc[i], want.hc[i]);
        close(&format!("h_o{}", i + 1), ho[i], want.ho[i]);
        close(&format!("h_g{}", i + 1), hg[i], want.hg[i]);
        let lhs = (0..n).map(|j| h[i][j] * env.qdd[j]).sum::<f64>()
            + want.hc[i]
            + want.ho[i]
            + want.hg[i];
        close(&format!("equation {}", i + 1), tau[i] - grav[i], lhs);
    }
    let power: f64 = (0..n).map(|i| hg[i] * env.qd[i]).sum();
    let scale: f64 = (0..n).map(|i| (hg[i] * env.qd[i]).abs()).sum();
    close("sum h_g qd", power / scale.max(1.0), 0.0);
}

/// Seed 001, example 1: polar arm in the vertical plane.
#[test]
fn s001_example1_polar_arm() {
    let case = Case::load("s001_ex1_polar.toml");
    let mut rng = Rng(11);
    for _ in 0..SAMPLES {
        let b1 = body_on(&mut rng, 0, 0.02, 0.3, Some(0));
        // Body 2's CoM at O_2, symmetric about x_2.
        let b2 = body(&mut rng, [0.0; 3], Some(0));
        let env = case.state(&mut rng, case.params(&[b1, b2]));
        let v = case.eval(&env);
        let (q, qd) = (&env.q, &env.qd);
        let m2 = b2.m;
        let hg1 = m2 * q[1] * qd[0] * qd[1];
        let hg2 = -m2 * q[1] * qd[0] * qd[0];
        let want = Split {
            h: vec![((1, 1), b1.iz() + b2.iz() + m2 * q[1] * q[1]), ((2, 2), m2)],
            hc: vec![0.0, 0.0],
            // h_o1 = h^g_o1 = h_g1, so the first equation reads H_11 q̈_1 + 2 h_g1 = Q_g1.
            ho: vec![hg1, 0.0],
            hg: vec![hg1, hg2],
        };
        check_split(&v, &env, &want);
    }
}

/// Seed 001, example 2: Cartesian arm in the vertical plane (no gyroscopic forces).
#[test]
fn s001_example2_cartesian_arm() {
    let case = Case::load("s001_ex2_cartesian.toml");
    let mut rng = Rng(12);
    for _ in 0..SAMPLES {
        let b1 = body(&mut rng, [0.1, 0.0, 0.05], None);
        let b2 = body(&mut rng, [0.0, 0.1, 0.0], None);
        let b3 = body_on(&mut rng, 0, 0.02, 0.3, Some(0));
        let env = case.state(&mut rng, case.params(&[b1, b2, b3]));
        let v = case.eval(&env);
        let (q, qd) = (&env.q, &env.qd);
        let a3 = b3.h[0];
        let (s3, c3) = sc(q, &[3]);
        let want = Split {
            h: vec![
                ((1, 1), b1.m + b2.m + b3.m),
                ((2, 2), b2.m + b3.m),
                ((3, 3), b3.iz()),
                ((3, 1), a3 * c3),
                ((3, 2), -a3 * s3),
            ],
            // h_c1 = H_313 q̇_3², h_c2 = H_323 q̇_3².
            hc: vec![-a3 * s3 * qd[2] * qd[2], -a3 * c3 * qd[2] * qd[2], 0.0],
            ho: vec![0.0; 3],
            hg: vec![0.0; 3],
        };
        check_split(&v, &env, &want);
    }
}

/// Seed 001, example 3: cylindrical arm, N = 3.
#[test]
fn s001_example3_cylindrical_arm() {
    let case = Case::load("s001_ex3_cylindrical.toml");
    let mut rng = Rng(13);
    for _ in 0..SAMPLES {
        let b1 = body_on(&mut rng, 1, 0.0, 0.3, Some(1));
        // Body 2 symmetric about x_2, CoM behind O_2: first moment -a_2 x_2.
        let b2 = body_on(&mut rng, 0, -0.3, -0.02, Some(0));
        let b3 = body_on(&mut rng, 1, -0.3, 0.3, Some(1));
        let env = case.state(&mut rng, case.params(&[b1, b2, b3]));
        let v = case.eval(&env);
        let (q, qd) = (&env.q, &env.qd);
        let a2 = -b2.h[0];
        let m2 = b2.m + b3.m;
        let mq2 = m2 * q[1] - a2;
        let hg1 = mq2 * qd[0] * qd[1];
        let want = Split {
            h: vec![
                (
                    (1, 1),
                    b1.iy() + b2.iy() + b3.iy() + m2 * q[1] * q[1] - 2.0 * a2 * q[1],
                ),
                ((2, 2), m2),
                ((3, 3), b3.m),
            ],
            hc: vec![0.0; 3],
            ho: vec![hg1, 0.0, 0.0],
            hg: vec![hg1, -mq2 * qd[0] * qd[0], 0.0],
        };
        check_split(&v, &env, &want);
    }
}

/// Seed 001, example 4: cylindrical arm, N = 4.
#[test]
fn s001_example4_cylindrical_arm() {
    let case = Case::load("s001_ex4_cylindrical.toml");
    let mut rng = Rng(14);
    for _ in 0..SAMPLES {
        let b1 = body_on(&mut rng, 1, 0.0, 0.3, Some(1));
        let b2 = body_on(&mut rng, 1, -0.3, 0.3, Some(1));
        let b3 = body_on(&mut rng, 0, -0.3, -0.02, Some(0));
        let b4 = body_on(&mut rng, 0, 0.02, 0.3, Some(0));
        let env = case.state(&mut rng, case.params(&[b1, b2, b3, b4]));
        let v = case.eval(&env);
        let (q, qd) = (&env.q, &env.qd);
        let (a3, a4) = (-b3.h[0], b4.h[0]);
        let (m2, m3) = (b2.m + b3.m + b4.m, b3.m + b4.m);
        let (s4, c4) = sc(q, &[4]);
        let hq = m3 * q[2] + a4 * c4 - a3;
        let iq = (a4 * q[2] + (b4.iz() - b4.ix()) * c4) * s4;
        let hgo1 = (hq * qd[2] - iq * qd[3]) * qd[0];
        let want = Split {
            h: vec![
                (
                    (1, 1),
                    b1.iy()
                        + b2.iy()
                        + b3.iy()
                        + b4.ix() * s4 * s4
                        + b4.iz() * c4 * c4
                        + m3 * q[2] * q[2]
                        - 2.0 * a3 * q[2]
                        + 2.0 * a4 * q[2] * c4,
                ),
                ((2, 2), m2),
                ((3, 3), m3),
                ((4, 4), b4.iz()),
                ((4, 2), a4 * c4),
                ((4, 3), -a4 * s4),
            ],
            hc: vec![0.0, -a4 * s4 * qd[3] * qd[3], -a4 * c4 * qd[3] * qd[3], 0.0],
            ho: vec![hgo1, 0.0, 0.0, 0.0],
            hg: vec![
                hq * qd[0] * qd[2] - iq * qd[0] * qd[3],
                0.0,
                -hq * qd[0] * qd[0],
                iq * qd[0] * qd[0],
            ],
        };
        check_split(&v, &env, &want);
    }
}

/// Seed 001, example 5: angular arm, N = 3. H_11 uses `I^y_1` (the paper prints `I^y_2`, T13)
/// and `h_g2 = ½ (H_223 q̇_2 q̇_3 - H_112 q̇_1²)` (the paper's bracket misplaced, T13).
#[test]
fn s001_example5_angular_arm() {
    let case = Case::load("s001_ex5_angular.toml");
    let mut rng = Rng(15);
    let l = case.robot.bodies[1].next[1];
    for _ in 0..SAMPLES {
        let b1 = body_on(&mut rng, 1, 0.0, 0.3, Some(1));
        let b2 = body_on(&mut rng, 1, 0.02, 0.3, Some(1));
        let b3 = body_on(&mut rng, 1, 0.02, 0.3, Some(1));
        let env = case.state(&mut rng, case.params(&[b1, b2, b3]));
        let v = case.eval(&env);
        let (q, qd) = (&env.q, &env.qd);
        let (a3, m3) = (b3.h[1], b3.m);
        let (s2, c2) = sc(q, &[2]);
        let (s3, c3) = sc(q, &[3]);
        let (s23, c23) = sc(q, &[2, 3]);
        let h22 = b2.ix() + b3.ix() + m3 * l * l + 2.0 * a3 * l * c3;
        let ca = b2.iy() - b2.ix() - m3 * l * l;
        let cb = b3.iy() - b3.ix();
        let h11 = h22 + b1.iy() + ca * c2 * c2 + cb * c23 * c23 - 2.0 * l * a3 * c2 * c23;
        // H_11k = ∂H_11/∂q_k, by hand from the line above.
        let h112 =
            -2.0 * ca * c2 * s2 - 2.0 * cb * c23 * s23 + 2.0 * l * a3 * (s2 * c23 + c2 * s23);
        let h113 = -2.0 * a3 * l * s3 - 2.0 * cb * c23 * s23 + 2.0 * l * a3 * c2 * s23;
        let h223 = -2.0 * l * a3 * s3;
        let hg1 = 0.5 * qd[0] * (h112 * qd[1] + h113 * qd[2]);
        let hg2 = 0.5 * (h223 * qd[1] * qd[2] - h112 * qd[0] * qd[0]);
        let hg3 = -0.5 * (h113 * qd[0] * qd[0] + h223 * qd[1] * qd[1]);
        let want = Split {
            h: vec![
                ((1, 1), h11),
                ((2, 2), h22),
                ((3, 2), b3.ix() + a3 * l * c3),
                ((3, 3), b3.ix()),
            ],
            // h_c2 = H_323 q̇_3² = -L a_3 s_3 q̇_3².
            hc: vec![0.0, -l * a3 * s3 * qd[2] * qd[2], 0.0],
            // h_o1 = h^g_o1 = h_g1; h_o2 = h^g_o2 = ½ H_223 q̇_2 q̇_3.
            ho: vec![hg1, -l * a3 * s3 * qd[1] * qd[2], 0.0],
            hg: vec![hg1, hg2, hg3],
        };
        check_split(&v, &env, &want);
    }
}

/// Paper-notation parameters of the portal arm (seed 001 example 6 = seed 003 task 1).
fn portal_bodies(rng: &mut Rng) -> Vec<Inertial> {
    vec![
        body(rng, [0.1, 0.05, 0.0], None),
        body(rng, [0.0, 0.05, 0.1], None),
        body_on(rng, 1, -0.3, 0.3, Some(1)),
        body_on(rng, 1, -0.3, 0.3, Some(1)),
        // Bodies 5 and 6: CoMs below the common pole, first moments -a_5 y_5, -a_6 y_6.
        body_on(rng, 1, -0.3, -0.02, Some(1)),
        body_on(rng, 1, -0.3, -0.02, Some(1)),
    ]
}

/// Seed 001, example 6: the portal arm, with q_6 = y_6 (R7), `H_32 = -a s_3 s_5` in the third
/// equation (the paper prints `-a s_3 c_5`, T14) and `h_g3 = I_b s_5 c_5 q̇_3 q̇_5`, the term
/// `-I^y_6 s_5 q̇_5 q̇_6 = q̇_5 H_635 q̇_6` belonging to h_o3 (T15).
#[test]
fn s001_example6_portal_arm() {
    let case = Case::load("s001_ex6_portal.toml");
    let mut rng = Rng(16);
    for _ in 0..SAMPLES {
        let bodies = portal_bodies(&mut rng);
        let env = case.state(&mut rng, case.params(&bodies));
        let v = case.eval(&env);
        let (q, qd) = (&env.q, &env.qd);
        let a = -(bodies[4].h[1] + bodies[5].h[1]);
        let msub = |i: usize| bodies[i - 1..].iter().map(|b| b.m).sum::<f64>();
        let (b5, b6) = (&bodies[4], &bodies[5]);
        let aa = bodies[2].iy() + bodies[3].iy() + b5.ix() + b6.ix();
        let ib = b5.ix() - b5.iy() + b6.ix() - b6.iy();
        let (s3, c3) = sc(q, &[3]);
        let (s5, c5) = sc(q, &[5]);
        let i6y = b6.iy();
        let (qd3, qd5, qd6) = (qd[2], qd[4], qd[5]);
        let hgo3 = ib * s5 * c5 * qd3 * qd5;
        let want = Split {
            h: vec![
                ((1, 1), msub(1)),
                ((2, 2), msub(2)),
                ((4, 4), msub(4)),
                ((3, 1), -a * c3 * s5),
                ((3, 2), -a * s3 * s5),
                ((3, 3), aa - ib * c5 * c5),
                ((5, 1), -a * s3 * c5),
                ((5, 2), a * c3 * c5),
                ((5, 4), -a * s5),
                ((5, 5), b5.ix() + b6.ix()),
                ((6, 3), i6y * c5),
                ((6, 6), i6y),
            ],
            hc: vec![
                a * s3 * s5 * (qd3 * qd3 + qd5 * qd5),
                -a * c3 * s5 * (qd3 * qd3 + qd5 * qd5),
                0.0,
                -a * c5 * qd5 * qd5,
                0.0,
                0.0,
            ],
            ho: vec![
                -2.0 * a * c3 * c5 * qd3 * qd5,
                -2.0 * a * s3 * c5 * qd3 * qd5,
                hgo3 - i6y * s5 * qd5 * qd6,
                0.0,
                0.0,
                0.0,
            ],
            hg: vec![
                0.0,
                0.0,
                hgo3,
                0.0,
                i6y * s5 * qd3 * qd6 - ib * s5 * c5 * qd3 * qd3,
                -i6y * s5 * qd3 * qd5,
            ],
        };
        check_split(&v, &env, &want);
        // The totals h_i as printed.
        let h = [
            a * (s3 * s5 * (qd3 * qd3 + qd5 * qd5) - 2.0 * c3 * c5 * qd3 * qd5),
            -a * (c3 * s5 * (qd3 * qd3 + qd5 * qd5) + 2.0 * s3 * c5 * qd3 * qd5),
            (2.0 * ib * c5 * qd3 - i6y * qd6) * s5 * qd5,
            -a * c5 * qd5 * qd5,
            (i6y * qd6 - ib * c5 * qd3) * s5 * qd3,
            -i6y * s5 * qd3 * qd5,
        ];
        let (hc, ho, hg) = (
            v.out(FunctionKind::Centrifugal, 0),
            v.out(FunctionKind::Coriolis, 0),
            v.out(FunctionKind::Gyroscopic, 0),
        );
        for i in 0..6 {
            close(&format!("h{}", i + 1), hc[i] + ho[i] + hg[i], h[i]);
        }
    }
}

// ------------------------------------------------------------------ seed 003

/// A column of a rotation matrix (the triple of one axis in base coordinates).
fn column(r: &Mat, c: usize) -> V {
    [r[0][c], r[1][c], r[2][c]]
}

fn close3(what: &str, got: V, want: V) {
    for a in 0..3 {
        close(&format!("{what}[{a}]"), got[a], want[a]);
    }
}

/// Statics of any chain (S003 (3), (4)): `F_k = m_k g y`, so in frame `k`
/// `F^ξ_k = m_gk ξ^y_k0`; its norm is `m_gk`, and the active force of a prismatic joint is
/// `p_k · F_k`.
fn check_statics(case: &Case, v: &Values<'_>, bodies: &[Inertial]) {
    let n = case.n();
    let f = v.out(FunctionKind::StaticJointReactions, 0);
    let grav = v.out(FunctionKind::Gravity, 0);
    for k in 0..n {
        let mg = G * bodies[k..].iter().map(|b| b.m).sum::<f64>();
        let fk = [f[3 * k], f[3 * k + 1], f[3 * k + 2]];
        close(&format!("|F_{}|", k + 1), dot(fk, fk).sqrt(), mg);
        if case.robot.bodies[k].joint == JointKind::Prismatic {
            close(
                &format!("F_{} = p_k . F_k", k + 1),
                grav[k],
                dot(case.robot.bodies[k].axis, fk),
            );
        }
    }
}

/// The static reaction on body 6 in its own axes.
fn f6(v: &Values<'_>) -> V {
    let f = v.out(FunctionKind::StaticJointReactions, 0);
    [f[15], f[16], f[17]]
}

/// Task 1: portal arm. `F^x_6 = m_g6 s_5 c_6`, `F^y_6 = m_g6 c_5`, `F^z_6 = m_g6 s_5 s_6`, the frame-6
/// triples in the base, the recursion steps `η_64` (q_3 = 0) and `η_65` (q_3 = q_5 = 0), the
/// paper's checks (norm, `q_5 = q_6 = 0`) and the prismatic joint 4 carrying `-m_g4`.
#[test]
fn s003_task1_portal_arm() {
    let case = Case::load("s001_ex6_portal.toml");
    let mut rng = Rng(31);
    for sample in 0..SAMPLES {
        let bodies = portal_bodies(&mut rng);
        let mut env = case.state(&mut rng, case.params(&bodies));
        if sample == 0 {
            env.q[4] = 0.0;
            env.q[5] = 0.0;
        }
        let v = case.eval(&env);
        let q = &env.q;
        let s = |i: usize| q[i - 1].sin();
        let c = |i: usize| q[i - 1].cos();
        let mg6 = G * bodies[5].m;
        let want = [mg6 * s(5) * c(6), mg6 * c(5), mg6 * s(5) * s(6)];
        close3("F_6", f6(&v), want);
        if sample == 0 {
            close3("F_6 at q5 = q6 = 0", f6(&v), [0.0, mg6, 0.0]);
        }
        let r = v.rotation();
        close3(
            "x_60",
            column(&r, 0),
            [
                c(3) * c(5) * c(6) - s(3) * s(6),
                s(5) * c(6),
                -s(3) * c(5) * c(6) - c(3) * s(6),
            ],
        );
        close3("y_60", column(&r, 1), [-c(3) * s(5), c(5), s(3) * s(5)]);
        close3(
            "z_60",
            column(&r, 2),
            [
                c(3) * c(5) * s(6) + s(3) * c(6),
                s(5) * s(6),
                -s(3) * c(5) * s(6) + c(3) * c(6),
            ],
        );
        check_statics(&case, &v, &bodies);
        close("F_4 = -m_g4", v.out(FunctionKind::Gravity, 0)[3], {
            -G * bodies[3..].iter().map(|b| b.m).sum::<f64>()
        });
        // Recursion steps: frames 0..4 are parallel when q_3 = 0, frames 0..5 when q_5 = 0 too.
        let mut e4 = env.clone();
        e4.q[2] = 0.0;
        let r4 = case.eval(&e4).rotation();
        close3("x_64", column(&r4, 0), [c(5) * c(6), s(5) * c(6), -s(6)]);
        close3("y_64", column(&r4, 1), [-s(5), c(5), 0.0]);
        close3("z_64", column(&r4, 2), [c(5) * s(6), s(5) * s(6), c(6)]);
        e4.q[4] = 0.0;
        let r5 = case.eval(&e4).rotation();
        close3("x_65", column(&r5, 0), [c(6), 0.0, -s(6)]);
        close3("y_65", column(&r5, 1), [0.0, 1.0, 0.0]);
        close3("z_65", column(&r5, 2), [s(6), 0.0, c(6)]);
    }
}

/// Task 2: cylindrical arm, `y_60 = (-c_13 s_5, c_5, s_13 s_5)`, so `F^y_6 = m_g6 c_5`.
#[test]
fn s003_task2_cylindrical_arm() {
    let case = Case::load("s003_task2_cylindrical.toml");
    let mut rng = Rng(32);
    for _ in 0..SAMPLES {
        let bodies = portal_bodies(&mut rng);
        let env = case.state(&mut rng, case.params(&bodies));
        let v = case.eval(&env);
        let q = &env.q;
        let (s13, c13) = sc(q, &[1, 3]);
        let (s5, c5) = sc(q, &[5]);
        close3("y_60", column(&v.rotation(), 1), [-c13 * s5, c5, s13 * s5]);
        close("F^y_6", f6(&v)[1], G * bodies[5].m * c5);
        check_statics(&case, &v, &bodies);
    }
}

/// Task 3: horizontal angular arm, `y_62 = (-c_3 s_5, c_5, s_3 s_5)`, `y_61 = (-c_23 s_5, c_5,
/// s_23 s_5)`, `y_60 = (-c_123 s_5, c_5, s_123 s_5)`.
#[test]
fn s003_task3_angular_horizontal() {
    let case = Case::load("s003_task3_angular_horizontal.toml");
    let mut rng = Rng(33);
    for _ in 0..SAMPLES {
        let bodies = portal_bodies(&mut rng);
        let env = case.state(&mut rng, case.params(&bodies));
        let v = case.eval(&env);
        let q = &env.q;
        let (s5, c5) = sc(q, &[5]);
        let (s3, c3) = sc(q, &[3]);
        let (s23, c23) = sc(q, &[2, 3]);
        let (s123, c123) = sc(q, &[1, 2, 3]);
        close3(
            "y_60",
            column(&v.rotation(), 1),
            [-c123 * s5, c5, s123 * s5],
        );
        close("F^y_6", f6(&v)[1], G * bodies[5].m * c5);
        check_statics(&case, &v, &bodies);
        let mut e = env.clone();
        e.q[0] = 0.0;
        let r1 = case.eval(&e).rotation();
        close3("y_61", column(&r1, 1), [-c23 * s5, c5, s23 * s5]);
        e.q[1] = 0.0;
        let r2 = case.eval(&e).rotation();
        close3("y_62", column(&r2, 1), [-c3 * s5, c5, s3 * s5]);
    }
}

/// Task 4: portal spherical arm, `y_61 = (-s_2 c_5 - c_2 c_3 s_5, c_2 c_5 - s_2 c_3 s_5, s_3 s_5)`
/// and `y_60` from it by the step (7) for `q_1 = y_1`.
#[test]
fn s003_task4_portal_spherical_arm() {
    let case = Case::load("s003_task4_portal_spherical.toml");
    let mut rng = Rng(34);
    for _ in 0..SAMPLES {
        let bodies = portal_bodies(&mut rng);
        let env = case.state(&mut rng, case.params(&bodies));
        let v = case.eval(&env);
        let q = &env.q;
        let s = |i: usize| q[i - 1].sin();
        let c = |i: usize| q[i - 1].cos();
        let y61 = [
            -s(2) * c(5) - c(2) * c(3) * s(5),
            c(2) * c(5) - s(2) * c(3) * s(5),
            s(3) * s(5),
        ];
        let y60 = [
            c(1) * y61[0] + s(1) * y61[2],
            y61[1],
            -s(1) * y61[0] + c(1) * y61[2],
        ];
        close3("y_60", column(&v.rotation(), 1), y60);
        close("F^y_6", f6(&v)[1], G * bodies[5].m * y60[1]);
        check_statics(&case, &v, &bodies);
        let mut e = env.clone();
        e.q[0] = 0.0;
        close3("y_61", column(&case.eval(&e).rotation(), 1), y61);
    }
}

/// Task 5: vertical angular arm, `y_51 = (-c_23 c_4 s_5 - s_23 c_5, -s_23 c_4 s_5 + c_23 c_5,
/// s_4 s_5)`: the middle entry as in the paper's own derivation, `s_23 y^x_53 + c_23 c_5` (its
/// final summary prints `c_23 c_5 - s_23 y^x_53`, T16). Compared as the tool rotation with
/// `q_1 = q_6 = 0` (frame 1 = base, frame 6 = frame 5), and through the static reaction on body
/// 5, `F^y_5 = m_g5 y^y_50 = m_g5 y^y_51` (q_1 turns about the vertical).
#[test]
fn s003_task5_angular_vertical() {
    let case = Case::load("s003_task5_angular_vertical.toml");
    let mut rng = Rng(35);
    let mut printed_fails = false;
    for _ in 0..SAMPLES {
        let bodies = portal_bodies(&mut rng);
        let env = case.state(&mut rng, case.params(&bodies));
        let v = case.eval(&env);
        let q = &env.q;
        let s = |i: usize| q[i - 1].sin();
        let c = |i: usize| q[i - 1].cos();
        let (s23, c23) = sc(q, &[2, 3]);
        let y53 = [-c(4) * s(5), c(5), s(4) * s(5)];
        let y51 = [c23 * y53[0] - s23 * c(5), s23 * y53[0] + c23 * c(5), y53[2]];
        close3(
            "y_51 expanded",
            y51,
            [
                -c23 * c(4) * s(5) - s23 * c(5),
                -s23 * c(4) * s(5) + c23 * c(5),
                s(4) * s(5),
            ],
        );
        let mut e = env.clone();
        e.q[0] = 0.0;
        e.q[5] = 0.0;
        let r = case.eval(&e).rotation();
        close3("y_51", column(&r, 1), y51);
        let f = v.out(FunctionKind::StaticJointReactions, 0);
        let mg5 = G * (bodies[4].m + bodies[5].m);
        close("F^y_5", f[13], mg5 * y51[1]);
        check_statics(&case, &v, &bodies);
        let printed = c23 * c(5) - s23 * y53[0];
        printed_fails |= (printed - y51[1]).abs() > 1e-6;
    }
    assert!(printed_fails, "the printed y^y_51 (T16) differs somewhere");
}

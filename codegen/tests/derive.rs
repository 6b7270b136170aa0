//! Checks of the derivation on `Numeric` against an independent textbook Newton–Euler (base
//! frame, rotation matrices, CoM accelerations, CoM inertias), against the papers' closed forms,
//! and against exact derivatives of the mass matrix (forward-mode dual numbers).

#![allow(clippy::needless_range_loop)]

use quasidyn_codegen::algebra::{Algebra, Joint, Numeric};
use quasidyn_codegen::derive::{derive, velocity_split, Derived};
use quasidyn_codegen::ir::Env;
use quasidyn_codegen::{
    build_module_only, BaseMotion, Frame, FunctionKind, JointKind, ParameterSet, Robot, RobotBody,
    SymbolicInertial,
};

type V = [f64; 3];
type Mat = [[f64; 3]; 3];

const I3: Mat = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

fn add(a: V, b: V) -> V {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
fn sub(a: V, b: V) -> V {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn scale(s: f64, a: V) -> V {
    [s * a[0], s * a[1], s * a[2]]
}
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
fn mv(m: &Mat, v: V) -> V {
    [dot(m[0], v), dot(m[1], v), dot(m[2], v)]
}
fn tr(m: &Mat) -> Mat {
    let mut t = [[0.0; 3]; 3];
    for (r, row) in m.iter().enumerate() {
        for (c, x) in row.iter().enumerate() {
            t[c][r] = *x;
        }
    }
    t
}
fn mm(a: &Mat, b: &Mat) -> Mat {
    let mut o = [[0.0; 3]; 3];
    for (r, row) in o.iter_mut().enumerate() {
        for (c, x) in row.iter_mut().enumerate() {
            *x = (0..3).map(|k| a[r][k] * b[k][c]).sum();
        }
    }
    o
}
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

// ---------------------------------------------------------------- reference Newton–Euler

struct Reference {
    tau: Vec<f64>,
    /// Force / moment about O_i on body i by its carrier, body-i components.
    force: Vec<V>,
    moment: Vec<V>,
    /// Absolute orientation and pole of every body.
    rot: Vec<Mat>,
    pole: Vec<V>,
}

impl Reference {
    /// Pose of the point `position` (body frame of `body`) with orientation `rotation`.
    fn pose(&self, body: usize, position: V, rotation: &Mat) -> (Mat, V) {
        (
            mm(&self.rot[body], rotation),
            add(self.pole[body], mv(&self.rot[body], position)),
        )
    }

    /// The chain's tool pose.
    fn tool(&self, robot: &Robot) -> (Mat, V) {
        let last = robot.dof() - 1;
        self.pose(last, robot.bodies[last].next, &robot.tool_rotation)
    }
}

/// Textbook recursive Newton–Euler in the base frame (independent of the derivation), for
/// chains and trees: motion from each body's carrier outwards, forces from the leaves in.
fn reference(robot: &Robot, q: &[f64], qd: &[f64], qdd: &[f64], gravity: bool) -> Reference {
    let n = robot.dof();
    let g = if gravity { robot.gravity } else { [0.0; 3] };
    let mut rs: Vec<Mat> = Vec::new();
    let mut o: Vec<V> = Vec::new();
    let mut z: Vec<V> = Vec::new();
    let mut w: Vec<V> = Vec::new();
    let mut wd: Vec<V> = Vec::new();
    let mut a: Vec<V> = Vec::new();
    let mut ac: Vec<V> = Vec::new();
    let mut c: Vec<V> = Vec::new();
    for (i, b) in robot.bodies.iter().enumerate() {
        let (r_prev, o_prev, w_prev, wd_prev, a_prev) = match b.parent {
            Some(p) => (rs[p], o[p], w[p], wd[p], a[p]),
            None => (I3, [0.0; 3], [0.0; 3], [0.0; 3], [0.0; 3]),
        };
        let zi = mv(&r_prev, b.axis);
        let prism = b.joint == JointKind::Prismatic;
        let ri = if prism {
            r_prev
        } else {
            mm(&r_prev, &rot(b.axis, q[i]))
        };
        let mut oi = add(o_prev, mv(&r_prev, b.origin));
        if prism {
            oi = add(oi, scale(q[i], zi));
        }
        let rvec = sub(oi, o_prev);
        let mut ai = add(
            a_prev,
            add(cross(wd_prev, rvec), cross(w_prev, cross(w_prev, rvec))),
        );
        let (wi, wdi) = if prism {
            ai = add(
                ai,
                add(scale(qdd[i], zi), scale(2.0 * qd[i], cross(w_prev, zi))),
            );
            (w_prev, wd_prev)
        } else {
            (
                add(w_prev, scale(qd[i], zi)),
                add(
                    wd_prev,
                    add(scale(qdd[i], zi), scale(qd[i], cross(w_prev, zi))),
                ),
            )
        };
        let ci = mv(&ri, b.com);
        let aci = add(ai, add(cross(wdi, ci), cross(wi, cross(wi, ci))));
        rs.push(ri);
        o.push(oi);
        z.push(zi);
        w.push(wi);
        wd.push(wdi);
        a.push(ai);
        ac.push(aci);
        c.push(ci);
    }
    let mut tau = vec![0.0; n];
    let mut force = vec![[0.0; 3]; n];
    let mut moment = vec![[0.0; 3]; n];
    // Force and moment about each pole that the bodies it carries need.
    let mut f_children = vec![[0.0; 3]; n];
    let mut n_children = vec![[0.0; 3]; n];
    for i in (0..n).rev() {
        let b = &robot.bodies[i];
        let fi_own = scale(b.mass, sub(ac[i], g));
        let fi = add(fi_own, f_children[i]);
        let iw = mm(&mm(&rs[i], &b.inertia_com), &tr(&rs[i]));
        let ni = add(
            n_children[i],
            add(
                cross(c[i], fi_own),
                add(mv(&iw, wd[i]), cross(w[i], mv(&iw, w[i]))),
            ),
        );
        tau[i] = if b.joint == JointKind::Prismatic {
            dot(z[i], fi)
        } else {
            dot(z[i], ni)
        };
        force[i] = mv(&tr(&rs[i]), fi);
        moment[i] = mv(&tr(&rs[i]), ni);
        if let Some(p) = b.parent {
            f_children[p] = add(f_children[p], fi);
            n_children[p] = add(n_children[p], add(ni, cross(sub(o[i], o[p]), fi)));
        }
    }
    Reference {
        tau,
        force,
        moment,
        rot: rs,
        pole: o,
    }
}

fn reference_mass_matrix(robot: &Robot, q: &[f64]) -> Vec<f64> {
    let n = robot.dof();
    let mut m = vec![0.0; n * n];
    for j in 0..n {
        let mut e = vec![0.0; n];
        e[j] = 1.0;
        let col = reference(robot, q, &vec![0.0; n], &e, false).tau;
        for i in 0..n {
            m[i * n + j] = col[i];
        }
    }
    m
}

// ---------------------------------------------------------------- helpers

fn numeric(q: &[f64], qd: &[f64], qdd: &[f64], tau: &[f64]) -> Numeric {
    Numeric {
        q: q.to_vec(),
        qd: qd.to_vec(),
        qdd: qdd.to_vec(),
        tau: tau.to_vec(),
        base: Vec::new(),
        elastic: Default::default(),
        double_angle: false,
        run_shift: false,
    }
}

fn eval(robot: &Robot, q: &[f64], qd: &[f64], qdd: &[f64], tau: &[f64]) -> Derived<f64> {
    derive(&mut numeric(q, qd, qdd, tau), robot)
}

#[track_caller]
fn close(a: &[f64], b: &[f64], tol: f64, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    let scale = b.iter().fold(1.0f64, |m, x| m.max(x.abs()));
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= tol * scale,
            "{what}[{k}]: {x} vs {y} (diff {:e}, scale {scale})",
            (x - y).abs()
        );
    }
}

const TOL: f64 = 1e-10;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        // xorshift64*, uniform in [0, 1)
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }
    fn range(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.next()
    }
    fn pick(&mut self, n: usize) -> usize {
        ((self.next() * n as f64) as usize).min(n - 1)
    }
    fn vec(&mut self, a: f64) -> V {
        [self.range(-a, a), self.range(-a, a), self.range(-a, a)]
    }
    fn unit(&mut self) -> V {
        loop {
            let v = self.vec(1.0);
            let l = dot(v, v).sqrt();
            if l > 0.2 {
                return scale(1.0 / l, v);
            }
        }
    }
    fn coord_axis(&mut self) -> V {
        let mut v = [0.0; 3];
        v[self.pick(3)] = if self.next() < 0.5 { 1.0 } else { -1.0 };
        v
    }
}

fn body(joint: JointKind, axis: V, next: V, mass: f64, com: V, inertia: V) -> RobotBody {
    RobotBody {
        name: String::new(),
        joint_name: String::new(),
        joint,
        axis,
        rotation: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        // Set by `robot`, which strings the bodies into a chain.
        parent: None,
        origin: [0.0; 3],
        next,
        mass,
        com,
        inertia_com: [
            [inertia[0], 0.0, 0.0],
            [0.0, inertia[1], 0.0],
            [0.0, 0.0, inertia[2]],
        ],
        symbolic: SymbolicInertial::default(),
        elastic: None,
        flex: None,
        armature: 0.0,
        passive: Default::default(),
        mimic: None,
    }
}

/// A serial chain of `bodies`: each carried by the one before, its pole at that one's `next`.
fn robot(mut bodies: Vec<RobotBody>) -> Robot {
    for i in 0..bodies.len() {
        bodies[i].parent = i.checked_sub(1);
        bodies[i].origin = if i == 0 { [0.0; 3] } else { bodies[i - 1].next };
    }
    Robot {
        name: "test".into(),
        description: None,
        source: None,
        gravity: [0.0, -9.81, 0.0],
        base: [0.0; 3],
        tool_rotation: I3,
        bodies,
        frames: Vec::new(),
        parameters: ParameterSet::Physical,
        motion: BaseMotion::Fixed,
        base_body: None,
        base_layout: Default::default(),
        contacts: Vec::new(),
        tendons: Vec::new(),
    }
}

fn random_robot(rng: &mut Rng, n: usize, general_axes: bool) -> Robot {
    let mut bodies = Vec::new();
    for _ in 0..n {
        let joint = if rng.next() < 0.3 {
            JointKind::Prismatic
        } else {
            JointKind::Revolute
        };
        let axis = if general_axes && rng.next() < 0.5 {
            rng.unit()
        } else {
            rng.coord_axis()
        };
        let next = match rng.pick(3) {
            0 => [0.0; 3],
            1 => scale(rng.range(0.1, 1.0), rng.coord_axis()),
            _ => rng.vec(1.0),
        };
        let com = if rng.next() < 0.2 {
            [0.0; 3]
        } else {
            rng.vec(0.5)
        };
        // Random SPD inertia about the CoM: A Aᵀ + εI.
        let a = [rng.vec(0.5), rng.vec(0.5), rng.vec(0.5)];
        let mut inertia = mm(&a, &tr(&a));
        for (k, row) in inertia.iter_mut().enumerate() {
            row[k] += 0.01;
        }
        if rng.next() < 0.3 {
            // principal axes: exercises the folded E-form
            inertia = [
                [inertia[0][0], 0.0, 0.0],
                [0.0, inertia[1][1], 0.0],
                [0.0, 0.0, inertia[2][2]],
            ];
        }
        let mut b = body(joint, axis, next, rng.range(0.5, 3.0), com, [0.0; 3]);
        b.inertia_com = inertia;
        bodies.push(b);
    }
    let mut r = robot(bodies);
    if rng.next() < 0.5 {
        r.gravity = rng.vec(10.0);
    }
    r.base = rng.vec(0.5);
    r.bodies[0].origin = r.base;
    r.tool_rotation = rot(rng.unit(), rng.range(-3.0, 3.0));
    r
}

// ---------------------------------------------------------------- dual numbers for dM/dq

#[derive(Clone, Copy, Debug)]
struct Dual {
    v: f64,
    d: f64,
}

/// `Numeric` with one forward-mode derivative direction `∂/∂q_dir`.
struct DualAlg {
    q: Vec<f64>,
    dir: usize,
}

impl Algebra for DualAlg {
    type E = Dual;
    fn constant(&mut self, v: f64) -> Dual {
        Dual { v, d: 0.0 }
    }
    fn add(&mut self, a: Dual, b: Dual) -> Dual {
        Dual {
            v: a.v + b.v,
            d: a.d + b.d,
        }
    }
    fn sub(&mut self, a: Dual, b: Dual) -> Dual {
        Dual {
            v: a.v - b.v,
            d: a.d - b.d,
        }
    }
    fn mul(&mut self, a: Dual, b: Dual) -> Dual {
        Dual {
            v: a.v * b.v,
            d: a.d * b.v + a.v * b.d,
        }
    }
    fn neg(&mut self, a: Dual) -> Dual {
        Dual { v: -a.v, d: -a.d }
    }
    fn div(&mut self, a: Dual, b: Dual) -> Dual {
        Dual {
            v: a.v / b.v,
            d: (a.d * b.v - a.v * b.d) / (b.v * b.v),
        }
    }
    fn sqrt(&mut self, a: Dual) -> Dual {
        let s = a.v.sqrt();
        Dual {
            v: s,
            d: a.d / (2.0 * s),
        }
    }
    fn q(&mut self, j: Joint) -> Dual {
        Dual {
            v: self.q[j],
            d: if j == self.dir { 1.0 } else { 0.0 },
        }
    }
    fn qd(&mut self, _j: Joint) -> Dual {
        Dual { v: 0.0, d: 0.0 }
    }
    fn qdd(&mut self, _j: Joint) -> Dual {
        Dual { v: 0.0, d: 0.0 }
    }
    fn tau(&mut self, _j: Joint) -> Dual {
        Dual { v: 0.0, d: 0.0 }
    }
    fn sin_sum(&mut self, mask: u64) -> Dual {
        let (a, da) = self.angle(mask);
        Dual {
            v: a.sin(),
            d: a.cos() * da,
        }
    }
    fn cos_sum(&mut self, mask: u64) -> Dual {
        let (a, da) = self.angle(mask);
        Dual {
            v: a.cos(),
            d: -a.sin() * da,
        }
    }
    fn param(&mut self, _name: &str, v: f64, _symbolic: bool) -> Dual {
        Dual { v, d: 0.0 }
    }
}

impl DualAlg {
    fn angle(&self, mask: u64) -> (f64, f64) {
        let mut a = 0.0;
        let mut da = 0.0;
        for (j, q) in self.q.iter().enumerate() {
            if mask & (1 << j) != 0 {
                a += q;
                if j == self.dir {
                    da = 1.0;
                }
            }
        }
        (a, da)
    }
}

/// `dm[i][k*n + j] = ∂M_kj/∂q_i`, exact.
fn mass_matrix_derivatives(robot: &Robot, q: &[f64]) -> Vec<Vec<f64>> {
    (0..robot.dof())
        .map(|i| {
            let mut alg = DualAlg {
                q: q.to_vec(),
                dir: i,
            };
            derive(&mut alg, robot)
                .mass_matrix
                .iter()
                .map(|x| x.d)
                .collect()
        })
        .collect()
}

fn split(robot: &Robot, q: &[f64], qd: &[f64]) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let n = robot.dof();
    let m = eval(robot, q, qd, &vec![0.0; n], &vec![0.0; n]).mass_matrix;
    let dm = mass_matrix_derivatives(robot, q);
    let dh = |k: usize, j: usize, i: usize| {
        assert!(k >= j && i > j, "Statement 3 only needs i > j");
        dm[i][k * n + j]
    };
    velocity_split(&mut numeric(q, qd, &[], &[]), n, &m, &dh, qd)
}

// ---------------------------------------------------------------- random chains

fn check_random(seed: u64, general_axes: bool) {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let n = 1 + rng.pick(7);
    let robot = random_robot(&mut rng, n, general_axes);
    let q: Vec<f64> = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
    let qd: Vec<f64> = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
    let qdd: Vec<f64> = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
    let zero = vec![0.0; n];
    let d = eval(&robot, &q, &qd, &qdd, &zero);
    let what = |s: &str| format!("seed {seed} n {n}: {s}");

    let r = reference(&robot, &q, &qd, &qdd, true);
    close(&d.inverse_dynamics, &r.tau, TOL, &what("inverse dynamics"));
    let (tool_rot, tool_pos) = r.tool(&robot);
    let rg = reference(&robot, &q, &zero, &zero, true);
    close(&d.gravity, &rg.tau, TOL, &what("gravity"));
    let rn = reference(&robot, &q, &qd, &zero, true);
    close(&d.nonlinear_effects, &rn.tau, TOL, &what("nle"));
    let m = reference_mass_matrix(&robot, &q);
    close(&d.mass_matrix, &m, TOL, &what("mass matrix"));
    close(
        &d.mass_matrix_in_base,
        &m,
        TOL,
        &what("mass matrix (products in the base frame)"),
    );
    close(
        &d.tool_rotation,
        &tool_rot.concat(),
        TOL,
        &what("tool rotation"),
    );
    close(&d.tool_position, &tool_pos, TOL, &what("tool position"));
    close(
        &d.static_force,
        &rg.force.concat(),
        TOL,
        &what("static force"),
    );
    close(
        &d.static_moment,
        &rg.moment.concat(),
        TOL,
        &what("static moment"),
    );

    // M symmetric positive definite (Cholesky succeeds), tau = M qdd + nle.
    for k in 0..n {
        for j in 0..n {
            assert_eq!(d.mass_matrix[k * n + j], d.mass_matrix[j * n + k]);
        }
    }
    let mut l = vec![0.0; n * n];
    for j in 0..n {
        let s: f64 = (0..j).map(|k| l[j * n + k] * l[j * n + k]).sum();
        let djj = d.mass_matrix[j * n + j] - s;
        assert!(djj > 0.0, "{}", what("M not positive definite"));
        l[j * n + j] = djj.sqrt();
        for i in j + 1..n {
            let s: f64 = (0..j).map(|k| l[i * n + k] * l[j * n + k]).sum();
            l[i * n + j] = (d.mass_matrix[i * n + j] - s) / l[j * n + j];
        }
    }
    let mqdd: Vec<f64> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| d.mass_matrix[i * n + j] * qdd[j])
                .sum::<f64>()
                + d.nonlinear_effects[i]
        })
        .collect();
    close(&mqdd, &d.inverse_dynamics, TOL, &what("M qdd + nle"));

    // Forward ∘ inverse round trip, by articulated bodies and by the factorisation of M.
    let tau: Vec<f64> = (0..n).map(|_| rng.range(-5.0, 5.0)).collect();
    let f = eval(&robot, &q, &qd, &zero, &tau);
    for (qdd, how) in [
        (&f.forward_dynamics, "forward dynamics (articulated)"),
        (&f.forward_dynamics_factored, "forward dynamics (factored)"),
    ] {
        let back = eval(&robot, &q, &qd, qdd, &zero);
        close(&back.inverse_dynamics, &tau, 1e-9, &what(how));
    }

    // Jacobian against central differences of the tool pose. Step 1e-5: truncation
    // ~h²·|p'''| ≈ 1e-10, rounding ~1e-16/h ≈ 1e-11, so 1e-7 leaves a wide margin.
    let h = 1e-5;
    for j in 0..n {
        let mut qp = q.clone();
        let mut qm = q.clone();
        qp[j] += h;
        qm[j] -= h;
        let dp = eval(&robot, &qp, &zero, &zero, &zero);
        let dm = eval(&robot, &qm, &zero, &zero, &zero);
        let lin: Vec<f64> = (0..3)
            .map(|r| (dp.tool_position[r] - dm.tool_position[r]) / (2.0 * h))
            .collect();
        // Skew part of R(q+h) R(q-h)ᵀ ≈ I + 2h [ω]×.
        let rp: Vec<f64> = dp.tool_rotation.clone();
        let rm: Vec<f64> = dm.tool_rotation.clone();
        let a = |r: usize, c: usize| (0..3).map(|k| rp[r * 3 + k] * rm[c * 3 + k]).sum::<f64>();
        let ang = [
            (a(2, 1) - a(1, 2)) / (4.0 * h),
            (a(0, 2) - a(2, 0)) / (4.0 * h),
            (a(1, 0) - a(0, 1)) / (4.0 * h),
        ];
        let col: Vec<f64> = (0..6).map(|r| d.jacobian[r * n + j]).collect();
        let fd: Vec<f64> = lin.iter().chain(ang.iter()).copied().collect();
        close(&col, &fd, 1e-7, &what(&format!("jacobian column {j}")));
    }

    // Velocity split (Statement 3) with exact dM/dq.
    let (hc, ho, hg) = split(&robot, &q, &qd);
    let c: Vec<f64> = (0..n).map(|i| hc[i] + ho[i] + hg[i]).collect::<Vec<_>>();
    let cqd: Vec<f64> = (0..n)
        .map(|i| d.nonlinear_effects[i] - d.gravity[i])
        .collect();
    close(&c, &cqd, TOL, &what("h_c + h_o + h_g"));
    let power: f64 = (0..n).map(|i| hg[i] * qd[i]).sum();
    let pscale: f64 = 1.0 + (0..n).map(|i| (hg[i] * qd[i]).abs()).sum::<f64>();
    assert!(power.abs() <= TOL * pscale, "{}", what("h_g power"));
}

// ---------------------------------------------------------------- random trees

/// A random tree: the bodies of a random chain re-hung on random earlier bodies (or the
/// base) at random poles, with random named frames.
fn random_tree(rng: &mut Rng, n: usize) -> Robot {
    let mut r = random_robot(rng, n, true);
    for i in 0..n {
        let parent = if i == 0 || rng.next() < 0.2 {
            None
        } else {
            Some(rng.pick(i))
        };
        r.bodies[i].parent = parent;
        r.bodies[i].origin = rng.vec(0.6);
    }
    // A tree has no tool point: frames instead, anywhere on any body.
    for b in &mut r.bodies {
        b.next = [0.0; 3];
    }
    r.frames = (0..1 + rng.pick(3))
        .map(|k| Frame {
            name: format!("frame {k}"),
            body: Some(rng.pick(n)),
            position: rng.vec(0.3),
            rotation: rot(rng.unit(), rng.range(-3.0, 3.0)),
        })
        .collect();
    r
}

fn check_random_tree(seed: u64) {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let n = 2 + rng.pick(8);
    let robot = random_tree(&mut rng, n);
    let q: Vec<f64> = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
    let qd: Vec<f64> = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
    let qdd: Vec<f64> = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
    let zero = vec![0.0; n];
    let d = eval(&robot, &q, &qd, &qdd, &zero);
    let what = |s: &str| format!("tree seed {seed} n {n}: {s}");
    // Random parents can make a chain, which keeps its tool; a tree has none.
    assert_eq!(
        d.tool_position.is_empty(),
        !robot.is_chain(),
        "{}",
        what("tool")
    );

    let r = reference(&robot, &q, &qd, &qdd, true);
    close(&d.inverse_dynamics, &r.tau, TOL, &what("inverse dynamics"));
    let rg = reference(&robot, &q, &zero, &zero, true);
    close(&d.gravity, &rg.tau, TOL, &what("gravity"));
    close(
        &d.static_force,
        &rg.force.concat(),
        TOL,
        &what("static force"),
    );
    close(
        &d.static_moment,
        &rg.moment.concat(),
        TOL,
        &what("static moment"),
    );
    let rn = reference(&robot, &q, &qd, &zero, true);
    close(&d.nonlinear_effects, &rn.tau, TOL, &what("nle"));
    let m = reference_mass_matrix(&robot, &q);
    close(&d.mass_matrix, &m, TOL, &what("mass matrix"));
    close(
        &d.mass_matrix_in_base,
        &m,
        TOL,
        &what("mass matrix (products in the base frame)"),
    );
    // Entries of bodies on different branches are exact zeros.
    let topo = robot.topology();
    for k in 0..n {
        for j in 0..n {
            if !topo.related(k, j) {
                assert_eq!(d.mass_matrix[k * n + j], 0.0, "{}", what("branch zero"));
            }
        }
    }

    // Forward ∘ inverse round trip, by articulated bodies and through the leaf-first
    // factorisation.
    let tau: Vec<f64> = (0..n).map(|_| rng.range(-5.0, 5.0)).collect();
    let f = eval(&robot, &q, &qd, &zero, &tau);
    for (qdd, how) in [
        (&f.forward_dynamics, "forward dynamics (articulated)"),
        (&f.forward_dynamics_factored, "forward dynamics (factored)"),
    ] {
        let back = eval(&robot, &q, &qd, qdd, &zero);
        close(&back.inverse_dynamics, &tau, 1e-9, &what(how));
    }

    // Frames: pose against the reference, Jacobian against central differences.
    let h = 1e-5;
    for (k, fr) in robot.frames.iter().enumerate() {
        let body = fr.body.expect("a fixed base carries its frames on bodies");
        let (rot_ref, pos_ref) = r.pose(body, fr.position, &fr.rotation);
        let got = &d.frames[k];
        close(
            &got.rotation,
            &rot_ref.concat(),
            TOL,
            &what("frame rotation"),
        );
        close(&got.position, &pos_ref, TOL, &what("frame position"));
        for j in 0..n {
            let mut qp = q.clone();
            let mut qm = q.clone();
            qp[j] += h;
            qm[j] -= h;
            let rp =
                reference(&robot, &qp, &zero, &zero, false).pose(body, fr.position, &fr.rotation);
            let rm =
                reference(&robot, &qm, &zero, &zero, false).pose(body, fr.position, &fr.rotation);
            let lin: Vec<f64> = (0..3).map(|c| (rp.1[c] - rm.1[c]) / (2.0 * h)).collect();
            let a = |x: usize, y: usize| (0..3).map(|c| rp.0[x][c] * rm.0[y][c]).sum::<f64>();
            let ang = [
                (a(2, 1) - a(1, 2)) / (4.0 * h),
                (a(0, 2) - a(2, 0)) / (4.0 * h),
                (a(1, 0) - a(0, 1)) / (4.0 * h),
            ];
            let col: Vec<f64> = (0..6).map(|row| got.jacobian[row * n + j]).collect();
            let fd: Vec<f64> = lin.iter().chain(ang.iter()).copied().collect();
            close(
                &col,
                &fd,
                1e-7,
                &what(&format!("frame {k} jacobian column {j}")),
            );
        }
    }

    // The split (Statement 3 holds for regular-numbered trees) with exact dM/dq.
    let (hc, ho, hg) = split(&robot, &q, &qd);
    let c: Vec<f64> = (0..n).map(|i| hc[i] + ho[i] + hg[i]).collect();
    let cqd: Vec<f64> = (0..n)
        .map(|i| d.nonlinear_effects[i] - d.gravity[i])
        .collect();
    close(&c, &cqd, TOL, &what("h_c + h_o + h_g"));
    let power: f64 = (0..n).map(|i| hg[i] * qd[i]).sum();
    let pscale: f64 = 1.0 + (0..n).map(|i| (hg[i] * qd[i]).abs()).sum::<f64>();
    assert!(power.abs() <= TOL * pscale, "{}", what("h_g power"));
}

#[test]
fn random_trees() {
    for seed in 0..60 {
        check_random_tree(seed);
    }
}

/// The generated split functions (the recursions over composite bodies, and below nine joints
/// whichever of recursion and formulas is shorter) against Statements 2/3 evaluated on the
/// exact `∂H_kj/∂q_i`, on chains and trees of 2 to 14 joints with tilted axes and slides.
#[test]
fn generated_split_matches_the_formulas() {
    let kinds = [
        FunctionKind::Centrifugal,
        FunctionKind::Coriolis,
        FunctionKind::Gyroscopic,
    ];
    for seed in 0..30u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let n = 2 + rng.pick(13);
        let robot = if seed % 2 == 0 {
            random_robot(&mut rng, n, true)
        } else {
            random_tree(&mut rng, n)
        };
        let q: Vec<f64> = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
        let qd: Vec<f64> = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
        let module = build_module_only(&robot, Some(&kinds));
        let env = Env {
            q: q.clone(),
            qd: qd.clone(),
            ..Env::default()
        };
        let (hc, ho, hg) = split(&robot, &q, &qd);
        for (kind, want) in kinds.into_iter().zip([hc, ho, hg]) {
            let f = module.function(kind).expect("a fixed base has the split");
            let got = module.graph.eval_many(&f.outputs[0].values, &env);
            close(&got, &want, TOL, &format!("seed {seed} n {n} {kind:?}"));
        }
    }
}

#[test]
fn random_chains_with_coordinate_axes() {
    for seed in 0..150 {
        check_random(seed, false);
    }
}

#[test]
fn random_chains_with_general_axes() {
    for seed in 1000..1150 {
        check_random(seed, true);
    }
}

/// Turned inertias by the double angle (the form the generator keeps where it is shorter):
/// mass matrix and forward dynamics against the reference on random chains, with coordinate
/// and with general axes, and random trees with slides.
#[test]
fn double_angle_mass_matrix_and_forward_dynamics() {
    let mut rng = Rng(4242);
    for case in 0..120 {
        let n = 2 + rng.pick(7);
        let robot = match case % 3 {
            0 => random_robot(&mut rng, n, false),
            1 => random_robot(&mut rng, n, true),
            _ => random_tree(&mut rng, n),
        };
        let q: Vec<f64> = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
        let qd: Vec<f64> = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
        let tau: Vec<f64> = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
        let zero = vec![0.0; n];
        let mut alg = numeric(&q, &qd, &zero, &tau);
        alg.double_angle = true;
        check_mass_matrix_and_forward_dynamics(&mut alg, &robot);
    }
}

/// The mass matrix derived with `alg` against the reference, and its forward dynamics by
/// `M qdd + h = tau` at the computed `qdd` (both forms).
#[track_caller]
fn check_mass_matrix_and_forward_dynamics(alg: &mut Numeric, robot: &Robot) {
    let (q, qd, tau) = (alg.q.clone(), alg.qd.clone(), alg.tau.clone());
    let d = derive(alg, robot);
    close(
        &d.mass_matrix,
        &reference_mass_matrix(robot, &q),
        1e-10,
        "H",
    );
    let back = reference(robot, &q, &qd, &d.forward_dynamics, true).tau;
    close(&back, &tau, 1e-9, "forward dynamics");
    if !d.forward_dynamics_factored.is_empty() {
        let back = reference(robot, &q, &qd, &d.forward_dynamics_factored, true).tau;
        close(&back, &tau, 1e-9, "factored forward dynamics");
    }
}

/// Wrenches carried through runs of hinges about one axis by the summed angle (the form the
/// generator keeps for the mass matrix and forward dynamics where it is shorter): both against
/// the reference on random chains (coordinate and general axes) and trees whose hinges often
/// share their carrier's axis, in both inertia forms.
#[test]
fn run_shift_mass_matrix_and_forward_dynamics() {
    let mut rng = Rng(5151);
    let mut runs = 0;
    for case in 0..120 {
        let n = 2 + rng.pick(7);
        let mut robot = match case % 3 {
            0 => random_robot(&mut rng, n, false),
            1 => random_robot(&mut rng, n, true),
            _ => random_tree(&mut rng, n),
        };
        for k in 0..n {
            if let Some(p) = robot.bodies[k].parent {
                if rng.next() < 0.6 {
                    robot.bodies[k].axis = robot.bodies[p].axis;
                    robot.bodies[k].joint = JointKind::Revolute;
                    robot.bodies[p].joint = JointKind::Revolute;
                }
            }
        }
        runs += (0..n)
            .filter(|&k| {
                robot.bodies[k].parent.is_some_and(|p| {
                    robot.bodies[k].axis == robot.bodies[p].axis
                        && robot.bodies[k].joint == JointKind::Revolute
                        && robot.bodies[p].joint == JointKind::Revolute
                })
            })
            .count();
        let q: Vec<f64> = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
        let qd: Vec<f64> = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
        let tau: Vec<f64> = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
        let zero = vec![0.0; n];
        for double in [false, true] {
            let mut alg = numeric(&q, &qd, &zero, &tau);
            alg.run_shift = true;
            alg.double_angle = double;
            check_mass_matrix_and_forward_dynamics(&mut alg, &robot);
        }
    }
    // Runs of two hinges or more, so the summed-angle path is what was checked.
    assert!(runs > 150, "only {runs} hinges on their carrier's axis");
}

/// The floating quadruped's legs have a run each (thigh and calf about y) that ends at the
/// floating base's rows: its mass matrix with the runs' wrenches carried by the summed angle
/// equals the one carried joint by joint, which tests/floating.rs checks against Pinocchio.
#[test]
fn run_shift_floating_mass_matrix() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../robots/quadruped_floating.toml");
    let robot = quasidyn_codegen::load_spec(&path).expect("shipped robot parses");
    let n = robot.dof();
    let mut rng = Rng(808);
    for _ in 0..10 {
        let q: Vec<f64> = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
        let zero = vec![0.0; n];
        let mut plain = numeric(&q, &zero, &zero, &zero);
        plain.base = vec![0.0; 19];
        let mut runs = numeric(&q, &zero, &zero, &zero);
        runs.base = vec![0.0; 19];
        runs.run_shift = true;
        let want = derive(&mut plain, &robot).mass_matrix;
        assert_eq!(want.len(), 18 * 18);
        close(&derive(&mut runs, &robot).mass_matrix, &want, 1e-12, "H");
    }
}

#[test]
fn mass_matrix_depends_only_on_later_joints() {
    // The structure Statement 3 relies on: ∂H_kj/∂q_i = 0 for i ≤ j.
    let mut rng = Rng(77);
    for _ in 0..20 {
        let n = 2 + rng.pick(5);
        let robot = random_robot(&mut rng, n, true);
        let q: Vec<f64> = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
        let dm = mass_matrix_derivatives(&robot, &q);
        for (i, d) in dm.iter().enumerate() {
            for k in 0..n {
                for j in i..=k {
                    assert!(
                        d[k * n + j].abs() < 1e-12,
                        "dH{k}{j}/dq{i} = {}",
                        d[k * n + j]
                    );
                }
            }
        }
    }
}

#[test]
fn symbolic_flags_give_the_same_numbers() {
    // Symbolic mass / first moment / inertia take other code paths (m·com, parallel-axis
    // terms in the parameters); on `Numeric` they must agree with the all-numeric derivation.
    let mut rng = Rng(5);
    for case in 0..8u8 {
        let n = 4;
        let mut robot = random_robot(&mut rng, n, true);
        let q: Vec<f64> = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
        let qd: Vec<f64> = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
        let qdd: Vec<f64> = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
        let plain = eval(&robot, &q, &qd, &qdd, &qd);
        for b in &mut robot.bodies {
            b.symbolic = SymbolicInertial {
                mass: case & 1 != 0,
                com: case & 2 != 0,
                inertia: case & 4 != 0,
            };
        }
        let sym = eval(&robot, &q, &qd, &qdd, &qd);
        close(&sym.inverse_dynamics, &plain.inverse_dynamics, TOL, "tau");
        close(&sym.mass_matrix, &plain.mass_matrix, TOL, "M");
        close(&sym.forward_dynamics, &plain.forward_dynamics, TOL, "qdd");
    }
}

// ---------------------------------------------------------------- closed forms from the papers

#[test]
fn single_pendulum() {
    let (m, l, izz) = (2.0, 0.7, 0.05);
    let r = robot(vec![body(
        JointKind::Revolute,
        [0.0, 0.0, 1.0],
        [l, 0.0, 0.0],
        m,
        [l, 0.0, 0.0],
        [0.01, izz, izz],
    )]);
    let (q, qd, qdd) = (0.4, -1.3, 0.8);
    let d = eval(&r, &[q], &[qd], &[qdd], &[0.0]);
    let ip = izz + m * l * l;
    let tau = ip * qdd + m * 9.81 * l * q.cos();
    close(&d.inverse_dynamics, &[tau], TOL, "pendulum tau");
    close(&d.mass_matrix, &[ip], TOL, "pendulum M");
    close(
        &d.tool_position,
        &[l * q.cos(), l * q.sin(), 0.0],
        TOL,
        "tip",
    );
    // At rest the joint holds the weight: F = m g y in body axes, moment g b cos q about z.
    let dr = eval(&r, &[0.0], &[0.0], &[0.0], &[0.0]);
    close(&dr.static_force, &[0.0, m * 9.81, 0.0], TOL, "F1 at q=0");
    close(
        &dr.static_moment,
        &[0.0, 0.0, m * 9.81 * l],
        TOL,
        "M1 at q=0",
    );
}

/// Seed 000 (3.2): planar arm in the vertical plane, `a_i = e_i = x_i`.
#[test]
fn planar_arm_closed_form() {
    for n in [2usize, 3] {
        let ls = [0.5, 0.4, 0.3];
        let ms = [2.0, 1.5, 1.0];
        let cs = [0.25, 0.18, 0.11];
        let izs = [0.0427, 0.0205, 0.008];
        let bodies: Vec<RobotBody> = (0..n)
            .map(|i| {
                body(
                    JointKind::Revolute,
                    [0.0, 0.0, 1.0],
                    [ls[i], 0.0, 0.0],
                    ms[i],
                    [cs[i], 0.0, 0.0],
                    [0.001, izs[i], izs[i]],
                )
            })
            .collect();
        let r = robot(bodies);
        let q = [0.3, -0.7, 1.1];
        let qd = [0.9, -0.4, 1.3];
        let qdd = [-0.5, 0.6, 0.2];
        let d = eval(&r, &q[..n], &qd[..n], &qdd[..n], &[0.0; 3][..n]);
        // Method parameters.
        let msub = |j: usize| (j..n).map(|k| ms[k]).sum::<f64>();
        let b: Vec<f64> = (0..n)
            .map(|j| ms[j] * cs[j] + if j + 1 < n { msub(j + 1) * ls[j] } else { 0.0 })
            .collect();
        let p = |j: usize| if j + 1 < n { ls[j] * msub(j + 1) } else { 0.0 };
        let ip: Vec<f64> = (0..n)
            .map(|j| izs[j] + ms[j] * cs[j] * cs[j] + ls[j] * p(j))
            .collect();
        let alpha: Vec<f64> = (0..n).map(|j| q[..=j].iter().sum()).collect();
        let ad: Vec<f64> = (0..n).map(|j| qd[..=j].iter().sum()).collect();
        let add: Vec<f64> = (0..n).map(|j| qdd[..=j].iter().sum()).collect();
        let mut tau = vec![0.0; n + 1];
        for j in (0..n).rev() {
            let mut t = tau[j + 1] + ip[j] * add[j] + 9.81 * b[j] * alpha[j].cos();
            for i in 0..j {
                let a = alpha[j] - alpha[i];
                t += ls[i] * b[j] * (a.cos() * add[i] + a.sin() * ad[i] * ad[i]);
            }
            for i in j + 1..n {
                let a = alpha[i] - alpha[j];
                t += ls[j] * b[i] * (a.cos() * add[i] - a.sin() * ad[i] * ad[i]);
            }
            tau[j] = t;
        }
        close(&d.inverse_dynamics, &tau[..n], TOL, "planar (3.2)");
    }
}

/// Seed 000 §1.2, (1.7): gyroscope in a gimbal, E-form.
#[test]
fn gimbal_e_form() {
    let inertia = [[0.3, 0.2, 0.25], [0.15, 0.12, 0.1], [0.05, 0.05, 0.09]];
    let mut r = robot(vec![
        body(
            JointKind::Revolute,
            [1.0, 0.0, 0.0],
            [0.0; 3],
            1.0,
            [0.2, 0.0, 0.0],
            inertia[0],
        ),
        body(
            JointKind::Revolute,
            [0.0, 1.0, 0.0],
            [0.0; 3],
            0.8,
            [0.0; 3],
            inertia[1],
        ),
        body(
            JointKind::Revolute,
            [0.0, 0.0, 1.0],
            [0.0; 3],
            0.5,
            [0.0; 3],
            inertia[2],
        ),
    ]);
    r.gravity = [0.0, -9.81, 0.0];
    let q = [0.4, -0.8, 1.7];
    let qd = [1.1, -0.6, 30.0];
    let qdd = [0.3, 0.7, -2.0];
    let d = eval(&r, &q, &qd, &qdd, &[0.0; 3]);
    let (s2, c2, s3, c3) = (q[1].sin(), q[1].cos(), q[2].sin(), q[2].cos());
    let w2 = [c2 * qd[0], qd[1], s2 * qd[0]];
    let wd2 = [
        c2 * qdd[0] - s2 * qd[1] * qd[0],
        qdd[1],
        s2 * qdd[0] + c2 * qd[1] * qd[0],
    ];
    let w3 = [
        c3 * c2 * qd[0] + s3 * qd[1],
        -s3 * c2 * qd[0] + c3 * qd[1],
        s2 * qd[0] + qd[2],
    ];
    let wd3 = [
        -s3 * qd[2] * c2 * qd[0] - c3 * s2 * qd[1] * qd[0]
            + c3 * c2 * qdd[0]
            + c3 * qd[2] * qd[1]
            + s3 * qdd[1],
        -c3 * qd[2] * c2 * qd[0] + s3 * s2 * qd[1] * qd[0] - s3 * c2 * qdd[0] - s3 * qd[2] * qd[1]
            + c3 * qdd[1],
        c2 * qd[1] * qd[0] + s2 * qdd[0] + qdd[2],
    ];
    let e = |i: [f64; 3], w: [f64; 3], wd: [f64; 3]| {
        [
            i[0] * wd[0] + (i[2] - i[1]) * w[1] * w[2],
            i[1] * wd[1] + (i[0] - i[2]) * w[2] * w[0],
            i[2] * wd[2] + (i[1] - i[0]) * w[0] * w[1],
        ]
    };
    let e2 = e(inertia[1], w2, wd2);
    let e3 = e(inertia[2], w3, wd3);
    let m3 = e3[2];
    let m2 = e2[1] + s3 * e3[0] + c3 * e3[1];
    let m1 = inertia[0][0] * qdd[0] + c2 * e2[0] + s2 * e2[2] + c2 * c3 * e3[0] - c2 * s3 * e3[1]
        + s2 * e3[2];
    close(&d.inverse_dynamics, &[m1, m2, m3], TOL, "gimbal (1.7)");
}

/// Seed 001 example 1: polar arm with a prismatic joint (H and the gyroscopic forces).
#[test]
fn polar_arm() {
    let (i1, i2, m1, m2) = (0.4, 0.2, 3.0, 1.5);
    let r = robot(vec![
        body(
            JointKind::Revolute,
            [0.0, 0.0, 1.0],
            [0.0; 3],
            m1,
            [0.0; 3],
            [0.1, i1, i1],
        ),
        body(
            JointKind::Prismatic,
            [1.0, 0.0, 0.0],
            [0.0; 3],
            m2,
            [0.0; 3],
            [0.05, i2, i2],
        ),
    ]);
    let q = [0.6, 0.8];
    let qd = [1.4, -0.7];
    let qdd = [-0.3, 0.9];
    let d = eval(&r, &q, &qd, &qdd, &[0.0; 2]);
    let h11 = i1 + i2 + m2 * q[1] * q[1];
    close(&d.mass_matrix, &[h11, 0.0, 0.0, m2], TOL, "polar H");
    let (hc, ho, hg) = split(&r, &q, &qd);
    let hg1 = m2 * q[1] * qd[0] * qd[1];
    let hg2 = -m2 * q[1] * qd[0] * qd[0];
    close(&hc, &[0.0, 0.0], TOL, "polar h_c");
    close(&ho, &[hg1, 0.0], TOL, "polar h_o = h^g_o");
    close(&hg, &[hg1, hg2], TOL, "polar h_g");
    let g = [m2 * 9.81 * q[1] * q[0].cos(), m2 * 9.81 * q[0].sin()];
    close(&d.gravity, &g, TOL, "polar gravity");
    // Equations of example 1: H q̈ + 2 h_g1 = Q_1, m2 q̈2 + h_g2 = Q_2 (gravity included).
    let tau = [h11 * qdd[0] + 2.0 * hg1 + g[0], m2 * qdd[1] + hg2 + g[1]];
    close(&d.inverse_dynamics, &tau, TOL, "polar equations");
}

/// Seed 003 task 1 (the portal arm of seed 001 example 6): direction cosines of frame 6 and
/// the static force in joint 6.
#[test]
fn portal_arm_direction_cosines_and_static_force() {
    let mut rng = Rng(11);
    let kinds = [
        (JointKind::Prismatic, [0.0, 0.0, 1.0]),
        (JointKind::Prismatic, [1.0, 0.0, 0.0]),
        (JointKind::Revolute, [0.0, 1.0, 0.0]),
        (JointKind::Prismatic, [0.0, -1.0, 0.0]),
        (JointKind::Revolute, [0.0, 0.0, 1.0]),
        (JointKind::Revolute, [0.0, 1.0, 0.0]),
    ];
    let bodies: Vec<RobotBody> = kinds
        .iter()
        .enumerate()
        .map(|(i, &(k, a))| {
            let next = if i >= 3 { [0.0; 3] } else { rng.vec(0.5) };
            body(k, a, next, 1.0 + i as f64, rng.vec(0.2), [0.1, 0.2, 0.3])
        })
        .collect();
    let r = robot(bodies);
    let q = [0.3, -0.2, 0.9, 0.4, -1.2, 0.7];
    let d = eval(&r, &q, &[0.0; 6], &[0.0; 6], &[0.0; 6]);
    let (s, c) = (q.map(|x| x.sin()), q.map(|x| x.cos()));
    let (s3, c3, s5, c5, s6, c6) = (s[2], c[2], s[4], c[4], s[5], c[5]);
    let x60 = [c3 * c5 * c6 - s3 * s6, s5 * c6, -s3 * c5 * c6 - c3 * s6];
    let y60 = [-c3 * s5, c5, s3 * s5];
    let z60 = [c3 * c5 * s6 + s3 * c6, s5 * s6, -s3 * c5 * s6 + c3 * c6];
    // tool_rotation (identity tool) is R_6, whose columns are x_60, y_60, z_60.
    let r6: Vec<f64> = (0..3)
        .flat_map(|row| [x60[row], y60[row], z60[row]])
        .collect();
    close(&d.tool_rotation, &r6, TOL, "R_6");
    let mg6 = 6.0 * 9.81;
    close(
        &d.static_force[15..18],
        &[mg6 * s5 * c6, mg6 * c5, mg6 * s5 * s6],
        TOL,
        "F_6",
    );
    // At q = 0 every F_k = m_k g y (subsystem masses 21, 20, 18, 15, 11, 6).
    let d0 = eval(&r, &[0.0; 6], &[0.0; 6], &[0.0; 6], &[0.0; 6]);
    for (k, mk) in [21.0, 20.0, 18.0, 15.0, 11.0, 6.0].iter().enumerate() {
        close(
            &d0.static_force[3 * k..3 * k + 3],
            &[0.0, mk * 9.81, 0.0],
            TOL,
            "F_k at q = 0",
        );
    }
}

// ---------------------------------------------------------------- folding

/// Records every operation and flags the trivial ones (a known 0 or ±1 operand) that the
/// derivation promises never to emit.
#[derive(Default)]
struct Tracer {
    ops: usize,
    trivial: Vec<String>,
}

#[derive(Clone, Copy)]
struct T(Option<f64>);

impl Tracer {
    fn op(&mut self, what: &str, a: T, b: Option<T>, bad: &[f64]) -> T {
        self.ops += 1;
        for x in [Some(a), b].into_iter().flatten() {
            if let Some(v) = x.0 {
                if bad.contains(&v) {
                    self.trivial.push(format!("{what} with constant {v}"));
                }
            }
        }
        T(None)
    }
}

impl Algebra for Tracer {
    type E = T;
    fn constant(&mut self, v: f64) -> T {
        T(Some(v))
    }
    fn add(&mut self, a: T, b: T) -> T {
        self.op("add", a, Some(b), &[0.0])
    }
    fn sub(&mut self, a: T, b: T) -> T {
        self.op("sub", a, Some(b), &[0.0])
    }
    fn mul(&mut self, a: T, b: T) -> T {
        self.op("mul", a, Some(b), &[0.0, 1.0, -1.0])
    }
    fn neg(&mut self, a: T) -> T {
        self.op("neg", a, None, &[])
    }
    fn div(&mut self, a: T, b: T) -> T {
        self.op("div", a, Some(b), &[0.0])
    }
    fn sqrt(&mut self, a: T) -> T {
        self.op("sqrt", a, None, &[])
    }
    fn q(&mut self, _j: Joint) -> T {
        T(None)
    }
    fn qd(&mut self, _j: Joint) -> T {
        T(None)
    }
    fn qdd(&mut self, _j: Joint) -> T {
        T(None)
    }
    fn tau(&mut self, _j: Joint) -> T {
        T(None)
    }
    fn sin_sum(&mut self, _m: u64) -> T {
        T(None)
    }
    fn cos_sum(&mut self, _m: u64) -> T {
        T(None)
    }
    fn param(&mut self, _n: &str, v: f64, symbolic: bool) -> T {
        if symbolic {
            T(None)
        } else {
            T(Some(v))
        }
    }
}

#[test]
fn known_zeros_and_ones_never_reach_the_algebra() {
    let mut rng = Rng(3);
    for _ in 0..40 {
        let n = 1 + rng.pick(6);
        let general = rng.next() < 0.5;
        let mut r = random_robot(&mut rng, n, general);
        if rng.next() < 0.5 {
            for b in &mut r.bodies {
                b.symbolic = SymbolicInertial {
                    mass: true,
                    com: true,
                    inertia: true,
                };
            }
        }
        let mut t = Tracer::default();
        derive(&mut t, &r);
        assert!(
            t.trivial.is_empty(),
            "{:?}",
            &t.trivial[..t.trivial.len().min(5)]
        );
    }
}

/// A long chain with tilted axes generates the mass matrix with its products in the base
/// frame (shorter there), and the generated matrix is the reference's.
#[test]
fn long_tilted_chains_take_the_mass_matrix_in_the_base_frame() {
    let mut rng = Rng(0x5eed_f4a5);
    let n = 24;
    let robot = random_robot(&mut rng, n, true);
    let module = quasidyn_codegen::build_module_only(
        &robot,
        Some(&[quasidyn_codegen::FunctionKind::MassMatrix]),
    );
    let mut g = quasidyn_codegen::ir::Graph::new();
    let d = quasidyn_codegen::derive::derive_with(&mut g, &robot, true);
    let body = g.op_count(&d.mass_matrix).total();
    let in_base = g.op_count(&d.mass_matrix_in_base).total();
    assert!(
        in_base < body,
        "{in_base} operations in the base frame, {body} carried"
    );
    let generated = &module.functions[0].outputs[0].values;
    assert_eq!(module.graph.op_count(generated).total(), in_base);
    for _ in 0..3 {
        let q: Vec<f64> = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
        let env = Env {
            q: q.clone(),
            ..Env::default()
        };
        let m = reference_mass_matrix(&robot, &q);
        close(
            &module.graph.eval_many(generated, &env),
            &m,
            TOL,
            "generated mass matrix",
        );
    }
}

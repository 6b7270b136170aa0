//! Reference model following the quasi-velocity method of Telegin et al.
//!
//! Everything is carried in body-frame components, as in the papers:
//!
//! - orientations by the direction-cosine recurrences (5)-(8) of S003 (Rodrigues' formula for a
//!   joint axis that is not a coordinate axis);
//! - quasi-velocities `ω_i` and quasi-accelerations `ω̇_i` in body components (§1.3);
//! - the method's parameters: subsystem masses `m_i`, `p_i = L_i m_{i+1}`,
//!   `b_i a_i = m_oi·O_iC_i + m_{i+1} L_i e_i`, the inertia about the pole;
//! - the "Omega-dot" terms `ë_i`, `ä_i` of body-fixed vectors and the Euler term (1.4);
//! - joint torques from the backward vector recursion (1.9) projected on the joint axis (1.10).
//!
//! # Gravity
//!
//! The papers assume `g_vec = -g y` and write the gravity moment `G_j = g b_j a_j × y`. With an
//! arbitrary gravity vector the same derivation (the moment of the weights `m_ok g_vec` about
//! `O_j`) gives `b_j a_j × (-g_vec)`; with `g_vec = -g y` this is `g b_j a_j × y` again. Its frame
//! `j` components need `R_jᵀ g_vec`, i.e. the direction cosines of the frame-`j` axes with the
//! gravity direction (the papers need only the `y` row, `ζ^y_j`).
//!
//! # Prismatic joints (extension of (1.9))
//!
//! The papers' recursion (1.9) is written for revolute chains, where the pole-to-pole vector
//! `O_iO_{i+1} = L_i e_i` is fixed in body `i`. If joint `i+1` is prismatic with unit axis `p`
//! (constant in frame `i` because the frames stay parallel), the pole slides:
//! `d_i = O_iO_{i+1} = L_i e_i + σ_{i+1}` with the slide vector `σ_{i+1} = q_{i+1} p`, whose
//! second derivative in frame-`i` components is
//! `σ̈ = q̈ p + 2 q̇ ω_i × p + q (ω̇_i × p + ω_i × (ω_i × p))` (the last bracket is the
//! Omega-dot term of `p`). The pole accelerations then are
//! `A_{i+1} = A_i + L_i ë_i + σ̈_{i+1}` (`A_1 = σ̈_1`, the base is fixed).
//!
//! Subsystem `j` (bodies `j..N`) is acted on by body `j-1` with the force `F_j` at `O_j` and the
//! moment `M_j` about `O_j`. Its momentum balance, with `C_k = O_k + c_k`, gives
//! `F_j = Σ_{k≥j} m_ok (A_k + c̈_k - g_vec)`. Summing by parts (`m_ok = m_k - m_{k+1}`):
//!
//! ```text
//! F_j = m_j (A_j - g_vec) + S_j,   S_j = Σ_{k≥j} (b_k ä_k + m_{k+1} σ̈_{k+1}),
//! ```
//!
//! because `m_ok c̈_k + m_{k+1} L_k ë_k = b_k ä_k`. For a revolute chain `S_j` is the second
//! derivative of the papers' first-moment vector `m_j`. The angular momentum balance of body `j`
//! about `O_j`, `M_j = M_{j+1} + d_j × F_{j+1} + K̇_0j + m_oj c_j × (A_j - g_vec)`, becomes after
//! inserting `F_{j+1}` and `A_{j+1}`:
//!
//! ```text
//! M_j = M_{j+1} + K̇_0j + (b_j a_j + m_{j+1} σ_{j+1}) × (A_j - g_vec)
//!       + d_j × (p_j ë_j + m_{j+1} σ̈_{j+1} + S_{j+1}).
//! ```
//!
//! With no prismatic joints (`σ = 0`), `A_j = Σ_{i<j} L_i ë_i` and `S_{j+1} = Σ_{i>j} b_i ä_i`,
//! this is exactly (1.9): `b_j a_j × Σ L_i ë_i + L_j p_j e_j × ë_j + e_j × Σ L_ji ä_i` plus the
//! gravity term. The drive of a revolute joint is `q_j · M_j` (1.10); that of a prismatic joint
//! is the active part `p_j · F_j` of the force (S003 §2).
//!
//! # Trees
//!
//! In a tree the subsystem of body `j` is `j` with every body it carries, `m_j` is its mass, and
//! the chain's single `L_j e_j` towards the next pole becomes one vector `origin_c` (constant in
//! frame `j`) per child `c`, with `d_c = origin_c + σ_c`. The same balances give, with sums over
//! the children `c` of `j` (each child's terms carried into frame `j` by one DC step):
//!
//! ```text
//! b_j a_j = m_oj O_jC_j + Σ_c m_c origin_c
//! A_c     = A_j + ö_c + σ̈_c              (ö_c: Omega-dot term of origin_c)
//! S_j     = b_j ä_j + Σ_c (m_c σ̈_c + S_c)
//! F_j     = m_j (A_j - g_vec) + S_j
//! M_j     = Σ_c M_c + K̇_0j + (b_j a_j + Σ_c m_c σ_c) × (A_j - g_vec)
//!           + Σ_c d_c × (m_c ö_c + m_c σ̈_c + S_c)
//! ```
//!
//! For a chain (one child, `origin_{j+1} = L_j e_j`, `m_c ö_c = p_j ë_j`) these are the formulas
//! above.

use super::ReferenceModel;
use crate::chain::{Chain, JointKind, MAX_BODIES};
use crate::tree::{Frame, Tree};

type V3 = [f64; 3];

const ZERO: V3 = [0.0; 3];

fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn scale(k: f64, a: V3) -> V3 {
    [k * a[0], k * a[1], k * a[2]]
}

fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// How one joint turns the direction cosines: the branch of recurrences (5)-(8).
#[derive(Clone, Copy, Debug)]
enum Turn {
    /// Prismatic joint, (5): frames stay parallel.
    Slide,
    /// Revolute about `±x_i` (index 0), `±y_i` (1) or `±z_i` (2), (6)-(8); a negative axis turns
    /// by `-q_i` about the positive one.
    Coordinate { index: usize, sign: f64 },
    /// Revolute about a general unit axis: Rodrigues' rotation, the generalisation of (6)-(8).
    General(V3),
}

impl Turn {
    fn of(body_kind: JointKind, axis: V3) -> Turn {
        if body_kind == JointKind::Prismatic {
            return Turn::Slide;
        }
        for index in 0..3 {
            let others_zero = (0..3).all(|k| k == index || axis[k] == 0.0);
            if others_zero && axis[index].abs() == 1.0 {
                return Turn::Coordinate {
                    index,
                    sign: axis[index],
                };
            }
        }
        Turn::General(axis)
    }

    /// One step of the direction-cosine recursion: the coordinates `v` of a vector in frame `i`
    /// become its coordinates in frame `i-1` (`c = cos q_i`, `s = sin q_i`). Passing `-s` gives
    /// the inverse step, frame `i-1` to frame `i`.
    fn step(self, c: f64, s: f64, v: V3) -> V3 {
        match self {
            Turn::Slide => v,
            Turn::Coordinate { index, sign } => {
                let s = sign * s;
                match index {
                    0 => [v[0], c * v[1] - s * v[2], s * v[1] + c * v[2]],
                    1 => [c * v[0] + s * v[2], v[1], -s * v[0] + c * v[2]],
                    _ => [c * v[0] - s * v[1], s * v[0] + c * v[1], v[2]],
                }
            }
            Turn::General(k) => {
                // v cos q + (k × v) sin q + k (k·v)(1 - cos q)
                let kv = dot(k, v);
                add(
                    add(scale(c, v), scale(s, cross(k, v))),
                    scale(kv * (1.0 - c), k),
                )
            }
        }
    }
}

/// The method's parameters of one body (S000 §1.1), all in the body's own frame.
#[derive(Clone, Debug)]
struct Link {
    kind: JointKind,
    turn: Turn,
    /// Joint axis `q_i` (revolute) or `p_i` (prismatic), unit.
    axis: V3,
    /// Parent body (`None`: the base).
    parent: Option<usize>,
    /// Pole `O_i` from the parent's pole at `q_i = 0`, parent components: the parent's `L e`
    /// towards this body (constant in the parent's frame).
    origin: V3,
    /// `b_i a_i = m_oi O_iC_i + Σ_children m_c origin_c`, stored as a product because `a_i` is
    /// undefined when `b_i = 0`.
    ba: V3,
    /// `m_oi`, its first moment `m_oi O_iC_i` and the subsystem mass `m_i`.
    m_own: f64,
    first_moment: V3,
    m_sub: f64,
    /// Axial moments `I^x, I^y, I^z` and centrifugal moments `I^xy, I^xz, I^yz` about the pole
    /// (the papers' sign: `I^xy = +∫xy dm`).
    ix: f64,
    iy: f64,
    iz: f64,
    ixy: f64,
    ixz: f64,
    iyz: f64,
}

impl Link {
    /// Inertia column vectors `I^x_i, I^y_i, I^z_i` of S000 §1.3 (`J_i` column by column).
    fn column(&self, xi: usize) -> V3 {
        match xi {
            0 => [self.ix, -self.ixy, -self.ixz],
            1 => [-self.ixy, self.iy, -self.iyz],
            _ => [-self.ixz, -self.iyz, self.iz],
        }
    }

    /// Angular momentum about the pole, `K_0i = Σ_ξ ω^ξ I^ξ_i`.
    fn momentum(&self, w: V3) -> V3 {
        let mut k = ZERO;
        for (xi, wx) in w.iter().enumerate() {
            k = add(k, scale(*wx, self.column(xi)));
        }
        k
    }

    /// Euler term (1.4): `K̇_0i` in body components for a general tensor.
    fn euler(&self, w: V3, wd: V3) -> V3 {
        let (ix, iy, iz, ixy, ixz, iyz) = (self.ix, self.iy, self.iz, self.ixy, self.ixz, self.iyz);
        // Vectors I_{ξi} multiplying (ω^ξ)² and I^{ξη}_i multiplying ω^ξ ω^η.
        let i_x = [0.0, ixz, -ixy];
        let i_y = [-iyz, 0.0, ixy];
        let i_z = [iyz, -ixz, 0.0];
        let i_xy = [-ixz, iyz, iy - ix];
        let i_xz = [ixy, ix - iz, -iyz];
        let i_yz = [iz - iy, -ixy, ixz];
        let mut k = self.momentum(wd);
        k = add(k, scale(w[0] * w[0], i_x));
        k = add(k, scale(w[1] * w[1], i_y));
        k = add(k, scale(w[2] * w[2], i_z));
        k = add(k, scale(w[0] * w[1], i_xy));
        k = add(k, scale(w[0] * w[2], i_xz));
        add(k, scale(w[1] * w[2], i_yz))
    }
}

/// "Omega-dot" term (S000 §2.1): frame-`i` components of `ü` for a vector `u` with constant
/// components in frame `i`, from the quasi-velocities `w` and quasi-accelerations `wd`.
/// Linear in `u`, so it serves `e_i`, `b_i a_i` and prismatic axes alike.
fn omega_dot(u: V3, w: V3, wd: V3) -> V3 {
    let (ux, uy, uz) = (u[0], u[1], u[2]);
    let (wx, wy, wz) = (w[0], w[1], w[2]);
    [
        uz * wd[1] - uy * wd[2] + (uy * wy + uz * wz) * wx - ux * (wy * wy + wz * wz),
        ux * wd[2] - uz * wd[0] + (ux * wx + uz * wz) * wy - uy * (wx * wx + wz * wz),
        uy * wd[0] - ux * wd[1] + (ux * wx + uy * wy) * wz - uz * (wx * wx + wy * wy),
    ]
}

/// Reference model by the quasi-velocity method (see the module docs for the formulas, the
/// prismatic extension and trees).
#[derive(Clone, Debug)]
pub struct QuasiVelocityModel {
    links: Vec<Link>,
    gravity: V3,
    frames: Vec<Frame>,
}

/// Per-joint `cos q`, `sin q` (1, 0 for prismatic joints, which do not turn frames).
type Trig = [(f64, f64); MAX_BODIES];

/// Per-body vectors of one evaluation.
type Vecs = [V3; MAX_BODIES];

impl QuasiVelocityModel {
    /// Computes the method's parameters of `chain` (its tool becomes frame 0).
    ///
    /// # Panics
    /// If the chain is empty or has more than [`MAX_BODIES`] bodies.
    pub fn new(chain: &Chain) -> Self {
        Self::from_tree(&Tree::from(chain))
    }

    /// Computes the method's parameters of `tree`.
    ///
    /// # Panics
    /// If the tree is not valid ([`Tree::assert_valid`]).
    pub fn from_tree(tree: &Tree) -> Self {
        tree.assert_valid();
        let n = tree.bodies.len();
        // Subsystem masses m_i, children after parents so one backward sweep suffices.
        let mut m_sub: Vec<f64> = tree.bodies.iter().map(|b| b.mass).collect();
        for i in (0..n).rev() {
            if let Some(p) = tree.bodies[i].parent {
                m_sub[p] += m_sub[i];
            }
        }
        let mut links = Vec::with_capacity(n);
        for (i, body) in tree.bodies.iter().enumerate() {
            let first_moment = scale(body.mass, body.com);
            let mut ba = first_moment;
            for (c, child) in tree.bodies.iter().enumerate().skip(i + 1) {
                if child.parent == Some(i) {
                    ba = add(ba, scale(m_sub[c], child.origin));
                }
            }
            // Parallel-axis theorem: tensor about the pole from the tensor about the CoM.
            let c = body.com;
            let cc = dot(c, c);
            let mut j = body.inertia_com;
            for (r, row) in j.iter_mut().enumerate() {
                for (k, entry) in row.iter_mut().enumerate() {
                    let delta = if r == k { cc } else { 0.0 };
                    *entry += body.mass * (delta - c[r] * c[k]);
                }
            }
            links.push(Link {
                kind: body.joint,
                turn: Turn::of(body.joint, body.axis),
                axis: body.axis,
                parent: body.parent,
                origin: body.origin,
                ba,
                m_own: body.mass,
                first_moment,
                m_sub: m_sub[i],
                ix: j[0][0],
                iy: j[1][1],
                iz: j[2][2],
                ixy: -j[0][1],
                ixz: -j[0][2],
                iyz: -j[1][2],
            });
        }
        QuasiVelocityModel {
            links,
            gravity: tree.gravity,
            frames: tree.frames.clone(),
        }
    }

    fn trig(&self, q: &[f64]) -> Trig {
        assert_eq!(q.len(), self.links.len(), "q has the wrong length");
        let mut t = [(1.0, 0.0); MAX_BODIES];
        for (i, link) in self.links.iter().enumerate() {
            if link.kind == JointKind::Revolute {
                t[i] = (q[i].cos(), q[i].sin());
            }
        }
        t
    }

    /// Slide vector `σ_j = q_j p_j` of a prismatic joint (zero for a revolute one); the same
    /// components in frame `j` and in its parent's frame.
    fn slide(&self, q: &[f64], j: usize) -> V3 {
        match self.links[j].kind {
            JointKind::Prismatic => scale(q[j], self.links[j].axis),
            JointKind::Revolute => ZERO,
        }
    }

    /// Direction cosines of the axes of frame `j` in the base frame, by the recurrences (5)-(8)
    /// run from body `j` down its path to the base: `out[η]` holds `η_{j0}` (a column of `R_j`).
    fn axes_in_base(&self, trig: &Trig, j: usize) -> [V3; 3] {
        let mut out = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        for eta in out.iter_mut() {
            let mut body = Some(j);
            while let Some(i) = body {
                let (c, s) = trig[i];
                *eta = self.links[i].turn.step(c, s, *eta);
                body = self.links[i].parent;
            }
        }
        out
    }

    /// Components `R_jᵀ g_vec` of the gravity vector in every body frame: the direction cosines
    /// of each body axis with the gravity vector (S003 (4) uses only the `y` row).
    fn gravity_in_bodies(&self, trig: &Trig, g: V3, out: &mut Vecs) {
        for (j, gj) in out.iter_mut().enumerate().take(self.links.len()) {
            let axes = self.axes_in_base(trig, j);
            *gj = [dot(axes[0], g), dot(axes[1], g), dot(axes[2], g)];
        }
    }

    /// The forward (quasi-velocity) and backward (moment) recursions: fills the joint drives
    /// `tau` for gravity `g` (base components; zero to leave gravity out), and the force `F_j`
    /// and moment `M_j` (about `O_j`) on subsystem `j` from its parent, frame-`j` components.
    #[allow(clippy::too_many_arguments)]
    fn recursion(
        &self,
        q: &[f64],
        qd: &[f64],
        qdd: &[f64],
        g: V3,
        tau: &mut [f64],
        force: &mut Vecs,
        moment: &mut Vecs,
    ) {
        let n = self.links.len();
        assert!(
            qd.len() == n && qdd.len() == n && tau.len() == n,
            "wrong slice length"
        );
        let trig = self.trig(q);
        let mut g_body = [ZERO; MAX_BODIES];
        if g != ZERO {
            self.gravity_in_bodies(&trig, g, &mut g_body);
        }

        // Forward: quasi-velocities, quasi-accelerations, pole accelerations A_j, slides.
        let mut w = [ZERO; MAX_BODIES];
        let mut wd = [ZERO; MAX_BODIES];
        let mut acc = [ZERO; MAX_BODIES];
        let mut slide = [ZERO; MAX_BODIES];
        let mut slide_dd = [ZERO; MAX_BODIES];
        for (j, link) in self.links.iter().enumerate() {
            let (c, s) = trig[j];
            // The parent's quantities; A_p + ö_j is the acceleration of O_j before its slide.
            let (w_p, wd_p, a_p) = match link.parent {
                Some(p) => (
                    w[p],
                    wd[p],
                    add(acc[p], omega_dot(link.origin, w[p], wd[p])),
                ),
                None => (ZERO, ZERO, ZERO),
            };
            // ... in frame j: inverse DC step.
            let w_in = link.turn.step(c, -s, w_p);
            let wd_in = link.turn.step(c, -s, wd_p);
            let a_in = link.turn.step(c, -s, a_p);
            match link.kind {
                JointKind::Revolute => {
                    w[j] = add(w_in, scale(qd[j], link.axis));
                    wd[j] = add(
                        add(wd_in, scale(qdd[j], link.axis)),
                        scale(qd[j], cross(w_in, link.axis)),
                    );
                    acc[j] = a_in;
                }
                JointKind::Prismatic => {
                    w[j] = w_in;
                    wd[j] = wd_in;
                    slide[j] = scale(q[j], link.axis);
                    slide_dd[j] = add(
                        add(
                            scale(qdd[j], link.axis),
                            scale(2.0 * qd[j], cross(w[j], link.axis)),
                        ),
                        scale(q[j], omega_dot(link.axis, w[j], wd[j])),
                    );
                    acc[j] = add(a_in, slide_dd[j]);
                }
            }
        }

        // Backward: S_j and M_j (module docs); each body's terms are carried into its parent's
        // frame by one DC step and summed there over the children.
        let mut m_children = [ZERO; MAX_BODIES];
        let mut s_children = [ZERO; MAX_BODIES];
        let mut sig_children = [ZERO; MAX_BODIES];
        for j in (0..n).rev() {
            let link = &self.links[j];
            let ba_dd = omega_dot(link.ba, w[j], wd[j]);
            let s_j = add(ba_dd, s_children[j]);
            let a_rel = sub(acc[j], g_body[j]);
            let f_j = add(scale(link.m_sub, a_rel), s_j);
            let lever = add(link.ba, sig_children[j]);
            let m_j = add(
                add(m_children[j], link.euler(w[j], wd[j])),
                cross(lever, a_rel),
            );
            tau[j] = match link.kind {
                JointKind::Revolute => dot(link.axis, m_j),
                JointKind::Prismatic => dot(link.axis, f_j),
            };
            force[j] = f_j;
            moment[j] = m_j;
            if let Some(p) = link.parent {
                let (c, s) = trig[j];
                let s_carried = link.turn.step(c, s, s_j);
                let m_carried = link.turn.step(c, s, m_j);
                let d = add(link.origin, slide[j]);
                let sliding = add(scale(link.m_sub, slide_dd[j]), s_carried);
                let pushed = add(
                    scale(link.m_sub, omega_dot(link.origin, w[p], wd[p])),
                    sliding,
                );
                s_children[p] = add(s_children[p], sliding);
                sig_children[p] = add(sig_children[p], scale(link.m_sub, slide[j]));
                m_children[p] = add(add(m_children[p], m_carried), cross(d, pushed));
            }
        }
    }

    fn drives(&self, q: &[f64], qd: &[f64], qdd: &[f64], g: V3, tau: &mut [f64]) {
        let (mut f, mut m) = ([ZERO; MAX_BODIES], [ZERO; MAX_BODIES]);
        self.recursion(q, qd, qdd, g, tau, &mut f, &mut m);
    }

    /// The velocity recursion: `ω_j` and the pole velocity `v_Oj` of every body, frame-`j`
    /// components.
    fn pole_velocities(&self, trig: &Trig, q: &[f64], qd: &[f64]) -> (Vecs, Vecs) {
        let (mut w, mut v) = ([ZERO; MAX_BODIES], [ZERO; MAX_BODIES]);
        for (j, link) in self.links.iter().enumerate() {
            let (c, s) = trig[j];
            // O_j moves with the parent at d_j = origin_j + σ_j from O_p; the slide's own rate
            // is added below.
            let (w_p, v_p) = match link.parent {
                Some(p) => (
                    w[p],
                    add(v[p], cross(w[p], add(link.origin, self.slide(q, j)))),
                ),
                None => (ZERO, ZERO),
            };
            w[j] = link.turn.step(c, -s, w_p);
            v[j] = link.turn.step(c, -s, v_p);
            match link.kind {
                JointKind::Revolute => w[j] = add(w[j], scale(qd[j], link.axis)),
                JointKind::Prismatic => v[j] = add(v[j], scale(qd[j], link.axis)),
            }
        }
        (w, v)
    }

    /// Solves `M x = b` by an LDLᵀ factorisation on the stack (`M` symmetric positive definite).
    fn ldlt_solve(n: usize, m: &mut [f64; MAX_BODIES * MAX_BODIES], x: &mut [f64]) {
        let mut d = [0.0; MAX_BODIES];
        // Unit lower L stored below the diagonal of m.
        for j in 0..n {
            let mut dj = m[j * n + j];
            for k in 0..j {
                dj -= m[j * n + k] * m[j * n + k] * d[k];
            }
            d[j] = dj;
            for i in j + 1..n {
                let mut lij = m[i * n + j];
                for k in 0..j {
                    lij -= m[i * n + k] * m[j * n + k] * d[k];
                }
                m[i * n + j] = lij / dj;
            }
        }
        for i in 0..n {
            for k in 0..i {
                x[i] -= m[i * n + k] * x[k];
            }
        }
        for i in 0..n {
            x[i] /= d[i];
        }
        for i in (0..n).rev() {
            for k in i + 1..n {
                x[i] -= m[k * n + i] * x[k];
            }
        }
    }
}

impl ReferenceModel for QuasiVelocityModel {
    fn dof(&self) -> usize {
        self.links.len()
    }

    fn frame_count(&self) -> usize {
        self.frames.len()
    }

    fn inverse_dynamics(&self, q: &[f64], qd: &[f64], qdd: &[f64], tau: &mut [f64]) {
        self.drives(q, qd, qdd, self.gravity, tau);
    }

    fn gravity(&self, q: &[f64], tau: &mut [f64]) {
        let zero = [0.0; MAX_BODIES];
        let n = self.dof();
        self.drives(q, &zero[..n], &zero[..n], self.gravity, tau);
    }

    fn nonlinear_effects(&self, q: &[f64], qd: &[f64], h: &mut [f64]) {
        let zero = [0.0; MAX_BODIES];
        self.drives(q, qd, &zero[..self.dof()], self.gravity, h);
    }

    fn mass_matrix(&self, q: &[f64], m: &mut [f64]) {
        let n = self.dof();
        assert_eq!(m.len(), n * n, "m must have dof*dof entries");
        let zero = [0.0; MAX_BODIES];
        let mut unit = [0.0; MAX_BODIES];
        let mut col = [0.0; MAX_BODIES];
        // Column k is the drive needed for q̈ = unit k at rest without gravity.
        for k in 0..n {
            unit[k] = 1.0;
            self.drives(q, &zero[..n], &unit[..n], ZERO, &mut col[..n]);
            unit[k] = 0.0;
            for r in 0..n {
                m[r * n + k] = col[r];
            }
        }
    }

    fn forward_dynamics(&self, q: &[f64], qd: &[f64], tau: &[f64], qdd: &mut [f64]) {
        let n = self.dof();
        assert!(tau.len() == n && qdd.len() == n, "wrong slice length");
        let mut m = [0.0; MAX_BODIES * MAX_BODIES];
        self.mass_matrix(q, &mut m[..n * n]);
        self.nonlinear_effects(q, qd, qdd);
        for i in 0..n {
            qdd[i] = tau[i] - qdd[i];
        }
        Self::ldlt_solve(n, &mut m, qdd);
    }

    fn frame_pose(&self, frame: usize, q: &[f64]) -> ([[f64; 3]; 3], [f64; 3]) {
        let trig = self.trig(q);
        let frame = &self.frames[frame];
        // Poles: O_j = O_p + R_p d_j, with R_p from the DC recurrences, along the path.
        let mut path = [0usize; MAX_BODIES];
        let mut len = 0;
        let mut body = Some(frame.body);
        while let Some(i) = body {
            path[len] = i;
            len += 1;
            body = self.links[i].parent;
        }
        let mut pole = ZERO;
        for &j in path[..len].iter().rev() {
            let d = add(self.links[j].origin, self.slide(q, j));
            pole = match self.links[j].parent {
                Some(p) => add(pole, rotate(&self.axes_in_base(&trig, p), d)),
                None => d,
            };
        }
        let axes = self.axes_in_base(&trig, frame.body);
        let origin = add(pole, rotate(&axes, frame.position));
        // Frame axes: the columns of the frame rotation, carried to the base by the body axes.
        let t = &frame.rotation;
        let columns: [V3; 3] = core::array::from_fn(|c| rotate(&axes, [t[0][c], t[1][c], t[2][c]]));
        let r = core::array::from_fn(|row| core::array::from_fn(|c| columns[c][row]));
        (r, origin)
    }

    fn frame_jacobian(&self, frame: usize, q: &[f64], j: &mut [f64]) {
        let n = self.dof();
        assert_eq!(j.len(), 6 * n, "j must have 6*dof entries");
        let trig = self.trig(q);
        let frame = &self.frames[frame];
        let b = frame.body;
        let axes = self.axes_in_base(&trig, b);
        let mut unit = [0.0; MAX_BODIES];
        // Velocities are linear in q̇: column k is the frame's velocity for q̇ = unit k.
        for k in 0..n {
            unit[k] = 1.0;
            let (w, v) = self.pole_velocities(&trig, q, &unit[..n]);
            unit[k] = 0.0;
            let v_frame = add(v[b], cross(w[b], frame.position));
            let (w, v) = (rotate(&axes, w[b]), rotate(&axes, v_frame));
            for r in 0..3 {
                j[r * n + k] = v[r];
                j[(r + 3) * n + k] = w[r];
            }
        }
    }

    fn kinetic_energy(&self, q: &[f64], qd: &[f64]) -> f64 {
        assert_eq!(qd.len(), self.dof(), "qd has the wrong length");
        let trig = self.trig(q);
        let (w, v) = self.pole_velocities(&trig, q, qd);
        // About the pole: T_i = ½ m_oi v_O² + v_O·(ω × m_oi O_iC_i) + ½ ω·K_0i.
        self.links
            .iter()
            .enumerate()
            .map(|(j, link)| {
                let (w, v) = (w[j], v[j]);
                0.5 * link.m_own * dot(v, v)
                    + dot(v, cross(w, link.first_moment))
                    + 0.5 * dot(w, link.momentum(w))
            })
            .sum()
    }

    /// S003 (3)-(4): `F_j = -m_j g_vec` projected by direction cosines; the moments are the
    /// gravity part of the recursion, `M_j = Σ_c M_c + (b_j a_j + Σ_c m_c σ_c) × (-g_vec)`.
    fn static_joint_reactions(&self, q: &[f64], f: &mut [f64], t: &mut [f64]) {
        let n = self.dof();
        assert!(
            f.len() == 3 * n && t.len() == 3 * n,
            "f and t must have 3*dof entries"
        );
        let zero = [0.0; MAX_BODIES];
        let mut tau = [0.0; MAX_BODIES];
        let (mut force, mut moment) = ([ZERO; MAX_BODIES], [ZERO; MAX_BODIES]);
        self.recursion(
            q,
            &zero[..n],
            &zero[..n],
            self.gravity,
            &mut tau[..n],
            &mut force,
            &mut moment,
        );
        for j in 0..n {
            f[3 * j..3 * j + 3].copy_from_slice(&force[j]);
            t[3 * j..3 * j + 3].copy_from_slice(&moment[j]);
        }
    }
}

/// Base components of a vector given in a frame whose axes (base components) are `axes`.
fn rotate(axes: &[V3; 3], v: V3) -> V3 {
    add(
        add(scale(v[0], axes[0]), scale(v[1], axes[1])),
        scale(v[2], axes[2]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::Body;

    fn close(a: V3, b: V3) -> bool {
        let scale = b.iter().fold(1.0f64, |m, x| m.max(x.abs()));
        (0..3).all(|k| (a[k] - b[k]).abs() <= 1e-13 * scale)
    }

    fn sample_link() -> Link {
        Link {
            kind: JointKind::Revolute,
            turn: Turn::General([0.0, 0.6, 0.8]),
            axis: [0.0, 0.6, 0.8],
            parent: None,
            origin: ZERO,
            ba: ZERO,
            m_own: 1.0,
            first_moment: ZERO,
            m_sub: 1.0,
            ix: 0.31,
            iy: 0.27,
            iz: 0.45,
            ixy: 0.02,
            ixz: -0.05,
            iyz: 0.03,
        }
    }

    #[test]
    fn omega_dot_is_the_second_derivative_of_a_body_vector() {
        let (u, w, wd) = ([0.3, -1.2, 0.7], [0.4, -0.9, 1.3], [-2.0, 0.5, 0.8]);
        let direct = add(cross(wd, u), cross(w, cross(w, u)));
        assert!(close(omega_dot(u, w, wd), direct));
    }

    #[test]
    fn euler_term_is_j_wd_plus_w_cross_j_w() {
        let link = sample_link();
        let (w, wd) = ([0.4, -0.9, 1.3], [-2.0, 0.5, 0.8]);
        let direct = add(link.momentum(wd), cross(w, link.momentum(w)));
        assert!(close(link.euler(w, wd), direct));
    }

    #[test]
    fn dc_steps_match_rodrigues_for_coordinate_axes() {
        let (c, s) = (0.7f64.cos(), 0.7f64.sin());
        let v = [0.2, -0.5, 0.9];
        for index in 0..3 {
            for sign in [1.0, -1.0] {
                let mut axis = ZERO;
                axis[index] = sign;
                let table = Turn::Coordinate { index, sign }.step(c, s, v);
                assert!(close(table, Turn::General(axis).step(c, s, v)));
                // The inverse step undoes the step.
                assert!(close(
                    Turn::of(JointKind::Revolute, axis).step(c, -s, table),
                    v
                ));
            }
        }
    }

    /// With the papers' gravity `-g y` and a revolute chain, the gravity drives are
    /// `q_j · G_j` with `G_j = g m_j × y` and `m_j = Σ_{k≥j} b_k a_k` (S000 (1.1)).
    #[test]
    fn default_gravity_reproduces_the_papers_gravity_moment() {
        let axes = [
            [0.0, 0.0, 1.0],
            [0.0, -1.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 0.0, -1.0],
        ];
        let bodies = axes
            .iter()
            .enumerate()
            .map(|(i, &axis)| Body {
                joint: JointKind::Revolute,
                axis,
                next: [0.3 + 0.1 * i as f64, -0.2, 0.1 * i as f64],
                mass: 1.0 + 0.5 * i as f64,
                com: [0.1, 0.05 * i as f64, -0.07],
                inertia_com: [[0.02, 0.0, 0.0], [0.0, 0.03, 0.0], [0.0, 0.0, 0.04]],
            })
            .collect();
        let g = 9.81;
        let chain = Chain {
            bodies,
            base: ZERO,
            gravity: [0.0, -g, 0.0],
            tool_rotation: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        };
        let model = QuasiVelocityModel::new(&chain);
        let q = [0.4, -1.1, 2.3, 0.7];
        let mut tau = [0.0; 4];
        model.gravity(&q, &mut tau);
        let trig = model.trig(&q);
        for (j, tau_j) in tau.iter().enumerate() {
            let mut m_j = ZERO;
            for k in j..4 {
                m_j = add(
                    m_j,
                    rotate(&model.axes_in_base(&trig, k), model.links[k].ba),
                );
            }
            let axis = rotate(&model.axes_in_base(&trig, j), model.links[j].axis);
            let expected = dot(axis, scale(g, cross(m_j, [0.0, 1.0, 0.0])));
            assert!((tau_j - expected).abs() <= 1e-12 * expected.abs().max(1.0));
        }
    }
}

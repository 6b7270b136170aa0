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

use super::ReferenceModel;
use crate::chain::{Chain, JointKind, MAX_BODIES};

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
    /// `L_i` and the unit `e_i` (zero when `L_i = 0`).
    l: f64,
    e: V3,
    /// `b_i a_i`, stored as a product because `a_i` is undefined when `b_i = 0`.
    ba: V3,
    /// `m_oi`, its first moment `m_oi O_iC_i`, subsystem masses `m_i` and `m_{i+1}`.
    m_own: f64,
    first_moment: V3,
    m_sub: f64,
    m_next: f64,
    /// `p_i = L_i m_{i+1}`.
    p: f64,
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

/// Reference model by the quasi-velocity method (see the module docs for the formulas and the
/// prismatic extension).
#[derive(Clone, Debug)]
pub struct QuasiVelocityModel {
    links: Vec<Link>,
    base: V3,
    gravity: V3,
    tool_rotation: [[f64; 3]; 3],
}

/// Per-joint `cos q`, `sin q` (1, 0 for prismatic joints, which do not turn frames).
type Trig = [(f64, f64); MAX_BODIES];

impl QuasiVelocityModel {
    /// Computes the method's parameters of `chain`.
    ///
    /// # Panics
    /// If the chain is empty or has more than [`MAX_BODIES`] bodies.
    pub fn new(chain: &Chain) -> Self {
        let n = chain.bodies.len();
        assert!(
            (1..=MAX_BODIES).contains(&n),
            "chain must have 1..={MAX_BODIES} bodies, got {n}"
        );
        let mut links = Vec::with_capacity(n);
        for (i, body) in chain.bodies.iter().enumerate() {
            let m_next: f64 = chain.bodies[i + 1..].iter().map(|b| b.mass).sum();
            let l = dot(body.next, body.next).sqrt();
            let e = if l > 0.0 {
                scale(1.0 / l, body.next)
            } else {
                ZERO
            };
            let first_moment = scale(body.mass, body.com);
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
                l,
                e,
                ba: add(first_moment, scale(m_next * l, e)),
                m_own: body.mass,
                first_moment,
                m_sub: body.mass + m_next,
                m_next,
                p: l * m_next,
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
            base: chain.base,
            gravity: chain.gravity,
            tool_rotation: chain.tool_rotation,
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

    /// Direction cosines of the axes of frame `j` in the base frame, by the recurrences (5)-(8)
    /// run from `i = j` down to the base: `out[η]` holds `η_{j0}` (a column of `R_j`).
    fn axes_in_base(&self, trig: &Trig, j: usize) -> [V3; 3] {
        let mut out = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        for eta in out.iter_mut() {
            for i in (0..=j).rev() {
                let (c, s) = trig[i];
                *eta = self.links[i].turn.step(c, s, *eta);
            }
        }
        out
    }

    /// Components `R_jᵀ g_vec` of the gravity vector in every body frame: the direction cosines
    /// of each body axis with the gravity vector (S003 (4) uses only the `y` row).
    fn gravity_in_bodies(&self, trig: &Trig, g: V3, out: &mut [V3; MAX_BODIES]) {
        for (j, gj) in out.iter_mut().enumerate().take(self.links.len()) {
            let axes = self.axes_in_base(trig, j);
            *gj = [dot(axes[0], g), dot(axes[1], g), dot(axes[2], g)];
        }
    }

    /// The forward (quasi-velocity) and backward (moment) recursions: fills the joint drives
    /// `tau` for gravity `g` (base components; zero to leave gravity out).
    fn recursion(&self, q: &[f64], qd: &[f64], qdd: &[f64], g: V3, tau: &mut [f64]) {
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
        let mut e_dd = [ZERO; MAX_BODIES];
        let (mut w_prev, mut wd_prev, mut a_next) = (ZERO, ZERO, ZERO);
        for (j, link) in self.links.iter().enumerate() {
            let (c, s) = trig[j];
            // Carrier's quantities in frame j: inverse DC step.
            let w_in = link.turn.step(c, -s, w_prev);
            let wd_in = link.turn.step(c, -s, wd_prev);
            let a_in = link.turn.step(c, -s, a_next);
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
            e_dd[j] = omega_dot(link.e, w[j], wd[j]);
            // A_j + L_j ë_j: the acceleration of O_{j+1} before its own slide.
            a_next = add(acc[j], scale(link.l, e_dd[j]));
            w_prev = w[j];
            wd_prev = wd[j];
        }

        // Backward: S_j and M_j (module docs), carried from frame j+1 to frame j by one DC step.
        let (mut m_next_vec, mut s_next) = (ZERO, ZERO);
        for j in (0..n).rev() {
            let link = &self.links[j];
            let (m_carried, s_carried, sig, sig_dd) = if j + 1 < n {
                let (c, s) = trig[j + 1];
                let turn = self.links[j + 1].turn;
                // A slide of joint j+1 has the same components in frames j and j+1.
                (
                    turn.step(c, s, m_next_vec),
                    turn.step(c, s, s_next),
                    slide[j + 1],
                    slide_dd[j + 1],
                )
            } else {
                (ZERO, ZERO, ZERO, ZERO)
            };
            let ba_dd = omega_dot(link.ba, w[j], wd[j]);
            let s_j = add(add(ba_dd, scale(link.m_next, sig_dd)), s_carried);
            let a_rel = sub(acc[j], g_body[j]);
            let f_j = add(scale(link.m_sub, a_rel), s_j);
            let d = add(scale(link.l, link.e), sig);
            let lever = add(link.ba, scale(link.m_next, sig));
            let pushed = add(
                add(scale(link.p, e_dd[j]), scale(link.m_next, sig_dd)),
                s_carried,
            );
            let m_j = add(
                add(m_carried, link.euler(w[j], wd[j])),
                add(cross(lever, a_rel), cross(d, pushed)),
            );
            tau[j] = match link.kind {
                JointKind::Revolute => dot(link.axis, m_j),
                JointKind::Prismatic => dot(link.axis, f_j),
            };
            m_next_vec = m_j;
            s_next = s_j;
        }
    }

    /// Velocities of the last body by the quasi-velocity recursion: `ω_N` and the velocity of
    /// the tool point, both in frame `N`.
    fn tool_velocity(&self, trig: &Trig, q: &[f64], qd: &[f64]) -> (V3, V3) {
        let (w, v) = self.pole_velocities(trig, q, qd, |_, _, _, _| {});
        let last = self.links.len() - 1;
        let lever = scale(self.links[last].l, self.links[last].e);
        (w, add(v, cross(w, lever)))
    }

    /// Runs the velocity recursion, calling `visit(j, link, ω_j, v_Oj)` for every body; returns
    /// `ω` and the pole velocity of the last body (frame components).
    fn pole_velocities(
        &self,
        trig: &Trig,
        q: &[f64],
        qd: &[f64],
        mut visit: impl FnMut(usize, &Link, V3, V3),
    ) -> (V3, V3) {
        let (mut w, mut v_next) = (ZERO, ZERO);
        let mut v = ZERO;
        for (j, link) in self.links.iter().enumerate() {
            let (c, s) = trig[j];
            w = link.turn.step(c, -s, w);
            v = link.turn.step(c, -s, v_next);
            match link.kind {
                JointKind::Revolute => w = add(w, scale(qd[j], link.axis)),
                // The slide σ_j = q_j p_j changes at q̇_j p_j; its rotation with the carrier is
                // already in v_next, which includes ω × σ_j below.
                JointKind::Prismatic => v = add(v, scale(qd[j], link.axis)),
            }
            visit(j, link, w, v);
            let mut lever = scale(link.l, link.e);
            if j + 1 < self.links.len() && self.links[j + 1].kind == JointKind::Prismatic {
                lever = add(lever, scale(q[j + 1], self.links[j + 1].axis));
            }
            v_next = add(v, cross(w, lever));
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

    fn inverse_dynamics(&self, q: &[f64], qd: &[f64], qdd: &[f64], tau: &mut [f64]) {
        self.recursion(q, qd, qdd, self.gravity, tau);
    }

    fn gravity(&self, q: &[f64], tau: &mut [f64]) {
        let zero = [0.0; MAX_BODIES];
        let n = self.dof();
        self.recursion(q, &zero[..n], &zero[..n], self.gravity, tau);
    }

    fn nonlinear_effects(&self, q: &[f64], qd: &[f64], h: &mut [f64]) {
        let zero = [0.0; MAX_BODIES];
        self.recursion(q, qd, &zero[..self.dof()], self.gravity, h);
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
            self.recursion(q, &zero[..n], &unit[..n], ZERO, &mut col[..n]);
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

    fn forward_kinematics(&self, q: &[f64]) -> ([[f64; 3]; 3], [f64; 3]) {
        let trig = self.trig(q);
        // Poles: O_{j+1} = O_j + R_j d_j, with R_j from the DC recurrences.
        let mut pole = self.base;
        let mut axes = [ZERO; 3];
        for (j, (link, qj)) in self.links.iter().zip(q).enumerate() {
            axes = self.axes_in_base(&trig, j);
            if link.kind == JointKind::Prismatic {
                pole = add(pole, rotate(&axes, scale(*qj, link.axis)));
            }
            pole = add(pole, rotate(&axes, scale(link.l, link.e)));
        }
        // Tool axes: the columns of the tool rotation, carried to the base by the axes of N.
        let t = &self.tool_rotation;
        let columns: [V3; 3] = core::array::from_fn(|c| rotate(&axes, [t[0][c], t[1][c], t[2][c]]));
        let r = core::array::from_fn(|row| core::array::from_fn(|c| columns[c][row]));
        (r, pole)
    }

    fn jacobian(&self, q: &[f64], j: &mut [f64]) {
        let n = self.dof();
        assert_eq!(j.len(), 6 * n, "j must have 6*dof entries");
        let trig = self.trig(q);
        let axes = self.axes_in_base(&trig, n - 1);
        let mut unit = [0.0; MAX_BODIES];
        // Velocities are linear in q̇: column k is the tool velocity for q̇ = unit k.
        for k in 0..n {
            unit[k] = 1.0;
            let (w, v) = self.tool_velocity(&trig, q, &unit[..n]);
            unit[k] = 0.0;
            let (w, v) = (rotate(&axes, w), rotate(&axes, v));
            for r in 0..3 {
                j[r * n + k] = v[r];
                j[(r + 3) * n + k] = w[r];
            }
        }
    }

    fn kinetic_energy(&self, q: &[f64], qd: &[f64]) -> f64 {
        assert_eq!(qd.len(), self.dof(), "qd has the wrong length");
        let trig = self.trig(q);
        let mut t = 0.0;
        // About the pole: T_i = ½ m_oi v_O² + v_O·(ω × m_oi O_iC_i) + ½ ω·K_0i.
        self.pole_velocities(&trig, q, qd, |_, link, w, v| {
            t += 0.5 * link.m_own * dot(v, v)
                + dot(v, cross(w, link.first_moment))
                + 0.5 * dot(w, link.momentum(w));
        });
        t
    }

    fn static_joint_reactions(&self, q: &[f64], f: &mut [f64], t: &mut [f64]) {
        let n = self.dof();
        assert!(
            f.len() == 3 * n && t.len() == 3 * n,
            "f and t must have 3*dof entries"
        );
        let trig = self.trig(q);
        let mut g_body = [ZERO; MAX_BODIES];
        self.gravity_in_bodies(&trig, self.gravity, &mut g_body);
        // S003 (3)-(4): F_k = -m_k g_vec, projected by direction cosines. Moments: the gravity
        // part of the recursion, M_j = M_{j+1} + (b_j a_j + m_{j+1} σ_{j+1}) × (-g_vec).
        let mut m_next_vec = ZERO;
        for j in (0..n).rev() {
            let link = &self.links[j];
            let carried = if j + 1 < n {
                let (c, s) = trig[j + 1];
                self.links[j + 1].turn.step(c, s, m_next_vec)
            } else {
                ZERO
            };
            let sig = if j + 1 < n && self.links[j + 1].kind == JointKind::Prismatic {
                scale(q[j + 1], self.links[j + 1].axis)
            } else {
                ZERO
            };
            let lever = add(link.ba, scale(link.m_next, sig));
            let m_j = add(carried, cross(lever, scale(-1.0, g_body[j])));
            let f_j = scale(-link.m_sub, g_body[j]);
            f[3 * j..3 * j + 3].copy_from_slice(&f_j);
            t[3 * j..3 * j + 3].copy_from_slice(&m_j);
            m_next_vec = m_j;
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
            l: 0.0,
            e: ZERO,
            ba: ZERO,
            m_own: 1.0,
            first_moment: ZERO,
            m_sub: 1.0,
            m_next: 0.0,
            p: 0.0,
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

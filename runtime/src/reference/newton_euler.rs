//! Textbook reference model, independent of the quasi-velocity method: homogeneous transforms
//! for the kinematics, the recursive Newton–Euler algorithm (RNEA) in base-frame components for
//! the inverse dynamics, the composite-rigid-body algorithm (CRBA) for the mass matrix, the
//! geometric Jacobian, and a Cholesky solve for the forward dynamics.
//!
//! Gravity enters the RNEA the usual way, as an upward acceleration `-g_vec` of the base, so no
//! explicit weight terms appear.

use super::ReferenceModel;
use crate::chain::{Chain, JointKind, MAX_BODIES};

type Vec3 = [f64; 3];
type Mat3 = [[f64; 3]; 3];
type Mat4 = [[f64; 4]; 4];

fn plus(a: Vec3, b: Vec3) -> Vec3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

fn minus(a: Vec3, b: Vec3) -> Vec3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn times(k: f64, a: Vec3) -> Vec3 {
    [k * a[0], k * a[1], k * a[2]]
}

fn inner(a: Vec3, b: Vec3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn wedge(a: Vec3, b: Vec3) -> Vec3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn mat_vec(m: &Mat3, v: Vec3) -> Vec3 {
    [inner(m[0], v), inner(m[1], v), inner(m[2], v)]
}

fn mat_t_vec(m: &Mat3, v: Vec3) -> Vec3 {
    let mut out = [0.0; 3];
    for (r, row) in m.iter().enumerate() {
        for (c, entry) in row.iter().enumerate() {
            out[c] += entry * v[r];
        }
    }
    out
}

fn mat_mul3(a: &Mat3, b: &Mat3) -> Mat3 {
    let mut out = [[0.0; 3]; 3];
    for (r, row) in out.iter_mut().enumerate() {
        for (c, entry) in row.iter_mut().enumerate() {
            *entry = (0..3).map(|k| a[r][k] * b[k][c]).sum();
        }
    }
    out
}

fn transpose(a: &Mat3) -> Mat3 {
    let mut out = [[0.0; 3]; 3];
    for (r, row) in a.iter().enumerate() {
        for (c, entry) in row.iter().enumerate() {
            out[c][r] = *entry;
        }
    }
    out
}

fn mat_mul4(a: &Mat4, b: &Mat4) -> Mat4 {
    let mut out = [[0.0; 4]; 4];
    for (r, row) in out.iter_mut().enumerate() {
        for (c, entry) in row.iter_mut().enumerate() {
            *entry = (0..4).map(|k| a[r][k] * b[k][c]).sum();
        }
    }
    out
}

fn translation(t: Vec3) -> Mat4 {
    let mut m = identity4();
    for r in 0..3 {
        m[r][3] = t[r];
    }
    m
}

fn identity4() -> Mat4 {
    let mut m = [[0.0; 4]; 4];
    for (r, row) in m.iter_mut().enumerate() {
        row[r] = 1.0;
    }
    m
}

/// Homogeneous rotation by `angle` about the unit `axis`: `I + sin K + (1 - cos) K²`.
fn rotation(axis: Vec3, angle: f64) -> Mat4 {
    let k: Mat3 = [
        [0.0, -axis[2], axis[1]],
        [axis[2], 0.0, -axis[0]],
        [-axis[1], axis[0], 0.0],
    ];
    let k2 = mat_mul3(&k, &k);
    let (s, c) = angle.sin_cos();
    let mut m = identity4();
    for r in 0..3 {
        for col in 0..3 {
            m[r][col] += s * k[r][col] + (1.0 - c) * k2[r][col];
        }
    }
    m
}

fn rot_of(t: &Mat4) -> Mat3 {
    [
        [t[0][0], t[0][1], t[0][2]],
        [t[1][0], t[1][1], t[1][2]],
        [t[2][0], t[2][1], t[2][2]],
    ]
}

fn origin_of(t: &Mat4) -> Vec3 {
    [t[0][3], t[1][3], t[2][3]]
}

/// Inertia tensor `R I Rᵀ` of a body in base components.
fn to_world(r: &Mat3, i: &Mat3) -> Mat3 {
    mat_mul3(&mat_mul3(r, i), &transpose(r))
}

/// Adds `m (|d|² 1 - d dᵀ)` (parallel-axis theorem) to `i`.
fn shift_inertia(i: &mut Mat3, m: f64, d: Vec3) {
    let dd = inner(d, d);
    for (r, row) in i.iter_mut().enumerate() {
        for (c, entry) in row.iter_mut().enumerate() {
            let delta = if r == c { dd } else { 0.0 };
            *entry += m * (delta - d[r] * d[c]);
        }
    }
}

/// Body frames of one configuration, base components.
struct Frames {
    rot: [Mat3; MAX_BODIES],
    origin: [Vec3; MAX_BODIES],
    /// Joint axis in base components.
    axis: [Vec3; MAX_BODIES],
    /// Centre of mass in base components (absolute position).
    com: [Vec3; MAX_BODIES],
}

/// Textbook Newton–Euler reference model (see the module docs).
#[derive(Clone, Debug)]
pub struct NewtonEulerModel {
    chain: Chain,
}

impl NewtonEulerModel {
    /// Keeps a copy of `chain`; all the work happens per evaluation.
    ///
    /// # Panics
    /// If the chain is empty or has more than [`MAX_BODIES`] bodies.
    pub fn new(chain: &Chain) -> Self {
        let n = chain.bodies.len();
        assert!(
            (1..=MAX_BODIES).contains(&n),
            "chain must have 1..={MAX_BODIES} bodies, got {n}"
        );
        NewtonEulerModel {
            chain: chain.clone(),
        }
    }

    /// Homogeneous transforms base → body `i`:
    /// `T_i = T_{i-1} · Trans(next_{i-1}) · Joint_i(q_i)`, `T_{-1} = Trans(base)`.
    fn frames(&self, q: &[f64]) -> Frames {
        let n = self.chain.bodies.len();
        assert_eq!(q.len(), n, "q has the wrong length");
        let mut f = Frames {
            rot: [[[0.0; 3]; 3]; MAX_BODIES],
            origin: [[0.0; 3]; MAX_BODIES],
            axis: [[0.0; 3]; MAX_BODIES],
            com: [[0.0; 3]; MAX_BODIES],
        };
        let mut t = translation(self.chain.base);
        for (i, body) in self.chain.bodies.iter().enumerate() {
            if i > 0 {
                t = mat_mul4(&t, &translation(self.chain.bodies[i - 1].next));
            }
            let joint = match body.joint {
                JointKind::Revolute => rotation(body.axis, q[i]),
                JointKind::Prismatic => translation(times(q[i], body.axis)),
            };
            t = mat_mul4(&t, &joint);
            let mut com4 = [0.0; 4];
            for (r, entry) in com4.iter_mut().enumerate() {
                *entry = (0..3).map(|k| t[r][k] * body.com[k]).sum::<f64>() + t[r][3];
            }
            f.rot[i] = rot_of(&t);
            f.origin[i] = origin_of(&t);
            f.axis[i] = mat_vec(&f.rot[i], body.axis);
            f.com[i] = [com4[0], com4[1], com4[2]];
        }
        f
    }

    /// Tool point `O_N + R_N next_N`, base components.
    fn tool_point(&self, f: &Frames) -> Vec3 {
        let last = self.chain.bodies.len() - 1;
        plus(
            f.origin[last],
            mat_vec(&f.rot[last], self.chain.bodies[last].next),
        )
    }

    /// RNEA in base components with base acceleration `a0` (`-g_vec` for gravity). Fills the
    /// joint drives and the force `f` and moment `n` (about `O_i`) on each body from its carrier.
    #[allow(clippy::too_many_arguments)]
    fn rnea(
        &self,
        fr: &Frames,
        qd: &[f64],
        qdd: &[f64],
        a0: Vec3,
        tau: &mut [f64],
        f: &mut [Vec3; MAX_BODIES],
        n: &mut [Vec3; MAX_BODIES],
    ) {
        let bodies = &self.chain.bodies;
        let nb = bodies.len();
        assert!(
            qd.len() == nb && qdd.len() == nb && tau.len() == nb,
            "wrong slice length"
        );
        // Forward: ω, ω̇ and the acceleration of each origin and centre of mass.
        let mut force = [[0.0; 3]; MAX_BODIES];
        let mut torque = [[0.0; 3]; MAX_BODIES];
        let (mut w, mut wd, mut a) = ([0.0; 3], [0.0; 3], a0);
        let mut prev_origin = self.chain.base;
        for (i, body) in bodies.iter().enumerate() {
            let r = minus(fr.origin[i], prev_origin);
            // Origin i is fixed in body i-1 except for its own slide.
            a = plus(a, plus(wedge(wd, r), wedge(w, wedge(w, r))));
            let z = fr.axis[i];
            match body.joint {
                JointKind::Revolute => {
                    wd = plus(plus(wd, times(qdd[i], z)), times(qd[i], wedge(w, z)));
                    w = plus(w, times(qd[i], z));
                }
                JointKind::Prismatic => {
                    a = plus(a, plus(times(qdd[i], z), times(2.0 * qd[i], wedge(w, z))));
                }
            }
            let c = minus(fr.com[i], fr.origin[i]);
            let a_c = plus(a, plus(wedge(wd, c), wedge(w, wedge(w, c))));
            let inertia = to_world(&fr.rot[i], &body.inertia_com);
            force[i] = times(body.mass, a_c);
            // Euler's equation about the centre of mass, then moved to the origin.
            let euler = plus(mat_vec(&inertia, wd), wedge(w, mat_vec(&inertia, w)));
            torque[i] = plus(euler, wedge(c, force[i]));
            prev_origin = fr.origin[i];
        }
        // Backward: what the carrier must supply.
        let (mut f_next, mut n_next) = ([0.0; 3], [0.0; 3]);
        for i in (0..nb).rev() {
            let r_next = if i + 1 < nb {
                minus(fr.origin[i + 1], fr.origin[i])
            } else {
                [0.0; 3]
            };
            let fi = plus(force[i], f_next);
            let ni = plus(plus(torque[i], n_next), wedge(r_next, f_next));
            tau[i] = match bodies[i].joint {
                JointKind::Revolute => inner(fr.axis[i], ni),
                JointKind::Prismatic => inner(fr.axis[i], fi),
            };
            f[i] = fi;
            n[i] = ni;
            f_next = fi;
            n_next = ni;
        }
    }

    fn inverse(&self, q: &[f64], qd: &[f64], qdd: &[f64], a0: Vec3, tau: &mut [f64]) {
        let fr = self.frames(q);
        let mut f = [[0.0; 3]; MAX_BODIES];
        let mut n = [[0.0; 3]; MAX_BODIES];
        self.rnea(&fr, qd, qdd, a0, tau, &mut f, &mut n);
    }
}

impl ReferenceModel for NewtonEulerModel {
    fn dof(&self) -> usize {
        self.chain.bodies.len()
    }

    fn inverse_dynamics(&self, q: &[f64], qd: &[f64], qdd: &[f64], tau: &mut [f64]) {
        self.inverse(q, qd, qdd, times(-1.0, self.chain.gravity), tau);
    }

    fn gravity(&self, q: &[f64], tau: &mut [f64]) {
        let zero = [0.0; MAX_BODIES];
        let n = self.dof();
        self.inverse(
            q,
            &zero[..n],
            &zero[..n],
            times(-1.0, self.chain.gravity),
            tau,
        );
    }

    fn nonlinear_effects(&self, q: &[f64], qd: &[f64], h: &mut [f64]) {
        let zero = [0.0; MAX_BODIES];
        let n = self.dof();
        self.inverse(q, qd, &zero[..n], times(-1.0, self.chain.gravity), h);
    }

    /// CRBA: composite mass, centre of mass and inertia of each subsystem; column `j` is the
    /// wrench that gives the composite of body `j` a unit acceleration of joint `j`, projected
    /// on every joint `i <= j` that carries it.
    fn mass_matrix(&self, q: &[f64], m: &mut [f64]) {
        let nb = self.dof();
        assert_eq!(m.len(), nb * nb, "m must have dof*dof entries");
        let fr = self.frames(q);
        let bodies = &self.chain.bodies;
        let mut mass = [0.0; MAX_BODIES];
        let mut centre = [[0.0; 3]; MAX_BODIES];
        let mut inertia = [[[0.0; 3]; 3]; MAX_BODIES];
        for j in (0..nb).rev() {
            let own = to_world(&fr.rot[j], &bodies[j].inertia_com);
            if j + 1 == nb {
                mass[j] = bodies[j].mass;
                centre[j] = fr.com[j];
                inertia[j] = own;
                continue;
            }
            let total = bodies[j].mass + mass[j + 1];
            let c = times(
                1.0 / total,
                plus(
                    times(bodies[j].mass, fr.com[j]),
                    times(mass[j + 1], centre[j + 1]),
                ),
            );
            let mut i_c = own;
            shift_inertia(&mut i_c, bodies[j].mass, minus(fr.com[j], c));
            let mut carried = inertia[j + 1];
            shift_inertia(&mut carried, mass[j + 1], minus(centre[j + 1], c));
            for r in 0..3 {
                for k in 0..3 {
                    i_c[r][k] += carried[r][k];
                }
            }
            mass[j] = total;
            centre[j] = c;
            inertia[j] = i_c;
        }
        for j in 0..nb {
            let z = fr.axis[j];
            // Force and moment (about the composite centre) for a unit joint-j acceleration.
            let (f, n_c) = match bodies[j].joint {
                JointKind::Revolute => (
                    times(mass[j], wedge(z, minus(centre[j], fr.origin[j]))),
                    mat_vec(&inertia[j], z),
                ),
                JointKind::Prismatic => (times(mass[j], z), [0.0; 3]),
            };
            for i in 0..=j {
                let moment = plus(n_c, wedge(minus(centre[j], fr.origin[i]), f));
                let value = match bodies[i].joint {
                    JointKind::Revolute => inner(fr.axis[i], moment),
                    JointKind::Prismatic => inner(fr.axis[i], f),
                };
                m[i * nb + j] = value;
                m[j * nb + i] = value;
            }
        }
    }

    fn forward_dynamics(&self, q: &[f64], qd: &[f64], tau: &[f64], qdd: &mut [f64]) {
        let nb = self.dof();
        assert!(tau.len() == nb && qdd.len() == nb, "wrong slice length");
        let mut m = [0.0; MAX_BODIES * MAX_BODIES];
        self.mass_matrix(q, &mut m[..nb * nb]);
        let mut h = [0.0; MAX_BODIES];
        self.nonlinear_effects(q, qd, &mut h[..nb]);
        // Cholesky M = L Lᵀ, L in the lower triangle of m.
        for j in 0..nb {
            let mut d = m[j * nb + j];
            for k in 0..j {
                d -= m[j * nb + k] * m[j * nb + k];
            }
            let d = d.sqrt();
            m[j * nb + j] = d;
            for i in j + 1..nb {
                let mut s = m[i * nb + j];
                for k in 0..j {
                    s -= m[i * nb + k] * m[j * nb + k];
                }
                m[i * nb + j] = s / d;
            }
        }
        // L y = tau - h, then Lᵀ qdd = y.
        let mut y = [0.0; MAX_BODIES];
        for i in 0..nb {
            let mut s = tau[i] - h[i];
            for k in 0..i {
                s -= m[i * nb + k] * y[k];
            }
            y[i] = s / m[i * nb + i];
        }
        for i in (0..nb).rev() {
            let mut s = y[i];
            for k in i + 1..nb {
                s -= m[k * nb + i] * qdd[k];
            }
            qdd[i] = s / m[i * nb + i];
        }
    }

    fn forward_kinematics(&self, q: &[f64]) -> ([[f64; 3]; 3], [f64; 3]) {
        let fr = self.frames(q);
        let last = self.dof() - 1;
        let r = mat_mul3(&fr.rot[last], &self.chain.tool_rotation);
        (r, self.tool_point(&fr))
    }

    /// Geometric Jacobian: revolute column `(z × (p - O_j), z)`, prismatic column `(z, 0)`.
    fn jacobian(&self, q: &[f64], j: &mut [f64]) {
        let nb = self.dof();
        assert_eq!(j.len(), 6 * nb, "j must have 6*dof entries");
        let fr = self.frames(q);
        let p = self.tool_point(&fr);
        for (c, body) in self.chain.bodies.iter().enumerate() {
            let z = fr.axis[c];
            let (lin, ang) = match body.joint {
                JointKind::Revolute => (wedge(z, minus(p, fr.origin[c])), z),
                JointKind::Prismatic => (z, [0.0; 3]),
            };
            for r in 0..3 {
                j[r * nb + c] = lin[r];
                j[(r + 3) * nb + c] = ang[r];
            }
        }
    }

    /// `Σ ½ m v_c² + ½ ωᵀ I_c ω` with body velocities from the forward recursion.
    fn kinetic_energy(&self, q: &[f64], qd: &[f64]) -> f64 {
        let fr = self.frames(q);
        assert_eq!(qd.len(), self.dof(), "qd has the wrong length");
        let (mut w, mut v) = ([0.0; 3], [0.0; 3]);
        let mut prev_origin = self.chain.base;
        let mut t = 0.0;
        for (i, body) in self.chain.bodies.iter().enumerate() {
            v = plus(v, wedge(w, minus(fr.origin[i], prev_origin)));
            match body.joint {
                JointKind::Revolute => w = plus(w, times(qd[i], fr.axis[i])),
                JointKind::Prismatic => v = plus(v, times(qd[i], fr.axis[i])),
            }
            let v_c = plus(v, wedge(w, minus(fr.com[i], fr.origin[i])));
            let inertia = to_world(&fr.rot[i], &body.inertia_com);
            t += 0.5 * body.mass * inner(v_c, v_c) + 0.5 * inner(w, mat_vec(&inertia, w));
            prev_origin = fr.origin[i];
        }
        t
    }

    /// Backward pass at rest; results rotated into each body's axes.
    fn static_joint_reactions(&self, q: &[f64], f: &mut [f64], t: &mut [f64]) {
        let nb = self.dof();
        assert!(
            f.len() == 3 * nb && t.len() == 3 * nb,
            "f and t must have 3*dof entries"
        );
        let fr = self.frames(q);
        let zero = [0.0; MAX_BODIES];
        let mut tau = [0.0; MAX_BODIES];
        let mut force = [[0.0; 3]; MAX_BODIES];
        let mut moment = [[0.0; 3]; MAX_BODIES];
        self.rnea(
            &fr,
            &zero[..nb],
            &zero[..nb],
            times(-1.0, self.chain.gravity),
            &mut tau[..nb],
            &mut force,
            &mut moment,
        );
        for i in 0..nb {
            f[3 * i..3 * i + 3].copy_from_slice(&mat_t_vec(&fr.rot[i], force[i]));
            t[3 * i..3 * i + 3].copy_from_slice(&mat_t_vec(&fr.rot[i], moment[i]));
        }
    }
}

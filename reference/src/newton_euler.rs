//! Textbook reference model, independent of the quasi-velocity method: homogeneous transforms
//! for the kinematics, the recursive Newton–Euler algorithm (RNEA) in base-frame components for
//! the inverse dynamics, the composite-rigid-body algorithm (CRBA) for the mass matrix, the
//! geometric Jacobian, and a Cholesky solve for the forward dynamics. Trees are handled the
//! textbook way: each body's motion comes from its parent's, and the backward passes add every
//! child's wrench (or composite inertia) into its parent.
//!
//! Gravity enters the RNEA the usual way, as an upward acceleration `-g_vec` of the base, so no
//! explicit weight terms appear.

use super::ReferenceModel;
use crate::chain::{Chain, JointKind, MAX_BODIES};
use crate::tree::Tree;

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
    tree: Tree,
}

impl NewtonEulerModel {
    /// Keeps a copy of `chain` as a tree (its tool is frame 0); all the work happens per
    /// evaluation.
    ///
    /// # Panics
    /// If the chain is empty or has more than [`MAX_BODIES`] bodies.
    pub fn new(chain: &Chain) -> Self {
        Self::from_tree(&Tree::from(chain))
    }

    /// Keeps a copy of `tree`; all the work happens per evaluation.
    ///
    /// # Panics
    /// If the tree is not valid ([`Tree::assert_valid`]).
    pub fn from_tree(tree: &Tree) -> Self {
        tree.assert_valid();
        NewtonEulerModel { tree: tree.clone() }
    }

    /// Homogeneous transforms base → body `i`:
    /// `T_i = T_parent · Trans(origin_i) · Joint_i(q_i)`, `T_base = I`.
    fn frames(&self, q: &[f64]) -> Frames {
        let n = self.tree.bodies.len();
        assert_eq!(q.len(), n, "q has the wrong length");
        let mut f = Frames {
            rot: [[[0.0; 3]; 3]; MAX_BODIES],
            origin: [[0.0; 3]; MAX_BODIES],
            axis: [[0.0; 3]; MAX_BODIES],
            com: [[0.0; 3]; MAX_BODIES],
        };
        let mut transforms = [identity4(); MAX_BODIES];
        for (i, body) in self.tree.bodies.iter().enumerate() {
            let carrier = match body.parent {
                Some(p) => transforms[p],
                None => identity4(),
            };
            let joint = match body.joint {
                JointKind::Revolute => rotation(body.axis, q[i]),
                JointKind::Prismatic => translation(times(q[i], body.axis)),
            };
            let t = mat_mul4(&mat_mul4(&carrier, &translation(body.origin)), &joint);
            let mut com4 = [0.0; 4];
            for (r, entry) in com4.iter_mut().enumerate() {
                *entry = (0..3).map(|k| t[r][k] * body.com[k]).sum::<f64>() + t[r][3];
            }
            f.rot[i] = rot_of(&t);
            f.origin[i] = origin_of(&t);
            f.axis[i] = mat_vec(&f.rot[i], body.axis);
            f.com[i] = [com4[0], com4[1], com4[2]];
            transforms[i] = t;
        }
        f
    }

    /// Position of the parent's pole (the base origin for a child of the base).
    fn parent_origin(&self, fr: &Frames, i: usize) -> Vec3 {
        match self.tree.bodies[i].parent {
            Some(p) => fr.origin[p],
            None => [0.0; 3],
        }
    }

    /// Origin of frame `k`: `O_b + R_b position`, base components.
    fn frame_point(&self, fr: &Frames, k: usize) -> Vec3 {
        let frame = &self.tree.frames[k];
        plus(
            fr.origin[frame.body],
            mat_vec(&fr.rot[frame.body], frame.position),
        )
    }

    /// RNEA in base components with base acceleration `a0` (`-g_vec` for gravity). Fills the
    /// joint drives and the force `f` and moment `n` (about `O_i`) on each body from its parent.
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
        let bodies = &self.tree.bodies;
        let nb = bodies.len();
        assert!(
            qd.len() == nb && qdd.len() == nb && tau.len() == nb,
            "wrong slice length"
        );
        // Forward: ω, ω̇ and the acceleration of each origin and centre of mass.
        let mut w = [[0.0; 3]; MAX_BODIES];
        let mut wd = [[0.0; 3]; MAX_BODIES];
        let mut acc = [[0.0; 3]; MAX_BODIES];
        for (i, body) in bodies.iter().enumerate() {
            let (mut wi, mut wdi, mut a) = match body.parent {
                Some(p) => (w[p], wd[p], acc[p]),
                None => ([0.0; 3], [0.0; 3], a0),
            };
            let r = minus(fr.origin[i], self.parent_origin(fr, i));
            // Origin i is fixed in the parent except for its own slide.
            a = plus(a, plus(wedge(wdi, r), wedge(wi, wedge(wi, r))));
            let z = fr.axis[i];
            match body.joint {
                JointKind::Revolute => {
                    wdi = plus(plus(wdi, times(qdd[i], z)), times(qd[i], wedge(wi, z)));
                    wi = plus(wi, times(qd[i], z));
                }
                JointKind::Prismatic => {
                    a = plus(a, plus(times(qdd[i], z), times(2.0 * qd[i], wedge(wi, z))));
                }
            }
            let c = minus(fr.com[i], fr.origin[i]);
            let a_c = plus(a, plus(wedge(wdi, c), wedge(wi, wedge(wi, c))));
            let inertia = to_world(&fr.rot[i], &body.inertia_com);
            f[i] = times(body.mass, a_c);
            // Euler's equation about the centre of mass, then moved to the origin.
            let euler = plus(mat_vec(&inertia, wdi), wedge(wi, mat_vec(&inertia, wi)));
            n[i] = plus(euler, wedge(c, f[i]));
            w[i] = wi;
            wd[i] = wdi;
            acc[i] = a;
        }
        // Backward: what the parent must supply; each body's total goes into its parent.
        for i in (0..nb).rev() {
            tau[i] = match bodies[i].joint {
                JointKind::Revolute => inner(fr.axis[i], n[i]),
                JointKind::Prismatic => inner(fr.axis[i], f[i]),
            };
            if let Some(p) = bodies[i].parent {
                let r = minus(fr.origin[i], fr.origin[p]);
                let (fi, ni) = (f[i], n[i]);
                f[p] = plus(f[p], fi);
                n[p] = plus(plus(n[p], ni), wedge(r, fi));
            }
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
        self.tree.bodies.len()
    }

    fn frame_count(&self) -> usize {
        self.tree.frames.len()
    }

    fn inverse_dynamics(&self, q: &[f64], qd: &[f64], qdd: &[f64], tau: &mut [f64]) {
        self.inverse(q, qd, qdd, times(-1.0, self.tree.gravity), tau);
    }

    fn gravity(&self, q: &[f64], tau: &mut [f64]) {
        let zero = [0.0; MAX_BODIES];
        let n = self.dof();
        self.inverse(
            q,
            &zero[..n],
            &zero[..n],
            times(-1.0, self.tree.gravity),
            tau,
        );
    }

    fn nonlinear_effects(&self, q: &[f64], qd: &[f64], h: &mut [f64]) {
        let zero = [0.0; MAX_BODIES];
        let n = self.dof();
        self.inverse(q, qd, &zero[..n], times(-1.0, self.tree.gravity), h);
    }

    /// CRBA: composite mass, centre of mass and inertia of each subtree; column `j` is the
    /// wrench that gives the composite of body `j` a unit acceleration of joint `j`, projected
    /// on every joint `i` that carries it (the other entries of the column are zero).
    fn mass_matrix(&self, q: &[f64], m: &mut [f64]) {
        let nb = self.dof();
        assert_eq!(m.len(), nb * nb, "m must have dof*dof entries");
        let fr = self.frames(q);
        let bodies = &self.tree.bodies;
        // First the composite mass and first moment, then the inertia about the centre.
        let mut mass = [0.0; MAX_BODIES];
        let mut moment = [[0.0; 3]; MAX_BODIES];
        for j in (0..nb).rev() {
            mass[j] += bodies[j].mass;
            moment[j] = plus(moment[j], times(bodies[j].mass, fr.com[j]));
            if let Some(p) = bodies[j].parent {
                mass[p] += mass[j];
                moment[p] = plus(moment[p], moment[j]);
            }
        }
        let centre: [Vec3; MAX_BODIES] = core::array::from_fn(|j| {
            if j < nb {
                times(1.0 / mass[j], moment[j])
            } else {
                [0.0; 3]
            }
        });
        // Inertia of every subtree about its centre: own inertia moved there, plus each
        // child's composite moved from the child's centre (parallel-axis theorem).
        let mut inertia = [[[0.0; 3]; 3]; MAX_BODIES];
        for j in (0..nb).rev() {
            let mut own = to_world(&fr.rot[j], &bodies[j].inertia_com);
            shift_inertia(&mut own, bodies[j].mass, minus(fr.com[j], centre[j]));
            for r in 0..3 {
                for k in 0..3 {
                    inertia[j][r][k] += own[r][k];
                }
            }
            if let Some(p) = bodies[j].parent {
                let mut carried = inertia[j];
                shift_inertia(&mut carried, mass[j], minus(centre[j], centre[p]));
                for r in 0..3 {
                    for k in 0..3 {
                        inertia[p][r][k] += carried[r][k];
                    }
                }
            }
        }
        m.fill(0.0);
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
            let mut carrier = Some(j);
            while let Some(i) = carrier {
                let moment = plus(n_c, wedge(minus(centre[j], fr.origin[i]), f));
                let value = match bodies[i].joint {
                    JointKind::Revolute => inner(fr.axis[i], moment),
                    JointKind::Prismatic => inner(fr.axis[i], f),
                };
                m[i * nb + j] = value;
                m[j * nb + i] = value;
                carrier = bodies[i].parent;
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

    fn frame_pose(&self, frame: usize, q: &[f64]) -> ([[f64; 3]; 3], [f64; 3]) {
        let fr = self.frames(q);
        let body = self.tree.frames[frame].body;
        let r = mat_mul3(&fr.rot[body], &self.tree.frames[frame].rotation);
        (r, self.frame_point(&fr, frame))
    }

    /// Geometric Jacobian: for each joint carrying the frame's body, revolute column
    /// `(z × (p - O_j), z)`, prismatic column `(z, 0)`; zero columns for the others.
    fn frame_jacobian(&self, frame: usize, q: &[f64], j: &mut [f64]) {
        let nb = self.dof();
        assert_eq!(j.len(), 6 * nb, "j must have 6*dof entries");
        let fr = self.frames(q);
        let p = self.frame_point(&fr, frame);
        j.fill(0.0);
        let mut carrier = Some(self.tree.frames[frame].body);
        while let Some(c) = carrier {
            let z = fr.axis[c];
            let (lin, ang) = match self.tree.bodies[c].joint {
                JointKind::Revolute => (wedge(z, minus(p, fr.origin[c])), z),
                JointKind::Prismatic => (z, [0.0; 3]),
            };
            for r in 0..3 {
                j[r * nb + c] = lin[r];
                j[(r + 3) * nb + c] = ang[r];
            }
            carrier = self.tree.bodies[c].parent;
        }
    }

    /// `Σ ½ m v_c² + ½ ωᵀ I_c ω` with body velocities from the forward recursion.
    fn kinetic_energy(&self, q: &[f64], qd: &[f64]) -> f64 {
        let fr = self.frames(q);
        assert_eq!(qd.len(), self.dof(), "qd has the wrong length");
        let mut w = [[0.0; 3]; MAX_BODIES];
        let mut v = [[0.0; 3]; MAX_BODIES];
        let mut t = 0.0;
        for (i, body) in self.tree.bodies.iter().enumerate() {
            let (mut wi, mut vi) = match body.parent {
                Some(p) => (w[p], v[p]),
                None => ([0.0; 3], [0.0; 3]),
            };
            vi = plus(
                vi,
                wedge(wi, minus(fr.origin[i], self.parent_origin(&fr, i))),
            );
            match body.joint {
                JointKind::Revolute => wi = plus(wi, times(qd[i], fr.axis[i])),
                JointKind::Prismatic => vi = plus(vi, times(qd[i], fr.axis[i])),
            }
            let v_c = plus(vi, wedge(wi, minus(fr.com[i], fr.origin[i])));
            let inertia = to_world(&fr.rot[i], &body.inertia_com);
            t += 0.5 * body.mass * inner(v_c, v_c) + 0.5 * inner(wi, mat_vec(&inertia, wi));
            w[i] = wi;
            v[i] = vi;
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
            times(-1.0, self.tree.gravity),
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

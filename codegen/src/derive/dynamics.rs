//! Joint forces by the backward vector recursion (seed 000 (1.9)) in body components, extended
//! to prismatic joints.
//!
//! Quantities of body `j`, all in frame `j`, about its pole `O_j`:
//! - `ω_j`, `ω̇_j`: quasi-velocities and quasi-accelerations (§1.3). A prismatic joint does not
//!   change them.
//! - `A_j = a(O_j) - g`: pole acceleration minus gravity. Its gravity part is the DC row
//!   `R_jᵀ(-g)` (the papers' `g ξ^y_j`), either added from the DC rows or obtained by starting
//!   the recursion with the base acceleration `-g` (one elementary rotation per joint); its
//!   kinematic part accumulates `W_i = (O_iO_{i+1})''`, which for a revolute chain is the
//!   papers' `Σ L_i ω̇_ei`.
//! - `T_j = [ω̇_j]× + [ω_j]×²`, so `T_j u` is the papers' `Ω̇_u` for a body-fixed vector `u`.
//! - `(ba)_j = m_oj O_jC_j + m_{j+1} d_j` with `d_j = O_jO_{j+1}`: the method's `b_j a_j`.
//!
//! Backward, with `H_j = m_{j+1} W_j + Rot_{j+1} G_{j+1}` and `G_j = T_j h_j + H_j` (the second
//! derivative of the subsystem's first moment about its moving pole):
//!
//! `M_j = Rot_{j+1} M_{j+1} + K̇_0j + (ba)_j × A_j + d_j × H_j`,
//!
//! which for revolute joints is (1.9) term by term: `(ba)_j × A_j` holds
//! `a_j × Σ L_ij ω̇_ei` and the gravity moment `g b_j a_j × y`; `d_j × H_j` holds
//! `L_j p_j e_j × ω̇_ej + e_j × Σ_{i>j} L_ji ω̇_ai`.
//!
//! Prismatic extension. Moment balance of body `j` about `O_j` gives
//! `M_j = Rot M_{j+1} + d_j × F_{j+1} + K̇_0j + m_oj O_jC_j × A_j`, where `F_{j+1}` is the total
//! force on subsystem `j+1`. Writing `F_{j+1} = m_{j+1} A_{j+1} + G_{j+1}` and
//! `A_{j+1} = A_j + W_j` folds `m_{j+1} d_j × A_j` into `(ba)_j` exactly as in the papers; this
//! only needs `d_j` (hence `(ba)_j`) to carry the slide `q_{j+1} axis_{j+1}` and `W_j` to carry
//! the relative acceleration of the slide, `q̈ axis + 2 q̇ ω_j × axis`. The joint force of a
//! prismatic joint is `axis_j · F_j` with `F_j = m_j A_j + G_j`.

use super::kinematics::Poles;
use super::orientation::Orientation;
use super::params::{BodyInertia, Params};
use super::scalar::{is_zero3, k3, zero3, Cx, Vec3, S};
use crate::algebra::Algebra;
use crate::model::{JointKind, Robot};

/// Motion of one body: quasi-velocities, quasi-accelerations and cached products.
pub(crate) struct Accel<E> {
    /// `ω` in body components.
    pub w: Vec3<E>,
    /// `ω̇` in body components.
    pub wd: Vec3<E>,
    prod: [[Option<S<E>>; 3]; 3],
    t: [[Option<S<E>>; 3]; 3],
}

impl<E: Copy> Accel<E> {
    /// Motion with the given `ω`, `ω̇`.
    pub fn new(w: Vec3<E>, wd: Vec3<E>) -> Self {
        Accel {
            w,
            wd,
            prod: [[None; 3]; 3],
            t: [[None; 3]; 3],
        }
    }

    /// `ω_a ω_b`, computed once.
    pub fn prod<A: Algebra<E = E>>(&mut self, cx: &mut Cx<'_, A>, a: usize, b: usize) -> S<E> {
        let (a, b) = (a.min(b), a.max(b));
        if let Some(v) = self.prod[a][b] {
            return v;
        }
        let v = cx.mul(self.w[a], self.w[b]);
        self.prod[a][b] = Some(v);
        v
    }

    /// Entry `(r, c)` of `T = [ω̇]× + [ω]×²`, computed on first use only.
    pub fn t<A: Algebra<E = E>>(&mut self, cx: &mut Cx<'_, A>, r: usize, c: usize) -> S<E> {
        if let Some(v) = self.t[r][c] {
            return v;
        }
        let v = if r == c {
            let (a, b) = ((r + 1) % 3, (r + 2) % 3);
            let pa = self.prod(cx, a, a);
            let pb = self.prod(cx, b, b);
            let s = cx.add(pa, pb);
            cx.neg(s)
        } else {
            // [ω̇]×: (r, r+1) = -ω̇_{r+2}, (r, r+2) = +ω̇_{r+1}.
            let k = 3 - r - c;
            let p = self.prod(cx, r, c);
            if c == (r + 1) % 3 {
                cx.sub(p, self.wd[k])
            } else {
                cx.add(p, self.wd[k])
            }
        };
        self.t[r][c] = Some(v);
        v
    }

    /// `T u = ω̇ × u + ω × (ω × u)`: the second derivative of a body-fixed vector (the papers'
    /// `Ω̇_u`, written with the shared products and only the nonzero components of `u`).
    pub fn apply<A: Algebra<E = E>>(&mut self, cx: &mut Cx<'_, A>, u: &Vec3<E>) -> Vec3<E> {
        let mut out = zero3();
        for (r, o) in out.iter_mut().enumerate() {
            for (c, uc) in u.iter().enumerate() {
                if uc.is_zero() {
                    continue;
                }
                let t = self.t(cx, r, c);
                let p = cx.mul(t, *uc);
                *o = cx.add(*o, p);
            }
        }
        out
    }

    /// The Euler term `K̇_0 = J ω̇ + ω × J ω` in the form (1.4) with the terms of each product of
    /// inertia gathered: per component `i` (cyclic `i, j, k`), `J_ii ω̇_i + J_ij (ω̇_j - ω_i ω_k)
    /// + J_ik (ω̇_k + ω_i ω_j) + J_jk (ω_j² - ω_k²) + (J_kk - J_jj) ω_j ω_k`. The brackets are
    /// entries of `T` (shared with the first-moment terms), so each inertial parameter multiplies
    /// once. For principal axes it is the papers' `E_i = I ω̇ + I^a ω_j ω_k`.
    pub fn euler<A: Algebra<E = E>>(&mut self, cx: &mut Cx<'_, A>, p: &BodyInertia<E>) -> Vec3<E> {
        let mut out = zero3();
        for (i, o) in out.iter_mut().enumerate() {
            let (j, k) = ((i + 1) % 3, (i + 2) % 3);
            let mut acc = cx.mul(p.j[i][i], self.wd[i]);
            if !p.j[i][j].is_zero() {
                // ω̇_j - ω_i ω_k = -T_ki
                let t = self.t(cx, k, i);
                let v = cx.mul(p.j[i][j], t);
                acc = cx.sub(acc, v);
            }
            if !p.j[i][k].is_zero() {
                // ω̇_k + ω_i ω_j = T_ji
                let t = self.t(cx, j, i);
                let v = cx.mul(p.j[i][k], t);
                acc = cx.add(acc, v);
            }
            if !p.j[j][k].is_zero() {
                let sj = self.prod(cx, j, j);
                let sk = self.prod(cx, k, k);
                let d = cx.sub(sj, sk);
                let t = cx.mul(p.j[j][k], d);
                acc = cx.add(acc, t);
            }
            if !p.jdiff[i].is_zero() {
                let w = self.prod(cx, j, k);
                let t = cx.mul(p.jdiff[i], w);
                acc = cx.add(acc, t);
            }
            *o = acc;
        }
        out
    }
}

/// The motion of a moving base in one pass, in base-frame components, and a floating base's
/// own inertia.
pub(crate) struct MovingBase<'p, E> {
    /// Angular velocity `ω_b` (the base's quasi-velocities).
    pub w: Vec3<E>,
    /// Angular acceleration `ω̇_b`.
    pub wd: Vec3<E>,
    /// Classical acceleration of the base origin, `Rᵀ p̈ = a_lin + ω × v`.
    pub a: Vec3<E>,
    /// Gravity in base-frame components, `Rᵀ g`.
    pub g: Vec3<E>,
    /// The base body (a floating base), whose wrench the pass then also returns.
    pub body: Option<&'p BodyInertia<E>>,
}

/// Result of one pass of the recursion.
pub(crate) struct Pass<E> {
    /// Wrench the base needs, force then moment about its origin, base frame (a floating
    /// base only).
    pub base_wrench: Option<[Vec3<E>; 2]>,
    /// Joint torques / forces.
    pub tau: Vec<S<E>>,
    /// `F_j`: force on body `j` by body `j-1`, frame `j` (only when asked for).
    pub force: Vec<Vec3<E>>,
    /// `M_j`: moment about `O_j` on body `j` by body `j-1`, frame `j`.
    pub moment: Vec<Vec3<E>>,
}

/// Geometry shared by all passes (depends on `q` only).
pub(crate) struct Statics<'p, E> {
    /// Chain parameters.
    pub par: &'p Params<E>,
    /// Direction cosines.
    pub ori: &'p Orientation<E>,
    /// Interpole vectors.
    pub poles: &'p Poles<E>,
    /// `(ba)_j` per body.
    pub ba: &'p [Vec3<E>],
    /// `R_jᵀ(-g)` per body.
    pub grav: &'p [Vec3<E>],
}

/// The per-robot quantities every pass reads, owned ([`Statics`] borrows them), derived in
/// one order for every kind of base.
pub(crate) struct Bodies<E> {
    /// Inertial parameters.
    pub par: Params<E>,
    /// Direction cosines.
    pub ori: Orientation<E>,
    /// Interpole vectors.
    pub poles: Poles<E>,
    /// `(ba)_j` per body.
    pub ba: Vec<Vec3<E>>,
    /// `R_jᵀ(-g)` per body.
    pub grav: Vec<Vec3<E>>,
}

impl<E: Copy> Bodies<E> {
    /// Derives the quantities of `robot`, its inertial parameters taken from `inertial` (the
    /// robot itself, or a copy with numeric parameters). `between` runs once the geometry is
    /// known and before the mass distribution, so that what it derives (the tool and the
    /// frames) keeps its place in the graph.
    pub(crate) fn derive<A: Algebra<E = E>, T>(
        cx: &mut Cx<'_, A>,
        robot: &Robot,
        inertial: &Robot,
        between: impl FnOnce(&mut Cx<'_, A>, &Orientation<E>, &Poles<E>) -> T,
    ) -> (Self, T) {
        let par = super::params::params(cx, inertial);
        let ori = super::orientation::orientation(cx, robot);
        let poles = super::kinematics::poles(cx, robot);
        let sites = between(cx, &ori, &poles);
        let ba = mass_distribution(cx, robot, &par, &poles);
        let grav = gravity_in_bodies(cx, robot, &ori);
        let bodies = Bodies {
            par,
            ori,
            poles,
            ba,
            grav,
        };
        (bodies, sites)
    }

    /// The quantities as the passes read them.
    pub(crate) fn statics(&self) -> Statics<'_, E> {
        Statics {
            par: &self.par,
            ori: &self.ori,
            poles: &self.poles,
            ba: &self.ba,
            grav: &self.grav,
        }
    }
}

/// How the weight enters a pass.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Weight {
    /// As the base acceleration `-g`, rotated outwards with the pole accelerations: cheapest
    /// when the pass moves anyway.
    BaseAcceleration,
    /// As the DC rows `R_jᵀ(-g)` added per body: cheaper at rest, where the absolute
    /// orientation reuses the angle sums of parallel joints.
    BodyRows,
}

/// `(ba)_j = h_j + Σ_c m_c o_c` over the bodies `c` that `j` carries (for a chain
/// `h_j + m_{j+1} d_j`).
pub(crate) fn mass_distribution<A: Algebra>(
    cx: &mut Cx<'_, A>,
    robot: &Robot,
    par: &Params<A::E>,
    poles: &Poles<A::E>,
) -> Vec<Vec3<A::E>> {
    let topo = robot.topology();
    (0..par.body.len())
        .map(|j| {
            let mut ba = par.body[j].h;
            for &c in topo.children(j) {
                let md = cx.scale(par.msub[c], &poles.o[c]);
                ba = cx.vadd(&ba, &md);
            }
            cx.label3(&ba, || format!("ba{}", j + 1));
            ba
        })
        .collect()
}

/// `R_jᵀ(-g)` from the rows of `R_j` (the papers' `g ξ^y_j` for `g = -g y`).
pub(crate) fn gravity_in_bodies<A: Algebra>(
    cx: &mut Cx<'_, A>,
    robot: &Robot,
    ori: &Orientation<A::E>,
) -> Vec<Vec3<A::E>> {
    let mg = k3(robot.gravity.map(|g| -g));
    ori.abs
        .iter()
        .enumerate()
        .map(|(j, r)| {
            let v = cx.mat_t_vec(r, &mg);
            cx.label3(&v, || format!("g{}", j + 1));
            v
        })
        .collect()
}

/// What one pass of the recursion is for.
pub(crate) struct PassInputs<'a, E> {
    /// Joint velocities (known zeros fold away).
    pub qd: &'a [S<E>],
    /// Joint accelerations.
    pub qdd: &'a [S<E>],
    /// How the weight enters.
    pub weight: Weight,
    /// Also return `F_j` for every body ([`Pass::forces`]).
    pub body_forces: bool,
    /// The base's motion, if it moves.
    pub base: Option<&'a MovingBase<'a, E>>,
}

impl<'a, E> PassInputs<'a, E> {
    /// A pass of a fixed base at `qd`, `qdd`, the weight entering as `weight`.
    pub(crate) fn fixed(qd: &'a [S<E>], qdd: &'a [S<E>], weight: Weight) -> Self {
        PassInputs {
            qd,
            qdd,
            weight,
            body_forces: false,
            base: None,
        }
    }
}

/// Adds each joint's armature times its acceleration to its force `tau` (the joints of
/// `robot` in order): a rotor turning with the joint needs that much more, and nothing of it
/// reaches the links (Pinocchio's `rnea`, MuJoCo's `mj_inverse`).
pub(crate) fn add_armature_torques<A: Algebra>(
    cx: &mut Cx<'_, A>,
    robot: &Robot,
    tau: &mut [S<A::E>],
    qdd: &[S<A::E>],
) {
    for (j, body) in robot.bodies.iter().enumerate() {
        if body.armature != 0.0 {
            let t = cx.mul(S::K(body.armature), qdd[j]);
            tau[j] = cx.add(tau[j], t);
        }
    }
}

/// One pass of the recursion for the joint velocities and accelerations of `inputs`,
/// including the weight as it says.
///
/// Bodies are visited parents first outwards and children first inwards, so the same code
/// serves chains and trees: a body's motion comes from its carrier, and its moment collects
/// the contributions of every body it carries.
pub(crate) fn newton_euler<A: Algebra>(
    cx: &mut Cx<'_, A>,
    robot: &Robot,
    st: &Statics<'_, A::E>,
    inputs: &PassInputs<'_, A::E>,
) -> Pass<A::E> {
    let PassInputs {
        qd,
        qdd,
        weight,
        body_forces: forces,
        base,
    } = *inputs;
    let n = robot.dof();
    let topo = robot.topology();
    let chain = robot.is_chain();
    let axis = |j: usize| k3::<A::E>(robot.bodies[j].axis);
    let prismatic = |j: usize| robot.bodies[j].joint == JointKind::Prismatic;
    // Relative acceleration of a slide along `axis_{j}` seen from a frame turning at `w`:
    // q̈ axis + 2 q̇ ω × axis.
    let slide = |cx: &mut Cx<'_, A>, j: usize, w: &Vec3<A::E>| -> Vec3<A::E> {
        let u = axis(j);
        let lin = cx.scale(qdd[j], &u);
        let wxu = cx.cross(w, &u);
        let two_qd = cx.mul(S::K(2.0), qd[j]);
        let cor = cx.scale(two_qd, &wxu);
        cx.vadd(&lin, &cor)
    };

    let mut acc: Vec<Accel<A::E>> = Vec::with_capacity(n);
    let mut big_a: Vec<Vec3<A::E>> = Vec::with_capacity(n);
    // `akin_j`: the kinematic part of `A_j` (with the weight when it enters at the base).
    let mut a_kin: Vec<Vec3<A::E>> = Vec::with_capacity(n);
    // `W_c = (O_p O_c)''` in frame `p` for every body `c` on a moving carrier `p`.
    let mut w_inc: Vec<Vec3<A::E>> = vec![zero3(); n];
    // Gravity enters as an upward acceleration of the base: `A_j = Rot_jᵀ (A_p + W_j)`
    // then carries the papers' `g ξ^y_j` with one elementary rotation per joint, and no absolute
    // orientation is needed.
    let (w_base, wd_base, a_base) = match base {
        None if weight == Weight::BaseAcceleration => {
            (zero3(), zero3(), k3(robot.gravity.map(|g| -g)))
        }
        None => (zero3(), zero3(), zero3()),
        Some(b) => {
            // With a moving base the weight always enters at the base (no DC rows of it).
            debug_assert!(weight == Weight::BaseAcceleration);
            let a = cx.vsub(&b.a, &b.g);
            (b.w, b.wd, a)
        }
    };
    // The pole a body on the base sits at moves with the base: T_b o + the slide.
    let mut base_acc = Accel::new(w_base, wd_base);
    for &r in &topo.roots() {
        if base.is_some() {
            let mut inc = base_acc.apply(cx, &st.poles.o[r]);
            if prismatic(r) {
                let s = slide(cx, r, &w_base);
                inc = cx.vadd(&inc, &s);
            }
            w_inc[r] = inc;
        } else if prismatic(r) {
            w_inc[r] = slide(cx, r, &zero3());
        }
    }
    for j in 0..n {
        let rot = &st.ori.local[j];
        let parent = robot.bodies[j].parent;
        let (w_prev, wd_prev, a_prev) = match parent {
            Some(p) => (acc[p].w, acc[p].wd, a_kin[p]),
            None => (w_base, wd_base, a_base),
        };
        let wt = cx.mat_t_vec(rot, &w_prev);
        let wdt = cx.mat_t_vec(rot, &wd_prev);
        let (w, wd) = if prismatic(j) {
            (wt, wdt)
        } else {
            let u = axis(j);
            let qu = cx.scale(qd[j], &u);
            let w = cx.vadd(&wt, &qu);
            let qddu = cx.scale(qdd[j], &u);
            let wxu = cx.cross(&wt, &u);
            let cor = cx.scale(qd[j], &wxu);
            let wd = cx.vadd(&wdt, &qddu);
            let wd = cx.vadd(&wd, &cor);
            (w, wd)
        };
        cx.label3(&w, || format!("w{}", j + 1));
        cx.label3(&wd, || format!("wd{}", j + 1));
        let s = cx.vadd(&a_prev, &w_inc[j]);
        let akin = cx.mat_t_vec(rot, &s);
        let a = if weight == Weight::BodyRows {
            cx.vadd(&akin, &st.grav[j])
        } else {
            akin
        };
        cx.label3(&a, || format!("A{}", j + 1));
        let mut m = Accel::new(w, wd);
        for &c in topo.children(j) {
            let mut inc = m.apply(cx, &st.poles.o[c]);
            if prismatic(c) {
                let s = slide(cx, c, &w);
                inc = cx.vadd(&inc, &s);
            }
            if chain {
                // The papers' `Ω̇_ej`: the second derivative of `L_j e_j` (body `j`, 1-based).
                cx.label3(&inc, || format!("Omegadot_e{}", j + 1));
            }
            w_inc[c] = inc;
        }
        acc.push(m);
        big_a.push(a);
        a_kin.push(akin);
    }

    let mut tau = vec![S::K(0.0); n];
    let mut force = vec![zero3(); n];
    let mut moment = vec![zero3(); n];
    // `G_j` per body, read by its carrier.
    let mut g_of = vec![zero3(); n];
    for j in (0..n).rev() {
        let body = &st.par.body[j];
        // Σ_c Rot_c M_c, and H_c = m_c W_c + Rot_c G_c per carried body.
        let mut mt = zero3();
        let mut hs: Vec<(usize, Vec3<A::E>)> = Vec::new();
        for &c in topo.children(j) {
            let rot = &st.ori.local[c];
            let mtc = cx.mat_vec(rot, &moment[c]);
            let gt = cx.mat_vec(rot, &g_of[c]);
            let mw = cx.scale(st.par.msub[c], &w_inc[c]);
            let h = cx.vadd(&mw, &gt);
            mt = cx.vadd(&mt, &mtc);
            hs.push((c, h));
        }
        let kd = acc[j].euler(cx, body);
        cx.label3(&kd, || format!("E{}", j + 1));
        let ba_a = cx.cross(&st.ba[j], &big_a[j]);
        let mut mj = cx.vadd(&mt, &kd);
        mj = cx.vadd(&mj, &ba_a);
        let mut h_sum = zero3();
        for (c, h) in &hs {
            if !is_zero3(h) {
                let dh = cx.cross(&st.poles.o[*c], h);
                mj = cx.vadd(&mj, &dh);
            }
            h_sum = cx.vadd(&h_sum, h);
        }
        cx.label3(&mj, || format!("M{}", j + 1));
        let th = acc[j].apply(cx, &body.h);
        let gj = cx.vadd(&th, &h_sum);
        cx.label3(&gj, || format!("G{}", j + 1));
        let u = axis(j);
        if prismatic(j) || forces {
            let ma = cx.scale(st.par.msub[j], &big_a[j]);
            let f = cx.vadd(&ma, &gj);
            cx.label3(&f, || format!("F{}", j + 1));
            force[j] = f;
        }
        tau[j] = if prismatic(j) {
            cx.dot(&u, &force[j])
        } else {
            cx.dot(&u, &mj)
        };
        moment[j] = mj;
        g_of[j] = gj;
    }
    // A floating base balances what its bodies need plus its own motion, as any body does.
    let base_wrench = base
        .and_then(|b| b.body.map(|body| (b, body)))
        .map(|(b, body)| {
            let mut mt = zero3();
            let mut h_sum = zero3();
            let mut ba = body.h;
            let mut mass = body.m;
            let mut lever = zero3();
            for &r in &topo.roots() {
                let rot = &st.ori.local[r];
                let mtc = cx.mat_vec(rot, &moment[r]);
                let gt = cx.mat_vec(rot, &g_of[r]);
                let mw = cx.scale(st.par.msub[r], &w_inc[r]);
                let h = cx.vadd(&mw, &gt);
                mt = cx.vadd(&mt, &mtc);
                let dh = cx.cross(&st.poles.o[r], &h);
                lever = cx.vadd(&lever, &dh);
                h_sum = cx.vadd(&h_sum, &h);
                let mo = cx.scale(st.par.msub[r], &st.poles.o[r]);
                ba = cx.vadd(&ba, &mo);
                mass = cx.add(mass, st.par.msub[r]);
            }
            let kd = base_acc.euler(cx, body);
            let ba_a = cx.cross(&ba, &a_base);
            let m = cx.vadd(&mt, &kd);
            let m = cx.vadd(&m, &ba_a);
            let m = cx.vadd(&m, &lever);
            let th = base_acc.apply(cx, &body.h);
            let g = cx.vadd(&th, &h_sum);
            let ma = cx.scale(mass, &a_base);
            let f = cx.vadd(&ma, &g);
            let _ = b;
            [f, m]
        });
    Pass {
        tau,
        force,
        moment,
        base_wrench,
    }
}

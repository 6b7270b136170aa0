//! The matrix of inertial coefficients `H` (mass matrix), composite-body style in the method's
//! parameters.
//!
//! Why composite bodies rather than running the recursion once per column with a unit `q̈`: a
//! column pass repeats, for every pair (joint `i` ≤ body `k`), the transport of `ω̇`, of the pole
//! acceleration, an Euler term and the backward moment/force update (several rotations and
//! cross products per pair). With composite bodies each subsystem `j` is summarised once by
//! `m_j` (a parameter sum), its first moment `c_j` and inertia `J_j` about the pole `O_j`; a
//! unit `q̈_j` then produces, because the pole lies on the axis, the force `axis × c_j` and the
//! moment `J_j axis` (or `m_j axis` and `c_j × axis` for a slide), and each entry `H_ji` below
//! the diagonal costs one transport of a force/moment pair (one simple rotation and one cross
//! product with the constant `d_i`). Counting the operations reachable from the lower
//! triangle (no sharing across entries assumed): planar 3R 33 vs 33, the 6-DOF angular arm of
//! seed 000 226 vs 375, so composite bodies are never worse and win clearly in space.

use super::dynamics::Statics;
use super::inertia::{rotate_sym, shift_sym};
use super::orientation::rodrigues;
use super::params::BodyInertia;
use super::scalar::{k3, Cx, Mat3, Vec3, S};
use crate::algebra::Algebra;
use crate::mat3::IDENTITY;
use crate::model::{JointKind, Robot};

/// Symmetric 3×3 as a full matrix of handles (`m[a][b]` and `m[b][a]` are the same handle).
type Sym<E> = Mat3<E>;

/// Each subsystem `j` (body `j` and all it carries) summarised about its pole `O_j`, in frame
/// `j`: first moment `c[j]` and inertia `j[j]` (its mass is the parameter sum `msub`).
pub(crate) struct Composite<E> {
    /// First moment about `O_j`.
    pub c: Vec<Vec3<E>>,
    /// Inertia about `O_j`.
    pub j: Vec<Sym<E>>,
}

/// A force and a moment about a pole, in that body's frame.
pub(crate) type Wrench<E> = [Vec3<E>; 2];

/// Composite bodies from the leaves.
pub(crate) fn composites<A: Algebra>(
    cx: &mut Cx<'_, A>,
    robot: &Robot,
    st: &Statics<'_, A::E>,
) -> Composite<A::E> {
    let n = robot.dof();
    let topo = robot.topology();
    let mut c: Vec<Vec3<A::E>> = vec![[S::K(0.0); 3]; n];
    let mut jc: Vec<Sym<A::E>> = vec![[[S::K(0.0); 3]; 3]; n];
    for j in (0..n).rev() {
        let body = &st.par.body[j];
        let children = topo.children(j);
        if children.is_empty() {
            c[j] = body.h;
            jc[j] = body.j;
            continue;
        }
        // First moment of each carried subsystem about its pole (frame j), then about O_j:
        // the subsystem masses at their poles are already in (ba)_j.
        let c1: Vec<Vec3<A::E>> = children
            .iter()
            .map(|&k| cx.mat_vec(&st.ori.local[k], &c[k]))
            .collect();
        let mut cj = st.ba[j];
        for v in &c1 {
            cj = cx.vadd(&cj, v);
        }
        c[j] = cj;
        let mut sum = body.j;
        for (&k, c1k) in children.iter().zip(&c1) {
            let j1 = rotate_sym(cx, &st.ori.local[k], &jc[k]);
            let j1 = shift_sym(cx, &j1, st.par.msub[k], c1k, &st.poles.o[k]);
            for a in 0..3 {
                for b in a..3 {
                    let v = cx.add(sum[a][b], j1[a][b]);
                    sum[a][b] = v;
                    sum[b][a] = v;
                }
            }
        }
        jc[j] = sum;
        cx.label3(&c[j], || format!("mc{}", j + 1));
        for a in 0..3 {
            for b in a..3 {
                let (la, lb) = (super::scalar::AXES[a], super::scalar::AXES[b]);
                cx.label(jc[j][a][b], || format!("Jc{}_{la}{lb}", j + 1));
            }
        }
    }
    Composite { c, j: jc }
}

/// Force and moment about `O_j` (frame `j`) that subsystem `j` needs for a unit `q̈_j`:
/// because the pole lies on the axis, `axis × c_j` and `J_j axis` for a hinge, `m_j axis`
/// and `c_j × axis` for a slide.
pub(crate) fn unit_wrench<A: Algebra>(
    cx: &mut Cx<'_, A>,
    robot: &Robot,
    st: &Statics<'_, A::E>,
    comp: &Composite<A::E>,
    j: usize,
) -> Wrench<A::E> {
    let u = k3::<A::E>(robot.bodies[j].axis);
    if robot.bodies[j].joint == JointKind::Prismatic {
        [cx.scale(st.par.msub[j], &u), cx.cross(&comp.c[j], &u)]
    } else {
        [cx.cross(&u, &comp.c[j]), cx.mat_vec(&comp.j[j], &u)]
    }
}

/// A wrench about `O_k` (frame `k`) seen about the carrier's pole, in the carrier's frame.
pub(crate) fn to_carrier<A: Algebra>(
    cx: &mut Cx<'_, A>,
    st: &Statics<'_, A::E>,
    k: usize,
    w: &Wrench<A::E>,
) -> Wrench<A::E> {
    let rot = &st.ori.local[k];
    let f = cx.mat_vec(rot, &w[0]);
    let m1 = cx.mat_vec(rot, &w[1]);
    let df = cx.cross(&st.poles.o[k], &f);
    [f, cx.vadd(&m1, &df)]
}

/// Whether body `k` turns about its carrier's own hinge axis: both joints revolute about the
/// same axis and `k`'s frame not turned, so that `k`'s frame differs from its carrier's by a
/// rotation about that axis alone (the runs of equal axes of [`super::orientation`]).
pub(crate) fn same_hinge_axis(robot: &Robot, k: usize) -> bool {
    let body = &robot.bodies[k];
    let Some(i) = body.parent else {
        return false;
    };
    let carrier = &robot.bodies[i];
    body.joint == JointKind::Revolute
        && carrier.joint == JointKind::Revolute
        && body.axis == carrier.axis
        && body.rotation == IDENTITY
}

/// A wrench held about the pole `O_a` of the body `a` it was last carried to, in frame `a`,
/// while it is carried through a run of hinges about one axis `u` (up to body `k`): a hinge
/// `i` of the run only needs the moment about `O_i` along `u`, which is
/// `u · n_a + (u × e_i) · f_a` with `e_i = O_iO_a` in frame `a`, and the rotations about `u`
/// leave `u · n_a` unchanged. Carrying the wrench step by step costs a rotation of the force
/// and the moment and a shift per hinge; here each hinge costs the rotated offset (shared by
/// every column held at `a`) and one dot product, and the wrench is rotated once, by the
/// run's summed angle (`c_{23}`, `s_{23}`), when it leaves the run.
struct RunShift<E> {
    /// Joints whose rotations lie between frame `a` and the current body's frame.
    mask: u64,
    /// `O_kO_a`, the current body's pole to `O_a`, in frame `a`.
    e: Vec3<E>,
}

impl<E: Copy> RunShift<E> {
    fn new() -> Self {
        RunShift {
            mask: 0,
            e: [S::K(0.0); 3],
        }
    }

    /// `R_ak`, frame `a` in the frame of the body whose rotations are `mask`'s carrier: the
    /// rotation about `axis` by the summed angle of `mask` (transposed with `back`).
    fn rotation<A: Algebra<E = E>>(
        cx: &mut Cx<'_, A>,
        axis: [f64; 3],
        mask: u64,
        back: bool,
    ) -> Mat3<E> {
        let c = S::X(cx.alg.cos_sum(mask));
        let s = S::X(cx.alg.sin_sum(mask));
        let s = if back { cx.neg(s) } else { s };
        rodrigues(cx, axis, c, s)
    }

    /// `e` grown by `O_iO_k` (`i` the carrier of `k`, frame `i`) turned back into frame `a`
    /// by the summed angle of `mask` (the joints from `a` up to `k`).
    fn past<A: Algebra<E = E>>(
        cx: &mut Cx<'_, A>,
        st: &Statics<'_, E>,
        k: usize,
        axis: [f64; 3],
        mask: u64,
        e: &Vec3<E>,
    ) -> Vec3<E> {
        let back = Self::rotation(cx, axis, mask, true);
        let ok = cx.mat_vec(&back, &st.poles.o[k]);
        cx.vadd(e, &ok)
    }

    /// Steps from `k` to its carrier `i` (same hinge axis, see [`same_hinge_axis`]) and
    /// returns `i`'s entry: the moment of `w` (held about `O_a`, frame `a`) about `O_i`, along
    /// the axis.
    fn project<A: Algebra<E = E>>(
        &mut self,
        cx: &mut Cx<'_, A>,
        st: &Statics<'_, E>,
        (k, axis): (usize, [f64; 3]),
        w: &Wrench<E>,
    ) -> S<E> {
        self.mask |= 1 << k;
        self.e = Self::past(cx, st, k, axis, self.mask, &self.e);
        let u = k3::<E>(axis);
        let along = cx.dot(&u, &w[1]);
        let arm = cx.cross(&u, &self.e);
        let shift = cx.dot(&arm, &w[0]);
        cx.add(along, shift)
    }

    /// Carries `w` (held about `O_a`, frame `a`) to the carrier of `k` (about its pole, in
    /// its frame), and holds it there: the wrench as [`to_carrier`] would have it after every
    /// step from `a`.
    fn leave<A: Algebra<E = E>>(
        &mut self,
        cx: &mut Cx<'_, A>,
        robot: &Robot,
        st: &Statics<'_, E>,
        k: usize,
        w: &Wrench<E>,
    ) -> Wrench<E> {
        if self.mask == 0 {
            return to_carrier(cx, st, k, w);
        }
        let body = &robot.bodies[k];
        let mask = std::mem::replace(&mut self.mask, 0);
        let e = std::mem::replace(&mut self.e, [S::K(0.0); 3]);
        let axis = body.axis;
        if body.joint == JointKind::Revolute && body.rotation == IDENTITY {
            // k turns about the run's axis too: one rotation by the whole run's angle (after
            // k's own turn), with the moment taken about the carrier's pole first.
            let all = mask | (1 << k);
            let e = Self::past(cx, st, k, axis, all, &e);
            let ef = cx.cross(&e, &w[0]);
            let n = cx.vadd(&w[1], &ef);
            let rot = Self::rotation(cx, axis, all, false);
            return [cx.mat_vec(&rot, &w[0]), cx.mat_vec(&rot, &n)];
        }
        // The run's top turned: into frame k, then on as usual.
        let ef = cx.cross(&e, &w[0]);
        let n = cx.vadd(&w[1], &ef);
        let rot = Self::rotation(cx, axis, mask, false);
        let at_k = [cx.mat_vec(&rot, &w[0]), cx.mat_vec(&rot, &n)];
        to_carrier(cx, st, k, &at_k)
    }
}

/// The generalised force of joint `i` from a wrench about `O_i` (frame `i`): the force along
/// a slide, the moment about a hinge.
pub(crate) fn joint_component<A: Algebra>(
    cx: &mut Cx<'_, A>,
    robot: &Robot,
    i: usize,
    w: &Wrench<A::E>,
) -> S<A::E> {
    let u = k3::<A::E>(robot.bodies[i].axis);
    if robot.bodies[i].joint == JointKind::Prismatic {
        cx.dot(&u, &w[0])
    } else {
        cx.dot(&u, &w[1])
    }
}

/// `x` plus joint `j`'s armature, which adds to its diagonal entry of the mass matrix (and to
/// its articulated inertia) alone: `x` itself without one.
pub(crate) fn with_armature<A: Algebra>(
    cx: &mut Cx<'_, A>,
    robot: &Robot,
    j: usize,
    x: S<A::E>,
) -> S<A::E> {
    let a = robot.bodies[j].armature;
    if a == 0.0 {
        x
    } else {
        cx.add(x, S::K(a))
    }
}

/// Lower triangle of `H` (`out[k][j]`, `k ≥ j`), mirrored into a full symmetric matrix.
/// Entries of two bodies neither of which carries the other are exact zeros, never computed.
///
/// With a floating base (`base` its own parameters) the matrix is `(6 + N)²`: the base's
/// linear then angular velocity first (base frame), then the joints.
pub(crate) fn mass_matrix<A: Algebra>(
    cx: &mut Cx<'_, A>,
    robot: &Robot,
    st: &Statics<'_, A::E>,
    base: Option<&BodyInertia<A::E>>,
) -> Vec<Vec<S<A::E>>> {
    let n = robot.dof();
    let topo = robot.topology();
    let prismatic = |j: usize| robot.bodies[j].joint == JointKind::Prismatic;
    let comp = composites(cx, robot, st);
    let Composite { c, j: jc } = &comp;

    // Offset of the joints in the matrix (6 with a floating base).
    let off = if base.is_some() { 6 } else { 0 };
    let nv = n + off;
    let mut h = vec![vec![S::K(0.0); nv]; nv];
    for j in 0..n {
        let mut w = unit_wrench(cx, robot, st, &comp, j);
        let own = if prismatic(j) {
            st.par.msub[j]
        } else {
            joint_component(cx, robot, j, &w)
        };
        h[off + j][off + j] = with_armature(cx, robot, j, own);
        // Carried inwards along the path to the base: each carrier's entry is the projection
        // on its axis. Through a run of hinges about one axis the wrench stays where it is
        // (see `RunShift`) and is carried once, by the run's summed angle, when it leaves.
        let mut k = j;
        let mut run = RunShift::new();
        while let Some(i) = topo.parent(k) {
            if cx.alg.run_shift() && same_hinge_axis(robot, k) {
                h[off + j][off + i] = run.project(cx, st, (k, robot.bodies[k].axis), &w);
                k = i;
                continue;
            }
            w = run.leave(cx, robot, st, k, &w);
            h[off + j][off + i] = joint_component(cx, robot, i, &w);
            k = i;
        }
        if base.is_some() {
            // On to the base origin: the base's rows are the force and the moment there.
            w = run.leave(cx, robot, st, k, &w);
            h[off + j][..3].clone_from_slice(&w[0]);
            h[off + j][3..6].clone_from_slice(&w[1]);
        }
        // Diagonal entries already carry the composite names (Jc, msub).
        for i in 0..j {
            if topo.in_subtree(i, j) {
                cx.label(h[off + j][off + i], || format!("H{}_{}", j + 1, i + 1));
            }
        }
    }
    if let Some(body) = base {
        // The whole robot as one composite body about the base origin: mass, first moment
        // c and inertia J give the 6×6 block [[m I, -[c]×], [[c]×, J]].
        let mut mass = body.m;
        let mut cb = body.h;
        let mut jb = body.j;
        for r in topo.roots() {
            let rot = &st.ori.local[r];
            mass = cx.add(mass, st.par.msub[r]);
            let c1 = cx.mat_vec(rot, &c[r]);
            let mo = cx.scale(st.par.msub[r], &st.poles.o[r]);
            cb = cx.vadd(&cb, &mo);
            cb = cx.vadd(&cb, &c1);
            let j1 = rotate_sym(cx, rot, &jc[r]);
            let j1 = shift_sym(cx, &j1, st.par.msub[r], &c1, &st.poles.o[r]);
            for a in 0..3 {
                for b in a..3 {
                    let v = cx.add(jb[a][b], j1[a][b]);
                    jb[a][b] = v;
                    jb[b][a] = v;
                }
            }
        }
        for a in 0..3 {
            h[a][a] = mass;
            for b in 0..3 {
                h[3 + a][3 + b] = jb[a][b];
            }
        }
        // Moment about the origin of a unit linear acceleration e_k: c × e_k.
        for k in 0..3 {
            let mut e = [S::K(0.0); 3];
            e[k] = S::K(1.0);
            let m = cx.cross(&cb, &e);
            for r in 0..3 {
                h[3 + r][k] = m[r];
            }
        }
    }
    for k in 0..nv {
        for j in k + 1..nv {
            h[k][j] = h[j][k];
        }
    }
    h
}

/// The mass matrix of a fixed base with the products taken in the base frame: each body's unit
/// wrench `F_j` is carried to the base origin once (`R_j`, the pole `p_j`), each joint's axis
/// `u_i` and moment arm `p_i × u_i` once, and `H_ji = u_i · n_j + (p_i × u_i) · f_j` (a slide:
/// `u_i · f_j`) costs one six-term product, where [`mass_matrix`] carries the wrench inwards
/// joint by joint (a rotation and a shift per step). Shorter for long chains and trees with
/// tilted axes, longer where the elementary rotations of coordinate axes are nearly free; the
/// generator keeps the shorter.
pub(crate) fn mass_matrix_in_base<A: Algebra>(
    cx: &mut Cx<'_, A>,
    robot: &Robot,
    st: &Statics<'_, A::E>,
) -> Vec<Vec<S<A::E>>> {
    let n = robot.dof();
    let topo = robot.topology();
    let prismatic = |j: usize| robot.bodies[j].joint == JointKind::Prismatic;
    let comp = composites(cx, robot, st);
    let p = super::kinematics::base_poles(cx, robot, st.ori, st.poles);
    // Axes in the base frame (the axis is the same vector in a joint's frame and its
    // carrier's), and the moment arms of the hinges, for the joints that carry others.
    let mut axis = vec![[S::K(0.0); 3]; n];
    let mut arm = vec![[S::K(0.0); 3]; n];
    for i in (0..n).filter(|&i| !topo.children(i).is_empty()) {
        axis[i] = cx.mat_vec(&st.ori.abs[i], &k3(robot.bodies[i].axis));
        if !prismatic(i) {
            arm[i] = cx.cross(&p[i], &axis[i]);
        }
    }
    let mut h = vec![vec![S::K(0.0); n]; n];
    for j in 0..n {
        let w = unit_wrench(cx, robot, st, &comp, j);
        let own = if prismatic(j) {
            st.par.msub[j]
        } else {
            joint_component(cx, robot, j, &w)
        };
        h[j][j] = with_armature(cx, robot, j, own);
        if topo.parent(j).is_none() {
            continue;
        }
        // The wrench about the base origin, base frame.
        let f = cx.mat_vec(&st.ori.abs[j], &w[0]);
        let m = cx.mat_vec(&st.ori.abs[j], &w[1]);
        let pf = cx.cross(&p[j], &f);
        let m = cx.vadd(&m, &pf);
        let mut k = j;
        while let Some(i) = topo.parent(k) {
            h[j][i] = if prismatic(i) {
                cx.dot(&axis[i], &f)
            } else {
                let a = cx.dot(&axis[i], &m);
                let b = cx.dot(&arm[i], &f);
                cx.add(a, b)
            };
            h[i][j] = h[j][i];
            k = i;
        }
    }
    h
}

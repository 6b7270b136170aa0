//! Rigid contacts: their Jacobian and the forward dynamics they constrain.
//!
//! A contact holds a named frame: a point contact its origin (3 rows), a 6d contact the whole
//! frame (6 rows, linear then angular). Its rows of `Jc` are those of the frame's Jacobian in
//! world axes (Pinocchio's LOCAL_WORLD_ALIGNED). The dynamics solved are
//!
//! ```text
//! M a + h = tau + Jcᵀ λ,    Jc a + γ = 0,
//! ```
//!
//! with `γ` the contacts' acceleration at zero joint acceleration: a point contact's
//! classical acceleration of its origin (`frame_acceleration_bias`), a 6d contact's spatial
//! acceleration, whose linear part is the classical one less `ω × v` (Pinocchio's
//! `constraintDynamics` with CONTACT_3D / CONTACT_6D and no stabilisation). Through the
//! factorisation of `M` (`M = L D Lᵀ`, sparse on a tree), the `NC×NC` operational matrix
//! `K = Jc M⁻¹ Jcᵀ` factorised as a small dense `L D Lᵀ`, `λ = -K⁻¹ (Jc a₀ + γ)` with
//! `a₀ = M⁻¹ (tau - h)`, and `a = M⁻¹ (tau - h + Jcᵀ λ)`, in the shorter of two forms: whole
//! solves per contact row, or half solves, whose products run only over the coordinates each
//! row reaches. No inverse of `M` is formed. Dependent contacts make `K` singular: a pivot of
//! its factorisation is then zero and the outputs are not finite.
//!
//! With a prescribed base a contact still holds its frame in the world, which the base moves
//! in: `Jc` is the frame's joint columns turned into world axes by the base's attitude, `γ` its
//! acceleration in the world at zero joint acceleration (the base's motion included), and `h`
//! the nonlinear effects at the base's motion. The problem is solved in base axes (`Jc` and
//! `γ` turned back, which leaves `K` and `a` unchanged) and `λ` turned into world axes.

use super::couplings::{coupled_force_balance, reverse_matrix, Contraction};
use super::derivatives::Factor;
use super::frame_motion::FrameMotion;
use super::moving_base::{base3, base_rotation, prescribed_motion};
use super::scalar::{Cx, Vec3};
use super::FrameKinematics;
use crate::ir::{BaseVar, Graph, NodeId, Var};
use crate::model::{ContactKind, Robot};

/// The contact functions' outputs, as graph nodes.
#[derive(Clone, Debug, PartialEq)]
pub struct ContactDynamics {
    /// `a`, `NV`: the accelerations with the contacts held.
    pub acceleration: Vec<NodeId>,
    /// `λ`, `NC`: the contact forces (and a 6d contact's moment about its origin), world axes.
    pub forces: Vec<NodeId>,
}

/// The contacts' Jacobian, `NC×NV` row-major, world axes, from the named frames' kinematics
/// (`frames`, in frame order): with a prescribed base, whose frames' Jacobians are in base
/// axes, turned by the base's attitude.
pub fn contact_jacobian(
    g: &mut Graph,
    robot: &Robot,
    frames: &[FrameKinematics<NodeId>],
) -> Vec<NodeId> {
    let rows = frame_rows(robot, frames);
    if !robot.is_prescribed() {
        return rows;
    }
    let nv = rows.len() / robot.contact_rows().max(1);
    PrescribedBase::of(g, robot).rows_to_world(g, &rows, nv)
}

/// The contacts' rows of their frames' `6×NV` Jacobians as derived (world axes, base axes for
/// a prescribed base), `NC×NV` row-major.
fn frame_rows(robot: &Robot, frames: &[FrameKinematics<NodeId>]) -> Vec<NodeId> {
    let mut out = Vec::new();
    for c in &robot.contacts {
        let j = &frames[c.frame].jacobian;
        let nv = j.len() / 6;
        out.extend_from_slice(&j[..c.kind.rows() * nv]);
    }
    out
}

/// A prescribed base as its contacts see it, every vector in base axes.
struct PrescribedBase {
    /// World from base.
    rotation: [[NodeId; 3]; 3],
    /// The base origin's velocity.
    velocity: [NodeId; 3],
    /// The base's angular velocity (zero for a translating base).
    angular: [NodeId; 3],
    /// The base origin's classical acceleration.
    acceleration: [NodeId; 3],
    /// The base's angular acceleration (zero for a translating base).
    angular_acceleration: [NodeId; 3],
}

impl PrescribedBase {
    /// The base's attitude and motion from its inputs, as the dynamics' recursions take them
    /// ([`prescribed_motion`]: the origin's classical acceleration, no rotation for a
    /// translating base).
    fn of(g: &mut Graph, robot: &Robot) -> PrescribedBase {
        let mut cx = Cx::new(g);
        let cx = &mut cx;
        let [moving, _] = prescribed_motion(cx, robot);
        let rotation = base_rotation(cx);
        let velocity = base3(cx, BaseVar::Vel);
        let mut nodes = |v: Vec3<NodeId>| v.map(|s| cx.e(s));
        PrescribedBase {
            rotation: rotation.map(&mut nodes),
            velocity: nodes(velocity),
            angular: nodes(moving.w),
            acceleration: nodes(moving.a),
            angular_acceleration: nodes(moving.wd),
        }
    }

    /// A frame's velocity and acceleration at zero joint acceleration in the world (base
    /// axes; linear then angular, 6 each) from its origin `r` and its motion `m` relative to
    /// the base: `v = v_B + ω_B × r + v_r`, `ω = ω_B + ω_r`, `a = a_B + ω_B' × r + ω_B × (ω_B
    /// × r) + 2 ω_B × v_r + a_r` and `ω' = ω_B' + ω_B × ω_r + ω_r'`.
    fn absolute(
        &self,
        g: &mut Graph,
        r: &[NodeId],
        m: &FrameMotion<NodeId>,
    ) -> (Vec<NodeId>, Vec<NodeId>) {
        let three = |x: &[NodeId]| [x[0], x[1], x[2]];
        let (r, w) = (three(r), self.angular);
        let (v_rel, w_rel) = (three(&m.velocity[..3]), three(&m.velocity[3..6]));
        let (a_rel, wd_rel) = (
            three(&m.acceleration_bias[..3]),
            three(&m.acceleration_bias[3..6]),
        );
        let w_r = g.cross(w, r);
        let w_w_r = g.cross(w, w_r);
        let wd_r = g.cross(self.angular_acceleration, r);
        let w_v = g.cross(w, v_rel);
        let w_wr = g.cross(w, w_rel);
        let two = g.constant(2.0);
        let mut velocity = Vec::with_capacity(6);
        let mut acceleration = Vec::with_capacity(6);
        for k in 0..3 {
            velocity.push(g.sum(&[self.velocity[k], w_r[k], v_rel[k]]));
            let coriolis = g.mul(two, w_v[k]);
            acceleration.push(g.sum(&[
                self.acceleration[k],
                wd_r[k],
                w_w_r[k],
                coriolis,
                a_rel[k],
            ]));
        }
        for k in 0..3 {
            velocity.push(g.add(w[k], w_rel[k]));
        }
        for k in 0..3 {
            acceleration.push(g.sum(&[self.angular_acceleration[k], w_wr[k], wd_rel[k]]));
        }
        (velocity, acceleration)
    }

    /// `R B` for each block `B` of three rows of the row-major `rows` (`NC×nv`; a vector of
    /// 3-blocks with `nv = 1`).
    fn rows_to_world(&self, g: &mut Graph, rows: &[NodeId], nv: usize) -> Vec<NodeId> {
        let mut out = Vec::with_capacity(rows.len());
        for block in rows.chunks(3 * nv) {
            for row in self.rotation {
                for col in 0..nv {
                    let terms = [0, 1, 2].map(|k| g.mul(row[k], block[k * nv + col]));
                    out.push(g.sum(&terms));
                }
            }
        }
        out
    }
}

/// `γ`: each contact's acceleration at zero joint acceleration, in `Jc`'s row order, from
/// the frames' motion (`motion`, in frame order); with a prescribed base `base`, in the
/// world, base axes, from the frames' motion relative to the base and their origins
/// (`frames`).
fn contact_bias(
    g: &mut Graph,
    robot: &Robot,
    motion: &[FrameMotion<NodeId>],
    frames: &[FrameKinematics<NodeId>],
    base: Option<&PrescribedBase>,
) -> Vec<NodeId> {
    let mut out = Vec::new();
    for c in &robot.contacts {
        let (velocity, acceleration) = match base {
            Some(base) => base.absolute(g, &frames[c.frame].position, &motion[c.frame]),
            None => {
                let m = &motion[c.frame];
                (m.velocity.clone(), m.acceleration_bias.clone())
            }
        };
        match c.kind {
            ContactKind::Point => out.extend_from_slice(&acceleration[..3]),
            ContactKind::SixD => {
                // Spatial: the classical acceleration less ω × v of the origin.
                let (v, w) = (&velocity[..3], &velocity[3..6]);
                let cross = g.cross([w[0], w[1], w[2]], [v[0], v[1], v[2]]);
                for r in 0..3 {
                    out.push(g.sub(acceleration[r], cross[r]));
                }
                out.extend_from_slice(&acceleration[3..6]);
            }
        }
    }
    out
}

/// The joint-space force inputs in order: a floating base's wrench first, then the joints'.
fn force_inputs(g: &mut Graph, robot: &Robot) -> Vec<NodeId> {
    let mut out = Vec::new();
    if robot.is_floating() {
        for k in 0..6 {
            out.push(g.var(Var::Base(BaseVar::Wrench(k))));
        }
    }
    for j in 0..robot.dof() {
        let j = u16::try_from(j).expect("at most 64 joints");
        out.push(g.var(Var::Tau(j)));
    }
    out
}

/// The carrier of each joint-space coordinate: a floating base's six coordinates carry each
/// other and every root.
pub(crate) fn coordinate_parents(robot: &Robot) -> Vec<Option<usize>> {
    let base = if robot.is_floating() { 6 } else { 0 };
    let mut parent: Vec<Option<usize>> = (0..base).map(|k: usize| k.checked_sub(1)).collect();
    parent.extend(robot.bodies.iter().map(|b| match b.parent {
        Some(p) => Some(p + base),
        None => base.checked_sub(1),
    }));
    parent
}

/// The contact dynamics of `robot` (which has contacts) from its mass matrix `mass_matrix`
/// (`NV×NV` row-major), nonlinear effects `nle` (`NV`), the named frames' kinematics `frames`
/// and their motion `motion`, all over every joint: with joints that follow others, solved in
/// the independent coordinates (`coupled`).
pub fn contact_dynamics(
    g: &mut Graph,
    robot: &Robot,
    mass_matrix: &[NodeId],
    nle: &[NodeId],
    frames: &[FrameKinematics<NodeId>],
    motion: &[FrameMotion<NodeId>],
) -> ContactDynamics {
    let base = robot.is_prescribed().then(|| PrescribedBase::of(g, robot));
    // In the axes of the frames' Jacobians: a prescribed base's own.
    let jacobian = frame_rows(robot, frames);
    let gamma = contact_bias(g, robot, motion, frames, base.as_ref());
    let (acceleration, forces) = if robot.has_couplings() {
        coupled(g, robot, &jacobian, mass_matrix, nle, &gamma)
    } else {
        uncoupled(g, robot, &jacobian, mass_matrix, nle, &gamma)
    };
    let forces = match &base {
        Some(base) => base.rows_to_world(g, &forces, 1),
        None => forces,
    };
    ContactDynamics {
        acceleration,
        forces,
    }
}

/// The contact dynamics of `robot`, whose joints follow none, from its contact Jacobian
/// `jacobian`, mass matrix, nonlinear effects and contact bias `gamma`, through the tree's
/// sparse factorisation of the mass matrix (dense on a chain).
fn uncoupled(
    g: &mut Graph,
    robot: &Robot,
    jacobian: &[NodeId],
    mass_matrix: &[NodeId],
    nle: &[NodeId],
    gamma: &[NodeId],
) -> Held {
    let nv = nle.len();
    let parent = coordinate_parents(robot);
    let chain = parent
        .iter()
        .enumerate()
        .all(|(i, p)| *p == i.checked_sub(1));
    let factor = if chain {
        Factor::dense(g, mass_matrix, nv)
    } else {
        Factor::tree(g, mass_matrix, &parent)
    };
    let tau = force_inputs(g, robot);
    let rhs: Vec<NodeId> = tau.iter().zip(nle).map(|(&t, &h)| g.sub(t, h)).collect();
    Holding {
        factor: &factor,
        jacobian,
        rhs: &rhs,
        gamma,
    }
    .shorter(g)
}

/// The contact dynamics of `robot`, whose joints follow others, in its independent
/// coordinates: from the full contact Jacobian `full`, mass matrix and nonlinear effects, and
/// the contacts' bias `gamma`, `Jc G`, `Gᵀ M G` and `Gᵀ h` solved as without couplings, the
/// contracted mass matrix factorised from the last coordinate (as the forward dynamics with
/// couplings: the tree's sparsity stays but where a coupling joins two branches).
fn coupled(
    g: &mut Graph,
    robot: &Robot,
    full: &[NodeId],
    mass_matrix: &[NodeId],
    nle: &[NodeId],
    gamma: &[NodeId],
) -> Held {
    let map = Contraction::of(robot);
    let nc = robot.contact_rows();
    let jacobian = map.apply(g, full, (nc, false), (map.full(), true));
    let n = map.reduced();
    let m = map.mass_matrix(g, mass_matrix);
    let h = map.force(g, nle);
    let rhs = coupled_force_balance(g, robot, &h);
    // Solved with every coordinate dimension reversed, and the accelerations turned back.
    let factor = Factor::dense(g, &reverse_matrix(&m, n), n);
    let reversed: Vec<NodeId> = jacobian
        .chunks(n)
        .flat_map(|row| row.iter().rev().copied())
        .collect();
    let rhs: Vec<NodeId> = rhs.into_iter().rev().collect();
    let (mut acceleration, forces) = Holding {
        factor: &factor,
        jacobian: &reversed,
        rhs: &rhs,
        gamma,
    }
    .shorter(g);
    acceleration.reverse();
    (acceleration, forces)
}

/// The contacts held: through `factor` of the mass matrix, with the contacts' Jacobian
/// `jacobian`, the force balance `tau - h` `rhs` and the contacts' bias `gamma`.
struct Holding<'a> {
    factor: &'a Factor,
    jacobian: &'a [NodeId],
    rhs: &'a [NodeId],
    gamma: &'a [NodeId],
}

/// The accelerations and the contact forces.
type Held = (Vec<NodeId>, Vec<NodeId>);

impl Holding<'_> {
    /// The accelerations and the contact forces in the shorter of the two forms: compared as
    /// emitted where that is cheap (the shorter form depends on how far the contacts'
    /// Jacobian rows reach into the tree).
    fn shorter(&self, g: &mut Graph) -> Held {
        let by_columns = self.by_columns(g);
        let by_halves = self.by_halves(g);
        let roots = |h: &Held| -> Vec<NodeId> { h.0.iter().chain(&h.1).copied().collect() };
        if super::fewer_operations(g, &roots(&by_columns), &roots(&by_halves)) {
            by_halves
        } else {
            by_columns
        }
    }

    /// `Y = M⁻¹ Jcᵀ` and `a₀ = M⁻¹ (tau - h)` by whole solves, `K = Jc Y`,
    /// `λ = -K⁻¹ (Jc a₀ + γ)` and `a = a₀ + Y λ`.
    fn by_columns(&self, g: &mut Graph) -> Held {
        let nv = self.rhs.len();
        let nc = self.gamma.len();
        let a0 = self.factor.solve(g, self.rhs);
        // Y = M⁻¹ Jcᵀ, column i for contact row i.
        let y: Vec<Vec<NodeId>> = (0..nc)
            .map(|i| self.factor.solve(g, &self.jacobian[i * nv..(i + 1) * nv]))
            .collect();
        let rows: Vec<&[NodeId]> = self.jacobian.chunks(nv).collect();
        held_through(g, &rows, &y, &a0, self.gamma)
    }

    /// The same by half solves: with `U_i` the first half of row `i` of `Jc` and `y₀` that of
    /// `tau - h` ([`Factor::forward`]), `K_ij = Σ_k U_ik U_jk / D_k` and `(Jc a₀)_i = Σ_k
    /// U_ik y₀_k / D_k`, and `a` is the second half of `y₀ + Uᵀ λ`. On a tree a contact row
    /// reaches only the coordinates between its frame and the base, and so does its half,
    /// where a whole solve fills every coordinate; and `Y`, `NV×NC`, is never formed.
    fn by_halves(&self, g: &mut Graph) -> Held {
        let nv = self.rhs.len();
        let nc = self.gamma.len();
        let dinv = self.factor.pivots_inverse(g);
        let y0 = self.factor.forward(g, self.rhs);
        let u: Vec<Vec<NodeId>> = (0..nc)
            .map(|i| self.factor.forward(g, &self.jacobian[i * nv..(i + 1) * nv]))
            .collect();
        // U D⁻¹, row by row.
        let w: Vec<Vec<NodeId>> = u
            .iter()
            .map(|row| row.iter().zip(&dinv).map(|(&x, &d)| g.mul(x, d)).collect())
            .collect();
        let rows: Vec<&[NodeId]> = w.iter().map(Vec::as_slice).collect();
        let (z, forces) = held_through(g, &rows, &u, &y0, self.gamma);
        (self.factor.backward(g, &z), forces)
    }
}

/// What both forms share, with `left` the rows `Jc` (or `U D⁻¹`), `right` the columns
/// `M⁻¹ Jcᵀ` (or the rows of `U`) and `x0` the vector `a₀` (or `y₀`): `K_ij = left_i ·
/// right_j` (symmetric: the lower triangle, mirrored), `λ = -K⁻¹ (left · x0 + γ)` by a small
/// dense factorisation, and `x0 + Σ_j right_j λ_j` with `λ`.
fn held_through(
    g: &mut Graph,
    left: &[&[NodeId]],
    right: &[Vec<NodeId>],
    x0: &[NodeId],
    gamma: &[NodeId],
) -> Held {
    let nc = gamma.len();
    let zero = g.constant(0.0);
    let mut k = vec![zero; nc * nc];
    for i in 0..nc {
        for j in 0..=i {
            let kij = dot(g, left[i], &right[j]);
            k[i * nc + j] = kij;
            k[j * nc + i] = kij;
        }
    }
    let b: Vec<NodeId> = (0..nc)
        .map(|i| {
            let lx = dot(g, left[i], x0);
            let s = g.add(lx, gamma[i]);
            g.neg(s)
        })
        .collect();
    let forces = Factor::dense(g, &k, nc).solve(g, &b);
    let x: Vec<NodeId> = (0..x0.len())
        .map(|r| {
            let mut terms = vec![x0[r]];
            for (v, &l) in right.iter().zip(&forces) {
                terms.push(g.mul(v[r], l));
            }
            g.sum(&terms)
        })
        .collect();
    (x, forces)
}

fn dot(g: &mut Graph, a: &[NodeId], b: &[NodeId]) -> NodeId {
    let terms: Vec<NodeId> = a.iter().zip(b).map(|(&x, &y)| g.mul(x, y)).collect();
    g.sum(&terms)
}

#[cfg(test)]
mod tests {
    use crate::ir::Env;
    use crate::spec::parse_spec;

    /// A three-joint arm (about z, y, y) whose tip is a point contact: the returned `a` and
    /// `λ` satisfy both equations, evaluated on the graph against the mass matrix, the
    /// nonlinear effects and the tip frame's acceleration bias of the same module.
    #[test]
    fn a_held_arm_satisfies_both_equations() {
        let spec = "version = 1\nname = \"arm\"\ngravity = [0.0, 0.0, -9.81]\n\
                    [[body]]\nname = \"turret\"\njoint = \"revolute\"\naxis = \"z\"\n\
                    next = [0.0, 0.0, 0.3]\nmass = 2.0\ncom = [0.0, 0.0, 0.1]\n\
                    inertia = { ixx = 0.02, iyy = 0.02, izz = 0.01 }\n\
                    [[body]]\nname = \"upper\"\njoint = \"revolute\"\naxis = \"y\"\n\
                    next = [0.8, 0.0, 0.0]\nmass = 2.0\ncom = [0.4, 0.0, 0.0]\n\
                    inertia = { ixx = 0.01, iyy = 0.1, izz = 0.1 }\n\
                    [[body]]\nname = \"fore\"\njoint = \"revolute\"\naxis = \"y\"\n\
                    next = [0.5, 0.0, 0.0]\nmass = 1.0\ncom = [0.25, 0.0, 0.0]\n\
                    inertia = { ixx = 0.01, iyy = 0.02, izz = 0.03 }\n\
                    [[frame]]\nname = \"tip\"\nbody = \"fore\"\nposition = [0.5, 0.0, 0.0]\n\
                    [[contact]]\nframe = \"tip\"\n";
        let robot = parse_spec(spec, "pendulum.toml").expect("valid spec");
        assert_eq!(robot.contact_rows(), 3);
        let module = crate::generate::build_module_only(
            &robot,
            Some(&[
                crate::ir::FunctionKind::ContactJacobian,
                crate::ir::FunctionKind::ContactForwardDynamics,
                crate::ir::FunctionKind::MassMatrix,
                crate::ir::FunctionKind::NonlinearEffects,
                crate::ir::FunctionKind::FrameAccelerationBias(0),
            ]),
        );
        let env = Env {
            q: vec![0.3, -0.7, 1.2],
            qd: vec![1.1, -0.4, 0.9],
            tau: vec![2.0, -1.0, 0.5],
            ..Env::default()
        };
        let values = |kind| {
            let f = module.function(kind).expect("generated");
            f.outputs
                .iter()
                .map(|o| module.graph.eval_many(&o.values, &env))
                .collect::<Vec<_>>()
        };
        use crate::ir::FunctionKind as K;
        let jc = &values(K::ContactJacobian)[0];
        let out = values(K::ContactForwardDynamics);
        let (a, lambda) = (&out[0], &out[1]);
        let m = &values(K::MassMatrix)[0];
        let h = &values(K::NonlinearEffects)[0];
        let gamma = &values(K::FrameAccelerationBias(0))[0];
        assert_eq!((jc.len(), a.len(), lambda.len()), (9, 3, 3));
        for r in 0..3 {
            let row: f64 = (0..3).map(|c| jc[r * 3 + c] * a[c]).sum::<f64>() + gamma[r];
            assert!(row.abs() < 1e-11, "Jc a + gamma, row {r}: {row}");
        }
        for i in 0..3 {
            let ma: f64 = (0..3).map(|j| m[i * 3 + j] * a[j]).sum();
            let jl: f64 = (0..3).map(|r| jc[r * 3 + i] * lambda[r]).sum();
            let res = ma + h[i] - env.tau[i] - jl;
            assert!(
                res.abs() < 1e-11,
                "M a + h - tau - Jc^T lambda, row {i}: {res}"
            );
        }
        assert!(lambda.iter().any(|l| l.abs() > 1e-3), "a force: {lambda:?}");
    }

    /// Both forms of the held dynamics, on a floating-base-like tree (a chain of three, then
    /// two branches) with two contact rows, each reaching one branch and the chain, and on
    /// the dense factorisation of the same matrix: the same accelerations and forces.
    #[test]
    fn half_solves_give_the_whole_solves_values() {
        use super::{Factor, Holding};
        use crate::ir::{Graph, NodeId};
        let parent = [None, Some(0), Some(1), Some(2), Some(3), Some(2), Some(5)];
        let n = parent.len();
        let (m, path) = crate::derive::ldlt::on_tree(
            &parent,
            |k, i| 0.2 + 0.05 * (k * i) as f64,
            |k| 2.0 - 0.2 * k as f64,
        );
        // Row 0 on the path to coordinate 4, row 1 on the path to 6.
        let mut jc = vec![0.0; 2 * n];
        for (r, tip) in [(0, 4), (1, 6)] {
            for &i in &path[tip] {
                jc[r * n + i] = 0.5 - 0.1 * (i + r) as f64;
            }
        }
        let mut g = Graph::new();
        let consts = |g: &mut Graph, v: &[f64]| -> Vec<NodeId> {
            v.iter().map(|&x| g.constant(x)).collect()
        };
        let (mm, jj) = (consts(&mut g, &m), consts(&mut g, &jc));
        let rhs = consts(&mut g, &[0.3, -1.0, 0.7, 0.2, -0.4, 1.1, 0.6]);
        let gamma = consts(&mut g, &[0.25, -0.5]);
        let mut results = Vec::new();
        for factor in [
            Factor::tree(&mut g, &mm, &parent),
            Factor::dense(&mut g, &mm, n),
        ] {
            let holding = Holding {
                factor: &factor,
                jacobian: &jj,
                rhs: &rhs,
                gamma: &gamma,
            };
            for (a, f) in [holding.by_columns(&mut g), holding.by_halves(&mut g)] {
                let env = Env::default();
                results.push((g.eval_many(&a, &env), g.eval_many(&f, &env)));
            }
        }
        let (a0, f0) = &results[0];
        for (a, f) in &results[1..] {
            for (x, y) in a.iter().chain(f).zip(a0.iter().chain(f0)) {
                assert!((x - y).abs() < 1e-12 * (1.0 + y.abs()), "{x} against {y}");
            }
        }
        assert!(f0.iter().all(|x| x.abs() > 1e-6), "forces: {f0:?}");
    }
}

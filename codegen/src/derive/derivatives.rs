//! Analytical derivatives of the joint-space dynamics, taken on the expression graph.
//!
//! Everything here works on the derived outputs (graph nodes), not on the recursions, so it
//! applies unchanged to any robot the derivation supports. Each derivative is built by
//! [`Graph::diff_many`] through the simplifying constructors; the emitters then lower and share
//! the result like any other function.
//!
//! - `∂τ/∂q`, `∂τ/∂q̇` of the inverse dynamics (`∂τ/∂q̈ = M`). `τ` is quadratic in `q̇`, so
//!   `∂τ/∂q̇` is linear in `q̇` by construction.
//! - `∂g/∂q` of the gravity forces.
//! - Forward dynamics, by the identities `∂q̈/∂q = -M⁻¹ ∂τ/∂q`, `∂q̈/∂q̇ = -M⁻¹ ∂τ/∂q̇` with
//!   `∂τ/∂·` evaluated at `q̈ = FD(q, q̇, τ)` (the inverse dynamics' derivative, linear in
//!   `q̈`, with `q̈` replaced by the forward dynamics), and `∂q̈/∂τ = M⁻¹` from the same
//!   straight-line `L D Lᵀ` factorisation that solves for `q̈`. Differentiating the
//!   division-heavy solve itself would be larger.

use rustc_hash::FxHashMap as HashMap;

use super::scalar::{Cx, S};
use super::{fewer_operations, ldlt, SpatialDerivatives, SpatialFrame};
use crate::ir::{BaseVar, Graph, Node, NodeId, Var};
use crate::model::BaseLayout;

/// The derivative outputs, row-major `N×N` (`[i*n + j] = ∂ out_i / ∂ in_j`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Derivatives {
    /// `∂τ/∂q` of the inverse dynamics (inputs `q`, `q̇`, `q̈`).
    pub dtau_dq: Vec<NodeId>,
    /// `∂τ/∂q̇` of the inverse dynamics (inputs `q`, `q̇`), linear in `q̇`.
    pub dtau_dqd: Vec<NodeId>,
    /// `∂g/∂q` (input `q`).
    pub dg_dq: Vec<NodeId>,
    /// `∂q̈/∂q` of the forward dynamics (inputs `q`, `q̇`, `τ`).
    pub dqdd_dq: Vec<NodeId>,
    /// `∂q̈/∂q̇` of the forward dynamics (inputs `q`, `q̇`, `τ`).
    pub dqdd_dqd: Vec<NodeId>,
    /// `M⁻¹ = ∂q̈/∂τ` (input `q`), full and symmetric.
    pub minv: Vec<NodeId>,
}

/// A direction in configuration space, one column of a derivative with respect to `q`.
#[derive(Clone, Debug, PartialEq)]
pub enum Direction {
    /// Along one input.
    Along(Var),
    /// `Σ coefficient · ∂/∂input`: a tangent direction of a coordinate that is not a vector
    /// space (the base's pose: quaternion and position).
    Tangent(Vec<(Var, NodeId)>),
}

/// The coordinates the derivatives are taken in: one [`Direction`] per column of `∂/∂q`, and
/// the velocity, acceleration and force inputs in order (`NV` each).
#[derive(Clone, Debug, PartialEq)]
pub struct Coordinates {
    /// The columns of `∂/∂q`.
    pub position: Vec<Direction>,
    /// `q̇` (or `v`) inputs.
    pub velocity: Vec<Var>,
    /// `q̈` (or `a`) inputs.
    pub acceleration: Vec<Var>,
    /// `τ` inputs.
    pub force: Vec<Var>,
    /// The coordinate each one is carried by (`M_ij` is structurally zero unless one of `i`,
    /// `j` carries the other): the robot's tree, below a floating base's six coordinates.
    pub parent: Vec<Option<usize>>,
}

impl Coordinates {
    /// The joints of a fixed or prescribed base: `q`, `q̇`, `q̈`, `τ` (the base's motion, a
    /// prescribed input, is held fixed).
    pub fn joints(parent: &[Option<usize>]) -> Coordinates {
        let n = parent.len();
        Coordinates {
            parent: parent.to_vec(),
            position: (0..n).map(|j| Direction::Along(Var::Q(joint(j)))).collect(),
            velocity: (0..n).map(|j| Var::Qd(joint(j))).collect(),
            acceleration: (0..n).map(|j| Var::Qdd(joint(j))).collect(),
            force: (0..n).map(|j| Var::Tau(joint(j))).collect(),
        }
    }

    /// A floating base, as Pinocchio's free-flyer: the base's six tangent directions first
    /// (a displacement `δ` of the base in its own frame, `q ⊕ δ` as `pin.integrate`: the
    /// position moves by `R δ_lin`, the quaternion by `½ q ⊗ (δ_ω, 0)`), then the joints.
    /// Both are exact for a quaternion of any length, since the functions normalise it: the
    /// rotation's direction is normal to `q` and scales with `|q|`.
    pub fn floating(g: &mut Graph, parent: &[Option<usize>]) -> Coordinates {
        Coordinates::floating_in(g, parent, BaseLayout::Pinocchio)
    }

    /// A floating base in `layout`'s tangent: Pinocchio's as [`Coordinates::floating`]; MuJoCo's
    /// as `mj_integratePos` moves a free joint, the position by `δ_lin` in world axes and the
    /// quaternion (`w x y z`) by `½ q ⊗ (δ_ω, 0)`, a turn about the body's own axes.
    pub fn floating_in(g: &mut Graph, parent: &[Option<usize>], layout: BaseLayout) -> Coordinates {
        let n = parent.len();
        let pose = |g: &mut Graph, k: u8| g.var(Var::Base(BaseVar::Pose(k)));
        // The pose slots of the quaternion's x, y, z and w.
        let slots: [u8; 4] = match layout {
            BaseLayout::Pinocchio => [3, 4, 5, 6],
            BaseLayout::Mujoco => [4, 5, 6, 3],
        };
        let [x, y, z, w] = slots.map(|k| pose(g, k));
        let half = g.constant(0.5);
        let mhalf = g.constant(-0.5);
        let scaled = |g: &mut Graph, c: NodeId, v: NodeId| g.mul(c, v);
        let mut position = Vec::with_capacity(6 + n);
        match layout {
            BaseLayout::Pinocchio => {
                let r = rotation_of(g, [x, y, z, w]);
                for k in 0..3 {
                    position.push(Direction::Tangent(
                        (0..3u8)
                            .map(|c| (Var::Base(BaseVar::Pose(c)), r[usize::from(c)][k]))
                            .collect(),
                    ));
                }
            }
            BaseLayout::Mujoco => {
                position.extend((0..3).map(|k| Direction::Along(Var::Base(BaseVar::Pose(k)))));
            }
        }
        // ½ q ⊗ (e_k, 0) = ½ (w e_k + v × e_k, -v_k), over (x, y, z, w).
        let rotation: [[(NodeId, NodeId); 4]; 3] = [
            [(half, w), (half, z), (mhalf, y), (mhalf, x)],
            [(mhalf, z), (half, w), (half, x), (mhalf, y)],
            [(half, y), (mhalf, x), (half, w), (mhalf, z)],
        ];
        for coefficients in rotation {
            position.push(Direction::Tangent(
                coefficients
                    .iter()
                    .zip(slots)
                    .map(|(&(c, v), k)| (Var::Base(BaseVar::Pose(k)), scaled(g, c, v)))
                    .collect(),
            ));
        }
        position.extend((0..n).map(|j| Direction::Along(Var::Q(joint(j)))));
        let base = |f: fn(u8) -> BaseVar| (0..6u8).map(move |k| Var::Base(f(k)));
        Coordinates {
            parent: (0..6)
                .map(|k: usize| k.checked_sub(1))
                .chain(parent.iter().map(|p| Some(p.map_or(5, |p| 6 + p))))
                .collect(),
            position,
            velocity: base(BaseVar::Vel)
                .chain((0..n).map(|j| Var::Qd(joint(j))))
                .collect(),
            acceleration: base(BaseVar::Acc)
                .chain((0..n).map(|j| Var::Qdd(joint(j))))
                .collect(),
            force: base(BaseVar::Wrench)
                .chain((0..n).map(|j| Var::Tau(joint(j))))
                .collect(),
        }
    }
}

/// `R` (world from base) of the quaternion `x y z w`, normalised: `1 - 2s(..)` on the diagonal,
/// `2s(..)` off it, with `s = 1 / |q|²`.
pub(crate) fn rotation_of(g: &mut Graph, [x, y, z, w]: [NodeId; 4]) -> [[NodeId; 3]; 3] {
    let norm2 = {
        let sq: Vec<NodeId> = [x, y, z, w].iter().map(|&c| g.mul(c, c)).collect();
        g.sum(&sq)
    };
    let one = g.constant(1.0);
    let two = g.constant(2.0);
    let s2 = g.div(two, norm2);
    let prod = |g: &mut Graph, a: NodeId, b: NodeId| g.mul(a, b);
    let (xx, yy, zz) = (prod(g, x, x), prod(g, y, y), prod(g, z, z));
    let (xy, xz, yz) = (prod(g, x, y), prod(g, x, z), prod(g, y, z));
    let (xw, yw, zw) = (prod(g, x, w), prod(g, y, w), prod(g, z, w));
    let diag = |g: &mut Graph, a: NodeId, b: NodeId| {
        let t = g.add(a, b);
        let t = g.mul(s2, t);
        g.sub(one, t)
    };
    let off = |g: &mut Graph, a: NodeId, b: NodeId, sign: f64| {
        let b = if sign < 0.0 { g.neg(b) } else { b };
        let t = g.add(a, b);
        g.mul(s2, t)
    };
    [
        [diag(g, yy, zz), off(g, xy, zw, -1.0), off(g, xz, yw, 1.0)],
        [off(g, xy, zw, 1.0), diag(g, xx, zz), off(g, yz, xw, -1.0)],
        [off(g, xz, yw, -1.0), off(g, yz, xw, 1.0), diag(g, xx, yy)],
    ]
}

/// Builds the derivatives by composite quantities ([`super::spatial_derivatives`]) in the
/// frame given, on the graph given, or `None` where that form or frame does not apply.
pub type SpatialForm<'a> =
    &'a dyn Fn(&mut Graph, SpatialFrame) -> Option<SpatialDerivatives<NodeId>>;

/// Derives [`Derivatives`] in the coordinates `c` (`NV` of them) from the inverse dynamics
/// `tau`, the gravity forces `gravity`, the nonlinear effects `nle` (`NV` each) and the mass
/// matrix `mass` (`NV×NV`, row-major) of one graph. `spatial`, where given, builds the same
/// `∂τ/∂q`, `∂τ/∂q̇` and `∂g/∂q` by composite quantities; each is kept where it has fewer
/// operations.
pub fn derivatives(
    g: &mut Graph,
    c: &Coordinates,
    tau: &[NodeId],
    gravity: &[NodeId],
    nle: &[NodeId],
    mass: &[NodeId],
    spatial: Option<SpatialForm<'_>>,
) -> Derivatives {
    let n = c.velocity.len();
    let column = |g: &mut Graph, f: &[NodeId], d: &Direction| -> Vec<NodeId> {
        match d {
            Direction::Along(v) => g.diff_many(f, *v),
            Direction::Tangent(parts) => {
                let mut terms: Vec<Vec<NodeId>> = vec![Vec::new(); f.len()];
                for &(v, coefficient) in parts {
                    for (t, d) in terms.iter_mut().zip(g.diff_many(f, v)) {
                        t.push(g.mul(coefficient, d));
                    }
                }
                terms.iter().map(|t| g.sum(t)).collect()
            }
        }
    };
    let jacobian = |g: &mut Graph, f: &[NodeId], dirs: &[Direction]| -> Vec<NodeId> {
        let columns: Vec<Vec<NodeId>> = dirs.iter().map(|d| column(g, f, d)).collect();
        row_major(&columns)
    };
    let along: Vec<Direction> = c.velocity.iter().map(|&v| Direction::Along(v)).collect();
    // Reverse mode (an adjoint walk per output, every input at once) where every direction
    // is along one input (a floating base's pose columns are tangent directions: forward
    // mode was shorter on every floating robot tried); whichever of the two forms has fewer
    // operations is kept.
    let leaves: Option<Vec<Var>> = c
        .position
        .iter()
        .map(|d| match d {
            Direction::Along(v) => Some(*v),
            Direction::Tangent(_) => None,
        })
        .collect();
    let mut dtau_dq = jacobian(g, tau, &c.position);
    let mut dtau_dqd = jacobian(g, tau, &along);
    let mut dg_dq = jacobian(g, gravity, &c.position);
    if let Some(position) = leaves {
        // One adjoint walk per joint force gives its row of both ∂τ/∂q and ∂τ/∂q̇.
        let both: Vec<Var> = position.iter().chain(&c.velocity).copied().collect();
        let columns = g.gradients(tau, &both);
        let (rq, rqd) = (row_major(&columns[..n]), row_major(&columns[n..]));
        let forward: Vec<NodeId> = dtau_dq.iter().chain(&dtau_dqd).copied().collect();
        let reverse: Vec<NodeId> = rq.iter().chain(&rqd).copied().collect();
        if fewer_operations(g, &forward, &reverse) {
            dtau_dq = rq;
            dtau_dqd = rqd;
        }
        let rg = row_major(&g.gradients(gravity, &position));
        if fewer_operations(g, &dg_dq, &rg) {
            dg_dq = rg;
        }
    }
    // Forward dynamics: q̈ from the factorisation, then the identities with the derivatives
    // of the inverse dynamics `(∂τ/∂q, ∂τ/∂q̇)` given.
    let rhs: Vec<NodeId> = (0..n)
        .map(|j| {
            let t = g.var(c.force[j]);
            g.sub(t, nle[j])
        })
        .collect();
    let chain = c
        .parent
        .iter()
        .enumerate()
        .all(|(i, p)| *p == i.checked_sub(1));
    let floating = matches!(c.velocity.first(), Some(Var::Base(_)));
    // Dense: M⁻¹ once, then products with it.
    let dense = |g: &mut Graph, dtau_dq: &[NodeId], dtau_dqd: &[NodeId]| {
        let f = Factor::dense(g, mass, n);
        let qdd = f.solve(g, &rhs);
        let minv = f.inverse(g);
        let at_fd: HashMap<Var, NodeId> = c.acceleration.iter().copied().zip(qdd).collect();
        let dtau_dq_fd = substitute(g, dtau_dq, &at_fd);
        let dqdd_dq = neg_product(g, &minv, &dtau_dq_fd, n);
        let dqdd_dqd = neg_product(g, &minv, dtau_dqd, n);
        [dqdd_dq, dqdd_dqd, minv]
    };
    // Branches (and a floating base's six coordinates above every joint): the factorisation
    // from the leaves has no fill-in, so each column is solved with it rather than
    // multiplied by the dense M⁻¹.
    let sparse = |g: &mut Graph, dtau_dq: &[NodeId], dtau_dqd: &[NodeId]| {
        let f = Factor::tree(g, mass, &c.parent);
        let qdd = f.solve(g, &rhs);
        let minv = f.inverse(g);
        let at_fd: HashMap<Var, NodeId> = c.acceleration.iter().copied().zip(qdd).collect();
        let dtau_dq_fd = substitute(g, dtau_dq, &at_fd);
        let dqdd_dq = f.neg_solve_columns(g, &dtau_dq_fd, n);
        let dqdd_dqd = f.neg_solve_columns(g, dtau_dqd, n);
        [dqdd_dq, dqdd_dqd, minv]
    };
    let count = |g: &Graph, x: &[Vec<NodeId>; 3]| g.op_count(&x.concat()).total();
    let forward_dynamics = |g: &mut Graph, dtau_dq: &[NodeId], dtau_dqd: &[NodeId]| {
        if chain {
            dense(g, dtau_dq, dtau_dqd)
        } else if n > DENSE_FD_DERIVATIVES_MAX || floating {
            // (A floating base couples every joint to its six coordinates: sparse measured
            // shorter on the quadruped, 28909 operations against 32604.)
            sparse(g, dtau_dq, dtau_dqd)
        } else {
            // Small trees: whichever is shorter (the dense products can share more).
            let a = dense(g, dtau_dq, dtau_dqd);
            let b = sparse(g, dtau_dq, dtau_dqd);
            if count(g, &b) < count(g, &a) {
                b
            } else {
                a
            }
        }
    };

    // The derivatives by composite quantities (any rigid base), in either frame, each output kept
    // where shorter. The forward-dynamics derivatives are built from both the graph's and the
    // shorter composite form of the inverse dynamics' where those are within [`FORMS_CLOSE`]
    // of each other (the shorter of the two need not give the shorter products), else from
    // the shorter. Tried on the graph and taken back when nothing is kept, so that what is
    // built after keeps its ids.
    let mut fd = None;
    if let Some(spatial) = spatial {
        let mark = g.mark();
        let forms: Vec<SpatialDerivatives<NodeId>> = [SpatialFrame::Base, SpatialFrame::FirstBody]
            .into_iter()
            .filter_map(|frame| spatial(g, frame))
            .collect();
        let both = |dq: &[NodeId], dqd: &[NodeId]| -> Vec<NodeId> {
            dq.iter().chain(dqd).copied().collect()
        };
        let mut best: Option<&SpatialDerivatives<NodeId>> = None;
        let mut best_gravity = None;
        for s in &forms {
            let shortest = best.map_or_else(Vec::new, |b| both(&b.dtau_dq, &b.dtau_dqd));
            // The shorter composite form (the graph's is weighed against it below).
            if best.is_none() || fewer_operations(g, &shortest, &both(&s.dtau_dq, &s.dtau_dqd)) {
                best = Some(s);
            }
            let gravity_now =
                best_gravity.map_or(&dg_dq, |b: &SpatialDerivatives<NodeId>| &b.dg_dq);
            if fewer_operations(g, gravity_now, &s.dg_dq) {
                best_gravity = Some(s);
            }
        }
        if let Some(s) = best {
            let current = both(&dtau_dq, &dtau_dqd);
            let candidate = both(&s.dtau_dq, &s.dtau_dqd);
            let take_tau = fewer_operations(g, &current, &candidate);
            let (cc, cs) = (g.op_count(&current).total(), g.op_count(&candidate).total());
            let close = (cc.min(cs) as f64) * FORMS_CLOSE >= cc.max(cs) as f64;
            if close {
                let mine = forward_dynamics(g, &dtau_dq, &dtau_dqd);
                let theirs = forward_dynamics(g, &s.dtau_dq, &s.dtau_dqd);
                fd = Some(if fewer_operations(g, &mine.concat(), &theirs.concat()) {
                    theirs
                } else {
                    mine
                });
            } else if take_tau {
                fd = Some(forward_dynamics(g, &s.dtau_dq, &s.dtau_dqd));
            }
            if let Some(b) = best_gravity {
                dg_dq = b.dg_dq.clone();
            }
            if take_tau {
                dtau_dq = s.dtau_dq.clone();
                dtau_dqd = s.dtau_dqd.clone();
            } else if best_gravity.is_none() && !close {
                g.rollback(mark);
            }
        }
    }
    let [dqdd_dq, dqdd_dqd, minv] = match fd {
        Some(fd) => fd,
        None => forward_dynamics(g, &dtau_dq, &dtau_dqd),
    };
    Derivatives {
        dtau_dq,
        dtau_dqd,
        dg_dq,
        dqdd_dq,
        dqdd_dqd,
        minv,
    }
}

/// Two forms of the inverse dynamics' derivatives whose operation counts are within this
/// factor of each other both give forward-dynamics derivatives to compare (the shorter inverse
/// dynamics derivatives do not always give the shorter forward ones).
const FORMS_CLOSE: f64 = 1.25;

/// Up to this many coordinates a tree's forward-dynamics derivatives are also built with the
/// dense `M⁻¹` (cubic in the coordinates), and the shorter form kept.
const DENSE_FD_DERIVATIVES_MAX: usize = 24;

fn joint(j: usize) -> u16 {
    u16::try_from(j).expect("at most 64 joints")
}

/// `-(a b)` for row-major `N×N` matrices.
fn neg_product(g: &mut Graph, a: &[NodeId], b: &[NodeId], n: usize) -> Vec<NodeId> {
    let mut out = Vec::with_capacity(n * n);
    for i in 0..n {
        for j in 0..n {
            let terms: Vec<NodeId> = (0..n).map(|k| g.mul(a[i * n + k], b[k * n + j])).collect();
            let s = g.sum(&terms);
            out.push(g.neg(s));
        }
    }
    out
}

/// `roots` with the leaves of `subs` replaced by the given nodes, rebuilt through the
/// simplifying constructors (so the result is simplified like any other expression).
pub(crate) fn substitute(
    g: &mut Graph,
    roots: &[NodeId],
    subs: &HashMap<Var, NodeId>,
) -> Vec<NodeId> {
    let live = g.reachable(roots);
    let mut map: HashMap<NodeId, NodeId> = HashMap::default();
    for (i, _) in live.iter().enumerate().filter(|(_, l)| **l) {
        let id = NodeId(i as u32);
        let node = g.node(id).clone();
        let unchanged = node.children().all(|c| map[&c] == c);
        let new = match node {
            Node::Var(v) => subs.get(&v).copied().unwrap_or(id),
            _ if unchanged => id,
            Node::Const(_) => id,
            Node::Add(ch) => {
                let v: Vec<NodeId> = ch.iter().map(|c| map[c]).collect();
                g.sum(&v)
            }
            Node::Mul(ch) => {
                let v: Vec<NodeId> = ch.iter().map(|c| map[c]).collect();
                g.product(&v)
            }
            Node::Neg(x) => g.neg(map[&x]),
            Node::Div(a, b) => g.div(map[&a], map[&b]),
            Node::Sqrt(x) => g.sqrt(map[&x]),
        };
        map.insert(id, new);
    }
    roots.iter().map(|r| map[r]).collect()
}

/// Which part of a solve [`Factor::through`] runs.
#[derive(Clone, Copy)]
enum Half {
    Forward,
    Backward,
    Both,
}

/// A factorisation of the mass matrix on the graph ([`ldlt`]'s, through the scalar layer), for
/// the solves of the forward-dynamics derivatives and the inverse mass matrix.
pub(crate) enum Factor {
    /// From the base (chains: dense `M⁻¹` from `L⁻¹`).
    Dense(ldlt::Dense<NodeId>),
    /// From the leaves (trees and floating bases: one solve per column, no fill-in).
    Tree(ldlt::Tree<NodeId>),
}

impl Factor {
    pub(crate) fn dense(g: &mut Graph, m: &[NodeId], n: usize) -> Factor {
        let m = lift(g, m, n);
        Factor::Dense(ldlt::Dense::factor(&mut Cx::new(g), &m))
    }

    pub(crate) fn tree(g: &mut Graph, m: &[NodeId], parent: &[Option<usize>]) -> Factor {
        let m = lift(g, m, parent.len());
        Factor::Tree(ldlt::Tree::factor(&mut Cx::new(g), &m, parent))
    }

    /// `x` with `M x = b`.
    pub(crate) fn solve(&self, g: &mut Graph, b: &[NodeId]) -> Vec<NodeId> {
        self.through(g, b, Half::Both)
    }

    /// The first half of a solve (`L⁻¹ b` from the base, `L⁻ᵀ b` from the leaves): with the
    /// halves `y`, `z` of `b`, `c`, `bᵀ M⁻¹ c = Σ_k y_k z_k / D_k` ([`Factor::pivots_inverse`]).
    pub(crate) fn forward(&self, g: &mut Graph, b: &[NodeId]) -> Vec<NodeId> {
        self.through(g, b, Half::Forward)
    }

    /// The second half of a solve: `M⁻¹ b` is `backward(forward(b))`.
    pub(crate) fn backward(&self, g: &mut Graph, y: &[NodeId]) -> Vec<NodeId> {
        self.through(g, y, Half::Backward)
    }

    /// `b` through one half of a solve, or both.
    fn through(&self, g: &mut Graph, b: &[NodeId], half: Half) -> Vec<NodeId> {
        let b: Vec<S<NodeId>> = b.iter().map(|&e| scalar(g, e)).collect();
        let mut cx = Cx::new(g);
        let cx = &mut cx;
        let x = match (self, half) {
            (Factor::Dense(f), Half::Both) => f.solve(cx, &b),
            (Factor::Dense(f), Half::Forward) => f.forward(cx, &b),
            (Factor::Dense(f), Half::Backward) => f.backward(cx, &b),
            (Factor::Tree(f), Half::Both) => f.solve(cx, &b),
            (Factor::Tree(f), Half::Forward) => f.forward(cx, &b),
            (Factor::Tree(f), Half::Backward) => f.backward(cx, &b),
        };
        x.into_iter().map(|v| cx.e(v)).collect()
    }

    /// `1 / D_k` of every pivot.
    pub(crate) fn pivots_inverse(&self, g: &mut Graph) -> Vec<NodeId> {
        let dinv = match self {
            Factor::Dense(f) => &f.dinv,
            Factor::Tree(f) => &f.dinv,
        };
        let mut cx = Cx::new(g);
        dinv.iter().map(|&v| cx.e(v)).collect()
    }

    /// `M⁻¹` of a tree's factors by sums over common ancestors
    /// ([`ldlt::Tree::inverse_by_ancestors`]); `None` for a chain's.
    pub(crate) fn inverse_by_ancestors(&self, g: &mut Graph) -> Option<Vec<NodeId>> {
        let Factor::Tree(f) = self else {
            return None;
        };
        let mut cx = Cx::new(g);
        let inv = f.inverse_by_ancestors(&mut cx);
        Some(inv.into_iter().flatten().map(|v| cx.e(v)).collect())
    }

    /// `M⁻¹`, full and symmetric (mirrored entries are the same nodes). Dense:
    /// `M⁻¹ = Xᵀ D⁻¹ X` with `X = L⁻¹`; tree: column by column from unit vectors (only the
    /// lower part of each column kept, so the rest is never computed).
    pub(crate) fn inverse(&self, g: &mut Graph) -> Vec<NodeId> {
        let zero = g.constant(0.0);
        let one = g.constant(1.0);
        match self {
            Factor::Dense(f) => {
                let n = f.dinv.len();
                let mut cx = Cx::new(g);
                let l: Vec<NodeId> = f.l.iter().flatten().map(|&v| cx.e(v)).collect();
                let dinv: Vec<NodeId> = f.dinv.iter().map(|&v| cx.e(v)).collect();
                // X = L⁻¹, unit lower triangular: X_ij = -Σ_{k=j}^{i-1} L_ik X_kj for i > j.
                let mut x = vec![zero; n * n];
                for j in 0..n {
                    x[j * n + j] = one;
                    for i in j + 1..n {
                        let terms: Vec<NodeId> =
                            (j..i).map(|k| g.mul(l[i * n + k], x[k * n + j])).collect();
                        let s = g.sum(&terms);
                        x[i * n + j] = g.neg(s);
                    }
                }
                // W = D⁻¹ X, then (M⁻¹)_ij = Σ_{k ≥ i} X_ki W_kj for i ≥ j.
                let mut w = vec![zero; n * n];
                for k in 0..n {
                    for j in 0..=k {
                        w[k * n + j] = g.mul(dinv[k], x[k * n + j]);
                    }
                }
                let mut inv = vec![zero; n * n];
                for i in 0..n {
                    for j in 0..=i {
                        let terms: Vec<NodeId> =
                            (i..n).map(|k| g.mul(x[k * n + i], w[k * n + j])).collect();
                        let s = g.sum(&terms);
                        inv[i * n + j] = s;
                        inv[j * n + i] = s;
                    }
                }
                inv
            }
            Factor::Tree(f) => {
                let n = f.dinv.len();
                let mut inv = vec![zero; n * n];
                for c in 0..n {
                    let mut e = vec![zero; n];
                    e[c] = one;
                    let x = self.solve(g, &e);
                    for i in c..n {
                        inv[i * n + c] = x[i];
                        inv[c * n + i] = x[i];
                    }
                }
                inv
            }
        }
    }

    /// `-M⁻¹ b` for the row-major `N×N` matrix `b`, column by column.
    fn neg_solve_columns(&self, g: &mut Graph, b: &[NodeId], n: usize) -> Vec<NodeId> {
        let mut out = vec![NodeId(0); n * n];
        for j in 0..n {
            // -M⁻¹ b = M⁻¹ (-b): the signs fold into the sums of the solve.
            let col: Vec<NodeId> = (0..n).map(|i| g.neg(b[i * n + j])).collect();
            for (i, x) in self.solve(g, &col).into_iter().enumerate() {
                out[i * n + j] = x;
            }
        }
        out
    }
}

/// A graph node as a scalar of the derivation layer (constants as known numbers, so they fold
/// there as in the derivation).
fn scalar(g: &Graph, e: NodeId) -> S<NodeId> {
    match g.node(e) {
        Node::Const(bits) => S::K(f64::from_bits(*bits)),
        _ => S::X(e),
    }
}

/// The row-major `n×n` `m` as rows of scalars.
fn lift(g: &Graph, m: &[NodeId], n: usize) -> Vec<Vec<S<NodeId>>> {
    m.chunks(n)
        .map(|row| row.iter().map(|&e| scalar(g, e)).collect())
        .collect()
}

/// The matrix whose column `j` is `columns[j]` (all of one length), row-major.
fn row_major(columns: &[Vec<NodeId>]) -> Vec<NodeId> {
    let rows = columns.first().map_or(0, Vec::len);
    (0..rows)
        .flat_map(|i| columns.iter().map(move |column| column[i]))
        .collect()
}

//! Joints that follow others (mimic joints): the functions in the independent coordinates.
//!
//! With `q_full = G q + offset` (a floating base's six coordinates and each independent joint
//! map to themselves, a joint that follows another to its master's coordinate times its
//! multiplier), the derivation runs over every joint as usual, each following joint reading
//! its master's input through its factor (the emitters' [`crate::ir::JointInput`]). What is
//! indexed by coordinates is then contracted with `G`: forces and the rows of derivatives
//! `Gᵀ τ`, Jacobian columns `J G`, the mass matrix `Gᵀ M G`. The forward dynamics and the
//! inverse mass matrix are solved on the contracted mass matrix.

use rustc_hash::FxHashMap as HashMap;

use super::derivatives::{substitute, Factor};
use crate::ir::{Graph, NodeId, Var};
use crate::Robot;

/// The map from the full coordinates (a floating base's six, then every joint's) to the
/// independent ones.
#[derive(Clone, Debug)]
pub struct Contraction {
    /// A floating base's six coordinates (0 otherwise), which map to themselves.
    base: usize,
    /// Per joint: its coordinate among the independent joints and its factor.
    joints: Vec<(usize, f64)>,
    /// Independent joints.
    coordinates: usize,
}

impl Contraction {
    /// The contraction of `robot`'s coordinates.
    pub fn of(robot: &Robot) -> Contraction {
        Contraction {
            base: if robot.is_floating() { 6 } else { 0 },
            joints: robot.joint_coordinates(),
            coordinates: robot.coordinate_joints().len(),
        }
    }

    /// Full coordinates.
    pub fn full(&self) -> usize {
        self.base + self.joints.len()
    }

    /// Independent coordinates (with a floating base's six).
    pub fn reduced(&self) -> usize {
        self.base + self.coordinates
    }

    /// Where full coordinate `i` goes, and its factor.
    fn image(&self, i: usize) -> (usize, f64) {
        match i.checked_sub(self.base) {
            None => (i, 1.0),
            Some(j) => {
                let (r, factor) = self.joints[j];
                (self.base + r, factor)
            }
        }
    }

    /// `values` (`rows × cols` row-major) with the rows contracted if `rows_are_coordinates`
    /// (then `rows` is [`Contraction::full`]) and the columns if `cols_are_coordinates`.
    pub fn apply(
        &self,
        g: &mut Graph,
        values: &[NodeId],
        (rows, rows_are_coordinates): (usize, bool),
        (cols, cols_are_coordinates): (usize, bool),
    ) -> Vec<NodeId> {
        // An index of a coordinate dimension goes to its image; any other stays.
        let map = |contracted: bool, i: usize| if contracted { self.image(i) } else { (i, 1.0) };
        let size = |contracted: bool, n: usize| if contracted { self.reduced() } else { n };
        let out_cols = size(cols_are_coordinates, cols);
        let mut terms: Vec<Vec<NodeId>> =
            vec![Vec::new(); size(rows_are_coordinates, rows) * out_cols];
        for i in 0..rows {
            let (r, fr) = map(rows_are_coordinates, i);
            for j in 0..cols {
                let (c, fc) = map(cols_are_coordinates, j);
                let v = values[i * cols + j];
                let factor = fr * fc;
                let term = if factor == 1.0 {
                    v
                } else {
                    let k = g.constant(factor);
                    g.mul(k, v)
                };
                terms[r * out_cols + c].push(term);
            }
        }
        terms.iter().map(|t| g.sum(t)).collect()
    }

    /// The mass matrix in the independent coordinates from the full one (`Gᵀ M G`).
    pub fn mass_matrix(&self, g: &mut Graph, full: &[NodeId]) -> Vec<NodeId> {
        let n = self.full();
        self.apply(g, full, (n, true), (n, true))
    }

    /// A generalised force in the independent coordinates (`Gᵀ τ`).
    pub fn force(&self, g: &mut Graph, full: &[NodeId]) -> Vec<NodeId> {
        self.apply(g, full, (self.full(), true), (1, false))
    }
}

/// The contracted mass matrix (`n×n` row-major, independent coordinates in body order, parents
/// first) factorised from the last coordinate: that keeps the tree's sparsity but where a
/// coupling joins two branches. Vectors and results are in the caller's order.
struct LeavesFirst {
    factor: Factor,
    n: usize,
}

impl LeavesFirst {
    fn factor(g: &mut Graph, m: &[NodeId]) -> LeavesFirst {
        let n = (m.len() as f64).sqrt() as usize;
        LeavesFirst {
            factor: Factor::dense(g, &reverse_matrix(m, n), n),
            n,
        }
    }

    /// `x` with `M x = b`.
    fn solve(&self, g: &mut Graph, b: &[NodeId]) -> Vec<NodeId> {
        let reversed: Vec<NodeId> = b.iter().rev().copied().collect();
        let mut x = self.factor.solve(g, &reversed);
        x.reverse();
        x
    }

    /// `-M⁻¹ b` for `b` `n×n` row-major, column by column.
    fn neg_solve_columns(&self, g: &mut Graph, b: &[NodeId]) -> Vec<NodeId> {
        let n = self.n;
        let mut out = vec![NodeId(0); n * n];
        for c in 0..n {
            let col: Vec<NodeId> = (0..n).map(|i| g.neg(b[i * n + c])).collect();
            for (i, x) in self.solve(g, &col).into_iter().enumerate() {
                out[i * n + c] = x;
            }
        }
        out
    }

    fn inverse(&self, g: &mut Graph) -> Vec<NodeId> {
        reverse_matrix(&self.factor.inverse(g), self.n)
    }
}

/// `M⁻¹` of the contracted mass matrix `m` (`n×n` row-major, independent coordinates),
/// factorised leaves first.
pub fn coupled_mass_matrix_inverse(g: &mut Graph, m: &[NodeId]) -> Vec<NodeId> {
    LeavesFirst::factor(g, m).inverse(g)
}

/// Forward dynamics in the independent coordinates: `M a = τ - h` on the contracted mass
/// matrix `m` and nonlinear effects `h`, with `τ` the inputs (a floating base's wrench, then
/// the independent joints' forces), factorised leaves first.
pub fn coupled_forward_dynamics(
    g: &mut Graph,
    robot: &Robot,
    m: &[NodeId],
    h: &[NodeId],
) -> Vec<NodeId> {
    let rhs = coupled_force_balance(g, robot, h);
    LeavesFirst::factor(g, m).solve(g, &rhs)
}

/// `τ - h` in the independent coordinates, `τ` the inputs (a floating base's wrench, then the
/// independent joints' forces) and `h` contracted; built last coordinate first, the order a
/// factorisation leaves first reads them in.
pub(crate) fn coupled_force_balance(g: &mut Graph, robot: &Robot, h: &[NodeId]) -> Vec<NodeId> {
    let mut tau = Vec::with_capacity(h.len());
    if robot.is_floating() {
        for k in 0..6 {
            tau.push(g.var(Var::Base(crate::ir::BaseVar::Wrench(k))));
        }
    }
    for j in robot.coordinate_joints() {
        let j = u16::try_from(j).expect("at most 64 joints");
        tau.push(g.var(Var::Tau(j)));
    }
    let mut rhs: Vec<NodeId> = (0..h.len()).rev().map(|i| g.sub(tau[i], h[i])).collect();
    rhs.reverse();
    rhs
}

/// The forward-dynamics derivatives in the independent coordinates of `map`,
/// `[d q̈/dq, d q̈/dv, M⁻¹]` (each `n×n` row-major): `-M⁻¹ ∂τ/∂q` and `-M⁻¹ ∂τ/∂v` of the
/// contracted inverse-dynamics derivatives `dtau_dq`, `dtau_dv` at the accelerations `fd` of
/// the forward dynamics, with the contracted mass matrix `m` factorised leaves first.
pub fn coupled_forward_dynamics_derivatives(
    g: &mut Graph,
    map: &Contraction,
    m: &[NodeId],
    fd: &[NodeId],
    [dtau_dq, dtau_dv]: [&[NodeId]; 2],
) -> [Vec<NodeId>; 3] {
    // Every full coordinate's acceleration is its image's times the factor.
    let mut at_fd: HashMap<Var, NodeId> = HashMap::default();
    for i in 0..map.full() {
        let var = match i.checked_sub(map.base) {
            None => Var::Base(crate::ir::BaseVar::Acc(
                u8::try_from(i).expect("six base coordinates"),
            )),
            Some(j) => Var::Qdd(u16::try_from(j).expect("at most 64 joints")),
        };
        let (r, factor) = map.image(i);
        let k = g.constant(factor);
        let value = g.mul(k, fd[r]);
        at_fd.insert(var, value);
    }
    let dtau_dq = substitute(g, dtau_dq, &at_fd);
    let factor = LeavesFirst::factor(g, m);
    let dq = factor.neg_solve_columns(g, &dtau_dq);
    let dv = factor.neg_solve_columns(g, dtau_dv);
    [dq, dv, factor.inverse(g)]
}

/// `roots` with each following joint's position, rate and acceleration written through its
/// master's (`q = multiplier q_master + offset`), so that what cancels between the two folds
/// away (the Panda's two fingers); sines and cosines of a follower's angle stay leaves, which
/// the emitters read through the master's input ([`crate::ir::JointInput`]).
pub fn through_masters(g: &mut Graph, robot: &Robot, roots: &[NodeId]) -> Vec<NodeId> {
    let mut subs: HashMap<Var, NodeId> = HashMap::default();
    let joint = |j: usize| u16::try_from(j).expect("at most 64 joints");
    for (j, body) in robot.bodies.iter().enumerate() {
        let Some(m) = body.mimic else {
            continue;
        };
        let (j, k) = (joint(j), joint(m.master));
        let factor = g.constant(m.multiplier);
        for (var, master) in [
            (Var::Q(j), Var::Q(k)),
            (Var::Qd(j), Var::Qd(k)),
            (Var::Qdd(j), Var::Qdd(k)),
        ] {
            let x = g.var(master);
            let mut value = g.mul(factor, x);
            if matches!(var, Var::Q(_)) {
                let offset = g.constant(m.offset);
                value = g.add(value, offset);
            }
            subs.insert(var, value);
        }
    }
    substitute(g, roots, &subs)
}

/// `m` (`n×n` row-major) with its coordinates in reverse order.
pub(crate) fn reverse_matrix(m: &[NodeId], n: usize) -> Vec<NodeId> {
    (0..n * n)
        .map(|k| m[(n - 1 - k / n) * n + (n - 1 - k % n)])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Env;

    /// Two joints, the second following the first at -2: `Gᵀ M G` of a constant matrix, and
    /// the forward dynamics of a 2×2 coupled system solved by hand.
    #[test]
    fn contracts_and_solves() {
        let map = Contraction {
            base: 0,
            joints: vec![(0, 1.0), (0, -2.0), (1, 1.0)],
            coordinates: 2,
        };
        let mut g = Graph::new();
        let full = [4.0, 1.0, 0.5, 1.0, 3.0, 0.25, 0.5, 0.25, 2.0];
        let m: Vec<NodeId> = full.iter().map(|&v| g.constant(v)).collect();
        let reduced = map.mass_matrix(&mut g, &m);
        let got = g.eval_many(&reduced, &Env::default());
        // G = [[1, 0], [-2, 0], [0, 1]].
        let gm = [[1.0, 0.0], [-2.0, 0.0], [0.0, 1.0]];
        for r in 0..2 {
            for c in 0..2 {
                let want: f64 = (0..3)
                    .flat_map(|i| (0..3).map(move |j| (i, j)))
                    .map(|(i, j)| gm[i][r] * full[i * 3 + j] * gm[j][c])
                    .sum();
                assert!((got[r * 2 + c] - want).abs() < 1e-14, "({r}, {c})");
            }
        }
        let inverse = coupled_mass_matrix_inverse(&mut g, &reduced);
        let inv = g.eval_many(&inverse, &Env::default());
        for r in 0..2 {
            for c in 0..2 {
                let p: f64 = (0..2).map(|k| got[r * 2 + k] * inv[k * 2 + c]).sum();
                let want = if r == c { 1.0 } else { 0.0 };
                assert!((p - want).abs() < 1e-14, "M M^-1 ({r}, {c}): {p}");
            }
        }
    }
}

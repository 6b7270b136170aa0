//! Split of the velocity-dependent inertial forces into centrifugal, Coriolis and gyroscopic
//! parts (seed 001, Statement 3, formulas (12)-(16), with corrections T11 and T12).
//!
//! For an open chain `H_kj` (`k ≥ j`) depends only on `q_{j+1}..q_N`: joint `j` moves the whole
//! subsystem `j` rigidly, and prismatic joints too leave the inertia of what they carry, seen
//! from their own axis, unchanged. So only `∂H_kj/∂q_i` with `i > j` are ever requested.

use super::couplings::Contraction;
use super::dynamics::Statics;
use super::mass_matrix::{composites, joint_component, to_carrier, unit_wrench, Wrench};
use super::scalar::{k3, zero3, Cx, S};
use crate::algebra::Algebra;
use crate::ir::{Graph, NodeId, Var};
use crate::model::{JointKind, Robot};

/// `(h_c, h_o, h_g)`, one entry per joint each.
pub type Split<E> = (Vec<E>, Vec<E>, Vec<E>);

/// `h_c`, `h_o`, `h_g` of seed 001 Statement 3 for the mass matrix `h` (row-major `n×n`,
/// symmetric), its derivatives `dh(k, j, i) = ∂H_kj/∂q_i` (0-based; called only with
/// `k ≥ j` and `i > j`) and joint velocities `qd`.
///
/// `h_c + h_o + h_g = C(q, q̇) q̇` and `Σ_i h_g,i q̇_i = 0`. `h^g_o,i = ½ q̇_i Σ_{j>i} H_iij q̇_j`
/// is part of both `h_o` and `h_g`, by design of the paper (the two halves of `Ḣ_ii q̇_i`).
pub fn velocity_split<A: Algebra>(
    alg: &mut A,
    n: usize,
    h: &[A::E],
    dh: &dyn Fn(usize, usize, usize) -> A::E,
    qd: &[A::E],
) -> Split<A::E> {
    assert_eq!(h.len(), n * n, "mass matrix must be n×n");
    assert_eq!(qd.len(), n, "one velocity per joint");
    let mut cx = Cx::new(alg);
    let cx = &mut cx;
    let d = |k: usize, j: usize, i: usize| S::X(dh(k, j, i));
    let v: Vec<S<A::E>> = qd.iter().map(|&e| S::X(e)).collect();
    let mut hc = Vec::with_capacity(n);
    let mut ho = Vec::with_capacity(n);
    let mut hg = Vec::with_capacity(n);
    for i in 0..n {
        // (12) h_c,i = Σ_{j>i} H_jij q̇_j²
        let mut c = S::K(0.0);
        for j in i + 1..n {
            let vv = cx.mul(v[j], v[j]);
            let t = cx.mul(d(j, i, j), vv);
            c = cx.add(c, t);
        }
        // (16) h^g_o,i = ½ q̇_i Σ_{j>i} H_iij q̇_j
        let mut s = S::K(0.0);
        for j in i + 1..n {
            let t = cx.mul(d(i, i, j), v[j]);
            s = cx.add(s, t);
        }
        let qs = cx.mul(v[i], s);
        let hgo = cx.mul(S::K(0.5), qs);
        // (13) h_o,i = h^g_o,i + Σ_{i<j<k} q̇_j (H_kij + H_jik) q̇_k   (T11: k from j+1)
        let mut o = hgo;
        for j in i + 1..n {
            let mut inner = S::K(0.0);
            for k in j + 1..n {
                let hs = cx.add(d(k, i, j), d(j, i, k));
                let t = cx.mul(hs, v[k]);
                inner = cx.add(inner, t);
            }
            let t = cx.mul(v[j], inner);
            o = cx.add(o, t);
        }
        // (15) h_g,i = h^g_o,i + Σ_{j<i} Ḣ_ij q̇_j - ∂T/∂q_i, with Ḣ_ij = Σ_{l>j} H_ijl q̇_l and
        // (14) ∂T/∂q_i = ½ Σ_{j<i} H_jji q̇_j² + Σ_{j<i} q̇_j Σ_{k>j} H_kji q̇_k.
        let mut g = hgo;
        for j in 0..i {
            // Ḣ_ij - Σ_{k>j} H_kji q̇_k = Σ_{l>j, l≠i} (H_ijl - H_lji) q̇_l: one product per
            // velocity, and the l = i terms cancel.
            let mut diff = S::K(0.0);
            for l in (j + 1..n).filter(|&l| l != i) {
                let h = cx.sub(d(i, j, l), d(l, j, i));
                let t = cx.mul(h, v[l]);
                diff = cx.add(diff, t);
            }
            // q̇_j (Ḣ_ij - Σ_{k>j} H_kji q̇_k - ½ H_jji q̇_j)
            let half = cx.mul(S::K(0.5), d(j, j, i));
            let hv = cx.mul(half, v[j]);
            let diff = cx.sub(diff, hv);
            let t = cx.mul(v[j], diff);
            g = cx.add(g, t);
        }
        hc.push(cx.e(c));
        ho.push(cx.e(o));
        hg.push(cx.e(g));
    }
    // `h` is part of the contract (callers pass M alongside its derivatives) but Statement 3
    // needs only the derivatives.
    let _ = h;
    (hc, ho, hg)
}

/// `(y, h_c)` of [`relative_momenta`], one entry per joint.
pub(crate) type MomentaAndCentrifugal<E> = (Vec<S<E>>, Vec<S<E>>);

/// The two recursions the split needs besides the velocity forces, in one backward pass over
/// the composite bodies (`O(N)` operations, where the formulas above read `O(N³)` derivatives
/// of the mass matrix):
///
/// - `y_i = Σ_{j ∈ N_i} H_ij q̇_j`, the generalised momentum of joint `i` when its carrier is
///   held still: with `F_j` the wrench a unit `q̈_j` needs (the mass-matrix column), carried
///   to `O_i` and projected on axis `i`. Its rate along the motion at `q̈ = 0`,
///   `T_i = Σ_{j≥i} Ḣ_ij q̇_j`, is the velocity force of joint `i` with the joints before it
///   held still: every term of `h_i` whose lowest velocity index is `i` or more.
/// - `h_c,i = Σ_{j ∈ N_i, j≠i} H_jij q̇_j²` (Statement 2 (7)): turning joint `j` turns
///   subsystem `j` about its axis `u_j` through `O_j`, so `∂F_j/∂q_j = u_j × F_j` (both the
///   force and the moment; zero for a slide, whose force is along `u_j`), carried and projected
///   like `F_j`.
pub(crate) fn relative_momenta<A: Algebra>(
    cx: &mut Cx<'_, A>,
    robot: &Robot,
    st: &Statics<'_, A::E>,
    qd: &[S<A::E>],
) -> MomentaAndCentrifugal<A::E> {
    let n = robot.dof();
    let topo = robot.topology();
    let comp = composites(cx, robot, st);
    let zero = [zero3(), zero3()];
    // `mom[j]`: Σ over subsystem j of F_k q̇_k; `cen[j]`: Σ over what j carries of
    // (u_k × F_k) q̇_k², both about O_j in frame j.
    let mut mom: Vec<Wrench<A::E>> = vec![zero; n];
    let mut cen: Vec<Wrench<A::E>> = vec![zero; n];
    let mut y = vec![S::K(0.0); n];
    let mut hc = vec![S::K(0.0); n];
    for j in (0..n).rev() {
        let f = unit_wrench(cx, robot, st, &comp, j);
        let mut m = [cx.scale(qd[j], &f[0]), cx.scale(qd[j], &f[1])];
        let mut c = zero;
        for &k in topo.children(j) {
            let mk = to_carrier(cx, st, k, &mom[k]);
            m = [cx.vadd(&m[0], &mk[0]), cx.vadd(&m[1], &mk[1])];
            let mut ck = cen[k];
            if robot.bodies[k].joint != JointKind::Prismatic {
                let u = k3::<A::E>(robot.bodies[k].axis);
                let fk = unit_wrench(cx, robot, st, &comp, k);
                let q2 = cx.mul(qd[k], qd[k]);
                for p in 0..2 {
                    let d = cx.cross(&u, &fk[p]);
                    let d = cx.scale(q2, &d);
                    ck[p] = cx.vadd(&ck[p], &d);
                }
            }
            let ck = to_carrier(cx, st, k, &ck);
            c = [cx.vadd(&c[0], &ck[0]), cx.vadd(&c[1], &ck[1])];
        }
        y[j] = joint_component(cx, robot, j, &m);
        hc[j] = joint_component(cx, robot, j, &c);
        mom[j] = m;
        cen[j] = c;
    }
    (y, hc)
}

/// The seed-001 split of a fixed-base robot (Statements 2 and 3), by recursions rather than
/// the `O(N³)` derivatives of the mass matrix the formulas read.
///
/// Every term of the velocity forces `h_i` is a product `q̇_a q̇_b` (`a ≤ b`), and the split
/// sorts them by the lower index: `a < i` gyroscopic, `a = b > i` centrifugal, `i < a < b`
/// Coriolis, and `a = i < b` half Coriolis, half gyroscopic (`h^g_o,i`). With
/// `T_i = Σ_{j≥i} Ḣ_ij q̇_j` (the terms with `a ≥ i`, the rate of the relative momentum `y_i`)
/// and `h^g_o,i = ½ q̇_i Ḣ_ii`:
/// `h_o = T - h_c - h^g_o` and `h_g = h - T + h^g_o`, which is (8)-(10) and (13)-(16) term by
/// term (Lagrange: `h_i = Σ_j Ḣ_ij q̇_j - ∂T/∂q_i`).
pub fn split_velocity_forces(
    graph: &mut Graph,
    robot: &Robot,
    derived: &super::Derived<NodeId>,
) -> Split<NodeId> {
    let n = robot.dof();
    let mut roots = derived.relative_momentum.clone();
    roots.extend((0..n).map(|i| derived.mass_matrix[i * n + i]));
    // Along the motion at rest accelerations: q moves at q̇, nothing else moves.
    let rates = graph.jvp(&roots, &|v| match v {
        Var::Q(j) => Some(Var::Qd(j)),
        _ => None,
    });
    let (t, hdot) = rates.split_at(n);
    let half = graph.constant(0.5);
    let mut coriolis = Vec::with_capacity(n);
    let mut gyroscopic = Vec::with_capacity(n);
    for i in 0..n {
        let qd = graph.qd(i);
        let hgo = graph.product(&[half, qd, hdot[i]]);
        let c = graph.sum_signed(&[(t[i], 1.0), (derived.centrifugal[i], -1.0), (hgo, -1.0)]);
        let g = graph.sum_signed(&[(derived.velocity_forces[i], 1.0), (t[i], -1.0), (hgo, 1.0)]);
        coriolis.push(c);
        gyroscopic.push(g);
    }
    let recursive = (derived.centrifugal.clone(), coriolis, gyroscopic);
    // `∂H_kj/∂q_i` is structurally non-zero for `k` and `i` in subsystem `j` only.
    let topo = robot.topology();
    let derivatives: usize = (0..n).map(|j| topo.subtree(j).len().pow(2)).sum();
    if derivatives > FORMULA_SPLIT_MAX_DERIVATIVES {
        return recursive;
    }
    // Small robots: the formulas over the mass-matrix derivatives can fold further where axes
    // are parallel or perpendicular (the same values, term by term); each function keeps the
    // shorter of the two.
    let formula = split_by_derivatives(graph, n, &derived.mass_matrix);
    let shorter = |a: Vec<NodeId>, b: Vec<NodeId>| {
        if graph.op_count(&b).total() <= graph.op_count(&a).total() {
            b
        } else {
            a
        }
    };
    (
        shorter(recursive.0, formula.0),
        shorter(recursive.1, formula.1),
        shorter(recursive.2, formula.2),
    )
}

/// The seed-001 split of a fixed-base robot whose joints follow others, in its independent
/// coordinates (body order): Statement 1, for a general mechanical system, on the contracted
/// mass matrix `H = Gᵀ M G`. Coupled joints need not keep the chain's property that `H_kj`
/// depends on the joints after `j` alone (a follower deeper in the chain than its master
/// makes `H_ii` depend on `q_i`), so the terms Statement 3 drops are kept:
///
/// - `h_c,i = ½ H_iii q̇_i² + Σ_{j>i} H_jij q̇_j²` (2);
/// - `h_c,i + h_o,i = ½ q̇_i Ḣ_ii + Σ_{j>i} q̇_j Ḣ_ji` ((2) + (3), summed over the inner
///   index): the rate along the motion of `y_i = Σ_{j≥i} H_ji q̇_j` at `q̈ = 0` less
///   `½ q̇_i Ḣ_ii`, so `h_o` needs the rates of `N + N` scalars and derivatives of `H` along
///   single coordinates on and below the diagonal;
/// - `h_g = Gᵀ C q̇ - h_c - h_o` ((6): the three parts sum to the velocity forces).
///
/// `mass_matrix` and `velocity_forces` are over every joint; a follower's position and rate
/// stay its own variables here, which [`super::through_masters`] writes through its master's
/// afterwards (so `Ḣ` along every joint's rate is the contracted rate).
pub fn coupled_velocity_split(
    graph: &mut Graph,
    robot: &Robot,
    mass_matrix: &[NodeId],
    velocity_forces: &[NodeId],
) -> Split<NodeId> {
    let map = Contraction::of(robot);
    let n = map.reduced();
    let h = map.mass_matrix(graph, mass_matrix);
    let forces = map.force(graph, velocity_forces);
    let qd: Vec<NodeId> = robot
        .coordinate_joints()
        .into_iter()
        .map(|j| graph.qd(j))
        .collect();
    let mut roots: Vec<NodeId> = (0..n)
        .map(|i| {
            let terms: Vec<NodeId> = (i..n).map(|j| graph.mul(h[j * n + i], qd[j])).collect();
            graph.sum(&terms)
        })
        .collect();
    roots.extend((0..n).map(|i| h[i * n + i]));
    let rates = graph.jvp(&roots, &|v| match v {
        Var::Q(j) => Some(Var::Qd(j)),
        _ => None,
    });
    let (y_rate, diagonal_rate) = rates.split_at(n);
    // `∂/∂q_r` of coordinate `r`: along every joint that moves with it, times its factor.
    let joints = robot.joint_coordinates();
    let along = |graph: &mut Graph, r: usize, entry: NodeId| {
        let terms: Vec<(NodeId, f64)> = joints
            .iter()
            .enumerate()
            .filter(|(_, &(coordinate, _))| coordinate == r)
            .map(|(a, &(_, factor))| {
                let var = Var::Q(u16::try_from(a).expect("at most 64 joints"));
                (graph.diff(entry, var), factor)
            })
            .collect();
        graph.sum_signed(&terms)
    };
    let half = graph.constant(0.5);
    let (mut hc, mut ho, mut hg) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..n {
        let d_ii = along(graph, i, h[i * n + i]);
        let mut centrifugal = vec![graph.product(&[half, d_ii, qd[i], qd[i]])];
        for j in i + 1..n {
            let d_jij = along(graph, j, h[j * n + i]);
            centrifugal.push(graph.product(&[d_jij, qd[j], qd[j]]));
        }
        let c = graph.sum(&centrifugal);
        let own = graph.product(&[half, qd[i], diagonal_rate[i]]);
        let c_and_o = graph.sub(y_rate[i], own);
        ho.push(graph.sub(c_and_o, c));
        hg.push(graph.sub(forces[i], c_and_o));
        hc.push(c);
    }
    (hc, ho, hg)
}

/// Up to this many mass-matrix derivatives `∂H_kj/∂q_i` (as many as an 8-joint chain has,
/// `Σ_j |N_j|²`; a four-finger hand of 16 joints has 120) the split is also built from the
/// formulas over them, and each function keeps the shorter form.
const FORMULA_SPLIT_MAX_DERIVATIVES: usize = 204;

/// Statements 2 and 3 as printed: `h_c`, `h_o`, `h_g` from `∂H_kj/∂q_i`, built only for
/// `k ≥ j` and `i > j` (`H_kj` depends on the joints after `j` alone).
fn split_by_derivatives(graph: &mut Graph, n: usize, mass_matrix: &[NodeId]) -> Split<NodeId> {
    let zero = graph.constant(0.0);
    let mut dh = vec![zero; n * n * n];
    for k in 0..n {
        for j in 0..=k {
            for i in (j + 1)..n {
                let q = Var::Q(u16::try_from(i).expect("at most 64 joints"));
                dh[(k * n + j) * n + i] = graph.diff(mass_matrix[k * n + j], q);
            }
        }
    }
    let qd: Vec<NodeId> = (0..n).map(|j| graph.qd(j)).collect();
    let lookup = |k: usize, j: usize, i: usize| dh[(k * n + j) * n + i];
    velocity_split(graph, n, mass_matrix, &lookup, &qd)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Env;
    use crate::spec::parse_spec;

    /// Without couplings, Statement 1 on the whole mass matrix and the recursions of
    /// Statements 2 and 3 are two formulations of the same split: a tree with tilted axes
    /// and prismatic joints, a hand, a fixed quadruped and an arm.
    #[test]
    fn statement_one_agrees_with_the_recursions_without_couplings() {
        for file in [
            "synthetic_tree.toml",
            "hand.toml",
            "quadruped_fixed.toml",
            "ur5.toml",
        ] {
            let path = format!("{}/../robots/{file}", env!("CARGO_MANIFEST_DIR"));
            let text = std::fs::read_to_string(&path).expect("shipped robot");
            let robot = parse_spec(&text, file).expect("valid spec");
            let n = robot.dof();
            let mut g = Graph::new();
            let derived = super::super::derive(&mut g, &robot);
            let (a, b) = (
                split_velocity_forces(&mut g, &robot, &derived),
                coupled_velocity_split(
                    &mut g,
                    &robot,
                    &derived.mass_matrix,
                    &derived.velocity_forces,
                ),
            );
            for state in 0..3 {
                let x = |k: usize| ((k * 7 + state * 13) % 11) as f64 / 5.0 - 1.0;
                let env = Env {
                    q: (0..n).map(x).collect(),
                    qd: (0..n).map(|k| 2.0 * x(k + 5)).collect(),
                    ..Env::default()
                };
                for (part, (x, y)) in [(&a.0, &b.0), (&a.1, &b.1), (&a.2, &b.2)]
                    .into_iter()
                    .enumerate()
                {
                    let (x, y) = (g.eval_many(x, &env), g.eval_many(y, &env));
                    let scale = x.iter().fold(1.0_f64, |m, v| m.max(v.abs()));
                    for (u, v) in x.iter().zip(&y) {
                        assert!(
                            (u - v).abs() <= 1e-12 * scale,
                            "{file} state {state} part {part}: {u} vs {v}"
                        );
                    }
                }
            }
        }
    }
}

//! The inertial-parameter regressor: `τ = Y(q, q̇, q̈) π`, taken on the expression graph.
//!
//! The robot is derived once more with every inertial parameter of every body symbolic
//! (physical parameter set); the inverse dynamics is linear in them, so column `(b, p)` of `Y`
//! is `∂τ/∂π_{b,p}` (forward or reverse mode, [`parameter_columns`]) and reads no parameter.
//! The columns are then copied into the module's graph.

use crate::derive::{derive_with, fewer_operations};
use crate::ir::{Graph, Node, NodeId, Var};
use crate::model::{ParameterSet, Robot, SymbolicInertial};

/// The ten standard parameters of a body, in order: mass, first moment about the pole
/// (`m · c`), inertia tensor about the pole in the body's axes (tensor entries,
/// `ixy = -∫ x y dm`). Parameter `p` of body `i` (1-based) is named `{p}{i}` as the symbolic
/// parameters are; a floating base's own body comes first as body `0`.
pub const STANDARD_NAMES: [&str; 10] = [
    "m", "mx", "my", "mz", "ixx", "ixy", "ixz", "iyy", "iyz", "izz",
];

/// The regressor of a robot, in the target graph.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Regressor {
    /// `Y`, `N × 10N` row-major: `Y[i*10N + 10b + p] = ∂τ_i/∂π_{b,p}` (floating base:
    /// `NV × 10(N+1)`, the base body's ten columns first).
    pub y: Vec<NodeId>,
    /// `π`, `10N` (floating base: `10(N+1)`): the robot's standard parameters (the spec
    /// values) in [`STANDARD_NAMES`] order, body by body.
    pub standard: Vec<f64>,
}

/// `robot` with every inertial parameter of every body symbolic, physical parameter set.
pub fn all_symbolic(robot: &Robot) -> Robot {
    let mut out = robot.clone();
    out.parameters = ParameterSet::Physical;
    let every = SymbolicInertial {
        mass: true,
        com: true,
        inertia: true,
    };
    for b in &mut out.bodies {
        b.symbolic = every;
    }
    if let Some(b) = &mut out.base_body {
        b.symbolic = every;
    }
    out
}

/// The numbers of the bodies whose parameters `π` holds, in order: a floating base's own body
/// (`0`) first, then the joints' bodies `1..=N`.
pub(crate) fn parameter_bodies(robot: &Robot) -> std::ops::RangeInclusive<usize> {
    let first = usize::from(!robot.is_floating());
    first..=robot.dof()
}

/// The inverse dynamics of `robot` with every inertial parameter symbolic, on a new graph:
/// the graph, `τ` and the parameter index of each standard parameter (body by body).
pub(crate) fn symbolic_inverse_dynamics(robot: &Robot) -> (Graph, Vec<NodeId>, Vec<u32>) {
    let sym = all_symbolic(robot);
    let mut g = Graph::new();
    let d = derive_with(&mut g, &sym, true);
    let mut index = Vec::new();
    for b in parameter_bodies(robot) {
        for p in STANDARD_NAMES {
            let name = format!("{p}{b}");
            let k = g
                .params()
                .iter()
                .position(|x| x.name == name)
                .expect("every standard parameter is read");
            index.push(u32::try_from(k).expect("few parameters"));
        }
    }
    (g, d.inverse_dynamics, index)
}

/// Derives the regressor of `robot` and copies it into `target`.
pub fn regressor(target: &mut Graph, robot: &Robot) -> Regressor {
    DetachedRegressor::derive(robot).copy_into(target)
}

/// The regressor on a graph of its own, so that it can be derived apart from the module's
/// graph (on another thread during generation) and copied in afterwards.
pub(crate) struct DetachedRegressor {
    graph: Graph,
    y: Vec<NodeId>,
    standard: Vec<f64>,
}

impl DetachedRegressor {
    /// Derives the regressor of `robot` on a new graph.
    pub(crate) fn derive(robot: &Robot) -> Self {
        let (mut graph, tau, index) = symbolic_inverse_dynamics(robot);
        let standard: Vec<f64> = index
            .iter()
            .map(|&k| graph.params()[k as usize].default)
            .collect();
        let width = index.len();
        let mut y = vec![NodeId(0); tau.len() * width];
        for (col, column) in parameter_columns(&mut graph, &tau, &index)
            .into_iter()
            .enumerate()
        {
            for (i, d) in column.into_iter().enumerate() {
                y[i * width + col] = d;
            }
        }
        Self { graph, y, standard }
    }

    /// The regressor with its nodes copied into `target`.
    pub(crate) fn copy_into(self, target: &mut Graph) -> Regressor {
        Regressor {
            y: copy_into(&self.graph, &self.y, target),
            standard: self.standard,
        }
    }
}

/// `∂τ/∂π` for each parameter of `params` (indices into `g`'s parameters): `result[k][i] =
/// ∂tau[i]/∂π_k`, built both by forward mode (a derivative walk per parameter) and by reverse
/// mode (an adjoint walk per joint force), the form with fewer operations kept. The
/// dynamics are linear in the parameters, so both are exact; reverse mode carries each body's
/// force adjoint along the chain once per joint instead of once per parameter, forward mode
/// shares more where a floating base's wrench reads every body. The two are compared as the
/// derivatives' forms are (after the sharing passes for the smaller ones, see
/// [`fewer_operations`]); a reverse form with a sum of more than [`REVERSE_LARGEST_SUM_MAX`]
/// terms is not taken.
pub(crate) fn parameter_columns(g: &mut Graph, tau: &[NodeId], params: &[u32]) -> Vec<Vec<NodeId>> {
    let forward: Vec<Vec<NodeId>> = params
        .iter()
        .map(|&k| g.diff_many(tau, Var::Param(k)))
        .collect();
    let reverse = g.param_jacobian(tau, params);
    let flat = |cols: &[Vec<NodeId>]| -> Vec<NodeId> { cols.iter().flatten().copied().collect() };
    let reverse_roots = flat(&reverse);
    if largest_sum(g, &reverse_roots) <= REVERSE_LARGEST_SUM_MAX
        && fewer_operations(g, &flat(&forward), &reverse_roots)
    {
        reverse
    } else {
        forward
    }
}

/// The largest sum a reverse-mode regressor may hold. A parameter that every joint's
/// coefficients read (the method folds each body's mass into the terms of the joints that
/// carry it) gets an adjoint summed over all of them, and the sharing passes, which pair the
/// terms of each sum, take far longer and more memory on such sums than on the forward form's
/// short ones. Above this the forward form is kept.
const REVERSE_LARGEST_SUM_MAX: usize = 256;

/// The most operands of any sum `roots` reach in `g`.
fn largest_sum(g: &Graph, roots: &[NodeId]) -> usize {
    let live = g.reachable(roots);
    g.nodes()
        .iter()
        .zip(live)
        .filter_map(|(node, l)| match node {
            Node::Add(terms) if l => Some(terms.len()),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// Copies `roots` of `g` (which must read no parameter) into `target`.
pub(crate) fn copy_into(g: &Graph, roots: &[NodeId], target: &mut Graph) -> Vec<NodeId> {
    let live = g.reachable(roots);
    assert!(
        g.nodes()
            .iter()
            .zip(&live)
            .all(|(node, l)| !l || !matches!(node, Node::Var(Var::Param(_)))),
        "the dynamics are linear in the inertial parameters"
    );
    g.copy_live_into(target, roots, &live, |out, map, _, node| {
        out.intern(map.children(node))
    })
}

//! The generated equations written out readably, in the style of the papers: first the named
//! intermediate quantities in dependency order (direction cosines, quasi-velocities ω,
//! quasi-accelerations, Ω̇ terms, Euler terms E, moments M, ...), each as `name = expression` in
//! terms of earlier names and leaves, then the outputs (`tau1 = ...`).
//!
//! Which nodes get a line of their own:
//! - every node the derivation labelled (see [`crate::algebra::Algebra::label`]) that one of the
//!   printed outputs depends on, except leaves and constants (a label on `q̇_1` stays `qd1`);
//! - every other node used more than once, under an auxiliary name `t1`, `t2`, ... (a negation
//!   or a constant multiple of an already printed name is cheap to repeat and stays inline).
//!
//! Leaves: `q1`, `qd1`, `qdd1`, `tau1`, `s1 = sin(q1)`, `c23 = cos(q2 + q3)` (joints from 10 on
//! are separated: `s1_10`), and the parameter names (`m1`, `mx1`, `ixx1`, ...). Multi-joint
//! sines and cosines stay leaves, as in the papers. The output is deterministic: lines follow
//! the node order of the graph, which is a dependency order.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use crate::ir::{FunctionKind, Module, Node, NodeId, Var};
use crate::model::{JointKind, Robot};

mod print;

use print::{latex_escape, leaf_text, Prec, Printer};

/// How the equations are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Format {
    /// Plain ASCII: `*`, `+`, `-`, `/`, `sqrt()`, `#` comments. `^` and `_` only occur inside
    /// names (`x^y_5`), never as operators.
    Text,
    /// A LaTeX `align*` block (`\dot q_{1}`, `s_{23}`, `\omega_{5}^{x}`, ...).
    Latex,
}

/// Derives `robot` and writes out the equations of `function`.
///
/// # Panics
/// If `function` is not generated for `robot` (see [`try_equations`]).
pub fn equations(robot: &Robot, function: FunctionKind, format: Format) -> String {
    try_equations(robot, function, format).expect("the function is generated for the robot")
}

/// [`equations`], or `None` when `function` is not generated for `robot` (an elastic function
/// of a rigid robot, the derivatives of a floating base, ...).
pub fn try_equations(robot: &Robot, function: FunctionKind, format: Format) -> Option<String> {
    // Derived alone: a robot's other functions (its derivatives, its regressors) would take
    // longer to derive than the one written out. The elastic velocity's blocks read the
    // Jacobian and the compliance Jacobians.
    let only: &[FunctionKind] = if function == FunctionKind::ElasticVelocity {
        &[
            FunctionKind::ElasticVelocity,
            FunctionKind::Jacobian,
            FunctionKind::ComplianceJacobians,
        ]
    } else {
        &[function]
    };
    let mut module = crate::generate::build_module_physical_only(robot, only);
    module.function(function)?;
    if robot.is_prescribed() && function == FunctionKind::InverseDynamics {
        add_base_terms(&mut module, robot);
    }
    if function == FunctionKind::ElasticVelocity {
        add_seed_002_blocks(&mut module);
    }
    Some(render(&module, robot, function, format))
}

/// Seed 002's blocks of the elastic velocity (2.1), `v = F qd + F1 qd + F2 betad + F3 qd +
/// F4 wd` for the tool point, as outputs after `v`: `F` (3×N, the rigid Jacobian's linear rows),
/// `F1 = d(F2 beta)/dq` (3×N), `F2` (3×NBETA), `F3 = d(F4 w)/dq` (3×N), `F4` (3×NW), taken from
/// the module's Jacobian and compliance Jacobians (the derivatives on the graph), named `F_`,
/// `F1_`, .., `F4_`. Printed as `F_{row}_{col}`, `F1_{row}_{col}`, ....
pub fn add_seed_002_blocks(module: &mut Module) {
    use crate::ir::{ElasticVar, Output};
    let n = module.dof;
    let (nb, nw) = (module.nbeta(), module.nw());
    let get = |kind: FunctionKind, k: usize| -> Vec<NodeId> {
        module
            .function(kind)
            .map(|f| f.outputs[k].values.clone())
            .unwrap_or_default()
    };
    let jac = get(FunctionKind::Jacobian, 0);
    let f2 = get(FunctionKind::ComplianceJacobians, 0);
    let f4 = get(FunctionKind::ComplianceJacobians, 1);
    let g = &mut module.graph;
    let linear = |m: &[NodeId], cols: usize| -> Vec<NodeId> { m[..3 * cols].to_vec() };
    let (f, f2, f4) = (linear(&jac, n), linear(&f2, nb), linear(&f4, nw));
    // F2 beta and F4 w, then their derivatives along each joint.
    let times =
        |g: &mut crate::ir::Graph, m: &[NodeId], cols: usize, var: fn(u16) -> ElasticVar| {
            (0..3)
                .map(|r| {
                    let terms: Vec<NodeId> = (0..cols)
                        .map(|j| {
                            let x = g.var(Var::Elastic(var(u16::try_from(j).expect("fits"))));
                            g.mul(m[r * cols + j], x)
                        })
                        .collect();
                    g.sum(&terms)
                })
                .collect::<Vec<NodeId>>()
        };
    let f1_star = times(g, &f2, nb, ElasticVar::Beta);
    let f2_star = times(g, &f4, nw, ElasticVar::W);
    let jacobian = |g: &mut crate::ir::Graph, rows: &[NodeId]| -> Vec<NodeId> {
        let mut out = vec![NodeId(0); 3 * n];
        for j in 0..n {
            let col = g.diff_many(rows, Var::Q(u16::try_from(j).expect("at most 64 joints")));
            for r in 0..3 {
                out[r * n + j] = col[r];
            }
        }
        out
    };
    let f1 = jacobian(g, &f1_star);
    let f3 = jacobian(g, &f2_star);
    let Some(velocity) = module
        .functions
        .iter_mut()
        .find(|f| f.kind == FunctionKind::ElasticVelocity)
    else {
        return;
    };
    for (name, values, cols) in [
        ("F_", f, n),
        ("F1_", f1, n),
        ("F2_", f2, nb),
        ("F3_", f3, n),
        ("F4_", f4, nw),
    ] {
        if cols > 0 {
            velocity.outputs.push(Output {
                name,
                rows: 3,
                cols,
                values,
            });
        }
    }
}

/// A prescribed base's terms of the inverse dynamics as outputs of their own, in seed 004's
/// terms generalised to a turning base: `Gb` = the gyroscopic forces of the base's rotation,
/// bilinear in `ω_b` and `q̇` (seed 004's `Σ_c (∂α_c/∂φ_b - ∂α_b/∂φ_c) φ̇_c`; none for a base
/// that only translates), and `Ab` = the forces of the base's own motion, free of `q̇` and `q̈`
/// (seed 004's `-∂α_b/∂t`: the base's acceleration, and with rotation `ω̇_b` and the terms
/// quadratic in its velocity). Both are exact parts of `tau`, taken from it by derivatives
/// (the inverse dynamics is linear in the accelerations and quadratic in the velocities, so
/// each part is a sum of derivatives at the current state times the inputs).
fn add_base_terms(module: &mut Module, robot: &Robot) {
    use crate::ir::{BaseVar, Output};
    let Some(index) = module
        .functions
        .iter()
        .position(|f| f.kind == FunctionKind::InverseDynamics)
    else {
        return;
    };
    let tau = module.functions[index].outputs[0].values.clone();
    let n = tau.len();
    let g = &mut module.graph;
    let translating = robot.motion == crate::model::BaseMotion::Translating;
    let vel: Vec<Var> = (0..6).map(|k| Var::Base(BaseVar::Vel(k))).collect();
    let acc: Vec<Var> = (0..6).map(|k| Var::Base(BaseVar::Acc(k))).collect();
    let mut gb = vec![g.constant(0.0); n];
    let mut ab = vec![g.constant(0.0); n];
    let half = g.constant(0.5);
    for (k, &a) in acc.iter().enumerate() {
        if translating && k >= 3 {
            continue;
        }
        let d = g.diff_many(&tau, a);
        let x = g.var(a);
        for j in 0..n {
            let t = g.mul(d[j], x);
            ab[j] = g.add(ab[j], t);
        }
    }
    if !translating {
        for (k, &w) in vel.iter().enumerate() {
            let d = g.diff_many(&tau, w);
            let wk = g.var(w);
            // Quadratic in the base's velocity: ½ Σ_kl x_k x_l ∂²τ/∂x_k∂x_l.
            for &v in &vel {
                let dd = g.diff_many(&d, v);
                let xv = g.var(v);
                for j in 0..n {
                    let t = g.product(&[half, dd[j], wk, xv]);
                    ab[j] = g.add(ab[j], t);
                }
            }
            // Bilinear in ω_b and q̇ (the angular velocity only: v_b enters with ω_b alone).
            if k >= 3 {
                for c in 0..robot.dof() {
                    let qd = Var::Qd(u16::try_from(c).expect("at most 64 joints"));
                    let dd = g.diff_many(&d, qd);
                    let xq = g.var(qd);
                    for j in 0..n {
                        let t = g.product(&[dd[j], wk, xq]);
                        gb[j] = g.add(gb[j], t);
                    }
                }
            }
        }
    }
    let output = |name, values: Vec<NodeId>| Output {
        name,
        rows: values.len(),
        cols: 1,
        values,
    };
    let f = &mut module.functions[index];
    if !translating {
        f.outputs.push(output("Gb", gb));
    }
    f.outputs.push(output("Ab", ab));
}

/// Writes out the equations of `function` of an already built `module` of `robot`.
///
/// # Panics
/// If the module has no such function.
pub fn render(module: &Module, robot: &Robot, function: FunctionKind, format: Format) -> String {
    let f = module
        .function(function)
        .expect("build_module generates every function");
    let graph = &module.graph;

    // Outputs: (name, node, comment).
    let per_joint = matches!(
        function,
        FunctionKind::InverseDynamics
            | FunctionKind::Gravity
            | FunctionKind::NonlinearEffects
            | FunctionKind::ForwardDynamics
            | FunctionKind::Centrifugal
            | FunctionKind::Coriolis
            | FunctionKind::Gyroscopic
    );
    let mut outputs: Vec<(OutName, NodeId, Option<String>)> = Vec::new();
    for o in &f.outputs {
        for (k, &id) in o.values.iter().enumerate() {
            let (r, c) = (k / o.cols + 1, k % o.cols + 1);
            let name = OutName {
                base: o.name,
                row: r,
                col: (o.cols > 1).then_some(c),
            };
            let comment = (per_joint && o.cols == 1)
                .then(|| coordinate(robot, o.values.len(), k))
                .flatten();
            outputs.push((name, id, comment));
        }
    }
    let roots: Vec<NodeId> = outputs.iter().map(|o| o.1).collect();
    let live = graph.reachable(&roots);

    // Names already spoken for: leaves, parameters and outputs.
    let mut taken: HashSet<String> = HashSet::new();
    for (i, node) in graph.nodes().iter().enumerate() {
        if let (true, Node::Var(v)) = (live[i], node) {
            taken.insert(leaf_text(graph.params(), *v));
        }
    }
    for (name, _, _) in &outputs {
        taken.insert(name.text());
    }

    // Labelled quantities first (a label on a leaf or constant is not a definition).
    let mut names: Vec<Option<String>> = vec![None; graph.len()];
    for (i, node) in graph.nodes().iter().enumerate() {
        if !live[i] || matches!(node, Node::Const(_) | Node::Var(_)) {
            continue;
        }
        if let Some(l) = graph.name(NodeId(i as u32)) {
            if !l.is_empty() && taken.insert(l.to_owned()) {
                names[i] = Some(l.to_owned());
            }
        }
    }

    // Labelled sums the graph flattened away (E_i inside M_i, ...) come back when a live sum
    // contains all their terms: they get their line and the containing sum reads them.
    let mut live = live;
    for (i, node) in graph.nodes().iter().enumerate() {
        if live[i] || !matches!(node, Node::Add(_)) {
            continue;
        }
        if let Some(l) = graph.name(NodeId(i as u32)) {
            if !l.is_empty() && !taken.contains(l) {
                names[i] = Some(l.to_owned());
            }
        }
    }
    let operands = sum_operands(graph, &live, &names);
    let mut revived = vec![false; graph.len()];
    for ops in operands.values() {
        for c in ops {
            if !live[c.index()] {
                revived[c.index()] = true;
            }
        }
    }
    for i in 0..graph.len() {
        if revived[i] {
            live[i] = true;
            taken.insert(names[i].clone().expect("named"));
        } else if !live[i] {
            names[i] = None;
        }
    }

    // How often each node is read (an output counts as a reader).
    let mut uses = vec![0u32; graph.len()];
    for (i, node) in graph.nodes().iter().enumerate() {
        if !live[i] {
            continue;
        }
        match operands.get(&NodeId(i as u32)) {
            Some(ops) => ops.iter().for_each(|c| uses[c.index()] += 1),
            None => node.children().for_each(|c| uses[c.index()] += 1),
        }
    }
    for r in &roots {
        uses[r.index()] += 1;
    }

    // Unnamed nodes read more than once get auxiliary names.
    let mut aux = 0usize;
    for (i, node) in graph.nodes().iter().enumerate() {
        if !live[i]
            || names[i].is_some()
            || uses[i] < 2
            || matches!(node, Node::Const(_) | Node::Var(_))
            || cheap(graph, node, &names)
        {
            continue;
        }
        let name = loop {
            aux += 1;
            let t = format!("t{aux}");
            if !taken.contains(&t) {
                break t;
            }
        };
        taken.insert(name.clone());
        names[i] = Some(name);
    }

    let p = Printer {
        module,
        names: &names,
        operands: &operands,
        format,
    };
    let mut out = String::new();
    p.header(&mut out, robot, function, &live);
    let mut lines: Vec<(String, String, Option<String>)> = Vec::new();
    for (i, name) in names.iter().enumerate() {
        if let Some(name) = name {
            let id = NodeId(i as u32);
            lines.push((p.name(name), p.expr(id, true).0, None));
        }
    }
    for (name, id, comment) in &outputs {
        let lhs = match format {
            Format::Text => name.text(),
            Format::Latex => name.latex(),
        };
        lines.push((lhs, p.operand(*id, Prec::Sum), comment.clone()));
    }
    match format {
        Format::Text => {
            for (lhs, rhs, comment) in lines {
                match comment {
                    Some(c) => writeln!(out, "{lhs} = {rhs}  # {c}"),
                    None => writeln!(out, "{lhs} = {rhs}"),
                }
                .expect("writing to a String");
            }
        }
        Format::Latex => {
            out.push_str("\\begin{align*}\n");
            let n = lines.len();
            for (k, (lhs, rhs, comment)) in lines.into_iter().enumerate() {
                let end = if k + 1 < n { " \\\\" } else { "" };
                let note = comment
                    .map(|c| format!(" && \\text{{{}}}", latex_escape(&c)))
                    .unwrap_or_default();
                writeln!(out, "  {lhs} &= {rhs}{note}{end}").expect("writing to a String");
            }
            out.push_str("\\end{align*}\n");
        }
    }
    out
}

/// What entry `k` of a joint-space vector of `len` entries stands for: with a floating base
/// the first six are the base's (Pinocchio's free-flyer layout: linear then angular, base
/// frame), then one per joint. `None` for a vector of another length, so that an output with
/// other rows goes without comments rather than with wrong ones.
fn coordinate(robot: &Robot, len: usize, k: usize) -> Option<String> {
    let base = if robot.is_floating() { 6 } else { 0 };
    if len != base + robot.dof() {
        return None;
    }
    if k < base {
        let part = if k < 3 { "linear" } else { "angular" };
        return Some(format!("base {part} {}", ["x", "y", "z"][k % 3]));
    }
    let b = &robot.bodies[k - base];
    let kind = match b.joint {
        JointKind::Revolute => "revolute",
        JointKind::Prismatic => "prismatic",
    };
    Some(format!("joint {} ({kind})", b.joint_name))
}

/// Operands of the live sums that contain the terms of an earlier named sum: that name, then
/// the remaining terms. The graph flattens `M_2 = M_3 + ...` into one sum of all terms; this
/// restores the papers' recursive form. Larger named sums are tried first.
fn sum_operands(
    graph: &crate::ir::Graph,
    live: &[bool],
    names: &[Option<String>],
) -> HashMap<NodeId, Vec<NodeId>> {
    let terms_of = |id: NodeId| match graph.node(id) {
        Node::Add(t) => Some(t),
        _ => None,
    };
    let mut named: Vec<(usize, NodeId)> = (0..graph.len())
        .filter(|&i| names[i].is_some())
        .map(|i| NodeId(i as u32))
        .filter_map(|id| terms_of(id).map(|t| (t.len(), id)))
        .collect();
    named.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut out = HashMap::new();
    for (i, &is_live) in live.iter().enumerate() {
        let id = NodeId(i as u32);
        // Named sums that are not live are read only by live sums, not re-read themselves.
        let Some(terms) = terms_of(id).filter(|_| is_live) else {
            continue;
        };
        let mut rest: HashSet<NodeId> = terms.iter().copied().collect();
        let mut parts = Vec::new();
        for &(len, s) in &named {
            if s >= id || len > rest.len() {
                continue;
            }
            let inner = terms_of(s).expect("a sum");
            if inner.iter().all(|t| rest.contains(t)) {
                inner.iter().for_each(|t| {
                    rest.remove(t);
                });
                parts.push(s);
            }
        }
        if !parts.is_empty() {
            parts.sort_unstable();
            parts.extend(terms.iter().filter(|t| rest.contains(t)));
            out.insert(id, parts);
        }
    }
    out
}

/// A negation or constant multiple of a leaf, constant or already named node: repeating it
/// inline costs less to read than another name.
fn cheap(graph: &crate::ir::Graph, node: &Node, names: &[Option<String>]) -> bool {
    let atomic = |c: NodeId| {
        names[c.index()].is_some() || matches!(graph.node(c), Node::Const(_) | Node::Var(_))
    };
    match node {
        Node::Neg(x) => atomic(*x),
        Node::Mul(v) => v.len() == 2 && graph.as_const(v[0]).is_some() && atomic(v[1]),
        _ => false,
    }
}

/// The name of one output entry: `tau1`, `M2_1`, ...
struct OutName {
    base: &'static str,
    row: usize,
    col: Option<usize>,
}

impl OutName {
    fn text(&self) -> String {
        // `c1`, `s1` are the sine and cosine of `q1`: such outputs get an underscore.
        let sep = if matches!(self.base, "c" | "s") {
            "_"
        } else {
            ""
        };
        match self.col {
            Some(c) => format!("{}{sep}{}_{c}", self.base, self.row),
            None => format!("{}{sep}{}", self.base, self.row),
        }
    }

    fn latex(&self) -> String {
        let sym = match self.base {
            "tau" => "\\tau",
            "qdd" => "\\ddot q",
            "hc" => "h^{c}",
            "ho" => "h^{o}",
            "hg" => "h^{g}",
            "F_" => "F",
            "F1_" => "F^{(1)}",
            "F2_" => "F^{(2)}",
            "F3_" => "F^{(3)}",
            "F4_" => "F^{(4)}",
            other => other,
        };
        match self.col {
            Some(c) => format!("{sym}_{{{},{c}}}", self.row),
            None => format!("{sym}_{{{}}}", self.row),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build_module_physical;

    /// A floating base's joint-space outputs have six rows for the base before the joints':
    /// each row's comment names its coordinate (the comments once indexed the bodies by row).
    #[test]
    fn floating_base_rows_name_the_base_then_the_joints() {
        let spec = "name = \"float\"\n[base]\nmotion = \"floating\"\nmass = 3.0\n\
                    [[body]]\njoint = \"revolute\"\naxis = \"x\"\nnext = [0.0, 0.0, -0.3]\n\
                    mass = 1.0\ncom = [0.0, 0.0, -0.1]\n[[body]]\njoint = \"prismatic\"\n\
                    axis = \"z\"\nmass = 0.5\ncom = [0.0, 0.0, -0.05]\n";
        let robot = crate::parse_spec(spec, "float.toml").expect("valid spec");
        let want = [
            "base linear x",
            "base linear y",
            "base linear z",
            "base angular x",
            "base angular y",
            "base angular z",
            "joint q1 (revolute)",
            "joint q2 (prismatic)",
        ];
        for (function, out) in [
            (FunctionKind::InverseDynamics, "tau"),
            (FunctionKind::Gravity, "tau"),
            (FunctionKind::NonlinearEffects, "h"),
            (FunctionKind::ForwardDynamics, "qdd"),
        ] {
            let text = equations(&robot, function, Format::Text);
            for (k, comment) in want.iter().enumerate() {
                let line = text
                    .lines()
                    .find(|l| l.starts_with(&format!("{out}{} = ", k + 1)))
                    .unwrap_or_else(|| panic!("{out}{}: {text}", k + 1));
                assert!(line.ends_with(&format!("  # {comment}")), "{line}");
            }
            assert!(!text.contains(&format!("\n{out}9 = ")), "{text}");
        }
    }

    /// The prescribed base's parts: `tau = tau(base still) + Gb + Ab` at random states, `Gb`
    /// linear in `qd` and zero at `ω_b = 0`, `Ab` free of `qd` and `qdd`; a translating base
    /// has no `Gb`. The rest state's values are the single pass's own (`base_vel = base_acc =
    /// 0`), so the identity checks that the two parts hold everything the base adds.
    #[test]
    fn prescribed_base_terms_sum_to_the_inverse_dynamics() {
        use crate::ir::Env;
        let text = |motion: &str| {
            format!(
                "name = \"deck\"\ngravity = [0.0, 0.0, -9.81]\n[base]\nmotion = \"prescribed\"\n\
                 {motion}\n[[body]]\nname = \"a\"\njoint = \"revolute\"\naxis = \"z\"\n\
                 next = [0.1, 0.0, 0.4]\nmass = 2.0\ncom = [0.05, 0.02, 0.2]\n[[body]]\nname = \
                 \"b\"\njoint = \"revolute\"\naxis = \"y\"\nnext = [0.5, 0.0, 0.0]\nmass = 1.0\n\
                 com = [0.25, 0.01, 0.0]\n[[body]]\nname = \"c\"\njoint = \"prismatic\"\naxis = \
                 \"x\"\nmass = 0.5\ncom = [0.0, 0.0, 0.05]\n"
            )
        };
        for (motion, turning) in [("", true), ("translation_only = true", false)] {
            let robot = crate::parse_spec(&text(motion), "deck.toml").expect("valid spec");
            let mut module = build_module_physical(&robot);
            add_base_terms(&mut module, &robot);
            let f = module
                .function(FunctionKind::InverseDynamics)
                .expect("inverse dynamics");
            let names: Vec<&str> = f.outputs.iter().map(|o| o.name).collect();
            let want: &[&str] = if turning {
                &["tau", "Gb", "Ab"]
            } else {
                &["tau", "Ab"]
            };
            assert_eq!(names, want);
            let mut seed = 11_u64;
            let mut next = move || {
                seed = seed
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
            };
            for _ in 0..20 {
                let mut base: Vec<f64> = (0..19).map(|_| next()).collect();
                if !turning {
                    for k in [10, 11, 12, 16, 17, 18] {
                        base[k] = 0.0;
                    }
                }
                let env = |base: &[f64], qd: &[f64], qdd: &[f64], q: &[f64]| Env {
                    q: q.to_vec(),
                    qd: qd.to_vec(),
                    qdd: qdd.to_vec(),
                    tau: Vec::new(),
                    params: Vec::new(),
                    base: base.to_vec(),
                    elastic: Default::default(),
                };
                let q: Vec<f64> = (0..3).map(|_| 3.0 * next()).collect();
                let qd: Vec<f64> = (0..3).map(|_| 2.0 * next()).collect();
                let qdd: Vec<f64> = (0..3).map(|_| 5.0 * next()).collect();
                let at = |e: &Env, k: usize| module.graph.eval_many(&f.outputs[k].values, e);
                let full = env(&base, &qd, &qdd, &q);
                let mut still = base.clone();
                still[7..19].iter_mut().for_each(|x| *x = 0.0);
                let rest = at(&env(&still, &qd, &qdd, &q), 0);
                let tau = at(&full, 0);
                let ab = at(&full, names.len() - 1);
                let gb = if turning { at(&full, 1) } else { vec![0.0; 3] };
                for j in 0..3 {
                    let sum = rest[j] + gb[j] + ab[j];
                    assert!(
                        (tau[j] - sum).abs() < 1e-9 * (1.0 + tau[j].abs()),
                        "{motion}: {j}"
                    );
                }
                // Ab reads neither qd nor qdd; Gb is linear in qd.
                let ab0 = at(&env(&base, &[0.0; 3], &[0.0; 3], &q), names.len() - 1);
                let doubled: Vec<f64> = qd.iter().map(|x| 2.0 * x).collect();
                for j in 0..3 {
                    assert!((ab0[j] - ab[j]).abs() < 1e-12 * (1.0 + ab[j].abs()));
                }
                if turning {
                    let gb2 = at(&env(&base, &doubled, &qdd, &q), 1);
                    for j in 0..3 {
                        assert!((gb2[j] - 2.0 * gb[j]).abs() < 1e-12 * (1.0 + gb[j].abs()));
                    }
                }
            }
            let printed = equations(&robot, FunctionKind::InverseDynamics, Format::Text);
            assert!(
                printed.contains("\nAb1 = ") && printed.contains("\nAb3 = "),
                "{printed}"
            );
            assert_eq!(printed.contains("\nGb1 = "), turning, "{printed}");
        }
    }
}

//! The printer of [`super::render`]: expressions in plain text or LaTeX, with the leaves'
//! names (`q1`, `s23`, `m2`, ...) and LaTeX's forms of the derivation's labels.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::Format;
use crate::ir::{FunctionKind, Module, Node, NodeId, Var};
use crate::model::Robot;

/// Binding strength of a printed expression, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Prec {
    Sum,
    Neg,
    Product,
    Atom,
}

pub(super) struct Printer<'a> {
    pub(super) module: &'a Module,
    pub(super) names: &'a [Option<String>],
    pub(super) operands: &'a HashMap<NodeId, Vec<NodeId>>,
    pub(super) format: Format,
}

impl Printer<'_> {
    pub(super) fn header(
        &self,
        out: &mut String,
        robot: &Robot,
        function: FunctionKind,
        live: &[bool],
    ) {
        let c = match self.format {
            Format::Text => "#",
            Format::Latex => "%",
        };
        let graph = &self.module.graph;
        let _ = writeln!(
            out,
            "{c} {} of {} ({} joints), written out by quasidyn",
            function.name().replace('_', " "),
            robot.name,
            robot.dof()
        );
        // A joint that follows another reads its master's input (docs/spec.md).
        for (k, body) in robot.bodies.iter().enumerate() {
            if let Some(m) = body.mimic {
                let _ = writeln!(
                    out,
                    "{c} q{} = {} q{} + {} (joint {} follows {}; its rates likewise)",
                    k + 1,
                    m.multiplier,
                    m.master + 1,
                    m.offset,
                    body.joint_name,
                    robot.bodies[m.master].joint_name
                );
            }
        }
        let mut trig = Vec::new();
        let mut params = Vec::new();
        for (i, node) in graph.nodes().iter().enumerate() {
            match (live[i], node) {
                (true, Node::Var(v @ (Var::Sin(m) | Var::Cos(m)))) => {
                    let f = if matches!(v, Var::Sin(_)) {
                        "sin"
                    } else {
                        "cos"
                    };
                    let angle: Vec<String> = joints(*m).map(|j| format!("q{j}")).collect();
                    trig.push((
                        *m,
                        matches!(v, Var::Cos(_)),
                        format!(
                            "{} = {f}({})",
                            leaf_text(graph.params(), *v),
                            angle.join(" + ")
                        ),
                    ));
                }
                (true, Node::Var(Var::Param(k))) => {
                    params.push(graph.params()[*k as usize].name.clone());
                }
                _ => {}
            }
        }
        trig.sort();
        if !trig.is_empty() {
            let list: Vec<String> = trig.into_iter().map(|t| t.2).collect();
            let _ = writeln!(out, "{c} {}", list.join(", "));
        }
        if robot.is_prescribed() && function == FunctionKind::InverseDynamics {
            let _ = writeln!(
                out,
                "{c} prescribed base: base_q = base_pose, base_v = base_vel, base_a = base_acc; \
                 parts of tau: Gb = gyroscopic forces of the base's rotation (linear in qd), \
                 Ab = forces of the base's own motion (seed 004's -d alpha_b/dt)"
            );
        }
        if robot.is_mujoco_floating() {
            let _ = writeln!(
                out,
                "{c} floating base (MuJoCo's free joint): base_q0 .. base_q6 = base position, \
                 quaternion w x y z; base_v0 .. base_v5 = base velocity (linear in world axes, \
                 angular in base axes), base_a0 .. base_a5 = its derivative; vectors over the \
                 coordinates hold the base's six entries before the joints'"
            );
        } else if robot.is_floating() {
            let _ = writeln!(
                out,
                "{c} floating base (Pinocchio's free-flyer): base_q0 .. base_q6 = base \
                 position, quaternion x y z w; base_v0 .. base_v5 = base velocity, base_a0 .. \
                 base_a5 = its derivative (linear then angular, base frame); vectors over the \
                 coordinates hold the base's six entries before the joints'"
            );
        }
        if !params.is_empty() {
            let _ = writeln!(
                out,
                "{c} parameters (body i): m = mass, mx my mz = first moment about the pole, \
                 ixx .. izz = inertia tensor about the pole: {}",
                params.join(", ")
            );
        }
    }

    /// A defined name as printed.
    pub(super) fn name(&self, name: &str) -> String {
        match self.format {
            Format::Text => name.to_owned(),
            Format::Latex => latex_label(name),
        }
    }

    /// `id` as an operand that must bind at least as strongly as `min`.
    pub(super) fn operand(&self, id: NodeId, min: Prec) -> String {
        let (s, p) = self.expr(id, false);
        if p < min {
            format!("({s})")
        } else {
            s
        }
    }

    /// The expression of `id`: its own structure when `define` (or when it has no name), else
    /// its name.
    pub(super) fn expr(&self, id: NodeId, define: bool) -> (String, Prec) {
        let graph = &self.module.graph;
        if !define {
            if let Some(n) = &self.names[id.index()] {
                return (self.name(n), Prec::Atom);
            }
        }
        let latex = self.format == Format::Latex;
        match graph.node(id) {
            Node::Const(_) => {
                let v = graph.as_const(id).expect("constant");
                if v < 0.0 {
                    (format!("-{}", -v), Prec::Neg)
                } else {
                    (format!("{v}"), Prec::Atom)
                }
            }
            Node::Var(v) => {
                let s = if latex {
                    leaf_latex(graph.params(), *v)
                } else {
                    leaf_text(graph.params(), *v)
                };
                (s, Prec::Atom)
            }
            Node::Add(terms) => {
                let terms = self.operands.get(&id).map_or(&terms[..], Vec::as_slice);
                let mut s = String::new();
                for (k, &t) in terms.iter().enumerate() {
                    let term = self.operand(t, Prec::Neg);
                    match (k, term.strip_prefix('-')) {
                        (0, _) => s.push_str(&term),
                        (_, Some(rest)) => {
                            s.push_str(" - ");
                            s.push_str(rest);
                        }
                        (_, None) => {
                            s.push_str(" + ");
                            s.push_str(&term);
                        }
                    }
                }
                (s, Prec::Sum)
            }
            Node::Mul(factors) => {
                let mut parts = Vec::with_capacity(factors.len());
                let mut negative = false;
                for (k, &f) in factors.iter().enumerate() {
                    if k == 0 {
                        if let Some(c) = graph.as_const(f) {
                            negative = c < 0.0;
                            if c.abs() != 1.0 {
                                parts.push(format!("{}", c.abs()));
                            }
                            continue;
                        }
                    }
                    parts.push(self.operand(f, Prec::Product));
                }
                let body = parts.join(if latex { " " } else { "*" });
                if negative {
                    (format!("-{body}"), Prec::Neg)
                } else {
                    (body, Prec::Product)
                }
            }
            Node::Neg(x) => (format!("-{}", self.operand(*x, Prec::Product)), Prec::Neg),
            Node::Div(a, b) => {
                if latex {
                    let (na, _) = self.expr(*a, false);
                    let (nb, _) = self.expr(*b, false);
                    (format!("\\frac{{{na}}}{{{nb}}}"), Prec::Atom)
                } else {
                    let na = self.operand(*a, Prec::Product);
                    let nb = self.operand(*b, Prec::Atom);
                    (format!("{na}/{nb}"), Prec::Product)
                }
            }
            Node::Sqrt(x) => {
                let (nx, _) = self.expr(*x, false);
                if latex {
                    (format!("\\sqrt{{{nx}}}"), Prec::Atom)
                } else {
                    (format!("sqrt({nx})"), Prec::Atom)
                }
            }
        }
    }
}

/// 1-based joints of an angle mask.
fn joints(mask: u64) -> impl Iterator<Item = usize> {
    (0..64)
        .filter(move |j| mask & (1u64 << j) != 0)
        .map(|j| j + 1)
}

/// `23` for joints 2 and 3; separated by `sep` once a joint has two digits.
fn mask_digits(mask: u64, sep: &str) -> String {
    let js: Vec<String> = joints(mask).map(|j| j.to_string()).collect();
    if js.iter().all(|j| j.len() == 1) {
        js.concat()
    } else {
        js.join(sep)
    }
}

pub(super) fn leaf_text(params: &[crate::ir::Param], v: Var) -> String {
    match v {
        Var::Q(j) => format!("q{}", j + 1),
        Var::Qd(j) => format!("qd{}", j + 1),
        Var::Qdd(j) => format!("qdd{}", j + 1),
        Var::Tau(j) => format!("tau{}", j + 1),
        Var::Sin(m) => format!("s{}", mask_digits(m, "_")),
        Var::Cos(m) => format!("c{}", mask_digits(m, "_")),
        Var::Param(k) => params[k as usize].name.clone(),
        Var::Base(b) => format!("base_{}", base_leaf(b)),
        Var::Elastic(e) => elastic_leaf(e, false),
    }
}

fn leaf_latex(params: &[crate::ir::Param], v: Var) -> String {
    match v {
        Var::Q(j) => format!("q_{{{}}}", j + 1),
        Var::Qd(j) => format!("\\dot q_{{{}}}", j + 1),
        Var::Qdd(j) => format!("\\ddot q_{{{}}}", j + 1),
        Var::Tau(j) => format!("\\tau_{{{}}}", j + 1),
        Var::Sin(m) => format!("s_{{{}}}", mask_digits(m, ",")),
        Var::Cos(m) => format!("c_{{{}}}", mask_digits(m, ",")),
        Var::Param(k) => latex_label(&params[k as usize].name),
        Var::Base(b) => format!("\\mathrm{{base}}_{{{}}}", base_leaf(b)),
        Var::Elastic(e) => elastic_leaf(e, true),
    }
}

/// An elastic leaf: `beta1`, `betad1`, `w1`, .. (1-based), or in LaTeX `\beta_{1}`,
/// `\dot w_{1}`, ...
fn elastic_leaf(e: crate::ir::ElasticVar, latex: bool) -> String {
    use crate::ir::ElasticVar;
    let (name, dots, k) = match e {
        ElasticVar::Beta(k) => ("beta", 0, k),
        ElasticVar::BetaD(k) => ("beta", 1, k),
        ElasticVar::BetaDd(k) => ("beta", 2, k),
        ElasticVar::W(k) => ("w", 0, k),
        ElasticVar::WD(k) => ("w", 1, k),
        ElasticVar::WDd(k) => ("w", 2, k),
        ElasticVar::Theta(k) => ("theta", 0, k),
        ElasticVar::ThetaD(k) => ("theta", 1, k),
        ElasticVar::Qddd(k) => ("q", 3, k),
        ElasticVar::Qdddd(k) => ("q", 4, k),
    };
    let k = k + 1;
    if latex {
        let sym = match name {
            "beta" => "\\beta",
            "theta" => "\\theta",
            other => other,
        };
        match dots {
            0..=2 => format!("{}{sym}_{{{k}}}", ["", "\\dot ", "\\ddot "][dots]),
            _ => format!("{sym}^{{({dots})}}_{{{k}}}"),
        }
    } else {
        format!("{name}{}{k}", ["", "d", "dd", "ddd", "dddd"][dots])
    }
}

/// A moving-base leaf's short name: `q0`..`q6` (pose), `v0`.., `a0`.., `f0`...
fn base_leaf(b: crate::ir::BaseVar) -> String {
    use crate::ir::BaseVar;
    match b {
        BaseVar::Pose(k) => format!("q{k}"),
        BaseVar::Vel(k) => format!("v{k}"),
        BaseVar::Acc(k) => format!("a{k}"),
        BaseVar::Wrench(k) => format!("f{k}"),
    }
}

pub(super) fn latex_escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '_' | '#' | '%' | '&' | '$' | '{' | '}' => {
                o.push('\\');
                o.push(ch);
            }
            c => o.push(c),
        }
    }
    o
}

/// A label or parameter name in the papers' notation: `w5_x` → `\omega_{5}^{x}`,
/// `x^y_5` → `x^{y}_{5}`, `m3` → `m_{o3}` (body mass), `msub3` → `m_{3}` (subsystem mass),
/// `ixy2` → `J^{xy}_{2}` (a tensor entry, the negative of the papers' `I^{xy}`), ... Anything
/// else is set upright.
fn latex_label(name: &str) -> String {
    // Direction cosine `x^y_5`.
    if let [a, b'^', c, b'_', rest @ ..] = name.as_bytes() {
        if b"xyz".contains(a) && b"xyz".contains(c) && rest.iter().all(u8::is_ascii_digit) {
            let j = &name[4..];
            return format!("{}^{{{}}}_{{{j}}}", *a as char, *c as char);
        }
    }
    let split = name
        .find(|c: char| c.is_ascii_digit())
        .unwrap_or(name.len());
    let (prefix, rest) = name.split_at(split);
    let (index, suffix) = match rest.split_once('_') {
        Some((i, s)) => (i, Some(s)),
        None => (rest, None),
    };
    let plain = !index.is_empty()
        && index.bytes().all(|b| b.is_ascii_digit())
        && suffix.is_none_or(|s| s.bytes().all(|b| b.is_ascii_alphanumeric()));
    if !plain {
        return format!("\\mathrm{{{}}}", latex_escape(name));
    }
    let sup = |s: &str| format!("^{{{s}}}");
    let (sym, sub, sup_part) = match (prefix, suffix) {
        ("w", Some(s)) => ("\\omega".to_owned(), index.to_owned(), sup(s)),
        ("wd", Some(s)) => ("\\dot\\omega".to_owned(), index.to_owned(), sup(s)),
        ("Omegadot_e", Some(s)) => ("\\dot\\Omega".to_owned(), format!("e{index}"), sup(s)),
        ("ba", Some(s)) => ("(ba)".to_owned(), index.to_owned(), sup(s)),
        ("mc", Some(s)) => ("(mc)".to_owned(), index.to_owned(), sup(s)),
        ("Jc", Some(s)) => ("J^{C}".to_owned(), format!("{index},{s}"), String::new()),
        ("H" | "L", Some(s)) => (prefix.to_owned(), format!("{index}{s}"), String::new()),
        ("m", None) => ("m".to_owned(), format!("o{index}"), String::new()),
        ("msub", None) => ("m".to_owned(), index.to_owned(), String::new()),
        ("mx" | "my" | "mz", None) => ("m".to_owned(), index.to_owned(), sup(&prefix[1..])),
        ("ixx" | "iyy" | "izz", None) => ("I".to_owned(), index.to_owned(), sup(&prefix[2..])),
        ("ixy" | "ixz" | "iyz", None) => ("J".to_owned(), index.to_owned(), sup(&prefix[1..])),
        ("Ia" | "Ib" | "Ic", None) => ("I".to_owned(), index.to_owned(), sup(&prefix[1..])),
        (p, Some(s)) if p.len() == 1 => (p.to_owned(), index.to_owned(), sup(s)),
        (p, None) if p.len() == 1 => (p.to_owned(), index.to_owned(), String::new()),
        _ => return format!("\\mathrm{{{}}}", latex_escape(name)),
    };
    format!("{sym}_{{{sub}}}{sup_part}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latex_names_follow_the_papers() {
        assert_eq!(latex_label("w5_x"), "\\omega_{5}^{x}");
        assert_eq!(latex_label("wd12_z"), "\\dot\\omega_{12}^{z}");
        assert_eq!(latex_label("x^y_5"), "x^{y}_{5}");
        assert_eq!(latex_label("E3_z"), "E_{3}^{z}");
        assert_eq!(latex_label("m3"), "m_{o3}");
        assert_eq!(latex_label("msub2"), "m_{2}");
        assert_eq!(latex_label("mx2"), "m_{2}^{x}");
        assert_eq!(latex_label("ixx1"), "I_{1}^{x}");
        assert_eq!(latex_label("ixy1"), "J_{1}^{xy}");
        assert_eq!(latex_label("H3_1"), "H_{31}");
        assert_eq!(latex_label("t12"), "t_{12}");
        assert_eq!(latex_label("Omegadot_e2_x"), "\\dot\\Omega_{e2}^{x}");
        assert_eq!(latex_label("odd-name"), "\\mathrm{odd-name}");
    }
}

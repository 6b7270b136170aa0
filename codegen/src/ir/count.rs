//! Operation counts of the code a set of roots compiles to.

use std::fmt;

use super::graph::Graph;
use super::node::{Node, NodeId, Var};

/// Arithmetic operations of the straight-line code for some roots, each live node counted once
/// (common subexpressions are computed once).
///
/// - a sum of `k` terms is `k - 1` additions; a negated term in it is a subtraction (no extra
///   operation); a sum whose terms are all negated costs one negation, unless one term carries
///   a negative constant coefficient (the literal absorbs the sign);
/// - a product of `k` factors is `k - 1` multiplications; a `-1` coefficient is free (it
///   becomes a subtraction or a negation, counted as such);
/// - a negation node counts once if a root or any non-sum user needs its value;
/// - `trig` counts `sin`/`cos` calls: one per distinct `Sin`/`Cos` leaf. After
///   [`Graph::lower_trig_sums`] every leaf is a single joint, so this is at most two per joint;
///   before it, a multi-joint leaf also costs the additions forming its angle sum.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpCount {
    /// Multiplications.
    pub mul: usize,
    /// Additions and subtractions.
    pub add: usize,
    /// Divisions.
    pub div: usize,
    /// Negations.
    pub neg: usize,
    /// `sin` and `cos` calls.
    pub trig: usize,
    /// Square roots.
    pub sqrt: usize,
}

impl OpCount {
    /// All operations together.
    pub fn total(&self) -> usize {
        self.mul + self.add + self.div + self.neg + self.trig + self.sqrt
    }
}

impl fmt::Display for OpCount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} mul, {} add, {} div, {} neg, {} sin/cos, {} sqrt",
            self.mul, self.add, self.div, self.neg, self.trig, self.sqrt
        )
    }
}

/// How a term's sign reaches the code.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sign {
    /// Plain term.
    Positive,
    /// `Neg(x)`: subtract `x`.
    Negated,
    /// Negative constant or negative leading coefficient: the literal carries the sign.
    NegativeLiteral,
}

impl Graph {
    /// How a sum operand's sign is written.
    pub(crate) fn term_sign(&self, id: NodeId) -> Sign {
        match self.node(id) {
            Node::Neg(_) => Sign::Negated,
            Node::Const(_) if self.as_const(id).is_some_and(|c| c < 0.0) => Sign::NegativeLiteral,
            Node::Mul(v) if self.as_const(v[0]).is_some_and(|c| c < 0.0) => Sign::NegativeLiteral,
            _ => Sign::Positive,
        }
    }

    /// Which `Neg` nodes need their value computed (a root or a non-sum user reads them).
    pub(crate) fn negs_needed(&self, live: &[bool], roots: &[NodeId]) -> Vec<bool> {
        let mut needed = vec![false; self.len()];
        for r in roots {
            needed[r.index()] = true;
        }
        for (i, node) in self.nodes().iter().enumerate() {
            if live[i] && !matches!(node, Node::Add(_)) {
                for c in node.children() {
                    needed[c.index()] = true;
                }
            }
        }
        needed
    }

    /// Operation count of the code computing `roots` (see [`OpCount`]).
    pub fn op_count(&self, roots: &[NodeId]) -> OpCount {
        let live = self.reachable(roots);
        let needed = self.negs_needed(&live, roots);
        let mut n = OpCount::default();
        for (i, node) in self.nodes().iter().enumerate() {
            if !live[i] {
                continue;
            }
            match node {
                Node::Const(_) | Node::Var(_) => {
                    if let Node::Var(Var::Sin(m) | Var::Cos(m)) = node {
                        n.trig += 1;
                        n.add += (m.count_ones() as usize).saturating_sub(1);
                    }
                }
                Node::Add(v) => {
                    n.add += v.len() - 1;
                    let signs: Vec<Sign> = v.iter().map(|&c| self.term_sign(c)).collect();
                    if signs.iter().all(|s| *s == Sign::Negated) {
                        n.neg += 1;
                    }
                }
                Node::Mul(v) => n.mul += v.len() - 1,
                Node::Neg(_) => {
                    if needed[i] {
                        n.neg += 1;
                    }
                }
                Node::Div(_, _) => n.div += 1,
                Node::Sqrt(_) => n.sqrt += 1,
            }
        }
        n
    }
}

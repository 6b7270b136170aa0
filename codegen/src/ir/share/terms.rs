//! What several sharing passes read and write: a sum's term split into its coefficient and
//! monomial, how often each live node is read, and sums and products rebuilt in the form the
//! constructors keep.

use crate::ir::graph::Graph;
use crate::ir::node::{Node, NodeId};
use crate::ir::passes::tidy;

/// A sum operand as (monomial, coefficient bits); a constant has no monomial.
pub(super) type Key = (Option<NodeId>, u64);

/// Splits a term without interning anything (see the canonical forms in `graph.rs`).
pub(super) fn term_key(g: &Graph, id: NodeId) -> Key {
    let (c, m) = split(g, id);
    (m, c.to_bits())
}

fn split(g: &Graph, id: NodeId) -> (f64, Option<NodeId>) {
    match g.node(id) {
        Node::Const(bits) => (f64::from_bits(*bits), None),
        Node::Neg(x) => {
            let (c, m) = split(g, *x);
            (-c, m)
        }
        Node::Mul(v) if v.len() == 2 => match g.as_const(v[0]) {
            Some(c) => {
                let (c2, m) = split(g, v[1]);
                (c * c2, m)
            }
            None => (1.0, Some(id)),
        },
        _ => (1.0, Some(id)),
    }
}

impl Graph {
    /// Which nodes the roots depend on, and how many times each is read (by live nodes and as
    /// a root).
    pub(super) fn live_users(&self, roots: &[NodeId]) -> (Vec<bool>, Vec<usize>) {
        let live = self.reachable(roots);
        let mut users = vec![0usize; self.len()];
        for r in roots {
            users[r.index()] += 1;
        }
        for (i, node) in self.nodes().iter().enumerate() {
            if live[i] {
                for c in node.children() {
                    users[c.index()] += 1;
                }
            }
        }
        (live, users)
    }
}

/// The sum of `terms` (sorted, as sums keep them), or its one term.
pub(super) fn sum_of(out: &mut Graph, mut terms: Vec<NodeId>) -> NodeId {
    terms.sort_unstable();
    if terms.len() == 1 {
        terms[0]
    } else {
        tidy(out, Node::Add(terms.into()))
    }
}

/// The product of `factors`: a constant factor first, the others by id, as a term `c · m`
/// where there is a constant.
pub(super) fn product_node(out: &mut Graph, mut factors: Vec<NodeId>) -> NodeId {
    let (mut constants, mut others): (Vec<NodeId>, Vec<NodeId>) =
        factors.drain(..).partition(|&f| out.as_const(f).is_some());
    others.sort_unstable();
    let k: f64 = constants
        .drain(..)
        .map(|c| out.as_const(c).unwrap_or(1.0))
        .product();
    let m = match others.len() {
        0 => return out.constant(k),
        1 => others[0],
        _ => tidy(out, Node::Mul(others.into())),
    };
    if k == 1.0 {
        m
    } else if k == -1.0 {
        out.intern(Node::Neg(m))
    } else {
        let c = out.constant(k);
        tidy(out, Node::Mul([c, m].into()))
    }
}

//! Constant terms of nested sums added at generation time: a sum with a constant term, read
//! only by another sum with one, is written into it. The driver applies this to each
//! function's chosen sharing, where it is cheaper.

use crate::ir::graph::Graph;
use crate::ir::node::{Node, NodeId};
use crate::ir::passes::tidy;
use crate::ir::signs::negate;

impl Graph {
    /// A copy where a sum with a constant term, read only by one other sum (directly or
    /// through a negation read only there) that has a constant term or another such operand,
    /// is written into it, so that the constants are added once, at generation time
    /// (`(x + 0.5) - (y + 0.25)` as `x - y + 0.25`); and the roots' ids in it.
    pub fn merge_constant_offsets(&self, roots: &[NodeId]) -> (Graph, Vec<NodeId>) {
        let (live, users) = self.live_users(roots);
        let has_constant = |v: &[NodeId]| v.iter().any(|&t| self.as_const(t).is_some());
        // The sum a term stands for, if it is to be written inline, and whether it is negated.
        let inline = |t: NodeId| -> Option<(NodeId, bool)> {
            let (s, negated) = match self.node(t) {
                Node::Neg(x) if users[t.index()] == 1 => (*x, true),
                _ => (t, false),
            };
            match self.node(s) {
                Node::Add(v) if users[s.index()] == 1 && has_constant(v) => Some((s, negated)),
                _ => None,
            }
        };
        self.copy_live(roots, &live, |out, map, _, node| {
            let Node::Add(v) = node else {
                return tidy(out, map.children(node));
            };
            let inlined: Vec<Option<(NodeId, bool)>> = v.iter().map(|&t| inline(t)).collect();
            let constants = inlined.iter().flatten().count() + usize::from(has_constant(v));
            if constants < 2 {
                return tidy(out, map.children(node));
            }
            let mut terms = Vec::with_capacity(v.len() + 2);
            for (&t, inline) in v.iter().zip(&inlined) {
                let inner = inline.and_then(|(s, negated)| match out.node(map.get(s)) {
                    Node::Add(inner) => Some((inner.clone(), negated)),
                    _ => None,
                });
                match inner {
                    Some((inner, negated)) => {
                        for &u in inner.iter() {
                            terms.push(if negated { negate(out, u) } else { u });
                        }
                    }
                    None => terms.push(map.get(t)),
                }
            }
            tidy(out, Node::Add(terms.into()))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::share::tests::{assert_same_values, leaves};

    #[test]
    fn constant_offsets_of_single_use_sums_are_added_once() {
        // (a + 0.5) - (b + 0.25), each inner sum read only there: a - b + 0.25.
        let mut g = Graph::new();
        let [a, b, c, _] = leaves(&mut g);
        let (k1, k2) = (g.constant(0.5), g.constant(0.25));
        let s1 = g.intern(Node::Add([k1, a].into()));
        let s2 = g.intern(Node::Add([k2, b].into()));
        let ns2 = g.intern(Node::Neg(s2));
        let outer = g.intern(Node::Add([s1, ns2].into()));
        // A sum read twice keeps its node.
        let s3 = g.intern(Node::Add([k1, c].into()));
        let twice = g.intern(Node::Mul([s3, s3].into()));
        let roots = [outer, twice];
        assert_eq!(g.op_count(&roots).add, 4);
        let (h, r) = g.merge_constant_offsets(&roots);
        assert_eq!(h.op_count(&r).add, 3);
        let Node::Add(terms) = h.node(r[0]) else {
            panic!("a sum")
        };
        assert_eq!(terms.len(), 3);
        let Node::Mul(f) = h.node(r[1]) else {
            panic!("a product")
        };
        assert!(f[0] == f[1] && matches!(h.node(f[0]), Node::Add(t) if t.len() == 2));
        assert_same_values(&g, &roots, &h, &r);
    }
}

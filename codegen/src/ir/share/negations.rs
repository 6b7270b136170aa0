//! Negations absorbed by the sums they negate: a sum read only negated is written with its
//! signs flipped, so the negation costs nothing.

use crate::ir::graph::Graph;
use crate::ir::node::{Node, NodeId};

impl Graph {
    /// A copy where a negated sum that is read only through its negation, and has a
    /// subtracted term, is written with every sign flipped instead (`-(a - b)` as `b - a`), so
    /// the negation costs nothing; and the roots' ids in it.
    pub fn absorb_negations(&self, roots: &[NodeId]) -> (Graph, Vec<NodeId>) {
        self.flip_negated_sums(roots, false)
    }

    /// [`Graph::absorb_negations`], also flipping a sum read plainly by other sums that keep
    /// a positive term: those subtract the flipped sum instead.
    pub fn absorb_negations_through_sums(&self, roots: &[NodeId]) -> (Graph, Vec<NodeId>) {
        self.flip_negated_sums(roots, true)
    }

    /// Flips sums with a subtracted term that are read through their negation and, when
    /// `through_sums`, otherwise only as terms of sums that keep a positive term.
    fn flip_negated_sums(&self, roots: &[NodeId], through_sums: bool) -> (Graph, Vec<NodeId>) {
        let live = self.reachable(roots);
        let is_negated = |t: NodeId| {
            matches!(self.node(t), Node::Neg(_)) || self.as_const(t).is_some_and(|c| c < 0.0)
        };
        // A sum can be flipped when it has a subtracted term, is no root, and every reader is
        // its negation or a sum with a positive term that is not a sum itself (which might be
        // flipped in turn), so that reader still needs no negation.
        let mut flippable: Vec<bool> = self
            .nodes()
            .iter()
            .enumerate()
            .map(|(i, n)| live[i] && matches!(n, Node::Add(v) if v.iter().any(|&t| is_negated(t))))
            .collect();
        let mut negated_read = vec![false; self.len()];
        for r in roots {
            flippable[r.index()] = false;
        }
        for (i, node) in self.nodes().iter().enumerate() {
            if !live[i] {
                continue;
            }
            match node {
                Node::Neg(x) => negated_read[x.index()] = true,
                Node::Add(v) if through_sums => {
                    for &c in v.iter() {
                        let other_positive = v.iter().any(|&t| {
                            t != c && !is_negated(t) && !matches!(self.node(t), Node::Add(_))
                        });
                        if !other_positive {
                            flippable[c.index()] = false;
                        }
                    }
                }
                n => {
                    for c in n.children() {
                        flippable[c.index()] = false;
                    }
                }
            }
        }
        for (f, n) in flippable.iter_mut().zip(&negated_read) {
            *f &= *n;
        }
        self.copy_live(roots, &live, |out, map, i, node| {
            match (node, map.children(node)) {
                // `-x` is the flipped sum itself.
                (Node::Neg(x), _) if flippable[x.index()] => match out.node(map.get(*x)) {
                    Node::Neg(y) => *y,
                    _ => unreachable!("a flipped sum maps to a negation"),
                },
                (_, Node::Add(v)) if flippable[i] => {
                    let mut terms: Vec<NodeId> = v
                        .iter()
                        .map(|&t| match out.node(t).clone() {
                            Node::Neg(m) => m,
                            Node::Const(bits) => {
                                out.intern(Node::Const((-f64::from_bits(bits)).to_bits()))
                            }
                            _ => out.intern(Node::Neg(t)),
                        })
                        .collect();
                    terms.sort_unstable();
                    let flipped = out.intern(Node::Add(terms.into()));
                    // Plain readers subtract the flipped sum.
                    out.intern(Node::Neg(flipped))
                }
                (_, mapped) => out.intern(mapped),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::node::Var;
    use crate::ir::share::tests::assert_same_values;

    #[test]
    fn a_sum_read_only_negated_is_written_with_flipped_signs() {
        let mut g = Graph::new();
        let (a, b, c) = (g.var(Var::Qd(0)), g.var(Var::Qd(1)), g.var(Var::Qdd(0)));
        let nb = g.neg(b);
        let s = g.sum(&[a, nb]);
        // -(a - b), read by a root and a product, as the sharing passes can leave it.
        let mut h = g.clone();
        let neg = h.intern(Node::Neg(s));
        let p = h.intern(Node::Mul([c.min(neg), c.max(neg)].into()));
        let roots = [neg, p];
        assert_eq!(h.op_count(&roots).neg, 1);
        let (k, r2) = h.absorb_negations(&roots);
        let count = k.op_count(&r2);
        assert_eq!((count.add, count.neg, count.mul), (1, 0, 1));
        assert_same_values(&h, &roots, &k, &r2);
    }
}

//! Terms of a sum with a common constant coefficient, added first and multiplied by it once.

use super::terms::sum_of;
use crate::ir::graph::Graph;
use crate::ir::node::{Node, NodeId};
use crate::ir::passes::tidy;

impl Graph {
    /// A copy where the terms of a sum with the same constant coefficient (up to sign), read by
    /// that sum only, are added first and multiplied once (`k a - k b` as `k (a - b)`); and the
    /// roots' ids in it.
    pub fn factor_common_coefficients(&self, roots: &[NodeId]) -> (Graph, Vec<NodeId>) {
        let (live, users) = self.live_users(roots);
        // `k · m` read once: (|k| bits, sign, m).
        let scaled = |t: NodeId| -> Option<(u64, bool, NodeId)> {
            if users[t.index()] != 1 {
                return None;
            }
            match self.node(t) {
                Node::Mul(v) if v.len() == 2 => {
                    let k = self.as_const(v[0])?;
                    (k.abs() != 1.0).then(|| (k.abs().to_bits(), k < 0.0, v[1]))
                }
                _ => None,
            }
        };
        self.copy_live(roots, &live, |out, map, _, node| {
            match node {
                Node::Add(v) => {
                    let mut groups: Vec<(u64, Vec<(bool, NodeId)>)> = Vec::new();
                    let mut rest: Vec<NodeId> = Vec::new();
                    for &t in v.iter() {
                        match scaled(t) {
                            Some((k, neg, m)) => match groups.iter_mut().find(|g| g.0 == k) {
                                Some(g) => g.1.push((neg, m)),
                                None => groups.push((k, vec![(neg, m)])),
                            },
                            None => rest.push(map.get(t)),
                        }
                    }
                    for (k, members) in groups {
                        if members.len() == 1 {
                            let (neg, m) = members[0];
                            let c = out.intern(Node::Const(
                                (if neg { -1.0 } else { 1.0 } * f64::from_bits(k)).to_bits(),
                            ));
                            let m = map.get(m);
                            rest.push(out.intern(Node::Mul([c, m].into())));
                            continue;
                        }
                        // Keep the sign of the first member outside, so the inner sum has a
                        // positive term.
                        let outer_neg = members[0].0;
                        let mut inner: Vec<NodeId> = members
                            .iter()
                            .map(|&(neg, m)| {
                                let m = map.get(m);
                                if neg != outer_neg {
                                    out.intern(Node::Neg(m))
                                } else {
                                    m
                                }
                            })
                            .collect();
                        inner.sort_unstable();
                        // Two members may be copies of one node (`tidy` cancels them).
                        let sum = tidy(out, Node::Add(inner.into()));
                        let c = out.intern(Node::Const(
                            (if outer_neg { -1.0 } else { 1.0 } * f64::from_bits(k)).to_bits(),
                        ));
                        rest.push(tidy(out, Node::Mul([c, sum].into())));
                    }
                    sum_of(out, rest)
                }
                n => out.intern(map.children(n)),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::node::Var;
    use crate::ir::share::tests::env;

    #[test]
    fn terms_with_a_common_coefficient_are_multiplied_once() {
        let mut g = Graph::new();
        let (a, b, c) = (g.var(Var::Qd(0)), g.var(Var::Qd(1)), g.var(Var::Qdd(0)));
        let k = g.constant(0.45);
        let mk = g.constant(-0.45);
        let ka = g.mul(k, a);
        let kb = g.mul(mk, b);
        let s = g.sum(&[ka, kb, c]);
        assert_eq!(g.op_count(&[s]).mul, 2);
        let (h, r) = g.factor_common_coefficients(&[s]);
        let count = h.op_count(&r);
        assert_eq!((count.mul, count.add, count.neg), (1, 2, 0));
        assert!((g.eval(s, &env()) - h.eval(r[0], &env())).abs() < 1e-15);
    }
}

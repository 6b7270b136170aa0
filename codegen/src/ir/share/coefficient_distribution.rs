//! A product's constant coefficient multiplied into the sum it scales, when that sum's terms
//! carry constants already: the multiplication by the coefficient is saved.

use super::terms::{product_node, sum_of};
use crate::ir::graph::Graph;
use crate::ir::node::{Node, NodeId};

impl Graph {
    /// A copy where a product's constant coefficient is multiplied into a sum among its
    /// factors that only it reads, when each of the sum's terms is a constant or a constant
    /// times something, read by that sum only (`0.2 (2 x - 0.04)` as `0.4 x - 0.008`: one
    /// multiplication fewer); and the roots' ids in it.
    pub fn distribute_coefficients(&self, roots: &[NodeId]) -> (Graph, Vec<NodeId>) {
        let (live, users) = self.live_users(roots);
        let once = |t: NodeId| users[t.index()] == 1;
        // A term as (coefficient, the rest of its factors), if scaling it needs no new
        // multiplication.
        let scaled = |t: NodeId| -> Option<(f64, Vec<NodeId>)> {
            let (t, sign) = match self.node(t) {
                Node::Neg(x) if once(t) => (*x, -1.0),
                _ => (t, 1.0),
            };
            match self.node(t) {
                Node::Const(_) => Some((sign * self.as_const(t)?, Vec::new())),
                Node::Mul(f) if once(t) => {
                    let k = self.as_const(f[0])?;
                    Some((sign * k, f[1..].to_vec()))
                }
                _ => None,
            }
        };
        // The sum a term of this product stands for, if it can be scaled, with its terms.
        let scalable_sum = |c: NodeId| -> Option<Vec<(f64, Vec<NodeId>)>> {
            match self.node(c) {
                Node::Add(v) if once(c) => v.iter().map(|&t| scaled(t)).collect(),
                _ => None,
            }
        };
        // A product `k m` with `|k| != 1`: the factors of `m` (those of a product read only
        // here written out), which of them is the sum to scale, and its terms.
        let target = |f: &[NodeId]| -> Option<Distribution> {
            let k = self.as_const(f[0])?;
            if k.abs() == 1.0 {
                return None;
            }
            let factors: Vec<NodeId> = match &f[1..] {
                [m] => match self.node(*m) {
                    Node::Mul(inner) if once(*m) => inner.to_vec(),
                    _ => vec![*m],
                },
                rest => rest.to_vec(),
            };
            let (at, terms) = factors
                .iter()
                .enumerate()
                .find_map(|(i, &c)| scalable_sum(c).map(|terms| (i, terms)))?;
            Some(Distribution {
                k,
                factors,
                at,
                terms,
            })
        };
        self.copy_live(roots, &live, |out, map, _, node| match node {
            Node::Mul(f) => match target(f) {
                Some(Distribution {
                    k,
                    factors,
                    at,
                    terms,
                }) => {
                    let terms: Vec<NodeId> = terms
                        .into_iter()
                        .map(|(c, rest)| {
                            let kc = out.constant(k * c);
                            let factors =
                                std::iter::once(kc).chain(rest.iter().map(|&x| map.get(x)));
                            product_node(out, factors.collect())
                        })
                        .collect();
                    let sum = sum_of(out, terms);
                    let factors: Vec<NodeId> = factors
                        .iter()
                        .enumerate()
                        .map(|(i, &x)| if i == at { sum } else { map.get(x) })
                        .collect();
                    product_node(out, factors)
                }
                None => out.intern(map.children(node)),
            },
            n => out.intern(map.children(n)),
        })
    }
}

/// A product `k m` whose coefficient goes into a sum among the factors of `m`
/// ([`Graph::distribute_coefficients`]).
struct Distribution {
    k: f64,
    /// The factors of `m`.
    factors: Vec<NodeId>,
    /// Which of them is the sum.
    at: usize,
    /// The sum's terms, each as its coefficient and its other factors.
    terms: Vec<(f64, Vec<NodeId>)>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::node::Var;
    use crate::ir::share::tests::{env, leaves};

    #[test]
    fn a_coefficient_is_multiplied_into_the_sum_it_scales() {
        // 0.2 f (2 a - 3 b c - 0.04): f (0.4 a - 0.6 b c - 0.008), one multiplication fewer.
        let mut g = Graph::new();
        let [f, a, b, c] = leaves(&mut g);
        let d = g.var(Var::Q(0));
        let [k02, k05, k2, k3, k4, k5] = [0.2, 0.5, 2.0, 3.0, 4.0, 5.0].map(|k| g.constant(k));
        let two_a = g.product(&[k2, a]);
        let three_bc = g.product(&[k3, b, c]);
        let minus_three_bc = g.neg(three_bc);
        let offset = g.constant(-0.04);
        let inner = g.sum(&[two_a, minus_three_bc, offset]);
        let s = g.product(&[k02, f, inner]);
        // A sum with a term without a coefficient, or with a term read elsewhere, keeps it.
        let four_d = g.product(&[k4, d]);
        let bare_inner = g.sum(&[four_d, b]);
        let bare = g.product(&[k05, bare_inner]);
        let five_c = g.product(&[k5, c]);
        let shared_inner = g.sum(&[five_c, offset]);
        let shared = g.product(&[k05, shared_inner]);
        let roots = [s, bare, shared, five_c];
        let before = g.op_count(&roots);
        let (h, r) = g.distribute_coefficients(&roots);
        let after = h.op_count(&r);
        assert_eq!((after.mul, after.add), (before.mul - 1, before.add));
        for (x, y) in roots.iter().zip(&r) {
            let (want, got) = (g.eval(*x, &env()), h.eval(*y, &env()));
            assert!((want - got).abs() < 1e-14 * want.abs().max(1.0));
        }
    }
}

//! Products among a sum's terms that have a factor in common, multiplied by it once.

use super::terms::{product_node, sum_of};
use crate::ir::graph::Graph;
use crate::ir::node::{Node, NodeId};

impl Graph {
    /// A copy where the products among a sum's terms that have a factor in common, each read
    /// by that sum only, are multiplied by it once (`f a - f b c + d` as `f (a - b c) + d`, one
    /// multiplication fewer per product after the first; the factor read by most of them
    /// first, then again inside and among the rest); and the roots' ids in it.
    pub fn factor_common_factors(&self, roots: &[NodeId]) -> (Graph, Vec<NodeId>) {
        let (live, users) = self.live_users(roots);
        // A product read once, as its factors (nested products read once written out).
        let factors_of = |t: NodeId| -> Option<Vec<NodeId>> {
            let mut out = Vec::new();
            let mut stack = vec![t];
            while let Some(x) = stack.pop() {
                match self.node(x) {
                    Node::Mul(v) if users[x.index()] == 1 => stack.extend(v.iter().rev()),
                    _ if x == t => return None,
                    _ => out.push(x),
                }
            }
            Some(out)
        };
        let term = |t: NodeId| -> Option<(bool, Vec<NodeId>)> {
            if users[t.index()] != 1 {
                return None;
            }
            match self.node(t) {
                Node::Neg(x) => factors_of(*x).map(|f| (true, f)),
                _ => factors_of(t).map(|f| (false, f)),
            }
        };
        self.copy_live(roots, &live, |out, map, _, node| match node {
            Node::Add(v) => {
                let mut rest: Vec<NodeId> = Vec::new();
                let mut products: Vec<Product> = Vec::new();
                for &t in v.iter() {
                    match term(t) {
                        Some((negated, f)) => products.push(Product {
                            negated,
                            factors: f.iter().map(|&c| map.get(c)).collect(),
                        }),
                        None => rest.push(map.get(t)),
                    }
                }
                rest.extend(factor_products(out, products));
                sum_of(out, rest)
            }
            n => out.intern(map.children(n)),
        })
    }
}

/// A product term of a sum, by its factors.
struct Product {
    negated: bool,
    factors: Vec<NodeId>,
}

/// The terms `products` stand for, with common factors taken out (see
/// [`Graph::factor_common_factors`]).
fn factor_products(out: &mut Graph, mut products: Vec<Product>) -> Vec<NodeId> {
    let mut terms = Vec::new();
    loop {
        // The factor most products have (the smallest id on ties: deterministic).
        let mut count: std::collections::BTreeMap<NodeId, usize> = Default::default();
        for p in &products {
            let mut seen: Vec<NodeId> = p.factors.clone();
            seen.sort_unstable();
            seen.dedup();
            for f in seen.into_iter().filter(|&f| out.as_const(f).is_none()) {
                *count.entry(f).or_insert(0) += 1;
            }
        }
        let mut best: Option<(NodeId, usize)> = None;
        for (&f, &k) in &count {
            if k >= 2 && best.is_none_or(|(_, b)| k > b) {
                best = Some((f, k));
            }
        }
        let Some((common, _)) = best else {
            break;
        };
        let (with, without): (Vec<Product>, Vec<Product>) = products
            .into_iter()
            .partition(|p| p.factors.contains(&common));
        products = without;
        let all_negated = with.iter().all(|p| p.negated);
        let inner: Vec<Product> = with
            .into_iter()
            .map(|mut p| {
                let at = p.factors.iter().position(|&f| f == common).unwrap_or(0);
                p.factors.remove(at);
                p.negated ^= all_negated;
                p
            })
            .collect();
        let inner = factor_products(out, inner);
        let sum = sum_of(out, inner);
        let t = product_node(out, vec![common, sum]);
        terms.push(if all_negated {
            out.intern(Node::Neg(t))
        } else {
            t
        });
    }
    for p in products {
        let t = product_node(out, p.factors);
        terms.push(if p.negated {
            out.intern(Node::Neg(t))
        } else {
            t
        });
    }
    terms
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::node::Var;
    use crate::ir::share::tests::{env, leaves};

    #[test]
    fn products_with_a_common_factor_are_multiplied_by_it_once() {
        // f a - 0.5 f b c + f c + d: f (a - 0.5 b c + c) + d, two multiplications fewer.
        let mut g = Graph::new();
        let [f, a, b, c] = leaves(&mut g);
        let d = g.var(Var::Q(0));
        let half = g.constant(-0.5);
        let fa = g.mul(f, a);
        let fbc = g.product(&[half, f, b, c]);
        let fc = g.mul(f, c);
        let s = g.sum(&[fa, fbc, fc, d]);
        // A product also read elsewhere keeps its multiplication.
        let fd = g.mul(f, d);
        let shared = g.sum(&[fd, a]);
        let t = g.sum(&[fd, b]);
        let roots = [s, shared, t];
        let before = g.op_count(&roots);
        let (h, r) = g.factor_common_factors(&roots);
        let after = h.op_count(&r);
        assert_eq!(
            (after.mul, after.add, after.neg),
            (before.mul - 2, before.add, 0)
        );
        for (x, y) in roots.iter().zip(&r) {
            assert!((g.eval(*x, &env()) - h.eval(*y, &env())).abs() < 1e-14);
        }
    }

    #[test]
    fn all_negated_products_keep_their_sign_outside() {
        // -f a - f b + c: c - f (a + b), no negation written.
        let mut g = Graph::new();
        let [f, a, b, c] = leaves(&mut g);
        let fa = g.mul(f, a);
        let fb = g.mul(f, b);
        let (nfa, nfb) = (g.neg(fa), g.neg(fb));
        let s = g.sum(&[nfa, nfb, c]);
        let (h, r) = g.factor_common_factors(&[s]);
        let count = h.op_count(&r);
        assert_eq!((count.mul, count.add, count.neg), (1, 2, 0));
        assert!((g.eval(s, &env()) - h.eval(r[0], &env())).abs() < 1e-15);
    }
}

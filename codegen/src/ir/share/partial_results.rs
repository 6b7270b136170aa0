//! Earlier partial results reused: the first sharing pass.
//!
//! It rewrites every sum (product) that contains all the operands of an earlier live sum
//! (product) to use that sum's value instead; a sum may also reuse an earlier sum with every
//! sign flipped, as a subtraction.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::terms::{term_key, Key};
use crate::ir::graph::Graph;
use crate::ir::node::{Node, NodeId};

fn negated((m, bits): Key) -> Key {
    (m, (-f64::from_bits(bits)).to_bits())
}

/// Earlier sums or products, with an index from operand to the ones containing it.
struct Pool<T> {
    /// (node in the new graph, its flat operands).
    items: Vec<(NodeId, Vec<T>)>,
    by_operand: HashMap<T, Vec<usize>>,
}

impl<T: Copy + Eq + std::hash::Hash> Pool<T> {
    fn new() -> Self {
        Pool {
            items: Vec::new(),
            by_operand: HashMap::default(),
        }
    }

    fn push(&mut self, id: NodeId, ops: Vec<T>) {
        let k = self.items.len();
        let mut seen: Vec<T> = Vec::with_capacity(ops.len());
        for &o in &ops {
            if !seen.contains(&o) {
                seen.push(o);
                self.by_operand.entry(o).or_default().push(k);
            }
        }
        self.items.push((id, ops));
    }

    /// The largest earlier item whose operands (mapped by `f`) all occur among the unused
    /// operands `ops[i]` (`used[i]` false), taking multiplicities into account; at most `limit`
    /// operands. Returns the item index and the positions it covers.
    fn best_cover(
        &self,
        ops: &[T],
        used: &[bool],
        limit: usize,
        f: impl Fn(T) -> T,
    ) -> Option<(usize, Vec<usize>)> {
        let mut best: Option<(usize, Vec<usize>)> = None;
        // A set: an operand common to thousands of items (a joint rate in a large
        // derivative) made a list's linear search quadratic.
        let mut tried: HashSet<usize> = HashSet::default();
        for (p, &o) in ops.iter().enumerate() {
            if used[p] {
                continue;
            }
            let Some(list) = self.by_operand.get(&f(o)) else {
                continue;
            };
            for &k in list {
                let len = self.items[k].1.len();
                if len > limit || best.as_ref().is_some_and(|b| b.1.len() >= len) {
                    continue;
                }
                if !tried.insert(k) {
                    continue;
                }
                if let Some(pos) = cover(ops, used, &self.items[k].1, &f) {
                    best = Some((k, pos));
                }
            }
        }
        best
    }
}

/// Positions of `ops` (unused ones, each at most once) matching every `f(sub[i])`.
fn cover<T: Copy + Eq>(
    ops: &[T],
    used: &[bool],
    sub: &[T],
    f: &impl Fn(T) -> T,
) -> Option<Vec<usize>> {
    let mut taken = used.to_vec();
    let mut pos = Vec::with_capacity(sub.len());
    for &s in sub {
        let want = f(s);
        let p = (0..ops.len()).find(|&p| !taken[p] && ops[p] == want)?;
        taken[p] = true;
        pos.push(p);
    }
    Some(pos)
}

impl Graph {
    /// A copy holding only the nodes the roots depend on, where each sum or product reuses the
    /// value of earlier live sums or products whose operands it contains (largest first), and
    /// the roots' ids in it. Values are unchanged; the copy is no longer flat, so it is meant
    /// for emission and counting, not for further construction.
    pub fn share_partial_results(&self, roots: &[NodeId]) -> (Graph, Vec<NodeId>) {
        self.share_partial_results_with(roots, false)
    }

    /// [`Graph::share_partial_results`]; with `early_pairs`, live products of two leaves are
    /// offered from the start, so a product built earlier (`s2 s2 q̇0 q̇0`) may reuse one the
    /// walk reaches only later (`s2 q̇0`). Greedy covers can then pick worse elsewhere, so this
    /// is an alternative rather than the rule.
    pub fn share_partial_results_with(
        &self,
        roots: &[NodeId],
        early_pairs: bool,
    ) -> (Graph, Vec<NodeId>) {
        let live = self.reachable(roots);
        let mut sums: Pool<Key> = Pool::new();
        let mut prods: Pool<NodeId> = Pool::new();
        let mut out = Graph::new();
        out.copy_tables_from(self);
        // The early pairs' operands are leaves, so interning them first keeps children before
        // parents, and the walk finds them again by hash-consing.
        let mut early: HashSet<NodeId> = HashSet::default();
        for (i, node) in self.nodes().iter().enumerate().filter(|_| early_pairs) {
            if let (true, Node::Mul(v)) = (live[i], node) {
                if v.len() == 2 && v.iter().all(|&c| matches!(self.node(c), Node::Var(_))) {
                    let f: Vec<NodeId> = v
                        .iter()
                        .map(|&c| out.intern(self.node(c).clone()))
                        .collect();
                    let id = out.intern(Node::Mul(f[..].into()));
                    if early.insert(id) {
                        prods.push(id, f);
                    }
                }
            }
        }
        let roots = self.copy_live_into(&mut out, roots, &live, |out, map, _, node| {
            match map.children(node) {
                Node::Add(v) => {
                    let keys: Vec<Key> = v.iter().map(|&c| term_key(out, c)).collect();
                    let mut used = vec![false; v.len()];
                    let mut operands: Vec<NodeId> = Vec::new();
                    loop {
                        let left = used.iter().filter(|u| !**u).count();
                        if left < 2 {
                            break;
                        }
                        // A proper subset as it is, or all of it with the signs flipped.
                        let limit = if operands.is_empty() { left - 1 } else { left };
                        let plain = sums.best_cover(&keys, &used, limit, |k| k);
                        let flipped = sums.best_cover(&keys, &used, left, negated);
                        let pick = match (plain, flipped) {
                            (Some(a), Some(b)) if b.1.len() > a.1.len() => Some((b, true)),
                            (Some(a), _) => Some((a, false)),
                            (None, Some(b)) => Some((b, true)),
                            (None, None) => None,
                        };
                        let Some(((k, pos), flip)) = pick else {
                            break;
                        };
                        for p in pos {
                            used[p] = true;
                        }
                        let s = sums.items[k].0;
                        operands.push(if flip { out.intern(Node::Neg(s)) } else { s });
                    }
                    operands.extend(v.iter().zip(&used).filter(|(_, u)| !**u).map(|(c, _)| *c));
                    operands.sort_unstable();
                    let id = if operands.len() == 1 {
                        operands[0]
                    } else {
                        out.intern(Node::Add(operands.into()))
                    };
                    if matches!(out.node(id), Node::Add(_)) {
                        sums.push(id, keys);
                    }
                    id
                }
                Node::Mul(v) if out.as_const(v[0]).is_none() => {
                    let factors = v.to_vec();
                    let mut used = vec![false; v.len()];
                    let mut operands: Vec<NodeId> = Vec::new();
                    loop {
                        let left = used.iter().filter(|u| !**u).count();
                        // Two factors left after a reuse may be an earlier product again, as in
                        // a square `(a b)²` stored flat as `a a b b`.
                        if left < 2 || (left < 3 && operands.is_empty()) {
                            break;
                        }
                        let limit = if operands.is_empty() { left - 1 } else { left };
                        let Some((k, pos)) = prods.best_cover(&factors, &used, limit, |f| f) else {
                            break;
                        };
                        for p in pos {
                            used[p] = true;
                        }
                        operands.push(prods.items[k].0);
                    }
                    operands.extend(
                        factors
                            .iter()
                            .zip(&used)
                            .filter(|(_, u)| !**u)
                            .map(|(c, _)| *c),
                    );
                    operands.sort_unstable();
                    let id = out.intern(Node::Mul(operands.into()));
                    if !early.contains(&id) {
                        prods.push(id, factors);
                    }
                    id
                }
                n => out.intern(n),
            }
        });
        (out, roots)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::node::Var;
    use crate::ir::share::tests::{assert_same_values, env, leaves};

    #[test]
    fn nested_accumulations_reuse_their_partial_sums() {
        let mut g = Graph::new();
        let [a, b, c, d] = leaves(&mut g);
        let ab = g.mul(a, b);
        let cd = g.mul(c, d);
        // s1 = a + b + ab, s2 = s1 + cd (flattened), s3 = c - s1 (flattened, signs flipped)
        let s1 = g.sum(&[a, b, ab]);
        let s2 = g.add(s1, cd);
        let s3 = g.sub(c, s1);
        // p1 = a b c, p2 = p1 d (flattened)
        let p1 = g.mul(ab, c);
        let p2 = g.mul(p1, d);
        let roots = [s1, s2, s3, p1, p2];
        let before = g.op_count(&roots);
        let (h, new_roots) = g.share_partial_results(&roots);
        let after = h.op_count(&new_roots);
        assert_eq!((before.add, before.mul), (2 + 3 + 3, 1 + 1 + 2 + 3));
        assert_eq!((after.add, after.mul), (2 + 1 + 1, 1 + 1 + 1 + 1));
        assert_same_values(&g, &roots, &h, &new_roots);
    }

    #[test]
    fn a_sum_equal_to_a_negated_sum_becomes_a_negation() {
        let mut g = Graph::new();
        let (a, b, c) = (g.var(Var::Qd(0)), g.var(Var::Qd(1)), g.var(Var::Qdd(0)));
        let s = g.sum(&[a, b, c]);
        let na = g.neg(a);
        let nb = g.neg(b);
        let nc = g.neg(c);
        let t = g.sum(&[na, nb, nc]);
        let (h, r) = g.share_partial_results(&[s, t]);
        assert_eq!(*h.node(r[1]), Node::Neg(r[0]));
        assert_eq!(h.op_count(&r).add, 2);
        assert_eq!(h.eval(r[1], &env()), -h.eval(r[0], &env()));
    }
}

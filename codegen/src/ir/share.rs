//! Recovering the sharing that flattening loses.
//!
//! The constructors keep sums and products flat (the rewrite rules need to see every term), so
//! an accumulation such as `M_j = M_{j+1} + m_j` stores all the terms of `M_{j+1}` again when
//! `M_{j+1}` is itself a sum. When both are live, the code would add the same terms twice. This
//! pass runs once the expressions are final and rewrites every sum (product) that contains all
//! the operands of an earlier live sum (product) to use that sum's value instead; a sum may also
//! reuse an earlier sum with every sign flipped, as a subtraction.

use std::collections::HashMap;

use super::graph::Graph;
use super::node::{Node, NodeId};

/// A sum operand as (monomial, coefficient bits); a constant has no monomial.
type Key = (Option<NodeId>, u64);

/// Splits a term without interning anything (see the canonical forms in `graph.rs`).
fn term_key(g: &Graph, id: NodeId) -> Key {
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
            by_operand: HashMap::new(),
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
        let mut tried: Vec<usize> = Vec::new();
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
                if tried.contains(&k) {
                    continue;
                }
                tried.push(k);
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
        let live = self.reachable(roots);
        let mut out = Graph::new();
        out.copy_tables_from(self);
        let mut map: Vec<Option<NodeId>> = vec![None; self.len()];
        let mut sums: Pool<Key> = Pool::new();
        let mut prods: Pool<NodeId> = Pool::new();
        for (i, node) in self.nodes().iter().enumerate() {
            if !live[i] {
                continue;
            }
            let mapped = node.map_children(|c| map[c.index()].expect("child is live"));
            let new = match mapped {
                Node::Add(v) => {
                    let keys: Vec<Key> = v.iter().map(|&c| term_key(&out, c)).collect();
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
                        out.intern(Node::Add(operands.into_boxed_slice()))
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
                        if left < 3 {
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
                    let id = out.intern(Node::Mul(operands.into_boxed_slice()));
                    prods.push(id, factors);
                    id
                }
                n => out.intern(n),
            };
            map[i] = Some(new);
            if let Some(name) = self.name(NodeId(i as u32)) {
                out.insert_name(new, name.to_owned());
            }
        }
        let roots = roots
            .iter()
            .map(|r| map[r.index()].expect("root is live"))
            .collect();
        (out, roots)
    }
}

/// A factor of a product while common pairs are extracted: an old node, or pair `k`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Factor {
    Node(NodeId),
    Pair(usize),
}

/// How often the pair `(a, b)` can be taken out of the sorted factor list `f`.
fn occurrences(f: &[Factor], a: Factor, b: Factor) -> usize {
    let ca = f.iter().filter(|&&x| x == a).count();
    if a == b {
        ca / 2
    } else {
        ca.min(f.iter().filter(|&&x| x == b).count())
    }
}

impl Graph {
    /// A copy where a pair of factors shared by several products of three or more factors is
    /// computed once (most frequent pair first, repeatedly), and the roots' ids in it. This is
    /// what keeps `(c_2 q̇_1)²` and `c_2 q̇_1 q̇_2` from multiplying `c_2 q̇_1` out again when
    /// `c_2 q̇_1` itself was flattened into them.
    pub fn share_common_factor_pairs(&self, roots: &[NodeId]) -> (Graph, Vec<NodeId>) {
        let live = self.reachable(roots);
        let mut lists: HashMap<usize, Vec<Factor>> = HashMap::new();
        for (i, node) in self.nodes().iter().enumerate() {
            if let Node::Mul(v) = node {
                if live[i] && v.len() >= 3 && self.as_const(v[0]).is_none() {
                    lists.insert(i, v.iter().map(|&c| Factor::Node(c)).collect());
                }
            }
        }
        let mut order: Vec<usize> = lists.keys().copied().collect();
        order.sort_unstable();
        let mut pairs: Vec<(Factor, Factor)> = Vec::new();
        loop {
            let mut counts: HashMap<(Factor, Factor), usize> = HashMap::new();
            for i in &order {
                let f = &lists[i];
                if f.len() < 3 {
                    continue;
                }
                let mut distinct = f.clone();
                distinct.sort_unstable();
                distinct.dedup();
                for (x, &a) in distinct.iter().enumerate() {
                    for &b in &distinct[x..] {
                        let n = occurrences(f, a, b);
                        if n > 0 {
                            *counts.entry((a, b)).or_default() += n;
                        }
                    }
                }
            }
            let Some((&(a, b), &n)) = counts.iter().max_by(|x, y| x.1.cmp(y.1).then(y.0.cmp(x.0)))
            else {
                break;
            };
            if n < 2 {
                break;
            }
            let k = pairs.len();
            pairs.push((a, b));
            for i in &order {
                let f = lists.get_mut(i).expect("listed");
                if f.len() < 3 {
                    continue;
                }
                for _ in 0..occurrences(f, a, b) {
                    for x in [a, b] {
                        let p = f.iter().position(|&y| y == x).expect("present");
                        f.remove(p);
                    }
                    f.push(Factor::Pair(k));
                }
            }
        }

        let mut out = Graph::new();
        out.copy_tables_from(self);
        let mut map: Vec<Option<NodeId>> = vec![None; self.len()];
        let mut built: Vec<Option<NodeId>> = vec![None; pairs.len()];
        fn factor(
            out: &mut Graph,
            map: &[Option<NodeId>],
            pairs: &[(Factor, Factor)],
            built: &mut [Option<NodeId>],
            f: Factor,
        ) -> NodeId {
            match f {
                Factor::Node(c) => map[c.index()].expect("factor is live"),
                Factor::Pair(k) => {
                    if let Some(id) = built[k] {
                        return id;
                    }
                    let a = factor(out, map, pairs, built, pairs[k].0);
                    let b = factor(out, map, pairs, built, pairs[k].1);
                    let id = out.intern(Node::Mul(Box::new([a.min(b), a.max(b)])));
                    built[k] = Some(id);
                    id
                }
            }
        }
        for (i, node) in self.nodes().iter().enumerate() {
            if !live[i] {
                continue;
            }
            let new = match lists.get(&i) {
                Some(f) => {
                    let mut v: Vec<NodeId> = f
                        .iter()
                        .map(|&x| factor(&mut out, &map, &pairs, &mut built, x))
                        .collect();
                    v.sort_unstable();
                    if v.len() == 1 {
                        v[0]
                    } else {
                        out.intern(Node::Mul(v.into_boxed_slice()))
                    }
                }
                None => {
                    let mapped = node.map_children(|c| map[c.index()].expect("child is live"));
                    out.intern(mapped)
                }
            };
            map[i] = Some(new);
            if let Some(name) = self.name(NodeId(i as u32)) {
                out.insert_name(new, name.to_owned());
            }
        }
        let roots = roots
            .iter()
            .map(|r| map[r.index()].expect("root is live"))
            .collect();
        (out, roots)
    }
}

#[cfg(test)]
mod tests {
    use super::super::eval::Env;
    use super::super::node::Var;
    use super::*;

    fn env() -> Env {
        Env {
            q: vec![0.3, -0.7],
            qd: vec![1.1, 0.4],
            qdd: vec![-0.2, 2.5],
            ..Env::default()
        }
    }

    #[test]
    fn nested_accumulations_reuse_their_partial_sums() {
        let mut g = Graph::new();
        let (a, b, c, d) = (
            g.var(Var::Qd(0)),
            g.var(Var::Qd(1)),
            g.var(Var::Qdd(0)),
            g.var(Var::Qdd(1)),
        );
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
        for (r, n) in roots.iter().zip(&new_roots) {
            assert_eq!(g.eval(*r, &env()), h.eval(*n, &env()));
        }
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

    #[test]
    fn a_factor_pair_shared_by_products_is_multiplied_once() {
        let mut g = Graph::new();
        let (c, w, v, u) = (
            g.var(Var::Cos(1)),
            g.var(Var::Qd(0)),
            g.var(Var::Qd(1)),
            g.var(Var::Qdd(1)),
        );
        // c w v, c w u and (c w)^2: c w is not live on its own.
        let p1 = g.product(&[c, w, v]);
        let p2 = g.product(&[c, w, u]);
        let p3 = g.product(&[c, w, c, w]);
        let roots = [p1, p2, p3];
        assert_eq!(g.op_count(&roots).mul, 2 + 2 + 3);
        let (h, r) = g.share_common_factor_pairs(&roots);
        assert_eq!(h.op_count(&r).mul, 1 + 1 + 1 + 1);
        for (a, b) in roots.iter().zip(&r) {
            assert_eq!(g.eval(*a, &env()), h.eval(*b, &env()));
        }
    }
}

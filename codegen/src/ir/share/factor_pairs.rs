//! A pair of factors held by several products, multiplied once: recovers a product that is not
//! live on its own but was flattened into several longer ones, which the partial results
//! cannot reuse.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::ir::graph::Graph;
use crate::ir::node::{Node, NodeId};
use crate::ir::passes::IdMap;

/// A factor of a product while common pairs are extracted: an old node, or pair `k`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Factor {
    Node(NodeId),
    Pair(usize),
}

/// Every pair `(a, b)`, `a <= b`, that can be taken out of the factor list `f` and how often
/// (none for fewer than three factors: a product of two is already one multiplication).
fn factor_pairs(f: &[Factor]) -> Vec<((Factor, Factor), usize)> {
    if f.len() < 3 {
        return Vec::new();
    }
    let mut distinct = f.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    let mut out = Vec::new();
    for (x, &a) in distinct.iter().enumerate() {
        for &b in &distinct[x..] {
            let n = occurrences(f, a, b);
            if n > 0 {
                out.push(((a, b), n));
            }
        }
    }
    out
}

/// How often the pair `(a, b)` can be taken out of the factor list `f`.
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
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;

        let live = self.reachable(roots);
        let mut lists: Vec<Vec<Factor>> = Vec::new();
        let mut list_of: HashMap<usize, usize> = HashMap::default();
        for (i, node) in self.nodes().iter().enumerate() {
            if let Node::Mul(v) = node {
                if live[i] && v.len() >= 3 && self.as_const(v[0]).is_none() {
                    list_of.insert(i, lists.len());
                    lists.push(v.iter().map(|&c| Factor::Node(c)).collect());
                }
            }
        }
        // Pair counts kept up to date as pairs are taken out, so each step costs only the
        // products that change; the heap holds (count, pair) with stale entries skipped, and
        // pops the most frequent pair, the smallest on ties.
        let mut counts: HashMap<(Factor, Factor), usize> = HashMap::default();
        let mut holders: HashMap<(Factor, Factor), Vec<usize>> = HashMap::default();
        let mut heap: BinaryHeap<(usize, Reverse<(Factor, Factor)>)> = BinaryHeap::new();
        for (k, f) in lists.iter().enumerate() {
            for (pair, n) in factor_pairs(f) {
                *counts.entry(pair).or_default() += n;
                holders.entry(pair).or_default().push(k);
            }
        }
        heap.extend(
            counts
                .iter()
                .filter(|(_, &n)| n >= 2)
                .map(|(&pair, &n)| (n, Reverse(pair))),
        );
        let mut pairs: Vec<(Factor, Factor)> = Vec::new();
        while let Some((n, Reverse((a, b)))) = heap.pop() {
            if counts.get(&(a, b)) != Some(&n) {
                continue;
            }
            let k = pairs.len();
            pairs.push((a, b));
            let mut holding = holders.remove(&(a, b)).unwrap_or_default();
            holding.sort_unstable();
            holding.dedup();
            let mut changed: HashSet<(Factor, Factor)> = HashSet::default();
            for s in holding {
                let f = &mut lists[s];
                let times = occurrences(f, a, b);
                if f.len() < 3 || times == 0 {
                    continue;
                }
                for (pair, m) in factor_pairs(f) {
                    *counts.get_mut(&pair).expect("counted") -= m;
                    changed.insert(pair);
                }
                for _ in 0..times {
                    for x in [a, b] {
                        let p = f.iter().position(|&y| y == x).expect("present");
                        f.remove(p);
                    }
                    f.push(Factor::Pair(k));
                }
                for (pair, m) in factor_pairs(f) {
                    *counts.entry(pair).or_default() += m;
                    holders.entry(pair).or_default().push(s);
                    changed.insert(pair);
                }
            }
            let mut changed: Vec<(Factor, Factor)> = changed.into_iter().collect();
            changed.sort_unstable();
            for pair in changed {
                match counts.get(&pair) {
                    Some(&0) => {
                        counts.remove(&pair);
                    }
                    Some(&m) if m >= 2 => heap.push((m, Reverse(pair))),
                    _ => {}
                }
            }
        }

        let mut built: Vec<Option<NodeId>> = vec![None; pairs.len()];
        fn factor(
            out: &mut Graph,
            map: &IdMap,
            pairs: &[(Factor, Factor)],
            built: &mut [Option<NodeId>],
            f: Factor,
        ) -> NodeId {
            match f {
                Factor::Node(c) => map.get(c),
                Factor::Pair(k) => {
                    if let Some(id) = built[k] {
                        return id;
                    }
                    let a = factor(out, map, pairs, built, pairs[k].0);
                    let b = factor(out, map, pairs, built, pairs[k].1);
                    let id = out.intern(Node::Mul([a.min(b), a.max(b)].into()));
                    built[k] = Some(id);
                    id
                }
            }
        }
        self.copy_live(roots, &live, |out, map, i, node| match list_of.get(&i) {
            Some(&l) => {
                let f = &lists[l];
                let mut v: Vec<NodeId> = f
                    .iter()
                    .map(|&x| factor(out, map, &pairs, &mut built, x))
                    .collect();
                v.sort_unstable();
                if v.len() == 1 {
                    v[0]
                } else {
                    out.intern(Node::Mul(v.into()))
                }
            }
            None => out.intern(map.children(node)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::node::Var;
    use crate::ir::share::tests::assert_same_values;

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
        assert_same_values(&g, &roots, &h, &r);
    }
}

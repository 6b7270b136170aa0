//! Recovering the sharing that flattening loses.
//!
//! The constructors keep sums and products flat (the rewrite rules need to see every term), so
//! an accumulation such as `M_j = M_{j+1} + m_j` stores all the terms of `M_{j+1}` again when
//! `M_{j+1}` is itself a sum. When both are live, the code would add the same terms twice. This
//! pass runs once the expressions are final and rewrites every sum (product) that contains all
//! the operands of an earlier live sum (product) to use that sum's value instead; a sum may also
//! reuse an earlier sum with every sign flipped, as a subtraction.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::graph::Graph;
use super::node::{Node, NodeId};
use super::passes::{tidy, IdMap};
use super::signs::negate;
use crate::parallel::{parallel_in_order, parallel_map};

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

/// A monomial while common term pairs are extracted: an old node, or pair `k`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Mono {
    Old(NodeId),
    // 32 bits, as node ids: a pair key is then 32 bytes, and a large function has millions.
    Pair(u32),
}

/// A sum operand: the old term node as it is, or a (possibly negated) pair.
#[derive(Clone, Copy, Debug)]
enum Operand {
    Old(NodeId, Option<NodeId>, u64),
    Pair(usize, bool),
}

impl Operand {
    /// Monomial and coefficient, `None` for a constant.
    fn term(self) -> Option<(Mono, f64)> {
        match self {
            Operand::Old(_, Some(m), bits) => Some((Mono::Old(m), f64::from_bits(bits))),
            Operand::Old(_, None, _) => None,
            Operand::Pair(k, neg) => Some((Mono::Pair(k as u32), if neg { -1.0 } else { 1.0 })),
        }
    }
}

/// A pair of terms `c_a a + c_b b` with `a < b` and `c_a > 0` (coefficients as bits).
type PairKey = (Mono, u64, Mono, u64);

/// The pair made of two terms, and whether the terms are its negation.
fn pair_key((ma, ca): (Mono, f64), (mb, cb): (Mono, f64)) -> (PairKey, bool) {
    let ((ma, ca), (mb, cb)) = if ma < mb {
        ((ma, ca), (mb, cb))
    } else {
        ((mb, cb), (ma, ca))
    };
    if ca < 0.0 {
        ((ma, (-ca).to_bits(), mb, (-cb).to_bits()), true)
    } else {
        ((ma, ca.to_bits(), mb, cb.to_bits()), false)
    }
}

/// Every pair of non-constant terms of one sum.
fn sum_pairs(ops: &[Operand]) -> Vec<PairKey> {
    let terms: Vec<(Mono, f64)> = ops.iter().filter_map(|o| o.term()).collect();
    let mut out = Vec::with_capacity(terms.len() * terms.len().saturating_sub(1) / 2);
    for (x, &a) in terms.iter().enumerate() {
        for &b in &terms[x + 1..] {
            out.push(pair_key(a, b).0);
        }
    }
    out
}

impl Graph {
    /// A copy where a pair of terms shared by several sums (up to a common sign) is added once
    /// (most frequent pair first, repeatedly), and the roots' ids in it. This recovers
    /// intermediate sums that flattening spread into several sums (`ω̇_z` inside `ω̇_z + ω_x ω_y`
    /// and `ω_x ω_y - ω̇_z`, ...); a sum keeps its number of additions or loses some.
    pub fn share_common_term_pairs(&self, roots: &[NodeId]) -> (Graph, Vec<NodeId>) {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;

        let live = self.reachable(roots);
        let mut sums: Vec<(usize, Vec<Operand>)> = Vec::new();
        for (i, node) in self.nodes().iter().enumerate() {
            if let (true, Node::Add(v)) = (live[i], node) {
                let ops = v
                    .iter()
                    .map(|&c| {
                        let (m, bits) = term_key(self, c);
                        Operand::Old(c, m, bits)
                    })
                    .collect();
                sums.push((i, ops));
            }
        }
        // Counted by sorting: most pairs are held by a single sum, and a map of every pair was
        // the largest allocation of a large function's generation.
        let mut every: Vec<PairKey> = sums.iter().flat_map(|(_, ops)| sum_pairs(ops)).collect();
        every.sort_unstable();
        // A pair of old terms is never made again, so one held by a single sum stays there
        // alone: only pairs held twice or more are counted and need their holders.
        let mut counts: HashMap<PairKey, usize> = every
            .chunk_by(|a, b| a == b)
            .filter(|run| run.len() >= 2)
            .map(|run| (run[0], run.len()))
            .collect();
        drop(every);
        let mut holders: HashMap<PairKey, Vec<usize>> = HashMap::default();
        for (k, (_, ops)) in sums.iter().enumerate() {
            for key in sum_pairs(ops) {
                if counts.contains_key(&key) {
                    holders.entry(key).or_default().push(k);
                }
            }
        }
        let mut heap: BinaryHeap<(usize, Reverse<PairKey>)> = counts
            .iter()
            .filter(|(_, &n)| n >= 2)
            .map(|(&key, &n)| (n, Reverse(key)))
            .collect();
        let mut pairs: Vec<PairKey> = Vec::new();
        while let Some((n, Reverse(key))) = heap.pop() {
            if counts.get(&key) != Some(&n) || n < 2 {
                continue;
            }
            let k = pairs.len();
            pairs.push(key);
            let holding = holders.remove(&key).unwrap_or_default();
            // The pairs with the new term, each once, as it reaches two holders.
            let mut raised: Vec<PairKey> = Vec::new();
            for s in holding {
                let ops = &mut sums[s].1;
                let find = |ops: &[Operand], m: Mono| {
                    ops.iter()
                        .position(|o| o.term().is_some_and(|(x, _)| x == m))
                };
                let (Some(pa), Some(pb)) = (find(ops, key.0), find(ops, key.2)) else {
                    continue;
                };
                let (ta, tb) = (ops[pa].term().expect("term"), ops[pb].term().expect("term"));
                let (found, neg) = pair_key(ta, tb);
                if found != key {
                    continue;
                }
                // Only the pairs with either taken term change: they give way to the pairs
                // with the new one. (A lowered count stays off the heap: pushing it back was
                // tried and found no smaller code on the shipped robots.)
                ops.remove(pa.max(pb));
                ops.remove(pa.min(pb));
                let tp = (Mono::Pair(k as u32), if neg { -1.0 } else { 1.0 });
                for t in ops.iter().filter_map(|o| o.term()) {
                    for old in [pair_key(ta, t).0, pair_key(tb, t).0] {
                        if let Some(c) = counts.get_mut(&old) {
                            *c -= 1;
                        }
                    }
                    let new = pair_key(tp, t).0;
                    let c = counts.entry(new).or_default();
                    *c += 1;
                    holders.entry(new).or_default().push(s);
                    if *c == 2 {
                        raised.push(new);
                    }
                }
                ops.push(Operand::Pair(k, neg));
            }
            // A pair with the new term only gains holders in this step (the pairs that lose
            // some are those with the taken terms), so it goes on the heap once, at its final
            // count, rather than once per holder gained.
            for new in raised {
                heap.push((counts[&new], Reverse(new)));
            }
            counts.remove(&key);
        }

        // The old term node of each (monomial, coefficient), so rebuilt terms reuse it.
        let mut old_terms: HashMap<(Mono, u64), NodeId> = HashMap::default();
        for (_, ops) in &sums {
            for o in ops {
                if let Operand::Old(c, Some(m), bits) = *o {
                    old_terms.entry((Mono::Old(m), bits)).or_insert(c);
                }
            }
        }
        let mut built: Vec<Option<NodeId>> = vec![None; pairs.len()];
        let cx = PairCx {
            pairs: &pairs,
            old_terms: &old_terms,
        };
        let by_node: HashMap<usize, usize> =
            sums.iter().enumerate().map(|(k, (i, _))| (*i, k)).collect();
        self.copy_live(roots, &live, |out, map, i, node| {
            match by_node.get(&i) {
                Some(&k) => {
                    let ops = &sums[k].1;
                    let mut v: Vec<NodeId> = if let [Operand::Pair(p, true)] = ops[..] {
                        // Minus a pair: its two terms with the signs flipped, not a negation.
                        let (ma, ca, mb, cb) = pairs[p];
                        let ta = term_node(out, map, &cx, &mut built, ma, -f(ca));
                        let tb = term_node(out, map, &cx, &mut built, mb, -f(cb));
                        vec![ta, tb]
                    } else {
                        ops.iter()
                            .map(|o| match *o {
                                Operand::Old(c, _, _) => map.get(c),
                                Operand::Pair(p, neg) => {
                                    let id = pair_node(out, map, &cx, &mut built, p);
                                    if neg {
                                        out.intern(Node::Neg(id))
                                    } else {
                                        id
                                    }
                                }
                            })
                            .collect()
                    };
                    v.sort_unstable();
                    if v.len() == 1 {
                        v[0]
                    } else {
                        out.intern(Node::Add(v.into()))
                    }
                }
                None => out.intern(map.children(node)),
            }
        })
    }
}

fn f(bits: u64) -> f64 {
    f64::from_bits(bits)
}

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

impl Graph {
    /// Which nodes the roots depend on, and how many times each is read (by live nodes and as
    /// a root).
    fn live_users(&self, roots: &[NodeId]) -> (Vec<bool>, Vec<usize>) {
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

/// Operations, then multiplications: what the sharing passes minimise.
/// A rewriting pass: the rewritten copy of a graph and its roots' ids in it.
type Pass = fn(&Graph, &[NodeId]) -> (Graph, Vec<NodeId>);

fn cost(g: &Graph, r: &[NodeId]) -> (usize, usize) {
    let c = g.op_count(r);
    (c.mul + c.add + c.neg + c.div + c.sqrt, c.mul)
}

impl Graph {
    /// What `pass` makes of `roots`, when that saves operations and no multiplication
    /// (flipping a shared sum, say, can cost a multiplication elsewhere).
    fn if_cheaper(&self, roots: &[NodeId], pass: Pass) -> Option<(Graph, Vec<NodeId>)> {
        let (g, r) = pass(self, roots);
        let (new, old) = (cost(&g, &r), cost(self, roots));
        (new.0 < old.0 && new.1 <= old.1).then_some((g, r))
    }

    /// Every sharing pass of this file, in order.
    fn share_all(&self, roots: &[NodeId], early_pairs: bool) -> (Graph, Vec<NodeId>) {
        let then: [Pass; 7] = [
            Graph::share_common_factor_pairs,
            Graph::share_common_term_pairs,
            Graph::absorb_negations,
            Graph::factor_common_coefficients,
            Graph::distribute_coefficients,
            Graph::factor_common_factors,
            // Factoring a coefficient out may leave a sum read negated again.
            Graph::absorb_negations,
        ];
        let mut shared = self.share_partial_results_with(roots, early_pairs);
        for pass in then {
            // Each copy replaces the one before (a large function's copies do not pile up).
            shared = pass(&shared.0, &shared.1);
        }
        shared
    }

    /// The sharing passes for each group of roots (one generated function each), merged into
    /// one graph; and each group's roots in it. Generated functions share nothing at run time,
    /// so each group takes the cheaper of the passes run on the whole graph (which may reuse
    /// a sum another function also needs) and the passes run on the group alone (where no
    /// choice is made for another function's sake): fewer operations, then fewer
    /// multiplications.
    pub fn share_per_function(&self, groups: &[Vec<NodeId>]) -> (Graph, Vec<Vec<NodeId>>) {
        share_per_function_among(&[(self, groups)], &mut |_| {})
    }
}

/// [`Graph::share_per_function`] over several equal forms of the same functions (each a graph
/// and its groups of roots, one group per function, in the same order): each function takes
/// its cheapest sharing among all of them (the first on ties). The result has the first
/// graph's parameters. `starting(k)` is called as the sharing of group `k` starts.
///
/// # Panics
/// If `variants` is empty or the variants have different numbers of groups.
pub(crate) fn share_per_function_among(
    variants: &[(&Graph, &[Vec<NodeId>])],
    starting: &mut dyn FnMut(usize),
) -> (Graph, Vec<Vec<NodeId>>) {
    let first = variants.first().expect("at least one variant").0;
    let n = variants[0].1.len();
    assert!(variants.iter().all(|(_, g)| g.len() == n), "same functions");
    let flat: Vec<NodeId> = variants[0].1.iter().flatten().copied().collect();
    if cost(first, &flat).0 > WHOLE_GROUP_LIMIT {
        return share_large_group(variants, starting);
    }
    share_with_whole_group(variants, starting)
}

/// [`share_per_function_among`] for a group of small functions: each function's cheapest
/// form, among its sharing alone and its part of the whole group's, in every form.
fn share_with_whole_group(
    variants: &[(&Graph, &[Vec<NodeId>])],
    starting: &mut dyn FnMut(usize),
) -> (Graph, Vec<Vec<NodeId>>) {
    let first = variants[0].0;
    let n = variants[0].1.len();
    // Each form, shared with and without the early pairs of `share_partial_results_with`.
    let forms: Vec<(&Graph, &[Vec<NodeId>], bool)> = variants
        .iter()
        .flat_map(|&(g, groups)| [(g, groups, false), (g, groups, true)])
        .collect();
    // The forms are independent: each runs on its own thread where there are cores for it,
    // and the choices below are made in the forms' order, so the output does not depend on
    // the threads.
    let wholes: Vec<(Graph, Vec<NodeId>)> = parallel_map(&forms, |(g, groups, early)| {
        let flat: Vec<NodeId> = groups.iter().flatten().copied().collect();
        g.share_all(&flat, *early)
    });
    let mut offsets = vec![0; forms.len()];
    let mut out = Graph::new();
    out.copy_tables_from(first);
    let mut all = Vec::with_capacity(n);
    for k in 0..n {
        starting(k);
        let jobs: Vec<(usize, usize)> = offsets.iter().copied().enumerate().collect();
        let candidates = parallel_map(&jobs, |&(v, at)| {
            let (g, groups, early) = forms[v];
            let roots = &groups[k];
            let (whole, whole_roots) = &wholes[v];
            let shared = &whole_roots[at..at + roots.len()];
            let (alone, alone_roots) = g.share_all(roots, early);
            let alone = alone
                .if_cheaper(&alone_roots, Graph::absorb_negations_through_sums)
                .unwrap_or((alone, alone_roots));
            // On the whole graph a sum may stay unflipped for another function's reader;
            // within this function alone its negation may be free.
            let whole_f = whole.if_cheaper(shared, Graph::absorb_negations_through_sums);
            let whole_cost = match &whole_f {
                Some((g, r)) => cost(g, r),
                None => cost(whole, shared),
            };
            let alone_cost = cost(&alone.0, &alone.1);
            if alone_cost <= whole_cost {
                (alone_cost, Candidate::Own(Box::new(alone.0), alone.1))
            } else {
                match whole_f {
                    Some((g, r)) => (whole_cost, Candidate::Own(Box::new(g), r)),
                    None => (whole_cost, Candidate::Whole(v, shared.to_vec())),
                }
            }
        });
        for (at, (_, groups, _)) in offsets.iter_mut().zip(&forms) {
            *at += groups[k].len();
        }
        // The cheapest, the first form on ties.
        let (_, best) = candidates
            .into_iter()
            .reduce(|best, c| if c.0 < best.0 { c } else { best })
            .expect("at least one form");
        all.push(match best {
            Candidate::Own(g, r) => finish(&g, &r, &mut out),
            Candidate::Whole(v, r) => finish(&wholes[v].0, &r, &mut out),
        });
    }
    (out, all)
}

/// Above this many operations (a group's functions together, before sharing), the group's
/// large functions are shared each alone, without the early pairs ([`share_large_group`]):
/// the passes on the whole group and the second form took most of a large robot's
/// generation time and memory (a 64-joint chain's derivatives and regressors: two copies of
/// the whole group, each over a million operations) and gained nothing there (the regressor
/// of a 30-joint chain 3 operations of 94 609, every other function of 30- and 64-joint
/// chains none). Every shipped robot's groups are below it.
const WHOLE_GROUP_LIMIT: usize = 100_000;

/// In a large group, the functions up to this many operations are shared as a group of
/// their own, in every form ([`share_large_group`]).
const SMALL_FUNCTION_LIMIT: usize = 5_000;

/// [`share_per_function_among`] for large functions: each function's sharing alone, without
/// the early pairs, in every variant, the variants of all functions spread over the cores (each on the next free one, so a
/// long function does not hold the others back), the cheapest variant of each function taken
/// (the first on ties) and copied into the result in the functions' order as soon as the
/// functions before it are done, so at most a few functions' copies are held at once.
fn share_each_alone(
    variants: &[(&Graph, &[Vec<NodeId>])],
    starting: &mut dyn FnMut(usize),
) -> (Graph, Vec<Vec<NodeId>>) {
    let n = variants[0].1.len();
    let jobs: Vec<(usize, usize)> = (0..n)
        .flat_map(|k| (0..variants.len()).map(move |v| (k, v)))
        .collect();
    let mut out = Graph::new();
    out.copy_tables_from(variants[0].0);
    let mut all = Vec::with_capacity(n);
    // (cost, graph, roots, whether `finished` was already applied).
    type Shared = ((usize, usize), Graph, Vec<NodeId>, bool);
    let mut best: Option<Shared> = None;
    // With a single form there is no choice to wait for: each function is also made final
    // on its thread, and only the copy into the result is left in order.
    let single = variants.len() == 1;
    parallel_in_order(
        &jobs,
        |&(k, v)| {
            let (g, groups) = variants[v];
            let (alone, roots) = g.share_all(&groups[k], false);
            let (alone, roots) = alone
                .if_cheaper(&roots, Graph::absorb_negations_through_sums)
                .unwrap_or((alone, roots));
            let shared_cost = cost(&alone, &roots);
            if single {
                let (g, r) = finished(&alone, &roots).unwrap_or((alone, roots));
                return (shared_cost, g, r, true);
            }
            (shared_cost, alone, roots, false)
        },
        &mut |j| {
            if jobs[j].1 == 0 {
                starting(jobs[j].0);
            }
        },
        &mut |j, candidate: Shared| {
            if !best.as_ref().is_some_and(|b| candidate.0 >= b.0) {
                best = Some(candidate);
            }
            if jobs[j].1 + 1 == variants.len() {
                let (_, g, roots, done) = best.take().expect("a form per function");
                all.push(if done {
                    g.copy_reachable_into(&mut out, &roots)
                } else {
                    finish(&g, &roots, &mut out)
                });
            }
        },
    );
    (out, all)
}

/// The variants' graphs with other groups of roots (one list per variant).
fn with_groups<'a>(
    variants: &[(&'a Graph, &[Vec<NodeId>])],
    groups: &'a [Vec<Vec<NodeId>>],
) -> Vec<(&'a Graph, &'a [Vec<NodeId>])> {
    variants
        .iter()
        .zip(groups)
        .map(|(&(g, _), gs)| (g, &gs[..]))
        .collect()
}

/// [`share_per_function_among`] for a large group: its small functions (a frame's
/// kinematics beside the derivatives, say) as a group of their own, with the whole-group
/// form and the early pairs, which gain them a few operations at little cost; the others
/// each alone ([`share_each_alone`]). The result holds the functions in the group's order.
fn share_large_group(
    variants: &[(&Graph, &[Vec<NodeId>])],
    starting: &mut dyn FnMut(usize),
) -> (Graph, Vec<Vec<NodeId>>) {
    let n = variants[0].1.len();
    let (small, large): (Vec<usize>, Vec<usize>) =
        (0..n).partition(|&k| cost(variants[0].0, &variants[0].1[k]).0 <= SMALL_FUNCTION_LIMIT);
    if small.is_empty() {
        return share_each_alone(variants, starting);
    }
    let part = |ks: &[usize]| -> Vec<Vec<Vec<NodeId>>> {
        variants
            .iter()
            .map(|(_, groups)| ks.iter().map(|&k| groups[k].clone()).collect())
            .collect()
    };
    let (small_groups, large_groups) = (part(&small), part(&large));
    let (gs, rs) = share_with_whole_group(&with_groups(variants, &small_groups), &mut |i| {
        starting(small[i])
    });
    let (gl, rl) = if large.is_empty() {
        (Graph::new(), Vec::new())
    } else {
        share_each_alone(&with_groups(variants, &large_groups), &mut |i| {
            starting(large[i])
        })
    };
    let mut out = Graph::new();
    out.copy_tables_from(variants[0].0);
    let mut all = vec![Vec::new(); n];
    for (ks, g, roots) in [(&small, &gs, &rs), (&large, &gl, &rl)] {
        for (&k, r) in ks.iter().zip(roots) {
            all[k] = g.copy_reachable_into(&mut out, r);
        }
    }
    (out, all)
}

/// One function's sharing: a graph of its own, or its roots in the shared graph of form `v`
/// (kept by reference, since that graph holds every function of the group).
enum Candidate {
    Own(Box<Graph>, Vec<NodeId>),
    Whole(usize, Vec<NodeId>),
}

/// A function's chosen sharing made final and copied into `out` (its roots' ids there):
/// constant offsets merged, then the signs chosen (the passes before choose what is
/// computed, this only how it is signed), each where it is cheaper.
fn finish(g: &Graph, roots: &[NodeId], out: &mut Graph) -> Vec<NodeId> {
    match finished(g, roots) {
        Some((g, r)) => g.copy_reachable_into(out, &r),
        None => g.copy_reachable_into(out, roots),
    }
}

/// The passes of [`finish`] before the copy: `None` where neither makes the function cheaper.
fn finished(g: &Graph, roots: &[NodeId]) -> Option<(Graph, Vec<NodeId>)> {
    let merged = g.if_cheaper(roots, Graph::merge_constant_offsets);
    let signed = {
        let (g, roots) = merged.as_ref().map_or((g, roots), |(m, r)| (m, &r[..]));
        g.if_cheaper(roots, Graph::choose_signs)
    };
    signed.or(merged)
}

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

/// The sum of `terms` (sorted, as sums keep them), or its one term.
fn sum_of(out: &mut Graph, mut terms: Vec<NodeId>) -> NodeId {
    terms.sort_unstable();
    if terms.len() == 1 {
        terms[0]
    } else {
        tidy(out, Node::Add(terms.into()))
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
            if k >= 2 && best.map_or(true, |(_, b)| k > b) {
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

/// The product of `factors`: a constant factor first, the others by id, as a term `c · m`
/// where there is a constant.
fn product_node(out: &mut Graph, mut factors: Vec<NodeId>) -> NodeId {
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

/// What rebuilding pairs needs: the pairs, and the old term node of each (monomial,
/// coefficient).
struct PairCx<'a> {
    pairs: &'a [PairKey],
    old_terms: &'a HashMap<(Mono, u64), NodeId>,
}

/// The node of pair `p`, built on first use.
fn pair_node(
    out: &mut Graph,
    map: &IdMap,
    cx: &PairCx<'_>,
    built: &mut [Option<NodeId>],
    p: usize,
) -> NodeId {
    if let Some(id) = built[p] {
        return id;
    }
    let (ma, ca, mb, cb) = cx.pairs[p];
    let ta = term_node(out, map, cx, built, ma, f(ca));
    let tb = term_node(out, map, cx, built, mb, f(cb));
    // The two monomials may have been copied to one node (`tidy` combines them).
    let id = tidy(out, Node::Add([ta.min(tb), ta.max(tb)].into()));
    built[p] = Some(id);
    id
}

/// The term `c · m`: the old term node when there is one (or its negation, which a sum reads
/// as a subtraction), else in canonical form.
fn term_node(
    out: &mut Graph,
    map: &IdMap,
    cx: &PairCx<'_>,
    built: &mut [Option<NodeId>],
    m: Mono,
    c: f64,
) -> NodeId {
    // Old terms later in id order than the sum being built are not mapped yet.
    let old = |c: f64| {
        cx.old_terms
            .get(&(m, c.to_bits()))
            .and_then(|&t| map.try_get(t))
    };
    if let Some(t) = old(c) {
        return t;
    }
    if let Some(t) = old(-c) {
        return out.intern(Node::Neg(t));
    }
    let m = match m {
        Mono::Old(id) => map.get(id),
        Mono::Pair(p) => pair_node(out, map, cx, built, p as usize),
    };
    if c == 1.0 {
        m
    } else if c == -1.0 {
        out.intern(Node::Neg(m))
    } else {
        let k = out.intern(Node::Const(c.to_bits()));
        out.intern(Node::Mul([k, m].into()))
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::eval::Env;
    use super::super::node::Var;
    use super::*;

    pub(in crate::ir) fn env() -> Env {
        Env {
            q: vec![0.3, -0.7],
            qd: vec![1.1, 0.4],
            qdd: vec![-0.2, 2.5],
            ..Env::default()
        }
    }

    /// `q̇_1, q̇_2, q̈_1, q̈_2` as leaves of `g`.
    fn leaves(g: &mut Graph) -> [NodeId; 4] {
        [Var::Qd(0), Var::Qd(1), Var::Qdd(0), Var::Qdd(1)].map(|v| g.var(v))
    }

    /// Each root of `g` has the value of the matching root of the rewritten `h`.
    pub(in crate::ir) fn assert_same_values(
        g: &Graph,
        roots: &[NodeId],
        h: &Graph,
        new_roots: &[NodeId],
    ) {
        for (a, b) in roots.iter().zip(new_roots) {
            assert_eq!(g.eval(*a, &env()), h.eval(*b, &env()));
        }
    }

    /// Two sums sharing a product, and a difference reading the first: `(graph, [s1, s2, t])`.
    fn overlapping_sums() -> (Graph, [NodeId; 3]) {
        let mut g = Graph::new();
        let [a, b, c, d] = leaves(&mut g);
        let ab = g.mul(a, b);
        let s1 = g.sum(&[a, b, ab, c]);
        let s2 = g.sum(&[ab, c, d]);
        let t = g.sub(d, s1);
        (g, [s1, s2, t])
    }

    /// `h` at `ys` evaluates as `g` at `xs`, to rounding.
    fn assert_close(g: &Graph, xs: &[NodeId], h: &Graph, ys: &[NodeId]) {
        for (&x, &y) in xs.iter().zip(ys) {
            let (want, got) = (g.eval(x, &env()), h.eval(y, &env()));
            assert!(
                (want - got).abs() <= 1e-12 * want.abs().max(1.0),
                "{want} vs {got}"
            );
        }
    }

    #[test]
    fn a_repeated_variant_changes_nothing() {
        let (g, [s1, s2, t]) = overlapping_sums();
        let groups = vec![vec![s1, t], vec![s2]];
        let (once, r1) = share_per_function_among(&[(&g, &groups)], &mut |_| {});
        let mut started = Vec::new();
        let (twice, r2) =
            share_per_function_among(&[(&g, &groups), (&g, &groups)], &mut |k| started.push(k));
        assert_eq!(started, [0, 1]);
        assert_eq!(r1, r2);
        assert_eq!(once.nodes(), twice.nodes());
        for (xs, ys) in groups.iter().zip(&r1) {
            assert_close(&g, xs, &once, ys);
        }
    }

    #[test]
    fn a_large_group_shares_each_function_alone_in_order() {
        let (mut g, [s1, s2, t]) = overlapping_sums();
        let p = g.mul(s2, t);
        let groups = vec![vec![s1, t], vec![s2], vec![p, s1]];
        let mut started = Vec::new();
        let (once, r1) = share_each_alone(&[(&g, &groups)], &mut |k| started.push(k));
        assert_eq!(started, [0, 1, 2]);
        let (twice, r2) = share_each_alone(&[(&g, &groups), (&g, &groups)], &mut |_| {});
        assert_eq!(r1, r2);
        assert_eq!(once.nodes(), twice.nodes());
        for (group, roots) in groups.iter().zip(&r1) {
            // Each function costs what its passes alone give, made final.
            let (alone, alone_roots) = g.share_all(group, false);
            assert!(cost(&once, roots).0 <= cost(&alone, &alone_roots).0);
            assert_close(&g, group, &once, roots);
        }
    }

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

    #[test]
    fn a_term_pair_shared_by_sums_is_added_once() {
        let mut g = Graph::new();
        let [a, b, c, d] = leaves(&mut g);
        let half = g.constant(0.5);
        let half_b = g.mul(half, b);
        // a + b/2 + c, -a - b/2 + d and -a - b/2 (all flattened): a + b/2 is not live.
        let s1 = g.sum(&[a, half_b, c]);
        let na = g.neg(a);
        let nb = g.neg(half_b);
        let s2 = g.sum(&[na, nb, d]);
        let s3 = g.sum(&[na, nb]);
        let roots = [s1, s2, s3];
        assert_eq!(g.op_count(&roots).add, 2 + 2 + 1);
        let (h, r) = g.share_common_term_pairs(&roots);
        let count = h.op_count(&r);
        assert_eq!((count.add, count.neg), (1 + 1 + 1 + 1, 0));
        assert_same_values(&g, &roots, &h, &r);
    }

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

//! A pair of terms held by several sums (up to a common sign), added once: recovers an
//! intermediate sum that flattening spread into several others.

use rustc_hash::FxHashMap as HashMap;

use super::terms::term_key;
use crate::ir::graph::Graph;
use crate::ir::node::{Node, NodeId};
use crate::ir::passes::{tidy, IdMap};

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
mod tests {
    use super::*;
    use crate::ir::share::tests::{assert_same_values, leaves};

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
}

//! Sign choice: every sum, product, quotient and square root may be computed as its value or
//! as its negation, whichever leaves fewer negations to write.
//!
//! A negation costs nothing where a sum reads it (it subtracts) or a literal absorbs it
//! (`-0.5 * x`), and one operation anywhere else: an output, a factor of a product without a
//! literal, a quotient, a square root, a sum whose every term is subtracted. The sharing
//! passes leave such negations where a shared value is read with both signs, or through a
//! product (`s * (-x)` next to `x + ...`). Here each computed node gets a sign bit, chosen by
//! a local search that flips a node (with the literal-free products and quotients it feeds,
//! which otherwise would need a negation) while that lowers the count; the copy then computes
//! each node with its chosen sign and puts every sign where it is free.

use super::graph::Graph;
use super::node::{Node, NodeId};
use super::passes::tidy;
use crate::parallel::parallel_array;

/// Each live node as `sign · base`, `base` not a negation.
#[derive(Clone, Copy)]
struct Signed {
    base: usize,
    negative: bool,
}

/// The search state: which nodes are kept negated, and what each cost depends on.
struct Search<'g> {
    g: &'g Graph,
    /// Every live node through its negations.
    resolved: Vec<Option<Signed>>,
    /// Kept as its negation.
    flipped: Vec<bool>,
    /// The computed nodes (not negations) reading each base, each once.
    readers: Vec<Vec<usize>>,
    /// Distinct roots on each base: how many read it plainly, how many negated.
    roots: Vec<(usize, usize)>,
    /// Products with a literal read by one sum only (and no output): the literal takes the
    /// sign that sum reads them with, so they are no variable of the search.
    absorbing: Vec<bool>,
}

impl<'g> Search<'g> {
    fn new(g: &'g Graph, roots: &[NodeId], absorb: bool) -> Search<'g> {
        let live = g.reachable(roots);
        let mut resolved: Vec<Option<Signed>> = vec![None; g.len()];
        let mut readers: Vec<Vec<usize>> = vec![Vec::new(); g.len()];
        for (i, node) in g.nodes().iter().enumerate() {
            if !live[i] {
                continue;
            }
            resolved[i] = Some(match node {
                Node::Neg(x) => {
                    let s = resolved[x.index()].expect("child first");
                    Signed {
                        negative: !s.negative,
                        ..s
                    }
                }
                _ => {
                    for c in node.children() {
                        let b = resolved[c.index()].expect("child first").base;
                        if readers[b].last() != Some(&i) {
                            readers[b].push(i);
                        }
                    }
                    Signed {
                        base: i,
                        negative: false,
                    }
                }
            });
        }
        let mut distinct = roots.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        let mut root_reads = vec![(0, 0); g.len()];
        for r in distinct {
            let s = resolved[r.index()].expect("root is live");
            if s.negative {
                root_reads[s.base].1 += 1;
            } else {
                root_reads[s.base].0 += 1;
            }
        }
        let mut search = Search {
            g,
            resolved,
            flipped: vec![false; g.len()],
            readers,
            roots: root_reads,
            absorbing: vec![false; g.len()],
        };
        for i in 0..g.len() {
            search.absorbing[i] = match (g.node(NodeId(i as u32)), &search.readers[i][..]) {
                (Node::Mul(v), &[r]) if absorb => {
                    search.resolved[i].is_some_and(|s| s.base == i)
                        && search.roots[i] == (0, 0)
                        && search.has_literal(v)
                        && matches!(g.node(NodeId(r as u32)), Node::Add(_))
                }
                _ => false,
            };
        }
        search
    }

    /// The sign `child` is read with, relative to its base as computed.
    fn negative(&self, child: NodeId) -> bool {
        let s = self.resolved[child.index()].expect("live");
        s.negative != self.flipped[s.base]
    }

    /// Whether sum `i` subtracts its operand `c` (a product whose literal takes the sign is
    /// never subtracted).
    fn subtracted(&self, c: NodeId, i: usize) -> bool {
        let base = self.resolved[c.index()].expect("live").base;
        !self.absorbing[base] && self.negative(c) != self.flipped[i]
    }

    /// The value of `child` if it is a literal (which takes any sign for free).
    fn literal(&self, child: NodeId) -> Option<f64> {
        let s = self.resolved[child.index()].expect("live");
        let k = self.g.as_const(NodeId(s.base as u32))?;
        Some(if s.negative { -k } else { k })
    }

    /// Whether a product has a literal factor other than `±1`, which carries its sign.
    fn has_literal(&self, factors: &[NodeId]) -> bool {
        factors
            .iter()
            .any(|&c| self.literal(c).is_some_and(|k| k.abs() != 1.0))
    }

    /// Negations node `i` costs as computed with its chosen sign, outputs included.
    fn cost(&self, i: usize) -> usize {
        let own = match self.g.node(NodeId(i as u32)) {
            Node::Add(v) => {
                let all_subtracted = v
                    .iter()
                    .all(|&c| self.literal(c).is_none() && self.subtracted(c, i));
                usize::from(all_subtracted)
            }
            Node::Mul(v) => {
                let sign = v
                    .iter()
                    .fold(self.flipped[i], |s, &c| match self.literal(c) {
                        Some(k) => s ^ (k < 0.0),
                        None => s ^ self.negative(c),
                    });
                usize::from(sign && !self.has_literal(v))
            }
            Node::Div(a, b) => {
                let sign = self.flipped[i] ^ self.negative(*a) ^ self.negative(*b);
                let literal = self.literal(*a).is_some() || self.literal(*b).is_some();
                usize::from(sign && !literal)
            }
            Node::Sqrt(x) => {
                let negative = self.literal(*x).is_none() && self.negative(*x);
                usize::from(negative) + usize::from(self.flipped[i])
            }
            Node::Const(_) | Node::Var(_) | Node::Neg(_) => 0,
        };
        let (plain, negated) = self.roots[i];
        own + if self.flipped[i] { plain } else { negated }
    }

    /// Whether node `i` may be kept negated.
    fn flippable(&self, i: usize) -> bool {
        self.resolved[i].is_some_and(|s| s.base == i)
            && !self.absorbing[i]
            && matches!(
                self.g.node(NodeId(i as u32)),
                Node::Add(_) | Node::Mul(_) | Node::Div(_, _) | Node::Sqrt(_)
            )
    }

    /// Whether a reader's sign follows its operands' for free (a product or quotient without
    /// a literal): flipping an operand alone would cost it a negation.
    fn follows(&self, r: usize) -> bool {
        match self.g.node(NodeId(r as u32)) {
            Node::Mul(v) => !self.has_literal(v),
            Node::Div(a, b) => self.literal(*a).is_none() && self.literal(*b).is_none(),
            _ => false,
        }
    }

    /// Total cost of the nodes `moved` and their readers.
    fn cost_around(&self, moved: &[usize], seen: &mut Vec<usize>) -> usize {
        seen.clear();
        for &m in moved {
            seen.push(m);
            seen.extend_from_slice(&self.readers[m]);
        }
        seen.sort_unstable();
        seen.dedup();
        seen.iter().map(|&i| self.cost(i)).sum()
    }

    /// Flips `moved` if that lowers the cost; returns whether it did.
    fn try_flip(&mut self, moved: &[usize], seen: &mut Vec<usize>) -> bool {
        let before = self.cost_around(moved, seen);
        for &m in moved {
            self.flipped[m] = !self.flipped[m];
        }
        if self.cost_around(moved, seen) < before {
            return true;
        }
        for &m in moved {
            self.flipped[m] = !self.flipped[m];
        }
        false
    }

    /// Single flips, then a node with the sign-following readers it feeds, until no move
    /// lowers the cost (each accepted move lowers it, so this ends).
    fn run(&mut self) {
        let mut seen = Vec::new();
        let mut moved = Vec::new();
        for _sweep in 0..16 {
            let mut changed = false;
            for i in 0..self.g.len() {
                if !self.flippable(i) {
                    continue;
                }
                if self.try_flip(&[i], &mut seen) {
                    changed = true;
                    continue;
                }
                // With the products and quotients above it that would otherwise need a
                // negation, transitively (a bounded number).
                moved.clear();
                moved.push(i);
                let mut k = 0;
                while k < moved.len() && moved.len() < MAX_MOVE {
                    let m = moved[k];
                    for &r in &self.readers[m] {
                        if self.follows(r) && !moved.contains(&r) && moved.len() < MAX_MOVE {
                            moved.push(r);
                        }
                    }
                    k += 1;
                }
                if moved.len() > 1 && self.try_flip(&moved, &mut seen) {
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        // Each absorbing product is read plainly by its sum.
        for b in 0..self.g.len() {
            if !self.absorbing[b] {
                continue;
            }
            let r = self.readers[b][0];
            let c = self
                .g
                .node(NodeId(r as u32))
                .children()
                .find(|c| self.resolved[c.index()].is_some_and(|s| s.base == b))
                .expect("read by its sum");
            let s = self.resolved[c.index()].expect("live");
            self.flipped[b] = s.negative != self.flipped[r];
        }
    }
}

/// Graphs of at least this many nodes run [`Graph::choose_signs`]' two searches in parallel.
const PARALLEL_SEARCH_MIN_NODES: usize = 100_000;

/// The most nodes flipped together in one move of the search.
const MAX_MOVE: usize = 32;

/// `-x` in `g`: a negation's operand, a negated literal, or a new negation.
pub(crate) fn negate(g: &mut Graph, x: NodeId) -> NodeId {
    match g.node(x) {
        Node::Neg(y) => *y,
        Node::Const(_) => {
            let k = g.as_const(x).expect("constant");
            g.constant(-k)
        }
        _ => g.intern(Node::Neg(x)),
    }
}

/// `x` or `-x`.
fn signed(g: &mut Graph, x: NodeId, negative: bool) -> NodeId {
    if negative {
        negate(g, x)
    } else {
        x
    }
}

/// `(x, negative)` with a negation of `x` taken off into the sign.
fn peel(g: &Graph, x: NodeId, negative: bool) -> (NodeId, bool) {
    match g.node(x) {
        Node::Neg(y) => (*y, !negative),
        _ => (x, negative),
    }
}

impl Graph {
    /// A copy computing the same roots with each sum, product, quotient and square root kept
    /// as its value or its negation so that the fewest negations cost an operation (see the
    /// module docs); and the roots' ids in it.
    ///
    /// The search runs twice, with the products whose literal can take their sum's sign
    /// fixed to it and without (where equal products of opposite literals may then merge),
    /// and the copy with fewer operations is kept.
    pub fn choose_signs(&self, roots: &[NodeId]) -> (Graph, Vec<NodeId>) {
        // The two searches are independent: on cores of their own for a large graph (a
        // large robot's derivatives, where they take seconds), in turn otherwise (threads
        // would cost more than a small search).
        let [a, b] = if self.len() >= PARALLEL_SEARCH_MIN_NODES {
            parallel_array([true, false], |&absorb| self.signed_copy(roots, absorb))
        } else {
            [true, false].map(|absorb| self.signed_copy(roots, absorb))
        };
        let total = |(g, r): &(Graph, Vec<NodeId>)| g.op_count(r).total();
        if total(&b) < total(&a) {
            b
        } else {
            a
        }
    }

    fn signed_copy(&self, roots: &[NodeId], absorb: bool) -> (Graph, Vec<NodeId>) {
        let mut search = Search::new(self, roots, absorb);
        search.run();
        let mut out = Graph::new();
        out.copy_tables_from(self);
        // The copy of each computed node, with its chosen sign.
        let mut copy: Vec<Option<NodeId>> = vec![None; self.len()];
        // An operand of node `i` as read, given whether `i` itself is kept negated: the copy
        // of its base and whether that must be negated.
        let read = |out: &Graph, copy: &[Option<NodeId>], c: NodeId, flipped: bool| {
            let s = search.resolved[c.index()].expect("live");
            let base = copy[s.base].expect("child first");
            peel(out, base, s.negative ^ search.flipped[s.base] ^ flipped)
        };
        for (i, node) in self.nodes().iter().enumerate() {
            match search.resolved[i] {
                Some(s) if s.base == i => {}
                _ => continue,
            }
            let flip = search.flipped[i];
            let new = match node {
                Node::Const(_) | Node::Var(_) => out.intern(node.clone()),
                Node::Neg(_) => unreachable!("negations are read through"),
                Node::Add(v) => {
                    // Two operands that were different nodes of opposite values can now be one
                    // node read with both signs: such pairs cancel, and `tidy` combines what
                    // else became equal.
                    let mut read_terms: Vec<(NodeId, bool)> =
                        v.iter().map(|&c| read(&out, &copy, c, flip)).collect();
                    read_terms.sort_unstable();
                    let mut terms: Vec<NodeId> = Vec::with_capacity(read_terms.len());
                    let mut k = 0;
                    while k < read_terms.len() {
                        let (b, neg) = read_terms[k];
                        if read_terms.get(k + 1) == Some(&(b, !neg)) {
                            k += 2;
                            continue;
                        }
                        terms.push(signed(&mut out, b, neg));
                        k += 1;
                    }
                    match terms.len() {
                        0 => out.constant(0.0),
                        1 => terms[0],
                        _ => tidy(&mut out, Node::Add(terms.into())),
                    }
                }
                Node::Mul(v) => {
                    let mut negative = flip;
                    let mut literal: Option<f64> = None;
                    let mut factors = Vec::with_capacity(v.len());
                    for &c in v.iter() {
                        let (b, neg) = read(&out, &copy, c, false);
                        negative ^= neg;
                        match out.as_const(b) {
                            Some(k) => literal = Some(literal.unwrap_or(1.0) * k),
                            None => factors.push(b),
                        }
                    }
                    if let Some(k) = literal {
                        let k = if negative { -k } else { k };
                        negative = false;
                        if k == -1.0 {
                            negative = true;
                        } else if k != 1.0 {
                            factors.push(out.constant(k));
                        }
                    }
                    let product = match factors.len() {
                        0 => out.constant(1.0),
                        1 => factors[0],
                        _ => tidy(&mut out, Node::Mul(factors.into())),
                    };
                    signed(&mut out, product, negative)
                }
                Node::Div(a, b) => {
                    let (na, sa) = read(&out, &copy, *a, false);
                    let (nb, sb) = read(&out, &copy, *b, false);
                    let negative = flip ^ sa ^ sb;
                    if out.as_const(na).is_some() {
                        let na = signed(&mut out, na, negative);
                        tidy(&mut out, Node::Div(na, nb))
                    } else if out.as_const(nb).is_some() {
                        let nb = signed(&mut out, nb, negative);
                        tidy(&mut out, Node::Div(na, nb))
                    } else {
                        let q = tidy(&mut out, Node::Div(na, nb));
                        signed(&mut out, q, negative)
                    }
                }
                Node::Sqrt(x) => {
                    let (nx, sx) = read(&out, &copy, *x, false);
                    let nx = signed(&mut out, nx, sx);
                    let r = out.intern(Node::Sqrt(nx));
                    signed(&mut out, r, flip)
                }
            };
            if !flip {
                if let Some(name) = self.name(NodeId(i as u32)) {
                    out.insert_name(new, name.to_owned());
                }
            }
            copy[i] = Some(new);
        }
        let roots = roots
            .iter()
            .map(|&r| {
                let (b, neg) = read(&out, &copy, r, false);
                signed(&mut out, b, neg)
            })
            .collect();
        (out, roots)
    }
}

#[cfg(test)]
mod tests {
    use super::super::node::Var;
    use super::super::share::tests::assert_same_values;
    use super::*;

    /// Node `node` as written, without the simplifying constructors.
    fn raw(g: &mut Graph, node: Node) -> NodeId {
        g.intern(node)
    }

    #[test]
    fn a_product_read_negated_is_computed_negated() {
        // x = a - b read plainly by one output; p = c (-x) read only negated by another: p is
        // computed as c x, so neither `-x` nor `-p` costs a negation.
        let mut g = Graph::new();
        let [a, b, c] = [Var::Qd(0), Var::Qd(1), Var::Qdd(0)].map(|v| g.var(v));
        let nb = raw(&mut g, Node::Neg(b));
        let x = raw(&mut g, Node::Add([a, nb].into()));
        let nx = raw(&mut g, Node::Neg(x));
        let p = raw(&mut g, Node::Mul([c, nx].into()));
        let np = raw(&mut g, Node::Neg(p));
        let roots = [x, np];
        assert_eq!(g.op_count(&roots).neg, 2);
        let (h, r) = g.choose_signs(&roots);
        assert_eq!(h.op_count(&r).neg, 0);
        assert_eq!(h.op_count(&r).total(), g.op_count(&roots).total() - 2);
        assert_same_values(&g, &roots, &h, &r);
    }

    #[test]
    fn a_literal_takes_the_sign_of_a_sum_with_every_term_subtracted() {
        // 2 a (-b - c) as -2 a (b + c).
        let mut g = Graph::new();
        let [a, b, c] = [Var::Qd(0), Var::Qd(1), Var::Qdd(0)].map(|v| g.var(v));
        let (nb, nc) = (raw(&mut g, Node::Neg(b)), raw(&mut g, Node::Neg(c)));
        let s = raw(&mut g, Node::Add([nb, nc].into()));
        let two = g.constant(2.0);
        let p = raw(&mut g, Node::Mul([two, a, s].into()));
        assert_eq!(g.op_count(&[p]).neg, 1);
        let (h, r) = g.choose_signs(&[p]);
        assert_eq!(h.op_count(&r).neg, 0);
        assert_eq!(h.as_const(h.mono_factors(r[0])[0]), None);
        assert_same_values(&g, &[p], &h, &r);
    }

    #[test]
    fn an_output_and_its_negation_keep_one_negation() {
        // Both signs of one value are outputs: one negation is needed, whichever is flipped.
        let mut g = Graph::new();
        let [a, b] = [Var::Qd(0), Var::Qd(1)].map(|v| g.var(v));
        let p = raw(&mut g, Node::Mul([a, b].into()));
        let np = raw(&mut g, Node::Neg(p));
        let roots = [p, np, np];
        let (h, r) = g.choose_signs(&roots);
        assert_eq!(h.op_count(&r), g.op_count(&roots));
        assert_eq!(h.op_count(&r).neg, 1);
        assert_same_values(&g, &roots, &h, &r);
    }

    #[test]
    fn quotients_and_roots_get_their_signs_where_free() {
        // sqrt(a² + b²) / (-(a b)) as -sqrt(..) / (a b) with the literal-free quotient negated:
        // read by a sum only, that negation is free.
        let mut g = Graph::new();
        let [a, b, c] = [Var::Qd(0), Var::Qd(1), Var::Qdd(0)].map(|v| g.var(v));
        let (aa, bb) = (
            raw(&mut g, Node::Mul([a, a].into())),
            raw(&mut g, Node::Mul([b, b].into())),
        );
        let s = raw(&mut g, Node::Add([aa, bb].into()));
        let r = raw(&mut g, Node::Sqrt(s));
        let ab = raw(&mut g, Node::Mul([a, b].into()));
        let nab = raw(&mut g, Node::Neg(ab));
        let q = raw(&mut g, Node::Div(r, nab));
        let out = raw(&mut g, Node::Add([c, q].into()));
        assert_eq!(g.op_count(&[out]).neg, 1);
        let (h, new) = g.choose_signs(&[out]);
        assert_eq!(h.op_count(&new).neg, 0);
        assert_same_values(&g, &[out], &h, &new);
    }

    #[test]
    fn operands_made_one_node_are_combined() {
        // a = 0.5 x and b = -0.5 x are different nodes of opposite values; b is an output
        // only through its negation, so it is computed as 0.5 x, the node a is: their sum
        // is then written as the zero it is, and the product it feeds too.
        let mut g = Graph::new();
        let [x, c] = [Var::Qd(0), Var::Qd(1)].map(|v| g.var(v));
        let (half, mhalf) = (g.constant(0.5), g.constant(-0.5));
        let a = raw(&mut g, Node::Mul([half, x].into()));
        let b = raw(&mut g, Node::Mul([mhalf, x].into()));
        let s = raw(&mut g, Node::Add([a, b].into()));
        let p = raw(&mut g, Node::Mul([c, s].into()));
        let nb = raw(&mut g, Node::Neg(b));
        let roots = [p, a, nb];
        let (h, r) = g.choose_signs(&roots);
        assert_same_values(&g, &roots, &h, &r);
        assert_eq!(h.as_const(r[0]), Some(0.0));
        assert_eq!(r[1], r[2]);
        assert_eq!(h.op_count(&r).total(), 1);
    }
}

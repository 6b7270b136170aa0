//! Whole-graph passes: liveness, compaction, lowering of multi-joint `sin`/`cos`.

use rustc_hash::FxHashMap as HashMap;

use super::graph::Graph;
use super::node::{Node, NodeId, Var};

impl Graph {
    /// Which nodes the roots depend on (indexed by node id).
    pub fn reachable(&self, roots: &[NodeId]) -> Vec<bool> {
        let mut live = vec![false; self.len()];
        for r in roots {
            live[r.index()] = true;
        }
        // Parents have larger ids than children: one backward walk marks everything.
        for i in (0..self.len()).rev() {
            if live[i] {
                for c in self.nodes()[i].children() {
                    live[c.index()] = true;
                }
            }
        }
        live
    }

    /// A copy holding only the nodes the roots depend on (parameters and display names kept),
    /// and the roots' ids in it. Ids stay children-first and keep their relative order.
    pub fn compact(&self, roots: &[NodeId]) -> (Graph, Vec<NodeId>) {
        self.rebuild(roots, |_, _, _| None)
    }

    /// Rewrites `sin`/`cos` of multi-joint angle sums into products of single-joint `sin`/`cos`
    /// (`s_AB = s_A c_B + c_A s_B`, `c_AB = c_A c_B - s_A s_B`), so the emitted code calls the
    /// trigonometric functions only on joint angles, once each. The mask is split into its
    /// highest joint and the rest, recursively, so chains of parallel joints (`{1,2}`,
    /// `{1,2,3}`, ...) share their partial sums. This is always done: two multiplications and one
    /// addition per identity cost far less than a `sin`/`cos` call, even counting the unused
    /// partner of a pair. Returns the rebuilt graph (dead nodes dropped) and the roots' ids.
    pub fn lower_trig_sums(&self, roots: &[NodeId]) -> (Graph, Vec<NodeId>) {
        let mut memo: HashMap<Var, NodeId> = HashMap::default();
        self.rebuild(roots, move |g, _, node| match node {
            Node::Var(v @ (Var::Sin(m) | Var::Cos(m))) if m.count_ones() > 1 => {
                Some(lower_trig(g, *v, &mut memo))
            }
            _ => None,
        })
    }

    /// [`Graph::lower_trig_sums`], except that a product of a multi-joint `sin`/`cos` with a
    /// joint velocity is written as the step-by-step rotation it came from (`c_23 q̇1` as
    /// `c3 (c2 q̇1) - s3 (s2 q̇1)`): the angle-sum rules merge velocity rotations as they are
    /// built, and lowering `c_23` again can cost more than the partial products the recursion
    /// shares anyway. An equal alternative form; [`Module::lowered`](super::Module::lowered)
    /// keeps per function whichever is cheaper.
    pub fn lower_trig_sums_stepwise(&self, roots: &[NodeId]) -> (Graph, Vec<NodeId>) {
        let live = self.reachable(roots);
        let mut memo: HashMap<Var, NodeId> = HashMap::default();
        self.copy_live(roots, &live, |out, map, _, node| match node {
            Node::Var(v @ (Var::Sin(m) | Var::Cos(m))) if m.count_ones() > 1 => {
                lower_trig(out, *v, &mut memo)
            }
            Node::Mul(v) => match self.rotated_velocities(v) {
                Some(pairs) => {
                    let paired = |i: usize| pairs.iter().any(|&(t, q)| i == t || i == q);
                    let others: Vec<NodeId> = v
                        .iter()
                        .enumerate()
                        .filter(|&(i, _)| !paired(i))
                        .map(|(_, &c)| map.get(c))
                        .collect();
                    // Each rotated velocity as the recursion computed it, times the rest.
                    let rotated: Vec<NodeId> = pairs
                        .iter()
                        .map(|&(t, q)| {
                            let (is_sin, mask) = match self.node(v[t]) {
                                Node::Var(Var::Sin(m)) => (true, *m),
                                Node::Var(Var::Cos(m)) => (false, *m),
                                _ => unreachable!("a trig leaf"),
                            };
                            rotate(out, is_sin, mask, &[map.get(v[q])])
                        })
                        .collect();
                    let all: Vec<NodeId> = rotated[1..].iter().chain(&others).copied().collect();
                    flat_product(out, rotated[0], &all)
                }
                None => tidy(out, map.children(node)),
            },
            _ => tidy(out, map.children(node)),
        })
    }

    /// For the factors of a product without a constant: each multi-joint `sin`/`cos` factor
    /// paired with a factor that is the velocity of a joint before all joints of its angle sum
    /// (positions), if every such factor has one and there is at least one.
    fn rotated_velocities(&self, factors: &[NodeId]) -> Option<Vec<(usize, usize)>> {
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        for (i, &f) in factors.iter().enumerate() {
            match self.node(f) {
                Node::Var(Var::Sin(m) | Var::Cos(m)) if m.count_ones() > 1 => {
                    let lowest = m & m.wrapping_neg();
                    let vel = factors.iter().enumerate().position(|(k, &g)| {
                        !pairs.iter().any(|&(_, q)| q == k)
                            && matches!(self.node(g), Node::Var(Var::Qd(j)) if (1u64 << j) < lowest)
                    })?;
                    pairs.push((i, vel));
                }
                Node::Const(_) => return None,
                _ => {}
            }
        }
        (!pairs.is_empty()).then_some(pairs)
    }

    /// Copies the live nodes into a new graph in id order; `replace` may substitute a node of
    /// the new graph for an old node (given the new graph, the old id and the old node).
    fn rebuild(
        &self,
        roots: &[NodeId],
        mut replace: impl FnMut(&mut Graph, NodeId, &Node) -> Option<NodeId>,
    ) -> (Graph, Vec<NodeId>) {
        let live = self.reachable(roots);
        self.copy_live(roots, &live, |out, map, i, node| {
            replace(out, NodeId(i as u32), node).unwrap_or_else(|| tidy(out, map.children(node)))
        })
    }

    /// A new graph with this one's parameters, holding the `live` nodes as `build` makes them
    /// (see [`Graph::copy_live_into`]); and the roots' ids in it.
    pub(crate) fn copy_live(
        &self,
        roots: &[NodeId],
        live: &[bool],
        build: impl FnMut(&mut Graph, &IdMap, usize, &Node) -> NodeId,
    ) -> (Graph, Vec<NodeId>) {
        let mut out = Graph::new();
        out.copy_tables_from(self);
        out.reserve(live.iter().filter(|&&l| l).count());
        let roots = self.copy_live_into(&mut out, roots, live, build);
        out.shrink_to_fit();
        (out, roots)
    }

    /// Copies what `roots` reach into `out` as it is (interned there, so nodes `out` already
    /// has are shared); the roots' ids in `out`.
    pub(crate) fn copy_reachable_into(&self, out: &mut Graph, roots: &[NodeId]) -> Vec<NodeId> {
        let live = self.reachable(roots);
        self.copy_live_into(out, roots, &live, |out, map, _, node| {
            out.intern(map.children(node))
        })
    }

    /// Copies the `live` nodes (which must include everything `roots` depend on) into `out` in
    /// id order, keeping display names: `build` makes the copy of old node `i` in `out`, given
    /// the copies of the earlier nodes. Returns the roots' ids in `out`. Every rewriting pass
    /// is this walk with its own `build`.
    pub(crate) fn copy_live_into(
        &self,
        out: &mut Graph,
        roots: &[NodeId],
        live: &[bool],
        mut build: impl FnMut(&mut Graph, &IdMap, usize, &Node) -> NodeId,
    ) -> Vec<NodeId> {
        let mut map = IdMap(vec![None; self.len()]);
        for (i, node) in self.nodes().iter().enumerate() {
            if !live[i] {
                continue;
            }
            let new = build(out, &map, i, node);
            map.0[i] = Some(new);
            if let Some(name) = self.name(NodeId(i as u32)) {
                out.insert_name(new, name.to_owned());
            }
        }
        roots.iter().map(|&r| map.get(r)).collect()
    }
}

/// Old node ids → their copies while a graph is copied children first.
pub(crate) struct IdMap(Vec<Option<NodeId>>);

impl IdMap {
    /// The copy of old node `id`, which must be live and already copied.
    pub(crate) fn get(&self, id: NodeId) -> NodeId {
        self.0[id.index()].expect("child is live")
    }

    /// The copy of old node `id` if it has been made.
    pub(crate) fn try_get(&self, id: NodeId) -> Option<NodeId> {
        self.0[id.index()]
    }

    /// `node` with its children replaced by their copies.
    pub(crate) fn children(&self, node: &Node) -> Node {
        node.map_children(|c| self.get(c))
    }
}

/// `node` (its children already copied) interned in canonical operand order, with what the
/// copy may have made trivially cancel: a rewritten form can make two terms of a sum that were
/// different expressions the same node (`c_12` next to `c1 c2 - s1 s2`, lowered), so equal
/// monomials of a sum are combined (dropped when their coefficients cancel), and a zero so
/// produced is folded through its users (sum term, product factor, negation, dividend).
pub(crate) fn tidy(g: &mut Graph, node: Node) -> NodeId {
    let is_zero = |g: &Graph, c: NodeId| g.as_const(c) == Some(0.0);
    match &node {
        Node::Mul(v) if v.iter().any(|&c| is_zero(g, c)) => return g.constant(0.0),
        Node::Neg(x) | Node::Div(x, _) if is_zero(g, *x) => return g.constant(0.0),
        Node::Add(v) => {
            // Terms as (monomial, coefficient); a constant term is its own monomial, `None`.
            let term = |g: &Graph, c: NodeId| -> (Option<NodeId>, f64) {
                match g.node(c) {
                    Node::Const(_) => (None, g.as_const(c).unwrap_or(0.0)),
                    Node::Neg(x) => (Some(*x), -1.0),
                    Node::Mul(f) if f.len() == 2 && g.as_const(f[0]).is_some() => {
                        (Some(f[1]), g.as_const(f[0]).unwrap_or(1.0))
                    }
                    _ => (Some(c), 1.0),
                }
            };
            // A sum monomial whose negation is also a node (`-a - b` next to `a + b`) is read
            // as the one with the smaller id, negated.
            let canonical = |g: &Graph, (m, k): (Option<NodeId>, f64)| match m {
                Some(m) => match negated_sum(g, m) {
                    Some(n) if n < m => (Some(n), -k),
                    _ => (Some(m), k),
                },
                None => (None, k),
            };
            let terms: Vec<(Option<NodeId>, f64)> =
                v.iter().map(|&c| canonical(g, term(g, c))).collect();
            let mut monos: Vec<Option<NodeId>> = terms.iter().map(|t| t.0).collect();
            monos.sort_unstable();
            monos.dedup();
            let zero_term = v.iter().any(|&c| is_zero(g, c));
            if monos.len() < terms.len() || zero_term {
                let mut out = Vec::with_capacity(monos.len());
                for m in monos {
                    let k: f64 = terms.iter().filter(|t| t.0 == m).map(|t| t.1).sum();
                    if k == 0.0 {
                        continue;
                    }
                    out.push(match m {
                        None => g.constant(k),
                        Some(m) if k == 1.0 => m,
                        Some(m) if k == -1.0 => g.intern(Node::Neg(m)),
                        Some(m) => {
                            let kc = g.constant(k);
                            g.intern(Node::Mul([kc, m].into()))
                        }
                    });
                }
                return match out.len() {
                    0 => g.constant(0.0),
                    1 => out[0],
                    _ => {
                        let canon = canonical_order(g, Node::Add(out.into()));
                        g.intern(canon)
                    }
                };
            }
        }
        _ => {}
    }
    let canon = canonical_order(g, node);
    g.intern(canon)
}

/// The existing node equal to `-m` for a sum `m` with every term negated, if there is one.
fn negated_sum(g: &Graph, m: NodeId) -> Option<NodeId> {
    let Node::Add(v) = g.node(m) else {
        return None;
    };
    let mut neg = Vec::with_capacity(v.len());
    for &c in v.iter() {
        neg.push(match g.node(c) {
            Node::Neg(x) => *x,
            Node::Const(_) => g.lookup(&Node::constant(-g.as_const(c)?))?,
            Node::Mul(f) if f.len() == 2 && g.as_const(f[0]).is_some() => {
                let k = g.lookup(&Node::constant(-g.as_const(f[0])?))?;
                g.lookup(&Node::Mul([k, f[1]].into()))?
            }
            _ => g.lookup(&Node::Neg(c))?,
        });
    }
    neg.sort_unstable();
    g.lookup(&Node::Add(neg.into()))
}

/// Re-sorts the operands of a sum or product by id (a product's constant stays first).
fn canonical_order(g: &Graph, node: Node) -> Node {
    match node {
        Node::Add(mut v) => {
            v.sort_unstable();
            Node::Add(v)
        }
        Node::Mul(mut v) => {
            v.sort_unstable_by_key(|&c| (g.as_const(c).is_none(), c));
            Node::Mul(v)
        }
        n => n,
    }
}

/// `sin`/`cos` of a mask as single-joint leaves joined by the angle-sum identities.
fn lower_trig(g: &mut Graph, v: Var, memo: &mut HashMap<Var, NodeId>) -> NodeId {
    if let Some(&id) = memo.get(&v) {
        return id;
    }
    let (is_sin, m) = match v {
        Var::Sin(m) => (true, m),
        Var::Cos(m) => (false, m),
        _ => unreachable!("only trig leaves are lowered"),
    };
    if m.count_ones() <= 1 {
        return g.var(v);
    }
    let top = 1u64 << (63 - m.leading_zeros());
    let rest = m & !top;
    let sr = lower_trig(g, Var::Sin(rest), memo);
    let cr = lower_trig(g, Var::Cos(rest), memo);
    let st = g.var(Var::Sin(top));
    let ct = g.var(Var::Cos(top));
    let pair = |g: &mut Graph, a: NodeId, b: NodeId| {
        let (a, b) = if a < b { (a, b) } else { (b, a) };
        g.intern(Node::Mul([a, b].into()))
    };
    let id = if is_sin {
        let t1 = pair(g, sr, ct);
        let t2 = pair(g, cr, st);
        let (a, b) = if t1 < t2 { (t1, t2) } else { (t2, t1) };
        g.intern(Node::Add([a, b].into()))
    } else {
        let t1 = pair(g, cr, ct);
        let p2 = pair(g, sr, st);
        let t2 = g.intern(Node::Neg(p2));
        let (a, b) = if t1 < t2 { (t1, t2) } else { (t2, t1) };
        g.intern(Node::Add([a, b].into()))
    };
    memo.insert(v, id);
    id
}

/// `sin`/`cos` of `mask` times the product of `rest` (monomials of `g`), written as the
/// rotations by one joint at a time, lowest joint innermost:
/// `c_{A+t} R = c_t (c_A R) - s_t (s_A R)`, `s_{A+t} R = c_t (s_A R) + s_t (c_A R)`.
fn rotate(g: &mut Graph, is_sin: bool, mask: u64, rest: &[NodeId]) -> NodeId {
    let leaf = |m| if is_sin { Var::Sin(m) } else { Var::Cos(m) };
    if mask.count_ones() <= 1 {
        let t = g.var(leaf(mask));
        return flat_product(g, t, rest);
    }
    let top = 1u64 << (63 - mask.leading_zeros());
    let a = mask & !top;
    let st = g.var(Var::Sin(top));
    let ct = g.var(Var::Cos(top));
    let same = rotate(g, is_sin, a, rest);
    let other = rotate(g, !is_sin, a, rest);
    let t1 = flat_product(g, ct, &[same]);
    let t2 = flat_product(g, st, &[other]);
    let t2 = if is_sin { t2 } else { g.intern(Node::Neg(t2)) };
    let (a, b) = if t1 < t2 { (t1, t2) } else { (t2, t1) };
    g.intern(Node::Add([a, b].into()))
}

/// The flat, sorted product of the monomial `x` and the monomials `rest` (products among them
/// are spliced in, as the constructors keep products flat).
fn flat_product(g: &mut Graph, x: NodeId, rest: &[NodeId]) -> NodeId {
    let mut f = g.mono_factors(x);
    for &r in rest {
        f.extend(g.mono_factors(r));
    }
    if f.len() == 1 {
        return f[0];
    }
    f.sort_unstable();
    g.intern(Node::Mul(f.into()))
}

//! Whole-graph passes: liveness, compaction, lowering of multi-joint `sin`/`cos`.

use std::collections::HashMap;

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
        let mut memo: HashMap<Var, NodeId> = HashMap::new();
        self.rebuild(roots, move |g, _, node| match node {
            Node::Var(v @ (Var::Sin(m) | Var::Cos(m))) if m.count_ones() > 1 => {
                Some(lower_trig(g, *v, &mut memo))
            }
            _ => None,
        })
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
            replace(out, NodeId(i as u32), node).unwrap_or_else(|| {
                let canon = canonical_order(out, map.children(node));
                out.intern(canon)
            })
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
        let roots = self.copy_live_into(&mut out, roots, live, build);
        (out, roots)
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
        g.intern(Node::Mul(Box::new([a, b])))
    };
    let id = if is_sin {
        let t1 = pair(g, sr, ct);
        let t2 = pair(g, cr, st);
        let (a, b) = if t1 < t2 { (t1, t2) } else { (t2, t1) };
        g.intern(Node::Add(Box::new([a, b])))
    } else {
        let t1 = pair(g, cr, ct);
        let p2 = pair(g, sr, st);
        let t2 = g.intern(Node::Neg(p2));
        let (a, b) = if t1 < t2 { (t1, t2) } else { (t2, t1) };
        g.intern(Node::Add(Box::new([a, b])))
    };
    memo.insert(v, id);
    id
}

//! Numeric evaluation and symbolic differentiation.

use rustc_hash::FxHashMap as HashMap;

use super::graph::Graph;
use super::node::{Node, NodeId, Var};
use crate::inputs::{base_slot, ElasticInputs};

/// Values of the leaves for [`Graph::eval`]. Missing joint entries read as 0; an empty
/// `params` means "use every parameter's default".
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Env {
    /// Joint positions.
    pub q: Vec<f64>,
    /// Joint velocities.
    pub qd: Vec<f64>,
    /// Joint accelerations.
    pub qdd: Vec<f64>,
    /// Joint forces/torques.
    pub tau: Vec<f64>,
    /// Parameter values, indexed like [`Graph::params`].
    pub params: Vec<f64>,
    /// Moving-base inputs: pose (7), velocity (6), acceleration (6), wrench (6); missing
    /// entries read as 0.
    pub base: Vec<f64>,
    /// Inputs of the elastic functions; missing entries read as 0.
    pub elastic: ElasticInputs,
}

impl Env {
    fn at(v: &[f64], j: u16) -> f64 {
        v.get(usize::from(j)).copied().unwrap_or(0.0)
    }

    fn angle(&self, mask: u64) -> f64 {
        (0..64u16)
            .filter(|j| mask & (1u64 << j) != 0)
            .map(|j| Env::at(&self.q, j))
            .sum()
    }
}

impl Graph {
    /// Value of one leaf.
    pub fn eval_var(&self, var: Var, env: &Env) -> f64 {
        match var {
            Var::Q(j) => Env::at(&env.q, j),
            Var::Qd(j) => Env::at(&env.qd, j),
            Var::Qdd(j) => Env::at(&env.qdd, j),
            Var::Tau(j) => Env::at(&env.tau, j),
            Var::Sin(m) => env.angle(m).sin(),
            Var::Cos(m) => env.angle(m).cos(),
            Var::Param(k) => {
                let k = k as usize;
                if env.params.is_empty() {
                    self.params()[k].default
                } else {
                    env.params[k]
                }
            }
            Var::Base(b) => env.base.get(base_slot(b)).copied().unwrap_or(0.0),
            Var::Elastic(v) => env.elastic.get(v),
        }
    }

    /// Values of all nodes with id `<= last`, in one linear walk.
    pub fn eval_prefix(&self, last: NodeId, env: &Env) -> Vec<f64> {
        let mut vals: Vec<f64> = Vec::with_capacity(last.index() + 1);
        for node in &self.nodes()[..=last.index()] {
            let v = match node {
                Node::Const(bits) => f64::from_bits(*bits),
                Node::Var(var) => self.eval_var(*var, env),
                Node::Add(ch) => ch.iter().map(|c| vals[c.index()]).sum(),
                Node::Mul(ch) => ch.iter().map(|c| vals[c.index()]).product(),
                Node::Neg(x) => -vals[x.index()],
                Node::Div(a, b) => vals[a.index()] / vals[b.index()],
                Node::Sqrt(x) => vals[x.index()].sqrt(),
            };
            vals.push(v);
        }
        vals
    }

    /// Value of `id` at `env`.
    pub fn eval(&self, id: NodeId, env: &Env) -> f64 {
        self.eval_prefix(id, env)[id.index()]
    }

    /// Values of several nodes at `env` (one walk).
    pub fn eval_many(&self, ids: &[NodeId], env: &Env) -> Vec<f64> {
        let Some(&last) = ids.iter().max() else {
            return Vec::new();
        };
        let vals = self.eval_prefix(last, env);
        ids.iter().map(|id| vals[id.index()]).collect()
    }

    /// Derivative of `id` with respect to the leaf `wrt` (`Q`, `Qd`, `Qdd`, `Tau` or `Param`),
    /// built through the simplifying constructors. `Sin(m)`/`Cos(m)` depend on `Q(j)` when bit
    /// `j` is in `m`.
    pub fn diff(&mut self, id: NodeId, wrt: Var) -> NodeId {
        self.diff_many(&[id], wrt)[0]
    }

    /// Derivatives of every node of `ids` with respect to `wrt` (as [`Graph::diff`]), in one
    /// walk over the nodes they depend on: a node's derivative is built once for all roots.
    pub fn diff_many(&mut self, ids: &[NodeId], wrt: Var) -> Vec<NodeId> {
        // One walk in id order (no recursion, so deep graphs cannot overflow the stack).
        let live = self.reachable(ids);
        let zero = self.constant(0.0);
        let mut d: HashMap<NodeId, NodeId> = HashMap::default();
        for (i, _) in live.iter().enumerate().filter(|(_, l)| **l) {
            let nid = NodeId(i as u32);
            let node = self.node(nid).clone();
            // Nodes that do not depend on `wrt` (every child's derivative zero) are skipped.
            if !matches!(node, Node::Var(_) | Node::Const(_))
                && node.children().all(|c| d[&c] == zero)
            {
                d.insert(nid, zero);
                continue;
            }
            let di = match node {
                Node::Const(_) => zero,
                Node::Var(v) => self.diff_var(v, wrt),
                Node::Add(ch) => {
                    let ds: Vec<NodeId> = ch.iter().map(|c| d[c]).collect();
                    self.sum(&ds)
                }
                Node::Mul(ch) => {
                    let mut terms = Vec::with_capacity(ch.len());
                    for (k, c) in ch.iter().enumerate() {
                        let dk = d[c];
                        if self.as_const(dk) == Some(0.0) {
                            continue;
                        }
                        let mut fs: Vec<NodeId> = ch.to_vec();
                        fs[k] = dk;
                        terms.push(self.product(&fs));
                    }
                    self.sum(&terms)
                }
                Node::Neg(x) => self.neg(d[&x]),
                Node::Div(a, b) => {
                    // (a/b)' = a'/b - a b' / b^2
                    let t1 = self.div(d[&a], b);
                    let num = self.mul(a, d[&b]);
                    let bb = self.mul(b, b);
                    let t2 = self.div(num, bb);
                    self.sub(t1, t2)
                }
                Node::Sqrt(x) => {
                    // sqrt(x)' = x' / (2 sqrt x)
                    let two = self.constant(2.0);
                    let den = self.mul(two, nid);
                    self.div(d[&x], den)
                }
            };
            d.insert(nid, di);
        }
        ids.iter().map(|id| d[id]).collect()
    }

    /// Derivatives of every node of `ids` with respect to every parameter of `params`
    /// (indices into [`Graph::params`]): `result[k][i] = ∂ids[i]/∂params[k]`, by reverse
    /// mode ([`Graph::gradients`]).
    pub fn param_jacobian(&mut self, ids: &[NodeId], params: &[u32]) -> Vec<Vec<NodeId>> {
        let wrt: Vec<Var> = params.iter().map(|&p| Var::Param(p)).collect();
        self.gradients(ids, &wrt)
    }

    /// Derivatives of every node of `ids` with respect to every leaf of `wrt` (as
    /// [`Graph::diff`]: `Sin(m)`/`Cos(m)` move with the joints of their mask) by reverse mode:
    /// `result[k][i] = ∂ids[i]/∂wrt[k]`, the same values as one [`Graph::diff_many`] per leaf.
    ///
    /// One backward walk per root from the root down, each node's adjoint the sum of its
    /// parents' contributions, over the nodes that depend on a leaf of `wrt` only; a leaf's
    /// adjoint times its own derivative goes to every column it moves with. Where the leaves
    /// outnumber the roots (the regressor: `10N` inertial parameters, `N` joint forces) this
    /// is the cheaper direction: the adjoint of a body's force is carried out along the chain
    /// once per joint rather than once per parameter.
    pub fn gradients(&mut self, ids: &[NodeId], wrt: &[Var]) -> Vec<Vec<NodeId>> {
        let zero = self.constant(0.0);
        let one = self.constant(1.0);
        let live = self.reachable(ids);
        let mut depends = vec![false; live.len()];
        for i in 0..live.len() {
            if !live[i] {
                continue;
            }
            depends[i] = match self.node(NodeId(i as u32)) {
                Node::Var(v) => wrt.iter().any(|w| moves_with(*v, *w)),
                Node::Const(_) => false,
                node => node.children().any(|c| depends[c.index()]),
            };
        }
        // How many roots each node reaches: what a turning sum saves is saved for each.
        let mut reach = vec![0usize; live.len()];
        let mut marked = vec![false; live.len()];
        for &root in ids {
            if !depends[root.index()] {
                continue;
            }
            marked[root.index()] = true;
            for id in (0..=root.index()).rev() {
                if std::mem::take(&mut marked[id]) {
                    reach[id] += 1;
                    for c in self.node(NodeId(id as u32)).children() {
                        marked[c.index()] |= depends[c.index()];
                    }
                }
            }
        }
        let mut result = vec![vec![zero; ids.len()]; wrt.len()];
        // Sums that turn with one angle ([`Graph::turn_rate`]), found once for every root.
        let mut turns: HashMap<NodeId, Option<(NodeId, u64)>> = HashMap::default();
        // Contributions to each node's adjoint, gathered from its parents; and those whose
        // part through the node's sine or cosine was already taken by a turning sum above it
        // (they reach the node's other factors only).
        let mut parts: Vec<Vec<NodeId>> = vec![Vec::new(); live.len()];
        let mut turned: Vec<Vec<NodeId>> = vec![Vec::new(); live.len()];
        for (i, &root) in ids.iter().enumerate() {
            if !depends[root.index()] {
                continue;
            }
            parts[root.index()].push(one);
            let mut columns: Vec<Vec<NodeId>> = vec![Vec::new(); wrt.len()];
            for id in (0..=root.index()).rev() {
                if parts[id].is_empty() && turned[id].is_empty() {
                    continue;
                }
                let adjoint = {
                    let terms = std::mem::take(&mut parts[id]);
                    self.sum(&terms)
                };
                let adjoint_turned = {
                    let terms = std::mem::take(&mut turned[id]);
                    self.sum(&terms)
                };
                if adjoint == zero && adjoint_turned == zero {
                    continue;
                }
                let total = self.add(adjoint, adjoint_turned);
                let nid = NodeId(id as u32);
                match self.node(nid).clone() {
                    Node::Var(v) => {
                        // A sine's or cosine's part through a turning sum is taken there.
                        let adjoint = if v.is_trig() { adjoint } else { total };
                        if adjoint == zero {
                            continue;
                        }
                        for (k, &w) in wrt.iter().enumerate() {
                            if moves_with(v, w) {
                                let d = self.diff_var(v, w);
                                let part = self.mul(adjoint, d);
                                columns[k].push(part);
                            }
                        }
                    }
                    Node::Const(_) => {}
                    Node::Add(ch) => {
                        let turn = match turns.get(&nid) {
                            Some(t) => *t,
                            None => {
                                let t = self.turn_rate(&ch, wrt, reach[id]);
                                turns.insert(nid, t);
                                t
                            }
                        };
                        if let Some((rate, mask)) = turn {
                            // The sum turns with the joints of one angle at a rate the graph
                            // has (a rotated vector's other component): one product per root
                            // for the column, where its terms would take one each.
                            let part = self.mul(total, rate);
                            for (k, &w) in wrt.iter().enumerate() {
                                if moves_with(Var::Sin(mask), w) {
                                    columns[k].push(part);
                                }
                            }
                        }
                        for c in ch.iter().filter(|c| depends[c.index()]) {
                            if turn.is_some() && self.trig_factor(*c).is_some() {
                                turned[c.index()].push(total);
                            } else {
                                parts[c.index()].push(total);
                            }
                        }
                    }
                    Node::Mul(ch) => {
                        for (k, c) in ch.iter().enumerate() {
                            if !depends[c.index()] {
                                continue;
                            }
                            let by = |g: &mut Graph, a: NodeId| {
                                let mut fs: Vec<NodeId> = ch.to_vec();
                                fs[k] = a;
                                g.product(&fs)
                            };
                            if self.is_trig_leaf(*c) {
                                if adjoint != zero {
                                    let part = by(self, adjoint);
                                    parts[c.index()].push(part);
                                }
                            } else if matches!(self.node(*c), Node::Mul(_) | Node::Neg(_)) {
                                if adjoint != zero {
                                    let part = by(self, adjoint);
                                    parts[c.index()].push(part);
                                }
                                if adjoint_turned != zero {
                                    let part = by(self, adjoint_turned);
                                    turned[c.index()].push(part);
                                }
                            } else {
                                let part = by(self, total);
                                parts[c.index()].push(part);
                            }
                        }
                    }
                    Node::Neg(x) => {
                        if adjoint != zero {
                            let part = self.neg(adjoint);
                            parts[x.index()].push(part);
                        }
                        if adjoint_turned != zero {
                            let part = self.neg(adjoint_turned);
                            turned[x.index()].push(part);
                        }
                    }
                    Node::Div(a, b) => {
                        // d(a/b) = da / b - (a/b) db / b
                        if depends[a.index()] {
                            let part = self.div(total, b);
                            parts[a.index()].push(part);
                        }
                        if depends[b.index()] {
                            let scaled = self.mul(total, nid);
                            let quotient = self.div(scaled, b);
                            let part = self.neg(quotient);
                            parts[b.index()].push(part);
                        }
                    }
                    Node::Sqrt(x) => {
                        // d sqrt(x) = dx / (2 sqrt x)
                        let two = self.constant(2.0);
                        let den = self.mul(two, nid);
                        let part = self.div(total, den);
                        parts[x.index()].push(part);
                    }
                }
            }
            for (k, terms) in columns.iter().enumerate() {
                result[k][i] = self.sum(terms);
            }
        }
        result
    }

    /// Directional derivatives (forward mode) of every node of `ids`: each leaf `v` moves at
    /// the rate of the leaf `rate(v)` (`None`: held constant); `Sin(m)`/`Cos(m)` move with
    /// the joints of their mask. One walk builds each node's derivative once, so the result
    /// is at most a few times the size of what `ids` read (where one [`Graph::diff_many`] per
    /// leaf would repeat the walk for every leaf).
    pub fn jvp(&mut self, ids: &[NodeId], rate: &dyn Fn(Var) -> Option<Var>) -> Vec<NodeId> {
        let live = self.reachable(ids);
        let zero = self.constant(0.0);
        let mut d: Vec<NodeId> = vec![zero; live.len()];
        for (i, _) in live.iter().enumerate().filter(|(_, l)| **l) {
            let nid = NodeId(i as u32);
            let node = self.node(nid).clone();
            if !matches!(node, Node::Var(_) | Node::Const(_))
                && node.children().all(|c| d[c.index()] == zero)
            {
                continue;
            }
            d[i] = match node {
                Node::Const(_) => zero,
                Node::Var(v) => self.var_rate(v, rate),
                Node::Add(ch) => {
                    let ds: Vec<NodeId> = ch.iter().map(|c| d[c.index()]).collect();
                    self.sum(&ds)
                }
                Node::Mul(ch) => {
                    let mut terms = Vec::with_capacity(ch.len());
                    for (k, c) in ch.iter().enumerate() {
                        let dk = d[c.index()];
                        if dk == zero {
                            continue;
                        }
                        let mut fs: Vec<NodeId> = ch.to_vec();
                        fs[k] = dk;
                        terms.push(self.product(&fs));
                    }
                    self.sum(&terms)
                }
                Node::Neg(x) => self.neg(d[x.index()]),
                Node::Div(a, b) => {
                    let t1 = self.div(d[a.index()], b);
                    let num = self.mul(a, d[b.index()]);
                    let bb = self.mul(b, b);
                    let t2 = self.div(num, bb);
                    self.sub(t1, t2)
                }
                Node::Sqrt(x) => {
                    let two = self.constant(2.0);
                    let den = self.mul(two, nid);
                    self.div(d[x.index()], den)
                }
            };
        }
        ids.iter().map(|id| d[id.index()]).collect()
    }

    /// Rate of a leaf for [`Graph::jvp`].
    fn var_rate(&mut self, v: Var, rate: &dyn Fn(Var) -> Option<Var>) -> NodeId {
        let angle_rate = |g: &mut Graph, m: u64| -> Option<NodeId> {
            let rates: Vec<NodeId> = (0..64u16)
                .filter(|j| m & (1u64 << j) != 0)
                .filter_map(|j| rate(Var::Q(j)))
                .map(|r| g.var(r))
                .collect();
            (!rates.is_empty()).then(|| g.sum(&rates))
        };
        match v {
            Var::Sin(m) => match angle_rate(self, m) {
                Some(r) => {
                    let c = self.var(Var::Cos(m));
                    self.mul(c, r)
                }
                None => self.constant(0.0),
            },
            Var::Cos(m) => match angle_rate(self, m) {
                Some(r) => {
                    let s = self.var(Var::Sin(m));
                    let sr = self.mul(s, r);
                    self.neg(sr)
                }
                None => self.constant(0.0),
            },
            other => match rate(other) {
                Some(r) => self.var(r),
                None => self.constant(0.0),
            },
        }
    }

    /// The sine or cosine a term turns with: its only trigonometric factor, nested products
    /// and a negation looked through (`None` without one, or with several).
    fn trig_factor(&self, t: NodeId) -> Option<NodeId> {
        let mut found = Vec::new();
        let mut stack = vec![t];
        while let Some(x) = stack.pop() {
            match self.node(x) {
                Node::Neg(y) => stack.push(*y),
                Node::Mul(v) => stack.extend(v.iter()),
                Node::Var(v) if v.is_trig() => found.push(x),
                _ => {}
            }
        }
        match found.as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }

    /// The one angle (joint mask) the trigonometric factors of a sum's terms share, if they
    /// share one.
    fn turn_mask(&self, terms: &[NodeId]) -> Option<u64> {
        let mut mask = None;
        for &t in terms {
            if let Some(f) = self.trig_factor(t) {
                let Node::Var(Var::Sin(m) | Var::Cos(m)) = self.node(f) else {
                    return None;
                };
                if *mask.get_or_insert(*m) != *m {
                    return None;
                }
            }
        }
        mask
    }

    /// The rate of the sum of `terms` along its angle, when it is cheap: at least two terms
    /// are products with one sine or cosine each, of one angle (the others have none, and
    /// move with it only through their operands), and the rate, each of those swapped for its
    /// derivative (`c x - s y` of a rotation turns at `-(s x + c y)`, its other component),
    /// needs fewer new multiplications than the `roots` that reach the sum save by it. Only
    /// when a column moves with that angle. The rate and the angle's mask.
    fn turn_rate(&mut self, terms: &[NodeId], wrt: &[Var], roots: usize) -> Option<(NodeId, u64)> {
        let mask = self.turn_mask(terms)?;
        if !wrt.iter().any(|&w| moves_with(Var::Sin(mask), w)) {
            return None;
        }
        // Trigonometric factors that are not direct or nested products (a sine inside a sum
        // or a quotient) move with the angle too, and are not taken here.
        let turning: Vec<NodeId> = terms
            .iter()
            .copied()
            .filter(|&t| self.trig_factor(t).is_some())
            .collect();
        if turning.len() < 2 {
            return None;
        }
        let before = self.len();
        let mut rate = Vec::with_capacity(turning.len());
        // What a root's walk through the terms costs: a product of the other factors each.
        let mut saved = 0;
        for t in turning {
            let (mut negated, t) = match self.node(t) {
                Node::Neg(x) => (true, *x),
                _ => (false, t),
            };
            let mut factors = Vec::new();
            let mut stack = vec![t];
            while let Some(x) = stack.pop() {
                match self.node(x) {
                    Node::Mul(v) => stack.extend(v.iter().rev()),
                    _ => factors.push(x),
                }
            }
            saved += factors.len() - 1;
            for f in &mut factors {
                match *self.node(*f) {
                    Node::Var(Var::Sin(m)) => *f = self.var(Var::Cos(m)),
                    Node::Var(Var::Cos(m)) => {
                        negated = !negated;
                        *f = self.var(Var::Sin(m));
                    }
                    _ => {}
                }
            }
            let p = self.product(&factors);
            rate.push((p, if negated { -1.0 } else { 1.0 }));
        }
        let rate = self.sum_signed(&rate);
        // Products the graph did not have are multiplied once; each root that reaches the sum
        // saves the terms' own walk but for the one product with the rate.
        let new_multiplications: usize = (before..self.len())
            .map(|i| match self.node(NodeId(i as u32)) {
                Node::Mul(v) => v.len() - 1,
                _ => 0,
            })
            .sum();
        (new_multiplications < saved.saturating_sub(1) * roots.max(1) + 1).then_some((rate, mask))
    }

    fn is_trig_leaf(&self, id: NodeId) -> bool {
        matches!(self.node(id), Node::Var(v) if v.is_trig())
    }

    /// The derivative of the leaf `v` with respect to the leaf `wrt` (zero unless
    /// [`moves_with`]).
    fn diff_var(&mut self, v: Var, wrt: Var) -> NodeId {
        if !moves_with(v, wrt) {
            return self.constant(0.0);
        }
        match v {
            Var::Sin(m) if v != wrt => self.var(Var::Cos(m)),
            Var::Cos(m) if v != wrt => {
                let s = self.var(Var::Sin(m));
                self.neg(s)
            }
            _ => self.constant(1.0),
        }
    }
}

/// Whether the leaf `v` changes with the leaf `wrt`: itself, or a sine or cosine whose mask
/// holds the joint `wrt` is the angle of.
fn moves_with(v: Var, wrt: Var) -> bool {
    match (v, wrt) {
        (Var::Sin(m) | Var::Cos(m), Var::Q(j)) => m & (1u64 << j) != 0,
        _ => v == wrt,
    }
}

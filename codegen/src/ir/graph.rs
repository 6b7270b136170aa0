//! The hash-consed expression arena and its simplifying constructors.
//!
//! Canonical forms kept by the constructors (the rewrite rules rely on them):
//! - a *monomial* is a non-constant node that is neither a negation nor a product with a
//!   constant factor: a leaf, a sum, a quotient, a root, or a product of monomials (sorted by id,
//!   no nested products);
//! - a *term* is `c * m` for a constant `c` and a monomial `m`, stored as `m` (`c = 1`),
//!   `Neg(m)` (`c = -1`), `Mul([Const c, m])` (other `c`) or `Const c` (no monomial);
//! - a sum holds at most one term per monomial, sorted by id, with no nested sums.

use std::hash::BuildHasher;

use hashbrown::hash_table::{Entry, HashTable};
use rustc_hash::{FxBuildHasher, FxHashMap as HashMap};

use indexmap::IndexMap;

use super::node::{Node, NodeId, Var};
use super::rules::{Rule, RuleStats};

/// A symbolic parameter: name (unique) and the value it has in the spec.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// Parameter name, unique in the graph.
    pub name: String,
    /// Value from the spec (the default in generated code).
    pub default: f64,
}

/// A graph's extent at one moment (see [`Graph::mark`]).
pub(crate) struct Mark {
    nodes: usize,
    params: usize,
    stats: RuleStats,
}

/// The flat, hash-consed expression arena.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    nodes: Vec<Node>,
    /// Each node's id under the node's hash (the node itself is stored once, in `nodes`).
    index: HashTable<(u64, NodeId)>,
    params: Vec<Param>,
    param_index: HashMap<String, u32>,
    names: HashMap<NodeId, String>,
    stats: RuleStats,
    double_angle: bool,
    run_shift: bool,
}

impl Graph {
    /// An empty graph.
    pub fn new() -> Graph {
        Graph::default()
    }

    /// Derivations on this graph write turned inertias with the double angle from now on
    /// ([`crate::algebra::Algebra::double_angle`]).
    pub fn set_double_angle(&mut self, on: bool) {
        self.double_angle = on;
    }

    /// [`Graph::set_double_angle`]'s setting.
    pub fn double_angle(&self) -> bool {
        self.double_angle
    }

    /// Derivations on this graph carry mass-matrix wrenches through runs of hinges about one
    /// axis by the summed angle from now on ([`crate::algebra::Algebra::run_shift`]).
    pub fn set_run_shift(&mut self, on: bool) {
        self.run_shift = on;
    }

    /// [`Graph::set_run_shift`]'s setting.
    pub fn run_shift(&self) -> bool {
        self.run_shift
    }

    /// Number of nodes (live or dead).
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when the graph has no node.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The node behind `id`.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    /// All nodes, children before parents.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The symbolic parameters, indexed by `Var::Param(k)`.
    pub fn params(&self) -> &[Param] {
        &self.params
    }

    /// How often each simplification rule fired while this graph was built.
    pub fn rule_stats(&self) -> &RuleStats {
        &self.stats
    }

    /// Display names given to nodes (see [`Graph::set_name`]).
    pub fn names(&self) -> &HashMap<NodeId, String> {
        &self.names
    }

    /// The display name of `id`, if any.
    pub fn name(&self, id: NodeId) -> Option<&str> {
        self.names.get(&id).map(String::as_str)
    }

    /// Gives `id` a display name (for the written-out equations). The first name given wins,
    /// since a shared node keeps the meaning it was introduced with.
    pub fn set_name(&mut self, id: NodeId, name: &str) {
        self.names.entry(id).or_insert_with(|| name.to_owned());
    }

    /// The value of a constant node.
    pub fn as_const(&self, id: NodeId) -> Option<f64> {
        self.node(id).as_const()
    }

    /// The graph's extent now, to [`Graph::rollback`] to: a derivation tried and not kept then
    /// leaves no node behind, so the ids of everything built after are what they would be
    /// without the try.
    pub(crate) fn mark(&self) -> Mark {
        Mark {
            nodes: self.nodes.len(),
            params: self.params.len(),
            stats: self.stats.clone(),
        }
    }

    /// Removes every node, parameter and name added since `mark`, and the rule counts with
    /// them.
    pub(crate) fn rollback(&mut self, mark: Mark) {
        while self.nodes.len() > mark.nodes {
            let node = self.nodes.pop().expect("above the mark");
            let id = NodeId(u32::try_from(self.nodes.len()).expect("graph exceeds u32 nodes"));
            let hash = FxBuildHasher.hash_one(&node);
            if let Ok(entry) = self.index.find_entry(hash, |&(_, at)| at == id) {
                entry.remove();
            }
        }
        for p in self.params.drain(mark.params..) {
            self.param_index.remove(&p.name);
        }
        self.names.retain(|id, _| id.index() < mark.nodes);
        self.stats = mark.stats;
    }

    /// Interns `node` as is (no simplification). Operands must already be in the graph.
    pub(crate) fn intern(&mut self, node: Node) -> NodeId {
        let hash = FxBuildHasher.hash_one(&node);
        let nodes = &self.nodes;
        match self.index.entry(
            hash,
            |&(h, id)| h == hash && nodes[id.index()] == node,
            |&(h, _)| h,
        ) {
            Entry::Occupied(found) => found.get().1,
            Entry::Vacant(slot) => {
                debug_assert!(node.children().all(|c| c.index() < nodes.len()));
                let id = NodeId(u32::try_from(nodes.len()).expect("graph exceeds u32 nodes"));
                slot.insert((hash, id));
                self.nodes.push(node);
                id
            }
        }
    }

    /// Room for `additional` more nodes without growing.
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.nodes.reserve_exact(additional);
        self.index.reserve(additional, |&(h, _)| h);
    }

    /// Gives back the room no node uses (a graph kept while others are built holds only its
    /// nodes, not up to as many again from growing by doubling).
    pub(crate) fn shrink_to_fit(&mut self) {
        self.nodes.shrink_to_fit();
        self.index.shrink_to_fit(|&(h, _)| h);
    }

    /// Looks `node` up without creating it.
    pub(crate) fn lookup(&self, node: &Node) -> Option<NodeId> {
        let hash = FxBuildHasher.hash_one(node);
        self.index
            .find(hash, |&(h, id)| {
                h == hash && self.nodes[id.index()] == *node
            })
            .map(|&(_, id)| id)
    }

    pub(crate) fn fire(&mut self, rule: Rule) {
        self.stats.fire(rule);
    }

    pub(crate) fn copy_tables_from(&mut self, other: &Graph) {
        self.params = other.params.clone();
        self.param_index = other.param_index.clone();
        self.stats = other.stats.clone();
    }

    pub(crate) fn insert_name(&mut self, id: NodeId, name: String) {
        self.names.entry(id).or_insert(name);
    }

    /// A constant.
    pub fn constant(&mut self, value: f64) -> NodeId {
        self.intern(Node::constant(value))
    }

    /// A leaf (`sin`/`cos` of an empty angle sum fold to constants).
    pub fn var(&mut self, var: Var) -> NodeId {
        match var {
            Var::Sin(0) => {
                self.fire(Rule::TrigOfZero);
                self.constant(0.0)
            }
            Var::Cos(0) => {
                self.fire(Rule::TrigOfZero);
                self.constant(1.0)
            }
            v => self.intern(Node::Var(v)),
        }
    }

    /// The symbolic parameter `name` (created with `default` on first use; later uses return
    /// the same leaf and keep the first default).
    pub fn param(&mut self, name: &str, default: f64) -> NodeId {
        let k = match self.param_index.get(name) {
            Some(&k) => k,
            None => {
                let k = u32::try_from(self.params.len()).expect("too many parameters");
                self.params.push(Param {
                    name: name.to_owned(),
                    default,
                });
                self.param_index.insert(name.to_owned(), k);
                k
            }
        };
        self.var(Var::Param(k))
    }

    /// `a + b`.
    pub fn add(&mut self, a: NodeId, b: NodeId) -> NodeId {
        self.sum_signed(&[(a, 1.0), (b, 1.0)])
    }

    /// `a - b`.
    pub fn sub(&mut self, a: NodeId, b: NodeId) -> NodeId {
        self.sum_signed(&[(a, 1.0), (b, -1.0)])
    }

    /// `a × b` of two 3-vectors, component by component (`a_j b_k - a_k b_j`, cyclic).
    pub fn cross(&mut self, a: [NodeId; 3], b: [NodeId; 3]) -> [NodeId; 3] {
        [0, 1, 2].map(|i| {
            let (j, k) = ((i + 1) % 3, (i + 2) % 3);
            let p = self.mul(a[j], b[k]);
            let q = self.mul(a[k], b[j]);
            self.sub(p, q)
        })
    }

    /// Sum of any number of operands (`0` when empty).
    pub fn sum(&mut self, terms: &[NodeId]) -> NodeId {
        let signed: Vec<(NodeId, f64)> = terms.iter().map(|&t| (t, 1.0)).collect();
        self.sum_signed(&signed)
    }

    /// `a * b`.
    pub fn mul(&mut self, a: NodeId, b: NodeId) -> NodeId {
        self.product(&[a, b])
    }

    /// `-a`.
    pub fn neg(&mut self, a: NodeId) -> NodeId {
        if matches!(self.node(a), Node::Neg(_)) {
            self.fire(Rule::DoubleNeg);
        } else if self.as_const(a).is_some() {
            self.fire(Rule::ConstFold);
        }
        let (c, m) = self.split_term(a);
        self.scale(-c, m)
    }

    /// `a / b`.
    pub fn div(&mut self, a: NodeId, b: NodeId) -> NodeId {
        let (ca, ma) = self.split_term(a);
        let (cb, mb) = self.split_term(b);
        match (ma, mb) {
            (None, None) => {
                self.fire(Rule::ConstFold);
                self.constant(ca / cb)
            }
            (_, None) => {
                // Only the denominator's coefficient is left: multiply by the ratio.
                self.fire(if cb == 1.0 {
                    Rule::DivOne
                } else {
                    Rule::DivByConst
                });
                self.scale(ca / cb, ma)
            }
            (None, Some(mb)) => {
                if ca == 0.0 {
                    self.fire(Rule::ConstFold);
                    return self.constant(0.0);
                }
                let k = self.constant(ca / cb);
                self.intern(Node::Div(k, mb))
            }
            (Some(ma), Some(mb)) => {
                if ma == mb {
                    self.fire(Rule::DivSelf);
                    return self.constant(ca / cb);
                }
                if ca != 1.0 || cb != 1.0 {
                    self.fire(Rule::ConstCoefficient);
                }
                let q = self.intern(Node::Div(ma, mb));
                self.scale(ca / cb, Some(q))
            }
        }
    }

    /// `sqrt(a)`.
    pub fn sqrt(&mut self, a: NodeId) -> NodeId {
        if let Some(c) = self.as_const(a) {
            self.fire(Rule::ConstFold);
            return self.constant(c.sqrt());
        }
        self.intern(Node::Sqrt(a))
    }

    /// Product of any number of factors (`1` when empty).
    pub fn product(&mut self, factors: &[NodeId]) -> NodeId {
        let mut coeff = 1.0;
        let mut constants = 0;
        let mut monos: Vec<NodeId> = Vec::with_capacity(factors.len());
        for &f in factors {
            match self.node(f) {
                Node::Const(_) => {
                    constants += 1;
                    let c = self.as_const(f).unwrap_or(1.0);
                    if c == 1.0 && factors.len() > 1 {
                        self.fire(Rule::MulOne);
                    }
                }
                Node::Neg(_) => self.fire(Rule::ConstCoefficient),
                Node::Mul(v) if self.node(v[0]).as_const().is_some() => {
                    self.fire(Rule::ConstCoefficient)
                }
                _ => {}
            }
            let (c, m) = self.split_term(f);
            coeff *= c;
            if let Some(m) = m {
                let mf = self.mono_factors(m);
                if mf.len() > 1 && factors.len() > 1 {
                    self.fire(Rule::FlattenProduct);
                }
                monos.extend(mf);
            }
        }
        if constants > 1 {
            self.fire(Rule::ConstFold);
        }
        if coeff == 0.0 {
            self.fire(Rule::MulZero);
            return self.constant(0.0);
        }
        monos.sort_unstable();
        // sqrt(x) * sqrt(x) -> x; the freed operands may simplify further, so rebuild.
        let mut extra = Vec::new();
        let mut rest = Vec::with_capacity(monos.len());
        let mut i = 0;
        while i < monos.len() {
            if i + 1 < monos.len() && monos[i] == monos[i + 1] {
                if let Node::Sqrt(x) = *self.node(monos[i]) {
                    self.fire(Rule::SqrtSquared);
                    extra.push(x);
                    i += 2;
                    continue;
                }
            }
            rest.push(monos[i]);
            i += 1;
        }
        if !extra.is_empty() {
            let mut all = vec![self.constant(coeff)];
            all.extend(rest);
            all.extend(extra);
            return self.product(&all);
        }
        let mono = self.mono_of(rest);
        self.scale(coeff, mono)
    }

    /// Sum of `sign * term` over the operands, with all the sum rules applied.
    pub(crate) fn sum_signed(&mut self, terms: &[(NodeId, f64)]) -> NodeId {
        let mut acc: IndexMap<Option<NodeId>, f64> = IndexMap::new();
        let mut merged_to_zero = false;
        self.collect(terms, &mut acc, &mut merged_to_zero);
        loop {
            let before = acc.len();
            acc.retain(|_, c| *c != 0.0);
            if acc.len() < before || merged_to_zero {
                self.fire(Rule::CancelTerms);
                merged_to_zero = false;
            }
            if !self.trig_rewrite(&mut acc) {
                break;
            }
        }
        let mut ids: Vec<NodeId> = Vec::with_capacity(acc.len());
        for (m, c) in acc {
            ids.push(self.scale(c, m));
        }
        ids.sort_unstable();
        match ids.len() {
            0 => self.constant(0.0),
            1 => ids[0],
            _ => self.intern(Node::Add(ids.into())),
        }
    }

    fn collect(
        &mut self,
        terms: &[(NodeId, f64)],
        acc: &mut IndexMap<Option<NodeId>, f64>,
        merged_to_zero: &mut bool,
    ) {
        for &(t, sign) in terms {
            let nested = match self.node(t) {
                Node::Add(v) => Some((v.clone(), sign)),
                Node::Neg(x) => match self.node(*x) {
                    Node::Add(v) => Some((v.clone(), -sign)),
                    _ => None,
                },
                _ => None,
            };
            if let Some((children, s)) = nested {
                if terms.len() > 1 {
                    self.fire(Rule::FlattenSum);
                }
                let signed: Vec<(NodeId, f64)> = children.iter().map(|&c| (c, s)).collect();
                self.collect(&signed, acc, merged_to_zero);
                continue;
            }
            let (c, m) = self.split_term(t);
            if c == 0.0 {
                self.fire(Rule::AddZero);
                continue;
            }
            match acc.get_mut(&m) {
                Some(existing) => {
                    self.stats.fire(if m.is_none() {
                        Rule::ConstFold
                    } else {
                        Rule::CollectTerms
                    });
                    *existing += sign * c;
                    if *existing == 0.0 {
                        *merged_to_zero = true;
                    }
                }
                None => {
                    acc.insert(m, sign * c);
                }
            }
        }
    }

    /// Applies one trigonometric identity between two terms of a sum, if any matches.
    fn trig_rewrite(&mut self, acc: &mut IndexMap<Option<NodeId>, f64>) -> bool {
        let keys: Vec<(NodeId, f64)> = acc.iter().filter_map(|(m, c)| m.map(|m| (m, *c))).collect();
        for (m, k) in keys {
            let f = self.mono_factors(m);
            let trig: Vec<(usize, Var)> = f
                .iter()
                .enumerate()
                .filter_map(|(i, &id)| match self.node(id) {
                    Node::Var(v @ (Var::Sin(_) | Var::Cos(_))) => Some((i, *v)),
                    _ => None,
                })
                .collect();
            for (x, &(p, vp)) in trig.iter().enumerate() {
                for &(r, vr) in &trig[x + 1..] {
                    if let Some(found) = self.match_pair(acc, &f, k, (p, vp), (r, vr)) {
                        let (other, rule, replacement, coeff) = found;
                        acc.shift_remove(&Some(m));
                        acc.shift_remove(&other);
                        self.fire(rule);
                        let mut rest: Vec<NodeId> = f
                            .iter()
                            .enumerate()
                            .filter(|(i, _)| *i != p && *i != r)
                            .map(|(_, &id)| id)
                            .collect();
                        if let Some(v) = replacement {
                            rest.push(self.var(v));
                        }
                        rest.sort_unstable();
                        let mono = self.mono_of(rest);
                        match acc.get_mut(&mono) {
                            Some(c) => {
                                self.stats.fire(Rule::CollectTerms);
                                *c += coeff;
                            }
                            None => {
                                acc.insert(mono, coeff);
                            }
                        }
                        return true;
                    }
                }
            }
        }
        false
    }

    /// For the term `k * f` and two of its trig factors at positions `p < r`, finds the partner
    /// term of an identity: returns (partner key, rule, replacement leaf, new coefficient).
    #[allow(clippy::type_complexity)]
    fn match_pair(
        &self,
        acc: &IndexMap<Option<NodeId>, f64>,
        f: &[NodeId],
        k: f64,
        (p, vp): (usize, Var),
        (r, vr): (usize, Var),
    ) -> Option<(Option<NodeId>, Rule, Option<Var>, f64)> {
        // (partner factors replacing f[p], f[r]; partner coefficient; rule; replacement)
        let candidates: Vec<([Var; 2], f64, Rule, Option<Var>)> = match (vp, vr) {
            (Var::Sin(a), Var::Sin(b)) if a == b => {
                vec![([Var::Cos(a), Var::Cos(a)], k, Rule::Pythagorean, None)]
            }
            (Var::Cos(a), Var::Cos(b)) if a & b == 0 => vec![(
                [Var::Sin(a), Var::Sin(b)],
                -k,
                Rule::CosSum,
                Some(Var::Cos(a | b)),
            )],
            (Var::Sin(a), Var::Cos(b)) | (Var::Cos(b), Var::Sin(a)) if a & b == 0 => vec![(
                [Var::Cos(a), Var::Sin(b)],
                k,
                Rule::SinSum,
                Some(Var::Sin(a | b)),
            )],
            _ => Vec::new(),
        };
        for (repl, want, rule, replacement) in candidates {
            let a = self.lookup(&Node::Var(repl[0]))?;
            let b = self.lookup(&Node::Var(repl[1]))?;
            let mut g: Vec<NodeId> = f
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != p && *i != r)
                .map(|(_, &id)| id)
                .collect();
            g.push(a);
            g.push(b);
            g.sort_unstable();
            let key = match g.len() {
                1 => Some(g[0]),
                _ => Some(self.lookup(&Node::Mul(g.into()))?),
            };
            if acc.get(&key) == Some(&want) {
                return Some((key, rule, replacement, k));
            }
        }
        None
    }

    /// Splits a term into (coefficient, monomial).
    pub(crate) fn split_term(&mut self, id: NodeId) -> (f64, Option<NodeId>) {
        match self.node(id) {
            Node::Const(bits) => (f64::from_bits(*bits), None),
            Node::Neg(x) => {
                let (c, m) = self.split_term(*x);
                (-c, m)
            }
            Node::Mul(v) => match self.node(v[0]).as_const() {
                Some(c) if v.len() == 2 => {
                    let m = v[1];
                    let (c2, m2) = self.split_term(m);
                    (c * c2, m2)
                }
                Some(c) => {
                    // Not produced by the constructors; handled for raw-interned nodes.
                    let rest = v[1..].to_vec();
                    (c, Some(self.intern(Node::Mul(rest.into()))))
                }
                None => (1.0, Some(id)),
            },
            _ => (1.0, Some(id)),
        }
    }

    /// The factors of a monomial (itself unless it is a product).
    pub(crate) fn mono_factors(&self, m: NodeId) -> Vec<NodeId> {
        match self.node(m) {
            Node::Mul(v) if self.node(v[0]).as_const().is_none() => v.to_vec(),
            _ => vec![m],
        }
    }

    /// The monomial with these (sorted) factors.
    fn mono_of(&mut self, factors: Vec<NodeId>) -> Option<NodeId> {
        match factors.len() {
            0 => None,
            1 => Some(factors[0]),
            _ => Some(self.intern(Node::Mul(factors.into()))),
        }
    }

    /// The term `c * m`.
    pub(crate) fn scale(&mut self, c: f64, m: Option<NodeId>) -> NodeId {
        let Some(m) = m else {
            return self.constant(c);
        };
        if c == 0.0 {
            self.fire(Rule::MulZero);
            self.constant(0.0)
        } else if c == 1.0 {
            m
        } else if c == -1.0 {
            self.intern(Node::Neg(m))
        } else {
            let k = self.constant(c);
            self.intern(Node::Mul([k, m].into()))
        }
    }
}

//! Node handles, leaves and node kinds of the IR arena.

use crate::inputs::{BaseVar, ElasticVar};

/// Handle of a node in a [`Graph`](super::Graph). Children always have smaller ids than their
/// parents, so one walk in id order visits every operand before its users.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub u32);

impl NodeId {
    /// Position in the arena.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Leaves of the expression graph. Joint indices are 0-based.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Var {
    /// Joint position `q_j`.
    Q(u16),
    /// Joint velocity.
    Qd(u16),
    /// Joint acceleration.
    Qdd(u16),
    /// Joint force/torque.
    Tau(u16),
    /// `sin` of the sum of the joint angles whose bits are set in the mask.
    Sin(u64),
    /// `cos` of the sum of the joint angles whose bits are set in the mask.
    Cos(u64),
    /// Symbolic parameter `k` (index into [`Graph::params`](super::Graph::params)).
    Param(u32),
    /// An input of a moving base.
    Base(BaseVar),
    /// An input of the elastic functions.
    Elastic(ElasticVar),
}

impl Var {
    /// True for `Sin`/`Cos` leaves.
    pub fn is_trig(self) -> bool {
        matches!(self, Var::Sin(_) | Var::Cos(_))
    }
}

/// Operands of a sum or a product, read as a slice. Up to [`Operands::INLINE`] of them are
/// stored in the node itself: most sums and products have two or three, and a heap block per
/// node was most of the arena's memory and of the generator's time in the allocator.
#[derive(Clone)]
pub struct Operands(Store);

#[derive(Clone)]
enum Store {
    /// The first `len` ids are the operands, the rest are zero.
    Inline(u8, [NodeId; Operands::INLINE]),
    Heap(Box<[NodeId]>),
}

impl Operands {
    /// The most operands stored without a heap block.
    pub const INLINE: usize = 4;
}

impl std::ops::Deref for Operands {
    type Target = [NodeId];

    fn deref(&self) -> &[NodeId] {
        match &self.0 {
            Store::Inline(len, ids) => &ids[..usize::from(*len)],
            Store::Heap(ids) => ids,
        }
    }
}

impl std::ops::DerefMut for Operands {
    fn deref_mut(&mut self) -> &mut [NodeId] {
        match &mut self.0 {
            Store::Inline(len, ids) => &mut ids[..usize::from(*len)],
            Store::Heap(ids) => ids,
        }
    }
}

impl From<&[NodeId]> for Operands {
    fn from(ids: &[NodeId]) -> Operands {
        ids.iter().copied().collect()
    }
}

impl From<Vec<NodeId>> for Operands {
    fn from(ids: Vec<NodeId>) -> Operands {
        if ids.len() <= Operands::INLINE {
            Operands::from(&ids[..])
        } else {
            Operands(Store::Heap(ids.into_boxed_slice()))
        }
    }
}

impl<const N: usize> From<[NodeId; N]> for Operands {
    fn from(ids: [NodeId; N]) -> Operands {
        ids.into_iter().collect()
    }
}

impl FromIterator<NodeId> for Operands {
    fn from_iter<I: IntoIterator<Item = NodeId>>(iter: I) -> Operands {
        let mut iter = iter.into_iter();
        let mut inline = [NodeId(0); Operands::INLINE];
        for (k, slot) in inline.iter_mut().enumerate() {
            match iter.next() {
                Some(id) => *slot = id,
                None => return Operands(Store::Inline(k as u8, inline)),
            }
        }
        match iter.next() {
            None => Operands(Store::Inline(Operands::INLINE as u8, inline)),
            Some(next) => {
                let mut ids = inline.to_vec();
                ids.push(next);
                ids.extend(iter);
                Operands(Store::Heap(ids.into_boxed_slice()))
            }
        }
    }
}

// Equality and hashing are those of the slice, whichever way it is stored.
impl PartialEq for Operands {
    fn eq(&self, other: &Operands) -> bool {
        **self == **other
    }
}

impl Eq for Operands {}

impl std::hash::Hash for Operands {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (**self).hash(state);
    }
}

impl std::fmt::Debug for Operands {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

/// One node of the arena. Sums and products are n-ary with operands in canonical (id) order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    /// A constant, stored as `f64` bits with `-0.0` normalised to `0.0` (so hashing works).
    Const(u64),
    /// A leaf.
    Var(Var),
    /// Sum of two or more operands.
    Add(Operands),
    /// Product of two or more operands; a constant factor, if any, comes first.
    Mul(Operands),
    /// Negation.
    Neg(NodeId),
    /// Quotient.
    Div(NodeId, NodeId),
    /// Square root.
    Sqrt(NodeId),
}

impl Node {
    /// The constant node for `value`.
    pub fn constant(value: f64) -> Node {
        // -0.0 and 0.0 must intern to the same node.
        let v = if value == 0.0 { 0.0 } else { value };
        Node::Const(v.to_bits())
    }

    /// The value of a constant node.
    pub fn as_const(&self) -> Option<f64> {
        match self {
            Node::Const(bits) => Some(f64::from_bits(*bits)),
            _ => None,
        }
    }

    /// Operands, in order.
    pub fn children(&self) -> impl Iterator<Item = NodeId> + '_ {
        let (slice, a, b): (&[NodeId], Option<NodeId>, Option<NodeId>) = match self {
            Node::Const(_) | Node::Var(_) => (&[], None, None),
            Node::Add(v) | Node::Mul(v) => (v, None, None),
            Node::Neg(x) | Node::Sqrt(x) => (&[], Some(*x), None),
            Node::Div(x, y) => (&[], Some(*x), Some(*y)),
        };
        slice.iter().copied().chain(a).chain(b)
    }

    /// The same node with every operand passed through `f` (operand order kept).
    pub fn map_children(&self, mut f: impl FnMut(NodeId) -> NodeId) -> Node {
        match self {
            Node::Const(_) | Node::Var(_) => self.clone(),
            Node::Add(v) => Node::Add(v.iter().map(|&c| f(c)).collect()),
            Node::Mul(v) => Node::Mul(v.iter().map(|&c| f(c)).collect()),
            Node::Neg(x) => Node::Neg(f(*x)),
            Node::Div(x, y) => Node::Div(f(*x), f(*y)),
            Node::Sqrt(x) => Node::Sqrt(f(*x)),
        }
    }
}

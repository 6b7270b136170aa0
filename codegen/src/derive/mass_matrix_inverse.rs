//! The inverse of the mass matrix, `M⁻¹(q)`, from its `L D Lᵀ` factorisation.
//!
//! A chain's factorisation from the base gives `M⁻¹ = Xᵀ D⁻¹ X` with `X = L⁻¹`; a tree's from
//! the leaves has no fill-in (a floating base's six coordinates sit above every joint), so
//! each column is solved with it. For small trees whichever is shorter is kept.

use super::derivatives::Factor;
use crate::ir::{Graph, NodeId};

/// Trees up to this many coordinates try both factorisations (as the forward dynamics'
/// derivatives do); larger ones take the tree's.
const BOTH_FORMS_MAX: usize = 24;

/// `M⁻¹`, `NV×NV` row-major and symmetric, from the mass matrix `m` (`NV×NV` row-major) whose
/// coordinate `k` is carried by `parent[k]` (`None` at the root).
pub fn mass_matrix_inverse(g: &mut Graph, m: &[NodeId], parent: &[Option<usize>]) -> Vec<NodeId> {
    let n = parent.len();
    let chain = parent
        .iter()
        .enumerate()
        .all(|(i, p)| *p == i.checked_sub(1));
    if chain {
        return Factor::dense(g, m, n).inverse(g);
    }
    let tree = Factor::tree(g, m, parent).inverse(g);
    if n > BOTH_FORMS_MAX {
        return tree;
    }
    let dense = Factor::dense(g, m, n).inverse(g);
    if g.op_count(&dense).total() < g.op_count(&tree).total() {
        dense
    } else {
        tree
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Env;

    /// A 3×3 tree (coordinates 1 and 2 both on 0) with constant entries: `M M⁻¹ = I`.
    #[test]
    fn inverts_a_branching_matrix() {
        let mut g = Graph::new();
        let values = [4.0, 1.0, 0.5, 1.0, 3.0, 0.0, 0.5, 0.0, 2.0];
        let m: Vec<NodeId> = values.iter().map(|&v| g.constant(v)).collect();
        for parent in [[None, Some(0), Some(0)], [None, Some(0), Some(1)]] {
            let inv = mass_matrix_inverse(&mut g, &m, &parent);
            let inv = g.eval_many(&inv, &Env::default());
            for i in 0..3 {
                for j in 0..3 {
                    let p: f64 = (0..3).map(|k| values[i * 3 + k] * inv[k * 3 + j]).sum();
                    let want = if i == j { 1.0 } else { 0.0 };
                    assert!((p - want).abs() < 1e-14, "({i}, {j}): {p}");
                }
            }
        }
    }
}

//! The inverse of the mass matrix, `M⁻¹(q)`, from its `L D Lᵀ` factorisation.
//!
//! A chain's factorisation from the base gives `M⁻¹ = Xᵀ D⁻¹ X` with `X = L⁻¹`; a tree's from
//! the leaves has no fill-in (a floating base's six coordinates sit above every joint), and
//! its `M⁻¹` is either solved column by column or summed over common ancestors
//! ([`crate::derive::ldlt::Tree::inverse_by_ancestors`]), whichever is shorter. For small
//! trees the chain's form is tried too and the shortest kept.

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
    let factor = Factor::tree(g, m, parent);
    let mut candidates = vec![factor.inverse(g)];
    candidates.extend(factor.inverse_by_ancestors(g));
    if n <= BOTH_FORMS_MAX {
        candidates.push(Factor::dense(g, m, n).inverse(g));
    }
    // The shortest as emitted (shared): the raw counts can order them wrongly (the hand).
    let mut best = candidates.remove(0);
    for other in candidates {
        if super::fewer_operations(g, &best, &other) {
            best = other;
        }
    }
    best
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

    /// A floating-base-like tree (a chain of three coordinates, then two branches, one of
    /// them forking) whose `M = Lᵀ D L` has the tree's pattern: every form of `M⁻¹` inverts
    /// it, the sums over common ancestors included.
    #[test]
    fn every_form_inverts_a_tree() {
        let parent = [
            None,
            Some(0),
            Some(1),
            Some(2),
            Some(3),
            Some(2),
            Some(5),
            Some(5),
        ];
        let n = parent.len();
        let (values, _) = crate::derive::ldlt::on_tree(
            &parent,
            |k, i| 0.3 - 0.1 * (k + i) as f64 / 3.0,
            |k| 1.0 + 0.25 * k as f64,
        );
        let mut g = Graph::new();
        let m: Vec<NodeId> = values.iter().map(|&v| g.constant(v)).collect();
        let factor = Factor::tree(&mut g, &m, &parent);
        let forms = [
            factor.inverse(&mut g),
            factor
                .inverse_by_ancestors(&mut g)
                .expect("a tree's factors"),
            mass_matrix_inverse(&mut g, &m, &parent),
        ];
        for inv in forms {
            let inv = g.eval_many(&inv, &Env::default());
            for i in 0..n {
                for j in 0..n {
                    let p: f64 = (0..n).map(|k| values[i * n + k] * inv[k * n + j]).sum();
                    let want = if i == j { 1.0 } else { 0.0 };
                    assert!((p - want).abs() < 1e-12, "({i}, {j}): {p}");
                }
            }
        }
    }
}

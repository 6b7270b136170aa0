//! Recovering the sharing that flattening loses.
//!
//! The constructors keep sums and products flat (the rewrite rules need to see every term), so
//! an accumulation such as `M_j = M_{j+1} + m_j` stores all the terms of `M_{j+1}` again when
//! `M_{j+1}` is itself a sum. When both are live, the code would add the same terms twice. The
//! passes of this module run once the expressions are final and rewrite the graph so that such
//! parts are computed once.
//!
//! Each pass is a method of [`Graph`] in a file of its own, named after what it does; what
//! several of them read and write is in `terms`. This file is the driver: it runs the passes
//! in order for each generated function, on the function alone and as part of its group, in
//! every equal form of the functions, and keeps each function's cheapest result.

mod coefficient_distribution;
mod common_coefficients;
mod common_factors;
mod constant_offsets;
mod factor_pairs;
mod negations;
mod partial_results;
mod term_pairs;
mod terms;

use crate::ir::graph::Graph;
use crate::ir::node::NodeId;
use crate::parallel::{parallel_in_order, parallel_map};

/// A rewriting pass: the rewritten copy of a graph and its roots' ids in it.
type Pass = fn(&Graph, &[NodeId]) -> (Graph, Vec<NodeId>);

/// Operations, then multiplications: what the sharing passes minimise.
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

    /// Every sharing pass of this module, in order.
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
/// generation time and memory and gained next to nothing there (docs/design.md, "Figures
/// behind the code's choices"). Every shipped robot's groups are below it.
const WHOLE_GROUP_LIMIT: usize = 100_000;

/// In a large group, the functions up to this many operations are shared as a group of
/// their own, in every form ([`share_large_group`]).
const SMALL_FUNCTION_LIMIT: usize = 5_000;

/// [`share_per_function_among`] for large functions: each function's sharing alone, without
/// the early pairs, in every variant, the variants of all functions spread over the cores
/// (each on the next free one, so a long function does not hold the others back), the
/// cheapest variant of each function taken (the first on ties) and copied into the result in
/// the functions' order as soon as the functions before it are done, so at most a few
/// functions' copies are held at once.
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
            if best.as_ref().is_none_or(|b| candidate.0 < b.0) {
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

/// The driver's tests, and helpers that the passes' tests (and those of the signs) share.
#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::ir::eval::Env;
    use crate::ir::node::Var;

    pub(in crate::ir) fn env() -> Env {
        Env {
            q: vec![0.3, -0.7],
            qd: vec![1.1, 0.4],
            qdd: vec![-0.2, 2.5],
            ..Env::default()
        }
    }

    /// `q̇_1, q̇_2, q̈_1, q̈_2` as leaves of `g`.
    pub(super) fn leaves(g: &mut Graph) -> [NodeId; 4] {
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
}

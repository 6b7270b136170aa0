//! Long runs of zero entries in an output, which the C emitter fills by a loop instead of one
//! store each.
//!
//! Why: a humanoid's regressor is mostly zeros, most of them in long runs (a joint's row is
//! zero across the columns of every body it does not carry), and gcc spends most of such a
//! function's build in dead-store elimination and alias walking over its stores; a loop is
//! one statement (figures in docs/design.md, "Runs of zeros written by loops"). Short runs (a
//! mass matrix's zeros between branches) keep their stores, so small functions are written as
//! before.

use super::{Ex, Plan};

/// Runs shorter than this keep one store per entry.
pub(crate) const ZERO_RUN_MIN: usize = 64;

/// Entries `start..end` of output `output`, every one of them the constant zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ZeroRun {
    pub output: usize,
    pub start: usize,
    pub end: usize,
}

/// The runs of at least [`ZERO_RUN_MIN`] consecutive zero entries of `plan`'s outputs, in
/// output then index order.
pub(crate) fn zero_runs(plan: &Plan) -> Vec<ZeroRun> {
    let mut runs = Vec::new();
    for (output, values) in plan.outputs.iter().enumerate() {
        let mut start = None;
        for i in 0..=values.len() {
            let zero = values
                .get(i)
                .is_some_and(|e| matches!(e, Ex::Lit(v) if *v == 0.0));
            match (zero, start) {
                (true, None) => start = Some(i),
                (false, Some(s)) => {
                    if i - s >= ZERO_RUN_MIN {
                        runs.push(ZeroRun {
                            output,
                            start: s,
                            end: i,
                        });
                    }
                    start = None;
                }
                _ => {}
            }
        }
    }
    runs
}

/// Whether entry `i` of output `o` lies in one of `runs`.
pub(crate) fn in_runs(runs: &[ZeroRun], o: usize, i: usize) -> bool {
    runs.iter()
        .any(|r| r.output == o && (r.start..r.end).contains(&i))
}

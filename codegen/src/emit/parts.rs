//! Long functions cut into parts: which statements each part holds and which values cross
//! from one part to a later one, shared by the C and Rust emitters (each writes the parts its
//! own way: `static` functions and a `carry` array on the caller's stack).
//!
//! Compilers optimise a function in memory and time growing faster than its length, so the
//! largest functions compile far faster in parts (figures in docs/design.md, "Long functions
//! in parts").

use std::collections::BTreeSet;

use rustc_hash::FxHashMap as HashMap;

use super::{Ex, Input, Plan};

/// Functions of more operations than this have their body cut into parts of about
/// [`PART_OPERATIONS`] each, functions called in turn, the values one part computes and a
/// later one reads passed through an array on the caller's stack. The functions of arms and
/// hands stay below (the Panda's inverse-dynamics derivatives: 3.7k operations) and are
/// written as one body; a humanoid's derivatives, regressors and forward dynamics are cut.
pub const PARTED_ABOVE: usize = 8192;

/// Operations per part of a function cut into parts ([`PARTED_ABOVE`]), about: a part ends
/// with the first local that reaches it.
pub const PART_OPERATIONS: usize = 4096;

/// When the emitters cut a long function into parts, and how finely.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartSizes {
    /// Functions of more operations than this (counted as `quasidyn stats` counts them) are
    /// cut into parts.
    pub above: usize,
    /// Operations per part, about.
    pub operations: usize,
}

impl Default for PartSizes {
    /// [`PARTED_ABOVE`] and [`PART_OPERATIONS`].
    fn default() -> Self {
        PartSizes {
            above: PARTED_ABOVE,
            operations: PART_OPERATIONS,
        }
    }
}

/// What a statement of a function in parts computes: a local (by name), or an output entry
/// (output, index in it).
#[derive(Clone, Copy)]
pub(crate) enum Target<'a> {
    Local(&'a str),
    Entry(usize, usize),
}

/// A long function's statements in parts.
pub(crate) struct Parts<'p> {
    /// The locals of the trigonometric block, computed first in part 0 (indices into
    /// [`Plan::locals`]).
    pub leading: Vec<usize>,
    /// Every other statement in order, with the part it is in.
    pub statements: Vec<(usize, &'p Ex, Target<'p>)>,
    /// Which outputs each part writes (`[part][output]`).
    pub writes: Vec<Vec<bool>>,
    /// Slots of the carry array used at once, at most.
    pub slots: usize,
    /// Each carried value as (part computing it, value, slot), by part.
    carried: Vec<(usize, String, usize)>,
    /// Each carried value's slot.
    slot: HashMap<String, usize>,
}

impl Parts<'_> {
    /// Number of parts.
    pub fn count(&self) -> usize {
        self.writes.len()
    }

    /// The slot value `value` is stored to right after it is computed, if a later part reads
    /// it.
    pub fn slot(&self, value: &str) -> Option<usize> {
        self.slot.get(value).copied()
    }

    /// Whether part `part` stores a value to the carry array (one a later part reads).
    pub fn stores(&self, part: usize) -> bool {
        self.carried.iter().any(|(p, _, _)| *p == part)
    }

    /// Calls `f` for every statement in order with its part and the values computed by
    /// earlier parts (each read from its slot of the carry array where used).
    pub fn for_each<'s>(
        &'s self,
        mut f: impl FnMut(usize, &'s Ex, Target<'s>, &HashMap<String, usize>),
    ) {
        let mut earlier: HashMap<String, usize> = HashMap::default();
        let mut next = self.carried.iter().peekable();
        let mut current = usize::MAX;
        for &(q, e, target) in &self.statements {
            if q != current {
                current = q;
                while let Some((_, value, slot)) = next.next_if(|(p, _, _)| *p < q) {
                    earlier.insert(value.clone(), *slot);
                }
            }
            f(q, e, target, &earlier);
        }
    }
}

/// The values `e` reads, each once, sorted: its locals, and its inputs named by `input` where
/// that gives a name (the C emitter's input copies).
pub(crate) fn values_read(e: &Ex, input: &dyn Fn(Input, usize) -> Option<String>) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    super::visit_leaves(e, &mut |leaf| match leaf {
        Ex::Local(local) => names.push(local.clone()),
        Ex::Input(i, j) => names.extend(input(*i, *j)),
        _ => {}
    });
    names.sort_unstable();
    names.dedup();
    names
}

/// The operations written in `e` (as `quasidyn stats` counts them: a sum or product of `k`
/// operands `k - 1`).
fn operations(e: &Ex) -> usize {
    match e {
        Ex::Lit(_) | Ex::Param(_) | Ex::Input(..) | Ex::Local(_) => 0,
        Ex::Call(_, x) | Ex::Neg(x) => 1 + operations(x),
        Ex::Sum(v) => {
            v.len().saturating_sub(1) + v.iter().map(|(_, x)| operations(x)).sum::<usize>()
        }
        Ex::Prod(v) => v.len().saturating_sub(1) + v.iter().map(operations).sum::<usize>(),
        Ex::Div(a, b) => 1 + operations(a) + operations(b),
    }
}

/// A function's batched form calls the scalar function once per state when the function has
/// more than this many times [`PartSizes::above`] operations (65,536 by default): a vectorised
/// body that long is beyond what compilers build in reasonable memory and time, while shorter
/// ones, even if their scalar form is cut into parts, still build and vectorise as one loop.
pub const BATCHED_BY_CALLS_FACTOR: usize = 8;

/// Operations of `plan`'s locals and outputs, as `quasidyn stats` counts them.
fn plan_operations(plan: &Plan) -> usize {
    plan.locals
        .iter()
        .map(|(_, e)| operations(e))
        .sum::<usize>()
        + plan.outputs.iter().flatten().map(operations).sum::<usize>()
}

/// Whether `plan` has more operations than `sizes.above`, so that its body is cut into parts
/// ([`cut`]).
pub(crate) fn is_long(plan: &Plan, sizes: PartSizes) -> bool {
    plan_operations(plan) > sizes.above
}

/// Whether `plan`'s batched form calls the scalar function once per state
/// ([`BATCHED_BY_CALLS_FACTOR`]).
pub(crate) fn batched_by_calls(plan: &Plan, sizes: PartSizes) -> bool {
    plan_operations(plan) > sizes.above.saturating_mul(BATCHED_BY_CALLS_FACTOR)
}

/// `plan`'s body in parts where it has more operations than `sizes.above` (else `None`): the
/// locals in the emitters' order ([`super::local_order`], the trigonometric block's first
/// where `block`), each output entry right after the last local it reads
/// ([`super::store_schedule`]), a part ending with the local that takes its operations to
/// `sizes.operations`. `copies` are values computed before any statement, in part 0 (the C
/// emitter's input copies); `reads(e)` names the values `e` reads (locals, and those copies).
/// A value read in a later part than the one computing it gets a slot of the carry array,
/// reused from the part after the last one that reads its value (interval colouring in the
/// order values are computed). Entries in `zero_filled` (written by the caller, before the
/// parts' statements) get no statement.
pub(crate) fn cut<'p>(
    plan: &'p Plan,
    sizes: PartSizes,
    block: bool,
    (copies, zero_filled): (&[String], &[super::ZeroRun]),
    reads: &dyn Fn(&Ex) -> Vec<String>,
) -> Option<Parts<'p>> {
    if !is_long(plan, sizes) {
        return None;
    }
    let (order, leading) = super::local_order(plan, block);
    let at = super::store_schedule(plan, &order);
    // The part of the `p`-th local of the order (1-based; 0: the entries before any local):
    // the sines and cosines in the first, a part ending with the local that takes its
    // operations to `sizes.operations` (the entries written after a local in its part).
    let mut part_at = vec![0usize; order.len() + 1];
    let (mut part, mut filled) = (0, 0);
    for p in leading + 1..=order.len() {
        if filled >= sizes.operations {
            part += 1;
            filled = 0;
        }
        part_at[p] = part;
        filled += operations(&plan.locals[order[p - 1]].1)
            + at[p]
                .iter()
                .map(|&(o, i)| operations(&plan.outputs[o][i]))
                .sum::<usize>();
    }
    let count = part + 1;
    // Where each value is computed: (part, place in the order of computation), the copies
    // first.
    let mut computed: HashMap<String, (usize, usize)> = HashMap::default();
    for (place, copy) in copies.iter().enumerate() {
        computed.insert(copy.clone(), (0, place));
    }
    for (p, &k) in order.iter().enumerate() {
        computed.insert(plan.locals[k].0.clone(), (part_at[p + 1], copies.len() + p));
    }
    let mut statements: Vec<(usize, &Ex, Target<'_>)> = Vec::new();
    let mut writes = vec![vec![false; plan.outputs.len()]; count];
    for slot in 0..=order.len() {
        if slot > leading {
            let (local, e) = &plan.locals[order[slot - 1]];
            statements.push((part_at[slot], e, Target::Local(local)));
        }
        for &(o, i) in &at[slot] {
            writes[part_at[slot]][o] = true;
            if !super::in_runs(zero_filled, o, i) {
                statements.push((part_at[slot], &plan.outputs[o][i], Target::Entry(o, i)));
            }
        }
    }
    // The last part reading each value computed in an earlier one.
    let mut last_read: HashMap<String, usize> = HashMap::default();
    for (q, e, _) in &statements {
        for value in reads(e) {
            if computed.get(&value).is_some_and(|&(part, _)| part < *q) {
                let last = last_read.entry(value).or_insert(*q);
                *last = (*last).max(*q);
            }
        }
    }
    // Slots by interval colouring, the values in the order they are computed.
    let mut by_place: Vec<(usize, usize, usize, String)> = last_read
        .into_iter()
        .map(|(value, last)| {
            let (part, place) = computed[&value];
            (part, place, last, value)
        })
        .collect();
    by_place.sort_unstable();
    let mut carried: Vec<(usize, String, usize)> = Vec::with_capacity(by_place.len());
    // (last part reading it, slot) of the slots in use; the free slots, lowest taken first.
    let mut busy: Vec<(usize, usize)> = Vec::new();
    let mut free: BTreeSet<usize> = BTreeSet::new();
    let mut slots = 0;
    for (part, _, last, value) in by_place {
        busy.retain(|&(until, slot)| {
            let keep = until >= part;
            if !keep {
                free.insert(slot);
            }
            keep
        });
        let slot = free.pop_first().unwrap_or_else(|| {
            slots += 1;
            slots - 1
        });
        busy.push((last, slot));
        carried.push((part, value, slot));
    }
    let slot = carried
        .iter()
        .map(|(_, value, slot)| (value.clone(), *slot))
        .collect();
    Some(Parts {
        leading: order[..leading].to_vec(),
        statements,
        writes,
        slots,
        carried,
        slot,
    })
}

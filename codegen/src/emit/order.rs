//! The order the C emitter writes a plan's statements in, chosen to keep few values live (the
//! register-pressure heuristics and the spill estimate that picks between them), and when each
//! output entry is stored.

use super::plan::{visit_leaves, Ex, Plan};
use super::trig::is_trig;
use rustc_hash::FxHashMap as HashMap;

use crate::functions::Input;

/// The locals of a plan in the order the C emitter writes them, as indices into
/// [`Plan::locals`], and how many of them lead as the trigonometric block's: the `sin`/`cos`
/// locals first (with a block, written by it), then the others in [`pressure_order`], with
/// whichever of its two tie rules keeps fewer values live on average ([`mean_live`]; the
/// graph's order on a tie).
///
/// Neither rule is best everywhere, and the average live count picked the one gcc compiled
/// to fewer instructions in every function measured. The order so chosen then gives way to
/// the [`depth_first_order`] where that needs fewer loads and stores of spilled values by
/// [`spill_estimate`] (figures in docs/design.md, "Figures behind the code's choices").
pub(crate) fn local_order(plan: &Plan, block: bool) -> (Vec<usize>, usize) {
    let trig = trig_locals(plan);
    let leading = if block { trig.len() } else { 0 };
    let operands = operand_lists(plan);
    let by_graph = pressure_order(&operands, plan.locals.len(), &trig, Ties::GraphOrder);
    let by_recent = pressure_order(&operands, plan.locals.len(), &trig, Ties::RecentOperands);
    let chosen = if mean_live(&operands, &by_recent) < mean_live(&operands, &by_graph) {
        by_recent
    } else {
        by_graph
    };
    let depth_first = depth_first_order(&operands, plan.locals.len(), &trig, &chosen);
    let counted: Vec<bool> = (0..plan.locals.len())
        .map(|k| !is_trig(&plan.locals[k].1))
        .collect();
    let order = if spill_estimate(&operands, &depth_first, &counted)
        < spill_estimate(&operands, &chosen, &counted)
    {
        depth_first
    } else {
        chosen
    };
    (order, leading)
}

/// The `n` locals depth first from the output entries (`operands` from [`operand_lists`]):
/// `first` (in their order), then for each entry, in the order `order` writes them
/// ([`store_schedule`]), the locals it needs and has not had yet, each after its own operands,
/// the operand with the larger expression tree first (Sethi–Ullman: the larger part is
/// computed while fewer values wait). Reverse-mode derivatives, whose adjoints each read
/// forward values computed long before, keep fewer of them waiting this way.
pub(crate) fn depth_first_order(
    operands: &[Vec<usize>],
    n: usize,
    first: &[usize],
    order: &[usize],
) -> Vec<usize> {
    // Expression-tree size (shared operands counted at each use), saturating.
    let mut size = vec![0u64; n];
    // Locals read only earlier locals in `order`, so sizes are filled in that order.
    for &k in order {
        size[k] = operands[k]
            .iter()
            .fold(1u64, |a, &d| a.saturating_add(size[d]));
    }
    // Output entries (readers `n..`) are visited like locals but not written out.
    let mut done = vec![false; operands.len()];
    let mut out = Vec::with_capacity(n);
    for &k in first {
        done[k] = true;
        out.push(k);
    }
    // An explicit stack (deep graphs): (reader, operands pushed yet).
    let mut stack: Vec<(usize, bool)> = Vec::new();
    let entries = entries_in_write_order(operands, order)
        .into_iter()
        .map(|(_, r)| r);
    for root in entries.chain(0..n) {
        stack.push((root, false));
        while let Some((k, expanded)) = stack.pop() {
            if done[k] {
                continue;
            }
            if expanded {
                done[k] = true;
                if k < n {
                    out.push(k);
                }
                continue;
            }
            stack.push((k, true));
            let mut ops: Vec<usize> = operands[k].iter().copied().filter(|&d| !done[d]).collect();
            // Pushed so that the largest is taken first.
            ops.sort_by_key(|&d| (size[d], std::cmp::Reverse(d)));
            stack.extend(ops.into_iter().map(|d| (d, false)));
        }
    }
    out
}

/// The output entries (readers `n..` of `operands`, [`operand_lists`]) in the order they are
/// written when the locals come in `order` (the emitters write them so, [`store_schedule`]):
/// each as `(slot, entry)`, `slot` the place in `order` after which it is written (0: before
/// any local), by slot and then in output order.
fn entries_in_write_order(operands: &[Vec<usize>], order: &[usize]) -> Vec<(usize, usize)> {
    let n = order.len();
    let mut position = vec![0usize; n];
    for (p, &k) in order.iter().enumerate() {
        position[k] = p + 1;
    }
    let mut entries: Vec<(usize, usize)> = operands
        .iter()
        .enumerate()
        .skip(n)
        .map(|(r, ops)| (ops.iter().map(|&d| position[d]).max().unwrap_or(0), r))
        .collect();
    entries.sort_unstable();
    entries
}

/// Registers the spill estimate of [`spill_estimate`] assumes: sixteen vector registers
/// less a few held by addresses and temporaries (the count that ranked the orders of the
/// functions measured as gcc's instruction counts did).
pub(crate) const ESTIMATED_REGISTERS: usize = 13;

/// How many loads and stores of spilled values the locals in `order` need with
/// [`ESTIMATED_REGISTERS`] registers, each output entry written right after its last operand
/// ([`store_schedule`]) and the values farthest from their next use evicted first (Belady's
/// rule); locals not `counted` (the sines and cosines, read from the trigonometric block's
/// arrays) are left out. Used to choose between orders, not as a cost in itself.
pub(crate) fn spill_estimate(operands: &[Vec<usize>], order: &[usize], counted: &[bool]) -> usize {
    let n = order.len();
    // The sequence of readers: each local, then the entries written right after it.
    let entries = entries_in_write_order(operands, order);
    let mut sequence: Vec<usize> = Vec::with_capacity(operands.len());
    let mut pending = entries.iter().peekable();
    for slot in 0..=n {
        if slot > 0 {
            sequence.push(order[slot - 1]);
        }
        while let Some(&(_, r)) = pending.next_if(|&&(at, _)| at == slot) {
            sequence.push(r);
        }
    }
    // Each local's uses, as places in `sequence`, in one flat array (`uses[start[d]..start[d
    // + 1]]`): a large function has millions of them.
    let mut start = vec![0usize; n + 1];
    for &r in &sequence {
        for &d in &operands[r] {
            if counted[d] {
                start[d + 1] += 1;
            }
        }
    }
    for d in 0..n {
        start[d + 1] += start[d];
    }
    let mut uses = vec![0usize; start[n]];
    let mut fill = start.clone();
    for (i, &r) in sequence.iter().enumerate() {
        for &d in &operands[r] {
            if counted[d] {
                uses[fill[d]] = i;
                fill[d] += 1;
            }
        }
    }
    drop(fill);
    // Each local's next use not yet passed, as an index into `uses`.
    let mut next = start[..n].to_vec();
    let next_use = |d: usize, next: &[usize]| {
        if next[d] < start[d + 1] {
            uses[next[d]]
        } else {
            usize::MAX
        }
    };
    let mut registers: Vec<usize> = Vec::with_capacity(ESTIMATED_REGISTERS + 2);
    let mut spilled = vec![false; n];
    let (mut loads, mut stores) = (0, 0);
    for (i, &r) in sequence.iter().enumerate() {
        for &d in &operands[r] {
            if !counted[d] {
                continue;
            }
            if !registers.contains(&d) {
                loads += 1;
                if !spilled[d] {
                    spilled[d] = true;
                    stores += 1;
                }
                registers.push(d);
            }
        }
        for &d in &operands[r] {
            if counted[d] {
                while next[d] < start[d + 1] && uses[next[d]] <= i {
                    next[d] += 1;
                }
            }
        }
        if r < n && counted[r] && start[r + 1] > start[r] {
            registers.push(r);
        }
        registers.retain(|&d| next_use(d, &next) != usize::MAX);
        while registers.len() > ESTIMATED_REGISTERS {
            let (at, _) = registers
                .iter()
                .enumerate()
                .max_by_key(|&(_, &d)| (next_use(d, &next), std::cmp::Reverse(d)))
                .expect("registers over the limit");
            registers.swap_remove(at);
        }
    }
    loads + stores
}

/// The `sin`/`cos` locals of a plan ([`is_trig`]), as indices into [`Plan::locals`].
pub(crate) fn trig_locals(plan: &Plan) -> Vec<usize> {
    (0..plan.locals.len())
        .filter(|&k| is_trig(&plan.locals[k].1))
        .collect()
}

/// The locals each reader reads, as indices into [`Plan::locals`]: the readers `0..N` are the
/// locals, the rest the output entries in output order (an entry is a reader too: written as
/// soon as its locals are computed, [`store_schedule`], it ends the values it reads).
pub(crate) fn operand_lists(plan: &Plan) -> Vec<Vec<usize>> {
    let index = local_index(plan);
    let reads = |e: &Ex| local_reads(e, &index);
    let mut operands: Vec<Vec<usize>> = plan.locals.iter().map(|(_, e)| reads(e)).collect();
    operands.extend(plan.outputs.iter().flatten().map(reads));
    operands
}

/// How [`pressure_order`] breaks ties between locals that end as many live values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ties {
    /// The earliest in the graph's order.
    GraphOrder,
    /// The one whose latest operand was computed last (then the graph's order): it reads
    /// values still fresh, which tends to keep the work near what was just computed.
    RecentOperands,
}

/// The mean number of locals live along `order` (every local once, as indices into
/// [`Plan::locals`]; `operands` from [`operand_lists`]), a value live from its local to its
/// last reader: a local, or an output entry at the place of the last local it reads.
pub(crate) fn mean_live(operands: &[Vec<usize>], order: &[usize]) -> f64 {
    let n = order.len();
    let mut position = vec![0; n];
    for (p, &k) in order.iter().enumerate() {
        position[k] = p;
    }
    let mut last = vec![None::<usize>; n];
    for (r, ops) in operands.iter().enumerate() {
        let at = if r < n {
            Some(position[r])
        } else {
            ops.iter().map(|&d| position[d]).max()
        };
        for &d in ops {
            last[d] = last[d].max(at);
        }
    }
    let mut delta = vec![0i64; n + 1];
    for (k, end) in last.iter().enumerate() {
        if let Some(end) = end {
            delta[position[k]] += 1;
            delta[end + 1] -= 1;
        }
    }
    let (mut live, mut sum) = (0i64, 0i64);
    for d in &delta[..n] {
        live += d;
        sum += live;
    }
    sum as f64 / n.max(1) as f64
}

/// The input entries a plan reads (`q[3]` as `(Input::Q, 3)`), in a fixed order: the C
/// emitter copies each into a local (`q_3`) before anything else, so that every input is read
/// before the first output entry is written (an output array may be an input array of the
/// same call) while the locals and the stores are ordered freely ([`pressure_order`]).
pub(crate) fn input_reads(plan: &Plan) -> Vec<(Input, usize)> {
    let mut reads = Vec::new();
    let exprs = plan
        .locals
        .iter()
        .map(|(_, e)| e)
        .chain(plan.outputs.iter().flatten());
    for e in exprs {
        visit_leaves(e, &mut |leaf| {
            if let Ex::Input(i, j) = leaf {
                reads.push((*i, *j));
            }
        });
    }
    reads.sort_by_key(|&(i, j)| (i.name(), j));
    reads.dedup();
    reads
}

/// The `n` locals in an order that keeps few values live at once (`operands` from
/// [`operand_lists`]), `first` (computed first, in their order) then every other local, by
/// list scheduling: of the locals whose operands are
/// computed, the one that ends the most live values (operands it is the last reader of, an
/// output entry counting as a reader) less the one it starts, ties broken by `ties`. The
/// graph's order computes the recursions' quantities long before their last use (the
/// reverse-mode derivatives' forward values above all), and gcc spills most of what waits;
/// this order keeps about half as many values live (docs/design.md, "Statement order"). Rust
/// functions that write their outputs early take the same order; the others keep the graph's
/// order: LLVM reorders the code itself, and the reordering barely changed them.
pub(crate) fn pressure_order(
    operands: &[Vec<usize>],
    n: usize,
    first: &[usize],
    ties: Ties,
) -> Vec<usize> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    // Readers `0..n` are the locals, `n..` the output entries ([`operand_lists`]).
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (r, ops) in operands.iter().enumerate() {
        for &k in ops {
            readers[k].push(r);
        }
    }
    let mut unread: Vec<usize> = readers.iter().map(Vec::len).collect();
    let mut waiting: Vec<usize> = operands.iter().map(Vec::len).collect();
    let mut done = vec![false; operands.len()];
    // A local's score: the values it ends less the one it starts.
    let score = |k: usize, unread: &[usize]| -> i64 {
        let ends = operands[k].iter().filter(|&&d| unread[d] == 1).count();
        ends as i64 - i64::from(!readers[k].is_empty())
    };
    let mut heap: BinaryHeap<(i64, usize, Reverse<usize>)> = BinaryHeap::new();
    let mut order = Vec::with_capacity(n);
    // Each scheduled local's place in `order` plus one (0: not yet scheduled).
    let mut place = vec![0usize; n];
    // The tie-break of a ready local, higher first (fixed once its operands are computed).
    let tie = |r: usize, place: &[usize]| match ties {
        Ties::GraphOrder => 0,
        Ties::RecentOperands => operands[r].iter().map(|&d| place[d]).max().unwrap_or(0),
    };
    // Marks reader `r` computed; returns the locals it made ready or whose score rose.
    let finish = |r: usize,
                  unread: &mut Vec<usize>,
                  waiting: &mut Vec<usize>,
                  done: &mut Vec<bool>,
                  touched: &mut Vec<usize>| {
        done[r] = true;
        for &d in &operands[r] {
            unread[d] -= 1;
            if unread[d] == 1 {
                // Its last reader now ends it.
                touched.extend(readers[d].iter().copied().filter(|&x| !done[x]));
            }
        }
        if r < n {
            for &x in &readers[r] {
                waiting[x] -= 1;
                if waiting[x] == 0 {
                    touched.push(x);
                }
            }
        }
    };
    let mut touched = Vec::new();
    for &k in first {
        order.push(k);
        place[k] = order.len();
        finish(k, &mut unread, &mut waiting, &mut done, &mut touched);
    }
    touched.extend((0..operands.len()).filter(|&r| waiting[r] == 0 && !done[r]));
    loop {
        // Output entries are written as soon as they are ready (`store_schedule`): they end
        // values and start none.
        while let Some(r) = touched.pop() {
            if done[r] || waiting[r] != 0 {
                continue;
            }
            if r >= n {
                finish(r, &mut unread, &mut waiting, &mut done, &mut touched);
            } else {
                heap.push((score(r, &unread), tie(r, &place), Reverse(r)));
            }
        }
        let Some((s, _, Reverse(k))) = heap.pop() else {
            break;
        };
        if done[k] || s != score(k, &unread) {
            continue;
        }
        order.push(k);
        place[k] = order.len();
        finish(k, &mut unread, &mut waiting, &mut done, &mut touched);
    }
    debug_assert_eq!(order.len(), n, "every local is scheduled");
    order
}

/// Each local's index in [`Plan::locals`], by name.
pub(crate) fn local_index(plan: &Plan) -> HashMap<&str, usize> {
    plan.locals
        .iter()
        .enumerate()
        .map(|(k, (name, _))| (name.as_str(), k))
        .collect()
}

/// The locals `e` reads, as indices into [`Plan::locals`] (`index` from [`local_index`]),
/// each once, in increasing order.
pub(crate) fn local_reads(e: &Ex, index: &HashMap<&str, usize>) -> Vec<usize> {
    let mut ks = Vec::new();
    visit_leaves(e, &mut |leaf| {
        if let Ex::Local(name) = leaf {
            if let Some(&k) = index.get(name.as_str()) {
                ks.push(k);
            }
        }
    });
    ks.sort_unstable();
    ks.dedup();
    ks
}

/// Where each output entry is written when the locals are emitted in `order` (see
/// [`local_order`]): `at[0]` before any local, `at[k + 1]` right after the `k`-th local of
/// `order`; each entry as (output, index in it), in output order.
///
/// An entry is written as soon as the locals it reads are computed, so that a function with
/// many outputs (a mass matrix, a Jacobian, derivatives) does not hold them all until its
/// end: gcc keeps each in a register or, far more often, spills it to the stack and loads it
/// back for the store.
/// The C emitter uses it, and the Rust one for functions with many computed entries (their
/// inner function fills `MaybeUninit` arrays, `rust::written_early_body`). The C
/// emitter reads every input into a local first ([`input_reads`]), so an output array that
/// is also an input array of the call is read whole before it is written (a Rust output is
/// never an input).
pub(crate) fn store_schedule(plan: &Plan, order: &[usize]) -> Vec<Vec<(usize, usize)>> {
    // The order is the one the statement-order estimates assume ([`entries_in_write_order`]).
    let entries: Vec<(usize, usize)> = plan
        .outputs
        .iter()
        .enumerate()
        .flat_map(|(o, vals)| (0..vals.len()).map(move |i| (o, i)))
        .collect();
    let n = plan.locals.len();
    let mut at: Vec<Vec<(usize, usize)>> = vec![Vec::new(); order.len() + 1];
    for (slot, r) in entries_in_write_order(&operand_lists(plan), order) {
        at[slot].push(entries[r - n]);
    }
    at
}

//! Bodies of the generated C functions: prototypes and documentation, locals in the order
//! that keeps few values live, outputs stored as soon as computed, long functions in parts.

use std::fmt::Write as _;

use super::CLang;
use crate::emit::parts::{PartSizes, Target};
use crate::emit::{layout, render, zero_runs, Ex, Lang, Plan, ZeroRun};

/// The public prototype: `void NAME_FUNCTION(inputs..., outputs...)`, or for a function
/// returning one number `real NAME_FUNCTION(inputs...)`.
pub(super) fn prototype(plan: &Plan, name: &str, real: &str, params: bool) -> String {
    if !plan.contract.returns_scalar() {
        return array_prototype(plan, name, real, params);
    }
    let args = input_args(plan, name, real, params);
    format!("{real} {name}_{}({})", plan.name, args.join(", "))
}

/// The prototype with every output an array argument (the parts of a long function take
/// them so, and a scalar function's body writes its one-entry array).
pub(super) fn array_prototype(plan: &Plan, name: &str, real: &str, params: bool) -> String {
    let mut args = input_args(plan, name, real, params);
    for o in plan.contract.outputs {
        args.push(format!("{real} {}[]", o.name));
    }
    format!("void {name}_{}({})", plan.name, args.join(", "))
}

/// The parameters (if symbolic) and the inputs, as C arguments.
fn input_args(plan: &Plan, name: &str, real: &str, params: bool) -> Vec<String> {
    let mut args = Vec::new();
    if params {
        args.push(format!("const {name}_params *params"));
    }
    for i in &plan.inputs {
        args.push(format!("const {real} {}[]", i.name()));
    }
    args
}

/// Writes the plan's locals in emission order (see [`crate::emit::local_order`]; with a
/// trigonometric `block` its sines and cosines, written by the caller, are skipped) by `local`
/// (name, value), and each output entry by `store` (output name, index, value) as soon as it
/// can be ([`crate::emit::store_schedule`]), but for the entries of `filled` (written by the
/// caller's loops, [`zero_fills`]).
pub(super) fn locals_and_stores(
    b: &mut String,
    plan: &Plan,
    (block, filled): (bool, &[ZeroRun]),
    local: impl Fn(&mut String, &str, &Ex),
    store: impl Fn(&mut String, &str, usize, &Ex),
) {
    let (order, leading) = crate::emit::local_order(plan, block);
    let at = crate::emit::store_schedule(plan, &order);
    let stores = |b: &mut String, slot: usize| {
        for &(o, i) in &at[slot] {
            if !crate::emit::in_runs(filled, o, i) {
                store(b, plan.contract.outputs[o].name, i, &plan.outputs[o][i]);
            }
        }
    };
    for slot in 0..=leading {
        stores(b, slot);
    }
    for (p, &k) in order.iter().enumerate().skip(leading) {
        let (name, e) = &plan.locals[k];
        local(b, name, e);
        stores(b, p + 1);
    }
}

/// [`crate::emit::batch_trig`] in C: rounding by the header's `NAME_ROUND`, fused multiply-adds by
/// its `NAME_FMA`.
pub(super) fn trig_statements(
    lang: &CLang<'_>,
    upper: &str,
    tag: &str,
    angle: String,
    sin: Option<&str>,
    cos: Option<&str>,
) -> Vec<(String, String)> {
    let lit = |v: f64| lang.lit(v);
    let round = |x: String| format!("{upper}_ROUND({x})");
    let fma = |a: &str, b: &str, c: &str| format!("{upper}_FMA({a}, {b}, {c})");
    let syntax = crate::emit::TrigSyntax {
        single: lang.float,
        lit: &lit,
        round: &round,
        fma: &fma,
    };
    crate::emit::batch_trig(tag, angle, sin, cos, &syntax)
}

pub(super) fn doc_comment(plan: &Plan, params: bool) -> String {
    let mut d = format!("/** {}\n", plan.contract.doc);
    if let Some(note) = plan.base_note() {
        let _ = writeln!(d, " *\n * {note}\n *");
    }
    if params {
        d.push_str(" * @param params robot parameters\n");
    }
    for i in &plan.inputs {
        let _ = writeln!(
            d,
            " * @param {} {}, {} values",
            i.name(),
            plan.input_doc(*i),
            plan.input_len(*i)
        );
    }
    for o in plan.contract.outputs {
        if plan.contract.returns_scalar() {
            let _ = writeln!(d, " * @return {} {}", o.name, o.doc);
            continue;
        }
        let _ = writeln!(
            d,
            " * @param[out] {} {}; {}",
            o.name,
            o.doc,
            layout(o, plan.out_n, plan.counts)
        );
    }
    d.push_str(" */\n");
    d
}

/// Casts of the arguments the body does not read: unused inputs are part of the fixed API,
/// and the casts silence -Wunused-parameter.
pub(super) fn unused_casts(plan: &Plan, lang: &CLang<'_>) -> String {
    let mut b = String::new();
    if !lang.fields.is_empty() && !plan.uses_params {
        b.push_str("    (void)params;\n");
    }
    for (i, used) in plan.inputs.iter().zip(&plan.used_inputs) {
        if !used {
            let _ = writeln!(b, "    (void){};", i.name());
        }
    }
    b
}

/// The statements every scalar body starts with: the casts of unused arguments, the inputs
/// copied into locals, and the trigonometric block (`true` when there is one).
fn body_prefix(plan: &Plan, lang: &CLang<'_>, real: &str, upper: &str) -> (String, bool) {
    let mut b = unused_casts(plan, lang);
    // An output of no entries (F2 of a robot without elastic joints) is never written.
    for (o, vals) in plan.contract.outputs.iter().zip(&plan.outputs) {
        if vals.is_empty() {
            let _ = writeln!(b, "    (void){};", o.name);
        }
    }
    // Every input read first: an output array may be an input array of the same call, and
    // the stores are interleaved with the locals.
    for (i, j) in crate::emit::input_reads(plan) {
        let _ = writeln!(b, "    const {real} {0}_{j} = {0}[{j}];", i.name());
    }
    let block = crate::emit::trig_block(plan);
    if let Some(block) = &block {
        // A multiple of an AVX vector, so that the loop has no remainder (gcc 12 vectorises
        // such a loop at -O2 too), each vector a window of the angles (`trig_slots`).
        let width = if lang.float { 8 } else { 4 };
        let slots = crate::emit::trig_slots(block.len(), width);
        let angles: Vec<String> = slots
            .iter()
            .map(|s| s.map_or_else(|| lang.lit(0.0), |k| render(lang, block[k].0)))
            .collect();
        let padded = slots.len();
        let _ = writeln!(
            b,
            "#ifdef {upper}_TRIG_BLOCK\n    {real} trig_a[{padded}] = {{{}}};\n    \
             {real} trig_s[{padded}], trig_c[{padded}];\n    \
             {upper}_SINCOS({padded}, trig_a, trig_s, trig_c);",
            angles.join(", ")
        );
        let reads = crate::emit::trig_reads(plan, block);
        for r in &reads {
            let slot = crate::emit::trig_slot(&slots, r.index);
            let _ = writeln!(b, "    const {real} {} = {}[{slot}];", r.name, r.array);
        }
        // Without the block, the same locals as plain calls.
        b.push_str("#else\n");
        for r in &reads {
            let _ = writeln!(b, "    const {real} {} = {};", r.name, render(lang, r.call));
        }
        b.push_str("#endif\n");
    }
    (b, block.is_some())
}

/// The loops writing the long runs of zero entries of `plan`'s outputs ([`zero_runs`]), one
/// statement each, for the body to write after its inputs are read (an output array may be an
/// input array of the same call).
fn zero_fills(plan: &Plan, lang: &CLang<'_>, runs: &[ZeroRun]) -> String {
    let mut b = String::new();
    for r in runs {
        let _ = writeln!(
            b,
            "    for (int z_ = {}; z_ < {}; ++z_) {}[z_] = {};",
            r.start,
            r.end,
            plan.contract.outputs[r.output].name,
            lang.lit(0.0)
        );
    }
    b
}

pub(super) fn body(plan: &Plan, lang: &CLang<'_>, real: &str, upper: &str) -> String {
    let lang = &CLang {
        copied: true,
        ..*lang
    };
    let (mut b, block) = body_prefix(plan, lang, real, upper);
    let runs = zero_runs(plan);
    b.push_str(&zero_fills(plan, lang, &runs));
    locals_and_stores(
        &mut b,
        plan,
        (block, &runs),
        |b, name, e| {
            let _ = writeln!(b, "    const {real} {name} = {};", render(lang, e));
        },
        |b, out, k, e| {
            let _ = writeln!(b, "    {out}[{k}] = {};", render(lang, e));
        },
    );
    b
}

/// A long function as parts ([`crate::emit::parts::cut`], `sizes`): the part functions'
/// definitions (to precede the function's) and the function's body, which declares the
/// carry array and calls them.
///
/// Each part is a `static` function of the function's arguments and the carry array. The
/// first copies the inputs (so every input is read before any output is written, as in one
/// body) and takes the sines and cosines; a value read in a later part than the one that
/// computes it (an input copy or a local) is stored to its slot of the carry array right
/// after it is computed and read from that slot where used (held in locals, they kept so
/// many values live that gcc's register allocator took most of the compile time).
pub(super) fn parted_body(
    plan: &Plan,
    lang: &CLang<'_>,
    (real, name, storage): (&str, &str, &str),
    sizes: PartSizes,
) -> Option<(String, String)> {
    let upper = lang.upper;
    let lang = &CLang {
        copied: true,
        ..*lang
    };
    // Inputs are read from their copies, values like the locals.
    let reads = |e: &Ex| crate::emit::parts::values_read(e, &|i, j| Some(lang.input(i, j)));
    let copies: Vec<String> = crate::emit::input_reads(plan)
        .into_iter()
        .map(|(i, j)| lang.input(i, j))
        .collect();
    let block = crate::emit::trig_block(plan).is_some();
    let runs = zero_runs(plan);
    let parted = crate::emit::parts::cut(plan, sizes, block, (&copies, &runs), &reads)?;
    let (prefix, _) = body_prefix(plan, lang, real, upper);
    let parts = parted.count();
    let store = |value: &str| {
        parted
            .slot(value)
            .map(|slot| format!("    carry[{slot}] = {value};\n"))
            .unwrap_or_default()
    };
    let mut texts: Vec<String> = vec![String::new(); parts];
    texts[0].push_str(&prefix);
    for copy in &copies {
        texts[0].push_str(&store(copy));
    }
    for &k in &parted.leading {
        texts[0].push_str(&store(&plan.locals[k].0));
    }
    texts[0].push_str(&zero_fills(plan, lang, &runs));
    let mut reads_params = vec![false; parts];
    parted.for_each(|q, e, target, earlier| {
        let lang = &CLang {
            carried: Some(earlier),
            ..*lang
        };
        let mut params_read = false;
        crate::emit::visit_leaves(e, &mut |leaf| params_read |= matches!(leaf, Ex::Param(_)));
        reads_params[q] |= params_read;
        let value = render(lang, e);
        match target {
            Target::Local(local) => {
                let _ = writeln!(texts[q], "    const {real} {local} = {value};");
                texts[q].push_str(&store(local));
            }
            Target::Entry(o, i) => {
                let out = plan.contract.outputs[o].name;
                let _ = writeln!(texts[q], "    {out}[{i}] = {value};");
            }
        }
    });

    // Each part a function of the function's arguments and the carry array.
    let params = !lang.fields.is_empty();
    let whole = array_prototype(plan, name, real, params);
    let function = format!("{name}_{}", plan.name);
    let part_name = |q: usize| format!("{function}_part{}", q + 1);
    let static_storage = if storage.is_empty() {
        "static "
    } else {
        storage
    };
    let mut helpers = String::new();
    for (q, text) in texts.iter().enumerate() {
        // The function's prototype with the part's name and the carry array last.
        let named = whole.replacen(&format!("{function}("), &format!("{}(", part_name(q)), 1);
        let proto = named.strip_suffix(')').unwrap_or(&named);
        let mut casts = String::new();
        if params && !reads_params[q] {
            casts.push_str("    (void)params;\n");
        }
        if q > 0 {
            // Inputs are read by the first part only, before any output is written.
            for i in &plan.inputs {
                let _ = writeln!(casts, "    (void){};", i.name());
            }
        }
        for (o, written) in plan.contract.outputs.iter().zip(&parted.writes[q]) {
            if !written {
                let _ = writeln!(casts, "    (void){};", o.name);
            }
        }
        if !text.contains("carry[") {
            casts.push_str("    (void)carry;\n");
        }
        let _ = write!(
            helpers,
            "{static_storage}{proto}, {real} carry[])\n{{\n{casts}{text}}}\n\n"
        );
    }
    let mut arguments: Vec<&str> = Vec::new();
    if params {
        arguments.push("params");
    }
    arguments.extend(plan.inputs.iter().map(|i| i.name()));
    arguments.extend(plan.contract.outputs.iter().map(|o| o.name));
    arguments.push("carry");
    let arguments = arguments.join(", ");
    let mut body = format!(
        "    /* {parts} parts of about {} operations (compilers optimise shorter \
         functions in far less memory and time); carry holds the values a part passes to a \
         later one. */\n    {real} carry[{}];\n",
        sizes.operations,
        parted.slots.max(1)
    );
    for q in 0..parts {
        let _ = writeln!(body, "    {}({arguments});", part_name(q));
    }
    Some((helpers, body))
}

//! The batched forms of the generated C functions: one loop over the states that compilers
//! vectorise, or calls of the parts of a long function per state.

use std::fmt::Write as _;

use super::body::{locals_and_stores, trig_statements, unused_casts};
use super::CLang;
use crate::emit::{render, Plan};

/// `void NAME_FUNCTION_batch(const real (*NAME_RESTRICT q)[NAME_BATCH], ...)`: the scalar
/// function's arguments with a state index added as the last array dimension.
pub(super) fn batch_prototype(plan: &Plan, name: &str, real: &str, params: bool) -> String {
    let upper = name.to_ascii_uppercase();
    let mut args = Vec::new();
    if params {
        args.push(format!("const {name}_params *params"));
    }
    for i in &plan.inputs {
        args.push(format!(
            "const {real} (*{upper}_RESTRICT {})[{upper}_BATCH]",
            i.name()
        ));
    }
    for o in plan.contract.outputs {
        if plan.contract.returns_scalar() {
            // One number per state: `out[NAME_BATCH]`.
            args.push(format!("{real} *{upper}_RESTRICT {}", o.name));
        } else {
            args.push(format!(
                "{real} (*{upper}_RESTRICT {})[{upper}_BATCH]",
                o.name
            ));
        }
    }
    format!("void {name}_{}_batch({})", plan.name, args.join(", "))
}

/// The body of the batched form of a long function ([`crate::emit::parts::batched_by_calls`]):
/// the scalar function called once per state, its arguments gathered from and its results
/// scattered to the state's column.
pub(super) fn batch_by_calls(plan: &Plan, lang: &CLang<'_>, real: &str, name: &str) -> String {
    let upper = lang.upper;
    let mut b = format!(
        "    /* Too long for one vectorised loop: the function once per state (a \
         vectorised body this long is beyond what compilers build in reasonable memory and \
         time). */\n    int k, j;\n    for (k = 0; k < {upper}_BATCH; ++k) {{\n"
    );
    let mut arguments: Vec<String> = Vec::new();
    if !lang.fields.is_empty() {
        arguments.push("params".to_owned());
    }
    let mut gathers = String::new();
    let mut scatters = String::new();
    for i in &plan.inputs {
        let len = plan.input_len(*i);
        let _ = writeln!(b, "        {real} {}_k[{}];", i.name(), len.max(1));
        if len > 0 {
            let _ = writeln!(
                gathers,
                "        for (j = 0; j < {len}; ++j) {0}_k[j] = {0}[j][k];",
                i.name()
            );
        }
        arguments.push(format!("{}_k", i.name()));
    }
    let scalar = plan.contract.returns_scalar();
    for (o, entries) in plan.contract.outputs.iter().zip(&plan.outputs) {
        if scalar {
            continue;
        }
        let len = entries.len();
        let _ = writeln!(b, "        {real} {}_k[{}];", o.name, len.max(1));
        if len > 0 {
            let _ = writeln!(
                scatters,
                "        for (j = 0; j < {len}; ++j) {0}[j][k] = {0}_k[j];",
                o.name
            );
        }
        arguments.push(format!("{}_k", o.name));
    }
    b.push_str(&gathers);
    let call = format!("{name}_{}({})", plan.name, arguments.join(", "));
    if scalar {
        let _ = writeln!(b, "        {}[k] = {call};", plan.contract.outputs[0].name);
    } else {
        let _ = writeln!(b, "        {call};");
    }
    b.push_str(&scatters);
    b.push_str("    }\n");
    b
}

/// The body of a batched function: one loop over the states around the scalar function's
/// straight-line code, with no branch and no call (the `sin` and `cos` written out, see
/// [`crate::emit::batch_trig`]; `sqrt` is the one call left), so that compilers vectorise it.
pub(super) fn batch_body(plan: &Plan, lang: &CLang<'_>, real: &str, upper: &str) -> String {
    let lanes = CLang {
        fields: lang.fields,
        upper: lang.upper,
        float: lang.float,
        lanes: true,
        copied: true,
        carried: None,
    };
    let mut b = unused_casts(plan, lang);
    let _ = writeln!(b, "    int k;");
    let _ = writeln!(b, "    for (k = 0; k < {upper}_BATCH; ++k) {{");
    for (i, j) in crate::emit::input_reads(plan) {
        let _ = writeln!(b, "        const {real} {0}_{j} = {0}[{j}][k];", i.name());
    }
    for (t, (angle, sin, cos)) in crate::emit::trig_angles(plan).into_iter().enumerate() {
        let angle = render(&lanes, angle);
        for (name, e) in trig_statements(lang, upper, &format!("t{t}"), angle, sin, cos) {
            let _ = writeln!(b, "        const {real} {name} = {e};");
        }
    }
    // Past the sines and cosines above, the other locals and the entries written as soon as
    // computed, as in the scalar body.
    locals_and_stores(
        &mut b,
        plan,
        (true, &[]),
        |b, name, e| {
            let _ = writeln!(b, "        const {real} {name} = {};", render(&lanes, e));
        },
        |b, out, i, e| {
            let value = render(&lanes, e);
            if plan.contract.returns_scalar() {
                let _ = writeln!(b, "        {out}[k] = {value};");
            } else {
                let _ = writeln!(b, "        {out}[{i}][k] = {value};");
            }
        },
    );
    let _ = writeln!(b, "    }}");
    b
}

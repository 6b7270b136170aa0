//! The batched forms of the generated Rust functions: one loop over the states, or calls of
//! the parts of a long function per state.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::{input_idents, input_index, RustLang, Writer};
use crate::emit::{render, Plan};

/// `FUNCTION_batch` of a long function ([`crate::emit::parts::batched_by_calls`]): the scalar
/// function called once per state, its arguments gathered from and its results scattered to
/// the state's column (a vectorised body that long is beyond what compilers build in reasonable
/// memory and time).
fn batch_by_calls(plan: &Plan, has_params: bool, allow: &TokenStream) -> TokenStream {
    let name = format_ident!("{}", plan.name);
    let batched = format_ident!("{}_batch", plan.name);
    let mut args = Vec::new();
    let mut arguments = Vec::new();
    // Named so as not to clash with an output (`p` of the forward kinematics, `v`).
    if has_params {
        args.push(quote!(params: &Params));
        arguments.push(quote!(params));
    }
    let mut gathers = Vec::new();
    for i in &plan.inputs {
        let (id, state) = (
            format_ident!("{}", i.name()),
            format_ident!("{}_k", i.name()),
        );
        let len = Literal::usize_unsuffixed(plan.input_len(*i));
        args.push(quote!(#id: &[[f64; BATCH]; #len]));
        gathers.push(quote!(let #state: [f64; #len] = ::core::array::from_fn(|j| #id[j][k]);));
        arguments.push(quote!(&#state));
    }
    let mut results = Vec::new();
    let mut scatters = Vec::new();
    let scalar = plan.contract.returns_scalar();
    for (r, (o, entries)) in plan.contract.outputs.iter().zip(&plan.outputs).enumerate() {
        let (id, result) = (format_ident!("{}", o.name), format_ident!("r{}", r));
        if scalar {
            args.push(quote!(#id: &mut [f64; BATCH]));
            scatters.push(quote!(#id[k] = #result;));
            results.push(result);
            continue;
        }
        let len = Literal::usize_unsuffixed(entries.len());
        args.push(quote!(#id: &mut [[f64; BATCH]; #len]));
        let entries = if o.cols.is_some() {
            quote!(#result.iter().flatten())
        } else {
            quote!(#result.iter())
        };
        scatters.push(quote! {
            for (j, x) in #entries.enumerate() {
                #id[j][k] = *x;
            }
        });
        results.push(result);
    }
    let results = if results.len() == 1 {
        let r = &results[0];
        quote!(#r)
    } else {
        quote!((#(#results),*))
    };
    let doc = format!(
        " `{}` over `BATCH` states: entry `[i][k]` of each argument is entry `i` of state `k` \
         (matrices flattened row-major); the function once per state, being too long for one \
         vectorised loop.",
        plan.name
    );
    quote! {
        #[doc = #doc]
        #allow
        #[allow(clippy::too_many_arguments, non_snake_case)]
        pub fn #batched(#(#args),*) {
            for k in 0..BATCH {
                #(#gathers)*
                let #results = #name(#(#arguments),*);
                #(#scatters)*
            }
        }
    }
}

/// `FUNCTION_batch`: the scalar function over `BATCH` states, each argument with the state as
/// its last index; one loop over the states around the straight-line code, with no branch and
/// no call (the `sin` and `cos` written out, see [`crate::emit::batch_trig`]), so that it
/// vectorises.
pub(super) fn batch_function(plan: &Plan, writer: &Writer<'_>) -> TokenStream {
    let Writer {
        fields,
        has_params,
        allow,
        sizes,
    } = *writer;
    if crate::emit::parts::batched_by_calls(plan, sizes) {
        return batch_by_calls(plan, has_params, allow);
    }
    let inputs = input_idents(&plan.inputs, &plan.used_inputs);
    let lang = RustLang {
        fields,
        inputs: &inputs,
        lanes: true,
        carried: None,
    };
    let name = format_ident!("{}_batch", plan.name);
    let n = plan.out_n;
    let mut args = Vec::new();
    if has_params {
        let p = if plan.uses_params {
            format_ident!("p")
        } else {
            format_ident!("_p")
        };
        args.push(quote!(#p: &Params));
    }
    for i in &plan.inputs {
        let id = &lang.inputs[input_index(*i)];
        let len = Literal::usize_unsuffixed(plan.input_len(*i));
        args.push(quote!(#id: &[[f64; BATCH]; #len]));
    }
    let scalar = plan.contract.returns_scalar();
    for o in plan.contract.outputs {
        let id = format_ident!("{}", o.name);
        if scalar {
            args.push(quote!(#id: &mut [f64; BATCH]));
            continue;
        }
        let len = o.rows.of(n, plan.counts) * o.cols.map_or(1, |c| c.of(n, plan.counts));
        let len = Literal::usize_unsuffixed(len);
        args.push(quote!(#id: &mut [[f64; BATCH]; #len]));
    }
    let doc = if scalar {
        format!(
            " `{}` over `BATCH` states at once: entry `[i][k]` of each input is entry `i` of \
             state `k` (matrices flattened row-major), and `{}[k]` the value of state `k`.",
            plan.name, plan.contract.outputs[0].name
        )
    } else {
        format!(
            " `{}` over `BATCH` states at once: entry `[i][k]` of each argument is entry `i` of \
             state `k` (matrices flattened row-major).",
            plan.name
        )
    };
    let lit = |v: f64| crate::emit::float_literal(v, false);
    let magic = lit(crate::emit::round_magic(false));
    let round = |x: String| format!("(({x}) + {magic}) - {magic}");
    let fma = |a: &str, b: &str, c: &str| format!("::quasidyn::math::fma({a}, {b}, {c})");
    let syntax = crate::emit::TrigSyntax {
        single: false,
        lit: &lit,
        round: &round,
        fma: &fma,
    };
    let mut trig = Vec::new();
    for (t, (angle, sin, cos)) in crate::emit::trig_angles(plan).into_iter().enumerate() {
        let angle = render(&lang, angle).to_string();
        for (name, e) in crate::emit::batch_trig(&format!("t{t}"), angle, sin, cos, &syntax) {
            let id = format_ident!("{}", name);
            let v: TokenStream = e.parse().expect("batched sin/cos parse");
            trig.push(quote!(let #id = #v;));
        }
    }
    let stmts = plan
        .locals
        .iter()
        .filter(|(_, e)| !crate::emit::is_trig(e))
        .map(|(name, e)| {
            let id = format_ident!("{}", name);
            let v = render(&lang, e);
            quote!(let #id = #v;)
        });
    let mut stores = Vec::new();
    for (o, vals) in plan.contract.outputs.iter().zip(&plan.outputs) {
        let id = format_ident!("{}", o.name);
        for (i, e) in vals.iter().enumerate() {
            let v = render(&lang, e);
            if scalar {
                stores.push(quote!(#id[k] = #v;));
                continue;
            }
            let i = Literal::usize_unsuffixed(i);
            stores.push(quote!(#id[#i][k] = #v;));
        }
    }
    quote! {
        #[doc = #doc]
        #allow
        #[allow(clippy::needless_range_loop, clippy::too_many_arguments, non_snake_case)]
        pub fn #name(#(#args),*) {
            for k in 0..BATCH {
                #(#trig)*
                #(#stmts)*
                #(#stores)*
            }
        }
    }
}

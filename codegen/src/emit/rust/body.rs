//! Bodies of the generated Rust functions: a function returning an array expression, one
//! writing its outputs as they are computed, or one cut into parts; locals declared in groups.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};
use rustc_hash::FxHashMap as HashMap;

use super::{input_idents, input_index, shape_type, signature_parts, RustLang, Writer};
use crate::emit::{render, Ex, Plan};

pub(super) fn function(plan: &Plan, writer: &Writer<'_>) -> TokenStream {
    let Writer {
        fields,
        has_params,
        allow,
        sizes,
    } = *writer;
    let inputs = input_idents(&plan.inputs, &plan.used_inputs);
    let lang = RustLang {
        fields,
        inputs: &inputs,
        lanes: false,
        carried: None,
    };
    let name = format_ident!("{}", plan.name);
    let mut args = Vec::new();
    let mut arg_names = Vec::new();
    if has_params {
        let p = if plan.uses_params {
            format_ident!("p")
        } else {
            format_ident!("_p")
        };
        args.push(quote!(#p: &Params));
        arg_names.push(p);
    }
    for i in &plan.inputs {
        let id = &lang.inputs[input_index(*i)];
        let len = Literal::usize_unsuffixed(plan.input_len(*i));
        args.push(quote!(#id: &[f64; #len]));
        arg_names.push(id.clone());
    }
    let n = plan.out_n;
    let (_, ret) = signature_parts(plan);

    let mut doc = vec![format!(" {}", plan.contract.doc), String::new()];
    if let Some(note) = plan.base_note() {
        doc.extend([format!(" {note}"), String::new()]);
    }
    if has_params {
        doc.push(" - `p`: robot parameters".to_owned());
    }
    for i in &plan.inputs {
        doc.push(format!(" - `{}`: {}", i.name(), plan.input_doc(*i)));
    }
    for o in plan.contract.outputs {
        let shape = match o.cols {
            None if plan.contract.returns_scalar() => "`f64`".to_owned(),
            None => format!("`[f64; {}]`", o.rows.of(n, plan.counts)),
            Some(c) => format!(
                "`[[f64; {}]; {}]`, `[row][column]`",
                c.of(n, plan.counts),
                o.rows.of(n, plan.counts)
            ),
        };
        doc.push(format!(" - returns `{}`: {}, {}", o.name, o.doc, shape));
    }

    // A tuple of three matrices (forward dynamics derivatives) is the contract's type.
    let complex =
        (plan.contract.outputs.len() > 2).then(|| quote!(#[allow(clippy::type_complexity)]));
    // The elastic acceleration takes nine arrays (positions, rates and accelerations of q,
    // beta and w), as its contract does.
    let many = (args.len() > 7).then(|| quote!(#[allow(clippy::too_many_arguments)]));
    let computed = plan
        .outputs
        .iter()
        .flatten()
        .filter(|e| !matches!(e, Ex::Lit(_)))
        .count();
    let parted = parted_body(plan, n, &lang, (has_params, &arg_names), allow, sizes);
    let (early, body) = if let Some(body) = parted {
        (quote!(#[allow(unsafe_code)] #[inline(never)]), body)
    } else if computed >= WRITTEN_EARLY_MIN_ENTRIES {
        (
            quote!(#[allow(unsafe_code)] #[inline(never)]),
            written_early_body(plan, n, &lang, (&args, &arg_names), allow),
        )
    } else {
        (TokenStream::new(), array_expression_body(plan, n, &lang))
    };
    // A function of one number returns it, not an array of one entry.
    let body = if plan.contract.returns_scalar() {
        quote! {
            let [value]: [f64; 1] = { #body };
            value
        }
    } else {
        body
    };
    quote! {
        #(#[doc = #doc])*
        #allow
        #complex
        #many
        #[must_use]
        #early
        pub fn #name(#(#args),*) -> #ret {
            #body
        }
    }
}

/// The body of a function returning its outputs as one array expression (a tuple of them)
/// after its locals, in graph order.
fn array_expression_body(plan: &Plan, n: usize, lang: &RustLang) -> TokenStream {
    let stmts = local_statements(plan, lang, None);
    let outs: Vec<TokenStream> = plan
        .contract
        .outputs
        .iter()
        .zip(&plan.outputs)
        .map(|(o, vals)| {
            let vals: Vec<TokenStream> = vals.iter().map(|e| render(lang, e)).collect();
            match o.cols {
                None => quote!([#(#vals),*]),
                Some(c) => {
                    let cols = c.of(n, plan.counts);
                    let rows: Vec<TokenStream> = if cols == 0 {
                        // No columns (F2 without elastic joints): rows of nothing.
                        (0..o.rows.of(n, plan.counts)).map(|_| quote!([])).collect()
                    } else {
                        vals.chunks(cols).map(|r| quote!([#(#r),*])).collect()
                    };
                    quote!([#(#rows),*])
                }
            }
        })
        .collect();
    let value = if outs.len() == 1 {
        outs[0].clone()
    } else {
        quote!((#(#outs),*))
    };
    quote! {
        #(#stmts)*
        #value
    }
}

/// Functions returning at least this many computed entries (not constants) write each entry
/// as soon as it is computed ([`written_early_body`]) instead of returning an array
/// expression at their end; below this, the calls cost more than the spills they save
/// (docs/design.md, "Figures behind the code's choices").
const WRITTEN_EARLY_MIN_ENTRIES: usize = 80;

/// One output of a function written early: its parameter of the inner function, the
/// `MaybeUninit` array type and initialiser, and the `f64` type it is returned as.
struct UninitOutput {
    id: Ident,
    uninit: TokenStream,
    init: TokenStream,
    ty: TokenStream,
}

/// The body of a function whose outputs are written as soon as computed: an inner function
/// (never inlined) fills arrays of `MaybeUninit<f64>`, entry by entry right after the locals
/// it reads ([`crate::emit::store_schedule`], the locals in the C emitter's order,
/// [`crate::emit::local_order`]); the function returns them as `f64` arrays.
///
/// An array expression at the end holds every entry until the end: LLVM keeps each in a
/// register or, for a mass matrix or derivatives, spills it to the stack and loads it back
/// for the final store. Writing each entry into its place at once is what the C does; in Rust
/// the place must be an array that is not initialised first (zeroing a mass matrix costs more
/// than the spills), so `MaybeUninit`. The inner function is not inlined so that LLVM keeps
/// the arrays in memory (inlined, it turns the entries back into values held to the end).
/// The function itself is not inlined either: then LLVM passes its result's place (the
/// caller's) to the inner function, where inlined into a caller's loop it copied the arrays
/// into that place after the call (a 2.6 kB copy for the quadruped's mass matrix).
///
/// Sound: every entry of every output is written exactly once (`store_schedule` places each
/// entry once; tested), and `MaybeUninit<f64>` has the layout of `f64`.
fn written_early_body(
    plan: &Plan,
    n: usize,
    lang: &RustLang,
    (args, arg_names): (&[TokenStream], &[Ident]),
    allow: &TokenStream,
) -> TokenStream {
    let outs = uninit_outputs(plan, n);
    let store = |o: usize, i: usize| uninit_store(plan, n, lang, &outs[o].id, (o, i));
    let stmts = local_statements(plan, lang, Some(&store));
    let params = outs.iter().map(|o| {
        let (id, uninit) = (&o.id, &o.uninit);
        quote!(#id: &mut #uninit)
    });
    let ids: Vec<&Ident> = outs.iter().map(|o| &o.id).collect();
    let (make, value) = made_and_returned(&outs);
    let many = (args.len() + outs.len() > 7).then(|| quote!(#[allow(clippy::too_many_arguments)]));
    quote! {
        #[inline(never)]
        #allow
        #many
        fn write(#(#args,)* #(#params),*) {
            #(#stmts)*
        }
        #(#make)*
        write(#(#arg_names,)* #(&mut #ids),*);
        unsafe { #value }
    }
}

/// The `MaybeUninit` arrays a function written early fills ([`written_early_body`],
/// [`parted_body`]), one per output.
fn uninit_outputs(plan: &Plan, n: usize) -> Vec<UninitOutput> {
    plan.contract
        .outputs
        .iter()
        .enumerate()
        .map(|(k, o)| {
            let rows = o.rows.of(n, plan.counts);
            let cols = o.cols.map(|c| c.of(n, plan.counts));
            let r = Literal::usize_unsuffixed(rows);
            let (uninit, init) = match cols {
                None => (
                    quote!([::core::mem::MaybeUninit<f64>; #r]),
                    quote!([::core::mem::MaybeUninit::<f64>::uninit(); #r]),
                ),
                Some(c) => {
                    let c = Literal::usize_unsuffixed(c);
                    (
                        quote!([[::core::mem::MaybeUninit<f64>; #c]; #r]),
                        quote!([[::core::mem::MaybeUninit::<f64>::uninit(); #c]; #r]),
                    )
                }
            };
            UninitOutput {
                id: format_ident!("out{}", k),
                uninit,
                init,
                ty: shape_type(rows, cols),
            }
        })
        .collect()
}

/// The statement writing entry `i` of output `o` into its `MaybeUninit` array `id`.
fn uninit_store(
    plan: &Plan,
    n: usize,
    lang: &RustLang,
    id: &Ident,
    (o, i): (usize, usize),
) -> TokenStream {
    let value = render(lang, &plan.outputs[o][i]);
    match plan.contract.outputs[o].cols {
        None => {
            let i = Literal::usize_unsuffixed(i);
            quote!(#id[#i] = ::core::mem::MaybeUninit::new(#value);)
        }
        Some(c) => {
            let cols = c.of(n, plan.counts);
            let (r, c) = (
                Literal::usize_unsuffixed(i / cols),
                Literal::usize_unsuffixed(i % cols),
            );
            quote!(#id[#r][#c] = ::core::mem::MaybeUninit::new(#value);)
        }
    }
}

/// The statements making the `MaybeUninit` arrays, and the value returning them as `f64`
/// arrays once every entry is written (`unsafe`).
fn made_and_returned(outs: &[UninitOutput]) -> (Vec<TokenStream>, TokenStream) {
    let make = outs
        .iter()
        .map(|o| {
            let (id, init) = (&o.id, &o.init);
            quote!(let mut #id = #init;)
        })
        .collect();
    let finals: Vec<TokenStream> = outs
        .iter()
        .map(|o| {
            let (id, uninit, ty) = (&o.id, &o.uninit, &o.ty);
            quote!(::core::mem::transmute::<#uninit, #ty>(#id))
        })
        .collect();
    let value = if finals.len() == 1 {
        finals[0].clone()
    } else {
        quote!((#(#finals),*))
    };
    (make, value)
}

/// The body of a long function cut into parts ([`crate::emit::parts::cut`], `sizes`; `None` for a
/// shorter one): functions `part1`, `part2`, ... (never inlined) called in turn, each taking
/// the function's arguments, the outputs as `MaybeUninit` arrays (each entry written once,
/// as in [`written_early_body`]) and the carry array; a value read in a later part than the
/// one computing it is stored to its slot of the carry array right after it is computed and
/// read from that slot where used. rustc's optimiser, as gcc's, needs memory and time growing
/// faster than the length of one function (docs/design.md, "Long functions in parts").
fn parted_body(
    plan: &Plan,
    n: usize,
    lang: &RustLang,
    (has_params, arg_names): (bool, &[Ident]),
    allow: &TokenStream,
    sizes: crate::emit::PartSizes,
) -> Option<TokenStream> {
    // Inputs are read from the arguments in every part.
    let locals_read = |e: &Ex| crate::emit::parts::values_read(e, &|_, _| None);
    let block = crate::emit::trig_block(plan);
    let parted = crate::emit::parts::cut(plan, sizes, block.is_some(), (&[], &[]), &locals_read)?;
    let count = parted.count();
    let outs = uninit_outputs(plan, n);
    let stored = |value: &str| {
        parted.slot(value).map(|slot| {
            let (id, slot) = (format_ident!("{}", value), Literal::usize_unsuffixed(slot));
            quote!(carry[#slot] = #id;)
        })
    };
    // Per part: the entries before its first local, its locals (each with the statements
    // right after it), the inputs and parameters it reads, whether it uses the carry array.
    let mut heads: Vec<Vec<TokenStream>> = vec![Vec::new(); count];
    let mut locals: Vec<Vec<(Ident, TokenStream, Vec<TokenStream>)>> = vec![Vec::new(); count];
    let mut inputs = vec![vec![false; plan.inputs.len()]; count];
    let mut params = vec![false; count];
    let mut carries = vec![false; count];
    let mut note = |q: usize, e: &Ex, earlier: Option<&HashMap<String, usize>>| {
        crate::emit::visit_leaves(e, &mut |leaf| match leaf {
            Ex::Input(i, _) => {
                if let Some(k) = plan.inputs.iter().position(|x| x == i) {
                    inputs[q][k] = true;
                }
            }
            Ex::Param(_) => params[q] = true,
            Ex::Local(name) => carries[q] |= earlier.is_some_and(|c| c.contains_key(name)),
            _ => {}
        });
    };
    let (prefix, _) = trig_prefix(plan, lang);
    if let Some(block) = &block {
        for (angle, _, _) in block {
            note(0, angle, None);
        }
    }
    for &k in &parted.leading {
        heads[0].extend(stored(&plan.locals[k].0));
    }
    parted.for_each(|q, e, target, earlier| {
        note(q, e, Some(earlier));
        let lang = &RustLang {
            carried: Some(earlier),
            ..*lang
        };
        match target {
            crate::emit::parts::Target::Local(name) => {
                let after: Vec<TokenStream> = stored(name).into_iter().collect();
                locals[q].push((format_ident!("{}", name), render(lang, e), after));
            }
            crate::emit::parts::Target::Entry(o, i) => {
                let statement = uninit_store(plan, n, lang, &outs[o].id, (o, i));
                match locals[q].last_mut() {
                    Some((_, _, after)) => after.push(statement),
                    None => heads[q].push(statement),
                }
            }
        }
    });

    let slots = Literal::usize_unsuffixed(parted.slots.max(1));
    let mut functions = Vec::with_capacity(count);
    let mut calls = Vec::with_capacity(count);
    let ids: Vec<&Ident> = outs.iter().map(|o| &o.id).collect();
    // A part's parameters are named with a leading `_` where it does not use them.
    let named = |used: bool, name: &str| {
        if used {
            format_ident!("{}", name)
        } else {
            format_ident!("_{}", name)
        }
    };
    for (q, (head, part_locals)) in heads.into_iter().zip(locals).enumerate() {
        let mut args = Vec::new();
        if has_params {
            let p = named(params[q], "p");
            args.push(quote!(#p: &Params));
        }
        for (&i, &read) in plan.inputs.iter().zip(&inputs[q]) {
            let id = named(read, i.name());
            let len = Literal::usize_unsuffixed(plan.input_len(i));
            args.push(quote!(#id: &[f64; #len]));
        }
        for (o, written) in outs.iter().zip(&parted.writes[q]) {
            let id = named(*written, &o.id.to_string());
            let uninit = &o.uninit;
            args.push(quote!(#id: &mut #uninit));
        }
        let carry = named(carries[q] || parted.stores(q), "carry");
        args.push(quote!(#carry: &mut [f64; #slots]));
        let mut stmts = if q == 0 { prefix.clone() } else { Vec::new() };
        stmts.extend(let_statements(head, part_locals));
        let name = format_ident!("part{}", q + 1);
        functions.push(quote! {
            #[inline(never)]
            #allow
            #[allow(clippy::too_many_arguments)]
            fn #name(#(#args),*) {
                #(#stmts)*
            }
        });
        calls.push(quote!(#name(#(#arg_names,)* #(&mut #ids,)* &mut carry);));
    }
    let (make, value) = made_and_returned(&outs);
    Some(quote! {
        #(#functions)*
        #(#make)*
        let mut carry = [0.0_f64; #slots];
        #(#calls)*
        unsafe { #value }
    })
}

/// Functions with more locals than this declare them first and then assign them: every `let`
/// opens a lexical scope nested in the previous one, and the compiler's debug info recurses
/// once per level (thousands of nested scopes overflow its stack).
const MAX_NESTED_LETS: usize = 256;

/// Locals declared per `let (x1, x2, ...);` statement past [`MAX_NESTED_LETS`].
const LOCALS_PER_DECLARATION: usize = 64;

/// The statements computing the plan's locals: `let x = ...;` each, or for a long function
/// declarations in groups followed by one assignment each (same values, shallow scopes).
///
/// With a trigonometric block ([`crate::emit::trig_block`]) the statements start with the sine and
/// cosine locals in one tuple, taken by `sin_cos_n` where the crate is compiled for x86-64
/// (SSE2 and wider) and by plain calls elsewhere (the code without the block, exactly):
/// `#[cfg(target_feature = "sse2")] let (s1, c1, ..) = { let (s, c) = sin_cos_n([..]); (s[0], c[0], ..) };`
/// `#[cfg(not(target_feature = "sse2"))] let (s1, c1, ..) = (sin(q[0]), cos(q[0]), ..);`.
///
/// With `store`, the locals come in the C emitter's order ([`crate::emit::local_order`]) and each
/// output entry's statement `store(output, index)` right after the last local it reads
/// ([`crate::emit::store_schedule`]); without, in the graph's order.
fn local_statements(
    plan: &Plan,
    lang: &RustLang,
    store: Option<&dyn Fn(usize, usize) -> TokenStream>,
) -> Vec<TokenStream> {
    let (prefix, block) = trig_prefix(plan, lang);
    // The locals in emission order (the trigonometric block's first, `leading` of them),
    // and after each position of that order the entries then written.
    let (order, leading) = match store {
        Some(_) => crate::emit::local_order(plan, block),
        None => {
            let trig = if block {
                crate::emit::trig_locals(plan)
            } else {
                Vec::new()
            };
            let leading = trig.len();
            let mut order = trig;
            order.extend(
                (0..plan.locals.len())
                    .filter(|&k| !block || !crate::emit::is_trig(&plan.locals[k].1)),
            );
            (order, leading)
        }
    };
    let at = store.map(|_| crate::emit::store_schedule(plan, &order));
    let stores = |slot: usize| -> Vec<TokenStream> {
        match (store, &at) {
            (Some(store), Some(at)) => at[slot].iter().map(|&(o, i)| store(o, i)).collect(),
            _ => Vec::new(),
        }
    };
    let locals: Vec<(Ident, TokenStream, Vec<TokenStream>)> = order
        .iter()
        .enumerate()
        .skip(leading)
        .map(|(p, &k)| {
            let (name, e) = &plan.locals[k];
            (format_ident!("{}", name), render(lang, e), stores(p + 1))
        })
        .collect();
    let head: Vec<TokenStream> = (0..=leading).flat_map(stores).collect();
    let mut statements = prefix;
    statements.extend(let_statements(head, locals));
    statements
}

/// The statements taking the sines and cosines of the trigonometric block
/// ([`crate::emit::trig_block`]) as described at [`local_statements`] (none without a block), and
/// whether there is one.
fn trig_prefix(plan: &Plan, lang: &RustLang) -> (Vec<TokenStream>, bool) {
    let mut prefix = Vec::new();
    let block = crate::emit::trig_block(plan);
    if let Some(block) = &block {
        // Each AVX vector a window of the angles, as in C (`trig_slots`).
        let slots = crate::emit::trig_slots(block.len(), 4);
        let angles = slots
            .iter()
            .map(|s| s.map_or_else(|| quote!(0.0), |k| render(lang, block[k].0)));
        let trig = crate::emit::trig_reads(plan, block);
        let names: Vec<Ident> = trig.iter().map(|r| format_ident!("{}", r.name)).collect();
        let reads = trig.iter().map(|r| {
            let (array, j) = (
                format_ident!("{}", r.array),
                Literal::usize_unsuffixed(crate::emit::trig_slot(&slots, r.index)),
            );
            quote!(#array[#j])
        });
        let calls = trig.iter().map(|r| render(lang, r.call));
        prefix.push(quote! {
            #[cfg(target_feature = "sse2")]
            let (#(#names),*) = {
                let (trig_s, trig_c) = ::quasidyn::math::sin_cos_n([#(#angles),*]);
                (#(#reads),*)
            };
        });
        prefix.push(quote! {
            #[cfg(not(target_feature = "sse2"))]
            let (#(#names),*) = (#(#calls),*);
        });
    }
    (prefix, block.is_some())
}

/// `let x = value;` for each of `locals` (name, value, the statements written right after
/// it), after `head`; past [`MAX_NESTED_LETS`] locals, declarations in groups first and one
/// assignment each.
fn let_statements(
    mut head: Vec<TokenStream>,
    locals: Vec<(Ident, TokenStream, Vec<TokenStream>)>,
) -> Vec<TokenStream> {
    let mut prefix = Vec::new();
    if locals.len() <= MAX_NESTED_LETS {
        prefix.append(&mut head);
        for (id, v, after) in locals {
            prefix.push(quote!(let #id = #v;));
            prefix.extend(after);
        }
        return prefix;
    }
    for group in locals.chunks(LOCALS_PER_DECLARATION) {
        let ids: Vec<&Ident> = group.iter().map(|(id, _, _)| id).collect();
        prefix.push(match ids.as_slice() {
            [one] => quote!(let #one;),
            _ => quote!(let (#(#ids),*);),
        });
    }
    prefix.append(&mut head);
    for (id, v, after) in locals {
        prefix.push(quote!(#id = #v;));
        prefix.extend(after);
    }
    prefix
}

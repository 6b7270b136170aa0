//! The Rust emitter: one `no_std`-compatible module file of free functions over fixed-size
//! arrays, plus a type implementing `quasidyn::Dynamics<N>`.

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};
use rustc_hash::FxHashMap as HashMap;

use super::{
    camel_ident, generated_by, param_fields, plan_module, render, EmitError, Ex, Func, Input, Lang,
    Plan,
};
use crate::ir::{FunctionKind, Module, BASE_PARAMETERS};
use crate::progress::{Progress, Silent};

/// Lints allowed on generated items, each unavoidable in generated straight-line code.
const ALLOWED_LINTS: &str = "\
// Allowed lints, unavoidable in generated straight-line code:
//   clippy::approx_constant       spec values close to pi, e etc. are data, not constants
//   clippy::excessive_precision   literals are written to round-trip exactly
//   clippy::unreadable_literal    ditto (no digit grouping)
//   clippy::too_many_lines        one statement per shared subexpression
//   clippy::similar_names         locals are named after node ids (x12, x13, ...)
//   clippy::many_single_char_names  q, p, sN/cN follow the equations
//   clippy::needless_late_init    long functions declare their locals first (shallow scopes)";

#[derive(Clone, Copy)]
struct RustLang<'a> {
    fields: &'a [Ident],
    /// Input names as written in the signature (an unused one is `_q`, never read).
    inputs: &'a [Ident; INPUTS.len()],
    /// In a batched body: inputs are read as `q[j][k]`, `k` the state.
    lanes: bool,
    /// In a part of a long function ([`parted_body`]): the values computed by earlier parts,
    /// read from their slots of the carry array (`carry[17]`) where used.
    carried: Option<&'a HashMap<String, usize>>,
}

/// Every input, in declaration order (an input's index is `input as usize`).
const INPUTS: [Input; Input::ALL.len()] = Input::ALL;

fn input_index(i: Input) -> usize {
    i as usize
}

impl Lang for RustLang<'_> {
    type Out = TokenStream;
    fn lit(&self, v: f64) -> TokenStream {
        let s = super::float_literal(v, false);
        let lit: Literal = s.parse().expect("float literal");
        quote!(#lit)
    }
    fn input(&self, i: Input, j: usize) -> TokenStream {
        let name = &self.inputs[input_index(i)];
        let j = Literal::usize_unsuffixed(j);
        if self.lanes {
            quote!(#name[#j][k])
        } else {
            quote!(#name[#j])
        }
    }
    fn param(&self, k: usize) -> TokenStream {
        let f = &self.fields[k];
        quote!(p.#f)
    }
    fn local(&self, name: &str) -> TokenStream {
        if let Some(slot) = self.carried.and_then(|c| c.get(name)) {
            let slot = Literal::usize_unsuffixed(*slot);
            return quote!(carry[#slot]);
        }
        let id = Ident::new(name, Span::call_site());
        quote!(#id)
    }
    fn call(&self, f: Func, arg: TokenStream) -> TokenStream {
        match f {
            Func::Sin => quote!(sin(#arg)),
            Func::Cos => quote!(cos(#arg)),
            Func::Sqrt => quote!(sqrt(#arg)),
        }
    }
    fn neg(&self, x: TokenStream) -> TokenStream {
        quote!(-#x)
    }
    fn bin(&self, a: TokenStream, op: char, b: TokenStream) -> TokenStream {
        match op {
            '+' => quote!(#a + #b),
            '-' => quote!(#a - #b),
            '*' => quote!(#a * #b),
            _ => quote!(#a / #b),
        }
    }
    fn paren(&self, x: TokenStream) -> TokenStream {
        quote!((#x))
    }
    fn fma(
        &self,
        a: TokenStream,
        b: TokenStream,
        c: TokenStream,
        kind: super::Fused,
    ) -> TokenStream {
        match kind {
            super::Fused::Add => quote!(fma!(#a, #b, #c)),
            super::Fused::Subtract => quote!(fnma!(#a, #b, #c)),
            super::Fused::Difference => quote!(fms!(#a, #b, #c)),
        }
    }
}

/// Writes the module as one Rust source file (formatted, deterministic).
///
/// With symbolic parameters the file defines `pub struct Params` (its `Default` holds the spec
/// values), every function takes `p: &Params` first and `Params` implements
/// `quasidyn::Dynamics<N>`; without, a unit struct named after the robot does. The trait is
/// implemented only when the module has all eleven functions.
pub fn emit_rust(module: &Module) -> Result<String, EmitError> {
    emit_rust_reporting(module, &RustOptions::default(), &mut Silent)
}

/// Options of the Rust emitter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RustOptions {
    /// Also each function over this many states at once, `FUNCTION_batch` (structure of
    /// arrays: every argument `[[f64; BATCH]; ROWS]`; 1 to [`super::MAX_BATCH`]).
    pub batch: Option<usize>,
    /// Where long functions are cut into part functions (the default: above 65,536
    /// operations, parts of about 8192).
    pub parts: super::PartSizes,
}

/// [`emit_rust`] with [`RustOptions`], reporting the simplification and each function written
/// to `progress`.
pub fn emit_rust_reporting(
    module: &Module,
    options: &RustOptions,
    progress: &mut dyn Progress,
) -> Result<String, EmitError> {
    if let Some(batch) = options.batch {
        super::check_batch(batch)?;
    }
    let (lowered, plans) = plan_module(module, progress)?;
    super::check_literals(&lowered, &plans, false)?;
    let n = lowered.dof;
    let fields: Vec<Ident> = param_fields(&lowered.graph)
        .iter()
        .map(|f| format_ident!("{}", f))
        .collect();
    let has_params = !fields.is_empty();
    // Constants and defaults read no input.
    let no_inputs = input_idents(&[], &[]);
    let allow = quote! {
        #[allow(
            clippy::approx_constant,
            clippy::excessive_precision,
            clippy::unreadable_literal,
            clippy::too_many_lines,
            clippy::similar_names,
            clippy::many_single_char_names,
            clippy::needless_late_init
        )]
    };

    let mut items = Vec::new();
    let mut calls = [false; 3];
    let mut blocks = false;
    for p in &plans {
        for (c, used) in calls.iter_mut().zip(p.calls) {
            *c |= used;
        }
        blocks |= super::trig_block(p).is_some();
    }
    // The fused multiply-adds of sums of products (`fma`, `fnma`, `fms`).
    let mut fused = [false; 3];
    for p in &plans {
        for e in p
            .locals
            .iter()
            .map(|(_, e)| e)
            .chain(p.outputs.iter().flatten())
        {
            super::fused_calls(e, &mut fused);
        }
    }
    let math: Vec<Ident> = ["sin", "cos", "sqrt"]
        .iter()
        .zip(calls)
        .filter(|(_, used)| *used)
        .map(|(name, _)| format_ident!("{}", name))
        .collect();
    let fused: Vec<Ident> = ["fma", "fnma", "fms"]
        .iter()
        .zip(fused)
        .filter(|(_, used)| *used)
        .map(|(name, _)| format_ident!("{}", name))
        .collect();
    if !fused.is_empty() {
        items.push(quote!(use ::quasidyn::{#(#fused),*};));
    }
    // Sorted so the import reads like rustfmt's.
    let mut math_sorted = math.clone();
    math_sorted.sort_by_key(ToString::to_string);
    if !math_sorted.is_empty() {
        // With AVX the trigonometric blocks may leave `sin` and `cos` without a caller.
        let allow = blocks.then(|| quote!(#[allow(unused_imports)]));
        items.push(quote!(#allow use ::quasidyn::math::{#(#math_sorted),*};));
    }
    let n_lit = Literal::usize_unsuffixed(n);
    let joint_names = module.joint_names.iter().map(|s| Literal::string(s));
    let frame_names: Vec<Literal> = module
        .frame_names
        .iter()
        .map(|s| Literal::string(s))
        .collect();
    let k_lit = Literal::usize_unsuffixed(frame_names.len());
    let floating_consts = if module.floating() {
        let nq = Literal::usize_unsuffixed(n + 7);
        let nv = Literal::usize_unsuffixed(n + 6);
        quote! {
            /// Floating base: entries of `q` (base position, unit quaternion x y z w, then the
            /// joints).
            pub const NQ: usize = #nq;
            /// Entries of `v`, `a` and `tau` (base linear then angular, base frame, then the
            /// joints).
            pub const NV: usize = #nv;
        }
    } else {
        quote!()
    };
    items.push(quote! {
        /// Number of joints.
        pub const DOF: usize = #n_lit;
        #floating_consts

        /// Joint names, joint 0 first, exactly as the robot description writes them.
        pub const JOINT_NAMES: [&str; DOF] = [#(#joint_names),*];

        /// Named frames (each has `forward_kinematics_FRAME` and `jacobian_FRAME`), exactly
        /// as the robot description writes them.
        pub const FRAME_NAMES: [&str; #k_lit] = [#(#frame_names),*];
    });
    if module.elastic() {
        let nbeta = Literal::usize_unsuffixed(module.nbeta());
        let nw = Literal::usize_unsuffixed(module.nw());
        let beta_names = module.beta_names.iter().map(|s| Literal::string(s));
        let w_names = module.w_names.iter().map(|s| Literal::string(s));
        items.push(quote! {
            /// Number of elastic joints: entries of `beta` (compliance angles, added to their
            /// joints' `q`).
            pub const NBETA: usize = #nbeta;

            /// Number of modal coordinates of the flexible links: entries of `w`.
            pub const NW: usize = #nw;

            /// The elastic joints' names, in `beta` order.
            pub const BETA_NAMES: [&str; NBETA] = [#(#beta_names),*];

            /// The modal coordinates' names (`BODY.DIRECTION.MODE`), in `w` order.
            pub const W_NAMES: [&str; NW] = [#(#w_names),*];
        });
    }
    for c in &lowered.constants {
        if c.name == BASE_PARAMETERS {
            let nb = Literal::usize_unsuffixed(c.values.len());
            items.push(quote! {
                /// Number of base parameters (`BASE_PARAMETERS`, columns of `base_regressor`).
                pub const NB: usize = #nb;
            });
        }
        let ident = format_ident!("{}", c.name.to_ascii_uppercase());
        let len = Literal::usize_unsuffixed(c.values.len());
        let lang = RustLang {
            fields: &fields,
            inputs: &no_inputs,
            lanes: false,
            carried: None,
        };
        let values: Vec<TokenStream> = c
            .values
            .iter()
            .map(|&v| render(&lang, &Ex::Lit(v)))
            .collect();
        let doc = format!(" {}{}.", c.doc[..1].to_ascii_uppercase(), &c.doc[1..]);
        items.push(quote! {
            #[doc = #doc]
            #allow
            pub const #ident: [f64; #len] = [#(#values),*];
        });
    }

    if has_params {
        let docs: Vec<String> = lowered
            .graph
            .params()
            .iter()
            .map(|p| format!(" `{}` (spec value {:?}).", p.name, p.default))
            .collect();
        let defaults: Vec<TokenStream> = lowered
            .graph
            .params()
            .iter()
            .map(|p| {
                let lang = RustLang {
                    fields: &fields,
                    inputs: &no_inputs,
                    lanes: false,
                    carried: None,
                };
                render(&lang, &Ex::Lit(p.default))
            })
            .collect();
        items.push(quote! {
            /// Robot parameters kept symbolic in the generated code. `Default` gives the values
            /// of the spec.
            #[derive(Clone, Copy, Debug, PartialEq)]
            pub struct Params {
                #(#[doc = #docs] pub #fields: f64,)*
            }

            impl Default for Params {
                #allow
                fn default() -> Self {
                    Self { #(#fields: #defaults),* }
                }
            }
        });
    }

    if let Some(batch) = options.batch {
        let b = Literal::usize_unsuffixed(batch);
        items.push(quote! {
            /// Number of states of the batched functions (`FUNCTION_batch`): every argument
            /// is `[[f64; BATCH]; ROWS]`, entry `[i][k]` the scalar function's entry `i` (row
            /// major) for state `k`.
            pub const BATCH: usize = #b;
        });
    }
    let writer = Writer {
        fields: &fields,
        has_params,
        allow: &allow,
        sizes: options.parts,
    };
    for plan in &plans {
        items.push(function(plan, &writer));
        if options.batch.is_some() && plan.contract.batched {
            items.push(batch_function(plan, &writer));
        }
    }

    // The trait impl needs every method of the trait.
    let all = FunctionKind::ALL
        .iter()
        .all(|k| plans.iter().any(|p| p.kind == *k));
    if all {
        items.push(trait_impl(module, &plans, n, has_params));
    }

    let file: syn::File = syn::parse2(quote!(#(#items)*)).expect("generated Rust parses");
    let body = spaced(&prettyplease::unparse(&file));
    let mut out = String::new();
    out.push_str(&format!("// {}\n", generated_by(module)));
    out.push_str(&format!("// Robot `{}`", module.robot_name));
    if !module.description.is_empty() {
        out.push_str(": ");
        out.push_str(&module.description.replace('\n', " "));
    }
    out.push('\n');
    out.push_str(ALLOWED_LINTS);
    out.push_str("\n\n");
    out.push_str(&body);
    Ok(out)
}

/// Every input's name in a function taking `inputs` (with whether each is read): an input the
/// function takes but never reads is `_q`.
fn input_idents(inputs: &[Input], read: &[bool]) -> [Ident; INPUTS.len()] {
    INPUTS.map(|i| {
        let unused = inputs.iter().zip(read).any(|(u, flag)| *u == i && !flag);
        if unused {
            format_ident!("_{}", i.name())
        } else {
            format_ident!("{}", i.name())
        }
    })
}

fn shape_type(rows: usize, cols: Option<usize>) -> TokenStream {
    let r = Literal::usize_unsuffixed(rows);
    match cols {
        None => quote!([f64; #r]),
        Some(c) => {
            let c = Literal::usize_unsuffixed(c);
            quote!([[f64; #c]; #r])
        }
    }
}

fn signature_parts(plan: &Plan) -> (Vec<Ident>, TokenStream) {
    let n = plan.out_n;
    let inputs: Vec<Ident> = plan
        .inputs
        .iter()
        .map(|i| format_ident!("{}", i.name()))
        .collect();
    let outs: Vec<TokenStream> = plan
        .contract
        .outputs
        .iter()
        .map(|o| {
            shape_type(
                o.rows.of(n, plan.counts),
                o.cols.map(|c| c.of(n, plan.counts)),
            )
        })
        .collect();
    let ret = if outs.len() == 1 {
        outs[0].clone()
    } else {
        quote!((#(#outs),*))
    };
    (inputs, ret)
}

/// What every function of a module is written with.
#[derive(Clone, Copy)]
struct Writer<'a> {
    /// The fields of `Params` (the symbolic parameters), in order.
    fields: &'a [Ident],
    /// Whether the functions take the parameters.
    has_params: bool,
    /// The lints the generated functions allow.
    allow: &'a TokenStream,
    /// From which size functions are cut into parts, and how large the parts are.
    sizes: super::PartSizes,
}

fn function(plan: &Plan, writer: &Writer<'_>) -> TokenStream {
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
    if has_params {
        doc.push(" - `p`: robot parameters".to_owned());
    }
    for i in &plan.inputs {
        doc.push(format!(" - `{}`: {}", i.name(), i.doc()));
    }
    for o in plan.contract.outputs {
        let shape = match o.cols {
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
/// it reads ([`super::store_schedule`], the locals in the C emitter's order,
/// [`super::local_order`]); the function returns them as `f64` arrays.
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

/// The body of a long function cut into parts ([`super::parts::cut`], `sizes`; `None` for a
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
    sizes: super::PartSizes,
) -> Option<TokenStream> {
    // Inputs are read from the arguments in every part.
    let locals_read = |e: &Ex| super::parts::values_read(e, &|_, _| None);
    let block = super::trig_block(plan);
    let parted = super::parts::cut(plan, sizes, block.is_some(), &[], &locals_read)?;
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
        super::visit_leaves(e, &mut |leaf| match leaf {
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
            super::parts::Target::Local(name) => {
                let after: Vec<TokenStream> = stored(name).into_iter().collect();
                locals[q].push((format_ident!("{}", name), render(lang, e), after));
            }
            super::parts::Target::Entry(o, i) => {
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
/// With a trigonometric block ([`super::trig_block`]) the statements start with the sine and
/// cosine locals in one tuple, taken by `sin_cos_n` where the crate is compiled for x86-64
/// (SSE2 and wider) and by plain calls elsewhere (the code without the block, exactly):
/// `#[cfg(target_feature = "sse2")] let (s1, c1, ..) = { let (s, c) = sin_cos_n([..]); (s[0], c[0], ..) };`
/// `#[cfg(not(target_feature = "sse2"))] let (s1, c1, ..) = (sin(q[0]), cos(q[0]), ..);`.
///
/// With `store`, the locals come in the C emitter's order ([`super::local_order`]) and each
/// output entry's statement `store(output, index)` right after the last local it reads
/// ([`super::store_schedule`]); without, in the graph's order.
fn local_statements(
    plan: &Plan,
    lang: &RustLang,
    store: Option<&dyn Fn(usize, usize) -> TokenStream>,
) -> Vec<TokenStream> {
    let (prefix, block) = trig_prefix(plan, lang);
    // The locals in emission order (the trigonometric block's first, `leading` of them),
    // and after each position of that order the entries then written.
    let (order, leading) = match store {
        Some(_) => super::local_order(plan, block),
        None => {
            let trig = if block {
                super::trig_locals(plan)
            } else {
                Vec::new()
            };
            let leading = trig.len();
            let mut order = trig;
            order.extend(
                (0..plan.locals.len()).filter(|&k| !block || !super::is_trig(&plan.locals[k].1)),
            );
            (order, leading)
        }
    };
    let at = store.map(|_| super::store_schedule(plan, &order));
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
/// ([`super::trig_block`]) as described at [`local_statements`] (none without a block), and
/// whether there is one.
fn trig_prefix(plan: &Plan, lang: &RustLang) -> (Vec<TokenStream>, bool) {
    let mut prefix = Vec::new();
    let block = super::trig_block(plan);
    if let Some(block) = &block {
        // Each AVX vector a window of the angles, as in C (`trig_slots`).
        let slots = super::trig_slots(block.len(), 4);
        let angles = slots
            .iter()
            .map(|s| s.map_or_else(|| quote!(0.0), |k| render(lang, block[k].0)));
        let trig = super::trig_reads(plan, block);
        let names: Vec<Ident> = trig.iter().map(|r| format_ident!("{}", r.name)).collect();
        let reads = trig.iter().map(|r| {
            let (array, j) = (
                format_ident!("{}", r.array),
                Literal::usize_unsuffixed(super::trig_slot(&slots, r.index)),
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

/// `FUNCTION_batch` of a function in parts ([`super::parts::is_long`]): the scalar function
/// called once per state, its arguments gathered from and its results scattered to the
/// state's column (a vectorised body that long is beyond what compilers build in reasonable
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
    for (r, (o, entries)) in plan.contract.outputs.iter().zip(&plan.outputs).enumerate() {
        let (id, result) = (format_ident!("{}", o.name), format_ident!("r{}", r));
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
         (matrices flattened row-major); the function once per state, being longer than the \
         functions written as one body.",
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
/// no call (the `sin` and `cos` written out, see [`super::batch_trig`]), so that it
/// vectorises.
fn batch_function(plan: &Plan, writer: &Writer<'_>) -> TokenStream {
    let Writer {
        fields,
        has_params,
        allow,
        sizes,
    } = *writer;
    if super::parts::is_long(plan, sizes) {
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
    for o in plan.contract.outputs {
        let id = format_ident!("{}", o.name);
        let len = o.rows.of(n, plan.counts) * o.cols.map_or(1, |c| c.of(n, plan.counts));
        let len = Literal::usize_unsuffixed(len);
        args.push(quote!(#id: &mut [[f64; BATCH]; #len]));
    }
    let doc = format!(
        " `{}` over `BATCH` states at once: entry `[i][k]` of each argument is entry `i` of \
         state `k` (matrices flattened row-major).",
        plan.name
    );
    let lit = |v: f64| super::float_literal(v, false);
    let magic = lit(super::round_magic(false));
    let round = |x: String| format!("(({x}) + {magic}) - {magic}");
    let fma = |a: &str, b: &str, c: &str| format!("::quasidyn::math::fma({a}, {b}, {c})");
    let syntax = super::TrigSyntax {
        single: false,
        lit: &lit,
        round: &round,
        fma: &fma,
    };
    let mut trig = Vec::new();
    for (t, (angle, sin, cos)) in super::trig_angles(plan).into_iter().enumerate() {
        let angle = render(&lang, angle).to_string();
        for (name, e) in super::batch_trig(&format!("t{t}"), angle, sin, cos, &syntax) {
            let id = format_ident!("{}", name);
            let v: TokenStream = e.parse().expect("batched sin/cos parse");
            trig.push(quote!(let #id = #v;));
        }
    }
    let stmts = plan
        .locals
        .iter()
        .filter(|(_, e)| !super::is_trig(e))
        .map(|(name, e)| {
            let id = format_ident!("{}", name);
            let v = render(&lang, e);
            quote!(let #id = #v;)
        });
    let mut stores = Vec::new();
    for (o, vals) in plan.contract.outputs.iter().zip(&plan.outputs) {
        let id = format_ident!("{}", o.name);
        for (i, e) in vals.iter().enumerate() {
            let i = Literal::usize_unsuffixed(i);
            let v = render(&lang, e);
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

fn trait_impl(module: &Module, plans: &[Plan], n: usize, has_params: bool) -> TokenStream {
    let n_lit = Literal::usize_unsuffixed(n);
    let in_trait = plans
        .iter()
        .filter(|p| p.contract.group.in_dynamics_trait());
    let methods = in_trait.map(|plan| {
        let name = format_ident!("{}", plan.name);
        let (inputs, ret) = signature_parts(plan);
        let pass_self = if has_params { quote!(self,) } else { quote!() };
        quote! {
            fn #name(&self, #(#inputs: &[f64; #n_lit]),*) -> #ret {
                #name(#pass_self #(#inputs),*)
            }
        }
    });
    if has_params {
        quote! {
            impl ::quasidyn::Dynamics<#n_lit> for Params {
                #(#methods)*
            }
        }
    } else {
        let ty = format_ident!("{}", camel_ident(&module.robot_name));
        let doc = format!(
            " The robot `{}` as an implementation of `quasidyn::Dynamics`.",
            module.robot_name
        );
        quote! {
            #[doc = #doc]
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
            pub struct #ty;

            impl ::quasidyn::Dynamics<#n_lit> for #ty {
                #(#methods)*
            }
        }
    }
}

/// Puts a blank line between top-level items (the pretty-printer writes them back to back).
fn spaced(src: &str) -> String {
    let mut out = String::with_capacity(src.len() + src.len() / 16);
    let mut prev_ended_item = false;
    for line in src.lines() {
        let top_level_start = !line.starts_with([' ', '}', ')', ']']) && !line.is_empty();
        if prev_ended_item && top_level_start {
            out.push('\n');
        }
        out.push_str(line);
        out.push('\n');
        prev_ended_item = line == "}" || (top_level_start && line.ends_with(';'));
    }
    out
}

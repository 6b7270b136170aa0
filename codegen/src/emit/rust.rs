//! The Rust emitter: one `no_std`-compatible module file of free functions over fixed-size
//! arrays, plus a type implementing `quasidyn::Dynamics<N>`.

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};
use rustc_hash::FxHashMap as HashMap;

mod batch;
mod body;

use super::{
    camel_ident, generated_by, param_fields, plan_module, render, EmitError, Ex, Func, Input, Lang,
    Plan,
};
use crate::ir::{FunctionKind, Module, BASE_PARAMETERS};
use crate::model::BaseLayout;
use crate::progress::{Progress, Silent};
use batch::batch_function;
use body::function;

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
    /// Where long functions are cut into part functions (the default: above 8192
    /// operations, parts of about 4096).
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

    let mut items = imports(&plans);
    items.extend(size_constants(module));
    let constant_lang = RustLang {
        fields: &fields,
        inputs: &no_inputs,
        lanes: false,
        carried: None,
    };
    items.extend(constant_arrays(&lowered, &constant_lang, &allow));
    if has_params {
        items.push(params_struct(&lowered, &constant_lang, &allow));
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

    // The trait impl needs every method of the trait, and its arrays' `N` rows: with joints
    // that follow others the static reactions have a row per joint, more than `N`.
    let all = FunctionKind::ALL
        .iter()
        .all(|k| plans.iter().any(|p| p.kind == *k));
    if all && module.joint_inputs.is_empty() {
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

/// The `use` lines of the generated module: the math and fused multiply-add functions its
/// plans call.
fn imports(plans: &[Plan]) -> Vec<TokenStream> {
    let mut items = Vec::new();
    let mut calls = [false; 3];
    let mut blocks = false;
    for p in plans {
        for (c, used) in calls.iter_mut().zip(p.calls) {
            *c |= used;
        }
        blocks |= super::trig_block(p).is_some();
    }
    // The fused multiply-adds of sums of products (`fma`, `fnma`, `fms`).
    let mut fused = [false; 3];
    for p in plans {
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
    items
}

/// `DOF`, a floating base's `NQ` and `NV`, the joint and frame names, and an elastic
/// robot's `NBETA`, `NW` and their names.
fn size_constants(module: &Module) -> Vec<TokenStream> {
    let mut items = Vec::new();
    let n = module.dof;
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
        match module.base_layout {
            BaseLayout::Pinocchio => quote! {
                /// Floating base: entries of `q` (base position, unit quaternion x y z w, then the
                /// joints).
                pub const NQ: usize = #nq;
                /// Entries of `v`, `a` and `tau` (base linear then angular, base frame, then the
                /// joints).
                pub const NV: usize = #nv;
            },
            BaseLayout::Mujoco => quote! {
                /// Floating base in MuJoCo's layout: entries of `q`, MuJoCo's `qpos` (base
                /// position, unit quaternion w x y z, then the joints).
                pub const NQ: usize = #nq;
                /// Entries of `v`, `a` and `tau`, MuJoCo's `qvel`, `qacc` and generalised forces
                /// (base linear in world axes, then angular in base axes, then the joints).
                pub const NV: usize = #nv;
            },
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
    if !module.all_joint_names.is_empty() {
        let count = Literal::usize_unsuffixed(module.all_joint_names.len());
        let names = module.all_joint_names.iter().map(|s| Literal::string(s));
        items.push(quote! {
            /// Number of joints, the followers included (rows of `joint_wrenches`).
            pub const NJOINTS: usize = #count;

            /// Every joint's name, the followers' too, in the input's order (the rows of
            /// `joint_wrenches`).
            pub const ALL_JOINT_NAMES: [&str; NJOINTS] = [#(#names),*];
        });
    }
    if !module.contacts.is_empty() {
        let count = Literal::usize_unsuffixed(module.contacts.len());
        let nc = Literal::usize_unsuffixed(module.nc());
        let names = module.contacts.iter().map(|(f, _)| Literal::string(f));
        let kinds: Vec<String> = module
            .contacts
            .iter()
            .map(|(frame, kind)| format!("{frame} ({})", kind.name()))
            .collect();
        let doc = format!(" Number of contacts: {}.", kinds.join(", "));
        items.push(quote! {
            #[doc = #doc]
            pub const NCONTACTS: usize = #count;

            /// Rows of the contacts (3 per point contact, 6 per 6d contact): of `Jc` and
            /// `lambda`.
            pub const NC: usize = #nc;

            /// The contacts' frames, in the order of their rows.
            pub const CONTACT_NAMES: [&str; NCONTACTS] = [#(#names),*];
        });
    }
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
    items
}

/// The module's constant arrays (with `NB` before the base parameters).
fn constant_arrays(lowered: &Module, lang: &RustLang<'_>, allow: &TokenStream) -> Vec<TokenStream> {
    let mut items = Vec::new();
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
        let values: Vec<TokenStream> = c
            .values
            .iter()
            .map(|&v| render(lang, &Ex::Lit(v)))
            .collect();
        let doc = format!(" {}{}.", c.doc[..1].to_ascii_uppercase(), &c.doc[1..]);
        items.push(quote! {
            #[doc = #doc]
            #allow
            pub const #ident: [f64; #len] = [#(#values),*];
        });
    }
    items
}

/// The `Params` struct of the symbolic parameters, with the spec's values as its `Default`.
fn params_struct(lowered: &Module, lang: &RustLang<'_>, allow: &TokenStream) -> TokenStream {
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
        .map(|p| render(lang, &Ex::Lit(p.default)))
        .collect();
    let fields = lang.fields;
    quote! {
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
    }
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
    let ret = if plan.contract.returns_scalar() {
        quote!(f64)
    } else if outs.len() == 1 {
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

//! The C99 emitter: `NAME.h` + `NAME.c` (or a header-only variant), row-major arrays, only
//! `<math.h>`, no allocation, no state.

use std::fmt::Write as _;

use rustc_hash::FxHashMap as HashMap;

use super::parts::{PartSizes, Target};
use super::{
    float_literal, generated_by, layout, param_fields, plan_module, render, snake_ident, EmitError,
    Ex, Func, Input, Lang, Plan,
};
use crate::ir::{Module, BASE_PARAMETERS};
use crate::progress::{Progress, Silent};

/// Options of the C emitter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct COptions {
    /// Single precision: `float` everywhere, `sinf`/`cosf`/`sqrtf`, `f` literals.
    pub float: bool,
    /// Everything in the header as `static inline` functions (no `.c` file).
    pub header_only: bool,
    /// Also each function over this many states at once, `NAME_FUNCTION_batch` (structure of
    /// arrays, every argument `[rows][NAME_BATCH]`; 1 to [`super::MAX_BATCH`]).
    pub batch: Option<usize>,
    /// Where long functions are cut into `static` part functions (the default: above
    /// 65,536 operations, parts of about 8192).
    pub parts: PartSizes,
}

/// The generated C files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CFiles {
    /// Header file name, `NAME.h`.
    pub header_name: String,
    /// Header contents.
    pub header: String,
    /// Source file name, `NAME.c` (none when header-only).
    pub source_name: Option<String>,
    /// Source contents (none when header-only).
    pub source: Option<String>,
}

#[derive(Clone, Copy)]
pub(super) struct CLang<'a> {
    fields: &'a [String],
    /// The robot's upper-case identifier, prefix of the header's macros.
    upper: &'a str,
    float: bool,
    /// In a batched body: inputs are read as `q[j][k]`, `k` the state.
    lanes: bool,
    /// In a function body: inputs are read from the locals they were copied into first
    /// (`q_3` for `q[3]`, [`super::input_reads`]).
    copied: bool,
    /// In a part of a long function ([`parted_body`]): the values computed by earlier parts,
    /// read from their slots of the carry array (`carry[17]`) where used.
    carried: Option<&'a HashMap<String, usize>>,
}

impl<'a> CLang<'a> {
    /// Scalar double-precision C for a robot without parameters whose macros start with
    /// `upper` (the emitter's unit tests).
    #[cfg(test)]
    pub(super) fn plain(upper: &'a str) -> Self {
        CLang {
            fields: &[],
            upper,
            float: false,
            lanes: false,
            copied: false,
            carried: None,
        }
    }
}

impl Lang for CLang<'_> {
    type Out = String;
    fn lit(&self, v: f64) -> String {
        let mut s = float_literal(v, self.float);
        if self.float {
            s.push('f');
        }
        s
    }
    fn input(&self, i: Input, j: usize) -> String {
        if self.copied {
            let copy = format!("{}_{j}", i.name());
            self.carried
                .and_then(|c| c.get(&copy))
                .map_or(copy, |slot| format!("carry[{slot}]"))
        } else if self.lanes {
            format!("{}[{j}][k]", i.name())
        } else {
            format!("{}[{j}]", i.name())
        }
    }
    fn param(&self, k: usize) -> String {
        format!("params->{}", self.fields[k])
    }
    fn local(&self, name: &str) -> String {
        self.carried
            .and_then(|c| c.get(name))
            .map_or_else(|| name.to_owned(), |slot| format!("carry[{slot}]"))
    }
    fn call(&self, f: Func, arg: String) -> String {
        let name = match f {
            Func::Sin => "sin",
            Func::Cos => "cos",
            Func::Sqrt => "sqrt",
        };
        let suffix = if self.float { "f" } else { "" };
        format!("{name}{suffix}({arg})")
    }
    fn neg(&self, x: String) -> String {
        format!("-{x}")
    }
    fn bin(&self, a: String, op: char, b: String) -> String {
        format!("{a} {op} {b}")
    }
    fn paren(&self, x: String) -> String {
        format!("({x})")
    }
    fn fma(&self, a: String, b: String, c: String, kind: super::Fused) -> String {
        let f = match kind {
            super::Fused::Add => "FMA",
            super::Fused::Subtract => "FNMA",
            super::Fused::Difference => "FMS",
        };
        format!("{}_{f}({a}, {b}, {c})", self.upper)
    }
}

/// A C string literal holding `s`: printable ASCII as is (with `\\`, `\"` and `\?` escaped,
/// the last so no trigraph forms), every other byte as a three-digit octal escape.
fn c_string(s: &str) -> String {
    let mut out = String::from("\"");
    for b in s.bytes() {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'"' => out.push_str("\\\""),
            b'?' => out.push_str("\\?"),
            0x20..=0x7e => out.push(char::from(b)),
            _ => {
                let _ = write!(out, "\\{b:03o}");
            }
        }
    }
    out.push('"');
    out
}

/// Keeps free text from closing a C comment.
fn comment_safe(s: &str) -> String {
    s.replace("*/", "* /").replace('\n', " ")
}

/// Writes the module as C99.
///
/// API (`NAME` = the robot name as a lowercase C identifier): `#define NAME_DOF N` (upper
/// case), one `void NAME_<function>(inputs..., outputs...)` per function. With symbolic
/// parameters: `typedef struct {..} NAME_params`, `NAME_PARAMS_DEFAULT` (initialiser),
/// `NAME_params_default(NAME_params *params)`, and every function takes
/// `const NAME_params *params` first.
pub fn emit_c(module: &Module, opts: &COptions) -> Result<CFiles, EmitError> {
    emit_c_reporting(module, opts, &mut Silent)
}

/// [`emit_c`], reporting the simplification and each function written to `progress`.
pub fn emit_c_reporting(
    module: &Module,
    opts: &COptions,
    progress: &mut dyn Progress,
) -> Result<CFiles, EmitError> {
    let (lowered, plans) = plan_module(module, progress)?;
    super::check_literals(&lowered, &plans, opts.float)?;
    let n = lowered.dof;
    let name = snake_ident(&module.robot_name);
    let upper = name.to_ascii_uppercase();
    let fields = param_fields(&lowered.graph);
    let real = if opts.float { "float" } else { "double" };
    let lang = CLang {
        fields: &fields,
        upper: &upper,
        float: opts.float,
        lanes: false,
        copied: false,
        carried: None,
    };
    if let Some(batch) = opts.batch {
        super::check_batch(batch)?;
    }
    let storage = if opts.header_only {
        "static inline "
    } else {
        ""
    };

    let mut h = String::new();
    let _ = writeln!(h, "/* {}", generated_by(module));
    let _ = write!(h, " * Robot `{}`", comment_safe(&module.robot_name));
    if !module.description.is_empty() {
        let _ = write!(h, ": {}", comment_safe(&module.description));
    }
    let _ = writeln!(h);
    let _ = writeln!(
        h,
        " * Arrays are row-major; joint arrays have {upper}_DOF entries, joint 0 first.\n \
         * Precision: {real}. */"
    );
    let _ = writeln!(h, "#ifndef {upper}_H\n#define {upper}_H\n");
    if opts.header_only {
        let _ = writeln!(h, "#include <math.h>\n");
    }
    let _ = writeln!(h, "#ifdef __cplusplus\nextern \"C\" {{\n#endif\n");
    let _ = writeln!(h, "/** Number of joints. */\n#define {upper}_DOF {n}\n");
    if module.floating() {
        let _ = writeln!(
            h,
            "/** Floating base: entries of q (base position, unit quaternion x y z w, then the \
             joints) and of v, a, tau (base linear then angular, base frame, then the joints). */\n\
             #define {upper}_NQ {}\n#define {upper}_NV {}\n",
            n + 7,
            n + 6
        );
    }
    if let Some(batch) = opts.batch {
        let _ = writeln!(
            h,
            "/** Number of states of the batched functions ({name}_FUNCTION_batch): every \
             argument is [rows][{upper}_BATCH], entry [i][k] the scalar function's entry i for \
             state k. */\n#define {upper}_BATCH {batch}\n\n\
             /* restrict in C99; its usual spelling in C++. */\n\
             #ifdef __cplusplus\n#define {upper}_RESTRICT __restrict\n#else\n\
             #define {upper}_RESTRICT restrict\n#endif\n",
        );
    }
    let _ = writeln!(
        h,
        "/* a * b + c (and c - a * b, a * b - c), in sums of products and in the written-out sin and cos: \
         fused (one rounding, one instruction) where the target has the instruction, as \
         written elsewhere or when {upper}_NO_FMA is defined (compilers contract a written \
         a * b + c only outside strict ISO modes). */\n\
         #if (defined({fast}) || defined(__FMA__)) && !defined({upper}_NO_FMA)\n\
         #define {upper}_FMA(a, b, c) {fma}(a, b, c)\n\
         #define {upper}_FNMA(a, b, c) {fma}(-(a), b, c)\n\
         #define {upper}_FMS(a, b, c) {fma}(a, b, -(c))\n#else\n\
         #define {upper}_FMA(a, b, c) ((a) * (b) + (c))\n\
         #define {upper}_FNMA(a, b, c) ((c) - (a) * (b))\n\
         #define {upper}_FMS(a, b, c) ((a) * (b) - (c))\n#endif\n",
        fast = if opts.float {
            "FP_FAST_FMAF"
        } else {
            "FP_FAST_FMA"
        },
        fma = if opts.float { "fmaf" } else { "fma" },
    );
    let blocks = plans.iter().any(|p| super::trig_block(p).is_some());
    if opts.batch.is_some() || blocks {
        let _ = writeln!(
            h,
            "/* x rounded to an integer, in the written-out sin and cos: a sum that vectorises \
             on any SIMD unit; floor() where the compiler may reassociate floating point \
             (-ffast-math) and fold that sum away, or evaluates in extended precision. */\n\
             #include <float.h>\n\
             #if defined(__FAST_MATH__) || !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0\n\
             #define {upper}_ROUND(x) {floor}((x) + {half})\n#else\n\
             #define {upper}_ROUND(x) (((x) + {magic}) - {magic})\n#endif",
            floor = if opts.float { "floorf" } else { "floor" },
            half = lang.lit(0.5),
            magic = lang.lit(super::round_magic(opts.float)),
        );
    }
    if blocks {
        h.push_str(&sincos_macro(&lang, real, &upper));
    }
    let k = module.frame_names.len();
    let _ = writeln!(
        h,
        "/** Number of named frames (each has {name}_forward_kinematics_FRAME and \
         {name}_jacobian_FRAME). */\n#define {upper}_NFRAMES {k}\n"
    );
    let quoted = |names: &[String]| -> String {
        names
            .iter()
            .map(|s| c_string(s))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(
        h,
        "/** Joint names, joint 0 first, exactly as the robot description writes them. */\n\
         static const char *const {name}_joint_names[{upper}_DOF] = {{ {} }};\n",
        quoted(&module.joint_names)
    );
    if k > 0 {
        let _ = writeln!(
            h,
            "/** Named frames, exactly as the robot description writes them. */\n\
             static const char *const {name}_frame_names[{upper}_NFRAMES] = {{ {} }};\n",
            quoted(&module.frame_names)
        );
    }
    if module.elastic() {
        let _ = writeln!(
            h,
            "/** Number of elastic joints: entries of beta (compliance angles, added to their \
             joints' q). */\n#define {upper}_NBETA {}\n\n\
             /** Number of modal coordinates of the flexible links: entries of w. */\n\
             #define {upper}_NW {}\n",
            module.nbeta(),
            module.nw()
        );
        // C has no empty arrays: a list without entries is left out.
        if module.nbeta() > 0 {
            let _ = writeln!(
                h,
                "/** The elastic joints' names, in beta order. */\n\
                 static const char *const {name}_beta_names[{upper}_NBETA] = {{ {} }};\n",
                quoted(&module.beta_names)
            );
        }
        if module.nw() > 0 {
            let _ = writeln!(
                h,
                "/** The modal coordinates' names (BODY.DIRECTION.MODE), in w order. */\n\
                 static const char *const {name}_w_names[{upper}_NW] = {{ {} }};\n",
                quoted(&module.w_names)
            );
        }
    }

    let mut defs = String::new();
    for c in &lowered.constants {
        let len = c.values.len();
        if c.name == BASE_PARAMETERS {
            let _ = writeln!(
                h,
                "/** Number of base parameters ({name}_base_parameters, columns of \
                 {name}_base_regressor). */\n#define {upper}_NB {len}\n"
            );
        }
        let values: Vec<String> = c.values.iter().map(|&v| lang.lit_signed(v)).collect();
        let _ = writeln!(
            h,
            "/** {}{}. */",
            c.doc[..1].to_ascii_uppercase(),
            &c.doc[1..]
        );
        let array = format!("{name}_{}[{len}]", c.name);
        let init = format!("{{\n    {}\n}};\n", values.join(",\n    "));
        if opts.header_only {
            let _ = writeln!(h, "static const {real} {array} = {init}");
            // Read once, so an including file that does not use it gets no warning.
            let _ = writeln!(
                h,
                "static inline const {real} *{name}_{}_array(void)\n{{\n    return {name}_{};\n}}\n",
                c.name, c.name
            );
        } else {
            let _ = writeln!(h, "extern const {real} {array};\n");
            let _ = writeln!(defs, "const {real} {array} = {init}");
        }
    }
    if !fields.is_empty() {
        let _ = writeln!(
            h,
            "/** Robot parameters kept symbolic in the generated code. */\ntypedef struct {{"
        );
        for (f, p) in fields.iter().zip(lowered.graph.params()) {
            let _ = writeln!(
                h,
                "    {real} {f}; /**< `{}`, spec value {:?} */",
                comment_safe(&p.name),
                p.default
            );
        }
        let _ = writeln!(h, "}} {name}_params;\n");
        let values: Vec<String> = lowered
            .graph
            .params()
            .iter()
            .map(|p| lang.lit_signed(p.default))
            .collect();
        let _ = writeln!(
            h,
            "/** The spec values, as an initialiser: `{name}_params p = {upper}_PARAMS_DEFAULT;` */\n\
             #define {upper}_PARAMS_DEFAULT {{ {} }}\n",
            values.join(", ")
        );
        let proto = format!("void {name}_params_default({name}_params *params)");
        let _ = writeln!(h, "/** Fills `*params` with the spec values. */");
        let mut body = String::new();
        for (f, v) in fields.iter().zip(&values) {
            let _ = writeln!(body, "    params->{f} = {v};");
        }
        let def = format!("{storage}{proto}\n{{\n{body}}}\n\n");
        if opts.header_only {
            h.push_str(&def);
        } else {
            let _ = writeln!(h, "{proto};\n");
            defs.push_str(&def);
        }
    }

    for plan in &plans {
        let proto = prototype(plan, &name, real, !fields.is_empty());
        let doc = doc_comment(plan, !fields.is_empty());
        // A long function's parts come before its documentation and definition.
        let (parts, body) = parted_body(plan, &lang, (real, &name, storage), opts.parts)
            .unwrap_or_else(|| (String::new(), body(plan, &lang, real, &upper)));
        let def = format!("{storage}{proto}\n{{\n{body}}}\n\n");
        if opts.header_only {
            h.push_str(&parts);
            h.push_str(&doc);
            h.push_str(&def);
        } else {
            h.push_str(&doc);
            defs.push_str(&parts);
            let _ = writeln!(h, "{proto};\n");
            defs.push_str(&def);
        }
        if opts.batch.is_some() && plan.contract.batched {
            let proto = batch_prototype(plan, &name, real, !fields.is_empty());
            let doc = format!(
                "/** {name}_{} over {upper}_BATCH states at once: each argument [rows][{upper}_BATCH], \
                 state k in column k. */\n",
                plan.name
            );
            let body = if super::parts::is_long(plan, opts.parts) {
                batch_by_calls(plan, &lang, real, &name)
            } else {
                batch_body(plan, &lang, real, &upper)
            };
            let def = format!("{storage}{proto}\n{{\n{body}}}\n\n");
            h.push_str(&doc);
            if opts.header_only {
                h.push_str(&def);
            } else {
                let _ = writeln!(h, "{proto};\n");
                defs.push_str(&def);
            }
        }
    }
    let _ = writeln!(
        h,
        "#ifdef __cplusplus\n}}\n#endif\n\n#endif /* {upper}_H */"
    );

    let header_name = format!("{name}.h");
    let (source_name, source) = if opts.header_only {
        (None, None)
    } else {
        let mut c = String::new();
        let _ = writeln!(c, "/* {} */\n", generated_by(module));
        let _ = writeln!(c, "#include \"{header_name}\"\n\n#include <math.h>\n");
        c.push_str(defs.trim_end());
        c.push('\n');
        (Some(format!("{name}.c")), Some(c))
    };
    Ok(CFiles {
        header_name,
        header: h,
        source_name,
        source,
    })
}

impl CLang<'_> {
    fn lit_signed(&self, v: f64) -> String {
        render(self, &super::Ex::Lit(v))
    }
}

fn prototype(plan: &Plan, name: &str, real: &str, params: bool) -> String {
    let mut args = Vec::new();
    if params {
        args.push(format!("const {name}_params *params"));
    }
    for i in &plan.inputs {
        args.push(format!("const {real} {}[]", i.name()));
    }
    for o in plan.contract.outputs {
        args.push(format!("{real} {}[]", o.name));
    }
    format!("void {name}_{}({})", plan.name, args.join(", "))
}

/// `void NAME_FUNCTION_batch(const real (*NAME_RESTRICT q)[NAME_BATCH], ...)`: the scalar
/// function's arguments with a state index added as the last array dimension.
fn batch_prototype(plan: &Plan, name: &str, real: &str, params: bool) -> String {
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
        args.push(format!(
            "{real} (*{upper}_RESTRICT {})[{upper}_BATCH]",
            o.name
        ));
    }
    format!("void {name}_{}_batch({})", plan.name, args.join(", "))
}

/// The body of the batched form of a function in parts ([`super::parts::is_long`]): the
/// scalar function called once per state, its arguments gathered from and its results
/// scattered to the state's column.
fn batch_by_calls(plan: &Plan, lang: &CLang<'_>, real: &str, name: &str) -> String {
    let upper = lang.upper;
    let mut b = format!(
        "    /* Longer than the functions written as one body: the function once per state (a \
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
    for (o, entries) in plan.contract.outputs.iter().zip(&plan.outputs) {
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
    let _ = writeln!(b, "        {name}_{}({});", plan.name, arguments.join(", "));
    b.push_str(&scatters);
    b.push_str("    }\n");
    b
}

/// The body of a batched function: one loop over the states around the scalar function's
/// straight-line code, with no branch and no call (the `sin` and `cos` written out, see
/// [`super::batch_trig`]; `sqrt` is the one call left), so that compilers vectorise it.
fn batch_body(plan: &Plan, lang: &CLang<'_>, real: &str, upper: &str) -> String {
    let lanes = CLang {
        fields: lang.fields,
        upper: lang.upper,
        float: lang.float,
        lanes: true,
        copied: true,
        carried: None,
    };
    let mut b = String::new();
    if !lang.fields.is_empty() && !plan.uses_params {
        b.push_str("    (void)params;\n");
    }
    for (i, used) in plan.inputs.iter().zip(&plan.used_inputs) {
        if !used {
            let _ = writeln!(b, "    (void){};", i.name());
        }
    }
    let _ = writeln!(b, "    int k;");
    let _ = writeln!(b, "    for (k = 0; k < {upper}_BATCH; ++k) {{");
    for (i, j) in super::input_reads(plan) {
        let _ = writeln!(b, "        const {real} {0}_{j} = {0}[{j}][k];", i.name());
    }
    for (t, (angle, sin, cos)) in super::trig_angles(plan).into_iter().enumerate() {
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
        true,
        |b, name, e| {
            let _ = writeln!(b, "        const {real} {name} = {};", render(&lanes, e));
        },
        |b, out, i, e| {
            let _ = writeln!(b, "        {out}[{i}][k] = {};", render(&lanes, e));
        },
    );
    let _ = writeln!(b, "    }}");
    b
}

/// Writes the plan's locals in emission order (see [`super::local_order`]; with a
/// trigonometric `block` its sines and cosines, written by the caller, are skipped) by `local`
/// (name, value), and each output entry by `store` (output name, index, value) as soon as it
/// can be ([`super::store_schedule`]).
fn locals_and_stores(
    b: &mut String,
    plan: &Plan,
    block: bool,
    local: impl Fn(&mut String, &str, &Ex),
    store: impl Fn(&mut String, &str, usize, &Ex),
) {
    let (order, leading) = super::local_order(plan, block);
    let at = super::store_schedule(plan, &order);
    let stores = |b: &mut String, slot: usize| {
        for &(o, i) in &at[slot] {
            store(b, plan.contract.outputs[o].name, i, &plan.outputs[o][i]);
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

/// [`super::batch_trig`] in C: rounding by the header's `NAME_ROUND`, fused multiply-adds by
/// its `NAME_FMA`.
fn trig_statements(
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
    let syntax = super::TrigSyntax {
        single: lang.float,
        lit: &lit,
        round: &round,
        fma: &fma,
    };
    super::batch_trig(tag, angle, sin, cos, &syntax)
}

/// `NAME_TRIG_BLOCK` and `NAME_SINCOS(N, a, s, c)`, where the compiler targets x86-64 (SSE2,
/// two lanes, and wider) and vectorises a loop of known count (gcc 12 and later, clang,
/// others) and `NAME_LIBM_TRIG` is not defined: the sine and cosine of the angles `a[0..N]`
/// into `s` and `c` (`N` a multiple of the vector width) by one branch-free loop of
/// Cody–Waite reduction and polynomials ([`super::batch_trig`]) over all `N`, unless an angle
/// is at or beyond the limit of its measured accuracy, or not a number (then the C
/// library's). Elsewhere (other architectures, and 32-bit x86 whose x87 arithmetic would
/// round by `floor()`: not measured) neither is defined and the functions call `sin` and
/// `cos` as written.
fn sincos_macro(lang: &CLang<'_>, real: &str, upper: &str) -> String {
    let (suffix, limit) = if lang.float {
        ("f", lang.lit(1e2))
    } else {
        ("", lang.lit(1e5))
    };
    let statements = trig_statements(
        lang,
        upper,
        "t",
        "(a)[j_]".to_owned(),
        Some("t_sin"),
        Some("t_cos"),
    );
    let mut poly = String::new();
    for (name, e) in statements {
        let _ = write!(poly, " \\\n            const {real} {name} = {e};");
    }
    format!(
        "/* On x86-64 (SSE2 and wider), where the compiler vectorises the loop, the functions take \
         the sines and cosines of their angles together: {upper}_SINCOS puts those of a[0..N] into \
         s and c (N a multiple of the vector width) by one branch-free loop \
         of Cody-Waite reduction and polynomials, within 2 ulp of the C library for |a| < \
         {limit} (the C library's beyond). Define {upper}_LIBM_TRIG for the C library's sin and \
         cos everywhere. */\n\
         #if defined(__x86_64__) && !defined({upper}_LIBM_TRIG) && \
         (defined(__clang__) || !defined(__GNUC__) || __GNUC__ >= 12)\n\
         #define {upper}_TRIG_BLOCK 1\n\
         #define {upper}_SINCOS(N, a, s, c) do {{ \\\n    \
         int j_, ok_ = 1; \\\n    \
         for (j_ = 0; j_ < (N); ++j_) ok_ &= fabs{suffix}((a)[j_]) < {limit}; \\\n    \
         if (ok_) {{ \\\n        \
         for (j_ = 0; j_ < (N); ++j_) {{{poly} \\\n            \
         (s)[j_] = t_sin; \\\n            (c)[j_] = t_cos; \\\n        }} \\\n    \
         }} else {{ \\\n        \
         for (j_ = 0; j_ < (N); ++j_) {{ \\\n            \
         (s)[j_] = sin{suffix}((a)[j_]); \\\n            (c)[j_] = cos{suffix}((a)[j_]); \\\n        \
         }} \\\n    }} \\\n}} while (0)\n\
         #endif\n\n"
    )
}

fn doc_comment(plan: &Plan, params: bool) -> String {
    let mut d = format!("/** {}\n", plan.contract.doc);
    if params {
        d.push_str(" * @param params robot parameters\n");
    }
    for i in &plan.inputs {
        let _ = writeln!(
            d,
            " * @param {} {}, {} values",
            i.name(),
            i.doc(),
            plan.input_len(*i)
        );
    }
    for o in plan.contract.outputs {
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

/// The statements every scalar body starts with: the casts of unused arguments, the inputs
/// copied into locals, and the trigonometric block (`true` when there is one).
fn body_prefix(plan: &Plan, lang: &CLang<'_>, real: &str, upper: &str) -> (String, bool) {
    let mut b = String::new();
    // Unused inputs are part of the fixed API; the casts silence -Wunused-parameter.
    if !lang.fields.is_empty() && !plan.uses_params {
        b.push_str("    (void)params;\n");
    }
    for (i, used) in plan.inputs.iter().zip(&plan.used_inputs) {
        if !used {
            let _ = writeln!(b, "    (void){};", i.name());
        }
    }
    // An output of no entries (F2 of a robot without elastic joints) is never written.
    for (o, vals) in plan.contract.outputs.iter().zip(&plan.outputs) {
        if vals.is_empty() {
            let _ = writeln!(b, "    (void){};", o.name);
        }
    }
    // Every input read first: an output array may be an input array of the same call, and
    // the stores are interleaved with the locals.
    for (i, j) in super::input_reads(plan) {
        let _ = writeln!(b, "    const {real} {0}_{j} = {0}[{j}];", i.name());
    }
    let block = super::trig_block(plan);
    if let Some(block) = &block {
        // A multiple of an AVX vector, so that the loop has no remainder (gcc 12 vectorises
        // such a loop at -O2 too), each vector a window of the angles (`trig_slots`).
        let width = if lang.float { 8 } else { 4 };
        let slots = super::trig_slots(block.len(), width);
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
        let reads = super::trig_reads(plan, block);
        for r in &reads {
            let slot = super::trig_slot(&slots, r.index);
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

fn body(plan: &Plan, lang: &CLang<'_>, real: &str, upper: &str) -> String {
    let lang = &CLang {
        copied: true,
        ..*lang
    };
    let (mut b, block) = body_prefix(plan, lang, real, upper);
    locals_and_stores(
        &mut b,
        plan,
        block,
        |b, name, e| {
            let _ = writeln!(b, "    const {real} {name} = {};", render(lang, e));
        },
        |b, out, k, e| {
            let _ = writeln!(b, "    {out}[{k}] = {};", render(lang, e));
        },
    );
    b
}

/// A long function as parts ([`super::parts::cut`], `sizes`): the part functions'
/// definitions (to precede the function's) and the function's body, which declares the
/// carry array and calls them.
///
/// Each part is a `static` function of the function's arguments and the carry array. The
/// first copies the inputs (so every input is read before any output is written, as in one
/// body) and takes the sines and cosines; a value read in a later part than the one that
/// computes it (an input copy or a local) is stored to its slot of the carry array right
/// after it is computed and read from that slot where used (held in locals, they kept so
/// many values live that gcc's register allocator took most of the compile time).
fn parted_body(
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
    let reads = |e: &Ex| super::parts::values_read(e, &|i, j| Some(lang.input(i, j)));
    let copies: Vec<String> = super::input_reads(plan)
        .into_iter()
        .map(|(i, j)| lang.input(i, j))
        .collect();
    let block = super::trig_block(plan).is_some();
    let parted = super::parts::cut(plan, sizes, block, &copies, &reads)?;
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
    let mut reads_params = vec![false; parts];
    parted.for_each(|q, e, target, earlier| {
        let lang = &CLang {
            carried: Some(earlier),
            ..*lang
        };
        let mut params_read = false;
        super::visit_leaves(e, &mut |leaf| params_read |= matches!(leaf, Ex::Param(_)));
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
    let whole = prototype(plan, name, real, params);
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

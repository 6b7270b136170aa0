//! The C99 emitter: `NAME.h` + `NAME.c` (or a header-only variant), row-major arrays, only
//! `<math.h>`, no allocation, no state.

use std::fmt::Write as _;

use rustc_hash::FxHashMap as HashMap;

mod batch;
mod body;

use super::parts::PartSizes;
use super::{
    float_literal, generated_by, param_fields, plan_module, render, snake_ident, EmitError, Func,
    Input, Lang, Plan,
};
use crate::ir::{Module, BASE_PARAMETERS};
use crate::model::BaseLayout;
use crate::progress::{Progress, Silent};
use batch::{batch_body, batch_by_calls, batch_prototype};
use body::{body, doc_comment, parted_body, prototype, trig_statements};

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
    /// 8192 operations, parts of about 4096).
    pub parts: PartSizes,
    /// Each function cut into parts (with its batched form) in a source file of its own,
    /// `NAME_FUNCTION.c` ([`CFiles::units`]), so that a parallel build compiles the long
    /// functions at once; not with `header_only`.
    pub split: bool,
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
    /// With [`COptions::split`], the other source files, `(NAME_FUNCTION.c, contents)`: each
    /// a function cut into parts, compiled and linked with `NAME.c`; none otherwise.
    pub units: Vec<(String, String)>,
}

/// The line that marks a source file of [`CFiles::units`] as one of `NAME.c`'s (a tool that
/// writes the files removes those of an earlier run it does not write again).
pub fn unit_marker(name: &str) -> String {
    format!("/* A function of {name}.h, compiled and linked with {name}.c. */")
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
    let cx = Context {
        name: &name,
        upper: &upper,
        real,
        storage,
        opts,
        lang: &lang,
        params: !fields.is_empty(),
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
        let layout = match module.base_layout {
            BaseLayout::Pinocchio => {
                "Floating base: entries of q (base position, unit quaternion x y z w, then the \
                 joints) and of v, a, tau (base linear then angular, base frame, then the joints)."
            }
            BaseLayout::Mujoco => {
                "Floating base in MuJoCo's layout: entries of q, MuJoCo's qpos (base position, \
                 unit quaternion w x y z, then the joints), and of v, a, tau, MuJoCo's qvel, \
                 qacc and generalised forces (base linear in world axes, then angular in base \
                 axes, then the joints)."
            }
        };
        let _ = writeln!(
            h,
            "/** {layout} */\n#define {upper}_NQ {}\n#define {upper}_NV {}\n",
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
    let blocks = plans.iter().any(|p| super::trig_block(p).is_some());
    arithmetic_macros(&mut h, &cx, opts.batch.is_some(), blocks);
    names_and_sizes(&mut h, module, &cx);
    let mut defs = String::new();
    constant_arrays(&mut h, &mut defs, &lowered, &cx);
    if !fields.is_empty() {
        params_struct(&mut h, &mut defs, &lowered, &cx);
    }

    let header_name = format!("{name}.h");
    let mut units = Vec::new();
    for plan in &plans {
        if opts.split && !opts.header_only && super::parts::is_long(plan, opts.parts) {
            let mut own = String::new();
            function(&mut h, &mut own, plan, &cx);
            let mut c = source_preamble(module, &header_name);
            let _ = writeln!(c, "{}\n", unit_marker(&name));
            c.push_str(own.trim_end());
            c.push('\n');
            units.push((format!("{name}_{}.c", plan.name), c));
        } else {
            function(&mut h, &mut defs, plan, &cx);
        }
    }
    let _ = writeln!(
        h,
        "#ifdef __cplusplus\n}}\n#endif\n\n#endif /* {upper}_H */"
    );

    let (source_name, source) = if opts.header_only {
        (None, None)
    } else {
        let mut c = source_preamble(module, &header_name);
        c.push_str(defs.trim_end());
        c.push('\n');
        (Some(format!("{name}.c")), Some(c))
    };
    Ok(CFiles {
        header_name,
        header: h,
        source_name,
        source,
        units,
    })
}

/// What every source file starts with: the generated-by line and the includes.
fn source_preamble(module: &Module, header_name: &str) -> String {
    let mut c = String::new();
    let _ = writeln!(c, "/* {} */\n", generated_by(module));
    let _ = writeln!(c, "#include \"{header_name}\"\n\n#include <math.h>\n");
    c
}

/// What every part of the C files is written with.
struct Context<'a> {
    /// The robot's snake_case identifier, prefix of every C name.
    name: &'a str,
    /// Its upper-case form, prefix of the macros.
    upper: &'a str,
    /// `double` or `float`.
    real: &'a str,
    /// `static inline ` in a header-only file, else nothing.
    storage: &'a str,
    opts: &'a COptions,
    lang: &'a CLang<'a>,
    /// Whether the functions take the symbolic parameters.
    params: bool,
}

/// The fused multiply-add macros, the rounding macro of the written-out `sin`/`cos` (batched
/// functions and trigonometric blocks) and the block macro itself.
fn arithmetic_macros(h: &mut String, cx: &Context<'_>, batched: bool, blocks: bool) {
    let Context {
        upper,
        real,
        opts,
        lang,
        ..
    } = *cx;
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
    if batched || blocks {
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
        h.push_str(&sincos_macro(lang, real, upper));
    }
}

/// The named frames' count, the joint, frame and elastic coordinates' names and counts.
fn names_and_sizes(h: &mut String, module: &Module, cx: &Context<'_>) {
    let (name, upper) = (cx.name, cx.upper);
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
    if !module.all_joint_names.is_empty() {
        let _ = writeln!(
            h,
            "/** Number of joints, the followers included (rows of {name}_joint_wrenches). */\n\
             #define {upper}_NJOINTS {}\n\n\
             /** Every joint's name, the followers' too, in the input's order (the rows of \
             {name}_joint_wrenches). */\n\
             static const char *const {name}_all_joint_names[{upper}_NJOINTS] = {{ {} }};\n",
            module.all_joint_names.len(),
            quoted(&module.all_joint_names)
        );
    }
    if k > 0 {
        let _ = writeln!(
            h,
            "/** Named frames, exactly as the robot description writes them. */\n\
             static const char *const {name}_frame_names[{upper}_NFRAMES] = {{ {} }};\n",
            quoted(&module.frame_names)
        );
    }
    if !module.contacts.is_empty() {
        let kinds: Vec<String> = module
            .contacts
            .iter()
            .map(|(frame, kind)| format!("{frame} ({})", kind.name()))
            .collect();
        let names: Vec<String> = module.contacts.iter().map(|(f, _)| f.clone()).collect();
        let _ = writeln!(
            h,
            "/** Number of contacts: {}. */\n#define {upper}_NCONTACTS {}\n\n\
             /** Rows of the contacts (3 per point contact, 6 per 6d contact): of Jc and \
             lambda. */\n#define {upper}_NC {}\n\n\
             /** The contacts' frames, in the order of their rows. */\n\
             static const char *const {name}_contact_names[{upper}_NCONTACTS] = {{ {} }};\n",
            kinds.join(", "),
            module.contacts.len(),
            module.nc(),
            quoted(&names)
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
}

/// The module's constant arrays: declared in the header and defined in the source (or
/// `static` in a header-only file), `NB` before the base parameters.
fn constant_arrays(h: &mut String, defs: &mut String, lowered: &Module, cx: &Context<'_>) {
    let Context {
        name,
        upper,
        real,
        opts,
        lang,
        ..
    } = *cx;
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
}

/// The struct of the symbolic parameters, its initialiser macro and the function that fills it.
fn params_struct(h: &mut String, defs: &mut String, lowered: &Module, cx: &Context<'_>) {
    let Context {
        name,
        upper,
        real,
        storage,
        opts,
        lang,
        ..
    } = *cx;
    let fields = param_fields(&lowered.graph);

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
    place(h, defs, &proto, &def, opts.header_only);
}

/// A function's definition `def`: in the header when header-only, else in the source with its
/// prototype `proto` declared in the header.
fn place(h: &mut String, defs: &mut String, proto: &str, def: &str, header_only: bool) {
    if header_only {
        h.push_str(def);
    } else {
        let _ = writeln!(h, "{proto};\n");
        defs.push_str(def);
    }
}

/// One function (and its batched form): documented prototype in the header, definition in the
/// source (both in the header when header-only), a long function's parts before it.
fn function(h: &mut String, defs: &mut String, plan: &Plan, cx: &Context<'_>) {
    let Context {
        name,
        upper,
        real,
        storage,
        opts,
        lang,
        ..
    } = *cx;

    let proto = prototype(plan, name, real, cx.params);
    let doc = doc_comment(plan, cx.params);
    // A long function's parts come before its documentation and definition.
    let (parts, mut body) = parted_body(plan, lang, (real, name, storage), opts.parts)
        .unwrap_or_else(|| (String::new(), body(plan, lang, real, upper)));
    if plan.contract.returns_scalar() {
        // The body writes its one-entry array, as every other function its outputs.
        let out = plan.contract.outputs[0].name;
        body = format!("    {real} {out}[1];\n{body}    return {out}[0];\n");
    }
    let def = format!("{storage}{proto}\n{{\n{body}}}\n\n");
    if opts.header_only {
        h.push_str(&parts);
    } else {
        defs.push_str(&parts);
    }
    h.push_str(&doc);
    place(h, defs, &proto, &def, opts.header_only);
    if opts.batch.is_some() && plan.contract.batched {
        let proto = batch_prototype(plan, name, real, cx.params);
        let doc = if plan.contract.returns_scalar() {
            format!(
                "/** {name}_{} over {upper}_BATCH states at once: each input [rows][{upper}_BATCH], \
                 state k in column k; {}[k] (of {upper}_BATCH) the value of state k. */\n",
                plan.name, plan.contract.outputs[0].name
            )
        } else {
            format!(
                "/** {name}_{} over {upper}_BATCH states at once: each argument [rows][{upper}_BATCH], \
                 state k in column k. */\n",
                plan.name
            )
        };
        let body = if super::parts::batched_by_calls(plan, opts.parts) {
            batch_by_calls(plan, lang, real, name)
        } else {
            batch_body(plan, lang, real, upper)
        };
        let def = format!("{storage}{proto}\n{{\n{body}}}\n\n");
        h.push_str(&doc);
        place(h, defs, &proto, &def, opts.header_only);
    }
}

impl CLang<'_> {
    fn lit_signed(&self, v: f64) -> String {
        render(self, &super::Ex::Lit(v))
    }
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

//! Procedural macros of quasidyn, re-exported by the `quasidyn` crate; use them as
//! `quasidyn::robot!` and `quasidyn::include_robot!`.
//!
//! Both expand to a module holding the generated code (`pub const DOF`, the free functions
//! and a unit struct implementing `quasidyn::Dynamics<DOF>`, or `Params` when the spec keeps
//! parameters symbolic). Like a hand-written `mod`, the module is private unless a visibility
//! is written first: `robot!(pub file = "..")`, `include_robot!(pub(crate) "ur5")`.
//!
//! # `robot!`: generate while compiling
//!
//! ```ignore
//! // A spec, URDF file or DH table, relative to the crate's Cargo.toml. The crate is
//! // rebuilt when the file changes. The module is named after the robot (`planar3r`).
//! quasidyn::robot!(file = "../../robots/planar3r.toml");
//!
//! // URDF: the link the chain ends at; `name` renames the module.
//! quasidyn::robot!(pub file = "urdf/arm.urdf", tip = "tool0", name = "arm");
//!
//! // The spec itself, as a string literal.
//! quasidyn::robot!(r#"
//! name = "pendulum"
//! [[body]]
//! joint = "revolute"
//! axis = "z"
//! next = [1.0, 0.0, 0.0]
//! mass = 1.0
//! com = [1.0, 0.0, 0.0]
//! "#);
//! ```
//!
//! Arguments: the input (a string literal, or `file = "PATH"`), then optionally
//! `name = "IDENT"`, `tip = "LINK"` (URDF only: the chain's last link; without it a URDF with
//! several leaf links imports as the whole tree), `frame = "LINK"` (URDF only, repeatable: a
//! link that becomes a named frame), `snap = false` (URDF only: keep every value as written
//! instead of snapping values within a tolerance of exact ones, such as angles within 5e-10 of
//! multiples of pi/2), `floating_base = true` (URDF only: a free-flyer under the root link),
//! `root = "BODY"` (MJCF only: keep the tree of this top-level body, leave the others out),
//! `lock = "JOINT"` or `lock = "JOINT=VALUE"` (URDF and MJCF, repeatable: fix a joint at zero,
//! MuJoCo's `qpos0`, or VALUE, as Pinocchio's `buildReducedModel`), `ignore_equality = true`
//! (MJCF only: leave out closed loops, `connect` and `weld` equalities) and
//! `only = ["inverse_dynamics", "mass_matrix"]` (generate only these functions, named as
//! generated: `gravity`, `coriolis`, `regressor`, `forward_kinematics_FRAME`, ..., or `frames`
//! for every named frame's; the others are not derived, and the module has no `Dynamics`
//! implementation unless all eleven of its functions are there) and `batch = N` (each function
//! also over N states at once, `FUNCTION_batch` over `&[[f64; BATCH]; ROWS]`),
//! comma-separated. A name the robot does not generate is a compile error on that name,
//! listing the valid ones.
//!
//! A rejected input is one compile error on the literal (or the path) with the located
//! message, `FILE:LINE:COL: FIELD: MESSAGE`; for an inline spec `FILE` is `robot!` and line 1
//! is the line the literal opens on. The module is still declared (a stub with the same
//! names), so the code using it does not add errors of its own.
//!
//! # `include_robot!`: include what build.rs generated
//!
//! `quasidyn::include_robot!("ur5")` expands to
//! `mod ur5 { include!(concat!(env!("OUT_DIR"), "/ur5.rs")); }`, for a build script that
//! called `quasidyn_codegen::Builder` (or `quasidyn_codegen::compile`). Generation then runs
//! only when the input changes, where `robot!` generates on every compilation of the crate.
#![warn(missing_docs)]

use std::path::{Path, PathBuf};

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{Ident, LitBool, LitInt, LitStr, Token, Visibility};

use quasidyn_codegen::emit::check_batch;
use quasidyn_codegen::emit::stub::stub_module_items;
use quasidyn_codegen::import::{ImportOptions, JointLock};
use quasidyn_codegen::names::{camel_ident, snake_ident};
use quasidyn_codegen::{
    decode_input, module_name, parse_input_reading, rust_code_with, Error, Options,
};

/// Generates a robot's kinematics and dynamics module at compile time from a spec, URDF file
/// or DH table: `robot!(file = "PATH")` (relative to the crate's `Cargo.toml`) or
/// `robot!(r#"TOML"#)`, optionally preceded by a visibility and followed by `name = "IDENT"`,
/// `tip = "LINK"`, `root = "BODY"` (MJCF), `frame = "LINK"` (repeatable), `lock = "JOINT[=VALUE]"`
/// (repeatable), `snap = false`, `ignore_equality = true` (MJCF),
/// `floating_base = true`,
/// `only = ["FUNCTION", ...]` and `batch = N`. See the crate documentation.
#[proc_macro]
pub fn robot(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    let args = syn::parse_macro_input!(input as RobotArgs);
    expand_robot(&args).into()
}

/// Includes the module a build script generated with `quasidyn_codegen::Builder`:
/// `include_robot!("ur5")` is `mod ur5 { include!(concat!(env!("OUT_DIR"), "/ur5.rs")); }`;
/// `include_robot!(pub "ur5")` makes the module public.
#[proc_macro]
pub fn include_robot(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    let args = syn::parse_macro_input!(input as IncludeArgs);
    expand_include(&args).into()
}

/// Where the robot description comes from.
enum Source {
    /// The text itself.
    Inline(LitStr),
    /// A file relative to `CARGO_MANIFEST_DIR`.
    File(LitStr),
}

/// Parsed arguments of `robot!`.
struct RobotArgs {
    vis: Visibility,
    source: Source,
    name: Option<LitStr>,
    tip: Option<LitStr>,
    /// `root = "BODY"`: the MJCF tree to keep.
    root: Option<LitStr>,
    frames: Vec<LitStr>,
    /// `contact = "FRAME"` or `"FRAME:6d"` (repeatable).
    contacts: Vec<LitStr>,
    /// `lock = "JOINT"` or `"JOINT=VALUE"` (repeatable), read.
    locks: Vec<JointLock>,
    snap: Option<LitBool>,
    floating_base: Option<LitBool>,
    /// `ignore_equality = true`: an MJCF file's closed loops left out.
    ignore_equality: Option<LitBool>,
    /// `only = ["inverse_dynamics", ...]`: the functions to generate.
    only: Option<Vec<LitStr>>,
    /// `batch = N`: also each function over N states.
    batch: Option<LitInt>,
}

const ROBOT_USAGE: &str =
    "expected a robot description: robot!(r#\"...spec...\"#) or robot!(file = \"PATH\"), \
     optionally followed by name = \"IDENT\", tip = \"LINK\", root = \"BODY\", frame = \"LINK\", \
     contact = \"FRAME[:6d]\", lock = \"JOINT[=VALUE]\", snap = false, floating_base = true, \
     ignore_equality = true, only = [\"FUNCTION\", ...] \
     and batch = N";

impl Parse for RobotArgs {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let vis: Visibility = input.parse()?;
        let mut source = None;
        let mut name = None;
        let mut tip = None;
        let mut root = None;
        let mut frames = Vec::new();
        let mut contacts = Vec::new();
        let mut locks = Vec::new();
        let mut snap: Option<LitBool> = None;
        let mut floating_base: Option<LitBool> = None;
        let mut ignore_equality: Option<LitBool> = None;
        let mut only: Option<Vec<LitStr>> = None;
        let mut batch: Option<LitInt> = None;
        if input.peek(LitStr) {
            source = Some(Source::Inline(input.parse()?));
        } else if !input.peek(Ident) {
            return Err(input.error(ROBOT_USAGE));
        }
        let mut first = source.is_none();
        while !input.is_empty() {
            if !first {
                input.parse::<Token![,]>()?;
                if input.is_empty() {
                    break;
                }
            }
            first = false;
            let key: Ident = input.parse()?;
            input.parse::<Token![=]>()?;
            if key == "snap" || key == "floating_base" || key == "ignore_equality" {
                let slot = if key == "snap" {
                    &mut snap
                } else if key == "floating_base" {
                    &mut floating_base
                } else {
                    &mut ignore_equality
                };
                if slot.is_some() {
                    return Err(syn::Error::new(key.span(), format!("`{key}` given twice")));
                }
                *slot = Some(input.parse()?);
                continue;
            }
            if key == "batch" {
                if batch.is_some() {
                    return Err(syn::Error::new(key.span(), "`batch` given twice"));
                }
                batch = Some(input.parse()?);
                continue;
            }
            if key == "only" {
                if only.is_some() {
                    return Err(syn::Error::new(key.span(), "`only` given twice"));
                }
                let list;
                syn::bracketed!(list in input);
                let names =
                    list.parse_terminated(|p: ParseStream| p.parse::<LitStr>(), Token![,])?;
                only = Some(names.into_iter().collect());
                continue;
            }
            let value: LitStr = input.parse()?;
            let slot = match key.to_string().as_str() {
                "file" if source.is_some() => {
                    return Err(syn::Error::new(
                        key.span(),
                        "the robot is already given: use either an inline spec or `file = ...`",
                    ))
                }
                "file" => {
                    source = Some(Source::File(value));
                    continue;
                }
                "frame" => {
                    frames.push(value);
                    continue;
                }
                "contact" => {
                    contacts.push(value);
                    continue;
                }
                "lock" => {
                    let lock = value
                        .value()
                        .parse::<JointLock>()
                        .map_err(|message| syn::Error::new(value.span(), message))?;
                    locks.push(lock);
                    continue;
                }
                "name" => &mut name,
                "tip" => &mut tip,
                "root" => &mut root,
                other => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!(
                            "unknown argument `{other}`: expected `file`, `name`, `tip`, `root`, \
                             `frame`, `contact`, `lock`, `snap`, `floating_base`, \
                             `ignore_equality`, `only` or `batch`"
                        ),
                    ))
                }
            };
            if slot.is_some() {
                return Err(syn::Error::new(key.span(), format!("`{key}` given twice")));
            }
            *slot = Some(value);
        }
        let source = source.ok_or_else(|| input.error(ROBOT_USAGE))?;
        Ok(RobotArgs {
            vis,
            source,
            name,
            tip,
            root,
            frames,
            contacts,
            locks,
            snap,
            floating_base,
            ignore_equality,
            only,
            batch,
        })
    }
}

/// Parsed arguments of `include_robot!`.
struct IncludeArgs {
    vis: Visibility,
    name: LitStr,
}

impl Parse for IncludeArgs {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let vis: Visibility = input.parse()?;
        let name: LitStr = input.parse()?;
        if input.peek(Token![,]) {
            input.parse::<Token![,]>()?;
        }
        if !input.is_empty() {
            return Err(input.error("expected only the module name: include_robot!(\"ur5\")"));
        }
        Ok(IncludeArgs { vis, name })
    }
}

/// The module's identifier, or `None` if `name` cannot be one (e.g. a keyword).
fn ident_of(name: &str) -> Option<Ident> {
    syn::parse_str::<Ident>(name).ok()
}

/// A failed expansion: the error, plus a stub of the module when its name is known.
struct Failure {
    span: Span,
    message: String,
    stub: Option<(Ident, usize)>,
}

impl Failure {
    fn into_tokens(self, vis: &Visibility) -> TokenStream {
        let error = syn::Error::new(self.span, self.message).to_compile_error();
        let stub = self.stub.map(|(name, dof)| stub_module(vis, &name, dof));
        quote! { #error #stub }
    }
}

fn expand_robot(args: &RobotArgs) -> TokenStream {
    match generate_robot(args) {
        Ok(tokens) => tokens,
        Err(failure) => failure.into_tokens(&args.vis),
    }
}

fn generate_robot(args: &RobotArgs) -> Result<TokenStream, Failure> {
    let explicit = args.name.as_ref().map(LitStr::value);
    let fail = |span: Span, message: String, text: Option<&str>| {
        let guessed = explicit
            .clone()
            .or_else(|| text.and_then(guess_name))
            .and_then(|name| ident_of(&name));
        Failure {
            span,
            message,
            stub: guessed.map(|name| (name, text.map_or(0, guess_dof))),
        }
    };
    // `label` names the input in messages and, by its extension, tells its kind.
    let (text, label, span, path) = match &args.source {
        Source::Inline(lit) => (lit.value(), "robot!".to_owned(), lit.span(), None),
        Source::File(lit) => {
            let relative = lit.value();
            let path = manifest_dir().join(&relative);
            let bytes = std::fs::read(&path)
                .map_err(|e| fail(lit.span(), format!("{relative}: cannot read: {e}"), None))?;
            let text = decode_input(bytes, &relative)
                .map_err(|e| fail(lit.span(), e.to_string(), None))?;
            (text, relative, lit.span(), Some(path))
        }
    };
    let options = ImportOptions {
        tip: args.tip.as_ref().map(LitStr::value),
        frames: args.frames.iter().map(LitStr::value).collect(),
        snap: args.snap.as_ref().is_none_or(LitBool::value),
        floating_base: args.floating_base.as_ref().is_some_and(LitBool::value),
        contacts: args.contacts.iter().map(LitStr::value).collect(),
        root: args.root.as_ref().map(LitStr::value),
        locks: args.locks.clone(),
        ignore_equality: args.ignore_equality.as_ref().is_some_and(LitBool::value),
    };
    // An MJCF file's includes, named relative to the crate like the file itself; each one read
    // is tracked like the file.
    let included_files = std::cell::RefCell::new(Vec::new());
    let read = |included: &str| -> Result<String, String> {
        if path.is_none() {
            return Err("an inline MJCF text cannot include files; use file = \"..\"".to_owned());
        }
        let file = manifest_dir().join(included);
        let bytes = std::fs::read(&file).map_err(|e| e.to_string())?;
        included_files
            .borrow_mut()
            .push(file.to_string_lossy().into_owned());
        decode_input(bytes, included).map_err(|e| e.to_string())
    };
    let robot = parse_input_reading(&text, &label, &options, &read)
        .map_err(|e| fail(span, e.to_string(), Some(&text)))?
        .robot;
    let name_span = args.name.as_ref().map_or(span, LitStr::span);
    let name = module_name(&robot, explicit.as_deref())
        .map_err(|e| fail(name_span, e.to_string(), Some(&text)))?;
    let ident = ident_of(&name).ok_or_else(|| {
        fail(
            name_span,
            format!("`{name}` cannot name a module: give name = \"IDENT\""),
            None,
        )
    })?;
    let batch = match &args.batch {
        Some(lit) => Some(
            lit.base10_parse::<usize>()
                .map_err(|e| fail(lit.span(), format!("batch: {e}"), Some(&text)))?,
        ),
        None => None,
    };
    if let (Some(lit), Some(states)) = (&args.batch, batch) {
        check_batch(states).map_err(|e| fail(lit.span(), e.to_string(), Some(&text)))?;
    }
    let options = Options {
        only: args
            .only
            .as_ref()
            .map(|names| names.iter().map(LitStr::value).collect()),
        batch,
    };
    let code = rust_code_with(&robot, &name, &options)
        .map_err(|e| {
            // A bad function name is reported on its own literal.
            let at = match (&e, &args.only) {
                (Error::UnknownFunction { name, .. }, Some(names)) => names
                    .iter()
                    .find(|lit| lit.value().trim() == name)
                    .map_or(span, LitStr::span),
                _ => span,
            };
            fail(at, e.to_string(), Some(&text))
        })?
        .parse::<TokenStream>()
        .map_err(|e| fail(span, format!("generated code does not parse: {e}"), None))?;
    // Reading the file through `include_bytes!` puts it in the crate's dependency info, so
    // cargo rebuilds (and re-runs this macro) when it changes.
    let track = path.map(|path| {
        let path = path.to_string_lossy().into_owned();
        quote! { const _: &[u8] = include_bytes!(#path); }
    });
    let included = included_files.into_inner();
    let track_included = included
        .iter()
        .map(|file| quote! { const _: &[u8] = include_bytes!(#file); });
    let vis = &args.vis;
    let doc = module_doc(&name, "while compiling by `quasidyn::robot!`");
    // Every generated token shares the call-site span, which misleads clippy's layout lints
    // (they compare the source text between tokens); the code itself is formatted correctly.
    Ok(quote! {
        #[doc = #doc]
        #[allow(
            dead_code,
            clippy::possible_missing_comma,
            clippy::suspicious_unary_op_formatting,
            clippy::suspicious_assignment_formatting,
            clippy::suspicious_else_formatting
        )]
        #vis mod #ident {
            #code
            #track
            #(#track_included)*
        }
    })
}

fn expand_include(args: &IncludeArgs) -> TokenStream {
    let name = args.name.value();
    let span = args.name.span();
    let Some(ident) = ident_of(&name) else {
        let message = format!("`{name}` cannot name a module: use the name given to Builder");
        return syn::Error::new(span, message).to_compile_error();
    };
    let stub = |message: String| Failure {
        span,
        message,
        stub: Some((ident.clone(), 0)),
    };
    // Checked here rather than left to `include!` so the message says what to do.
    let failure = match std::env::var_os("OUT_DIR").map(PathBuf::from) {
        None => Some(stub(
            "OUT_DIR is not set: include_robot! needs a build script that calls \
             quasidyn_codegen::Builder (or use robot!)"
                .to_owned(),
        )),
        Some(dir) if !dir.join(format!("{name}.rs")).is_file() => Some(stub(format!(
            "the build script generated no `{name}.rs`: call \
             quasidyn_codegen::Builder::new().spec(PATH).name(\"{name}\").generate() in build.rs"
        ))),
        Some(_) => None,
    };
    if let Some(failure) = failure {
        return failure.into_tokens(&args.vis);
    }
    let file = format!("/{name}.rs");
    let vis = &args.vis;
    let doc = module_doc(&name, "by a build script with `quasidyn_codegen::Builder`");
    quote! {
        #[doc = #doc]
        #[allow(dead_code)]
        #vis mod #ident {
            include!(concat!(env!("OUT_DIR"), #file));
        }
    }
}

/// The documentation of a robot's module (generated code cannot document the module it is
/// included in), for crates that warn of undocumented public items.
fn module_doc(name: &str, how: &str) -> String {
    format!(
        " Kinematics and dynamics of the robot `{name}`, generated {how}: its sizes and \
         parameters as constants, one function per generated function (each documented with \
         its arguments' layouts and units) and the robot's `quasidyn::Dynamics` implementation \
         when it has one."
    )
}

/// The directory relative `file = ...` paths start from.
fn manifest_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(".").to_path_buf())
}

/// The robot's module name read from input that was rejected: the top-level `name` of a
/// spec or DH table, or the `name` attribute of a URDF `<robot>`.
fn guess_name(text: &str) -> Option<String> {
    if let Ok(table) = text.parse::<toml::Table>() {
        return table
            .get("name")
            .and_then(toml::Value::as_str)
            .map(snake_ident);
    }
    let robot = &text[text.find("<robot")?..];
    let value = &robot[robot.find("name")?..];
    let value = value[value.find(['"', '\''])? + 1..]
        .split(['"', '\''])
        .next()?;
    Some(snake_ident(value))
}

/// The number of bodies (spec) or links (DH table) of rejected input, 0 if unknown.
fn guess_dof(text: &str) -> usize {
    let Ok(table) = text.parse::<toml::Table>() else {
        return 0;
    };
    ["body", "link"]
        .iter()
        .find_map(|key| table.get(*key).and_then(toml::Value::as_array))
        .map_or(0, Vec::len)
}

/// A module with the generated API's names, generic in the number of joints, so that code
/// using a rejected robot type-checks and the macro's error is the only one (its items come
/// from the generator's function catalogue).
fn stub_module(vis: &Visibility, name: &Ident, dof: usize) -> TokenStream {
    let items = stub_module_items(&camel_ident(&name.to_string()), dof);
    quote! {
        #[allow(dead_code, unused_variables, clippy::all)]
        #vis mod #name {
            #items
        }
    }
}

//! Emitters: a [`Module`] to Rust ([`rust::emit_rust`]) or C99 ([`c::emit_c`]).
//!
//! Both share the planning done here: the module is lowered (multi-joint `sin`/`cos` expanded,
//! dead nodes dropped), then each function is one walk over its live nodes in id order. A node
//! read more than once, a `sin`/`cos` leaf, and a node whose inlined expression would nest too
//! deep get a local; everything else is inlined into its single user.

pub mod c;
mod order;
pub mod parts;
mod plan;
mod render;
pub mod rust;
pub mod stub;
mod trig;
mod zeros;

#[cfg(test)]
mod tests;

pub(crate) use crate::functions::{Counts, Input, OutSpec};
use crate::ir::{FunctionKind, Graph, Module, Var};
use crate::names::{camel_ident, snake_ident};

pub use c::{emit_c, emit_c_reporting, unit_marker, CFiles, COptions};
pub use parts::PartSizes;
pub use rust::{emit_rust, emit_rust_reporting, RustOptions};

pub(crate) use order::*;
pub(crate) use plan::*;
pub(crate) use render::*;
pub(crate) use trig::*;
pub(crate) use zeros::*;

/// Why a module cannot be emitted.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum EmitError {
    /// A function's outputs do not have the shapes its contract fixes.
    #[error("{kind:?}: expected outputs {expected}, found {found}")]
    OutputShape {
        /// Function.
        kind: FunctionKind,
        /// Expected shapes, e.g. `[3x3, 3x1]`.
        expected: String,
        /// Shapes found.
        found: String,
    },
    /// A function reads an input its contract does not give it.
    #[error("{kind:?} reads {var:?}, which is not one of its inputs")]
    UnexpectedInput {
        /// Function.
        kind: FunctionKind,
        /// The offending leaf.
        var: Var,
    },
    /// A joint index beyond the robot's joints.
    #[error("{kind:?} reads {var:?}, but the robot has {dof} joints")]
    JointOutOfRange {
        /// Function.
        kind: FunctionKind,
        /// The offending leaf.
        var: Var,
        /// Number of joints.
        dof: usize,
    },
    /// An elastic input index beyond the robot's `beta` or `w`.
    #[error("{kind:?} reads {var:?}, but the robot has {nbeta} elastic joints and {nw} modal coordinates")]
    ElasticOutOfRange {
        /// Function.
        kind: FunctionKind,
        /// The offending leaf.
        var: Var,
        /// Entries of `beta`.
        nbeta: usize,
        /// Entries of `w`.
        nw: usize,
    },
    /// A constant is infinite or NaN.
    #[error("{kind:?} contains the non-finite constant {value}")]
    NonFinite {
        /// Function.
        kind: FunctionKind,
        /// The constant.
        value: f64,
    },
    /// A constant array of the module (`base_parameters`, ...) holds an infinite or NaN value.
    #[error("the constant array `{name}` holds the non-finite value {value}")]
    NonFiniteConstant {
        /// The array.
        name: String,
        /// The value.
        value: f64,
    },
    /// A value of single-precision output (`--float`) is beyond the range of `float`.
    #[error(
        "{what}: {value:e} is beyond single precision (largest float {:e}); generate in double \
         precision or scale the spec's values",
        f32::MAX
    )]
    BeyondFloat {
        /// The function, constant array or parameter holding the value.
        what: String,
        /// The value.
        value: f64,
    },
    /// Two functions of the same kind.
    #[error("{0:?} is generated twice")]
    Duplicate(FunctionKind),
    /// A batch size out of range.
    #[error("batch size {0}: the batched functions take 1 to {MAX_BATCH} states")]
    Batch(usize),
    /// A frame function whose frame the module does not name.
    #[error("{0:?} refers to a frame the module does not name")]
    UnknownFrame(FunctionKind),
}

/// Field names of the generated parameter struct (Rust `Params`, C `NAME_params`), in the
/// order of [`Graph::params`]: snake_case, unique, not clashing with keywords.
pub fn param_fields(graph: &Graph) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for p in graph.params() {
        let mut base = snake_ident(&p.name);
        if base.starts_with("robot_") && !p.name.to_ascii_lowercase().starts_with("robot_") {
            base = format!("p_{}", &base["robot_".len()..]);
        }
        if RESERVED.contains(&base.as_str()) {
            base.push('_');
        }
        let mut name = base.clone();
        let mut k = 2;
        while out.contains(&name) {
            name = format!("{base}_{k}");
            k += 1;
        }
        out.push(name);
    }
    out
}

/// Rust and C keywords a parameter name must not become.
const RESERVED: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
    "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "auto", "case", "char",
    "default", "double", "float", "goto", "int", "long", "register", "short", "signed", "sizeof",
    "switch", "typedef", "union", "unsigned", "void", "volatile", "inline", "restrict", "union",
    "gen",
];

/// The largest batch of the `_batch` functions: their `sin`/`cos` arrays live on the stack
/// (`8 * N` bytes per joint angle's sine or cosine in double precision).
pub const MAX_BATCH: usize = 1024;

/// Refuses a batch size outside `1..=MAX_BATCH`.
pub fn check_batch(batch: usize) -> Result<(), EmitError> {
    if (1..=MAX_BATCH).contains(&batch) {
        Ok(())
    } else {
        Err(EmitError::Batch(batch))
    }
}

/// Human-readable layout of an output, e.g. `M[i*2 + j]`.
pub(crate) fn layout(o: &OutSpec, dof: usize, counts: Counts) -> String {
    let rows = o.rows.of(dof, counts);
    match o.cols {
        None => format!("{rows} values"),
        Some(c) => {
            let c = c.of(dof, counts);
            format!(
                "{rows}x{c}, row-major: {}[i*{c} + j] is row i, column j",
                o.name
            )
        }
    }
}

/// The header line shared by both emitters.
pub(crate) fn generated_by(module: &Module) -> String {
    format!(
        "@generated by quasidyn-codegen {} from spec {}. Do not edit.",
        env!("CARGO_PKG_VERSION"),
        module.spec_hash
    )
}

/// The functions of a module in contract order, for callers that want to check what exists.
pub fn kinds(module: &Module) -> Vec<FunctionKind> {
    let mut k: Vec<FunctionKind> = module.functions.iter().map(|f| f.kind).collect();
    k.sort();
    k
}

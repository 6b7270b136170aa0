//! The importers' error type: every error names the file, line and column, the element or field,
//! and what is wrong, as `FILE:LINE:COL: WHAT: MESSAGE`.

use std::fmt;

/// A position in an input file (1-based line and column).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// File name as given to the importer.
    pub file: String,
    /// Line, 1-based.
    pub line: u32,
    /// Column in characters, 1-based.
    pub col: u32,
}

impl Location {
    /// The location of byte offset `offset` in `text`.
    pub fn at_offset(file: &str, text: &str, offset: usize) -> Location {
        // Clamp to a char boundary so a bad offset can never panic.
        let mut end = offset.min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let before = &text[..end];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let col = before[line_start..].chars().count() + 1;
        Location {
            file: file.to_owned(),
            line: u32::try_from(line).unwrap_or(u32::MAX),
            col: u32::try_from(col).unwrap_or(u32::MAX),
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// Why a URDF file or DH table could not be imported.
///
/// Every variant carries the location, `what` (the element, attribute or field concerned) and a
/// human-readable message; `Display` prints `FILE:LINE:COL: WHAT: MESSAGE`.
#[derive(Clone, Debug, PartialEq, thiserror::Error, miette::Diagnostic)]
#[non_exhaustive]
pub enum ImportError {
    /// The text is not well-formed XML or TOML.
    #[error("{at}: {what}: {message}")]
    #[diagnostic(code(quasidyn::import::syntax))]
    Syntax {
        /// Where.
        at: Location,
        /// The element or field concerned.
        what: String,
        /// What is wrong.
        message: String,
    },
    /// A missing, malformed or out-of-range value.
    #[error("{at}: {what}: {message}")]
    #[diagnostic(code(quasidyn::import::invalid))]
    Invalid {
        /// Where.
        at: Location,
        /// The element or field concerned.
        what: String,
        /// What is wrong.
        message: String,
    },
    /// A NaN or infinite number.
    #[error("{at}: {what}: {message}")]
    #[diagnostic(code(quasidyn::import::not_finite))]
    NotFinite {
        /// Where.
        at: Location,
        /// The element or field concerned.
        what: String,
        /// What is wrong.
        message: String,
    },
    /// A joint the method cannot express (floating, planar, unknown type; a mimic joint whose
    /// master is no coordinate).
    #[error("{at}: {what}: {message}")]
    #[diagnostic(
        code(quasidyn::import::unsupported_joint),
        help(
            "only revolute, continuous, prismatic and fixed joints are supported (no floating \
             or planar joints), and a mimic joint must follow a joint that is a coordinate"
        )
    )]
    UnsupportedJoint {
        /// Where.
        at: Location,
        /// The element or field concerned.
        what: String,
        /// What is wrong.
        message: String,
    },
    /// A feature of the input this version does not model yet (MJCF armature, equality
    /// constraints, composite bodies), where it is written.
    #[error("{at}: {what}: {message}")]
    #[diagnostic(
        code(quasidyn::import::unsupported),
        help("docs/mjcf.md lists what is read, what is ignored and what is not supported yet")
    )]
    Unsupported {
        /// Where.
        at: Location,
        /// The element or field concerned.
        what: String,
        /// What is wrong.
        message: String,
    },
    /// The links do not form a tree: a link with two parents, a closed loop, no or several roots.
    #[error("{at}: {what}: {message}")]
    #[diagnostic(code(quasidyn::import::topology))]
    Topology {
        /// Where.
        at: Location,
        /// The element or field concerned.
        what: String,
        /// What is wrong.
        message: String,
    },
    /// The requested tip link, a link asked for as a frame or a joint asked to be locked does
    /// not exist (or a fixed joint is asked to be locked).
    #[error("{at}: {what}: {message}")]
    #[diagnostic(code(quasidyn::import::unknown_tip))]
    UnknownTip {
        /// Where.
        at: Location,
        /// The element or field concerned.
        what: String,
        /// What is wrong.
        message: String,
    },
}

impl ImportError {
    /// Where the error is.
    pub fn location(&self) -> &Location {
        match self {
            ImportError::Syntax { at, .. }
            | ImportError::Invalid { at, .. }
            | ImportError::NotFinite { at, .. }
            | ImportError::UnsupportedJoint { at, .. }
            | ImportError::Unsupported { at, .. }
            | ImportError::Topology { at, .. }
            | ImportError::UnknownTip { at, .. } => at,
        }
    }

    /// The element, attribute or field concerned.
    pub fn what(&self) -> &str {
        match self {
            ImportError::Syntax { what, .. }
            | ImportError::Invalid { what, .. }
            | ImportError::NotFinite { what, .. }
            | ImportError::UnsupportedJoint { what, .. }
            | ImportError::Unsupported { what, .. }
            | ImportError::Topology { what, .. }
            | ImportError::UnknownTip { what, .. } => what,
        }
    }

    /// What is wrong.
    pub fn message(&self) -> &str {
        match self {
            ImportError::Syntax { message, .. }
            | ImportError::Invalid { message, .. }
            | ImportError::NotFinite { message, .. }
            | ImportError::UnsupportedJoint { message, .. }
            | ImportError::Unsupported { message, .. }
            | ImportError::Topology { message, .. }
            | ImportError::UnknownTip { message, .. } => message,
        }
    }
}

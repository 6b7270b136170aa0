//! Errors of the spec reader: every rejection is located (file, line, column, field path) so
//! the CLI can point at it, and [`SpecError`] renders as a labelled miette report.

use std::ops::Range;
use std::path::PathBuf;

use miette::{Diagnostic, NamedSource, SourceSpan};

/// A spec that could not be read or was rejected.
///
/// `Display` is one line: `FILE:LINE:COL: FIELD: MESSAGE` for a rejected spec, so editors and
/// CI logs can jump to it; as a [`miette::Diagnostic`] it also carries the source and a labelled
/// span for the graphical report.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SpecError {
    /// The spec text is malformed or violates the format (docs/spec.md). Boxed because it holds
    /// the whole source text and `Result<_, SpecError>` is returned everywhere.
    #[error(transparent)]
    Invalid(Box<InvalidSpec>),
    /// The spec file could not be read.
    #[error("{}: cannot read spec: {source}", .path.display())]
    Io {
        /// The file that could not be read.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

/// A located rejection of a spec.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("{file}:{line}:{column}: {field}: {message}")]
#[diagnostic(code(quasidyn::spec))]
pub struct InvalidSpec {
    /// File name as given by the caller.
    pub file: String,
    /// 1-based line of the offending text.
    pub line: usize,
    /// 1-based column (in characters) of the offending text.
    pub column: usize,
    /// Field path, e.g. `body[2].inertia.ixy` (array indices are 1-based).
    pub field: String,
    /// What was wrong and what was expected.
    pub message: String,
    /// Byte span of the offending text.
    #[label("{message}")]
    pub span: SourceSpan,
    /// The whole spec text, for rendering.
    #[source_code]
    pub src: NamedSource<String>,
}

impl Diagnostic for SpecError {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        match self {
            SpecError::Invalid(e) => e.code(),
            SpecError::Io { .. } => Some(Box::new("quasidyn::io")),
        }
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        match self {
            SpecError::Invalid(e) => e.source_code(),
            SpecError::Io { .. } => None,
        }
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        match self {
            SpecError::Invalid(e) => e.labels(),
            SpecError::Io { .. } => None,
        }
    }
}

impl SpecError {
    /// Builds a located error from a byte span of `text`. The span is clamped to the text so
    /// that a wrong span can never make rendering fail.
    pub(crate) fn at(
        text: &str,
        file: &str,
        span: Range<usize>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        let start = floor_char_boundary(text, span.start);
        let end = floor_char_boundary(text, span.end.max(start));
        let (line, column) = line_col(text, start);
        SpecError::Invalid(Box::new(InvalidSpec {
            file: file.to_owned(),
            line,
            column,
            field: field.into(),
            message: message.into(),
            span: (start..end).into(),
            src: NamedSource::new(file, text.to_owned()),
        }))
    }

    /// 1-based line of a located error.
    pub fn line(&self) -> Option<usize> {
        match self {
            SpecError::Invalid(e) => Some(e.line),
            SpecError::Io { .. } => None,
        }
    }

    /// 1-based column (in characters) of a located error.
    pub fn column(&self) -> Option<usize> {
        match self {
            SpecError::Invalid(e) => Some(e.column),
            SpecError::Io { .. } => None,
        }
    }

    /// Field path of a located error, e.g. `body[2].mass`.
    pub fn field(&self) -> Option<&str> {
        match self {
            SpecError::Invalid(e) => Some(&e.field),
            SpecError::Io { .. } => None,
        }
    }

    /// The message without location.
    pub fn message(&self) -> String {
        match self {
            SpecError::Invalid(e) => e.message.clone(),
            SpecError::Io { source, .. } => source.to_string(),
        }
    }

    /// Byte range of the offending text, for a located error.
    pub fn byte_span(&self) -> Option<Range<usize>> {
        match self {
            SpecError::Invalid(e) => Some(e.span.offset()..e.span.offset() + e.span.len()),
            SpecError::Io { .. } => None,
        }
    }
}

/// Largest char boundary `<= i` (clamped to the text).
fn floor_char_boundary(text: &str, i: usize) -> usize {
    let mut i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// 1-based line and column (in characters) of byte offset `at`.
fn line_col(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_from_one() {
        assert_eq!(line_col("ab\ncd", 0), (1, 1));
        assert_eq!(line_col("ab\ncd", 3), (2, 1));
        assert_eq!(line_col("ab\ncd", 4), (2, 2));
        assert_eq!(line_col("é\nx", 3), (2, 1));
    }

    #[test]
    fn spans_are_clamped() {
        let e = SpecError::at("aé", "f", 2..99, "x", "m");
        assert_eq!(e.byte_span(), Some(1..3));
        assert_eq!(e.to_string(), "f:1:2: x: m");
    }
}

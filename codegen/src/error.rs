//! Errors of the spec reader: every rejection is located (file, line, column, field path) so
//! the CLI can point at it, and [`SpecError`] renders as a labelled miette report.

use std::ops::Range;
use std::path::PathBuf;

use miette::{
    Diagnostic, LabeledSpan, MietteError, MietteSpanContents, NamedSource, SourceCode, SourceSpan,
    SpanContents,
};

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
#[derive(Debug, thiserror::Error)]
#[error("{file}:{line}:{column}: {field}: {message}")]
pub struct InvalidSpec {
    /// File name as given by the caller.
    pub file: String,
    /// 1-based line of the offending text.
    pub line: usize,
    /// 1-based column (in characters) of the offending text.
    pub column: usize,
    /// Field path, e.g. `body[2].inertia.ixy` (array indices are 1-based); a path longer than
    /// [`SNIPPET_CHARS`] is cut in the middle.
    pub field: String,
    /// What was wrong and what was expected.
    pub message: String,
    /// Byte span of the offending text.
    pub span: SourceSpan,
    /// The whole spec text, for rendering.
    pub src: SourceView,
}

impl Diagnostic for InvalidSpec {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        Some(Box::new("quasidyn::spec"))
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.src)
    }

    /// The span, cut to its first line and [`SNIPPET_CHARS`] / 2 bytes so a long one cannot
    /// drag a whole source line into the report.
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let text = self.src.named.inner();
        let start = self.span.offset();
        let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        let end = floor_char_boundary(
            text,
            (start + self.span.len())
                .min(line_end)
                .min(start + SNIPPET_CHARS / 2),
        );
        let label = LabeledSpan::new(Some(self.message.clone()), start, end.max(start) - start);
        Some(Box::new(std::iter::once(label)))
    }
}

/// Longest source text (in bytes) a report quotes around an error, and longest field path.
pub const SNIPPET_CHARS: usize = 120;

/// A spec's text for rendering reports: lines up to [`SNIPPET_CHARS`] bytes are shown whole,
/// with their neighbours; of a longer line only a window of that size around the error is shown
/// (a TOML table nested thousands deep is one line of hundreds of kilobytes).
#[derive(Debug)]
pub struct SourceView {
    named: NamedSource<String>,
}

impl SourceView {
    /// The text `text` of file `name`.
    pub fn new(name: &str, text: String) -> SourceView {
        SourceView {
            named: NamedSource::new(name, text),
        }
    }

    /// The whole text.
    pub fn text(&self) -> &str {
        self.named.inner()
    }
}

impl SourceCode for SourceView {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let text = self.named.inner();
        let at = floor_char_boundary(text, span.offset());
        let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
        // Only the header's line and column are read with no context; the whole text gives them.
        let no_context = context_lines_before == 0 && context_lines_after == 0;
        if line_end - line_start <= SNIPPET_CHARS || no_context {
            return self
                .named
                .read_span(span, context_lines_before, context_lines_after);
        }
        let half = SNIPPET_CHARS / 2;
        let from = floor_char_boundary(text, at.saturating_sub(half).max(line_start));
        let to = floor_char_boundary(text, (at + half).min(line_end));
        let line = text[..line_start].matches('\n').count();
        let column = text[line_start..from].chars().count();
        Ok(Box::new(MietteSpanContents::new_named(
            self.named.name().to_owned(),
            &text.as_bytes()[from..to],
            (from..to).into(),
            line,
            column,
            1,
        )))
    }
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
            field: cut_middle(field.into()),
            message: message.into(),
            span: (start..end).into(),
            src: SourceView::new(file, text.to_owned()),
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

/// `s` if it has at most [`SNIPPET_CHARS`] characters, else its first and last
/// `SNIPPET_CHARS / 2` characters around ` ... `.
fn cut_middle(s: String) -> String {
    let n = s.chars().count();
    if n <= SNIPPET_CHARS {
        return s;
    }
    let half = SNIPPET_CHARS / 2;
    let head: String = s.chars().take(half).collect();
    let tail: String = s.chars().skip(n - half).collect();
    format!("{head} ... {tail}")
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
    fn long_lines_are_cut() {
        let line = format!("a = {}1{}", "[".repeat(5000), "]".repeat(5000));
        let text = format!("version = 1\n{line}\n");
        let e = SpecError::at(&text, "f", 12 + 90..12 + 91, "a".repeat(500), "too deep");
        let SpecError::Invalid(e) = e else { panic!() };
        assert!(e.field.len() < 130, "{}", e.field);
        let contents = e.src.read_span(&e.span, 1, 1).unwrap();
        assert!(contents.data().len() <= SNIPPET_CHARS);
        assert_eq!(contents.line(), 1);
        let label = e.labels().unwrap().next().unwrap();
        assert!(label.len() <= SNIPPET_CHARS);
        // Short lines keep their context.
        let e = SpecError::at("a = 1\nb = 2\nc = 3\n", "f", 6..7, "b", "m");
        let SpecError::Invalid(e) = e else { panic!() };
        let contents = e.src.read_span(&e.span, 1, 1).unwrap();
        assert_eq!(contents.data(), b"a = 1\nb = 2\nc = 3\n");
    }

    #[test]
    fn spans_are_clamped() {
        let e = SpecError::at("aé", "f", 2..99, "x", "m");
        assert_eq!(e.byte_span(), Some(1..3));
        assert_eq!(e.to_string(), "f:1:2: x: m");
    }
}

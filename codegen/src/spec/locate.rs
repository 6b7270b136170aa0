//! Errors from toml (syntax, wrong type, unknown or missing key) located: the line from the
//! error's span, and the field's path from the key or value under it.

use std::ops::Range;

use toml::Spanned;

use crate::error::SpecError;

/// Converts a toml error (syntax, type, unknown or missing key) to a located [`SpecError`],
/// naming the field by finding the key or value under the error's span.
pub(super) fn toml_error(text: &str, file: &str, e: &toml::de::Error) -> SpecError {
    let span = e.span().unwrap_or(0..0);
    let mut message = e.message().trim().replace('\n', "; ");
    let mut field = if let Some(missing) = backticked(&message, "missing field `") {
        // A key missing from the document itself is reported with an empty span at 0.
        let table = if span.is_empty() {
            String::new()
        } else {
            field_at(text, span.start)
        };
        message = format!("missing required key `{missing}`");
        join(&table, &missing)
    } else {
        field_at(text, span.start)
    };
    if let Some(unknown) = backticked(&message, "unknown field `") {
        if !field.ends_with(&unknown) {
            field = join(&field, &unknown);
        }
        message = message.replacen("unknown field", "unknown key", 1);
    }
    let message = message
        .replace("expected f64", "expected a number")
        .replace("expected i64", "expected an integer")
        .replace(
            "expected an array of length 3",
            "expected an array of 3 numbers",
        );
    if field.is_empty() {
        field = "(toml)".to_owned();
    }
    SpecError::at(text, file, span, field, message)
}

fn backticked(message: &str, prefix: &str) -> Option<String> {
    let rest = message.strip_prefix(prefix)?;
    Some(rest[..rest.find('`')?].to_owned())
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// The field path at byte `at`: the smallest key or value whose span contains it, else (for
/// syntax errors inside a value) the last key before it on the same line, else the key written
/// at the start of its line inside the last `[table]` header before it (duplicate keys, keys
/// without a value). The document is re-parsed leniently, so this works even when it is
/// malformed.
fn field_at(text: &str, at: usize) -> String {
    let (tree, _) = toml::de::DeTable::parse_recoverable(text);
    let mut finder = PathFinder {
        text,
        at,
        containing: None,
        preceding: None,
        header: None,
    };
    finder.table(tree.get_ref(), "");
    if let Some((_, path)) = finder.containing.or(finder.preceding) {
        return path;
    }
    let before = text.get(..at).unwrap_or_default();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = text[line_start..].lines().next().unwrap_or("").trim_start();
    let key: String = line
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        .collect();
    let table = finder.header.map(|(_, path)| path).unwrap_or_default();
    if line.starts_with('[') {
        table
    } else {
        join(&table, &key)
    }
}

struct PathFinder<'t> {
    text: &'t str,
    at: usize,
    /// (span length, path) of the smallest node containing `at`.
    containing: Option<(usize, String)>,
    /// (key end, path) of the last key ending before `at` on its line.
    preceding: Option<(usize, String)>,
    /// (header end, path) of the last `[table]` or `[[array]]` header ending before `at`.
    header: Option<(usize, String)>,
}

impl PathFinder<'_> {
    /// Every child is visited because `[[body]]` tables span only their header, not their keys.
    fn table(&mut self, table: &toml::de::DeTable<'_>, path: &str) {
        for (key, value) in table {
            let p = join(path, key.get_ref());
            let span = key.span();
            let same_line = self
                .text
                .get(span.end..self.at)
                .is_some_and(|between| !between.contains('\n'));
            if same_line
                && self
                    .preceding
                    .as_ref()
                    .is_none_or(|(end, _)| span.end >= *end)
            {
                self.preceding = Some((span.end, p.clone()));
            }
            self.consider(span, &p);
            self.value(value, &p);
        }
    }

    fn value(&mut self, value: &Spanned<toml::de::DeValue<'_>>, path: &str) {
        self.consider(value.span(), path);
        match value.get_ref() {
            toml::de::DeValue::Table(t) => {
                let span = value.span();
                // A header table's span is its header line, which holds none of its keys; an
                // inline table's span holds them all.
                let is_header = !t.keys().any(|k| span.contains(&k.span().start));
                if is_header
                    && span.end <= self.at
                    && self.header.as_ref().is_none_or(|(end, _)| span.end >= *end)
                {
                    self.header = Some((span.end, path.to_owned()));
                }
                self.table(t, path)
            }
            toml::de::DeValue::Array(a) => {
                for (i, v) in a.iter().enumerate() {
                    self.value(v, &format!("{path}[{}]", i + 1));
                }
            }
            _ => {}
        }
    }

    fn consider(&mut self, span: Range<usize>, path: &str) {
        let at = self.at;
        let contains = (span.start <= at && at < span.end) || (span.start == at && span.end == at);
        // `<=` so that, of equal spans, the deeper (visited later) path wins.
        if contains
            && self
                .containing
                .as_ref()
                .is_none_or(|(l, _)| span.len() <= *l)
        {
            self.containing = Some((span.len(), path.to_owned()));
        }
    }
}

//! Random edits of a valid input file, shared by the fuzz tests of the spec and URDF readers:
//! deletions, insertions of the format's tokens, replaced characters, number literals replaced
//! by troublesome values, deleted lines.

use proptest::prelude::*;

/// One edit; indices are taken modulo the text's length (or the count of numbers or lines).
#[derive(Clone, Debug)]
pub enum Edit {
    Delete(usize, usize),
    Insert(usize, usize),
    Replace(usize, char),
    /// Replace the k-th number literal by the n-th value.
    Number(usize, usize),
    /// Delete the k-th line.
    DeleteLine(usize),
}

/// Values that are syntactically fine but often physically wrong, for number literals.
const TROUBLESOME: &[&str] = &[
    "0",
    "-0.0",
    "1",
    "-1",
    "2.5",
    "1e-300",
    "1e300",
    "1.7976931348623157e308",
    "nan",
    "inf",
    "-inf",
];

/// What a format gives the edits: tokens to insert, its own values for numbers (besides
/// [`TROUBLESOME`]), and where its number literals are.
pub struct Format {
    pub tokens: &'static [&'static str],
    pub numbers: &'static [&'static str],
    pub number_spans: fn(&str) -> Vec<(usize, usize)>,
}

impl Format {
    /// A random edit.
    pub fn edit(&self) -> impl Strategy<Value = Edit> {
        prop_oneof![
            1 => (any::<usize>(), 0usize..20).prop_map(|(at, n)| Edit::Delete(at, n)),
            1 => (any::<usize>(), 0..self.tokens.len()).prop_map(|(at, t)| Edit::Insert(at, t)),
            1 => (any::<usize>(), any::<char>()).prop_map(|(at, c)| Edit::Replace(at, c)),
            3 => self.number_edit(),
            2 => any::<usize>().prop_map(Edit::DeleteLine),
        ]
    }

    /// An edit replacing a number literal.
    pub fn number_edit(&self) -> impl Strategy<Value = Edit> {
        let values = TROUBLESOME.len() + self.numbers.len();
        (any::<usize>(), 0..values).prop_map(|(k, n)| Edit::Number(k, n))
    }

    /// The `n`-th value for a number literal.
    fn number(&self, n: usize) -> &'static str {
        TROUBLESOME
            .get(n)
            .copied()
            .unwrap_or_else(|| self.numbers[n - TROUBLESOME.len()])
    }

    /// `s` with `edits` applied in turn.
    pub fn apply(&self, mut s: String, edits: &[Edit]) -> String {
        for e in edits {
            match *e {
                Edit::Delete(at, n) => {
                    let a = boundary(&s, at);
                    let b = boundary(&s, (a + n).min(s.len()));
                    s.replace_range(a..b.max(a), "");
                }
                Edit::Insert(at, t) => {
                    let a = boundary(&s, at);
                    s.insert_str(a, self.tokens[t]);
                }
                Edit::Number(k, n) => {
                    let numbers = (self.number_spans)(&s);
                    if !numbers.is_empty() {
                        let (a, b) = numbers[k % numbers.len()];
                        s.replace_range(a..b, self.number(n));
                    }
                }
                Edit::DeleteLine(k) => {
                    let lines: Vec<&str> = s.lines().collect();
                    let k = k % lines.len().max(1);
                    s = lines
                        .iter()
                        .enumerate()
                        .filter(|&(i, _)| i != k)
                        .map(|(_, l)| format!("{l}\n"))
                        .collect();
                }
                Edit::Replace(at, c) => {
                    let a = boundary(&s, at);
                    if let Some(old) = s[a..].chars().next() {
                        s.replace_range(a..a + old.len_utf8(), &c.to_string());
                    }
                }
            }
        }
        s
    }
}

/// The char boundary at or before `at` (taken modulo the length plus one).
fn boundary(s: &str, at: usize) -> usize {
    let mut i = at % (s.len() + 1);
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Byte ranges of the number literals (a digit or `-`, then digits with `.`, `e`, `-`, `+`
/// inside) that start right after one of `after` (spaces skipped).
pub fn number_spans_after(s: &str, after: &[char]) -> Vec<(usize, usize)> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts = (b[i].is_ascii_digit() || b[i] == b'-') && s[..i].trim_end().ends_with(after);
        if starts {
            let mut j = i + 1;
            while j < b.len() && (b[j].is_ascii_digit() || b"._e-+".contains(&b[j])) {
                j += 1;
            }
            out.push((i, j));
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

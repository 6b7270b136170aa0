//! `parse_spec` never panics, whatever the input, and whatever it accepts it can write back.

use proptest::prelude::*;
use quasidyn_codegen::{parse_spec, to_toml};

const VALID: &str = r#"version = 1
name = "fuzz"
gravity = [0.0, -9.81, 0.0]
symbolic = ["mass"]

[[body]]
name = "a"
joint = "revolute"
axis = "z"
next = [0.5, 0.0, 0.0]
mass = 2.0
com = [0.25, 0.0, 0.0]
inertia = { ixx = 0.001, iyy = 0.0427, izz = 0.0427, ixy = 0.0 }

[[body]]
name = "b"
parent = "a"
joint = "prismatic"
axis = [0.0, 0.6, 0.8]
L = 0.4
e = "x"
mass = 1.5
b = 0.3
a = "x"
inertia = { ixx = 0.001, iyy = 0.0805, izz = 0.0805, about = "pole" }

[tool]
rpy = [0.0, 0.0, 1.5707963267948966]
"#;

const TOKENS: &[&str] = &[
    "nan",
    "inf",
    "-inf",
    "-",
    "1e999",
    "-1",
    "0",
    "1e-320",
    "[",
    "]",
    "{",
    "}",
    "=",
    ",",
    "\"",
    "'",
    "\n",
    "#",
    "[[body]]\n",
    "[tool]\n",
    "about = \"pole\"",
    "b = 1\n",
    "a = \"y\"\n",
    "com = [0, 0, 0]\n",
    "L = 1\n",
    "é",
    "\u{0}",
    "\"\"\"",
    ".",
    "x",
    "\"-x\"",
    "[0, 0, 0]",
    "1.7976931348623157e308",
];

/// Values that are syntactically fine but often physically wrong, for number literals.
const NUMBERS: &[&str] = &[
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
    "0.0427",
    "\"x\"",
    "[0, 0, 0]",
    "[1, 0]",
];

#[derive(Clone, Debug)]
enum Edit {
    Delete(usize, usize),
    Insert(usize, usize),
    Replace(usize, char),
    /// Replace the k-th number literal.
    Number(usize, usize),
    /// Delete the k-th line.
    DeleteLine(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        1 => (any::<usize>(), 0usize..20).prop_map(|(at, n)| Edit::Delete(at, n)),
        1 => (any::<usize>(), 0..TOKENS.len()).prop_map(|(at, t)| Edit::Insert(at, t)),
        1 => (any::<usize>(), any::<char>()).prop_map(|(at, c)| Edit::Replace(at, c)),
        3 => (any::<usize>(), 0..NUMBERS.len()).prop_map(|(k, n)| Edit::Number(k, n)),
        2 => any::<usize>().prop_map(Edit::DeleteLine),
    ]
}

fn boundary(s: &str, at: usize) -> usize {
    let mut i = at % (s.len() + 1);
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn apply(mut s: String, edits: &[Edit]) -> String {
    for e in edits {
        match *e {
            Edit::Delete(at, n) => {
                let a = boundary(&s, at);
                let b = boundary(&s, (a + n).min(s.len()));
                s.replace_range(a..b.max(a), "");
            }
            Edit::Insert(at, t) => {
                let a = boundary(&s, at);
                s.insert_str(a, TOKENS[t]);
            }
            Edit::Number(k, n) => {
                let numbers = number_spans(&s);
                if !numbers.is_empty() {
                    let (a, b) = numbers[k % numbers.len()];
                    s.replace_range(a..b, NUMBERS[n]);
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

/// Byte ranges of the number literals (a digit run with `.`, `e`, `-` inside) after `=`, `[`
/// or `,`.
fn number_spans(s: &str) -> Vec<(usize, usize)> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts =
            (b[i].is_ascii_digit() || b[i] == b'-') && s[..i].trim_end().ends_with(['=', '[', ',']);
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

/// Parses and, on success, checks the written spec reads back equal; on failure, checks the
/// error is located inside the text.
fn check(text: &str) -> Result<(), TestCaseError> {
    match parse_spec(text, "fuzz.toml") {
        Ok(robot) => {
            let written = to_toml(&robot);
            let back = parse_spec(&written, "written.toml");
            prop_assert!(back.as_ref().ok() == Some(&robot), "{back:?}\n{written}");
        }
        Err(e) => {
            let shown = e.to_string();
            prop_assert!(shown.starts_with("fuzz.toml:"), "{shown}");
            let line = e.line().unwrap_or(0);
            prop_assert!(
                line >= 1 && line <= text.lines().count().max(1) + 1,
                "{shown}"
            );
            let span = e.byte_span().unwrap_or(0..usize::MAX);
            prop_assert!(span.end <= text.len(), "{shown}");
        }
    }
    Ok(())
}

#[test]
fn valid_base_parses() {
    if let Err(e) = parse_spec(VALID, "fuzz.toml") {
        panic!("{e}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_strings(text in any::<String>()) {
        check(&text)?;
    }

    #[test]
    fn toml_like_strings(text in "[a-z_LI\\[\\]=.\"',{}0-9 \n+-]{0,300}") {
        check(&text)?;
    }

    #[test]
    fn mutated_valid_specs(edits in prop::collection::vec(edit(), 1..4)) {
        check(&apply(VALID.to_owned(), &edits))?;
    }
}

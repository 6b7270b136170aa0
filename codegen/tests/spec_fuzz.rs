//! `parse_spec` never panics, whatever the input, and whatever it accepts it can write back.

use proptest::prelude::*;

mod mutation;
use mutation::{number_spans_after, Format};
use quasidyn_codegen::{build_module, emit_c, emit_rust, parse_spec, to_toml, COptions};

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

/// Values for number literals besides the shared ones: wrong types and shapes, a typical
/// moment of inertia.
const NUMBERS: &[&str] = &["0.0427", "\"x\"", "[0, 0, 0]", "[1, 0]"];

/// The spec's edits: its tokens and values, its numbers after `=`, `[` or `,`.
const SPEC: Format = Format {
    tokens: TOKENS,
    numbers: NUMBERS,
    number_spans: |s| number_spans_after(s, &['=', '[', ',']),
};

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
    fn mutated_valid_specs(edits in prop::collection::vec(SPEC.edit(), 1..4)) {
        check(&SPEC.apply(VALID.to_owned(), &edits))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Whatever spec with troublesome numbers is accepted generates every function in Rust and
    /// C (double and single precision), or is refused with an error: never a panic (a body of
    /// 1e-300 kg once made the base parameters NaN, which the Rust emitter could not write).
    #[test]
    fn specs_with_troublesome_numbers_generate(
        edits in prop::collection::vec(SPEC.number_edit(), 1..4)
    ) {
        if let Ok(robot) = parse_spec(&SPEC.apply(VALID.to_owned(), &edits), "fuzz.toml") {
            let module = build_module(&robot);
            let _ = emit_rust(&module);
            let _ = emit_c(&module, &COptions::default());
            let _ = emit_c(&module, &COptions { float: true, ..COptions::default() });
        }
    }
}

//! `import_urdf` never panics, whatever the input: it imports or gives an error located inside
//! the text, and whatever it imports is a spec that reads back equal and generates code (or
//! refuses to with an error).

use proptest::prelude::*;
use quasidyn_codegen::import::import_urdf;
use quasidyn_codegen::{build_module_only, emit_c, parse_spec, to_toml, COptions, FunctionKind};

mod mutation;
use mutation::{number_spans_after, Format};

/// The test tree: oblique and unnormalised axes, rpy origins, continuous, prismatic and fixed
/// joints, full inertia tensors, branches.
const VALID: &str = include_str!("../../tests/fixtures/urdf/synthetic_tree.urdf");

const TOKENS: &[&str] = &[
    "<",
    ">",
    "/>",
    "</link>",
    "\"",
    "'",
    "=",
    " ",
    "&amp;",
    "&#0;",
    "&bogus;",
    "<!--",
    "-->",
    "<link name=\"a\"/>",
    "<link name=\"z\"/>",
    "<joint name=\"x\" type=\"fixed\"><parent link=\"d\"/><child link=\"base\"/></joint>",
    "<joint name=\"y\" type=\"revolute\"><parent link=\"e\"/><child link=\"w\"/></joint>",
    "type=\"planar\"",
    "type=\"floating\"",
    "rpy=\"1 2\"",
    "xyz=\"0 0 0\"",
    "<axis xyz=\"0 0 0\"/>",
    "<mass value=\"-1\"/>",
    "é",
    "\u{0}",
    "0 0 0",
    "1 1 1 1",
];

/// Values for number literals besides the shared ones: out of range, not numbers, empty.
const NUMBERS: &[&str] = &["1e999", "x", "", "1.5707963267948966", "3.14159"];

/// The URDF's edits: numbers are those after `"` or a space (attribute values).
const URDF: Format = Format {
    tokens: TOKENS,
    numbers: NUMBERS,
    number_spans: |s| number_spans_after(s, &['"', ' ']),
};

fn check(text: &str, generate: bool) -> Result<(), TestCaseError> {
    match import_urdf(text, "fuzz.urdf", None) {
        Ok(robot) => {
            let written = to_toml(&robot);
            let back = parse_spec(&written, "written.toml");
            prop_assert!(back.as_ref().ok() == Some(&robot), "{back:?}\n{written}");
            if generate {
                // Whatever was imported generates, or is refused with an error.
                let kinds = [FunctionKind::InverseDynamics, FunctionKind::MassMatrix];
                let module = build_module_only(&robot, Some(&kinds));
                let _ = emit_c(&module, &COptions::default());
            }
        }
        Err(e) => {
            let shown = e.to_string();
            prop_assert!(shown.starts_with("fuzz.urdf:"), "{shown}");
            let at = e.location();
            prop_assert!(
                at.line >= 1 && at.line as usize <= text.lines().count().max(1) + 1,
                "{shown}"
            );
        }
    }
    Ok(())
}

#[test]
fn valid_base_imports() {
    let robot = import_urdf(VALID, "fuzz.urdf", None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(robot.dof(), 7);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_strings(text in any::<String>()) {
        check(&text, false)?;
    }

    #[test]
    fn xml_like_strings(text in "[a-z<>/=\" \n0-9.-]{0,300}") {
        check(&text, false)?;
    }

    #[test]
    fn mutated_valid_urdfs(edits in prop::collection::vec(URDF.edit(), 1..4)) {
        check(&URDF.apply(VALID.to_owned(), &edits), false)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn mutated_valid_urdfs_generate(edits in prop::collection::vec(URDF.edit(), 1..3)) {
        check(&URDF.apply(VALID.to_owned(), &edits), true)?;
    }
}

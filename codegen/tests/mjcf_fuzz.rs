//! `import_mjcf_reading` never panics, whatever the input: it imports or gives an error located
//! in the text or a file it includes, and whatever it imports is a spec that reads back equal
//! and generates code (or refuses to with an error).

use proptest::prelude::*;
use quasidyn_codegen::import::{import_mjcf_reading, ImportOptions};
use quasidyn_codegen::{build_module_only, emit_c, parse_spec, to_toml, COptions, FunctionKind};

mod mutation;
use mutation::{number_spans_after, Format};

/// The synthetic MJCF model (includes, default classes, frames, every orientation form and
/// primitive geom, several joints in a body, ref, welded bodies, a forest).
const VALID: &str = include_str!("../../tests/fixtures/mjcf/synthetic_degree.xml");
const DEFAULTS: &str = include_str!("../../tests/fixtures/mjcf/parts/degree_defaults.xml");
const CLASSES: &str = include_str!("../../tests/fixtures/mjcf/parts/degree_classes.xml");

const TOKENS: &[&str] = &[
    "<",
    ">",
    "/>",
    "</body>",
    "\"",
    "=",
    " ",
    "&amp;",
    "&bogus;",
    "<!--",
    "-->",
    "<body>",
    "<body name=\"pedestal\"/>",
    "<joint/>",
    "<joint type=\"ball\"/>",
    "<freejoint/>",
    "<frame euler=\"1 2 3\">",
    "</frame>",
    "<include file=\"parts/degree_defaults.xml\"/>",
    "<include file=\"missing.xml\"/>",
    "<inertial pos=\"0 0 0\" mass=\"1\" diaginertia=\"1 1 1\"/>",
    "<geom type=\"mesh\" mesh=\"m\"/>",
    "<geom fromto=\"0 0 0 0 0 0\" type=\"capsule\" size=\"1\"/>",
    "class=\"arm\"",
    "class=\"nope\"",
    "childclass=\"wrist\"",
    "type=\"slide\"",
    "quat=\"0 0 0 0\"",
    "axisangle=\"0 0 0 1\"",
    "xyaxes=\"1 0 0 1 0 0\"",
    "zaxis=\"0 0 0\"",
    "armature=\"1\"",
    "ref=\"1e308\"",
    "é",
    "\u{0}",
    "0 0 0",
    "1 1 1 1",
];

/// Values for number literals besides the shared ones: out of range, not numbers, empty.
const NUMBERS: &[&str] = &["1e999", "x", "", "-0", "1e-300", "90"];

/// The MJCF's edits: numbers are those after `"` or a space (attribute values).
const MJCF: Format = Format {
    tokens: TOKENS,
    numbers: NUMBERS,
    number_spans: |s| number_spans_after(s, &['"', ' ']),
};

fn check(text: &str, generate: bool) -> Result<(), TestCaseError> {
    let read = |path: &str| match path {
        "fuzz/parts/degree_defaults.xml" => Ok(DEFAULTS.to_owned()),
        "fuzz/parts/degree_classes.xml" => Ok(CLASSES.to_owned()),
        _ => Err("no such file".to_owned()),
    };
    match import_mjcf_reading(text, "fuzz/model.xml", &ImportOptions::default(), &read) {
        Ok(imported) => {
            let robot = imported.robot;
            let written = to_toml(&robot);
            let back = parse_spec(&written, "written.toml");
            prop_assert!(back.as_ref().ok() == Some(&robot), "{back:?}\n{written}");
            if generate {
                let kinds = [FunctionKind::InverseDynamics, FunctionKind::MassMatrix];
                let module = build_module_only(&robot, Some(&kinds));
                let _ = emit_c(&module, &COptions::default());
            }
        }
        Err(e) => {
            let shown = e.to_string();
            prop_assert!(shown.starts_with("fuzz/"), "{shown}");
            prop_assert!(e.location().line >= 1, "{shown}");
        }
    }
    Ok(())
}

#[test]
fn valid_base_imports() {
    check(VALID, true).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_strings(text in any::<String>()) {
        check(&text, false)?;
    }

    #[test]
    fn xml_like_strings(text in "[a-z<>/=\" \n0-9.-]{0,300}") {
        check(&format!("<mujoco>{text}"), false)?;
    }

    #[test]
    fn mutated_valid_models(edits in prop::collection::vec(MJCF.edit(), 1..4)) {
        check(&MJCF.apply(VALID.to_owned(), &edits), false)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn mutated_valid_models_generate(edits in prop::collection::vec(MJCF.edit(), 1..3)) {
        check(&MJCF.apply(VALID.to_owned(), &edits), true)?;
    }
}

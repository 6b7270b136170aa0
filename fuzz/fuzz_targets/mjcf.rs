//! The MJCF reader. Its includes are served from memory, never from the file system: the input
//! is the main file `fuzz/model.xml`, then, after each NUL byte (which XML cannot hold), the
//! files `fuzz/a.xml` and `fuzz/b.xml`; the parts the fixtures include are served as they are.
#![no_main]

use libfuzzer_sys::fuzz_target;
use quasidyn_codegen::import::{import_mjcf_reading, ImportOptions};
use quasidyn_fuzz::{import_error_located, writes_back};

const FILE: &str = "fuzz/model.xml";

const PARTS: &[(&str, &str)] = &[
    (
        "fuzz/parts/degree_defaults.xml",
        include_str!("../../tests/fixtures/mjcf/parts/degree_defaults.xml"),
    ),
    (
        "fuzz/parts/degree_classes.xml",
        include_str!("../../tests/fixtures/mjcf/parts/degree_classes.xml"),
    ),
    (
        "fuzz/common/materials.xml",
        include_str!("../../tests/fixtures/mjcf/common/materials.xml"),
    ),
    (
        "fuzz/common/skybox.xml",
        include_str!("../../tests/fixtures/mjcf/common/skybox.xml"),
    ),
    (
        "fuzz/common/visual.xml",
        include_str!("../../tests/fixtures/mjcf/common/visual.xml"),
    ),
];

fuzz_target!(|data: &[u8]| {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    let mut files = input.split('\0');
    let text = files.next().unwrap_or_default();
    let a = files.next();
    let b = files.next();
    let read = |path: &str| -> Result<String, String> {
        let served = match path {
            FILE => Some(text),
            "fuzz/a.xml" => a,
            "fuzz/b.xml" => b,
            _ => PARTS.iter().find(|(name, _)| *name == path).map(|p| p.1),
        };
        served
            .map(str::to_owned)
            .ok_or_else(|| "no such file".to_owned())
    };
    match import_mjcf_reading(text, FILE, &ImportOptions::default(), &read) {
        Ok(imported) => writes_back(&imported.robot),
        Err(e) => import_error_located(&e, text, FILE),
    }
});

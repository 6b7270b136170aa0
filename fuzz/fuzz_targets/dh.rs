//! The DH table reader (docs/dh.md).
#![no_main]

use libfuzzer_sys::fuzz_target;
use quasidyn_codegen::import::import_dh;
use quasidyn_fuzz::{import_error_located, writes_back};

const FILE: &str = "fuzz.dh";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match import_dh(text, FILE) {
        Ok(robot) => writes_back(&robot),
        Err(e) => import_error_located(&e, text, FILE),
    }
});

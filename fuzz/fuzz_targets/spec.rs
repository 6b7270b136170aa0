//! The spec reader: bytes as a file's contents (refused, located, if not UTF-8), then the spec.
#![no_main]

use libfuzzer_sys::fuzz_target;
use quasidyn_codegen::{decode_input, parse_spec};
use quasidyn_fuzz::{spec_error_located, writes_back};

const FILE: &str = "fuzz.toml";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = decode_input(data.to_vec(), FILE) else {
        return;
    };
    match parse_spec(&text, FILE) {
        Ok(robot) => writes_back(&robot),
        Err(e) => spec_error_located(&e, &text, FILE),
    }
});

//! The URDF reader, with the default options and, for a file it accepts, on a floating base
//! and without snapping too.
#![no_main]

use libfuzzer_sys::fuzz_target;
use quasidyn_codegen::import::{import_urdf_with, ImportOptions};
use quasidyn_fuzz::{import_error_located, writes_back};

const FILE: &str = "fuzz.urdf";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match import_urdf_with(text, FILE, &ImportOptions::default()) {
        Ok(imported) => writes_back(&imported.robot),
        Err(e) => {
            import_error_located(&e, text, FILE);
            return;
        }
    }
    let floating = ImportOptions {
        floating_base: true,
        snap: false,
        ..ImportOptions::default()
    };
    match import_urdf_with(text, FILE, &floating) {
        Ok(imported) => writes_back(&imported.robot),
        Err(e) => import_error_located(&e, text, FILE),
    }
});

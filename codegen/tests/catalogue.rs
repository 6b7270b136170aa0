//! What the function catalogue makes outside this crate stays what it makes: the methods of
//! the runtime's `Dynamics` trait are written in `runtime/src/lib.rs` between two marker lines,
//! and must be the catalogue's. `QUASIDYN_BLESS=1 cargo test -p quasidyn-codegen --test
//! catalogue` rewrites them after a catalogue change.

use std::path::Path;

use quasidyn_codegen::emit::stub::dynamics_trait_methods;

const BEGIN: &str =
    "    // Methods made from the generator's function catalogue (a test keeps them so).\n";
const END: &str = "    // End of the catalogue's methods.\n";

#[test]
fn runtime_trait_has_the_catalogues_methods() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime/src/lib.rs");
    let source = std::fs::read_to_string(&path).expect("the runtime's source");
    let start = source.find(BEGIN).expect("the begin marker") + BEGIN.len();
    let end = source.find(END).expect("the end marker");
    let want = dynamics_trait_methods();
    if std::env::var_os("QUASIDYN_BLESS").is_some() {
        let blessed = format!("{}{want}{}", &source[..start], &source[end..]);
        std::fs::write(&path, blessed).expect("the runtime's source is writable");
        return;
    }
    assert_eq!(
        &source[start..end],
        want,
        "runtime/src/lib.rs's Dynamics methods differ from the catalogue's; rerun with \
         QUASIDYN_BLESS=1 to rewrite them"
    );
}

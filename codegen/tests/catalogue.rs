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

#[test]
fn readme_has_the_catalogues_function_table() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md");
    let source = std::fs::read_to_string(&path).expect("the README");
    let (begin, end) = ("<!-- functions -->\n", "<!-- /functions -->");
    let start = source.find(begin).expect("the begin marker") + begin.len();
    let stop = source.find(end).expect("the end marker");
    let want = quasidyn_codegen::functions::markdown_table();
    if std::env::var_os("QUASIDYN_BLESS").is_some() {
        let blessed = format!("{}{want}{}", &source[..start], &source[stop..]);
        std::fs::write(&path, blessed).expect("the README is writable");
        return;
    }
    assert_eq!(
        &source[start..stop],
        want,
        "README.md's function table differs from the catalogue's; rerun with QUASIDYN_BLESS=1"
    );
}

/// docs/architecture.md's list of the files adding a function touches names files that exist.
#[test]
fn architecture_names_files_that_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("../docs/architecture.md")).expect("the doc");
    let list = doc
        .split("Files touched:")
        .nth(1)
        .expect("the list of files touched");
    let list = &list[..list.find("\n\n").unwrap_or(list.len())];
    let files: Vec<&str> = list
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|f| f.ends_with(".rs"))
        .collect();
    assert!(files.len() >= 5, "{files:?}");
    for file in files {
        // `derive/<quantity>.rs` stands for the new derivation.
        if file.contains('<') {
            continue;
        }
        assert!(
            root.join("src").join(file).is_file(),
            "docs/architecture.md names codegen/src/{file}, which does not exist"
        );
    }
}

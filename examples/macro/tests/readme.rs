//! The README's `robot!` example quotes this crate verbatim, so the copy-paste version is the
//! tested one.

#[test]
fn readme_quotes_the_macro_example() {
    let readme = include_str!("../../../README.md");
    let lib = include_str!("../src/lib.rs");
    let start = lib.find("// Relative to").expect("the file robot!");
    let end = start + lib[start..].find("\"#);\n").expect("the inline robot!") + 5;
    assert!(
        readme.contains(&lib[start..end]),
        "README.md does not quote src/lib.rs"
    );
}

//! The README's build-script and C examples, and the guide's whole programs, quote this crate
//! and examples/c verbatim, so the copy-paste versions are the tested ones.

const README: &str = include_str!("../../../README.md");
/// The guide's page on the generated Rust module: the whole UR5 program.
const RUST_PAGE: &str = include_str!("../../../docs/rust.md");
/// The guide's page on trees and bases: the hand and the floating quadruped.
const TREES_PAGE: &str = include_str!("../../../docs/trees.md");

#[test]
fn readme_and_guide_quote_the_build_script_example() {
    for (page, name, file, text) in [
        (README, "README.md", "build.rs", include_str!("../build.rs")),
        (
            RUST_PAGE,
            "docs/rust.md",
            "src/main.rs",
            include_str!("../src/main.rs"),
        ),
        (
            TREES_PAGE,
            "docs/trees.md",
            "src/bin/trees.rs",
            include_str!("../src/bin/trees.rs"),
        ),
    ] {
        assert!(page.contains(text), "{name} does not quote {file}");
    }
    let include = "quasidyn::include_robot!(pub \"ur5\");\n";
    assert!(include_str!("../src/lib.rs").contains(include));
    assert!(README.contains(include));
}

/// Every non-blank line of `page`'s C snippet starting at `include` is a line of `file`.
fn assert_c_snippet_quotes(page: &str, include: &str, file: &str, source: &str) {
    let start = page.find(include).expect("the C snippet");
    let snippet = &page[start..start + page[start..].find("```").unwrap()];
    for line in snippet.lines().filter(|l| !l.trim().is_empty()) {
        assert!(
            source.lines().any(|l| l == line),
            "examples/c/{file} has no line `{line}`"
        );
    }
}

#[test]
fn readme_and_guide_quote_the_c_example() {
    assert_c_snippet_quotes(
        README,
        "#include \"ur5.h\"\n\n    ur5_",
        "main.c",
        include_str!("../../c/main.c"),
    );
    assert_c_snippet_quotes(
        TREES_PAGE,
        "#include \"quadruped_floating.h\"",
        "quadruped.c",
        include_str!("../../c/quadruped.c"),
    );
    let makefile = include_str!("../../c/Makefile");
    assert!(makefile.contains("-std=c99 -Wall -Wextra -Werror -pedantic -O2"));
    assert!(README.contains("gcc -std=c99 -Wall -Wextra -Werror -pedantic -O2 -Igen"));
}

//! The README's build-script and C examples quote this crate and examples/c verbatim, so the
//! copy-paste versions are the tested ones.

const README: &str = include_str!("../../../README.md");

#[test]
fn readme_quotes_the_build_script_example() {
    for (file, text) in [
        ("build.rs", include_str!("../build.rs")),
        ("src/main.rs", include_str!("../src/main.rs")),
        ("src/bin/trees.rs", include_str!("../src/bin/trees.rs")),
    ] {
        assert!(README.contains(text), "README.md does not quote {file}");
    }
    let include = "quasidyn::include_robot!(pub \"ur5\");\n";
    assert!(include_str!("../src/lib.rs").contains(include));
    assert!(README.contains(include));
}

/// Every non-blank line of the README's C snippet starting at `include` is a line of `file`.
fn assert_c_snippet_quotes(include: &str, file: &str, source: &str) {
    let start = README.find(include).expect("the C snippet");
    let snippet = &README[start..start + README[start..].find("```").unwrap()];
    for line in snippet.lines().filter(|l| !l.trim().is_empty()) {
        assert!(
            source.lines().any(|l| l == line),
            "examples/c/{file} has no line `{line}`"
        );
    }
}

#[test]
fn readme_quotes_the_c_example() {
    assert_c_snippet_quotes(
        "#include \"ur5.h\"",
        "main.c",
        include_str!("../../c/main.c"),
    );
    assert_c_snippet_quotes(
        "#include \"quadruped_floating.h\"",
        "quadruped.c",
        include_str!("../../c/quadruped.c"),
    );
    let makefile = include_str!("../../c/Makefile");
    assert!(makefile.contains("-std=c99 -Wall -Wextra -Werror -pedantic -O2"));
    assert!(README.contains("gcc -std=c99 -Wall -Wextra -Werror -pedantic -O2 -Igen"));
}

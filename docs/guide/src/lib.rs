//! The guide's pages as documentation: each page of docs/ and the README is one module's
//! documentation, so that `cargo test -p quasidyn-guide --doc` compiles (and runs, unless
//! marked `no_run`) every Rust snippet in them. The tests of this crate check the other
//! snippets: every TOML spec parses, every C snippet compiles against the generated headers,
//! and every block names its language. The conventions are in docs/architecture.md
//! ("Snippets in the docs").
//!
//! Nothing here is meant to be used: the crate is not published.

// The pages are written for a Markdown viewer, not for rustdoc: links between pages are file
// paths, and brackets and angle brackets in prose are not intra-doc links or HTML.
#![allow(
    rustdoc::broken_intra_doc_links,
    rustdoc::invalid_html_tags,
    rustdoc::bare_urls,
    rustdoc::private_intra_doc_links
)]

/// Declares one module per page, its documentation the page's text, and [`PAGES`], the pages'
/// paths from the repository's root (which a test compares with the files in docs/).
macro_rules! pages {
    ($($module:ident => $path:literal,)*) => {
        $(
            #[doc = include_str!(concat!("../../../", $path))]
            pub mod $module {}
        )*
        /// The pages whose snippets this crate compiles, from the repository's root.
        pub const PAGES: &[&str] = &[$($path),*];
    };
}

pages! {
    readme => "README.md",
    index => "docs/README.md",
    architecture => "docs/architecture.md",
    batched => "docs/batched.md",
    benchmarks => "docs/benchmarks.md",
    c => "docs/c.md",
    checking => "docs/checking.md",
    cli => "docs/cli.md",
    derivatives => "docs/derivatives.md",
    design => "docs/design.md",
    dh => "docs/dh.md",
    elastic => "docs/elastic.md",
    equations => "docs/equations.md",
    fuzzing => "docs/fuzzing.md",
    identification => "docs/identification.md",
    mjcf => "docs/mjcf.md",
    packaging => "docs/packaging.md",
    reference_data => "docs/reference-data.md",
    references => "docs/references.md",
    robots => "docs/robots.md",
    rust => "docs/rust.md",
    spec => "docs/spec.md",
    trees => "docs/trees.md",
    urdf => "docs/urdf.md",
    whole_body => "docs/whole-body.md",
    changelog => "CHANGELOG.md",
}

//! The files of the repository around this crate (`robots/`, `tests/fixtures/`) that some unit
//! tests read. In the repository they are always there; in the crate's package, built on its
//! own, they are not, and those tests pass without checking anything (saying so on stderr),
//! so that `cargo test` of the package runs the tests that need nothing else.

use std::path::PathBuf;

/// The file or directory `path` (relative to the repository's root), or `None` outside the repository. Panics when
/// the repository is there but the file is not: a test naming a file that does not exist.
pub(crate) fn workspace_file(path: &str) -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    if !root.join("codegen/Cargo.toml").is_file() || !root.join("robots").is_dir() {
        eprintln!("skipped: {path} is read from the repository, which this package is not in");
        return None;
    }
    let file = root.join(path);
    assert!(file.exists(), "{} does not exist", file.display());
    Some(file)
}

/// The text of [`workspace_file`], or `None` outside the repository.
pub(crate) fn workspace_text(path: &str) -> Option<String> {
    let file = workspace_file(path)?;
    Some(std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display())))
}

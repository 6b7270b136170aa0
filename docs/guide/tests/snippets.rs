//! The snippets of README.md and docs/ that are not Rust (the Rust ones are this crate's
//! doctests): every block names its language, every TOML spec parses, every C snippet compiles
//! against the generated header of the robot it calls. A block marked `fragment` (```` ```toml
//! fragment ````, ```` ```c fragment ````) is part of a file and is not checked on its own
//! (TOML fragments must still be TOML). The conventions: docs/architecture.md, "Snippets in the
//! docs".

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use quasidyn_codegen::{COptions, Options};

/// The languages a block may name; Rust is compiled by rustdoc, the others are not.
const LANGUAGES: &[&str] = &["rust", "toml", "c", "sh", "text", "json", "xml"];

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A fenced code block of a page.
struct Block {
    /// Page and line of the opening fence, for messages.
    at: String,
    /// The first word of the info string (empty if none).
    language: String,
    /// Whether the info string says `fragment`.
    fragment: bool,
    /// The block's lines, without the fences and the fence's indentation.
    text: String,
}

/// Every fenced block of every page the crate documents.
fn blocks() -> Vec<Block> {
    let mut blocks = Vec::new();
    for page in quasidyn_guide::PAGES {
        let source = std::fs::read_to_string(root().join(page)).expect("the page");
        let mut open: Option<(usize, usize, String, Vec<&str>)> = None;
        for (n, line) in source.lines().enumerate() {
            let trimmed = line.trim_start();
            let indent = line.len() - trimmed.len();
            // A fence: three backticks or more, and an info string without any (CommonMark;
            // a line opening with an inline code span is not one).
            let fence = trimmed
                .strip_prefix("```")
                .map(|rest| rest.trim_start_matches('`'))
                .filter(|info| !info.contains('`'));
            match (&mut open, fence) {
                (None, Some(info)) => open = Some((n + 1, indent, info.to_owned(), Vec::new())),
                (Some((start, _, info, lines)), Some("")) => {
                    let mut words = info.split([',', ' ', '\t']).filter(|w| !w.is_empty());
                    blocks.push(Block {
                        at: format!("{page}:{start}"),
                        language: words.next().unwrap_or_default().to_owned(),
                        fragment: info.split([',', ' ', '\t']).any(|w| w == "fragment"),
                        text: lines.join("\n") + "\n",
                    });
                    open = None;
                }
                (Some((_, indent, _, lines)), _) => {
                    lines.push(line.get(*indent..).unwrap_or(line.trim_start()));
                }
                (None, None) => {}
            }
        }
        assert!(open.is_none(), "{page}: a code block is not closed");
    }
    blocks
}

/// A block without a language would be compiled by rustdoc as Rust: every block names one.
#[test]
fn every_block_names_its_language() {
    let blocks = blocks();
    assert!(blocks.len() > 50, "{} blocks", blocks.len());
    for block in &blocks {
        assert!(
            LANGUAGES.contains(&block.language.as_str()),
            "{}: the block's language is `{}`, not one of {LANGUAGES:?} (```text for output)",
            block.at,
            block.language
        );
    }
}

/// Every TOML block is TOML, and every one not marked `fragment` is a robot description the
/// generator reads (a spec or a DH table).
#[test]
fn toml_blocks_are_specs() {
    let mut specs = 0;
    for block in blocks().iter().filter(|b| b.language == "toml") {
        if let Err(e) = block.text.parse::<toml::Table>() {
            panic!("{}: not TOML: {e}", block.at);
        }
        if block.fragment {
            continue;
        }
        if let Err(e) = quasidyn_codegen::parse_input(&block.text, "snippet.toml", None) {
            panic!(
                "{}: not a robot description (mark a part of one `fragment`): {e}",
                block.at
            );
        }
        specs += 1;
    }
    assert!(specs >= 4, "{specs} specs");
}

/// The shipped robot whose generated API a C block uses: the header it includes, or else the
/// longest robot name that prefixes one of its identifiers.
fn robot_of(block: &Block, robots: &[String]) -> String {
    if let Some(rest) = block.text.split("#include \"").nth(1) {
        return rest[..rest.find(".h\"").expect("a header")].to_owned();
    }
    let uses = |r: &&String| {
        block
            .text
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|word| word.to_ascii_lowercase().starts_with(&format!("{r}_")))
    };
    robots
        .iter()
        .filter(uses)
        .max_by_key(|r| r.len())
        .unwrap_or_else(|| panic!("{}: no shipped robot's API (mark it `fragment`)", block.at))
        .clone()
}

/// The number of states of the batched functions a block declares (`#define NAME_BATCH 8`).
fn batch_of(text: &str) -> Option<usize> {
    let rest = text.split("_BATCH ").nth(1)?;
    rest.split_whitespace().next()?.parse().ok()
}

/// Every C block not marked `fragment`, after the header of the robot it uses, compiles with
/// gcc's strict flags: its declarations agree with the generated ones, its calls with the
/// generated prototypes.
#[test]
fn c_blocks_compile_against_the_generated_headers() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let robots: Vec<String> = std::fs::read_dir(root().join("robots"))
        .expect("robots/")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    let mut headers = BTreeMap::new();
    let mut compiled = 0;
    for (k, block) in blocks()
        .iter()
        .filter(|b| b.language == "c" && !b.fragment)
        .enumerate()
    {
        let robot = robot_of(block, &robots);
        let batch = batch_of(&block.text);
        let include = headers.entry((robot.clone(), batch)).or_insert_with(|| {
            let spec = root().join(format!("robots/{robot}.toml"));
            let loaded = quasidyn_codegen::load_input(&spec, None).expect("a shipped robot");
            let options = Options {
                only: Some(vec!["all".to_owned()]),
                batch,
            };
            let files =
                quasidyn_codegen::c_code_with(&loaded, &robot, &COptions::default(), &options)
                    .expect("generates");
            let sub = dir.path().join(format!("{robot}-{}", batch.unwrap_or(0)));
            std::fs::create_dir_all(&sub).expect("a directory");
            std::fs::write(sub.join(format!("{robot}.h")), files.header).expect("written");
            sub
        });
        let mut source = block.text.clone();
        if !source.contains("#include \"") {
            source = format!("#include \"{robot}.h\"\n\n{source}");
        }
        let file = dir.path().join(format!("snippet{k}.c"));
        std::fs::write(&file, source).expect("written");
        let out = Command::new("gcc")
            .args([
                "-std=c99",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-pedantic",
                "-c",
                "-I",
            ])
            .arg(&*include)
            .arg(&file)
            .arg("-o")
            .arg(file.with_extension("o"))
            .output()
            .expect("gcc runs");
        assert!(
            out.status.success(),
            "{}: does not compile against {robot}.h:\n{}",
            block.at,
            String::from_utf8_lossy(&out.stderr)
        );
        compiled += 1;
    }
    assert!(compiled >= 8, "{compiled} C blocks compiled");
}

/// Every page in docs/ is one of this crate's pages (so its snippets are compiled) and is
/// listed in the guide's index, docs/README.md, which the README links to.
#[test]
fn every_page_is_compiled_and_indexed() {
    let index = std::fs::read_to_string(root().join("docs/README.md")).expect("the index");
    let readme = std::fs::read_to_string(root().join("README.md")).expect("the README");
    assert!(
        readme.contains("](docs/README.md)"),
        "README.md links to the index"
    );
    for entry in std::fs::read_dir(root().join("docs")).expect("docs/") {
        let path = entry.expect("an entry").path();
        if path.extension().is_none_or(|e| e != "md") {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            quasidyn_guide::PAGES.contains(&format!("docs/{name}").as_str()),
            "docs/{name} is not among the pages of docs/guide/src/lib.rs"
        );
        if name != "README.md" {
            assert!(
                index.contains(&format!("]({name})")),
                "docs/README.md does not list docs/{name}"
            );
        }
    }
}

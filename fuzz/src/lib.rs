//! What every fuzz target checks: a reader either accepts its input, and then the robot it read
//! is written as a spec that reads back equal, or refuses it with an error located in the file
//! it names. A panic, a timeout or running out of memory is a bug; so is a failed check here.

use quasidyn_codegen::import::ImportError;
use quasidyn_codegen::{parse_spec, to_toml, Robot, SpecError};

/// The spec `to_toml` writes for `robot` reads back as the same robot.
pub fn writes_back(robot: &Robot) {
    let written = to_toml(robot);
    match parse_spec(&written, "written.toml") {
        Ok(back) => {
            if back != *robot {
                let (read, wrote) = (format!("{robot:#?}"), format!("{back:#?}"));
                // The first line that differs, with the fields it is in.
                let lines: Vec<_> = read.lines().collect();
                let at = lines
                    .iter()
                    .zip(wrote.lines())
                    .position(|(a, b)| *a != b)
                    .unwrap_or(0);
                let context = lines[at.saturating_sub(12)..=at].join("\n");
                let back = wrote.lines().nth(at).unwrap_or_default();
                panic!("read back differently, as {back:?}:\n{context}\n\n{written}");
            }
        }
        Err(e) => panic!("the written spec does not read back: {e}\n{written}"),
    }
}

/// `text` has `line` (1-based; one past the last line for an error at the very end).
fn line_in(text: &str, line: usize) -> bool {
    line >= 1 && line <= text.lines().count().max(1) + 1
}

/// A spec error names `file` and a line and a byte span inside `text`.
pub fn spec_error_located(e: &SpecError, text: &str, file: &str) {
    let shown = e.to_string();
    assert!(shown.starts_with(&format!("{file}:")), "{shown}");
    let line = e.line().unwrap_or(0);
    assert!(line_in(text, line), "{shown}");
    let span = e.byte_span().unwrap_or(0..usize::MAX);
    assert!(span.end <= text.len(), "{shown}");
}

/// An import error names `file` and a line inside `text`, or (an MJCF error in a file `text`
/// includes) a file in the directory of `file`.
pub fn import_error_located(e: &ImportError, text: &str, file: &str) {
    let shown = e.to_string();
    let at = e.location();
    assert!(shown.starts_with(&format!("{}:", at.file)), "{shown}");
    assert!(at.line >= 1, "{shown}");
    if at.file == file {
        assert!(line_in(text, at.line as usize), "{shown}");
    } else {
        let dir = file.rfind('/').map_or("", |cut| &file[..=cut]);
        assert!(!dir.is_empty() && at.file.starts_with(dir), "{shown}");
    }
}

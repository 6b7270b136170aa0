//! Every subcommand of the `quasidyn` binary on every robot input of the repository: the specs
//! in robots/ and every spec, URDF file, MJCF file and DH table under tests/fixtures, found by
//! listing the directories, so a new robot is covered without editing this file. Each run must succeed or
//! end with a located error (exit 1, the report naming the input file); a panic, a usage error
//! or an unlocated failure fails the test.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;
use std::time::Instant;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn quasidyn(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quasidyn"))
        .args(args)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .output()
        .expect("the quasidyn binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Files in `dir` (and its subdirectories if `recursive`) whose extension is one of
/// `extensions`, as paths relative to the repository root: a located error then starts with the
/// short path, which the report does not wrap.
fn files_under(dir: &str, extensions: &[&str], recursive: bool, out: &mut Vec<String>) {
    let entries = std::fs::read_dir(root().join(dir)).unwrap_or_else(|e| panic!("{dir}: {e}"));
    for entry in entries {
        let entry = entry.expect("a directory entry");
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = format!("{dir}/{name}");
        let kind = entry.file_type().expect("a file type");
        if kind.is_dir() {
            if recursive {
                files_under(&path, extensions, recursive, out);
            }
        } else if Path::new(&name)
            .extension()
            .is_some_and(|e| extensions.iter().any(|x| e == *x))
        {
            out.push(path);
        }
    }
}

/// The robot inputs.
fn inputs() -> Vec<String> {
    let mut found = Vec::new();
    files_under("robots", &["toml"], false, &mut found);
    // The fixtures' specs, URDF files, MJCF files (with the fragments they include) and DH
    // tables (the JSON files are reference values).
    files_under("tests/fixtures", &["toml", "urdf", "xml"], true, &mut found);
    found.sort();
    found
}

/// `Err` with the command and its stderr unless it exited 0 or with a located error (exit 1,
/// the report naming `input`).
fn verdict(args: &[&str], input: &str, out: &Output) -> Result<(), String> {
    let stderr = text(&out.stderr);
    match out.status.code() {
        Some(0) => Ok(()),
        Some(1) if stderr.contains(&format!("{input}:")) => Ok(()),
        code => Err(format!(
            "`quasidyn {}` exited with {code:?}:\n{stderr}",
            args.join(" ")
        )),
    }
}

/// The functions generated for the robot and the sum of their operation counts, as `stats`
/// lists them (first and last column of the rows under the heading's rule).
fn stats_functions(stdout: &str) -> (Vec<String>, u64) {
    let rows: Vec<Vec<&str>> = stdout
        .lines()
        .skip_while(|l| !l.starts_with("---"))
        .skip(1)
        .map(|l| l.split_whitespace().collect())
        .filter(|row: &Vec<&str>| !row.is_empty())
        .collect();
    let names = rows.iter().map(|row| row[0].to_owned()).collect();
    let total = rows
        .iter()
        .map(|row| row.last().and_then(|t| t.parse::<u64>().ok()).unwrap_or(0))
        .sum();
    (names, total)
}

/// Above this many operations in all functions together (the largest robots: the hands, the
/// dual arm, the floating humanoid, ...), [`every_command_runs_on_every_robot`] generates a few
/// functions only, to keep the test within a minute or two on two cores: each `generate`
/// derives and writes every function, so on these robots it would take longer than the rest
/// of the test together. `equations`, which derives only the function it writes out, runs on
/// every function of every robot. [`every_function_on_every_robot`] (ignored by default)
/// generates them all.
const LARGE: u64 = 20_000;

/// The functions `generate` runs on for a robot above [`LARGE`]: the joint-space vector, the
/// mass matrix and the forward dynamics.
const FEW: [&str; 3] = ["inverse_dynamics", "mass_matrix", "forward_dynamics"];

/// Runs every command on `input` but `check`; returns the failures.
fn every_command(input: &str, every_function: bool) -> Vec<String> {
    let mut failures = Vec::new();
    let mut run = |args: &[&str]| -> Option<Output> {
        let out = quasidyn(args);
        match verdict(args, input, &out) {
            Ok(()) => Some(out),
            Err(e) => {
                failures.push(e);
                None
            }
        }
    };
    run(&["params", input]);
    run(&["params", "--base", input]);
    run(&["import", input]);
    let (functions, total) = run(&["stats", input])
        .map(|out| stats_functions(&text(&out.stdout)))
        .unwrap_or_default();
    for function in &functions {
        run(&["equations", "--function", function, input]);
    }
    if functions.iter().any(|f| f == "inverse_dynamics") {
        run(&[
            "equations",
            "--format",
            "latex",
            "--function",
            "inverse_dynamics",
            input,
        ]);
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().to_str().expect("a UTF-8 temporary path");
    let few = !every_function && total > LARGE;
    let only = FEW.join(",");
    for lang in ["c", "rust"] {
        let mut args = vec!["generate", "--quiet", "--lang", lang, "--out", out];
        if few {
            args.extend(["--only", &only]);
        }
        args.push(input);
        run(&args);
    }
    failures
}

/// The number of bodies `check` reports, or 0 when it does not report one.
fn bodies(stdout: &str) -> usize {
    stdout
        .split_whitespace()
        .rev()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// Runs every command on every input, on two threads; fails with every failure listed.
fn sweep(every_function: bool) {
    let started = Instant::now();
    let inputs = inputs();
    assert!(inputs.len() > 20, "the robot directories were not found");
    let mut failures = Vec::new();
    // `check` is quick: it runs first, and the bodies it counts order the rest, largest robot
    // last (popped first), so the two threads finish close together.
    let mut queue: Vec<(usize, String)> = Vec::new();
    for input in inputs {
        let args = ["check", input.as_str()];
        let out = quasidyn(&args);
        if let Err(e) = verdict(&args, &input, &out) {
            failures.push(e);
        }
        queue.push((bodies(&text(&out.stdout)), input));
    }
    queue.sort();
    let queue = Mutex::new(queue);
    let failures = Mutex::new(failures);
    // Two threads: each command is a process of its own, and CI has two cores.
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let Some((_, input)) = queue.lock().unwrap().pop() else {
                    break;
                };
                let at = Instant::now();
                let found = every_command(&input, every_function);
                eprintln!("{input}: {:.1} s", at.elapsed().as_secs_f64());
                failures.lock().unwrap().extend(found);
            });
        }
    });
    eprintln!("every command: {:.1} s", started.elapsed().as_secs_f64());
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_command_runs_on_every_robot() {
    sweep(false);
}

#[test]
#[ignore = "every function of the largest robots: several times as long as the default sweep"]
fn every_function_on_every_robot() {
    sweep(true);
}

//! The command line on its inputs: URDF snapping (`check --verbose`, `--no-snap`), the input
//! named by its file name in generated code, `--out -`, and bad encodings or pathological
//! inputs reported once, located and short.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

/// Runs `quasidyn` in `dir` (the repository root if `None`).
fn quasidyn_in(dir: Option<&Path>, args: &[&str]) -> Output {
    let root = root();
    Command::new(env!("CARGO_BIN_EXE_quasidyn"))
        .args(args)
        .current_dir(dir.unwrap_or(&root))
        .env("NO_COLOR", "1")
        .output()
        .expect("the quasidyn binary runs")
}

fn quasidyn(args: &[&str]) -> Output {
    quasidyn_in(None, args)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const UR5: &str = "tests/fixtures/urdf/ur5.urdf";

#[test]
fn check_verbose_lists_every_snap_and_no_snap_keeps_the_values() {
    let run = quasidyn(&["check", UR5, "--tip", "tool0", "--verbose"]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let stdout = text(&run.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "ok: ur5, 6 bodies");
    // The shoulder-lift joint's origin (line 30 of the fixture) pitches by 1.57079632679.
    let xml = std::fs::read_to_string(root().join(UR5)).unwrap();
    let line = xml
        .lines()
        .position(|l| l.contains("rpy=\"0.0 1.57079632679 0.0\""))
        .unwrap()
        + 1;
    let want = format!(
        "{UR5}:{line}:18: joint[shoulder_lift_joint].origin.rpy.pitch: 1.57079632679 -> pi/2 \
         (by 4.9e-12)"
    );
    assert!(lines.iter().any(|l| l.trim() == want), "{stdout}");
    assert!(
        lines[1].contains("values snapped to exact ones"),
        "{stdout}"
    );
    assert!(
        stdout.contains("joint[base_link-base_fixed_joint].origin.rpy.yaw: -3.14159265359 -> -pi"),
        "{stdout}"
    );

    let run = quasidyn(&["check", UR5, "--tip", "tool0", "--verbose", "--no-snap"]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let stdout = text(&run.stdout);
    assert!(
        stdout.starts_with("ok: ur5, 6 bodies\nno value snapped\n"),
        "{stdout}"
    );
    // Then what the file holds that the functions do not use: the joints' damping and friction.
    let elbow = format!(
        "{UR5}:48:5: joint[elbow_joint].dynamics: damping and friction (not in these functions)"
    );
    assert!(
        stdout.contains("6 elements ignored") && stdout.contains(&elbow),
        "{stdout}"
    );
    // Without --verbose, only the summary line.
    let run = quasidyn(&["check", UR5, "--tip", "tool0"]);
    assert_eq!(text(&run.stdout), "ok: ur5, 6 bodies\n");
}

/// The `total` column of `quasidyn stats` for inverse dynamics.
fn inverse_dynamics_ops(args: &[&str]) -> u64 {
    let run = quasidyn(args);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let stdout = text(&run.stdout);
    let row = stdout
        .lines()
        .find(|l| l.starts_with("inverse_dynamics"))
        .unwrap_or_else(|| panic!("{stdout}"));
    row.split_whitespace().last().unwrap().parse().unwrap()
}

#[test]
fn no_snap_applies_to_every_importing_command() {
    let snapped = inverse_dynamics_ops(&["stats", UR5, "--tip", "tool0"]);
    let literal = inverse_dynamics_ops(&["stats", UR5, "--tip", "tool0", "--no-snap"]);
    assert!(snapped * 10 < literal * 6, "{snapped} vs {literal}");
    // `import --no-snap` keeps the rounding noise of 1.57079632679; the default does not.
    let spec = |extra: &[&str]| {
        let mut args = vec!["import", UR5, "--tip", "tool0"];
        args.extend_from_slice(extra);
        let run = quasidyn(&args);
        assert!(run.status.success(), "{}", text(&run.stderr));
        text(&run.stdout)
    };
    assert!(spec(&["--no-snap"]).contains("e-12"));
    assert!(!spec(&[]).contains("e-12"));
    for command in ["params", "equations"] {
        let run = quasidyn(&[command, UR5, "--tip", "tool0", "--no-snap"]);
        assert!(run.status.success(), "{command}: {}", text(&run.stderr));
    }
    let out = tempfile::tempdir().unwrap();
    let run = quasidyn(&[
        "generate",
        UR5,
        "--tip",
        "tool0",
        "--no-snap",
        "--lang",
        "rust",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
}

#[test]
fn generated_code_names_the_input_by_its_file_name() {
    let absolute = root().join(UR5);
    let absolute = absolute.to_str().unwrap();
    let run = quasidyn(&[
        "generate", absolute, "--tip", "tool0", "--lang", "rust", "--out", "-",
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let code = text(&run.stdout);
    assert!(
        code.contains("imported from URDF `ur5.urdf`, chain `world` to `tool0`"),
        "{}",
        &code[..300]
    );
    let directory = root().join("tests/fixtures/urdf");
    assert!(!code.contains(directory.to_str().unwrap()));
    assert!(!code.contains("fixtures"));
}

#[test]
fn out_dash_writes_a_single_file_to_stdout() {
    let cwd = tempfile::tempdir().unwrap();
    let spec = root().join("robots/planar3r.toml");
    let spec = spec.to_str().unwrap();
    let run = quasidyn_in(
        Some(cwd.path()),
        &["generate", spec, "--lang", "rust", "--out", "-"],
    );
    assert!(run.status.success(), "{}", text(&run.stderr));
    let code = text(&run.stdout);
    assert!(
        code.starts_with("// @generated by quasidyn-codegen"),
        "{code}"
    );
    assert!(code.contains("pub fn inverse_dynamics("));

    let run = quasidyn_in(
        Some(cwd.path()),
        &[
            "generate",
            spec,
            "--lang",
            "c",
            "--header-only",
            "--out",
            "-",
        ],
    );
    assert!(run.status.success(), "{}", text(&run.stderr));
    let header = text(&run.stdout);
    assert!(header.contains("#define PLANAR3R_DOF 3"), "{header}");
    assert!(header.contains("static inline void planar3r_inverse_dynamics("));

    // Two C files cannot both go to stdout: refused, nothing written.
    let run = quasidyn_in(
        Some(cwd.path()),
        &["generate", spec, "--lang", "c", "--out", "-"],
    );
    assert_eq!(run.status.code(), Some(1));
    let stderr = text(&run.stderr);
    assert!(
        stderr.contains("--out -") && stderr.contains("--header-only"),
        "{stderr}"
    );
    assert!(run.stdout.is_empty());
    assert_eq!(
        std::fs::read_dir(cwd.path()).unwrap().count(),
        0,
        "no `-` created"
    );
}

#[test]
fn a_file_that_is_not_utf8_is_reported_once_with_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("bad.toml");
    std::fs::write(&spec, b"version = 1\nname = \"caf\xe9\"\n").unwrap();
    let urdf = dir.path().join("bad.urdf");
    std::fs::write(
        &urdf,
        b"<robot name=\"r\">\n  <link name=\"\xc3\xa9\xff\"/>\n</robot>\n",
    )
    .unwrap();
    for (path, at) in [(&spec, "bad.toml:2:12"), (&urdf, "bad.urdf:2:16")] {
        let run = quasidyn(&["check", path.to_str().unwrap()]);
        assert_eq!(run.status.code(), Some(1));
        let stderr = text(&run.stderr);
        assert!(
            stderr.contains(&format!("{at}: not valid UTF-8")),
            "{stderr}"
        );
        assert_eq!(stderr.matches("UTF-8").count(), 2, "once: {stderr}");
        assert!(!stderr.contains("stream did not contain"), "{stderr}");
    }
}

#[test]
fn a_pathological_input_gives_a_short_message() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("deep.toml");
    let deep = format!(
        "version = 1\nname = \"x\"\na = {}1{}\n",
        "{a = ".repeat(20_000),
        "}".repeat(20_000)
    );
    std::fs::write(&spec, &deep).unwrap();
    let run = quasidyn(&["check", spec.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(1));
    let stderr = text(&run.stderr);
    assert!(stderr.contains("deep.toml:3:"), "{stderr}");
    assert!(stderr.contains("recursion"), "{stderr}");
    assert!(stderr.len() < 2_000, "{} bytes: {stderr}", stderr.len());
    let longest = stderr.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(longest < 200, "a line of {longest} characters");
}

#[test]
fn a_missing_file_is_reported_once() {
    let run = quasidyn(&["check", "no_such_robot.toml"]);
    assert_eq!(run.status.code(), Some(1));
    let stderr = text(&run.stderr);
    assert!(stderr.contains("no_such_robot.toml: "), "{stderr}");
    assert_eq!(stderr.matches("os error").count(), 1, "once: {stderr}");
}

/// A spec whose values are beyond single precision is refused for `--float` (the C would hold
/// `inf` literals, which do not compile), with nothing written; double precision takes it.
#[test]
fn values_beyond_single_precision_are_refused_for_float() {
    let spec_text = std::fs::read_to_string(root().join("robots/planar3r.toml")).unwrap();
    let heavy = spec_text.replacen("mass = ", "mass = 1e300 # ", 1);
    assert_ne!(heavy, spec_text, "planar3r has a mass");
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("heavy.toml");
    std::fs::write(&spec, heavy).unwrap();
    let out = dir.path().join("out");
    let (spec, out_dir) = (spec.to_str().unwrap(), out.to_str().unwrap());
    let run = |extra: &[&str]| {
        let mut args = vec!["generate", spec, "--lang", "c", "--out", out_dir];
        args.extend_from_slice(extra);
        quasidyn(&args)
    };
    let refused = run(&["--float"]);
    assert_eq!(refused.status.code(), Some(1));
    let stderr = text(&refused.stderr);
    // The report wraps its message behind a gutter.
    let words: Vec<&str> = stderr
        .split_whitespace()
        .filter(|w| !["×", "│"].contains(w))
        .collect();
    assert!(
        words.join(" ").contains("beyond single precision"),
        "{stderr}"
    );
    assert_eq!(stderr.matches("beyond").count(), 1, "once: {stderr}");
    assert!(!out.exists(), "nothing written");
    let taken = run(&[]);
    assert!(taken.status.success(), "{}", text(&taken.stderr));
    assert!(out.join("planar3r.c").exists());
}

//! The `quasidyn` binary: exit codes and located diagnostics.

use std::process::{Command, Output};

const GOOD: &str = r#"name = "two"
[[body]]
joint = "revolute"
axis = "z"
next = [0.5, 0, 0]
mass = 2
com = [0.25, 0, 0]

[[body]]
joint = "revolute"
axis = "z"
mass = -1
"#;

fn run(dir: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quasidyn"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("the quasidyn binary runs")
}

#[test]
fn check_reports_located_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.toml"), GOOD).unwrap();
    let out = run(dir.path(), &["check", "bad.toml"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("bad.toml:12:8: body[2].mass:"), "{stderr}");
    assert!(stderr.contains("mass must not be negative"), "{stderr}");
}

#[test]
fn check_and_params_accept_good_spec() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("good.toml"),
        GOOD.replace("mass = -1", "mass = 1"),
    )
    .unwrap();
    let out = run(dir.path(), &["check", "good.toml"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "ok: two, 2 bodies"
    );

    let out = run(dir.path(), &["params", "good.toml"]);
    assert!(out.status.success());
    let table = String::from_utf8_lossy(&out.stdout);
    // b_1 = |2 (0.25, 0, 0) + 1 (0.5, 0, 0)| = 1, p_1 = 0.5 * 1.
    assert!(
        table.contains("b [kg m]") && table.contains("body1"),
        "{table}"
    );
}

#[test]
fn missing_file_and_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), &["check", "absent.toml"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("absent.toml"));

    let out = run(dir.path(), &["check"]);
    assert_eq!(out.status.code(), Some(2));
    let out = run(dir.path(), &["frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
}

/// `params --base` on the planar arm: its nine base parameters (three per link: `zz`, `mx`,
/// `my` regrouped), each as a combination of the standard ones; the values are the
/// combinations evaluated at the spec's standard parameters.
#[test]
fn params_base_prints_the_base_parameters() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = run(&root, &["params", "--base", "robots/planar3r.toml"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("planar3r: 9 base parameters (of 30 standard"),
        "{stdout}"
    );
    let lines: Vec<&str> = stdout.lines().filter(|l| l.contains(" = ")).collect();
    assert_eq!(lines.len(), 9, "{stdout}");
    // The last link's first moment along its x axis is not regrouped with anything.
    assert!(lines.iter().any(|l| l.ends_with("= mx3")), "{stdout}");
    // ZZR1 = ZZ1 + L1² (m2 + m3), ZZR2 = ZZ2 + L2² m3 (L1 = 0.5, L2 = 0.4), MXR1 = MX1 +
    // L1 (m2 + m3).
    for (name, combination) in [
        ("zzr1", "izz1 + 0.25 m2 + 0.25 m3"),
        ("zzr2", "izz2 + 0.16 m3"),
        ("mxr1", "mx1 + 0.5 m2 + 0.5 m3"),
    ] {
        let line = lines.iter().find(|l| l.contains(name)).expect(name);
        assert!(line.ends_with(combination), "{name}: {line}");
    }
}

#[test]
fn a_closed_stdout_ends_the_command_quietly() {
    // `quasidyn generate ... --out - | head`: the reader goes away before the code is written.
    let spec = concat!(env!("CARGO_MANIFEST_DIR"), "/../robots/ur5.toml");
    let mut child = Command::new(env!("CARGO_BIN_EXE_quasidyn"))
        .args(["generate", spec, "--lang", "rust", "--out", "-", "--quiet"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the quasidyn binary runs");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("it ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

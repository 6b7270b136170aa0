//! `quasidyn generate`, `stats` and `import` end to end: files written, no partial output on
//! bad input, deterministic output, the generated C compiling under the strict flags.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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

/// A rendered report's words without its gutter (`×`, `│`): the report wraps its message at
/// the terminal's width.
fn unwrapped(report: &str) -> String {
    let words = report
        .split_whitespace()
        .filter(|w| !["×", "│"].contains(w));
    words.collect::<Vec<_>>().join(" ")
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn generates_c_that_compiles_with_strict_flags() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().to_str().unwrap();
    let run = quasidyn(&[
        "generate",
        "robots/planar3r.toml",
        "--lang",
        "c",
        "--out",
        dir,
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert_eq!(files_in(out.path()), ["planar3r.c", "planar3r.h"]);
    let stdout = text(&run.stdout);
    assert!(stdout.contains("planar3r.h") && stdout.contains("planar3r.c"));
    let gcc = Command::new("gcc")
        .args([
            "-std=c99",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            "-c",
            "planar3r.c",
            "-o",
            "planar3r.o",
        ])
        .current_dir(out.path())
        .output()
        .expect("gcc runs");
    assert!(gcc.status.success(), "{}", text(&gcc.stderr));
}

#[test]
fn header_only_and_float_variants() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().to_str().unwrap();
    let run = quasidyn(&[
        "generate",
        "robots/gimbal.toml",
        "--out",
        dir,
        "--name",
        "gyro",
        "--float",
        "--header-only",
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert_eq!(files_in(out.path()), ["gyro.h"]);
    let header = std::fs::read_to_string(out.path().join("gyro.h")).unwrap();
    assert!(header.contains("static inline void gyro_inverse_dynamics(const float q[]"));
    assert!(!header.contains("double"));
}

#[test]
fn generates_rust_deterministically() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for dir in [&a, &b] {
        let run = quasidyn(&[
            "generate",
            "robots/ur5.toml",
            "--lang",
            "rust",
            "--out",
            dir.path().to_str().unwrap(),
        ]);
        assert!(run.status.success(), "{}", text(&run.stderr));
    }
    let first = std::fs::read(a.path().join("ur5.rs")).unwrap();
    let second = std::fs::read(b.path().join("ur5.rs")).unwrap();
    assert!(first == second, "same spec, different code");
    assert!(text(&first).contains("pub const DOF: usize = 6;"));
}

#[test]
fn bad_input_leaves_no_files_and_a_located_error() {
    let work = tempfile::tempdir().unwrap();
    let spec = work.path().join("bad.toml");
    std::fs::write(
        &spec,
        "name = \"bad\"\n[[body]]\njoint = \"revolute\"\naxis = \"z\"\nmass = -1\n",
    )
    .unwrap();
    let out = work.path().join("out");
    let run = quasidyn(&[
        "generate",
        spec.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(1));
    let stderr = text(&run.stderr);
    assert!(stderr.contains("bad.toml:5:8: body[1].mass:"), "{stderr}");
    assert!(!out.exists(), "no output directory for a failed run");
}

/// A report with its gutter and every line break and space taken out (a long path is broken
/// across lines), and `dir` shown as `DIR` (a temporary directory's name starts with `.tmp`).
fn squeezed(report: &str, dir: &Path) -> String {
    let report = report.replace(['×', '│'], "");
    let report: String = report.split_whitespace().collect();
    report.replace(dir.to_str().unwrap(), "DIR")
}

/// A `.h`/`.c` pair is replaced whole or not at all: a source that cannot be replaced (here a
/// directory of its name) leaves the old header as it was, and no temporary file behind.
#[test]
fn an_output_that_cannot_be_replaced_leaves_every_output_as_it_was() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().to_str().unwrap();
    let header = out.path().join("ur5.h");
    std::fs::write(&header, "old header\n").unwrap();
    std::fs::create_dir(out.path().join("ur5.c")).unwrap();
    std::fs::write(out.path().join("ur5.c/kept"), "kept\n").unwrap();
    let generate = || {
        quasidyn(&[
            "generate",
            "robots/ur5.toml",
            "--lang",
            "c",
            "--out",
            dir,
            "--quiet",
        ])
    };
    let run = generate();
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert_eq!(std::fs::read_to_string(&header).unwrap(), "old header\n");
    assert_eq!(files_in(out.path()), ["ur5.c", "ur5.h"], "{stderr}");
    assert_eq!(files_in(&out.path().join("ur5.c")), ["kept"]);
    let shown = squeezed(&stderr, out.path());
    assert!(shown.contains("DIR/ur5.c:"), "{stderr}");
    assert!(!shown.contains(".tmp"), "{stderr}");
    assert!(run.stdout.is_empty(), "no file reported written");

    // Without an old header, none is left.
    std::fs::remove_file(&header).unwrap();
    let run = generate();
    assert_eq!(run.status.code(), Some(1), "{}", text(&run.stderr));
    assert_eq!(files_in(out.path()), ["ur5.c"]);
}

/// A file that cannot be created is reported under its own name, not its temporary file's.
/// Root ignores a read-only directory, so the temporary file fails for another reason: its
/// name, longer than the output's, exceeds the file system's limit.
#[test]
fn an_output_that_cannot_be_written_is_named_in_the_error() {
    let out = tempfile::tempdir().unwrap();
    let name = "a".repeat(250);
    let run = quasidyn(&[
        "generate",
        "robots/ur5.toml",
        "--lang",
        "c",
        "--out",
        out.path().to_str().unwrap(),
        "--name",
        &name,
        "--quiet",
    ]);
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    let shown = squeezed(&stderr, out.path());
    assert!(shown.contains(&format!("DIR/{name}.h:")), "{stderr}");
    assert!(!shown.contains(".tmp"), "{stderr}");
    let left = files_in(out.path());
    assert!(left.is_empty(), "{left:?}");
}

/// The `void NAME_FUNCTION(` definitions of a C source, in order.
fn c_functions(source: &str, prefix: &str) -> Vec<String> {
    source
        .lines()
        .filter_map(|l| l.strip_prefix(&format!("void {prefix}_")))
        .map(|l| l.split('(').next().unwrap().to_owned())
        .collect()
}

#[test]
fn only_emits_exactly_the_requested_functions() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().to_str().unwrap();
    let run = quasidyn(&[
        "generate",
        "robots/ur5.toml",
        "--out",
        dir,
        "--only",
        "mass_matrix,inverse_dynamics,coriolis,gravity_derivatives,regressor",
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert_eq!(files_in(out.path()), ["ur5.c", "ur5.h"]);
    let source = std::fs::read_to_string(out.path().join("ur5.c")).unwrap();
    assert_eq!(
        c_functions(&source, "ur5"),
        [
            "inverse_dynamics",
            "mass_matrix",
            "coriolis",
            "gravity_derivatives",
            "regressor"
        ]
    );
    let header = std::fs::read_to_string(out.path().join("ur5.h")).unwrap();
    for constant in [
        "#define UR5_DOF 6",
        "ur5_joint_names[UR5_DOF]",
        "ur5_standard_parameters[60]",
    ] {
        assert!(header.contains(constant), "{constant} missing");
    }
    // Same values as the full module's functions: compiled with the strict flags, both.
    let full = out.path().join("full");
    let run = quasidyn(&[
        "generate",
        "robots/ur5.toml",
        "--out",
        full.to_str().unwrap(),
        "--name",
        "all",
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let main = r#"#include <math.h>
#include <stdio.h>
#include "ur5.h"
#include "full/all.h"
int main(void)
{
    const double q[6] = {0.1, -0.7, 1.2, 0.4, -0.3, 0.9};
    const double qd[6] = {0.5, 0.2, -0.4, 1.1, -0.8, 0.3};
    const double qdd[6] = {-0.2, 0.6, 0.1, -1.0, 0.4, 0.7};
    double a[6], b[6], ma[36], mb[36];
    double worst = 0.0;
    int i;
    ur5_inverse_dynamics(q, qd, qdd, a);
    all_inverse_dynamics(q, qd, qdd, b);
    for (i = 0; i < 6; ++i) worst = fmax(worst, fabs(a[i] - b[i]) / fmax(1.0, fabs(b[i])));
    ur5_mass_matrix(q, ma);
    all_mass_matrix(q, mb);
    for (i = 0; i < 36; ++i) worst = fmax(worst, fabs(ma[i] - mb[i]) / fmax(1.0, fabs(mb[i])));
    ur5_coriolis(q, qd, a);
    all_coriolis(q, qd, b);
    for (i = 0; i < 6; ++i) worst = fmax(worst, fabs(a[i] - b[i]) / fmax(1.0, fabs(b[i])));
    printf("%g\n", worst);
    return worst <= 1e-12 ? 0 : 1;
}
"#;
    std::fs::write(out.path().join("main.c"), main).unwrap();
    let gcc = Command::new("gcc")
        .args([
            "-std=c99",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            "main.c",
            "ur5.c",
            "full/all.c",
            "-o",
            "check",
            "-lm",
        ])
        .current_dir(out.path())
        .output()
        .expect("gcc runs");
    assert!(gcc.status.success(), "{}", text(&gcc.stderr));
    let check = Command::new(out.path().join("check")).output().unwrap();
    assert!(
        check.status.success(),
        "--only differs from the full module by {}",
        text(&check.stdout)
    );
}

#[test]
fn only_takes_frame_names_and_the_frames_family_in_rust() {
    let out = tempfile::tempdir().unwrap();
    let run = quasidyn(&[
        "generate",
        "robots/synthetic_tree.toml",
        "--lang",
        "rust",
        "--out",
        "-",
        "--only",
        "gravity",
        "--only",
        "jacobian_side_camera",
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let code = text(&run.stdout);
    let functions: Vec<&str> = code
        .lines()
        .filter_map(|l| l.strip_prefix("pub fn "))
        .map(|l| l.split('(').next().unwrap())
        .collect();
    assert_eq!(functions, ["gravity", "jacobian_side_camera"]);
    let run = quasidyn(&[
        "generate",
        "robots/synthetic_tree.toml",
        "--lang",
        "rust",
        "--out",
        out.path().to_str().unwrap(),
        "--only",
        "frames",
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let code = std::fs::read_to_string(out.path().join("synthetic_tree.rs")).unwrap();
    let count = |prefix: &str| code.matches(prefix).count();
    assert_eq!(count("pub fn forward_kinematics_"), 3);
    assert_eq!(count("pub fn jacobian_"), 3);
    assert_eq!(count("pub fn "), 6);
}

#[test]
fn only_with_an_unknown_name_writes_nothing() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    let run = quasidyn(&[
        "generate",
        "robots/ur5.toml",
        "--out",
        out.to_str().unwrap(),
        "--only",
        "inverse_dynamics,corriolis",
    ]);
    assert_eq!(run.status.code(), Some(1));
    let stderr = text(&run.stderr).replace(['│', '\n'], " ");
    let stderr = stderr.split_whitespace().collect::<Vec<_>>().join(" ");
    for part in [
        "no function `corriolis` for `ur5`; valid names:",
        "mass_matrix, forward_dynamics,",
        "coriolis, gyroscopic,",
        "regressor, base_regressor",
    ] {
        assert!(stderr.contains(part), "{part}: {stderr}");
    }
    assert!(!out.exists(), "no output directory for a failed run");
}

fn gcc(dir: &Path, args: &[&str]) {
    let mut all = vec!["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"];
    all.extend(args);
    let run = Command::new("gcc")
        .args(&all)
        .current_dir(dir)
        .output()
        .expect("gcc runs");
    assert!(run.status.success(), "gcc {all:?}: {}", text(&run.stderr));
}

#[test]
fn batched_c_compiles_strictly_and_vectorises() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().to_str().unwrap();
    let run = quasidyn(&["generate", "robots/ur5.toml", "--out", dir, "--batch", "8"]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let header = std::fs::read_to_string(out.path().join("ur5.h")).unwrap();
    for part in [
        "#define UR5_BATCH 8",
        "void ur5_inverse_dynamics_batch(const double (*UR5_RESTRICT q)[UR5_BATCH], const double \
         (*UR5_RESTRICT qd)[UR5_BATCH], const double (*UR5_RESTRICT qdd)[UR5_BATCH], double \
         (*UR5_RESTRICT tau)[UR5_BATCH]);",
        "void ur5_mass_matrix_batch(const double (*UR5_RESTRICT q)[UR5_BATCH], double \
         (*UR5_RESTRICT M)[UR5_BATCH]);",
        "void ur5_base_regressor_batch(",
    ] {
        assert!(header.contains(part), "{part} missing");
    }
    // One batched function per scalar one.
    let source = std::fs::read_to_string(out.path().join("ur5.c")).unwrap();
    let functions = c_functions(&source, "ur5");
    let batched = functions.iter().filter(|f| f.ends_with("_batch")).count();
    assert_eq!(batched * 2, functions.len());
    gcc(out.path(), &["-c", "ur5.c"]);
    // The loop over the states, sin and cos included, is vectorised.
    let run = Command::new("gcc")
        .args([
            "-std=c99",
            "-O3",
            "-mavx2",
            "-fopt-info-vec-optimized",
            "-c",
            "ur5.c",
            "-o",
            "ur5_avx2.o",
        ])
        .current_dir(out.path())
        .output()
        .expect("gcc runs");
    assert!(run.status.success(), "{}", text(&run.stderr));
    let report = text(&run.stderr);
    let id = source
        .find("void ur5_inverse_dynamics_batch(")
        .expect("defined");
    let loop_line = source[..id].lines().count()
        + source[id..]
            .lines()
            .enumerate()
            .find(|(_, l)| l.trim_start().starts_with("for (k = 0;"))
            .expect("a loop over the states")
            .0
        + 1;
    assert!(
        report
            .lines()
            .any(|l| l.starts_with(&format!("ur5.c:{loop_line}:"))
                && l.contains("optimized: loop vectorized")),
        "line {loop_line} not vectorised:\n{report}"
    );
}

#[test]
fn batched_c_of_every_kind_of_robot_agrees_with_scalar_calls() {
    let work = tempfile::tempdir().unwrap();
    // Symbolic parameters (a payload), a floating base (q of NQ entries), header-only floats.
    std::fs::write(
        work.path().join("payload.toml"),
        "name = \"payload\"\n[[body]]\njoint = \"revolute\"\naxis = \"z\"\nnext = [0.3, 0.0, 0.1]\n\
         mass = 2.0\ncom = [0.1, 0.0, 0.0]\n[[body]]\njoint = \"prismatic\"\naxis = \"x\"\n\
         mass = 1.0\ncom = [0.0, 0.05, 0.0]\nsymbolic = [\"mass\", \"com\"]\n",
    )
    .unwrap();
    let payload = work.path().join("payload.toml");
    let floater = root().join("tests/fixtures/floating/floater.toml");
    let dir = work.path().to_str().unwrap();
    for (input, extra) in [
        (payload.to_str().unwrap(), &[][..]),
        (floater.to_str().unwrap(), &[][..]),
        (
            "robots/gimbal.toml",
            &["--float", "--header-only", "--name", "gyro"][..],
        ),
    ] {
        let mut args = vec!["generate", input, "--out", dir, "--batch", "4"];
        args.extend(extra);
        let run = quasidyn(&args);
        assert!(run.status.success(), "{input}: {}", text(&run.stderr));
    }
    // Each robot's inverse dynamics, batched and state by state, at the same inputs.
    let main = r#"#include <math.h>
#include <stdio.h>
#include "payload.h"
#include "floater.h"
#include "gyro.h"

/* Batched and scalar values differ only through the batched sin and cos (2 ulp at most). */
static int differ(const double *a, const double *b, int n, double rel, const char *what)
{
    double scale = 1.0;
    int i;
    for (i = 0; i < n; ++i) scale = fmax(scale, fabs(b[i]));
    for (i = 0; i < n; ++i)
        if (!(fabs(a[i] - b[i]) <= rel * scale)) {
            printf("%s[%d]: batched %.17g, scalar %.17g\n", what, i, a[i], b[i]);
            return 1;
        }
    return 0;
}

int main(void)
{
    int bad = 0, i, k;
    {
        payload_params p = PAYLOAD_PARAMS_DEFAULT;
        double q[2][PAYLOAD_BATCH], qd[2][PAYLOAD_BATCH], qdd[2][PAYLOAD_BATCH];
        double tau[2][PAYLOAD_BATCH], one[2], s[3], sd[3], sdd[3];
        p.m2 = 1.7;
        for (k = 0; k < PAYLOAD_BATCH; ++k)
            for (i = 0; i < 2; ++i) {
                q[i][k] = 0.3 * k - 0.7 * i + 0.1;
                qd[i][k] = 0.5 - 0.2 * k + i;
                qdd[i][k] = 0.25 * k * i - 0.4;
            }
        payload_inverse_dynamics_batch(&p, (const double (*)[PAYLOAD_BATCH])q,
                                       (const double (*)[PAYLOAD_BATCH])qd,
                                       (const double (*)[PAYLOAD_BATCH])qdd, tau);
        for (k = 0; k < PAYLOAD_BATCH; ++k) {
            double col[2];
            for (i = 0; i < 2; ++i) {
                s[i] = q[i][k];
                sd[i] = qd[i][k];
                sdd[i] = qdd[i][k];
                col[i] = tau[i][k];
            }
            payload_inverse_dynamics(&p, s, sd, sdd, one);
            bad |= differ(col, one, 2, 1e-13, "payload");
        }
    }
    {
        double q[FLOATER_NQ][FLOATER_BATCH], v[FLOATER_NV][FLOATER_BATCH];
        double a[FLOATER_NV][FLOATER_BATCH], tau[FLOATER_NV][FLOATER_BATCH];
        double s[FLOATER_NQ], sv[FLOATER_NV], sa[FLOATER_NV], one[FLOATER_NV], col[FLOATER_NV];
        for (k = 0; k < FLOATER_BATCH; ++k) {
            for (i = 0; i < FLOATER_NQ; ++i) q[i][k] = 0.1 * (i + 1) - 0.13 * k;
            for (i = 0; i < FLOATER_NV; ++i) {
                v[i][k] = 0.2 * i - 0.3 * k + 0.05;
                a[i][k] = 0.15 * k - 0.1 * i;
            }
        }
        floater_inverse_dynamics_batch((const double (*)[FLOATER_BATCH])q,
                                       (const double (*)[FLOATER_BATCH])v,
                                       (const double (*)[FLOATER_BATCH])a, tau);
        for (k = 0; k < FLOATER_BATCH; ++k) {
            for (i = 0; i < FLOATER_NQ; ++i) s[i] = q[i][k];
            for (i = 0; i < FLOATER_NV; ++i) {
                sv[i] = v[i][k];
                sa[i] = a[i][k];
                col[i] = tau[i][k];
            }
            floater_inverse_dynamics(s, sv, sa, one);
            bad |= differ(col, one, FLOATER_NV, 1e-13, "floater");
        }
    }
    {
        float q[GYRO_DOF][GYRO_BATCH], M[GYRO_DOF * GYRO_DOF][GYRO_BATCH];
        float s[GYRO_DOF], one[GYRO_DOF * GYRO_DOF], col[GYRO_DOF * GYRO_DOF];
        double wide[GYRO_DOF * GYRO_DOF], wide_one[GYRO_DOF * GYRO_DOF];
        for (k = 0; k < GYRO_BATCH; ++k)
            for (i = 0; i < GYRO_DOF; ++i) q[i][k] = 0.4f * i - 0.3f * k;
        gyro_mass_matrix_batch((const float (*)[GYRO_BATCH])q, M);
        for (k = 0; k < GYRO_BATCH; ++k) {
            for (i = 0; i < GYRO_DOF; ++i) s[i] = q[i][k];
            for (i = 0; i < GYRO_DOF * GYRO_DOF; ++i) col[i] = M[i][k];
            gyro_mass_matrix(s, one);
            for (i = 0; i < GYRO_DOF * GYRO_DOF; ++i) {
                wide[i] = col[i];
                wide_one[i] = one[i];
            }
            bad |= differ(wide, wide_one, GYRO_DOF * GYRO_DOF, 1e-5, "gyro");
        }
    }
    if (!bad) printf("same\n");
    return bad;
}
"#;
    std::fs::write(work.path().join("main.c"), main).unwrap();
    // -ffast-math would fold the rounding sums of the sin and cos away: floor() then.
    for flags in [&["-O3"][..], &["-O3", "-march=x86-64-v3", "-ffast-math"]] {
        let mut args = flags.to_vec();
        args.extend(["main.c", "payload.c", "floater.c", "-o", "check", "-lm"]);
        gcc(work.path(), &args);
        let check = Command::new(work.path().join("check")).output().unwrap();
        assert!(check.status.success(), "{flags:?}: {}", text(&check.stdout));
        assert_eq!(text(&check.stdout), "same\n");
    }
}

#[test]
fn batch_size_out_of_range_writes_nothing() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    for n in ["0", "1025"] {
        let run = quasidyn(&[
            "generate",
            "robots/ur5.toml",
            "--out",
            out.to_str().unwrap(),
            "--batch",
            n,
        ]);
        assert_eq!(run.status.code(), Some(1));
        assert!(
            unwrapped(&text(&run.stderr)).contains(&format!(
                "batch size {n}: the batched functions take 1 to 1024 states"
            )),
            "{}",
            text(&run.stderr)
        );
        assert!(!out.exists(), "no output directory for a failed run");
    }
}

#[test]
fn rust_rejects_c_only_options() {
    let out = tempfile::tempdir().unwrap();
    let run = quasidyn(&[
        "generate",
        "robots/ur5.toml",
        "--lang",
        "rust",
        "--float",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(1));
    assert!(text(&run.stderr).contains("C output only"));
    assert!(files_in(out.path()).is_empty());
}

#[test]
fn bad_name_is_rejected() {
    let out = tempfile::tempdir().unwrap();
    let run = quasidyn(&[
        "generate",
        "robots/ur5.toml",
        "--name",
        "9lives",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(1));
    assert!(text(&run.stderr).contains("invalid name `9lives`"));
}

/// The Panda's whole tree, whose second finger mimics the first, generates in its eight
/// independent coordinates, naming its nine joints apart; a mimic joint whose master is locked is refused, located, with
/// nothing written.
#[test]
fn urdf_tree_with_mimic_joints_generates_in_independent_coordinates() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().to_str().unwrap();
    let urdf = "tests/fixtures/urdf/panda.urdf";
    let run = quasidyn(&["generate", urdf, "--out", dir]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert_eq!(files_in(out.path()), ["panda.c", "panda.h"]);
    let header = std::fs::read_to_string(out.path().join("panda.h")).unwrap();
    assert!(header.contains("#define PANDA_DOF 8"), "{header}");
    // The coordinates' names leave the follower out; every joint's (the joint wrenches' rows)
    // have it last, as the URDF.
    let line = |start: &str| {
        header
            .lines()
            .find(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("{start}: {header}"))
            .to_owned()
    };
    let coordinates = line("static const char *const panda_joint_names[PANDA_DOF]");
    assert!(
        !coordinates.contains("\"panda_finger_joint2\""),
        "{coordinates}"
    );
    assert!(header.contains("#define PANDA_NJOINTS 9"), "{header}");
    let every = line("static const char *const panda_all_joint_names[PANDA_NJOINTS]");
    assert!(
        every.ends_with("\"panda_finger_joint1\", \"panda_finger_joint2\" };"),
        "{every}"
    );

    let locked = tempfile::tempdir().unwrap();
    let dir = locked.path().to_str().unwrap();
    let run = quasidyn(&[
        "generate",
        urdf,
        "--lock",
        "panda_finger_joint1",
        "--out",
        dir,
    ]);
    assert_eq!(run.status.code(), Some(1));
    let stderr = text(&run.stderr);
    for part in [
        "panda.urdf:188:5: joint[panda_finger_joint2].mimic:",
        "follows `panda_finger_joint1`, which is no",
    ] {
        assert!(stderr.contains(part), "{part}: {stderr}");
    }
    assert!(files_in(locked.path()).is_empty());

    // The velocity split and the static reactions too (a row per joint, the follower's too).
    let run = quasidyn(&[
        "stats",
        urdf,
        "--only",
        "centrifugal,static_joint_reactions",
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(text(&run.stdout).contains("centrifugal"));
    assert!(
        header.contains("void panda_static_joint_reactions("),
        "{header}"
    );
    let run = quasidyn(&["generate", urdf, "--tip", "panda_hand_tcp", "--out", dir]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert_eq!(files_in(locked.path()), ["panda.c", "panda.h"]);
}

/// The elastic functions are the ones a robot with joints that follow others does not have
/// yet: asked for by name, they are refused with the reason; the others generate.
#[test]
fn elastic_functions_with_couplings_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("elastic_mimic.toml");
    std::fs::write(&spec, ELASTIC_MIMIC).unwrap();
    let spec = spec.to_str().unwrap();
    let run = quasidyn(&["stats", spec, "--only", "static_deflection"]);
    assert_eq!(run.status.code(), Some(1));
    let stderr = text(&run.stderr);
    assert!(
        stderr.contains("some of its") && stderr.contains("but the elastic ones"),
        "{stderr}"
    );
    let run = quasidyn(&[
        "stats",
        spec,
        "--only",
        "centrifugal,static_joint_reactions",
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
}

/// A chain with an elastic turntable whose elbow carries a link that follows it.
const ELASTIC_MIMIC: &str = r#"version = 1
name = "elastic_mimic"
gravity = [0.0, 0.0, -9.81]

[[body]]
name = "turntable"
joint = "revolute"
axis = "z"
mass = 2.0
com = [0.0, 0.0, -0.02]
inertia = { ixx = 0.006, iyy = 0.006, izz = 0.01 }
stiffness = 1.0e4

[[body]]
name = "upper"
joint_name = "elbow"
joint = "revolute"
axis = "x"
next = [0.0, 0.5, 0.0]
mass = 1.2
com = [0.0, 0.25, 0.0]
inertia = { ixx = 0.02527, iyy = 0.00054, izz = 0.02527 }

[[body]]
name = "lower"
joint = "revolute"
axis = "x"
next = [0.0, 0.4, 0.0]
mass = 0.6
com = [0.0, 0.2, 0.0]
inertia = { ixx = 0.00806, iyy = 0.00012, izz = 0.00806 }
mimic = { joint = "elbow", multiplier = -1.0 }
"#;

/// Locking the fingers (`--lock`) imports the Panda's whole tree, mimic joint and all; a
/// malformed lock is a usage error.
#[test]
fn locked_fingers_import_the_whole_panda() {
    let urdf = "tests/fixtures/urdf/panda.urdf";
    let run = quasidyn(&[
        "check",
        urdf,
        "--lock",
        "panda_finger_joint1=0.02",
        "--lock",
        "panda_finger_joint2=0.02",
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert_eq!(text(&run.stdout), "ok: panda, 7 bodies\n");
    // The second finger's mimic tag, off the path to the hand, is listed as ignored.
    let run = quasidyn(&["check", "--verbose", urdf, "--tip", "panda_hand_tcp"]);
    assert!(
        text(&run.stdout).contains(
            "panda.urdf:188:5: joint[panda_finger_joint2].mimic: the mimic tag of a joint that \
             is locked"
        ),
        "{}",
        text(&run.stdout)
    );
    let run = quasidyn(&["check", urdf, "--lock", "panda_joint1=left"]);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        text(&run.stderr).contains("is not a number"),
        "{}",
        text(&run.stderr)
    );
    let run = quasidyn(&["check", urdf, "--lock", "panda_joint9"]);
    assert_eq!(run.status.code(), Some(1));
    assert!(
        text(&run.stderr).contains("no joint named `panda_joint9`"),
        "{}",
        text(&run.stderr)
    );
}

/// `check --verbose` lists what an MJCF file holds that the functions do not use, located;
/// `--ignore-equality` is for MJCF files only.
#[test]
fn check_verbose_lists_what_an_mjcf_file_leaves_out() {
    let run = quasidyn(&[
        "check",
        "--verbose",
        "tests/fixtures/mjcf/synthetic_degree.xml",
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let stdout = text(&run.stdout);
    for line in [
        "elements ignored (they do not enter the generated functions):",
        "synthetic_degree.xml:67:5: fixed[couple]: a tendon coupling joints yaw, pitch",
        "synthetic_degree.xml:70:5: motor: an actuator (only its armature is read)",
        "synthetic_degree.xml:73:11: jointpos: a sensor",
    ] {
        assert!(stdout.contains(line), "{line}: {stdout}");
    }
    let run = quasidyn(&["check", "tests/fixtures/urdf/ur5.urdf", "--ignore-equality"]);
    assert_eq!(run.status.code(), Some(1));
    assert!(text(&run.stderr).contains("MJCF"), "{}", text(&run.stderr));
}

#[test]
fn urdf_tree_gets_a_function_per_frame() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().to_str().unwrap();
    let urdf = "tests/fixtures/urdf/synthetic_tree.urdf";
    let run = quasidyn(&[
        "generate", urdf, "--frame", "torso", "--frame", "head", "--out", dir,
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let header = std::fs::read_to_string(out.path().join("synthetic_tree.h")).unwrap();
    for frame in [
        "torso",
        "head",
        "head_link",
        "left_tool",
        "right_camera",
        "right_hand",
        "side_arm",
    ] {
        for f in ["forward_kinematics", "jacobian"] {
            let name = format!("synthetic_tree_{f}_{frame}(");
            assert!(header.contains(&name), "{name} missing");
        }
    }
    assert!(!header.contains("synthetic_tree_forward_kinematics("));
    // A link fixed to the base never moves: no frame, and asking for one is an error.
    assert!(!header.contains("_sensor("));
    let run = quasidyn(&["check", urdf, "--frame", "sensor"]);
    assert_eq!(run.status.code(), Some(1));
    assert!(
        text(&run.stderr).contains("synthetic_tree.urdf:19:3: link[sensor]:"),
        "{}",
        text(&run.stderr)
    );
    // --frame and --no-snap together: the snaps of a tree are listed, or none are made.
    let hand = "tests/fixtures/urdf/allegro_left_hand.urdf";
    let run = quasidyn(&["check", "--verbose", hand, "--frame", "link_1.0"]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(
        text(&run.stdout).contains("body[1].com.y: -6.938893903907228e-18 -> 0"),
        "{}",
        text(&run.stdout)
    );
    let run = quasidyn(&[
        "check",
        "--verbose",
        hand,
        "--frame",
        "link_1.0",
        "--no-snap",
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let stdout = text(&run.stdout);
    assert!(
        stdout
            .starts_with("ok: allegro_hand_left, 16 bodies\nno value snapped\n16 elements ignored"),
        "{stdout}"
    );
    let run = quasidyn(&["check", urdf, "--frame", "nose"]);
    assert_eq!(run.status.code(), Some(1));
    assert!(
        text(&run.stderr).contains("no link named `nose`"),
        "{}",
        text(&run.stderr)
    );
}

#[test]
fn stats_lists_every_function() {
    let run = quasidyn(&["stats", "robots/planar3r.toml"]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let stdout = text(&run.stdout);
    for name in [
        "inverse_dynamics",
        "gravity",
        "nonlinear_effects",
        "mass_matrix",
        "forward_dynamics",
        "forward_kinematics",
        "jacobian",
        "centrifugal",
        "coriolis",
        "gyroscopic",
        "static_joint_reactions",
        "inverse_dynamics_derivatives",
        "gravity_derivatives",
        "forward_dynamics_derivatives",
        "regressor",
        "base_regressor",
    ] {
        assert!(stdout.contains(name), "{name} missing:\n{stdout}");
    }
}

#[test]
fn stats_only_counts_the_functions_named() {
    let row = |stdout: &str, name: &str| -> Option<Vec<String>> {
        stdout
            .lines()
            .map(|l| l.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
            .find(|fields| fields.first().map(String::as_str) == Some(name))
    };
    let full = quasidyn(&["stats", "robots/ur5.toml"]);
    assert!(full.status.success(), "{}", text(&full.stderr));
    let run = quasidyn(&["stats", "robots/ur5.toml", "--only", "gravity,coriolis"]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let stdout = text(&run.stdout);
    // Gravity's code does not depend on what else is generated with it.
    assert_eq!(row(&stdout, "gravity"), row(&text(&full.stdout), "gravity"));
    assert!(row(&stdout, "coriolis").is_some(), "{stdout}");
    for absent in ["inverse_dynamics", "mass_matrix", "gyroscopic", "regressor"] {
        assert!(row(&stdout, absent).is_none(), "{absent} listed:\n{stdout}");
    }
    let bad = quasidyn(&["stats", "robots/ur5.toml", "--only", "coriolus"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        text(&bad.stderr).contains("coriolus"),
        "{}",
        text(&bad.stderr)
    );
}

#[test]
fn import_writes_an_equivalent_spec() {
    let table = "tests/fixtures/dh/rx90.toml";
    let run = quasidyn(&["import", table]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let spec = text(&run.stdout);
    let from_spec = quasidyn_codegen::parse_spec(&spec, "rx90.toml").expect("valid spec");
    let from_table = quasidyn_codegen::load_input(&root().join(table), None).unwrap();
    assert_eq!(from_spec, from_table);
}

#[test]
fn long_generations_report_progress_on_stderr_only() {
    // `--progress-after 0` (hidden) stands for a generation longer than a second.
    let run = quasidyn(&[
        "generate",
        "robots/planar3r.toml",
        "--lang",
        "rust",
        "--out",
        "-",
        "--progress-after",
        "0",
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let stderr = text(&run.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines[0], "quasidyn: generating planar3r (3 joints)");
    assert!(
        lines[1].ends_with("derive: part 1/5: dynamics and kinematics"),
        "{stderr}"
    );
    for part in [
        "derive: part 2/5: velocity split (centrifugal, coriolis, gyroscopic)",
        "derive: part 5/5: base parameters and base regressor",
        "simplify: function 1/16: inverse_dynamics",
        "simplify: function 9/16: coriolis",
        "simplify: function 16/16: base_regressor",
        "emit: function 1/16: inverse_dynamics",
        "emit: function 16/16: base_regressor",
    ] {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("quasidyn: ") && l.ends_with(part)),
            "{part} missing:\n{stderr}"
        );
    }
    assert!(
        lines
            .last()
            .unwrap()
            .starts_with("quasidyn: planar3r (3 joints) generated in "),
        "{stderr}"
    );
    // Stdout holds the generated code and nothing else: the same as without progress.
    let (_, code) = quasidyn_codegen::Builder::new()
        .spec(root().join("robots/planar3r.toml"))
        .render()
        .unwrap();
    assert!(
        text(&run.stdout) == code,
        "stdout is not the generated code"
    );

    // --quiet: nothing on stderr; a short generation reports nothing either.
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().to_str().unwrap();
    for extra in [&["--quiet", "--progress-after", "0"][..], &[]] {
        let mut args = vec!["generate", "robots/planar3r.toml", "--out", dir];
        args.extend(extra);
        let run = quasidyn(&args);
        assert!(run.status.success(), "{}", text(&run.stderr));
        assert_eq!(text(&run.stderr), "", "{extra:?}");
        assert_eq!(
            text(&run.stdout),
            format!(
                "{}\n{}\n",
                out.path().join("planar3r.h").display(),
                out.path().join("planar3r.c").display()
            )
        );
    }
}

/// An elastic robot: every C variant compiles with the strict flags, `stats` lists the elastic
/// functions, and a bad elastic key leaves no files.
#[test]
fn elastic_robot_c_variants_compile_and_bad_elasticity_leaves_no_files() {
    for (options, files) in [
        (&[][..], &["ur5_elastic.c", "ur5_elastic.h"][..]),
        (&["--float"][..], &["ur5_elastic.c", "ur5_elastic.h"][..]),
        (&["--header-only"][..], &["ur5_elastic.h"][..]),
    ] {
        let out = tempfile::tempdir().unwrap();
        let mut args = vec![
            "generate",
            "robots/ur5_elastic.toml",
            "--out",
            out.path().to_str().unwrap(),
        ];
        args.extend(options);
        let run = quasidyn(&args);
        assert!(run.status.success(), "{}", text(&run.stderr));
        assert_eq!(files_in(out.path()), files);
        let unit = out.path().join("unit.c");
        let body = if files.len() == 2 {
            "#include \"ur5_elastic.c\"\n"
        } else {
            "#include \"ur5_elastic.h\"\nint unit_nbeta(void);\nint unit_nbeta(void) { return UR5_ELASTIC_NBETA + UR5_ELASTIC_NW; }\n"
        };
        std::fs::write(&unit, body).unwrap();
        let gcc = Command::new("gcc")
            .args([
                "-std=c99",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-pedantic",
                "-c",
                "unit.c",
                "-o",
                "unit.o",
            ])
            .current_dir(out.path())
            .output()
            .expect("gcc runs");
        assert!(gcc.status.success(), "{options:?}: {}", text(&gcc.stderr));
        let header = std::fs::read_to_string(out.path().join("ur5_elastic.h")).unwrap();
        for f in [
            "ur5_elastic_elastic_forward_kinematics(",
            "ur5_elastic_compliance_jacobians(",
            "ur5_elastic_elastic_velocity(",
            "ur5_elastic_elastic_acceleration(",
            "ur5_elastic_static_deflection(",
            "ur5_elastic_deflected_tool_error(",
        ] {
            assert!(header.contains(f), "{f} missing");
        }
    }

    let run = quasidyn(&["stats", "robots/ur5_elastic.toml"]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let stdout = text(&run.stdout);
    for name in [
        "elastic_forward_kinematics",
        "compliance_jacobians",
        "elastic_velocity",
        "elastic_acceleration",
        "static_deflection",
        "deflected_tool_error",
    ] {
        assert!(stdout.contains(name), "{name} missing:\n{stdout}");
    }

    let run = quasidyn(&[
        "equations",
        "robots/two_link_elastic.toml",
        "--function",
        "elastic_velocity",
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let stdout = text(&run.stdout);
    assert!(
        stdout.contains("\nF1_1_1 = ") && stdout.contains("\nF4_3_2 = "),
        "{stdout}"
    );
    let run = quasidyn(&[
        "equations",
        "robots/ur5.toml",
        "--function",
        "static_deflection",
    ]);
    assert_eq!(run.status.code(), Some(1));
    assert!(
        text(&run.stderr).contains("no function `static_deflection` for `ur5`"),
        "{}",
        text(&run.stderr)
    );

    let work = tempfile::tempdir().unwrap();
    let spec = work.path().join("bad.toml");
    std::fs::write(
        &spec,
        "name = \"bad\"\n[[body]]\njoint = \"revolute\"\naxis = \"z\"\nmass = 1.0\nstiffness = -5.0\n",
    )
    .unwrap();
    let out = work.path().join("out");
    let run = quasidyn(&[
        "generate",
        spec.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(1));
    let stderr = text(&run.stderr);
    assert!(
        stderr.contains("bad.toml:6:13: body[1].stiffness:"),
        "{stderr}"
    );
    assert!(!out.exists(), "no output directory for a failed run");
}

/// Runs `main.c` against the generated `NAME.c` in `dir` compiled with the strict flags and
/// `extra`; returns what it printed, one value per line.
fn compile_and_run(dir: &Path, name: &str, extra: &[&str], exe: &str) -> Vec<String> {
    let source = format!("{name}.c");
    let mut args = vec!["-O2"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["main.c", &source, "-o", exe, "-lm"]);
    gcc(dir, &args);
    let run = Command::new(dir.join(exe)).output().unwrap();
    assert!(run.status.success(), "{}", text(&run.stderr));
    text(&run.stdout).lines().map(str::to_owned).collect()
}

/// The sine and cosine block (`NAME_SINCOS`) takes the written-out polynomial where the C is
/// compiled for x86-64 (SSE2, and AVX2 with fused multiply-adds) and the C library's
/// `sin`/`cos` where `NAME_LIBM_TRIG` is defined: the builds of the same file give the same
/// forces and mass matrix to rounding (they differ by a few ulp of the sines and cosines, and
/// with AVX2 by the fused multiply-adds), in double and single precision, and the polynomial
/// builds do run the polynomial (they differ from the library's bits somewhere). With the
/// library's `sin`/`cos` and `NAME_NO_FMA`, the AVX2 build gives the baseline's bits.
#[test]
fn sine_and_cosine_block_agrees_with_the_c_library() {
    let avx2 = std::fs::read_to_string("/proc/cpuinfo").is_ok_and(|s| s.contains(" avx2"));
    if !avx2 {
        eprintln!("no AVX2 on this machine: the AVX2 build is not checked");
    }
    // Elsewhere than x86-64 the block is not defined: the default build is the library's.
    let sse2 = cfg!(target_arch = "x86_64");
    for (spec, name, float) in [
        ("robots/hand.toml", "hand", false),
        ("robots/ur5.toml", "ur5", true),
    ] {
        let out = tempfile::tempdir().unwrap();
        let dir = out.path().to_str().unwrap();
        let mut args = vec!["generate", spec, "--lang", "c", "--out", dir];
        if float {
            args.push("--float");
        }
        let run = quasidyn(&args);
        assert!(run.status.success(), "{}", text(&run.stderr));
        let header = std::fs::read_to_string(out.path().join(format!("{name}.h"))).unwrap();
        let upper = name.to_ascii_uppercase();
        assert!(header.contains(&format!("#define {upper}_SINCOS(N, a, s, c)")));
        let real = if float { "float" } else { "double" };
        let main = format!(
            r#"#include <stdio.h>
#include "{name}.h"
int main(void)
{{
    {real} q[{upper}_DOF], qd[{upper}_DOF], qdd[{upper}_DOF], tau[{upper}_DOF];
    {real} M[{upper}_DOF * {upper}_DOF];
    unsigned x = 12345u;
    int k, i;
    for (k = 0; k < 200; ++k) {{
        for (i = 0; i < {upper}_DOF; ++i) {{
            x = x * 1103515245u + 12345u; q[i] = ({real})(((x >> 8) / 16777216.0 - 0.5) * 12.0);
            x = x * 1103515245u + 12345u; qd[i] = ({real})(((x >> 8) / 16777216.0 - 0.5) * 4.0);
            x = x * 1103515245u + 12345u; qdd[i] = ({real})(((x >> 8) / 16777216.0 - 0.5) * 4.0);
        }}
        {name}_inverse_dynamics(q, qd, qdd, tau);
        {name}_mass_matrix(q, M);
        for (i = 0; i < {upper}_DOF; ++i) printf("%.17g\n", (double)tau[i]);
        for (i = 0; i < {upper}_DOF * {upper}_DOF; ++i) printf("%.17g\n", (double)M[i]);
    }}
    return 0;
}}
"#
        );
        std::fs::write(out.path().join("main.c"), main).unwrap();
        let libm = format!("-D{upper}_LIBM_TRIG");
        let library = compile_and_run(out.path(), name, &[&libm], "library");
        let mut builds = Vec::new();
        if sse2 {
            builds.push(("SSE2", compile_and_run(out.path(), name, &[], "vector2")));
        }
        if avx2 {
            // Without fused multiply-adds (`NAME_NO_FMA`) the AVX2 build is the baseline's code.
            let no_fma = format!("-D{upper}_NO_FMA");
            let forced = compile_and_run(
                out.path(),
                name,
                &["-march=x86-64-v3", &libm, &no_fma],
                "forced",
            );
            assert_eq!(library, forced, "{name}: {upper}_LIBM_TRIG, {upper}_NO_FMA");
            builds.push((
                "AVX2",
                compile_and_run(out.path(), name, &["-march=x86-64-v3"], "vector4"),
            ));
        }
        let parse = |v: &[String]| -> Vec<f64> { v.iter().map(|s| s.parse().unwrap()).collect() };
        let a = parse(&library);
        for (build, vector) in builds {
            assert_eq!(library.len(), vector.len());
            let b = parse(&vector);
            // Per state: tau then M, compared against the largest entry of each.
            let n = if float { 6 } else { 16 };
            let rel = if float { 1e-5 } else { 1e-13 };
            let mut differ = 0;
            for (sa, sb) in a.chunks(n + n * n).zip(b.chunks(n + n * n)) {
                for (part_a, part_b) in [(&sa[..n], &sb[..n]), (&sa[n..], &sb[n..])] {
                    let scale = part_a.iter().fold(1e-300_f64, |m, x| m.max(x.abs()));
                    for (x, y) in part_a.iter().zip(part_b) {
                        assert!(
                            (x - y).abs() <= rel * scale,
                            "{name} {build}: polynomial {y} against library {x}"
                        );
                        differ += usize::from(x != y);
                    }
                }
            }
            assert!(
                differ > 0,
                "{name} {build}: the build gave the library's bits"
            );
        }
    }
}

/// `--split`: each function cut into parts in a source file of its own, the header as without
/// it; the files compile under the strict flags and link into a program that calls them; a
/// run without `--split` removes the split files of the earlier run (marked as such) and keeps
/// other files of the directory.
#[test]
fn split_writes_long_functions_into_their_own_sources() {
    let (split, whole) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let only = "forward_dynamics_derivatives,mass_matrix";
    let generate = |dir: &Path, extra: &[&str]| {
        let mut args = vec![
            "generate",
            "robots/quadruped_floating.toml",
            "--lang",
            "c",
            "--only",
            only,
            "--out",
            dir.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let run = quasidyn(&args);
        assert!(run.status.success(), "{}", text(&run.stderr));
        run
    };
    let run = generate(split.path(), &["--split"]);
    let unit = "quadruped_floating_forward_dynamics_derivatives.c";
    assert_eq!(
        files_in(split.path()),
        ["quadruped_floating.c", "quadruped_floating.h", unit]
    );
    assert!(text(&run.stdout).contains(unit));
    generate(whole.path(), &[]);
    let read = |dir: &Path, file: &str| std::fs::read_to_string(dir.join(file)).unwrap();
    assert_eq!(
        read(split.path(), "quadruped_floating.h"),
        read(whole.path(), "quadruped_floating.h"),
        "the same header"
    );
    let (main, long) = (
        read(split.path(), "quadruped_floating.c"),
        read(split.path(), unit),
    );
    let definition = "void quadruped_floating_forward_dynamics_derivatives(";
    assert!(long.contains(definition) && !main.contains(definition));
    assert!(main.contains("void quadruped_floating_mass_matrix("));
    let program = "#include \"quadruped_floating.h\"\n#include <stdio.h>\n\
        int main(void) {\n\
          double q[QUADRUPED_FLOATING_NQ] = {0.1, 0.2, 0.3, 0.0, 0.0, 0.0, 1.0};\n\
          double v[QUADRUPED_FLOATING_NV] = {0.0}, tau[QUADRUPED_FLOATING_NV] = {0.0};\n\
          static double dq[QUADRUPED_FLOATING_NV * QUADRUPED_FLOATING_NV];\n\
          static double dv[QUADRUPED_FLOATING_NV * QUADRUPED_FLOATING_NV];\n\
          static double minv[QUADRUPED_FLOATING_NV * QUADRUPED_FLOATING_NV];\n\
          static double m[QUADRUPED_FLOATING_NV * QUADRUPED_FLOATING_NV];\n\
          quadruped_floating_forward_dynamics_derivatives(q, v, tau, dq, dv, minv);\n\
          quadruped_floating_mass_matrix(q, m);\n\
          printf(\"%.17g %.17g\\n\", minv[0], m[0]);\n\
          return 0;\n\
        }\n";
    std::fs::write(split.path().join("main.c"), program).unwrap();
    let gcc = Command::new("gcc")
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"])
        .args([
            "main.c",
            "quadruped_floating.c",
            unit,
            "-lm",
            "-o",
            "program",
        ])
        .current_dir(split.path())
        .output()
        .expect("gcc runs");
    assert!(gcc.status.success(), "{}", text(&gcc.stderr));
    let ran = Command::new(split.path().join("program"))
        .output()
        .expect("the program runs");
    let printed: Vec<f64> = text(&ran.stdout)
        .split_whitespace()
        .map(|x| x.parse().unwrap())
        .collect();
    // The base's first diagonal entry of M is the whole mass; of M^-1 positive.
    assert!(printed[0] > 0.0 && printed[1] > 0.0, "{printed:?}");
    std::fs::remove_file(split.path().join("main.c")).unwrap();
    std::fs::remove_file(split.path().join("program")).unwrap();
    // A file of the user's with the same prefix stays; the earlier run's split file goes.
    let user = "quadruped_floating_user.c";
    std::fs::write(split.path().join(user), "int user;\n").unwrap();
    generate(split.path(), &[]);
    assert_eq!(
        files_in(split.path()),
        ["quadruped_floating.c", "quadruped_floating.h", user]
    );
    assert_eq!(
        read(split.path(), "quadruped_floating.c"),
        read(whole.path(), "quadruped_floating.c")
    );
    // Rust output has no C source files to split.
    let rust = tempfile::tempdir().unwrap();
    let run = quasidyn(&[
        "generate",
        "robots/planar3r.toml",
        "--lang",
        "rust",
        "--split",
        "--out",
        rust.path().to_str().unwrap(),
    ]);
    assert!(!run.status.success());
    assert!(
        unwrapped(&text(&run.stderr)).contains("--split apply to C output only"),
        "{}",
        text(&run.stderr)
    );
    assert!(files_in(rust.path()).is_empty());
}

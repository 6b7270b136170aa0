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
        "name = \"bad\"\n[[body]]\njoint = \"revolute\"\naxis = \"z\"\nmass = 0\n",
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

#[test]
fn urdf_tree_with_mimic_joints_is_refused_and_tip_picks_a_chain() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().to_str().unwrap();
    let urdf = "tests/fixtures/urdf/panda.urdf";
    // Without --tip, the whole tree: its second finger mimics the first.
    let run = quasidyn(&["generate", urdf, "--out", dir]);
    assert_eq!(run.status.code(), Some(1));
    let stderr = text(&run.stderr);
    for part in [
        "panda.urdf:188:5: joint[panda_finger_joint2].mimic:",
        "mimic joints are not supported",
    ] {
        assert!(stderr.contains(part), "{part}: {stderr}");
    }
    assert!(files_in(out.path()).is_empty());
    let run = quasidyn(&["generate", urdf, "--tip", "panda_hand_tcp", "--out", dir]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert_eq!(files_in(out.path()), ["panda.c", "panda.h"]);
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
    assert_eq!(
        text(&run.stdout),
        "ok: allegro_hand_left, 16 bodies\nno value snapped\n"
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
fn long_generations_report_progress() {
    let work = tempfile::tempdir().unwrap();
    let mut spec = String::from("name = \"snake\"\n");
    for i in 0..10 {
        let axis = ["x", "y", "z"][i % 3];
        spec.push_str(&format!(
            "[[body]]\njoint = \"revolute\"\naxis = \"{axis}\"\nnext = [0.1, 0.0, 0.02]\n\
             mass = 1.0\ncom = [0.05, 0.0, 0.0]\n\
             inertia = {{ ixx = 0.01, iyy = 0.012, izz = 0.013 }}\n"
        ));
    }
    let path = work.path().join("snake.toml");
    std::fs::write(&path, spec).unwrap();
    let out = work.path().join("out");
    let run = quasidyn(&[
        "generate",
        path.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let stderr = text(&run.stderr);
    assert!(stderr.contains("deriving snake (10 joints)"), "{stderr}");
    assert_eq!(files_in(&out), ["snake.c", "snake.h"]);
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
    assert!(text(&run.stderr).contains("not generated for ur5"));

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

//! The checks of the fuzz targets (fuzz/, docs/fuzzing.md), without the nightly toolchain: on
//! the fixtures they are seeded with, and on every input with which they found a bug
//! (tests/fuzz_found/TARGET/; the generation target's as the specs they stand for). A reader accepts its input and the robot it read is written as a
//! spec that reads back equal, or refuses it with an error located in the file it names.

use std::path::{Path, PathBuf};

use quasidyn_codegen::import::{
    import_dh, import_mjcf_reading, import_urdf_with, ImportError, ImportOptions,
};
use quasidyn_codegen::{c_code, parse_spec, rust_code, to_toml, COptions, Robot};

/// A target's reader and checks: the robot, if the input is accepted.
type Reader = fn(&Path) -> Option<Robot>;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The files of `dir` whose names end with `ext`, sorted.
fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|p| p.to_str().is_some_and(|s| s.ends_with(ext)))
        .collect();
    files.sort();
    files
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn writes_back(robot: &Robot, input: &Path) {
    let written = to_toml(robot);
    match parse_spec(&written, "written.toml") {
        Ok(back) => assert!(
            back == *robot,
            "{}: reads back differently:\n{written}",
            input.display()
        ),
        Err(e) => panic!("{}: {e}\n{written}", input.display()),
    }
}

/// An import error names `file` (or, for an MJCF include, a file beside it) and a line of it.
fn located(e: &ImportError, text: &str, file: &str) {
    let shown = e.to_string();
    let at = e.location();
    assert!(shown.starts_with(&format!("{}:", at.file)), "{shown}");
    assert!(at.line >= 1, "{shown}");
    if at.file == file {
        assert!(
            at.line as usize <= text.lines().count().max(1) + 1,
            "{shown}"
        );
    } else {
        let dir = file.rfind('/').map_or("", |cut| &file[..=cut]);
        assert!(!dir.is_empty() && at.file.starts_with(dir), "{shown}");
    }
}

fn spec(path: &Path) -> Option<Robot> {
    let text = read(path);
    match parse_spec(&text, "fuzz.toml") {
        Ok(robot) => {
            writes_back(&robot, path);
            Some(robot)
        }
        Err(e) => {
            let shown = e.to_string();
            assert!(shown.starts_with("fuzz.toml:"), "{shown}");
            let line = e.line().unwrap_or(0);
            assert!(line >= 1 && line <= text.lines().count() + 1, "{shown}");
            None
        }
    }
}

fn dh(path: &Path) -> Option<Robot> {
    let text = read(path);
    match import_dh(&text, "fuzz.dh") {
        Ok(robot) => {
            writes_back(&robot, path);
            Some(robot)
        }
        Err(e) => {
            located(&e, &text, "fuzz.dh");
            None
        }
    }
}

/// With the default options and, if accepted, on a floating base without snapping.
fn urdf(path: &Path) -> Option<Robot> {
    let text = read(path);
    let robot = match import_urdf_with(&text, "fuzz.urdf", &ImportOptions::default()) {
        Ok(imported) => imported.robot,
        Err(e) => {
            located(&e, &text, "fuzz.urdf");
            return None;
        }
    };
    writes_back(&robot, path);
    let floating = ImportOptions {
        floating_base: true,
        snap: false,
        ..ImportOptions::default()
    };
    match import_urdf_with(&text, "fuzz.urdf", &floating) {
        Ok(imported) => writes_back(&imported.robot, path),
        Err(e) => located(&e, &text, "fuzz.urdf"),
    }
    Some(robot)
}

/// The main file `fuzz/model.xml`, then after each NUL byte `fuzz/a.xml` and `fuzz/b.xml`; the
/// fixtures' included parts from tests/fixtures/mjcf/ (as the fuzz target serves them).
fn mjcf(path: &Path) -> Option<Robot> {
    let input = read(path);
    let mut files = input.split('\0');
    let text = files.next().unwrap_or_default();
    let (a, b) = (files.next(), files.next());
    let fixtures = repo().join("tests/fixtures/mjcf");
    let read = |included: &str| -> Result<String, String> {
        let served = match included {
            "fuzz/model.xml" => Some(text),
            "fuzz/a.xml" => a,
            "fuzz/b.xml" => b,
            _ => None,
        };
        match (served, included.strip_prefix("fuzz/")) {
            (Some(text), _) => Ok(text.to_owned()),
            (None, Some(part)) if part.contains('/') && !part.contains("..") => {
                std::fs::read_to_string(fixtures.join(part)).map_err(|e| e.to_string())
            }
            _ => Err("no such file".to_owned()),
        }
    };
    match import_mjcf_reading(text, "fuzz/model.xml", &ImportOptions::default(), &read) {
        Ok(imported) => {
            writes_back(&imported.robot, path);
            Some(imported.robot)
        }
        Err(e) => {
            located(&e, text, "fuzz/model.xml");
            None
        }
    }
}

/// The generation target's robots, kept as the specs they stand for: accepted, and generated
/// in Rust and C with the default functions.
fn generate(path: &Path) -> Option<Robot> {
    let robot = spec(path)?;
    rust_code(&robot, "small").unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    c_code(&robot, "small", &COptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Some(robot)
}

/// The checks hold on every seed of the fuzz targets (a URDF tree that needs a tip is refused,
/// located).
#[test]
fn every_seed_reads_back_or_is_refused_located() {
    let fixtures = repo().join("tests/fixtures");
    let mut specs = files(&repo().join("robots"), ".toml");
    for dir in ["armature", "contacts", "floating"] {
        specs.extend(files(&fixtures.join(dir), ".toml"));
    }
    let seeds: [(Reader, Vec<PathBuf>); 4] = [
        (spec, specs),
        (dh, files(&fixtures.join("dh"), ".toml")),
        (urdf, files(&fixtures.join("urdf"), ".urdf")),
        (mjcf, files(&fixtures.join("mjcf"), ".xml")),
    ];
    for (reader, paths) in seeds {
        assert!(!paths.is_empty());
        let accepted = paths.iter().filter(|path| reader(path).is_some()).count();
        assert!(
            accepted * 2 > paths.len(),
            "{accepted} of {} accepted",
            paths.len()
        );
    }
}

/// The inputs with which the fuzz targets found a bug (or, for `generate`, ran out of time),
/// each kept in the directory of its target.
#[test]
fn found_inputs() {
    let found = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_found");
    let readers: [(&str, Reader); 5] = [
        ("spec", spec),
        ("dh", dh),
        ("urdf", urdf),
        ("mjcf", mjcf),
        ("generate", generate),
    ];
    let mut count = 0;
    for (target, reader) in readers {
        let dir = found.join(target);
        if dir.is_dir() {
            for path in files(&dir, "") {
                reader(&path);
                count += 1;
            }
        }
    }
    assert!(count > 0);
}

/// A spring's reference without a spring or a damper is no passive joint (the written spec,
/// which has no `passive` table then, reads back the same).
#[test]
fn reference_alone_is_no_passive_joint() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_found");
    let robot = spec(&dir.join("spec/passive_reference_only.toml")).expect("accepted");
    assert!(!robot.bodies[0].passive.is_some());
    assert_eq!(robot.bodies[0].passive.reference, 0.0);
    let robot = mjcf(&dir.join("mjcf/springref_minimal.xml")).expect("accepted");
    assert_eq!(robot.bodies[0].passive.reference, 0.0);
}

/// An axis rotated into base axes (MJCF bodies' `quat`) and off unit length by rounding
/// (Kinova Gen3's last joint: `-0.9999999999999987`) is normalised as the spec reader would,
/// so that it reads back bit for bit.
#[test]
fn rotated_axes_read_back() {
    let path = repo().join("tests/fixtures/mjcf/kinova_gen3.xml");
    let robot = mjcf(&path).expect("accepted");
    for body in &robot.bodies {
        let n = body.axis.iter().map(|x| x * x).sum::<f64>().sqrt();
        assert!((n - 1.0).abs() <= 4.0 * f64::EPSILON, "{}: {n}", body.name);
    }
}

//! The strict C99 compile of the generated C, file by file on worker threads while the
//! generator goes on writing the next robots, archived at the end into one static library.
//!
//! Why threads: the generated C of the larger trees takes the C compiler tens of seconds a
//! file, and compiled one after another, after every file was written, it was the longest
//! part of this build script.
//!
//! Under clippy, a check build that links nothing, the C is not compiled (the probes still
//! run): the test build compiles every file with the same flags.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

/// The flags the issue requires on every C compile (checked on the compiler's command line).
const STRICT_FLAGS: [&str; 5] = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"];
/// The static library the tests crate links.
const LIBRARY: &str = "quasidyn_generated_c";

/// A compile of one file that failed: the file and the compiler's message.
type Failure = (PathBuf, String);

struct Pool {
    /// Whether the files are compiled (not under clippy).
    compile: bool,
    sender: Sender<PathBuf>,
    submitted: HashSet<PathBuf>,
    workers: Vec<JoinHandle<Result<Vec<PathBuf>, Failure>>>,
}

static POOL: Mutex<Option<Pool>> = Mutex::new(None);

/// The compiler set up with the strict flags, checked to reject C with a warning; starts the
/// workers. Returns the compiler arguments.
pub fn start(c_dir: &Path, out: &Path) -> Vec<String> {
    let mut build = cc::Build::new();
    build
        .include(c_dir)
        .std("c99")
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        .flag("-pedantic")
        .cargo_metadata(false);
    let compiler = build.get_compiler();
    assert!(
        !compiler.is_like_msvc(),
        "the strict C99 flags need a GCC-compatible compiler"
    );
    let args: Vec<String> = compiler
        .args()
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    for flag in STRICT_FLAGS {
        assert!(
            args.iter().any(|a| a == flag),
            "{flag} missing from the C compiler arguments {args:?}"
        );
    }
    // Flags from CFLAGS come after ours and could switch warnings off again (`-w`): these
    // probes must fail to compile, or the strict compile proves nothing.
    for (what, probe) in [
        (
            "-Wextra -Werror",
            "int f(int x);\nint f(int x) { return 0; }\n",
        ),
        ("-pedantic -Werror", "/* an empty translation unit */\n"),
    ] {
        let path = out.join("strict_probe.c");
        std::fs::write(&path, probe).expect("write the probe");
        let mut b = build.clone();
        b.file(&path).cargo_warnings(false);
        assert!(
            b.try_compile_intermediates().is_err(),
            "a C file with a warning compiled: {what} not effective"
        );
    }

    let compile = !checked_by_clippy();
    let jobs = std::env::var("NUM_JOBS")
        .ok()
        .and_then(|j| j.parse::<usize>().ok())
        .unwrap_or(1)
        .clamp(
            1,
            std::thread::available_parallelism().map_or(1, usize::from),
        );
    let (sender, receiver) = channel::<PathBuf>();
    let receiver = Arc::new(Mutex::new(receiver));
    let workers = (0..if compile { jobs } else { 0 })
        .map(|_| {
            let (build, receiver) = (build.clone(), Arc::clone(&receiver));
            std::thread::spawn(move || compile_each(&build, &receiver))
        })
        .collect();
    *lock() = Some(Pool {
        compile,
        sender,
        submitted: HashSet::new(),
        workers,
    });
    args
}

/// Queues `source` for the compile (once, however often it is submitted).
pub fn submit(source: &Path) {
    let mut pool = lock();
    let pool = pool.as_mut().expect("c_compile::start was called");
    if pool.compile && pool.submitted.insert(source.to_path_buf()) {
        // A send fails only once every worker stopped at a failed compile, which `finish`
        // reports.
        let _ = pool.sender.send(source.to_path_buf());
    }
}

/// Queues whichever of `sources` were not submitted yet, waits for every compile, archives
/// the objects into the static library and tells cargo to link it.
pub fn finish(sources: &[PathBuf], out: &Path) {
    for source in sources {
        submit(source);
    }
    let pool = lock().take().expect("c_compile::start was called");
    drop(pool.sender);
    if !pool.compile {
        return;
    }
    let mut objects = Vec::new();
    let mut failures = Vec::new();
    for worker in pool.workers {
        match worker.join() {
            Ok(Ok(done)) => objects.extend(done),
            Ok(Err(failure)) => failures.push(failure),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
    if !failures.is_empty() {
        let report: Vec<String> = failures
            .iter()
            .map(|(file, message)| format!("{}: {message}", file.display()))
            .collect();
        panic!("the generated C did not compile:\n{}", report.join("\n"));
    }
    // The archive's member order follows the sources', not the workers' timing.
    objects.sort();
    cc::Build::new()
        .cargo_metadata(false)
        .try_create_archive(LIBRARY, &objects)
        .unwrap_or_else(|e| panic!("archiving the generated C: {e}"));
    println!("cargo:rustc-link-lib=static={LIBRARY}");
    println!("cargo:rustc-link-search=native={}", out.display());
}

/// A worker: compiles files from `receiver` until the channel closes; stops at the first
/// failure (the build fails anyway).
fn compile_each(
    build: &cc::Build,
    receiver: &Mutex<Receiver<PathBuf>>,
) -> Result<Vec<PathBuf>, Failure> {
    let mut objects = Vec::new();
    loop {
        let next = receiver
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .recv();
        let Ok(source) = next else {
            return Ok(objects);
        };
        let mut one = build.clone();
        one.file(&source);
        match one.try_compile_intermediates() {
            Ok(done) => objects.extend(done),
            Err(e) => return Err((source, e.to_string())),
        }
    }
}

/// Whether cargo runs this build script for clippy (`cargo clippy` wraps the workspace's rustc
/// in `clippy-driver`, and tells build scripts so).
fn checked_by_clippy() -> bool {
    println!("cargo:rerun-if-env-changed=RUSTC_WORKSPACE_WRAPPER");
    std::env::var_os("RUSTC_WORKSPACE_WRAPPER").is_some_and(|wrapper| {
        Path::new(&wrapper)
            .file_stem()
            .is_some_and(|stem| stem.to_string_lossy().starts_with("clippy-driver"))
    })
}

fn lock() -> std::sync::MutexGuard<'static, Option<Pool>> {
    POOL.lock().unwrap_or_else(PoisonError::into_inner)
}

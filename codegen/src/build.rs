//! The build-script API: load a robot (spec, URDF or DH table), generate its Rust module and
//! write it to `$OUT_DIR` — in one call ([`compile`]) or through a configurable [`Builder`].

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::derive::SingularMotion;
use crate::emit::{
    emit_c_reporting, emit_rust_reporting, CFiles, COptions, EmitError, RustOptions,
};
use crate::generate::{build_module_reporting, select_functions};
use crate::import::{
    detect, import_dh, import_mjcf_reading, import_urdf_with, ImportError, ImportOptions, Imported,
    InputKind, JointLock, Location,
};
use crate::ir::{FunctionKind, Module};
use crate::names::snake_ident;
use crate::progress::{Progress, Silent, Step};
use crate::spec::parse_spec;
use crate::{Robot, SpecError};

/// Everything that can go wrong between an input file and generated code.
#[derive(thiserror::Error, miette::Diagnostic)]
#[non_exhaustive]
pub enum Error {
    /// The spec is invalid (located).
    #[error(transparent)]
    #[diagnostic(transparent)]
    Spec(#[from] SpecError),
    /// The URDF file or DH table is invalid (located).
    #[error(transparent)]
    #[diagnostic(transparent)]
    Import(#[from] ImportError),
    /// The module could not be emitted.
    #[error("cannot emit code: {0}")]
    Emit(#[from] EmitError),
    /// An input file is not valid UTF-8: where its first bad byte is.
    #[error("{at}: not valid UTF-8 (byte 0x{byte:02X}); save the file as UTF-8")]
    #[diagnostic(code(quasidyn::encoding))]
    NotUtf8 {
        /// Line and column (in characters, counted on the valid text before it) of the byte.
        at: Location,
        /// The first byte that is not UTF-8.
        byte: u8,
    },
    /// An input or output file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// No input was given to the builder.
    #[error("no robot input: call Builder::spec(PATH) or Builder::inline(TEXT)")]
    NoInput,
    /// No output directory: not running under cargo and none was set.
    #[error("OUT_DIR is not set: run from a build script or call Builder::out_dir(DIR)")]
    NoOutDir,
    /// A `--name` that cannot be an identifier.
    #[error("invalid name `{0}`: use letters, digits and `_`, not starting with a digit")]
    InvalidName(String),
    /// An option that does not apply to the chosen language.
    #[error("{0}")]
    Unsupported(&'static str),
    /// `only` names a function the robot does not have.
    #[error(
        "no function `{name}` for `{robot}`; valid names: {}",
        .valid.join(", ")
    )]
    #[diagnostic(code(quasidyn::only))]
    UnknownFunction {
        /// The name given.
        name: String,
        /// The robot's name.
        robot: String,
        /// The names that would have been accepted.
        valid: Vec<String>,
    },
    /// `only` names a function of identification (the regressors) for a robot with joint
    /// armature, which `tau = Y pi` has no term for.
    #[error(
        "no function `{name}` for `{robot}`: its joints have armature, and the regressor's \
         `tau = Y pi` over the bodies' inertial parameters has no term for it (remove the \
         armature to identify the bodies' parameters)"
    )]
    #[diagnostic(code(quasidyn::only))]
    RegressorWithArmature {
        /// The name given.
        name: String,
        /// The robot's name.
        robot: String,
    },
    /// `only` names a function not generated yet for a floating base in MuJoCo's layout.
    #[error(
        "no function `{name}` for `{robot}` yet: its floating base has MuJoCo's free-joint \
         layout (qpos, qvel), in which that function is not generated yet (docs/mjcf.md)"
    )]
    #[diagnostic(code(quasidyn::only))]
    NotInMujocoLayout {
        /// The name given.
        name: String,
        /// The robot's name.
        robot: String,
    },
    /// `only` names a function not generated yet for a robot with joints that follow others.
    #[error(
        "no function `{name}` for `{robot}` yet: some of its joints follow others (mimic \
         joints), and in its independent coordinates every function but the elastic ones is \
         generated so far (docs/spec.md)"
    )]
    #[diagnostic(code(quasidyn::only))]
    NotWithCouplings {
        /// The name given.
        name: String,
        /// The robot's name.
        robot: String,
    },
    /// A contact asked for that the robot cannot have (an unknown frame or kind, a frame with
    /// two contacts).
    #[error("{0}")]
    #[diagnostic(code(quasidyn::contact))]
    Contact(String),
    /// `only` names a contact function the robot does not have.
    #[error("no function `{name}` for `{robot}`: {why}")]
    #[diagnostic(code(quasidyn::only))]
    NoContacts {
        /// The name given.
        name: String,
        /// The robot's name.
        robot: String,
        /// Why it has none.
        why: &'static str,
    },
    /// A joint moves nothing with mass or inertia along its motion, so the mass matrix is
    /// singular at every configuration and forward dynamics is undefined.
    #[error(
        "joint {joint} (body `{body}`): the bodies it moves have no inertia about its axis \
         (revolute) or no mass (prismatic), so the mass matrix is singular everywhere; give \
         them an inertia or mass"
    )]
    SingularMassMatrix {
        /// The joint's name.
        joint: String,
        /// The body it carries.
        body: String,
    },
    /// A motion of the robot moves no mass or inertia, so the mass matrix is singular at every
    /// configuration (massless bodies arranged so; a massless floating base with a single
    /// joint under it).
    #[error(
        "{what}: the mass matrix is singular at every configuration: {how} moves no mass or \
         inertia; give the bodies it moves mass or inertia"
    )]
    SingularMotion {
        /// The joint whose motion it mostly is (`joint NAME (body `BODY`)`), or the floating
        /// base.
        what: String,
        /// The motion, in words.
        how: &'static str,
    },
}

// Build scripts print a returned error with `{:?}`: show the located message, not a struct dump.
impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Reads a robot from `path`: a quasidyn spec, a URDF file (serial chain from the root to
/// `tip`, or to the single leaf; the whole tree without `tip` if there are several leaves) or a
/// DH table, detected by extension and content.
pub fn load_input(path: &Path, tip: Option<&str>) -> Result<Robot, Error> {
    let options = ImportOptions {
        tip: tip.map(str::to_owned),
        ..ImportOptions::default()
    };
    load_input_with(path, &options).map(|imported| imported.robot)
}

/// [`load_input`] with import options (tip link, snapping); also returns the snaps made.
pub fn load_input_with(path: &Path, options: &ImportOptions) -> Result<Imported, Error> {
    let file_name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let text = decode_input(bytes, &file_name)?;
    // An MJCF file's includes are read relative to the file that includes them.
    let read = |included: &str| -> Result<String, String> {
        let bytes = std::fs::read(included).map_err(|e| e.to_string())?;
        decode_input(bytes, included).map_err(|e| e.to_string())
    };
    parse_input_reading(&text, &file_name, options, &read)
}

/// The text of an input file read as bytes; a file that is not UTF-8 is rejected with the line
/// and column of its first bad byte (`file_name` names it in the error).
pub fn decode_input(bytes: Vec<u8>, file_name: &str) -> Result<String, Error> {
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let text = std::str::from_utf8(&bytes[..valid]).unwrap_or_default();
        Error::NotUtf8 {
            at: Location::at_offset(file_name, text, valid),
            byte: bytes[valid],
        }
    })
}

/// Parses a robot description held in memory; `file_name` is used for detection and in errors.
pub fn parse_input(text: &str, file_name: &str, tip: Option<&str>) -> Result<Robot, Error> {
    let options = ImportOptions {
        tip: tip.map(str::to_owned),
        ..ImportOptions::default()
    };
    parse_input_with(text, file_name, &options).map(|imported| imported.robot)
}

/// [`parse_input`] with import options (tip link, snapping); also returns the snaps made.
/// An MJCF text that includes other files is refused here (nothing to read them from): see
/// [`parse_input_reading`].
pub fn parse_input_with(
    text: &str,
    file_name: &str,
    options: &ImportOptions,
) -> Result<Imported, Error> {
    let no_files = |_: &str| -> Result<String, String> {
        Err("an MJCF text given in memory cannot include files; load it from its file".to_owned())
    };
    parse_input_reading(text, file_name, options, &no_files)
}

/// [`parse_input_with`] for an input whose MJCF includes `read` reads: it gets the included
/// file's path (the including file's directory, as `file_name` spells it, joined with the
/// `file` attribute) and returns its text or why it cannot be read.
pub fn parse_input_reading(
    text: &str,
    file_name: &str,
    options: &ImportOptions,
    read: &crate::import::ReadInclude,
) -> Result<Imported, Error> {
    let kind = detect(Path::new(file_name), text);
    if options.root.is_some() && kind != InputKind::Mjcf {
        return Err(Error::Unsupported(
            "the root option picks one tree of an MJCF file: a spec, URDF or DH table has one \
             root",
        ));
    }
    if options.ignore_equality && kind != InputKind::Mjcf {
        return Err(Error::Unsupported(
            "the ignore-equality option leaves out an MJCF file's closed loops: a spec, URDF or \
             DH table has none",
        ));
    }
    if !options.locks.is_empty() && !matches!(kind, InputKind::Urdf | InputKind::Mjcf) {
        return Err(Error::Unsupported(
            "the lock option fixes a joint of a URDF or MJCF file: in a spec or DH table, \
             make the joint's body part of its carrier instead",
        ));
    }
    let mut imported = match kind {
        InputKind::Spec => Imported {
            robot: parse_spec(text, file_name)?,
            snaps: Vec::new(),
            ignored: Vec::new(),
        },
        InputKind::Urdf => import_urdf_with(text, file_name, options)?,
        InputKind::Mjcf => import_mjcf_reading(text, file_name, options, read)?,
        InputKind::Dh => Imported {
            robot: import_dh(text, file_name)?,
            snaps: Vec::new(),
            ignored: Vec::new(),
        },
    };
    imported
        .robot
        .add_contacts(&options.contacts)
        .map_err(Error::Contact)?;
    Ok(imported)
}

/// Checks a user-chosen module/file name: a plain identifier.
pub fn check_name(name: &str) -> Result<(), Error> {
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if first_ok && chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
        Ok(())
    } else {
        Err(Error::InvalidName(name.to_owned()))
    }
}

/// The identifier generated code is named after: `name` if given, else the robot's name made
/// into a snake_case identifier.
pub fn module_name(robot: &Robot, name: Option<&str>) -> Result<String, Error> {
    match name {
        Some(name) => check_name(name).map(|()| name.to_owned()),
        None => Ok(snake_ident(&robot.name)),
    }
}

/// What to generate, beyond the robot and its name: options shared by the Rust and C output.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Generate only these functions (names as generated, without the robot's prefix:
    /// `inverse_dynamics`, `mass_matrix`, ..., `forward_kinematics_FRAME`, or `frames` for
    /// every named frame's functions; see [`crate::generate::select_functions`]). `None`:
    /// every function.
    pub only: Option<Vec<String>>,
    /// Also generate each function over this many states at once (`FUNCTION_batch` in Rust,
    /// `NAME_FUNCTION_batch` in C; 1 to [`crate::emit::MAX_BATCH`]). `None`: the scalar
    /// functions only.
    pub batch: Option<usize>,
}

/// Generates the Rust module of `robot` (named `name`, see [`module_name`]).
pub fn rust_code(robot: &Robot, name: &str) -> Result<String, Error> {
    rust_code_with(robot, name, &Options::default())
}

/// [`rust_code`] with [`Options`].
pub fn rust_code_with(robot: &Robot, name: &str, options: &Options) -> Result<String, Error> {
    rust_code_reporting(robot, name, options, &mut Silent)
}

/// [`rust_code_with`], reporting each step (derive, simplify, emit) to `progress` as it
/// starts.
pub fn rust_code_reporting(
    robot: &Robot,
    name: &str,
    options: &Options,
    progress: &mut dyn Progress,
) -> Result<String, Error> {
    let module = checked_module(robot, name, options, progress)?;
    let rust = RustOptions {
        batch: options.batch,
        ..RustOptions::default()
    };
    Ok(emit_rust_reporting(&module, &rust, progress)?)
}

/// Generates the C files of `robot` (named `name`, see [`module_name`]).
pub fn c_code(robot: &Robot, name: &str, options: &COptions) -> Result<CFiles, Error> {
    c_code_with(robot, name, options, &Options::default())
}

/// [`c_code`] with [`Options`].
pub fn c_code_with(
    robot: &Robot,
    name: &str,
    c: &COptions,
    options: &Options,
) -> Result<CFiles, Error> {
    c_code_reporting(robot, name, c, options, &mut Silent)
}

/// [`c_code_with`], reporting each step (derive, simplify, emit) to `progress` as it starts.
pub fn c_code_reporting(
    robot: &Robot,
    name: &str,
    c: &COptions,
    options: &Options,
    progress: &mut dyn Progress,
) -> Result<CFiles, Error> {
    let module = checked_module(robot, name, options, progress)?;
    let c = COptions {
        batch: options.batch.or(c.batch),
        ..*c
    };
    Ok(emit_c_reporting(&module, &c, progress)?)
}

/// Builds the module under `name`, refusing a robot whose mass matrix has a diagonal entry that
/// is identically zero (forward dynamics would divide by zero).
fn checked_module(
    robot: &Robot,
    name: &str,
    options: &Options,
    progress: &mut dyn Progress,
) -> Result<Module, Error> {
    if let Some(batch) = options.batch {
        // Refused before anything is derived.
        crate::emit::check_batch(batch)?;
    }
    let mut robot = robot.clone();
    name.clone_into(&mut robot.name);
    let only = match &options.only {
        Some(names) => Some(select_functions(&robot, names)?),
        None => None,
    };
    // The mass matrix is derived whatever is asked for: built for the check, then dropped.
    let with_mass_matrix = only.as_ref().map(|kinds| {
        let mut kinds = kinds.clone();
        kinds.push(FunctionKind::MassMatrix);
        kinds
    });
    let mut module = build_module_reporting(&robot, with_mass_matrix.as_deref(), progress);
    if let Some(mass_matrix) = module.function(FunctionKind::MassMatrix) {
        // Joints come after the base's six coordinates with a floating base.
        let off = if module.floating() { 6 } else { 0 };
        let n = module.dof + off;
        // One diagonal entry per coordinate (a joint that follows another is none).
        for (j, body) in robot.coordinate_joints().into_iter().enumerate() {
            let body = &robot.bodies[body];
            let diagonal = mass_matrix.outputs[0].values[(off + j) * n + off + j];
            if module.graph.as_const(diagonal) == Some(0.0) {
                return Err(Error::SingularMassMatrix {
                    joint: body.joint_name.clone(),
                    body: body.name.clone(),
                });
            }
        }
    }
    if let Some(motion) = crate::derive::singular_motion(&robot) {
        return Err(match motion {
            SingularMotion::Joint(j) => Error::SingularMotion {
                what: format!(
                    "joint {} (body `{}`)",
                    robot.bodies[j].joint_name, robot.bodies[j].name
                ),
                how: "its motion, with the other joints' (and the floating base's),",
            },
            SingularMotion::Base => Error::SingularMotion {
                what: "the floating base".to_owned(),
                how: "its motion",
            },
        });
    }
    if let Some(only) = &only {
        module.functions.retain(|f| only.contains(&f.kind));
    }
    Ok(module)
}

/// Writes `contents` to `path` unless the file already holds exactly that (so cargo does not
/// rebuild needlessly). The new contents go to a temporary file renamed into place, so a
/// failed run never leaves a partial file, nor the temporary file.
pub fn write_if_changed(path: &Path, contents: &str) -> Result<bool, Error> {
    if std::fs::read(path).is_ok_and(|old| old == contents.as_bytes()) {
        return Ok(false);
    }
    replace_files(&[(path.to_path_buf(), contents.as_bytes())])?;
    Ok(true)
}

/// Replaces every file of `files` (target path, new contents) or none of them: a C header is
/// never installed beside a source file that could not be. On failure, every target holds what
/// it held before (a target that did not exist still does not), no temporary or backup file is
/// left behind (but for the backup of an old file that could not be put back) and the error
/// names the target, not a temporary file.
pub(crate) fn replace_files(files: &[(PathBuf, &[u8])]) -> Result<(), Error> {
    for (target, _) in files {
        // Caught before anything is written: a directory cannot be replaced by a file.
        if std::fs::symlink_metadata(target).is_ok_and(|m| m.is_dir()) {
            return Err(Error::Io {
                path: target.clone(),
                source: std::io::Error::other("is a directory, not a file"),
            });
        }
    }
    let mut staged = Vec::with_capacity(files.len());
    for (target, contents) in files {
        let temporary = sibling(target, "tmp");
        if let Err(source) = std::fs::write(&temporary, contents) {
            let _ = std::fs::remove_file(&temporary);
            for (temporary, _) in &staged {
                let _ = std::fs::remove_file(temporary);
            }
            return Err(Error::Io {
                path: target.clone(),
                source,
            });
        }
        staged.push((temporary, target.clone()));
    }
    install(&staged)
}

/// Renames each staged temporary file onto its target, the previous file of each target set
/// aside under a backup name until all are in place; if one rename fails, the targets already
/// replaced get their previous files back.
fn install(staged: &[(PathBuf, PathBuf)]) -> Result<(), Error> {
    // (target, its previous file's backup if it had one), in the order installed.
    let mut installed: Vec<(&Path, Option<PathBuf>)> = Vec::with_capacity(staged.len());
    let mut failure = None;
    for (temporary, target) in staged {
        let backup = match std::fs::symlink_metadata(target) {
            Ok(_) => {
                let backup = sibling(target, "old");
                if let Err(source) = std::fs::rename(target, &backup) {
                    failure = Some((target, source));
                    break;
                }
                Some(backup)
            }
            Err(_) => None,
        };
        if let Err(source) = std::fs::rename(temporary, target) {
            if let Some(backup) = backup {
                let _ = std::fs::rename(backup, target);
            }
            failure = Some((target, source));
            break;
        }
        installed.push((target, backup));
    }
    let Some((target, source)) = failure else {
        for (_, backup) in installed {
            if let Some(backup) = backup {
                let _ = std::fs::remove_file(backup);
            }
        }
        return Ok(());
    };
    for (target, backup) in installed.into_iter().rev() {
        match backup {
            // A backup that cannot be put back is the only copy of the old file: it stays.
            Some(backup) => {
                let _ = std::fs::rename(backup, target);
            }
            None => {
                let _ = std::fs::remove_file(target);
            }
        }
    }
    for (temporary, _) in staged {
        let _ = std::fs::remove_file(temporary);
    }
    Err(Error::Io {
        path: target.clone(),
        source,
    })
}

/// A hidden file beside `target` for this process: `.NAME.PID-N.KIND`. The counter keeps two
/// writes of the same process (builders on several threads) apart.
fn sibling(target: &Path, kind: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut name = std::ffi::OsString::from(".");
    name.push(target.file_name().unwrap_or_default());
    name.push(format!(".{}-{n}.{kind}", std::process::id()));
    target.with_file_name(name)
}

/// A progress callback shared by clones of a [`Builder`].
#[derive(Clone)]
struct ProgressFn(Arc<dyn Fn(&Step<'_>) + Send + Sync>);

impl fmt::Debug for ProgressFn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ProgressFn")
    }
}

/// Configurable generation of a robot's Rust module, for build scripts (in the manner of
/// prost-build):
///
/// ```no_run
/// // build.rs
/// fn main() -> Result<(), quasidyn_codegen::Error> {
///     quasidyn_codegen::Builder::new()
///         .spec("robots/ur5.toml")
///         .generate()?;
///     Ok(())
/// }
/// ```
///
/// and in the crate: `quasidyn::include_robot!("ur5");`.
#[derive(Clone, Debug, Default)]
pub struct Builder {
    progress: Option<ProgressFn>,
    input: Option<PathBuf>,
    inline: Option<(String, String)>,
    tip: Option<String>,
    frames: Vec<String>,
    contacts: Vec<String>,
    name: Option<String>,
    out_dir: Option<PathBuf>,
    quiet: bool,
    no_snap: bool,
    floating_base: bool,
    root: Option<String>,
    locks: Vec<JointLock>,
    ignore_equality: bool,
    options: Options,
}

impl Builder {
    /// A builder with no input yet.
    pub fn new() -> Builder {
        Builder::default()
    }

    /// The robot description: a spec (`.toml`), a URDF file or a DH table. Relative paths are
    /// relative to the build script's working directory (the crate root under cargo).
    pub fn spec(mut self, path: impl AsRef<Path>) -> Builder {
        self.input = Some(path.as_ref().to_path_buf());
        self
    }

    /// A robot description held in memory instead of a file; `file_name` names it in errors
    /// and tells its kind by extension.
    pub fn inline(mut self, text: impl Into<String>, file_name: impl Into<String>) -> Builder {
        self.inline = Some((text.into(), file_name.into()));
        self
    }

    /// For URDF input: the link the chain ends at (the tool frame). Without it, a URDF with
    /// several leaf links imports as the whole tree.
    pub fn tip(mut self, link: impl Into<String>) -> Builder {
        self.tip = Some(link.into());
        self
    }

    /// For URDF input: whether to snap values within a tolerance of exact ones (angles to
    /// multiples of `pi/2`, axis components to `0` or `±1`, negligible offsets and products of
    /// inertia to `0`; docs/spec.md). On by default; `.snap(false)` keeps every value as written.
    pub fn snap(mut self, snap: bool) -> Builder {
        self.no_snap = !snap;
        self
    }

    /// For URDF input: whether to put a free-flyer under the root link (a floating base, as
    /// Pinocchio's `JointModelFreeFlyer`); the root link's inertia, with the links fixed to it,
    /// becomes the floating base body (docs/spec.md). Off by default.
    pub fn floating_base(mut self, floating: bool) -> Builder {
        self.floating_base = floating;
        self
    }

    /// For MJCF input: keep the tree of this top-level body (a child of the world) and leave
    /// the other trees out (a robot among free objects, or one of two robots; docs/mjcf.md).
    pub fn root(mut self, body: impl Into<String>) -> Builder {
        self.root = Some(body.into());
        self
    }

    /// For URDF and MJCF input: fix `joint` at the input's reference value (zero for URDF,
    /// MuJoCo's `qpos0` for MJCF), as Pinocchio's `buildReducedModel` does: its child is welded
    /// to its parent there and the joint is no coordinate of the robot; may be called several
    /// times. A joint the input does not have makes [`Builder::load`] fail.
    pub fn lock(mut self, joint: impl Into<String>) -> Builder {
        self.locks.push(JointLock::at_reference(joint));
        self
    }

    /// [`Builder::lock`] at `value` (radians or metres, the joint's coordinate).
    pub fn lock_at(mut self, joint: impl Into<String>, value: f64) -> Builder {
        self.locks.push(JointLock::at(joint, value));
        self
    }

    /// For MJCF input: whether to leave out the closed loops (`connect` and `weld`
    /// equalities) and import the spanning tree, instead of refusing them (docs/mjcf.md). Off
    /// by default.
    pub fn ignore_equality(mut self, ignore: bool) -> Builder {
        self.ignore_equality = ignore;
        self
    }

    /// For URDF input: a link that becomes a named frame (its own forward kinematics and
    /// Jacobian); may be called several times. A tree's leaf links are frames anyway.
    pub fn frame(mut self, link: impl Into<String>) -> Builder {
        self.frames.push(link.into());
        self
    }

    /// A rigid contact on a named frame, after the input's own `[[contact]]`s: `"FRAME"` for a
    /// point contact, `"FRAME:6d"` for a 6d one; may be called several times. The contact
    /// functions (`contact_jacobian`, `contact_forward_dynamics`, family `contacts`) are
    /// generated on request ([`Builder::only`]).
    pub fn contact(mut self, contact: impl Into<String>) -> Builder {
        self.contacts.push(contact.into());
        self
    }

    /// Name of the generated module and file (default: the robot's name as an identifier).
    pub fn name(mut self, name: impl Into<String>) -> Builder {
        self.name = Some(name.into());
        self
    }

    /// Where [`Builder::generate`] writes (default: `$OUT_DIR`).
    pub fn out_dir(mut self, dir: impl AsRef<Path>) -> Builder {
        self.out_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Generate only these functions: their names as generated, without the robot's prefix
    /// (`["inverse_dynamics", "mass_matrix"]`; `forward_kinematics_FRAME`, or `frames` for
    /// every named frame's functions). The others are not derived at all, which is what makes
    /// generation faster. A name the robot does not generate makes [`Builder::generate`] fail
    /// with [`Error::UnknownFunction`], listing the valid ones.
    pub fn only<I, S>(mut self, functions: I) -> Builder
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.options.only = Some(
            functions
                .into_iter()
                .map(|f| f.as_ref().to_owned())
                .collect(),
        );
        self
    }

    /// Also generate each function over `states` states at once, as `FUNCTION_batch`
    /// (structure of arrays: every argument `&[[f64; BATCH]; ROWS]`, `pub const BATCH`; 1 to
    /// [`crate::emit::MAX_BATCH`]).
    pub fn batch(mut self, states: usize) -> Builder {
        self.options.batch = Some(states);
        self
    }

    /// Calls `report` as each step of the generation starts (which stage, which function,
    /// how far through; see [`Step`]). Nothing is reported without it: the builder prints
    /// nothing but `cargo:rerun-if-changed`.
    pub fn progress(mut self, report: impl Fn(&Step<'_>) + Send + Sync + 'static) -> Builder {
        self.progress = Some(ProgressFn(Arc::new(report)));
        self
    }

    /// Do not print `cargo:rerun-if-changed` lines (when not running in a build script).
    pub fn quiet(mut self) -> Builder {
        self.quiet = true;
        self
    }

    /// Loads and validates the robot.
    pub fn load(&self) -> Result<Robot, Error> {
        let options = ImportOptions {
            tip: self.tip.clone(),
            frames: self.frames.clone(),
            contacts: self.contacts.clone(),
            snap: !self.no_snap,
            floating_base: self.floating_base,
            root: self.root.clone(),
            locks: self.locks.clone(),
            ignore_equality: self.ignore_equality,
        };
        let imported = match (&self.inline, &self.input) {
            (Some((text, file)), _) => parse_input_with(text, file, &options)?,
            (None, Some(path)) => load_input_with(path, &options)?,
            (None, None) => return Err(Error::NoInput),
        };
        Ok(imported.robot)
    }

    /// Generates the module without writing anything: `(module name, Rust source)`.
    pub fn render(&self) -> Result<(String, String), Error> {
        let robot = self.load()?;
        let name = module_name(&robot, self.name.as_deref())?;
        let code = match &self.progress {
            Some(ProgressFn(report)) => {
                rust_code_reporting(&robot, &name, &self.options, &mut |step: &Step<'_>| {
                    report(step);
                })?
            }
            None => rust_code_with(&robot, &name, &self.options)?,
        };
        Ok((name, code))
    }

    /// Generates the module and writes `<out_dir>/<name>.rs` if its contents changed; prints
    /// `cargo:rerun-if-changed` for the input. Returns the path of the file.
    pub fn generate(&self) -> Result<PathBuf, Error> {
        if let (Some(path), false) = (&self.input, self.quiet) {
            println!("cargo:rerun-if-changed={}", path.display());
        }
        let (name, code) = self.render()?;
        let dir = match &self.out_dir {
            Some(dir) => dir.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or(Error::NoOutDir)?,
        };
        let path = dir.join(format!("{name}.rs"));
        write_if_changed(&path, &code)?;
        Ok(path)
    }
}

/// One call for build scripts: generates `$OUT_DIR/<name>.rs` from a spec, URDF (the single
/// leaf as tip, or the whole tree) or DH table. Include it with `quasidyn::include_robot!("<name>")`.
pub fn compile(path: impl AsRef<Path>) -> Result<PathBuf, Error> {
    Builder::new().spec(path).generate()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn replaces_existing_files_and_creates_new_ones() {
        let dir = tempfile::tempdir().unwrap();
        let (h, c) = (dir.path().join("a.h"), dir.path().join("a.c"));
        std::fs::write(&h, "old").unwrap();
        replace_files(&[(h.clone(), b"new h"), (c.clone(), b"new c")]).unwrap();
        assert_eq!(std::fs::read(&h).unwrap(), b"new h");
        assert_eq!(std::fs::read(&c).unwrap(), b"new c");
        assert_eq!(names(dir.path()), ["a.c", "a.h"]);
    }

    /// The rollback itself: the last rename fails (its temporary file is missing) after the
    /// first target was replaced and the second created.
    #[test]
    fn a_failed_rename_puts_back_the_targets_already_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let (h, rs, c) = (
            dir.path().join("a.h"),
            dir.path().join("a.rs"),
            dir.path().join("a.c"),
        );
        std::fs::write(&h, "old h").unwrap();
        std::fs::write(&c, "old c").unwrap();
        let mut staged: Vec<(PathBuf, PathBuf)> = [(&h, "new h"), (&rs, "new rs")]
            .into_iter()
            .map(|(target, contents)| {
                let temporary = sibling(target, "tmp");
                std::fs::write(&temporary, contents).unwrap();
                (temporary, target.clone())
            })
            .collect();
        staged.push((sibling(&c, "tmp"), c.clone()));
        let Err(Error::Io { path, .. }) = install(&staged) else {
            panic!("a missing file was installed");
        };
        assert_eq!(path, c);
        assert_eq!(std::fs::read(&h).unwrap(), b"old h");
        assert_eq!(std::fs::read(&c).unwrap(), b"old c");
        assert_eq!(names(dir.path()), ["a.c", "a.h"]);
    }

    #[test]
    fn a_directory_in_the_way_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let (h, c) = (dir.path().join("a.h"), dir.path().join("a.c"));
        std::fs::create_dir(&c).unwrap();
        let err = replace_files(&[(h, b"new h"), (c.clone(), b"new c")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("{}: is a directory, not a file", c.display())
        );
        assert_eq!(names(dir.path()), ["a.c"]);
    }

    /// A temporary file that cannot be created (root ignores a read-only directory; a parent
    /// that is a regular file stops it too) is reported under the target's name.
    #[test]
    fn a_file_that_cannot_be_staged_is_named_in_the_error() {
        let dir = tempfile::tempdir().unwrap();
        let (h, not_a_dir) = (dir.path().join("a.h"), dir.path().join("file"));
        std::fs::write(&not_a_dir, "").unwrap();
        let c = not_a_dir.join("a.c");
        let Err(Error::Io { path, .. }) = replace_files(&[(h, b"new h"), (c.clone(), b"new c")])
        else {
            panic!("a file was written under a regular file");
        };
        assert_eq!(path, c);
        assert_eq!(names(dir.path()), ["file"]);
    }

    #[test]
    fn write_if_changed_leaves_an_unchanged_file_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.rs");
        assert!(write_if_changed(&path, "one").unwrap());
        assert!(!write_if_changed(&path, "one").unwrap());
        assert!(write_if_changed(&path, "two").unwrap());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
        assert_eq!(names(dir.path()), ["a.rs"]);
    }
}

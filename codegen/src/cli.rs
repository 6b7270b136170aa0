//! The `quasidyn` command line. Each subcommand is a variant of [`Command`] and a function
//! returning `miette::Result`, so adding one (generate, stats, equations, import, ...) is a
//! variant plus a match arm.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};

use crate::build::{
    c_code_reporting, load_input_with, module_name, replace_files, rust_code_reporting, Error,
    Options,
};
use crate::emit::COptions;
use crate::equations::{try_equations, Format};
use crate::functions::CATALOGUE;
use crate::generate::{build_module_only, select_functions};
use crate::import::{ImportOptions, Imported, JointLock};
use crate::params::MethodParams;
use crate::progress::{Progress, Step};
use crate::spec::to_toml;
use crate::{FunctionKind, Robot};

/// `print!` for the commands' output: a closed stdout (`quasidyn stats ... | head`) ends the
/// process quietly, as it does for other command-line tools, instead of panicking.
macro_rules! say {
    ($($arg:tt)*) => {
        write_stdout(format_args!($($arg)*))
    };
}

/// `println!` the same way as [`say!`].
macro_rules! sayln {
    () => {
        say!("\n")
    };
    ($($arg:tt)*) => {{
        say!($($arg)*);
        say!("\n");
    }};
}

/// Writes to stdout; exits with 0 when the reader has gone away, 1 on another write error.
fn write_stdout(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    if let Err(err) = std::io::stdout().lock().write_fmt(args) {
        if err.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("quasidyn: cannot write to stdout: {err}");
        std::process::exit(1);
    }
}

/// Command-line arguments.
#[derive(Debug, Parser)]
#[command(
    name = "quasidyn",
    version,
    about = "Robot dynamics code generator (quasi-velocity method)"
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Target language of `generate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Lang {
    /// C99: `NAME.h` and `NAME.c`.
    C,
    /// Rust: `NAME.rs`.
    Rust,
}

/// The subcommands. INPUT is a quasidyn spec (TOML), a URDF file or a DH table (TOML with
/// `convention` and `[[link]]`), told apart by extension and content.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Generate straight-line code for a robot.
    Generate {
        /// The robot to read and how to import it.
        #[command(flatten)]
        input: InputArgs,
        /// Target language.
        #[arg(long, value_enum, default_value = "c")]
        lang: Lang,
        /// Output directory (created if missing), or `-` for stdout when there is a single
        /// output file (Rust, or C with --header-only).
        #[arg(long)]
        out: PathBuf,
        /// Name of the generated files and identifier prefix (default: the robot's name).
        #[arg(long)]
        name: Option<String>,
        /// C only: single precision (`float`, `sinf`, ...) for controllers without a double FPU.
        #[arg(long)]
        float: bool,
        /// C only: one header of `static inline` functions instead of a `.h`/`.c` pair.
        #[arg(long)]
        header_only: bool,
        /// C only: each function cut into parts (more than 8192 operations) in a source file
        /// of its own, `NAME_FUNCTION.c`, compiled and linked with `NAME.c`: a parallel build
        /// (`make -j`) compiles the long functions at once.
        #[arg(long, conflicts_with = "header_only")]
        split: bool,
        /// Generate only these functions (comma-separated names as generated, without the
        /// robot's prefix); the others are not derived at all.
        #[arg(long, value_delimiter = ',', value_name = "FUNCTION,...", long_help = only_help("Generate"))]
        only: Option<Vec<String>>,
        /// Also generate each function over N states at once (structure of arrays, N from 1 to
        /// 1024): C `NAME_FUNCTION_batch` with every argument `[rows][NAME_BATCH]`, Rust
        /// `FUNCTION_batch` over `&[[f64; BATCH]; ROWS]`.
        #[arg(long, value_name = "N")]
        batch: Option<usize>,
        /// Do not report progress on stderr (by default, a generation that takes more than a
        /// second reports each stage and function as it starts).
        #[arg(long, short)]
        quiet: bool,
        /// Report progress once the generation has taken this many seconds (tests use 0).
        #[arg(long, hide = true, default_value_t = 1.0, value_name = "SECONDS")]
        progress_after: f64,
    },
    /// Validate an input; print `ok: NAME, N bodies` (and the coordinates, where joints follow
    /// others) or the located error.
    Check {
        /// The robot to read and how to import it.
        #[command(flatten)]
        input: InputArgs,
        /// Also list every value the URDF importer snapped to an exact one: where, what, from
        /// and to, and by how much.
        #[arg(long, short)]
        verbose: bool,
    },
    /// Write out the equations of a generated function, named intermediates first.
    Equations {
        /// The robot to read and how to import it.
        #[command(flatten)]
        input: InputArgs,
        /// Plain text or a LaTeX `align*` block.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// Which function: inverse_dynamics, gravity, mass_matrix, centrifugal, a frame's
        /// forward_kinematics_FRAME or jacobian_FRAME, ... (`stats` lists the robot's).
        #[arg(long, default_value = "inverse_dynamics")]
        function: String,
    },
    /// Print the method's parameters (masses, L, e, p, b, a, inertia about the poles) per body.
    Params {
        /// The robot to read and how to import it.
        #[command(flatten)]
        input: InputArgs,
        /// Print the base parameters instead, each as its combination of the standard ones.
        #[arg(long)]
        base: bool,
    },
    /// Print the operation counts of every generated function.
    Stats {
        /// The robot to read and how to import it.
        #[command(flatten)]
        input: InputArgs,
        /// Count only these functions (names as for `generate --only`); the others are not
        /// derived at all.
        #[arg(long, value_delimiter = ',', value_name = "FUNCTION,...", long_help = only_help("Count"))]
        only: Option<Vec<String>>,
    },
    /// Convert a URDF file or DH table into an equivalent quasidyn spec (printed on stdout).
    Import {
        /// The robot to read and how to import it.
        #[command(flatten)]
        input: InputArgs,
    },
}

/// The input every subcommand reads, and how to import it.
#[derive(Debug, clap::Args)]
pub struct InputArgs {
    /// The robot: spec, URDF, MJCF or DH table.
    pub input: PathBuf,
    /// URDF only: the link the chain ends at (default: the single leaf, or the whole tree if
    /// there are several leaves).
    #[arg(long)]
    pub tip: Option<String>,
    /// URDF only: a link that becomes a named frame (repeatable; a tree's leaves are frames
    /// anyway).
    #[arg(long = "frame", value_name = "LINK")]
    pub frames: Vec<String>,
    /// A rigid contact on a named frame (repeatable): `FRAME` for a point contact, `FRAME:6d`
    /// for a 6d one; added after the input's own `[[contact]]`s. The contact functions are
    /// generated on request (`--only contacts`).
    #[arg(long = "contact", value_name = "FRAME[:6d]")]
    pub contacts: Vec<String>,
    /// Keep every URDF value as written: do not snap angles within 5e-10 of multiples of pi/2,
    /// axis components within 5e-10 of 0 or +-1, negligible offsets and products of inertia to
    /// exact values.
    #[arg(long)]
    pub no_snap: bool,
    /// URDF only: put a free-flyer under the root link (a floating base, as Pinocchio's
    /// JointModelFreeFlyer): the root link's inertia, with the links fixed to it, becomes the
    /// floating base body.
    #[arg(long)]
    pub floating_base: bool,
    /// MJCF only: keep the tree of this top-level body (a child of the world) and leave the
    /// others out (a robot among free objects, or one of two robots).
    #[arg(long, value_name = "BODY")]
    pub root: Option<String>,
    /// URDF and MJCF only: fix a joint at a value (repeatable), as Pinocchio's
    /// buildReducedModel: its child is welded to its parent there and the joint is no
    /// coordinate. `JOINT` locks it at zero (URDF) or MuJoCo's qpos0 (MJCF), `JOINT=VALUE` at
    /// VALUE (radians or metres).
    #[arg(long = "lock", value_name = "JOINT[=VALUE]")]
    pub locks: Vec<JointLock>,
    /// MJCF only: leave out the closed loops (connect and weld equalities) and import the
    /// spanning tree, instead of refusing them; `check --verbose` lists what was left out.
    #[arg(long)]
    pub ignore_equality: bool,
}

impl InputArgs {
    fn options(&self) -> ImportOptions {
        ImportOptions {
            tip: self.tip.clone(),
            frames: self.frames.clone(),
            contacts: self.contacts.clone(),
            snap: !self.no_snap,
            floating_base: self.floating_base,
            root: self.root.clone(),
            locks: self.locks.clone(),
            ignore_equality: self.ignore_equality,
        }
    }

    fn load(&self) -> Result<Robot, Error> {
        load(&self.input, &self.options())
    }
}

/// The long help of `--only`: every function the catalogue declares, with which robots have
/// it.
fn only_help(verb: &str) -> String {
    let mut help = format!(
        "{verb} only these functions (comma-separated names as generated, without the robot's \
         prefix); the others are not derived at all. Families: `default` (what is generated \
         without --only), `all` (the functions generated on request too), `frames` (every \
         named frame's functions), `centroidal` (the centre of mass and centroidal momentum, \
         on request), `whole_body` (the Coriolis matrix, the inverse mass matrix, the joint \
         wrenches and the energies, on request), `frame_motion` (every named frame's velocity, acceleration \
         bias and Jacobian derivative, on request). \
         The functions, and which robots have them:\n"
    );
    for e in CATALOGUE {
        let name = match e.kind.frame() {
            Some(_) => format!("{}_FRAME", e.name),
            None => e.name.to_owned(),
        };
        let request = if e.group.on_request() {
            " (on request)"
        } else {
            ""
        };
        help.push_str(&format!("  {name:<34} {}{request}\n", e.exists.describe()));
    }
    help.trim_end().to_owned()
}

/// Parses the process arguments, runs the subcommand and returns the exit code: 0 on success,
/// 1 on bad input (the error is rendered on stderr), 2 on usage errors (from clap).
pub fn main() -> ExitCode {
    // Every error's message already ends with its cause (`FILE: No such file or directory`),
    // so the report does not list the cause again below it.
    let _ = miette::set_hook(Box::new(|_| {
        Box::new(
            miette::MietteHandlerOpts::new()
                .without_cause_chain()
                .build(),
        )
    }));
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(report) => {
            eprintln!("{report:?}");
            ExitCode::from(1)
        }
    }
}

/// Runs one parsed command, writing its output to stdout.
pub fn run(cli: Cli) -> miette::Result<()> {
    match cli.command {
        Command::Generate {
            input,
            lang,
            out,
            name,
            float,
            header_only,
            split,
            only,
            batch,
            quiet,
            progress_after,
        } => generate(&Generate {
            input: &input.input,
            lang,
            out: &out,
            name: name.as_deref(),
            import: input.options(),
            options: COptions {
                float,
                header_only,
                split,
                ..COptions::default()
            },
            generation: Options { only, batch },
            progress: (!quiet).then_some(progress_after),
        }),
        Command::Check { input, verbose } => check(&input.input, &input.options(), verbose),
        Command::Params { input, base } => {
            let robot = input.load()?;
            if base {
                say!("{}", crate::derive::base_parameters_text(&robot));
            } else {
                say!("{}", MethodParams::from_robot(&robot));
            }
            Ok(())
        }
        Command::Stats { input, only } => stats(&input.load()?, only.as_deref()),
        Command::Import { input } => {
            say!("{}", to_toml(&input.load()?));
            Ok(())
        }
        Command::Equations {
            input,
            format,
            function,
        } => {
            let robot = input.load()?;
            // Resolved against the robot: its frames' functions are named after its frames.
            let kind = match select_functions(&robot, &[function.as_str()])?.as_slice() {
                [kind] => *kind,
                _ => {
                    return Err(miette::miette!(
                        "--function takes one function: `{function}` names several"
                    ))
                }
            };
            match try_equations(&robot, kind, format) {
                Some(text) => {
                    say!("{text}");
                    Ok(())
                }
                None => Err(miette::miette!(
                    "`{function}` is not generated for {} (docs/spec.md says which functions a \
                     robot gets)",
                    robot.name
                )),
            }
        }
    }
}

fn load(path: &Path, options: &ImportOptions) -> Result<Robot, Error> {
    load_input_with(path, options).map(|imported| imported.robot)
}

/// Arguments of `generate`.
struct Generate<'a> {
    input: &'a Path,
    lang: Lang,
    out: &'a Path,
    name: Option<&'a str>,
    import: ImportOptions,
    options: COptions,
    generation: Options,
    /// Report progress on stderr once this many seconds have passed (`None`: never).
    progress: Option<f64>,
}

/// Prints the steps of a generation on stderr, once it has taken longer than `after`; the
/// first line printed names the robot.
struct Printer {
    started: Instant,
    after: Duration,
    robot: String,
    enabled: bool,
    shown: bool,
}

impl Printer {
    fn new(robot: &Robot, after: Option<f64>, started: Instant) -> Printer {
        Printer {
            started,
            after: Duration::try_from_secs_f64(after.unwrap_or(0.0)).unwrap_or(Duration::MAX),
            robot: format!("{} ({} joints)", robot.name, robot.dof()),
            enabled: after.is_some(),
            shown: false,
        }
    }

    /// The closing line, if progress was shown.
    fn finish(&self) {
        if self.shown {
            eprintln!(
                "quasidyn: {} generated in {:.1} s",
                self.robot,
                self.started.elapsed().as_secs_f64()
            );
        }
    }
}

impl Progress for Printer {
    fn step(&mut self, step: &Step<'_>) {
        let elapsed = self.started.elapsed();
        if !self.enabled || elapsed < self.after {
            return;
        }
        if !self.shown {
            self.shown = true;
            eprintln!("quasidyn: generating {}", self.robot);
        }
        eprintln!("quasidyn: {:6.1} s  {step}", elapsed.as_secs_f64());
    }
}

/// `--out -`: the one output file goes to stdout.
fn to_stdout(out: &Path) -> bool {
    out.as_os_str() == "-"
}

fn generate(args: &Generate) -> miette::Result<()> {
    let started = Instant::now();
    if to_stdout(args.out) && args.lang == Lang::C && !args.options.header_only {
        return Err(Error::Unsupported(
            "--out -: C output is a header and a source file, and only one file can go to \
             stdout; add --header-only for a single header, or give a directory",
        )
        .into());
    }
    let robot = load(args.input, &args.import)?;
    let name = module_name(&robot, args.name)?;
    let mut printer = Printer::new(&robot, args.progress, started);
    let files: Vec<(String, String)> = match args.lang {
        Lang::Rust => {
            if args.options.float || args.options.header_only || args.options.split {
                return Err(Error::Unsupported(
                    "--float, --header-only and --split apply to C output only",
                )
                .into());
            }
            vec![(
                format!("{name}.rs"),
                rust_code_reporting(&robot, &name, &args.generation, &mut printer)?,
            )]
        }
        Lang::C => {
            let c = c_code_reporting(&robot, &name, &args.options, &args.generation, &mut printer)?;
            let mut files = vec![(c.header_name, c.header)];
            files.extend(c.source_name.zip(c.source));
            files.extend(c.units);
            files
        }
    };
    printer.finish();
    if to_stdout(args.out) {
        if let [(_, contents)] = files.as_slice() {
            say!("{contents}");
            return Ok(());
        }
    }
    write_all(args.out, &files)?;
    if args.lang == Lang::C {
        remove_stale_units(args.out, &name, &files)?;
    }
    for (file, _) in &files {
        sayln!("{}", args.out.join(file).display());
    }
    Ok(())
}

/// Removes the source files of `--split` (marked as units of `NAME.c`) that an earlier run
/// wrote into `dir` and this one did not: compiled with this run's `NAME.c`, their functions
/// would be defined twice, or not be this robot's any more.
fn remove_stale_units(dir: &Path, name: &str, written: &[(String, String)]) -> Result<(), Error> {
    let marker = crate::emit::unit_marker(name);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    let prefix = format!("{name}_");
    for entry in entries.flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        let candidate = file.starts_with(&prefix)
            && file.ends_with(".c")
            && !written.iter().any(|(w, _)| *w == file);
        if !candidate {
            continue;
        }
        let path = entry.path();
        let stale = std::fs::read_to_string(&path).is_ok_and(|text| text.contains(&marker));
        if stale {
            std::fs::remove_file(&path).map_err(|source| Error::Io { path, source })?;
        }
    }
    Ok(())
}

/// Writes every file into `dir` (created if missing) or none: see [`replace_files`].
fn write_all(dir: &Path, files: &[(String, String)]) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|source| Error::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let files: Vec<(PathBuf, &[u8])> = files
        .iter()
        .map(|(file, contents)| (dir.join(file), contents.as_bytes()))
        .collect();
    replace_files(&files)
}

fn stats(robot: &Robot, only: Option<&[String]>) -> miette::Result<()> {
    let kinds = match only {
        Some(names) => Some(select_functions(robot, names)?),
        None => None,
    };
    let module = build_module_only(robot, kinds.as_deref()).lowered();
    sayln!(
        "{}: operations of the generated functions ({} joints; common subexpressions counted once)",
        robot.name,
        robot.dof()
    );
    sayln!();
    let mut kinds: Vec<FunctionKind> = module.functions.iter().map(|f| f.kind).collect();
    kinds.sort();
    let names: Vec<String> = kinds
        .iter()
        .map(|&k| module.function_name(k).unwrap_or_default())
        .collect();
    // Frame functions carry the frame's name: the column grows to fit.
    let w = names.iter().map(String::len).max().unwrap_or(0).max(24);
    sayln!(
        "{:<w$} {:>6} {:>6} {:>5} {:>5} {:>8} {:>5} {:>7}",
        "function",
        "mul",
        "add",
        "div",
        "neg",
        "sin/cos",
        "sqrt",
        "total"
    );
    sayln!("{}", "-".repeat(w + 49));
    for (kind, name) in kinds.into_iter().zip(names) {
        let Some(function) = module.function(kind) else {
            continue;
        };
        let count = module.graph.op_count(&function.roots());
        sayln!(
            "{:<w$} {:>6} {:>6} {:>5} {:>5} {:>8} {:>5} {:>7}",
            name,
            count.mul,
            count.add,
            count.div,
            count.neg,
            count.trig,
            count.sqrt,
            count.total()
        );
    }
    Ok(())
}

fn check(path: &Path, options: &ImportOptions, verbose: bool) -> miette::Result<()> {
    let Imported {
        robot,
        snaps,
        ignored,
    } = load_input_with(path, options)?;
    let n = robot.dof();
    // Joints that follow others are no coordinates: say how many remain.
    let coordinates = if robot.has_couplings() {
        format!(", {} coordinates", robot.coordinate_joints().len())
    } else {
        String::new()
    };
    sayln!(
        "ok: {}, {n} {}{coordinates}",
        robot.name,
        if n == 1 { "body" } else { "bodies" }
    );
    if verbose {
        match snaps.len() {
            0 => sayln!("no value snapped"),
            k => {
                sayln!(
                    "{k} value{} snapped to exact ones (--no-snap keeps them as written):",
                    if k == 1 { "" } else { "s" }
                );
                for snap in &snaps {
                    sayln!("  {snap}");
                }
            }
        }
        // Only MJCF files list what they hold beyond the robot's mechanics.
        if !ignored.is_empty() {
            let k = ignored.len();
            sayln!(
                "{k} element{} ignored (they do not enter the generated functions):",
                if k == 1 { "" } else { "s" }
            );
            for item in &ignored {
                sayln!("  {item}");
            }
        }
    }
    Ok(())
}

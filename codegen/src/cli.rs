//! The `quasidyn` command line. Each subcommand is a variant of [`Command`] and a function
//! returning `miette::Result`, so adding one (generate, stats, equations, import, ...) is a
//! variant plus a match arm.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::equations::{equations, function_by_name, function_name, Format};
use crate::ir::FunctionKind;
use crate::params::MethodParams;
use crate::spec::load_spec;

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

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Validate a spec; print `ok: NAME, N bodies` or the located error.
    Check {
        /// The robot spec (TOML).
        spec: PathBuf,
    },
    /// Write out the equations of a generated function, named intermediates first.
    Equations {
        /// The robot spec (TOML).
        spec: PathBuf,
        /// Plain text or a LaTeX `align*` block.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// Which function: inverse_dynamics, gravity, mass_matrix, centrifugal, ...
        #[arg(long, default_value = "inverse_dynamics", value_parser = parse_function)]
        function: FunctionKind,
    },
    /// Print the method's parameters (masses, L, e, p, b, a, inertia about the poles) per body.
    Params {
        /// The robot spec (TOML).
        spec: PathBuf,
    },
}

/// Parses the process arguments, runs the subcommand and returns the exit code: 0 on success,
/// 1 on bad input (the error is rendered on stderr), 2 on usage errors (from clap).
pub fn main() -> ExitCode {
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
        Command::Check { spec } => check(&spec),
        Command::Params { spec } => params(&spec),
        Command::Equations {
            spec,
            format,
            function,
        } => {
            let robot = load_spec(&spec)?;
            print!("{}", equations(&robot, function, format));
            Ok(())
        }
    }
}

fn parse_function(name: &str) -> Result<FunctionKind, String> {
    function_by_name(name).ok_or_else(|| {
        let all: Vec<&str> = FunctionKind::ALL.into_iter().map(function_name).collect();
        format!("unknown function `{name}`; one of {}", all.join(", "))
    })
}

fn check(path: &Path) -> miette::Result<()> {
    let robot = load_spec(path)?;
    let n = robot.dof();
    println!(
        "ok: {}, {n} {}",
        robot.name,
        if n == 1 { "body" } else { "bodies" }
    );
    Ok(())
}

fn params(path: &Path) -> miette::Result<()> {
    let robot = load_spec(path)?;
    print!("{}", MethodParams::from_robot(&robot));
    Ok(())
}

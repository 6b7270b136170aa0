//! The `quasidyn` command-line tool; everything lives in `quasidyn_codegen::cli`.

fn main() -> std::process::ExitCode {
    quasidyn_codegen::cli::main()
}

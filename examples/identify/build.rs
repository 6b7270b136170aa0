//! Generates `$OUT_DIR/ur5.rs` (dynamics, base regressor, base parameters) from the spec.

fn main() -> Result<(), quasidyn_codegen::Error> {
    quasidyn_codegen::Builder::new()
        .spec("../../robots/ur5.toml")
        .generate()?;
    Ok(())
}

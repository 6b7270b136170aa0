//! Generates `$OUT_DIR/ur5.rs` from the spec; cargo re-runs this only when the spec changes.

fn main() -> Result<(), quasidyn_codegen::Error> {
    quasidyn_codegen::Builder::new()
        .spec("../../robots/ur5.toml")
        .generate()?;
    Ok(())
}

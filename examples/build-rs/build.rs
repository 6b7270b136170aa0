//! Generates `$OUT_DIR/ur5.rs` from the spec; cargo re-runs this only when the spec changes.
//! The same call for a tree (the hand) and a floating-base robot (the quadruped).

fn main() -> Result<(), quasidyn_codegen::Error> {
    quasidyn_codegen::Builder::new()
        .spec("../../robots/ur5.toml")
        .generate()?;
    for spec in [
        "../../robots/hand.toml",
        "../../robots/quadruped_floating.toml",
    ] {
        quasidyn_codegen::Builder::new().spec(spec).generate()?;
    }
    Ok(())
}

//! Generates the robots that the README's and the guide's snippets include with
//! `include_robot!` (their `build.rs` is examples/build-rs's, which reaches `robots/` by the same
//! relative paths from two directories down). Only the functions the snippets call, so that
//! each doctest compiles quickly.

fn main() -> Result<(), quasidyn_codegen::Error> {
    let dynamics = [
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
    ];
    quasidyn_codegen::Builder::new()
        .spec("../../robots/ur5.toml")
        .only(dynamics)
        .generate()?;
    quasidyn_codegen::Builder::new()
        .spec("../../robots/hand.toml")
        .only(["frames"])
        .generate()?;
    quasidyn_codegen::Builder::new()
        .spec("../../robots/quadruped_floating.toml")
        .only(["gravity"])
        .generate()?;
    Ok(())
}

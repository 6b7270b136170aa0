//! The robots that `build.rs` generates, for the tests: the UR5 (`ur5`, from
//! `robots/ur5.toml`), a tree (`hand`) and a floating-base quadruped (`quadruped_floating`),
//! each brought in by `include_robot!` (`ur5::DOF`, `ur5::gravity`, ..., and
//! `ur5::Ur5: quasidyn::Dynamics<6>`). The programs in `src/main.rs` and `src/bin/trees.rs`
//! include the modules themselves, so that each stands alone as the README quotes it.

// The generated modules compile in a crate that denies unsafe code: the one conversion of the
// functions that write their entries as computed is allowed where it stands.
#![deny(unsafe_code)]
// Every public item documented, the generated modules' included: the module by the macro, the
// constants and functions by the generator.
#![warn(missing_docs)]

quasidyn::include_robot!(pub "ur5");
quasidyn::include_robot!(pub "hand");
quasidyn::include_robot!(pub "quadruped_floating");

/// Largest absolute difference between two joint vectors.
pub fn max_error<const N: usize>(a: &[f64; N], b: &[f64; N]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

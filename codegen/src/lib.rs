//! # quasidyn-codegen
//!
//! Turns a robot description into straight-line Rust and C. Pipeline, one module per stage:
//! spec (TOML) → model (the method's parameters) → derivation → IR → simplify → emit.
#![forbid(unsafe_code)]

pub mod algebra;
pub mod import;
pub mod model;

pub use model::{JointKind, Robot, RobotBody, SymbolicInertial};

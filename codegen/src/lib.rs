//! # quasidyn-codegen
//!
//! Turns a robot description into straight-line Rust and C. Pipeline, one module per stage:
//! spec (TOML) → model (the method's parameters) → derivation → IR → simplify → emit.
#![forbid(unsafe_code)]

pub mod algebra;
pub mod emit;
pub mod ir;
pub mod model;

pub use emit::{emit_c, emit_rust, CFiles, COptions, EmitError};
pub use ir::{Function, FunctionKind, Graph, Module, NodeId, OpCount, Output, Var};
pub use model::{JointKind, Robot, RobotBody, SymbolicInertial};

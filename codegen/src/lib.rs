//! # quasidyn-codegen
//!
//! Turns a robot description into straight-line Rust and C. Pipeline, one module per stage:
//! spec (TOML) → model (the method's parameters) → derivation → IR → simplify → emit.
#![forbid(unsafe_code)]

pub mod algebra;
pub mod beam;
mod build;
#[cfg(feature = "cli")]
pub mod cli;
pub mod derive;
pub mod emit;
pub mod equations;
pub mod error;
pub mod generate;
pub mod import;
pub mod ir;
mod mat3;
pub mod model;
pub mod params;
pub mod spec;

pub use build::{
    c_code, compile, decode_input, load_input, load_input_with, module_name, parse_input,
    parse_input_with, rust_code, write_if_changed, Builder, Error,
};
pub use emit::{emit_c, emit_rust, CFiles, COptions, EmitError};
pub use error::{InvalidSpec, SourceView, SpecError};
pub use generate::{build_module, build_module_physical, spec_hash, GENERATOR_VERSION};
pub use ir::{Function, FunctionKind, Graph, Module, NodeId, OpCount, Output, Var};
pub use model::{
    BaseBody, BaseMotion, ElasticJoint, Flex, FlexDirection, Frame, JointKind, ParameterSet, Robot,
    RobotBody, SymbolicInertial, Topology, MAX_FLEX_MODES,
};
pub use params::{BodyParams, MethodParams};
pub use spec::{load_spec, parse_spec, to_toml};

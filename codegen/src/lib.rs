//! # quasidyn-codegen
//!
//! Turns a robot description into straight-line Rust and C. Pipeline, one module per stage:
//! spec (TOML) → model (the method's parameters) → derivation → IR → simplify → emit.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod algebra;
pub mod beam;
mod build;
#[cfg(feature = "cli")]
pub mod cli;
pub mod derive;
pub mod emit;
pub mod equations;
pub mod error;
pub mod functions;
pub mod generate;
pub mod import;
mod inputs;
pub mod ir;
mod mat3;
pub mod model;
pub mod names;
mod parallel;
pub mod params;
pub mod progress;
pub mod spec;
#[cfg(test)]
mod workspace_files;

pub use build::{
    c_code, c_code_reporting, c_code_with, compile, decode_input, load_input, load_input_with,
    module_name, parse_input, parse_input_reading, parse_input_with, rust_code,
    rust_code_reporting, rust_code_with, write_if_changed, Builder, Error, Options,
};
pub use emit::{
    emit_c, emit_c_reporting, emit_rust, emit_rust_reporting, CFiles, COptions, EmitError,
    PartSizes,
};
pub use error::{InvalidSpec, SourceView, SpecError};
pub use functions::every_function_of;
pub use generate::{
    available_functions, build_module, build_module_only, build_module_physical, select_functions,
    spec_hash, GENERATOR_VERSION,
};
pub use ir::{Function, FunctionKind, Graph, Module, NodeId, OpCount, Output, Var};
pub use model::{
    BaseBody, BaseLayout, BaseMotion, Contact, ContactKind, ElasticJoint, Flex, FlexDirection,
    Frame, JointKind, Mimic, ParameterSet, PassiveJoint, Robot, RobotBody, SymbolicInertial,
    TendonSpring, Topology, MAX_BODIES, MAX_FLEX_MODES,
};
pub use params::{BodyParams, MethodParams};
pub use progress::{Progress, Silent, Stage, Step};
pub use spec::{load_spec, parse_spec, to_toml};

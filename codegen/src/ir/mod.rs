//! The intermediate representation: a flat, hash-consed arena of scalar expressions built
//! through simplifying constructors (see docs/design.md).

mod algebra_impl;
mod count;
mod eval;
mod graph;
mod module;
mod node;
mod passes;
mod rules;
mod share;
mod signs;
#[cfg(test)]
mod tests;

pub use crate::functions::FunctionKind;
pub use crate::inputs::{base_slot, BaseVar, ElasticInputs, ElasticVar};
pub use count::OpCount;
pub use eval::Env;
pub use graph::{Graph, Param};
pub use module::{Constant, Function, JointInput, Module, Output, BASE_PARAMETERS};
pub use node::{Node, NodeId, Operands, Var};
pub use rules::{Rule, RuleStats};

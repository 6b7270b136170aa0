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

pub use count::OpCount;
pub use eval::{base_slot, ElasticInputs, Env};
pub use graph::{Graph, Param};
pub use module::{Constant, Function, FunctionKind, Module, Output, BASE_PARAMETERS};
pub use node::{BaseVar, ElasticVar, Node, NodeId, Operands, Var};
pub use rules::{Rule, RuleStats};

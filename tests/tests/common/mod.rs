//! What the tests against the Pinocchio fixtures of `tests/fixtures/whole_body/` and
//! `tests/fixtures/contacts/` share: reading the fixtures and their inputs, and evaluating a
//! generated function on the expression graph.

use quasidyn_codegen::import::ImportOptions;
use quasidyn_codegen::ir::{Env, Function};
use quasidyn_codegen::{load_input_with, Module, Robot};
use quasidyn_tests::workspace_root;
use serde_json::Value;

/// The fixtures of `tests/fixtures/<dir>/` (written by `tools/<script>`), parsed, in file-name
/// order.
pub fn fixture_values(dir: &str, script: &str) -> Vec<Value> {
    let dir = workspace_root().join("tests/fixtures").join(dir);
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("fixtures written by tools/{script}: {e}"))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| serde_json::from_str(&std::fs::read_to_string(p).expect("read")).expect("json"))
        .collect()
}

/// The numbers of a JSON array.
pub fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap_or_else(|| panic!("array, got {v}"))
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect()
}

/// The robot of a fixture's input (a path from the workspace root), read with `options`.
pub fn fixture_robot(input: &str, options: &ImportOptions) -> Robot {
    load_input_with(&workspace_root().join(input), options)
        .expect("fixture input loads")
        .robot
}

/// The graph's inputs for a floating or prescribed base's state in the floating layout: `q`
/// (the base's pose, then the joints'), `v` and `a` (the base's six, then the joints').
#[allow(dead_code)] // Not every test binary that shares this module has a moving base.
pub fn moving_base_env(q: &[f64], v: &[f64], a: &[f64]) -> Env {
    let base = q[..7]
        .iter()
        .chain(&v[..6])
        .chain(&a[..6])
        .copied()
        .collect();
    Env {
        q: q[7..].to_vec(),
        qd: v[6..].to_vec(),
        qdd: a[6..].to_vec(),
        base,
        ..Env::default()
    }
}

/// Every output of `function` on the graph at `env`, one after the other.
pub fn graph_outputs(module: &Module, function: &Function, env: &Env) -> Vec<f64> {
    let values: Vec<_> = function
        .outputs
        .iter()
        .flat_map(|o| o.values.iter().copied())
        .collect();
    module.graph.eval_many(&values, env)
}

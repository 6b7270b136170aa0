//! What the reader tests share: the fixtures of tests/fixtures/mjcf/ (written by
//! tools/mjcf_reference.py from MuJoCo 4), their numbers, the joints a fixture locks, and the
//! expression graph evaluated at their states.

// Each test file uses a part of these.
#![allow(dead_code)]

use std::path::PathBuf;

use quasidyn_codegen::import::JointLock;
use quasidyn_codegen::ir::Env;
use quasidyn_codegen::{FunctionKind, Module};
use serde_json::Value;

/// Agreement required with MuJoCo.
pub const REL: f64 = 1e-9;

pub fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/mjcf")
}

pub fn numbers(v: &Value) -> Vec<f64> {
    match v {
        Value::Array(items) => items.iter().flat_map(numbers).collect(),
        Value::Number(n) => vec![n.as_f64().expect("a number")],
        other => panic!("not a number: {other}"),
    }
}

/// `|a − e| ≤ rel · max(1, ‖expected‖∞)` per entry.
#[track_caller]
pub fn assert_close(what: &str, actual: &[f64], expected: &[f64]) {
    assert_eq!(actual.len(), expected.len(), "{what}: length");
    let scale = expected.iter().fold(1.0_f64, |m, v| m.max(v.abs()));
    for (k, (a, e)) in actual.iter().zip(expected).enumerate() {
        assert!(
            (a - e).abs() <= REL * scale,
            "{what}[{k}]: got {a:e}, expected {e:e}"
        );
    }
}

pub fn eval(module: &Module, kind: FunctionKind, env: &Env) -> Vec<Vec<f64>> {
    let function = module.function(kind).expect("function generated");
    function
        .outputs
        .iter()
        .map(|o| module.graph.eval_many(&o.values, env))
        .collect()
}

/// The inputs of MuJoCo's `qpos`, `qvel`, `qacc` and generalised forces: with a free joint,
/// its entries (7 of `qpos`, 6 of the others) are the base's, in MuJoCo's order.
pub fn env(floating: bool, q: &[f64], qd: &[f64], qdd: &[f64], tau: &[f64]) -> Env {
    let (nq, nv) = if floating { (7, 6) } else { (0, 0) };
    let mut base = q[..nq].to_vec();
    for v in [qd, qdd, tau] {
        base.extend_from_slice(&v[..nv]);
    }
    Env {
        q: q[nq..].to_vec(),
        qd: qd[nv..].to_vec(),
        qdd: qdd[nv..].to_vec(),
        tau: tau[nv..].to_vec(),
        params: Vec::new(),
        base,
        elastic: Default::default(),
    }
}

/// The fixture `name` (`tests/fixtures/mjcf/NAME.json`).
pub fn fixture(name: &str) -> Value {
    let text = std::fs::read_to_string(fixture_dir().join(format!("{name}.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The joints a URDF or MJCF fixture locks (`"locks"`: joint -> value), as `--lock JOINT=VALUE`
/// (null: `--lock JOINT`, at zero for URDF, at `qpos0` for MJCF).
pub fn fixture_locks(doc: &Value) -> Vec<JointLock> {
    doc["locks"].as_object().map_or_else(Vec::new, |locks| {
        locks
            .iter()
            .map(|(joint, value)| match value.as_f64() {
                Some(v) => JointLock::at(joint, v),
                None => JointLock::at_reference(joint),
            })
            .collect()
    })
}

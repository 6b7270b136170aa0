//! Shared helpers of the workspace integration tests: conversion of a parsed spec into the
//! runtime's numeric chain, fixture loading and tolerant comparison.

use std::path::{Path, PathBuf};

use quasidyn::{Body, Chain};
use quasidyn_codegen::{JointKind, Robot};
use serde::Deserialize;

/// Workspace root (the directory holding `robots/` and `tests/`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests crate lives one level below the workspace root")
        .to_path_buf()
}

/// Every robot spec shipped in `robots/`, sorted by file name.
pub fn shipped_robots() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(workspace_root().join("robots"))
        .expect("robots/ exists")
        .map(|entry| entry.expect("readable robots/ entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
        .collect();
    paths.sort();
    paths
}

/// The runtime's numeric chain for a validated robot.
pub fn chain_of(robot: &Robot) -> Chain {
    Chain {
        bodies: robot
            .bodies
            .iter()
            .map(|body| Body {
                joint: match body.joint {
                    JointKind::Revolute => quasidyn::JointKind::Revolute,
                    JointKind::Prismatic => quasidyn::JointKind::Prismatic,
                },
                axis: body.axis,
                next: body.next,
                mass: body.mass,
                com: body.com,
                inertia_com: body.inertia_com,
            })
            .collect(),
        base: robot.base,
        gravity: robot.gravity,
        tool_rotation: robot.tool_rotation,
    }
}

/// One state of a Pinocchio fixture (see tools/reference.py).
#[derive(Debug, Deserialize)]
pub struct FixtureState {
    pub q: Vec<f64>,
    pub qd: Vec<f64>,
    pub qdd: Vec<f64>,
    pub tau: Vec<f64>,
    pub mass_matrix: Vec<Vec<f64>>,
    pub nonlinear_effects: Vec<f64>,
    pub gravity: Vec<f64>,
    #[serde(default)]
    pub tau_fd: Vec<f64>,
    #[serde(default)]
    pub qdd_fd: Vec<f64>,
    pub tool_rotation: Vec<Vec<f64>>,
    pub tool_position: Vec<f64>,
    pub jacobian: Vec<Vec<f64>>,
    #[serde(default)]
    pub kinetic_energy: Option<f64>,
    #[serde(default)]
    pub static_force: Vec<Vec<f64>>,
    #[serde(default)]
    pub static_moment: Vec<Vec<f64>>,
    #[serde(default)]
    pub centrifugal: Vec<f64>,
    #[serde(default)]
    pub coriolis: Vec<f64>,
    #[serde(default)]
    pub gyroscopic: Vec<f64>,
}

/// A fixture file: reference values computed by Pinocchio for one robot.
#[derive(Debug, Deserialize)]
pub struct Fixture {
    pub robot: String,
    pub dof: usize,
    pub generator: String,
    pub states: Vec<FixtureState>,
}

/// Loads `tests/fixtures/<name>.json`.
pub fn load_fixture(name: &str) -> Fixture {
    let path = workspace_root()
        .join("tests/fixtures")
        .join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|err| panic!("cannot read fixture {}: {err}", path.display()));
    serde_json::from_str(&text)
        .unwrap_or_else(|err| panic!("bad fixture {}: {err}", path.display()))
}

/// Flattens rows into one row-major vector.
pub fn flat(rows: &[Vec<f64>]) -> Vec<f64> {
    rows.iter().flatten().copied().collect()
}

/// Asserts `actual ≈ expected` with `|a − e| ≤ rel · max(1, ‖expected‖∞)` per entry.
#[track_caller]
pub fn assert_close(what: &str, actual: &[f64], expected: &[f64], rel: f64) {
    assert_eq!(actual.len(), expected.len(), "{what}: length");
    let scale = expected.iter().fold(1.0_f64, |m, v| m.max(v.abs()));
    for (k, (a, e)) in actual.iter().zip(expected).enumerate() {
        assert!(
            (a - e).abs() <= rel * scale,
            "{what}[{k}]: got {a:e}, expected {e:e} (tolerance {:e})",
            rel * scale
        );
    }
}

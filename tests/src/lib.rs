//! Shared helpers of the workspace integration tests: conversion of a parsed spec into the
//! reference models' numeric chain, fixture loading and tolerant comparison, and the code
//! generated from every robot in `robots/` (by `build.rs`) behind one slice-based interface.

use std::path::{Path, PathBuf};

use quasidyn::Dynamics;
use quasidyn_codegen::{FunctionKind, JointKind, Robot};
use quasidyn_reference::{Body, Chain, ReferenceModel, Tree, TreeBody};
use serde::Deserialize;

pub mod timing;

pub mod generated {
    //! Generated Rust modules (`generated::NAME`), FFI declarations of the generated C, and the
    //! registries [`ROBOTS`], [`FLOAT_C`], [`HEADER_ONLY_C`] and [`BATCHES`] (written by
    //! `build.rs`).
    // The tree adapters use these; a robots/ without trees leaves them unused.
    #[allow(unused_imports)]
    use super::{
        elastic_output_lengths, flat_rows, lanes, output_lengths, unlanes, CRobot, ContactBatch,
        ElasticRobot, ElasticState, Evaluate, Flat, GeneratedBatch, GeneratedFloating,
        GeneratedRobot, GeneratedTree, State, ViaTrait, WholeBodyRobot,
    };
    #[allow(unused_imports)]
    use quasidyn_codegen::FunctionKind;
    include!(concat!(env!("OUT_DIR"), "/generated.rs"));
}

/// Directory holding the build script's output (`rust/`, `c/`, `generated.rs`).
pub const OUT_DIR: &str = env!("OUT_DIR");

/// Workspace root (the directory holding `robots/` and `tests/`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests crate lives one level below the workspace root")
        .to_path_buf()
}

/// Every fixed-base robot spec shipped in `robots/` (chains and trees), sorted by file name.
pub fn shipped_robots() -> Vec<PathBuf> {
    robots_of_base(false)
}

/// The floating-base specs of `robots/` (`[base] motion = "floating"`), sorted.
pub fn shipped_floating_robots() -> Vec<PathBuf> {
    robots_of_base(true)
}

fn robots_of_base(floating: bool) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(workspace_root().join("robots"))
        .expect("robots/ exists")
        .map(|entry| entry.expect("readable robots/ entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
        .filter(|path| {
            quasidyn_codegen::load_spec(path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
                .is_floating()
                == floating
        })
        .collect();
    paths.sort();
    paths
}

/// The reference models' numeric chain for a validated robot.
pub fn chain_of(robot: &Robot) -> Chain {
    Chain {
        bodies: robot
            .bodies
            .iter()
            .map(|body| Body {
                joint: match body.joint {
                    JointKind::Revolute => quasidyn_reference::JointKind::Revolute,
                    JointKind::Prismatic => quasidyn_reference::JointKind::Prismatic,
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

/// The reference models' numeric tree for a validated robot (chain or tree): parents, origins
/// and the spec's named frames in spec order (a chain's tool is not among them; see
/// [`chain_of`]).
pub fn tree_of(robot: &Robot) -> Tree {
    Tree {
        bodies: robot
            .bodies
            .iter()
            .map(|body| TreeBody {
                parent: body.parent,
                joint: match body.joint {
                    JointKind::Revolute => quasidyn_reference::JointKind::Revolute,
                    JointKind::Prismatic => quasidyn_reference::JointKind::Prismatic,
                },
                axis: body.axis,
                origin: body.origin,
                mass: body.mass,
                com: body.com,
                inertia_com: body.inertia_com,
            })
            .collect(),
        gravity: robot.gravity,
        frames: robot
            .frames
            .iter()
            .map(|frame| quasidyn_reference::Frame {
                // Only a floating base carries frames itself, and these models are fixed-base.
                body: frame
                    .body
                    .expect("a frame of a fixed-base robot is on a body"),
                position: frame.position,
                rotation: frame.rotation,
            })
            .collect(),
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
    /// The tool (chains only).
    #[serde(default)]
    pub tool_rotation: Vec<Vec<f64>>,
    #[serde(default)]
    pub tool_position: Vec<f64>,
    #[serde(default)]
    pub jacobian: Vec<Vec<f64>>,
    /// Named frames, in the spec's order.
    #[serde(default)]
    pub frames: Vec<FixtureFrame>,
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

/// A named frame of a fixture state: pose and Jacobian (6×N, `LOCAL_WORLD_ALIGNED`).
#[derive(Debug, Deserialize)]
pub struct FixtureFrame {
    pub name: String,
    pub rotation: Vec<Vec<f64>>,
    pub position: Vec<f64>,
    pub jacobian: Vec<Vec<f64>>,
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

/// One state of a derivative fixture (see tools/derivatives_reference.py); matrices as rows,
/// `[i][j] = d out_i / d in_j`.
#[derive(Debug, Deserialize)]
pub struct DerivativeState {
    pub q: Vec<f64>,
    pub qd: Vec<f64>,
    pub qdd: Vec<f64>,
    pub tau: Vec<f64>,
    pub dtau_dq: Vec<Vec<f64>>,
    pub dtau_dqd: Vec<Vec<f64>>,
    pub dg_dq: Vec<Vec<f64>>,
    pub dqdd_dq: Vec<Vec<f64>>,
    pub dqdd_dqd: Vec<Vec<f64>>,
    #[serde(rename = "Minv")]
    pub minv: Vec<Vec<f64>>,
    /// `N × 10N`, columns per body in the order m, mx, my, mz, ixx, ixy, ixz, iyy, iyz, izz
    /// (empty in a URDF arm's fixture).
    #[serde(default)]
    pub regressor: Vec<Vec<f64>>,
}

/// A derivative fixture file (tools/derivatives_reference.py).
#[derive(Debug, Deserialize)]
pub struct DerivativeFixture {
    pub robot: String,
    pub dof: usize,
    pub generator: String,
    /// The standard parameters of every body (Pinocchio's dynamic parameters, reordered;
    /// empty in a URDF arm's fixture).
    #[serde(default)]
    pub standard_parameters: Vec<f64>,
    pub states: Vec<DerivativeState>,
}

/// Loads `tests/fixtures/derivatives/<name>.json` (`urdf/<arm>` for a URDF arm's).
pub fn load_derivative_fixture(name: &str) -> DerivativeFixture {
    let path = workspace_root()
        .join("tests/fixtures/derivatives")
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

/// The numbers of a JSON value, nested arrays flattened row-major.
pub fn json_numbers(v: &serde_json::Value) -> Vec<f64> {
    match v {
        serde_json::Value::Array(items) => items.iter().flat_map(json_numbers).collect(),
        serde_json::Value::Number(n) => vec![n.as_f64().expect("a number")],
        other => panic!("not a number: {other}"),
    }
}

/// Inputs of a call; each array has one entry per joint.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    /// Joint positions.
    pub q: Vec<f64>,
    /// Joint velocities.
    pub qd: Vec<f64>,
    /// Joint accelerations (inverse dynamics).
    pub qdd: Vec<f64>,
    /// Joint forces (forward dynamics).
    pub tau: Vec<f64>,
}

/// Inputs of the elastic functions: joint arrays of `N` entries, `beta*` of `NBETA`, `w*` of
/// `NW`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ElasticState {
    /// Joint positions.
    pub q: Vec<f64>,
    /// Joint velocities.
    pub qd: Vec<f64>,
    /// Joint accelerations.
    pub qdd: Vec<f64>,
    /// Compliance angles of the elastic joints.
    pub beta: Vec<f64>,
    /// Their rates.
    pub betad: Vec<f64>,
    /// Their second derivatives.
    pub betadd: Vec<f64>,
    /// Modal coordinates of the flexible links.
    pub w: Vec<f64>,
    /// Their rates.
    pub wd: Vec<f64>,
    /// Their second derivatives.
    pub wdd: Vec<f64>,
    /// Motor-side positions of the elastic joints (elastic-joint dynamics).
    pub theta: Vec<f64>,
    /// Their rates.
    pub thetad: Vec<f64>,
    /// Motor torques of the elastic joints, joint torques of the rigid ones.
    pub tau: Vec<f64>,
    /// Third time derivatives of the joint positions.
    pub qddd: Vec<f64>,
    /// Fourth time derivatives of the joint positions.
    pub qdddd: Vec<f64>,
}

/// A robot of `robots/` with elastic joints or flexible links: its elastic functions, generated
/// (Rust) and compiled (C) by `build.rs`, called uniformly.
pub struct ElasticRobot {
    /// Spec file stem.
    pub stem: &'static str,
    /// Generated module name.
    pub name: &'static str,
    /// Number of joints.
    pub dof: usize,
    /// Entries of `beta`.
    pub nbeta: usize,
    /// Entries of `w`.
    pub nw: usize,
    /// The generated `BETA_NAMES`.
    pub beta_names: &'static [&'static str],
    /// The generated `W_NAMES`.
    pub w_names: &'static [&'static str],
    /// The elastic functions generated for it.
    pub kinds: &'static [FunctionKind],
    /// `call(c, kind, x)`: the outputs of `kind` in contract order, flattened row-major, from
    /// the Rust (`c = false`) or the C.
    pub call: fn(bool, FunctionKind, &ElasticState) -> Vec<Vec<f64>>,
}

impl ElasticRobot {
    /// The validated spec.
    pub fn spec(&self) -> Robot {
        let path = workspace_root().join(format!("robots/{}.toml", self.stem));
        quasidyn_codegen::load_spec(&path).expect("shipped spec parses")
    }
}

/// Output lengths of an elastic function (as its contract writes them).
pub fn elastic_output_lengths(kind: FunctionKind, n: usize, nbeta: usize, nw: usize) -> Vec<usize> {
    match kind {
        FunctionKind::ElasticForwardDynamics => vec![n, nbeta],
        FunctionKind::ElasticFeedforward => vec![nbeta, n],
        FunctionKind::ElasticForwardKinematics => vec![9, 3],
        FunctionKind::ComplianceJacobians => vec![6 * nbeta, 6 * nw],
        FunctionKind::ElasticVelocity | FunctionKind::ElasticAcceleration => vec![6],
        FunctionKind::StaticDeflection => vec![nbeta],
        FunctionKind::DeflectedToolError => vec![3, 3],
        other => panic!("{other:?} is not an elastic function"),
    }
}

/// Any implementation of the generated functions, called uniformly: `call` returns the outputs
/// of `kind` in contract order, each flattened row-major (`R` then `p`; `F` then `T`).
pub trait Evaluate: Sync {
    /// Number of joints.
    fn dof(&self) -> usize;
    /// The outputs of function `kind` at `x` (which reads only the inputs `kind` takes).
    fn call(&self, kind: FunctionKind, x: &State) -> Vec<Vec<f64>>;
}

/// A module generated with batched functions (`--batch`), called two ways: `call(c, batched,
/// kind, states)` gives the outputs of `kind` for each state (`[state][output]`, each output
/// flattened row-major), from the Rust (`c = false`) or the C, through the `_batch` function
/// (one call for all `batch` states) or the scalar one (one call per state).
pub struct GeneratedBatch {
    /// Module / C prefix name.
    pub name: &'static str,
    /// Number of joints.
    pub dof: usize,
    /// Number of states of the batched functions.
    pub batch: usize,
    /// Every function of the module.
    pub kinds: &'static [FunctionKind],
    /// The calls.
    pub call: BatchCall,
}

/// `call(c, batched, kind, states)` of a [`GeneratedBatch`]: `[state][output][entry]`.
pub type BatchCall = fn(bool, bool, FunctionKind, &[State]) -> Vec<Vec<Vec<f64>>>;

/// An output of a generated Rust function, flattened row-major.
pub trait Flat {
    /// The entries, row-major.
    fn flat(&self) -> Vec<f64>;
}

impl<const N: usize> Flat for [f64; N] {
    fn flat(&self) -> Vec<f64> {
        self.to_vec()
    }
}

impl<const C: usize, const R: usize> Flat for [[f64; C]; R] {
    fn flat(&self) -> Vec<f64> {
        flat_rows(self)
    }
}

/// The batched form of one input: entry `[j][k]` is `input(states[k])[j]`.
pub fn lanes<const B: usize, const L: usize>(
    states: &[State],
    input: impl Fn(&State) -> &Vec<f64>,
) -> [[f64; B]; L] {
    assert_eq!(states.len(), B, "one state per lane");
    let mut out = [[0.0; B]; L];
    for (k, x) in states.iter().enumerate() {
        for (j, v) in input(x).iter().enumerate() {
            out[j][k] = *v;
        }
    }
    out
}

/// The states of a batched output: `[k][j]` from entry `[j][k]`.
pub fn unlanes<const B: usize, const L: usize>(out: &[[f64; B]; L]) -> Vec<Vec<f64>> {
    (0..B)
        .map(|k| out.iter().map(|row| row[k]).collect())
        .collect()
}

/// Flattens `[[f64; C]; R]` row-major.
pub fn flat_rows<const C: usize>(m: &[[f64; C]]) -> Vec<f64> {
    m.iter().flatten().copied().collect()
}

/// A generated Rust robot called through `quasidyn::Dynamics<N>` (so the trait impl is what is
/// tested, and through it the free functions it forwards to).
pub struct ViaTrait<D, const N: usize>(pub D);

impl<D: Dynamics<N> + Sync, const N: usize> Evaluate for ViaTrait<D, N> {
    fn dof(&self) -> usize {
        N
    }

    fn call(&self, kind: FunctionKind, x: &State) -> Vec<Vec<f64>> {
        let a = |v: &[f64]| -> [f64; N] { v.try_into().expect("one value per joint") };
        let d = &self.0;
        match kind {
            FunctionKind::InverseDynamics => {
                vec![d.inverse_dynamics(&a(&x.q), &a(&x.qd), &a(&x.qdd)).to_vec()]
            }
            FunctionKind::Gravity => vec![d.gravity(&a(&x.q)).to_vec()],
            FunctionKind::NonlinearEffects => {
                vec![d.nonlinear_effects(&a(&x.q), &a(&x.qd)).to_vec()]
            }
            FunctionKind::MassMatrix => vec![flat_rows(&d.mass_matrix(&a(&x.q)))],
            FunctionKind::ForwardDynamics => {
                vec![d.forward_dynamics(&a(&x.q), &a(&x.qd), &a(&x.tau)).to_vec()]
            }
            FunctionKind::ForwardKinematics => {
                let (r, p) = d.forward_kinematics(&a(&x.q));
                vec![flat_rows(&r), p.to_vec()]
            }
            FunctionKind::Jacobian => vec![flat_rows(&d.jacobian(&a(&x.q)))],
            FunctionKind::Centrifugal => vec![d.centrifugal(&a(&x.q), &a(&x.qd)).to_vec()],
            FunctionKind::Coriolis => vec![d.coriolis(&a(&x.q), &a(&x.qd)).to_vec()],
            FunctionKind::Gyroscopic => vec![d.gyroscopic(&a(&x.q), &a(&x.qd)).to_vec()],
            FunctionKind::StaticJointReactions => {
                let (f, t) = d.static_joint_reactions(&a(&x.q));
                vec![flat_rows(&f), flat_rows(&t)]
            }
            FunctionKind::FrameKinematics(_) | FunctionKind::FrameJacobian(_) => {
                panic!("{kind:?}: named frames are free functions, not `Dynamics` methods")
            }
            other => panic!("{other:?} is not a `Dynamics` function (see `GeneratedRobot::extra`)"),
        }
    }
}

/// Scalar type of a generated C variant.
pub trait Real: Copy + Default + Sync {
    /// Rounds from `f64`.
    fn from_f64(v: f64) -> Self;
    /// Widens to `f64`.
    fn to_f64(self) -> f64;
}

impl Real for f64 {
    fn from_f64(v: f64) -> Self {
        v
    }
    fn to_f64(self) -> f64 {
        self
    }
}

impl Real for f32 {
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}

/// `f(q, out)`.
pub type CQ<T> = unsafe extern "C" fn(*const T, *mut T);
/// `f(q, out0, out1)`.
pub type CQ2<T> = unsafe extern "C" fn(*const T, *mut T, *mut T);
/// `f(q, qd, out)`.
pub type CQQd<T> = unsafe extern "C" fn(*const T, *const T, *mut T);
/// `f(q, qd, qdd or tau, out)`.
pub type CQQdX<T> = unsafe extern "C" fn(*const T, *const T, *const T, *mut T);

/// The generated C functions of one robot (one variant), as linked into this crate.
pub struct CRobot<T: 'static> {
    /// Number of joints.
    pub dof: usize,
    /// `NAME_inverse_dynamics`.
    pub inverse_dynamics: CQQdX<T>,
    /// `NAME_gravity`.
    pub gravity: CQ<T>,
    /// `NAME_nonlinear_effects`.
    pub nonlinear_effects: CQQd<T>,
    /// `NAME_mass_matrix`.
    pub mass_matrix: CQ<T>,
    /// `NAME_forward_dynamics`.
    pub forward_dynamics: CQQdX<T>,
    /// `NAME_forward_kinematics`.
    pub forward_kinematics: CQ2<T>,
    /// `NAME_jacobian`.
    pub jacobian: CQ<T>,
    /// `NAME_centrifugal`.
    pub centrifugal: CQQd<T>,
    /// `NAME_coriolis`.
    pub coriolis: CQQd<T>,
    /// `NAME_gyroscopic`.
    pub gyroscopic: CQQd<T>,
    /// `NAME_static_joint_reactions`.
    pub static_joint_reactions: CQ2<T>,
}

/// Lengths of the flattened outputs of `kind` for `n` joints, in contract order.
pub fn output_lengths(kind: FunctionKind, n: usize) -> Vec<usize> {
    match kind {
        FunctionKind::MassMatrix => vec![n * n],
        FunctionKind::ForwardKinematics | FunctionKind::FrameKinematics(_) => vec![9, 3],
        FunctionKind::Jacobian | FunctionKind::FrameJacobian(_) => vec![6 * n],
        FunctionKind::StaticJointReactions => vec![3 * n, 3 * n],
        FunctionKind::InverseDynamicsDerivatives => vec![n * n; 2],
        FunctionKind::GravityDerivatives => vec![n * n],
        FunctionKind::ForwardDynamicsDerivatives => vec![n * n; 3],
        FunctionKind::Regressor => vec![10 * n * n],
        FunctionKind::BaseRegressor => panic!("the base regressor's size depends on NB"),
        _ => vec![n],
    }
}

impl<T: Real> Evaluate for CRobot<T> {
    fn dof(&self) -> usize {
        self.dof
    }

    fn call(&self, kind: FunctionKind, x: &State) -> Vec<Vec<f64>> {
        let n = self.dof;
        let conv = |v: &[f64]| -> Vec<T> {
            assert_eq!(v.len(), n, "one value per joint");
            v.iter().map(|&a| T::from_f64(a)).collect()
        };
        let (q, qd, qdd, tau) = (conv(&x.q), conv(&x.qd), conv(&x.qdd), conv(&x.tau));
        let (q, qd, qdd, tau) = (q.as_ptr(), qd.as_ptr(), qdd.as_ptr(), tau.as_ptr());
        let lengths = output_lengths(kind, n);
        let mut o0 = vec![T::default(); lengths[0]];
        let mut o1 = vec![T::default(); lengths.get(1).copied().unwrap_or(0)];
        let (a, b) = (o0.as_mut_ptr(), o1.as_mut_ptr());
        // SAFETY: every input points to `n` values and every output to a buffer of the length
        // the function's contract writes; the C code keeps no pointer after returning.
        unsafe {
            match kind {
                FunctionKind::InverseDynamics => (self.inverse_dynamics)(q, qd, qdd, a),
                FunctionKind::Gravity => (self.gravity)(q, a),
                FunctionKind::NonlinearEffects => (self.nonlinear_effects)(q, qd, a),
                FunctionKind::MassMatrix => (self.mass_matrix)(q, a),
                FunctionKind::ForwardDynamics => (self.forward_dynamics)(q, qd, tau, a),
                FunctionKind::ForwardKinematics => (self.forward_kinematics)(q, a, b),
                FunctionKind::Jacobian => (self.jacobian)(q, a),
                FunctionKind::Centrifugal => (self.centrifugal)(q, qd, a),
                FunctionKind::Coriolis => (self.coriolis)(q, qd, a),
                FunctionKind::Gyroscopic => (self.gyroscopic)(q, qd, a),
                FunctionKind::StaticJointReactions => (self.static_joint_reactions)(q, a, b),
                FunctionKind::FrameKinematics(_) | FunctionKind::FrameJacobian(_) => {
                    panic!("{kind:?}: the chain registry has no named frames")
                }
                other => panic!("{other:?} is not a `Dynamics` function"),
            }
        }
        let widen = |v: Vec<T>| v.into_iter().map(T::to_f64).collect::<Vec<f64>>();
        let mut out = vec![widen(o0)];
        if lengths.len() > 1 {
            out.push(widen(o1));
        }
        out
    }
}

/// One tree robot of `robots/` (no tool, so no `Dynamics` impl), generated and compiled by
/// `build.rs`, with its functions (named frames included) behind [`Evaluate`].
pub struct GeneratedTree {
    /// Spec file stem (`robots/<stem>.toml`, `tests/fixtures/<stem>.json`); `urdf/<name>` for
    /// a URDF tree of `tests/fixtures/urdf/` (whose [`GeneratedTree::spec`] does not apply).
    pub stem: &'static str,
    /// Module / C prefix name.
    pub name: &'static str,
    /// Number of joints.
    pub dof: usize,
    /// Named frames, in order (`FrameKinematics(k)` is frame `k`).
    pub frames: &'static [&'static str],
    /// The generated dynamics and frame functions (those of the dynamics fixtures).
    pub kinds: &'static [FunctionKind],
    /// The generated derivative and identification functions (those of the derivative
    /// fixtures, `tests/fixtures/derivatives/<stem>.json`).
    pub extra_kinds: &'static [FunctionKind],
    /// The robot's standard inertial parameters (`STANDARD_PARAMETERS`, 10 per body).
    pub standard_parameters: &'static [f64],
    /// The robot's base parameters (`BASE_PARAMETERS`; empty when no base regressor).
    pub base_parameters: &'static [f64],
    /// The generated Rust.
    pub rust: &'static dyn Evaluate,
    /// The generated C (double precision), through FFI.
    pub c: &'static dyn Evaluate,
}

/// A function of a [`WholeBodyRobot`] at `(q, v, a)` (`q` of `NQ`, `v` and `a` of `NV` values;
/// a function reads those it takes): its outputs flattened row-major, one after the other.
pub type WholeBodyCall = fn(FunctionKind, &[f64], &[f64], &[f64]) -> Vec<f64>;

/// A robot of `tests/fixtures/whole_body/` with its functions generated on request (registered
/// in [`generated::WHOLE_BODY`]).
pub struct WholeBodyRobot {
    /// The fixture's name (`tests/fixtures/whole_body/<fixture>.json`).
    pub fixture: &'static str,
    /// The functions generated (every function on request the robot has), with their names
    /// (the fixture's keys).
    pub kinds: &'static [(FunctionKind, &'static str)],
    /// The generated Rust.
    pub rust: WholeBodyCall,
    /// The generated C, through FFI.
    pub c: WholeBodyCall,
}

/// A batched contact function of a [`ContactBatch`] over its `batch` states (`q` of `NQ`,
/// `qd` standing for `v` and `tau` of `NV` values each): per state, its outputs flattened
/// row-major one after the other.
pub type ContactBatchCall = fn(FunctionKind, &[State]) -> Vec<Vec<f64>>;

/// A robot of `tests/fixtures/contacts/` with the batched forms of its contact functions in
/// Rust (registered in [`generated::CONTACTS_BATCHED`]).
pub struct ContactBatch {
    /// The fixture's name (`tests/fixtures/contacts/<fixture>.json`).
    pub fixture: &'static str,
    /// States per call.
    pub batch: usize,
    /// `contact_jacobian_batch` or `contact_forward_dynamics_batch`.
    pub rust: ContactBatchCall,
}

/// A generated floating-base robot of `robots/` (registered in
/// [`generated::FLOATING`]), called through [`Evaluate`] with [`State::q`] holding `NQ = 7 + N`
/// values (base position, quaternion x y z w, joints) and `qd`, `qdd`, `tau` standing for `v`,
/// `a` and `tau` of `NV = 6 + N` values.
pub struct GeneratedFloating {
    /// Spec file stem (`robots/<stem>.toml`, `tests/fixtures/floating/<stem>.json`).
    pub stem: &'static str,
    /// Module / C prefix name.
    pub name: &'static str,
    /// Number of joints (without the base's six coordinates).
    pub dof: usize,
    /// Named frames, in order (`FrameKinematics(k)` is frame `k`).
    pub frames: &'static [&'static str],
    /// The generated functions.
    pub kinds: &'static [FunctionKind],
    /// The robot's standard inertial parameters (`STANDARD_PARAMETERS`, 10 per body, the base
    /// body's first).
    pub standard_parameters: &'static [f64],
    /// The robot's base parameters (`BASE_PARAMETERS`).
    pub base_parameters: &'static [f64],
    /// The generated Rust.
    pub rust: &'static dyn Evaluate,
    /// The generated C (double precision), through FFI.
    pub c: &'static dyn Evaluate,
}

impl GeneratedTree {
    /// The parsed spec.
    pub fn spec(&self) -> Robot {
        let path = workspace_root()
            .join("robots")
            .join(format!("{}.toml", self.stem));
        quasidyn_codegen::load_spec(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }
}

/// One robot of `robots/`, generated and compiled by `build.rs`.
pub struct GeneratedRobot {
    /// Spec file stem (`robots/<stem>.toml`, `tests/fixtures/<stem>.json`).
    pub stem: &'static str,
    /// Module / C prefix name.
    pub name: &'static str,
    /// Number of joints.
    pub dof: usize,
    /// The generated Rust, through `quasidyn::Dynamics`.
    pub rust: &'static dyn Evaluate,
    /// The generated C (double precision), through FFI.
    pub c: &'static dyn Evaluate,
    /// The functions outside the `Dynamics` trait (derivatives, ...): `extra(c, kind, x)` calls
    /// the generated Rust, or the C with `c`, and returns the outputs as [`Evaluate::call`].
    pub extra: fn(bool, FunctionKind, &State) -> Vec<Vec<f64>>,
    /// The generated constant arrays by C name suffix (`"standard_parameters"`): `constants(c,
    /// name)` reads the Rust constant, or the C array with `c`.
    pub constants: fn(bool, &str) -> Vec<f64>,
}

impl GeneratedRobot {
    /// The parsed spec.
    pub fn spec(&self) -> Robot {
        let path = workspace_root()
            .join("robots")
            .join(format!("{}.toml", self.stem));
        quasidyn_codegen::load_spec(&path).expect("shipped spec parses")
    }
}

/// The outputs of `kind` at `x` according to a numeric reference model, in the layout of
/// [`Evaluate::call`]. The velocity split, which the models do not compute, comes from
/// [`reference_split`].
pub fn reference_call(model: &dyn ReferenceModel, kind: FunctionKind, x: &State) -> Vec<Vec<f64>> {
    let n = model.dof();
    let mut out: Vec<Vec<f64>> = output_lengths(kind, n)
        .into_iter()
        .map(|len| vec![0.0; len])
        .collect();
    match kind {
        FunctionKind::InverseDynamics => model.inverse_dynamics(&x.q, &x.qd, &x.qdd, &mut out[0]),
        FunctionKind::Gravity => model.gravity(&x.q, &mut out[0]),
        FunctionKind::NonlinearEffects => model.nonlinear_effects(&x.q, &x.qd, &mut out[0]),
        FunctionKind::MassMatrix => model.mass_matrix(&x.q, &mut out[0]),
        FunctionKind::ForwardDynamics => model.forward_dynamics(&x.q, &x.qd, &x.tau, &mut out[0]),
        FunctionKind::ForwardKinematics => {
            let (r, p) = model.forward_kinematics(&x.q);
            out = vec![flat_rows(&r), p.to_vec()];
        }
        FunctionKind::Jacobian => model.jacobian(&x.q, &mut out[0]),
        FunctionKind::Centrifugal | FunctionKind::Coriolis | FunctionKind::Gyroscopic => {
            let (hc, ho, hg) = reference_split(model, &x.q, &x.qd);
            out[0] = match kind {
                FunctionKind::Centrifugal => hc,
                FunctionKind::Coriolis => ho,
                _ => hg,
            };
        }
        FunctionKind::StaticJointReactions => {
            let (f, t) = out.split_at_mut(1);
            model.static_joint_reactions(&x.q, &mut f[0], &mut t[0]);
        }
        FunctionKind::FrameKinematics(_) | FunctionKind::FrameJacobian(_) => {
            panic!("{kind:?}: the chain reference models have no named frames")
        }
        other => panic!("{other:?}: not computed by the reference models"),
    }
    out
}

/// Mass-matrix derivatives `dh[(k*n + j)*n + i] = ∂H_kj/∂q_i` from the model's nonlinear
/// effects alone, exactly (no finite differences): `h(q, v) - g(q) = Σ_ij c_k,ij v_i v_j`
/// with the Christoffel symbols `c_k,ij = ½(∂_j H_ki + ∂_i H_kj - ∂_k H_ij)`, read off by
/// polarization at unit velocities, and `∂_i H_kj = c_k,ji + c_j,ki`.
pub fn mass_matrix_derivatives(model: &dyn ReferenceModel, q: &[f64]) -> Vec<f64> {
    let n = model.dof();
    let mut g = vec![0.0; n];
    model.gravity(q, &mut g);
    let quad = |v: &[f64]| -> Vec<f64> {
        let mut h = vec![0.0; n];
        model.nonlinear_effects(q, v, &mut h);
        h.iter().zip(&g).map(|(h, g)| h - g).collect()
    };
    let unit = |i: usize, j: usize| -> Vec<f64> {
        let mut v = vec![0.0; n];
        v[i] += 1.0;
        v[j] += 1.0;
        v
    };
    let diag: Vec<Vec<f64>> = (0..n).map(|i| quad(&unit(i, i))).collect();
    // Unit velocity `e_i` is half of `unit(i, i)`, so its quadratic form is a quarter.
    let diag: Vec<Vec<f64>> = diag
        .into_iter()
        .map(|v| v.into_iter().map(|x| 0.25 * x).collect())
        .collect();
    let mut c = vec![0.0; n * n * n]; // c[(k*n + i)*n + j]
    for i in 0..n {
        for j in 0..n {
            let v = if i == j {
                diag[i].clone()
            } else {
                let both = quad(&unit(i, j));
                (0..n)
                    .map(|k| 0.5 * (both[k] - diag[i][k] - diag[j][k]))
                    .collect()
            };
            for k in 0..n {
                c[(k * n + i) * n + j] = v[k];
            }
        }
    }
    let mut dh = vec![0.0; n * n * n];
    for k in 0..n {
        for j in 0..n {
            for i in 0..n {
                dh[(k * n + j) * n + i] = c[(k * n + j) * n + i] + c[(j * n + k) * n + i];
            }
        }
    }
    dh
}

/// The velocity split `(h_c, h_o, h_g)` of seed 001, Statement 3, formulas (12)-(16) with the
/// inner Coriolis sum from `k = j + 1`, evaluated on [`mass_matrix_derivatives`] of `model`.
pub fn reference_split(
    model: &dyn ReferenceModel,
    q: &[f64],
    qd: &[f64],
) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let n = model.dof();
    let dh = mass_matrix_derivatives(model, q);
    let d = |k: usize, j: usize, i: usize| dh[(k * n + j) * n + i];
    let (mut hc, mut ho, mut hg) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    for i in 0..n {
        hc[i] = (i + 1..n).map(|j| d(j, i, j) * qd[j] * qd[j]).sum();
        let hgo = 0.5 * qd[i] * (i + 1..n).map(|j| d(i, i, j) * qd[j]).sum::<f64>();
        ho[i] = hgo
            + (i + 1..n)
                .map(|j| {
                    qd[j]
                        * (j + 1..n)
                            .map(|k| (d(k, i, j) + d(j, i, k)) * qd[k])
                            .sum::<f64>()
                })
                .sum::<f64>();
        hg[i] = hgo
            + (0..i)
                .map(|j| {
                    let hdot: f64 = (j + 1..n).map(|l| d(i, j, l) * qd[l]).sum();
                    let dt: f64 = (j + 1..n).map(|k| d(k, j, i) * qd[k]).sum();
                    qd[j] * (hdot - dt - 0.5 * d(j, j, i) * qd[j])
                })
                .sum::<f64>();
    }
    (hc, ho, hg)
}

/// Numeric rank of the `rows × cols` matrix `a` (row-major): Householder QR with column
/// pivoting on the columns scaled to unit norm; a pivot counts while it exceeds `1e-9` of the
/// first.
pub fn numeric_rank(a: &[f64], rows: usize, cols: usize) -> usize {
    let mut m: Vec<Vec<f64>> = (0..cols)
        .map(|j| (0..rows).map(|i| a[i * cols + j]).collect())
        .collect();
    // Columns are scaled to unit norm, except those that are rounding noise against the
    // largest (an exactly-zero column computed as a difference of equal terms): zero.
    let norm = |c: &Vec<f64>| c.iter().map(|x| x * x).sum::<f64>().sqrt();
    let largest = m.iter().map(norm).fold(0.0, f64::max);
    for col in &mut m {
        let n = norm(col);
        if n <= 1e-10 * largest {
            col.iter_mut().for_each(|x| *x = 0.0);
        } else {
            col.iter_mut().for_each(|x| *x /= n);
        }
    }
    let mut first = 0.0;
    for k in 0..cols.min(rows) {
        // Pivot: the remaining column with the largest norm below row k.
        let norm = |c: &Vec<f64>| c[k..].iter().map(|x| x * x).sum::<f64>().sqrt();
        let (p, best) = (k..cols)
            .map(|j| (j, norm(&m[j])))
            .fold((k, -1.0), |acc, x| if x.1 > acc.1 { x } else { acc });
        if k == 0 {
            first = best;
        }
        if best <= 1e-9 * first || best == 0.0 {
            return k;
        }
        m.swap(k, p);
        // Householder reflection zeroing column k below row k.
        let alpha = if m[k][k] > 0.0 { -best } else { best };
        let mut v: Vec<f64> = m[k][k..].to_vec();
        v[0] -= alpha;
        let vn: f64 = v.iter().map(|x| x * x).sum();
        if vn == 0.0 {
            continue;
        }
        for col in m.iter_mut().skip(k) {
            let t: f64 = v.iter().zip(&col[k..]).map(|(a, b)| a * b).sum::<f64>() * 2.0 / vn;
            for (x, vi) in col[k..].iter_mut().zip(&v) {
                *x -= t * vi;
            }
        }
    }
    cols.min(rows)
}

/// A small deterministic generator (xorshift64*), so random states are reproducible without a
/// dependency.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a non-zero seed.
    pub fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let bits = self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11;
        bits as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
}

/// `count` random states for `robot`: revolute angles in `[-π, π)`, prismatic positions in
/// `[-0.5, 0.5)` m, velocities in `[-2, 2)`, accelerations in `[-5, 5)`, forces in `[-20, 20)`.
pub fn random_states(robot: &Robot, seed: u64, count: usize) -> Vec<State> {
    let mut rng = Rng::new(seed);
    let n = robot.dof();
    (0..count)
        .map(|_| State {
            q: robot
                .bodies
                .iter()
                .map(|b| match b.joint {
                    JointKind::Revolute => rng.range(-std::f64::consts::PI, std::f64::consts::PI),
                    JointKind::Prismatic => rng.range(-0.5, 0.5),
                })
                .collect(),
            qd: (0..n).map(|_| rng.range(-2.0, 2.0)).collect(),
            qdd: (0..n).map(|_| rng.range(-5.0, 5.0)).collect(),
            tau: (0..n).map(|_| rng.range(-20.0, 20.0)).collect(),
        })
        .collect()
}

/// A fixture state as call inputs (`tau` is the fixture's `tau_fd`).
pub fn fixture_inputs(s: &FixtureState) -> State {
    State {
        q: s.q.clone(),
        qd: s.qd.clone(),
        qdd: s.qdd.clone(),
        tau: s.tau_fd.clone(),
    }
}

/// A fixture's expected outputs of `kind`, in the layout of [`Evaluate::call`].
pub fn fixture_outputs(s: &FixtureState, kind: FunctionKind) -> Vec<Vec<f64>> {
    match kind {
        FunctionKind::InverseDynamics => vec![s.tau.clone()],
        FunctionKind::Gravity => vec![s.gravity.clone()],
        FunctionKind::NonlinearEffects => vec![s.nonlinear_effects.clone()],
        FunctionKind::MassMatrix => vec![flat(&s.mass_matrix)],
        FunctionKind::ForwardDynamics => vec![s.qdd_fd.clone()],
        FunctionKind::ForwardKinematics => {
            vec![flat(&s.tool_rotation), s.tool_position.clone()]
        }
        FunctionKind::Jacobian => vec![flat(&s.jacobian)],
        FunctionKind::Centrifugal => vec![s.centrifugal.clone()],
        FunctionKind::Coriolis => vec![s.coriolis.clone()],
        FunctionKind::Gyroscopic => vec![s.gyroscopic.clone()],
        FunctionKind::StaticJointReactions => {
            vec![flat(&s.static_force), flat(&s.static_moment)]
        }
        FunctionKind::FrameKinematics(k) => {
            let f = &s.frames[usize::from(k)];
            vec![flat(&f.rotation), f.position.clone()]
        }
        FunctionKind::FrameJacobian(k) => vec![flat(&s.frames[usize::from(k)].jacobian)],
        other => panic!("{other:?}: not in the dynamics fixtures (see `load_derivative_fixture`)"),
    }
}

/// Compares every output of a call, with [`assert_close`].
#[track_caller]
pub fn assert_outputs_close(what: &str, actual: &[Vec<f64>], expected: &[Vec<f64>], rel: f64) {
    assert_eq!(actual.len(), expected.len(), "{what}: number of outputs");
    for (k, (a, e)) in actual.iter().zip(expected).enumerate() {
        assert_close(&format!("{what} output {k}"), a, e, rel);
    }
}

//! # quasidyn runtime
//!
//! What a controller depends on: the [`Dynamics`] trait that every generated robot implements,
//! the math shims generated code calls (usable without `std`), the `robot!`/`include_robot!`
//! macros, and (with the default `std` feature) two independent numeric reference models of a
//! serial chain or a tree of bodies used to judge generated code.
#![cfg_attr(not(feature = "std"), no_std)]
#![forbid(unsafe_code)]

pub mod chain;
pub mod math;
#[cfg(feature = "std")]
pub mod reference;
#[cfg(feature = "std")]
pub mod tree;

#[cfg(feature = "std")]
pub use chain::Chain;
pub use chain::{Body, JointKind};
/// `robot!` generates a robot's module while compiling (from a spec, URDF file or DH table,
/// inline or from a file); `include_robot!` includes the module a build script generated with
/// `quasidyn_codegen::Builder`. See the `quasidyn-macros` crate for the syntax.
pub use quasidyn_macros::{include_robot, robot};
#[cfg(feature = "std")]
pub use tree::{Frame, Tree, TreeBody};

/// Kinematics and dynamics of a serial robot with `N` joints, implemented by every generated
/// robot. Arrays are joint-indexed from the base; matrices are `[row][column]`.
pub trait Dynamics<const N: usize> {
    /// Number of joints.
    const DOF: usize = N;
    /// Joint forces/torques `tau = M(q) qdd + C(q, qd) qd + g(q)`.
    fn inverse_dynamics(&self, q: &[f64; N], qd: &[f64; N], qdd: &[f64; N]) -> [f64; N];
    /// Gravity joint forces `g(q)`.
    fn gravity(&self, q: &[f64; N]) -> [f64; N];
    /// Nonlinear effects `C(q, qd) qd + g(q)`.
    fn nonlinear_effects(&self, q: &[f64; N], qd: &[f64; N]) -> [f64; N];
    /// Joint-space mass matrix `M(q)` (full, symmetric).
    fn mass_matrix(&self, q: &[f64; N]) -> [[f64; N]; N];
    /// Joint accelerations solving `M(q) qdd = tau - C(q, qd) qd - g(q)`.
    fn forward_dynamics(&self, q: &[f64; N], qd: &[f64; N], tau: &[f64; N]) -> [f64; N];
    /// Tool frame in the base frame: rotation (columns are tool axes) and position.
    fn forward_kinematics(&self, q: &[f64; N]) -> ([[f64; 3]; 3], [f64; 3]);
    /// Tool Jacobian: rows 0-2 linear velocity of the tool point, rows 3-5 angular velocity,
    /// both in the base frame.
    fn jacobian(&self, q: &[f64; N]) -> [[f64; N]; 6];
    /// Centrifugal part `h_c` of the velocity forces (seed 001).
    fn centrifugal(&self, q: &[f64; N], qd: &[f64; N]) -> [f64; N];
    /// Coriolis part `h_o` of the velocity forces (seed 001).
    fn coriolis(&self, q: &[f64; N], qd: &[f64; N]) -> [f64; N];
    /// Gyroscopic part `h_g` of the velocity forces (seed 001); `h_g · qd = 0`.
    fn gyroscopic(&self, q: &[f64; N], qd: &[f64; N]) -> [f64; N];
    /// Static joint reactions at rest: force `F[i]` and moment `T[i]` (about pole `O_i`) exerted
    /// on body `i` by its carrier, projected on body `i`'s axes.
    fn static_joint_reactions(&self, q: &[f64; N]) -> ([[f64; 3]; N], [[f64; 3]; N]);
}

//! Two independent numeric reference models of a serial [`Chain`](crate::Chain), used to judge
//! generated code:
//!
//! - [`QuasiVelocityModel`]: the method of the papers (Telegin et al.): direction-cosine
//!   recurrences, quasi-velocities in body components, the backward vector recursion of the
//!   joint moments, extended here to prismatic joints.
//! - [`NewtonEulerModel`]: a textbook formulation in base-frame components: homogeneous
//!   transforms, recursive Newton–Euler, composite rigid bodies, the geometric Jacobian.
//!
//! The two share nothing but the [`Chain`](crate::Chain) they are built from, so agreement
//! between them is evidence that both are right.
//!
//! Both are loop-based, generic in the number of bodies (up to
//! [`MAX_BODIES`](crate::chain::MAX_BODIES)), and allocate only in `new`: every evaluation works
//! on fixed-size stack arrays and caller-provided slices.
//!
//! # Panics
//!
//! These are test references, not input-validation paths: every method panics when a slice does
//! not have the documented length (`dof()`, `dof() * dof()`, `6 * dof()` or `3 * dof()`), and
//! `new` panics on an empty chain or one with more than `MAX_BODIES` bodies.

mod newton_euler;
mod quasi;

pub use newton_euler::NewtonEulerModel;
pub use quasi::QuasiVelocityModel;

/// Common interface of the reference models. Joint indices are 0-based and run from the base;
/// matrices are flat row-major slices. See the module docs for the panics on wrong lengths.
pub trait ReferenceModel {
    /// Number of joints `N`.
    fn dof(&self) -> usize;

    /// Joint forces/torques `tau = M(q) qdd + C(q, qd) qd + g(q)` (all slices of length `N`).
    fn inverse_dynamics(&self, q: &[f64], qd: &[f64], qdd: &[f64], tau: &mut [f64]);

    /// Gravity joint forces `g(q)` (slices of length `N`).
    fn gravity(&self, q: &[f64], tau: &mut [f64]);

    /// Nonlinear effects `h = C(q, qd) qd + g(q)` (slices of length `N`).
    fn nonlinear_effects(&self, q: &[f64], qd: &[f64], h: &mut [f64]);

    /// Joint-space mass matrix `M(q)`, full and symmetric, `N * N` row-major.
    fn mass_matrix(&self, q: &[f64], m: &mut [f64]);

    /// Joint accelerations solving `M(q) qdd = tau - h(q, qd)` (slices of length `N`).
    fn forward_dynamics(&self, q: &[f64], qd: &[f64], tau: &[f64], qdd: &mut [f64]);

    /// Tool frame in the base frame: rotation (columns are the tool axes, `[row][col]`) and the
    /// tool point.
    fn forward_kinematics(&self, q: &[f64]) -> ([[f64; 3]; 3], [f64; 3]);

    /// Tool Jacobian, `6 * N` row-major: rows 0-2 linear velocity of the tool point, rows 3-5
    /// angular velocity of the last body, both in the base frame.
    fn jacobian(&self, q: &[f64], j: &mut [f64]);

    /// Kinetic energy of the chain.
    fn kinetic_energy(&self, q: &[f64], qd: &[f64]) -> f64;

    /// Static joint reactions at rest (`qd = qdd = 0`, gravity on): `f[3i..3i+3]` is the force
    /// and `t[3i..3i+3]` the moment about pole `O_i` exerted on body `i` by body `i-1` (the base
    /// for `i = 0`), both in body `i`'s axes. Slices of length `3 * N`.
    fn static_joint_reactions(&self, q: &[f64], f: &mut [f64], t: &mut [f64]);
}

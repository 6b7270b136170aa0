//! # quasidyn reference models
//!
//! Numeric reference models that the workspace's tests and benches judge generated code
//! against. A dev-only crate, not published: controllers depend on `quasidyn` (the `Dynamics`
//! trait and the math shims generated code calls) and never need these loop-based models, nor
//! the allocation they bring.
//!
//! Two independent models of a serial [`Chain`] or a [`Tree`] of bodies:
//!
//! - [`QuasiVelocityModel`]: the method of the papers (Telegin et al.): direction-cosine
//!   recurrences, quasi-velocities in body components, the backward vector recursion of the
//!   joint moments, extended here to prismatic joints.
//! - [`NewtonEulerModel`]: a textbook formulation in base-frame components: homogeneous
//!   transforms, recursive Newton–Euler, composite rigid bodies, the geometric Jacobian.
//!
//! The two share nothing but the [`Tree`] they are built from (a chain is turned into the tree
//! whose frame 0 is its tool), so agreement between them is evidence that both are right. The
//! provided methods of [`ReferenceModel`] (the derivatives of the mass matrix and the seed-001
//! split) are algebra on top of each model's own inverse dynamics.
//!
//! Both are loop-based, generic in the number of bodies (up to [`MAX_BODIES`]), and allocate
//! only in `new`: every evaluation works on fixed-size stack arrays and caller-provided slices
//! (except the provided methods [`ReferenceModel::mass_matrix_derivatives`] and
//! [`ReferenceModel::velocity_split`]).
//!
//! # Panics
//!
//! These are test references, not input-validation paths: every method panics when a slice does
//! not have the documented length (`dof()`, `dof() * dof()`, `6 * dof()` or `3 * dof()`), and
//! `new` / `from_tree` panic on an empty robot, one with more than `MAX_BODIES` bodies, a parent
//! not listed before its child or a frame on a missing body; the frame methods panic on a frame
//! index out of range.
#![forbid(unsafe_code)]

pub mod chain;
pub mod tree;

mod newton_euler;
mod quasi;

pub use chain::{Body, Chain, JointKind, MAX_BODIES};
pub use newton_euler::NewtonEulerModel;
pub use quasi::QuasiVelocityModel;
pub use tree::{Frame, Tree, TreeBody};

/// Common interface of the reference models. Joint indices are 0-based, in body order (parents
/// before children); matrices are flat row-major slices. See the module docs for the panics on
/// wrong lengths.
pub trait ReferenceModel {
    /// Number of joints `N`.
    fn dof(&self) -> usize;

    /// Number of frames (1 for a chain: its tool).
    fn frame_count(&self) -> usize;

    /// Pose of frame `frame` in the base frame: rotation (columns are the frame axes,
    /// `[row][col]`) and the frame origin.
    fn frame_pose(&self, frame: usize, q: &[f64]) -> ([[f64; 3]; 3], [f64; 3]);

    /// Jacobian of frame `frame`, `6 * N` row-major: rows 0-2 linear velocity of the frame
    /// origin, rows 3-5 angular velocity of its body, both in the base frame. Columns of joints
    /// that do not carry the frame's body are zero.
    fn frame_jacobian(&self, frame: usize, q: &[f64], j: &mut [f64]);

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
    /// tool point. The tool is frame 0 (a chain's tool; for a tree, its first frame).
    fn forward_kinematics(&self, q: &[f64]) -> ([[f64; 3]; 3], [f64; 3]) {
        self.frame_pose(0, q)
    }

    /// Tool Jacobian, `6 * N` row-major: rows 0-2 linear velocity of the tool point, rows 3-5
    /// angular velocity of the last body, both in the base frame (frame 0's Jacobian).
    fn jacobian(&self, q: &[f64], j: &mut [f64]) {
        self.frame_jacobian(0, q, j);
    }

    /// Kinetic energy of the robot.
    fn kinetic_energy(&self, q: &[f64], qd: &[f64]) -> f64;

    /// Static joint reactions at rest (`qd = qdd = 0`, gravity on): `f[3i..3i+3]` is the force
    /// and `t[3i..3i+3]` the moment about pole `O_i` exerted on body `i` by its parent (the base
    /// for a child of the base), both in body `i`'s axes. Slices of length `3 * N`.
    fn static_joint_reactions(&self, q: &[f64], f: &mut [f64], t: &mut [f64]);

    /// Exact derivatives of the mass matrix, `dm[(k * N + j) * N + i] = ∂M_kj/∂q_i`
    /// (`N³` entries).
    ///
    /// The velocity forces `c(q, q̇) = h(q, q̇) - g(q)` are the quadratic form
    /// `c_k = Σ_jl Γ_k,jl q̇_j q̇_l` with the Christoffel symbols of the first kind
    /// `Γ_k,jl = ½ (∂_l M_kj + ∂_j M_kl - ∂_k M_jl)`; polarisation of this form at unit rates
    /// gives every `Γ_k,jl` without truncation error, and `∂_l M_kj = Γ_k,jl + Γ_j,kl`.
    fn mass_matrix_derivatives(&self, q: &[f64], dm: &mut [f64]) {
        let n = self.dof();
        assert_eq!(dm.len(), n * n * n, "dm must have dof³ entries");
        let mut g = vec![0.0; n];
        self.gravity(q, &mut g);
        let velocity_forces = |qd: &[f64]| -> Vec<f64> {
            let mut h = vec![0.0; n];
            self.nonlinear_effects(q, qd, &mut h);
            h.iter().zip(&g).map(|(h, g)| h - g).collect()
        };
        // gamma[(k * n + j) * n + l] = Γ_k,jl
        let mut gamma = vec![0.0; n * n * n];
        let mut unit = vec![0.0; n];
        let mut single = Vec::with_capacity(n);
        for j in 0..n {
            unit[j] = 1.0;
            single.push(velocity_forces(&unit));
            unit[j] = 0.0;
        }
        for j in 0..n {
            for k in 0..n {
                gamma[(k * n + j) * n + j] = single[j][k];
            }
            for l in j + 1..n {
                unit[j] = 1.0;
                unit[l] = 1.0;
                let both = velocity_forces(&unit);
                unit[j] = 0.0;
                unit[l] = 0.0;
                for k in 0..n {
                    let value = 0.5 * (both[k] - single[j][k] - single[l][k]);
                    gamma[(k * n + j) * n + l] = value;
                    gamma[(k * n + l) * n + j] = value;
                }
            }
        }
        for k in 0..n {
            for j in 0..n {
                for l in 0..n {
                    dm[(k * n + j) * n + l] =
                        gamma[(k * n + j) * n + l] + gamma[(j * n + k) * n + l];
                }
            }
        }
    }

    /// The seed-001 split of the velocity forces into centrifugal `h_c`, Coriolis `h_o` and
    /// gyroscopic `h_g` parts (slices of length `N`), by Statement 3's formulas (12)-(16)
    /// written with `H_kji = ∂M_kj/∂q_i` (`k ≥ j`) from [`Self::mass_matrix_derivatives`]
    /// (0-based):
    ///
    /// ```text
    /// h_c,i   = Σ_{j>i} H_jij q̇_j²
    /// h^g_o,i = ½ q̇_i Σ_{j>i} H_iij q̇_j
    /// h_o,i   = h^g_o,i + Σ_{j>i} q̇_j Σ_{k>j} (H_kij + H_jik) q̇_k
    /// ∂T/∂q_i = ½ Σ_{j<i} H_jji q̇_j² + Σ_{j<i} q̇_j Σ_{k>j} H_kji q̇_k
    /// h_g,i   = h^g_o,i + Σ_{j<i} (Σ_l H_ijl q̇_l) q̇_j - ∂T/∂q_i
    /// ```
    ///
    /// They hold for regular-numbered trees as well (there `H_kj` depends only on the `q_i`
    /// with `i > j`). `h_c + h_o + h_g = h - g` and `h_g · q̇ = 0`.
    fn velocity_split(
        &self,
        q: &[f64],
        qd: &[f64],
        hc: &mut [f64],
        ho: &mut [f64],
        hg: &mut [f64],
    ) {
        let n = self.dof();
        assert!(
            qd.len() == n && hc.len() == n && ho.len() == n && hg.len() == n,
            "wrong slice length"
        );
        let mut dm = vec![0.0; n * n * n];
        self.mass_matrix_derivatives(q, &mut dm);
        // H_kji, k >= j: ∂M_kj/∂q_i.
        let h = |k: usize, j: usize, i: usize| dm[(k * n + j) * n + i];
        for i in 0..n {
            hc[i] = (i + 1..n).map(|j| h(j, i, j) * qd[j] * qd[j]).sum();
            let hgo = 0.5 * qd[i] * (i + 1..n).map(|j| h(i, i, j) * qd[j]).sum::<f64>();
            ho[i] = hgo
                + (i + 1..n)
                    .map(|j| {
                        qd[j]
                            * (j + 1..n)
                                .map(|k| (h(k, i, j) + h(j, i, k)) * qd[k])
                                .sum::<f64>()
                    })
                    .sum::<f64>();
            let dtdq = 0.5 * (0..i).map(|j| h(j, j, i) * qd[j] * qd[j]).sum::<f64>()
                + (0..i)
                    .map(|j| qd[j] * (j + 1..n).map(|k| h(k, j, i) * qd[k]).sum::<f64>())
                    .sum::<f64>();
            let hdot = (0..i)
                .map(|j| (0..n).map(|l| h(i, j, l) * qd[l]).sum::<f64>() * qd[j])
                .sum::<f64>();
            hg[i] = hgo + hdot - dtdq;
        }
    }
}

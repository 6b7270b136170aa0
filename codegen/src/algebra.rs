//! The scalar algebra the derivation runs on.
//!
//! The method's recursions are written once, generic over [`Algebra`]: run on [`Numeric`] they
//! evaluate a state (used to test the derivation against the reference models); run on the IR
//! graph they build the expressions that become generated code.

/// Index of a joint, 0-based.
pub type Joint = usize;

/// Operations the derivation needs from a scalar domain. `E` is a cheap handle (an `f64`, or a
/// node id in the IR arena).
pub trait Algebra {
    /// Scalar handle.
    type E: Copy;
    /// A constant.
    fn constant(&mut self, value: f64) -> Self::E;
    /// `a + b`.
    fn add(&mut self, a: Self::E, b: Self::E) -> Self::E;
    /// `a - b`.
    fn sub(&mut self, a: Self::E, b: Self::E) -> Self::E;
    /// `a * b`.
    fn mul(&mut self, a: Self::E, b: Self::E) -> Self::E;
    /// `-a`.
    fn neg(&mut self, a: Self::E) -> Self::E;
    /// `a / b`.
    fn div(&mut self, a: Self::E, b: Self::E) -> Self::E;
    /// `sqrt(a)`.
    fn sqrt(&mut self, a: Self::E) -> Self::E;
    /// Joint position `q_j` (angle or displacement).
    fn q(&mut self, j: Joint) -> Self::E;
    /// Joint velocity.
    fn qd(&mut self, j: Joint) -> Self::E;
    /// Joint acceleration.
    fn qdd(&mut self, j: Joint) -> Self::E;
    /// Joint force/torque input (forward dynamics).
    fn tau(&mut self, j: Joint) -> Self::E;
    /// `sin` of the sum of the joint angles in `mask` (bit `j` = joint `j`).
    fn sin_sum(&mut self, mask: u64) -> Self::E;
    /// `cos` of the sum of the joint angles in `mask`.
    fn cos_sum(&mut self, mask: u64) -> Self::E;
    /// A robot parameter: symbolic when `symbolic`, else the constant `value`.
    fn param(&mut self, name: &str, value: f64, symbolic: bool) -> Self::E;
    /// A moving-base input (only read for a robot whose base moves).
    ///
    /// # Panics
    /// By default: an algebra that does not provide it cannot derive a moving base.
    fn base(&mut self, v: crate::inputs::BaseVar) -> Self::E {
        panic!("this algebra has no moving-base input {v:?}")
    }
    /// An input of the elastic functions (only read for a robot with elasticity).
    ///
    /// # Panics
    /// By default: an algebra that does not provide it cannot derive elasticity.
    fn elastic(&mut self, v: crate::inputs::ElasticVar) -> Self::E {
        panic!("this algebra has no elastic input {v:?}")
    }
    /// Whether a symmetric matrix turned about a joint axis is written with the double angle
    /// (`cos 2q = c² - s²`, `sin 2q = 2sc`) rather than as products with the rotation; the
    /// generator derives both and keeps the shorter. Off by default.
    fn double_angle(&self) -> bool {
        false
    }
    /// Whether the mass matrix carries a unit wrench through a run of hinges about one axis
    /// by the run's summed angle, projecting it on each hinge without turning it
    /// (derive/mass_matrix.rs `RunShift`), rather than joint by joint; the generator derives
    /// both and keeps the shorter. Off by default.
    fn run_shift(&self) -> bool {
        false
    }
    /// Names an intermediate quantity (for the written-out equations); a no-op by default.
    fn label(&mut self, _e: Self::E, _name: &str) {}
    /// `sin q_j`.
    fn sin(&mut self, j: Joint) -> Self::E {
        self.sin_sum(1 << j)
    }
    /// `cos q_j`.
    fn cos(&mut self, j: Joint) -> Self::E {
        self.cos_sum(1 << j)
    }
}

/// Plain `f64` evaluation at one state.
#[derive(Clone, Debug, Default)]
pub struct Numeric {
    /// Joint positions.
    pub q: Vec<f64>,
    /// Joint velocities.
    pub qd: Vec<f64>,
    /// Joint accelerations.
    pub qdd: Vec<f64>,
    /// Joint forces/torques.
    pub tau: Vec<f64>,
    /// Moving-base inputs, laid out as [`crate::ir::Env::base`].
    pub base: Vec<f64>,
    /// Elastic inputs.
    pub elastic: crate::inputs::ElasticInputs,
    /// [`Algebra::double_angle`].
    pub double_angle: bool,
    /// [`Algebra::run_shift`].
    pub run_shift: bool,
}

impl Numeric {
    fn angle_sum(&self, mask: u64) -> f64 {
        (0..self.q.len())
            .filter(|j| mask & (1 << j) != 0)
            .map(|j| self.q[j])
            .sum()
    }
}

impl Algebra for Numeric {
    type E = f64;
    fn double_angle(&self) -> bool {
        self.double_angle
    }
    fn run_shift(&self) -> bool {
        self.run_shift
    }
    fn constant(&mut self, value: f64) -> f64 {
        value
    }
    fn add(&mut self, a: f64, b: f64) -> f64 {
        a + b
    }
    fn sub(&mut self, a: f64, b: f64) -> f64 {
        a - b
    }
    fn mul(&mut self, a: f64, b: f64) -> f64 {
        a * b
    }
    fn neg(&mut self, a: f64) -> f64 {
        -a
    }
    fn div(&mut self, a: f64, b: f64) -> f64 {
        a / b
    }
    fn sqrt(&mut self, a: f64) -> f64 {
        a.sqrt()
    }
    fn q(&mut self, j: Joint) -> f64 {
        self.q[j]
    }
    fn qd(&mut self, j: Joint) -> f64 {
        self.qd[j]
    }
    fn qdd(&mut self, j: Joint) -> f64 {
        self.qdd[j]
    }
    fn tau(&mut self, j: Joint) -> f64 {
        self.tau[j]
    }
    fn sin_sum(&mut self, mask: u64) -> f64 {
        self.angle_sum(mask).sin()
    }
    fn cos_sum(&mut self, mask: u64) -> f64 {
        self.angle_sum(mask).cos()
    }
    fn param(&mut self, _name: &str, value: f64, _symbolic: bool) -> f64 {
        value
    }
    fn base(&mut self, v: crate::inputs::BaseVar) -> f64 {
        self.base
            .get(crate::inputs::base_slot(v))
            .copied()
            .unwrap_or(0.0)
    }
    fn elastic(&mut self, v: crate::inputs::ElasticVar) -> f64 {
        self.elastic.get(v)
    }
}

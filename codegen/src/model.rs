//! The validated robot: what the spec parser produces and every later stage consumes.
//!
//! Frames follow the method (see docs/spec.md): body `i`'s frame has its origin at the pole
//! `O_i` on the joint axis and is parallel to the base frame at the zero configuration.

/// Kind of joint between body `i-1` and body `i`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JointKind {
    /// Rotation by `q_i` about the joint axis.
    Revolute,
    /// Translation by `q_i` along the joint axis.
    Prismatic,
}

/// Which inertial parameters of a body stay symbolic in generated code.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SymbolicInertial {
    /// Body mass `m_oi`.
    pub mass: bool,
    /// First moment about the pole (`m_oi * com`).
    pub com: bool,
    /// Inertia tensor about the pole.
    pub inertia: bool,
}

/// Which inertial parameters the generated code takes as symbolic parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ParameterSet {
    /// The physical ones (`m1`, `mx1`, .., `ixx1`, ..); the generated code regroups them.
    #[default]
    Physical,
    /// The regrouped base parameters (`mr1`, `mxr1`, .., `xxr1`, ..; see docs/design.md), as
    /// in identification. The static joint reactions, which need the physical parameters, are
    /// then not generated.
    Base,
}

/// One moving body of a validated robot (all vectors in the body's own frame).
#[derive(Clone, Debug, PartialEq)]
pub struct RobotBody {
    /// Body name (unique).
    pub name: String,
    /// Joint name (unique).
    pub joint_name: String,
    /// Joint kind.
    pub joint: JointKind,
    /// Unit joint axis.
    pub axis: [f64; 3],
    /// `L_i e_i`: from this pole to the next one (the tool point for the last body).
    pub next: [f64; 3],
    /// Mass of this body alone, kg.
    pub mass: f64,
    /// Centre of mass from the pole, m.
    pub com: [f64; 3],
    /// Inertia tensor about the centre of mass (tensor entries, off-diagonals `-∫xy dm`).
    pub inertia_com: [[f64; 3]; 3],
    /// Parameters kept symbolic in generated code.
    pub symbolic: SymbolicInertial,
}

/// A validated serial robot.
#[derive(Clone, Debug, PartialEq)]
pub struct Robot {
    /// Robot name as written in the spec.
    pub name: String,
    /// Free-text description.
    pub description: Option<String>,
    /// Where the numbers come from.
    pub source: Option<String>,
    /// Gravity acceleration in the base frame.
    pub gravity: [f64; 3],
    /// Position of the first pole in the base frame.
    pub base: [f64; 3],
    /// Tool frame orientation in the last body's frame (rows).
    pub tool_rotation: [[f64; 3]; 3],
    /// Bodies, base to tip.
    pub bodies: Vec<RobotBody>,
    /// Which inertial parameters symbolic ones are (physical or base).
    pub parameters: ParameterSet,
}

impl Robot {
    /// Number of joints (degrees of freedom).
    pub fn dof(&self) -> usize {
        self.bodies.len()
    }
}

//! Numeric description of a serial chain in the method's frames.
//!
//! Conventions (Telegin et al.): body `i` (1-based in the papers, 0-based here) has its frame
//! origin at the pole `O_i` on its joint axis, and at the zero configuration every body frame is
//! parallel to the base frame. Frame `i` is frame `i-1` moved to `O_i` and then rotated by `q_i`
//! about `axis` (revolute) or translated by `q_i * axis` (prismatic).

/// Kind of joint between body `i-1` and body `i`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JointKind {
    /// Rotation by `q_i` about the joint axis.
    Revolute,
    /// Translation by `q_i` along the joint axis.
    Prismatic,
}

/// One moving body with the joint that carries it.
#[derive(Clone, Debug, PartialEq)]
pub struct Body {
    /// Joint kind.
    pub joint: JointKind,
    /// Unit joint axis in this body's frame (equal to the parent's axes at zero configuration).
    pub axis: [f64; 3],
    /// Vector from this body's pole `O_i` to the next pole `O_{i+1}` (`L_i e_i`) in this
    /// body's frame; for the last body, the tool point.
    pub next: [f64; 3],
    /// Mass of the body alone (`m_oi`), kg.
    pub mass: f64,
    /// Centre of mass from the pole `O_i`, in this body's frame, m.
    pub com: [f64; 3],
    /// Inertia tensor about the centre of mass, in this body's frame, kg m²
    /// (tensor entries: off-diagonals are `-∫xy dm`, as in URDF).
    pub inertia_com: [[f64; 3]; 3],
}

/// A serial chain: bodies from the base outwards.
#[derive(Clone, Debug, PartialEq)]
pub struct Chain {
    /// Moving bodies, base to tip.
    pub bodies: Vec<Body>,
    /// Position of the first pole `O_1` in the base frame, m.
    pub base: [f64; 3],
    /// Gravity acceleration in the base frame, m/s².
    pub gravity: [f64; 3],
    /// Orientation of the tool frame relative to the last body's frame.
    pub tool_rotation: [[f64; 3]; 3],
}

/// Largest number of bodies a chain may have (generated code grows quickly with N).
pub const MAX_BODIES: usize = 64;

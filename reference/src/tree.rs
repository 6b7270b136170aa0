//! Numeric description of a tree of bodies (a chain is the special case where every body's
//! parent is the body before it), in the method's frames.
//!
//! Conventions as for [`Chain`]: the frame of body `i` has its origin at the pole `O_i` on the
//! joint axis and is parallel to the base frame at the zero configuration. Frame `i` is its
//! parent's frame moved to `O_i` (by `origin`, parent components) and then rotated by `q_i` about
//! `axis` (revolute) or translated by `q_i * axis` (prismatic). Bodies are numbered regularly:
//! every parent is listed before its children.

use crate::chain::{Chain, JointKind, MAX_BODIES};

/// One moving body of a tree with the joint that carries it.
#[derive(Clone, Debug, PartialEq)]
pub struct TreeBody {
    /// Index of the parent body, `None` for a child of the base. Always less than this body's
    /// own index.
    pub parent: Option<usize>,
    /// Joint kind.
    pub joint: JointKind,
    /// Unit joint axis in this body's frame (equal to the parent's axes at zero configuration).
    pub axis: [f64; 3],
    /// Pole `O_i` from the parent's pole in the parent's frame (from the base origin in the base
    /// frame for a child of the base), at `q_i = 0`, m.
    pub origin: [f64; 3],
    /// Mass of the body alone (`m_oi`), kg.
    pub mass: f64,
    /// Centre of mass from the pole `O_i`, in this body's frame, m.
    pub com: [f64; 3],
    /// Inertia tensor about the centre of mass, in this body's frame, kg m² (tensor entries:
    /// off-diagonals are `-∫xy dm`, as in URDF).
    pub inertia_com: [[f64; 3]; 3],
}

/// A named frame fixed on a body (a fingertip, a hand, a foot, a chain's tool).
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// Index of the body carrying the frame.
    pub body: usize,
    /// Frame origin from the body's pole, in the body's frame, m.
    pub position: [f64; 3],
    /// Rows of the frame's rotation relative to the body's frame (columns are the frame axes in
    /// body components).
    pub rotation: [[f64; 3]; 3],
}

/// A tree of bodies on a fixed base, with frames.
#[derive(Clone, Debug, PartialEq)]
pub struct Tree {
    /// Moving bodies, parents before children.
    pub bodies: Vec<TreeBody>,
    /// Gravity acceleration in the base frame, m/s².
    pub gravity: [f64; 3],
    /// Frames fixed on bodies.
    pub frames: Vec<Frame>,
}

impl Tree {
    /// Number of joints (one per body).
    pub fn dof(&self) -> usize {
        self.bodies.len()
    }

    /// Whether body `ancestor` carries body `body` (a body carries itself).
    pub fn carries(&self, ancestor: usize, body: usize) -> bool {
        let mut k = Some(body);
        while let Some(i) = k {
            if i == ancestor {
                return true;
            }
            k = self.bodies[i].parent;
        }
        false
    }

    /// Checks the structure the reference models rely on.
    ///
    /// # Panics
    /// If the tree has no body or more than [`MAX_BODIES`], a parent is not listed before its
    /// child, or a frame names a body that does not exist.
    pub fn assert_valid(&self) {
        let n = self.bodies.len();
        assert!(
            (1..=MAX_BODIES).contains(&n),
            "tree must have 1..={MAX_BODIES} bodies, got {n}"
        );
        for (i, body) in self.bodies.iter().enumerate() {
            if let Some(p) = body.parent {
                assert!(p < i, "body {i}: parent {p} is not listed before it");
            }
        }
        for (k, frame) in self.frames.iter().enumerate() {
            assert!(frame.body < n, "frame {k}: no body {}", frame.body);
        }
    }
}

/// The chain as a tree: body `i`'s parent is body `i-1`, its origin the previous body's `next`
/// (the base position for the first body), and the tool (last body's `next`, tool rotation)
/// becomes frame 0.
impl From<&Chain> for Tree {
    fn from(chain: &Chain) -> Tree {
        let bodies: Vec<TreeBody> = chain
            .bodies
            .iter()
            .enumerate()
            .map(|(i, body)| TreeBody {
                parent: i.checked_sub(1),
                joint: body.joint,
                axis: body.axis,
                origin: if i == 0 {
                    chain.base
                } else {
                    chain.bodies[i - 1].next
                },
                mass: body.mass,
                com: body.com,
                inertia_com: body.inertia_com,
            })
            .collect();
        let frames = match chain.bodies.last() {
            Some(last) => vec![Frame {
                body: chain.bodies.len() - 1,
                position: last.next,
                rotation: chain.tool_rotation,
            }],
            None => Vec::new(),
        };
        Tree {
            bodies,
            gravity: chain.gravity,
            frames,
        }
    }
}

//! What every importer reduces its input to: the chain or tree evaluated at the zero
//! configuration, all in base-frame coordinates, and the conversion of that into the method's
//! frames.

use crate::mat3::{add, dot, mat_vec, mul, rotate_tensor, scale, sub, IDENTITY};
pub(crate) use crate::mat3::{normalize, rpy, M3, V3};
use crate::model::{
    BaseMotion, Frame, JointKind, ParameterSet, Robot, RobotBody, SymbolicInertial,
};

/// A rigid transform: rotation `r` (columns are the frame's axes) and origin `p`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Pose {
    pub r: M3,
    pub p: V3,
}

impl Pose {
    pub const IDENTITY: Pose = Pose {
        r: IDENTITY,
        p: [0.0; 3],
    };

    pub fn rot(r: M3) -> Pose {
        Pose { r, p: [0.0; 3] }
    }

    pub fn trans(p: V3) -> Pose {
        Pose { r: IDENTITY, p }
    }

    /// `self * other`: `other` is given in `self`'s frame.
    pub fn then(&self, other: &Pose) -> Pose {
        Pose {
            r: mul(&self.r, &other.r),
            p: add(self.p, mat_vec(&self.r, other.p)),
        }
    }
}

/// Mass, centre of mass and inertia about the centre of mass, all in base axes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct MassProps {
    pub mass: f64,
    pub com: V3,
    pub inertia: M3,
}

impl MassProps {
    pub const ZERO: MassProps = MassProps {
        mass: 0.0,
        com: [0.0; 3],
        inertia: [[0.0; 3]; 3],
    };

    /// Mass properties given in a frame `frame` (com and inertia in its axes), in base axes.
    pub fn in_base(frame: &Pose, mass: f64, com: V3, inertia: &M3) -> MassProps {
        MassProps {
            mass,
            com: add(frame.p, mat_vec(&frame.r, com)),
            inertia: rotate_tensor(&frame.r, inertia),
        }
    }

    /// The union of two rigidly joined bodies (parallel-axis theorem about the joint com).
    pub fn merge(&self, other: &MassProps) -> MassProps {
        let mass = self.mass + other.mass;
        if mass <= 0.0 {
            // Two massless parts: nothing to weigh; keep any (zero-mass) inertia.
            return MassProps {
                mass: 0.0,
                com: self.com,
                inertia: add_m(&self.inertia, &other.inertia),
            };
        }
        let com = scale(
            add(scale(self.com, self.mass), scale(other.com, other.mass)),
            1.0 / mass,
        );
        let a = add_m(&self.inertia, &steiner(self.mass, sub(self.com, com)));
        let b = add_m(&other.inertia, &steiner(other.mass, sub(other.com, com)));
        MassProps {
            mass,
            com,
            inertia: add_m(&a, &b),
        }
    }
}

fn add_m(a: &M3, b: &M3) -> M3 {
    let mut c = *a;
    for (row, brow) in c.iter_mut().zip(b) {
        for (x, y) in row.iter_mut().zip(brow) {
            *x += y;
        }
    }
    c
}

/// Inertia of a point mass `m` at `d` about the origin: `m (|d|² E − d dᵀ)`.
fn steiner(m: f64, d: V3) -> M3 {
    let dd = dot(d, d);
    let mut s = [[0.0; 3]; 3];
    for (i, row) in s.iter_mut().enumerate() {
        for (j, x) in row.iter_mut().enumerate() {
            let e = if i == j { dd } else { 0.0 };
            *x = m * (e - d[i] * d[j]);
        }
    }
    s
}

/// Puts `robot` on a floating base whose body is `base` (in the base frame), with the
/// coordinate `layout`.
pub(crate) fn make_floating(robot: &mut Robot, base: &MassProps, layout: crate::model::BaseLayout) {
    robot.motion = BaseMotion::Floating;
    robot.base_layout = layout;
    robot.base_body = Some(crate::model::BaseBody {
        mass: base.mass,
        com: base.com,
        inertia_com: base.inertia,
        symbolic: SymbolicInertial::default(),
        armature: 0.0,
    });
}

/// One moving joint and the body it moves, at the zero configuration in base axes.
#[derive(Clone, Debug)]
pub(crate) struct ChainJoint {
    pub body_name: String,
    pub joint_name: String,
    pub kind: JointKind,
    /// The joint whose body carries this one (an index into [`Chain::joints`], always smaller
    /// than this joint's), `None` for the base.
    pub parent: Option<usize>,
    /// A point on the joint axis: becomes the pole.
    pub pole: V3,
    /// Unit axis in base axes.
    pub axis: V3,
    pub body: MassProps,
    /// The joint's armature ([`crate::RobotBody::armature`]).
    pub armature: f64,
    /// Its spring and damper ([`crate::RobotBody::passive`]).
    pub passive: crate::model::PassiveJoint,
    /// The joint it follows ([`crate::RobotBody::mimic`]; `master` an index into
    /// [`Chain::joints`]).
    pub mimic: Option<crate::model::Mimic>,
}

/// A named frame fixed on a body, at the zero configuration in base axes.
#[derive(Clone, Debug)]
pub(crate) struct ChainFrame {
    pub name: String,
    /// Index into [`Chain::joints`] of the body carrying it; `None` for the base.
    pub body: Option<usize>,
    /// The frame (axes and origin) in base axes at `q = 0`.
    pub pose: Pose,
}

/// Everything an importer found, before conversion to the method's frames: a serial chain
/// (every joint's parent the one before it, with a tool) or a tree (parents anywhere earlier,
/// no tool, named frames).
#[derive(Clone, Debug)]
pub(crate) struct Chain {
    pub name: String,
    pub description: Option<String>,
    pub source: Option<String>,
    pub gravity: V3,
    /// Joints, parents before children.
    pub joints: Vec<ChainJoint>,
    /// Tool frame at the zero configuration, base axes (`None`: a tree, whose leaves' `next`
    /// is zero).
    pub tool: Option<Pose>,
    /// Named frames.
    pub frames: Vec<ChainFrame>,
}

impl Chain {
    /// The method's frames: poles on the axes, every body frame parallel to the base at `q = 0`,
    /// so vectors in base axes at zero are the body-frame vectors. A body's `next` points at its
    /// first child's pole (at the tool point for a leaf of a chain, zero for a leaf of a tree).
    pub fn into_robot(self) -> Robot {
        let n = self.joints.len();
        let poles: Vec<V3> = self.joints.iter().map(|j| j.pole).collect();
        let mut first_child: Vec<Option<usize>> = vec![None; n];
        for (i, j) in self.joints.iter().enumerate().rev() {
            if let Some(p) = j.parent {
                debug_assert!(p < i, "parents come before their children");
                first_child[p] = Some(i);
            }
        }
        let tool = self.tool;
        let bodies = self
            .joints
            .into_iter()
            .enumerate()
            .map(|(i, j)| {
                let next = match (first_child[i], tool) {
                    (Some(c), _) => sub(poles[c], j.pole),
                    (None, Some(tool)) => sub(tool.p, j.pole),
                    (None, None) => [0.0; 3],
                };
                let origin = match j.parent {
                    Some(p) => sub(j.pole, poles[p]),
                    None => j.pole,
                };
                RobotBody {
                    name: j.body_name,
                    joint_name: j.joint_name,
                    joint: j.kind,
                    // Rotated into base axes, an axis can be off unit length by more than the
                    // spec reader leaves as it is: normalised as that reader would.
                    axis: crate::mat3::unit_to_rounding(j.axis),
                    rotation: crate::mat3::IDENTITY,
                    parent: j.parent,
                    origin,
                    next,
                    mass: j.body.mass,
                    com: sub(j.body.com, j.pole),
                    inertia_com: j.body.inertia,
                    symbolic: SymbolicInertial::default(),
                    elastic: None,
                    flex: None,
                    armature: j.armature,
                    passive: j.passive,
                    mimic: j.mimic,
                }
            })
            .collect::<Vec<_>>();
        debug_assert_eq!(bodies.len(), n);
        let frames = self
            .frames
            .into_iter()
            .map(|f| Frame {
                name: f.name,
                body: f.body,
                position: sub(f.pose.p, f.body.map_or([0.0; 3], |b| poles[b])),
                rotation: f.pose.r,
            })
            .collect();
        Robot {
            name: self.name,
            description: self.description,
            source: self.source,
            gravity: self.gravity,
            base: poles.first().copied().unwrap_or([0.0; 3]),
            tool_rotation: tool.map_or(IDENTITY, |t| t.r),
            bodies,
            frames,
            parameters: ParameterSet::Physical,
            motion: BaseMotion::Fixed,
            base_body: None,
            base_layout: Default::default(),
            contacts: Vec::new(),
            tendons: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mat3::{rot_x, rot_y, rot_z};

    #[test]
    fn merge_is_parallel_axis() {
        let a = MassProps {
            mass: 1.0,
            com: [1.0, 0.0, 0.0],
            inertia: [[0.0; 3]; 3],
        };
        let b = MassProps {
            mass: 1.0,
            com: [-1.0, 0.0, 0.0],
            inertia: [[0.0; 3]; 3],
        };
        let m = a.merge(&b);
        assert_eq!(m.mass, 2.0);
        assert_eq!(m.com, [0.0; 3]);
        assert_eq!(
            m.inertia,
            [[0.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0]]
        );
    }

    #[test]
    fn rpy_order() {
        // Roll then pitch then yaw about fixed axes: Rz(y) Ry(p) Rx(r).
        let r = rpy([0.3, -0.2, 1.1]);
        let expect = mul(&mul(&rot_z(1.1), &rot_y(-0.2)), &rot_x(0.3));
        assert_eq!(r, expect);
        let x = mat_vec(
            &rpy([0.0, 0.0, std::f64::consts::FRAC_PI_2]),
            [1.0, 0.0, 0.0],
        );
        assert!((x[1] - 1.0).abs() < 1e-15 && x[0].abs() < 1e-15);
    }
}

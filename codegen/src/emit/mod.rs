//! Emitters: a [`Module`] to Rust ([`rust::emit_rust`]) or C99 ([`c::emit_c`]).
//!
//! Both share the planning done here: the module is lowered (multi-joint `sin`/`cos` expanded,
//! dead nodes dropped), then each function is one walk over its live nodes in id order. A node
//! read more than once, a `sin`/`cos` leaf, and a node whose inlined expression would nest too
//! deep get a local; everything else is inlined into its single user.

pub mod c;
pub mod parts;
pub mod rust;

#[cfg(test)]
mod tests;

use rustc_hash::FxHashMap as HashMap;

use crate::ir::{BaseVar, ElasticVar, Function, FunctionKind, Graph, Module, Node, NodeId, Var};
use crate::model::BaseMotion;
pub use crate::names::{camel_ident, frame_ident, snake_ident};
use crate::progress::{Counter, Progress, Stage};

pub use c::{emit_c, emit_c_reporting, CFiles, COptions};
pub use parts::PartSizes;
pub use rust::{emit_rust, emit_rust_reporting, RustOptions};

/// Why a module cannot be emitted.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum EmitError {
    /// A function's outputs do not have the shapes its contract fixes.
    #[error("{kind:?}: expected outputs {expected}, found {found}")]
    OutputShape {
        /// Function.
        kind: FunctionKind,
        /// Expected shapes, e.g. `[3x3, 3x1]`.
        expected: String,
        /// Shapes found.
        found: String,
    },
    /// A function reads an input its contract does not give it.
    #[error("{kind:?} reads {var:?}, which is not one of its inputs")]
    UnexpectedInput {
        /// Function.
        kind: FunctionKind,
        /// The offending leaf.
        var: Var,
    },
    /// A joint index beyond the robot's joints.
    #[error("{kind:?} reads {var:?}, but the robot has {dof} joints")]
    JointOutOfRange {
        /// Function.
        kind: FunctionKind,
        /// The offending leaf.
        var: Var,
        /// Number of joints.
        dof: usize,
    },
    /// An elastic input index beyond the robot's `beta` or `w`.
    #[error("{kind:?} reads {var:?}, but the robot has {nbeta} elastic joints and {nw} modal coordinates")]
    ElasticOutOfRange {
        /// Function.
        kind: FunctionKind,
        /// The offending leaf.
        var: Var,
        /// Entries of `beta`.
        nbeta: usize,
        /// Entries of `w`.
        nw: usize,
    },
    /// A constant is infinite or NaN.
    #[error("{kind:?} contains the non-finite constant {value}")]
    NonFinite {
        /// Function.
        kind: FunctionKind,
        /// The constant.
        value: f64,
    },
    /// A constant array of the module (`base_parameters`, ...) holds an infinite or NaN value.
    #[error("the constant array `{name}` holds the non-finite value {value}")]
    NonFiniteConstant {
        /// The array.
        name: String,
        /// The value.
        value: f64,
    },
    /// A value of single-precision output (`--float`) is beyond the range of `float`.
    #[error(
        "{what}: {value:e} is beyond single precision (largest float {:e}); generate in double \
         precision or scale the spec's values",
        f32::MAX
    )]
    BeyondFloat {
        /// The function, constant array or parameter holding the value.
        what: String,
        /// The value.
        value: f64,
    },
    /// Two functions of the same kind.
    #[error("{0:?} is generated twice")]
    Duplicate(FunctionKind),
    /// A batch size out of range.
    #[error("batch size {0}: the batched functions take 1 to {MAX_BATCH} states")]
    Batch(usize),
    /// A frame function whose frame the module does not name.
    #[error("{0:?} refers to a frame the module does not name")]
    UnknownFrame(FunctionKind),
}

/// Input arrays of generated functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Input {
    Q,
    Qd,
    Qdd,
    Tau,
    /// Floating base: base then joint velocities (`NV`).
    V,
    /// Floating base: base then joint accelerations (`NV`).
    A,
    /// Prescribed base: position x y z and unit quaternion x y z w in the world (7).
    BasePose,
    /// Prescribed base: linear then angular velocity, base frame (6).
    BaseVel,
    /// Prescribed base: the time derivatives of `BaseVel` (6).
    BaseAcc,
    /// Compliance angles of the elastic joints (`NBETA`).
    Beta,
    /// Modal coordinates of the flexible links (`NW`).
    W,
    /// Rates of `Beta`.
    BetaD,
    /// Rates of `W`.
    WD,
    /// Second derivatives of `Beta`.
    BetaDd,
    /// Second derivatives of `W`.
    WDd,
    /// Motor-side positions of the elastic joints (`NBETA`).
    Theta,
    /// Their rates (`NBETA`).
    ThetaD,
    /// Third time derivatives of the joint positions (`N`).
    Qddd,
    /// Fourth time derivatives of the joint positions (`N`).
    Qdddd,
}

impl Input {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Input::Q => "q",
            Input::Qd => "qd",
            Input::Qdd => "qdd",
            Input::Tau => "tau",
            Input::V => "v",
            Input::A => "a",
            Input::BasePose => "base_pose",
            Input::BaseVel => "base_vel",
            Input::BaseAcc => "base_acc",
            Input::Beta => "beta",
            Input::W => "w",
            Input::BetaD => "betad",
            Input::WD => "wd",
            Input::BetaDd => "betadd",
            Input::WDd => "wdd",
            Input::Theta => "theta",
            Input::ThetaD => "thetad",
            Input::Qddd => "qddd",
            Input::Qdddd => "qdddd",
        }
    }

    pub(crate) fn doc(self) -> &'static str {
        match self {
            Input::Q => "joint positions (rad or m)",
            Input::Qd => "joint velocities (rad/s or m/s)",
            Input::Qdd => "joint accelerations (rad/s^2 or m/s^2)",
            Input::Tau => "joint forces/torques (N or N m)",
            Input::V => "base linear and angular velocity (base frame), then joint velocities",
            Input::A => "base acceleration (Pinocchio's free-flyer `a`), then joint accelerations",
            Input::BasePose => {
                "base position x y z in the world, then unit quaternion x y z w (normalised \
                 inside)"
            }
            Input::BaseVel => {
                "base linear velocity of its origin, then angular velocity, both in base-frame \
                 components"
            }
            Input::BaseAcc => {
                "time derivatives of base_vel (the linear part is R^T p'' - omega x v, as \
                 Pinocchio's free-flyer `a`)"
            }
            Input::Beta => {
                "compliance angles (rad, or m) of the elastic joints, added to their q (beta \
                 names)"
            }
            Input::W => "modal coordinates (m) of the flexible links (w names)",
            Input::BetaD => "rates of beta",
            Input::WD => "rates of w",
            Input::BetaDd => "second derivatives of beta",
            Input::WDd => "second derivatives of w",
            Input::Theta => "motor-side positions of the elastic joints (rad, or m), beta order",
            Input::ThetaD => "rates of theta",
            Input::Qddd => "third time derivatives of the joint positions (jerk)",
            Input::Qdddd => "fourth time derivatives of the joint positions (snap)",
        }
    }

    /// The floating-base form of an input: `q` holds the base pose first, velocities and
    /// accelerations become `v` and `a`, forces hold the base wrench first.
    pub(crate) fn floating(self) -> Input {
        match self {
            Input::Qd => Input::V,
            Input::Qdd => Input::A,
            other => other,
        }
    }

    /// The inputs of `kind` for a prescribed base: the base's pose, velocity and
    /// acceleration come first in the dynamics functions (the pose alone in gravity).
    fn prescribed(kind: FunctionKind, inputs: &[Input]) -> Vec<Input> {
        let base: &[Input] = match kind {
            FunctionKind::InverseDynamics
            | FunctionKind::NonlinearEffects
            | FunctionKind::ForwardDynamics
            | FunctionKind::InverseDynamicsDerivatives
            | FunctionKind::ForwardDynamicsDerivatives
            | FunctionKind::Regressor
            | FunctionKind::BaseRegressor => &[Input::BasePose, Input::BaseVel, Input::BaseAcc],
            FunctionKind::Gravity | FunctionKind::GravityDerivatives => &[Input::BasePose],
            _ => &[],
        };
        base.iter().chain(inputs).copied().collect()
    }

    /// Where joint `j`'s entry sits in this input (after the base's in a floating layout).
    fn joint_slot(self, j: usize, floating: bool) -> usize {
        match (floating, self) {
            (false, _) => j,
            (true, Input::Q) => 7 + j,
            (true, _) => 6 + j,
        }
    }
}

/// Shape of an output array in units of the robot's `N` joints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dim {
    N,
    Fixed(usize),
    /// `k` per body: `k · N`, `k · (N + 1)` with a floating base (its own body counts).
    PerBody(usize),
    /// `NB`, the number of base parameters (`Module::nb`).
    Base,
    /// `NBETA`, the number of elastic joints.
    Beta,
    /// `NW`, the number of modal coordinates of the flexible links.
    W,
}

/// The module-wide sizes outputs may have besides `N`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    /// Base parameters.
    pub nb: usize,
    /// Elastic joints.
    pub nbeta: usize,
    /// Modal coordinates.
    pub nw: usize,
    /// Joints (for the joint-space elastic inputs).
    pub dof: usize,
    /// Bodies with inertial parameters: the joints', and a floating base's own.
    pub bodies: usize,
}

impl Counts {
    fn of(module: &Module) -> Counts {
        Counts {
            nb: module.nb(),
            nbeta: module.nbeta(),
            nw: module.nw(),
            dof: module.dof,
            bodies: module.dof + usize::from(module.motion == BaseMotion::Floating),
        }
    }
}

impl Dim {
    /// The size for `n` joints and the module's other `counts`.
    pub(crate) fn of(self, n: usize, counts: Counts) -> usize {
        match self {
            Dim::Base => counts.nb,
            Dim::Beta => counts.nbeta,
            Dim::W => counts.nw,
            Dim::PerBody(k) => k * counts.bodies,
            d => d.get(n),
        }
    }

    /// The size for `n` joints on a fixed base (of a dimension that does not depend on `NB`).
    pub(crate) fn get(self, n: usize) -> usize {
        match self {
            Dim::N => n,
            Dim::Fixed(k) => k,
            Dim::PerBody(k) => k * n,
            Dim::Base | Dim::Beta | Dim::W => unreachable!("given with Dim::of"),
        }
    }
}

/// One output of a contract.
pub(crate) struct OutSpec {
    pub name: &'static str,
    pub rows: Dim,
    /// `None` for a vector.
    pub cols: Option<Dim>,
    pub doc: &'static str,
}

/// The public contract of a function kind.
pub(crate) struct Contract {
    pub name: &'static str,
    pub inputs: &'static [Input],
    pub outputs: &'static [OutSpec],
    pub doc: &'static str,
}

/// An N-vector output (a macro so the contract tables stay `'static` constants).
macro_rules! vec_n {
    ($name:expr, $doc:expr) => {
        OutSpec {
            name: $name,
            rows: Dim::N,
            cols: None,
            doc: $doc,
        }
    };
}

/// An N×N matrix output.
macro_rules! mat_nn {
    ($name:expr, $doc:expr) => {
        OutSpec {
            name: $name,
            rows: Dim::N,
            cols: Some(Dim::N),
            doc: $doc,
        }
    };
}

pub(crate) fn contract(kind: FunctionKind) -> Contract {
    use Input::*;
    const JOINT_FORCES: &str = "joint forces/torques (N or N m)";
    match kind {
        FunctionKind::InverseDynamics => Contract {
            name: "inverse_dynamics",
            inputs: &[Q, Qd, Qdd],
            outputs: &[vec_n!("tau", JOINT_FORCES)],
            doc: "Inverse dynamics: `tau = M(q) qdd + C(q, qd) qd + g(q)`.",
        },
        FunctionKind::Gravity => Contract {
            name: "gravity",
            inputs: &[Q],
            outputs: &[vec_n!("tau", JOINT_FORCES)],
            doc: "Gravity joint forces `g(q)`.",
        },
        FunctionKind::NonlinearEffects => Contract {
            name: "nonlinear_effects",
            inputs: &[Q, Qd],
            outputs: &[vec_n!("h", JOINT_FORCES)],
            doc: "Nonlinear effects `h = C(q, qd) qd + g(q)`.",
        },
        FunctionKind::MassMatrix => Contract {
            name: "mass_matrix",
            inputs: &[Q],
            outputs: &[OutSpec {
                name: "M",
                rows: Dim::N,
                cols: Some(Dim::N),
                doc: "joint-space mass matrix (kg, kg m or kg m^2), full and symmetric",
            }],
            doc: "Joint-space mass matrix `M(q)`.",
        },
        FunctionKind::ForwardDynamics => Contract {
            name: "forward_dynamics",
            inputs: &[Q, Qd, Tau],
            outputs: &[vec_n!("qdd", "joint accelerations (rad/s^2 or m/s^2)")],
            doc: "Forward dynamics: `qdd` solving `M(q) qdd = tau - C(q, qd) qd - g(q)`.",
        },
        FunctionKind::FrameKinematics(_) => Contract {
            name: "forward_kinematics",
            inputs: &[Q],
            outputs: &[
                OutSpec {
                    name: "R",
                    rows: Dim::Fixed(3),
                    cols: Some(Dim::Fixed(3)),
                    doc: "frame rotation in the base frame (columns are the frame's axes)",
                },
                OutSpec {
                    name: "p",
                    rows: Dim::Fixed(3),
                    cols: None,
                    doc: "frame origin in the base frame (m)",
                },
            ],
            doc: "Forward kinematics of a named frame.",
        },
        FunctionKind::FrameJacobian(_) => Contract {
            name: "jacobian",
            inputs: &[Q],
            outputs: &[OutSpec {
                name: "J",
                rows: Dim::Fixed(6),
                cols: Some(Dim::N),
                doc: "frame Jacobian, base frame: rows 0-2 linear velocity of the frame origin, \
                      rows 3-5 angular velocity",
            }],
            doc: "Jacobian of a named frame.",
        },
        FunctionKind::ForwardKinematics => Contract {
            name: "forward_kinematics",
            inputs: &[Q],
            outputs: &[
                OutSpec {
                    name: "R",
                    rows: Dim::Fixed(3),
                    cols: Some(Dim::Fixed(3)),
                    doc: "tool frame rotation in the base frame (columns are the tool axes)",
                },
                OutSpec {
                    name: "p",
                    rows: Dim::Fixed(3),
                    cols: None,
                    doc: "tool point position in the base frame (m)",
                },
            ],
            doc: "Forward kinematics of the tool frame.",
        },
        FunctionKind::Jacobian => Contract {
            name: "jacobian",
            inputs: &[Q],
            outputs: &[OutSpec {
                name: "J",
                rows: Dim::Fixed(6),
                cols: Some(Dim::N),
                doc: "tool Jacobian, base frame: rows 0-2 linear velocity of the tool point, \
                      rows 3-5 angular velocity",
            }],
            doc: "Tool Jacobian.",
        },
        FunctionKind::Centrifugal => Contract {
            name: "centrifugal",
            inputs: &[Q, Qd],
            outputs: &[vec_n!("hc", JOINT_FORCES)],
            doc: "Centrifugal part `h_c` of the velocity forces.",
        },
        FunctionKind::Coriolis => Contract {
            name: "coriolis",
            inputs: &[Q, Qd],
            outputs: &[vec_n!("ho", JOINT_FORCES)],
            doc: "Coriolis part `h_o` of the velocity forces.",
        },
        FunctionKind::Gyroscopic => Contract {
            name: "gyroscopic",
            inputs: &[Q, Qd],
            outputs: &[vec_n!("hg", JOINT_FORCES)],
            doc: "Gyroscopic part `h_g` of the velocity forces (`h_g . qd = 0`).",
        },
        FunctionKind::StaticJointReactions => Contract {
            name: "static_joint_reactions",
            inputs: &[Q],
            outputs: &[
                OutSpec {
                    name: "F",
                    rows: Dim::N,
                    cols: Some(Dim::Fixed(3)),
                    doc: "force (N) on body i from its carrier, in body i's axes, row i",
                },
                OutSpec {
                    name: "T",
                    rows: Dim::N,
                    cols: Some(Dim::Fixed(3)),
                    doc: "moment (N m) about pole `O_i` on body i from its carrier, in body i's \
                          axes, row i",
                },
            ],
            doc: "Static joint reactions at rest (gravity only).",
        },
        FunctionKind::InverseDynamicsDerivatives => Contract {
            name: "inverse_dynamics_derivatives",
            inputs: &[Q, Qd, Qdd],
            outputs: &[
                mat_nn!("dtau_dq", "d tau_i / d q_j (row i, column j)"),
                mat_nn!(
                    "dtau_dqd",
                    "d tau_i / d qd_j (row i, column j); linear in qd"
                ),
            ],
            doc: "Derivatives of the inverse dynamics with respect to `q` and `qd` (that with \
                  respect to `qdd` is the mass matrix).",
        },
        FunctionKind::GravityDerivatives => Contract {
            name: "gravity_derivatives",
            inputs: &[Q],
            outputs: &[mat_nn!("dg_dq", "d g_i / d q_j (row i, column j)")],
            doc: "Derivative of the gravity forces with respect to `q` (the static stiffness).",
        },
        FunctionKind::ForwardDynamicsDerivatives => Contract {
            name: "forward_dynamics_derivatives",
            inputs: &[Q, Qd, Tau],
            outputs: &[
                mat_nn!("dqdd_dq", "d qdd_i / d q_j (row i, column j)"),
                mat_nn!("dqdd_dqd", "d qdd_i / d qd_j (row i, column j)"),
                mat_nn!(
                    "Minv",
                    "inverse mass matrix = d qdd / d tau, full and symmetric"
                ),
            ],
            doc: "Derivatives of the forward dynamics with respect to `q`, `qd` and `tau` \
                  (`M^-1`).",
        },
        FunctionKind::Regressor => Contract {
            name: "regressor",
            inputs: &[Q, Qd, Qdd],
            outputs: &[OutSpec {
                name: "Y",
                rows: Dim::N,
                cols: Some(Dim::PerBody(10)),
                doc: "inertial-parameter regressor, tau = Y pi: column 10 b + p is d tau / d \
                      pi_p of body b (p in m, mx, my, mz, ixx, ixy, ixz, iyy, iyz, izz)",
            }],
            doc: "Inertial-parameter regressor: `tau = Y(q, qd, qdd) pi` with `pi` the standard \
                  parameters (`standard_parameters`).",
        },
        FunctionKind::BaseRegressor => Contract {
            name: "base_regressor",
            inputs: &[Q, Qd, Qdd],
            outputs: &[OutSpec {
                name: "Yb",
                rows: Dim::N,
                cols: Some(Dim::Base),
                doc: "base-parameter regressor, tau = Yb pi_b (NB columns, one per base \
                      parameter)",
            }],
            doc: "Base-parameter regressor: `tau = Yb(q, qd, qdd) pi_b` with `pi_b` the base \
                  parameters (`base_parameters`), a minimal set.",
        },
        FunctionKind::ElasticForwardKinematics => Contract {
            name: "elastic_forward_kinematics",
            inputs: &[Q, Beta, W],
            outputs: &[
                OutSpec {
                    name: "R",
                    rows: Dim::Fixed(3),
                    cols: Some(Dim::Fixed(3)),
                    doc: "tool rotation to first order, each column c of R0 plus cross(dtheta, c) \
                          (not re-orthonormalised; columns are the tool axes)",
                },
                OutSpec {
                    name: "p",
                    rows: Dim::Fixed(3),
                    cols: None,
                    doc: "tool point to first order in beta and w, base frame (m)",
                },
            ],
            doc: "Forward kinematics of the tool with elastic joints and links, to first order \
                  in `beta` and `w` (exactly affine in them): the rigid pose at `q` plus \
                  `F2 beta + F4 w`.",
        },
        FunctionKind::ComplianceJacobians => Contract {
            name: "compliance_jacobians",
            inputs: &[Q],
            outputs: &[
                OutSpec {
                    name: "F2",
                    rows: Dim::Fixed(6),
                    cols: Some(Dim::Beta),
                    doc: "d tool / d beta, base frame: rows 0-2 the tool point's displacement, \
                          rows 3-5 the small rotation, per unit beta",
                },
                OutSpec {
                    name: "F4",
                    rows: Dim::Fixed(6),
                    cols: Some(Dim::W),
                    doc: "d tool / d w, base frame: rows 0-2 the tool point's displacement, rows \
                          3-5 the small rotation, per unit w",
                },
            ],
            doc: "Compliance Jacobians of the tool (seed 002's `F2`, `F4` at the tool point, with \
                  the rotation rows added).",
        },
        FunctionKind::ElasticVelocity => Contract {
            name: "elastic_velocity",
            inputs: &[Q, Beta, W, Qd, BetaD, WD],
            outputs: &[OutSpec {
                name: "v",
                rows: Dim::Fixed(6),
                cols: None,
                doc: "tool point velocity (m/s), then the tool's angular velocity (rad/s), base \
                      frame",
            }],
            doc: "Tool velocity with elastic joints and links, to first order in `beta`, `w` and \
                  their rates: `F qd + F1 qd + F2 betad + F3 qd + F4 wd` (seed 002 (2.1)).",
        },
        FunctionKind::ElasticAcceleration => Contract {
            name: "elastic_acceleration",
            inputs: &[Q, Beta, W, Qd, BetaD, WD, Qdd, BetaDd, WDd],
            outputs: &[OutSpec {
                name: "a",
                rows: Dim::Fixed(6),
                cols: None,
                doc: "tool point acceleration (m/s^2), then the tool's angular acceleration \
                      (rad/s^2), base frame",
            }],
            doc: "Tool acceleration with elastic joints and links: the time derivative of \
                  `elastic_velocity` (seed 002 (2.11)-(2.21)), first order in `beta`, `w` and \
                  their derivatives.",
        },
        FunctionKind::StaticDeflection => Contract {
            name: "static_deflection",
            inputs: &[Q],
            outputs: &[OutSpec {
                name: "beta",
                rows: Dim::Beta,
                cols: None,
                doc: "compliance angles (rad, or m) of the elastic joints under gravity",
            }],
            doc: "Static deflection of the elastic joints under gravity, to first order: \
                  `beta = -K^-1 g(q)`.",
        },
        FunctionKind::DeflectedToolError => Contract {
            name: "deflected_tool_error",
            inputs: &[Q],
            outputs: &[
                OutSpec {
                    name: "dp",
                    rows: Dim::Fixed(3),
                    cols: None,
                    doc: "displacement of the tool point (m), base frame",
                },
                OutSpec {
                    name: "dtheta",
                    rows: Dim::Fixed(3),
                    cols: None,
                    doc: "small rotation of the tool (rad), base-frame components",
                },
            ],
            doc: "Tool error caused by the static deflection under gravity: `F2 beta` with `beta` \
                  from `static_deflection`.",
        },
        FunctionKind::ElasticForwardDynamics => Contract {
            name: "elastic_forward_dynamics",
            inputs: &[Q, Qd, Theta, ThetaD, Tau],
            outputs: &[
                vec_n!("qdd", "link-side joint accelerations (rad/s^2 or m/s^2)"),
                OutSpec {
                    name: "thetadd",
                    rows: Dim::Beta,
                    cols: None,
                    doc: "motor-side accelerations of the elastic joints, beta order",
                },
            ],
            doc: "Elastic-joint forward dynamics (the reduced model): `M(q) qdd + h(q, qd) = \
                  K (theta - q) + D (thetad - qd)` on elastic rows and `tau` on rigid rows, \
                  `B thetadd + K (theta - q) + D (thetad - qd) = tau` on the elastic joints \
                  (`tau`: motor torques of elastic joints, joint torques of rigid ones).",
        },
        FunctionKind::ElasticFeedforward => Contract {
            name: "elastic_feedforward",
            inputs: &[Q, Qd, Qdd, Qddd, Qdddd],
            outputs: &[
                OutSpec {
                    name: "theta",
                    rows: Dim::Beta,
                    cols: None,
                    doc: "motor-side positions of the elastic joints, beta order",
                },
                vec_n!(
                    "tau",
                    "motor torques of the elastic joints, joint torques of the rigid ones"
                ),
            ],
            doc: "Elastic-joint feedforward (no damping): the motor positions `theta = q + \
                  K^-1 tau_id` and torques `B thetadd + K (theta - q)` (rigid joints: \
                  `tau_id`) that make the link side follow `q(t)`, from the inverse dynamics \
                  `tau_id` and its first two time derivatives.",
        },
    }
}

/// The public name of a function of `module` (without the robot's prefix):
/// `inverse_dynamics`, ..., `forward_kinematics_FRAME` and `jacobian_FRAME` for a named frame
/// (`None` if the module has no such frame).
pub fn public_name(module: &Module, kind: FunctionKind) -> Option<String> {
    function_name(kind, &module.frame_names)
}

/// [`public_name`] for a robot whose named frames are `frame_names` (in order).
pub fn function_name(kind: FunctionKind, frame_names: &[String]) -> Option<String> {
    let base = contract(kind).name;
    match kind {
        FunctionKind::FrameKinematics(k) | FunctionKind::FrameJacobian(k) => frame_names
            .get(usize::from(k))
            .map(|frame| format!("{base}_{}", frame_ident(frame))),
        _ => Some(base.to_owned()),
    }
}

/// Field names of the generated parameter struct (Rust `Params`, C `NAME_params`), in the
/// order of [`Graph::params`]: snake_case, unique, not clashing with keywords.
pub fn param_fields(graph: &Graph) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for p in graph.params() {
        let mut base = snake_ident(&p.name);
        if base.starts_with("robot_") && !p.name.to_ascii_lowercase().starts_with("robot_") {
            base = format!("p_{}", &base["robot_".len()..]);
        }
        if RESERVED.contains(&base.as_str()) {
            base.push('_');
        }
        let mut name = base.clone();
        let mut k = 2;
        while out.contains(&name) {
            name = format!("{base}_{k}");
            k += 1;
        }
        out.push(name);
    }
    out
}

/// Rust and C keywords a parameter name must not become.
const RESERVED: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
    "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "auto", "case", "char",
    "default", "double", "float", "goto", "int", "long", "register", "short", "signed", "sizeof",
    "switch", "typedef", "union", "unsigned", "void", "volatile", "inline", "restrict", "union",
    "gen",
];

/// Expression tree handed to the language renderers.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Ex {
    /// A finite constant (may be negative).
    Lit(f64),
    /// `input[j]`.
    Input(Input, usize),
    /// A parameter field.
    Param(usize),
    /// A local variable.
    Local(String),
    /// `sin`, `cos` or `sqrt` of the argument.
    Call(Func, Box<Ex>),
    /// `-e`.
    Neg(Box<Ex>),
    /// `t0 ± t1 ± ...`; the flag marks a subtracted term (on the first term: a negation).
    Sum(Vec<(bool, Ex)>),
    /// `f0 * f1 * ...`.
    Prod(Vec<Ex>),
    /// `a / b`.
    Div(Box<Ex>, Box<Ex>),
}

/// Functions generated code calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Func {
    Sin,
    Cos,
    Sqrt,
}

/// A function ready to be written: locals in order, then the output values.
pub(crate) struct Plan {
    /// The function's inputs (the contract's, in floating-base form for a floating base).
    pub inputs: Vec<Input>,
    /// Number of joints.
    pub dof: usize,
    /// `N`, or `NV = 6 + N` with a floating base: the size of joint-space outputs.
    pub out_n: usize,
    pub kind: FunctionKind,
    /// Public name (the contract's, with the frame's identifier for a named frame).
    pub name: String,
    pub contract: Contract,
    /// Which of the contract's inputs the body reads.
    pub used_inputs: Vec<bool>,
    /// Whether the body reads a parameter.
    pub uses_params: bool,
    /// `let name = value;`, children first.
    pub locals: Vec<(String, Ex)>,
    /// Per output, its values row-major.
    pub outputs: Vec<Vec<Ex>>,
    /// Which math functions are called.
    pub calls: [bool; 3],
    /// The module's other sizes (`Dim::Base`, `Dim::Beta`, `Dim::W`).
    pub counts: Counts,
}

impl Plan {
    /// Length of an input array: `q` holds `7 + N` entries with a floating base, the other
    /// floating inputs `6 + N`.
    pub(crate) fn input_len(&self, i: Input) -> usize {
        match i {
            Input::BasePose => 7,
            Input::BaseVel | Input::BaseAcc => 6,
            Input::Beta | Input::BetaD | Input::BetaDd => self.counts.nbeta,
            Input::W | Input::WD | Input::WDd => self.counts.nw,
            Input::Theta | Input::ThetaD => self.counts.nbeta,
            Input::Q if self.out_n != self.dof => self.dof + 7,
            _ => self.out_n,
        }
    }
}

/// The largest batch of the `_batch` functions: their `sin`/`cos` arrays live on the stack
/// (`8 * N` bytes per joint angle's sine or cosine in double precision).
pub const MAX_BATCH: usize = 1024;

/// Refuses a batch size outside `1..=MAX_BATCH`.
pub fn check_batch(batch: usize) -> Result<(), EmitError> {
    if (1..=MAX_BATCH).contains(&batch) {
        Ok(())
    } else {
        Err(EmitError::Batch(batch))
    }
}

/// The locals of a plan in the order the C emitter writes them, as indices into
/// [`Plan::locals`], and how many of them lead as the trigonometric block's: the `sin`/`cos`
/// locals first (with a block, written by it), then the others in [`pressure_order`], with
/// whichever of its two tie rules keeps fewer values live on average ([`mean_live`]; the
/// graph's order on a tie).
///
/// Neither rule is best everywhere, and the average live count picked the one gcc compiled
/// to fewer instructions in every function measured (callgrind, gcc 12 `-O3
/// -march=x86-64-v3`): the floating quadruped's mass matrix 1244 -> 1201 instructions per
/// call and its inverse dynamics 2146 -> 2083, the hand's 1034 -> 971 and 1582 -> 1500 by
/// the most recent operands; the Panda's inverse-dynamics derivatives stay at 5151 by the
/// graph's order, which the other rule takes to 5930. The order so chosen then gives way to
/// the [`depth_first_order`] where that needs fewer loads and stores of spilled values by
/// [`spill_estimate`] (the Panda's inverse-dynamics derivatives 5186 -> 4977 instructions per
/// call, the same gcc and flags).
pub(crate) fn local_order(plan: &Plan, block: bool) -> (Vec<usize>, usize) {
    let trig = trig_locals(plan);
    let leading = if block { trig.len() } else { 0 };
    let operands = operand_lists(plan);
    let by_graph = pressure_order(&operands, plan.locals.len(), &trig, Ties::GraphOrder);
    let by_recent = pressure_order(&operands, plan.locals.len(), &trig, Ties::RecentOperands);
    let chosen = if mean_live(&operands, &by_recent) < mean_live(&operands, &by_graph) {
        by_recent
    } else {
        by_graph
    };
    let depth_first = depth_first_order(&operands, plan.locals.len(), &trig, &chosen);
    let counted: Vec<bool> = (0..plan.locals.len())
        .map(|k| !is_trig(&plan.locals[k].1))
        .collect();
    let order = if spill_estimate(&operands, &depth_first, &counted)
        < spill_estimate(&operands, &chosen, &counted)
    {
        depth_first
    } else {
        chosen
    };
    (order, leading)
}

/// The `n` locals depth first from the output entries (`operands` from [`operand_lists`]):
/// `first` (in their order), then for each entry, in the order `order` writes them
/// ([`store_schedule`]), the locals it needs and has not had yet, each after its own operands,
/// the operand with the larger expression tree first (Sethi–Ullman: the larger part is
/// computed while fewer values wait). Reverse-mode derivatives, whose adjoints each read
/// forward values computed long before, keep fewer of them waiting this way: the Panda's
/// inverse-dynamics derivatives 5186 -> 4977 instructions per call in C, the hand's 5031 ->
/// 4768 (callgrind, gcc 12 `-O3 -march=x86-64-v3`).
pub(crate) fn depth_first_order(
    operands: &[Vec<usize>],
    n: usize,
    first: &[usize],
    order: &[usize],
) -> Vec<usize> {
    // Expression-tree size (shared operands counted at each use), saturating.
    let mut size = vec![0u64; n];
    // Locals read only earlier locals in `order`, so sizes are filled in that order.
    for &k in order {
        size[k] = operands[k]
            .iter()
            .fold(1u64, |a, &d| a.saturating_add(size[d]));
    }
    // Output entries (readers `n..`) are visited like locals but not written out.
    let mut done = vec![false; operands.len()];
    let mut out = Vec::with_capacity(n);
    for &k in first {
        done[k] = true;
        out.push(k);
    }
    // An explicit stack (deep graphs): (reader, operands pushed yet).
    let mut stack: Vec<(usize, bool)> = Vec::new();
    let entries = entries_in_write_order(operands, order)
        .into_iter()
        .map(|(_, r)| r);
    for root in entries.chain(0..n) {
        stack.push((root, false));
        while let Some((k, expanded)) = stack.pop() {
            if done[k] {
                continue;
            }
            if expanded {
                done[k] = true;
                if k < n {
                    out.push(k);
                }
                continue;
            }
            stack.push((k, true));
            let mut ops: Vec<usize> = operands[k].iter().copied().filter(|&d| !done[d]).collect();
            // Pushed so that the largest is taken first.
            ops.sort_by_key(|&d| (size[d], std::cmp::Reverse(d)));
            stack.extend(ops.into_iter().map(|d| (d, false)));
        }
    }
    out
}

/// The output entries (readers `n..` of `operands`, [`operand_lists`]) in the order they are
/// written when the locals come in `order` (the emitters write them so, [`store_schedule`]):
/// each as `(slot, entry)`, `slot` the place in `order` after which it is written (0: before
/// any local), by slot and then in output order.
fn entries_in_write_order(operands: &[Vec<usize>], order: &[usize]) -> Vec<(usize, usize)> {
    let n = order.len();
    let mut position = vec![0usize; n];
    for (p, &k) in order.iter().enumerate() {
        position[k] = p + 1;
    }
    let mut entries: Vec<(usize, usize)> = operands
        .iter()
        .enumerate()
        .skip(n)
        .map(|(r, ops)| (ops.iter().map(|&d| position[d]).max().unwrap_or(0), r))
        .collect();
    entries.sort_unstable();
    entries
}

/// Registers the spill estimate of [`spill_estimate`] assumes: sixteen vector registers
/// less a few held by addresses and temporaries (the count that ranked the orders of the
/// functions measured as gcc's instruction counts did).
const ESTIMATED_REGISTERS: usize = 13;

/// How many loads and stores of spilled values the locals in `order` need with
/// [`ESTIMATED_REGISTERS`] registers, each output entry written right after its last operand
/// ([`store_schedule`]) and the values farthest from their next use evicted first (Belady's
/// rule); locals not `counted` (the sines and cosines, read from the trigonometric block's
/// arrays) are left out. Used to choose between orders, not as a cost in itself.
pub(crate) fn spill_estimate(operands: &[Vec<usize>], order: &[usize], counted: &[bool]) -> usize {
    let n = order.len();
    // The sequence of readers: each local, then the entries written right after it.
    let entries = entries_in_write_order(operands, order);
    let mut sequence: Vec<usize> = Vec::with_capacity(operands.len());
    let mut pending = entries.iter().peekable();
    for slot in 0..=n {
        if slot > 0 {
            sequence.push(order[slot - 1]);
        }
        while let Some(&(_, r)) = pending.next_if(|&&(at, _)| at == slot) {
            sequence.push(r);
        }
    }
    // Each local's uses, as places in `sequence`, in one flat array (`uses[start[d]..start[d
    // + 1]]`): a large function has millions of them.
    let mut start = vec![0usize; n + 1];
    for &r in &sequence {
        for &d in &operands[r] {
            if counted[d] {
                start[d + 1] += 1;
            }
        }
    }
    for d in 0..n {
        start[d + 1] += start[d];
    }
    let mut uses = vec![0usize; start[n]];
    let mut fill = start.clone();
    for (i, &r) in sequence.iter().enumerate() {
        for &d in &operands[r] {
            if counted[d] {
                uses[fill[d]] = i;
                fill[d] += 1;
            }
        }
    }
    drop(fill);
    // Each local's next use not yet passed, as an index into `uses`.
    let mut next = start[..n].to_vec();
    let next_use = |d: usize, next: &[usize]| {
        if next[d] < start[d + 1] {
            uses[next[d]]
        } else {
            usize::MAX
        }
    };
    let mut registers: Vec<usize> = Vec::with_capacity(ESTIMATED_REGISTERS + 2);
    let mut spilled = vec![false; n];
    let (mut loads, mut stores) = (0, 0);
    for (i, &r) in sequence.iter().enumerate() {
        for &d in &operands[r] {
            if !counted[d] {
                continue;
            }
            if !registers.contains(&d) {
                loads += 1;
                if !spilled[d] {
                    spilled[d] = true;
                    stores += 1;
                }
                registers.push(d);
            }
        }
        for &d in &operands[r] {
            if counted[d] {
                while next[d] < start[d + 1] && uses[next[d]] <= i {
                    next[d] += 1;
                }
            }
        }
        if r < n && counted[r] && start[r + 1] > start[r] {
            registers.push(r);
        }
        registers.retain(|&d| next_use(d, &next) != usize::MAX);
        while registers.len() > ESTIMATED_REGISTERS {
            let (at, _) = registers
                .iter()
                .enumerate()
                .max_by_key(|&(_, &d)| (next_use(d, &next), std::cmp::Reverse(d)))
                .expect("registers over the limit");
            registers.swap_remove(at);
        }
    }
    loads + stores
}

/// The `sin`/`cos` locals of a plan ([`is_trig`]), as indices into [`Plan::locals`].
pub(crate) fn trig_locals(plan: &Plan) -> Vec<usize> {
    (0..plan.locals.len())
        .filter(|&k| is_trig(&plan.locals[k].1))
        .collect()
}

/// The locals each reader reads, as indices into [`Plan::locals`]: the readers `0..N` are the
/// locals, the rest the output entries in output order (an entry is a reader too: written as
/// soon as its locals are computed, [`store_schedule`], it ends the values it reads).
pub(crate) fn operand_lists(plan: &Plan) -> Vec<Vec<usize>> {
    let index = local_index(plan);
    let reads = |e: &Ex| local_reads(e, &index);
    let mut operands: Vec<Vec<usize>> = plan.locals.iter().map(|(_, e)| reads(e)).collect();
    operands.extend(plan.outputs.iter().flatten().map(reads));
    operands
}

/// How [`pressure_order`] breaks ties between locals that end as many live values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ties {
    /// The earliest in the graph's order.
    GraphOrder,
    /// The one whose latest operand was computed last (then the graph's order): it reads
    /// values still fresh, which tends to keep the work near what was just computed.
    RecentOperands,
}

/// The mean number of locals live along `order` (every local once, as indices into
/// [`Plan::locals`]; `operands` from [`operand_lists`]), a value live from its local to its
/// last reader: a local, or an output entry at the place of the last local it reads.
pub(crate) fn mean_live(operands: &[Vec<usize>], order: &[usize]) -> f64 {
    let n = order.len();
    let mut position = vec![0; n];
    for (p, &k) in order.iter().enumerate() {
        position[k] = p;
    }
    let mut last = vec![None::<usize>; n];
    for (r, ops) in operands.iter().enumerate() {
        let at = if r < n {
            Some(position[r])
        } else {
            ops.iter().map(|&d| position[d]).max()
        };
        for &d in ops {
            last[d] = last[d].max(at);
        }
    }
    let mut delta = vec![0i64; n + 1];
    for (k, end) in last.iter().enumerate() {
        if let Some(end) = end {
            delta[position[k]] += 1;
            delta[end + 1] -= 1;
        }
    }
    let (mut live, mut sum) = (0i64, 0i64);
    for d in &delta[..n] {
        live += d;
        sum += live;
    }
    sum as f64 / n.max(1) as f64
}

/// The input entries a plan reads (`q[3]` as `(Input::Q, 3)`), in a fixed order: the C
/// emitter copies each into a local (`q_3`) before anything else, so that every input is read
/// before the first output entry is written (an output array may be an input array of the
/// same call) while the locals and the stores are ordered freely ([`pressure_order`]).
pub(crate) fn input_reads(plan: &Plan) -> Vec<(Input, usize)> {
    let mut reads = Vec::new();
    let exprs = plan
        .locals
        .iter()
        .map(|(_, e)| e)
        .chain(plan.outputs.iter().flatten());
    for e in exprs {
        visit_leaves(e, &mut |leaf| {
            if let Ex::Input(i, j) = leaf {
                reads.push((*i, *j));
            }
        });
    }
    reads.sort_by_key(|&(i, j)| (i.name(), j));
    reads.dedup();
    reads
}

/// The `n` locals in an order that keeps few values live at once (`operands` from
/// [`operand_lists`]), `first` (computed first, in their order) then every other local, by
/// list scheduling: of the locals whose operands are
/// computed, the one that ends the most live values (operands it is the last reader of, an
/// output entry counting as a reader) less the one it starts, ties broken by `ties`. The
/// graph's order computes the recursions' quantities long before their last use (the
/// reverse-mode derivatives' forward values above all: the Panda's inverse-dynamics
/// derivatives held 274 values live on average, 545 at most, and gcc spilled most of them);
/// in this order they hold 128 (207 at most) and the C executes 5151 instructions per call
/// instead of 5997 (docs/design.md, "Statement order"). Rust functions that write their
/// outputs early take the same order; the others keep the graph's order: LLVM reorders the
/// code itself (the same reordering changed their instruction count by 0.4%).
pub(crate) fn pressure_order(
    operands: &[Vec<usize>],
    n: usize,
    first: &[usize],
    ties: Ties,
) -> Vec<usize> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    // Readers `0..n` are the locals, `n..` the output entries ([`operand_lists`]).
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (r, ops) in operands.iter().enumerate() {
        for &k in ops {
            readers[k].push(r);
        }
    }
    let mut unread: Vec<usize> = readers.iter().map(Vec::len).collect();
    let mut waiting: Vec<usize> = operands.iter().map(Vec::len).collect();
    let mut done = vec![false; operands.len()];
    // A local's score: the values it ends less the one it starts.
    let score = |k: usize, unread: &[usize]| -> i64 {
        let ends = operands[k].iter().filter(|&&d| unread[d] == 1).count();
        ends as i64 - i64::from(!readers[k].is_empty())
    };
    let mut heap: BinaryHeap<(i64, usize, Reverse<usize>)> = BinaryHeap::new();
    let mut order = Vec::with_capacity(n);
    // Each scheduled local's place in `order` plus one (0: not yet scheduled).
    let mut place = vec![0usize; n];
    // The tie-break of a ready local, higher first (fixed once its operands are computed).
    let tie = |r: usize, place: &[usize]| match ties {
        Ties::GraphOrder => 0,
        Ties::RecentOperands => operands[r].iter().map(|&d| place[d]).max().unwrap_or(0),
    };
    // Marks reader `r` computed; returns the locals it made ready or whose score rose.
    let finish = |r: usize,
                  unread: &mut Vec<usize>,
                  waiting: &mut Vec<usize>,
                  done: &mut Vec<bool>,
                  touched: &mut Vec<usize>| {
        done[r] = true;
        for &d in &operands[r] {
            unread[d] -= 1;
            if unread[d] == 1 {
                // Its last reader now ends it.
                touched.extend(readers[d].iter().copied().filter(|&x| !done[x]));
            }
        }
        if r < n {
            for &x in &readers[r] {
                waiting[x] -= 1;
                if waiting[x] == 0 {
                    touched.push(x);
                }
            }
        }
    };
    let mut touched = Vec::new();
    for &k in first {
        order.push(k);
        place[k] = order.len();
        finish(k, &mut unread, &mut waiting, &mut done, &mut touched);
    }
    touched.extend((0..operands.len()).filter(|&r| waiting[r] == 0 && !done[r]));
    loop {
        // Output entries are written as soon as they are ready (`store_schedule`): they end
        // values and start none.
        while let Some(r) = touched.pop() {
            if done[r] || waiting[r] != 0 {
                continue;
            }
            if r >= n {
                finish(r, &mut unread, &mut waiting, &mut done, &mut touched);
            } else {
                heap.push((score(r, &unread), tie(r, &place), Reverse(r)));
            }
        }
        let Some((s, _, Reverse(k))) = heap.pop() else {
            break;
        };
        if done[k] || s != score(k, &unread) {
            continue;
        }
        order.push(k);
        place[k] = order.len();
        finish(k, &mut unread, &mut waiting, &mut done, &mut touched);
    }
    debug_assert_eq!(order.len(), n, "every local is scheduled");
    order
}

/// Each local's index in [`Plan::locals`], by name.
pub(crate) fn local_index(plan: &Plan) -> HashMap<&str, usize> {
    plan.locals
        .iter()
        .enumerate()
        .map(|(k, (name, _))| (name.as_str(), k))
        .collect()
}

/// The locals `e` reads, as indices into [`Plan::locals`] (`index` from [`local_index`]),
/// each once, in increasing order.
pub(crate) fn local_reads(e: &Ex, index: &HashMap<&str, usize>) -> Vec<usize> {
    let mut ks = Vec::new();
    visit_leaves(e, &mut |leaf| {
        if let Ex::Local(name) = leaf {
            if let Some(&k) = index.get(name.as_str()) {
                ks.push(k);
            }
        }
    });
    ks.sort_unstable();
    ks.dedup();
    ks
}

/// Where each output entry is written when the locals are emitted in `order` (see
/// [`local_order`]): `at[0]` before any local, `at[k + 1]` right after the `k`-th local of
/// `order`; each entry as (output, index in it), in output order.
///
/// An entry is written as soon as the locals it reads are computed, so that a function with
/// many outputs (a mass matrix, a Jacobian, derivatives) does not hold them all until its
/// end: gcc keeps each in a register or, far more often, spills it to the stack and loads it
/// back for the store (the floating quadruped's mass matrix in C with AVX2: 141 -> 109 ns).
/// The C emitter uses it, and the Rust one for functions with many computed entries (their
/// inner function fills `MaybeUninit` arrays, `rust::written_early_body`). The C
/// emitter reads every input into a local first ([`input_reads`]), so an output array that
/// is also an input array of the call is read whole before it is written (a Rust output is
/// never an input).
pub(crate) fn store_schedule(plan: &Plan, order: &[usize]) -> Vec<Vec<(usize, usize)>> {
    // The order is the one the statement-order estimates assume ([`entries_in_write_order`]).
    let entries: Vec<(usize, usize)> = plan
        .outputs
        .iter()
        .enumerate()
        .flat_map(|(o, vals)| (0..vals.len()).map(move |i| (o, i)))
        .collect();
    let n = plan.locals.len();
    let mut at: Vec<Vec<(usize, usize)>> = vec![Vec::new(); order.len() + 1];
    for (slot, r) in entries_in_write_order(&operand_lists(plan), order) {
        at[slot].push(entries[r - n]);
    }
    at
}

/// Refuses literals the emitted code cannot hold: a non-finite value in a constant array, and
/// with `single` precision any literal, constant or parameter default beyond `float`'s range
/// (written as `inf`, which is not C). The functions' own non-finite constants are refused
/// when they are planned.
pub(crate) fn check_literals(
    lowered: &Module,
    plans: &[Plan],
    single: bool,
) -> Result<(), EmitError> {
    let beyond = |v: f64| single && v.is_finite() && (v as f32).is_infinite();
    for c in &lowered.constants {
        for &value in &c.values {
            if !value.is_finite() {
                let name = c.name.to_owned();
                return Err(EmitError::NonFiniteConstant { name, value });
            }
            if beyond(value) {
                let what = format!("the constant array `{}`", c.name);
                return Err(EmitError::BeyondFloat { what, value });
            }
        }
    }
    for p in lowered.graph.params() {
        if beyond(p.default) {
            let what = format!("the parameter `{}`", p.name);
            return Err(EmitError::BeyondFloat {
                what,
                value: p.default,
            });
        }
    }
    if !single {
        return Ok(());
    }
    for plan in plans {
        let mut found = None;
        let exprs = plan.locals.iter().map(|(_, e)| e);
        for e in exprs.chain(plan.outputs.iter().flatten()) {
            visit_leaves(e, &mut |leaf| match leaf {
                Ex::Lit(v) if beyond(*v) => {
                    found.get_or_insert(*v);
                }
                _ => {}
            });
        }
        if let Some(value) = found {
            let what = format!("`{}`", plan.name);
            return Err(EmitError::BeyondFloat { what, value });
        }
    }
    Ok(())
}

/// Calls `f` with every leaf of `e` (literals, inputs, parameters, locals).
fn visit_leaves<'a>(e: &'a Ex, f: &mut impl FnMut(&'a Ex)) {
    match e {
        Ex::Lit(_) | Ex::Param(_) | Ex::Input(..) | Ex::Local(_) => f(e),
        Ex::Call(_, x) | Ex::Neg(x) => visit_leaves(x, f),
        Ex::Sum(v) => v.iter().for_each(|(_, x)| visit_leaves(x, f)),
        Ex::Prod(v) => v.iter().for_each(|x| visit_leaves(x, f)),
        Ex::Div(a, b) => {
            visit_leaves(a, f);
            visit_leaves(b, f);
        }
    }
}

/// Whether a local is the `sin` or `cos` of joint angles (read from the inputs only).
pub(crate) fn is_trig(e: &Ex) -> bool {
    matches!(e, Ex::Call(Func::Sin | Func::Cos, _))
}

/// An angle and the names of its sine and cosine locals (either may be absent).
pub(crate) type TrigAngle<'a> = (&'a Ex, Option<&'a str>, Option<&'a str>);

/// The `sin`/`cos` locals of a plan grouped by angle, in order of first use: the angle and the
/// names of its sine and cosine locals (either may be absent).
pub(crate) fn trig_angles(plan: &Plan) -> Vec<TrigAngle<'_>> {
    let mut out: Vec<TrigAngle<'_>> = Vec::new();
    for (name, e) in &plan.locals {
        let Ex::Call(f @ (Func::Sin | Func::Cos), angle) = e else {
            continue;
        };
        let at = match out.iter().position(|(a, _, _)| **a == **angle) {
            Some(at) => at,
            None => {
                out.push((angle, None, None));
                out.len() - 1
            }
        };
        if *f == Func::Sin {
            out[at].1 = Some(name);
        } else {
            out[at].2 = Some(name);
        }
    }
    out
}

/// The angles whose sines and cosines a scalar function takes in one block (`sin_cos_n` in
/// Rust, `NAME_SINCOS` in C), a loop over the angles that compilers vectorise where the target
/// has wide vectors: every trigonometric local, when there are at least two angles (an angle
/// is a sum of joint positions, so the block can come first). `None`: plain calls.
pub(crate) fn trig_block(plan: &Plan) -> Option<Vec<TrigAngle<'_>>> {
    let angles = trig_angles(plan);
    (angles.len() >= 2).then_some(angles)
}

/// The slots of a trigonometric block of `n` angles for vectors of `width` lanes: the angle
/// each slot holds (`None`: a zero), a multiple of `width` of them. Where `n` is not a
/// multiple, the last vector repeats the angles before the tail when there are enough
/// (`n ≥ width`), so that every vector is a window of consecutive angles: angles that are
/// consecutive inputs then load as one vector, where a vector assembled from a few scalars and
/// zeros goes through memory and stalls the loads that follow. Fewer angles than a vector are
/// padded with zeros.
pub(crate) fn trig_slots(n: usize, width: usize) -> Vec<Option<usize>> {
    let tail = n % width;
    if tail == 0 || n < width {
        let mut slots: Vec<Option<usize>> = (0..n).map(Some).collect();
        slots.resize(n.div_ceil(width) * width, None);
        return slots;
    }
    (0..n - tail).chain(n - width..n).map(Some).collect()
}

/// The slot of angle `k` in `slots` ([`trig_slots`]): its first.
pub(crate) fn trig_slot(slots: &[Option<usize>], k: usize) -> usize {
    slots
        .iter()
        .position(|&s| s == Some(k))
        .expect("every angle has a slot")
}

/// A sine or cosine local of a trigonometric block: its name, the block's output it reads
/// (`trig_s` or `trig_c`, at `index`) and the plain call it stands for where there is no block.
pub(crate) struct TrigRead<'a> {
    pub name: &'a str,
    pub array: &'static str,
    pub index: usize,
    pub call: &'a Ex,
}

/// The locals of `block` ([`trig_block`]) in block order, sine before cosine of each angle.
pub(crate) fn trig_reads<'a>(plan: &'a Plan, block: &[TrigAngle<'a>]) -> Vec<TrigRead<'a>> {
    let calls: Vec<(&str, &Ex)> = plan
        .locals
        .iter()
        .filter(|(_, e)| is_trig(e))
        .map(|(name, e)| (name.as_str(), e))
        .collect();
    let mut reads = Vec::new();
    for (index, (_, sin, cos)) in block.iter().enumerate() {
        for (name, array) in [(sin, "trig_s"), (cos, "trig_c")] {
            let Some(name) = *name else { continue };
            if let Some(&(name, call)) = calls.iter().find(|(l, _)| *l == name) {
                reads.push(TrigRead {
                    name,
                    array,
                    index,
                    call,
                });
            }
        }
    }
    reads
}

/// The constants of the generated `sin` and `cos` (batched functions and the trigonometric
/// block): `2/π`; `π/2` in three parts (the first two short, so their products with the
/// quadrant count are exact: Cody and Waite's reduction); the coefficients of
/// `sin r = r + r³ P(r²)` and `cos r = 1 - r²/2 + r⁴ Q(r²)` on `|r| ≤ π/4`; the number that
/// rounds to an integer when added and subtracted.
struct TrigConstants {
    two_over_pi: f64,
    half_pi: [f64; 3],
    sin: &'static [f64],
    cos: &'static [f64],
    magic: f64,
}

/// Double precision: `π/2` in parts of 30, 30 and 53 bits (exact products for `|k| < 2^23`);
/// `P` and `Q` of degree 5, fitted to the least maximum relative error of `sin` and `cos` on
/// `|r| ≤ π/4` (about `4e-18` and `6e-20`, far below half an ulp; the Taylor polynomials of
/// the same error have degree 7), so that the polynomials are two levels shorter.
const TRIG_DOUBLE: TrigConstants = TrigConstants {
    two_over_pi: std::f64::consts::FRAC_2_PI,
    half_pi: [
        1.5707963276654482,
        -8.705515692000731e-10,
        -3.50343439808993e-19,
    ],
    sin: &[
        -0.1666666666666663,
        0.008333333333322118,
        -0.00019841269829589425,
        2.755731362135225e-06,
        -2.5050747758253173e-08,
        1.5896229918324403e-10,
    ],
    cos: &[
        0.041666666666666595,
        -0.0013888888888873056,
        2.4801587288851484e-05,
        -2.755731417923979e-07,
        2.0875700834956644e-09,
        -1.1358536187883208e-11,
    ],
    magic: 6755399441055744.0,
};

/// Single precision: `π/2` in parts of 12, 12 and 24 bits (exact products for `|k| < 2^12`);
/// `P` and `Q` the Taylor coefficients `(-1)^i / (2i+1)!` from `i = 1` and `(-1)^i / (2i)!`
/// from `i = 2`, to where the next term is below half an ulp.
const TRIG_SINGLE: TrigConstants = TrigConstants {
    two_over_pi: std::f64::consts::FRAC_2_PI,
    half_pi: [
        1.57080078125,
        -4.453584551811218e-06,
        -8.705515752716053e-10,
    ],
    sin: &[
        -0.16666666666666666,
        0.008333333333333333,
        -0.0001984126984126984,
        2.7557319223985893e-06,
        -2.505210838544172e-08,
    ],
    cos: &[
        0.041666666666666664,
        -0.001388888888888889,
        2.48015873015873e-05,
        -2.755731922398589e-07,
        2.08767569878681e-09,
    ],
    magic: 12582912.0,
};

/// The magic number of [`batch_trig`]'s rounding (`1.5 · 2^52`, or `1.5 · 2^23` in single
/// precision): `(x + M) - M` is `x` rounded to an integer for `|x| < 2^51` (`2^22`).
pub(crate) fn round_magic(single: bool) -> f64 {
    if single {
        TRIG_SINGLE.magic
    } else {
        TRIG_DOUBLE.magic
    }
}

/// How [`batch_trig`] writes its operations in the target language.
#[derive(Clone, Copy)]
pub(crate) struct TrigSyntax<'a> {
    /// Single precision (fewer terms, shorter `π/2` parts).
    pub single: bool,
    /// A non-negative constant.
    pub lit: &'a dyn Fn(f64) -> String,
    /// `x` rounded to the nearest integer (an expression that may need parentheses as an
    /// operand).
    pub round: &'a dyn Fn(String) -> String,
    /// `a * b + c`, fused where the target has the instruction (one step of latency and one
    /// rounding instead of two: C compilers only contract a written `a * b + c` outside strict
    /// ISO modes, Rust never).
    pub fma: &'a dyn Fn(&str, &str, &str) -> String,
}

/// Statements computing, in a batched body or the trigonometric block, the sine and cosine of
/// `angle` (an expression already written in the target language) into the locals `sin` and
/// `cos`, as `(name, expression)` pairs in syntax both C and Rust read: branch-free, so the
/// loop around them vectorises. Cody-Waite reduction to `r = angle - k π/2`, `|r| ≤ π/4`,
/// polynomials for `sin r` and `cos r` by Estrin's scheme (pairs `c_i + c_{i+1} z` combined
/// with `z²`: fewer dependent steps than Horner's, which is what a block of a few angles
/// waits for), and the quadrant `k mod 4` choosing between them and their signs by products
/// with 0 and 1, the weights computed from `k` alongside the polynomials. `syntax` writes
/// the constants, roundings and fused multiply-adds; `tag` prefixes the temporaries.
pub(crate) fn batch_trig(
    tag: &str,
    angle: String,
    sin: Option<&str>,
    cos: Option<&str>,
    syntax: &TrigSyntax<'_>,
) -> Vec<(String, String)> {
    let TrigSyntax {
        single,
        lit,
        round,
        fma,
    } = *syntax;
    let c = if single { &TRIG_SINGLE } else { &TRIG_DOUBLE };
    let v = |s: &str| format!("{tag}_{s}");
    let (a, k, r, z, w, ps, pc, h, o) = (
        v("a"),
        v("k"),
        v("r"),
        v("z"),
        v("w"),
        v("s"),
        v("c"),
        v("h"),
        v("o"),
    );
    let signed = |x: f64| {
        if x < 0.0 {
            format!("-{}", lit(-x))
        } else {
            lit(x)
        }
    };
    // `x - k * p`.
    let minus = |x: String, p: f64| fma(&k, &signed(-p), &x);
    // Estrin's scheme: the pairs c_i + c_{i+1} z, then c'_i + c'_{i+1} w with w = z², and so
    // on, each pass halving the terms; the pairs of the first pass become locals `{tag}_{p}{i}`.
    let mut out = Vec::new();
    let estrin = |out: &mut Vec<(String, String)>, p: &str, coefficients: &[f64]| {
        let mut terms: Vec<String> = coefficients
            .chunks(2)
            .enumerate()
            .map(|(i, pair)| match pair {
                [c0, c1] => {
                    let name = v(&format!("{p}{i}"));
                    out.push((name.clone(), fma(&z, &signed(*c1), &signed(*c0))));
                    name
                }
                [c0] => signed(*c0),
                _ => unreachable!("chunks of two"),
            })
            .collect();
        // `w`, then `w * w`, .. written out (an operand of `fma`).
        let mut power = w.clone();
        while terms.len() > 1 {
            terms = terms
                .chunks(2)
                .map(|pair| match pair {
                    [t0, t1] => fma(&power, t1, t0),
                    [t0] => t0.clone(),
                    _ => unreachable!("chunks of two"),
                })
                .collect();
            power = format!("{power} * {power}");
        }
        terms.pop().expect("at least one coefficient")
    };
    let mut reduced = minus(a.clone(), c.half_pi[0]);
    reduced = minus(reduced, c.half_pi[1]);
    reduced = minus(reduced, c.half_pi[2]);
    out.push((a.clone(), angle));
    out.push((k.clone(), round(format!("{a} * {}", lit(c.two_over_pi)))));
    out.push((r.clone(), reduced));
    out.push((z.clone(), format!("{r} * {r}")));
    out.push((w.clone(), format!("{z} * {z}")));
    let sin_poly = estrin(&mut out, "sp", c.sin);
    out.push((ps.clone(), fma(&format!("{r} * {z}"), &sin_poly, &r)));
    let cos_poly = estrin(&mut out, "cp", c.cos);
    let half = fma(&z, &signed(-0.5), &lit(1.0));
    out.push((pc.clone(), fma(&w, &cos_poly, &half)));
    // The quadrant k mod 4 = 2 p + o: o = k mod 2 and p = h mod 2 for h = floor(k / 2), each
    // halving by rounding `x / 2 - 1/4` (exact for the integers here).
    let halve = |x: &str| round(fma(x, &lit(0.5), &signed(-0.25)));
    out.push((h.clone(), halve(&k)));
    out.push((o.clone(), fma(&h, &signed(-2.0), &k)));
    let (h2, p, sign, other, own) = (v("h2"), v("p"), v("g"), v("wo"), v("wn"));
    out.push((h2.clone(), halve(&h)));
    out.push((p.clone(), fma(&h2, &signed(-2.0), &h)));
    // Quadrants 0..3: sine sin r, cos r, -sin r, -cos r; cosine cos r, -sin r, -cos r, sin r.
    // So both take g = 1 - 2p times the own polynomial where o = 0 and, for the sine, g times
    // the other where o = 1 (the cosine -g): weights from k alone, ready before the
    // polynomials are.
    out.push((sign.clone(), fma(&p, &signed(-2.0), &lit(1.0))));
    out.push((other.clone(), format!("{o} * {sign}")));
    out.push((own.clone(), format!("{sign} - {other}")));
    if let Some(name) = sin {
        out.push((name.to_owned(), fma(&ps, &own, &format!("{pc} * {other}"))));
    }
    if let Some(name) = cos {
        out.push((
            name.to_owned(),
            fma(&ps, &format!("-{other}"), &format!("{pc} * {own}")),
        ));
    }
    out
}

/// Deepest inlined expression before a local is introduced (keeps lines readable and the
/// renderers' recursion shallow).
const MAX_INLINE_DEPTH: u32 = 6;

/// Checks a module against the contracts and plans every function (on the lowered module).
/// Reports [`Stage::Simplify`] (lowering and sharing) and [`Stage::Emit`] (one step per
/// function) to `progress`.
pub(crate) fn plan_module(
    module: &Module,
    progress: &mut dyn Progress,
) -> Result<(Module, Vec<Plan>), EmitError> {
    let lowered = module.lowered_reporting(progress);
    let mut step = Counter::new(progress, Stage::Emit, "function", lowered.functions.len());
    let mut names = Vec::new();
    for (i, f) in lowered.functions.iter().enumerate() {
        if lowered.functions[..i].iter().any(|g| g.kind == f.kind) {
            return Err(EmitError::Duplicate(f.kind));
        }
        names.push(public_name(&lowered, f.kind).ok_or(EmitError::UnknownFrame(f.kind))?);
    }
    let counts = Counts::of(&lowered);
    // The functions are planned on every core (the plans only read the lowered graph), and
    // kept in the functions' order; the first error in that order is the one reported.
    let mut plans = Vec::new();
    let mut error = None;
    crate::parallel::parallel_in_order(
        &lowered.functions,
        |f| plan_function(&lowered.graph, lowered.dof, counts, lowered.motion, f),
        &mut |i| step.next(&names[i]),
        &mut |i, plan: Result<Plan, EmitError>| match plan {
            Ok(mut plan) if error.is_none() => {
                plan.name = names[i].clone();
                plans.push(plan);
            }
            Ok(_) => {}
            Err(e) => {
                error.get_or_insert(e);
            }
        },
    );
    if let Some(e) = error {
        return Err(e);
    }
    // Files list functions in contract order whatever order the derivation produced.
    plans.sort_by_key(|p| p.kind);
    Ok((lowered, plans))
}

fn shape_list(shapes: impl Iterator<Item = (usize, usize)>) -> String {
    let v: Vec<String> = shapes.map(|(r, c)| format!("{r}x{c}")).collect();
    format!("[{}]", v.join(", "))
}

fn plan_function(
    g: &Graph,
    dof: usize,
    counts: Counts,
    motion: BaseMotion,
    f: &Function,
) -> Result<Plan, EmitError> {
    let contract = contract(f.kind);
    let floating = motion == BaseMotion::Floating;
    let inputs: Vec<Input> = match motion {
        BaseMotion::Floating => contract.inputs.iter().map(|i| i.floating()).collect(),
        BaseMotion::Prescribed | BaseMotion::Translating => {
            Input::prescribed(f.kind, contract.inputs)
        }
        BaseMotion::Fixed => contract.inputs.to_vec(),
    };
    // Joint-space outputs span the base's six coordinates too.
    let out_n = if floating { dof + 6 } else { dof };
    let expected: Vec<(usize, usize)> = contract
        .outputs
        .iter()
        .map(|o| {
            (
                o.rows.of(out_n, counts),
                o.cols.map_or(1, |c| c.of(out_n, counts)),
            )
        })
        .collect();
    let found: Vec<(usize, usize)> = f.outputs.iter().map(|o| (o.rows, o.cols)).collect();
    let sizes_ok = f.outputs.iter().all(|o| o.values.len() == o.rows * o.cols);
    if expected != found || !sizes_ok {
        return Err(EmitError::OutputShape {
            kind: f.kind,
            expected: shape_list(expected.into_iter()),
            found: shape_list(found.into_iter()),
        });
    }
    let roots: Vec<NodeId> = f
        .outputs
        .iter()
        .flat_map(|o| o.values.iter().copied())
        .collect();
    let live = g.reachable(&roots);

    // Uses per node. A sum reads a negated operand through its `Neg` (a subtraction); a `Neg`
    // that something else reads is computed once, so it reads its operand once.
    let mut uses = vec![0u32; g.len()];
    for r in &roots {
        uses[r.index()] += 1;
    }
    let mut used_inputs = vec![false; inputs.len()];
    let mut uses_params = false;
    let mut calls = [false; 3];
    for (i, node) in g.nodes().iter().enumerate() {
        if !live[i] {
            continue;
        }
        match node {
            Node::Add(v) => {
                for &c in v.iter() {
                    match g.node(c) {
                        Node::Neg(x) => uses[x.index()] += 1,
                        _ => uses[c.index()] += 1,
                    }
                }
            }
            Node::Var(var) => {
                check_var(
                    f.kind,
                    &inputs,
                    motion,
                    dof,
                    counts,
                    *var,
                    &mut used_inputs,
                    &mut uses_params,
                )?;
                match var {
                    Var::Sin(_) => calls[0] = true,
                    Var::Cos(_) => calls[1] = true,
                    _ => {}
                }
            }
            Node::Const(bits) => {
                let value = f64::from_bits(*bits);
                if !value.is_finite() {
                    return Err(EmitError::NonFinite {
                        kind: f.kind,
                        value,
                    });
                }
            }
            Node::Neg(_) => {}
            n => {
                if matches!(n, Node::Sqrt(_)) {
                    calls[2] = true;
                }
                for c in n.children() {
                    uses[c.index()] += 1;
                }
            }
        }
    }
    for (i, node) in g.nodes().iter().enumerate() {
        if let Node::Neg(x) = node {
            if live[i] && uses[i] > 0 {
                uses[x.index()] += 1;
            }
        }
    }

    let mut b = Builder {
        motion,
        g,
        local: vec![None; g.len()],
        ready: ready_times(g),
    };
    let mut depth = vec![0u32; g.len()];
    let mut locals = Vec::new();
    for (i, node) in g.nodes().iter().enumerate() {
        if !live[i] || uses[i] == 0 {
            continue;
        }
        let d = match node {
            Node::Const(_) => 0,
            Node::Var(v) if !v.is_trig() => 0,
            // Read through by its users (subtraction or inline negation).
            Node::Neg(x) if uses[i] == 1 => depth[x.index()] + 1,
            n => 1 + n.children().map(|c| depth[c.index()]).max().unwrap_or(0),
        };
        let trig = matches!(node, Node::Var(v) if v.is_trig());
        let leaf = matches!(node, Node::Const(_)) || (matches!(node, Node::Var(_)) && !trig);
        if !leaf && (trig || uses[i] > 1 || d > MAX_INLINE_DEPTH) {
            let id = NodeId(i as u32);
            let e = b.build(id);
            let name = local_name(node, id);
            b.local[i] = Some(name.clone());
            locals.push((name, e));
            depth[i] = 0;
        } else {
            depth[i] = d;
        }
    }
    let outputs = f
        .outputs
        .iter()
        .map(|o| o.values.iter().map(|&v| b.ex(v)).collect())
        .collect();
    Ok(Plan {
        inputs,
        dof,
        out_n,
        kind: f.kind,
        name: contract.name.to_owned(),
        contract,
        used_inputs,
        uses_params,
        locals,
        outputs,
        calls,
        counts,
    })
}

// The leaf, the function's contract and the module's sizes, each checked against the others.
#[allow(clippy::too_many_arguments)]
fn check_var(
    kind: FunctionKind,
    inputs: &[Input],
    motion: BaseMotion,
    dof: usize,
    counts: Counts,
    var: Var,
    used_inputs: &mut [bool],
    uses_params: &mut bool,
) -> Result<(), EmitError> {
    let (input, j) = match var {
        Var::Elastic(e) => {
            let (input, k, len) = elastic_input(e, counts);
            if k >= len {
                return Err(EmitError::ElasticOutOfRange {
                    kind,
                    var,
                    nbeta: counts.nbeta,
                    nw: counts.nw,
                });
            }
            return match inputs.iter().position(|i| *i == input) {
                Some(p) => {
                    used_inputs[p] = true;
                    Ok(())
                }
                None => Err(EmitError::UnexpectedInput { kind, var }),
            };
        }
        Var::Param(_) => {
            *uses_params = true;
            return Ok(());
        }
        Var::Q(j) => (Input::Q, usize::from(j)),
        Var::Qd(j) => (Input::Qd, usize::from(j)),
        Var::Qdd(j) => (Input::Qdd, usize::from(j)),
        Var::Tau(j) => (Input::Tau, usize::from(j)),
        Var::Sin(m) | Var::Cos(m) => (Input::Q, 63 - m.leading_zeros() as usize),
        Var::Base(b) => {
            // Only a moving base's functions take base inputs: a floating base's as the
            // leading entries of q, v, a, tau, a prescribed base's as arrays of their own.
            let Some(input) = base_input(motion, b) else {
                return Err(EmitError::UnexpectedInput { kind, var });
            };
            return match inputs.iter().position(|i| *i == input) {
                Some(k) => {
                    used_inputs[k] = true;
                    Ok(())
                }
                _ => Err(EmitError::UnexpectedInput { kind, var }),
            };
        }
    };
    if j >= dof {
        return Err(EmitError::JointOutOfRange { kind, var, dof });
    }
    // In a floating layout joint rates and accelerations are entries of `v` and `a`.
    let floating = motion == BaseMotion::Floating;
    let input = if floating { input.floating() } else { input };
    match inputs.iter().position(|i| *i == input) {
        Some(k) => {
            used_inputs[k] = true;
            Ok(())
        }
        None => Err(EmitError::UnexpectedInput { kind, var }),
    }
}

fn local_name(node: &Node, id: NodeId) -> String {
    let joints = |m: u64| -> String {
        let v: Vec<String> = (0..64)
            .filter(|j| m & (1u64 << j) != 0)
            .map(|j| (j + 1).to_string())
            .collect();
        v.join("_")
    };
    match node {
        Node::Var(Var::Sin(m)) => format!("s{}", joints(*m)),
        Node::Var(Var::Cos(m)) => format!("c{}", joints(*m)),
        _ => format!("x{}", id.0),
    }
}

/// The input array holding an elastic variable, its index there and the array's length.
fn elastic_input(e: ElasticVar, counts: Counts) -> (Input, usize, usize) {
    match e {
        ElasticVar::Beta(k) => (Input::Beta, k.into(), counts.nbeta),
        ElasticVar::BetaD(k) => (Input::BetaD, k.into(), counts.nbeta),
        ElasticVar::BetaDd(k) => (Input::BetaDd, k.into(), counts.nbeta),
        ElasticVar::W(k) => (Input::W, k.into(), counts.nw),
        ElasticVar::WD(k) => (Input::WD, k.into(), counts.nw),
        ElasticVar::WDd(k) => (Input::WDd, k.into(), counts.nw),
        ElasticVar::Theta(k) => (Input::Theta, k.into(), counts.nbeta),
        ElasticVar::ThetaD(k) => (Input::ThetaD, k.into(), counts.nbeta),
        ElasticVar::Qddd(k) => (Input::Qddd, k.into(), counts.dof),
        ElasticVar::Qdddd(k) => (Input::Qdddd, k.into(), counts.dof),
    }
}

/// The input array holding a base variable, for a base that moves as `motion`.
fn base_input(motion: BaseMotion, b: BaseVar) -> Option<Input> {
    match (motion, b) {
        (BaseMotion::Floating, BaseVar::Pose(_)) => Some(Input::Q),
        (BaseMotion::Floating, BaseVar::Vel(_)) => Some(Input::V),
        (BaseMotion::Floating, BaseVar::Acc(_)) => Some(Input::A),
        (BaseMotion::Floating, BaseVar::Wrench(_)) => Some(Input::Tau),
        (BaseMotion::Prescribed | BaseMotion::Translating, BaseVar::Pose(_)) => {
            Some(Input::BasePose)
        }
        (BaseMotion::Prescribed | BaseMotion::Translating, BaseVar::Vel(_)) => Some(Input::BaseVel),
        (BaseMotion::Prescribed | BaseMotion::Translating, BaseVar::Acc(_)) => Some(Input::BaseAcc),
        _ => None,
    }
}

struct Builder<'a> {
    /// How the base moves: a floating layout has the joints after the base's entries and
    /// rates in `v` and `a`; a prescribed base has arrays of its own.
    motion: BaseMotion,
    g: &'a Graph,
    local: Vec<Option<String>>,
    /// Estimated cycle at which each node's value is ready ([`ready_times`]): the terms of a
    /// sum and the factors of a product are written earliest first.
    ready: Vec<u32>,
}

impl Builder<'_> {
    /// Joint `j`'s entry of `input` in this layout.
    fn input(&self, input: Input, j: usize) -> Ex {
        let floating = self.motion == BaseMotion::Floating;
        let input = if floating { input.floating() } else { input };
        Ex::Input(input, input.joint_slot(j, floating))
    }

    /// The angle of a trig leaf: `q[j]`, or a sum of joint positions for an unlowered mask.
    fn angle(&self, m: u64) -> Ex {
        let terms: Vec<(bool, Ex)> = (0..64usize)
            .filter(|j| m & (1u64 << j) != 0)
            .map(|j| (false, self.input(Input::Q, j)))
            .collect();
        if terms.len() == 1 {
            terms
                .into_iter()
                .next()
                .map(|t| t.1)
                .unwrap_or(Ex::Lit(0.0))
        } else {
            Ex::Sum(terms)
        }
    }

    /// A reference to `id`: its local, or its inlined expression.
    fn ex(&self, id: NodeId) -> Ex {
        match &self.local[id.index()] {
            Some(name) => Ex::Local(name.clone()),
            None => self.build(id),
        }
    }

    /// The defining expression of `id`.
    fn build(&self, id: NodeId) -> Ex {
        match self.g.node(id) {
            Node::Const(bits) => Ex::Lit(f64::from_bits(*bits)),
            Node::Var(v) => match *v {
                Var::Q(j) => self.input(Input::Q, j.into()),
                Var::Qd(j) => self.input(Input::Qd, j.into()),
                Var::Qdd(j) => self.input(Input::Qdd, j.into()),
                Var::Tau(j) => self.input(Input::Tau, j.into()),
                Var::Base(b) => {
                    let slot = match b {
                        BaseVar::Pose(k) | BaseVar::Vel(k) | BaseVar::Acc(k) => k,
                        BaseVar::Wrench(k) => k,
                    };
                    // Checked by `check_var` before any expression is built.
                    let input = base_input(self.motion, b).unwrap_or(Input::Q);
                    Ex::Input(input, slot.into())
                }
                Var::Param(k) => Ex::Param(k as usize),
                Var::Elastic(e) => {
                    let (input, k, _) = elastic_input(e, Counts::default());
                    Ex::Input(input, k)
                }
                Var::Sin(m) => Ex::Call(Func::Sin, Box::new(self.angle(m))),
                Var::Cos(m) => Ex::Call(Func::Cos, Box::new(self.angle(m))),
            },
            Node::Add(v) => self.sum(v),
            Node::Mul(v) => Ex::Prod(self.by_ready(v).into_iter().map(|c| self.ex(c)).collect()),
            Node::Neg(x) => Ex::Neg(Box::new(self.ex(*x))),
            Node::Div(a, b) => Ex::Div(Box::new(self.ex(*a)), Box::new(self.ex(*b))),
            Node::Sqrt(x) => Ex::Call(Func::Sqrt, Box::new(self.ex(*x))),
        }
    }

    /// A sum with its signs written as subtractions; positive terms first, so a leading minus
    /// is only written when every term is negative.
    fn sum(&self, v: &[NodeId]) -> Ex {
        // (operands ready, kind: 0 positive, 1 negative literal, 2 negated; term)
        let mut terms: Vec<(u32, u8, Ex)> = Vec::with_capacity(v.len());
        for &c in v {
            let has_local = self.local[c.index()].is_some();
            let at = self.operands_ready(c);
            match self.g.node(c) {
                Node::Neg(x) => terms.push((at, 2, self.ex(*x))),
                Node::Const(bits) if f64::from_bits(*bits) < 0.0 => {
                    terms.push((at, 1, Ex::Lit(-f64::from_bits(*bits))));
                }
                Node::Mul(f) if !has_local && self.g.as_const(f[0]).is_some_and(|k| k < 0.0) => {
                    let k = -self.g.as_const(f[0]).unwrap_or(-1.0);
                    let mut fs = vec![Ex::Lit(k)];
                    fs.extend(self.by_ready(&f[1..]).into_iter().map(|x| self.ex(x)));
                    terms.push((at, 1, Ex::Prod(fs)));
                }
                _ => terms.push((at, 0, self.ex(c))),
            }
        }
        // Earliest first: the sum is one chain of additions (or fused multiply-adds), so the
        // terms that are ready first are added while the later ones are still computed.
        terms.sort_by_key(|t| t.0);
        // A positive term leads where there is one, so that no negation is written.
        if let Some(p) = terms.iter().position(|t| t.1 == 0) {
            let t = terms.remove(p);
            terms.insert(0, t);
        } else if let Some(p) = terms.iter().position(|t| t.1 == 1) {
            // The negative literal leads, carrying its sign.
            let (at, _, e) = terms.remove(p);
            terms.insert(0, (at, 0, negate_literal(e)));
        }
        Ex::Sum(
            terms
                .into_iter()
                .map(|(_, kind, e)| (kind != 0, e))
                .collect(),
        )
    }

    /// Factors in the order they are multiplied: constants first, then earliest ready.
    fn by_ready(&self, v: &[NodeId]) -> Vec<NodeId> {
        let mut v = v.to_vec();
        v.sort_by_key(|&c| (self.g.as_const(c).is_none(), self.ready[c.index()]));
        v
    }

    /// When a sum's term can enter the sum ([`term_operands_ready`]).
    fn operands_ready(&self, c: NodeId) -> u32 {
        term_operands_ready(self.g, &self.ready, c)
    }
}

/// Cycles from an operation's operands to its result, roughly as x86-64 cores take them; only
/// the order of terms depends on them.
const LATENCY_ARITHMETIC: u32 = 4;
const LATENCY_DIVIDE: u32 = 14;
/// The sines and cosines come out of one block, all at about the same time.
const LATENCY_TRIG: u32 = 40;

/// Estimated cycle at which each node of `g` is ready, its operands taken earliest first and
/// a sum's products fused into its chain of additions.
fn ready_times(g: &Graph) -> Vec<u32> {
    let mut ready = vec![0u32; g.len()];
    for (i, node) in g.nodes().iter().enumerate() {
        ready[i] = match node {
            Node::Const(_) => 0,
            Node::Var(v) if v.is_trig() => LATENCY_TRIG,
            Node::Var(_) => 0,
            Node::Neg(x) => ready[x.index()],
            Node::Mul(f) => product_operands_ready(&ready, f) + LATENCY_ARITHMETIC,
            Node::Add(v) => chain_ready(
                v.iter()
                    .map(|&c| term_operands_ready(g, &ready, c))
                    .collect(),
            ),
            Node::Div(a, b) => ready[a.index()].max(ready[b.index()]) + LATENCY_DIVIDE,
            Node::Sqrt(x) => ready[x.index()] + LATENCY_DIVIDE,
        };
    }
    ready
}

/// When a sum's term can enter the sum: a product's last multiplication is fused into the
/// addition, so its operands' time, otherwise the term's own.
fn term_operands_ready(g: &Graph, ready: &[u32], c: NodeId) -> u32 {
    match g.node(c) {
        Node::Mul(f) => product_operands_ready(ready, f),
        Node::Neg(x) => term_operands_ready(g, ready, *x),
        _ => ready[c.index()],
    }
}

/// When the last multiplication of a product can start: its factors multiplied earliest
/// first, all but the last.
fn product_operands_ready(ready: &[u32], factors: &[NodeId]) -> u32 {
    let mut at: Vec<u32> = factors.iter().map(|f| ready[f.index()]).collect();
    let Some(last) = at.iter().copied().max() else {
        return 0;
    };
    at.sort_unstable();
    at.pop();
    chain_ready(at).max(last)
}

/// When a chain of operations over operands ready at `at` ends, the operands taken earliest
/// first (0 for none).
fn chain_ready(mut at: Vec<u32>) -> u32 {
    at.sort_unstable();
    let mut acc = at.first().copied().unwrap_or(0);
    for &t in at.iter().skip(1) {
        acc = acc.max(t) + LATENCY_ARITHMETIC;
    }
    acc
}

/// `k` → `-k`, `k * m` → `-k * m` for a literal `k`.
fn negate_literal(e: Ex) -> Ex {
    match e {
        Ex::Lit(k) => Ex::Lit(-k),
        Ex::Prod(mut fs) => {
            if let Some(Ex::Lit(k)) = fs.first_mut() {
                *k = -*k;
            }
            Ex::Prod(fs)
        }
        e => Ex::Neg(Box::new(e)),
    }
}

/// Binding strength of an expression, for parenthesisation.
pub(crate) fn prec(e: &Ex) -> u8 {
    match e {
        Ex::Sum(t) if t.len() == 1 && !t[0].0 => prec(&t[0].1),
        Ex::Sum(_) => 1,
        Ex::Prod(_) | Ex::Div(_, _) => 2,
        Ex::Neg(_) => 3,
        Ex::Lit(v) if *v < 0.0 => 3,
        _ => 4,
    }
}

/// Formats a constant so that it reads back to the same value (shortest round-trip form,
/// always with a `.` or an exponent so it is a floating literal).
pub(crate) fn float_literal(v: f64, single: bool) -> String {
    let s = if single {
        format!("{:?}", v as f32)
    } else {
        format!("{v:?}")
    };
    if s.contains(['.', 'e', 'E']) {
        s
    } else {
        format!("{s}.0")
    }
}

/// Human-readable layout of an output, e.g. `M[i*2 + j]`.
pub(crate) fn layout(o: &OutSpec, dof: usize, counts: Counts) -> String {
    let rows = o.rows.of(dof, counts);
    match o.cols {
        None => format!("{rows} values"),
        Some(c) => {
            let c = c.of(dof, counts);
            format!(
                "{rows}x{c}, row-major: {}[i*{c} + j] is row i, column j",
                o.name
            )
        }
    }
}

/// The header line shared by both emitters.
pub(crate) fn generated_by(module: &Module) -> String {
    format!(
        "@generated by quasidyn-codegen {} from spec {}. Do not edit.",
        env!("CARGO_PKG_VERSION"),
        module.spec_hash
    )
}

/// The functions of a module in contract order, for callers that want to check what exists.
pub fn kinds(module: &Module) -> Vec<FunctionKind> {
    let mut k: Vec<FunctionKind> = module.functions.iter().map(|f| f.kind).collect();
    k.sort();
    k
}

/// What a target language must provide to write an [`Ex`].
pub(crate) trait Lang {
    type Out;
    /// A non-negative constant.
    fn lit(&self, v: f64) -> Self::Out;
    fn input(&self, i: Input, j: usize) -> Self::Out;
    fn param(&self, k: usize) -> Self::Out;
    fn local(&self, name: &str) -> Self::Out;
    fn call(&self, f: Func, arg: Self::Out) -> Self::Out;
    fn neg(&self, x: Self::Out) -> Self::Out;
    /// `a op b` for `op` in `+ - * /`.
    fn bin(&self, a: Self::Out, op: char, b: Self::Out) -> Self::Out;
    fn paren(&self, x: Self::Out) -> Self::Out;
    /// `c + a b`, `c - a b` or `a b - c` (by `kind`), with one rounding where the target has
    /// the instruction: how sums of products are written ([`render_fused`]).
    fn fma(&self, a: Self::Out, b: Self::Out, c: Self::Out, kind: Fused) -> Self::Out;
}

/// Writes `e`, parenthesised when it binds less tightly than `min`.
fn render_at<L: Lang>(l: &L, e: &Ex, min: u8) -> L::Out {
    let out = render(l, e);
    if prec(e) < min && !fused_call(e) {
        l.paren(out)
    } else {
        out
    }
}

/// Writes an expression with the fewest parentheses that keep its grouping (products are
/// written flat; a subtracted or divided-by sum or product keeps its parentheses).
pub(crate) fn render<L: Lang>(l: &L, e: &Ex) -> L::Out {
    match e {
        Ex::Lit(v) if *v < 0.0 => l.neg(l.lit(-v)),
        Ex::Lit(v) => l.lit(*v),
        Ex::Input(i, j) => l.input(*i, *j),
        Ex::Param(k) => l.param(*k),
        Ex::Local(name) => l.local(name),
        Ex::Call(f, a) => l.call(*f, render(l, a)),
        // `-(a * b)` is written `-a * b`: the same value, as negation is exact.
        Ex::Neg(x) if prec(x) == 2 && !starts_negative(x) => l.neg(render(l, x)),
        Ex::Neg(x) => l.neg(render_at(l, x, 4)),
        Ex::Sum(terms) if fused(terms) => render_fused(l, terms),
        Ex::Sum(terms) => {
            let mut it = terms.iter();
            let Some((neg, first)) = it.next() else {
                return l.lit(0.0);
            };
            let mut acc = if *neg {
                l.neg(render_at(
                    l,
                    first,
                    if starts_negative(first) { 4 } else { 2 },
                ))
            } else {
                render_at(l, first, 1)
            };
            for (neg, t) in it {
                let min = if starts_negative(t) { 4 } else { 2 };
                acc = l.bin(acc, if *neg { '-' } else { '+' }, render_at(l, t, min));
            }
            acc
        }
        Ex::Prod(fs) => {
            let mut flat = Vec::with_capacity(fs.len());
            flatten_prod(fs, &mut flat);
            let mut it = flat.into_iter();
            let Some(first) = it.next() else {
                return l.lit(1.0);
            };
            let mut acc = render_at(l, first, 2);
            for f in it {
                acc = l.bin(acc, '*', render_at(l, f, 4));
            }
            acc
        }
        Ex::Div(a, b) => l.bin(render_at(l, a, 2), '/', render_at(l, b, 4)),
    }
}

/// Whether a sum is written with fused multiply-adds: two terms or more, one of them a
/// product.
fn fused(terms: &[(bool, Ex)]) -> bool {
    terms.len() > 1 && terms.iter().any(|(_, t)| product(t))
}

/// The terms of a fused sum in the order [`render_fused`] writes them: as written, except
/// that a leading product followed by an added term that is not a product is swapped with
/// it, so that it fuses too (not with a subtracted one: that would cost a negation in front).
fn fused_order(terms: &[(bool, Ex)]) -> Vec<&(bool, Ex)> {
    let mut order: Vec<&(bool, Ex)> = terms.iter().collect();
    if order.len() > 1 && product(&order[0].1) && !order[1].0 && !product(&order[1].1) {
        order.swap(0, 1);
    }
    order
}

/// Whether a fused sum in [`fused_order`] starts with a product from which a term that is not
/// a product is subtracted: `a b - c`, written as one fused multiply-subtract (gcc contracts
/// it too outside strict ISO modes; Rust and strict C would otherwise round twice and take
/// two instructions).
fn starts_with_difference(order: &[&(bool, Ex)]) -> bool {
    match order {
        [(false, first), (true, second), ..] => product(first) && !product(second),
        _ => false,
    }
}

/// Whether `e` is written as one fused multiply-add call, which binds like a function call
/// rather than a sum: a fused sum whose last term in [`fused_order`] is a product, or that is
/// one product less another term.
fn fused_call(e: &Ex) -> bool {
    match e {
        Ex::Sum(terms) if fused(terms) => {
            let order = fused_order(terms);
            order.last().is_some_and(|(_, t)| product(t))
                || (order.len() == 2 && starts_with_difference(&order))
        }
        _ => false,
    }
}

/// The three fused forms [`render_fused`] writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fused {
    /// `c + a b`: `fma(a, b, c)`.
    Add,
    /// `c - a b`: `fnma(a, b, c)`.
    Subtract,
    /// `a b - c`: `fms(a, b, c)`.
    Difference,
}

/// Which of `fma`, `fnma` and `fms` (`found[0..3]`, in [`Fused`]'s order) [`render_fused`]
/// writes for `e`: every product of a fused sum after its first term, and a leading
/// difference.
pub(crate) fn fused_calls(e: &Ex, found: &mut [bool; 3]) {
    match e {
        Ex::Sum(terms) => {
            if fused(terms) {
                let order = fused_order(terms);
                let skip = if starts_with_difference(&order) {
                    found[Fused::Difference as usize] = true;
                    2
                } else {
                    1
                };
                for (neg, t) in order.into_iter().skip(skip) {
                    if product(t) {
                        found[usize::from(*neg)] = true;
                    }
                }
            }
            terms.iter().for_each(|(_, t)| fused_calls(t, found));
        }
        Ex::Prod(fs) => fs.iter().for_each(|f| fused_calls(f, found)),
        Ex::Call(_, x) | Ex::Neg(x) => fused_calls(x, found),
        Ex::Div(a, b) => {
            fused_calls(a, found);
            fused_calls(b, found);
        }
        Ex::Lit(_) | Ex::Input(..) | Ex::Param(_) | Ex::Local(_) => {}
    }
}

/// A product of two factors or more as its last factor and the product of the others (the
/// operands of a fused multiply-add).
fn split_product(t: &Ex) -> (Ex, &Ex) {
    let mut flat = Vec::new();
    if let Ex::Prod(fs) = t {
        flatten_prod(fs, &mut flat);
    }
    let last = flat.pop().unwrap_or(t);
    let head = match flat.as_slice() {
        [one] => (*one).clone(),
        many => Ex::Prod(many.iter().map(|&f| f.clone()).collect()),
    };
    (head, last)
}

/// Whether a term is a product of two factors or more (a multiplication to fuse).
fn product(e: &Ex) -> bool {
    match e {
        Ex::Prod(fs) => {
            let mut flat = Vec::new();
            flatten_prod(fs, &mut flat);
            flat.len() > 1
        }
        _ => false,
    }
}

/// A sum with its products fused into the terms before them, in the order the sum is
/// written: `t₁ + t₂ - t₃` becomes `fnma(t₃, fma(t₂, t₁))` for products `t₂`, `t₃` (each
/// `f₁ ⋯ fₖ` as `fma(f₁ ⋯ fₖ₋₁, fₖ, acc)`, a subtracted one as `fnma`, `acc - f₁ ⋯ fₖ`), the
/// other terms added as written, in [`fused_order`]; a sum that starts `t₁ - c` with `t₁` a
/// product and `c` not one starts from `fms(f₁ ⋯ fₖ₋₁, fₖ, c)`, `t₁ - c` in one rounding. The association and the signs are the written sum's, so where
/// the target has no fused multiply-add the code computes what the plain sum does, in the
/// same order and with the same constants (a subtracted `0.5 x` rather than an added
/// `-0.5 x`: with gcc's register allocation the negated constants made the Panda's
/// inverse-dynamics derivatives 11% slower, baseline target).
fn render_fused<L: Lang>(l: &L, terms: &[(bool, Ex)]) -> L::Out {
    let order = fused_order(terms);
    let difference = starts_with_difference(&order);
    let mut it = order.into_iter();
    let Some(first) = it.next() else {
        return l.lit(0.0);
    };
    let mut acc = if difference {
        let (head, last) = split_product(&first.1);
        let second = it.next().map_or_else(|| l.lit(0.0), |(_, t)| render(l, t));
        l.fma(render(l, &head), render(l, last), second, Fused::Difference)
    } else {
        render(l, &Ex::Sum(vec![first.clone()]))
    };
    for (neg, t) in it {
        acc = match t {
            Ex::Prod(_) if product(t) => {
                let (head, last) = split_product(t);
                let kind = if *neg { Fused::Subtract } else { Fused::Add };
                l.fma(render(l, &head), render(l, last), acc, kind)
            }
            t => {
                let min = if starts_negative(t) { 4 } else { 2 };
                l.bin(acc, if *neg { '-' } else { '+' }, render_at(l, t, min))
            }
        };
    }
    acc
}

/// Whether `e` is written starting with a minus sign (so a negation in front of it needs
/// parentheses: `--` would be a decrement in C).
fn starts_negative(e: &Ex) -> bool {
    match e {
        Ex::Lit(v) => *v < 0.0,
        Ex::Neg(_) => true,
        Ex::Prod(fs) => fs.first().is_some_and(starts_negative),
        Ex::Div(a, _) => starts_negative(a),
        Ex::Sum(t) => t.first().is_some_and(|(neg, e)| *neg || starts_negative(e)),
        _ => false,
    }
}

fn flatten_prod<'a>(fs: &'a [Ex], out: &mut Vec<&'a Ex>) {
    for f in fs {
        match f {
            Ex::Prod(inner) => flatten_prod(inner, out),
            f => out.push(f),
        }
    }
}

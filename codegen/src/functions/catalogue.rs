//! The catalogue's entries: one per generated function, in file order.

use super::{Dim, Entry, Exists, FunctionKind, Group, Input, MovingBase, OutSpec};

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

const JOINT_FORCES: &str = "joint forces/torques (N or N m)";

/// Every generated function, in file order. One entry per [`FunctionKind`] variant.
pub const CATALOGUE: &[Entry] = {
    use Input::*;
    &[
        Entry {
            kind: FunctionKind::InverseDynamics,
            name: "inverse_dynamics",
            group: Group::Dynamics,
            inputs: &[Q, Qd, Qdd],
            moving_base: MovingBase::Motion,
            outputs: &[vec_n!("tau", JOINT_FORCES)],
            doc: "Inverse dynamics: `tau = M(q) qdd + C(q, qd) qd + g(q)`.",
            batched: true,
            exists: Exists::Always,
        },
        Entry {
            kind: FunctionKind::Gravity,
            name: "gravity",
            group: Group::Dynamics,
            inputs: &[Q],
            moving_base: MovingBase::Pose,
            outputs: &[vec_n!("tau", JOINT_FORCES)],
            doc: "Gravity joint forces `g(q)`.",
            batched: true,
            exists: Exists::Always,
        },
        Entry {
            kind: FunctionKind::NonlinearEffects,
            name: "nonlinear_effects",
            group: Group::Dynamics,
            inputs: &[Q, Qd],
            moving_base: MovingBase::Motion,
            outputs: &[vec_n!("h", JOINT_FORCES)],
            doc: "Nonlinear effects `h = C(q, qd) qd + g(q)`.",
            batched: true,
            exists: Exists::Always,
        },
        Entry {
            kind: FunctionKind::MassMatrix,
            name: "mass_matrix",
            group: Group::Dynamics,
            inputs: &[Q],
            moving_base: MovingBase::None,
            outputs: &[OutSpec {
                name: "M",
                rows: Dim::N,
                cols: Some(Dim::N),
                doc: "joint-space mass matrix (kg, kg m or kg m^2), full and symmetric",
            }],
            doc: "Joint-space mass matrix `M(q)`.",
            batched: true,
            exists: Exists::Always,
        },
        Entry {
            kind: FunctionKind::ForwardDynamics,
            name: "forward_dynamics",
            group: Group::Dynamics,
            inputs: &[Q, Qd, Tau],
            moving_base: MovingBase::Motion,
            outputs: &[vec_n!("qdd", "joint accelerations (rad/s^2 or m/s^2)")],
            doc: "Forward dynamics: `qdd` solving `M(q) qdd = tau - C(q, qd) qd - g(q)`.",
            batched: true,
            exists: Exists::Always,
        },
        Entry {
            kind: FunctionKind::ForwardKinematics,
            name: "forward_kinematics",
            group: Group::Dynamics,
            inputs: &[Q],
            moving_base: MovingBase::None,
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
            batched: true,
            exists: Exists::Chain,
        },
        Entry {
            kind: FunctionKind::Jacobian,
            name: "jacobian",
            group: Group::Dynamics,
            inputs: &[Q],
            moving_base: MovingBase::None,
            outputs: &[OutSpec {
                name: "J",
                rows: Dim::Fixed(6),
                cols: Some(Dim::N),
                doc: "tool Jacobian, base frame: rows 0-2 linear velocity of the tool point, \
                      rows 3-5 angular velocity",
            }],
            doc: "Tool Jacobian.",
            batched: true,
            exists: Exists::Chain,
        },
        Entry {
            kind: FunctionKind::Centrifugal,
            name: "centrifugal",
            group: Group::Dynamics,
            inputs: &[Q, Qd],
            moving_base: MovingBase::None,
            outputs: &[vec_n!("hc", JOINT_FORCES)],
            doc: "Centrifugal part `h_c` of the velocity forces.",
            batched: true,
            exists: Exists::FixedBase,
        },
        Entry {
            kind: FunctionKind::Coriolis,
            name: "coriolis",
            group: Group::Dynamics,
            inputs: &[Q, Qd],
            moving_base: MovingBase::None,
            outputs: &[vec_n!("ho", JOINT_FORCES)],
            doc: "Coriolis part `h_o` of the velocity forces.",
            batched: true,
            exists: Exists::FixedBase,
        },
        Entry {
            kind: FunctionKind::Gyroscopic,
            name: "gyroscopic",
            group: Group::Dynamics,
            inputs: &[Q, Qd],
            moving_base: MovingBase::None,
            outputs: &[vec_n!("hg", JOINT_FORCES)],
            doc: "Gyroscopic part `h_g` of the velocity forces (`h_g . qd = 0`).",
            batched: true,
            exists: Exists::FixedBase,
        },
        Entry {
            kind: FunctionKind::StaticJointReactions,
            name: "static_joint_reactions",
            group: Group::Dynamics,
            inputs: &[Q],
            moving_base: MovingBase::Pose,
            outputs: &[
                OutSpec {
                    name: "F",
                    rows: Dim::Joints,
                    cols: Some(Dim::Fixed(3)),
                    doc: "force (N) on body i from its carrier, in body i's axes, row i",
                },
                OutSpec {
                    name: "T",
                    rows: Dim::Joints,
                    cols: Some(Dim::Fixed(3)),
                    doc: "moment (N m) about pole `O_i` on body i from its carrier, in body i's \
                          axes, row i",
                },
            ],
            doc: "Static joint reactions at rest (gravity only).",
            batched: true,
            exists: Exists::NotFloatingStandardParameters,
        },
        Entry {
            kind: FunctionKind::InverseDynamicsDerivatives,
            name: "inverse_dynamics_derivatives",
            group: Group::Derivatives,
            inputs: &[Q, Qd, Qdd],
            moving_base: MovingBase::Motion,
            outputs: &[
                mat_nn!("dtau_dq", "d tau_i / d q_j (row i, column j)"),
                mat_nn!(
                    "dtau_dqd",
                    "d tau_i / d qd_j (row i, column j); linear in qd"
                ),
            ],
            doc: "Derivatives of the inverse dynamics with respect to `q` and `qd` (that with \
                  respect to `qdd` is the mass matrix).",
            batched: true,
            exists: Exists::Always,
        },
        Entry {
            kind: FunctionKind::GravityDerivatives,
            name: "gravity_derivatives",
            group: Group::Derivatives,
            inputs: &[Q],
            moving_base: MovingBase::Pose,
            outputs: &[mat_nn!("dg_dq", "d g_i / d q_j (row i, column j)")],
            doc: "Derivative of the gravity forces with respect to `q` (the static stiffness).",
            batched: true,
            exists: Exists::Always,
        },
        Entry {
            kind: FunctionKind::ForwardDynamicsDerivatives,
            name: "forward_dynamics_derivatives",
            group: Group::Derivatives,
            inputs: &[Q, Qd, Tau],
            moving_base: MovingBase::Motion,
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
            batched: true,
            exists: Exists::Always,
        },
        Entry {
            kind: FunctionKind::Regressor,
            name: "regressor",
            group: Group::Identification,
            inputs: &[Q, Qd, Qdd],
            moving_base: MovingBase::Motion,
            outputs: &[OutSpec {
                name: "Y",
                rows: Dim::N,
                cols: Some(Dim::PerBody(10)),
                doc: "inertial-parameter regressor, tau = Y pi: column 10 b + p is d tau / d \
                      pi_p of body b (p in m, mx, my, mz, ixx, ixy, ixz, iyy, iyz, izz)",
            }],
            doc: "Inertial-parameter regressor: `tau = Y(q, qd, qdd) pi` with `pi` the standard \
                  parameters (`standard_parameters`).",
            batched: true,
            exists: Exists::NoArmature,
        },
        Entry {
            kind: FunctionKind::BaseRegressor,
            name: "base_regressor",
            group: Group::Identification,
            inputs: &[Q, Qd, Qdd],
            moving_base: MovingBase::Motion,
            outputs: &[OutSpec {
                name: "Yb",
                rows: Dim::N,
                cols: Some(Dim::Base),
                doc: "base-parameter regressor, tau = Yb pi_b (NB columns, one per base \
                      parameter)",
            }],
            doc: "Base-parameter regressor: `tau = Yb(q, qd, qdd) pi_b` with `pi_b` the base \
                  parameters (`base_parameters`), a minimal set.",
            batched: true,
            exists: Exists::NoArmature,
        },
        Entry {
            kind: FunctionKind::FrameKinematics(0),
            name: "forward_kinematics",
            group: Group::Frames,
            inputs: &[Q],
            moving_base: MovingBase::None,
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
            batched: true,
            exists: Exists::EachFrame,
        },
        Entry {
            kind: FunctionKind::FrameJacobian(0),
            name: "jacobian",
            group: Group::Frames,
            inputs: &[Q],
            moving_base: MovingBase::None,
            outputs: &[OutSpec {
                name: "J",
                rows: Dim::Fixed(6),
                cols: Some(Dim::N),
                doc: "frame Jacobian, base frame: rows 0-2 linear velocity of the frame origin, \
                      rows 3-5 angular velocity",
            }],
            doc: "Jacobian of a named frame.",
            batched: true,
            exists: Exists::EachFrame,
        },
        Entry {
            kind: FunctionKind::ElasticForwardKinematics,
            name: "elastic_forward_kinematics",
            group: Group::Elastic,
            inputs: &[Q, Beta, W],
            moving_base: MovingBase::None,
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
            batched: true,
            exists: Exists::Elastic,
        },
        Entry {
            kind: FunctionKind::ComplianceJacobians,
            name: "compliance_jacobians",
            group: Group::Elastic,
            inputs: &[Q],
            moving_base: MovingBase::None,
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
            batched: true,
            exists: Exists::Elastic,
        },
        Entry {
            kind: FunctionKind::ElasticVelocity,
            name: "elastic_velocity",
            group: Group::Elastic,
            inputs: &[Q, Beta, W, Qd, BetaD, WD],
            moving_base: MovingBase::None,
            outputs: &[OutSpec {
                name: "v",
                rows: Dim::Fixed(6),
                cols: None,
                doc: "tool point velocity (m/s), then the tool's angular velocity (rad/s), base \
                      frame",
            }],
            doc: "Tool velocity with elastic joints and links, to first order in `beta`, `w` and \
                  their rates: `F qd + F1 qd + F2 betad + F3 qd + F4 wd` (seed 002 (2.1)).",
            batched: true,
            exists: Exists::Elastic,
        },
        Entry {
            kind: FunctionKind::ElasticAcceleration,
            name: "elastic_acceleration",
            group: Group::Elastic,
            inputs: &[Q, Beta, W, Qd, BetaD, WD, Qdd, BetaDd, WDd],
            moving_base: MovingBase::None,
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
            batched: true,
            exists: Exists::Elastic,
        },
        Entry {
            kind: FunctionKind::StaticDeflection,
            name: "static_deflection",
            group: Group::Elastic,
            inputs: &[Q],
            moving_base: MovingBase::None,
            outputs: &[OutSpec {
                name: "beta",
                rows: Dim::Beta,
                cols: None,
                doc: "compliance angles (rad, or m) of the elastic joints under gravity",
            }],
            doc: "Static deflection of the elastic joints under gravity, to first order: \
                  `beta = -K^-1 g(q)`.",
            batched: true,
            exists: Exists::ElasticJoints,
        },
        Entry {
            kind: FunctionKind::DeflectedToolError,
            name: "deflected_tool_error",
            group: Group::Elastic,
            inputs: &[Q],
            moving_base: MovingBase::None,
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
            batched: true,
            exists: Exists::ElasticJoints,
        },
        Entry {
            kind: FunctionKind::ElasticForwardDynamics,
            name: "elastic_forward_dynamics",
            group: Group::Elastic,
            inputs: &[Q, Qd, Theta, ThetaD, Tau],
            moving_base: MovingBase::None,
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
            batched: true,
            exists: Exists::ElasticJointsWithMotors,
        },
        Entry {
            kind: FunctionKind::ElasticFeedforward,
            name: "elastic_feedforward",
            group: Group::Elastic,
            inputs: &[Q, Qd, Qdd, Qddd, Qdddd],
            moving_base: MovingBase::None,
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
            batched: true,
            exists: Exists::ElasticJointsWithUndampedMotors,
        },
        Entry {
            kind: FunctionKind::CenterOfMass,
            name: "center_of_mass",
            group: Group::Centroidal,
            inputs: &[Q],
            moving_base: MovingBase::None,
            outputs: &[OutSpec {
                name: "c",
                rows: Dim::Fixed(3),
                cols: None,
                doc: "centre of mass of the robot (m), world axes and origin",
            }],
            doc: "Centre of mass of the whole robot (Pinocchio's `centerOfMass`). On a fixed base \
                  the base is not part of the robot; a floating base's body is.",
            batched: true,
            exists: Exists::StandardParameters,
        },
        Entry {
            kind: FunctionKind::CenterOfMassJacobian,
            name: "center_of_mass_jacobian",
            group: Group::Centroidal,
            inputs: &[Q],
            moving_base: MovingBase::None,
            outputs: &[OutSpec {
                name: "Jc",
                rows: Dim::Fixed(3),
                cols: Some(Dim::N),
                doc: "d c / d qd: velocity of the centre of mass (m/s) per unit velocity, world \
                      axes",
            }],
            doc: "Jacobian of the centre of mass (Pinocchio's `jacobianCenterOfMass`): `c' = Jc \
                  qd`.",
            batched: true,
            exists: Exists::StandardParameters,
        },
        Entry {
            kind: FunctionKind::CenterOfMassAccelerationBias,
            name: "center_of_mass_acceleration_bias",
            group: Group::Centroidal,
            inputs: &[Q, Qd],
            moving_base: MovingBase::None,
            outputs: &[OutSpec {
                name: "ac",
                rows: Dim::Fixed(3),
                cols: None,
                doc: "acceleration of the centre of mass at zero joint acceleration, `Jc' qd` \
                      (m/s^2), world axes",
            }],
            doc: "Acceleration of the centre of mass at zero joint acceleration: `c'' = Jc qdd + \
                  ac` (Pinocchio's `centerOfMass` with `a = 0`).",
            batched: true,
            exists: Exists::StandardParameters,
        },
        Entry {
            kind: FunctionKind::CentroidalMomentumMatrix,
            name: "centroidal_momentum_matrix",
            group: Group::Centroidal,
            inputs: &[Q],
            moving_base: MovingBase::None,
            outputs: &[OutSpec {
                name: "Ag",
                rows: Dim::Fixed(6),
                cols: Some(Dim::N),
                doc: "centroidal momentum matrix: rows 0-2 linear momentum (kg m/s), rows 3-5 \
                      angular momentum about the centre of mass (kg m^2/s), world axes, per unit \
                      velocity",
            }],
            doc: "Centroidal momentum matrix `Ag(q)` (Pinocchio's `ccrba`): `hg = Ag qd`.",
            batched: true,
            exists: Exists::StandardParameters,
        },
        Entry {
            kind: FunctionKind::CentroidalMomentum,
            name: "centroidal_momentum",
            group: Group::Centroidal,
            inputs: &[Q, Qd],
            moving_base: MovingBase::None,
            outputs: &[OutSpec {
                name: "hg",
                rows: Dim::Fixed(6),
                cols: None,
                doc: "linear momentum (kg m/s), then angular momentum about the centre of mass \
                      (kg m^2/s), world axes",
            }],
            doc: "Centroidal momentum `hg = Ag(q) qd` (Pinocchio's `computeCentroidalMomentum`).",
            batched: true,
            exists: Exists::StandardParameters,
        },
        Entry {
            kind: FunctionKind::CentroidalMomentumBias,
            name: "centroidal_momentum_bias",
            group: Group::Centroidal,
            inputs: &[Q, Qd],
            moving_base: MovingBase::None,
            outputs: &[OutSpec {
                name: "dhg",
                rows: Dim::Fixed(6),
                cols: None,
                doc: "rate of the centroidal momentum at zero joint acceleration, `Ag' qd`: \
                      force (N), then moment about the centre of mass (N m), world axes",
            }],
            doc: "Rate of the centroidal momentum at zero joint acceleration: `hg' = Ag qdd + \
                  dhg` (Pinocchio's `computeCentroidalMomentumTimeVariation` with `a = 0`). \
                  Gravity does not enter.",
            batched: true,
            exists: Exists::StandardParameters,
        },
        Entry {
            kind: FunctionKind::CoriolisMatrix,
            name: "coriolis_matrix",
            group: Group::WholeBody,
            inputs: &[Q, Qd],
            moving_base: MovingBase::None,
            outputs: &[mat_nn!(
                "C",
                "Coriolis matrix (N s, N m s or N m s/rad): C_ij = sum_k 1/2 (dM_ij/dq_k + \
                 dM_ik/dq_j - dM_jk/dq_i) qd_k (row i, column j)"
            )],
            doc: "Coriolis matrix `C(q, qd)` of the Christoffel symbols (Pinocchio's \
                  `computeCoriolisMatrix`): `C qd + g` are the nonlinear effects and `M' - 2C` \
                  is skew-symmetric. A floating base's rows and columns add the skew \
                  Euler-Poincare term of its quasi-velocities, as Pinocchio. Not the vector \
                  `coriolis`, seed 001's Coriolis forces.",
            batched: true,
            exists: Exists::Always,
        },
        Entry {
            kind: FunctionKind::MassMatrixInverse,
            name: "mass_matrix_inverse",
            group: Group::WholeBody,
            inputs: &[Q],
            moving_base: MovingBase::None,
            outputs: &[mat_nn!(
                "Minv",
                "inverse of the mass matrix (symmetric; row i, column j)"
            )],
            doc: "Inverse of the mass matrix, `M(q)^-1` (Pinocchio's `computeMinverse`), from \
                  its factorisation along the tree: `qdd = Minv (tau - nonlinear_effects)`.",
            batched: true,
            exists: Exists::Always,
        },
        Entry {
            kind: FunctionKind::JointWrenches,
            name: "joint_wrenches",
            group: Group::WholeBody,
            inputs: &[Q, Qd, Qdd],
            moving_base: MovingBase::Motion,
            outputs: &[
                OutSpec {
                    name: "F",
                    rows: Dim::Joints,
                    cols: Some(Dim::Fixed(3)),
                    doc: "force (N) joint i transmits from its carrier to its body, world axes, \
                          row i",
                },
                OutSpec {
                    name: "T",
                    rows: Dim::Joints,
                    cols: Some(Dim::Fixed(3)),
                    doc: "moment (N m) joint i transmits, about the joint's origin on its body \
                          (pole `O_i`), world axes, row i",
                },
            ],
            doc: "Force and moment each joint transmits from its carrier to its body while the \
                  robot moves (Pinocchio's `data.f` after `rnea`, in world axes): at rest, the \
                  static joint reactions turned into world axes. With a prescribed base \
                  its motion enters, and the axes are the world's.",
            batched: true,
            exists: Exists::StandardParameters,
        },
        Entry {
            kind: FunctionKind::KineticEnergy,
            name: "kinetic_energy",
            group: Group::WholeBody,
            inputs: &[Q, Qd],
            moving_base: MovingBase::Velocity,
            outputs: &[OutSpec {
                name: "T",
                rows: Dim::Fixed(1),
                cols: None,
                doc: "kinetic energy (J)",
            }],
            doc: "Kinetic energy of the whole robot, `T = 1/2 qd^T M qd` (Pinocchio's \
                  `computeKineticEnergy`), summed body by body; with a prescribed base the \
                  energy in the world, which its velocity enters. Returned as a number.",
            batched: true,
            exists: Exists::StandardParameters,
        },
        Entry {
            kind: FunctionKind::PotentialEnergy,
            name: "potential_energy",
            group: Group::WholeBody,
            inputs: &[Q],
            moving_base: MovingBase::Pose,
            outputs: &[OutSpec {
                name: "V",
                rows: Dim::Fixed(1),
                cols: None,
                doc: "potential energy (J)",
            }],
            doc: "Potential energy of the whole robot in the gravity field, `V = -m g . c` \
                  (Pinocchio's `computePotentialEnergy`): zero with the centre of mass at the \
                  world origin. Returned as a number.",
            batched: true,
            exists: Exists::StandardParameters,
        },
        Entry {
            kind: FunctionKind::PassiveForces,
            name: "passive_forces",
            group: Group::WholeBody,
            inputs: &[Q, Qd],
            moving_base: MovingBase::None,
            outputs: &[vec_n!(
                "tau",
                "joint forces/torques of the springs and dampers (N or N m); zero for a \
                 floating base's six coordinates"
            )],
            doc: "Forces of the joints' linear springs and dampers, `-stiffness (q - reference) \
                  - damping qd` per joint, and of fixed tendons' on `L = sum c_j q_j` \
                  (MuJoCo's `qfrc_spring + qfrc_damper` of joint and fixed-tendon stiffness and \
                  damping).",
            batched: true,
            exists: Exists::PassiveJoints,
        },
        Entry {
            kind: FunctionKind::FrameVelocity(0),
            name: "frame_velocity",
            group: Group::FrameMotion,
            inputs: &[Q, Qd],
            moving_base: MovingBase::None,
            outputs: &[OutSpec {
                name: "vel",
                rows: Dim::Fixed(6),
                cols: None,
                doc: "velocity of the frame's origin (m/s), then the frame's angular velocity \
                      (rad/s), world axes",
            }],
            doc: "Velocity of a named frame, `J qd` (Pinocchio's `getFrameVelocity`, \
                  LOCAL_WORLD_ALIGNED).",
            batched: true,
            exists: Exists::EachFrame,
        },
        Entry {
            kind: FunctionKind::FrameAccelerationBias(0),
            name: "frame_acceleration_bias",
            group: Group::FrameMotion,
            inputs: &[Q, Qd],
            moving_base: MovingBase::None,
            outputs: &[OutSpec {
                name: "acc",
                rows: Dim::Fixed(6),
                cols: None,
                doc: "classical acceleration of the frame's origin (m/s^2), then the frame's \
                      angular acceleration (rad/s^2), at zero joint acceleration, world axes",
            }],
            doc: "Acceleration of a named frame at zero joint acceleration, `J' qd`: the frame's \
                  acceleration is `J qdd + acc` (Pinocchio's `getFrameClassicalAcceleration` \
                  with `a = 0`, LOCAL_WORLD_ALIGNED).",
            batched: true,
            exists: Exists::EachFrame,
        },
        Entry {
            kind: FunctionKind::JacobianDerivative(0),
            name: "jacobian_derivative",
            group: Group::FrameMotion,
            inputs: &[Q, Qd],
            moving_base: MovingBase::None,
            outputs: &[OutSpec {
                name: "J_dot",
                rows: Dim::Fixed(6),
                cols: Some(Dim::N),
                doc: "time derivative of the frame's Jacobian along the motion: rows 0-2 of the \
                      linear velocity of its origin, rows 3-5 of its angular velocity, world \
                      axes",
            }],
            doc: "Time derivative of a named frame's Jacobian, `J'(q, qd)` (Pinocchio's \
                  `getFrameJacobianTimeVariation`, LOCAL_WORLD_ALIGNED): `J' qd` is \
                  `frame_acceleration_bias`.",
            batched: true,
            exists: Exists::EachFrame,
        },
        Entry {
            kind: FunctionKind::ContactJacobian,
            name: "contact_jacobian",
            group: Group::Contacts,
            inputs: &[Q],
            moving_base: MovingBase::Pose,
            outputs: &[OutSpec {
                name: "Jc",
                rows: Dim::Contacts,
                cols: Some(Dim::N),
                doc: "the contacts' rows of their frames' Jacobians, in contact order, world \
                      axes: a point contact's 3 rows of its origin's velocity, a 6d contact's \
                      3 of its origin's velocity then 3 of its angular velocity",
            }],
            doc: "Jacobian of the rigid contacts, `Jc(q)` (Pinocchio's `getConstraintsJacobian` \
                  with CONTACT_3D / CONTACT_6D, LOCAL_WORLD_ALIGNED): the contacts' velocities \
                  are `Jc qd`.",
            batched: true,
            exists: Exists::Contacts,
        },
        Entry {
            kind: FunctionKind::ContactForwardDynamics,
            name: "contact_forward_dynamics",
            group: Group::Contacts,
            inputs: &[Q, Qd, Tau],
            moving_base: MovingBase::Motion,
            outputs: &[
                vec_n!(
                    "a",
                    "accelerations with the contacts held (rad/s^2 or m/s^2)"
                ),
                OutSpec {
                    name: "lambda",
                    rows: Dim::Contacts,
                    cols: None,
                    doc: "contact forces (N) and, for a 6d contact, moments about its frame's \
                          origin (N m), world axes, in `Jc`'s row order",
                },
            ],
            doc: "Forward dynamics with rigid contacts: `M a + h = tau + Jc^T lambda` with \
                  `Jc a + gamma = 0` (Pinocchio's `constraintDynamics`, CONTACT_3D / \
                  CONTACT_6D, LOCAL_WORLD_ALIGNED, no stabilisation); `gamma` is a point \
                  contact's classical acceleration and a 6d contact's spatial acceleration at \
                  zero joint acceleration. Solved through `M`'s factorisation and the \
                  `NC x NC` matrix `Jc M^-1 Jc^T`, which dependent contacts make singular \
                  (the outputs are then not finite).",
            batched: true,
            exists: Exists::Contacts,
        },
    ]
};

//! The catalogue of generated functions: for each, its name, inputs and outputs with their
//! shapes and layouts for every kind of robot, its group, whether it has a batched form, its
//! documentation, and which robots have it. Everything else reads it: the derivation names its
//! outputs from it (`Function::new` in the IR), the IR groups functions for sharing by it, both
//! emitters write signatures and docs from it, and the equations writer, the command line's
//! `--only`, the `robot!` macro's stand-in module and the runtime's `Dynamics` trait are made
//! from it. Adding a function: its derivation, a [`FunctionKind`] variant and an [`Entry`] in
//! [`CATALOGUE`] (docs/architecture.md, "How to add a function").
//!
//! Layouts, for every function alike:
//! - fixed base: joint-space arrays have `N` entries (`Dim::N`), in joint order;
//! - floating base: `q` has `7 + N` entries (base position, then unit quaternion x y z w, then
//!   the joints), velocities and accelerations become `v` and `a` (`6 + N`: base linear, then
//!   angular, in base axes, then the joints; [`Input::floating`]), and `Dim::N` means `6 + N`;
//! - prescribed base: the base's pose, velocity and acceleration come first, as arrays of
//!   their own, in the functions whose [`Entry::moving_base`] asks for them;
//! - symbolic inertial parameters: every function also takes the parameter struct (C
//!   `const NAME_params *`, Rust `&self` of `Params`) first.
//!
//! Matrices are row-major.

mod catalogue;
mod layout;

pub use catalogue::CATALOGUE;
pub use layout::{Counts, Dim, Input, OutSpec};

use crate::model::{BaseMotion, Robot};
use crate::names::frame_ident;

/// Which generated function this is; fixes its public name, inputs and outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FunctionKind {
    /// `tau = M(q) qdd + C(q, qd) qd + g(q)`.
    InverseDynamics,
    /// `g(q)`.
    Gravity,
    /// `C(q, qd) qd + g(q)`.
    NonlinearEffects,
    /// `M(q)`, full N×N.
    MassMatrix,
    /// `qdd` from `tau`.
    ForwardDynamics,
    /// Tool rotation and position in the base frame.
    ForwardKinematics,
    /// 6×N tool Jacobian (rows 0-2 linear, 3-5 angular, base frame).
    Jacobian,
    /// Centrifugal part of the velocity forces.
    Centrifugal,
    /// Coriolis part of the velocity forces.
    Coriolis,
    /// Gyroscopic part of the velocity forces.
    Gyroscopic,
    /// Static joint reaction forces and moments (3×N each).
    StaticJointReactions,
    /// `∂τ/∂q` and `∂τ/∂q̇` of the inverse dynamics (N×N each).
    InverseDynamicsDerivatives,
    /// `∂g/∂q` (N×N).
    GravityDerivatives,
    /// `∂q̈/∂q`, `∂q̈/∂q̇` of the forward dynamics and `M⁻¹ = ∂q̈/∂τ` (N×N each).
    ForwardDynamicsDerivatives,
    /// The inertial-parameter regressor `Y` (N×10N), `τ = Y π`.
    Regressor,
    /// The base-parameter regressor `Yb` (N×NB), `τ = Yb π_b`.
    BaseRegressor,
    /// Pose of the named frame with this index (in the robot's frame order) in the base frame.
    FrameKinematics(u16),
    /// 6×N Jacobian of the named frame with this index (rows 0-2 linear velocity of its
    /// origin, 3-5 angular velocity, base frame).
    FrameJacobian(u16),
    /// Tool pose to first order in the compliance angles `beta` and the modal coordinates `w`.
    ElasticForwardKinematics,
    /// The compliance Jacobians: `F2` (6×NBETA, d tool / d beta) and `F4` (6×NW, d tool / d w).
    ComplianceJacobians,
    /// Tool velocity (linear, angular) to first order in `beta`, `w` and their rates.
    ElasticVelocity,
    /// Tool acceleration (linear, angular), the time derivative of [`Self::ElasticVelocity`].
    ElasticAcceleration,
    /// Compliance angles under gravity, `beta = -K^-1 g(q)`.
    StaticDeflection,
    /// The tool displacement and small rotation the static deflection causes.
    DeflectedToolError,
    /// Elastic-joint forward dynamics: link and motor accelerations from the motor torques.
    ElasticForwardDynamics,
    /// Elastic-joint feedforward: the motor positions and torques that make the link side
    /// follow a trajectory (without damping).
    ElasticFeedforward,
    /// Centre of mass of the whole robot (3).
    CenterOfMass,
    /// 3×N Jacobian of the centre of mass.
    CenterOfMassJacobian,
    /// Acceleration of the centre of mass at zero joint acceleration (3).
    CenterOfMassAccelerationBias,
    /// 6×N centroidal momentum matrix `Ag` (linear, then angular momentum about the centre
    /// of mass).
    CentroidalMomentumMatrix,
    /// Centroidal momentum `hg = Ag v` (6).
    CentroidalMomentum,
    /// Rate of the centroidal momentum at zero joint acceleration (6).
    CentroidalMomentumBias,
    /// N×N Coriolis matrix `C(q, qd)` of the Christoffel symbols (`C qd + g` = the nonlinear
    /// effects, `M' - 2C` skew).
    CoriolisMatrix,
    /// N×N inverse of the mass matrix.
    MassMatrixInverse,
    /// Force and moment each joint transmits, world axes (N×3 each).
    JointWrenches,
    /// Kinetic energy of the whole robot (a scalar).
    KineticEnergy,
    /// Potential energy of the whole robot in the gravity field (a scalar).
    PotentialEnergy,
    /// The joints' springs and dampers: `-stiffness (q - reference) - damping qd`.
    PassiveForces,
    /// Velocity of the named frame with this index: its origin's, then its angular velocity,
    /// world axes (6).
    FrameVelocity(u16),
    /// Classical acceleration of the named frame's origin and its angular acceleration at zero
    /// joint acceleration, world axes (6).
    FrameAccelerationBias(u16),
    /// Time derivative of the named frame's 6×N Jacobian along the motion.
    JacobianDerivative(u16),
    /// NC×N Jacobian of the contacts (their rows of the frame Jacobians, world axes).
    ContactJacobian,
    /// Accelerations and contact forces of the robot held by its rigid contacts.
    ContactForwardDynamics,
}

/// What a group of functions is for; also the file order of the groups, and which functions
/// are simplified together (see [`Group::sharing_set`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Group {
    /// Joint-space dynamics and the tool's kinematics: the methods of `quasidyn::Dynamics`.
    Dynamics,
    /// Analytical derivatives of the dynamics.
    Derivatives,
    /// Regressors for identification.
    Identification,
    /// Each named frame's pose and Jacobian.
    Frames,
    /// Elastic joints and flexible links.
    Elastic,
    /// The centre of mass and the centroidal momentum (generated on request).
    Centroidal,
    /// Further quantities for whole-body and passivity-based control (generated on request).
    WholeBody,
    /// Each named frame's velocity, acceleration at zero joint acceleration and Jacobian
    /// derivative (generated on request).
    FrameMotion,
    /// The rigid contacts' Jacobian and the dynamics under them (generated on request).
    Contacts,
}

impl Group {
    /// Functions of one set share subexpressions while simplified (one graph each): the
    /// dynamics, the elastic functions, the functions generated on request, and the rest, so
    /// that the large derivative functions do not change the sharing choices (and operation
    /// counts) of the others, nor asking for more functions the code of the default ones.
    pub fn sharing_set(self) -> usize {
        // Keep below [`Group::SHARING_SETS`].
        match self {
            Group::Dynamics => 0,
            Group::Derivatives | Group::Identification | Group::Frames => 1,
            Group::Elastic => 2,
            Group::Centroidal | Group::WholeBody | Group::FrameMotion | Group::Contacts => 3,
        }
    }

    /// How many sharing sets there are ([`Group::sharing_set`] is below it).
    pub const SHARING_SETS: usize = 4;

    /// Whether the group's functions are generated only when asked for (`--only` names them,
    /// their family or `all`); the others make the default set.
    pub fn on_request(self) -> bool {
        matches!(
            self,
            Group::Centroidal | Group::WholeBody | Group::FrameMotion | Group::Contacts
        )
    }

    /// The name that selects every function of the group in `--only`, where there is one.
    pub fn family(self) -> Option<&'static str> {
        match self {
            Group::Frames => Some("frames"),
            Group::Centroidal => Some("centroidal"),
            Group::WholeBody => Some("whole_body"),
            Group::FrameMotion => Some("frame_motion"),
            Group::Contacts => Some("contacts"),
            _ => None,
        }
    }

    /// Whether the group's functions are the methods of the runtime's `Dynamics` trait.
    pub fn in_dynamics_trait(self) -> bool {
        self == Group::Dynamics
    }
}

/// Which base inputs a function takes when the base's motion is prescribed (with a floating
/// base they are the leading entries of `q`, `v`, `a` and `tau` instead).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MovingBase {
    /// None: the function does not depend on the base's motion.
    None,
    /// `base_pose` alone (gravity is turned by the base's attitude).
    Pose,
    /// `base_vel` alone (the base's velocity in its own axes: the kinetic energy).
    Velocity,
    /// `base_pose`, `base_vel` and `base_acc`.
    Motion,
}

/// Which robots have a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exists {
    /// Every robot.
    Always,
    /// Chains (a tree has no tool).
    Chain,
    /// Fixed bases (the velocity split is for fixed bases only so far).
    FixedBase,
    /// Fixed and prescribed bases with the standard parameter set (the regrouped base
    /// parameters do not give the reactions; a floating base at rest is not in equilibrium).
    NotFloatingStandardParameters,
    /// One per named frame.
    EachFrame,
    /// Robots with elastic joints or flexible links.
    Elastic,
    /// Robots with elastic joints.
    ElasticJoints,
    /// Robots with elastic joints, every one with a motor inertia.
    ElasticJointsWithMotors,
    /// Robots with elastic joints, every one with a motor inertia and none with damping.
    ElasticJointsWithUndampedMotors,
    /// Robots with the standard parameter set (the base parameters do not give the mass
    /// distribution).
    StandardParameters,
    /// Robots without joint armature (`tau = Y pi` has no term for it: the regressors).
    NoArmature,
    /// Robots with a joint spring or damper ([`crate::RobotBody::passive`]).
    PassiveJoints,
    /// Robots with at least one contact.
    Contacts,
}

impl Exists {
    /// Whether `robot` has the function (for [`Exists::EachFrame`]: whether it has a frame).
    pub fn holds(self, robot: &Robot) -> bool {
        let fixed = robot.motion == BaseMotion::Fixed;
        let joints: Vec<&crate::model::ElasticJoint> = robot
            .bodies
            .iter()
            .filter_map(|b| b.elastic.as_ref())
            .collect();
        let motors = !joints.is_empty() && joints.iter().all(|e| e.motor_inertia.is_some());
        match self {
            Exists::Always => true,
            Exists::Chain => robot.is_chain(),
            Exists::FixedBase => fixed,
            Exists::NotFloatingStandardParameters => {
                !robot.is_floating() && robot.parameters != crate::model::ParameterSet::Base
            }
            Exists::EachFrame => !robot.frames.is_empty(),
            Exists::Elastic => robot.has_elasticity(),
            Exists::ElasticJoints => robot.has_elasticity() && !joints.is_empty(),
            Exists::ElasticJointsWithMotors => robot.has_elasticity() && motors,
            Exists::ElasticJointsWithUndampedMotors => {
                robot.has_elasticity()
                    && motors
                    && joints.iter().all(|e| e.damping.unwrap_or(0.0) == 0.0)
            }
            Exists::StandardParameters => robot.parameters != crate::model::ParameterSet::Base,
            Exists::NoArmature => !robot.has_armature(),
            Exists::PassiveJoints => robot.has_passive_joints(),
            Exists::Contacts => !robot.contacts.is_empty(),
        }
    }

    /// Which robots have the function, in words (for help texts and docs).
    pub fn describe(self) -> &'static str {
        match self {
            Exists::Always => "every robot",
            Exists::Chain => "chains",
            Exists::FixedBase => "fixed bases",
            Exists::NotFloatingStandardParameters => {
                "fixed and prescribed bases, standard parameters"
            }
            Exists::EachFrame => "each named frame",
            Exists::Elastic => "elastic joints or flexible links",
            Exists::ElasticJoints => "elastic joints",
            Exists::ElasticJointsWithMotors => "elastic joints with motor inertias",
            Exists::ElasticJointsWithUndampedMotors => {
                "elastic joints with motor inertias, no damping"
            }
            Exists::StandardParameters => "standard parameters",
            Exists::NoArmature => "robots without armature",
            Exists::PassiveJoints => "robots with joint or tendon springs or dampers",
            Exists::Contacts => "robots with contacts",
        }
    }
}

/// One generated function, as the catalogue declares it.
#[derive(Debug)]
pub struct Entry {
    /// Which function (a frame function with frame index 0 stands for every frame's).
    pub kind: FunctionKind,
    /// Public name without the robot's prefix (a frame function's gets `_FRAME` appended).
    pub name: &'static str,
    /// What it is for.
    pub group: Group,
    /// Inputs in argument order, for a fixed base (see the module docs for the others).
    pub inputs: &'static [Input],
    /// The base inputs that come first with a prescribed base.
    pub moving_base: MovingBase,
    /// Outputs in argument order (after the inputs), with their shapes.
    pub outputs: &'static [OutSpec],
    /// One paragraph of documentation, written into the generated code.
    pub doc: &'static str,
    /// Whether `--batch` also generates the function over many states.
    pub batched: bool,
    /// Which robots have it.
    pub exists: Exists,
}

impl Entry {
    /// Whether the function returns one number (C `double`, Rust `f64`; its batched form
    /// writes one array of `BATCH` entries): its one output has one entry.
    pub fn returns_scalar(&self) -> bool {
        matches!(
            self.outputs,
            [OutSpec {
                rows: Dim::Fixed(1),
                cols: None,
                ..
            }]
        )
    }

    /// The inputs of the function for a base that moves as `motion`, in argument order.
    pub fn inputs_for(&self, motion: BaseMotion) -> Vec<Input> {
        match motion {
            BaseMotion::Floating => self.inputs.iter().map(|i| i.floating()).collect(),
            BaseMotion::Prescribed | BaseMotion::Translating => {
                let base: &[Input] = match self.moving_base {
                    MovingBase::None => &[],
                    MovingBase::Pose => &[Input::BasePose],
                    MovingBase::Velocity => &[Input::BaseVel],
                    MovingBase::Motion => &[Input::BasePose, Input::BaseVel, Input::BaseAcc],
                };
                base.iter().chain(self.inputs).copied().collect()
            }
            BaseMotion::Fixed => self.inputs.to_vec(),
        }
    }

    /// The shape (rows, columns) of each output for a robot with `n` joint-space coordinates
    /// (`N`, or `6 + N` with a floating base) and the other sizes `counts`.
    pub fn output_shapes(&self, n: usize, counts: Counts) -> Vec<(usize, usize)> {
        self.outputs
            .iter()
            .map(|o| (o.rows.of(n, counts), o.cols.map_or(1, |c| c.of(n, counts))))
            .collect()
    }
}

/// The catalogue entry of `kind`.
///
/// # Panics
/// If [`CATALOGUE`] has no entry for `kind` (a new [`FunctionKind`] without its entry; the
/// catalogue's tests catch that).
pub fn entry(kind: FunctionKind) -> &'static Entry {
    let d = std::mem::discriminant(&kind);
    CATALOGUE
        .iter()
        .find(|e| std::mem::discriminant(&e.kind) == d)
        .expect("every function kind has a catalogue entry")
}

/// The public name of `kind` for a robot whose named frames are `frame_names` (in order),
/// without the robot's prefix: `inverse_dynamics`, ..., `forward_kinematics_FRAME` and
/// `jacobian_FRAME` for a named frame (`None` if there is no such frame).
pub fn function_name(kind: FunctionKind, frame_names: &[String]) -> Option<String> {
    let base = entry(kind).name;
    match kind.frame() {
        Some(k) => frame_names
            .get(usize::from(k))
            .map(|frame| format!("{base}_{}", frame_ident(frame))),
        None => Some(base.to_owned()),
    }
}

/// The functions generated for `robot` by default, in file order: each entry whose [`Exists`]
/// holds and whose group is not [`Group::on_request`], frame functions once per named frame.
pub fn functions_of(robot: &Robot) -> Vec<FunctionKind> {
    let mut kinds = every_function_of(robot);
    kinds.retain(|k| !k.entry().group.on_request());
    kinds
}

/// Every function `robot` has, those generated on request included (`--only all`), in file
/// order.
pub fn every_function_of(robot: &Robot) -> Vec<FunctionKind> {
    let mut kinds = Vec::new();
    let layout_has = |e: &&Entry| {
        (!robot.is_mujoco_floating() || e.kind.in_mujoco_layout())
            && (!robot.has_couplings() || e.kind.with_couplings())
    };
    for e in CATALOGUE
        .iter()
        .filter(|e| e.exists.holds(robot))
        .filter(layout_has)
    {
        if e.kind.frame().is_some() {
            for k in 0..robot.frames.len() {
                let index = u16::try_from(k).expect("frames fit u16");
                kinds.push(e.kind.for_frame(index));
            }
        } else {
            kinds.push(e.kind);
        }
    }
    kinds.sort();
    kinds
}

/// The kinds of `group` in catalogue order (`LEN` of them, checked while compiling).
const fn kinds_in<const LEN: usize>(group: Group) -> [FunctionKind; LEN] {
    let mut out = [FunctionKind::InverseDynamics; LEN];
    let mut found = 0;
    let mut i = 0;
    while i < CATALOGUE.len() {
        if CATALOGUE[i].group as u8 == group as u8 {
            assert!(
                found < LEN,
                "more kinds in the group than its constant holds"
            );
            out[found] = CATALOGUE[i].kind;
            found += 1;
        }
        i += 1;
    }
    assert!(
        found == LEN,
        "fewer kinds in the group than its constant holds"
    );
    out
}

impl FunctionKind {
    /// Whether the function is generated for a floating base in MuJoCo's free-joint layout
    /// ([`crate::BaseLayout::Mujoco`]): all but those a floating base has in no layout (the
    /// velocity split, the static reactions, the elastic functions).
    pub fn in_mujoco_layout(self) -> bool {
        !(matches!(
            self,
            FunctionKind::Centrifugal
                | FunctionKind::Coriolis
                | FunctionKind::Gyroscopic
                | FunctionKind::StaticJointReactions
        ) || self.entry().group == Group::Elastic)
    }

    /// Whether the function is generated for a robot whose joints follow others (mimic joints,
    /// [`crate::model::Mimic`]), in the independent coordinates (the joint wrenches and the
    /// static joint reactions keep a row per joint, the followers too). Those not yet: the
    /// elastic functions.
    pub fn with_couplings(self) -> bool {
        matches!(
            self,
            FunctionKind::InverseDynamics
                | FunctionKind::Centrifugal
                | FunctionKind::Coriolis
                | FunctionKind::Gyroscopic
                | FunctionKind::StaticJointReactions
                | FunctionKind::Gravity
                | FunctionKind::NonlinearEffects
                | FunctionKind::MassMatrix
                | FunctionKind::ForwardDynamics
                | FunctionKind::ForwardKinematics
                | FunctionKind::Jacobian
                | FunctionKind::FrameKinematics(_)
                | FunctionKind::FrameJacobian(_)
                | FunctionKind::InverseDynamicsDerivatives
                | FunctionKind::GravityDerivatives
                | FunctionKind::ForwardDynamicsDerivatives
                | FunctionKind::Regressor
                | FunctionKind::CenterOfMass
                | FunctionKind::CenterOfMassJacobian
                | FunctionKind::CenterOfMassAccelerationBias
                | FunctionKind::CentroidalMomentumMatrix
                | FunctionKind::CentroidalMomentum
                | FunctionKind::CentroidalMomentumBias
                | FunctionKind::MassMatrixInverse
                | FunctionKind::KineticEnergy
                | FunctionKind::PotentialEnergy
                | FunctionKind::PassiveForces
                | FunctionKind::FrameVelocity(_)
                | FunctionKind::FrameAccelerationBias(_)
                | FunctionKind::JacobianDerivative(_)
                | FunctionKind::ContactJacobian
                | FunctionKind::ContactForwardDynamics
                | FunctionKind::CoriolisMatrix
                | FunctionKind::BaseRegressor
                | FunctionKind::JointWrenches
        )
    }

    /// Whether the function's outputs are solved in the independent coordinates rather than
    /// contracted from the full ones ([`FunctionKind::with_couplings`]).
    pub fn solved_with_couplings(self) -> bool {
        matches!(
            self,
            FunctionKind::Centrifugal
                | FunctionKind::Coriolis
                | FunctionKind::Gyroscopic
                | FunctionKind::ForwardDynamics
                | FunctionKind::ForwardDynamicsDerivatives
                | FunctionKind::MassMatrixInverse
                | FunctionKind::ContactForwardDynamics
                | FunctionKind::BaseRegressor
        )
    }

    /// The dynamics and kinematics kinds (those of the `Dynamics` trait), in the order
    /// generated files list them (a tree has no tool, so no `ForwardKinematics` or
    /// `Jacobian`; named frames add [`FunctionKind::FrameKinematics`] and
    /// [`FunctionKind::FrameJacobian`] per frame).
    pub const ALL: [FunctionKind; 11] = kinds_in(Group::Dynamics);

    /// The analytical derivatives, in file order (after [`Self::ALL`]).
    pub const DERIVATIVES: [FunctionKind; 3] = kinds_in(Group::Derivatives);

    /// The identification functions, in file order (after [`Self::DERIVATIVES`]).
    pub const IDENTIFICATION: [FunctionKind; 2] = kinds_in(Group::Identification);

    /// The functions of a spec with elastic joints or flexible links, in file order (after
    /// the named frames).
    pub const ELASTIC: [FunctionKind; 8] = kinds_in(Group::Elastic);

    /// The centre-of-mass and centroidal-momentum functions, in file order (after the elastic
    /// ones).
    pub const CENTROIDAL: [FunctionKind; 6] = kinds_in(Group::Centroidal);

    /// The other functions generated on request, in file order (after the centroidal ones).
    pub const WHOLE_BODY: [FunctionKind; 6] = kinds_in(Group::WholeBody);

    /// The per-frame motion functions, for frame 0, in file order (after the whole-body ones).
    pub const FRAME_MOTION: [FunctionKind; 3] = kinds_in(Group::FrameMotion);

    /// The contact functions, in file order (last).
    pub const CONTACTS: [FunctionKind; 2] = kinds_in(Group::Contacts);

    /// The frame a per-frame function is for (`None` for the others).
    pub fn frame(self) -> Option<u16> {
        match self {
            FunctionKind::FrameKinematics(k)
            | FunctionKind::FrameJacobian(k)
            | FunctionKind::FrameVelocity(k)
            | FunctionKind::FrameAccelerationBias(k)
            | FunctionKind::JacobianDerivative(k) => Some(k),
            _ => None,
        }
    }

    /// The same per-frame function for frame `index` (other kinds unchanged).
    pub fn for_frame(self, index: u16) -> FunctionKind {
        match self {
            FunctionKind::FrameKinematics(_) => FunctionKind::FrameKinematics(index),
            FunctionKind::FrameJacobian(_) => FunctionKind::FrameJacobian(index),
            FunctionKind::FrameVelocity(_) => FunctionKind::FrameVelocity(index),
            FunctionKind::FrameAccelerationBias(_) => FunctionKind::FrameAccelerationBias(index),
            FunctionKind::JacobianDerivative(_) => FunctionKind::JacobianDerivative(index),
            other => other,
        }
    }

    /// Every kind without a frame, in file order: [`Self::ALL`], [`Self::DERIVATIVES`],
    /// [`Self::IDENTIFICATION`].
    pub fn every() -> impl Iterator<Item = FunctionKind> {
        Self::ALL
            .into_iter()
            .chain(Self::DERIVATIVES)
            .chain(Self::IDENTIFICATION)
    }

    /// The kind's catalogue entry.
    pub fn entry(self) -> &'static Entry {
        entry(self)
    }

    /// Public name without the robot's prefix (a frame function's without its `_FRAME`).
    pub fn name(self) -> &'static str {
        entry(self).name
    }

    /// The kind named `name` (a frame function's by its name without `_FRAME`, for frame 0).
    pub fn by_name(name: &str) -> Option<FunctionKind> {
        CATALOGUE.iter().find(|e| e.name == name).map(|e| e.kind)
    }
}

/// The catalogue as a Markdown table: each function's name, what it computes, its arguments
/// in order for a fixed base (C order: inputs, then outputs with their shapes) and which robots
/// have it. README.md quotes it (a test keeps the quote current).
pub fn markdown_table() -> String {
    let size = |d: Dim| match d {
        Dim::N | Dim::Joints => "N".to_owned(),
        Dim::Fixed(k) => k.to_string(),
        Dim::PerBody(k) => format!("{k}N"),
        Dim::Base => "NB".to_owned(),
        Dim::Beta => "NBETA".to_owned(),
        Dim::W => "NW".to_owned(),
        Dim::Contacts => "NC".to_owned(),
    };
    let mut out = String::from(
        "| function | computes | arguments (fixed base) | robots |\n|---|---|---|---|\n",
    );
    for e in CATALOGUE {
        let name = if e.kind.frame().is_some() {
            format!("{}_FRAME", e.name)
        } else {
            e.name.to_owned()
        };
        let mut args: Vec<String> = e.inputs.iter().map(|i| i.name().to_owned()).collect();
        args.extend(e.outputs.iter().map(|o| match o.cols {
            None => format!("{}[{}]", o.name, size(o.rows)),
            Some(c) => format!("{}[{}][{}]", o.name, size(o.rows), size(c)),
        }));
        let mut args = args.join(", ");
        if e.returns_scalar() {
            // Returned, not an argument.
            let inputs: Vec<&str> = e.inputs.iter().map(|i| i.name()).collect();
            args = format!("{} -> {}", inputs.join(", "), e.outputs[0].name);
        }
        // The first sentence of the docs (up to a period before a capital), without its period.
        let end = e
            .doc
            .match_indices(". ")
            .map(|(k, _)| k)
            .find(|&k| e.doc[k + 2..].starts_with(|c: char| c.is_ascii_uppercase()))
            .unwrap_or(e.doc.len());
        let computes = e.doc[..end].trim_end_matches('.');
        let request = if e.group.on_request() {
            " (on request)"
        } else {
            ""
        };
        out.push_str(&format!(
            "| `{name}` | {} | `{}` | {}{request} |\n",
            computes.replace('|', "\\|"),
            args,
            e.exists.describe()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every variant, through a match the compiler checks for exhaustiveness: a new variant
    /// fails to compile here until it is listed, and the tests below then ask for its entry.
    fn every_variant() -> Vec<FunctionKind> {
        let listed = |k: FunctionKind| match k {
            FunctionKind::InverseDynamics
            | FunctionKind::Gravity
            | FunctionKind::NonlinearEffects
            | FunctionKind::MassMatrix
            | FunctionKind::ForwardDynamics
            | FunctionKind::ForwardKinematics
            | FunctionKind::Jacobian
            | FunctionKind::Centrifugal
            | FunctionKind::Coriolis
            | FunctionKind::Gyroscopic
            | FunctionKind::StaticJointReactions
            | FunctionKind::InverseDynamicsDerivatives
            | FunctionKind::GravityDerivatives
            | FunctionKind::ForwardDynamicsDerivatives
            | FunctionKind::Regressor
            | FunctionKind::BaseRegressor
            | FunctionKind::FrameKinematics(_)
            | FunctionKind::FrameJacobian(_)
            | FunctionKind::ElasticForwardKinematics
            | FunctionKind::ComplianceJacobians
            | FunctionKind::ElasticVelocity
            | FunctionKind::ElasticAcceleration
            | FunctionKind::StaticDeflection
            | FunctionKind::DeflectedToolError
            | FunctionKind::ElasticForwardDynamics
            | FunctionKind::ElasticFeedforward
            | FunctionKind::CenterOfMass
            | FunctionKind::CenterOfMassJacobian
            | FunctionKind::CenterOfMassAccelerationBias
            | FunctionKind::CentroidalMomentumMatrix
            | FunctionKind::CentroidalMomentum
            | FunctionKind::CentroidalMomentumBias
            | FunctionKind::CoriolisMatrix
            | FunctionKind::MassMatrixInverse
            | FunctionKind::JointWrenches
            | FunctionKind::KineticEnergy
            | FunctionKind::PotentialEnergy
            | FunctionKind::PassiveForces
            | FunctionKind::FrameVelocity(_)
            | FunctionKind::FrameAccelerationBias(_)
            | FunctionKind::JacobianDerivative(_)
            | FunctionKind::ContactJacobian
            | FunctionKind::ContactForwardDynamics => k,
        };
        let mut kinds: Vec<FunctionKind> = FunctionKind::every()
            .chain([
                FunctionKind::FrameKinematics(0),
                FunctionKind::FrameJacobian(0),
            ])
            .chain(FunctionKind::ELASTIC)
            .chain(FunctionKind::CENTROIDAL)
            .chain(FunctionKind::WHOLE_BODY)
            .chain(FunctionKind::FRAME_MOTION)
            .chain(FunctionKind::CONTACTS)
            .map(listed)
            .collect();
        kinds.sort();
        kinds
    }

    #[test]
    fn one_entry_per_kind_in_file_order() {
        let kinds = every_variant();
        let catalogued: Vec<FunctionKind> = CATALOGUE.iter().map(|e| e.kind).collect();
        assert_eq!(catalogued, kinds);
        for &k in &kinds {
            assert_eq!(entry(k).kind, k);
        }
        assert_eq!(entry(FunctionKind::FrameJacobian(7)).name, "jacobian");
    }

    #[test]
    fn groups_are_contiguous_in_file_order() {
        let groups: Vec<Group> = CATALOGUE.iter().map(|e| e.group).collect();
        let mut sorted = groups.clone();
        sorted.sort();
        assert_eq!(groups, sorted);
        assert_eq!(FunctionKind::ALL.len(), 11);
        assert!(FunctionKind::ALL
            .iter()
            .all(|k| k.entry().group.in_dynamics_trait()));
    }

    #[test]
    fn names_are_unique_but_for_the_frame_forms() {
        for (i, a) in CATALOGUE.iter().enumerate() {
            for b in &CATALOGUE[i + 1..] {
                if a.name == b.name {
                    let pair = (a.kind, b.kind);
                    assert!(
                        matches!(
                            pair,
                            (
                                FunctionKind::ForwardKinematics,
                                FunctionKind::FrameKinematics(_)
                            ) | (FunctionKind::Jacobian, FunctionKind::FrameJacobian(_))
                        ),
                        "{pair:?} share the name {}",
                        a.name
                    );
                }
            }
        }
        for k in every_variant() {
            let found = FunctionKind::by_name(k.name()).expect("named");
            assert_eq!(found.name(), k.name());
        }
        assert_eq!(FunctionKind::by_name("nope"), None);
    }

    #[test]
    fn frame_functions_are_named_after_their_frame() {
        let frames = ["tool0".to_owned(), "Camera Link".to_owned()];
        assert_eq!(
            function_name(FunctionKind::FrameJacobian(1), &frames).as_deref(),
            Some("jacobian_camera_link")
        );
        assert_eq!(
            function_name(FunctionKind::FrameKinematics(2), &frames),
            None
        );
        assert_eq!(
            function_name(FunctionKind::Gravity, &frames).as_deref(),
            Some("gravity")
        );
    }

    #[test]
    fn inputs_per_base() {
        let id = entry(FunctionKind::InverseDynamics);
        assert_eq!(
            id.inputs_for(BaseMotion::Fixed),
            [Input::Q, Input::Qd, Input::Qdd]
        );
        assert_eq!(
            id.inputs_for(BaseMotion::Floating),
            [Input::Q, Input::V, Input::A]
        );
        assert_eq!(
            id.inputs_for(BaseMotion::Prescribed),
            [
                Input::BasePose,
                Input::BaseVel,
                Input::BaseAcc,
                Input::Q,
                Input::Qd,
                Input::Qdd
            ]
        );
        let g = entry(FunctionKind::Gravity);
        assert_eq!(
            g.inputs_for(BaseMotion::Translating),
            [Input::BasePose, Input::Q]
        );
        let m = entry(FunctionKind::MassMatrix);
        assert_eq!(m.inputs_for(BaseMotion::Prescribed), [Input::Q]);
    }

    #[test]
    fn input_indices_are_declaration_order() {
        for (k, input) in Input::ALL.iter().enumerate() {
            assert_eq!(*input as usize, k);
        }
    }

    #[test]
    fn shapes_follow_the_robot() {
        let counts = Counts {
            nb: 40,
            nbeta: 2,
            nw: 3,
            dof: 6,
            bodies: 7,
            nc: 0,
        };
        let regressor = entry(FunctionKind::Regressor);
        assert_eq!(regressor.output_shapes(12, counts), [(12, 70)]);
        let compliance = entry(FunctionKind::ComplianceJacobians);
        assert_eq!(compliance.output_shapes(6, counts), [(6, 2), (6, 3)]);
        let base = entry(FunctionKind::BaseRegressor);
        assert_eq!(base.output_shapes(6, counts), [(6, 40)]);
    }
}

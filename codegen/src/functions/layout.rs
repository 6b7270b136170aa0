//! The arrays generated functions take and return: each input's name and meaning, and the
//! shapes of outputs in units of the robot's sizes.

/// Input arrays of generated functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// Joint positions (`N`; rad for revolute joints, m for prismatic ones).
    Q,
    /// Joint velocities (`N`; rad/s or m/s).
    Qd,
    /// Joint accelerations (`N`; rad/s^2 or m/s^2).
    Qdd,
    /// Joint forces and torques (`N`; N for prismatic joints, N m for revolute ones).
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
    /// Every input, in declaration order.
    pub const ALL: [Input; 19] = [
        Input::Q,
        Input::Qd,
        Input::Qdd,
        Input::Tau,
        Input::V,
        Input::A,
        Input::BasePose,
        Input::BaseVel,
        Input::BaseAcc,
        Input::Beta,
        Input::W,
        Input::BetaD,
        Input::WD,
        Input::BetaDd,
        Input::WDd,
        Input::Theta,
        Input::ThetaD,
        Input::Qddd,
        Input::Qdddd,
    ];

    /// The argument's name in generated code (`q`, `qd`, `base_pose`, ...).
    pub fn name(self) -> &'static str {
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

    /// What the argument holds, with its units, as generated code's documentation lists it.
    pub fn doc(self) -> &'static str {
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
    pub fn floating(self) -> Input {
        match self {
            Input::Qd => Input::V,
            Input::Qdd => Input::A,
            other => other,
        }
    }

    /// Where joint `j`'s entry sits in this input (after the base's in a floating layout).
    pub(crate) fn joint_slot(self, j: usize, floating: bool) -> usize {
        match (floating, self) {
            (false, _) => j,
            (true, Input::Q) => 7 + j,
            (true, _) => 6 + j,
        }
    }
}

/// Shape of an output array in units of the robot's `N` joints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dim {
    /// `N`: the joints, or `NV = 6 + N` with a floating base.
    N,
    /// A size that does not depend on the robot (3 for a position, 6 for a twist).
    Fixed(usize),
    /// The joints alone: `N` whatever the base (a floating base's six coordinates are not
    /// joints).
    Joints,
    /// `k` per body: `k · N`, `k · (N + 1)` with a floating base (its own body counts).
    PerBody(usize),
    /// `NB`, the number of base parameters (`Module::nb`).
    Base,
    /// `NBETA`, the number of elastic joints.
    Beta,
    /// `NW`, the number of modal coordinates of the flexible links.
    W,
    /// `NC`, the rows of the contacts (3 per point contact, 6 per 6d contact).
    Contacts,
}

/// The module-wide sizes outputs may have besides `N`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
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
    /// Rows of the contacts (`NC`).
    pub nc: usize,
}

impl Dim {
    /// The size for `n` joints and the module's other `counts`.
    pub fn of(self, n: usize, counts: Counts) -> usize {
        match self {
            Dim::Base => counts.nb,
            Dim::Beta => counts.nbeta,
            Dim::W => counts.nw,
            Dim::Contacts => counts.nc,
            Dim::PerBody(k) => k * counts.bodies,
            Dim::Joints => counts.dof,
            d => d.get(n),
        }
    }

    /// The size for `n` joints on a fixed base (of a dimension that does not depend on `NB`).
    pub fn get(self, n: usize) -> usize {
        match self {
            Dim::N | Dim::Joints => n,
            Dim::Fixed(k) => k,
            Dim::PerBody(k) => k * n,
            Dim::Base | Dim::Beta | Dim::W | Dim::Contacts => unreachable!("given with Dim::of"),
        }
    }
}

/// One output of a function: its name, shape and documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutSpec {
    /// The output's name in generated code (`tau`, `M`, `J`, ...): a C argument's, and the
    /// name generated documentation gives the Rust return value.
    pub name: &'static str,
    /// Rows of a matrix, or the entries of a vector.
    pub rows: Dim,
    /// `None` for a vector.
    pub cols: Option<Dim>,
    /// What the output holds, with its units and layout, as generated documentation lists it.
    pub doc: &'static str,
}

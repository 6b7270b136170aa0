//! The inputs generated functions take besides the joint state: a moving base's pose, motion
//! and wrench, and the elastic coordinates. A leaf vocabulary shared by the algebra, the IR and
//! the emitters.

/// Inputs of the elastic functions (indices 0-based into `beta` and `w`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ElasticVar {
    /// Compliance angle (or displacement) `beta_k` of the `k`-th elastic joint.
    Beta(u16),
    /// Its rate.
    BetaD(u16),
    /// Its second derivative.
    BetaDd(u16),
    /// Modal coordinate `w_k` of a flexible link.
    W(u16),
    /// Its rate.
    WD(u16),
    /// Its second derivative.
    WDd(u16),
    /// Motor-side position `theta_k` of the `k`-th elastic joint (elastic-joint dynamics).
    Theta(u16),
    /// Its rate.
    ThetaD(u16),
    /// Third time derivative of joint position `q_j` (elastic-joint feedforward).
    Qddd(u16),
    /// Fourth time derivative of `q_j`.
    Qdddd(u16),
}

impl ElasticVar {
    /// The time derivative of this input (`None` for the second derivatives).
    pub fn rate(self) -> Option<ElasticVar> {
        match self {
            ElasticVar::Beta(k) => Some(ElasticVar::BetaD(k)),
            ElasticVar::BetaD(k) => Some(ElasticVar::BetaDd(k)),
            ElasticVar::W(k) => Some(ElasticVar::WD(k)),
            ElasticVar::WD(k) => Some(ElasticVar::WDd(k)),
            ElasticVar::Qddd(j) => Some(ElasticVar::Qdddd(j)),
            ElasticVar::BetaDd(_)
            | ElasticVar::WDd(_)
            | ElasticVar::Theta(_)
            | ElasticVar::ThetaD(_)
            | ElasticVar::Qdddd(_) => None,
        }
    }
}

/// Inputs describing a moving base (Pinocchio's free-flyer layout).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BaseVar {
    /// Base pose: position x, y, z in the world, then the quaternion x, y, z, w (0..7).
    Pose(u8),
    /// Base velocity in base-frame components: linear (0..3), then angular (3..6).
    Vel(u8),
    /// Its time derivative (Pinocchio's spatial acceleration: the linear part is
    /// `Rᵀ p̈ - ω × v`), 0..6.
    Acc(u8),
    /// Wrench on the base in base-frame components: force (0..3), moment (3..6).
    Wrench(u8),
}

/// Values of the elastic inputs: compliance angles, modal coordinates and their derivatives.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ElasticInputs {
    /// `beta` (NBETA).
    pub beta: Vec<f64>,
    /// Its rate.
    pub betad: Vec<f64>,
    /// Its second derivative.
    pub betadd: Vec<f64>,
    /// `w` (NW).
    pub w: Vec<f64>,
    /// Its rate.
    pub wd: Vec<f64>,
    /// Its second derivative.
    pub wdd: Vec<f64>,
    /// Motor-side positions of the elastic joints (NBETA).
    pub theta: Vec<f64>,
    /// Their rates.
    pub thetad: Vec<f64>,
    /// Third time derivatives of the joint positions (N).
    pub qddd: Vec<f64>,
    /// Fourth time derivatives of the joint positions (N).
    pub qdddd: Vec<f64>,
}

impl ElasticInputs {
    /// The value of one elastic input.
    pub fn get(&self, v: ElasticVar) -> f64 {
        let (values, k) = match v {
            ElasticVar::Beta(k) => (&self.beta, k),
            ElasticVar::BetaD(k) => (&self.betad, k),
            ElasticVar::BetaDd(k) => (&self.betadd, k),
            ElasticVar::W(k) => (&self.w, k),
            ElasticVar::WD(k) => (&self.wd, k),
            ElasticVar::WDd(k) => (&self.wdd, k),
            ElasticVar::Theta(k) => (&self.theta, k),
            ElasticVar::ThetaD(k) => (&self.thetad, k),
            ElasticVar::Qddd(k) => (&self.qddd, k),
            ElasticVar::Qdddd(k) => (&self.qdddd, k),
        };
        values.get(usize::from(k)).copied().unwrap_or(0.0)
    }
}

/// Position of a base input in [`crate::ir::Env::base`] (pose, velocity, acceleration, wrench).
pub fn base_slot(b: BaseVar) -> usize {
    match b {
        BaseVar::Pose(k) => usize::from(k),
        BaseVar::Vel(k) => 7 + usize::from(k),
        BaseVar::Acc(k) => 13 + usize::from(k),
        BaseVar::Wrench(k) => 19 + usize::from(k),
    }
}

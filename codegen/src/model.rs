//! The validated robot: what the spec parser produces and every later stage consumes.
//!
//! Frames follow the method (see docs/spec.md): body `i`'s frame has its origin at the pole
//! `O_i` on the joint axis and is parallel to the base frame at the zero configuration.

/// The most bodies (joints) a robot may have: joint sets are 64-bit masks in the IR (a
/// `sin`/`cos` leaf names the joints whose angles it sums), and generated code is straight-line,
/// its size growing roughly with the cube of the number of bodies.
pub const MAX_BODIES: usize = 64;

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
    /// Unit joint axis, in this body's frame (the same components in the frame before the
    /// joint turns, which is the carrier's frame turned by [`RobotBody::rotation`]).
    pub axis: [f64; 3],
    /// This body's frame at `q_i = 0` in its carrier's frame (columns = its axes). Specs and
    /// imports give every frame parallel to the base at `q = 0` (the identity); the derivation
    /// may choose other frames for shorter code (always the identity for a prismatic joint).
    pub rotation: [[f64; 3]; 3],
    /// Carrier of this body: `None` for the base, else the index of an earlier body (bodies are
    /// listed parents first, the regular numbering of seed 004).
    pub parent: Option<usize>,
    /// Pole `O_i` from the carrier's pole, in the carrier's frame (from the base origin, in the
    /// base frame, for a body carried by the base); for a prismatic joint at `q_i = 0`.
    pub origin: [f64; 3],
    /// `L_i e_i`: from this pole to the next one (the tool point for the last body of a chain;
    /// the default `origin` of the bodies it carries).
    pub next: [f64; 3],
    /// Mass of this body alone, kg.
    pub mass: f64,
    /// Centre of mass from the pole, m.
    pub com: [f64; 3],
    /// Inertia tensor about the centre of mass (tensor entries, off-diagonals `-∫xy dm`).
    pub inertia_com: [[f64; 3]; 3],
    /// Parameters kept symbolic in generated code.
    pub symbolic: SymbolicInertial,
    /// The joint's compliance, if it is elastic (its compliance angle `beta` adds to `q_i`).
    pub elastic: Option<ElasticJoint>,
    /// The link's bending modes, if it is flexible.
    pub flex: Option<Flex>,
    /// The joint's armature (a rotor's inertia reflected through its gear, kg m², or kg for a
    /// prismatic joint), non-negative: it adds to the mass matrix's diagonal entry of this
    /// joint alone, as Pinocchio's `model.armature` and MuJoCo's joint `armature`.
    pub armature: f64,
    /// A spring to a fixed reference and a damper acting on the joint coordinate itself (MuJoCo's
    /// joint `stiffness`, `springref` and `damping`), giving `passive_forces`; zero for none.
    pub passive: PassiveJoint,
    /// Whether this joint follows another (URDF `<mimic>`, an MJCF `joint` equality with
    /// `joint2`): it is then no coordinate of the generated functions.
    pub mimic: Option<Mimic>,
}

/// A joint that follows another: `q = multiplier * q_master + offset` (so its rate and
/// acceleration are `multiplier` times the master's); the force it transmits acts on the
/// master's coordinate through the same factor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mimic {
    /// The body whose joint it follows: an earlier or later body that follows none.
    pub master: usize,
    /// `dq / dq_master`.
    pub multiplier: f64,
    /// Its position when the master's is zero (rad or m).
    pub offset: f64,
}

/// A joint's linear spring and damper: the force `-stiffness (q - reference) - damping qd`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PassiveJoint {
    /// N m/rad (N/m for a prismatic joint), non-negative.
    pub stiffness: f64,
    /// N m s/rad (N s/m), non-negative.
    pub damping: f64,
    /// The joint position at which the spring is at rest (rad or m, in `q`'s own terms).
    pub reference: f64,
}

impl PassiveJoint {
    /// A spring and a damper as read; none at all (the default) when there is neither, whatever
    /// `reference`, which then acts on nothing: so that a spec, which writes a joint's
    /// `passive` only when it has a spring or a damper, reads back the same.
    pub fn new(stiffness: f64, damping: f64, reference: f64) -> PassiveJoint {
        let passive = PassiveJoint {
            stiffness,
            damping,
            reference,
        };
        if passive.is_some() {
            passive
        } else {
            PassiveJoint::default()
        }
    }

    /// Whether the joint has a spring or a damper.
    pub fn is_some(&self) -> bool {
        self.stiffness != 0.0 || self.damping != 0.0
    }
}

/// A spring and damper on a linear combination of joint coordinates, the length of a fixed
/// tendon (MuJoCo's `<fixed>` tendon with `stiffness`, `damping` and `springlength`):
/// `L = Σ c_j q_j` pulls each of its joints by `c_j (-stiffness (L - length) - damping L')`.
#[derive(Clone, Debug, PartialEq)]
pub struct TendonSpring {
    /// The tendon's name (as the input names it).
    pub name: String,
    /// Its joints (indices into [`Robot::bodies`]) and their coefficients `c_j`.
    pub joints: Vec<(usize, f64)>,
    /// N/m (or N m/rad), non-negative.
    pub stiffness: f64,
    /// N s/m (or N m s/rad), non-negative.
    pub damping: f64,
    /// The length at which the spring is at rest.
    pub length: f64,
}

/// An elastic joint: a spring (and optionally a damper) between the motor and the link.
#[derive(Clone, Debug, PartialEq)]
pub struct ElasticJoint {
    /// Stiffness, N m/rad (N/m for a prismatic joint), positive.
    pub stiffness: f64,
    /// Damping, N m s/rad (N s/m), non-negative.
    pub damping: Option<f64>,
    /// The rotor's inertia reflected through the gear, about the joint axis (kg m², or kg for a
    /// prismatic joint), positive.
    pub motor_inertia: Option<f64>,
}

/// A flexible link: a uniform clamped-free Euler–Bernoulli beam from the pole `O_i` to the next
/// pole (the tool point for the last body), bending in the given directions.
#[derive(Clone, Debug, PartialEq)]
pub struct Flex {
    /// Unit bending directions in the body frame, perpendicular to the link, as written (the
    /// letter, if the spec gave one, for names).
    pub directions: Vec<FlexDirection>,
    /// Number of modes per direction, `1..=`[`MAX_FLEX_MODES`].
    pub modes: usize,
}

/// One bending direction of a flexible link.
#[derive(Clone, Debug, PartialEq)]
pub struct FlexDirection {
    /// Unit vector in the body frame.
    pub vector: [f64; 3],
    /// The axis letter it was written as (`"y"`, `"-z"`), if any.
    pub letter: Option<String>,
}

/// Most bending modes per direction of a flexible link.
pub const MAX_FLEX_MODES: usize = 10;

impl FlexDirection {
    /// The direction's name in `w` names: its letter, else `d{k}` (1-based position).
    pub fn label(&self, k: usize) -> String {
        self.letter.clone().unwrap_or_else(|| format!("d{}", k + 1))
    }
}

/// A named frame fixed on a body: its own forward kinematics and Jacobian are generated.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// Frame name as written in the spec or URDF (function names use [`Frame::ident`]).
    pub name: String,
    /// Index of the body carrying it; `None` for the base itself, which only a floating base
    /// gives a frame from a spec or a URDF (on any other base such a frame never moves).
    pub body: Option<usize>,
    /// Origin from the body's pole (from the base origin for the base), in the body's frame.
    pub position: [f64; 3],
    /// Orientation in the body's frame (rows; columns are the frame's axes).
    pub rotation: [[f64; 3]; 3],
}

impl Frame {
    /// The name as a lower-case identifier: ASCII letters and digits kept (lower-cased),
    /// every other character replaced by `_` (`link_3.0_tip` → `link_3_0_tip`).
    pub fn ident(&self) -> String {
        crate::names::frame_ident(&self.name)
    }
}

/// How a contact holds its frame (`kind` of a `[[contact]]`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ContactKind {
    /// The frame's origin is held (3 rows: its classical acceleration is zero; a force).
    #[default]
    Point,
    /// The whole frame is held (6 rows: its spatial acceleration is zero; a force and a
    /// moment about its origin).
    SixD,
}

impl ContactKind {
    /// The rows a contact of this kind adds to `Jc` and `lambda`.
    pub fn rows(self) -> usize {
        match self {
            ContactKind::Point => 3,
            ContactKind::SixD => 6,
        }
    }

    /// The kind's name in a spec (`kind = "point"`) and on the command line (`FRAME:6d`).
    pub fn name(self) -> &'static str {
        match self {
            ContactKind::Point => "point",
            ContactKind::SixD => "6d",
        }
    }

    /// The kind named `name` (`"point"` or `"6d"`).
    pub fn by_name(name: &str) -> Option<ContactKind> {
        match name {
            "point" => Some(ContactKind::Point),
            "6d" => Some(ContactKind::SixD),
            _ => None,
        }
    }
}

/// A rigid contact on a named frame, for the contact dynamics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Contact {
    /// Index of the named frame in [`Robot::frames`].
    pub frame: usize,
    /// What it holds.
    pub kind: ContactKind,
}

/// How the base moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BaseMotion {
    /// The base is fixed in the world.
    #[default]
    Fixed,
    /// The base moves along a known trajectory (a ship deck, a vehicle, a shaking table): its
    /// pose, velocity and acceleration are inputs (`base_pose[7]`, `base_vel[6]`,
    /// `base_acc[6]`) of the inverse and forward dynamics, nonlinear effects and gravity.
    Prescribed,
    /// A prescribed base that only translates (seed 004's `V_1(t)`): the same inputs, of which
    /// the angular velocity and acceleration are not read; cheaper than [`Self::Prescribed`].
    Translating,
    /// The base is a free body (Pinocchio's free-flyer): six unactuated coordinates before the
    /// joints, `NQ = 7 + n` (position, unit quaternion x y z w) and `NV = 6 + n` (linear and
    /// angular velocity in the base frame).
    Floating,
}

/// How a floating base's coordinates are laid out in `q`, `v` and `a` (and its wrench in `tau`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BaseLayout {
    /// Pinocchio's free-flyer: `q` = position, then the quaternion x y z w; `v` = linear
    /// velocity of the base origin and angular velocity, both in base axes; `a` their time
    /// derivatives; the base wrench in base axes.
    #[default]
    Pinocchio,
    /// MuJoCo's free joint (`qpos`, `qvel`, `qacc`): position, then the quaternion w x y z;
    /// linear velocity of the base origin in world axes, angular velocity in base axes; `qacc`
    /// their time derivatives; the force on the base in world axes, its moment in base axes.
    Mujoco,
}

/// The inertial parameters of a floating base body (the trunk), in the base frame.
#[derive(Clone, Debug, PartialEq)]
pub struct BaseBody {
    /// Mass, kg.
    pub mass: f64,
    /// Centre of mass from the base origin, m.
    pub com: [f64; 3],
    /// Inertia tensor about the centre of mass (tensor entries).
    pub inertia_com: [[f64; 3]; 3],
    /// Which of its parameters stay symbolic (named `m0`, `mx0`, .., `izz0`): the regressor's
    /// derivation sets them; a spec's or URDF's base body is numeric.
    pub symbolic: SymbolicInertial,
    /// The free joint's armature, non-negative: it adds to each of the base's six diagonal
    /// entries of the mass matrix and `armature` times the base's acceleration input to its
    /// force, in the base's layout (Pinocchio's `model.armature` of the free-flyer's six
    /// entries; MuJoCo's free-joint `armature`, whose `qacc` holds the origin's acceleration
    /// in world axes). Zero for none.
    pub armature: f64,
}

/// A validated robot: a serial chain or a tree, on a fixed or floating base.
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
    /// Bodies, parents before children (base to tip for a chain).
    pub bodies: Vec<RobotBody>,
    /// Named frames fixed on bodies.
    pub frames: Vec<Frame>,
    /// Which inertial parameters symbolic ones are (physical or base).
    pub parameters: ParameterSet,
    /// How the base moves.
    pub motion: BaseMotion,
    /// The base body's inertia (a floating base only).
    pub base_body: Option<BaseBody>,
    /// A floating base's coordinate layout (Pinocchio's unless read from MJCF or asked for).
    pub base_layout: BaseLayout,
    /// Rigid contacts on named frames, in the order `Jc`'s rows and `lambda` list them.
    pub contacts: Vec<Contact>,
    /// Springs and dampers on combinations of joint coordinates (MJCF fixed tendons), which
    /// `passive_forces` adds to the joints' own.
    pub tendons: Vec<TendonSpring>,
}

impl Robot {
    /// Number of joints (degrees of freedom).
    pub fn dof(&self) -> usize {
        self.bodies.len()
    }

    /// Whether some joint follows another ([`Mimic`]): the generated functions then take the
    /// independent joints alone as coordinates.
    pub fn has_couplings(&self) -> bool {
        self.bodies.iter().any(|b| b.mimic.is_some())
    }

    /// The joints that are coordinates (those that follow no other), in body order: entry `r`
    /// is the body of coordinate `r`.
    pub fn coordinate_joints(&self) -> Vec<usize> {
        (0..self.bodies.len())
            .filter(|&j| self.bodies[j].mimic.is_none())
            .collect()
    }

    /// For each joint, the coordinate it moves with and the factor: `(r, 1)` for a coordinate's
    /// own joint, `(r, multiplier)` for a joint that follows coordinate `r`'s.
    pub fn joint_coordinates(&self) -> Vec<(usize, f64)> {
        let own = self.coordinate_joints();
        let index = |j: usize| own.iter().position(|&k| k == j).unwrap_or(0);
        self.bodies
            .iter()
            .enumerate()
            .map(|(j, b)| match b.mimic {
                Some(m) => (index(m.master), m.multiplier),
                None => (index(j), 1.0),
            })
            .collect()
    }

    /// Whether the base moves along a prescribed trajectory (translating or not).
    pub fn is_prescribed(&self) -> bool {
        matches!(
            self.motion,
            BaseMotion::Prescribed | BaseMotion::Translating
        )
    }

    /// Whether the base floats (Pinocchio's free-flyer).
    pub fn is_floating(&self) -> bool {
        self.motion == BaseMotion::Floating
    }

    /// Whether the base floats with MuJoCo's free-joint layout ([`BaseLayout::Mujoco`]).
    pub fn is_mujoco_floating(&self) -> bool {
        self.is_floating() && self.base_layout == BaseLayout::Mujoco
    }

    /// The same robot with its floating base in Pinocchio's layout: MuJoCo's functions that
    /// are derived in Pinocchio's layout and read in MuJoCo's start from it. The free joint's
    /// armature is left out: MuJoCo's is a term of its own layout (`armature qacc`, which
    /// Pinocchio's inputs would write with a velocity term), added by those functions in
    /// MuJoCo's.
    pub fn in_pinocchio_layout(&self) -> Robot {
        let mut robot = Robot {
            base_layout: BaseLayout::Pinocchio,
            ..self.clone()
        };
        if let Some(body) = &mut robot.base_body {
            body.armature = 0.0;
        }
        robot
    }

    /// Whether every body is carried by the one listed before it (the first by the base):
    /// a serial chain, which has a tool (`forward_kinematics`, `jacobian`).
    pub fn is_chain(&self) -> bool {
        self.bodies
            .iter()
            .enumerate()
            .all(|(i, b)| b.parent == i.checked_sub(1))
    }

    /// `NC`: the rows of the contacts (3 per point contact, 6 per 6d contact).
    pub fn contact_rows(&self) -> usize {
        self.contacts.iter().map(|c| c.kind.rows()).sum()
    }

    /// Each contact's frame name, in contact order.
    pub fn contact_names(&self) -> Vec<String> {
        self.contacts
            .iter()
            .map(|c| self.frames[c.frame].name.clone())
            .collect()
    }

    /// Adds the contacts `given` as the command line writes them (`FRAME` for a point contact,
    /// `FRAME:6d` or `FRAME:point`), after those the robot already has. An unknown frame, an
    /// unknown kind or a frame that already has a contact is refused, saying which.
    pub fn add_contacts(&mut self, given: &[String]) -> Result<(), String> {
        for text in given {
            let (name, kind) = match text.rsplit_once(':') {
                Some((name, kind)) => match ContactKind::by_name(kind) {
                    Some(k) => (name, k),
                    None => {
                        return Err(format!(
                            "--contact {text}: unknown contact kind \"{kind}\": expected \
                             \"point\" or \"6d\" (FRAME or FRAME:6d)"
                        ))
                    }
                },
                None => (text.as_str(), ContactKind::Point),
            };
            let Some(frame) = self.frames.iter().position(|f| f.name == name) else {
                let names: Vec<&str> = self.frames.iter().map(|f| f.name.as_str()).collect();
                return Err(format!(
                    "--contact {text}: `{}` has no frame `{name}`; its named frames: {}",
                    self.name,
                    if names.is_empty() {
                        "none".to_owned()
                    } else {
                        names.join(", ")
                    }
                ));
            };
            if self.contacts.iter().any(|c| c.frame == frame) {
                return Err(format!(
                    "--contact {text}: frame `{name}` already has a contact"
                ));
            }
            self.contacts.push(Contact { frame, kind });
        }
        Ok(())
    }

    /// Whether any joint has a spring or a damper ([`RobotBody::passive`]).
    pub fn has_passive_joints(&self) -> bool {
        self.bodies.iter().any(|b| b.passive.is_some()) || !self.tendons.is_empty()
    }

    /// Whether any joint has a non-zero armature ([`RobotBody::armature`]), the floating
    /// base's free joint included ([`BaseBody::armature`]).
    pub fn has_armature(&self) -> bool {
        self.bodies.iter().any(|b| b.armature != 0.0) || self.base_armature() != 0.0
    }

    /// The floating base's armature ([`BaseBody::armature`]), zero without one.
    pub fn base_armature(&self) -> f64 {
        self.base_body.as_ref().map_or(0.0, |b| b.armature)
    }

    /// Whether any joint is elastic or any link flexible.
    pub fn has_elasticity(&self) -> bool {
        self.bodies
            .iter()
            .any(|b| b.elastic.is_some() || b.flex.is_some())
    }

    /// The elastic joints (indices), in joint order: the entries of `beta`.
    pub fn elastic_joints(&self) -> Vec<usize> {
        (0..self.bodies.len())
            .filter(|&i| self.bodies[i].elastic.is_some())
            .collect()
    }

    /// The modal coordinates `w`, body by body, direction by direction (as listed), mode by
    /// mode: (body, direction index, mode index, 0-based).
    pub fn flex_coordinates(&self) -> Vec<(usize, usize, usize)> {
        let mut out = Vec::new();
        for (i, b) in self.bodies.iter().enumerate() {
            if let Some(f) = &b.flex {
                for d in 0..f.directions.len() {
                    for m in 0..f.modes {
                        out.push((i, d, m));
                    }
                }
            }
        }
        out
    }

    /// Names of the entries of `beta`: the elastic joints' names.
    pub fn beta_names(&self) -> Vec<String> {
        self.elastic_joints()
            .into_iter()
            .map(|i| self.bodies[i].joint_name.clone())
            .collect()
    }

    /// Names of the entries of `w`: `BODY.DIRECTION.MODE` (`forearm.z.1`; a direction given as
    /// a vector is `d1`, `d2`, .. by its position in the list; modes count from 1).
    pub fn w_names(&self) -> Vec<String> {
        self.flex_coordinates()
            .into_iter()
            .map(|(i, d, m)| {
                let b = &self.bodies[i];
                let f = b.flex.as_ref().expect("a flexible body");
                format!("{}.{}.{}", b.name, f.directions[d].label(d), m + 1)
            })
            .collect()
    }

    /// The kinematic tree that drives every recursion.
    pub fn topology(&self) -> Topology {
        Topology::new(self.bodies.iter().map(|b| b.parent).collect())
    }
}

/// Topology of a robot: the carrier of each body, with bodies numbered parents first (seed
/// 004's regular numbering). A chain is the tree with `parent(i) = i - 1`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Topology {
    parent: Vec<Option<usize>>,
    children: Vec<Vec<usize>>,
    /// Bit `k` of entry `j` set when body `k` is in subsystem `j` (seed 001's `i+1..N_i`
    /// with `i` itself, for depth-first numbering).
    subtree_mask: Vec<u64>,
}

impl Topology {
    /// # Panics
    /// If a parent is not listed before its child, or there are more than [`MAX_BODIES`].
    pub fn new(parent: Vec<Option<usize>>) -> Self {
        let n = parent.len();
        assert!(n <= MAX_BODIES, "at most {MAX_BODIES} bodies");
        let mut children = vec![Vec::new(); n];
        for (i, p) in parent.iter().enumerate() {
            if let Some(p) = *p {
                assert!(p < i, "parents are listed before their children");
                children[p].push(i);
            }
        }
        let mut subtree_mask = vec![0u64; n];
        for i in (0..n).rev() {
            subtree_mask[i] |= 1u64 << i;
            if let Some(p) = parent[i] {
                let m = subtree_mask[i];
                subtree_mask[p] |= m;
            }
        }
        Topology {
            parent,
            children,
            subtree_mask,
        }
    }

    /// Number of bodies.
    pub fn len(&self) -> usize {
        self.parent.len()
    }

    /// Whether there are no bodies.
    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }

    /// Carrier of body `i` (`None`: the base).
    pub fn parent(&self, i: usize) -> Option<usize> {
        self.parent[i]
    }

    /// Bodies carried directly by body `i`, in order.
    pub fn children(&self, i: usize) -> &[usize] {
        &self.children[i]
    }

    /// Bodies carried directly by the base, in order.
    pub fn roots(&self) -> Vec<usize> {
        (0..self.len())
            .filter(|&i| self.parent[i].is_none())
            .collect()
    }

    /// Whether body `k` is `j` or carried by it (`k` in seed 001's subsystem `j`).
    pub fn in_subtree(&self, j: usize, k: usize) -> bool {
        self.subtree_mask[j] & (1u64 << k) != 0
    }

    /// Bodies of subsystem `j` (itself and everything it carries), ascending.
    pub fn subtree(&self, j: usize) -> Vec<usize> {
        (j..self.len()).filter(|&k| self.in_subtree(j, k)).collect()
    }

    /// Path from the base to body `i`, base side first, `i` included (seed 004's column of
    /// `S^-1`).
    pub fn path(&self, i: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut at = Some(i);
        while let Some(k) = at {
            out.push(k);
            at = self.parent[k];
        }
        out.reverse();
        out
    }

    /// Whether one of `j`, `k` carries the other (else `H_jk` is an exact zero).
    pub fn related(&self, j: usize, k: usize) -> bool {
        self.in_subtree(j, k) || self.in_subtree(k, j)
    }
}

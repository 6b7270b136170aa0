//! Validating a whole spec into a [`Robot`]: the top-level keys, the base, the bodies (in
//! `bodies`), the frames and the tool.

use toml::Spanned;

use super::raw::{About, RawBase, RawContact, RawFrame, RawSpec, RawTendon, RawTool, BASE_NAME};
use super::values::Validator;
use crate::error::SpecError;
use crate::mat3::{self, M3, V3};
use crate::model::{
    BaseBody, BaseLayout, BaseMotion, Contact, ContactKind, Frame, ParameterSet, Robot, RobotBody,
    SymbolicInertial, TendonSpring,
};

/// Why a fixed base takes no inertia.
const FIXED_BASE_INERTIA: &str =
    "only a floating base (motion = \"floating\") has inertial parameters: a fixed or \
     prescribed base's inertia enters no function";

/// What `[base]` says: the default pole of the base's bodies, how the base moves, a floating
/// base's inertia and coordinate layout.
#[derive(Default)]
struct BaseRead {
    position: V3,
    motion: BaseMotion,
    body: Option<BaseBody>,
    layout: BaseLayout,
}

impl Validator<'_> {
    /// The robot a spec describes, or the first problem found in it, located.
    pub(super) fn robot(&self, raw: RawSpec) -> Result<Robot, SpecError> {
        if let Some(v) = &raw.version {
            if *v.get_ref() != 1 {
                return Err(self.err(
                    v.span(),
                    "version",
                    format!("unsupported format version {}, expected 1", v.get_ref()),
                ));
            }
        }
        let name = self.name(&raw.name, "name")?;
        let gravity = match &raw.gravity {
            Some(g) => self.vec3(g, "gravity")?,
            None => [0.0, -9.81, 0.0],
        };
        let BaseRead {
            position: base,
            motion,
            body: base_body,
            layout: base_layout,
        } = match &raw.base {
            Some(b) => self.base(b)?,
            None => BaseRead::default(),
        };
        let mut all_symbolic = SymbolicInertial::default();
        self.symbolic(&raw.symbolic, "symbolic", &mut all_symbolic)?;
        let tool_rotation = match &raw.tool {
            Some(t) => self.tool(t)?,
            None => mat3::IDENTITY,
        };
        let parameters = match &raw.parameters {
            None => ParameterSet::Physical,
            Some(p) => match p.get_ref().as_str() {
                "physical" => ParameterSet::Physical,
                "base" => ParameterSet::Base,
                other => {
                    return Err(self.err(
                        p.span(),
                        "parameters",
                        format!(
                            "unknown parameter set {other:?}: expected \"physical\" or \"base\""
                        ),
                    ))
                }
            },
        };

        let bodies = self.bodies(&raw, base, motion, all_symbolic)?;

        let mut frames: Vec<Frame> = Vec::new();
        for (i, rf) in raw.frame.iter().flat_map(|f| f.get_ref()).enumerate() {
            frames.push(self.frame(rf, i + 1, &bodies, &frames, motion)?);
        }
        let mut contacts: Vec<Contact> = Vec::new();
        for (i, rc) in raw.contact.iter().flat_map(|c| c.get_ref()).enumerate() {
            contacts.push(self.contact(rc.get_ref(), i + 1, &frames, &contacts)?);
        }
        let mut tendons: Vec<TendonSpring> = Vec::new();
        for (i, rt) in raw.tendon.iter().flat_map(|t| t.get_ref()).enumerate() {
            tendons.push(self.tendon(rt, i + 1, &bodies)?);
        }

        if let (true, ParameterSet::Base, Some(p)) =
            (motion != BaseMotion::Fixed, parameters, &raw.parameters)
        {
            return Err(self.err(
                p.span(),
                "parameters",
                "parameters = \"base\" is not available with a moving or floating base yet: \
                 use \"physical\" (the default)",
            ));
        }
        Ok(Robot {
            name,
            description: raw.description,
            source: raw.source,
            gravity,
            base,
            tool_rotation,
            bodies,
            frames,
            parameters,
            motion,
            base_body,
            base_layout,
            contacts,
            tendons,
        })
    }

    /// The `k`-th (1-based) `[[contact]]`: a named frame of this spec, a known kind, one
    /// contact per frame.
    fn contact(
        &self,
        rc: &RawContact,
        k: usize,
        frames: &[Frame],
        earlier: &[Contact],
    ) -> Result<Contact, SpecError> {
        let field = |key: &str| format!("contact[{k}].{key}");
        let name = rc.frame.get_ref();
        let Some(frame) = frames.iter().position(|f| &f.name == name) else {
            let names: Vec<&str> = frames.iter().map(|f| f.name.as_str()).collect();
            return Err(self.err(
                rc.frame.span(),
                field("frame"),
                format!(
                    "no frame named \"{name}\": a contact is on a [[frame]] of the spec ({})",
                    if names.is_empty() {
                        "it has none".to_owned()
                    } else {
                        format!("it has {}", names.join(", "))
                    }
                ),
            ));
        };
        if earlier.iter().any(|c| c.frame == frame) {
            return Err(self.err(
                rc.frame.span(),
                field("frame"),
                format!("frame \"{name}\" already has a contact"),
            ));
        }
        let kind = match &rc.kind {
            None => ContactKind::Point,
            Some(kind) => ContactKind::by_name(kind.get_ref()).ok_or_else(|| {
                self.err(
                    kind.span(),
                    field("kind"),
                    format!(
                        "unknown contact kind \"{}\": expected \"point\" or \"6d\"",
                        kind.get_ref()
                    ),
                )
            })?,
        };
        Ok(Contact { frame, kind })
    }

    /// The `k`-th (1-based) `[[tendon]]`: joints of this spec (each once, none elastic), one
    /// finite coefficient per joint, a non-negative stiffness and damping not both zero, and
    /// the rest length (zero by default).
    fn tendon(
        &self,
        rt: &Spanned<RawTendon>,
        k: usize,
        bodies: &[RobotBody],
    ) -> Result<TendonSpring, SpecError> {
        let field = |key: &str| format!("tendon[{k}].{key}");
        let t = rt.get_ref();
        let mut joints: Vec<(usize, f64)> = Vec::new();
        for name in t.joints.get_ref() {
            let Some(j) = bodies.iter().position(|b| &b.joint_name == name.get_ref()) else {
                return Err(self.err(
                    name.span(),
                    field("joints"),
                    format!("no joint named \"{}\"", name.get_ref()),
                ));
            };
            if joints.iter().any(|&(i, _)| i == j) || bodies[j].elastic.is_some() {
                let why = if bodies[j].elastic.is_some() {
                    "is elastic (its spring acts between motor and link)"
                } else {
                    "is listed twice"
                };
                return Err(self.err(
                    name.span(),
                    field("joints"),
                    format!("joint \"{}\" {why}", name.get_ref()),
                ));
            }
            joints.push((j, 0.0));
        }
        let coefficients = t.coefficients.get_ref();
        if joints.is_empty() || coefficients.len() != joints.len() {
            return Err(self.err(
                t.coefficients.span(),
                field("coefficients"),
                format!(
                    "one coefficient per joint: {} joints, {} coefficients",
                    joints.len(),
                    coefficients.len()
                ),
            ));
        }
        for (joint, c) in joints.iter_mut().zip(coefficients) {
            joint.1 = self.num(c, &field("coefficients"))?;
        }
        let table = format!("tendon[{k}]");
        let stiffness = self.non_negative(&t.stiffness, &table, "stiffness")?;
        let damping = self.non_negative(&t.damping, &table, "damping")?;
        if stiffness == 0.0 && damping == 0.0 {
            return Err(self.err(
                rt.span(),
                format!("tendon[{k}]"),
                "a tendon needs a stiffness or a damping (it acts on nothing otherwise)",
            ));
        }
        let length = match &t.length {
            Some(n) => self.num(n, &field("length"))?,
            None => 0.0,
        };
        Ok(TendonSpring {
            name: t.name.get_ref().clone(),
            joints,
            stiffness,
            damping,
            length,
        })
    }

    /// `base = [x, y, z]` or the `[base]` table: the default pole of the base's bodies, how
    /// the base moves, and a floating base's inertia.
    fn base(&self, b: &Spanned<RawBase>) -> Result<BaseRead, SpecError> {
        let t = match b.get_ref() {
            RawBase::Position(v) => {
                return Ok(BaseRead {
                    position: self.position_list(v, b.span(), "base")?,
                    ..BaseRead::default()
                })
            }
            RawBase::Table(t) => t,
        };
        let motion = match &t.motion {
            None => BaseMotion::Fixed,
            Some(m) => match m.get_ref().as_str() {
                "fixed" => BaseMotion::Fixed,
                "floating" => BaseMotion::Floating,
                "prescribed" => BaseMotion::Prescribed,
                other => {
                    return Err(self.err(
                        m.span(),
                        "base.motion",
                        format!(
                            "unknown base motion \"{other}\": expected \"fixed\", \
                             \"prescribed\" or \"floating\""
                        ),
                    ))
                }
            },
        };
        let motion = match (motion, &t.translation_only) {
            (_, None) => motion,
            (BaseMotion::Prescribed, Some(f)) if *f.get_ref() => BaseMotion::Translating,
            (BaseMotion::Prescribed, Some(_)) => motion,
            (_, Some(f)) => return Err(self.err(
                f.span(),
                "base.translation_only",
                "`translation_only` describes a prescribed base: it needs motion = \"prescribed\"",
            )),
        };
        let position = match &t.position {
            Some(p) => self.vec3(p, "base.position")?,
            None => [0.0; 3],
        };
        if let (false, Some(a)) = (motion == BaseMotion::Floating, &t.armature) {
            return Err(self.err(
                a.span(),
                "base.armature",
                "`armature` is a floating base's free joint's: it needs motion = \"floating\"",
            ));
        }
        let body = match (motion, &t.mass) {
            (BaseMotion::Fixed | BaseMotion::Prescribed | BaseMotion::Translating, None) => {
                if let Some(c) = &t.com {
                    return Err(self.err(c.span(), "base.com", FIXED_BASE_INERTIA));
                }
                if let Some(i) = &t.inertia {
                    return Err(self.err(i.span(), "base.inertia", FIXED_BASE_INERTIA));
                }
                None
            }
            (BaseMotion::Fixed | BaseMotion::Prescribed | BaseMotion::Translating, Some(m)) => {
                return Err(self.err(m.span(), "base.mass", FIXED_BASE_INERTIA))
            }
            (BaseMotion::Floating, None) => {
                return Err(self.err(
                    b.span(),
                    "base.mass",
                    "a floating base needs its `mass` (and `com`, `inertia`): the trunk's \
                     inertia enters every function",
                ))
            }
            (BaseMotion::Floating, Some(m)) => {
                let mass = self.num(m, "base.mass")?;
                if mass < 0.0 {
                    return Err(self.err(
                        m.span(),
                        "base.mass",
                        format!("mass must not be negative, got {mass}"),
                    ));
                }
                let com = match &t.com {
                    Some(c) => self.vec3(c, "base.com")?,
                    None => [0.0; 3],
                };
                let (tensor, about) = match &t.inertia {
                    Some(i) => self.inertia(i, "base.inertia")?,
                    None => ([[0.0; 3]; 3], About::Com),
                };
                let inertia_com = match about {
                    About::Com => tensor,
                    About::Pole => mat3::mat_sub(&tensor, &mat3::point_mass_inertia(mass, com)),
                };
                if let Some(i) = &t.inertia {
                    self.check_inertia(&inertia_com, about, i, "base.inertia")?;
                }
                let armature = self.non_negative(&t.armature, "base", "armature")?;
                Some(BaseBody {
                    mass,
                    com,
                    inertia_com,
                    symbolic: SymbolicInertial::default(),
                    armature,
                })
            }
        };
        let layout = match &t.layout {
            None => BaseLayout::Pinocchio,
            Some(l) if motion != BaseMotion::Floating => {
                return Err(self.err(
                    l.span(),
                    "base.layout",
                    "`layout` is the coordinate layout of a floating base: it needs motion = \
                     \"floating\"",
                ))
            }
            Some(l) => match l.get_ref().as_str() {
                "pinocchio" => BaseLayout::Pinocchio,
                "mujoco" => BaseLayout::Mujoco,
                other => {
                    return Err(self.err(
                        l.span(),
                        "base.layout",
                        format!(
                            "unknown base layout \"{other}\": expected \"pinocchio\" (the \
                             default) or \"mujoco\""
                        ),
                    ))
                }
            },
        };
        Ok(BaseRead {
            position,
            motion,
            body,
            layout,
        })
    }

    fn frame(
        &self,
        rf: &Spanned<RawFrame>,
        idx: usize,
        bodies: &[RobotBody],
        prev: &[Frame],
        motion: BaseMotion,
    ) -> Result<Frame, SpecError> {
        let f = |k: &str| format!("frame[{idx}].{k}");
        let raw = rf.get_ref();
        let name = self.name(&raw.name, &f("name"))?;
        if let Some(other) = prev.iter().position(|p| p.name == name) {
            return Err(self.err(
                raw.name.span(),
                f("name"),
                format!(
                    "duplicate frame name \"{name}\" (also frame[{}]); frame names must be unique",
                    other + 1
                ),
            ));
        }
        let ident = Frame {
            name: name.clone(),
            body: None,
            position: [0.0; 3],
            rotation: mat3::IDENTITY,
        }
        .ident();
        if let Some(other) = prev.iter().position(|p| p.ident() == ident) {
            return Err(self.err(
                raw.name.span(),
                f("name"),
                format!(
                    "frame name \"{name}\" gives the same function names as frame[{}] \"{}\" \
                     (`{ident}`)",
                    other + 1,
                    prev[other].name
                ),
            ));
        }
        let wanted = raw.body.get_ref();
        // As in `parent`, a body named "base" takes precedence over the base.
        let body = match bodies.iter().position(|b| b.name == *wanted) {
            Some(k) => Some(k),
            None if wanted == BASE_NAME && motion == BaseMotion::Floating => None,
            None => {
                let message = if wanted == BASE_NAME {
                    "a frame on the base needs a floating base ([base] motion = \"floating\"): \
                     on a fixed or prescribed base its pose in the base frame never changes"
                        .to_owned()
                } else {
                    format!("no body named \"{wanted}\"")
                };
                return Err(self.err(raw.body.span(), f("body"), message));
            }
        };
        let position = match &raw.position {
            Some(p) => self.vec3(p, &f("position"))?,
            None => [0.0; 3],
        };
        let rotation = self.rotation(&raw.rotation, &raw.rpy, &format!("frame[{idx}]"))?;
        Ok(Frame {
            name,
            body,
            position,
            rotation,
        })
    }

    fn tool(&self, t: &Spanned<RawTool>) -> Result<M3, SpecError> {
        let tool = t.get_ref();
        self.rotation(&tool.rotation, &tool.rpy, "tool")
    }
}

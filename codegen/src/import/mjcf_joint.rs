//! The joints of an MJCF body as MuJoCo's compiler reads them: hinges and slides (their
//! `ref`, armature, stiffness, damping and `springref`), free joints, joints locked at a
//! value (`--lock`), and the armature actuators add to the joints they drive.

use super::chain::{Pose, V3};
use super::error::ImportError;
use super::lock::Locks;
use super::mjcf_geom::{axis_angle, unit};
use super::mjcf_mass::{Compiler, Item};
use super::mjcf_parse::{Attrs, Count, Defaults, Element, MAIN_CLASS};
use crate::mat3::{add, mat_vec, mul, scale, sub};
use crate::model::{JointKind, PassiveJoint};

/// A hinge or slide joint at `qpos = 0`, in world axes.
pub(super) struct Joint<'e> {
    pub(super) element: &'e Element,
    pub(super) name: String,
    pub(super) kind: JointKind,
    pub(super) anchor: V3,
    pub(super) axis: V3,
    /// `armature`, plus that of the actuators driving the joint (each times its gear squared).
    pub(super) armature: f64,
    /// `stiffness`, `springref` and `damping`.
    pub(super) passive: PassiveJoint,
}

/// What a joint element is: a free joint (the body is the floating base) or a joint of the
/// method's.
pub(super) enum JointRead<'e> {
    /// A free joint, with its armature (on each of its six dofs).
    Free(f64),
    Moving(Joint<'e>),
}

/// Reads a model's joints in MuJoCo's order, keeping what the chain needs of them besides
/// the joints themselves.
pub(super) struct JointReader<'d> {
    defaults: &'d Defaults,
    compiler: &'d Compiler,
    /// Joints read so far (for the names of unnamed ones).
    count: usize,
    /// The joints to fix at a value (`--lock`), and which of them were found.
    pub(super) locks: Locks<'d>,
    /// The joints fixed so far, and their values.
    pub(super) locked: Vec<(String, f64)>,
    /// Each hinge's and slide's `qpos_spring` (its `springref`, a hinge's in radians).
    pub(super) spring_refs: Vec<(String, f64)>,
    /// Each hinge's and slide's `qpos0` (its `ref`, a hinge's in radians).
    pub(super) qpos0: Vec<(String, f64)>,
}

impl<'d> JointReader<'d> {
    pub(super) fn new(defaults: &'d Defaults, compiler: &'d Compiler, locks: Locks<'d>) -> Self {
        Self {
            defaults,
            compiler,
            count: 0,
            locks,
            locked: Vec::new(),
            spring_refs: Vec::new(),
            qpos0: Vec::new(),
        }
    }

    /// A free joint read (counted for the names of unnamed joints), with its `armature`; it
    /// cannot be locked.
    fn free<'e>(
        &mut self,
        element: &'e Element,
        armature: f64,
    ) -> Result<Option<JointRead<'e>>, ImportError> {
        self.count += 1;
        if let Some(name) = element.attr("name") {
            if self.locks.take(name).is_some() {
                return Err(element.unsupported(
                    "",
                    format!("free joint `{name}` cannot be locked (hinge and slide joints can)"),
                ));
            }
        }
        Ok(Some(JointRead::Free(armature)))
    }

    /// The joint `item`, if it is one, with `pose` (the body's) moved by its `-ref`, or to its
    /// value if it is locked (it is then no joint: `None`).
    pub(super) fn joint<'e>(
        &mut self,
        item: &Item<'e>,
        pose: &mut Pose,
    ) -> Result<Option<JointRead<'e>>, ImportError> {
        let element = item.element;
        if element.tag == "freejoint" {
            // `<freejoint>` takes no default class: armature, damping and stiffness are zero.
            let attrs = Attrs::plain(element);
            if attrs.keyword("align", &["false", "true", "auto"])? == Some("true") {
                return Err(attrs.element.unsupported(
                    "align",
                    "align=\"true\" (the free body's frame moved to its inertial frame) is not \
                     supported yet: qpos would then be the pose of MuJoCo's principal axes"
                        .to_owned(),
                ));
            }
            return self.free(element, 0.0);
        }
        if element.tag != "joint" {
            return Ok(None);
        }
        let attrs = self.defaults.attrs(element, &item.class)?;
        let types = ["hinge", "slide", "ball", "free"];
        let kind = match attrs.keyword("type", &types)?.unwrap_or("hinge") {
            "hinge" => JointKind::Revolute,
            "slide" => JointKind::Prismatic,
            "free" => {
                let passive = ["stiffness", "damping"]
                    .into_iter()
                    .find(|&key| attrs.number(key, 0.0).is_ok_and(|v| v != 0.0));
                if let Some(key) = passive {
                    return Err(attrs
                        .element
                        .unsupported(key, format!("{key} on a free joint is not supported yet")));
                }
                if attrs.keyword("align", &["false", "true", "auto"])? == Some("true") {
                    return Err(attrs.element.unsupported(
                        "align",
                        "align=\"true\" (the free body's frame moved to its inertial frame) is \
                         not supported yet"
                            .to_owned(),
                    ));
                }
                let armature = non_negative_armature(&attrs)?;
                return self.free(element, armature);
            }
            other => {
                return Err(attrs.element.unsupported_joint(
                    "type",
                    format!(
                        "{other} joints are not supported yet (hinge, slide and free joints are)"
                    ),
                ))
            }
        };
        let armature = non_negative_armature(&attrs)?;
        let passive = self.passive(&attrs, kind)?;
        // Limits do not enter these functions, but MuJoCo refuses a range it cannot place.
        let range = attrs.array::<2>("range")?.unwrap_or_default();
        if !self.compiler.autolimits && range != [0.0; 2] && attrs.get("limited").is_none() {
            return Err(attrs.invalid(
                "range",
                "with <compiler autolimits=\"false\">, a joint with a range needs `limited`"
                    .to_owned(),
            ));
        }
        let at_body = mat_vec(
            &item.frame.r,
            attrs.array::<3>("axis")?.unwrap_or([0.0, 0.0, 1.0]),
        );
        let axis_body = unit(&at_body)
            .ok_or_else(|| attrs.invalid("axis", "the axis is (nearly) zero".to_owned()))?;
        let pos_body = item
            .frame
            .then(&Pose::trans(attrs.array::<3>("pos")?.unwrap_or_default()))
            .p;
        let reference = match kind {
            JointKind::Revolute => self.compiler.angles.radians(attrs.number("ref", 0.0)?),
            JointKind::Prismatic => attrs.number("ref", 0.0)?,
        };
        self.count += 1;
        let name = element
            .attr("name")
            .map_or_else(|| format!("joint{}", self.count - 1), str::to_owned);
        // A locked joint stays at its value (`qpos0 = ref` by default); the others are placed
        // at `qpos = 0`.
        let lock = self.locks.take(&name);
        let value = lock.map_or(0.0, |at| at.value(reference));
        let mut anchor = add(pose.p, mat_vec(&pose.r, pos_body));
        let axis = mat_vec(&pose.r, axis_body);
        // MuJoCo moves the body by `qpos - ref`. A slide's anchor is the body's point, so it
        // moves with it (the pole is where the joint's origin is at `qpos = 0`).
        match kind {
            JointKind::Revolute => {
                pose.r = mul(&pose.r, &axis_angle(axis_body, value - reference));
                pose.p = sub(anchor, mat_vec(&pose.r, pos_body));
            }
            JointKind::Prismatic => {
                let slid = scale(axis, value - reference);
                pose.p = add(pose.p, slid);
                anchor = add(anchor, slid);
            }
        }
        let spring_ref = attrs.number("springref", 0.0)?;
        let spring_ref = match kind {
            JointKind::Revolute => self.compiler.angles.radians(spring_ref),
            JointKind::Prismatic => spring_ref,
        };
        self.spring_refs.push((name.clone(), spring_ref));
        self.qpos0.push((name.clone(), reference));
        if lock.is_some() {
            self.locked.push((name, value));
            return Ok(None);
        }
        Ok(Some(JointRead::Moving(Joint {
            element,
            name,
            kind,
            anchor,
            axis,
            armature,
            passive,
        })))
    }

    /// Adds every actuator's armature to the joint it drives, times the square of its gear
    /// (MuJoCo adds `armature gear²` to that joint's diagonal entry of the mass matrix). Only
    /// through a `joint` or `jointinparent` transmission: through a tendon, a site, a slider
    /// crank or a body the moment arm depends on the configuration, and that is refused.
    pub(super) fn actuator_armature<'a, 'e: 'a>(
        &self,
        root: &Element,
        joints: impl Iterator<Item = &'a mut Joint<'e>>,
    ) -> Result<(), ImportError> {
        let mut joints: Vec<&'a mut Joint<'e>> = joints.collect();
        for e in root
            .children_named("actuator")
            .flat_map(|section| section.children.iter())
        {
            let attrs = self.defaults.attrs(e, MAIN_CLASS)?;
            let armature = non_negative_armature(&attrs)?;
            if armature == 0.0 {
                continue;
            }
            let Some(target) = e.attr("joint").or_else(|| e.attr("jointinparent")) else {
                return Err(e.unsupported(
                    "armature",
                    "actuator armature is supported through a joint transmission only (through \
                     a tendon, site or body its moment arm changes with the configuration)"
                        .to_owned(),
                ));
            };
            if self.locked.iter().any(|(name, _)| name == target) {
                // A locked joint does not move: its actuator's armature does nothing.
                continue;
            }
            let gear = attrs.numbers("gear", Count::UpTo(6))?.map_or(1.0, |g| g[0]);
            let joint = joints
                .iter_mut()
                .find(|j| j.element.attr("name") == Some(target))
                .ok_or_else(|| {
                    let field = if e.attr("joint").is_some() {
                        "joint"
                    } else {
                        "jointinparent"
                    };
                    e.invalid(field, format!("no hinge or slide joint named `{target}`"))
                })?;
            joint.armature += armature * gear * gear;
        }
        Ok(())
    }

    /// A hinge's or slide's `stiffness` and `damping` (non-negative, as MuJoCo requires) and
    /// `springref` (in the compiler's angle unit for a hinge, as `ref`); `springdamper`, which
    /// MuJoCo turns into a stiffness and damping from the joint's inertia, is refused.
    fn passive(&self, attrs: &Attrs<'_>, kind: JointKind) -> Result<PassiveJoint, ImportError> {
        let read = |key: &str| -> Result<f64, ImportError> {
            let v = attrs.number(key, 0.0)?;
            if v < 0.0 {
                return Err(attrs.invalid(key, format!("{key} must not be negative, got {v}")));
            }
            Ok(v)
        };
        let (stiffness, damping) = (read("stiffness")?, read("damping")?);
        if let Some(sd) = attrs.array::<2>("springdamper")? {
            if sd != [0.0; 2] {
                return Err(attrs.element.unsupported(
                    "springdamper",
                    "springdamper (a stiffness and damping MuJoCo derives from the joint's \
                     inertia) is not supported yet: give stiffness and damping"
                        .to_owned(),
                ));
            }
        }
        let reference = attrs.number("springref", 0.0)?;
        let reference = match kind {
            JointKind::Revolute => self.compiler.angles.radians(reference),
            JointKind::Prismatic => reference,
        };
        Ok(PassiveJoint::new(stiffness, damping, reference))
    }
}

/// An element's `armature` (0 if absent), refused if negative.
pub(super) fn non_negative_armature(attrs: &Attrs<'_>) -> Result<f64, ImportError> {
    let armature = attrs.number("armature", 0.0)?;
    if armature < 0.0 {
        return Err(attrs.invalid(
            "armature",
            format!("armature must not be negative, got {armature}"),
        ));
    }
    Ok(armature)
}

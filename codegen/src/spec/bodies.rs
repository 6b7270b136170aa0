//! Validating the `[[body]]` tables: names, the tree, joints, masses and the mass
//! distribution, elastic joints and flexible links.

use toml::Spanned;

use super::raw::{About, RawBody, RawDirection, RawFlex, RawJoint, RawSpec, BASE_NAME};
use super::values::{axis_letter, Validator, UNIT_TOLERANCE};
use crate::error::SpecError;
use crate::mat3::{self, V3};
use crate::model::{
    BaseMotion, ElasticJoint, Flex, FlexDirection, JointKind, PassiveJoint, RobotBody,
    SymbolicInertial, MAX_BODIES, MAX_FLEX_MODES,
};

/// Largest cosine between a bending direction and its link.
const PERPENDICULAR_TOLERANCE: f64 = 1e-6;

/// A body after the first pass (masses known, mass distribution still in spec form).
struct Pass1 {
    name: String,
    joint_name: String,
    parent: Option<usize>,
    /// Explicit `origin`, if given.
    origin: Option<V3>,
    joint: JointKind,
    axis: V3,
    next: V3,
    mass: f64,
    symbolic: SymbolicInertial,
    elastic: Option<ElasticJoint>,
    flex: Option<Flex>,
    armature: f64,
    passive: PassiveJoint,
}

impl Validator<'_> {
    /// The `[[body]]` tables as bodies, in two passes (each body's mass distribution needs the
    /// masses it carries), with the checks that need every body (a tree's tool and leaves,
    /// elasticity).
    pub(super) fn bodies(
        &self,
        raw: &RawSpec,
        base: V3,
        motion: BaseMotion,
        all_symbolic: SymbolicInertial,
    ) -> Result<Vec<RobotBody>, SpecError> {
        let raw_bodies: &[Spanned<RawBody>] = raw.body.as_ref().map_or(&[], |b| b.get_ref());
        if raw_bodies.is_empty() {
            let span = raw.body.as_ref().map_or(0..0, |b| b.span());
            return Err(self.err(
                span,
                "body",
                "the chain is empty: expected at least one [[body]]",
            ));
        }
        if raw_bodies.len() > MAX_BODIES {
            return Err(self.err(
                raw_bodies[MAX_BODIES].span(),
                format!("body[{}]", MAX_BODIES + 1),
                format!(
                    "too many bodies ({}): at most {MAX_BODIES} are supported, because the \
                     generated straight-line code grows roughly with the cube of the number of bodies",
                    raw_bodies.len()
                ),
            ));
        }

        // Pass 1: kinematics, masses and names (the mass distribution needs the later masses).
        let mut pass1: Vec<Pass1> = Vec::with_capacity(raw_bodies.len());
        for (i, rb) in raw_bodies.iter().enumerate() {
            let body = self.body_pass1(rb, i + 1, &pass1, all_symbolic)?;
            pass1.push(body);
        }

        // Poles: an explicit `origin`, else the carrier's `next` (the base position for a body
        // on the base).
        let origins: Vec<V3> = pass1
            .iter()
            .map(|p| {
                p.origin
                    .unwrap_or_else(|| p.parent.map_or(base, |k| pass1[k].next))
            })
            .collect();
        // Mass of each subsystem (the body and all it carries), then the carried first moment
        // about each pole, Σ_children m_c origin_c (the chain's m_{i+1} L_i e_i).
        let mut subsystem: Vec<f64> = pass1.iter().map(|p| p.mass).collect();
        for i in (0..pass1.len()).rev() {
            if let Some(k) = pass1[i].parent {
                subsystem[k] += subsystem[i];
            }
        }
        let mut carried = vec![[0.0; 3]; pass1.len()];
        for (i, p) in pass1.iter().enumerate() {
            if let Some(k) = p.parent {
                carried[k] = mat3::add(carried[k], mat3::scale(origins[i], subsystem[i]));
            }
        }

        let is_chain = pass1
            .iter()
            .enumerate()
            .all(|(i, p)| p.parent == i.checked_sub(1));
        if !is_chain {
            if let Some(t) = &raw.tool {
                return Err(self.err(
                    t.span(),
                    "tool",
                    "a tree has no single tool: declare [[frame]]s on the bodies instead",
                ));
            }
            for (i, (p, rb)) in pass1.iter().zip(raw_bodies).enumerate() {
                let leaf = !pass1.iter().any(|c| c.parent == Some(i));
                if leaf && p.next != [0.0; 3] {
                    let span = rb.get_ref().next.as_ref().map_or(rb.span(), |n| n.span());
                    return Err(self.err(
                        span,
                        format!("body[{}].next", i + 1),
                        "in a tree a leaf's `next` would be a tool point no function reads: \
                         declare a [[frame]] on the body instead",
                    ));
                }
            }
        }

        self.check_elasticity(&pass1, raw_bodies, &origins, is_chain, motion)?;

        let mut bodies = Vec::with_capacity(pass1.len());
        for (((p, rb), origin), carried) in
            pass1.into_iter().zip(raw_bodies).zip(origins).zip(carried)
        {
            let idx = bodies.len() + 1;
            bodies.push(self.body_pass2(p, rb, idx, origin, carried)?);
        }
        self.mimics(raw_bodies, &mut bodies)?;
        Ok(bodies)
    }

    /// `[body.mimic]` of every body: the joint named exists, is another body's, follows no
    /// other joint itself and is not elastic, and neither is the follower.
    fn mimics(
        &self,
        raw_bodies: &[Spanned<RawBody>],
        bodies: &mut [RobotBody],
    ) -> Result<(), SpecError> {
        for (i, rb) in raw_bodies.iter().enumerate() {
            let Some(m) = &rb.get_ref().mimic else {
                continue;
            };
            let field = |k: &str| format!("body[{}].mimic.{k}", i + 1);
            let raw = m.get_ref();
            let name = raw.joint.get_ref();
            let Some(master) = bodies.iter().position(|b| b.joint_name == *name) else {
                return Err(self.err(
                    raw.joint.span(),
                    field("joint"),
                    format!("no joint named \"{name}\" to follow"),
                ));
            };
            let refuse = |message: String| Err(self.err(raw.joint.span(), field("joint"), message));
            if master == i {
                return refuse("a joint cannot follow itself".to_owned());
            }
            if raw_bodies[master].get_ref().mimic.is_some() {
                return refuse(format!(
                    "\"{name}\" follows another joint itself: name the joint it follows, with \
                     the multipliers and offsets combined"
                ));
            }
            let elastic = |b: &RobotBody| b.elastic.is_some() || b.flex.is_some();
            if elastic(&bodies[master]) || elastic(&bodies[i]) {
                return refuse(
                    "a joint that follows another, and the joint it follows, must not be \
                     elastic or carry a flexible link"
                        .to_owned(),
                );
            }
            let multiplier = match &raw.multiplier {
                Some(n) => self.num(n, &field("multiplier"))?,
                None => 1.0,
            };
            if multiplier == 0.0 {
                return Err(self.err(
                    m.span(),
                    field("multiplier"),
                    "a multiplier of 0 holds the joint at its offset: lock it instead (a fixed \
                     joint)",
                ));
            }
            let offset = match &raw.offset {
                Some(n) => self.num(n, &field("offset"))?,
                None => 0.0,
            };
            bodies[i].mimic = Some(crate::model::Mimic {
                master,
                multiplier,
                offset,
            });
        }
        Ok(())
    }

    fn body_pass1(
        &self,
        sb: &Spanned<RawBody>,
        idx: usize,
        prev: &[Pass1],
        all_symbolic: SymbolicInertial,
    ) -> Result<Pass1, SpecError> {
        let rb = sb.get_ref();
        let f = |k: &str| format!("body[{idx}].{k}");

        let name = match &rb.name {
            Some(n) => self.name(n, &f("name"))?,
            None => format!("body{idx}"),
        };
        if let Some(other) = prev.iter().position(|p| p.name == name) {
            let span = rb.name.as_ref().map_or(sb.span(), |n| n.span());
            return Err(self.err(
                span,
                f("name"),
                format!(
                    "duplicate body name \"{name}\" (also body[{}]); body names must be unique",
                    other + 1
                ),
            ));
        }
        let joint_name = match &rb.joint_name {
            Some(n) => self.name(n, &f("joint_name"))?,
            None => format!("q{idx}"),
        };
        if let Some(other) = prev.iter().position(|p| p.joint_name == joint_name) {
            let span = rb.joint_name.as_ref().map_or(sb.span(), |n| n.span());
            return Err(self.err(
                span,
                f("joint_name"),
                format!(
                    "duplicate joint name \"{joint_name}\" (also body[{}]); joint names must be unique",
                    other + 1
                ),
            ));
        }
        let parent = match &rb.parent {
            None => prev.len().checked_sub(1),
            // A body of that name (older specs call their first body "base") takes precedence.
            Some(p) if p.get_ref() == BASE_NAME && !prev.iter().any(|b| b.name == BASE_NAME) => {
                None
            }
            Some(p) => {
                let wanted = p.get_ref();
                match prev.iter().position(|b| b.name == *wanted) {
                    Some(k) => Some(k),
                    None => {
                        let message = if *wanted == name {
                            format!("body \"{name}\" cannot carry itself")
                        } else {
                            format!(
                                "no body named \"{wanted}\" is listed before this one: bodies \
                                 are listed parents first (or \"base\" for the fixed base)"
                            )
                        };
                        return Err(self.err(p.span(), f("parent"), message));
                    }
                }
            }
        };
        let origin = match &rb.origin {
            Some(o) => Some(self.vec3(o, &f("origin"))?),
            None => None,
        };

        let joint = match rb.joint.get_ref() {
            RawJoint::Revolute => JointKind::Revolute,
            RawJoint::Prismatic => JointKind::Prismatic,
        };
        let axis = self.direction(&rb.axis, &f("axis"), "the joint axis")?;

        let next = match (&rb.next, &rb.l, &rb.e) {
            (Some(_), Some(l), _) => {
                return Err(self.err(
                    l.span(),
                    f("L"),
                    "give either `next` or `L` and `e`, not both",
                ))
            }
            (Some(_), None, Some(e)) => {
                return Err(self.err(
                    e.span(),
                    f("e"),
                    "give either `next` or `L` and `e`, not both",
                ))
            }
            (Some(n), None, None) => self.vec3(n, &f("next"))?,
            (None, None, None) => [0.0; 3],
            (None, Some(l), None) => {
                return Err(self.err(
                    l.span(),
                    f("e"),
                    "missing `e`: `L` needs the unit direction `e`",
                ))
            }
            (None, None, Some(e)) => {
                return Err(self.err(e.span(), f("L"), "missing `L`: `e` needs the distance `L`"))
            }
            (None, Some(l), Some(e)) => {
                let len = self.num(l, &f("L"))?;
                if len < 0.0 {
                    return Err(self.err(l.span(), f("L"), format!("expected L >= 0, got {len}")));
                }
                let dir = self.direction(e, &f("e"), "e")?;
                mat3::scale(dir, len)
            }
        };

        // A massless body is allowed (what is refused is a mass matrix that is singular
        // everywhere, found when code is generated).
        let mass = self.num(&rb.mass, &f("mass"))?;
        if mass < 0.0 {
            return Err(self.err(
                rb.mass.span(),
                f("mass"),
                format!("mass must not be negative, got {mass}"),
            ));
        }

        let mut symbolic = all_symbolic;
        self.symbolic(&rb.symbolic, &f("symbolic"), &mut symbolic)?;
        let elastic = self.elastic_joint(rb, idx, joint)?;
        let armature = self.armature(rb, idx, joint, elastic.is_some())?;
        let passive = self.passive(rb, idx, elastic.is_some())?;
        let flex = match &rb.flex {
            Some(fl) => Some(self.flex(fl, &f("flex"))?),
            None => None,
        };

        Ok(Pass1 {
            name,
            joint_name,
            parent,
            origin,
            joint,
            axis,
            next,
            mass,
            symbolic,
            elastic,
            flex,
            armature,
            passive,
        })
    }

    fn body_pass2(
        &self,
        p: Pass1,
        sb: &Spanned<RawBody>,
        idx: usize,
        origin: V3,
        carried: V3,
    ) -> Result<RobotBody, SpecError> {
        let rb = sb.get_ref();
        let f = |k: &str| format!("body[{idx}].{k}");

        let (tensor, about) = match &rb.inertia {
            Some(i) => self.inertia(i, &f("inertia"))?,
            None => ([[0.0; 3]; 3], About::Com),
        };

        let com = match (&rb.com, &rb.b, &rb.a) {
            (Some(_), Some(b), _) => {
                return Err(self.err(
                    b.span(),
                    f("b"),
                    "give either `com` or `b` and `a`, not both",
                ))
            }
            (Some(_), None, Some(a)) => {
                return Err(self.err(
                    a.span(),
                    f("a"),
                    "give either `com` or `b` and `a`, not both",
                ))
            }
            (Some(c), None, None) => self.vec3(c, &f("com"))?,
            (None, None, None) => [0.0; 3],
            (None, Some(b), None) => {
                return Err(self.err(
                    b.span(),
                    f("a"),
                    "missing `a`: `b` needs the unit direction `a`",
                ))
            }
            (None, None, Some(a)) => {
                return Err(self.err(a.span(), f("b"), "missing `b`: `a` needs the magnitude `b`"))
            }
            (None, Some(b), Some(a)) => {
                let bv = self.num(b, &f("b"))?;
                if bv < 0.0 {
                    return Err(self.err(b.span(), f("b"), format!("expected b >= 0, got {bv}")));
                }
                let av = self.direction(a, &f("a"), "a")?;
                match &rb.inertia {
                    None => {
                        return Err(self.err(
                            b.span(),
                            f("inertia"),
                            "the method form (`b`, `a`) needs `inertia` given about the pole (about = \"pole\")",
                        ))
                    }
                    Some(i) if about != About::Pole => {
                        let span = i.get_ref().about.as_ref().map_or(i.span(), |a| a.span());
                        return Err(self.err(
                            span,
                            f("inertia.about"),
                            "the method form (`b`, `a`) needs the inertia about the pole: expected about = \"pole\"",
                        ));
                    }
                    Some(_) => {}
                }
                // b a = m_oi com + Σ_c m_c origin_c (for a chain m_{i+1} L_i e_i)
                //   =>  com = (b a - Σ_c m_c origin_c) / m_oi.
                if p.mass == 0.0 {
                    return Err(self.err(
                        b.span(),
                        f("b"),
                        "the method form (`b`, `a`) needs a positive mass: the centre of mass is \
                         found by dividing by it; give a massless body's `com` instead",
                    ));
                }
                mat3::scale(mat3::sub(mat3::scale(av, bv), carried), 1.0 / p.mass)
            }
        };
        if com.iter().any(|c| !c.is_finite()) {
            return Err(self.err(
                sb.span(),
                f("com"),
                "the centre of mass is not finite (numbers too large)",
            ));
        }

        let inertia_com = match about {
            About::Com => tensor,
            About::Pole => mat3::mat_sub(&tensor, &mat3::point_mass_inertia(p.mass, com)),
        };
        if let Some(i) = &rb.inertia {
            self.check_inertia(&inertia_com, about, i, &f("inertia"))?;
        }

        Ok(RobotBody {
            name: p.name,
            joint_name: p.joint_name,
            joint: p.joint,
            axis: p.axis,
            rotation: crate::mat3::IDENTITY,
            parent: p.parent,
            origin,
            next: p.next,
            mass: p.mass,
            com,
            inertia_com,
            symbolic: p.symbolic,
            elastic: p.elastic,
            flex: p.flex,
            armature: p.armature,
            passive: p.passive,
            mimic: None,
        })
    }

    /// `[body.passive]`: non-negative stiffness and damping, any reference; not on an elastic
    /// joint (whose spring and damper are `stiffness` and `damping`, to the motor).
    fn passive(&self, rb: &RawBody, idx: usize, elastic: bool) -> Result<PassiveJoint, SpecError> {
        let Some(t) = &rb.passive else {
            return Ok(PassiveJoint::default());
        };
        let field = |k: &str| format!("body[{idx}].passive.{k}");
        let table = format!("body[{idx}].passive");
        let stiffness = self.non_negative(&t.get_ref().stiffness, &table, "stiffness")?;
        let damping = self.non_negative(&t.get_ref().damping, &table, "damping")?;
        let reference = match &t.get_ref().reference {
            Some(n) => self.num(n, &field("reference"))?,
            None => 0.0,
        };
        if elastic {
            return Err(self.err(
                t.span(),
                format!("body[{idx}].passive"),
                "an elastic joint's spring and damper act between motor and link (`stiffness`, \
                 `damping`); a passive spring to a fixed position is not supported with them",
            ));
        }
        Ok(PassiveJoint::new(stiffness, damping, reference))
    }

    /// `armature` of a body's joint: non-negative, and not on an elastic joint (whose rotor
    /// is its `motor_inertia`, on the motor side of the spring).
    fn armature(
        &self,
        rb: &RawBody,
        idx: usize,
        joint: JointKind,
        elastic: bool,
    ) -> Result<f64, SpecError> {
        let Some(a) = &rb.armature else {
            return Ok(0.0);
        };
        let field = format!("body[{idx}].armature");
        let v = self.num(a, &field)?;
        let units = match joint {
            JointKind::Revolute => "kg m^2",
            JointKind::Prismatic => "kg",
        };
        if v < 0.0 {
            return Err(self.err(
                a.span(),
                field,
                format!("armature must not be negative ({units}), got {v}"),
            ));
        }
        if elastic && v != 0.0 {
            return Err(self.err(
                a.span(),
                field,
                "an elastic joint's rotor is on the motor side of its spring: give it as \
                 `motor_inertia`, not `armature`",
            ));
        }
        Ok(v)
    }

    /// `stiffness`, `damping`, `motor_inertia` of a body's joint.
    fn elastic_joint(
        &self,
        rb: &RawBody,
        idx: usize,
        joint: JointKind,
    ) -> Result<Option<ElasticJoint>, SpecError> {
        let f = |k: &str| format!("body[{idx}].{k}");
        let (units, damping_units, inertia_units) = match joint {
            JointKind::Revolute => ("N m/rad", "N m s/rad", "kg m^2"),
            JointKind::Prismatic => ("N/m", "N s/m", "kg"),
        };
        let Some(k) = &rb.stiffness else {
            for (x, key) in [
                (&rb.damping, "damping"),
                (&rb.motor_inertia, "motor_inertia"),
            ] {
                if let Some(x) = x {
                    return Err(self.err(
                        x.span(),
                        f(key),
                        format!(
                            "`{key}` describes an elastic joint: give its `stiffness` ({units}) \
                             as well"
                        ),
                    ));
                }
            }
            return Ok(None);
        };
        let stiffness = self.num(k, &f("stiffness"))?;
        if stiffness <= 0.0 {
            return Err(self.err(
                k.span(),
                f("stiffness"),
                format!("stiffness must be positive ({units}), got {stiffness}"),
            ));
        }
        let damping = match &rb.damping {
            Some(d) => {
                let v = self.num(d, &f("damping"))?;
                if v < 0.0 {
                    return Err(self.err(
                        d.span(),
                        f("damping"),
                        format!("damping must not be negative ({damping_units}), got {v}"),
                    ));
                }
                Some(v)
            }
            None => None,
        };
        let motor_inertia = match &rb.motor_inertia {
            Some(b) => {
                let v = self.num(b, &f("motor_inertia"))?;
                if v <= 0.0 {
                    return Err(self.err(
                        b.span(),
                        f("motor_inertia"),
                        format!(
                            "motor_inertia must be positive ({inertia_units}, the rotor's inertia \
                             reflected through the gear), got {v}"
                        ),
                    ));
                }
                Some(v)
            }
            None => None,
        };
        Ok(Some(ElasticJoint {
            stiffness,
            damping,
            motor_inertia,
        }))
    }

    /// `[body.flex]` as written: directions (letters or unit vectors, no two parallel) and the
    /// number of modes. Whether the directions are perpendicular to the link is checked once the
    /// link is known.
    fn flex(&self, fl: &Spanned<RawFlex>, field: &str) -> Result<Flex, SpecError> {
        let raw = fl.get_ref();
        let list = raw.directions.get_ref();
        if list.is_empty() {
            return Err(self.err(
                raw.directions.span(),
                format!("{field}.directions"),
                r#"expected at least one bending direction, e.g. directions = ["y", "z"]"#,
            ));
        }
        let mut directions: Vec<FlexDirection> = Vec::with_capacity(list.len());
        for (k, d) in list.iter().enumerate() {
            let at = format!("{field}.directions[{}]", k + 1);
            let vector = self.direction(d, &at, "a bending direction")?;
            if let Some(other) = directions
                .iter()
                .position(|o| mat3::norm(mat3::cross(o.vector, vector)) <= UNIT_TOLERANCE)
            {
                return Err(self.err(
                    d.span(),
                    at,
                    format!(
                        "bending direction parallel to directions[{}]: each direction bends the \
                         link once",
                        other + 1
                    ),
                ));
            }
            let letter = match d.get_ref() {
                RawDirection::Letter(s) => {
                    axis_letter(vector).map(str::to_owned).or(Some(s.clone()))
                }
                RawDirection::Vector(_) => None,
            };
            directions.push(FlexDirection { vector, letter });
        }
        let modes = match &raw.modes {
            None => 1,
            Some(m) => {
                let v = *m.get_ref();
                match usize::try_from(v) {
                    Ok(k) if (1..=MAX_FLEX_MODES).contains(&k) => k,
                    _ => {
                        return Err(self.err(
                            m.span(),
                            format!("{field}.modes"),
                            format!("expected 1 to {MAX_FLEX_MODES} modes per direction, got {v}"),
                        ))
                    }
                }
            }
        };
        Ok(Flex { directions, modes })
    }

    /// Elasticity is for chains on a fixed base so far; each flexible link has a length and
    /// bends perpendicular to it.
    fn check_elasticity(
        &self,
        pass1: &[Pass1],
        raw_bodies: &[Spanned<RawBody>],
        origins: &[V3],
        is_chain: bool,
        motion: BaseMotion,
    ) -> Result<(), SpecError> {
        let n = pass1.len();
        for (i, (p, sb)) in pass1.iter().zip(raw_bodies).enumerate() {
            let rb = sb.get_ref();
            let idx = i + 1;
            let key = match (&rb.stiffness, &rb.flex) {
                (Some(k), _) => Some((k.span(), format!("body[{idx}].stiffness"))),
                (None, Some(fl)) => Some((fl.span(), format!("body[{idx}].flex"))),
                (None, None) => None,
            };
            let Some((span, field)) = key else { continue };
            if !is_chain {
                return Err(self.err(
                    span,
                    field,
                    "elastic joints and flexible links are not yet supported in a tree: only \
                     serial chains have them so far",
                ));
            }
            if motion != BaseMotion::Fixed {
                return Err(self.err(
                    span,
                    field,
                    "elastic joints and flexible links are not yet supported with a moving or \
                     floating base: only chains on a fixed base have them so far",
                ));
            }
            let (Some(fl), Some(raw)) = (&p.flex, &rb.flex) else {
                continue;
            };
            // The beam runs from this pole to the next one (the tool point after the last body).
            let beam = if i + 1 < n { origins[i + 1] } else { p.next };
            let len = mat3::norm(beam);
            if len == 0.0 {
                let what = if i + 1 < n {
                    "the next body's pole is at this body's pole"
                } else {
                    "the tool point (`next`) is at the pole"
                };
                return Err(self.err(
                    raw.span(),
                    format!("body[{idx}].flex"),
                    format!("a flexible link needs a length, but this link has none: {what}"),
                ));
            }
            let e = mat3::scale(beam, 1.0 / len);
            let written = raw.get_ref().directions.get_ref();
            for (k, (d, w)) in fl.directions.iter().zip(written).enumerate() {
                let cos = mat3::dot(d.vector, e);
                if cos.abs() > PERPENDICULAR_TOLERANCE {
                    return Err(self.err(
                        w.span(),
                        format!("body[{idx}].flex.directions[{}]", k + 1),
                        format!(
                            "a bending direction must be perpendicular to the link e_i = \
                             [{}, {}, {}] (from the pole to the next one), but their cosine is {cos}",
                            e[0], e[1], e[2]
                        ),
                    ));
                }
            }
        }
        // Giving a motor inertia asks for the elastic-joint dynamics, which need every one.
        let with = pass1.iter().position(|p| {
            p.elastic
                .as_ref()
                .is_some_and(|e| e.motor_inertia.is_some())
        });
        let without = pass1.iter().position(|p| {
            p.elastic
                .as_ref()
                .is_some_and(|e| e.motor_inertia.is_none())
        });
        if let (Some(w), Some(i)) = (with, without) {
            if let Some(k) = &raw_bodies[i].get_ref().stiffness {
                return Err(self.err(
                    k.span(),
                    format!("body[{}].motor_inertia", i + 1),
                    format!(
                        "the elastic-joint dynamics need `motor_inertia` on every elastic joint: \
                         body[{}] gives one, this joint has none (give it one, or remove them \
                         all for the kinematics and statics only)",
                        w + 1
                    ),
                ));
            }
        }
        Ok(())
    }
}

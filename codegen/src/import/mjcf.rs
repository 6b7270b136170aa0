//! MJCF (MuJoCo XML) import of fixed-base models with hinge and slide joints, read as
//! MuJoCo's compiler reads them (docs/mjcf.md), so that the generated functions take MuJoCo's
//! `qpos` and `qvel` and agree with MuJoCo.
//!
//! Every body is placed at `qpos = 0` in world axes: MuJoCo moves a joint by `qpos - ref`, so
//! the rotation or translation by `-ref` is applied where the joint sits. Several joints in
//! one body act in order, each about its own anchor and axis, through massless bodies between
//! them; a body without joints is welded to the body above it, and bodies welded to the world
//! are the fixed base (their mass is not the robot's). Joints are numbered in MuJoCo's order:
//! bodies depth first as written, a body's joints as written.

use std::collections::HashMap;

use super::chain::{Chain, ChainFrame, ChainJoint, MassProps, Pose, V3};
use super::error::ImportError;
use super::lock::Locks;
use super::mjcf_geom::{local_pose, shaped_pose, Shape};
use super::mjcf_ignored::{couple, ignored_elements, read_equalities};
use super::mjcf_joint::{Joint, JointRead, JointReader};
use super::mjcf_mass::{Compiler, Inertial, Item};
pub use super::mjcf_parse::ReadInclude;
use super::mjcf_parse::{read_document, Attrs, Defaults, Element, MAIN_CLASS};
use super::mjcf_tendon::{read_tendons, TendonJoints};
use super::{ImportOptions, Imported};
use crate::model::{BaseLayout, MAX_BODIES};
use crate::names::frame_ident;

/// Imports an MJCF document held in memory; an `<include>` is a located error (there is no
/// directory to read it from: see [`import_mjcf_reading`]). `file_name` names the file in errors.
pub fn import_mjcf(
    xml: &str,
    file_name: &str,
    options: &ImportOptions,
) -> Result<Imported, ImportError> {
    let no_files = |_: &str| {
        Err("an MJCF text given in memory cannot include files; load it from its file".to_owned())
    };
    import_mjcf_reading(xml, file_name, options, &no_files)
}

/// Imports an MJCF document whose includes `read` reads: it is given the path of an included
/// file (the including file's directory, as `file_name` spells it, joined with the `file`
/// attribute) and returns its text or why it cannot be read.
///
/// `options.frames` names bodies that become frames besides the named sites; `options.root`
/// keeps the tree of one top-level body; `options.locks` fixes hinges and slides at their
/// values (`qpos0` by default), their bodies then welded to their parents;
/// `options.ignore_equality` leaves out closed loops; `options.tip` and
/// `options.floating_base` are refused (not supported for MJCF yet). With `options.snap`,
/// values within a tolerance of exact ones are snapped as for URDF. What the file holds that
/// the functions do not use is listed in [`Imported::ignored`].
pub fn import_mjcf_reading(
    xml: &str,
    file_name: &str,
    options: &ImportOptions,
    read: &ReadInclude,
) -> Result<Imported, ImportError> {
    let root = read_document(xml, file_name, read)?;
    if options.tip.is_some() || options.floating_base {
        let option = if options.tip.is_some() {
            "tip"
        } else {
            "floating base"
        };
        return Err(root.invalid(
            "",
            format!("the {option} option is not supported for MJCF files yet"),
        ));
    }
    let defaults = Defaults::read(&root)?;
    let compiler = Compiler::read(&root)?;
    refuse_unsupported(&root, &defaults)?;
    let equalities = read_equalities(&root, &defaults, options.ignore_equality, &options.locks)?;
    let mut model = Model {
        defaults: &defaults,
        compiler: &compiler,
        bodies: Vec::new(),
        reader: JointReader::new(
            &defaults,
            &compiler,
            Locks::with_own(&equalities.locks, &options.locks),
        ),
    };
    for world in root.children_named("worldbody") {
        model.walk(world, None, Pose::IDENTITY, MAIN_CLASS)?;
    }
    if let Some(lock) = model.reader.locks.unused() {
        let message = format!("no hinge or slide joint named `{}` to lock", lock.joint);
        return Err(match lock.own {
            Some(k) => equalities.lock_elements[k].invalid("joint1", message),
            None => root.invalid("", message),
        });
    }
    model.reader.actuator_armature(
        &root,
        model.bodies.iter_mut().flat_map(|b| b.joints.iter_mut()),
    )?;
    model.scale_total_mass();
    let name = root.attr("model").map_or_else(
        || {
            let base = super::base_name(file_name);
            base.rsplit_once('.')
                .map_or(base, |(stem, _)| stem)
                .to_owned()
        },
        str::to_owned,
    );
    let chain = model.chain(&root, name, file_name, gravity(&root)?, options)?;
    let floating = chain.floating;
    let locations: Vec<_> = chain.joints.iter().map(|j| j.at.clone()).collect();
    let frame_locations: Vec<_> = chain.frames.iter().map(|f| f.1.clone()).collect();
    let mut robot = Chain {
        joints: chain.joints.into_iter().map(|j| j.joint).collect(),
        frames: chain.frames.into_iter().map(|f| f.0).collect(),
        ..chain.chain
    }
    .into_robot();
    if let Some(base) = floating {
        super::chain::make_floating(&mut robot, &base, BaseLayout::Mujoco);
        if let Some(body) = &mut robot.base_body {
            body.armature = chain.free_armature;
        }
    }
    let joints = TendonJoints {
        spring_refs: &model.reader.spring_refs,
        locked: &model.reader.locked,
    };
    let tendons = read_tendons(&root, &defaults, &robot, &joints)?;
    robot.tendons = tendons.springs;
    let mut ignored = equalities.ignored;
    couple(
        &mut robot,
        &equalities.couplings,
        &model.reader.qpos0,
        &model.reader.locked,
        &mut ignored,
    )?;
    let mut snaps = Vec::new();
    if options.snap {
        let size = robot
            .bodies
            .iter()
            .map(|b| crate::mat3::norm(b.origin))
            .sum();
        let locs = super::urdf::SnapLocations {
            joints: locations,
            frames: frame_locations,
            tip: None,
            root: root.at(),
        };
        super::urdf::snap_robot(&mut robot, size, &locs, &mut snaps);
    }
    ignored.extend(tendons.ignored);
    ignored.extend(ignored_elements(&root));
    ignored.sort_by_key(|i| (i.at.file.clone(), i.at.line, i.at.col));
    Ok(Imported {
        robot,
        snaps,
        ignored,
    })
}

/// Gravity: the last `<option gravity>` (MuJoCo's `0 0 -9.81` by default), zero if a
/// `<flag gravity="disable">` turns it off.
fn gravity(root: &Element) -> Result<V3, ImportError> {
    let mut g = [0.0, 0.0, -9.81];
    let mut enabled = true;
    for option in root.children_named("option") {
        if let Some(v) = Attrs::plain(option).array::<3>("gravity")? {
            g = v;
        }
        for flag in option.children_named("flag") {
            if let Some(state) = Attrs::plain(flag).keyword("gravity", &["enable", "disable"])? {
                enabled = state == "enable";
            }
        }
    }
    Ok(if enabled { g } else { [0.0; 3] })
}

/// Tendon features this slice does not model, refused where they are written: armature on
/// tendons (it enters MuJoCo's mass matrix through the tendon's moment arms, off the
/// diagonal). Equalities are read by [`read_equalities`], joint types with the joints,
/// actuator armature with the actuators.
fn refuse_unsupported(root: &Element, defaults: &Defaults) -> Result<(), ImportError> {
    for e in root
        .children_named("tendon")
        .flat_map(|section| section.children.iter())
    {
        let attrs = defaults.attrs(e, MAIN_CLASS)?;
        if attrs.number("armature", 0.0)? != 0.0 {
            return Err(attrs.element.unsupported(
                "armature",
                format!(
                    "armature on a <{}> tendon is not supported yet (it adds to the mass \
                     matrix through the tendon's moment arms)",
                    e.tag
                ),
            ));
        }
    }
    Ok(())
}

/// A body read: its pose at `qpos = 0`, joints, mass (in its own frame) and named sites.
pub(super) struct Body<'e> {
    element: &'e Element,
    name: String,
    /// Index of the parent body, `None` for the world.
    parent: Option<usize>,
    pose: Pose,
    /// The armature of the body's free joint, if it moves by one (it is then the floating
    /// base, at `pose` the identity: `qpos` places it in the world).
    free: Option<f64>,
    joints: Vec<Joint<'e>>,
    pub(super) inertial: Inertial,
    sites: Vec<(String, Pose, &'e Element)>,
}

pub(super) struct Model<'d, 'e> {
    pub(super) defaults: &'d Defaults,
    pub(super) compiler: &'d Compiler,
    /// Bodies in MuJoCo's order (the world not included).
    pub(super) bodies: Vec<Body<'e>>,
    /// The joints read so far, and what the chain needs of them.
    reader: JointReader<'d>,
}

/// Elements that would add bodies, joints or mass this importer does not model.
const UNSUPPORTED_CHILDREN: [&str; 5] = ["composite", "flexcomp", "replicate", "attach", "plugin"];

impl<'d, 'e> Model<'d, 'e> {
    /// `<compiler settotalmass>`: every body's mass and inertia scaled so that they add up to it
    /// (bodies welded to the world included).
    pub(super) fn scale_total_mass(&mut self) {
        if self.compiler.total_mass <= 0.0 {
            return;
        }
        let total: f64 = self.bodies.iter().map(|b| b.inertial.mass).sum();
        let factor = (self.compiler.total_mass / total.max(1e-15)).max(1e-15);
        for body in &mut self.bodies {
            body.inertial.mass *= factor;
            for row in &mut body.inertial.inertia {
                for x in row {
                    *x *= factor;
                }
            }
        }
    }

    /// Whether body `parent` (`None`: the world) is the world or welded to it: no joint on it
    /// or on a body above it.
    fn welded_to_world(&self, mut parent: Option<usize>) -> bool {
        while let Some(p) = parent {
            let body = &self.bodies[p];
            if body.free.is_some() || !body.joints.is_empty() {
                return false;
            }
            parent = body.parent;
        }
        true
    }

    /// The children of `element`, `<frame>`s opened (their transform and childclass passed on).
    fn items(
        &self,
        element: &'e Element,
        frame: Pose,
        class: &str,
        out: &mut Vec<Item<'e>>,
    ) -> Result<(), ImportError> {
        for child in &element.children {
            if UNSUPPORTED_CHILDREN.contains(&child.tag.as_str()) {
                return Err(child.unsupported(
                    "",
                    format!("<{}> is not supported by the MJCF importer yet", child.tag),
                ));
            }
            if child.tag == "frame" {
                let class = self.childclass(child, class)?;
                let attrs = Attrs::plain(child);
                let inner = frame.then(&local_pose(&attrs, &self.compiler.angles)?);
                self.items(child, inner, &class, out)?;
            } else {
                out.push(Item {
                    element: child,
                    frame,
                    class: class.to_owned(),
                });
            }
        }
        Ok(())
    }

    fn childclass(&self, element: &Element, inherited: &str) -> Result<String, ImportError> {
        match element.attr("childclass") {
            Some(class) if !self.defaults.has(class) => {
                Err(element.invalid("childclass", format!("no default class `{class}`")))
            }
            Some(class) => Ok(class.to_owned()),
            None => Ok(inherited.to_owned()),
        }
    }

    /// Reads the bodies below `element` (the world or body `parent`, at `pose`).
    fn walk(
        &mut self,
        element: &'e Element,
        parent: Option<usize>,
        pose: Pose,
        class: &str,
    ) -> Result<(), ImportError> {
        let mut items = Vec::new();
        self.items(element, Pose::IDENTITY, class, &mut items)?;
        for item in items.iter().filter(|i| i.element.tag == "body") {
            self.body(item, parent, &pose)?;
        }
        Ok(())
    }

    /// Reads the body `item` whose parent (at `parent_pose`) is `parent`, and its subtree.
    fn body(
        &mut self,
        item: &Item<'e>,
        parent: Option<usize>,
        parent_pose: &Pose,
    ) -> Result<(), ImportError> {
        let element = item.element;
        let angles = self.compiler.angles;
        let local = item
            .frame
            .then(&local_pose(&Attrs::plain(element), &angles)?);
        let class = self.childclass(element, &item.class)?;
        let index = self.bodies.len();
        let name = element
            .attr("name")
            .map_or_else(|| format!("body{}", index + 1), str::to_owned);
        let mut items = Vec::new();
        self.items(element, Pose::IDENTITY, &class, &mut items)?;

        let mut pose = parent_pose.then(&local);
        let mut joints = Vec::new();
        let mut free = None;
        for item in &items {
            match self.reader.joint(item, &mut pose)? {
                Some(JointRead::Moving(joint)) => joints.push(joint),
                Some(JointRead::Free(armature)) => {
                    if parent.is_some() {
                        return Err(item.element.invalid(
                            "",
                            "a free joint can only be in a top-level body (a child of the world), \
                             as MuJoCo requires"
                                .to_owned(),
                        ));
                    }
                    free = Some(armature);
                }
                None => {}
            }
        }
        if free.is_some() {
            if let Some(joint) = joints.first() {
                return Err(joint.element.unsupported(
                    "",
                    "a body with a free joint and other joints is not supported".to_owned(),
                ));
            }
            // The free body's frame is the floating base's: everything below is placed in it.
            pose = Pose::IDENTITY;
        }
        let own = local_pose(&Attrs::plain(element), &angles)?;
        // The mass of a body welded to the world is not the robot's (but for `settotalmass`,
        // which scales every body by the total).
        let unused = free.is_none()
            && joints.is_empty()
            && self.welded_to_world(parent)
            && self.compiler.total_mass <= 0.0;
        let inertial =
            self.compiler
                .inertial(self.defaults, element, &name, &items, own.p, unused)?;
        let mut sites = Vec::new();
        for item in items.iter().filter(|i| i.element.tag == "site") {
            let Some(site_name) = item.element.attr("name") else {
                continue;
            };
            let attrs = self.defaults.attrs(item.element, &item.class)?;
            let shape = Shape::read(&attrs)?;
            let (site, _) = shaped_pose(&attrs, shape, &angles)?;
            let world = pose.then(&item.frame).then(&site);
            sites.push((site_name.to_owned(), world, item.element));
        }
        self.bodies.push(Body {
            element,
            name,
            parent,
            pose,
            free,
            joints,
            inertial,
            sites,
        });
        for item in items.iter().filter(|i| i.element.tag == "body") {
            let child = Item {
                element: item.element,
                frame: item.frame,
                class: item.class.clone(),
            };
            self.body(&child, Some(index), &pose)?;
        }
        Ok(())
    }
}

/// A chain joint and where it is written (for snaps).
struct LocatedJoint {
    joint: ChainJoint,
    at: super::error::Location,
}

/// The chain of a model, its joints and frames with their locations.
struct LocatedChain {
    chain: Chain,
    /// The floating base body (the free body with the bodies welded to it), if a body has a
    /// free joint.
    floating: Option<MassProps>,
    /// The armature of the floating base's free joint (zero without one).
    free_armature: f64,
    joints: Vec<LocatedJoint>,
    frames: Vec<(ChainFrame, super::error::Location)>,
}

impl Model<'_, '_> {
    /// The method's chain: a body per joint (massless between the joints of one body, the
    /// body's mass on its last joint; welded bodies merged), the named sites and the bodies of
    /// `options.frames` as frames.
    fn chain(
        &self,
        root: &Element,
        name: String,
        file_name: &str,
        gravity: V3,
        options: &ImportOptions,
    ) -> Result<LocatedChain, ImportError> {
        // The chain joint each body's mass and frames belong to (`None`: the fixed base, or
        // the floating base for the free body's tree).
        let mut owner: Vec<Option<usize>> = Vec::with_capacity(self.bodies.len());
        let mut joints: Vec<LocatedJoint> = Vec::new();
        let mut names = Names::default();
        let kept = self.kept(options.root.as_deref(), root)?;
        let free_tree = self.free_tree(&kept)?;
        let mut floating = free_tree.iter().any(|&f| f).then_some(MassProps::ZERO);
        for (b, body) in self.bodies.iter().enumerate() {
            if !kept[b] {
                // Another tree than the one `--root` keeps: as if it were not in the file.
                owner.push(None);
                continue;
            }
            let mut carrier = body.parent.and_then(|p| owner[p]);
            for (k, joint) in body.joints.iter().enumerate() {
                names.check(&joint.name, "joint", joint.element)?;
                let last = k + 1 == body.joints.len();
                let body_name = if last {
                    body.name.clone()
                } else {
                    format!("{}/{}", body.name, joint.name)
                };
                names.check(&body_name, "body", body.element)?;
                joints.push(LocatedJoint {
                    joint: ChainJoint {
                        body_name,
                        joint_name: joint.name.clone(),
                        kind: joint.kind,
                        parent: carrier,
                        pole: joint.anchor,
                        axis: joint.axis,
                        body: MassProps::ZERO,
                        armature: joint.armature,
                        passive: joint.passive,
                        mimic: None,
                    },
                    at: joint.element.at(),
                });
                carrier = Some(joints.len() - 1);
            }
            owner.push(carrier);
            if let Some(k) = carrier {
                let i = &body.inertial;
                let props = MassProps::in_base(&body.pose, i.mass, i.com, &i.inertia);
                let merged = joints[k].joint.body.merge(&props);
                // Huge written values can overflow on the way (density times volume, the
                // parallel-axis terms, poses composed): refused where the body is written.
                if !finite_props(&merged) || !finite_pose(&body.pose) {
                    return Err(ImportError::NotFinite {
                        at: body.element.at(),
                        what: body.element.label(),
                        message: format!(
                            "the pose, mass, centre of mass or inertia of body `{}` is not \
                             finite (numbers too large)",
                            body.name
                        ),
                    });
                }
                joints[k].joint.body = merged;
            } else if let (true, Some(base)) = (free_tree[b], floating.as_mut()) {
                let i = &body.inertial;
                *base = base.merge(&MassProps::in_base(&body.pose, i.mass, i.com, &i.inertia));
                if !finite_props(base) || !finite_pose(&body.pose) {
                    return Err(ImportError::NotFinite {
                        at: body.element.at(),
                        what: body.element.label(),
                        message: format!(
                            "the pose, mass, centre of mass or inertia of body `{}` (part of \
                             the floating base) is not finite (numbers too large)",
                            body.name
                        ),
                    });
                }
            }
        }
        if let Some(j) = joints.iter().find(|j| {
            let v = j.joint.pole.iter().chain(&j.joint.axis);
            !v.into_iter().all(|x| x.is_finite())
        }) {
            return Err(ImportError::NotFinite {
                at: j.at.clone(),
                what: format!("joint[{}]", j.joint.joint_name),
                message: "the joint's position or axis is not finite (numbers too large)"
                    .to_owned(),
            });
        }
        if joints.is_empty() {
            let message = if floating.is_some() {
                "no hinge or slide joint below the free body: a single free rigid body is not \
                 a robot the method derives"
            } else {
                "no hinge or slide joint: nothing moves"
            };
            return Err(root.invalid("", message.to_owned()));
        }
        if joints.len() > MAX_BODIES {
            return Err(root.invalid(
                "",
                format!(
                    "{} joints; at most {MAX_BODIES} are supported",
                    joints.len()
                ),
            ));
        }
        let frames = self.frames(&owner, &free_tree, &kept, options, root)?;
        // The kept tree's free body, if any (one at most: `free_tree`).
        let free_armature = (0..self.bodies.len())
            .filter(|&b| kept[b])
            .find_map(|b| self.bodies[b].free)
            .unwrap_or(0.0);
        Ok(LocatedChain {
            floating,
            free_armature,
            chain: Chain {
                name,
                description: Some(format!(
                    "imported from MJCF `{}`",
                    super::base_name(file_name)
                )),
                source: None,
                gravity,
                joints: Vec::new(),
                tool: None,
                frames: Vec::new(),
            },
            joints,
            frames,
        })
    }

    /// Which bodies are read: all of them, or with `root` (`--root BODY`) the tree of that
    /// top-level body alone (bodies welded to the world elsewhere are left out too, as scenery).
    fn kept(&self, root: Option<&str>, element: &Element) -> Result<Vec<bool>, ImportError> {
        let Some(root) = root else {
            return Ok(vec![true; self.bodies.len()]);
        };
        let mut kept = vec![false; self.bodies.len()];
        for (b, body) in self.bodies.iter().enumerate() {
            kept[b] = match body.parent {
                None => body.name == root,
                Some(p) => kept[p],
            };
        }
        if kept.iter().any(|&k| k) {
            return Ok(kept);
        }
        let tops: Vec<&str> = self
            .bodies
            .iter()
            .filter(|b| b.parent.is_none())
            .map(|b| b.name.as_str())
            .collect();
        Err(ImportError::UnknownTip {
            at: element.at(),
            what: "root".to_owned(),
            message: format!(
                "no top-level body (child of the world) named `{root}`; the top-level bodies \
                 are: {}",
                tops.join(", ")
            ),
        })
    }

    /// Which bodies belong to the tree of the free body, if one has a free joint. Only one
    /// moving tree is supported with a free joint: another free body, or joints outside the
    /// free body's tree, are a located error; bodies welded to the world are scenery.
    fn free_tree(&self, kept: &[bool]) -> Result<Vec<bool>, ImportError> {
        let mut in_tree = vec![false; self.bodies.len()];
        let mut free_body: Option<usize> = None;
        for (b, body) in self.bodies.iter().enumerate() {
            if !kept[b] {
                continue;
            }
            in_tree[b] = body.free.is_some() || body.parent.is_some_and(|p| in_tree[p]);
            if body.free.is_some() {
                if let Some(first) = free_body {
                    return Err(body.element.unsupported(
                        "",
                        format!(
                            "a second free body (after `{}`): models with several floating \
                             trees are not supported yet",
                            self.bodies[first].name
                        ),
                    ));
                }
                free_body = Some(b);
            }
        }
        if let Some(first) = free_body {
            let outside = self
                .bodies
                .iter()
                .enumerate()
                .find(|(b, body)| kept[*b] && !in_tree[*b] && !body.joints.is_empty());
            if let Some((_, body)) = outside {
                return Err(body.joints[0].element.unsupported(
                    "",
                    format!(
                        "joints outside the tree of the free body `{}`: a model with a floating \
                         tree and other moving bodies is not supported yet",
                        self.bodies[first].name
                    ),
                ));
            }
        }
        Ok(in_tree)
    }

    /// Every named site on a moving body, then the bodies `options.frames` names, as frames.
    fn frames(
        &self,
        owner: &[Option<usize>],
        free_tree: &[bool],
        kept: &[bool],
        options: &ImportOptions,
        root: &Element,
    ) -> Result<Vec<(ChainFrame, super::error::Location)>, ImportError> {
        let mut frames = Vec::new();
        let mut names = Names::default();
        for (b, body) in self.bodies.iter().enumerate() {
            for (name, pose, element) in &body.sites {
                // A site on the fixed base never moves: no frame. One on the floating base is.
                if !kept[b] || (owner[b].is_none() && !free_tree[b]) {
                    continue;
                }
                names.check(name, "frame", element)?;
                if !finite_pose(pose) {
                    return Err(ImportError::NotFinite {
                        at: element.at(),
                        what: element.label(),
                        message: "the site's pose is not finite (numbers too large)".to_owned(),
                    });
                }
                let frame = ChainFrame {
                    name: name.clone(),
                    body: owner[b],
                    pose: *pose,
                };
                frames.push((frame, element.at()));
            }
        }
        for wanted in &options.frames {
            let Some(b) = self.bodies.iter().position(|b| &b.name == wanted) else {
                return Err(ImportError::UnknownTip {
                    at: root.at(),
                    what: "frame".to_owned(),
                    message: format!("no body named `{wanted}`"),
                });
            };
            let body = &self.bodies[b];
            if !kept[b] {
                return Err(body.element.invalid(
                    "",
                    format!("body `{wanted}` is not in the tree the root option keeps"),
                ));
            }
            if owner[b].is_none() && !free_tree[b] {
                return Err(body.element.invalid(
                    "",
                    format!("body `{wanted}` is fixed to the world, so a frame on it never moves"),
                ));
            }
            names.check(wanted, "frame", body.element)?;
            let frame = ChainFrame {
                name: wanted.clone(),
                body: owner[b],
                pose: body.pose,
            };
            frames.push((frame, body.element.at()));
        }
        Ok(frames)
    }
}

fn finite_props(p: &MassProps) -> bool {
    let values = p.com.iter().chain(p.inertia.iter().flatten());
    p.mass.is_finite() && values.into_iter().all(|x| x.is_finite())
}

fn finite_pose(p: &Pose) -> bool {
    p.p.iter()
        .chain(p.r.iter().flatten())
        .all(|x| x.is_finite())
}

/// Names given so far, by their identifier form: two names that read the same in generated
/// code are an error.
#[derive(Default)]
struct Names {
    seen: HashMap<String, String>,
}

impl Names {
    fn check(&mut self, name: &str, kind: &str, element: &Element) -> Result<(), ImportError> {
        let key = format!("{kind}:{}", frame_ident(name));
        match self.seen.insert(key, name.to_owned()) {
            Some(other) => Err(element.invalid(
                "name",
                format!(
                    "{kind} `{name}` gets the same identifier as {kind} `{other}` (`{}`); rename \
                     one of them",
                    frame_ident(name)
                ),
            )),
            None => Ok(()),
        }
    }
}

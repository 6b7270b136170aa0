//! URDF import, in the method's frames: the whole tree, or the serial chain from the root link
//! to a tip link.
//!
//! Links joined by fixed joints are merged into the body they are fixed to. Without a tip and
//! with several leaf links, every movable joint becomes a joint, numbered depth first from the
//! root with siblings sorted by joint name (the order Pinocchio's URDF parser gives), and every
//! leaf link becomes a named frame. With a tip (or a single leaf), movable joints off the
//! root-to-tip path and everything beyond the tip are locked at zero and merged into the body
//! they hang from. Mass before the first movable joint belongs to the base and is dropped.

use std::cell::RefCell;
use std::collections::HashMap;

use roxmltree::{Document, Node};

use super::chain::{normalize, Chain, ChainFrame, ChainJoint, MassProps, V3};
use super::error::{ImportError, Location};
use super::follow::{follow_chains, Broken};
use super::lock::{joint_motion, Locks};
use super::snap::{self, Snap};
use super::urdf_parse::{
    child, parse_joints, parse_links, Joint, Link, Snapper, Tree, UrdfSource, XYZ,
};
use super::{Ignored, ImportOptions, Imported, JointLock};
use crate::model::{BaseLayout, JointKind, Robot};

/// Most bodies a spec may have (docs/spec.md).
use crate::model::MAX_BODIES;

/// Imports a URDF document: the serial chain from the root link to `tip` (a link name), or,
/// with `tip = None`, the chain to the single leaf link or the whole tree if there are several
/// leaves. Values within a tolerance of exact ones are snapped. See [`import_urdf_with`].
pub fn import_urdf(xml: &str, file_name: &str, tip: Option<&str>) -> Result<Robot, ImportError> {
    let options = ImportOptions {
        tip: tip.map(str::to_owned),
        ..ImportOptions::default()
    };
    import_urdf_with(xml, file_name, &options).map(|imported| imported.robot)
}

/// Imports a URDF document with `options` (tip link, extra frames, snapping). The result
/// lists every snap made.
///
/// - `options.tip` given, or a single leaf link: the serial chain from the root link to it, whose
///   tool frame is the tip link's frame (other movable joints locked at zero).
/// - No tip and several leaf links: the whole tree. Every movable joint is a joint, in the order
///   of Pinocchio's URDF parser: depth first from the root link, siblings sorted by joint name
///   (byte-wise, not file order). Every leaf link that moves becomes a named frame: with
///   `options.floating_base` that includes the links fixed to the root link, which move with
///   the base (frames on the base body).
///
/// The joints of `options.locks` are fixed at their values (zero by default) before anything
/// else, as Pinocchio's `buildReducedModel`: each becomes a fixed joint whose origin carries the
/// joint's motion.
///
/// Every link in `options.frames` also becomes a named frame; frames are listed in the same
/// depth-first order of their links, named after the links, at the link's frame. Fixed joints
/// merge their child link into the body they are fixed to. `file_name` is only used in error
/// messages. The result uses gravity `(0, 0, -9.81)` (URDF's z is up), the URDF root link's
/// frame as the base frame, link names as body names and URDF joint names as joint names.
///
/// With `options.snap`, values within a tolerance of exact ones are snapped (angles to
/// multiples of `pi/2`, axis components to `0` or `±1`, negligible offsets and products of
/// inertia to `0`; see the `snap` module), on every joint, link and frame of the tree.
pub fn import_urdf_with(
    xml: &str,
    file_name: &str,
    options: &ImportOptions,
) -> Result<Imported, ImportError> {
    let mut cx = UrdfSource {
        file: file_name,
        text: xml,
        snap: None,
    };
    let doc = parse_xml(xml, file_name)?;
    let robot = doc.root_element();
    if robot.tag_name().name() != "robot" {
        return Err(ImportError::Invalid {
            at: cx.node_loc(robot),
            what: format!("<{}>", robot.tag_name().name()),
            message: "the root element of a URDF file must be <robot>".to_owned(),
        });
    }
    let name = cx.required_attr(robot, "robot", "name")?.to_owned();
    if options.snap {
        cx.snap = Some(Snapper {
            size: robot_size(robot),
            log: RefCell::new(Vec::new()),
        });
    }

    let urdf = Urdf::read(&cx, robot, &options.locks)?;
    let (tip_index, named) = urdf.tip_and_named(&cx, options)?;
    let moving = urdf.moving_joints(&cx, tip_index)?;
    let owner = urdf.owners(&moving);
    let (bodies, base_props) = urdf.mass_props(&cx, &moving, &owner, options)?;
    let mut chain_joints = urdf.chain_joints(&cx, &moving, &owner, &bodies)?;
    for (joint, mimic) in chain_joints.iter_mut().zip(urdf.mimics(&cx, &moving)?) {
        joint.mimic = mimic;
    }
    let frames = urdf.link_frames(&cx, &owner, &named, tip_index, options)?;

    let (links, joints, tree) = (&urdf.links, &urdf.joints, &urdf.tree);
    let root = tree.root;
    let description = match tip_index {
        Some(tip) => format!(
            "imported from URDF `{}`, chain `{}` to `{}`",
            super::base_name(file_name),
            links[root].name,
            links[tip].name
        ),
        None => format!(
            "imported from URDF `{}`, tree from `{}`",
            super::base_name(file_name),
            links[root].name
        ),
    };
    let frame_links: Vec<usize> = frames.iter().map(|f| f.link).collect();
    let mut robot = Chain {
        name,
        description: Some(description),
        source: None,
        gravity: [0.0, 0.0, -9.81],
        joints: chain_joints,
        tool: tip_index.map(|tip| tree.pose[tip]),
        frames: frames.into_iter().map(|f| f.frame).collect(),
    }
    .into_robot();
    if options.floating_base {
        super::chain::make_floating(&mut robot, &base_props, BaseLayout::Pinocchio);
    }
    let snaps = match cx.snap.take() {
        Some(snapper) => {
            let mut snaps = snapper.log.into_inner();
            let locs = SnapLocations {
                joints: moving
                    .iter()
                    .map(|&j| cx.node_loc(joints[j].node))
                    .collect(),
                frames: frame_links
                    .iter()
                    .map(|&l| cx.node_loc(links[l].node))
                    .collect(),
                tip: tip_index.map(|tip| cx.node_loc(links[tip].node)),
                root: cx.node_loc(links[root].node),
            };
            snap_robot(&mut robot, snapper.size, &locs, &mut snaps);
            snaps
        }
        None => Vec::new(),
    };
    let ignored = ignored_elements(&cx, urdf.robot, &urdf.joints, &moving);
    Ok(Imported {
        robot,
        snaps,
        ignored,
    })
}

/// What of the `<robot>` element the functions do not use, in file order: transmissions,
/// Gazebo extensions, joints' `<dynamics>` (damping and friction), safety controllers and
/// calibrations, and the mimic tags of joints that are no coordinate (locked, or off the path
/// to the tip).
fn ignored_elements(
    cx: &UrdfSource,
    robot: Node,
    joints: &[Joint],
    moving: &[usize],
) -> Vec<Ignored> {
    let mut out = Vec::new();
    let mut note = |node: Node, what: String, why: &str| {
        out.push(Ignored {
            at: cx.node_loc(node),
            what,
            why: why.to_owned(),
        })
    };
    let named = |node: Node| match node.attribute("name") {
        Some(name) => format!("{}[{name}]", node.tag_name().name()),
        None => node.tag_name().name().to_owned(),
    };
    for node in robot.children().filter(Node::is_element) {
        match node.tag_name().name() {
            "transmission" => note(node, named(node), "a transmission"),
            "gazebo" => note(node, named(node), "a Gazebo extension"),
            _ => {}
        }
    }
    for (j, joint) in joints.iter().enumerate() {
        let what = |tag: &str| format!("joint[{}].{tag}", joint.name);
        if let Some(node) = child(joint.node, "dynamics") {
            note(
                node,
                what("dynamics"),
                "damping and friction (not in these functions)",
            );
        }
        for tag in ["safety_controller", "calibration"] {
            if let Some(node) = child(joint.node, tag) {
                note(node, what(tag), "a controller setting");
            }
        }
        if let (Some(node), false) = (child(joint.node, "mimic"), moving.contains(&j)) {
            note(
                node,
                what("mimic"),
                "the mimic tag of a joint that is locked",
            );
        }
    }
    out.sort_by_key(|i| (i.at.line, i.at.col));
    out
}

/// The XML document `xml`, or its syntax error located in `file_name`.
fn parse_xml<'i>(xml: &'i str, file_name: &str) -> Result<Document<'i>, ImportError> {
    Document::parse(xml).map_err(|e| {
        let pos = e.pos();
        let message = e.to_string().replace(&format!(" at {pos}"), "");
        ImportError::Syntax {
            at: Location {
                file: file_name.to_owned(),
                line: pos.row,
                col: pos.col,
            },
            what: "xml".to_owned(),
            message,
        }
    })
}

/// Fixes each joint of `locks` at its value (zero by default): the joint becomes a fixed one
/// whose origin carries the joint's motion, so the child link sits where the value puts it.
fn lock_joints(
    cx: &UrdfSource,
    robot: Node,
    joints: &mut [Joint],
    locks: &[JointLock],
) -> Result<(), ImportError> {
    let mut asked = Locks::new(locks);
    for joint in joints.iter_mut() {
        let Some(at) = asked.take(&joint.name) else {
            continue;
        };
        let Some(kind) = joint.kind else {
            return Err(ImportError::UnknownTip {
                at: cx.node_loc(joint.node),
                what: "lock".to_owned(),
                message: format!(
                    "joint `{}` is fixed already: it cannot be locked",
                    joint.name
                ),
            });
        };
        let motion = joint_motion(kind, joint.axis, at.value(0.0));
        joint.origin = joint.origin.then(&motion);
        joint.kind = None;
    }
    match asked.unused() {
        Some(lock) => Err(ImportError::UnknownTip {
            at: cx.node_loc(robot),
            what: "lock".to_owned(),
            message: format!("no joint named `{}` to lock", lock.joint),
        }),
        None => Ok(()),
    }
}

/// A URDF document read: its `<robot>` element, links, joints and link tree.
struct Urdf<'a, 'i> {
    robot: Node<'a, 'i>,
    links: Vec<Link<'a, 'i>>,
    joints: Vec<Joint<'a, 'i>>,
    tree: Tree,
}

impl<'a, 'i> Urdf<'a, 'i> {
    /// Reads the links, joints and link tree of the `<robot>` element `robot`, with the joints
    /// of `locks` fixed at their values.
    fn read(
        cx: &UrdfSource,
        robot: Node<'a, 'i>,
        locks: &[JointLock],
    ) -> Result<Self, ImportError> {
        let links = parse_links(cx, robot)?;
        let mut joints = parse_joints(cx, robot, &links)?;
        lock_joints(cx, robot, &mut joints, locks)?;
        let tree = Tree::build(cx, robot, &links, &joints)?;
        Ok(Urdf {
            robot,
            links,
            joints,
            tree,
        })
    }

    /// The tip link: `options.tip`, else the single leaf link if there is one (`None`: the
    /// whole tree); and which links `options.frames` names.
    fn tip_and_named(
        &self,
        cx: &UrdfSource,
        options: &ImportOptions,
    ) -> Result<(Option<usize>, Vec<bool>), ImportError> {
        let (robot, links, tree) = (self.robot, &self.links, &self.tree);
        let link_index = |name: &str, what: &str| {
            links
                .iter()
                .position(|l| l.name == name)
                .ok_or_else(|| ImportError::UnknownTip {
                    at: cx.node_loc(robot),
                    what: what.to_owned(),
                    message: format!("no link named `{name}`"),
                })
        };
        let tip_index = match &options.tip {
            Some(tip) => Some(link_index(tip, "tip")?),
            None => {
                let mut leaves = (0..links.len()).filter(|&l| tree.children[l].is_empty());
                match (leaves.next(), leaves.next()) {
                    (Some(one), None) => Some(one),
                    _ => None,
                }
            }
        };
        let mut named = vec![false; links.len()];
        for frame in &options.frames {
            named[link_index(frame, "frame")?] = true;
        }
        Ok((tip_index, named))
    }

    /// The moving joints in body order: the movable joints on the root→tip path, root first,
    /// for a chain; every movable joint, depth first, for a tree. Checked: at least one, none a
    /// mimic joint, at most [`MAX_BODIES`].
    fn moving_joints(
        &self,
        cx: &UrdfSource,
        tip_index: Option<usize>,
    ) -> Result<Vec<usize>, ImportError> {
        let (robot, links, joints, tree) = (self.robot, &self.links, &self.joints, &self.tree);
        let root = tree.root;
        let moving: Vec<usize> = match tip_index {
            Some(tip) => {
                let mut path = Vec::new();
                let mut link = tip;
                while let Some(j) = tree.parent_joint[link] {
                    path.push(j);
                    link = joints[j].parent;
                }
                path.reverse();
                path.into_iter()
                    .filter(|&j| joints[j].kind.is_some())
                    .collect()
            }
            None => tree
                .order
                .iter()
                .copied()
                .filter(|&j| joints[j].kind.is_some())
                .collect(),
        };
        let what = if tip_index.is_some() { "chain" } else { "tree" };
        let between = match tip_index {
            Some(tip) => format!(
                "between the root link `{}` and the tip link `{}`",
                links[root].name, links[tip].name
            ),
            None => format!("below the root link `{}`", links[root].name),
        };
        if moving.is_empty() {
            return Err(ImportError::Invalid {
                at: cx.node_loc(robot),
                what: what.to_owned(),
                message: format!("no movable joint {between}"),
            });
        }
        if moving.len() > MAX_BODIES {
            return Err(ImportError::Invalid {
                at: cx.node_loc(robot),
                what: what.to_owned(),
                message: format!(
                    "{} movable joints {between}; at most {MAX_BODIES} are supported",
                    moving.len()
                ),
            });
        }
        Ok(moving)
    }

    /// The `<mimic>` of each moving joint: `q = multiplier * q_joint + offset` (multiplier 1
    /// and offset 0 when absent), the joint followed a moving joint that follows none (a
    /// chain of mimics is combined into one).
    fn mimics(
        &self,
        cx: &UrdfSource,
        moving: &[usize],
    ) -> Result<Vec<Option<crate::model::Mimic>>, ImportError> {
        let joints = &self.joints;
        // Each moving joint's own tag: (joint followed, multiplier, offset).
        let mut direct: Vec<Option<(usize, f64, f64)>> = Vec::with_capacity(moving.len());
        for &j in moving {
            let Some(node) = child(joints[j].node, "mimic") else {
                direct.push(None);
                continue;
            };
            let what = format!("joint[{}].mimic", joints[j].name);
            let target = cx.required_attr(node, &what, "joint")?;
            let Some(master) = joints.iter().position(|x| x.name == target) else {
                return Err(ImportError::Invalid {
                    at: cx.node_loc(node),
                    what,
                    message: format!("no joint named `{target}` to follow"),
                });
            };
            let Some(k) = moving.iter().position(|&m| m == master) else {
                return Err(ImportError::UnsupportedJoint {
                    at: cx.node_loc(node),
                    what,
                    message: format!(
                        "`{}` follows `{target}`, which is no coordinate here (fixed, locked, \
                         or off the path to the tip): lock `{}` too (--lock {}=VALUE), or \
                         choose a --tip whose path holds both",
                        joints[j].name, joints[j].name, joints[j].name
                    ),
                });
            };
            let [multiplier] = cx.numbers(node, &what, "multiplier", Some([1.0]))?;
            let [offset] = cx.numbers(node, &what, "offset", Some([0.0]))?;
            if multiplier == 0.0 {
                return Err(ImportError::Invalid {
                    at: cx.node_loc(node),
                    what,
                    message: "a multiplier of 0 holds the joint at its offset: make it a \
                              fixed joint, or lock it"
                        .to_owned(),
                });
            }
            direct.push(Some((k, multiplier, offset)));
        }
        // Follow each chain of mimics to a joint that follows none.
        follow_chains(&direct).map_err(|(k, broken)| {
            let joint = &joints[moving[k]];
            let at = cx.node_loc(child(joint.node, "mimic").unwrap_or(joint.node));
            let what = format!("joint[{}].mimic", joint.name);
            match broken {
                Broken::Loop => ImportError::Invalid {
                    at,
                    what,
                    message: "the mimic tags form a loop: some joint must follow none".to_owned(),
                },
                Broken::Degenerate => ImportError::NotFinite {
                    at,
                    what,
                    message: "the mimic tags' multipliers and offsets, combined along the \
                              chain of mimics, overflow or vanish"
                        .to_owned(),
                },
            }
        })
    }

    /// The body each link belongs to (an index into `moving`), `None` for the base.
    fn owners(&self, moving: &[usize]) -> Vec<Option<usize>> {
        let (links, joints, tree) = (&self.links, &self.joints, &self.tree);
        let mut body_of_joint: Vec<Option<usize>> = vec![None; joints.len()];
        for (k, &j) in moving.iter().enumerate() {
            body_of_joint[j] = Some(k);
        }

        // Every link belongs to the body of the nearest moving joint above it (locked joints and
        // fixed joints pass ownership down); links above the first moving joint are the base.
        let mut owner: Vec<Option<usize>> = vec![None; links.len()];
        for &j in &tree.order {
            let joint = &joints[j];
            owner[joint.child] = body_of_joint[j].or(owner[joint.parent]);
        }
        owner
    }

    /// The mass properties of each body (the links it owns merged) and of the base, in the
    /// root link's frame.
    fn mass_props(
        &self,
        cx: &UrdfSource,
        moving: &[usize],
        owner: &[Option<usize>],
        options: &ImportOptions,
    ) -> Result<(Vec<MassProps>, MassProps), ImportError> {
        let (links, tree) = (&self.links, &self.tree);
        let root = tree.root;
        // Links owned by no moving joint are the base: dropped on a fixed base, the floating base
        // body with `floating_base`.
        let mut bodies = vec![MassProps::ZERO; moving.len()];
        let mut base_props = MassProps::ZERO;
        for (l, link) in links.iter().enumerate() {
            if let Some(inertial) = &link.inertial {
                let frame = tree.pose[l].then(&inertial.origin);
                let props = MassProps::in_base(&frame, inertial.mass, [0.0; 3], &inertial.inertia);
                match owner[l] {
                    Some(k) => bodies[k] = bodies[k].merge(&props),
                    None => base_props = base_props.merge(&props),
                }
            }
        }
        if options.floating_base && !finite_props(&base_props) {
            let link = &links[root];
            return Err(ImportError::NotFinite {
                at: cx.node_loc(link.node),
                what: format!("link[{}]", link.name),
                message: "the mass, centre of mass and inertia of the floating base body, \
                          with the links fixed to it, are not finite (numbers too large)"
                    .to_owned(),
            });
        }
        Ok((bodies, base_props))
    }

    /// The chain's joint of each moving joint, with the mass properties of its body.
    fn chain_joints(
        &self,
        cx: &UrdfSource,
        moving: &[usize],
        owner: &[Option<usize>],
        bodies: &[MassProps],
    ) -> Result<Vec<ChainJoint>, ImportError> {
        let (links, joints, tree) = (&self.links, &self.joints, &self.tree);
        // Massless links are taken as they are (Pinocchio takes them too); a robot whose mass
        // matrix they make singular everywhere is refused when code is generated, naming the joint.
        let mut chain_joints = Vec::with_capacity(moving.len());
        for (k, &j) in moving.iter().enumerate() {
            let joint = &joints[j];
            let child = &links[joint.child];
            let body = bodies[k];
            if !finite_props(&body) {
                return Err(ImportError::NotFinite {
                    at: cx.node_loc(child.node),
                    what: format!("link[{}]", child.name),
                    message: format!(
                        "the mass, centre of mass and inertia of the body moved by joint `{}`, \
                         with the links fixed to it, are not finite (numbers too large)",
                        joint.name
                    ),
                });
            }
            let frame = &tree.pose[joint.child];
            if frame
                .p
                .iter()
                .chain(frame.r.iter().flatten())
                .any(|x| !x.is_finite())
            {
                return Err(ImportError::NotFinite {
                    at: cx.node_loc(joint.node),
                    what: format!("joint[{}]", joint.name),
                    message: "the joint's position in the base frame is not finite (numbers too \
                              large)"
                        .to_owned(),
                });
            }
            // The joint frame is the child link frame: its origin lies on the axis.
            let axis = crate::mat3::mat_vec(&frame.r, joint.axis);
            chain_joints.push(ChainJoint {
                body_name: child.name.clone(),
                joint_name: joint.name.clone(),
                kind: joint.kind.unwrap_or(JointKind::Revolute),
                parent: owner[joint.parent],
                pole: frame.p,
                axis: normalize(axis).unwrap_or(axis),
                body,
                armature: 0.0,
                passive: Default::default(),
                mimic: None,
            });
        }
        Ok(chain_joints)
    }

    /// The named frames, each with its link.
    fn link_frames(
        &self,
        cx: &UrdfSource,
        owner: &[Option<usize>],
        named: &[bool],
        tip_index: Option<usize>,
        options: &ImportOptions,
    ) -> Result<Vec<LinkFrame>, ImportError> {
        let (links, tree) = (&self.links, &self.tree);
        // Named frames, in the depth-first order of their links: the links named in the options,
        // and for a tree every leaf link that moves. A link fixed to a floating base moves with it;
        // one fixed to a fixed base never moves, so it is no frame.
        let mut frames: Vec<LinkFrame> = Vec::new();
        let mut idents: HashMap<String, usize> = HashMap::new();
        for &l in &tree.links {
            let leaf = tip_index.is_none() && tree.children[l].is_empty();
            if !(named[l] || leaf) {
                continue;
            }
            let link = &links[l];
            let body = owner[l];
            if body.is_none() && !options.floating_base {
                if named[l] {
                    return Err(ImportError::Invalid {
                        at: cx.node_loc(link.node),
                        what: format!("link[{}]", link.name),
                        message: format!(
                            "link `{}` is fixed to the base (no movable joint above it), so a \
                             frame on it never moves",
                            link.name
                        ),
                    });
                }
                continue;
            }
            let ident = crate::names::frame_ident(&link.name);
            if let Some(&other) = idents.get(&ident) {
                return Err(ImportError::Invalid {
                    at: cx.node_loc(link.node),
                    what: format!("link[{}]", link.name),
                    message: format!(
                        "the frame of link `{}` gets the same function names as the frame of link \
                         `{}` (`{ident}`)",
                        link.name, links[other].name
                    ),
                });
            }
            idents.insert(ident, l);
            frames.push(LinkFrame {
                link: l,
                frame: ChainFrame {
                    name: link.name.clone(),
                    body,
                    pose: tree.pose[l],
                },
            });
        }
        Ok(frames)
    }
}

/// The robot's size for snapping offsets: the sum of the lengths of all joint offsets (read
/// leniently; malformed values are reported by the real parse).
fn robot_size(robot: Node) -> f64 {
    robot
        .children()
        .filter(|c| c.is_element() && c.tag_name().name() == "joint")
        .filter_map(|j| child(j, "origin")?.attribute("xyz"))
        .map(|xyz| {
            xyz.split_whitespace()
                .filter_map(|w| w.parse::<f64>().ok())
                .filter(|x| x.is_finite())
                .map(|x| x * x)
                .sum::<f64>()
                .sqrt()
        })
        .sum()
}

/// A named frame and the link it is at.
struct LinkFrame {
    link: usize,
    frame: ChainFrame,
}

/// Where values in the method's frames are reported: each body's at the joint that moves it,
/// each frame's at its link, the tool rotation at the tip link.
pub(super) struct SnapLocations {
    pub(super) joints: Vec<Location>,
    pub(super) frames: Vec<Location>,
    pub(super) tip: Option<Location>,
    /// The root link, for the floating base body.
    pub(super) root: Location,
}

/// Snaps what the composition of the tree left within a tolerance of exact values, in the
/// method's frames: axis, `origin`, `next`, centre of mass and inertia of every body (every
/// branch of a tree), the base point, a floating base body's centre of mass and inertia, every
/// frame's position and rotation, and the tool rotation.
pub(super) fn snap_robot(
    robot: &mut Robot,
    size: f64,
    locs: &SnapLocations,
    snaps: &mut Vec<Snap>,
) {
    let offset_tol = snap::COMPOSED_TOL * size;
    let mut log = |at: &Location, what: String, from: f64, to: f64| {
        snaps.push(Snap {
            at: at.clone(),
            what,
            from,
            to,
            angle: false,
        });
    };
    // A body's `origin` is usually its carrier's `next` (or the base point): listed once.
    let listed: Vec<V3> = robot
        .bodies
        .iter()
        .map(|b| match b.parent {
            Some(p) => robot.bodies[p].next,
            None => robot.base,
        })
        .collect();
    if let Some(at) = locs.joints.first() {
        for (i, from) in snap::snap_small(&mut robot.base, offset_tol) {
            log(at, format!("base.{}", XYZ[i]), from, 0.0);
        }
    }
    for (k, (body, at)) in robot.bodies.iter_mut().zip(&locs.joints).enumerate() {
        let what = |field: &str| format!("body[{}].{field}", k + 1);
        let (axis, changes) = snap::snap_unit_within(body.axis, snap::COMPOSED_TOL);
        body.axis = axis;
        for (i, from, to) in changes {
            log(at, what(&format!("axis.{}", XYZ[i])), from, to);
        }
        let already = body.origin == listed[k];
        for (i, from) in snap::snap_small(&mut body.origin, offset_tol) {
            if !already {
                log(at, what(&format!("origin.{}", XYZ[i])), from, 0.0);
            }
        }
        for (i, from) in snap::snap_small(&mut body.next, offset_tol) {
            log(at, what(&format!("next.{}", XYZ[i])), from, 0.0);
        }
        for (i, from) in snap::snap_small(&mut body.com, offset_tol) {
            log(at, what(&format!("com.{}", XYZ[i])), from, 0.0);
        }
        for (name, from) in snap::snap_products(&mut body.inertia_com) {
            log(at, what(&format!("inertia.{name}")), from, 0.0);
        }
    }
    for (frame, at) in robot.frames.iter_mut().zip(&locs.frames) {
        let name = frame.name.clone();
        let what = |field: String| format!("frame[{name}].{field}");
        for (i, from) in snap::snap_small(&mut frame.position, offset_tol) {
            log(at, what(format!("position.{}", XYZ[i])), from, 0.0);
        }
        for (i, j, from, to) in snap::snap_rotation(&mut frame.rotation, snap::COMPOSED_TOL) {
            log(
                at,
                what(format!("rotation[{}][{}]", i + 1, j + 1)),
                from,
                to,
            );
        }
    }
    if let Some(base) = &mut robot.base_body {
        for (i, from) in snap::snap_small(&mut base.com, offset_tol) {
            log(&locs.root, format!("base.com.{}", XYZ[i]), from, 0.0);
        }
        for (name, from) in snap::snap_products(&mut base.inertia_com) {
            log(&locs.root, format!("base.inertia.{name}"), from, 0.0);
        }
    }
    if let Some(at) = &locs.tip {
        for (i, j, from, to) in snap::snap_rotation(&mut robot.tool_rotation, snap::COMPOSED_TOL) {
            log(at, format!("tool.rotation[{}][{}]", i + 1, j + 1), from, to);
        }
    }
}

/// Whether merged mass properties are finite (large written values can overflow when links
/// are merged with the parallel-axis theorem).
fn finite_props(p: &MassProps) -> bool {
    let values = p.com.iter().chain(p.inertia.iter().flatten());
    p.mass.is_finite() && values.into_iter().all(|x| x.is_finite())
}

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

use super::chain::{normalize, rpy, Chain, ChainFrame, ChainJoint, MassProps, Pose, V3};
use super::error::{ImportError, Location};
use super::snap::{self, Snap};
use super::{ImportOptions, Imported};
use crate::model::{BaseBody, BaseMotion, JointKind, Robot, SymbolicInertial};

/// Most bodies a spec may have (docs/spec.md).
const MAX_BODIES: usize = 64;

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
    let mut cx = Cx {
        file: file_name,
        text: xml,
        snap: None,
    };
    let doc = Document::parse(xml).map_err(|e| {
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
    })?;
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

    let links = parse_links(&cx, robot)?;
    let joints = parse_joints(&cx, robot, &links)?;
    let tree = Tree::build(&cx, robot, &links, &joints)?;
    let root = tree.root;

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

    // The moving joints in body order: the movable joints on the root→tip path, root first, for
    // a chain; every movable joint, depth first, for a tree.
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
    let mimics: Vec<usize> = moving
        .iter()
        .copied()
        .filter(|&j| child(joints[j].node, "mimic").is_some())
        .collect();
    if let Some(&first) = mimics.first() {
        let names: Vec<String> = mimics
            .iter()
            .map(|&j| {
                let target = child(joints[j].node, "mimic")
                    .and_then(|m| m.attribute("joint"))
                    .unwrap_or("?");
                format!("`{}` (mimics `{target}`)", joints[j].name)
            })
            .collect();
        let el = child(joints[first].node, "mimic").unwrap_or(joints[first].node);
        return Err(ImportError::UnsupportedJoint {
            at: cx.node_loc(el),
            what: format!("joint[{}].mimic", joints[first].name),
            message: format!(
                "mimic joints are not supported: {}; every movable joint becomes an \
                 independent coordinate, so make {} fixed, or choose a --tip whose path avoids {}",
                names.join(", "),
                if mimics.len() == 1 { "it" } else { "them" },
                if mimics.len() == 1 { "it" } else { "them" },
            ),
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
            message: "the mass, centre of mass and inertia of the floating base body, with the \
                      links fixed to it, are not finite (numbers too large)"
                .to_owned(),
        });
    }
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
                    "the mass, centre of mass and inertia of the body moved by joint `{}`, with \
                     the links fixed to it, are not finite (numbers too large)",
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
        let axis = super::chain::mat_vec(&frame.r, joint.axis);
        chain_joints.push(ChainJoint {
            body_name: child.name.clone(),
            joint_name: joint.name.clone(),
            kind: joint.kind.unwrap_or(JointKind::Revolute),
            parent: owner[joint.parent],
            pole: frame.p,
            axis: normalize(axis).unwrap_or(axis),
            body,
        });
    }

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
                        "link `{}` is fixed to the base (no movable joint above it), so a frame \
                         on it never moves",
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
        robot.motion = BaseMotion::Floating;
        robot.base_body = Some(BaseBody {
            mass: base_props.mass,
            com: base_props.com,
            inertia_com: base_props.inertia,
            symbolic: SymbolicInertial::default(),
        });
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
    Ok(Imported { robot, snaps })
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

const XYZ: [&str; 3] = ["x", "y", "z"];

/// A named frame and the link it is at.
struct LinkFrame {
    link: usize,
    frame: ChainFrame,
}

/// Where values in the method's frames are reported: each body's at the joint that moves it,
/// each frame's at its link, the tool rotation at the tip link.
struct SnapLocations {
    joints: Vec<Location>,
    frames: Vec<Location>,
    tip: Option<Location>,
    /// The root link, for the floating base body.
    root: Location,
}

/// Snaps what the composition of the tree left within a tolerance of exact values, in the
/// method's frames: axis, `origin`, `next`, centre of mass and inertia of every body (every
/// branch of a tree), the base point, a floating base body's centre of mass and inertia, every
/// frame's position and rotation, and the tool rotation.
fn snap_robot(robot: &mut Robot, size: f64, locs: &SnapLocations, snaps: &mut Vec<Snap>) {
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

/// Snapping state while parsing: the robot's size and the snaps made so far.
struct Snapper {
    size: f64,
    log: RefCell<Vec<Snap>>,
}

/// File name and text, for locating errors; the snapping state if snapping.
struct Cx<'a> {
    file: &'a str,
    text: &'a str,
    snap: Option<Snapper>,
}

impl Cx<'_> {
    fn loc(&self, offset: usize) -> Location {
        Location::at_offset(self.file, self.text, offset)
    }

    fn node_loc(&self, node: Node) -> Location {
        self.loc(node.range().start)
    }

    fn attr_loc(&self, node: Node, attr: &str) -> Location {
        match node.attribute_node(attr) {
            Some(a) => self.loc(a.range_value().start),
            None => self.node_loc(node),
        }
    }

    /// Records a snap of a value written in attribute `attr` of `node`.
    fn record(&self, node: Node, attr: &str, what: String, from: f64, to: f64, angle: bool) {
        if let Some(snapper) = &self.snap {
            snapper.log.borrow_mut().push(Snap {
                at: self.attr_loc(node, attr),
                what,
                from,
                to,
                angle,
            });
        }
    }

    /// A unit joint axis as written, snapped to `0`/`±1` components when snapping.
    fn snap_axis(&self, node: Node, what: &str, axis: V3) -> V3 {
        if self.snap.is_none() {
            return axis;
        }
        let (out, changes) = snap::snap_unit(axis);
        for (i, from, to) in changes {
            self.record(node, "xyz", format!("{what}.{}", XYZ[i]), from, to, false);
        }
        out
    }

    /// Products of inertia negligible against the moments set to `0` when snapping.
    fn snap_inertia(&self, node: Node, what: &str, inertia: &mut [[f64; 3]; 3]) {
        if self.snap.is_none() {
            return;
        }
        for (name, from) in snap::snap_products(inertia) {
            self.record(node, name, format!("{what}.{name}"), from, 0.0, false);
        }
    }

    fn required_attr<'n>(
        &self,
        node: Node<'n, '_>,
        what: &str,
        attr: &str,
    ) -> Result<&'n str, ImportError> {
        node.attribute(attr).ok_or_else(|| ImportError::Invalid {
            at: self.node_loc(node),
            what: what.to_owned(),
            message: format!("<{}> needs a `{attr}` attribute", node.tag_name().name()),
        })
    }

    /// `N` numbers separated by whitespace in attribute `attr`; `default` if it is absent.
    fn numbers<const N: usize>(
        &self,
        node: Node,
        what: &str,
        attr: &str,
        default: Option<[f64; N]>,
    ) -> Result<[f64; N], ImportError> {
        let Some(text) = node.attribute(attr) else {
            return default.ok_or_else(|| ImportError::Invalid {
                at: self.node_loc(node),
                what: what.to_owned(),
                message: format!("<{}> needs a `{attr}` attribute", node.tag_name().name()),
            });
        };
        let invalid = |message: String| ImportError::Invalid {
            at: self.attr_loc(node, attr),
            what: what.to_owned(),
            message,
        };
        let mut out = [0.0; N];
        let mut count = 0;
        for word in text.split_whitespace() {
            let value: f64 = word
                .parse()
                .map_err(|_| invalid(format!("`{word}` is not a number")))?;
            if !value.is_finite() {
                return Err(ImportError::NotFinite {
                    at: self.attr_loc(node, attr),
                    what: what.to_owned(),
                    message: format!("numbers must be finite, got `{word}`"),
                });
            }
            if count < N {
                out[count] = value;
            }
            count += 1;
        }
        if count != N {
            return Err(invalid(format!(
                "expected {N} number{}, got {count} in `{text}`",
                if N == 1 { "" } else { "s" }
            )));
        }
        Ok(out)
    }

    /// A `<origin xyz rpy>` child (identity if absent).
    fn origin(&self, parent: Node, what: &str) -> Result<Pose, ImportError> {
        let Some(origin) = child(parent, "origin") else {
            return Ok(Pose::IDENTITY);
        };
        let mut xyz = self.numbers(origin, &format!("{what}.origin.xyz"), "xyz", Some([0.0; 3]))?;
        let mut angles =
            self.numbers(origin, &format!("{what}.origin.rpy"), "rpy", Some([0.0; 3]))?;
        let Some(snapper) = &self.snap else {
            return Ok(Pose {
                r: rpy(angles),
                p: xyz,
            });
        };
        for (i, from) in snap::snap_small(&mut xyz, snap::OFFSET_TOL * snapper.size) {
            let field = format!("{what}.origin.xyz.{}", XYZ[i]);
            self.record(origin, "xyz", field, from, 0.0, false);
        }
        let mut quarters = [None; 3];
        for (i, name) in ["roll", "pitch", "yaw"].into_iter().enumerate() {
            let Some(k) = snap::quarter_turns(angles[i]) else {
                continue;
            };
            quarters[i] = Some(k);
            let exact = k as f64 * std::f64::consts::FRAC_PI_2;
            // Also a value already equal to the `f64` nearest `k pi/2` is a snap: its rotation
            // is built from exact sines and cosines.
            if k != 0 || angles[i] != 0.0 {
                let field = format!("{what}.origin.rpy.{name}");
                self.record(origin, "rpy", field, angles[i], exact, true);
                angles[i] = exact;
            }
        }
        Ok(Pose {
            r: snap::rpy_with(angles, quarters),
            p: xyz,
        })
    }
}

fn child<'a, 'i>(node: Node<'a, 'i>, tag: &str) -> Option<Node<'a, 'i>> {
    node.children()
        .find(|c| c.is_element() && c.tag_name().name() == tag)
}

struct Inertial {
    mass: f64,
    origin: Pose,
    inertia: [[f64; 3]; 3],
}

struct Link<'a, 'i> {
    name: String,
    node: Node<'a, 'i>,
    inertial: Option<Inertial>,
}

/// Whether merged mass properties are finite (large written values can overflow when links
/// are merged with the parallel-axis theorem).
fn finite_props(p: &MassProps) -> bool {
    let values = p.com.iter().chain(p.inertia.iter().flatten());
    p.mass.is_finite() && values.into_iter().all(|x| x.is_finite())
}

struct Joint<'a, 'i> {
    name: String,
    node: Node<'a, 'i>,
    /// `None` for a fixed joint.
    kind: Option<JointKind>,
    parent: usize,
    child: usize,
    origin: Pose,
    /// Unit axis in the joint (child link) frame.
    axis: V3,
}

fn parse_links<'a, 'i>(cx: &Cx, robot: Node<'a, 'i>) -> Result<Vec<Link<'a, 'i>>, ImportError> {
    let mut links: Vec<Link> = Vec::new();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for node in robot
        .children()
        .filter(|c| c.is_element() && c.tag_name().name() == "link")
    {
        let name = cx.required_attr(node, "link", "name")?;
        if seen.insert(name, links.len()).is_some() {
            return Err(ImportError::Invalid {
                at: cx.attr_loc(node, "name"),
                what: format!("link[{name}]"),
                message: format!("duplicate link name `{name}`"),
            });
        }
        let what = format!("link[{name}].inertial");
        let inertial = match child(node, "inertial") {
            None => None,
            Some(el) => {
                let origin = cx.origin(el, &what)?;
                let mass_el = child(el, "mass").ok_or_else(|| ImportError::Invalid {
                    at: cx.node_loc(el),
                    what: what.clone(),
                    message: "<inertial> needs a <mass value=\"...\"/>".to_owned(),
                })?;
                let [mass] = cx.numbers::<1>(mass_el, &format!("{what}.mass"), "value", None)?;
                if mass < 0.0 {
                    return Err(ImportError::Invalid {
                        at: cx.attr_loc(mass_el, "value"),
                        what: format!("{what}.mass"),
                        message: format!("mass must not be negative, got {mass}"),
                    });
                }
                let inertia_el = child(el, "inertia").ok_or_else(|| ImportError::Invalid {
                    at: cx.node_loc(el),
                    what: what.clone(),
                    message: "<inertial> needs an <inertia ixx=... iyy=... izz=.../>".to_owned(),
                })?;
                let entry = |key: &str, default: Option<f64>| {
                    cx.numbers::<1>(
                        inertia_el,
                        &format!("{what}.inertia.{key}"),
                        key,
                        default.map(|d| [d]),
                    )
                    .map(|[v]| v)
                };
                let ixx = entry("ixx", None)?;
                let iyy = entry("iyy", None)?;
                let izz = entry("izz", None)?;
                let ixy = entry("ixy", Some(0.0))?;
                let ixz = entry("ixz", Some(0.0))?;
                let iyz = entry("iyz", Some(0.0))?;
                let mut inertia = [[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]];
                cx.snap_inertia(inertia_el, &format!("{what}.inertia"), &mut inertia);
                Some(Inertial {
                    mass,
                    origin,
                    inertia,
                })
            }
        };
        links.push(Link {
            name: name.to_owned(),
            node,
            inertial,
        });
    }
    if links.is_empty() {
        return Err(ImportError::Invalid {
            at: cx.node_loc(robot),
            what: "robot".to_owned(),
            message: "the robot has no <link>".to_owned(),
        });
    }
    Ok(links)
}

fn parse_joints<'a, 'i>(
    cx: &Cx,
    robot: Node<'a, 'i>,
    links: &[Link],
) -> Result<Vec<Joint<'a, 'i>>, ImportError> {
    let index: HashMap<&str, usize> = links
        .iter()
        .enumerate()
        .map(|(i, l)| (l.name.as_str(), i))
        .collect();
    let mut seen: HashMap<&str, ()> = HashMap::new();
    let mut joints = Vec::new();
    for node in robot
        .children()
        .filter(|c| c.is_element() && c.tag_name().name() == "joint")
    {
        let name = cx.required_attr(node, "joint", "name")?;
        let what = format!("joint[{name}]");
        if seen.insert(name, ()).is_some() {
            return Err(ImportError::Invalid {
                at: cx.attr_loc(node, "name"),
                what,
                message: format!("duplicate joint name `{name}`"),
            });
        }
        let ty = cx.required_attr(node, &what, "type")?;
        let kind = match ty {
            "revolute" | "continuous" => Some(JointKind::Revolute),
            "prismatic" => Some(JointKind::Prismatic),
            "fixed" => None,
            "floating" | "planar" => {
                return Err(ImportError::UnsupportedJoint {
                    at: cx.attr_loc(node, "type"),
                    what: format!("{what}.type"),
                    message: format!(
                        "{ty} joints are not supported: the method describes serial chains of \
                         revolute and prismatic joints"
                    ),
                })
            }
            other => {
                return Err(ImportError::UnsupportedJoint {
                    at: cx.attr_loc(node, "type"),
                    what: format!("{what}.type"),
                    message: format!(
                        "unknown joint type `{other}`; expected revolute, continuous, prismatic \
                         or fixed"
                    ),
                })
            }
        };
        let link_ref = |tag: &str| -> Result<usize, ImportError> {
            let el = child(node, tag).ok_or_else(|| ImportError::Invalid {
                at: cx.node_loc(node),
                what: what.clone(),
                message: format!("<joint> needs a <{tag} link=\"...\"/>"),
            })?;
            let link = cx.required_attr(el, &format!("{what}.{tag}"), "link")?;
            index
                .get(link)
                .copied()
                .ok_or_else(|| ImportError::Invalid {
                    at: cx.attr_loc(el, "link"),
                    what: format!("{what}.{tag}"),
                    message: format!("no link named `{link}`"),
                })
        };
        let parent = link_ref("parent")?;
        let child_link = link_ref("child")?;
        let origin = cx.origin(node, &what)?;
        let axis = match (kind, child(node, "axis")) {
            (Some(_), Some(el)) => {
                let raw = cx.numbers(
                    el,
                    &format!("{what}.axis.xyz"),
                    "xyz",
                    Some([1.0, 0.0, 0.0]),
                )?;
                let unit = normalize(raw).ok_or_else(|| ImportError::Invalid {
                    at: cx.attr_loc(el, "xyz"),
                    what: format!("{what}.axis.xyz"),
                    message: "the joint axis must not be zero".to_owned(),
                })?;
                cx.snap_axis(el, &format!("{what}.axis.xyz"), unit)
            }
            _ => [1.0, 0.0, 0.0],
        };
        joints.push(Joint {
            name: name.to_owned(),
            node,
            kind,
            parent,
            child: child_link,
            origin,
            axis,
        });
    }
    Ok(joints)
}

/// The link tree and every link's frame at the zero configuration (all joints at 0).
struct Tree {
    root: usize,
    parent_joint: Vec<Option<usize>>,
    /// Joints whose parent is the link.
    children: Vec<Vec<usize>>,
    /// Joints depth first from the root, siblings sorted by joint name (Pinocchio's order).
    order: Vec<usize>,
    /// Links in the same order: the root, then the child link of each joint of `order`.
    links: Vec<usize>,
    /// Link frames in the root link's frame at `q = 0`.
    pose: Vec<Pose>,
}

impl Tree {
    fn build(cx: &Cx, robot: Node, links: &[Link], joints: &[Joint]) -> Result<Tree, ImportError> {
        let mut parent_joint: Vec<Option<usize>> = vec![None; links.len()];
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); links.len()];
        for (j, joint) in joints.iter().enumerate() {
            let child_el = child(joint.node, "child").unwrap_or(joint.node);
            if joint.parent == joint.child {
                return Err(ImportError::Topology {
                    at: cx.node_loc(child_el),
                    what: format!("joint[{}]", joint.name),
                    message: format!(
                        "joint connects link `{}` to itself",
                        links[joint.child].name
                    ),
                });
            }
            if let Some(other) = parent_joint[joint.child] {
                return Err(ImportError::Topology {
                    at: cx.node_loc(child_el),
                    what: format!("joint[{}]", joint.name),
                    message: format!(
                        "link `{}` has two parents (joints `{}` and `{}`); closed kinematic \
                         loops are not supported",
                        links[joint.child].name, joints[other].name, joint.name
                    ),
                });
            }
            parent_joint[joint.child] = Some(j);
            children[joint.parent].push(j);
        }
        let roots: Vec<usize> = (0..links.len())
            .filter(|&l| parent_joint[l].is_none())
            .collect();
        let root = match roots.as_slice() {
            [r] => *r,
            [] => {
                return Err(ImportError::Topology {
                    at: cx.node_loc(robot),
                    what: "robot".to_owned(),
                    message: "every link has a parent joint: the joints form a closed loop"
                        .to_owned(),
                })
            }
            several => {
                let names: Vec<&str> = several.iter().map(|&l| links[l].name.as_str()).collect();
                return Err(ImportError::Topology {
                    at: cx.node_loc(links[several[1]].node),
                    what: "robot".to_owned(),
                    message: format!(
                        "several root links ({}); the links must form one tree",
                        names.join(", ")
                    ),
                });
            }
        };
        // urdfdom keeps a link's child joints in the order of its name-sorted joint map, and
        // Pinocchio's parser walks them depth first.
        for list in &mut children {
            list.sort_by(|&a, &b| joints[a].name.cmp(&joints[b].name));
        }
        let mut pose = vec![Pose::IDENTITY; links.len()];
        let mut reached = vec![false; links.len()];
        let mut order = Vec::with_capacity(joints.len());
        let mut walk = vec![root];
        let mut stack: Vec<usize> = children[root].iter().rev().copied().collect();
        reached[root] = true;
        while let Some(j) = stack.pop() {
            let (l, c) = (joints[j].parent, joints[j].child);
            // One parent per link and a single root: a link reached twice is impossible, but
            // guard anyway rather than loop.
            if reached[c] {
                continue;
            }
            reached[c] = true;
            pose[c] = pose[l].then(&joints[j].origin);
            order.push(j);
            walk.push(c);
            stack.extend(children[c].iter().rev());
        }
        if let Some(l) = (0..links.len()).find(|&l| !reached[l]) {
            return Err(ImportError::Topology {
                at: cx.node_loc(links[l].node),
                what: format!("link[{}]", links[l].name),
                message: format!(
                    "link `{}` is on a closed kinematic loop, not connected to the root link `{}`",
                    links[l].name, links[root].name
                ),
            });
        }
        Ok(Tree {
            root,
            parent_joint,
            children,
            order,
            links: walk,
            pose,
        })
    }
}

//! Reading a URDF document: its links (with their inertia), joints and link tree, as written.
//! Errors are located in the file; with snapping, values are snapped as they are read and each
//! snap is recorded where the value is written.

use std::cell::RefCell;
use std::collections::HashMap;

use roxmltree::Node;

use super::chain::{normalize, rpy, Pose, V3};
use super::error::{ImportError, Location};
use super::snap::{self, Snap};
use crate::model::JointKind;

/// Coordinate names, for the fields of snapped components.
pub(super) const XYZ: [&str; 3] = ["x", "y", "z"];

/// Snapping state while parsing: the robot's size and the snaps made so far.
pub(super) struct Snapper {
    pub(super) size: f64,
    pub(super) log: RefCell<Vec<Snap>>,
}

/// File name and text, for locating errors; the snapping state if snapping.
pub(super) struct UrdfSource<'a> {
    pub(super) file: &'a str,
    pub(super) text: &'a str,
    pub(super) snap: Option<Snapper>,
}

impl UrdfSource<'_> {
    fn loc(&self, offset: usize) -> Location {
        Location::at_offset(self.file, self.text, offset)
    }

    pub(super) fn node_loc(&self, node: Node) -> Location {
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

    pub(super) fn required_attr<'n>(
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
    pub(super) fn numbers<const N: usize>(
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

pub(super) fn child<'a, 'i>(node: Node<'a, 'i>, tag: &str) -> Option<Node<'a, 'i>> {
    node.children()
        .find(|c| c.is_element() && c.tag_name().name() == tag)
}

pub(super) struct Inertial {
    pub(super) mass: f64,
    pub(super) origin: Pose,
    pub(super) inertia: [[f64; 3]; 3],
}

pub(super) struct Link<'a, 'i> {
    pub(super) name: String,
    pub(super) node: Node<'a, 'i>,
    pub(super) inertial: Option<Inertial>,
}

pub(super) struct Joint<'a, 'i> {
    pub(super) name: String,
    pub(super) node: Node<'a, 'i>,
    /// `None` for a fixed joint.
    pub(super) kind: Option<JointKind>,
    pub(super) parent: usize,
    pub(super) child: usize,
    pub(super) origin: Pose,
    /// Unit axis in the joint (child link) frame.
    pub(super) axis: V3,
}

pub(super) fn parse_links<'a, 'i>(
    cx: &UrdfSource,
    robot: Node<'a, 'i>,
) -> Result<Vec<Link<'a, 'i>>, ImportError> {
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

pub(super) fn parse_joints<'a, 'i>(
    cx: &UrdfSource,
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
pub(super) struct Tree {
    pub(super) root: usize,
    pub(super) parent_joint: Vec<Option<usize>>,
    /// Joints whose parent is the link.
    pub(super) children: Vec<Vec<usize>>,
    /// Joints depth first from the root, siblings sorted by joint name (Pinocchio's order).
    pub(super) order: Vec<usize>,
    /// Links in the same order: the root, then the child link of each joint of `order`.
    pub(super) links: Vec<usize>,
    /// Link frames in the root link's frame at `q = 0`.
    pub(super) pose: Vec<Pose>,
}

impl Tree {
    pub(super) fn build(
        cx: &UrdfSource,
        robot: Node,
        links: &[Link],
        joints: &[Joint],
    ) -> Result<Tree, ImportError> {
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

//! Fixed tendons' springs and dampers (MuJoCo's `<fixed>` tendons with `stiffness` or
//! `damping`), which `passive_forces` adds to the joints' own, and the tendons that do not
//! enter the functions, listed as ignored.

use super::error::ImportError;
use super::mjcf_parse::{Attrs, Defaults, Element, MAIN_CLASS};
use super::Ignored;
use crate::model::{Robot, TendonSpring};

/// The joint values a tendon's rest length and a locked joint's share of it need.
pub(super) struct TendonJoints<'a> {
    /// Each hinge's or slide's `qpos_spring` (its `springref`, a hinge's in radians).
    pub spring_refs: &'a [(String, f64)],
    /// The locked joints and their values.
    pub locked: &'a [(String, f64)],
}

/// The tendons of a model: the fixed tendons' springs and dampers, and the tendons left out.
pub(super) struct Tendons {
    pub springs: Vec<TendonSpring>,
    pub ignored: Vec<Ignored>,
}

/// Reads the `<tendon>` sections against `robot` (its joints by name). A fixed tendon with a
/// spring or damper becomes a [`TendonSpring`] of the robot's joints, its locked joints' share
/// of the length folded into the rest length; the other tendons are listed as ignored, and
/// so are springs the method does not model yet (on spatial tendons, with a dead band) and
/// tendons on joints outside the robot read (another tree than `--root`'s).
pub(super) fn read_tendons(
    root: &Element,
    defaults: &Defaults,
    robot: &Robot,
    joints: &TendonJoints<'_>,
) -> Result<Tendons, ImportError> {
    let mut out = Tendons {
        springs: Vec::new(),
        ignored: Vec::new(),
    };
    let tendons = root
        .children_named("tendon")
        .flat_map(|section| section.children.iter());
    for (k, e) in tendons.enumerate() {
        let attrs = defaults.attrs(e, MAIN_CLASS)?;
        let mut ignore = |why: String| {
            out.ignored.push(Ignored {
                at: e.at(),
                what: e.label(),
                why,
            })
        };
        let members = members(e)?;
        let names: Vec<&str> = members.iter().map(|(name, _)| *name).collect();
        let (stiffness, damping) = (
            non_negative(&attrs, "stiffness")?,
            non_negative(&attrs, "damping")?,
        );
        if stiffness == 0.0 && damping == 0.0 {
            ignore(if names.len() >= 2 {
                format!(
                    "a tendon coupling joints {} (tendon forces do not enter the generated \
                     functions)",
                    names.join(", ")
                )
            } else {
                format!("a {} tendon", e.tag)
            });
            continue;
        }
        if e.tag != "fixed" {
            ignore(format!(
                "a {} tendon's spring and damper: passive_forces leaves them out (its length \
                 depends on the geometry)",
                e.tag
            ));
            continue;
        }
        let lengths = attrs
            .numbers("springlength", super::mjcf_parse::Count::UpTo(2))?
            .unwrap_or_else(|| vec![-1.0, -1.0]);
        let (low, high) = (lengths[0], *lengths.last().unwrap_or(&lengths[0]));
        if low != high {
            ignore(
                "a tendon spring with a dead band (two spring lengths): passive_forces leaves \
                 it out"
                    .to_owned(),
            );
            continue;
        }
        let spring_ref = |name: &str| {
            joints
                .spring_refs
                .iter()
                .find(|(n, _)| n == name)
                .map_or(0.0, |(_, r)| *r)
        };
        // MuJoCo's rest length -1: the tendon's length at qpos_spring.
        let mut length = if low == -1.0 {
            members.iter().map(|&(name, c)| c * spring_ref(name)).sum()
        } else {
            low
        };
        let mut on_joints = Vec::new();
        let mut outside = None;
        for &(name, c) in &members {
            if let Some((_, value)) = joints.locked.iter().find(|(n, _)| n == name) {
                length -= c * value;
            } else if let Some(j) = robot.bodies.iter().position(|b| b.joint_name == name) {
                on_joints.push((j, c));
            } else {
                outside = Some(name);
            }
        }
        if let Some(name) = outside {
            ignore(format!(
                "a tendon spring on joint `{name}`, which is not one of the robot's joints \
                 (another tree, or a free joint): passive_forces leaves it out"
            ));
            continue;
        }
        if on_joints.is_empty() {
            ignore("a tendon spring on locked joints only".to_owned());
            continue;
        }
        out.springs.push(TendonSpring {
            name: e
                .attr("name")
                .map_or_else(|| format!("tendon{k}"), str::to_owned),
            joints: on_joints,
            stiffness,
            damping,
            length,
        });
    }
    Ok(out)
}

/// A fixed tendon's joints and coefficients (a spatial tendon's joints, if any, too).
fn members(e: &Element) -> Result<Vec<(&str, f64)>, ImportError> {
    let mut out = Vec::new();
    for j in e.children_named("joint") {
        let Some(name) = j.attr("joint") else {
            return Err(j.invalid("joint", "a tendon's joint needs `joint`".to_owned()));
        };
        let coef = Attrs::plain(j).number("coef", 1.0)?;
        out.push((name, coef));
    }
    Ok(out)
}

/// A tendon's `stiffness` or `damping`: non-negative, as MuJoCo requires.
fn non_negative(attrs: &Attrs<'_>, key: &str) -> Result<f64, ImportError> {
    let v = attrs.number(key, 0.0)?;
    if v < 0.0 {
        return Err(attrs.invalid(key, format!("{key} must not be negative, got {v}")));
    }
    Ok(v)
}

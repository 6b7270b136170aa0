//! Locked joints (`--lock JOINT[=VALUE]`): a joint of a URDF or MJCF file fixed at a value, as
//! Pinocchio's `buildReducedModel` fixes it. The importers place the joint's child at the value
//! and weld it to its parent; the joint is then no coordinate of the robot.

use std::fmt;
use std::str::FromStr;

use super::chain::{Pose, V3};
use super::mjcf_geom::axis_angle;
use crate::mat3::scale;
use crate::model::JointKind;

/// A joint fixed at a value: `JOINT` (at the input's reference, zero for URDF and MuJoCo's
/// `qpos0` for MJCF) or `JOINT=VALUE` (radians or metres, as the joint's coordinate).
#[derive(Clone, Debug, PartialEq)]
pub struct JointLock {
    /// The joint's name as the input file writes it.
    pub joint: String,
    /// The coordinate it is fixed at; `None`: the input's reference value.
    pub value: Option<f64>,
}

impl JointLock {
    /// The joint `joint` fixed at the input's reference value.
    pub fn at_reference(joint: impl Into<String>) -> JointLock {
        JointLock {
            joint: joint.into(),
            value: None,
        }
    }

    /// The joint `joint` fixed at `value`.
    pub fn at(joint: impl Into<String>, value: f64) -> JointLock {
        JointLock {
            joint: joint.into(),
            value: Some(value),
        }
    }
}

impl FromStr for JointLock {
    type Err = String;

    /// Reads `JOINT` or `JOINT=VALUE` (a finite number).
    fn from_str(text: &str) -> Result<JointLock, String> {
        let (joint, value) = match text.split_once('=') {
            Some((joint, value)) => {
                let number: f64 = value.trim().parse().map_err(|_| {
                    format!("`{text}`: `{value}` is not a number (expected JOINT=VALUE)")
                })?;
                if !number.is_finite() {
                    return Err(format!("`{text}`: the value is not finite"));
                }
                (joint.trim(), Some(number))
            }
            None => (text.trim(), None),
        };
        if joint.is_empty() {
            return Err(format!(
                "`{text}`: no joint name (expected JOINT or JOINT=VALUE)"
            ));
        }
        Ok(JointLock {
            joint: joint.to_owned(),
            value,
        })
    }
}

impl fmt::Display for JointLock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.value {
            Some(value) => write!(f, "{}={value}", self.joint),
            None => f.write_str(&self.joint),
        }
    }
}

/// Where a lock puts its joint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum LockAt {
    /// At this coordinate.
    Value(f64),
    /// At the input's reference value (zero for URDF, `qpos0` for MJCF) plus this offset.
    Reference(f64),
}

impl LockAt {
    /// The coordinate, for a joint whose reference value is `reference`.
    pub(super) fn value(self, reference: f64) -> f64 {
        match self {
            LockAt::Value(v) => v,
            LockAt::Reference(offset) => reference + offset,
        }
    }
}

/// A lock not applied: the joint it names, and which of the input's own locks it is (`None`:
/// one the user asked for).
#[derive(Debug, PartialEq)]
pub(super) struct Unused<'a> {
    pub joint: &'a str,
    pub own: Option<usize>,
}

/// The locks to apply, and which of them an importer has applied (a lock naming no joint of
/// the file is an error, reported once the file is read): the input's own (an MJCF joint
/// equality without `joint2`), then the user's, which win over them.
pub(super) struct Locks<'a> {
    entries: Vec<(&'a str, LockAt, Option<usize>)>,
    used: Vec<bool>,
}

impl<'a> Locks<'a> {
    pub(super) fn new(user: &'a [JointLock]) -> Locks<'a> {
        Locks::with_own(&[], user)
    }

    /// The input's own locks `own` (joint name and where) and the user's.
    pub(super) fn with_own(own: &'a [(String, LockAt)], user: &'a [JointLock]) -> Locks<'a> {
        let own = own
            .iter()
            .enumerate()
            .map(|(k, (joint, at))| (joint.as_str(), *at, Some(k)));
        let user = user.iter().map(|lock| {
            let at = lock.value.map_or(LockAt::Reference(0.0), LockAt::Value);
            (lock.joint.as_str(), at, None)
        });
        let entries: Vec<_> = own.chain(user).collect();
        Locks {
            used: vec![false; entries.len()],
            entries,
        }
    }

    /// Where joint `name` is locked, marked as applied (the last lock naming it wins).
    pub(super) fn take(&mut self, name: &str) -> Option<LockAt> {
        let mut found = None;
        for (k, (joint, at, _)) in self.entries.iter().enumerate() {
            if *joint == name {
                self.used[k] = true;
                found = Some(*at);
            }
        }
        found
    }

    /// The first lock that named no joint the importer saw.
    pub(super) fn unused(&self) -> Option<Unused<'a>> {
        self.entries
            .iter()
            .zip(&self.used)
            .find(|(_, &used)| !used)
            .map(|(&(joint, _, own), _)| Unused { joint, own })
    }
}

/// The motion of a joint about (or along) the unit `axis` through its frame's origin, by
/// `value`: a rotation for a revolute joint, a translation for a prismatic one.
pub(super) fn joint_motion(kind: JointKind, axis: V3, value: f64) -> Pose {
    match kind {
        JointKind::Prismatic => Pose::trans(scale(axis, value)),
        _ => Pose::rot(axis_angle(axis, value)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_names_and_values() {
        assert_eq!("elbow".parse(), Ok(JointLock::at_reference("elbow")));
        assert_eq!("elbow=-1.5".parse(), Ok(JointLock::at("elbow", -1.5)));
        assert_eq!(" elbow = 2e-1 ".parse(), Ok(JointLock::at("elbow", 0.2)));
        assert_eq!(JointLock::at("elbow", -1.5).to_string(), "elbow=-1.5");
        assert_eq!(JointLock::at_reference("elbow").to_string(), "elbow");
        for bad in ["", "=1", "elbow=", "elbow=x", "elbow=inf", "elbow=NaN"] {
            assert!(bad.parse::<JointLock>().is_err(), "{bad}");
        }
    }

    #[test]
    fn tracks_unused_locks_and_lets_the_users_win() {
        let asked = [JointLock::at_reference("a"), JointLock::at("b", 1.0)];
        let own = [
            ("b".to_owned(), LockAt::Reference(0.5)),
            ("c".to_owned(), LockAt::Reference(0.5)),
        ];
        let mut locks = Locks::with_own(&own, &asked);
        assert_eq!(locks.take("b"), Some(LockAt::Value(1.0)));
        assert_eq!(locks.take("c").map(|at| at.value(1.0)), Some(1.5));
        assert!(locks.take("d").is_none());
        assert_eq!(
            locks.unused(),
            Some(Unused {
                joint: "a",
                own: None
            })
        );
        assert_eq!(locks.take("a"), Some(LockAt::Reference(0.0)));
        assert!(locks.unused().is_none());
        let mut locks = Locks::with_own(&own, &[]);
        locks.take("b");
        assert_eq!(
            locks.unused(),
            Some(Unused {
                joint: "c",
                own: Some(1)
            })
        );
    }

    #[test]
    fn motions() {
        let turn = joint_motion(
            JointKind::Revolute,
            [0.0, 0.0, 1.0],
            std::f64::consts::FRAC_PI_2,
        );
        assert!((turn.r[1][0] - 1.0).abs() < 1e-15 && turn.p == [0.0; 3]);
        let slide = joint_motion(JointKind::Prismatic, [0.0, 1.0, 0.0], 0.25);
        assert_eq!(slide.p, [0.0, 0.25, 0.0]);
    }
}

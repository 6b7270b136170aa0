//! What of an MJCF file the generated functions do not use: equalities (locks, refusals and
//! ignored ones) and the elements `quasidyn check --verbose` lists as ignored.

use super::error::ImportError;
use super::follow::{follow_chains, Broken};
use super::lock::LockAt;
use super::mjcf_parse::{Count, Defaults, Element, MAIN_CLASS};
use super::{Ignored, JointLock};

/// The equalities of a model: the joints they lock, and those left out.
pub(super) struct Equalities<'e> {
    /// Joints locked by a `joint` equality without `joint2`: `joint1 = qpos0 + polycoef[0]`.
    pub locks: Vec<(String, LockAt)>,
    /// The equality element of each lock (for an error if it names no hinge or slide).
    pub lock_elements: Vec<&'e Element>,
    /// Inactive equalities, tendon and flex equalities, and with `ignore_loops` the closed
    /// loops (`connect`, `weld`).
    pub ignored: Vec<Ignored>,
    /// Joints that follow others: `joint1 - qpos0_1 = c0 + c1 (joint2 - qpos0_2)`.
    pub couplings: Vec<Coupling<'e>>,
}

/// An active `joint` equality with `joint2` and a linear `polycoef`.
pub(super) struct Coupling<'e> {
    /// The joint that follows.
    pub joint1: String,
    /// The joint it follows.
    pub joint2: String,
    /// `polycoef[0]`, `polycoef[1]` (not converted to the compiler's angle unit).
    pub c0: f64,
    pub c1: f64,
    /// The equality element, for located errors.
    pub element: &'e Element,
}

/// Reads the `<equality>` sections. An active `joint` equality without `joint2` locks its
/// joint; one with `joint2` couples two joints (a mimic joint: a [`Coupling`]; polynomial
/// ones refused), ignored when the user locks both (`user_locks`); an active `connect` or
/// `weld` closes a loop, refused unless `ignore_loops` (then ignored, the spanning tree
/// imported).
pub(super) fn read_equalities<'e>(
    root: &'e Element,
    defaults: &Defaults,
    ignore_loops: bool,
    user_locks: &[JointLock],
) -> Result<Equalities<'e>, ImportError> {
    let locked = |joint: &str| user_locks.iter().any(|lock| lock.joint == joint);
    let mut out = Equalities {
        locks: Vec::new(),
        lock_elements: Vec::new(),
        ignored: Vec::new(),
        couplings: Vec::new(),
    };
    for e in root
        .children_named("equality")
        .flat_map(|section| section.children.iter())
    {
        let attrs = defaults.attrs_as(e, "equality", MAIN_CLASS)?;
        let ignore = |why: &str| Ignored {
            at: e.at(),
            what: e.label(),
            why: why.to_owned(),
        };
        if !attrs.boolean("active", true)? {
            out.ignored.push(ignore("an inactive equality"));
            continue;
        }
        match e.tag.as_str() {
            "joint" => {
                let Some(joint1) = e.attr("joint1") else {
                    return Err(e.invalid("joint1", "a joint equality needs joint1".to_owned()));
                };
                if let Some(joint2) = e.attr("joint2") {
                    if locked(joint1) && locked(joint2) {
                        out.ignored
                            .push(ignore("a coupling of two joints that are both locked"));
                        continue;
                    }
                    let c = attrs
                        .numbers("polycoef", Count::UpTo(5))?
                        .unwrap_or_else(|| vec![0.0, 1.0]);
                    let at = |k: usize| c.get(k).copied().unwrap_or(0.0);
                    if (2..5).any(|k| at(k) != 0.0) {
                        return Err(e.unsupported(
                            "polycoef",
                            format!(
                                "`{joint1}` follows `{joint2}` through a polynomial; only \
                                 linear couplings (polycoef=\"c0 c1 0 0 0\") are supported"
                            ),
                        ));
                    }
                    if at(1) == 0.0 {
                        return Err(e.invalid(
                            "polycoef",
                            format!(
                                "a coupling with c1 = 0 holds `{joint1}` at c0: use an equality \
                                 without joint2 (or --lock {joint1})"
                            ),
                        ));
                    }
                    out.couplings.push(Coupling {
                        joint1: joint1.to_owned(),
                        joint2: joint2.to_owned(),
                        c0: at(0),
                        c1: at(1),
                        element: e,
                    });
                    continue;
                }
                let coefficients = attrs.numbers("polycoef", Count::UpTo(5))?;
                let offset = coefficients.map_or(0.0, |c| c[0]);
                out.locks
                    .push((joint1.to_owned(), LockAt::Reference(offset)));
                out.lock_elements.push(e);
            }
            "connect" | "weld" if ignore_loops => out.ignored.push(ignore(
                "a closed loop, ignored with --ignore-equality (the spanning tree is imported)",
            )),
            "connect" | "weld" => {
                return Err(e.unsupported(
                    "",
                    format!(
                        "a <{}> equality closes a kinematic loop, and closed loops are not \
                         supported; --ignore-equality imports the spanning tree without it",
                        e.tag
                    ),
                ))
            }
            "tendon" => out.ignored.push(ignore(
                "a tendon equality (tendons do not enter the generated functions)",
            )),
            _ => out
                .ignored
                .push(ignore("an equality of a kind not modelled")),
        }
    }
    Ok(out)
}

/// Makes each coupling's `joint1` follow its `joint2` in `robot` (whose joints are placed at
/// `qpos = 0`): `qpos1 = c1 qpos2 + c0 + qpos0_1 - c1 qpos0_2`, `qpos0` (each joint's `ref`,
/// in radians or metres) from `qpos0`. A chain of couplings (a joint following one that
/// follows a third) is combined into one, to the joint at its end that follows none. A
/// coupling of two locked joints (`locked`) holds nothing and is listed in `ignored`.
pub(super) fn couple(
    robot: &mut crate::Robot,
    couplings: &[Coupling<'_>],
    qpos0: &[(String, f64)],
    locked: &[(String, f64)],
    ignored: &mut Vec<Ignored>,
) -> Result<(), ImportError> {
    // Each follower's own coupling: (the coupling, the body it follows, c1, the offset).
    let mut direct: Vec<Option<(&Coupling<'_>, usize, f64, f64)>> = vec![None; robot.bodies.len()];
    for c in couplings {
        let is_locked = |joint: &str| locked.iter().any(|(name, _)| name == joint);
        let body = |joint: &str| robot.bodies.iter().position(|b| b.joint_name == joint);
        match (is_locked(&c.joint1), is_locked(&c.joint2)) {
            (true, true) => {
                ignored.push(Ignored {
                    at: c.element.at(),
                    what: c.element.label(),
                    why: "a coupling of two joints that are both locked".to_owned(),
                });
                continue;
            }
            (false, false) => {}
            (one, _) => {
                let (locked, other) = if one {
                    (&c.joint1, &c.joint2)
                } else {
                    (&c.joint2, &c.joint1)
                };
                return Err(c.element.unsupported(
                    if one { "joint1" } else { "joint2" },
                    format!(
                        "`{}` follows `{}`, and `{locked}` is locked: lock `{other}` too",
                        c.joint1, c.joint2
                    ),
                ));
            }
        }
        let find = |joint: &str, field: &str| {
            body(joint).ok_or_else(|| {
                c.element.invalid(
                    field,
                    format!("no hinge or slide joint named `{joint}` to couple"),
                )
            })
        };
        let (follower, master) = (find(&c.joint1, "joint1")?, find(&c.joint2, "joint2")?);
        if follower == master {
            return Err(c
                .element
                .invalid("joint2", "a joint cannot follow itself".to_owned()));
        }
        if let Some((first, ..)) = direct[follower] {
            return Err(c.element.unsupported(
                "joint1",
                format!(
                    "`{}` follows `{}` already (line {}): a joint may follow one joint, so \
                     it is joint1 of one coupling at most",
                    c.joint1,
                    first.joint2,
                    first.element.at().line
                ),
            ));
        }
        let reference = |joint: &str| {
            qpos0
                .iter()
                .find(|(name, _)| name == joint)
                .map_or(0.0, |(_, v)| *v)
        };
        let offset = c.c0 + reference(&c.joint1) - c.c1 * reference(&c.joint2);
        direct[follower] = Some((c, master, c.c1, offset));
    }
    // Follow each chain of couplings to a joint that follows none.
    let own: Vec<_> = direct
        .iter()
        .map(|d| d.map(|(_, master, c1, offset)| (master, c1, offset)))
        .collect();
    let mimics = follow_chains(&own).map_err(|(follower, broken)| {
        let c = direct[follower]
            .expect("a broken chain starts at a follower")
            .0;
        match broken {
            Broken::Loop => c.element.invalid(
                "joint2",
                format!(
                    "the couplings form a loop through `{}`: some joint must follow none",
                    c.joint1
                ),
            ),
            Broken::Degenerate => c.element.invalid(
                "polycoef",
                "the coupling's factor and offset (c0 + qpos0_1 - c1 qpos0_2), combined along \
                 the chain of couplings, overflow or vanish"
                    .to_owned(),
            ),
        }
    })?;
    for (body, mimic) in robot.bodies.iter_mut().zip(mimics) {
        if mimic.is_some() {
            body.mimic = mimic;
        }
    }
    Ok(())
}

/// The elements of a model that do not enter the generated functions, in file order within
/// each kind: actuators (their armature is read), sensors, contact pairs and exclusions,
/// keyframes, the visual settings, lights and cameras (tendons: `mjcf_tendon`).
pub(super) fn ignored_elements(root: &Element) -> Vec<Ignored> {
    let mut out = Vec::new();
    let mut note = |e: &Element, why: String| {
        out.push(Ignored {
            at: e.at(),
            what: e.label(),
            why,
        })
    };
    for (section, why) in [
        ("actuator", "an actuator (only its armature is read)"),
        ("sensor", "a sensor"),
        ("contact", "a contact pair or exclusion"),
        ("keyframe", "a keyframe"),
    ] {
        for e in root.children_named(section).flat_map(|s| s.children.iter()) {
            note(e, why.to_owned());
        }
    }
    for e in root.children_named("visual") {
        note(e, "visual settings".to_owned());
    }
    for world in root.children_named("worldbody") {
        bodies(world, &mut note);
    }
    out
}

/// Lights and cameras below `element`, depth first.
fn bodies(element: &Element, note: &mut impl FnMut(&Element, String)) {
    for child in &element.children {
        match child.tag.as_str() {
            "light" => note(child, "a light".to_owned()),
            "camera" => note(child, "a camera".to_owned()),
            "body" | "frame" => bodies(child, note),
            _ => {}
        }
    }
}

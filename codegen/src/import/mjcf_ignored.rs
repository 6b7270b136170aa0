//! What of an MJCF file the generated functions do not use: equalities (locks, refusals and
//! ignored ones) and the elements `quasidyn check --verbose` lists as ignored.

use super::error::ImportError;
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
}

/// Reads the `<equality>` sections. An active `joint` equality without `joint2` locks its
/// joint; one with `joint2` couples two joints (a mimic joint), which is refused unless the
/// user locks both (`user_locks`; then it is ignored); an active `connect` or `weld` closes a
/// loop, refused unless `ignore_loops` (then ignored, the spanning tree imported).
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
                    return Err(e.unsupported(
                        "joint2",
                        format!(
                            "joint couplings are not supported yet: `{joint1}` follows \
                             `{joint2}` (a mimic joint); lock both with --lock, or make the \
                             equality active=\"false\""
                        ),
                    ));
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

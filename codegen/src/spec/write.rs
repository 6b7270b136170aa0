//! Writing a [`Robot`] as a spec that reads back equal.

use super::raw::BASE_NAME;
use super::values::{axis_letter, unphysical_inertia};
use crate::mat3::{self, M3};
use crate::model::{BaseLayout, BaseMotion, JointKind, ParameterSet, Robot};

/// Writes a spec in the physical form (`next`, `com`, inertia about the centre of mass) with
/// floats in shortest round-trip form, so that [`parse_spec`](super::parse_spec) reads back an equal [`Robot`].
pub fn to_toml(robot: &Robot) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(s, "version = 1");
    let _ = writeln!(s, "name = {}", quote(&robot.name));
    if let Some(d) = &robot.description {
        let _ = writeln!(s, "description = {}", quote(d));
    }
    if let Some(src) = &robot.source {
        let _ = writeln!(s, "source = {}", quote(src));
    }
    let _ = writeln!(s, "gravity = {}", vec_toml(robot.gravity));
    if robot.motion == BaseMotion::Fixed {
        let _ = writeln!(s, "base = {}", vec_toml(robot.base));
    }
    if robot.parameters == ParameterSet::Base {
        let _ = writeln!(s, "parameters = \"base\"");
    }
    if robot.is_prescribed() {
        let _ = writeln!(s, "\n[base]");
        let _ = writeln!(s, "position = {}", vec_toml(robot.base));
        let _ = writeln!(s, "motion = \"prescribed\"");
        if robot.motion == BaseMotion::Translating {
            let _ = writeln!(s, "translation_only = true");
        }
    }
    if let (BaseMotion::Floating, Some(b)) = (robot.motion, &robot.base_body) {
        let _ = writeln!(s, "\n[base]");
        let _ = writeln!(s, "position = {}", vec_toml(robot.base));
        let _ = writeln!(s, "motion = \"floating\"");
        if robot.base_layout == BaseLayout::Mujoco {
            let _ = writeln!(s, "layout = \"mujoco\"");
        }
        let _ = writeln!(s, "mass = {}", float(b.mass));
        let _ = writeln!(s, "com = {}", vec_toml(b.com));
        let _ = writeln!(s, "inertia = {}", inertia_toml(&b.inertia_com));
        if b.armature != 0.0 {
            let _ = writeln!(s, "armature = {}", float(b.armature));
        }
    }
    for (i, b) in robot.bodies.iter().enumerate() {
        let _ = writeln!(s, "\n[[body]]");
        let _ = writeln!(s, "name = {}", quote(&b.name));
        let _ = writeln!(s, "joint_name = {}", quote(&b.joint_name));
        let joint = match b.joint {
            JointKind::Revolute => "revolute",
            JointKind::Prismatic => "prismatic",
        };
        let _ = writeln!(s, "joint = \"{joint}\"");
        match axis_letter(b.axis) {
            Some(l) => {
                let _ = writeln!(s, "axis = \"{l}\"");
            }
            None => {
                let _ = writeln!(s, "axis = {}", vec_toml(b.axis));
            }
        }
        let _ = writeln!(s, "next = {}", vec_toml(b.next));
        let _ = writeln!(s, "mass = {}", float(b.mass));
        let _ = writeln!(s, "com = {}", vec_toml(b.com));
        let _ = writeln!(s, "inertia = {}", inertia_toml(&b.inertia_com));
        match b.parent {
            Some(k) => {
                let _ = writeln!(s, "parent = {}", quote(&robot.bodies[k].name));
            }
            None if i > 0 => {
                let _ = writeln!(s, "parent = {}", quote(BASE_NAME));
            }
            None => {}
        }
        let default_origin = b.parent.map_or(robot.base, |k| robot.bodies[k].next);
        if b.origin != default_origin {
            let _ = writeln!(s, "origin = {}", vec_toml(b.origin));
        }
        let sym = b.symbolic;
        let words: Vec<&str> = [
            (sym.mass, "\"mass\""),
            (sym.com, "\"com\""),
            (sym.inertia, "\"inertia\""),
        ]
        .into_iter()
        .filter_map(|(on, w)| on.then_some(w))
        .collect();
        if !words.is_empty() {
            let _ = writeln!(s, "symbolic = [{}]", words.join(", "));
        }
        if b.passive.is_some() {
            let p = b.passive;
            let _ = writeln!(
                s,
                "passive = {{ stiffness = {}, damping = {}, reference = {} }}",
                float(p.stiffness),
                float(p.damping),
                float(p.reference)
            );
        }
        if b.armature != 0.0 {
            let _ = writeln!(s, "armature = {}", float(b.armature));
        }
        if let Some(m) = b.mimic {
            let _ = writeln!(
                s,
                "mimic = {{ joint = {}, multiplier = {}, offset = {} }}",
                quote(&robot.bodies[m.master].joint_name),
                float(m.multiplier),
                float(m.offset)
            );
        }
        if let Some(e) = &b.elastic {
            let _ = writeln!(s, "stiffness = {}", float(e.stiffness));
            if let Some(d) = e.damping {
                let _ = writeln!(s, "damping = {}", float(d));
            }
            if let Some(m) = e.motor_inertia {
                let _ = writeln!(s, "motor_inertia = {}", float(m));
            }
        }
        if let Some(fl) = &b.flex {
            let dirs: Vec<String> = fl
                .directions
                .iter()
                .map(|d| match axis_letter(d.vector) {
                    Some(l) if d.letter.is_some() => quote(l),
                    _ => vec_toml(d.vector),
                })
                .collect();
            let _ = writeln!(
                s,
                "flex = {{ directions = [{}], modes = {} }}",
                dirs.join(", "),
                fl.modes
            );
        }
    }
    if robot.tool_rotation != mat3::IDENTITY {
        let r = &robot.tool_rotation;
        let _ = writeln!(s, "\n[tool]");
        let _ = writeln!(
            s,
            "rotation = [{}, {}, {}]",
            vec_toml(r[0]),
            vec_toml(r[1]),
            vec_toml(r[2])
        );
    }
    for f in &robot.frames {
        let _ = writeln!(s, "\n[[frame]]");
        let _ = writeln!(s, "name = {}", quote(&f.name));
        let body = f.body.map_or(BASE_NAME, |k| &robot.bodies[k].name);
        let _ = writeln!(s, "body = {}", quote(body));
        let _ = writeln!(s, "position = {}", vec_toml(f.position));
        if f.rotation != mat3::IDENTITY {
            let r = &f.rotation;
            let _ = writeln!(
                s,
                "rotation = [{}, {}, {}]",
                vec_toml(r[0]),
                vec_toml(r[1]),
                vec_toml(r[2])
            );
        }
    }
    for c in &robot.contacts {
        let _ = writeln!(s, "\n[[contact]]");
        let _ = writeln!(s, "frame = {}", quote(&robot.frames[c.frame].name));
        let _ = writeln!(s, "kind = {}", quote(c.kind.name()));
    }
    for t in &robot.tendons {
        let names: Vec<String> = t
            .joints
            .iter()
            .map(|&(j, _)| quote(&robot.bodies[j].joint_name))
            .collect();
        let coefficients: Vec<String> = t.joints.iter().map(|&(_, c)| float(c)).collect();
        let _ = writeln!(s, "\n[[tendon]]");
        let _ = writeln!(s, "name = {}", quote(&t.name));
        let _ = writeln!(s, "joints = [{}]", names.join(", "));
        let _ = writeln!(s, "coefficients = [{}]", coefficients.join(", "));
        let _ = writeln!(s, "stiffness = {}", float(t.stiffness));
        let _ = writeln!(s, "damping = {}", float(t.damping));
        let _ = writeln!(s, "length = {}", float(t.length));
    }
    s
}

fn quote(s: &str) -> String {
    toml::Value::String(s.to_owned()).to_string()
}

/// Shortest representation that parses back to the same `f64`, always valid TOML.
fn float(x: f64) -> String {
    let s = format!("{x:?}");
    if x.is_finite() {
        s
    } else if x.is_nan() {
        "nan".to_owned()
    } else if x > 0.0 {
        "inf".to_owned()
    } else {
        "-inf".to_owned()
    }
}

/// An inertia table about the centre of mass; `physical = false` where the tensor is not that
/// of a real mass distribution (as imported from a table or a URDF that gives one), so that the
/// spec reads back.
fn inertia_toml(t: &M3) -> String {
    let physical = if unphysical_inertia(t).is_some() {
        ", physical = false"
    } else {
        ""
    };
    format!(
        "{{ ixx = {}, iyy = {}, izz = {}, ixy = {}, ixz = {}, iyz = {}, about = \"com\"{physical} }}",
        float(t[0][0]),
        float(t[1][1]),
        float(t[2][2]),
        float(t[0][1]),
        float(t[0][2]),
        float(t[1][2]),
    )
}

fn vec_toml(v: [f64; 3]) -> String {
    format!("[{}, {}, {}]", float(v[0]), float(v[1]), float(v[2]))
}

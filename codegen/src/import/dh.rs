//! Denavit–Hartenberg tables (TOML, see docs/dh.md) converted to the method's frames.
//!
//! Standard DH (Denavit–Hartenberg as in Corke's toolbox): link `i`'s frame sits at the distal
//! end of the link, `T_i = Rz(θ_i) Tz(d_i) Tx(a_i) Rx(α_i)`, and joint `i` moves about `z_{i-1}`.
//! Modified DH (Khalil–Kleinfinger, Craig): link `i`'s frame sits on joint `i`,
//! `T_i = Rx(α_i) Tx(a_i) Rz(θ_i) Tz(d_i)`, and joint `i` moves about `z_i`.

use serde::Deserialize;
use toml::Spanned;

use super::chain::{Chain, ChainJoint, MassProps, Pose};
use super::error::{ImportError, Location};
use crate::mat3::{rot_x, rot_z, rpy};
use crate::model::{JointKind, Robot};

/// Most bodies a spec may have (docs/spec.md).
use crate::model::MAX_BODIES;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DhFile {
    convention: Spanned<String>,
    name: Spanned<String>,
    description: Option<String>,
    source: Option<String>,
    gravity: Option<Spanned<[f64; 3]>>,
    base: Option<Spanned<PoseToml>>,
    tool: Option<Spanned<PoseToml>>,
    #[serde(default)]
    link: Vec<Spanned<DhLink>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PoseToml {
    xyz: Option<[f64; 3]>,
    rpy: Option<[f64; 3]>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DhLink {
    name: Option<Spanned<String>>,
    joint_name: Option<Spanned<String>>,
    joint: Option<Spanned<String>>,
    a: Spanned<f64>,
    alpha: Spanned<f64>,
    d: Spanned<f64>,
    theta: Option<Spanned<f64>>,
    mass: Spanned<f64>,
    com: Option<Spanned<[f64; 3]>>,
    inertia: Option<Spanned<InertiaToml>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InertiaToml {
    ixx: f64,
    iyy: f64,
    izz: f64,
    #[serde(default)]
    ixy: f64,
    #[serde(default)]
    ixz: f64,
    #[serde(default)]
    iyz: f64,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Convention {
    Standard,
    Modified,
}

/// Imports a DH table (the TOML form described in docs/dh.md).
///
/// `file_name` is only used in error messages. The zero configuration of the result (`q = 0`)
/// is the table's `θ_i = theta_i` (revolute) and `d_i = d_i` (prismatic).
pub fn import_dh(text: &str, file_name: &str) -> Result<Robot, ImportError> {
    let cx = DhSource {
        file: file_name,
        text,
    };
    let file: DhFile = toml::from_str(text).map_err(|e| ImportError::Syntax {
        at: cx.loc(e.span().map_or(0, |s| s.start)),
        what: "toml".to_owned(),
        message: e.message().trim().to_owned(),
    })?;

    let convention = match file.convention.get_ref().as_str() {
        "standard" => Convention::Standard,
        "modified" => Convention::Modified,
        other => {
            return Err(ImportError::Invalid {
                at: cx.loc(file.convention.span().start),
                what: "convention".to_owned(),
                message: format!("expected \"standard\" or \"modified\", got \"{other}\""),
            })
        }
    };
    if file.name.get_ref().trim().is_empty() {
        return Err(ImportError::Invalid {
            at: cx.loc(file.name.span().start),
            what: "name".to_owned(),
            message: "the robot name must not be empty".to_owned(),
        });
    }
    let gravity = match &file.gravity {
        Some(g) => cx.finite3(g, "gravity")?,
        None => [0.0, 0.0, -9.81],
    };
    let base = cx.pose(file.base.as_ref(), "base")?;
    let tool = cx.pose(file.tool.as_ref(), "tool")?;
    if file.link.is_empty() {
        return Err(ImportError::Invalid {
            at: cx.loc(text.len()),
            what: "link".to_owned(),
            message: "the table needs at least one [[link]]".to_owned(),
        });
    }
    if file.link.len() > MAX_BODIES {
        return Err(ImportError::Invalid {
            at: cx.loc(file.link[MAX_BODIES].span().start),
            what: "link".to_owned(),
            message: format!(
                "{} links; at most {MAX_BODIES} are supported",
                file.link.len()
            ),
        });
    }

    let mut frame = base;
    let mut joints = Vec::with_capacity(file.link.len());
    let mut names: Vec<(String, String)> = Vec::new();
    for (i, spanned) in file.link.iter().enumerate() {
        let link = spanned.get_ref();
        let what = |field: &str| format!("link[{}].{field}", i + 1);
        let a = cx.finite(&link.a, &what("a"))?;
        let alpha = cx.finite(&link.alpha, &what("alpha"))?;
        let d = cx.finite(&link.d, &what("d"))?;
        let theta = match &link.theta {
            Some(t) => cx.finite(t, &what("theta"))?,
            None => 0.0,
        };
        let kind = match &link.joint {
            None => JointKind::Revolute,
            Some(j) => match j.get_ref().as_str() {
                "revolute" => JointKind::Revolute,
                "prismatic" => JointKind::Prismatic,
                other => {
                    return Err(ImportError::UnsupportedJoint {
                        at: cx.loc(j.span().start),
                        what: what("joint"),
                        message: format!("expected \"revolute\" or \"prismatic\", got \"{other}\""),
                    })
                }
            },
        };
        let mass = cx.finite(&link.mass, &what("mass"))?;
        if mass <= 0.0 {
            return Err(ImportError::Invalid {
                at: cx.loc(link.mass.span().start),
                what: what("mass"),
                message: format!("mass must be positive, got {mass}"),
            });
        }
        let com = match &link.com {
            Some(c) => cx.finite3(c, &what("com"))?,
            None => [0.0; 3],
        };
        let inertia = match &link.inertia {
            Some(s) => {
                let t = s.get_ref();
                let m = [
                    [t.ixx, t.ixy, t.ixz],
                    [t.ixy, t.iyy, t.iyz],
                    [t.ixz, t.iyz, t.izz],
                ];
                if m.iter().flatten().any(|x| !x.is_finite()) {
                    return Err(cx.not_finite(s.span().start, &what("inertia")));
                }
                m
            }
            None => [[0.0; 3]; 3],
        };
        let body_name = name_or(&link.name, format!("link{}", i + 1));
        let joint_name = name_or(&link.joint_name, format!("q{}", i + 1));
        for (field, value, spanned_name) in [
            ("name", &body_name, &link.name),
            ("joint_name", &joint_name, &link.joint_name),
        ] {
            let taken = names.iter().any(|(b, j)| {
                if field == "name" {
                    b == value
                } else {
                    j == value
                }
            });
            if taken {
                let offset = spanned_name
                    .as_ref()
                    .map_or(spanned.span().start, |s| s.span().start);
                return Err(ImportError::Invalid {
                    at: cx.loc(offset),
                    what: what(field),
                    message: format!("duplicate {field} `{value}`"),
                });
            }
        }
        names.push((body_name.clone(), joint_name.clone()));

        // At q = 0 the variable of each joint is its table value, so the offsets are built in.
        let (pole, axis_frame) = match convention {
            Convention::Standard => {
                let joint_frame = frame;
                frame = frame
                    .then(&Pose::rot(rot_z(theta)))
                    .then(&Pose::trans([0.0, 0.0, d]))
                    .then(&Pose::trans([a, 0.0, 0.0]))
                    .then(&Pose::rot(rot_x(alpha)));
                (joint_frame.p, joint_frame)
            }
            Convention::Modified => {
                frame = frame
                    .then(&Pose::rot(rot_x(alpha)))
                    .then(&Pose::trans([a, 0.0, 0.0]))
                    .then(&Pose::rot(rot_z(theta)))
                    .then(&Pose::trans([0.0, 0.0, d]));
                (frame.p, frame)
            }
        };
        let axis = [axis_frame.r[0][2], axis_frame.r[1][2], axis_frame.r[2][2]];
        joints.push(ChainJoint {
            body_name,
            joint_name,
            kind,
            parent: joints.len().checked_sub(1),
            pole,
            axis,
            body: MassProps::in_base(&frame, mass, com, &inertia),
            armature: 0.0,
            passive: Default::default(),
            mimic: None,
        });
    }

    Ok(Chain {
        name: file.name.into_inner(),
        description: file.description,
        source: file.source,
        gravity,
        joints,
        tool: Some(frame.then(&tool)),
        frames: Vec::new(),
    }
    .into_robot())
}

fn name_or(name: &Option<Spanned<String>>, default: String) -> String {
    name.as_ref().map_or(default, |n| n.get_ref().clone())
}

/// File name and text, for locating errors.
struct DhSource<'a> {
    file: &'a str,
    text: &'a str,
}

impl DhSource<'_> {
    fn loc(&self, offset: usize) -> Location {
        Location::at_offset(self.file, self.text, offset)
    }

    fn not_finite(&self, offset: usize, what: &str) -> ImportError {
        ImportError::NotFinite {
            at: self.loc(offset),
            what: what.to_owned(),
            message: "numbers must be finite (no nan or inf)".to_owned(),
        }
    }

    fn finite(&self, v: &Spanned<f64>, what: &str) -> Result<f64, ImportError> {
        let x = *v.get_ref();
        if x.is_finite() {
            Ok(x)
        } else {
            Err(self.not_finite(v.span().start, what))
        }
    }

    fn finite3(&self, v: &Spanned<[f64; 3]>, what: &str) -> Result<[f64; 3], ImportError> {
        let x = *v.get_ref();
        if x.iter().all(|c| c.is_finite()) {
            Ok(x)
        } else {
            Err(self.not_finite(v.span().start, what))
        }
    }

    fn pose(&self, v: Option<&Spanned<PoseToml>>, what: &str) -> Result<Pose, ImportError> {
        let Some(v) = v else {
            return Ok(Pose::IDENTITY);
        };
        let p = v.get_ref();
        let xyz = p.xyz.unwrap_or([0.0; 3]);
        let angles = p.rpy.unwrap_or([0.0; 3]);
        if xyz.iter().chain(&angles).any(|c| !c.is_finite()) {
            return Err(self.not_finite(v.span().start, what));
        }
        Ok(Pose {
            r: rpy(angles),
            p: xyz,
        })
    }
}

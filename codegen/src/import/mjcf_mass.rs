//! Body mass as MuJoCo's compiler sets it: the `<compiler>` settings, a body's `<inertial>`
//! or the primitive geoms it counts, the lower bounds and balancing of the principal moments,
//! and `settotalmass`.

use super::chain::{MassProps, Pose, M3, V3};
use super::error::ImportError;
use super::mjcf_geom::{diag, orientation, principal_inertia, shaped_pose, volume, Angles, Shape};
use super::mjcf_parse::{Attrs, Defaults, Element};
use crate::mat3::{rotate_tensor, sym_eigen, IDENTITY};

/// How `<compiler inertiafromgeom>` takes body inertia from geoms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FromGeom {
    Never,
    Always,
    /// Only for bodies without `<inertial>` (MuJoCo's default).
    Auto,
}

/// The `<compiler>` settings that shape kinematics and mass.
#[derive(Clone, Debug)]
pub(super) struct Compiler {
    pub(super) angles: Angles,
    pub(super) from_geom: FromGeom,
    pub(super) group_range: [f64; 2],
    pub(super) bound_mass: f64,
    pub(super) bound_inertia: f64,
    pub(super) total_mass: f64,
    pub(super) balance_inertia: bool,
    /// A joint with a `range` is limited without saying so (MuJoCo's default).
    pub(super) autolimits: bool,
}

impl Compiler {
    /// Every `<compiler>` element in order, later attributes overriding earlier ones.
    pub(super) fn read(root: &Element) -> Result<Compiler, ImportError> {
        let mut c = Compiler {
            angles: Angles {
                degree: true,
                eulerseq: *b"xyz",
            },
            from_geom: FromGeom::Auto,
            group_range: [0.0, 5.0],
            bound_mass: 0.0,
            bound_inertia: 0.0,
            total_mass: -1.0,
            balance_inertia: false,
            autolimits: true,
        };
        for element in root.children_named("compiler") {
            let a = Attrs::plain(element);
            if let Some(angle) = a.keyword("angle", &["degree", "radian"])? {
                c.angles.degree = angle == "degree";
            }
            if let Some(seq) = a.str("eulerseq") {
                let ok = seq.len() == 3 && seq.bytes().all(|b| b"xyzXYZ".contains(&b));
                if !ok {
                    return Err(a.invalid(
                        "eulerseq",
                        format!("`{seq}` is not three of x, y, z, X, Y, Z"),
                    ));
                }
                c.angles.eulerseq.copy_from_slice(seq.as_bytes());
            }
            c.autolimits = a.boolean("autolimits", c.autolimits)?;
            if let Some(from) = a.keyword("inertiafromgeom", &["false", "true", "auto"])? {
                c.from_geom = match from {
                    "false" => FromGeom::Never,
                    "true" => FromGeom::Always,
                    _ => FromGeom::Auto,
                };
            }
            if let Some(range) = a.array::<2>("inertiagrouprange")? {
                c.group_range = range;
            }
            c.bound_mass = a.number("boundmass", c.bound_mass)?;
            c.bound_inertia = a.number("boundinertia", c.bound_inertia)?;
            c.total_mass = a.number("settotalmass", c.total_mass)?;
            c.balance_inertia = a.boolean("balanceinertia", c.balance_inertia)?;
            if a.boolean("alignfree", false)? {
                return Err(element.unsupported(
                    "alignfree",
                    "alignfree=\"true\" (free bodies' frames moved to their inertial frames) is \
                     not supported yet: qpos would then be the pose of MuJoCo's principal axes"
                        .to_owned(),
                ));
            }
        }
        Ok(c)
    }
}

/// An element of a body and the transform of the `<frame>`s around it (in the body's frame).
pub(super) struct Item<'e> {
    pub(super) element: &'e Element,
    pub(super) frame: Pose,
    pub(super) class: String,
}

/// Mass, centre of mass and inertia about it, in the body's frame.
#[derive(Clone, Copy, Debug)]
pub(super) struct Inertial {
    pub(super) mass: f64,
    pub(super) com: V3,
    pub(super) inertia: M3,
}

impl Compiler {
    /// The body's mass, centre of mass and inertia, as MuJoCo's compiler sets them: from its
    /// `<inertial>` or its geoms (`inertiafromgeom`), then `boundmass`, `boundinertia` and
    /// `balanceinertia` applied.
    ///
    /// A body given no mass (no `<inertial>`, no geom counted) has its centre of mass at
    /// `own_pos`, its `pos` attribute read in its own frame, as MuJoCo's compiler places it:
    /// it matters once `boundmass` gives the body mass.
    ///
    /// Where the mass is `unused` (a body welded to the world, without `settotalmass`), a geom
    /// whose mass would need a mesh's volume is left out instead of refused: the mass is not
    /// the robot's.
    pub(super) fn inertial<'e>(
        &self,
        defaults: &Defaults,
        body: &Element,
        name: &str,
        items: &[Item<'e>],
        own_pos: V3,
        unused: bool,
    ) -> Result<Inertial, ImportError> {
        let angles = self.angles;
        let explicit = items.iter().find(|i| i.element.tag == "inertial");
        let mut inertial = match explicit {
            Some(item) => explicit_inertial(item, &angles)?,
            None => Inertial {
                mass: 0.0,
                com: own_pos,
                inertia: [[0.0; 3]; 3],
            },
        };
        let from_geom = match self.from_geom {
            FromGeom::Always => true,
            FromGeom::Auto => explicit.is_none(),
            FromGeom::Never => false,
        };
        if from_geom {
            if let Some(geoms) = self.geom_inertial(defaults, name, items, unused)? {
                inertial = geoms;
            }
        }
        let c = self;
        inertial.mass = inertial.mass.max(c.bound_mass);
        let (mut moments, axes) = sym_eigen(&inertial.inertia);
        let bounded = moments.map(|m| m.max(c.bound_inertia));
        let mut changed = bounded != moments;
        moments = bounded;
        let [a, b, d] = moments;
        if a + b < d || a + d < b || b + d < a {
            if !c.balance_inertia {
                return Err(body.invalid(
                    "",
                    format!(
                        "the principal moments of inertia of body `{name}` ({a}, {b}, {d}) \
                         break the triangle inequality; MuJoCo needs <compiler \
                         balanceinertia=\"true\"> to fix them"
                    ),
                ));
            }
            moments = [(a + b + d) / 3.0; 3];
            changed = true;
        }
        if changed {
            inertial.inertia = rotate_tensor(&axes, &diag(moments));
        }
        Ok(inertial)
    }

    /// The combined mass of the body's geoms that MuJoCo counts (in `inertiagrouprange`, of
    /// positive mass); `None` if there are none. Geoms needing a mesh's volume are refused,
    /// or skipped where the mass is `unused`.
    fn geom_inertial<'e>(
        &self,
        defaults: &Defaults,
        name: &str,
        items: &[Item<'e>],
        unused: bool,
    ) -> Result<Option<Inertial>, ImportError> {
        let angles = self.angles;
        let mut parts = Vec::new();
        for item in items.iter().filter(|i| i.element.tag == "geom") {
            let attrs = defaults.attrs(item.element, &item.class)?;
            let group = attrs.number("group", 0.0)?;
            let [lo, hi] = self.group_range;
            if group < lo || group > hi {
                continue;
            }
            let shape = Shape::read(&attrs)?;
            let mesh = attrs.str("mesh").or_else(|| attrs.str("hfield"));
            if shape == Shape::FromFile || mesh.is_some() {
                if unused {
                    continue;
                }
                return Err(attrs.element.invalid(
                    "mesh",
                    format!(
                        "the mass of body `{name}` needs the volume of {}, and mesh files are \
                         not read: give the body an <inertial>",
                        mesh.map_or_else(|| "a mesh".to_owned(), |m| format!("mesh `{m}`"))
                    ),
                ));
            }
            let (pose, size) = shaped_pose(&attrs, shape, &angles)?;
            let sizes = match shape {
                Shape::Sphere => 1,
                Shape::Capsule | Shape::Cylinder => 2,
                Shape::Ellipsoid | Shape::Box => 3,
                Shape::Plane | Shape::FromFile => 0,
            };
            if size[..sizes].iter().any(|&s| s <= 0.0) {
                return Err(attrs.invalid(
                    "size",
                    format!("this geom needs {sizes} positive size numbers, as MuJoCo does"),
                ));
            }
            let volume = volume(shape, size).unwrap_or(0.0);
            let mass = match attrs.get("mass") {
                Some(_) => {
                    let mass = attrs.number("mass", 0.0)?;
                    if volume > 1e-14 {
                        mass
                    } else {
                        0.0
                    }
                }
                None => attrs.number("density", 1000.0)? * volume,
            };
            if mass < 0.0 {
                return Err(attrs.invalid("mass", "a geom's mass cannot be negative".to_owned()));
            }
            if mass <= 1e-14 {
                continue;
            }
            let frame = item.frame.then(&pose);
            let moments = principal_inertia(shape, size, mass);
            parts.push((mass, frame.p, rotate_tensor(&frame.r, &diag(moments))));
        }
        if parts.is_empty() {
            return Ok(None);
        }
        let mut total = MassProps::ZERO;
        for (mass, com, inertia) in parts {
            total = total.merge(&MassProps { mass, com, inertia });
        }
        Ok(Some(Inertial {
            mass: total.mass,
            com: total.com,
            inertia: total.inertia,
        }))
    }
}

/// A body's `<inertial>`: `mass`, `pos`, an orientation and `diaginertia`, or `fullinertia`.
fn explicit_inertial(item: &Item, angles: &Angles) -> Result<Inertial, ImportError> {
    let attrs = Attrs::plain(item.element);
    let Some(pos) = attrs.array::<3>("pos")? else {
        return Err(attrs.invalid("pos", "<inertial> needs a `pos`".to_owned()));
    };
    if attrs.get("mass").is_none() {
        return Err(attrs.invalid("mass", "<inertial> needs a `mass`".to_owned()));
    }
    let mass = attrs.number("mass", 0.0)?;
    let inertia = match (
        attrs.array::<3>("diaginertia")?,
        attrs.array::<6>("fullinertia")?,
    ) {
        (Some(d), None) => rotate_tensor(&orientation(&attrs, angles)?, &diag(d)),
        (None, Some([xx, yy, zz, xy, xz, yz])) => {
            if orientation(&attrs, angles)? != IDENTITY {
                return Err(attrs.invalid(
                    "fullinertia",
                    "fullinertia and an orientation cannot both be given".to_owned(),
                ));
            }
            [[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]]
        }
        _ => {
            return Err(attrs.invalid(
                "diaginertia",
                "<inertial> needs exactly one of `diaginertia` and `fullinertia`".to_owned(),
            ))
        }
    };
    if mass < 0.0 {
        return Err(attrs.invalid("mass", "the mass cannot be negative".to_owned()));
    }
    let frame = item.frame.then(&Pose::trans(pos));
    Ok(Inertial {
        mass,
        com: frame.p,
        inertia: rotate_tensor(&item.frame.r, &inertia),
    })
}

#[cfg(test)]
mod tests {
    use crate::import::{import_mjcf, ImportOptions};

    /// A mounting body welded to the world with a mesh geom (MuJoCo Menagerie's FR3 has one),
    /// above an arm; `extra` goes into `<compiler>`, `tail` into the moving body.
    fn mounted(extra: &str, tail: &str) -> String {
        format!(
            "<mujoco>\n<compiler {extra}/>\n<worldbody>\n<body name=\"mount\">\n\
             <geom type=\"mesh\" mesh=\"shell\"/>\n<body name=\"arm\">\n<joint/>\n\
             <geom size=\"0.1\"/>\n{tail}\n</body>\n</body>\n</worldbody>\n</mujoco>"
        )
    }

    #[test]
    fn a_mesh_on_a_body_welded_to_the_world_is_not_needed() {
        let options = ImportOptions::default();
        assert!(import_mjcf(&mounted("", ""), "m.xml", &options).is_ok());
        // settotalmass scales every body by the total, the mount's mass included.
        let e = import_mjcf(&mounted("settotalmass=\"3\"", ""), "m.xml", &options).unwrap_err();
        assert_eq!((e.location().line, e.what()), (5, "geom.mesh"), "{e}");
        assert!(e.message().contains("body `mount`"), "{e}");
        // Below a joint the mass is the robot's: still refused.
        let tail = "<body name=\"tip\"><geom type=\"mesh\" mesh=\"m\"/></body>";
        let e = import_mjcf(&mounted("", tail), "m.xml", &options).unwrap_err();
        assert_eq!((e.location().line, e.what()), (9, "geom.mesh"), "{e}");
        assert!(e.message().contains("body `tip`"), "{e}");
    }
}

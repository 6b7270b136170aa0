//! Importers: URDF files, MJCF (MuJoCo XML) files and Denavit–Hartenberg tables converted to
//! the method's frames.
//!
//! Every importer evaluates the chain or tree at the zero configuration and expresses it in base
//! axes: the pole of body `i` is a point on joint axis `i` (the joint frame's origin), `origin`
//! joins the carrier's pole to it, and centres of mass and inertia tensors are rotated into base-parallel
//! axes (`I' = R I Rᵀ`), which at `q = 0` are every body's axes.

mod chain;
pub mod dh;
mod error;
mod follow;
mod lock;
pub mod mjcf;
mod mjcf_geom;
mod mjcf_ignored;
mod mjcf_joint;
mod mjcf_mass;
mod mjcf_parse;
mod mjcf_tendon;
pub mod snap;
pub mod urdf;
mod urdf_parse;

use std::path::Path;

pub use dh::import_dh;
pub use error::{ImportError, Location};
pub use lock::JointLock;
pub use mjcf::{import_mjcf, import_mjcf_reading, ReadInclude};
pub use snap::Snap;
pub use urdf::{import_urdf, import_urdf_with};

use crate::model::Robot;

/// Options of the importers.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportOptions {
    /// URDF only: the link the chain ends at (`None`: the single leaf link, or the whole tree if
    /// there are several).
    pub tip: Option<String>,
    /// URDF only: links that become named frames (besides a tree's leaf links).
    pub frames: Vec<String>,
    /// Round values within a tolerance of exact ones (see [`snap`]); on by default.
    pub snap: bool,
    /// URDF only: a free-flyer under the root link (`[base] motion = "floating"`), the root
    /// link's inertia with the links fixed to it as the base body; off by default.
    pub floating_base: bool,
    /// MJCF only: the top-level body (a child of the world) whose tree is read; the other
    /// trees are left out (`None`: every tree, a forest).
    pub root: Option<String>,
    /// Rigid contacts on named frames, added after the input's own (`[[contact]]`): `FRAME`
    /// for a point contact, `FRAME:6d` for a 6d one (see [`crate::Robot::add_contacts`]).
    pub contacts: Vec<String>,
    /// URDF and MJCF only: joints fixed at a value (`--lock JOINT[=VALUE]`), as Pinocchio's
    /// `buildReducedModel`: each joint's child is placed at the value and welded to its parent.
    pub locks: Vec<JointLock>,
    /// MJCF only: leave out the closed loops (`connect` and `weld` equalities), importing the
    /// spanning tree, instead of refusing them (`--ignore-equality`); off by default.
    pub ignore_equality: bool,
}

impl Default for ImportOptions {
    fn default() -> ImportOptions {
        ImportOptions {
            tip: None,
            frames: Vec::new(),
            snap: true,
            floating_base: false,
            root: None,
            contacts: Vec::new(),
            locks: Vec::new(),
            ignore_equality: false,
        }
    }
}

/// An imported robot, the values that were snapped to exact ones on the way and what of the
/// input was left out.
#[derive(Clone, Debug)]
pub struct Imported {
    /// The robot, in the method's frames.
    pub robot: Robot,
    /// Every snap, in the order made (empty for specs and with snapping off).
    pub snaps: Vec<Snap>,
    /// What the input holds that the generated functions do not use (MJCF: actuators,
    /// sensors, tendons, inactive equalities, ...), as `quasidyn check --verbose` lists it.
    pub ignored: Vec<Ignored>,
}

/// An element of the input the generated functions do not use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ignored {
    /// Where it is written.
    pub at: Location,
    /// The element, as errors name it (`motor[shoulder]`).
    pub what: String,
    /// What it is, and why it does not enter the functions.
    pub why: String,
}

impl std::fmt::Display for Ignored {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}: {}", self.at, self.what, self.why)
    }
}

/// The file name of `path` without its directories, as generated code names its input.
pub(crate) fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// What kind of robot description a file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InputKind {
    /// A quasidyn spec (docs/spec.md).
    Spec,
    /// A URDF file.
    Urdf,
    /// A DH table (docs/dh.md).
    Dh,
    /// An MJCF (MuJoCo XML) file (docs/mjcf.md).
    Mjcf,
}

/// Guesses the kind of `text`, read from `path`, by content and then by extension: XML whose
/// root element is `<mujoco>` is MJCF; `.urdf` and `.xml` files and text containing `<robot`
/// are URDF; TOML with a top-level `convention` key and `[[link]]` tables is a DH table;
/// anything else is a spec.
pub fn detect(path: &Path, text: &str) -> InputKind {
    if root_tag(text) == Some("mujoco") {
        return InputKind::Mjcf;
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("urdf" | "xml") => return InputKind::Urdf,
        Some("dh") => return InputKind::Dh,
        _ => {}
    }
    if text.trim_start().starts_with('<') || text.contains("<robot") {
        return InputKind::Urdf;
    }
    if looks_like_dh(text) {
        InputKind::Dh
    } else {
        InputKind::Spec
    }
}

/// The name of the first element of an XML text (after the declaration, comments and
/// processing instructions), read leniently: the importer reports malformed XML.
fn root_tag(text: &str) -> Option<&str> {
    let mut rest = text.trim_start_matches('\u{feff}').trim_start();
    loop {
        rest = rest.strip_prefix('<')?;
        if let Some(after) = rest.strip_prefix("!--") {
            rest = &after[after.find("-->")? + 3..];
        } else if rest.starts_with('?') || rest.starts_with('!') {
            rest = &rest[rest.find('>')? + 1..];
        } else {
            let end = rest
                .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
                .unwrap_or(rest.len());
            return Some(&rest[..end]);
        }
        rest = rest.trim_start();
    }
}

fn looks_like_dh(text: &str) -> bool {
    if let Ok(table) = text.parse::<toml::Table>() {
        return table.contains_key("convention")
            && matches!(table.get("link"), Some(toml::Value::Array(_)));
    }
    // Not valid TOML: judge by lines so the DH importer reports the syntax error.
    let mut convention = false;
    let mut link = false;
    for line in text.lines().map(str::trim) {
        convention |= line.starts_with("convention") && line.contains('=');
        link |= line.starts_with("[[link]]");
    }
    convention && link
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_names() {
        assert_eq!(base_name("/home/me/robots/ur5.urdf"), "ur5.urdf");
        assert_eq!(base_name("C:\\robots\\ur5.urdf"), "ur5.urdf");
        assert_eq!(base_name("ur5.urdf"), "ur5.urdf");
    }

    #[test]
    fn detects_kinds() {
        let dh = "convention = \"standard\"\nname = \"x\"\n[[link]]\na = 0.0\n";
        let spec = "version = 1\nname = \"x\"\n[[body]]\njoint = \"revolute\"\n";
        let urdf = "<?xml version=\"1.0\"?>\n<robot name=\"x\"/>";
        assert_eq!(detect(Path::new("a.toml"), dh), InputKind::Dh);
        assert_eq!(detect(Path::new("a.toml"), spec), InputKind::Spec);
        assert_eq!(detect(Path::new("a.urdf"), ""), InputKind::Urdf);
        assert_eq!(detect(Path::new("robot"), urdf), InputKind::Urdf);
        assert_eq!(
            detect(Path::new("a.toml"), "convention = \"x\n[[link]]\n"),
            InputKind::Dh
        );
        let mjcf = "<?xml version=\"1.0\"?>\n<!-- <robot> -->\n<mujoco model=\"x\"/>";
        assert_eq!(detect(Path::new("a.xml"), mjcf), InputKind::Mjcf);
        assert_eq!(detect(Path::new("a.urdf"), "<mujoco>"), InputKind::Mjcf);
        assert_eq!(
            detect(Path::new("robot"), "\u{feff} <mujoco\n>"),
            InputKind::Mjcf
        );
        assert_eq!(
            detect(Path::new("a.xml"), "<robot name=\"mujoco\"/>"),
            InputKind::Urdf
        );
        assert_eq!(
            detect(Path::new("a.xml"), "<!-- unterminated"),
            InputKind::Urdf
        );
    }
}

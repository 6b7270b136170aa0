//! Reading and writing the TOML robot spec (format in docs/spec.md).
//!
//! Reading is two steps: serde deserialises the text into raw structs that mirror the format
//! (unknown keys and wrong types are rejected there, with toml's span), then a validation step
//! turns them into a [`Robot`], checking the physics and recording a located error for every
//! problem.

use std::ops::Range;
use std::path::Path;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;
use toml::Spanned;

use crate::error::SpecError;
use crate::mat3::{self, M3, V3};
use crate::model::{
    BaseBody, BaseMotion, ElasticJoint, Flex, FlexDirection, Frame, JointKind, ParameterSet, Robot,
    RobotBody, SymbolicInertial, MAX_FLEX_MODES,
};

/// Most bodies a spec may have: generated code is straight-line and its size grows roughly with
/// the cube of the number of bodies.
pub const MAX_BODIES: usize = 64;

/// Why a fixed base takes no inertia.
const FIXED_BASE_INERTIA: &str =
    "only a floating base (motion = \"floating\") has inertial parameters: a fixed or \
     prescribed base's inertia enters no function";

/// The reserved name of the base in `parent` and in a frame's `body`.
const BASE_NAME: &str = "base";

/// Tolerance on the length of axis-like vectors given in a spec.
const UNIT_TOLERANCE: f64 = 1e-3;

/// Largest cosine between a bending direction and its link.
const PERPENDICULAR_TOLERANCE: f64 = 1e-6;

/// Tolerance on the orthonormality of a tool rotation matrix.
const ROTATION_TOLERANCE: f64 = 1e-6;

/// Relative tolerance (times the trace) of the inertia checks, so that tensors computed in
/// floating point (e.g. shifted from the pole) are not rejected for rounding.
const INERTIA_TOLERANCE: f64 = 1e-9;

/// Parses a spec. `file_name` is only used to label errors.
pub fn parse_spec(text: &str, file_name: &str) -> Result<Robot, SpecError> {
    let raw: RawSpec = toml::from_str(text).map_err(|e| toml_error(text, file_name, &e))?;
    Validator {
        text,
        file: file_name,
    }
    .robot(raw)
}

/// Reads and parses a spec file.
pub fn load_spec(path: &Path) -> Result<Robot, SpecError> {
    let text = std::fs::read_to_string(path).map_err(|source| SpecError::Io {
        path: path.to_owned(),
        source,
    })?;
    parse_spec(&text, &path.display().to_string())
}

// ---------------------------------------------------------------------------------------------
// Raw structs: the format as written.

type Num = Spanned<f64>;
type RawVec = Spanned<[Num; 3]>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpec {
    version: Option<Spanned<i64>>,
    name: Spanned<String>,
    description: Option<String>,
    source: Option<String>,
    gravity: Option<RawVec>,
    base: Option<Spanned<RawBase>>,
    symbolic: Option<Spanned<Vec<Spanned<String>>>>,
    parameters: Option<Spanned<String>>,
    body: Option<Spanned<Vec<Spanned<RawBody>>>>,
    tool: Option<Spanned<RawTool>>,
    frame: Option<Spanned<Vec<Spanned<RawFrame>>>>,
}

/// `base = [x, y, z]` (the first form) or a `[base]` table.
enum RawBase {
    Position(Vec<Num>),
    Table(Box<RawBaseTable>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBaseTable {
    position: Option<RawVec>,
    motion: Option<Spanned<String>>,
    translation_only: Option<Spanned<bool>>,
    mass: Option<Num>,
    com: Option<RawVec>,
    inertia: Option<Spanned<RawInertia>>,
}

impl<'de> Deserialize<'de> for RawBase {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawBase;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a position [x, y, z] or a table with `position` and `motion`")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RawBase, A::Error> {
                let mut v = Vec::new();
                while let Some(x) = seq.next_element::<Num>()? {
                    v.push(x);
                }
                Ok(RawBase::Position(v))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<RawBase, A::Error> {
                RawBaseTable::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(|t| RawBase::Table(Box::new(t)))
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFrame {
    name: Spanned<String>,
    body: Spanned<String>,
    position: Option<RawVec>,
    rotation: Option<Spanned<[[Num; 3]; 3]>>,
    rpy: Option<RawVec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBody {
    name: Option<Spanned<String>>,
    joint: Spanned<RawJoint>,
    joint_name: Option<Spanned<String>>,
    axis: Spanned<RawDirection>,
    next: Option<RawVec>,
    #[serde(rename = "L")]
    l: Option<Num>,
    e: Option<Spanned<RawDirection>>,
    mass: Num,
    com: Option<RawVec>,
    b: Option<Num>,
    a: Option<Spanned<RawDirection>>,
    inertia: Option<Spanned<RawInertia>>,
    parent: Option<Spanned<String>>,
    origin: Option<RawVec>,
    symbolic: Option<Spanned<Vec<Spanned<String>>>>,
    stiffness: Option<Num>,
    damping: Option<Num>,
    motor_inertia: Option<Num>,
    flex: Option<Spanned<RawFlex>>,
}

/// `[body.flex]`: the bending directions and the number of modes of a flexible link.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFlex {
    directions: Spanned<Vec<Spanned<RawDirection>>>,
    modes: Option<Spanned<i64>>,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum RawJoint {
    Revolute,
    Prismatic,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawInertia {
    ixx: Option<Num>,
    iyy: Option<Num>,
    izz: Option<Num>,
    ixy: Option<Num>,
    ixz: Option<Num>,
    iyz: Option<Num>,
    about: Option<Spanned<About>>,
    /// `false`: the tensor is taken as given, not checked to be that of a real mass
    /// distribution (published tables and CAD exports that are not).
    physical: Option<bool>,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum About {
    Com,
    Pole,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTool {
    rotation: Option<Spanned<[[Num; 3]; 3]>>,
    rpy: Option<RawVec>,
}

/// An axis-like direction: a (signed) coordinate-axis letter or a vector.
enum RawDirection {
    Letter(String),
    Vector(Vec<Num>),
}

impl<'de> Deserialize<'de> for RawDirection {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawDirection;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(r#"an axis letter ("x", "-y", ...) or a vector [x, y, z]"#)
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<RawDirection, E> {
                Ok(RawDirection::Letter(s.to_owned()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RawDirection, A::Error> {
                let mut v = Vec::new();
                while let Some(x) = seq.next_element::<Num>()? {
                    v.push(x);
                }
                Ok(RawDirection::Vector(v))
            }
        }
        d.deserialize_any(V)
    }
}

// ---------------------------------------------------------------------------------------------
// Errors from toml: locate them and name the field.

/// Converts a toml error (syntax, type, unknown or missing key) to a located [`SpecError`],
/// naming the field by finding the key or value under the error's span.
fn toml_error(text: &str, file: &str, e: &toml::de::Error) -> SpecError {
    let span = e.span().unwrap_or(0..0);
    let mut message = e.message().trim().replace('\n', "; ");
    let mut field = if let Some(missing) = backticked(&message, "missing field `") {
        // A key missing from the document itself is reported with an empty span at 0.
        let table = if span.is_empty() {
            String::new()
        } else {
            field_at(text, span.start)
        };
        message = format!("missing required key `{missing}`");
        join(&table, &missing)
    } else {
        field_at(text, span.start)
    };
    if let Some(unknown) = backticked(&message, "unknown field `") {
        if !field.ends_with(&unknown) {
            field = join(&field, &unknown);
        }
        message = message.replacen("unknown field", "unknown key", 1);
    }
    let message = message
        .replace("expected f64", "expected a number")
        .replace("expected i64", "expected an integer")
        .replace(
            "expected an array of length 3",
            "expected an array of 3 numbers",
        );
    if field.is_empty() {
        field = "(toml)".to_owned();
    }
    SpecError::at(text, file, span, field, message)
}

fn backticked(message: &str, prefix: &str) -> Option<String> {
    let rest = message.strip_prefix(prefix)?;
    Some(rest[..rest.find('`')?].to_owned())
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// The field path at byte `at`: the smallest key or value whose span contains it, else (for
/// syntax errors inside a value) the last key before it on the same line, else the key written
/// at the start of its line inside the last `[table]` header before it (duplicate keys, keys
/// without a value). The document is re-parsed leniently, so this works even when it is
/// malformed.
fn field_at(text: &str, at: usize) -> String {
    let (tree, _) = toml::de::DeTable::parse_recoverable(text);
    let mut finder = PathFinder {
        text,
        at,
        containing: None,
        preceding: None,
        header: None,
    };
    finder.table(tree.get_ref(), "");
    if let Some((_, path)) = finder.containing.or(finder.preceding) {
        return path;
    }
    let before = text.get(..at).unwrap_or_default();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = text[line_start..].lines().next().unwrap_or("").trim_start();
    let key: String = line
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        .collect();
    let table = finder.header.map(|(_, path)| path).unwrap_or_default();
    if line.starts_with('[') {
        table
    } else {
        join(&table, &key)
    }
}

struct PathFinder<'t> {
    text: &'t str,
    at: usize,
    /// (span length, path) of the smallest node containing `at`.
    containing: Option<(usize, String)>,
    /// (key end, path) of the last key ending before `at` on its line.
    preceding: Option<(usize, String)>,
    /// (header end, path) of the last `[table]` or `[[array]]` header ending before `at`.
    header: Option<(usize, String)>,
}

impl PathFinder<'_> {
    /// Every child is visited because `[[body]]` tables span only their header, not their keys.
    fn table(&mut self, table: &toml::de::DeTable<'_>, path: &str) {
        for (key, value) in table {
            let p = join(path, key.get_ref());
            let span = key.span();
            let same_line = self
                .text
                .get(span.end..self.at)
                .is_some_and(|between| !between.contains('\n'));
            if same_line
                && self
                    .preceding
                    .as_ref()
                    .map_or(true, |(end, _)| span.end >= *end)
            {
                self.preceding = Some((span.end, p.clone()));
            }
            self.consider(span, &p);
            self.value(value, &p);
        }
    }

    fn value(&mut self, value: &Spanned<toml::de::DeValue<'_>>, path: &str) {
        self.consider(value.span(), path);
        match value.get_ref() {
            toml::de::DeValue::Table(t) => {
                let span = value.span();
                // A header table's span is its header line, which holds none of its keys; an
                // inline table's span holds them all.
                let is_header = !t.keys().any(|k| span.contains(&k.span().start));
                if is_header
                    && span.end <= self.at
                    && self
                        .header
                        .as_ref()
                        .map_or(true, |(end, _)| span.end >= *end)
                {
                    self.header = Some((span.end, path.to_owned()));
                }
                self.table(t, path)
            }
            toml::de::DeValue::Array(a) => {
                for (i, v) in a.iter().enumerate() {
                    self.value(v, &format!("{path}[{}]", i + 1));
                }
            }
            _ => {}
        }
    }

    fn consider(&mut self, span: Range<usize>, path: &str) {
        let at = self.at;
        let contains = (span.start <= at && at < span.end) || (span.start == at && span.end == at);
        // `<=` so that, of equal spans, the deeper (visited later) path wins.
        if contains
            && self
                .containing
                .as_ref()
                .map_or(true, |(l, _)| span.len() <= *l)
        {
            self.containing = Some((span.len(), path.to_owned()));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Validation.

struct Validator<'a> {
    text: &'a str,
    file: &'a str,
}

/// A body after the first pass (masses known, mass distribution still in spec form).
struct Pass1 {
    name: String,
    joint_name: String,
    parent: Option<usize>,
    /// Explicit `origin`, if given.
    origin: Option<V3>,
    joint: JointKind,
    axis: V3,
    next: V3,
    mass: f64,
    symbolic: SymbolicInertial,
    elastic: Option<ElasticJoint>,
    flex: Option<Flex>,
}

impl Validator<'_> {
    fn err(
        &self,
        span: Range<usize>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> SpecError {
        SpecError::at(self.text, self.file, span, field, message)
    }

    fn num(&self, x: &Num, field: &str) -> Result<f64, SpecError> {
        let v = *x.get_ref();
        if v.is_finite() {
            Ok(v)
        } else {
            Err(self.err(
                x.span(),
                field,
                format!("expected a finite number, got {v}"),
            ))
        }
    }

    fn vec3(&self, v: &RawVec, field: &str) -> Result<V3, SpecError> {
        let mut out = [0.0; 3];
        for (i, (o, x)) in out.iter_mut().zip(v.get_ref()).enumerate() {
            *o = self.num(x, &format!("{field}[{}]", i + 1))?;
        }
        Ok(out)
    }

    /// A unit direction: an axis letter, or a vector normalised after checking its length.
    fn direction(
        &self,
        d: &Spanned<RawDirection>,
        field: &str,
        what: &str,
    ) -> Result<V3, SpecError> {
        match d.get_ref() {
            RawDirection::Letter(s) => letter_axis(s).ok_or_else(|| {
                self.err(
                    d.span(),
                    field,
                    format!(
                        r#"expected an axis letter "x", "y", "z", "-x", "-y", "-z" or a vector [x, y, z], got "{s}""#
                    ),
                )
            }),
            RawDirection::Vector(v) => {
                if v.len() != 3 {
                    return Err(self.err(
                        d.span(),
                        field,
                        format!("expected a vector of 3 numbers, got {} numbers", v.len()),
                    ));
                }
                let mut u = [0.0; 3];
                for (i, (o, x)) in u.iter_mut().zip(v).enumerate() {
                    *o = self.num(x, &format!("{field}[{}]", i + 1))?;
                }
                let n = mat3::norm(u);
                if n == 0.0 {
                    return Err(self.err(d.span(), field, format!("{what} must not be the zero vector")));
                }
                if !n.is_finite() || (n - 1.0).abs() > UNIT_TOLERANCE {
                    return Err(self.err(
                        d.span(),
                        field,
                        format!("{what} must be a unit vector (length within {UNIT_TOLERANCE} of 1), got length {n}"),
                    ));
                }
                // Leave vectors that are already unit to rounding untouched, so that a written
                // spec reads back bit for bit.
                if (n - 1.0).abs() > 4.0 * f64::EPSILON {
                    u = mat3::scale(u, 1.0 / n);
                }
                Ok(u)
            }
        }
    }

    fn name(&self, s: &Spanned<String>, field: &str) -> Result<String, SpecError> {
        if s.get_ref().trim().is_empty() {
            Err(self.err(s.span(), field, "expected a non-empty name"))
        } else {
            Ok(s.get_ref().clone())
        }
    }

    fn symbolic(
        &self,
        list: &Option<Spanned<Vec<Spanned<String>>>>,
        field: &str,
        out: &mut SymbolicInertial,
    ) -> Result<(), SpecError> {
        for (i, item) in list.iter().flat_map(|l| l.get_ref()).enumerate() {
            match item.get_ref().as_str() {
                "mass" => out.mass = true,
                "com" => out.com = true,
                "inertia" => out.inertia = true,
                other => {
                    return Err(self.err(
                        item.span(),
                        format!("{field}[{}]", i + 1),
                        format!(r#"expected "mass", "com" or "inertia", got "{other}""#),
                    ))
                }
            }
        }
        Ok(())
    }

    fn robot(&self, raw: RawSpec) -> Result<Robot, SpecError> {
        if let Some(v) = &raw.version {
            if *v.get_ref() != 1 {
                return Err(self.err(
                    v.span(),
                    "version",
                    format!("unsupported format version {}, expected 1", v.get_ref()),
                ));
            }
        }
        let name = self.name(&raw.name, "name")?;
        let gravity = match &raw.gravity {
            Some(g) => self.vec3(g, "gravity")?,
            None => [0.0, -9.81, 0.0],
        };
        let (base, motion, base_body) = match &raw.base {
            Some(b) => self.base(b)?,
            None => ([0.0; 3], BaseMotion::Fixed, None),
        };
        let mut all_symbolic = SymbolicInertial::default();
        self.symbolic(&raw.symbolic, "symbolic", &mut all_symbolic)?;
        let tool_rotation = match &raw.tool {
            Some(t) => self.tool(t)?,
            None => mat3::IDENTITY,
        };
        let parameters = match &raw.parameters {
            None => ParameterSet::Physical,
            Some(p) => match p.get_ref().as_str() {
                "physical" => ParameterSet::Physical,
                "base" => ParameterSet::Base,
                other => {
                    return Err(self.err(
                        p.span(),
                        "parameters",
                        format!(
                            "unknown parameter set {other:?}: expected \"physical\" or \"base\""
                        ),
                    ))
                }
            },
        };

        let raw_bodies: &[Spanned<RawBody>] = raw.body.as_ref().map_or(&[], |b| b.get_ref());
        if raw_bodies.is_empty() {
            let span = raw.body.as_ref().map_or(0..0, |b| b.span());
            return Err(self.err(
                span,
                "body",
                "the chain is empty: expected at least one [[body]]",
            ));
        }
        if raw_bodies.len() > MAX_BODIES {
            return Err(self.err(
                raw_bodies[MAX_BODIES].span(),
                format!("body[{}]", MAX_BODIES + 1),
                format!(
                    "too many bodies ({}): at most {MAX_BODIES} are supported, because the \
                     generated straight-line code grows roughly with the cube of the number of bodies",
                    raw_bodies.len()
                ),
            ));
        }

        // Pass 1: kinematics, masses and names (the mass distribution needs the later masses).
        let mut pass1: Vec<Pass1> = Vec::with_capacity(raw_bodies.len());
        for (i, rb) in raw_bodies.iter().enumerate() {
            let body = self.body_pass1(rb, i + 1, &pass1, all_symbolic)?;
            pass1.push(body);
        }

        // Poles: an explicit `origin`, else the carrier's `next` (the base position for a body
        // on the base).
        let origins: Vec<V3> = pass1
            .iter()
            .map(|p| {
                p.origin
                    .unwrap_or_else(|| p.parent.map_or(base, |k| pass1[k].next))
            })
            .collect();
        // Mass of each subsystem (the body and all it carries), then the carried first moment
        // about each pole, Σ_children m_c origin_c (the chain's m_{i+1} L_i e_i).
        let mut subsystem: Vec<f64> = pass1.iter().map(|p| p.mass).collect();
        for i in (0..pass1.len()).rev() {
            if let Some(k) = pass1[i].parent {
                subsystem[k] += subsystem[i];
            }
        }
        let mut carried = vec![[0.0; 3]; pass1.len()];
        for (i, p) in pass1.iter().enumerate() {
            if let Some(k) = p.parent {
                carried[k] = mat3::add(carried[k], mat3::scale(origins[i], subsystem[i]));
            }
        }

        let is_chain = pass1
            .iter()
            .enumerate()
            .all(|(i, p)| p.parent == i.checked_sub(1));
        if !is_chain {
            if let Some(t) = &raw.tool {
                return Err(self.err(
                    t.span(),
                    "tool",
                    "a tree has no single tool: declare [[frame]]s on the bodies instead",
                ));
            }
            for (i, (p, rb)) in pass1.iter().zip(raw_bodies).enumerate() {
                let leaf = !pass1.iter().any(|c| c.parent == Some(i));
                if leaf && p.next != [0.0; 3] {
                    let span = rb.get_ref().next.as_ref().map_or(rb.span(), |n| n.span());
                    return Err(self.err(
                        span,
                        format!("body[{}].next", i + 1),
                        "in a tree a leaf's `next` would be a tool point no function reads: \
                         declare a [[frame]] on the body instead",
                    ));
                }
            }
        }

        self.check_elasticity(&pass1, raw_bodies, &origins, is_chain, motion)?;

        let mut bodies = Vec::with_capacity(pass1.len());
        for (((p, rb), origin), carried) in
            pass1.into_iter().zip(raw_bodies).zip(origins).zip(carried)
        {
            let idx = bodies.len() + 1;
            bodies.push(self.body_pass2(p, rb, idx, origin, carried)?);
        }

        let mut frames: Vec<Frame> = Vec::new();
        for (i, rf) in raw.frame.iter().flat_map(|f| f.get_ref()).enumerate() {
            frames.push(self.frame(rf, i + 1, &bodies, &frames, motion)?);
        }

        if let (true, ParameterSet::Base, Some(p)) =
            (motion != BaseMotion::Fixed, parameters, &raw.parameters)
        {
            return Err(self.err(
                p.span(),
                "parameters",
                "parameters = \"base\" is not available with a moving or floating base yet: \
                 use \"physical\" (the default)",
            ));
        }
        Ok(Robot {
            name,
            description: raw.description,
            source: raw.source,
            gravity,
            base,
            tool_rotation,
            bodies,
            frames,
            parameters,
            motion,
            base_body,
        })
    }

    /// `base = [x, y, z]` or the `[base]` table: the default pole of the base's bodies, how
    /// the base moves, and a floating base's inertia.
    fn base(&self, b: &Spanned<RawBase>) -> Result<(V3, BaseMotion, Option<BaseBody>), SpecError> {
        let t = match b.get_ref() {
            RawBase::Position(v) => {
                return Ok((
                    self.position_list(v, b.span(), "base")?,
                    BaseMotion::Fixed,
                    None,
                ))
            }
            RawBase::Table(t) => t,
        };
        let motion = match &t.motion {
            None => BaseMotion::Fixed,
            Some(m) => match m.get_ref().as_str() {
                "fixed" => BaseMotion::Fixed,
                "floating" => BaseMotion::Floating,
                "prescribed" => BaseMotion::Prescribed,
                other => {
                    return Err(self.err(
                        m.span(),
                        "base.motion",
                        format!(
                            "unknown base motion \"{other}\": expected \"fixed\", \
                             \"prescribed\" or \"floating\""
                        ),
                    ))
                }
            },
        };
        let motion = match (motion, &t.translation_only) {
            (_, None) => motion,
            (BaseMotion::Prescribed, Some(f)) if *f.get_ref() => BaseMotion::Translating,
            (BaseMotion::Prescribed, Some(_)) => motion,
            (_, Some(f)) => {
                return Err(self.err(
                    f.span(),
                    "base.translation_only",
                    "`translation_only` describes a prescribed base: it needs                      motion = \"prescribed\"",
                ))
            }
        };
        let position = match &t.position {
            Some(p) => self.vec3(p, "base.position")?,
            None => [0.0; 3],
        };
        let body = match (motion, &t.mass) {
            (BaseMotion::Fixed | BaseMotion::Prescribed | BaseMotion::Translating, None) => {
                if let Some(c) = &t.com {
                    return Err(self.err(c.span(), "base.com", FIXED_BASE_INERTIA));
                }
                if let Some(i) = &t.inertia {
                    return Err(self.err(i.span(), "base.inertia", FIXED_BASE_INERTIA));
                }
                None
            }
            (BaseMotion::Fixed | BaseMotion::Prescribed | BaseMotion::Translating, Some(m)) => {
                return Err(self.err(m.span(), "base.mass", FIXED_BASE_INERTIA))
            }
            (BaseMotion::Floating, None) => {
                return Err(self.err(
                    b.span(),
                    "base.mass",
                    "a floating base needs its `mass` (and `com`, `inertia`): the trunk's \
                     inertia enters every function",
                ))
            }
            (BaseMotion::Floating, Some(m)) => {
                let mass = self.num(m, "base.mass")?;
                if mass < 0.0 {
                    return Err(self.err(
                        m.span(),
                        "base.mass",
                        format!("mass must not be negative, got {mass}"),
                    ));
                }
                let com = match &t.com {
                    Some(c) => self.vec3(c, "base.com")?,
                    None => [0.0; 3],
                };
                let (tensor, about) = match &t.inertia {
                    Some(i) => self.inertia(i, "base.inertia")?,
                    None => ([[0.0; 3]; 3], About::Com),
                };
                let inertia_com = match about {
                    About::Com => tensor,
                    About::Pole => mat3::mat_sub(&tensor, &mat3::point_mass_inertia(mass, com)),
                };
                if let Some(i) = &t.inertia {
                    self.check_inertia(&inertia_com, about, i, "base.inertia")?;
                }
                Some(BaseBody {
                    mass,
                    com,
                    inertia_com,
                    symbolic: SymbolicInertial::default(),
                })
            }
        };
        Ok((position, motion, body))
    }

    /// Three finite numbers given as a list of any length (a located error otherwise).
    fn position_list(&self, v: &[Num], span: Range<usize>, field: &str) -> Result<V3, SpecError> {
        if v.len() != 3 {
            return Err(self.err(
                span,
                field,
                format!("expected an array of 3 numbers, got {} numbers", v.len()),
            ));
        }
        let mut out = [0.0; 3];
        for (i, (o, x)) in out.iter_mut().zip(v).enumerate() {
            *o = self.num(x, &format!("{field}[{}]", i + 1))?;
        }
        Ok(out)
    }

    fn frame(
        &self,
        rf: &Spanned<RawFrame>,
        idx: usize,
        bodies: &[RobotBody],
        prev: &[Frame],
        motion: BaseMotion,
    ) -> Result<Frame, SpecError> {
        let f = |k: &str| format!("frame[{idx}].{k}");
        let raw = rf.get_ref();
        let name = self.name(&raw.name, &f("name"))?;
        if let Some(other) = prev.iter().position(|p| p.name == name) {
            return Err(self.err(
                raw.name.span(),
                f("name"),
                format!(
                    "duplicate frame name \"{name}\" (also frame[{}]); frame names must be unique",
                    other + 1
                ),
            ));
        }
        let ident = Frame {
            name: name.clone(),
            body: None,
            position: [0.0; 3],
            rotation: mat3::IDENTITY,
        }
        .ident();
        if let Some(other) = prev.iter().position(|p| p.ident() == ident) {
            return Err(self.err(
                raw.name.span(),
                f("name"),
                format!(
                    "frame name \"{name}\" gives the same function names as frame[{}] \"{}\" \
                     (`{ident}`)",
                    other + 1,
                    prev[other].name
                ),
            ));
        }
        let wanted = raw.body.get_ref();
        // As in `parent`, a body named "base" takes precedence over the base.
        let body = match bodies.iter().position(|b| b.name == *wanted) {
            Some(k) => Some(k),
            None if wanted == BASE_NAME && motion == BaseMotion::Floating => None,
            None => {
                let message = if wanted == BASE_NAME {
                    "a frame on the base needs a floating base ([base] motion = \"floating\"): \
                     on a fixed or prescribed base its pose in the base frame never changes"
                        .to_owned()
                } else {
                    format!("no body named \"{wanted}\"")
                };
                return Err(self.err(raw.body.span(), f("body"), message));
            }
        };
        let position = match &raw.position {
            Some(p) => self.vec3(p, &f("position"))?,
            None => [0.0; 3],
        };
        let rotation = self.rotation(&raw.rotation, &raw.rpy, &format!("frame[{idx}]"))?;
        Ok(Frame {
            name,
            body,
            position,
            rotation,
        })
    }

    fn tool(&self, t: &Spanned<RawTool>) -> Result<M3, SpecError> {
        let tool = t.get_ref();
        self.rotation(&tool.rotation, &tool.rpy, "tool")
    }

    /// An orientation given as `rotation` rows or `rpy` (at most one; neither is identity).
    fn rotation(
        &self,
        rotation: &Option<Spanned<[[Num; 3]; 3]>>,
        rpy: &Option<RawVec>,
        table: &str,
    ) -> Result<M3, SpecError> {
        match (rotation, rpy) {
            (Some(_), Some(rpy)) => Err(self.err(
                rpy.span(),
                format!("{table}.rpy"),
                "give either `rotation` or `rpy`, not both",
            )),
            (None, None) => Ok(mat3::IDENTITY),
            (None, Some(rpy)) => {
                let [r, p, y] = self.vec3(rpy, &format!("{table}.rpy"))?;
                Ok(rpy_matrix(r, p, y))
            }
            (Some(rot), None) => {
                let field = format!("{table}.rotation");
                let mut m = [[0.0; 3]; 3];
                for (i, row) in rot.get_ref().iter().enumerate() {
                    for (j, x) in row.iter().enumerate() {
                        m[i][j] = self.num(x, &format!("{field}[{}][{}]", i + 1, j + 1))?;
                    }
                }
                let rrt = mat3::mul(&m, &mat3::transpose(&m));
                let mut worst: f64 = 0.0;
                let mut orthonormal = true;
                for (i, row) in rrt.iter().enumerate() {
                    for (j, v) in row.iter().enumerate() {
                        let dev = v - if i == j { 1.0 } else { 0.0 };
                        orthonormal &= within(dev, ROTATION_TOLERANCE);
                        worst = worst.max(dev.abs());
                    }
                }
                if !orthonormal {
                    return Err(self.err(
                        rot.span(),
                        field,
                        format!(
                            "expected an orthonormal matrix (R Rᵀ = I within {ROTATION_TOLERANCE}), \
                             largest deviation {worst:e}"
                        ),
                    ));
                }
                let d = mat3::det(&m);
                if !within(d - 1.0, ROTATION_TOLERANCE) {
                    return Err(self.err(
                        rot.span(),
                        field,
                        format!("expected a proper rotation (determinant +1), got determinant {d}"),
                    ));
                }
                Ok(m)
            }
        }
    }

    fn body_pass1(
        &self,
        sb: &Spanned<RawBody>,
        idx: usize,
        prev: &[Pass1],
        all_symbolic: SymbolicInertial,
    ) -> Result<Pass1, SpecError> {
        let rb = sb.get_ref();
        let f = |k: &str| format!("body[{idx}].{k}");

        let name = match &rb.name {
            Some(n) => self.name(n, &f("name"))?,
            None => format!("body{idx}"),
        };
        if let Some(other) = prev.iter().position(|p| p.name == name) {
            let span = rb.name.as_ref().map_or(sb.span(), |n| n.span());
            return Err(self.err(
                span,
                f("name"),
                format!(
                    "duplicate body name \"{name}\" (also body[{}]); body names must be unique",
                    other + 1
                ),
            ));
        }
        let joint_name = match &rb.joint_name {
            Some(n) => self.name(n, &f("joint_name"))?,
            None => format!("q{idx}"),
        };
        if let Some(other) = prev.iter().position(|p| p.joint_name == joint_name) {
            let span = rb.joint_name.as_ref().map_or(sb.span(), |n| n.span());
            return Err(self.err(
                span,
                f("joint_name"),
                format!(
                    "duplicate joint name \"{joint_name}\" (also body[{}]); joint names must be unique",
                    other + 1
                ),
            ));
        }
        let parent = match &rb.parent {
            None => prev.len().checked_sub(1),
            // A body of that name (older specs call their first body "base") takes precedence.
            Some(p) if p.get_ref() == BASE_NAME && !prev.iter().any(|b| b.name == BASE_NAME) => {
                None
            }
            Some(p) => {
                let wanted = p.get_ref();
                match prev.iter().position(|b| b.name == *wanted) {
                    Some(k) => Some(k),
                    None => {
                        let message = if *wanted == name {
                            format!("body \"{name}\" cannot carry itself")
                        } else {
                            format!(
                                "no body named \"{wanted}\" is listed before this one: bodies \
                                 are listed parents first (or \"base\" for the fixed base)"
                            )
                        };
                        return Err(self.err(p.span(), f("parent"), message));
                    }
                }
            }
        };
        let origin = match &rb.origin {
            Some(o) => Some(self.vec3(o, &f("origin"))?),
            None => None,
        };

        let joint = match rb.joint.get_ref() {
            RawJoint::Revolute => JointKind::Revolute,
            RawJoint::Prismatic => JointKind::Prismatic,
        };
        let axis = self.direction(&rb.axis, &f("axis"), "the joint axis")?;

        let next = match (&rb.next, &rb.l, &rb.e) {
            (Some(_), Some(l), _) => {
                return Err(self.err(
                    l.span(),
                    f("L"),
                    "give either `next` or `L` and `e`, not both",
                ))
            }
            (Some(_), None, Some(e)) => {
                return Err(self.err(
                    e.span(),
                    f("e"),
                    "give either `next` or `L` and `e`, not both",
                ))
            }
            (Some(n), None, None) => self.vec3(n, &f("next"))?,
            (None, None, None) => [0.0; 3],
            (None, Some(l), None) => {
                return Err(self.err(
                    l.span(),
                    f("e"),
                    "missing `e`: `L` needs the unit direction `e`",
                ))
            }
            (None, None, Some(e)) => {
                return Err(self.err(e.span(), f("L"), "missing `L`: `e` needs the distance `L`"))
            }
            (None, Some(l), Some(e)) => {
                let len = self.num(l, &f("L"))?;
                if len < 0.0 {
                    return Err(self.err(l.span(), f("L"), format!("expected L >= 0, got {len}")));
                }
                let dir = self.direction(e, &f("e"), "e")?;
                mat3::scale(dir, len)
            }
        };

        // A massless body is allowed (what is refused is a mass matrix that is singular
        // everywhere, found when code is generated).
        let mass = self.num(&rb.mass, &f("mass"))?;
        if mass < 0.0 {
            return Err(self.err(
                rb.mass.span(),
                f("mass"),
                format!("mass must not be negative, got {mass}"),
            ));
        }

        let mut symbolic = all_symbolic;
        self.symbolic(&rb.symbolic, &f("symbolic"), &mut symbolic)?;
        let elastic = self.elastic_joint(rb, idx, joint)?;
        let flex = match &rb.flex {
            Some(fl) => Some(self.flex(fl, &f("flex"))?),
            None => None,
        };

        Ok(Pass1 {
            name,
            joint_name,
            parent,
            origin,
            joint,
            axis,
            next,
            mass,
            symbolic,
            elastic,
            flex,
        })
    }

    fn body_pass2(
        &self,
        p: Pass1,
        sb: &Spanned<RawBody>,
        idx: usize,
        origin: V3,
        carried: V3,
    ) -> Result<RobotBody, SpecError> {
        let rb = sb.get_ref();
        let f = |k: &str| format!("body[{idx}].{k}");

        let (tensor, about) = match &rb.inertia {
            Some(i) => self.inertia(i, &f("inertia"))?,
            None => ([[0.0; 3]; 3], About::Com),
        };

        let com = match (&rb.com, &rb.b, &rb.a) {
            (Some(_), Some(b), _) => {
                return Err(self.err(
                    b.span(),
                    f("b"),
                    "give either `com` or `b` and `a`, not both",
                ))
            }
            (Some(_), None, Some(a)) => {
                return Err(self.err(
                    a.span(),
                    f("a"),
                    "give either `com` or `b` and `a`, not both",
                ))
            }
            (Some(c), None, None) => self.vec3(c, &f("com"))?,
            (None, None, None) => [0.0; 3],
            (None, Some(b), None) => {
                return Err(self.err(
                    b.span(),
                    f("a"),
                    "missing `a`: `b` needs the unit direction `a`",
                ))
            }
            (None, None, Some(a)) => {
                return Err(self.err(a.span(), f("b"), "missing `b`: `a` needs the magnitude `b`"))
            }
            (None, Some(b), Some(a)) => {
                let bv = self.num(b, &f("b"))?;
                if bv < 0.0 {
                    return Err(self.err(b.span(), f("b"), format!("expected b >= 0, got {bv}")));
                }
                let av = self.direction(a, &f("a"), "a")?;
                match &rb.inertia {
                    None => {
                        return Err(self.err(
                            b.span(),
                            f("inertia"),
                            "the method form (`b`, `a`) needs `inertia` given about the pole (about = \"pole\")",
                        ))
                    }
                    Some(i) if about != About::Pole => {
                        let span = i.get_ref().about.as_ref().map_or(i.span(), |a| a.span());
                        return Err(self.err(
                            span,
                            f("inertia.about"),
                            "the method form (`b`, `a`) needs the inertia about the pole: expected about = \"pole\"",
                        ));
                    }
                    Some(_) => {}
                }
                // b a = m_oi com + Σ_c m_c origin_c (for a chain m_{i+1} L_i e_i)
                //   =>  com = (b a - Σ_c m_c origin_c) / m_oi.
                if p.mass == 0.0 {
                    return Err(self.err(
                        b.span(),
                        f("b"),
                        "the method form (`b`, `a`) needs a positive mass: the centre of mass is \
                         found by dividing by it; give a massless body's `com` instead",
                    ));
                }
                mat3::scale(mat3::sub(mat3::scale(av, bv), carried), 1.0 / p.mass)
            }
        };
        if com.iter().any(|c| !c.is_finite()) {
            return Err(self.err(
                sb.span(),
                f("com"),
                "the centre of mass is not finite (numbers too large)",
            ));
        }

        let inertia_com = match about {
            About::Com => tensor,
            About::Pole => mat3::mat_sub(&tensor, &mat3::point_mass_inertia(p.mass, com)),
        };
        if let Some(i) = &rb.inertia {
            self.check_inertia(&inertia_com, about, i, &f("inertia"))?;
        }

        Ok(RobotBody {
            name: p.name,
            joint_name: p.joint_name,
            joint: p.joint,
            axis: p.axis,
            rotation: crate::mat3::IDENTITY,
            parent: p.parent,
            origin,
            next: p.next,
            mass: p.mass,
            com,
            inertia_com,
            symbolic: p.symbolic,
            elastic: p.elastic,
            flex: p.flex,
        })
    }

    /// `stiffness`, `damping`, `motor_inertia` of a body's joint.
    fn elastic_joint(
        &self,
        rb: &RawBody,
        idx: usize,
        joint: JointKind,
    ) -> Result<Option<ElasticJoint>, SpecError> {
        let f = |k: &str| format!("body[{idx}].{k}");
        let (units, damping_units, inertia_units) = match joint {
            JointKind::Revolute => ("N m/rad", "N m s/rad", "kg m^2"),
            JointKind::Prismatic => ("N/m", "N s/m", "kg"),
        };
        let Some(k) = &rb.stiffness else {
            for (x, key) in [
                (&rb.damping, "damping"),
                (&rb.motor_inertia, "motor_inertia"),
            ] {
                if let Some(x) = x {
                    return Err(self.err(
                        x.span(),
                        f(key),
                        format!(
                            "`{key}` describes an elastic joint: give its `stiffness` ({units}) \
                             as well"
                        ),
                    ));
                }
            }
            return Ok(None);
        };
        let stiffness = self.num(k, &f("stiffness"))?;
        if stiffness <= 0.0 {
            return Err(self.err(
                k.span(),
                f("stiffness"),
                format!("stiffness must be positive ({units}), got {stiffness}"),
            ));
        }
        let damping = match &rb.damping {
            Some(d) => {
                let v = self.num(d, &f("damping"))?;
                if v < 0.0 {
                    return Err(self.err(
                        d.span(),
                        f("damping"),
                        format!("damping must not be negative ({damping_units}), got {v}"),
                    ));
                }
                Some(v)
            }
            None => None,
        };
        let motor_inertia = match &rb.motor_inertia {
            Some(b) => {
                let v = self.num(b, &f("motor_inertia"))?;
                if v <= 0.0 {
                    return Err(self.err(
                        b.span(),
                        f("motor_inertia"),
                        format!(
                            "motor_inertia must be positive ({inertia_units}, the rotor's inertia \
                             reflected through the gear), got {v}"
                        ),
                    ));
                }
                Some(v)
            }
            None => None,
        };
        Ok(Some(ElasticJoint {
            stiffness,
            damping,
            motor_inertia,
        }))
    }

    /// `[body.flex]` as written: directions (letters or unit vectors, no two parallel) and the
    /// number of modes. Whether the directions are perpendicular to the link is checked once the
    /// link is known.
    fn flex(&self, fl: &Spanned<RawFlex>, field: &str) -> Result<Flex, SpecError> {
        let raw = fl.get_ref();
        let list = raw.directions.get_ref();
        if list.is_empty() {
            return Err(self.err(
                raw.directions.span(),
                format!("{field}.directions"),
                r#"expected at least one bending direction, e.g. directions = ["y", "z"]"#,
            ));
        }
        let mut directions: Vec<FlexDirection> = Vec::with_capacity(list.len());
        for (k, d) in list.iter().enumerate() {
            let at = format!("{field}.directions[{}]", k + 1);
            let vector = self.direction(d, &at, "a bending direction")?;
            if let Some(other) = directions
                .iter()
                .position(|o| mat3::norm(mat3::cross(o.vector, vector)) <= UNIT_TOLERANCE)
            {
                return Err(self.err(
                    d.span(),
                    at,
                    format!(
                        "bending direction parallel to directions[{}]: each direction bends the \
                         link once",
                        other + 1
                    ),
                ));
            }
            let letter = match d.get_ref() {
                RawDirection::Letter(s) => {
                    axis_letter(vector).map(str::to_owned).or(Some(s.clone()))
                }
                RawDirection::Vector(_) => None,
            };
            directions.push(FlexDirection { vector, letter });
        }
        let modes = match &raw.modes {
            None => 1,
            Some(m) => {
                let v = *m.get_ref();
                match usize::try_from(v) {
                    Ok(k) if (1..=MAX_FLEX_MODES).contains(&k) => k,
                    _ => {
                        return Err(self.err(
                            m.span(),
                            format!("{field}.modes"),
                            format!("expected 1 to {MAX_FLEX_MODES} modes per direction, got {v}"),
                        ))
                    }
                }
            }
        };
        Ok(Flex { directions, modes })
    }

    /// Elasticity is for chains on a fixed base so far; each flexible link has a length and
    /// bends perpendicular to it.
    fn check_elasticity(
        &self,
        pass1: &[Pass1],
        raw_bodies: &[Spanned<RawBody>],
        origins: &[V3],
        is_chain: bool,
        motion: BaseMotion,
    ) -> Result<(), SpecError> {
        let n = pass1.len();
        for (i, (p, sb)) in pass1.iter().zip(raw_bodies).enumerate() {
            let rb = sb.get_ref();
            let idx = i + 1;
            let key = match (&rb.stiffness, &rb.flex) {
                (Some(k), _) => Some((k.span(), format!("body[{idx}].stiffness"))),
                (None, Some(fl)) => Some((fl.span(), format!("body[{idx}].flex"))),
                (None, None) => None,
            };
            let Some((span, field)) = key else { continue };
            if !is_chain {
                return Err(self.err(
                    span,
                    field,
                    "elastic joints and flexible links are not yet supported in a tree: only \
                     serial chains have them so far",
                ));
            }
            if motion != BaseMotion::Fixed {
                return Err(self.err(
                    span,
                    field,
                    "elastic joints and flexible links are not yet supported with a moving or \
                     floating base: only chains on a fixed base have them so far",
                ));
            }
            let (Some(fl), Some(raw)) = (&p.flex, &rb.flex) else {
                continue;
            };
            // The beam runs from this pole to the next one (the tool point after the last body).
            let beam = if i + 1 < n { origins[i + 1] } else { p.next };
            let len = mat3::norm(beam);
            if len == 0.0 {
                let what = if i + 1 < n {
                    "the next body's pole is at this body's pole"
                } else {
                    "the tool point (`next`) is at the pole"
                };
                return Err(self.err(
                    raw.span(),
                    format!("body[{idx}].flex"),
                    format!("a flexible link needs a length, but this link has none: {what}"),
                ));
            }
            let e = mat3::scale(beam, 1.0 / len);
            let written = raw.get_ref().directions.get_ref();
            for (k, (d, w)) in fl.directions.iter().zip(written).enumerate() {
                let cos = mat3::dot(d.vector, e);
                if cos.abs() > PERPENDICULAR_TOLERANCE {
                    return Err(self.err(
                        w.span(),
                        format!("body[{idx}].flex.directions[{}]", k + 1),
                        format!(
                            "a bending direction must be perpendicular to the link e_i = \
                             [{}, {}, {}] (from the pole to the next one), but their cosine is {cos}",
                            e[0], e[1], e[2]
                        ),
                    ));
                }
            }
        }
        // Giving a motor inertia asks for the elastic-joint dynamics, which need every one.
        let with = pass1.iter().position(|p| {
            p.elastic
                .as_ref()
                .is_some_and(|e| e.motor_inertia.is_some())
        });
        let without = pass1.iter().position(|p| {
            p.elastic
                .as_ref()
                .is_some_and(|e| e.motor_inertia.is_none())
        });
        if let (Some(w), Some(i)) = (with, without) {
            if let Some(k) = &raw_bodies[i].get_ref().stiffness {
                return Err(self.err(
                    k.span(),
                    format!("body[{}].motor_inertia", i + 1),
                    format!(
                        "the elastic-joint dynamics need `motor_inertia` on every elastic joint: \
                         body[{}] gives one, this joint has none (give it one, or remove them \
                         all for the kinematics and statics only)",
                        w + 1
                    ),
                ));
            }
        }
        Ok(())
    }

    fn inertia(&self, i: &Spanned<RawInertia>, field: &str) -> Result<(M3, About), SpecError> {
        let ri = i.get_ref();
        let get = |x: &Option<Num>, k: &str| -> Result<f64, SpecError> {
            x.as_ref()
                .map_or(Ok(0.0), |x| self.num(x, &format!("{field}.{k}")))
        };
        let ixx = get(&ri.ixx, "ixx")?;
        let iyy = get(&ri.iyy, "iyy")?;
        let izz = get(&ri.izz, "izz")?;
        let ixy = get(&ri.ixy, "ixy")?;
        let ixz = get(&ri.ixz, "ixz")?;
        let iyz = get(&ri.iyz, "iyz")?;
        let about = ri.about.as_ref().map_or(About::Com, |a| *a.get_ref());
        Ok(([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]], about))
    }

    /// Finite, and unless the table says `physical = false`, that of a real mass distribution
    /// ([`unphysical_inertia`]).
    fn check_inertia(
        &self,
        t: &M3,
        about: About,
        table: &Spanned<RawInertia>,
        field: &str,
    ) -> Result<(), SpecError> {
        let moved = if about == About::Pole {
            " (after moving it from the pole to the centre of mass)"
        } else {
            ""
        };
        let span = table.span();
        if t.iter().flatten().any(|x| !x.is_finite()) {
            return Err(self.err(
                span,
                field,
                format!("the inertia tensor{moved} is not finite (numbers too large)"),
            ));
        }
        if table.get_ref().physical == Some(false) {
            return Ok(());
        }
        match unphysical_inertia(t) {
            Some(why) => Err(self.err(
                span,
                field,
                format!(
                    "the inertia tensor about the centre of mass{moved} {why} (`physical = false` \
                     takes it as given)"
                ),
            )),
            None => Ok(()),
        }
    }
}

/// Why `t` (finite, about the centre of mass) is not the inertia tensor of a real mass
/// distribution, if it is not: it must be symmetric positive semidefinite with principal moments
/// satisfying the triangle inequality, within `INERTIA_TOLERANCE` of the trace for rounding.
fn unphysical_inertia(t: &M3) -> Option<String> {
    let ev = mat3::sym_eigenvalues(t);
    let trace = t[0][0] + t[1][1] + t[2][2];
    let tol = INERTIA_TOLERANCE * trace.abs().max(f64::MIN_POSITIVE);
    let shown = format!("{}, {}, {}", ev[0], ev[1], ev[2]);
    if !at_least(ev[0], -tol) {
        return Some(format!(
            "must be positive semidefinite; principal moments are {shown}"
        ));
    }
    // Ascending order, so the only inequality that can fail is I1 + I2 >= I3.
    if !at_least(ev[0] + ev[1], ev[2] - tol) {
        return Some(format!(
            "violates the triangle inequality I1 + I2 >= I3 of its principal moments: {shown}"
        ));
    }
    None
}

/// `|x| <= tol`, false for NaN.
fn within(x: f64, tol: f64) -> bool {
    x.abs() <= tol
}

/// `x >= y`, false for NaN.
fn at_least(x: f64, y: f64) -> bool {
    x >= y
}

/// Unit vector of a signed axis letter.
fn letter_axis(s: &str) -> Option<V3> {
    let (sign, letter) = match s.strip_prefix('-') {
        Some(rest) => (-1.0, rest),
        None => (1.0, s.strip_prefix('+').unwrap_or(s)),
    };
    let k = match letter {
        "x" => 0,
        "y" => 1,
        "z" => 2,
        _ => return None,
    };
    let mut v = [0.0; 3];
    v[k] = sign;
    Some(v)
}

/// `Rz(yaw) Ry(pitch) Rx(roll)` (the URDF convention).
pub(crate) fn rpy_matrix(roll: f64, pitch: f64, yaw: f64) -> M3 {
    let (sr, cr) = roll.sin_cos();
    let (sp, cp) = pitch.sin_cos();
    let (sy, cy) = yaw.sin_cos();
    let rx = [[1.0, 0.0, 0.0], [0.0, cr, -sr], [0.0, sr, cr]];
    let ry = [[cp, 0.0, sp], [0.0, 1.0, 0.0], [-sp, 0.0, cp]];
    let rz = [[cy, -sy, 0.0], [sy, cy, 0.0], [0.0, 0.0, 1.0]];
    mat3::mul(&rz, &mat3::mul(&ry, &rx))
}

// ---------------------------------------------------------------------------------------------
// Writing.

/// Writes a spec in the physical form (`next`, `com`, inertia about the centre of mass) with
/// floats in shortest round-trip form, so that [`parse_spec`] reads back an equal [`Robot`].
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
        let _ = writeln!(s, "mass = {}", float(b.mass));
        let _ = writeln!(s, "com = {}", vec_toml(b.com));
        let _ = writeln!(s, "inertia = {}", inertia_toml(&b.inertia_com));
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
    s
}

/// The signed coordinate-axis letter of `v` (`"x"`, `"-y"`, ...) if it is exactly one.
pub fn axis_letter(v: [f64; 3]) -> Option<&'static str> {
    const NAMES: [[&str; 3]; 2] = [["x", "y", "z"], ["-x", "-y", "-z"]];
    let k = v.iter().position(|c| c.abs() == 1.0)?;
    if (0..3).any(|j| j != k && v[j] != 0.0) {
        return None;
    }
    Some(NAMES[usize::from(v[k] < 0.0)][k])
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

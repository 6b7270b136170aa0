//! Reading an MJCF document as MuJoCo's parser sees it: the XML of the main file with every
//! `<include>` spliced in (an owned element tree whose elements remember their file and line),
//! the `<default>` classes, and attribute values resolved through the classes and parsed as
//! numbers, with located errors.

use std::collections::HashMap;
use std::sync::Arc;

use roxmltree::{Document, Node};

use super::error::{ImportError, Location};

/// Reads an included file given its path (the including file's directory joined with the
/// `file` attribute): its text, or why it cannot be read.
pub type ReadInclude<'r> = dyn Fn(&str) -> Result<String, String> + 'r;

/// Deepest chain of includes read; deeper is taken for a cycle.
const MAX_INCLUDE_DEPTH: usize = 32;

/// Deepest nesting of elements read (the importer walks bodies recursively; MuJoCo itself
/// stops at 1024 levels of bodies).
const MAX_NESTING: usize = 512;

/// An XML element with the includes expanded.
#[derive(Clone, Debug)]
pub(crate) struct Element {
    pub tag: String,
    pub attrs: Vec<(String, String)>,
    pub children: Vec<Element>,
    /// Where the element starts (the file it was written in).
    pub file: Arc<str>,
    pub line: u32,
    pub col: u32,
}

impl Element {
    pub fn at(&self) -> Location {
        Location {
            file: self.file.to_string(),
            line: self.line,
            col: self.col,
        }
    }

    /// The attribute written on the element itself.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The element's children with tag `tag`.
    pub fn children_named<'e>(&'e self, tag: &'e str) -> impl Iterator<Item = &'e Element> + 'e {
        self.children.iter().filter(move |c| c.tag == tag)
    }

    /// How errors name the element: `tag[name]`, or `tag` if it has no name.
    pub fn label(&self) -> String {
        match self.attr("name") {
            Some(name) => format!("{}[{name}]", self.tag),
            None => self.tag.clone(),
        }
    }

    pub fn invalid(&self, field: &str, message: String) -> ImportError {
        ImportError::Invalid {
            at: self.at(),
            what: self.field(field),
            message,
        }
    }

    /// A joint this version cannot express (free, ball).
    pub fn unsupported_joint(&self, field: &str, message: String) -> ImportError {
        ImportError::UnsupportedJoint {
            at: self.at(),
            what: self.field(field),
            message,
        }
    }

    /// Something else not modelled yet (armature, equalities, composite bodies).
    pub fn unsupported(&self, field: &str, message: String) -> ImportError {
        ImportError::Unsupported {
            at: self.at(),
            what: self.field(field),
            message,
        }
    }

    fn field(&self, field: &str) -> String {
        if field.is_empty() {
            self.label()
        } else {
            format!("{}.{field}", self.label())
        }
    }
}

/// Parses `text` (the file `file`) and every file it includes, nested, into one element tree
/// rooted at the main file's `<mujoco>`.
pub(crate) fn read_document(
    text: &str,
    file: &str,
    read: &ReadInclude,
) -> Result<Element, ImportError> {
    let root = parse_file(text, file, read, 0)?;
    if root.tag != "mujoco" {
        return Err(root.invalid(
            "",
            "the root element of an MJCF file must be <mujoco>".to_owned(),
        ));
    }
    Ok(root)
}

fn parse_file(
    text: &str,
    file: &str,
    read: &ReadInclude,
    depth: usize,
) -> Result<Element, ImportError> {
    let doc = Document::parse(text).map_err(|e| {
        let pos = e.pos();
        ImportError::Syntax {
            at: Location {
                file: file.to_owned(),
                line: pos.row,
                col: pos.col,
            },
            what: "xml".to_owned(),
            message: e.to_string().replace(&format!(" at {pos}"), ""),
        }
    })?;
    let source = Source {
        text,
        line_starts: std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect(),
        file: Arc::from(file),
        read,
        depth,
    };
    source.element(doc.root_element(), 0)
}

struct Source<'d, 'r> {
    text: &'d str,
    /// Byte offset of the start of every line, to locate elements without rescanning.
    line_starts: Vec<usize>,
    file: Arc<str>,
    read: &'r ReadInclude<'r>,
    depth: usize,
}

impl Source<'_, '_> {
    /// Line and column (1-based, in characters) of byte `offset`.
    fn position(&self, offset: usize) -> (u32, u32) {
        let line = self.line_starts.partition_point(|&start| start <= offset);
        let start = self.line_starts[line.saturating_sub(1)];
        let col = self
            .text
            .get(start..offset)
            .map_or(0, |s| s.chars().count());
        let to_u32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        (to_u32(line), to_u32(col + 1))
    }

    fn element(&self, node: Node, level: usize) -> Result<Element, ImportError> {
        let (line, col) = self.position(node.range().start);
        if level > MAX_NESTING {
            return Err(ImportError::Invalid {
                at: Location {
                    file: self.file.to_string(),
                    line,
                    col,
                },
                what: node.tag_name().name().to_owned(),
                message: format!("elements nested more than {MAX_NESTING} deep"),
            });
        }
        let mut element = Element {
            tag: node.tag_name().name().to_owned(),
            attrs: node
                .attributes()
                .map(|a| (a.name().to_owned(), a.value().to_owned()))
                .collect(),
            children: Vec::new(),
            file: self.file.clone(),
            line,
            col,
        };
        for child in node.children().filter(Node::is_element) {
            if child.tag_name().name() == "include" {
                let include = self.element(child, level + 1)?;
                element.children.extend(self.included(&include)?);
            } else {
                element.children.push(self.element(child, level + 1)?);
            }
        }
        Ok(element)
    }

    /// The children of the `<mujoco>` root of the file an `<include>` names.
    fn included(&self, include: &Element) -> Result<Vec<Element>, ImportError> {
        let Some(name) = include.attr("file") else {
            return Err(include.invalid("file", "<include> needs a `file` attribute".to_owned()));
        };
        if self.depth >= MAX_INCLUDE_DEPTH {
            return Err(include.invalid(
                "file",
                format!(
                    "includes nested more than {MAX_INCLUDE_DEPTH} deep (a file including itself?)"
                ),
            ));
        }
        let path = relative_to(&self.file, name);
        let text = (self.read)(&path).map_err(|why| {
            include.invalid(
                "file",
                format!("cannot read the included file `{path}`: {why}"),
            )
        })?;
        let root = parse_file(&text, &path, self.read, self.depth + 1)?;
        if root.tag != "mujoco" {
            return Err(root.invalid(
                "",
                "the root element of an included MJCF file must be <mujoco>".to_owned(),
            ));
        }
        Ok(root.children)
    }
}

/// `name` relative to the directory of the file `base` (kept as is if absolute).
fn relative_to(base: &str, name: &str) -> String {
    let absolute = name.starts_with('/') || name.starts_with('\\') || name.get(1..2) == Some(":");
    match base.rfind(['/', '\\']) {
        Some(cut) if !absolute => format!("{}/{name}", &base[..cut]),
        _ => name.to_owned(),
    }
}

/// One attribute value set by a default class, and the `<default>` child that set it.
#[derive(Clone, Debug)]
struct Setting {
    value: String,
    at: Location,
}

/// The attributes a class sets, by element tag (joint, geom, site, motor, ...).
type ClassSettings = HashMap<String, HashMap<String, Setting>>;

/// Every `<default>` class, with what it inherits from the classes around it folded in.
#[derive(Debug, Default)]
pub(crate) struct Defaults {
    classes: HashMap<String, ClassSettings>,
}

/// The class of the top-level `<default>`, which applies to every element.
pub(crate) const MAIN_CLASS: &str = "main";

impl Defaults {
    /// The classes of every top-level `<default>` section of `root`.
    pub fn read(root: &Element) -> Result<Defaults, ImportError> {
        let mut defaults = Defaults::default();
        defaults
            .classes
            .insert(MAIN_CLASS.to_owned(), ClassSettings::new());
        for section in root.children_named("default") {
            if let Some(class) = section.attr("class") {
                if class != MAIN_CLASS {
                    return Err(section.invalid(
                        "class",
                        format!("the top-level <default> is class `{MAIN_CLASS}`, not `{class}`"),
                    ));
                }
            }
            defaults.read_class(section, MAIN_CLASS, None)?;
        }
        Ok(defaults)
    }

    fn read_class(
        &mut self,
        element: &Element,
        name: &str,
        parent: Option<&str>,
    ) -> Result<(), ImportError> {
        let mut settings = match parent {
            Some(parent) => self.classes.get(parent).cloned().unwrap_or_default(),
            None => self.classes.remove(name).unwrap_or_default(),
        };
        if parent.is_some() && self.classes.contains_key(name) {
            return Err(element.invalid("class", format!("default class `{name}` defined twice")));
        }
        let mut nested = Vec::new();
        for child in &element.children {
            if child.tag == "default" {
                nested.push(child);
                continue;
            }
            let tag = settings
                .entry(default_kind(&child.tag).to_owned())
                .or_default();
            for (key, value) in &child.attrs {
                tag.insert(
                    key.clone(),
                    Setting {
                        value: value.clone(),
                        at: child.at(),
                    },
                );
            }
        }
        self.classes.insert(name.to_owned(), settings);
        for child in nested {
            let Some(class) = child.attr("class") else {
                return Err(child.invalid(
                    "class",
                    "a nested <default> needs a `class` attribute".to_owned(),
                ));
            };
            self.read_class(child, class, Some(name))?;
        }
        Ok(())
    }

    /// Whether a class of this name exists.
    pub fn has(&self, class: &str) -> bool {
        self.classes.contains_key(class)
    }

    /// The attributes of `element` with its defaults: its `class`, else `inherited` (the
    /// childclass of the nearest enclosing body or frame that has one), else the main class.
    pub fn attrs<'e>(
        &'e self,
        element: &'e Element,
        inherited: &str,
    ) -> Result<Attrs<'e>, ImportError> {
        self.attrs_as(element, default_kind(&element.tag), inherited)
    }

    /// [`Defaults::attrs`] with the defaults of `kind` (`equality` for the `<joint>` of an
    /// `<equality>`, where the tag alone would read a joint's defaults).
    pub fn attrs_as<'e>(
        &'e self,
        element: &'e Element,
        kind: &str,
        inherited: &str,
    ) -> Result<Attrs<'e>, ImportError> {
        let class = element.attr("class").unwrap_or(inherited);
        let settings = self
            .classes
            .get(class)
            .ok_or_else(|| element.invalid("class", format!("no default class `{class}`")))?;
        Ok(Attrs {
            element,
            defaults: settings.get(kind),
        })
    }
}

/// Under which kind a class keeps the defaults an element of tag `tag` takes: MuJoCo keeps one
/// actuator default per class, whichever shortcut (`motor`, `position`, ...) sets it, and one
/// tendon default for `spatial` and `fixed` tendons.
fn default_kind(tag: &str) -> &str {
    const ACTUATORS: [&str; 12] = [
        "general",
        "motor",
        "position",
        "velocity",
        "intvelocity",
        "damper",
        "cylinder",
        "muscle",
        "adhesion",
        "dcmotor",
        "pid",
        "orientation",
    ];
    if ACTUATORS.contains(&tag) {
        "actuator"
    } else if matches!(tag, "spatial" | "fixed") {
        "tendon"
    } else {
        tag
    }
}

/// An element's attributes, each its own or else its default class's.
#[derive(Clone, Copy)]
pub(crate) struct Attrs<'e> {
    pub element: &'e Element,
    defaults: Option<&'e HashMap<String, Setting>>,
}

/// How many numbers an attribute holds.
#[derive(Clone, Copy)]
pub(crate) enum Count {
    Exactly(usize),
    /// One up to this many (as `size`, whose count depends on the geom type).
    UpTo(usize),
}

impl<'e> Attrs<'e> {
    /// The attributes of `element` without defaults (elements no class applies to).
    pub fn plain(element: &'e Element) -> Attrs<'e> {
        Attrs {
            element,
            defaults: None,
        }
    }

    /// The value of `name` and where it is written.
    pub fn get(&self, name: &str) -> Option<(&'e str, Location)> {
        if let Some(value) = self.element.attr(name) {
            return Some((value, self.element.at()));
        }
        let setting = self.defaults?.get(name)?;
        Some((setting.value.as_str(), setting.at.clone()))
    }

    pub fn str(&self, name: &str) -> Option<&'e str> {
        self.get(name).map(|(value, _)| value)
    }

    fn error(&self, at: Location, name: &str, message: String) -> ImportError {
        ImportError::Invalid {
            at,
            what: format!("{}.{name}", self.element.label()),
            message,
        }
    }

    /// The numbers of `name`, `None` if absent.
    pub fn numbers(&self, name: &str, count: Count) -> Result<Option<Vec<f64>>, ImportError> {
        let Some((text, at)) = self.get(name) else {
            return Ok(None);
        };
        let mut values = Vec::new();
        for word in text.split_whitespace() {
            let value: f64 = word
                .parse()
                .map_err(|_| self.error(at.clone(), name, format!("`{word}` is not a number")))?;
            if !value.is_finite() {
                return Err(ImportError::NotFinite {
                    at,
                    what: format!("{}.{name}", self.element.label()),
                    message: format!("`{word}` is not a finite number"),
                });
            }
            values.push(value);
        }
        let fits = match count {
            Count::Exactly(n) => values.len() == n,
            Count::UpTo(n) => (1..=n).contains(&values.len()),
        };
        if !fits {
            let wanted = match count {
                Count::Exactly(n) => format!("{n}"),
                Count::UpTo(n) => format!("1 to {n}"),
            };
            return Err(self.error(
                at,
                name,
                format!("{wanted} numbers expected, found {}", values.len()),
            ));
        }
        Ok(Some(values))
    }

    /// `N` numbers, `None` if absent.
    pub fn array<const N: usize>(&self, name: &str) -> Result<Option<[f64; N]>, ImportError> {
        Ok(self.numbers(name, Count::Exactly(N))?.map(|v| {
            let mut out = [0.0; N];
            out.copy_from_slice(&v);
            out
        }))
    }

    /// One number, `default` if absent.
    pub fn number(&self, name: &str, default: f64) -> Result<f64, ImportError> {
        Ok(self.array::<1>(name)?.map_or(default, |[x]| x))
    }

    /// A keyword among `allowed`, `None` if absent.
    pub fn keyword(&self, name: &str, allowed: &[&str]) -> Result<Option<&'e str>, ImportError> {
        match self.get(name) {
            None => Ok(None),
            Some((value, _)) if allowed.contains(&value) => Ok(Some(value)),
            Some((value, at)) => Err(self.error(
                at,
                name,
                format!("`{value}` is not one of {}", allowed.join(", ")),
            )),
        }
    }

    /// A boolean (`true`/`false`), `default` if absent.
    pub fn boolean(&self, name: &str, default: bool) -> Result<bool, ImportError> {
        Ok(match self.keyword(name, &["true", "false"])? {
            Some(value) => value == "true",
            None => default,
        })
    }

    /// An error about attribute `name`, located where it is written.
    pub fn invalid(&self, name: &str, message: String) -> ImportError {
        let at = self
            .get(name)
            .map_or_else(|| self.element.at(), |(_, at)| at);
        self.error(at, name, message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn includes_resolve_against_the_including_file() {
        assert_eq!(
            relative_to("models/arm.xml", "parts/a.xml"),
            "models/parts/a.xml"
        );
        assert_eq!(relative_to("arm.xml", "a.xml"), "a.xml");
        assert_eq!(relative_to("models/arm.xml", "/abs/a.xml"), "/abs/a.xml");
    }

    #[test]
    fn classes_inherit_and_override() {
        let xml = r#"<mujoco><default><joint damping="1" axis="1 0 0"/>
            <default class="a"><joint axis="0 1 0"/><default class="b"><geom size="2"/></default></default>
            </default><worldbody><joint class="b"/></worldbody></mujoco>"#;
        let root = read_document(xml, "t.xml", &|_| Err("no files".to_owned())).unwrap();
        let defaults = Defaults::read(&root).unwrap();
        let joint = &root.children[1].children[0];
        let attrs = defaults.attrs(joint, MAIN_CLASS).unwrap();
        assert_eq!(attrs.str("axis"), Some("0 1 0"));
        assert_eq!(attrs.str("damping"), Some("1"));
        assert!(defaults.has("b") && !defaults.has("c"));
    }
}

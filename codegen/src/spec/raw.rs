//! The spec as written: serde structs that mirror the format, each value with its span, so
//! that the validation can locate what it rejects.

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;
use toml::Spanned;

/// The reserved name of the base in `parent` and in a frame's `body`.
pub(super) const BASE_NAME: &str = "base";

pub(super) type Num = Spanned<f64>;
pub(super) type RawVec = Spanned<[Num; 3]>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSpec {
    pub(super) version: Option<Spanned<i64>>,
    pub(super) name: Spanned<String>,
    pub(super) description: Option<String>,
    pub(super) source: Option<String>,
    pub(super) gravity: Option<RawVec>,
    pub(super) base: Option<Spanned<RawBase>>,
    pub(super) symbolic: Option<Spanned<Vec<Spanned<String>>>>,
    pub(super) parameters: Option<Spanned<String>>,
    pub(super) body: Option<Spanned<Vec<Spanned<RawBody>>>>,
    pub(super) tool: Option<Spanned<RawTool>>,
    pub(super) frame: Option<Spanned<Vec<Spanned<RawFrame>>>>,
    pub(super) contact: Option<Spanned<Vec<Spanned<RawContact>>>>,
    pub(super) tendon: Option<Spanned<Vec<Spanned<RawTendon>>>>,
}

/// `[[tendon]]`: a spring and damper on a linear combination of joint coordinates.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTendon {
    pub(super) name: Spanned<String>,
    pub(super) joints: Spanned<Vec<Spanned<String>>>,
    pub(super) coefficients: Spanned<Vec<Num>>,
    pub(super) stiffness: Option<Num>,
    pub(super) damping: Option<Num>,
    pub(super) length: Option<Num>,
}

/// `[[contact]]`: a rigid contact on a named frame.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawContact {
    pub(super) frame: Spanned<String>,
    pub(super) kind: Option<Spanned<String>>,
}

/// `base = [x, y, z]` (the first form) or a `[base]` table.
pub(super) enum RawBase {
    Position(Vec<Num>),
    Table(Box<RawBaseTable>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawBaseTable {
    pub(super) position: Option<RawVec>,
    pub(super) motion: Option<Spanned<String>>,
    pub(super) layout: Option<Spanned<String>>,
    pub(super) translation_only: Option<Spanned<bool>>,
    pub(super) mass: Option<Num>,
    pub(super) com: Option<RawVec>,
    pub(super) inertia: Option<Spanned<RawInertia>>,
    pub(super) armature: Option<Num>,
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
pub(super) struct RawFrame {
    pub(super) name: Spanned<String>,
    pub(super) body: Spanned<String>,
    pub(super) position: Option<RawVec>,
    pub(super) rotation: Option<Spanned<[[Num; 3]; 3]>>,
    pub(super) rpy: Option<RawVec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawBody {
    pub(super) name: Option<Spanned<String>>,
    pub(super) joint: Spanned<RawJoint>,
    pub(super) joint_name: Option<Spanned<String>>,
    pub(super) axis: Spanned<RawDirection>,
    pub(super) next: Option<RawVec>,
    #[serde(rename = "L")]
    pub(super) l: Option<Num>,
    pub(super) e: Option<Spanned<RawDirection>>,
    pub(super) mass: Num,
    pub(super) com: Option<RawVec>,
    pub(super) b: Option<Num>,
    pub(super) a: Option<Spanned<RawDirection>>,
    pub(super) inertia: Option<Spanned<RawInertia>>,
    pub(super) parent: Option<Spanned<String>>,
    pub(super) origin: Option<RawVec>,
    pub(super) symbolic: Option<Spanned<Vec<Spanned<String>>>>,
    pub(super) stiffness: Option<Num>,
    pub(super) damping: Option<Num>,
    pub(super) motor_inertia: Option<Num>,
    pub(super) armature: Option<Num>,
    pub(super) passive: Option<Spanned<RawPassive>>,
    pub(super) flex: Option<Spanned<RawFlex>>,
    pub(super) mimic: Option<Spanned<RawMimic>>,
}

/// `[body.mimic]`: the joint follows another, `q = multiplier * q_joint + offset`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawMimic {
    pub(super) joint: Spanned<String>,
    pub(super) multiplier: Option<Num>,
    pub(super) offset: Option<Num>,
}

/// `[body.passive]`: a spring to a fixed joint position and a damper on the joint's rate.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPassive {
    pub(super) stiffness: Option<Num>,
    pub(super) damping: Option<Num>,
    pub(super) reference: Option<Num>,
}

/// `[body.flex]`: the bending directions and the number of modes of a flexible link.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawFlex {
    pub(super) directions: Spanned<Vec<Spanned<RawDirection>>>,
    pub(super) modes: Option<Spanned<i64>>,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
pub(super) enum RawJoint {
    Revolute,
    Prismatic,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawInertia {
    pub(super) ixx: Option<Num>,
    pub(super) iyy: Option<Num>,
    pub(super) izz: Option<Num>,
    pub(super) ixy: Option<Num>,
    pub(super) ixz: Option<Num>,
    pub(super) iyz: Option<Num>,
    pub(super) about: Option<Spanned<About>>,
    /// `false`: the tensor is taken as given, not checked to be that of a real mass
    /// distribution (published tables and CAD exports that are not).
    pub(super) physical: Option<bool>,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub(super) enum About {
    Com,
    Pole,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTool {
    pub(super) rotation: Option<Spanned<[[Num; 3]; 3]>>,
    pub(super) rpy: Option<RawVec>,
}

/// An axis-like direction: a (signed) coordinate-axis letter or a vector.
pub(super) enum RawDirection {
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

//! Generation of accepted input: a small robot (one to three bodies) drawn from the fuzzer's
//! bytes is written as a spec, read, and generated in Rust and C with the default functions.
//! The spec reader may refuse it (a zero axis, a contact on a prescribed base, ...) and
//! generation may (a singular mass matrix): with an error, never a panic.
#![no_main]

use std::fmt::Write;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use quasidyn_codegen::{c_code, parse_spec, rust_code, COptions};
use quasidyn_fuzz::writes_back;

/// Lengths and coordinates are sixteenths of a metre (angles of a radian), masses sixteenths
/// of a kilogram: exact in binary, so the spec holds exactly the drawn values.
fn num(units: i32) -> String {
    format!("{:?}", f64::from(units) / 16.0)
}

fn vector(v: [i8; 3]) -> String {
    format!(
        "[{}, {}, {}]",
        num(v[0].into()),
        num(v[1].into()),
        num(v[2].into())
    )
}

#[derive(Arbitrary)]
enum Axis {
    X,
    Y,
    Z,
    MinusX,
    MinusY,
    MinusZ,
    /// Normalised when written (the zero vector is refused).
    Vector([i8; 3]),
}

impl Axis {
    fn toml(&self) -> String {
        match self {
            Axis::X => "\"x\"".to_owned(),
            Axis::Y => "\"y\"".to_owned(),
            Axis::Z => "\"z\"".to_owned(),
            Axis::MinusX => "\"-x\"".to_owned(),
            Axis::MinusY => "\"-y\"".to_owned(),
            Axis::MinusZ => "\"-z\"".to_owned(),
            Axis::Vector(v) => {
                let v = v.map(f64::from);
                let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
                let n = if n == 0.0 { 1.0 } else { n };
                format!("[{:?}, {:?}, {:?}]", v[0] / n, v[1] / n, v[2] / n)
            }
        }
    }
}

/// An inertia tensor that is a mass distribution: two point masses and a spin about each axis
/// (`ixx = B + C` and so on); or, unchecked (`physical = false`), any diagonal.
#[derive(Arbitrary)]
struct Inertia {
    points: [([i8; 3], u8); 2],
    spin: [u8; 3],
    physical: bool,
}

impl Inertia {
    fn toml(&self) -> String {
        let s = self.spin.map(|x| f64::from(x) / 256.0);
        let mut i = [[0.0; 3]; 3];
        i[0][0] = s[1] + s[2];
        i[1][1] = s[0] + s[2];
        i[2][2] = s[0] + s[1];
        if !self.physical {
            i[0][0] = -s[0];
        }
        for (r, m) in &self.points {
            let r = r.map(|x| f64::from(x) / 32.0);
            let m = f64::from(*m) / 64.0;
            let rr = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
            for a in 0..3 {
                for b in 0..3 {
                    let delta = if a == b { rr } else { 0.0 };
                    i[a][b] += m * (delta - r[a] * r[b]);
                }
            }
        }
        format!(
            "{{ ixx = {:?}, iyy = {:?}, izz = {:?}, ixy = {:?}, ixz = {:?}, iyz = {:?}{} }}",
            i[0][0],
            i[1][1],
            i[2][2],
            i[0][1],
            i[0][2],
            i[1][2],
            if self.physical {
                ""
            } else {
                ", physical = false"
            }
        )
    }
}

#[derive(Arbitrary)]
struct Elastic {
    stiffness: u8,
    damping: Option<u8>,
    motor_inertia: Option<u8>,
}

#[derive(Arbitrary)]
struct Body {
    prismatic: bool,
    axis: Axis,
    /// `parent % (i + 1)` for body `i` (0-based): itself means the default (the previous
    /// body), 0 the base, else that body.
    parent: u8,
    origin: Option<[i8; 3]>,
    next: [i8; 3],
    mass: u8,
    com: [i8; 3],
    inertia: Option<Inertia>,
    /// Bits: mass, com, inertia kept symbolic.
    symbolic: u8,
    armature: Option<u8>,
    elastic: Option<Elastic>,
    flex: Option<(Axis, bool)>,
}

#[derive(Arbitrary)]
struct Frame {
    body: u8,
    position: [i8; 3],
    rpy: Option<[i8; 3]>,
    /// A contact on this frame: point (false) or 6d (true).
    contact: Option<bool>,
}

#[derive(Arbitrary)]
enum Base {
    Fixed(Option<[i8; 3]>),
    Prescribed {
        translation_only: bool,
    },
    Floating {
        mujoco: bool,
        mass: u8,
        com: [i8; 3],
        inertia: Option<Inertia>,
    },
}

/// Shown (`cargo fuzz fmt generate FILE`, and by libFuzzer with a failing input) as the spec
/// it stands for.
#[derive(Arbitrary)]
struct Small {
    bodies: [Body; 3],
    count: u8,
    gravity: [i8; 3],
    base: Base,
    tool: Option<[i8; 3]>,
    frames: [Option<Frame>; 2],
    symbolic: u8,
    base_parameters: bool,
}

const SYMBOLIC: [&str; 3] = ["mass", "com", "inertia"];

fn symbolic(bits: u8) -> String {
    let words: Vec<_> = (0..3)
        .filter(|b| bits & (1 << b) != 0)
        .map(|b| format!("\"{}\"", SYMBOLIC[b]))
        .collect();
    format!("[{}]", words.join(", "))
}

impl Small {
    fn spec(&self) -> String {
        let count = 1 + usize::from(self.count % 3);
        let mut s = String::from("version = 1\nname = \"small\"\n");
        let _ = writeln!(s, "gravity = {}", vector(self.gravity));
        if self.symbolic & 7 != 0 {
            let _ = writeln!(s, "symbolic = {}", symbolic(self.symbolic));
        }
        if self.base_parameters {
            s.push_str("parameters = \"base\"\n");
        }
        s.push_str("\n[base]\n");
        match &self.base {
            Base::Fixed(position) => {
                if let Some(p) = position {
                    let _ = writeln!(s, "position = {}", vector(*p));
                }
            }
            Base::Prescribed { translation_only } => {
                let _ = writeln!(
                    s,
                    "motion = \"prescribed\"\ntranslation_only = {translation_only}"
                );
            }
            Base::Floating {
                mujoco,
                mass,
                com,
                inertia,
            } => {
                s.push_str("motion = \"floating\"\n");
                if *mujoco {
                    s.push_str("layout = \"mujoco\"\n");
                }
                let _ = writeln!(s, "mass = {}\ncom = {}", num((*mass).into()), vector(*com));
                if let Some(inertia) = inertia {
                    let _ = writeln!(s, "inertia = {}", inertia.toml());
                }
            }
        }
        for (i, body) in self.bodies[..count].iter().enumerate() {
            let _ = write!(
                s,
                "\n[[body]]\nname = \"b{}\"\njoint = \"{}\"\naxis = {}\nnext = {}\nmass = {}\ncom = {}\n",
                i + 1,
                if body.prismatic { "prismatic" } else { "revolute" },
                body.axis.toml(),
                vector(body.next),
                num(body.mass.into()),
                vector(body.com),
            );
            let parent = usize::from(body.parent) % (i + 1);
            if parent != i {
                if parent == 0 {
                    s.push_str("parent = \"base\"\n");
                } else {
                    let _ = writeln!(s, "parent = \"b{parent}\"");
                }
            }
            if let Some(origin) = body.origin {
                let _ = writeln!(s, "origin = {}", vector(origin));
            }
            if let Some(inertia) = &body.inertia {
                let _ = writeln!(s, "inertia = {}", inertia.toml());
            }
            if body.symbolic & 7 != 0 {
                let _ = writeln!(s, "symbolic = {}", symbolic(body.symbolic));
            }
            if let Some(armature) = body.armature {
                let _ = writeln!(s, "armature = {}", num(armature.into()));
            }
            if let Some(elastic) = &body.elastic {
                let _ = writeln!(s, "stiffness = {}", num(i32::from(elastic.stiffness) + 1));
                if let Some(damping) = elastic.damping {
                    let _ = writeln!(s, "damping = {}", num(damping.into()));
                }
                if let Some(motor) = elastic.motor_inertia {
                    let _ = writeln!(s, "motor_inertia = {}", num(i32::from(motor) + 1));
                }
            }
            if let Some((direction, two)) = &body.flex {
                let _ = writeln!(
                    s,
                    "flex = {{ directions = [{}], modes = {} }}",
                    direction.toml(),
                    1 + u8::from(*two)
                );
            }
        }
        if let Some(rpy) = self.tool {
            let _ = write!(s, "\n[tool]\nrpy = {}\n", vector(rpy));
        }
        let mut contacts = String::new();
        for (k, frame) in self.frames.iter().enumerate() {
            let Some(frame) = frame else { continue };
            let body = usize::from(frame.body) % count + 1;
            let _ = write!(
                s,
                "\n[[frame]]\nname = \"f{k}\"\nbody = \"b{body}\"\nposition = {}\n",
                vector(frame.position)
            );
            if let Some(rpy) = frame.rpy {
                let _ = writeln!(s, "rpy = {}", vector(rpy));
            }
            if let Some(six) = frame.contact {
                let kind = if six { "6d" } else { "point" };
                let _ = write!(
                    contacts,
                    "\n[[contact]]\nframe = \"f{k}\"\nkind = \"{kind}\"\n"
                );
            }
        }
        s + &contacts
    }
}

impl std::fmt::Debug for Small {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.spec())
    }
}

fuzz_target!(|small: Small| {
    let spec = small.spec();
    let Ok(robot) = parse_spec(&spec, "small.toml") else {
        return;
    };
    writes_back(&robot);
    // Generation may refuse the robot (a singular mass matrix, ...), with an error.
    if rust_code(&robot, "small").is_ok() {
        c_code(&robot, "small", &COptions::default()).expect("C refused what Rust accepted");
    }
});

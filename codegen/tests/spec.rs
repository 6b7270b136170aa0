//! Spec reader: every rejection is located (line, column, field), every alternative form reads
//! to the same robot, and the writer round-trips.

use approx::assert_relative_eq;
use quasidyn_codegen::{parse_spec, to_toml, JointKind, MethodParams, Robot, SpecError};

/// The planar 3R arm of docs/spec.md.
const PLANAR: &str = r#"version = 1
name = "planar3r"
description = "Planar 3R arm moving in the vertical x-y plane"
gravity = [0.0, -9.81, 0.0]

[[body]]
name = "link1"
joint = "revolute"
axis = "z"
next = [0.5, 0.0, 0.0]
mass = 2.0
com = [0.25, 0.0, 0.0]
inertia = { ixx = 0.001, iyy = 0.0427, izz = 0.0427 }

[[body]]
name = "link2"
joint = "revolute"
axis = "z"
L = 0.4
e = "x"
mass = 1.5
com = [0.2, 0.0, 0.0]
inertia = { ixx = 0.001, iyy = 0.0205, izz = 0.0205 }

[[body]]
name = "link3"
joint = "revolute"
axis = "z"
next = [0.3, 0.0, 0.0]
mass = 1.0
com = [0.15, 0.0, 0.0]
inertia = { ixx = 0.001, iyy = 0.0080, izz = 0.0080 }
"#;

fn parse(text: &str) -> Robot {
    match parse_spec(text, "test.toml") {
        Ok(r) => r,
        Err(e) => panic!("expected a valid spec, got: {e}"),
    }
}

#[track_caller]
fn assert_close(a: &[[f64; 3]; 3], b: &[[f64; 3]; 3], eps: f64) {
    for (ra, rb) in a.iter().zip(b) {
        for (x, y) in ra.iter().zip(rb) {
            assert_relative_eq!(x, y, epsilon = eps);
        }
    }
}

/// Asserts that `text` is rejected at `line:col` on `field` with a message containing `phrase`.
#[track_caller]
fn rejects(text: &str, line: usize, col: usize, field: &str, phrase: &str) -> SpecError {
    let e = match parse_spec(text, "test.toml") {
        Ok(_) => panic!("expected rejection ({field}: {phrase})"),
        Err(e) => e,
    };
    let shown = e.to_string();
    assert_eq!(
        (e.line(), e.column(), e.field()),
        (Some(line), Some(col), Some(field)),
        "location of: {shown}"
    );
    assert!(
        e.message().contains(phrase),
        "message of {shown:?} lacks {phrase:?}"
    );
    assert!(
        shown.starts_with(&format!("test.toml:{line}:{col}: {field}: ")),
        "display: {shown}"
    );
    e
}

/// One body spec with `extra` lines appended to the body table.
fn one_body(extra: &str) -> String {
    format!("name = \"r\"\n[[body]]\njoint = \"revolute\"\naxis = \"z\"\nmass = 1.0\n{extra}")
}

// ----------------------------------------------------------------------------- rejections

#[test]
fn rejects_unknown_top_level_key() {
    rejects(
        "name = \"r\"\ncolour = 3\n",
        2,
        1,
        "colour",
        "unknown key `colour`",
    );
}

#[test]
fn rejects_unknown_body_key() {
    rejects(
        &one_body("masss = 2.0\n"),
        6,
        1,
        "body[1].masss",
        "unknown key `masss`",
    );
}

#[test]
fn rejects_unknown_inertia_key() {
    rejects(
        &one_body("inertia = { ixx = 1.0, iyx = 0.0 }\n"),
        6,
        24,
        "body[1].inertia.iyx",
        "unknown key `iyx`",
    );
}

#[test]
fn rejects_unknown_tool_key() {
    let text = format!(
        "{}\n[tool]\nrpy = [0, 0, 0]\nxyz = [0, 0, 0]\n",
        one_body("")
    );
    rejects(&text, 9, 1, "tool.xyz", "unknown key `xyz`");
}

#[test]
fn rejects_missing_mass() {
    // The second body lacks `mass`; the error points at its `[[body]]` header.
    let text = "name = \"r\"\n[[body]]\njoint = \"revolute\"\naxis = \"z\"\nmass = 1.0\n\
                [[body]]\njoint = \"revolute\"\naxis = \"z\"\n";
    rejects(text, 6, 1, "body[2].mass", "missing required key `mass`");
}

#[test]
fn rejects_missing_name() {
    rejects(
        "[[body]]\njoint = \"revolute\"\naxis = \"z\"\nmass = 1.0\n",
        1,
        1,
        "name",
        "missing required key `name`",
    );
}

#[test]
fn rejects_missing_axis_in_inline_body() {
    let text = "name = \"r\"\nbody = [{ joint = \"revolute\", mass = 1.0 }]\n";
    rejects(text, 2, 9, "body[1].axis", "missing required key `axis`");
}

#[test]
fn rejects_wrong_type_mass() {
    rejects(
        &one_body("").replace("mass = 1.0", "mass = \"heavy\""),
        5,
        8,
        "body[1].mass",
        "expected a number",
    );
}

#[test]
fn rejects_wrong_type_gravity_component() {
    let text = format!("gravity = [0.0, \"down\", 0.0]\n{}", one_body(""));
    rejects(&text, 1, 17, "gravity[2]", "expected a number");
}

#[test]
fn rejects_wrong_length_vector() {
    rejects(
        &one_body("com = [0.1, 0.2]\n"),
        6,
        7,
        "body[1].com",
        "array of 3 numbers",
    );
}

#[test]
fn rejects_wrong_joint_kind() {
    rejects(
        &one_body("").replace("\"revolute\"", "\"spherical\""),
        3,
        9,
        "body[1].joint",
        "revolute",
    );
}

#[test]
fn rejects_wrong_type_axis() {
    rejects(
        &one_body("").replace("axis = \"z\"", "axis = 3"),
        4,
        8,
        "body[1].axis",
        "axis letter",
    );
}

/// A massless body is allowed (Pinocchio allows them); a singular mass matrix is refused when
/// code is generated, not here.
#[test]
fn accepts_zero_mass() {
    let robot = parse(&one_body("").replace("mass = 1.0", "mass = 0.0"));
    assert_eq!(robot.bodies[0].mass, 0.0);
}

#[test]
fn rejects_negative_mass() {
    rejects(
        &one_body("").replace("mass = 1.0", "mass = -1"),
        5,
        8,
        "body[1].mass",
        "mass must not be negative, got -1",
    );
}

#[test]
fn rejects_negative_axial_moment() {
    rejects(
        &one_body("inertia = { ixx = -0.1, iyy = 0.1, izz = 0.1 }\n"),
        6,
        11,
        "body[1].inertia",
        "positive semidefinite",
    );
}

#[test]
fn rejects_inertia_not_psd_by_products() {
    // [[1, 2, 0], [2, 1, 0], [0, 0, 1.5]] has eigenvalue 1 - 2 = -1.
    rejects(
        &one_body("inertia = { ixx = 1.0, iyy = 1.0, izz = 1.5, ixy = 2.0 }\n"),
        6,
        11,
        "body[1].inertia",
        "positive semidefinite",
    );
}

#[test]
fn rejects_triangle_inequality() {
    // 1 + 1 < 3: no mass distribution has these principal moments.
    rejects(
        &one_body("inertia = { ixx = 1.0, iyy = 1.0, izz = 3.0 }\n"),
        6,
        11,
        "body[1].inertia",
        "triangle inequality",
    );
}

/// `physical = false` takes a tensor as given (published tables that violate the triangle
/// inequality); it must still be finite, and the key is a boolean.
#[test]
fn physical_false_takes_an_inertia_as_given() {
    let robot = parse_spec(
        &one_body("inertia = { ixx = 1.0, iyy = 1.0, izz = 3.0, physical = false }\n"),
        "test.toml",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(robot.bodies[0].inertia_com[2][2], 3.0);
    let written = to_toml(&robot);
    assert!(written.contains("physical = false"), "{written}");
    assert_eq!(parse_spec(&written, "written.toml").ok(), Some(robot));
    rejects(
        &one_body("inertia = { ixx = 1.0, iyy = 1.0, izz = 3.0, physical = true }\n"),
        6,
        11,
        "body[1].inertia",
        "`physical = false` takes it as given",
    );
    rejects(
        &one_body("inertia = { ixx = 1e308, iyy = 1.0, izz = 1.0, about = \"pole\", physical = false }\ncom = [1e200, 0.0, 0.0]\n"),
        6,
        11,
        "body[1].inertia",
        "not finite",
    );
    let valid = parse_spec(
        &one_body("inertia = { ixx = 1.0, iyy = 1.0, izz = 1.5 }\n"),
        "t.toml",
    );
    assert!(!to_toml(&valid.expect("valid")).contains("physical"));
}

#[test]
fn rejects_pole_inertia_too_small_for_its_com() {
    // About the pole, a 1 kg body with its centre of mass 1 m away along x has
    // iyy, izz >= 1; 0.5 leaves a negative moment about the centre of mass.
    rejects(
        &one_body("com = [1.0, 0.0, 0.0]\ninertia = { ixx = 0.1, iyy = 0.5, izz = 0.5, about = \"pole\" }\n"),
        7,
        11,
        "body[1].inertia",
        "moving it from the pole",
    );
}

#[test]
fn rejects_nan_mass() {
    rejects(
        &one_body("").replace("mass = 1.0", "mass = nan"),
        5,
        8,
        "body[1].mass",
        "finite",
    );
}

#[test]
fn rejects_inf_com() {
    rejects(
        &one_body("com = [0.0, -inf, 0.0]\n"),
        6,
        13,
        "body[1].com[2]",
        "finite",
    );
}

#[test]
fn rejects_nan_inertia_entry() {
    rejects(
        &one_body("inertia = { ixx = 1.0, ixy = nan }\n"),
        6,
        30,
        "body[1].inertia.ixy",
        "finite",
    );
}

#[test]
fn rejects_inf_gravity() {
    let text = format!("gravity = [0.0, -inf, 0.0]\n{}", one_body(""));
    rejects(&text, 1, 17, "gravity[2]", "finite");
}

#[test]
fn rejects_nan_tool_rpy() {
    let text = format!("{}[tool]\nrpy = [0.0, nan, 0.0]\n", one_body(""));
    rejects(&text, 7, 13, "tool.rpy[2]", "finite");
}

#[test]
fn rejects_zero_axis() {
    rejects(
        &one_body("").replace("axis = \"z\"", "axis = [0, 0, 0]"),
        4,
        8,
        "body[1].axis",
        "zero vector",
    );
}

#[test]
fn rejects_far_from_unit_axis() {
    rejects(
        &one_body("").replace("axis = \"z\"", "axis = [1, 1, 0]"),
        4,
        8,
        "body[1].axis",
        "unit vector",
    );
}

#[test]
fn rejects_unknown_axis_letter() {
    rejects(
        &one_body("").replace("axis = \"z\"", "axis = \"w\""),
        4,
        8,
        "body[1].axis",
        "axis letter",
    );
}

#[test]
fn rejects_far_from_unit_e() {
    rejects(
        &one_body("L = 1.0\ne = [0.0, 2.0, 0.0]\n"),
        7,
        5,
        "body[1].e",
        "unit vector",
    );
}

#[test]
fn rejects_negative_l() {
    rejects(
        &one_body("L = -0.5\ne = \"x\"\n"),
        6,
        5,
        "body[1].L",
        "L >= 0",
    );
}

#[test]
fn rejects_l_without_e() {
    rejects(&one_body("L = 0.5\n"), 6, 5, "body[1].e", "missing `e`");
}

#[test]
fn rejects_duplicate_body_names() {
    let text =
        "name = \"r\"\n[[body]]\nname = \"arm\"\njoint = \"revolute\"\naxis = \"z\"\nmass = 1.0\n\
                [[body]]\nname = \"arm\"\njoint = \"revolute\"\naxis = \"z\"\nmass = 1.0\n";
    rejects(text, 8, 8, "body[2].name", "duplicate body name \"arm\"");
}

#[test]
fn rejects_duplicate_joint_names_with_default() {
    // The first joint is explicitly called q2, which is the default name of the second.
    let text = "name = \"r\"\n[[body]]\njoint_name = \"q2\"\njoint = \"revolute\"\naxis = \"z\"\nmass = 1.0\n\
                [[body]]\njoint = \"revolute\"\naxis = \"z\"\nmass = 1.0\n";
    rejects(
        text,
        7,
        1,
        "body[2].joint_name",
        "duplicate joint name \"q2\"",
    );
}

#[test]
fn rejects_missing_chain() {
    rejects("name = \"r\"\n", 1, 1, "body", "the chain is empty");
}

#[test]
fn rejects_empty_chain() {
    rejects(
        "name = \"r\"\nbody = []\n",
        2,
        8,
        "body",
        "the chain is empty",
    );
}

#[test]
fn rejects_more_than_64_bodies() {
    let mut text = String::from("name = \"long\"\n");
    for _ in 0..65 {
        text.push_str("[[body]]\njoint = \"revolute\"\naxis = \"z\"\nmass = 1.0\n");
    }
    // Body 65 starts on line 2 + 64 * 4.
    let e = rejects(&text, 258, 1, "body[65]", "at most 64");
    assert!(e.message().contains("cube of the number of bodies"), "{e}");
}

#[test]
fn accepts_64_bodies() {
    let mut text = String::from("name = \"long\"\n");
    for _ in 0..64 {
        text.push_str("[[body]]\njoint = \"revolute\"\naxis = \"z\"\nmass = 1.0\n");
    }
    assert_eq!(parse(&text).dof(), 64);
}

#[test]
fn rejects_com_and_method_form() {
    rejects(
        &one_body("com = [0.1, 0.0, 0.0]\nb = 0.1\na = \"x\"\n"),
        7,
        5,
        "body[1].b",
        "either `com` or `b`",
    );
}

#[test]
fn rejects_next_and_l_e() {
    rejects(
        &one_body("next = [0.5, 0.0, 0.0]\nL = 0.5\ne = \"x\"\n"),
        7,
        5,
        "body[1].L",
        "either `next` or `L`",
    );
}

#[test]
fn rejects_method_form_with_inertia_about_com() {
    rejects(
        &one_body(
            "b = 0.1\na = \"x\"\ninertia = { ixx = 0.1, iyy = 0.1, izz = 0.1, about = \"com\" }\n",
        ),
        8,
        54,
        "body[1].inertia.about",
        "about = \"pole\"",
    );
}

/// A one-body spec with a `[base]` table holding `base` (the table must follow the top-level
/// keys).
fn with_base(base: &str) -> String {
    format!(
        "name = \"r\"\n[base]\n{base}[[body]]\njoint = \"revolute\"\naxis = \"z\"\nmass = 1.0\n"
    )
}

/// Two bodies `a` (with `next`) and `b` whose extra keys are `extra_b`.
fn two_bodies(extra_b: &str) -> String {
    format!(
        "name = \"r\"\n[[body]]\nname = \"a\"\njoint = \"revolute\"\naxis = \"z\"\nmass = 1.0\n\
         next = [0.0, 0.0, 0.5]\n[[body]]\nname = \"b\"\njoint = \"revolute\"\naxis = \"x\"\n\
         mass = 1.0\n{extra_b}"
    )
}

#[test]
fn rejects_parent_listed_later_or_unknown() {
    let text = "name = \"r\"\n[[body]]\nname = \"a\"\nparent = \"b\"\njoint = \"revolute\"\n\
                axis = \"z\"\nmass = 1.0\n[[body]]\nname = \"b\"\njoint = \"revolute\"\naxis = \"z\"\n\
                mass = 1.0\n";
    rejects(text, 4, 10, "body[1].parent", "listed before this one");
    rejects(
        &one_body("parent = \"world\"\n"),
        6,
        10,
        "body[1].parent",
        "no body named \"world\"",
    );
}

#[test]
fn rejects_body_carrying_itself() {
    rejects(
        &two_bodies("parent = \"b\"\n"),
        13,
        10,
        "body[2].parent",
        "cannot carry itself",
    );
}

#[test]
fn a_body_named_base_takes_the_name() {
    // Older specs call their first body "base": `parent = "base"` then names that body.
    let text = "name = \"r\"\n[[body]]\nname = \"base\"\njoint = \"revolute\"\naxis = \"z\"\n\
                mass = 1.0\n[[body]]\nname = \"b\"\nparent = \"base\"\njoint = \"revolute\"\n\
                axis = \"x\"\nmass = 1.0\n";
    let r = parse(text);
    assert_eq!(r.bodies[1].parent, Some(0));
    assert!(r.is_chain());
}

#[test]
fn rejects_tool_on_a_tree() {
    let text = format!(
        "{}[tool]\nrpy = [0.0, 0.0, 1.0]\n",
        two_bodies("parent = \"base\"\n")
    );
    rejects(&text, 14, 1, "tool", "declare [[frame]]s on the bodies");
}

#[test]
fn rejects_next_on_a_tree_leaf() {
    // With b on the base, a carries nothing and its `next` is a dangling tool point.
    let text = two_bodies("parent = \"base\"\n");
    rejects(&text, 7, 8, "body[1].next", "declare a [[frame]]");
}

#[test]
fn rejects_unknown_base_motion() {
    rejects(
        &with_base("motion = \"wobbly\"\n"),
        3,
        10,
        "base.motion",
        "unknown base motion",
    );
    rejects(
        &with_base("height = 1.0\n"),
        3,
        1,
        "base.height",
        "unknown key",
    );
}

#[test]
fn floating_base_needs_its_mass() {
    rejects(
        &with_base("motion = \"floating\"\ncom = [0.0, 0.0, 0.1]\n"),
        2,
        1,
        "base.mass",
        "a floating base needs its `mass`",
    );
    rejects(
        &with_base("motion = \"floating\"\nmass = -1.0\n"),
        4,
        8,
        "base.mass",
        "mass must not be negative",
    );
    let r = parse(&with_base(
        "motion = \"floating\"\nmass = 4.0\ncom = [0.1, 0.0, 0.0]\n\
         inertia = { ixx = 0.1, iyy = 0.2, izz = 0.25 }\n",
    ));
    assert!(r.is_floating());
    let body = r.base_body.expect("floating base has its inertia");
    assert_eq!(body.mass, 4.0);
    assert_eq!(body.com, [0.1, 0.0, 0.0]);
    assert_eq!(body.inertia_com[2][2], 0.25);
}

#[test]
fn fixed_base_has_no_inertia() {
    rejects(
        &with_base("mass = 4.0\n"),
        3,
        8,
        "base.mass",
        "only a floating base",
    );
    rejects(
        &with_base("motion = \"fixed\"\ncom = [0.0, 0.0, 0.1]\n"),
        4,
        7,
        "base.com",
        "only a floating base",
    );
}

/// `[base] armature`: a floating base's free joint's, non-negative, nowhere else.
#[test]
fn base_armature_is_a_floating_bases() {
    rejects(
        &with_base("motion = \"floating\"\nmass = 4.0\narmature = -0.1\n"),
        5,
        12,
        "base.armature",
        "armature must not be negative",
    );
    rejects(
        &with_base("motion = \"prescribed\"\narmature = 0.1\n"),
        4,
        12,
        "base.armature",
        "it needs motion = \"floating\"",
    );
    let r = parse(&with_base(
        "motion = \"floating\"\nmass = 4.0\narmature = 0.1\n",
    ));
    assert_eq!(r.base_armature(), 0.1);
    assert!(r.has_armature());
    let again = quasidyn_codegen::parse_spec(&quasidyn_codegen::to_toml(&r), "again.toml");
    assert_eq!(again.expect("the printed spec reads back"), r);
}

#[test]
fn floating_base_refuses_base_parameters() {
    let text = format!(
        "parameters = \"base\"\n{}",
        with_base("motion = \"floating\"\nmass = 4.0\n")
    );
    rejects(
        &text,
        1,
        14,
        "parameters",
        "not available with a moving or floating base",
    );
}

#[test]
fn rejects_bad_frames() {
    let frame = |body: &str, extra: &str| {
        format!(
            "{}[[frame]]\nname = \"tip.0\"\nbody = \"{body}\"\n{extra}",
            one_body("name = \"arm\"\n")
        )
    };
    rejects(
        &frame("hand", ""),
        9,
        8,
        "frame[1].body",
        "no body named \"hand\"",
    );
    rejects(
        &frame("arm", "rpy = [0.0, 0.0, 0.0]\nrotation = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]\n"),
        10,
        7,
        "frame[1].rpy",
        "not both",
    );
    rejects(
        &frame(
            "arm",
            "rotation = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 1.0, 1.0]]\n",
        ),
        10,
        12,
        "frame[1].rotation",
        "orthonormal",
    );
    let twice = format!(
        "{}[[frame]]\nname = \"tip_0\"\nbody = \"arm\"\n",
        frame("arm", "")
    );
    rejects(&twice, 11, 8, "frame[2].name", "same function names");
}

#[test]
fn frames_on_the_base_need_a_floating_base() {
    let on_base = "[[frame]]\nname = \"imu\"\nbody = \"base\"\nposition = [0.1, 0.0, 0.2]\n\
                   rpy = [0.1, 0.2, 0.3]\n";
    // On a fixed or prescribed base such a frame would never move in the base frame.
    rejects(
        &format!("{}{on_base}", one_body("name = \"arm\"\n")),
        9,
        8,
        "frame[1].body",
        "needs a floating base",
    );
    rejects(
        &format!("{}{on_base}", with_base("motion = \"prescribed\"\n")),
        10,
        8,
        "frame[1].body",
        "needs a floating base",
    );
    let floating = format!(
        "{}{on_base}",
        with_base("motion = \"floating\"\nmass = 4.0\n")
    );
    let r = parse(&floating);
    assert_eq!(r.frames[0].body, None);
    assert_eq!(r.frames[0].position, [0.1, 0.0, 0.2]);
    let written = to_toml(&r);
    assert!(written.contains("body = \"base\""), "{written}");
    assert_eq!(parse(&written), r);
    // As in `parent`, a body named "base" takes the name.
    let named = floating.replace("[[body]]\n", "[[body]]\nname = \"base\"\n");
    assert_eq!(parse(&named).frames[0].body, Some(0));
}

#[test]
fn tree_topology_origins_and_method_form() {
    // Body b on the base at an explicit origin, body c on a at a's `next` by default.
    let text = "name = \"r\"\n[base]\nposition = [0.0, 0.0, 0.1]\n\
                [[body]]\nname = \"a\"\njoint = \"revolute\"\naxis = \"z\"\nmass = 2.0\n\
                next = [0.0, 0.0, 0.5]\n\
                [[body]]\nname = \"b\"\nparent = \"base\"\norigin = [1.0, 0.0, 0.0]\n\
                joint = \"revolute\"\naxis = \"x\"\nmass = 1.0\n\
                [[body]]\nname = \"c\"\nparent = \"a\"\njoint = \"prismatic\"\naxis = \"z\"\n\
                mass = 3.0\n";
    let r = parse(text);
    assert!(!r.is_chain());
    assert_eq!(
        r.bodies.iter().map(|b| b.parent).collect::<Vec<_>>(),
        vec![None, None, Some(0)]
    );
    assert_eq!(r.bodies[0].origin, [0.0, 0.0, 0.1]);
    assert_eq!(r.bodies[1].origin, [1.0, 0.0, 0.0]);
    assert_eq!(r.bodies[2].origin, [0.0, 0.0, 0.5]);
    let topo = r.topology();
    assert_eq!(topo.roots(), vec![0, 1]);
    assert_eq!(topo.children(0), &[2]);
    assert!(topo.related(0, 2) && !topo.related(1, 2));
    // Method form on a: b a = m_oa com_a + m_c origin_c, so b = 3 * 0.5 gives com_a = 0.
    let method = text.replace(
        "mass = 2.0\nnext",
        "mass = 2.0\nb = 1.5\na = \"z\"\ninertia = { ixx = 0.1, iyy = 0.1, izz = 0.1, about = \"pole\" }\nnext",
    );
    let m = parse(&method);
    for x in m.bodies[0].com {
        assert!(x.abs() < 1e-15, "com {:?}", m.bodies[0].com);
    }
    let p = MethodParams::from_robot(&r);
    assert_relative_eq!(p.bodies[0].m, 5.0);
    assert_relative_eq!(p.bodies[0].b_a[2], 1.5);
    // The writer round-trips trees, origins and frames.
    let with_frame =
        format!("{text}[[frame]]\nname = \"c tip\"\nbody = \"c\"\nposition = [0.0, 0.0, 0.2]\n");
    let r = parse(&with_frame);
    assert_eq!(parse(&to_toml(&r)), r);
    assert_eq!(r.frames[0].ident(), "c_tip");
}

#[test]
fn base_table_is_the_base_key() {
    let a = parse(&format!("base = [0.1, 0.2, 0.3]\n{}", one_body("")));
    let b = parse(&with_base(
        "position = [0.1, 0.2, 0.3]\nmotion = \"fixed\"\n",
    ));
    assert_eq!(a, b);
    assert_eq!(a.bodies[0].origin, [0.1, 0.2, 0.3]);
}

#[test]
fn rejects_non_orthonormal_tool_rotation() {
    let text = format!(
        "{}[tool]\nrotation = [[1, 0, 0], [0, 1, 0.1], [0, 0, 1]]\n",
        one_body("")
    );
    rejects(&text, 7, 12, "tool.rotation", "orthonormal");
}

#[test]
fn rejects_reflection_as_tool_rotation() {
    let text = format!(
        "{}[tool]\nrotation = [[1, 0, 0], [0, 1, 0], [0, 0, -1]]\n",
        one_body("")
    );
    rejects(&text, 7, 12, "tool.rotation", "determinant +1");
}

#[test]
fn rejects_rotation_and_rpy() {
    let text = format!(
        "{}[tool]\nrotation = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]\nrpy = [0, 0, 0]\n",
        one_body("")
    );
    rejects(&text, 8, 7, "tool.rpy", "either `rotation` or `rpy`");
}

#[test]
fn rejects_unsupported_version() {
    rejects(
        &format!("version = 2\n{}", one_body("")),
        1,
        11,
        "version",
        "expected 1",
    );
}

#[test]
fn rejects_unknown_symbolic_word() {
    rejects(
        &one_body("symbolic = [\"mass\", \"length\"]\n"),
        6,
        21,
        "body[1].symbolic[2]",
        "\"inertia\"",
    );
}

#[test]
fn rejects_syntax_error() {
    let e = rejects("name = \"r\"\nmass = = 1\n", 2, 8, "mass", "");
    assert!(!e.message().is_empty());
}

#[test]
fn duplicate_key_is_located_in_its_table() {
    let text = format!("{}mass = 2.0\n", one_body(""));
    rejects(&text, 6, 1, "body[1].mass", "duplicate key");
}

#[test]
fn key_without_value_is_named() {
    let text = format!("{}[tool]\nrpy\n", one_body(""));
    let e = parse_spec(&text, "test.toml").unwrap_err();
    assert_eq!((e.line(), e.field()), (Some(7), Some("tool.rpy")), "{e}");
}

#[test]
fn io_error_names_the_file() {
    let e = quasidyn_codegen::load_spec(std::path::Path::new("no/such/spec.toml")).unwrap_err();
    assert!(matches!(e, SpecError::Io { .. }));
    assert!(e.to_string().contains("no/such/spec.toml"), "{e}");
    assert_eq!(e.line(), None);
}

// ----------------------------------------------------------------------------- accepted forms

#[test]
fn planar_example_reads() {
    let r = parse(PLANAR);
    assert_eq!(r.name, "planar3r");
    assert_eq!(r.dof(), 3);
    assert_eq!(r.gravity, [0.0, -9.81, 0.0]);
    assert_eq!(r.base, [0.0; 3]);
    assert_eq!(r.bodies[1].next, [0.4, 0.0, 0.0]);
    assert_eq!(r.bodies[2].inertia_com[2][2], 0.008);
    assert_eq!(r.bodies[0].joint, JointKind::Revolute);
}

/// Every complete example in docs/spec.md (a TOML block with a `name`) is a valid spec.
#[test]
fn docs_examples_parse() {
    let doc = include_str!("../../docs/spec.md");
    let mut found = 0;
    for block in doc.split("```toml\n").skip(1) {
        let block = block.split("```").next().unwrap_or_default();
        if block.contains("\nname = ") {
            parse(block);
            found += 1;
        }
    }
    assert!(found >= 1);
}

#[test]
fn defaults_fill_names_gravity_base_tool() {
    let r = parse(&one_body(""));
    assert_eq!(r.bodies[0].name, "body1");
    assert_eq!(r.bodies[0].joint_name, "q1");
    assert_eq!(r.gravity, [0.0, -9.81, 0.0]);
    assert_eq!(r.base, [0.0; 3]);
    assert_eq!(
        r.tool_rotation,
        [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    );
    assert_eq!(r.bodies[0].com, [0.0; 3]);
    assert_eq!(r.bodies[0].next, [0.0; 3]);
    assert_eq!(r.bodies[0].inertia_com, [[0.0; 3]; 3]);
}

#[test]
fn integers_are_accepted_as_numbers() {
    let r = parse(&one_body("next = [1, 0, 0]\n").replace("mass = 1.0", "mass = 3"));
    assert_eq!(r.bodies[0].mass, 3.0);
    assert_eq!(r.bodies[0].next, [1.0, 0.0, 0.0]);
}

#[test]
fn axis_letters_and_vectors() {
    let r = parse(&one_body("").replace("axis = \"z\"", "axis = \"-y\""));
    assert_eq!(r.bodies[0].axis, [0.0, -1.0, 0.0]);
    // Length 1.0005: within the tolerance, so normalised to (0, 0.6, 0.8).
    let r = parse(&one_body("").replace("axis = \"z\"", "axis = [0, 0.6003, 0.8004]"));
    let a = r.bodies[0].axis;
    assert_relative_eq!(a[1], 0.6, epsilon = 1e-12);
    assert_relative_eq!(a[2], 0.8, epsilon = 1e-12);
    assert_eq!(a[0], 0.0);
}

#[test]
fn l_e_equals_next() {
    let a = parse(&one_body("next = [0.0, 0.3, 0.4]\n"));
    let b = parse(&one_body("L = 0.5\ne = [0.0, 0.6, 0.8]\n"));
    for k in 0..3 {
        assert_relative_eq!(a.bodies[0].next[k], b.bodies[0].next[k], epsilon = 1e-15);
    }
}

/// Two bodies; body 1 in the method form. By hand: m_o1 = 2, m_2 = 1, L_1 e_1 = (0.5, 0, 0),
/// b_1 a_1 = (0.6, 0.8, 0), so O_1C_1 = ((0.6, 0.8, 0) - 1 * (0.5, 0, 0)) / 2 = (0.05, 0.4, 0).
/// Its inertia about C_1 is diag(0.01, 0.02, 0.03); about the pole it adds
/// m (|c|² E - c cᵀ) with |c|² = 0.1625: xx 2(0.1625 - 0.0025) = 0.32, yy 2(0.1625 - 0.16) =
/// 0.005, zz 0.325, xy -2(0.05)(0.4) = -0.04.
const METHOD_FORM: &str = r#"name = "m"
[[body]]
joint = "revolute"
axis = "z"
next = [0.5, 0, 0]
mass = 2.0
b = 1.0
a = [0.6, 0.8, 0]
inertia = { ixx = 0.33, iyy = 0.025, izz = 0.355, ixy = -0.04, about = "pole" }

[[body]]
joint = "revolute"
axis = "z"
mass = 1.0
"#;

#[test]
fn method_form_recovers_com_and_com_inertia() {
    let r = parse(METHOD_FORM);
    let b = &r.bodies[0];
    assert_relative_eq!(b.com[0], 0.05, epsilon = 1e-12);
    assert_relative_eq!(b.com[1], 0.4, epsilon = 1e-12);
    assert_relative_eq!(b.com[2], 0.0, epsilon = 1e-12);
    let want = [[0.01, 0.0, 0.0], [0.0, 0.02, 0.0], [0.0, 0.0, 0.03]];
    assert_close(&b.inertia_com, &want, 1e-12);
    // And the parameters give back b and a.
    let p = MethodParams::from_robot(&r);
    assert_relative_eq!(p.bodies[0].b, 1.0, epsilon = 1e-12);
    assert_relative_eq!(p.bodies[0].a[0], 0.6, epsilon = 1e-12);
    assert_relative_eq!(p.bodies[0].a[1], 0.8, epsilon = 1e-12);
}

#[test]
fn inertia_about_pole_is_moved_to_com() {
    // 1 kg, C at (0.2, 0, 0): iyy, izz about the pole exceed those about C by 1 * 0.2² = 0.04.
    let r = parse(&one_body(
        "com = [0.2, 0, 0]\ninertia = { ixx = 0.001, iyy = 0.05, izz = 0.05, about = \"pole\" }\n",
    ));
    let t = r.bodies[0].inertia_com;
    assert_relative_eq!(t[0][0], 0.001, epsilon = 1e-15);
    assert_relative_eq!(t[1][1], 0.01, epsilon = 1e-15);
    assert_relative_eq!(t[2][2], 0.01, epsilon = 1e-15);
}

#[test]
fn tool_rpy_matches_rotation_matrix() {
    // roll = 90°, yaw = 90°: Rz(90°) Rx(90°) maps x -> y, y -> z, z -> x, i.e. the rows
    // [[0, 0, 1], [1, 0, 0], [0, 1, 0]].
    let h = std::f64::consts::FRAC_PI_2;
    let a = parse(&format!(
        "{}[tool]\nrpy = [{h:?}, 0.0, {h:?}]\n",
        one_body("")
    ));
    let b = parse(&format!(
        "{}[tool]\nrotation = [[0, 0, 1], [1, 0, 0], [0, 1, 0]]\n",
        one_body("")
    ));
    for i in 0..3 {
        for j in 0..3 {
            assert_relative_eq!(
                a.tool_rotation[i][j],
                b.tool_rotation[i][j],
                epsilon = 1e-15
            );
        }
    }
    // Pitch alone: Ry(p) has row 0 = (cos p, 0, sin p).
    let c = parse(&format!("{}[tool]\nrpy = [0.0, 0.3, 0.0]\n", one_body("")));
    assert_relative_eq!(c.tool_rotation[0][2], 0.3f64.sin(), epsilon = 1e-15);
    assert_relative_eq!(c.tool_rotation[2][0], -(0.3f64.sin()), epsilon = 1e-15);
}

#[test]
fn symbolic_marking_combines_top_level_and_body() {
    let text = "name = \"r\"\nsymbolic = [\"mass\"]\n\
                [[body]]\njoint = \"revolute\"\naxis = \"z\"\nmass = 1.0\nsymbolic = [\"inertia\", \"com\"]\n\
                [[body]]\njoint = \"prismatic\"\naxis = \"x\"\nmass = 1.0\n";
    let r = parse(text);
    let s0 = r.bodies[0].symbolic;
    let s1 = r.bodies[1].symbolic;
    assert!(s0.mass && s0.com && s0.inertia);
    assert!(s1.mass && !s1.com && !s1.inertia);
    assert_eq!(r.bodies[1].joint, JointKind::Prismatic);
    assert_eq!(parse(&one_body("")).bodies[0].symbolic, Default::default());
}

#[test]
fn parent_naming_previous_body_is_accepted() {
    let text =
        "name = \"r\"\n[[body]]\nname = \"a\"\njoint = \"revolute\"\naxis = \"z\"\nmass = 1.0\n\
                [[body]]\nparent = \"a\"\njoint = \"revolute\"\naxis = \"z\"\nmass = 1.0\n";
    assert_eq!(parse(text).dof(), 2);
}

/// Product-of-inertia sign. Two 1 kg point masses at (1, 1, 0) and (2, 2, 0) from the pole:
/// C = (1.5, 1.5, 0), m = 2. About the pole, ixy = -Σ m x y = -(1 + 4) = -5,
/// ixx = iyy = Σ m (y² + z²) = 5, izz = Σ m (x² + y²) = 10. About C the masses sit at
/// ±(0.5, 0.5, 0): ixx = iyy = 0.5, izz = 1, ixy = -2 (0.25) = -0.5.
#[test]
fn product_of_inertia_sign_convention() {
    let about_com = "name = \"r\"\n[[body]]\njoint = \"revolute\"\naxis = \"z\"\nmass = 2.0\n\
                     com = [1.5, 1.5, 0]\ninertia = { ixx = 0.5, iyy = 0.5, izz = 1.0, ixy = -0.5 }\n";
    let r = parse(about_com);
    let p = MethodParams::from_robot(&r);
    let b = &p.bodies[0];
    assert_relative_eq!(b.inertia_pole[0][1], -5.0, epsilon = 1e-12);
    assert_relative_eq!(b.i_xy, 5.0, epsilon = 1e-12); // the papers' I^xy = ∫xy dm
    assert_relative_eq!(b.i_x, 5.0, epsilon = 1e-12);
    assert_relative_eq!(b.i_z, 10.0, epsilon = 1e-12);

    let about_pole = about_com.replace(
        "{ ixx = 0.5, iyy = 0.5, izz = 1.0, ixy = -0.5 }",
        "{ ixx = 5, iyy = 5, izz = 10, ixy = -5, about = \"pole\" }",
    );
    let r = parse(&about_pole);
    assert_relative_eq!(r.bodies[0].inertia_com[0][1], -0.5, epsilon = 1e-12);
    assert_relative_eq!(r.bodies[0].inertia_com[1][0], -0.5, epsilon = 1e-12);

    // With the papers' sign (ixy = +5) the tensor about C would be [[0.5, 9.5], [9.5, 0.5]],
    // which no mass distribution has.
    let wrong = about_pole.replace("ixy = -5", "ixy = 5");
    rejects(&wrong, 7, 11, "body[1].inertia", "positive semidefinite");
}

/// The papers' parameters on a 2-body arm, by hand:
/// body 1: m_o1 = 2, next = (0.5, 0, 0), C_1 = (0.25, 0, 0), J_C = diag(0.001, 0.04, 0.04);
/// body 2: m_o2 = 1, next = (0, 0, 0.3), C_2 = (0, 0, 0.1), J_C with ixx = iyy = 0.01,
/// izz = 0.002, ixz = 0.001.
/// m_1 = 3, m_2 = 1; L_1 = 0.5, e_1 = x; L_2 = 0.3, e_2 = z; p_1 = L_1 m_2 = 0.5, p_2 = 0.
/// b_1 a_1 = 2 (0.25, 0, 0) + 1 (0.5, 0, 0) = (1, 0, 0): b_1 = 1, a_1 = x.
/// b_2 a_2 = 1 (0, 0, 0.1) + 0 = (0, 0, 0.1): b_2 = 0.1, a_2 = z.
/// Pole inertia 1: + 2 (0.0625 E - c cᵀ) = diag(0, 0.125, 0.125): I^x = 0.001, I^y = I^z = 0.165.
/// Pole inertia 2: + 1 (0.01 E - c cᵀ) = diag(0.01, 0.01, 0): I^x = I^y = 0.02, I^z = 0.002,
/// I^xz = -ixz = -0.001.
#[test]
fn method_parameters_two_bodies() {
    let text = r#"name = "two"
[[body]]
joint = "revolute"
axis = "z"
next = [0.5, 0, 0]
mass = 2
com = [0.25, 0, 0]
inertia = { ixx = 0.001, iyy = 0.04, izz = 0.04 }

[[body]]
joint = "revolute"
axis = "y"
next = [0, 0, 0.3]
mass = 1
com = [0, 0, 0.1]
inertia = { ixx = 0.01, iyy = 0.01, izz = 0.002, ixz = 0.001 }
"#;
    let p = MethodParams::from_robot(&parse(text));
    let (b1, b2) = (&p.bodies[0], &p.bodies[1]);
    let eps = 1e-12;
    assert_eq!((b1.axis_name.as_str(), b2.axis_name.as_str()), ("z", "y"));
    assert_relative_eq!(b1.m_o, 2.0, epsilon = eps);
    assert_relative_eq!(b1.m, 3.0, epsilon = eps);
    assert_relative_eq!(b2.m, 1.0, epsilon = eps);
    assert_relative_eq!(b1.l, 0.5, epsilon = eps);
    assert_relative_eq!(b2.l, 0.3, epsilon = eps);
    assert_eq!(b1.e, [1.0, 0.0, 0.0]);
    assert_eq!(b2.e, [0.0, 0.0, 1.0]);
    assert_relative_eq!(b1.p, 0.5, epsilon = eps);
    assert_eq!(b2.p, 0.0);
    assert_relative_eq!(b1.b, 1.0, epsilon = eps);
    assert_eq!(b1.a, [1.0, 0.0, 0.0]);
    assert_relative_eq!(b2.b, 0.1, epsilon = eps);
    assert_eq!(b2.a, [0.0, 0.0, 1.0]);
    assert_relative_eq!(b1.i_x, 0.001, epsilon = eps);
    assert_relative_eq!(b1.i_y, 0.165, epsilon = eps);
    assert_relative_eq!(b1.i_z, 0.165, epsilon = eps);
    assert_relative_eq!(b2.i_x, 0.02, epsilon = eps);
    assert_relative_eq!(b2.i_y, 0.02, epsilon = eps);
    assert_relative_eq!(b2.i_z, 0.002, epsilon = eps);
    assert_relative_eq!(b2.i_xz, -0.001, epsilon = eps);
    assert_eq!((b2.i_xy, b2.i_yz), (0.0, 0.0));

    let table = p.to_string();
    for needle in ["m_o [kg]", "I^xz", "0.165", "-0.001"] {
        assert!(table.contains(needle), "{needle} missing from\n{table}");
    }
}

#[test]
fn zero_b_and_l_give_zero_directions() {
    let p = MethodParams::from_robot(&parse(&one_body("")));
    assert_eq!((p.bodies[0].b, p.bodies[0].a), (0.0, [0.0; 3]));
    assert_eq!((p.bodies[0].l, p.bodies[0].e), (0.0, [0.0; 3]));
}

#[test]
fn generic_axis_is_named_by_direction_cosines() {
    let p = MethodParams::from_robot(&parse(
        &one_body("").replace("axis = \"z\"", "axis = [0.6, 0, -0.8]"),
    ));
    assert_eq!(p.bodies[0].axis_name, "(0.6, 0, -0.8)");
}

// ----------------------------------------------------------------------------- writing

#[track_caller]
fn round_trips(r: &Robot) {
    let text = to_toml(r);
    let back = match parse_spec(&text, "written.toml") {
        Ok(b) => b,
        Err(e) => panic!("written spec does not parse: {e}\n{text}"),
    };
    assert_eq!(&back, r, "\n{text}");
}

#[test]
fn to_toml_round_trips() {
    round_trips(&parse(PLANAR));
    round_trips(&parse(METHOD_FORM));
    let mut odd = parse(&format!(
        "symbolic = [\"com\"]\nbase = [0.1, 0.2, 0.3]\ngravity = [0, 0, -9.81]\n{}[tool]\nrpy = [0.1, 0.2, 0.3]\n",
        one_body("").replace("axis = \"z\"", "axis = [0.3, 0.4, 0.866]")
    ));
    odd.description = Some("quotes \" and \\ and\nnewlines".to_owned());
    odd.source = Some("S000 §3.2".to_owned());
    odd.bodies[0].mass = 1.0 / 3.0;
    odd.bodies[0].com = [1e-17, -2.5e10, 0.1 + 0.2];
    round_trips(&odd);
}

// ----------------------------------------------------------------------------- mimic joints

/// Two bodies on the base, the second with `extra` lines (its `mimic`).
fn follower(extra: &str) -> String {
    format!(
        "name = \"r\"\n[[body]]\njoint_name = \"a\"\njoint = \"revolute\"\naxis = \"z\"\n\
         mass = 1.0\n[[body]]\njoint_name = \"b\"\njoint = \"prismatic\"\naxis = \"x\"\n\
         mass = 1.0\nparent = \"base\"\n{extra}"
    )
}

#[test]
fn a_mimic_joint_follows_another_and_reads_back() {
    let robot = parse(&follower(
        "mimic = { joint = \"a\", multiplier = -0.5, offset = 0.1 }",
    ));
    assert_eq!(
        robot.bodies[1].mimic,
        Some(quasidyn_codegen::Mimic {
            master: 0,
            multiplier: -0.5,
            offset: 0.1,
        })
    );
    assert_eq!(robot.coordinate_joints(), [0]);
    assert_eq!(robot.joint_coordinates(), [(0, 1.0), (0, -0.5)]);
    assert_eq!(parse(&to_toml(&robot)), robot);
    // The multiplier defaults to 1 and the offset to 0.
    let plain = parse(&follower("mimic = { joint = \"a\" }"));
    let m = plain.bodies[1].mimic.expect("follows");
    assert_eq!((m.multiplier, m.offset), (1.0, 0.0));
}

#[test]
fn rejects_bad_mimic_joints() {
    rejects(
        &follower("mimic = { joint = \"c\" }"),
        13,
        19,
        "body[2].mimic.joint",
        "no joint named \"c\" to follow",
    );
    rejects(
        &follower("mimic = { joint = \"b\" }"),
        13,
        19,
        "body[2].mimic.joint",
        "cannot follow itself",
    );
    rejects(
        &follower("mimic = { joint = \"a\", multiplier = 0.0 }"),
        13,
        9,
        "body[2].mimic.multiplier",
        "lock it instead",
    );
    let chained = format!(
        "{}[[body]]\njoint_name = \"c\"\njoint = \"revolute\"\naxis = \"y\"\nmass = 1.0\n\
         parent = \"base\"\nmimic = {{ joint = \"b\" }}\n",
        follower("mimic = { joint = \"a\" }\n")
    );
    rejects(
        &chained,
        20,
        19,
        "body[3].mimic.joint",
        "follows another joint itself",
    );
}

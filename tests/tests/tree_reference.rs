//! Both numeric reference models against the Pinocchio fixtures of the tree robots, at 1e-9
//! relative, on every function they have: inverse and forward dynamics, gravity, nonlinear
//! effects, mass matrix, kinetic energy, static joint reactions, the seed-001 split, and every
//! frame's pose and Jacobian.
//!
//! The tree specs wait in `tests/fixtures/trees/` until every part of the generator reads
//! trees. Until the spec parser reads `parent`, `origin`, `[base]` and `[[frame]]`, this test
//! builds the runtime tree with its own minimal reading of those specs (the format of the tree
//! design: physical or method form, inertia about the CoM or the pole, frames by `rotation` rows
//! or `rpy`).

use std::path::PathBuf;

use quasidyn::reference::{NewtonEulerModel, QuasiVelocityModel, ReferenceModel};
use quasidyn::{Frame, JointKind, Tree, TreeBody};
use quasidyn_tests::{assert_close, flat, load_fixture, workspace_root};
use toml::{Table, Value};

const REL: f64 = 1e-9;

/// Every tree spec, sorted by file name.
fn tree_specs() -> Vec<PathBuf> {
    let dir = workspace_root().join("tests/fixtures/trees");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/fixtures/trees exists")
        .map(|entry| entry.expect("readable entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
        .collect();
    paths.sort();
    paths
}

fn number(v: &Value) -> f64 {
    match v {
        Value::Float(x) => *x,
        Value::Integer(k) => *k as f64,
        other => panic!("expected a number, got {other}"),
    }
}

fn vec3(v: &Value) -> [f64; 3] {
    let a = v.as_array().expect("[x, y, z]");
    assert_eq!(a.len(), 3, "[x, y, z]");
    [number(&a[0]), number(&a[1]), number(&a[2])]
}

/// An axis letter (`"x"`, `"-y"`, `"+z"`) or a vector, normalised.
fn unit(v: &Value) -> [f64; 3] {
    if let Some(s) = v.as_str() {
        let (sign, letter) = match s.strip_prefix('-') {
            Some(rest) => (-1.0, rest),
            None => (1.0, s.trim_start_matches('+')),
        };
        let mut a = [0.0; 3];
        a["xyz".find(letter).expect("axis letter")] = sign;
        return a;
    }
    let a = vec3(v);
    let n = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
    [a[0] / n, a[1] / n, a[2] / n]
}

fn get<'a>(t: &'a Table, key: &str) -> Option<&'a Value> {
    t.get(key)
}

/// URDF roll-pitch-yaw: `Rz(y) Ry(p) Rx(r)`.
fn rpy(r: f64, p: f64, y: f64) -> [[f64; 3]; 3] {
    let ((sr, cr), (sp, cp), (sy, cy)) = (r.sin_cos(), p.sin_cos(), y.sin_cos());
    [
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ]
}

/// The runtime tree of a tree spec (see the module docs).
fn read_tree(path: &PathBuf) -> (String, Tree) {
    let text = std::fs::read_to_string(path).expect("readable spec");
    let doc: Table = toml::from_str(&text).expect("valid TOML");
    let name = doc["name"].as_str().expect("name").to_string();
    let gravity = get(&doc, "gravity").map_or([0.0, -9.81, 0.0], vec3);
    let base = match get(&doc, "base") {
        None => [0.0; 3],
        Some(Value::Table(t)) => {
            let motion = get(t, "motion").map_or("fixed", |m| m.as_str().expect("motion"));
            assert_eq!(motion, "fixed", "only a fixed base is read here");
            get(t, "position").map_or([0.0; 3], vec3)
        }
        Some(v) => vec3(v),
    };
    let raw: Vec<&Table> = doc["body"]
        .as_array()
        .expect("[[body]]")
        .iter()
        .map(|b| b.as_table().expect("[[body]] table"))
        .collect();
    let names: Vec<String> = raw
        .iter()
        .enumerate()
        .map(|(i, b)| {
            get(b, "name").map_or(format!("body{}", i + 1), |v| v.as_str().unwrap().into())
        })
        .collect();
    let index = |n: &str| names.iter().position(|x| x == n).expect("known body");
    let next: Vec<[f64; 3]> = raw
        .iter()
        .map(|b| {
            assert!(
                get(b, "L").is_none(),
                "L/e: not read by this minimal reader"
            );
            get(b, "next").map_or([0.0; 3], vec3)
        })
        .collect();
    let mut bodies: Vec<TreeBody> = Vec::new();
    let mut about_pole = Vec::new();
    for (i, b) in raw.iter().enumerate() {
        let parent = match get(b, "parent").map(|v| v.as_str().unwrap()) {
            Some("base") => None,
            Some(p) => Some(index(p)),
            None => i.checked_sub(1),
        };
        let origin = match (get(b, "origin"), parent) {
            (Some(v), _) => vec3(v),
            (None, Some(p)) => next[p],
            (None, None) => base,
        };
        let joint = match b["joint"].as_str() {
            Some("revolute") => JointKind::Revolute,
            Some("prismatic") => JointKind::Prismatic,
            other => panic!("joint {other:?}"),
        };
        let it = get(b, "inertia").and_then(Value::as_table);
        let entry = |k: &str| it.and_then(|t| get(t, k)).map_or(0.0, number);
        let tensor = [
            [entry("ixx"), entry("ixy"), entry("ixz")],
            [entry("ixy"), entry("iyy"), entry("iyz")],
            [entry("ixz"), entry("iyz"), entry("izz")],
        ];
        about_pole.push(it.and_then(|t| get(t, "about")).and_then(Value::as_str) == Some("pole"));
        bodies.push(TreeBody {
            parent,
            joint,
            axis: unit(&b["axis"]),
            origin,
            mass: number(&b["mass"]),
            // The method form (b, a) is resolved below, once every subsystem mass is known.
            com: get(b, "com").map_or([0.0; 3], vec3),
            // Moved to the centre of mass below when given about the pole.
            inertia_com: tensor,
        });
    }
    let n = bodies.len();
    let mut m_sub: Vec<f64> = bodies.iter().map(|b| b.mass).collect();
    for i in (0..n).rev() {
        if let Some(p) = bodies[i].parent {
            m_sub[p] += m_sub[i];
        }
    }
    for (i, b) in raw.iter().enumerate() {
        if let Some(bv) = get(b, "b") {
            // b a = m_oi com + Σ_children m_c origin_c.
            let a = unit(&b["a"]);
            let mut first = [number(bv) * a[0], number(bv) * a[1], number(bv) * a[2]];
            for (c, child) in bodies.iter().enumerate().skip(i + 1) {
                if child.parent == Some(i) {
                    for (f, o) in first.iter_mut().zip(child.origin) {
                        *f -= m_sub[c] * o;
                    }
                }
            }
            let m = bodies[i].mass;
            bodies[i].com = [first[0] / m, first[1] / m, first[2] / m];
        }
        if about_pole[i] {
            // I_C = I_O - m (|c|² 1 - c cᵀ).
            let body = &mut bodies[i];
            let c = body.com;
            let cc = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
            for (r, row) in body.inertia_com.iter_mut().enumerate() {
                for (k, entry) in row.iter_mut().enumerate() {
                    let delta = if r == k { cc } else { 0.0 };
                    *entry -= body.mass * (delta - c[r] * c[k]);
                }
            }
        } else {
            assert!(
                get(b, "b").is_none(),
                "the method form needs about = \"pole\""
            );
        }
    }
    let frames = doc
        .get("frame")
        .and_then(Value::as_array)
        .map_or(&[][..], |a| a.as_slice())
        .iter()
        .map(|f| {
            let f = f.as_table().expect("[[frame]] table");
            let rotation = match (get(f, "rotation"), get(f, "rpy")) {
                (Some(rows), None) => {
                    let rows = rows.as_array().expect("rows");
                    [vec3(&rows[0]), vec3(&rows[1]), vec3(&rows[2])]
                }
                (None, Some(v)) => {
                    let [r, p, y] = vec3(v);
                    rpy(r, p, y)
                }
                (None, None) => [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
                _ => panic!("rotation and rpy"),
            };
            Frame {
                body: index(f["body"].as_str().expect("body")),
                position: get(f, "position").map_or([0.0; 3], vec3),
                rotation,
            }
        })
        .collect();
    (
        name,
        Tree {
            bodies,
            gravity,
            frames,
        },
    )
}

#[test]
fn reference_models_match_the_tree_fixtures() {
    let specs = tree_specs();
    assert!(
        specs.len() >= 4,
        "the hand, dual arm, quadruped and synthetic tree"
    );
    for path in specs {
        let (name, tree) = read_tree(&path);
        let fixture = load_fixture(&name);
        let n = tree.dof();
        assert_eq!(fixture.dof, n, "{name}: dof");
        assert_eq!(fixture.states.len(), 50, "{name}: states");
        let quasi = QuasiVelocityModel::from_tree(&tree);
        let newton = NewtonEulerModel::from_tree(&tree);
        let models: [(&dyn ReferenceModel, &str); 2] = [(&quasi, "quasi"), (&newton, "newton")];
        for (model, label) in models {
            assert_eq!(model.frame_count(), tree.frames.len());
            for (k, s) in fixture.states.iter().enumerate() {
                let what = |f: &str| format!("{name} {label} state {k} {f}");
                assert_eq!(s.frames.len(), tree.frames.len(), "{}", what("frames"));
                assert!(s.tool_position.is_empty(), "{}", what("a tree has no tool"));
                let mut out = vec![0.0; n];
                model.inverse_dynamics(&s.q, &s.qd, &s.qdd, &mut out);
                assert_close(&what("tau"), &out, &s.tau, REL);
                model.gravity(&s.q, &mut out);
                assert_close(&what("gravity"), &out, &s.gravity, REL);
                model.nonlinear_effects(&s.q, &s.qd, &mut out);
                assert_close(&what("nle"), &out, &s.nonlinear_effects, REL);
                model.forward_dynamics(&s.q, &s.qd, &s.tau_fd, &mut out);
                assert_close(&what("qdd_fd"), &out, &s.qdd_fd, REL);
                let mut m = vec![0.0; n * n];
                model.mass_matrix(&s.q, &mut m);
                assert_close(&what("M"), &m, &flat(&s.mass_matrix), REL);
                let ke = model.kinetic_energy(&s.q, &s.qd);
                let ke_ref = s.kinetic_energy.expect("fixture has kinetic energy");
                assert_close(&what("T"), &[ke], &[ke_ref], REL);
                let (mut f, mut t) = (vec![0.0; 3 * n], vec![0.0; 3 * n]);
                model.static_joint_reactions(&s.q, &mut f, &mut t);
                assert_close(&what("F static"), &f, &flat(&s.static_force), REL);
                assert_close(&what("T static"), &t, &flat(&s.static_moment), REL);
                let (mut hc, mut ho, mut hg) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
                model.velocity_split(&s.q, &s.qd, &mut hc, &mut ho, &mut hg);
                assert_close(&what("h_c"), &hc, &s.centrifugal, REL);
                assert_close(&what("h_o"), &ho, &s.coriolis, REL);
                assert_close(&what("h_g"), &hg, &s.gyroscopic, REL);
                for (i, frame) in s.frames.iter().enumerate() {
                    let label = |f: &str| what(&format!("frame {} {f}", frame.name));
                    let (r, p) = model.frame_pose(i, &s.q);
                    assert_close(&label("R"), r.as_flattened(), &flat(&frame.rotation), REL);
                    assert_close(&label("p"), &p, &frame.position, REL);
                    let mut j = vec![0.0; 6 * n];
                    model.frame_jacobian(i, &s.q, &mut j);
                    assert_close(&label("J"), &j, &flat(&frame.jacobian), REL);
                }
            }
        }
    }
}

/// The papers' recursion and the textbook Newton–Euler agree to 1e-12 on every tree robot at
/// 100 random states (joint angles anywhere, rates and accelerations within ±2), on every
/// quantity both compute.
#[test]
fn reference_models_agree_on_every_tree_robot() {
    const AGREE: f64 = 1e-12;
    // splitmix64, so a failure is reproducible.
    let mut seed = 0x7EE5_u64;
    let mut uniform = move |lo: f64, hi: f64| {
        seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = seed;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        lo + (hi - lo) * ((z >> 11) as f64 / (1u64 << 53) as f64)
    };
    for path in tree_specs() {
        let (name, tree) = read_tree(&path);
        let (quasi, newton) = (
            QuasiVelocityModel::from_tree(&tree),
            NewtonEulerModel::from_tree(&tree),
        );
        let n = tree.dof();
        for k in 0..100 {
            let q: Vec<f64> = tree
                .bodies
                .iter()
                .map(|b| match b.joint {
                    JointKind::Revolute => uniform(-3.2, 3.2),
                    JointKind::Prismatic => uniform(-0.5, 0.5),
                })
                .collect();
            let qd: Vec<f64> = (0..n).map(|_| uniform(-2.0, 2.0)).collect();
            let qdd: Vec<f64> = (0..n).map(|_| uniform(-2.0, 2.0)).collect();
            let what = |f: &str| format!("{name} state {k} {f}");
            let (mut a, mut b) = (vec![0.0; n], vec![0.0; n]);
            quasi.inverse_dynamics(&q, &qd, &qdd, &mut a);
            newton.inverse_dynamics(&q, &qd, &qdd, &mut b);
            assert_close(&what("tau"), &a, &b, AGREE);
            quasi.forward_dynamics(&q, &qd, &qdd, &mut a);
            newton.forward_dynamics(&q, &qd, &qdd, &mut b);
            assert_close(&what("qdd"), &a, &b, AGREE);
            let (mut ma, mut mb) = (vec![0.0; n * n], vec![0.0; n * n]);
            quasi.mass_matrix(&q, &mut ma);
            newton.mass_matrix(&q, &mut mb);
            assert_close(&what("M"), &ma, &mb, AGREE);
            let (ka, kb) = (
                quasi.kinetic_energy(&q, &qd),
                newton.kinetic_energy(&q, &qd),
            );
            assert_close(&what("T"), &[ka], &[kb], AGREE);
            let (mut fa, mut ta) = (vec![0.0; 3 * n], vec![0.0; 3 * n]);
            let (mut fb, mut tb) = (vec![0.0; 3 * n], vec![0.0; 3 * n]);
            quasi.static_joint_reactions(&q, &mut fa, &mut ta);
            newton.static_joint_reactions(&q, &mut fb, &mut tb);
            assert_close(&what("F"), &fa, &fb, AGREE);
            assert_close(&what("T static"), &ta, &tb, AGREE);
            let mut split_a = [vec![0.0; n], vec![0.0; n], vec![0.0; n]];
            let mut split_b = [vec![0.0; n], vec![0.0; n], vec![0.0; n]];
            let [hc, ho, hg] = &mut split_a;
            quasi.velocity_split(&q, &qd, hc, ho, hg);
            let [hc, ho, hg] = &mut split_b;
            newton.velocity_split(&q, &qd, hc, ho, hg);
            for (part, (x, y)) in ["h_c", "h_o", "h_g"]
                .iter()
                .zip(split_a.iter().zip(&split_b))
            {
                assert_close(&what(part), x, y, AGREE);
            }
            for f in 0..tree.frames.len() {
                let ((ra, pa), (rb, pb)) = (quasi.frame_pose(f, &q), newton.frame_pose(f, &q));
                assert_close(
                    &what("frame R"),
                    ra.as_flattened(),
                    rb.as_flattened(),
                    AGREE,
                );
                assert_close(&what("frame p"), &pa, &pb, AGREE);
                let (mut ja, mut jb) = (vec![0.0; 6 * n], vec![0.0; 6 * n]);
                quasi.frame_jacobian(f, &q, &mut ja);
                newton.frame_jacobian(f, &q, &mut jb);
                assert_close(&what("frame J"), &ja, &jb, AGREE);
            }
        }
    }
}

//! The elastic functions (issue 12): the generated Rust and C of the elastic robots in
//! robots/, and the IR of further elastic chains, against independent references:
//!
//! - seed 002's worked example (METHOD.md 4.4: F, F2, F4, and the velocity v1 + v2 + v3 of
//!   (3.14)-(3.16)), the printed formulas with the corrections T22-T24, written out here;
//! - an exact model written here (joints at `q + beta`, each flexible link's end moved by
//!   `sum w phi(L) n` and turned by the exact rotation `exp(sum w phi'(L) e × n)`), which the
//!   first-order functions must match to second order;
//! - central differences in time of the elastic forward kinematics and velocity along
//!   trajectories;
//! - the Newton–Euler reference model of quasidyn-reference (gravity, Jacobian, pose) for the
//!   statics.

use quasidyn_codegen::ir::{ElasticInputs, Env};
use quasidyn_codegen::{build_module, parse_spec, FunctionKind, JointKind, Module, Robot};
use quasidyn_reference::{NewtonEulerModel, ReferenceModel};
use quasidyn_tests::generated::{ELASTIC_ROBOTS, ROBOTS};
use quasidyn_tests::{assert_close, chain_of, ElasticRobot, ElasticState, Rng, State, OUT_DIR};

type V = [f64; 3];
type M = [[f64; 3]; 3];

const I3: M = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

fn add(a: V, b: V) -> V {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
fn scale(a: V, s: f64) -> V {
    [a[0] * s, a[1] * s, a[2] * s]
}
fn cross(a: V, b: V) -> V {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn norm(a: V) -> f64 {
    (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}
fn mv(m: &M, v: V) -> V {
    [0, 1, 2].map(|r| m[r][0] * v[0] + m[r][1] * v[1] + m[r][2] * v[2])
}
fn mm(a: &M, b: &M) -> M {
    let mut c = [[0.0; 3]; 3];
    for r in 0..3 {
        for k in 0..3 {
            c[r][k] = (0..3).map(|j| a[r][j] * b[j][k]).sum();
        }
    }
    c
}
fn transpose(a: &M) -> M {
    [0, 1, 2].map(|r| [a[0][r], a[1][r], a[2][r]])
}
/// Rotation by `angle` about the unit `axis` (Rodrigues).
fn rot(axis: V, angle: f64) -> M {
    let (s, c) = angle.sin_cos();
    let [x, y, z] = axis;
    let t = 1.0 - c;
    [
        [c + x * x * t, x * y * t - z * s, x * z * t + y * s],
        [y * x * t + z * s, c + y * y * t, y * z * t - x * s],
        [z * x * t - y * s, z * y * t + x * s, c + z * z * t],
    ]
}
/// The exact rotation of the rotation vector `theta`.
fn exp(theta: V) -> M {
    let a = norm(theta);
    if a == 0.0 {
        I3
    } else {
        rot(scale(theta, 1.0 / a), a)
    }
}
fn flat(m: &M) -> Vec<f64> {
    m.iter().flatten().copied().collect()
}
fn unflat(v: &[f64]) -> M {
    [0, 1, 2].map(|r| [v[3 * r], v[3 * r + 1], v[3 * r + 2]])
}
fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0_f64, |m, x| m.max(x.abs()))
}
fn diff(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter().zip(b).map(|(x, y)| x - y).collect()
}

/// `L phi_k'(L) / phi_k(L)` of clamped-free mode `k` (0-based), from the tabulated `b_k L` and
/// the eigenfunction `cosh - cos - s (sinh - sin)` differentiated by hand.
fn tip_slope(k: usize) -> f64 {
    let b: f64 = [
        1.875_104_068_711_961,
        4.694_091_132_974_175,
        7.854_757_438_237_613,
        10.995_540_734_875_47,
    ][k];
    let s = (b.cosh() + b.cos()) / (b.sinh() + b.sin());
    let phi = b.cosh() - b.cos() - s * (b.sinh() - b.sin());
    let dphi = b * (b.sinh() + b.sin() - s * (b.cosh() - b.cos()));
    dphi / phi
}

/// The exact tool pose: elastic joints at `q + beta`; each flexible link's end moved by
/// `sum w n` (`phi_k(L) = 1`) and turned, with all it carries, by `exp(sum w phi_k'(L) e × n)`.
fn exact_pose(robot: &Robot, q: &[f64], beta: &[f64], w: &[f64]) -> (M, V) {
    let n = robot.dof();
    let mut qq = q.to_vec();
    for (k, j) in robot.elastic_joints().into_iter().enumerate() {
        qq[j] += beta[k];
    }
    let mut delta = vec![[0.0; 3]; n];
    let mut theta = vec![[0.0; 3]; n];
    for (c, (i, d, m)) in robot.flex_coordinates().into_iter().enumerate() {
        let b = &robot.bodies[i];
        let beam = if i + 1 < n {
            robot.bodies[i + 1].origin
        } else {
            b.next
        };
        let len = norm(beam);
        let e = scale(beam, 1.0 / len);
        let dir = b.flex.as_ref().unwrap().directions[d].vector;
        delta[i] = add(delta[i], scale(dir, w[c]));
        theta[i] = add(theta[i], scale(cross(e, dir), w[c] * tip_slope(m) / len));
    }
    // The carrier's frame, the end of its link moved, and its end turned.
    let (mut r, mut o, mut moved, mut turn) = (I3, [0.0; 3], [0.0; 3], I3);
    for (i, b) in robot.bodies.iter().enumerate() {
        let rt = mm(&r, &turn);
        let slide = match b.joint {
            JointKind::Prismatic => mv(&rt, scale(b.axis, qq[i])),
            JointKind::Revolute => [0.0; 3],
        };
        o = add(add(o, mv(&r, add(b.origin, moved))), slide);
        r = match b.joint {
            JointKind::Revolute => mm(&rt, &rot(b.axis, qq[i])),
            JointKind::Prismatic => rt,
        };
        moved = delta[i];
        turn = exp(theta[i]);
    }
    let last = &robot.bodies[n - 1];
    let p = add(o, mv(&r, add(last.next, moved)));
    let rr = mm(&mm(&r, &turn), &robot.tool_rotation);
    (rr, p)
}

/// The outputs of an elastic function at a state, in contract order.
type Call<'a> = Box<dyn Fn(FunctionKind, &ElasticState) -> Vec<Vec<f64>> + 'a>;

/// The elastic functions of one robot, however they are evaluated.
struct Subject<'a> {
    what: String,
    robot: Robot,
    call: Call<'a>,
}

impl Subject<'_> {
    fn fk(&self, x: &ElasticState) -> (Vec<f64>, Vec<f64>) {
        let o = (self.call)(FunctionKind::ElasticForwardKinematics, x);
        (o[0].clone(), o[1].clone())
    }
}

fn generated(r: &'static ElasticRobot, c: bool) -> Subject<'static> {
    Subject {
        what: format!("{} {}", r.stem, if c { "C" } else { "Rust" }),
        robot: r.spec(),
        call: Box::new(move |k, x| (r.call)(c, k, x)),
    }
}

/// A module's functions evaluated on its graph.
fn on_graph<'a>(what: &str, module: &'a Module, robot: Robot) -> Subject<'a> {
    Subject {
        what: format!("{what} (IR)"),
        robot,
        call: Box::new(move |kind, x| {
            let f = module.function(kind).expect("generated");
            let env = Env {
                q: x.q.clone(),
                qd: x.qd.clone(),
                qdd: x.qdd.clone(),
                tau: x.tau.clone(),
                elastic: ElasticInputs {
                    beta: x.beta.clone(),
                    betad: x.betad.clone(),
                    betadd: x.betadd.clone(),
                    w: x.w.clone(),
                    wd: x.wd.clone(),
                    wdd: x.wdd.clone(),
                    theta: x.theta.clone(),
                    thetad: x.thetad.clone(),
                    qddd: x.qddd.clone(),
                    qdddd: x.qdddd.clone(),
                },
                ..Env::default()
            };
            f.outputs
                .iter()
                .map(|o| module.graph.eval_many(&o.values, &env))
                .collect()
        }),
    }
}

/// Every subject: the Rust and C of the elastic robots of robots/.
fn shipped() -> Vec<Subject<'static>> {
    ELASTIC_ROBOTS
        .iter()
        .flat_map(|r| [generated(r, false), generated(r, true)])
        .collect()
}

/// Elastic chains beyond robots/: a prismatic joint after a flexible link, a tool offset and
/// turned tool after a flexible last link, flexible links only (no elastic joint).
const EXTRA: [(&str, &str); 5] = [
    (
        "prismatic after a flexible link",
        r#"name = "slider"
gravity = [0.0, -9.81, 0.0]

[[body]]
joint = "revolute"
axis = "z"
next = [0.6, 0.0, 0.45]
mass = 2.0
com = [0.3, 0.0, 0.2]
inertia = { ixx = 0.01, iyy = 0.06, izz = 0.06 }
stiffness = 5.0e3
flex = { directions = [[0.6, 0.0, -0.8], "y"], modes = 2 }

[[body]]
joint = "prismatic"
axis = "y"
next = [0.1, 0.0, 0.0]
mass = 1.0
stiffness = 2.0e5

[[body]]
joint = "revolute"
axis = [0.0, 0.6, 0.8]
next = [0.0, 0.0, 0.2]
mass = 0.5
com = [0.0, 0.0, 0.1]
inertia = { ixx = 0.002, iyy = 0.002, izz = 0.001 }
stiffness = 800.0

[tool]
rpy = [0.3, -0.2, 0.5]
"#,
    ),
    (
        "flexible last link with a turned tool",
        r#"name = "wand"
[[body]]
joint = "revolute"
axis = "x"
next = [0.0, 0.3, 0.0]
mass = 1.0
com = [0.0, 0.15, 0.0]
inertia = { ixx = 0.01, iyy = 0.001, izz = 0.01 }
stiffness = 3.0e3

[[body]]
joint = "revolute"
axis = "z"
next = [0.0, 0.5, 0.2]
mass = 0.4
com = [0.0, 0.25, 0.1]
inertia = { ixx = 0.01, iyy = 0.001, izz = 0.01 }
stiffness = 1.0e3
flex = { directions = ["x"], modes = 3 }

[tool]
rpy = [0.1, 0.7, -0.4]
"#,
    ),
    (
        "flexible links only",
        r#"name = "flexonly"
[[body]]
joint = "revolute"
axis = "z"
next = [0.7, 0.0, 0.0]
mass = 1.0
com = [0.35, 0.0, 0.0]
inertia = { ixx = 0.001, iyy = 0.04, izz = 0.04 }
flex = { directions = ["y", "z"], modes = 2 }

[[body]]
joint = "revolute"
axis = "y"
next = [0.5, 0.0, 0.0]
mass = 0.5
com = [0.25, 0.0, 0.0]
inertia = { ixx = 0.001, iyy = 0.01, izz = 0.01 }
flex = { directions = ["z"] }
"#,
    ),
    (
        "rigid and elastic joints with motors",
        r#"name = "mixed"
gravity = [0.0, 0.0, -9.81]

[[body]]
joint = "revolute"
axis = "z"
next = [0.0, 0.0, 0.3]
mass = 3.0
com = [0.0, 0.0, 0.15]
inertia = { ixx = 0.03, iyy = 0.03, izz = 0.01 }
stiffness = 2.0e4
motor_inertia = 0.4

[[body]]
joint = "revolute"
axis = "y"
next = [0.4, 0.0, 0.0]
mass = 2.0
com = [0.2, 0.0, 0.01]
inertia = { ixx = 0.002, iyy = 0.03, izz = 0.03 }

[[body]]
joint = "prismatic"
axis = "x"
next = [0.1, 0.0, 0.0]
mass = 0.8
com = [0.05, 0.0, 0.0]
inertia = { ixx = 0.001, iyy = 0.002, izz = 0.002 }
stiffness = 1.0e5
motor_inertia = 2.0

[[body]]
joint = "revolute"
axis = [0.0, 0.6, 0.8]
next = [0.0, 0.0, 0.1]
mass = 0.3
com = [0.0, 0.0, 0.05]
inertia = { ixx = 0.0005, iyy = 0.0005, izz = 0.0002 }
stiffness = 500.0
motor_inertia = 0.01
"#,
    ),
    (
        "damped elastic joints",
        r#"name = "damped"
[[body]]
joint = "revolute"
axis = "z"
next = [0.5, 0.0, 0.0]
mass = 2.0
com = [0.25, 0.0, 0.0]
inertia = { ixx = 0.001, iyy = 0.04, izz = 0.04 }
stiffness = 3.0e3
damping = 4.0
motor_inertia = 0.2

[[body]]
joint = "revolute"
axis = "z"
next = [0.4, 0.0, 0.0]
mass = 1.0
com = [0.2, 0.0, 0.0]
inertia = { ixx = 0.001, iyy = 0.015, izz = 0.015 }
stiffness = 1.0e3
motor_inertia = 0.05
flex = { directions = ["y"], modes = 2 }
"#,
    ),
];

fn extra_modules() -> Vec<(&'static str, Module, Robot)> {
    EXTRA
        .iter()
        .map(|(what, text)| {
            let robot = parse_spec(text, "extra.toml").expect("a valid spec");
            (*what, build_module(&robot), robot)
        })
        .collect()
}

/// Runs `check` on every subject: the shipped robots' Rust and C, and the extra chains' IR.
fn for_every_subject(check: impl Fn(&Subject<'_>)) {
    for s in shipped() {
        check(&s);
    }
    let extra = extra_modules();
    for (what, module, robot) in &extra {
        check(&on_graph(what, module, robot.clone()));
    }
}

/// A random state; `beta`, `w` and their rates scaled by `size`.
fn random_state(robot: &Robot, rng: &mut Rng, size: f64) -> ElasticState {
    let n = robot.dof();
    let nb = robot.elastic_joints().len();
    let nw = robot.flex_coordinates().len();
    let mut v = |k: usize, s: f64| (0..k).map(|_| s * rng.range(-1.0, 1.0)).collect::<Vec<_>>();
    ElasticState {
        q: v(n, 3.0),
        qd: v(n, 2.0),
        qdd: v(n, 5.0),
        beta: v(nb, size),
        betad: v(nb, 2.0 * size),
        betadd: v(nb, 5.0 * size),
        w: v(nw, size),
        wd: v(nw, 2.0 * size),
        wdd: v(nw, 5.0 * size),
        ..ElasticState::default()
    }
}

fn reference(robot: &Robot) -> NewtonEulerModel {
    NewtonEulerModel::new(&chain_of(robot))
}

#[test]
fn names_and_counts_of_beta_and_w() {
    let stems: Vec<&str> = ELASTIC_ROBOTS.iter().map(|r| r.stem).collect();
    assert_eq!(stems, ["two_link_elastic", "ur5_elastic"]);
    for r in ELASTIC_ROBOTS {
        let spec = r.spec();
        assert_eq!(r.beta_names, spec.beta_names().as_slice());
        assert_eq!(r.w_names, spec.w_names().as_slice());
        assert_eq!((r.nbeta, r.nw), (r.beta_names.len(), r.w_names.len()));
        // The dynamics need a motor inertia on every elastic joint (not given for the UR5).
        let dynamics = spec.bodies.iter().any(|b| {
            b.elastic
                .as_ref()
                .is_some_and(|e| e.motor_inertia.is_some())
        });
        let want: Vec<FunctionKind> = FunctionKind::ELASTIC
            .into_iter()
            .filter(|k| {
                dynamics
                    || !matches!(
                        k,
                        FunctionKind::ElasticForwardDynamics | FunctionKind::ElasticFeedforward
                    )
            })
            .collect();
        assert_eq!(r.kinds, want.as_slice(), "{}", r.stem);
        let header = std::fs::read_to_string(format!("{OUT_DIR}/c/{}.h", r.name)).unwrap();
        let upper = r.name.to_ascii_uppercase();
        assert!(header.contains(&format!("#define {upper}_NBETA {}", r.nbeta)));
        assert!(header.contains(&format!("#define {upper}_NW {}", r.nw)));
        let quoted = |v: &[&str]| -> String {
            v.iter()
                .map(|s| format!("\"{s}\""))
                .collect::<Vec<_>>()
                .join(", ")
        };
        assert!(header.contains(&format!(
            "{}_beta_names[{upper}_NBETA] = {{ {} }}",
            r.name,
            quoted(r.beta_names)
        )));
        assert!(header.contains(&format!(
            "{}_w_names[{upper}_NW] = {{ {} }}",
            r.name,
            quoted(r.w_names)
        )));
    }
    let ur5 = ELASTIC_ROBOTS[1];
    assert_eq!(ur5.nbeta, 6);
    assert_eq!(
        ur5.w_names,
        [
            "upper_arm.y.1",
            "upper_arm.z.1",
            "forearm.y.1",
            "forearm.y.2",
            "forearm.z.1",
            "forearm.z.2"
        ]
    );
}

/// The exact model of this file is the rigid pose of the reference model at zero deflection,
/// and the elastic pose at zero deflection is the rigid one.
#[test]
fn zero_deflection_gives_the_rigid_pose() {
    for_every_subject(|s| {
        let reference = reference(&s.robot);
        let mut rng = Rng::new(7);
        for k in 0..20 {
            let mut x = random_state(&s.robot, &mut rng, 0.0);
            x.beta.iter_mut().for_each(|b| *b = 0.0);
            x.w.iter_mut().for_each(|w| *w = 0.0);
            let (r_ref, p_ref) = reference.forward_kinematics(&x.q);
            let (r_exact, p_exact) = exact_pose(&s.robot, &x.q, &x.beta, &x.w);
            let what = format!("{} state {k}", s.what);
            assert_close(
                &format!("{what} exact R"),
                &flat(&r_exact),
                &flat(&r_ref),
                1e-12,
            );
            assert_close(&format!("{what} exact p"), &p_exact, &p_ref, 1e-12);
            let (r, p) = s.fk(&x);
            assert_close(&format!("{what} R"), &r, &flat(&r_ref), 1e-12);
            assert_close(&format!("{what} p"), &p, &p_ref, 1e-12);
        }
    });
}

/// At fixed `q` the pose is exactly `pose(q, 0, 0) + F2 beta + F4 w` (the rotation `R0 +
/// [dtheta]x R0`), so affine in `(beta, w)`.
#[test]
fn exactly_affine_in_the_deflections() {
    for_every_subject(|s| {
        let (nb, nw) = (
            s.robot.elastic_joints().len(),
            s.robot.flex_coordinates().len(),
        );
        let mut rng = Rng::new(11);
        for k in 0..20 {
            let x = random_state(&s.robot, &mut rng, 0.3);
            let zero = ElasticState {
                beta: vec![0.0; nb],
                w: vec![0.0; nw],
                ..x.clone()
            };
            let (r0, p0) = s.fk(&zero);
            let (r, p) = s.fk(&x);
            let f = (s.call)(FunctionKind::ComplianceJacobians, &x);
            let (f2, f4) = (&f[0], &f[1]);
            assert_eq!((f2.len(), f4.len()), (6 * nb, 6 * nw));
            let row = |r: usize| -> f64 {
                (0..nb).map(|j| f2[r * nb + j] * x.beta[j]).sum::<f64>()
                    + (0..nw).map(|j| f4[r * nw + j] * x.w[j]).sum::<f64>()
            };
            let dp = [row(0), row(1), row(2)];
            let dtheta = [row(3), row(4), row(5)];
            let what = format!("{} state {k}", s.what);
            assert_close(
                &format!("{what} p"),
                &p,
                &add([p0[0], p0[1], p0[2]], dp),
                1e-12,
            );
            let r0m = unflat(&r0);
            let mut want = r0m;
            for c in 0..3 {
                let t = cross(dtheta, [r0m[0][c], r0m[1][c], r0m[2][c]]);
                for row in 0..3 {
                    want[row][c] += t[row];
                }
            }
            assert_close(&format!("{what} R"), &r, &flat(&want), 1e-12);
            // Affine: the pose at a combination of two deflections is that combination.
            let y = random_state(&s.robot, &mut rng, 0.3);
            let y = ElasticState {
                q: x.q.clone(),
                ..y
            };
            let a = 0.37;
            let mix = |u: &[f64], v: &[f64]| -> Vec<f64> {
                u.iter()
                    .zip(v)
                    .map(|(u, v)| a * u + (1.0 - a) * v)
                    .collect()
            };
            let xy = ElasticState {
                beta: mix(&x.beta, &y.beta),
                w: mix(&x.w, &y.w),
                ..x.clone()
            };
            let (ry, py) = s.fk(&y);
            let (rxy, pxy) = s.fk(&xy);
            assert_close(&format!("{what} affine p"), &pxy, &mix(&p, &py), 1e-12);
            assert_close(&format!("{what} affine R"), &rxy, &mix(&r, &ry), 1e-12);
        }
    });
}

/// Against the exact pose the error is second order: ten times smaller deflections give a
/// hundred times smaller error.
#[test]
fn second_order_close_to_the_exact_pose() {
    for_every_subject(|s| {
        let mut rng = Rng::new(13);
        for k in 0..10 {
            let x = random_state(&s.robot, &mut rng, 1.0);
            let error = |eps: f64| -> f64 {
                let y = ElasticState {
                    beta: x.beta.iter().map(|b| eps * b).collect(),
                    w: x.w.iter().map(|w| eps * w).collect(),
                    ..x.clone()
                };
                let (r, p) = s.fk(&y);
                let (re, pe) = exact_pose(&s.robot, &y.q, &y.beta, &y.w);
                max_abs(&diff(&p, &pe)).max(max_abs(&diff(&r, &flat(&re))))
            };
            let (big, small) = (error(1e-2), error(1e-3));
            let ratio = big / small;
            assert!(
                big > 1e-9 && (85.0..118.0).contains(&ratio),
                "{} state {k}: error {big:e} at 1e-2, {small:e} at 1e-3 (ratio {ratio})",
                s.what
            );
        }
    });
}

/// `dtheta` of the first-order rotation `R = (I + [dtheta]x) R0`.
fn dtheta_of(r: &[f64], r0: &M) -> V {
    let d = mm(&unflat(&diff(r, &flat(r0))), &transpose(r0));
    [
        0.5 * (d[2][1] - d[1][2]),
        0.5 * (d[0][2] - d[2][0]),
        0.5 * (d[1][0] - d[0][1]),
    ]
}

/// The velocity is the time derivative of the elastic pose along a trajectory (the angular
/// part that of the first-order rotation: `omega0 + dtheta' + dtheta × omega0`), and the
/// acceleration the time derivative of the velocity.
#[test]
fn velocity_and_acceleration_are_time_derivatives() {
    for_every_subject(|s| {
        let reference = reference(&s.robot);
        let n = s.robot.dof();
        let mut rng = Rng::new(17);
        for k in 0..10 {
            let x = random_state(&s.robot, &mut rng, 0.05);
            // Quadratic in time: position, rate and acceleration at t = 0 are those of x.
            let at = |t: f64| -> ElasticState {
                let pos = |p: &[f64], v: &[f64], a: &[f64]| -> Vec<f64> {
                    (0..p.len())
                        .map(|i| p[i] + v[i] * t + 0.5 * a[i] * t * t)
                        .collect()
                };
                let vel = |v: &[f64], a: &[f64]| -> Vec<f64> {
                    (0..v.len()).map(|i| v[i] + a[i] * t).collect()
                };
                ElasticState {
                    q: pos(&x.q, &x.qd, &x.qdd),
                    beta: pos(&x.beta, &x.betad, &x.betadd),
                    w: pos(&x.w, &x.wd, &x.wdd),
                    qd: vel(&x.qd, &x.qdd),
                    betad: vel(&x.betad, &x.betadd),
                    wd: vel(&x.wd, &x.wdd),
                    ..x.clone()
                }
            };
            let what = format!("{} state {k}", s.what);
            let v = (s.call)(FunctionKind::ElasticVelocity, &x).remove(0);
            let a = (s.call)(FunctionKind::ElasticAcceleration, &x).remove(0);

            // Linear velocity: d/dt p.
            let h = 1e-5;
            let (rp, pp) = s.fk(&at(h));
            let (rm, pm) = s.fk(&at(-h));
            let dp: Vec<f64> = (0..3).map(|i| (pp[i] - pm[i]) / (2.0 * h)).collect();
            assert_close(&format!("{what} v linear"), &v[..3], &dp, 1e-7);

            // Angular velocity: omega0 (reference Jacobian) + dtheta' + dtheta × omega0.
            let mut jac = vec![0.0; 6 * n];
            reference.jacobian(&x.q, &mut jac);
            let omega0: V = [3, 4, 5].map(|r| (0..n).map(|j| jac[r * n + j] * x.qd[j]).sum());
            let dth =
                |y: &ElasticState, r: &[f64]| dtheta_of(r, &reference.forward_kinematics(&y.q).0);
            let (r_now, _) = s.fk(&x);
            let theta = dth(&x, &r_now);
            let (tp, tm) = (dth(&at(h), &rp), dth(&at(-h), &rm));
            let theta_rate: V = [0, 1, 2].map(|i| (tp[i] - tm[i]) / (2.0 * h));
            let want = add(add(omega0, theta_rate), cross(theta, omega0));
            assert_close(&format!("{what} v angular"), &v[3..], &want, 1e-7);

            // Acceleration: d/dt of the velocity along the trajectory.
            let vp = (s.call)(FunctionKind::ElasticVelocity, &at(h)).remove(0);
            let vm = (s.call)(FunctionKind::ElasticVelocity, &at(-h)).remove(0);
            let dv: Vec<f64> = (0..6).map(|i| (vp[i] - vm[i]) / (2.0 * h)).collect();
            assert_close(&format!("{what} a"), &a, &dv, 1e-6);
            // ... and the linear part the second derivative of the pose.
            let h2 = 1e-4;
            let (_, p2p) = s.fk(&at(h2));
            let (_, p2m) = s.fk(&at(-h2));
            let (_, p0) = s.fk(&x);
            let ddp: Vec<f64> = (0..3)
                .map(|i| (p2p[i] - 2.0 * p0[i] + p2m[i]) / (h2 * h2))
                .collect();
            assert_close(&format!("{what} a linear"), &a[..3], &ddp, 1e-5);
        }
    });
}

/// `beta = -K^-1 g(q)` with `g` from the Newton–Euler reference model; the tool error is the
/// reference Jacobian's columns of the elastic joints times it, and matches the exact pose at
/// `q + beta` to second order.
#[test]
fn static_deflection_against_the_reference_gravity() {
    for r in ELASTIC_ROBOTS {
        let robot = r.spec();
        let reference = reference(&robot);
        let n = robot.dof();
        let joints = robot.elastic_joints();
        let mut rng = Rng::new(19);
        for k in 0..30 {
            let x = random_state(&robot, &mut rng, 0.0);
            let mut g = vec![0.0; n];
            reference.gravity(&x.q, &mut g);
            let beta: Vec<f64> = joints
                .iter()
                .map(|&j| -g[j] / robot.bodies[j].elastic.as_ref().unwrap().stiffness)
                .collect();
            let mut jac = vec![0.0; 6 * n];
            reference.jacobian(&x.q, &mut jac);
            let error: Vec<f64> = (0..6)
                .map(|row| {
                    joints
                        .iter()
                        .zip(&beta)
                        .map(|(&j, b)| jac[row * n + j] * b)
                        .sum()
                })
                .collect();
            for c in [false, true] {
                let what = format!("{} {} state {k}", r.stem, if c { "C" } else { "Rust" });
                let got = (r.call)(c, FunctionKind::StaticDeflection, &x).remove(0);
                assert_close(&format!("{what} beta"), &got, &beta, 1e-10);
                let e = (r.call)(c, FunctionKind::DeflectedToolError, &x);
                assert_close(&format!("{what} dp"), &e[0], &error[..3], 1e-10);
                assert_close(&format!("{what} dtheta"), &e[1], &error[3..], 1e-10);
            }
            // The first-order error against the reference pose at q + beta.
            let mut qb = x.q.clone();
            for (&j, b) in joints.iter().zip(&beta) {
                qb[j] += b;
            }
            let (_, p1) = reference.forward_kinematics(&qb);
            let (_, p0) = reference.forward_kinematics(&x.q);
            let exact = diff(&p1, &p0);
            let size = max_abs(&beta);
            assert!(
                max_abs(&diff(&exact, &error[..3])) <= 10.0 * size * size,
                "{} state {k}: {exact:?} vs {:?}",
                r.stem,
                &error[..3]
            );
        }
    }
}

/// The documented deflection of the UR5's shoulder held out horizontally (robots/ur5_elastic.toml).
#[test]
fn ur5_shoulder_deflection_as_documented() {
    let r = ELASTIC_ROBOTS
        .iter()
        .find(|r| r.stem == "ur5_elastic")
        .unwrap();
    let x = ElasticState {
        q: vec![0.0; 6],
        ..ElasticState::default()
    };
    let beta = (r.call)(false, FunctionKind::StaticDeflection, &x).remove(0);
    assert!((beta[1].abs() - 1.2e-3).abs() < 0.1e-3, "{beta:?}");
}

/// Seed 002, section 3 (METHOD.md 4.4) on robots/two_link_elastic.toml, the printed formulas
/// with the corrections T22-T24: F (3.9), F2 ((3.7) differentiated, every column), F4 (3.13),
/// and the velocity v1 + v2 + v3 of (3.14)-(3.16) with beta_2 = beta_3 = 0 and no axial w_2.
/// The seed's gamma_2 = alpha_2 - beta_2 makes our beta_2 its -beta_2.
#[test]
fn seed_002_worked_example() {
    let r = ELASTIC_ROBOTS
        .iter()
        .find(|r| r.stem == "two_link_elastic")
        .unwrap();
    let robot = r.spec();
    let (l1, xi) = (robot.bodies[1].next[1], robot.bodies[2].next[1]);
    assert_eq!((l1, xi), (0.5, 0.4));
    assert_eq!(r.w_names, ["forearm.x.1", "forearm.z.1"]);
    let rigid = ROBOTS
        .iter()
        .find(|g| g.stem == "two_link_elastic")
        .unwrap();
    let mut rng = Rng::new(23);
    for k in 0..50 {
        let x = random_state(&robot, &mut rng, 0.05);
        let [a1, a2, a3] = [x.q[0], x.q[1], x.q[2]];
        let (s1, c1, s2, c2) = (a1.sin(), a1.cos(), a2.sin(), a2.cos());
        let (s23, c23) = ((a2 - a3).sin(), (a2 - a3).cos());
        let p = l1 * c2 + xi * c23;
        let q = l1 * s2 + xi * s23;
        // (3.9), f22 with the sign of T24.
        let f = [
            [-p * c1, q * s1, -xi * s23 * s1],
            [-p * s1, -q * c1, xi * s23 * c1],
            [0.0, p, -xi * c23],
        ];
        // d f / d beta_i of (3.7) (f3* with T22), as columns in the seed's betas.
        let seed_f2 = [
            [-p * c1, -p * s1, 0.0],
            [-q * s1, q * c1, -p],
            [-xi * s23 * s1, xi * s23 * c1, -xi * c23],
        ];
        let sign = [1.0, -1.0, 1.0];
        // (3.13), the (1,3) entry with the sign of T23; columns w_1, w_3.
        let f4 = [[c1, s1, 0.0], [s23 * s1, -s23 * c1, c23]];
        for c in [false, true] {
            let what = format!("{} state {k}", if c { "C" } else { "Rust" });
            let state = State {
                q: x.q.clone(),
                qd: x.qd.clone(),
                qdd: x.qdd.clone(),
                tau: vec![0.0; 3],
            };
            let imp = if c { rigid.c } else { rigid.rust };
            let jac = imp.call(FunctionKind::Jacobian, &state).remove(0);
            assert_close(&format!("{what} F"), &jac[..9], &f.concat(), 1e-12);
            let out = (r.call)(c, FunctionKind::ComplianceJacobians, &x);
            let (f2, g4) = (&out[0], &out[1]);
            for i in 0..3 {
                for j in 0..3 {
                    let want = sign[j] * seed_f2[j][i];
                    assert!((f2[i * 3 + j] - want).abs() < 1e-12, "{what} F2[{i}][{j}]");
                }
                for j in 0..2 {
                    assert!(
                        (g4[i * 2 + j] - f4[j][i]).abs() < 1e-12,
                        "{what} F4[{i}][{j}]"
                    );
                }
            }
            // The printed entries that T22-T24 correct are not what the arm does.
            if (q * c1).abs() > 1e-3 {
                assert!((jac[4] - q * c1).abs() > 1e-4, "{what}: printed f22 (T24)");
            }
            if (s23 * s1).abs() > 1e-3 {
                assert!(
                    (g4[1] + s23 * s1).abs() > 1e-4,
                    "{what}: printed F4 (1,3) (T23)"
                );
            }
            if c2.abs() > 1e-2 {
                let printed = -sign[1] * (c2 + xi * c23);
                assert!(
                    (f2[7] - printed).abs() > 1e-4,
                    "{what}: printed f3* beta_2 (T22)"
                );
            }
            if c23.abs() > 1e-2 {
                assert!(
                    (f2[8] + c23).abs() > 1e-4,
                    "{what}: printed f3* beta_3 (T22)"
                );
            }

            // Velocity (3.14)-(3.16): beta_2 = beta_3 = 0, w = (w_1, w_3).
            let (b1, bd1) = (x.beta[0], x.betad[0]);
            let (w1, w3) = (x.w[0], x.w[1]);
            let f1 = [
                [b1 * p * s1, b1 * q * c1, -xi * b1 * s23 * c1],
                [-b1 * p * c1, b1 * q * s1, -xi * b1 * s23 * s1],
                [0.0, 0.0, 0.0],
            ];
            let f3 = [
                [-w1 * s1 + w3 * s23 * c1, w3 * c23 * s1, -w3 * c23 * s1],
                [w1 * c1 + w3 * s23 * s1, -w3 * c23 * c1, w3 * c23 * c1],
                [0.0, -w3 * s23, w3 * s23],
            ];
            let ad = &x.qd;
            let v: Vec<f64> = (0..3)
                .map(|i| {
                    let v1: f64 = (0..3).map(|j| f[i][j] * ad[j]).sum();
                    let v2: f64 =
                        (0..3).map(|j| f1[i][j] * ad[j]).sum::<f64>() + seed_f2[0][i] * bd1;
                    let v3: f64 = (0..3).map(|j| f3[i][j] * ad[j]).sum::<f64>()
                        + f4[0][i] * x.wd[0]
                        + f4[1][i] * x.wd[1];
                    v1 + v2 + v3
                })
                .collect();
            let special = ElasticState {
                beta: vec![b1, 0.0, 0.0],
                betad: vec![bd1, 0.0, 0.0],
                ..x.clone()
            };
            let got = (r.call)(c, FunctionKind::ElasticVelocity, &special).remove(0);
            assert_close(&format!("{what} v"), &got[..3], &v, 1e-12);
        }
    }
}

/// The C signatures of the elastic functions in docs/elastic.md are the generated ones.
#[test]
fn docs_quote_the_generated_signatures() {
    let readme = std::fs::read_to_string(quasidyn_tests::workspace_root().join("docs/elastic.md"))
        .expect("docs/elastic.md");
    let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    for (first, robot, count) in [
        (
            "void ur5_elastic_elastic_forward_kinematics",
            "ur5_elastic",
            6,
        ),
        (
            "void two_link_elastic_elastic_forward_dynamics",
            "two_link_elastic",
            2,
        ),
    ] {
        let start = readme.find(first).expect("the elastic C snippet");
        let block = &readme[start..start + readme[start..].find("```").unwrap()];
        let header = std::fs::read_to_string(format!("{OUT_DIR}/c/{robot}.h")).unwrap();
        let header = squash(&header).replace("( ", "(");
        let protos: Vec<String> = block
            .split(';')
            .map(squash)
            .filter(|p| !p.is_empty())
            .collect();
        for proto in &protos {
            assert!(
                header.contains(&format!("{proto};")),
                "not generated: {proto}"
            );
        }
        assert_eq!(protos.len(), count);
    }
}

/// Runs `check` on every subject with the elastic-joint dynamics (motor inertias on every
/// elastic joint), and with the feedforward too if `feedforward`; asserts there are some.
fn for_every_dynamic_subject(feedforward: bool, check: impl Fn(&Subject<'_>)) {
    let wanted = |robot: &Robot| {
        let joints = joint_constants(robot);
        !joints.is_empty()
            && joints.iter().all(|c| c.3 > 0.0)
            && (!feedforward || joints.iter().all(|c| c.2 == 0.0))
    };
    let count = std::cell::Cell::new(0);
    for_every_subject(|s| {
        if wanted(&s.robot) {
            count.set(count.get() + 1);
            check(s);
        }
    });
    // two_link_elastic in Rust and C, and the extra "mixed" chain (and "damped" without
    // the feedforward).
    assert_eq!(count.get(), if feedforward { 3 } else { 4 });
}

/// The joint, `K`, `D` and `B` of each elastic joint (`B` 0 when not given).
fn joint_constants(robot: &Robot) -> Vec<(usize, f64, f64, f64)> {
    robot
        .elastic_joints()
        .into_iter()
        .map(|j| {
            let e = robot.bodies[j].elastic.as_ref().unwrap();
            (
                j,
                e.stiffness,
                e.damping.unwrap_or(0.0),
                e.motor_inertia.unwrap_or(0.0),
            )
        })
        .collect()
}

/// `elastic_forward_dynamics` solves the reduced model with the Newton–Euler reference's `M`
/// and `h`: `M qdd + h = K (theta - q) + D (thetad - qd)` on the elastic rows (`tau` on the
/// rigid ones) and `B thetadd = tau - K (theta - q) - D (thetad - qd)`.
#[test]
fn elastic_forward_dynamics_against_the_reference_model() {
    for_every_dynamic_subject(false, |s| {
        let robot = s.robot.clone();
        let reference = reference(&robot);
        let n = robot.dof();
        let constants = joint_constants(&robot);
        let mut rng = Rng::new(29);
        for k in 0..30 {
            let mut x = random_state(&robot, &mut rng, 0.0);
            x.theta = constants
                .iter()
                .map(|&(j, ..)| x.q[j] + rng.range(-0.01, 0.01))
                .collect();
            x.thetad = constants
                .iter()
                .map(|&(j, ..)| x.qd[j] + rng.range(-0.5, 0.5))
                .collect();
            x.tau = (0..n).map(|_| rng.range(-20.0, 20.0)).collect();
            let mut link = x.tau.clone();
            let mut thetadd = Vec::new();
            for (i, &(j, stiff, damp, inertia)) in constants.iter().enumerate() {
                let spring = stiff * (x.theta[i] - x.q[j]) + damp * (x.thetad[i] - x.qd[j]);
                link[j] = spring;
                thetadd.push((x.tau[j] - spring) / inertia);
            }
            {
                let what = format!("{} state {k}", s.what);
                let out = (s.call)(FunctionKind::ElasticForwardDynamics, &x);
                let mut m = vec![0.0; n * n];
                reference.mass_matrix(&x.q, &mut m);
                let mut h = vec![0.0; n];
                reference.nonlinear_effects(&x.q, &x.qd, &mut h);
                let lhs: Vec<f64> = (0..n)
                    .map(|i| (0..n).map(|j| m[i * n + j] * out[0][j]).sum::<f64>() + h[i])
                    .collect();
                assert_close(&format!("{what} M qdd + h"), &lhs, &link, 1e-10);
                assert_close(&format!("{what} thetadd"), &out[1], &thetadd, 1e-10);
            }
        }
    });
}

/// `elastic_feedforward` along a quartic trajectory: `theta = q + K^-1 tau` with `tau` the
/// reference inverse dynamics, and the forward dynamics at its `theta`, `tau` (with `thetad`
/// from central differences of `theta`) gives back the trajectory's `qdd` and the second
/// difference of `theta`.
#[test]
fn feedforward_then_forward_dynamics_returns_the_trajectory() {
    for_every_dynamic_subject(true, |s| {
        let robot = s.robot.clone();
        let reference = reference(&robot);
        let n = robot.dof();
        let constants = joint_constants(&robot);
        let mut rng = Rng::new(31);
        for k in 0..20 {
            let x0 = random_state(&robot, &mut rng, 0.0);
            let jerk: Vec<f64> = (0..n).map(|_| rng.range(-10.0, 10.0)).collect();
            let snap: Vec<f64> = (0..n).map(|_| rng.range(-30.0, 30.0)).collect();
            let at = |t: f64| -> ElasticState {
                let d = |i: usize, order: usize| -> f64 {
                    let c = [x0.q[i], x0.qd[i], x0.qdd[i], jerk[i], snap[i]];
                    let mut v = 0.0;
                    let mut fact = 1.0;
                    for (p, ck) in c[order..].iter().enumerate() {
                        if p > 0 {
                            fact *= p as f64;
                        }
                        v += ck * t.powi(p as i32) / fact;
                    }
                    v
                };
                ElasticState {
                    q: (0..n).map(|i| d(i, 0)).collect(),
                    qd: (0..n).map(|i| d(i, 1)).collect(),
                    qdd: (0..n).map(|i| d(i, 2)).collect(),
                    qddd: (0..n).map(|i| d(i, 3)).collect(),
                    qdddd: (0..n).map(|i| d(i, 4)).collect(),
                    ..ElasticState::default()
                }
            };
            {
                let what = format!("{} state {k}", s.what);
                let ff = |t: f64| (s.call)(FunctionKind::ElasticFeedforward, &at(t));
                let now = ff(0.0);
                let (theta, tau) = (&now[0], &now[1]);
                let mut tau_id = vec![0.0; n];
                let x = at(0.0);
                reference.inverse_dynamics(&x.q, &x.qd, &x.qdd, &mut tau_id);
                let want: Vec<f64> = constants
                    .iter()
                    .map(|&(j, stiff, ..)| x.q[j] + tau_id[j] / stiff)
                    .collect();
                assert_close(&format!("{what} theta"), theta, &want, 1e-10);
                let h = 1e-3;
                let (plus, minus) = (ff(h), ff(-h));
                let thetad: Vec<f64> = (0..theta.len())
                    .map(|i| (plus[0][i] - minus[0][i]) / (2.0 * h))
                    .collect();
                let thetadd: Vec<f64> = (0..theta.len())
                    .map(|i| (plus[0][i] - 2.0 * theta[i] + minus[0][i]) / (h * h))
                    .collect();
                let input = ElasticState {
                    theta: theta.clone(),
                    thetad,
                    tau: tau.clone(),
                    ..x.clone()
                };
                let out = (s.call)(FunctionKind::ElasticForwardDynamics, &input);
                assert_close(&format!("{what} qdd"), &out[0], &x.qdd, 1e-9);
                assert_close(&format!("{what} thetadd"), &out[1], &thetadd, 1e-5);
            }
        }
    });
}

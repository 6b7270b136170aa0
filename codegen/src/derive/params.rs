//! The method's inertial parameters: body masses, first moments and inertia about the pole, and
//! the subsystem masses `m_i = Σ_{k≥i} m_ok`.
//!
//! Every inertial number enters through [`Algebra::param`](crate::algebra::Algebra::param) under
//! the names `m{i}`, `mx{i}`.., `ixx{i}`.. (1-based), so any of them can stay symbolic.

use std::collections::HashSet;

use super::inertia::{shift_sym, sym_add};
use super::kinematics::Poles;
use super::scalar::{k3, k33, Cx, Mat3, Vec3, S};
use crate::algebra::Algebra;
use crate::mat3;
use crate::model::{JointKind, Robot, SymbolicInertial};

/// Parameters of one body, in its own frame, about its pole `O_i`.
pub(crate) struct BodyInertia<E> {
    /// Body mass `m_oi`.
    pub m: S<E>,
    /// First moment about the pole, `m_oi · O_iC_i`.
    pub h: Vec3<E>,
    /// Inertia tensor about the pole (tensor entries, symmetric).
    pub j: [[S<E>; 3]; 3],
    /// `I^a = J_zz - J_yy`, `I^b = J_xx - J_zz`, `I^c = J_yy - J_xx` (gyroscopic coefficients).
    pub jdiff: Vec3<E>,
}

/// Parameters of the whole robot.
pub(crate) struct Params<E> {
    /// Per body.
    pub body: Vec<BodyInertia<E>>,
    /// Subsystem masses `m_i` (body `i` and everything it carries).
    pub msub: Vec<S<E>>,
}

const INERTIA_NAMES: [[&str; 3]; 3] = [
    ["ixx", "ixy", "ixz"],
    ["ixy", "iyy", "iyz"],
    ["ixz", "iyz", "izz"],
];

/// Reads the parameters of `robot` through the algebra.
///
/// Symbolic parameters are those of the spec, in the body frames the spec gives (parallel to
/// the base at `q = 0`); where the derivation turned a body's frame ([`super::frames`]) they
/// are read in the spec's frame and turned into the body's, so the symbols keep their meaning.
pub(crate) fn params<A: Algebra>(cx: &mut Cx<'_, A>, robot: &Robot) -> Params<A::E> {
    let turn = super::frames::turns(robot);
    let body = robot
        .bodies
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let s = b.symbolic;
            let g = &turn[i];
            if *g == mat3::IDENTITY || !(s.mass || s.com || s.inertia) {
                let inertial = Inertial {
                    mass: b.mass,
                    com: b.com,
                    inertia_com: b.inertia_com,
                    symbolic: s,
                };
                let (m, h, j) = one_body(cx, i + 1, &inertial);
                return body_params(cx, i + 1, m, h, j);
            }
            let gt = mat3::transpose(g);
            let inertial = Inertial {
                mass: b.mass,
                com: mat3::mat_vec(g, b.com),
                inertia_com: mat3::mul(g, &mat3::mul(&b.inertia_com, &gt)),
                symbolic: s,
            };
            let (m, h, j) = one_body(cx, i + 1, &inertial);
            let gk = k33(*g);
            let h = cx.mat_t_vec(&gk, &h);
            // Gᵀ J G, and exactly symmetric.
            let (jg, _) = cx.mat_mul(&j, &gk);
            let (j, _) = cx.mat_mul(&k33(gt), &jg);
            let mut sym = j;
            for r in 0..3 {
                for c in 0..r {
                    sym[r][c] = sym[c][r];
                }
            }
            body_params(cx, i + 1, m, h, sym)
        })
        .collect();
    subsystems(cx, robot, body)
}

/// The inertial numbers of one body as the spec gives them (about the centre of mass).
struct Inertial {
    mass: f64,
    com: [f64; 3],
    inertia_com: [[f64; 3]; 3],
    symbolic: SymbolicInertial,
}

/// A body's mass, first moment and inertia about its pole, before [`body_params`].
type Raw<E> = (S<E>, Vec3<E>, Mat3<E>);

/// The mass, first moment and inertia of body `n` (0: a floating base) about its pole, read
/// under the names `m{n}`, `mx{n}`.., `ixx{n}`.. where they are symbolic.
fn one_body<A: Algebra>(cx: &mut Cx<'_, A>, n: usize, b: &Inertial) -> Raw<A::E> {
    let sym = b.symbolic;
    let m = cx.param(&format!("m{n}"), b.mass, sym.mass);
    let mut h = [S::K(0.0); 3];
    for a in 0..3 {
        let name = format!("m{}{n}", super::scalar::AXES[a]);
        h[a] = if sym.com {
            cx.param(&name, b.mass * b.com[a], true)
        } else if sym.mass {
            // The first moment follows the symbolic mass: m · com.
            cx.mul(m, S::K(b.com[a]))
        } else {
            cx.param(&name, b.mass * b.com[a], false)
        };
    }
    // Parallel-axis term m (|c|² δ_ab - c_a c_b), numerically.
    let shift = |a: usize, c: usize| {
        let d = if a == c {
            b.com.iter().map(|x| x * x).sum()
        } else {
            0.0
        };
        b.mass * (d - b.com[a] * b.com[c])
    };
    let mut j = [[S::K(0.0); 3]; 3];
    for a in 0..3 {
        for c in a..3 {
            let pole = b.inertia_com[a][c] + shift(a, c);
            let name = format!("{}{n}", INERTIA_NAMES[a][c]);
            j[a][c] = if sym.inertia || !(sym.mass || sym.com) {
                cx.param(&name, pole, sym.inertia)
            } else {
                // Numeric inertia about the CoM, shifted to the pole through the symbolic
                // mass / first moment, so the pole inertia stays consistent with them.
                let term = |cx: &mut Cx<'_, A>, p: usize, r: usize| {
                    if sym.com {
                        let hh = cx.mul(h[p], h[r]);
                        cx.div(hh, m)
                    } else {
                        cx.mul(m, S::K(b.com[p] * b.com[r]))
                    }
                };
                let mut v = S::K(b.inertia_com[a][c]);
                if a == c {
                    for p in (0..3).filter(|&p| p != a) {
                        let t = term(cx, p, p);
                        v = cx.add(v, t);
                    }
                } else {
                    let t = term(cx, a, c);
                    v = cx.sub(v, t);
                }
                v
            };
            j[c][a] = j[a][c];
        }
    }
    (m, h, j)
}

/// The parameters of a floating base body about the base origin, named `m0`, `mx0`, ..
/// where they are symbolic (the regressor's derivation; a spec's base body is numeric).
pub(crate) fn base_body_params<A: Algebra>(
    cx: &mut Cx<'_, A>,
    b: &crate::model::BaseBody,
) -> BodyInertia<A::E> {
    let inertial = Inertial {
        mass: b.mass,
        com: b.com,
        inertia_com: b.inertia_com,
        symbolic: b.symbolic,
    };
    let (m, h, j) = one_body(cx, 0, &inertial);
    body_params(cx, 0, m, h, j)
}

/// A body's parameters with its gyroscopic coefficients.
fn body_params<A: Algebra>(
    cx: &mut Cx<'_, A>,
    n: usize,
    m: S<A::E>,
    h: Vec3<A::E>,
    j: Mat3<A::E>,
) -> BodyInertia<A::E> {
    let jdiff = [
        cx.sub(j[2][2], j[1][1]),
        cx.sub(j[0][0], j[2][2]),
        cx.sub(j[1][1], j[0][0]),
    ];
    // Name only real differences, never a parameter handle itself.
    let pairs = [(2, 1), (0, 2), (1, 0)];
    for (k, l) in ["Ia", "Ib", "Ic"].iter().enumerate() {
        let (p, r) = pairs[k];
        if !j[p][p].is_zero() && !j[r][r].is_zero() {
            cx.label(jdiff[k], || format!("{l}{n}"));
        }
    }
    BodyInertia { m, h, j, jdiff }
}

/// The robot's parameters from its bodies: adds the subsystem masses, each body's mass plus
/// those of the subsystems it carries.
fn subsystems<A: Algebra>(
    cx: &mut Cx<'_, A>,
    robot: &Robot,
    body: Vec<BodyInertia<A::E>>,
) -> Params<A::E> {
    let topo = robot.topology();
    let nb = body.len();
    let mut msub = vec![S::K(0.0); nb];
    for i in (0..nb).rev() {
        let mut m = body[i].m;
        for &c in topo.children(i) {
            m = cx.add(m, msub[c]);
        }
        msub[i] = m;
        if topo.children(i).iter().any(|&c| !msub[c].is_zero()) {
            cx.label(msub[i], || format!("msub{}", i + 1));
        }
    }
    Params { body, msub }
}

/// `Some(a)` when `u` is `±e_a`.
fn coordinate_axis(u: [f64; 3]) -> Option<usize> {
    (0..3).find(|&a| u[a].abs() == 1.0)
}

/// Base-parameter regrouping: parameters that joint-space dynamics cannot tell apart from
/// parameters of the carrier are moved there, exactly.
///
/// The dynamics are linear in each body's `(m, h, J)`, so a body's parameters may be split into
/// parts. For a revolute joint `j` about `u` the part `(m_j, (u·h_j) u, λ (I - u uᵀ))` (mass
/// and axial first moment at `O_j`, an inertia symmetric about `u`) is unchanged by the
/// rotation `q_j` about `u`: it moves with body `j-1` and is added to its parameters (shifted
/// from `O_j` to `O_{j-1}` by the constant `d_{j-1}`); on the first body it sits on the fixed
/// base and is dropped. For a prismatic joint the whole inertia `J_j` turns with body `j-1`.
/// Working from the tip, every body after a revolute joint is left massless with a first
/// moment normal to its axis and, for a coordinate axis, one diagonal inertia entry zero (`λ`
/// is that entry): Khalil and Gautier's regrouped parameters (`XXR = XX - YY`, `MR`, `MZR`..),
/// here as expressions of the physical ones.
///
/// Joint forces, the mass matrix and everything derived from them are unchanged; the internal
/// reactions of single bodies are not, so the static reactions keep the physical parameters.
pub(crate) fn regroup<A: Algebra>(
    cx: &mut Cx<'_, A>,
    robot: &Robot,
    par: &Params<A::E>,
    poles: &Poles<A::E>,
) -> Params<A::E> {
    let n = par.body.len();
    let mut m: Vec<S<A::E>> = par.body.iter().map(|b| b.m).collect();
    let mut h: Vec<Vec3<A::E>> = par.body.iter().map(|b| b.h).collect();
    let mut j: Vec<Mat3<A::E>> = par.body.iter().map(|b| b.j).collect();
    for k in (0..n).rev() {
        let b = &robot.bodies[k];
        match b.joint {
            JointKind::Prismatic => {
                if let Some(p) = b.parent {
                    j[p] = sym_add(cx, &j[p], &j[k]);
                }
                j[k] = k33([[0.0; 3]; 3]);
            }
            JointKind::Revolute => {
                let u = k3(b.axis);
                // Axial first moment, removed from body k.
                let uh = cx.dot(&u, &h[k]);
                let hpar = cx.scale(uh, &u);
                let hperp = match coordinate_axis(b.axis) {
                    Some(a) => {
                        let mut v = h[k];
                        v[a] = S::K(0.0);
                        v
                    }
                    None => {
                        let neg = cx.scale(S::K(-1.0), &hpar);
                        cx.vadd(&h[k], &neg)
                    }
                };
                // λ (I - u uᵀ): for a coordinate axis λ zeroes the diagonal entry of the
                // last normal axis (Khalil's XXR = XX - YY for z).
                let mut sym = k33([[0.0; 3]; 3]);
                let mut lam = None;
                if let Some(a) = coordinate_axis(b.axis) {
                    let (p, r) = ((a + 1) % 3, (a + 2) % 3);
                    let zeroed = p.max(r);
                    let other = p.min(r);
                    let l = j[k][zeroed][zeroed];
                    sym[p][p] = l;
                    sym[r][r] = l;
                    j[k][other][other] = cx.sub(j[k][other][other], l);
                    j[k][zeroed][zeroed] = S::K(0.0);
                    lam = Some(l);
                }
                // What moves is symmetric about the axis: in the carrier's axes it is the same
                // with the axis as the carrier sees it (the body's frame may be turned).
                let (sym, hpar) = if b.rotation == mat3::IDENTITY {
                    (sym, hpar)
                } else {
                    let uc = mat3::mat_vec(&b.rotation, b.axis);
                    let mut turned = k33([[0.0; 3]; 3]);
                    if let Some(l) = lam {
                        for r in 0..3 {
                            for c in 0..3 {
                                let delta = if r == c { 1.0 } else { 0.0 };
                                turned[r][c] = cx.mul(S::K(delta - uc[r] * uc[c]), l);
                            }
                        }
                    }
                    (turned, cx.scale(uh, &k3(uc)))
                };
                if let Some(p) = b.parent {
                    let d = poles.o[k];
                    let moved = shift_sym(cx, &sym, m[k], &hpar, &d);
                    j[p] = sym_add(cx, &j[p], &moved);
                    let md = cx.scale(m[k], &d);
                    let hm = cx.vadd(&md, &hpar);
                    h[p] = cx.vadd(&h[p], &hm);
                    m[p] = cx.add(m[p], m[k]);
                }
                h[k] = hperp;
                m[k] = S::K(0.0);
            }
        }
    }
    let body = (0..n)
        .map(|k| body_params(cx, k + 1, m[k], h[k], j[k]))
        .collect();
    subsystems(cx, robot, body)
}

/// Names of the base parameters of body `n` (1-based): mass, first moment, inertia entries.
pub(crate) fn base_names(n: usize) -> ([String; 1], [String; 3], [[String; 3]; 3]) {
    let j = |a: &str| format!("{a}r{n}");
    (
        [format!("mr{n}")],
        [j("mx"), j("my"), j("mz")],
        [
            [j("xx"), j("xy"), j("xz")],
            [j("xy"), j("yy"), j("yz")],
            [j("xz"), j("yz"), j("zz")],
        ],
    )
}

/// The base parameters themselves as the symbolic inputs ([`ParameterSet::Base`]): every
/// regrouped entry that depends on a symbolic physical parameter becomes the parameter
/// `mr{n}`, `mxr{n}`.., `xxr{n}`, `xyr{n}`.. (default: its value at the spec's physical
/// values); entries the regrouping leaves known (zeros, numeric bodies) stay constants.
/// Parameters are created body by body in the order m, mx, my, mz, xx, xy, xz, yy, yz, zz.
///
/// [`ParameterSet::Base`]: crate::model::ParameterSet::Base
pub(crate) fn base_params<A: Algebra>(
    cx: &mut Cx<'_, A>,
    robot: &Robot,
    unread: &HashSet<String>,
) -> Params<A::E> {
    let body = base_entries(robot, unread)
        .into_iter()
        .enumerate()
        .map(|(k, (m, h, j))| {
            let mut read = |(name, s): &(String, S<f64>)| match *s {
                S::K(v) => S::K(v),
                S::X(v) => cx.param(name, v, true),
            };
            let m = read(&m);
            let h = [0, 1, 2].map(|a| read(&h[a]));
            let mut jj = k33([[0.0; 3]; 3]);
            for r in 0..3 {
                for c in r..3 {
                    jj[r][c] = read(&j[r][c]);
                    jj[c][r] = jj[r][c];
                }
            }
            body_params(cx, k + 1, m, h, jj)
        })
        .collect();
    subsystems(cx, robot, body)
}

/// One named regrouped entry at the spec values.
type Entry = (String, S<f64>);

/// Per body, the regrouped mass, first moment and inertia, named, evaluated at the spec's
/// physical values; `S::X` marks the entries that depend on a symbolic physical parameter.
/// The `unread` entries, which no joint-space output depends on, are zero.
pub(crate) fn base_entries(
    robot: &Robot,
    unread: &HashSet<String>,
) -> Vec<(Entry, [Entry; 3], [[Entry; 3]; 3])> {
    let entry = |name: String, s: S<f64>| {
        let s = if unread.contains(&name) { S::K(0.0) } else { s };
        (name, s)
    };
    // Only the constant interpole vectors of revolute joints are read by the regrouping, so
    // the joint positions given here do not matter.
    let mut num = crate::algebra::Numeric {
        q: vec![0.0; robot.dof()],
        ..Default::default()
    };
    let mut ncx = Cx::new(&mut num);
    let phys = params(&mut ncx, robot);
    let poles = super::kinematics::poles(&mut ncx, robot);
    let reg = regroup(&mut ncx, robot, &phys, &poles);
    reg.body
        .iter()
        .enumerate()
        .map(|(k, b)| {
            let (mn, hn, jn) = base_names(k + 1);
            let [mn] = mn;
            (
                entry(mn, b.m),
                [0, 1, 2].map(|a| entry(hn[a].clone(), b.h[a])),
                [0, 1, 2].map(|r| [0, 1, 2].map(|c| entry(jn[r][c].clone(), b.j[r][c]))),
            )
        })
        .collect()
}

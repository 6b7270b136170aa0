//! The method's inertial parameters: body masses, first moments and inertia about the pole, and
//! the subsystem masses `m_i = Σ_{k≥i} m_ok`.
//!
//! Every inertial number enters through [`Algebra::param`](crate::algebra::Algebra::param) under
//! the names `m{i}`, `mx{i}`.., `ixx{i}`.. (1-based), so any of them can stay symbolic.

use super::scalar::{Cx, S, V3};
use crate::algebra::Algebra;
use crate::model::Robot;

/// Parameters of one body, in its own frame, about its pole `O_i`.
pub(crate) struct BodyParams<E> {
    /// Body mass `m_oi`.
    pub m: S<E>,
    /// First moment about the pole, `m_oi · O_iC_i`.
    pub h: V3<E>,
    /// Inertia tensor about the pole (tensor entries, symmetric).
    pub j: [[S<E>; 3]; 3],
    /// `I^a = J_zz - J_yy`, `I^b = J_xx - J_zz`, `I^c = J_yy - J_xx` (gyroscopic coefficients).
    pub jdiff: V3<E>,
}

/// Parameters of the whole chain.
pub(crate) struct Params<E> {
    /// Per body.
    pub body: Vec<BodyParams<E>>,
    /// Subsystem masses `m_i`, with `m_{N+1} = 0` appended.
    pub msub: Vec<S<E>>,
}

const INERTIA_NAMES: [[&str; 3]; 3] = [
    ["ixx", "ixy", "ixz"],
    ["ixy", "iyy", "iyz"],
    ["ixz", "iyz", "izz"],
];

/// Reads the parameters of `robot` through the algebra.
pub(crate) fn params<A: Algebra>(cx: &mut Cx<'_, A>, robot: &Robot) -> Params<A::E> {
    let mut body = Vec::with_capacity(robot.dof());
    for (i, b) in robot.bodies.iter().enumerate() {
        let n = i + 1;
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
        body.push(BodyParams { m, h, j, jdiff });
    }
    let nb = body.len();
    let mut msub = vec![S::K(0.0); nb + 1];
    for i in (0..nb).rev() {
        msub[i] = cx.add(body[i].m, msub[i + 1]);
        if !msub[i + 1].is_zero() {
            cx.label(msub[i], || format!("msub{}", i + 1));
        }
    }
    Params { body, msub }
}

//! Body orientations as direction cosines (seed 003, recursion (5)-(8) and Tables 1-2).
//!
//! Each elementary step of (5)-(8) is the rotation by `q_i` about joint axis `i`. Written in the
//! Rodrigues form `R = (u uᵀ) + c (I - u uᵀ) + s [u]×` with the geometry folded at derivation
//! time, a coordinate axis (±x, ±y, ±z) yields exactly the simple DCs of Table 1 (0, ±1, ±c,
//! ±s) with no arithmetic; a general unit axis gets the full Rodrigues entries.
//!
//! The absolute orientation `R_j` (columns = axes of frame `j` in the base, i.e. the triples
//! `η_{j0}`) composes the same steps from the base outwards, `R_j = R_{j-1} Rot_j`, so `R_{j-1}`
//! is shared by every later body. A run of revolute joints about the same axis (prismatic joints
//! in between do not rotate) is one rotation by the summed angle, written with `c_{23}`, `s_{23}`
//! as in Table 2 and the papers.

use super::scalar::{k33, Cx, Mat3, AXES, S};
use crate::algebra::Algebra;
use crate::model::{JointKind, Robot};

/// Direction cosines of the chain at the current `q`.
pub(crate) struct Orientation<E> {
    /// `Rot_j`: axes of frame `j` (columns) in frame `j-1` (the body's constant
    /// [`crate::RobotBody::rotation`] for prismatic joints, the identity unless the derivation
    /// turned the frame).
    pub local: Vec<Mat3<E>>,
    /// `R_j`: axes of frame `j` (columns) in the base frame.
    pub abs: Vec<Mat3<E>>,
}

const IDENTITY: [[f64; 3]; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

/// Rotation by the angle with cosine `c` and sine `s` about the unit axis `u`.
pub(crate) fn rodrigues<A: Algebra>(
    cx: &mut Cx<'_, A>,
    u: [f64; 3],
    c: S<A::E>,
    s: S<A::E>,
) -> Mat3<A::E> {
    let skew = [[0.0, -u[2], u[1]], [u[2], 0.0, -u[0]], [-u[1], u[0], 0.0]];
    let mut r = k33(IDENTITY);
    for a in 0..3 {
        for b in 0..3 {
            let uu = u[a] * u[b];
            let delta = if a == b { 1.0 } else { 0.0 };
            let tc = cx.mul(S::K(delta - uu), c);
            let ts = cx.mul(S::K(skew[a][b]), s);
            let t = cx.add(tc, ts);
            r[a][b] = cx.add(S::K(uu), t);
        }
    }
    r
}

/// A joint's rotation `rot` after its body's constant turn (a frame the derivation chose, see
/// `frames`; the identity leaves `rot` as it is).
fn after_turn<A: Algebra>(cx: &mut Cx<'_, A>, turn: &[[f64; 3]; 3], rot: Mat3<A::E>) -> Mat3<A::E> {
    if *turn == IDENTITY {
        rot
    } else {
        cx.mat_mul(&k33(*turn), &rot).0
    }
}

/// Local and absolute direction cosines of every body.
pub(crate) fn orientation<A: Algebra>(cx: &mut Cx<'_, A>, robot: &Robot) -> Orientation<A::E> {
    let n = robot.dof();
    let mut local = Vec::with_capacity(n);
    let mut abs: Vec<Mat3<A::E>> = Vec::with_capacity(n);
    // For each revolute joint: first joint of its run of equal axes along the path from the
    // base, and the run's angle mask.
    let mut run: Vec<(usize, u64)> = Vec::with_capacity(n);
    // Nearest revolute joint at or before each body on its path from the base.
    let mut last_revolute: Vec<Option<usize>> = Vec::with_capacity(n);
    for (j, b) in robot.bodies.iter().enumerate() {
        let before = b.parent.and_then(|p| last_revolute[p]);
        match b.joint {
            JointKind::Prismatic => {
                local.push(k33(IDENTITY));
                run.push((j, 0));
                last_revolute.push(before);
                let r = match b.parent {
                    None => k33(IDENTITY),
                    Some(p) => abs[p],
                };
                abs.push(r);
            }
            JointKind::Revolute => {
                let c = S::X(cx.alg.cos(j));
                let s = S::X(cx.alg.sin(j));
                let turned = b.rotation != IDENTITY;
                let rot = rodrigues(cx, b.axis, c, s);
                let rot = after_turn(cx, &b.rotation, rot);
                local.push(rot);
                let (start, mask) = match before {
                    Some(p) if !turned && robot.bodies[p].axis == b.axis => {
                        (run[p].0, run[p].1 | (1 << j))
                    }
                    _ => (j, 1u64 << j),
                };
                run.push((start, mask));
                last_revolute.push(Some(j));
                let step = if mask == 1 << j {
                    rot
                } else {
                    let c = S::X(cx.alg.cos_sum(mask));
                    let s = S::X(cx.alg.sin_sum(mask));
                    let sum = rodrigues(cx, b.axis, c, s);
                    after_turn(cx, &robot.bodies[start].rotation, sum)
                };
                // The orientation the run starts from: that of the start's carrier.
                let r = match robot.bodies[start].parent {
                    None => step,
                    Some(p) => {
                        let (r, arith) = cx.mat_mul(&abs[p], &step);
                        // Name only the DCs that needed arithmetic (the papers substitute the
                        // simple ones by value): `x^y_5` = x_5 · y.
                        for (rr, (row, flags)) in r.iter().zip(arith.iter()).enumerate() {
                            for col in 0..3 {
                                if flags[col] {
                                    cx.label(row[col], || {
                                        format!("{}^{}_{}", AXES[col], AXES[rr], j + 1)
                                    });
                                }
                            }
                        }
                        r
                    }
                };
                abs.push(r);
            }
        }
    }
    Orientation { local, abs }
}

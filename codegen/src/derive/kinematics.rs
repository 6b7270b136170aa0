//! Poles, tool pose and the geometric Jacobian.

use super::orientation::Orientation;
use super::scalar::{k3, k33, Cx, M3, S, V3};
use crate::algebra::Algebra;
use crate::model::{JointKind, Robot};

/// Interpole vectors at the current `q`.
pub(crate) struct Poles<E> {
    /// `O_1` in the base frame: `base` (+ `q_1 axis_1` when joint 1 is prismatic).
    pub d_base: V3<E>,
    /// `O_j O_{j+1}` in frame `j`: `next_j` (+ `q_{j+1} axis_{j+1}` when joint `j+1` is
    /// prismatic; frames `j` and `j+1` are then parallel). The last one reaches the tool point.
    pub d: Vec<V3<E>>,
}

/// `next_j` plus the slide of a following prismatic joint.
pub(crate) fn poles<A: Algebra>(cx: &mut Cx<'_, A>, robot: &Robot) -> Poles<A::E> {
    let slide = |cx: &mut Cx<'_, A>, j: usize, v: [f64; 3]| -> V3<A::E> {
        let b = &robot.bodies[j];
        let mut out = k3(v);
        if b.joint == JointKind::Prismatic {
            let q = S::X(cx.alg.q(j));
            for (o, a) in out.iter_mut().zip(b.axis) {
                let t = cx.mul(S::K(a), q);
                *o = cx.add(*o, t);
            }
        }
        out
    };
    let n = robot.dof();
    let d_base = slide(cx, 0, robot.base);
    let d = (0..n)
        .map(|j| {
            let next = robot.bodies[j].next;
            if j + 1 < n {
                slide(cx, j + 1, next)
            } else {
                k3(next)
            }
        })
        .collect();
    Poles { d_base, d }
}

/// Tool pose and the lever arms `p - O_j` (base frame) the Jacobian needs.
pub(crate) struct ToolPose<E> {
    /// `R_N · tool_rotation` (columns = tool axes in the base).
    pub rotation: M3<E>,
    /// Tool point `p` in the base.
    pub position: V3<E>,
    /// `p - O_j` in the base, per joint.
    pub arm: Vec<V3<E>>,
}

/// `p = O_1 + Σ_j R_j d_j`, accumulated from the tip so the suffix sums are the lever arms.
pub(crate) fn tool_pose<A: Algebra>(
    cx: &mut Cx<'_, A>,
    robot: &Robot,
    ori: &Orientation<A::E>,
    poles: &Poles<A::E>,
) -> ToolPose<A::E> {
    let n = robot.dof();
    let mut arm = vec![[S::K(0.0); 3]; n];
    let mut acc = [S::K(0.0); 3];
    for j in (0..n).rev() {
        let dj = cx.mat_vec(&ori.abs[j], &poles.d[j]);
        acc = cx.vadd(&acc, &dj);
        cx.label3(&acc, || format!("r{}", j + 1));
        arm[j] = acc;
    }
    let position = cx.vadd(&poles.d_base, &acc);
    let (rotation, _) = cx.mat_mul(&ori.abs[n - 1], &k33(robot.tool_rotation));
    ToolPose {
        rotation,
        position,
        arm,
    }
}

/// Geometric Jacobian, 6×N row-major: linear velocity of the tool point, then angular velocity.
pub(crate) fn jacobian<A: Algebra>(
    cx: &mut Cx<'_, A>,
    robot: &Robot,
    ori: &Orientation<A::E>,
    tool: &ToolPose<A::E>,
) -> Vec<S<A::E>> {
    let n = robot.dof();
    let mut jac = vec![S::K(0.0); 6 * n];
    for (j, b) in robot.bodies.iter().enumerate() {
        // The joint axis is fixed in frame j, so in the base it is R_j axis_j (a column of R_j
        // for a coordinate axis: no arithmetic).
        let axis = cx.mat_vec(&ori.abs[j], &k3(b.axis));
        let (lin, ang) = match b.joint {
            JointKind::Revolute => (cx.cross(&axis, &tool.arm[j]), axis),
            JointKind::Prismatic => (axis, [S::K(0.0); 3]),
        };
        for r in 0..3 {
            jac[r * n + j] = lin[r];
            jac[(r + 3) * n + j] = ang[r];
        }
    }
    jac
}

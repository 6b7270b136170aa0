//! Poles, frame poses and geometric Jacobians.

use super::orientation::Orientation;
use super::scalar::{k3, k33, Cx, Mat3, Vec3, S};
use crate::algebra::Algebra;
use crate::model::{JointKind, Robot};

/// Interpole vectors at the current `q`.
pub(crate) struct Poles<E> {
    /// `O_p O_i` of every body `i` in its carrier's frame `p` (base frame for a body on the
    /// base): `origin_i`, plus `q_i axis_i` when joint `i` is prismatic (the axis is the same
    /// vector in both frames). For a chain, `o[i + 1]` is the papers' `L_i e_i`.
    pub o: Vec<Vec3<E>>,
}

/// `origin_i` plus the slide of a prismatic joint `i`.
pub(crate) fn poles<A: Algebra>(cx: &mut Cx<'_, A>, robot: &Robot) -> Poles<A::E> {
    let o = robot
        .bodies
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let mut out = k3(b.origin);
            if b.joint == JointKind::Prismatic {
                let q = S::X(cx.alg.q(i));
                for (o, a) in out.iter_mut().zip(b.axis) {
                    let t = cx.mul(S::K(a), q);
                    *o = cx.add(*o, t);
                }
            }
            out
        })
        .collect();
    Poles { o }
}

/// Every body's pole in the base frame: `p_j = p_parent + R_parent o_j`.
pub(crate) fn base_poles<A: Algebra>(
    cx: &mut Cx<'_, A>,
    robot: &Robot,
    ori: &Orientation<A::E>,
    poles: &Poles<A::E>,
) -> Vec<Vec3<A::E>> {
    let topo = robot.topology();
    let mut p: Vec<Vec3<A::E>> = Vec::with_capacity(robot.dof());
    for j in 0..robot.dof() {
        let pj = match topo.parent(j) {
            None => poles.o[j],
            Some(i) => {
                let r = cx.mat_vec(&ori.abs[i], &poles.o[j]);
                cx.vadd(&p[i], &r)
            }
        };
        p.push(pj);
    }
    p
}

/// A point fixed on a body, and the frame there: what forward kinematics and a Jacobian are
/// computed for (the chain's tool, or a named frame).
pub(crate) struct Site {
    /// Carrying body; `None` for the base itself.
    pub body: Option<usize>,
    /// Point from the body's pole (from the base origin for the base), body frame.
    pub position: [f64; 3],
    /// Orientation in the body frame (rows).
    pub rotation: [[f64; 3]; 3],
    /// Whether the lever arms get the papers' names `r{j}` (the chain's tool).
    pub labelled: bool,
}

/// Pose of a site and the lever arms `p - O_j` (base frame) its Jacobian needs.
pub(crate) struct SitePose<E> {
    /// `R_b · rotation` (columns = the site's axes in the base).
    pub rotation: Mat3<E>,
    /// The site point `p` in the base.
    pub position: Vec3<E>,
    /// `p - O_j` in the base for the bodies `j` on the path from the base (zero elsewhere).
    pub arm: Vec<Vec3<E>>,
    /// Bodies on the path from the base to the site's body, base side first.
    pub path: Vec<usize>,
}

/// `p = O_root + Σ_j R_p(j) o_j + R_b position` along the path, accumulated from the site so
/// the partial sums are the lever arms.
pub(crate) fn site_pose<A: Algebra>(
    cx: &mut Cx<'_, A>,
    robot: &Robot,
    ori: &Orientation<A::E>,
    poles: &Poles<A::E>,
    site: &Site,
) -> SitePose<A::E> {
    let n = robot.dof();
    let topo = robot.topology();
    let path = site.body.map_or_else(Vec::new, |b| topo.path(b));
    let mut arm = vec![[S::K(0.0); 3]; n];
    let mut acc = [S::K(0.0); 3];
    // Body j's contribution is its vector to the next point on the path, in its own frame.
    let mut step = k3(site.position);
    for &j in path.iter().rev() {
        let dj = cx.mat_vec(&ori.abs[j], &step);
        acc = cx.vadd(&acc, &dj);
        if site.labelled {
            cx.label3(&acc, || format!("r{}", j + 1));
        }
        arm[j] = acc;
        step = poles.o[j];
    }
    // `step` is now the root body's pole in the base frame (the site itself on the base).
    let position = cx.vadd(&step, &acc);
    let rotation = match site.body {
        Some(b) => cx.mat_mul(&ori.abs[b], &k33(site.rotation)).0,
        None => k33(site.rotation),
    };
    SitePose {
        rotation,
        position,
        arm,
        path,
    }
}

/// Geometric Jacobian of a site, 6×N row-major: linear velocity of the site point, then
/// angular velocity; columns of joints off the path are exact zeros.
pub(crate) fn jacobian<A: Algebra>(
    cx: &mut Cx<'_, A>,
    robot: &Robot,
    ori: &Orientation<A::E>,
    site: &SitePose<A::E>,
) -> Vec<S<A::E>> {
    let n = robot.dof();
    let mut jac = vec![S::K(0.0); 6 * n];
    for &j in &site.path {
        let b = &robot.bodies[j];
        // The joint axis is fixed in frame j, so in the base it is R_j axis_j (a column of R_j
        // for a coordinate axis: no arithmetic).
        let axis = cx.mat_vec(&ori.abs[j], &k3(b.axis));
        let (lin, ang) = match b.joint {
            JointKind::Revolute => (cx.cross(&axis, &site.arm[j]), axis),
            JointKind::Prismatic => (axis, [S::K(0.0); 3]),
        };
        for r in 0..3 {
            jac[r * n + j] = lin[r];
            jac[(r + 3) * n + j] = ang[r];
        }
    }
    jac
}

//! Body frames chosen for short code.
//!
//! A spec (and an imported URDF) gives every body frame parallel to the base at `q = 0`, as
//! seed 003 does. A joint about a coordinate axis then rotates with the simple direction
//! cosines of Table 1 (no arithmetic), but an axis tilted in those frames, such as a finger
//! set at 5° on a palm, makes every rotation of that body and of everything it carries a full
//! Rodrigues matrix, and every inertia product dense.
//!
//! Joint-space results do not depend on how a body's frame is turned, so the derivation may
//! pick the frames. A body whose revolute joint axis is a coordinate axis of its carrier's
//! frame keeps that frame (nothing changes for robots built of such joints, such as the
//! papers' arms). Any other revolute body gets a frame with `z` along its axis and `x` along
//! the common normal to the axis of the first non-parallel revolute body it carries, so that
//! axis in turn is a coordinate axis and its body keeps the frame: a tilted finger costs one
//! constant rotation at its root. The pole stays where the spec puts it. Prismatic bodies keep
//! their carrier's frame.
//!
//! Outputs given in body axes (the static reactions) are turned back with [`turns`].

use crate::mat3::{self, IDENTITY, M3, V3};
use crate::model::{JointKind, ParameterSet, Robot};

/// An axis counts as a coordinate axis when its other components are at most this: the
/// rounding of turning it into a frame, not a change of the model (a looser tolerance moved
/// the forward dynamics of SO-101, whose axes are tilted by 1e-5, by 7e-10 relative).
const COORDINATE_TOLERANCE: f64 = 1e-13;

/// `G_i` of every body: its frame in its spec frame (columns = its axes), the product of the
/// constant [`crate::RobotBody::rotation`]s along its path (the identity for a spec's robot).
pub(crate) fn turns(robot: &Robot) -> Vec<M3> {
    let mut turn: Vec<M3> = Vec::with_capacity(robot.dof());
    for b in &robot.bodies {
        let carrier = b.parent.map_or(IDENTITY, |p| turn[p]);
        turn.push(clean(mat3::mul(&carrier, &b.rotation)));
    }
    turn
}

/// `Some(±e_a)` when `u` is within [`COORDINATE_TOLERANCE`] of a coordinate axis.
fn coordinate(u: V3) -> Option<V3> {
    let a = (0..3).max_by(|&x, &y| u[x].abs().total_cmp(&u[y].abs()))?;
    let off = (0..3)
        .filter(|&b| b != a)
        .map(|b| u[b].abs())
        .fold(0.0, f64::max);
    (off <= COORDINATE_TOLERANCE).then(|| {
        let mut e = [0.0; 3];
        e[a] = u[a].signum();
        e
    })
}

fn normalize(u: V3) -> V3 {
    mat3::scale(u, 1.0 / mat3::norm(u))
}

/// Entries within rounding of 0 or ±1 made exact, so the simplifier folds them.
fn clean(m: M3) -> M3 {
    m.map(|row| {
        row.map(|x| {
            if x.abs() < 1e-15 {
                0.0
            } else if (x.abs() - 1.0).abs() < 1e-15 {
                x.signum()
            } else {
                x
            }
        })
    })
}

/// A component counts as the rounding of re-expressing a vector or tensor in turned axes,
/// and is made zero, when it is at most this fraction of the largest component: a vector
/// along a turned axis keeps components near `2^-55` of its length across it, each of which
/// would otherwise cost the generated code its products (and keep every product it enters
/// from folding).
const ROUNDING_FRACTION: f64 = 1e-13;

/// `v` re-expressed in turned axes, its components within rounding of zero made exact.
fn rounded_off(v: V3) -> V3 {
    let scale = v.iter().fold(0.0, |m: f64, x| m.max(x.abs()));
    v.map(|x| residue_as_zero(x, scale))
}

/// A symmetric tensor re-expressed in turned axes, its entries within rounding of zero made
/// exact (symmetric entries alike, so that it stays symmetric).
fn rounded_off_tensor(m: M3) -> M3 {
    let scale = m.iter().flatten().fold(0.0, |a: f64, x| a.max(x.abs()));
    m.map(|row| row.map(|x| residue_as_zero(x, scale)))
}

/// `x`, or zero when it is at most [`ROUNDING_FRACTION`] of `scale`.
fn residue_as_zero(x: f64, scale: f64) -> f64 {
    if x.abs() <= ROUNDING_FRACTION * scale {
        0.0
    } else {
        x
    }
}

/// Whether the derivation may choose the frames: not with the base parameters as inputs (they
/// are defined in the spec's frames) nor with elasticity (compliance directions are given in
/// those frames too). Symbolic physical parameters are read in the spec's frames and turned
/// (`params::params`).
fn eligible(robot: &Robot) -> bool {
    robot.parameters == ParameterSet::Physical
        && !robot.has_elasticity()
        && robot.bodies.iter().all(|b| b.rotation == IDENTITY)
}

/// `robot` in frames chosen for short code ([`crate::RobotBody::rotation`] set), or `None`
/// when every body keeps its frame (all revolute axes are coordinate axes of their carriers'
/// frames) or the robot is not eligible.
pub(crate) fn reframe(robot: &Robot) -> Option<Robot> {
    if !eligible(robot) {
        return None;
    }
    let n = robot.dof();
    let topo = robot.topology();
    let mut turn: Vec<M3> = Vec::with_capacity(n);
    let mut fixed: Vec<M3> = Vec::with_capacity(n);
    let mut axes: Vec<V3> = Vec::with_capacity(n);
    for (i, b) in robot.bodies.iter().enumerate() {
        let carrier = b.parent.map_or(IDENTITY, |p| turn[p]);
        // The axis in the carrier's new axes.
        let u = mat3::mat_t_vec(&carrier, b.axis);
        let along = coordinate(u);
        if b.joint == JointKind::Prismatic || along.is_some() {
            turn.push(carrier);
            fixed.push(IDENTITY);
            axes.push(along.unwrap_or(u));
            continue;
        }
        let z = normalize(u);
        // The common normal to the first carried hinge that is not parallel.
        let normal = topo.children(i).iter().find_map(|&c| {
            let child = &robot.bodies[c];
            let w = mat3::mat_t_vec(&carrier, child.axis);
            let x = mat3::cross(z, w);
            (child.joint == JointKind::Revolute && mat3::norm(x) > 1e-6).then(|| normalize(x))
        });
        // Else the carrier axis least along `z`, made normal to it.
        let x = normal.unwrap_or_else(|| {
            let a = (0..3)
                .min_by(|&p, &r| z[p].abs().total_cmp(&z[r].abs()))
                .unwrap_or(0);
            let mut e = [0.0; 3];
            e[a] = 1.0;
            normalize(mat3::sub(e, mat3::scale(z, mat3::dot(e, z))))
        });
        // Point `x` the way of the carrier axis it is nearest, so signs stay familiar.
        let a = (0..3)
            .max_by(|&p, &r| x[p].abs().total_cmp(&x[r].abs()))
            .unwrap_or(0);
        let x = if x[a] < 0.0 { mat3::scale(x, -1.0) } else { x };
        let y = mat3::cross(z, x);
        let r = clean(mat3::transpose(&[x, y, z]));
        turn.push(clean(mat3::mul(&carrier, &r)));
        fixed.push(r);
        axes.push([0.0, 0.0, 1.0]);
    }
    if fixed.iter().all(|r| *r == IDENTITY)
        && axes.iter().zip(&robot.bodies).all(|(a, b)| *a == b.axis)
    {
        return None;
    }
    let mut out = robot.clone();
    for (i, b) in out.bodies.iter_mut().enumerate() {
        let g = &turn[i];
        let carrier = b.parent.map_or(IDENTITY, |p| turn[p]);
        b.rotation = fixed[i];
        b.axis = axes[i];
        b.origin = rounded_off(mat3::mat_t_vec(&carrier, b.origin));
        b.next = rounded_off(mat3::mat_t_vec(g, b.next));
        b.com = rounded_off(mat3::mat_t_vec(g, b.com));
        let inertia = mat3::mul(&mat3::transpose(g), &mat3::mul(&b.inertia_com, g));
        b.inertia_com = rounded_off_tensor(inertia);
    }
    for f in &mut out.frames {
        // The base keeps its frame.
        let Some(g) = f.body.map(|b| &turn[b]) else {
            continue;
        };
        f.position = rounded_off(mat3::mat_t_vec(g, f.position));
        f.rotation = clean(mat3::mul(&mat3::transpose(g), &f.rotation));
    }
    if let Some(last) = turn.last() {
        out.tool_rotation = clean(mat3::mul(&mat3::transpose(last), &robot.tool_rotation));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::parse_spec;

    /// A three-joint finger tilted by `deg` about `x` on its base (axes and vectors in the
    /// base-parallel spec frames).
    fn finger(deg: f64) -> Robot {
        let (s, c) = deg.to_radians().sin_cos();
        // Rx(deg) applied to a vector.
        let t = |v: [f64; 3]| [v[0], c * v[1] - s * v[2], s * v[1] + c * v[2]];
        let f = |v: [f64; 3]| format!("[{:?}, {:?}, {:?}]", v[0], v[1], v[2]);
        let mut text =
            String::from("version = 1\nname = \"finger\"\ngravity = [0.0, 0.0, -9.81]\n");
        let axes = [[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [0.0, 1.0, 0.0]];
        for (i, axis) in axes.iter().enumerate() {
            text += &format!(
                "[[body]]\nname = \"l{i}\"\njoint = \"revolute\"\naxis = {}\nnext = {}\n\
                 mass = 0.05\ncom = {}\ninertia = {{ ixx = 1e-5, iyy = 1e-5, izz = 4e-6 }}\n",
                f(t(*axis)),
                f(t([0.0, 0.0, 0.04])),
                f(t([0.0, 0.0, 0.02])),
            );
        }
        parse_spec(&text, "finger.toml").expect("valid spec")
    }

    #[test]
    fn coordinate_axes_keep_the_spec_frames() {
        assert!(reframe(&finger(0.0)).is_none());
        // Signed coordinate axes, as the UR5's (z, -y, -y, -y, -z, -y).
        let mut arm = String::from("version = 1\nname = \"arm\"\ngravity = [0.0, 0.0, -9.81]\n");
        for axis in ["z", "-y", "-y", "-y", "-z", "-y"] {
            arm += &format!(
                "[[body]]\njoint = \"revolute\"\naxis = \"{axis}\"\nnext = [0.1, 0.0, 0.2]\n\
                 mass = 1.0\ncom = [0.05, 0.0, 0.1]\n"
            );
        }
        assert!(reframe(&parse_spec(&arm, "arm.toml").expect("valid")).is_none());
    }

    #[test]
    fn a_tilted_finger_turns_only_at_its_root() {
        let r = reframe(&finger(5.0)).expect("tilted axes are reframed");
        let b = &r.bodies;
        assert_ne!(b[0].rotation, IDENTITY);
        assert_eq!(b[0].axis, [0.0, 0.0, 1.0]);
        for body in &b[1..] {
            assert_eq!(body.rotation, IDENTITY);
            assert!(coordinate(body.axis) == Some(body.axis), "{:?}", body.axis);
        }
        // In the finger's own axes the link vectors lose their tilt.
        for body in b {
            assert!(body.next[0].abs() < 1e-12 && body.next[1].abs() < 1e-12);
            assert!((body.next[2].abs() - 0.04).abs() < 1e-12);
        }
        // Every turn is a rotation.
        for g in &turns(&r) {
            let gtg = mat3::mul(&mat3::transpose(g), g);
            for (i, row) in gtg.iter().enumerate() {
                for (j, v) in row.iter().enumerate() {
                    let want = if i == j { 1.0 } else { 0.0 };
                    assert!((v - want).abs() < 1e-14);
                }
            }
            assert!((mat3::det(g) - 1.0).abs() < 1e-14);
        }
    }

    #[test]
    fn components_across_a_turned_axis_are_exact_zeros() {
        // A link along its tilted hinge axis, its inertia symmetric about that axis: in the
        // turned frame the vectors lie on `z` and the tensor is diagonal, exactly, so that the
        // generated code has no products with rounding residues (2^-55 and the like).
        let (s, c) = 30f64.to_radians().sin_cos();
        let (a, b) = (2e-4, 5e-5);
        let (iyy, izz, iyz) = (
            a * c * c + b * s * s,
            a * s * s + b * c * c,
            (a - b) * c * s,
        );
        let text = format!(
            "version = 1\nname = \"link\"\ngravity = [0.0, 0.0, -9.81]\n[[body]]\n\
             joint = \"revolute\"\naxis = [0.0, {:?}, {:?}]\nnext = [0.0, {:?}, {:?}]\n\
             mass = 0.5\ncom = [0.0, {:?}, {:?}]\ninertia = {{ ixx = {a:?}, iyy = {iyy:?}, \
             izz = {izz:?}, iyz = {iyz:?} }}\n",
            -s,
            c,
            -0.3 * s,
            0.3 * c,
            -0.1 * s,
            0.1 * c
        );
        let robot = parse_spec(&text, "link.toml").expect("valid spec");
        let turned = reframe(&robot).expect("a tilted axis is reframed");
        let body = &turned.bodies[0];
        assert_eq!(body.axis, [0.0, 0.0, 1.0]);
        assert_eq!(&body.next[..2], &[0.0, 0.0]);
        assert_eq!(&body.com[..2], &[0.0, 0.0]);
        let j = body.inertia_com;
        assert_eq!([j[0][1], j[0][2], j[1][2]], [0.0; 3]);
        assert_eq!([j[1][0], j[2][0], j[2][1]], [0.0; 3]);
        // What is made zero is rounding only: the rest keeps its value.
        assert!((body.next[2] - 0.3).abs() < 1e-15 && (body.com[2] - 0.1).abs() < 1e-15);
        assert!((j[0][0] - a).abs() < 1e-18 && (j[1][1] - a).abs() < 1e-18);
        assert!((j[2][2] - b).abs() < 1e-18);
    }

    #[test]
    fn base_parameters_as_inputs_keep_the_spec_frames() {
        let mut robot = finger(5.0);
        robot.parameters = ParameterSet::Base;
        assert!(reframe(&robot).is_none());
    }
}

//! Whether a robot's mass matrix is regular: which motion, if any, moves no mass.
//!
//! Bodies without mass are allowed (a massless floating root under which two massive legs
//! hang, a massless link between two joints), as Pinocchio allows them; what is refused is a
//! robot whose mass matrix is singular at every configuration, because forward dynamics is
//! then undefined. The mass matrix is evaluated numerically at two configurations; a motion
//! that moves nothing at both (after scaling each coordinate to unit diagonal, so that a light
//! finger on a heavy trunk is not mistaken for one) is taken to be singular everywhere.
//! Configurations where a regular robot's mass matrix drops rank (a massless link whose
//! carried mass lies on its axis at some angles) are the robot's own, as in Pinocchio.

use crate::algebra::Numeric;
use crate::model::Robot;

/// Eigenvalue of the unit-diagonal mass matrix at or below which it counts as singular.
const SINGULAR: f64 = 1e-10;

/// A motion that moves nothing: the coordinate it mostly is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SingularMotion {
    /// Mostly joint `j`'s own motion (with the others' and the floating base's).
    Joint(usize),
    /// The floating base's motion alone.
    Base,
}

/// The motion along which `robot`'s mass matrix is singular at every configuration, if any.
pub fn singular_motion(robot: &Robot) -> Option<SingularMotion> {
    let off = if robot.is_floating() { 6 } else { 0 };
    let mut found = None;
    for state in 0..2 {
        let motion = singular_at(robot, off, state)?;
        found = Some(motion);
    }
    found
}

/// The null motion of the mass matrix at one configuration, if it has one.
fn singular_at(robot: &Robot, off: usize, state: usize) -> Option<SingularMotion> {
    let n = robot.dof();
    let nv = n + off;
    // Spread, repeatable angles (no generator needed for two states).
    let angle = |j: usize| (12.9898 * (j + 1) as f64 + 78.233 * (state + 1) as f64).sin() * 3.0;
    let mut num = Numeric {
        q: (0..n).map(angle).collect(),
        qd: vec![0.0; n],
        qdd: vec![0.0; n],
        tau: vec![0.0; n],
        // Pose: position, unit quaternion x y z w (the mass matrix in base axes needs none).
        base: vec![0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0],
        ..Numeric::default()
    };
    let m = super::derive(&mut num, robot).mass_matrix;
    if m.len() != nv * nv {
        return None;
    }
    if let Some(j) = (0..nv).find(|&j| m[j * nv + j] <= 0.0 || !m[j * nv + j].is_finite()) {
        return Some(coordinate(j, off));
    }
    let d: Vec<f64> = (0..nv).map(|j| m[j * nv + j].sqrt()).collect();
    let scaled = nalgebra::DMatrix::from_fn(nv, nv, |r, c| m[r * nv + c] / (d[r] * d[c]));
    let eigen = scaled.symmetric_eigen();
    let (k, &smallest) = eigen
        .eigenvalues
        .iter()
        .enumerate()
        .min_by(|a, b| a.1.total_cmp(b.1))?;
    if smallest > SINGULAR * eigen.eigenvalues.max() {
        return None;
    }
    // Name the joint that takes most of the motion; the base only when no joint takes part.
    let v = eigen.eigenvectors.column(k);
    let largest = v.amax();
    let joint = (off..nv)
        .filter(|&j| v[j].abs() > 0.1 * largest)
        .max_by(|&a, &b| v[a].abs().total_cmp(&v[b].abs()));
    Some(joint.map_or(SingularMotion::Base, |j| coordinate(j, off)))
}

fn coordinate(j: usize, off: usize) -> SingularMotion {
    if j < off {
        SingularMotion::Base
    } else {
        SingularMotion::Joint(j - off)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::parse_spec;

    fn chain(masses: [f64; 3], inertia: f64) -> Robot {
        let body = |name: &str, axis: &str, mass: f64| {
            format!(
                "[[body]]\nname = \"{name}\"\njoint = \"revolute\"\naxis = \"{axis}\"\n\
                 next = [0.3, 0.0, 0.0]\nmass = {mass}\ncom = [0.15, 0.0, 0.0]\n\
                 inertia = {{ ixx = {inertia}, iyy = {inertia}, izz = {inertia} }}\n"
            )
        };
        let text = format!(
            "name = \"c\"\n{}{}{}",
            body("a", "z", masses[0]),
            body("b", "z", masses[1]),
            body("c", "z", masses[2])
        );
        parse_spec(&text, "c.toml").expect("spec")
    }

    #[test]
    fn a_massless_link_between_two_joints_is_regular() {
        assert_eq!(singular_motion(&chain([1.0, 0.0, 1.0], 0.0)), None);
        assert_eq!(singular_motion(&chain([1.0, 1.0, 1.0], 0.01)), None);
    }

    #[test]
    fn a_last_joint_that_moves_nothing_is_named() {
        // The last body: no mass and no inertia, so its joint moves nothing.
        let robot = chain([1.0, 1.0, 0.0], 0.0);
        assert_eq!(singular_motion(&robot), Some(SingularMotion::Joint(2)));
    }

    #[test]
    fn two_coaxial_joints_over_massless_bodies_are_singular() {
        // a and b turn about the same axis through the same point, and only c has mass: a
        // turning one way and b the other moves nothing, though no diagonal entry is zero.
        let mut robot = chain([0.0, 0.0, 1.0], 0.0);
        robot.bodies[0].next = [0.0; 3];
        robot.bodies[1].origin = [0.0; 3];
        let motion = singular_motion(&robot);
        assert!(
            matches!(motion, Some(SingularMotion::Joint(0 | 1))),
            "{motion:?}"
        );
    }
}

//! Snapping: imported values within a tolerance of an exact one are made exact.
//!
//! URDF files write `pi/2` as `1.57079632679`, axes as `1.2e-17 0 1`, and CAD exports leave
//! products of inertia of `1e-19`. Taken literally, these give rotations whose entries are
//! `4.9e-12` instead of `0`, which the simplifier cannot fold, and code nearly twice the size of
//! the same robot written by hand. The importer therefore rounds, and records each rounding as a
//! [`Snap`]:
//!
//! - angles (`rpy`) within [`ANGLE_TOL`] rad of a multiple of `pi/2` become that multiple, and
//!   their rotations are built from exact `0` and `±1`;
//! - components of a (normalised) axis within [`AXIS_TOL`] of `0` become `0`, and a single
//!   component left becomes `±1` (else the axis is renormalised);
//! - a rotation (the tool's, a frame's) whose entries are all within [`COMPOSED_TOL`] of `0` or
//!   `±1` and which then is a signed permutation gets those entries;
//! - axes, offsets and centres of mass composed in base axes are snapped within
//!   [`COMPOSED_TOL`] (times the robot's size for lengths): the noise of composing exact values;
//! - offsets as written (`<origin xyz>`) within [`OFFSET_TOL`] times the robot's size of `0`
//!   become `0`;
//! - products of inertia within [`INERTIA_TOL`] times the largest moment of `0` become `0`.
//!
//! A value moved by `δ` (an angle, an axis component) moves results by about `δ` relative, so
//! the angle and axis tolerances are half of `1e-9` and the snapped model agrees with the
//! literal one to `1e-9` relative (tested on every URDF fixture).

use std::fmt;

use super::error::Location;
use crate::mat3::{mul, M3, V3};

/// `pi/2 - FRAC_PI_2`: what the `f64` nearest `pi/2` lacks.
const FRAC_PI_2_LO: f64 = 6.123_233_995_736_766e-17;

/// Angles within this many radians of a multiple of `pi/2` are snapped to it.
///
/// Half of `1e-9`: turning an axis by `δ` changes results by about as much, relative (the
/// Allegro hand's thumb, written `1.5707963259`, `8.9e-10` off, moves its inverse dynamics by
/// `1.07e-9` when snapped), and the snapped model must agree with the literal one to `1e-9`.
pub const ANGLE_TOL: f64 = 5e-10;
/// Components of a unit axis within this of `0` are snapped to `0`; entries of a rotation
/// matrix within this of `0` or `±1` are snapped when the result is still a rotation. Half of
/// `1e-9`, as [`ANGLE_TOL`].
pub const AXIS_TOL: f64 = 5e-10;
/// Offsets within this times the robot's size (the sum of the lengths of all joint offsets)
/// of `0` are snapped.
pub const OFFSET_TOL: f64 = 1e-9;
/// Products of inertia within this times the largest moment of the same tensor are snapped.
pub const INERTIA_TOL: f64 = 1e-9;
/// Values composed in the method's frames (axes, offsets and rotations in base axes) are
/// snapped within this (times the robot's size for offsets): the rounding noise of composing
/// exact values, far below [`AXIS_TOL`]. A composed value further from exact comes from a
/// value kept as written, and snapping its consequences alone would move the model by as much
/// as snapping the value itself.
pub const COMPOSED_TOL: f64 = 1e-11;

/// One value the importer rounded to an exact one.
#[derive(Clone, Debug, PartialEq)]
pub struct Snap {
    /// Where: the attribute the value is written in, or for a value derived from several (a
    /// body's axis, offset or inertia in base axes) the joint that moves the body.
    pub at: Location,
    /// What was snapped, e.g. `joint[shoulder_lift_joint].origin.rpy.pitch`,
    /// `link[forearm_link].inertial.inertia.ixy` or, for values in the method's frames,
    /// `body[3].next.y` (bodies numbered from 1, as in `quasidyn import`'s output).
    pub what: String,
    /// The value as read or computed.
    pub from: f64,
    /// The exact value it was replaced by.
    pub to: f64,
    /// Whether the value is an angle (printed as a multiple of `pi/2`).
    pub angle: bool,
}

impl Snap {
    /// By how much the value moved: `|from - to|`, for angles measured from the true multiple
    /// of `pi/2` (so `1.5707963267948966`, the `f64` nearest `pi/2`, moved by `6.1e-17`).
    pub fn by(&self) -> f64 {
        if self.angle {
            let k = (self.to / std::f64::consts::FRAC_PI_2).round();
            ((self.from - self.to) - k * FRAC_PI_2_LO).abs()
        } else {
            (self.from - self.to).abs()
        }
    }
}

impl fmt::Display for Snap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let to = if self.angle {
            quarter_turns_text((self.to / std::f64::consts::FRAC_PI_2).round() as i64)
        } else {
            format!("{}", self.to)
        };
        write!(
            f,
            "{}: {}: {} -> {to} (by {:.1e})",
            self.at,
            self.what,
            number(self.from),
            self.by()
        )
    }
}

/// `x` in its shortest form, in exponent notation when very small or large.
fn number(x: f64) -> String {
    if x != 0.0 && !(1e-4..1e6).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

fn quarter_turns_text(k: i64) -> String {
    match k {
        0 => "0".to_owned(),
        1 => "pi/2".to_owned(),
        -1 => "-pi/2".to_owned(),
        2 => "pi".to_owned(),
        -2 => "-pi".to_owned(),
        k if k % 2 == 0 => format!("{}*pi", k / 2),
        k => format!("{k}*pi/2"),
    }
}

/// The multiple of `pi/2` that `angle` is within [`ANGLE_TOL`] of, if any.
pub(crate) fn quarter_turns(angle: f64) -> Option<i64> {
    let k = (angle / std::f64::consts::FRAC_PI_2).round();
    if k.abs() > 1e6 {
        return None;
    }
    let exact = k * std::f64::consts::FRAC_PI_2;
    ((angle - exact).abs() <= ANGLE_TOL).then_some(k as i64)
}

/// Exact `(sin, cos)` of `k` quarter turns.
fn quarter_sin_cos(k: i64) -> (f64, f64) {
    match k.rem_euclid(4) {
        0 => (0.0, 1.0),
        1 => (1.0, 0.0),
        2 => (0.0, -1.0),
        _ => (-1.0, 0.0),
    }
}

fn rot(axis: usize, (s, c): (f64, f64)) -> M3 {
    match axis {
        0 => [[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]],
        1 => [[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]],
        _ => [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]],
    }
}

/// URDF roll-pitch-yaw `Rz(yaw) Ry(pitch) Rx(roll)` where the angles given as a number of
/// quarter turns use exact sines and cosines.
pub(crate) fn rpy_with(angles: V3, quarters: [Option<i64>; 3]) -> M3 {
    let sc = |i: usize| quarters[i].map_or_else(|| angles[i].sin_cos(), quarter_sin_cos);
    mul(&mul(&rot(2, sc(2)), &rot(1, sc(1))), &rot(0, sc(0)))
}

/// Snaps the components of unit vector `v` within [`AXIS_TOL`] of `0` to `0`; if one component
/// is left it becomes `±1`, else what is left is renormalised. Returns the new vector and
/// `(component, from, to)` of each component snapped to `0` or `±1` (renormalisation moves the
/// others by rounding only).
pub(crate) fn snap_unit(v: V3) -> (V3, Vec<(usize, f64, f64)>) {
    snap_unit_within(v, AXIS_TOL)
}

/// [`snap_unit`] with tolerance `tol`.
pub(crate) fn snap_unit_within(v: V3, tol: f64) -> (V3, Vec<(usize, f64, f64)>) {
    let mut out = v.map(|x| if x.abs() <= tol { 0.0 } else { x });
    if out == v {
        return (v, Vec::new());
    }
    let nonzero = out.iter().filter(|x| **x != 0.0).count();
    if nonzero == 1 {
        out = out.map(|x| if x == 0.0 { 0.0 } else { x.signum() });
    } else {
        let n = out.iter().map(|x| x * x).sum::<f64>().sqrt();
        if n > 0.0 {
            out = out.map(|x| x / n);
        }
    }
    let changes = (0..3)
        .filter(|&i| out[i] != v[i] && (out[i] == 0.0 || out[i].abs() == 1.0))
        .map(|i| (i, v[i], out[i]))
        .collect();
    (out, changes)
}

/// Snaps the components of `v` within `tol` of `0`; returns `(component, from)` of each.
pub(crate) fn snap_small(v: &mut V3, tol: f64) -> Vec<(usize, f64)> {
    let mut changes = Vec::new();
    for (i, x) in v.iter_mut().enumerate() {
        if *x != 0.0 && x.abs() <= tol {
            changes.push((i, *x));
            *x = 0.0;
        }
    }
    changes
}

/// Snaps the products of inertia of a symmetric tensor within [`INERTIA_TOL`] times its
/// largest moment; returns `(name, from)` of each (`ixy`, `ixz`, `iyz`).
pub(crate) fn snap_products(m: &mut M3) -> Vec<(&'static str, f64)> {
    let moment = m[0][0].abs().max(m[1][1].abs()).max(m[2][2].abs());
    let tol = INERTIA_TOL * moment;
    let mut changes = Vec::new();
    for (name, i, j) in [("ixy", 0, 1), ("ixz", 0, 2), ("iyz", 1, 2)] {
        let x = m[i][j];
        if x != 0.0 && x.abs() <= tol {
            changes.push((name, x));
            m[i][j] = 0.0;
            m[j][i] = 0.0;
        }
    }
    changes
}

/// Snaps a rotation matrix: if every entry is within `tol` of `0` or `±1` and the result is a
/// signed permutation with determinant `+1`, to that; otherwise only the entries within `tol`
/// of `0`, to `0` (the matrix then stays orthonormal to that tolerance). Returns
/// `(row, column, from, to)` of each change.
pub(crate) fn snap_rotation(r: &mut M3, tol: f64) -> Vec<(usize, usize, f64, f64)> {
    let mut out = *r;
    let mut near_exact = true;
    for x in out.iter_mut().flatten() {
        if x.abs() <= tol {
            *x = 0.0;
        } else if (x.abs() - 1.0).abs() <= tol {
            *x = x.signum();
        } else {
            near_exact = false;
        }
    }
    let permutation = near_exact
        && (0..3).all(|i| {
            out[i].iter().filter(|x| **x != 0.0).count() == 1
                && (0..3).filter(|&k| out[k][i] != 0.0).count() == 1
        })
        && det(&out) == 1.0;
    if !permutation {
        out = r.map(|row| row.map(|x| if x.abs() <= tol { 0.0 } else { x }));
    }
    let mut changes = Vec::new();
    for i in 0..3 {
        for j in 0..3 {
            if out[i][j] != r[i][j] {
                changes.push((i, j, r[i][j], out[i][j]));
            }
        }
    }
    *r = out;
    changes
}

fn det(m: &M3) -> f64 {
    m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
}

#[cfg(test)]
// The URDF values under test are approximations of pi/2 and pi on purpose.
#[allow(clippy::approx_constant)]
mod tests {
    use super::*;
    use crate::import::chain::rpy;

    #[test]
    fn quarter_turns_within_tolerance() {
        assert_eq!(quarter_turns(1.57079632679), Some(1));
        assert_eq!(quarter_turns(-3.14159265359), Some(-2));
        assert_eq!(quarter_turns(0.0), Some(0));
        assert_eq!(quarter_turns(1.5708), None);
        assert_eq!(quarter_turns(0.7853981633974483), None);
    }

    #[test]
    fn exact_rpy_matches_the_literal_one() {
        let angles = [0.3, 1.57079632679, -3.14159265359];
        let exact = rpy_with(angles, [None, Some(1), Some(-2)]);
        let literal = rpy(angles);
        for (a, b) in exact.iter().flatten().zip(literal.iter().flatten()) {
            assert!((a - b).abs() < 1e-11, "{a} {b}");
        }
        // Pitch of pi/2 exactly: the third row is (-1, 0, 0) with no rounding left.
        assert_eq!(exact[2][0], -1.0);
        assert_eq!(exact[2][1], 0.0);
    }

    #[test]
    fn unit_vectors_snap_to_coordinate_axes() {
        let (v, changes) = snap_unit([1e-12, -1.0 + 1e-13, 0.0]);
        assert_eq!(v, [0.0, -1.0, 0.0]);
        assert_eq!(changes.len(), 2);
        // A component near 1 is left alone while the others are not negligible.
        let (v, changes) = snap_unit([-6.3e-6, 0.99999999997, 2.65e-6]);
        assert_eq!(v, [-6.3e-6, 0.99999999997, 2.65e-6]);
        assert!(changes.is_empty());
        let (v, changes) = snap_unit([0.6, 0.8, 1e-12]);
        assert_eq!(v[2], 0.0);
        assert!((v[0] - 0.6).abs() < 1e-15 && changes.len() == 1);
        let (v, changes) = snap_unit([0.6, 0.8, 1e-6]);
        assert_eq!(v, [0.6, 0.8, 1e-6]);
        assert!(changes.is_empty());
    }

    #[test]
    fn products_and_rotations() {
        let mut m = [[2.0, 1e-12, 0.1], [1e-12, 3.0, 0.0], [0.1, 0.0, 1.0]];
        let changes = snap_products(&mut m);
        assert_eq!(changes, vec![("ixy", 1e-12)]);
        assert_eq!((m[0][1], m[1][0], m[0][2]), (0.0, 0.0, 0.1));

        let mut r = rpy([-1.57079632679, 0.0, 0.0]);
        assert_eq!(snap_rotation(&mut r, AXIS_TOL).len(), 2);
        assert_eq!(r, [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]]);
        let mut tilted = rpy([0.1, 0.0, 0.0]);
        assert!(snap_rotation(&mut tilted, AXIS_TOL).is_empty());
        // Tilted by 1e-5 about x and 1e-12 about z: the entries of 1e-12 and 1e-17 go, the
        // diagonal (1 - 5e-11) and the 1e-5 entries stay.
        let mut r = rpy([1e-5, 0.0, 1e-12]);
        let changes = snap_rotation(&mut r, AXIS_TOL);
        assert_eq!(changes.len(), 3, "{changes:?}");
        assert_eq!((r[0][1], r[1][0], r[0][2]), (0.0, 0.0, 0.0));
        assert!(r[1][1] < 1.0);
        assert!(r[2][1] > 9e-6);
    }
}

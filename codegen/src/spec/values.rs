//! The validator and its checks of single values (numbers, vectors, directions, names,
//! rotations, inertia tensors), each failing with a located error; and the axis letters, read
//! and written.

use std::ops::Range;

use toml::Spanned;

use super::raw::{About, Num, RawDirection, RawInertia, RawVec};
use crate::error::SpecError;
use crate::mat3::{self, M3, V3};
use crate::model::SymbolicInertial;

/// Tolerance on the length of axis-like vectors given in a spec.
pub(super) const UNIT_TOLERANCE: f64 = 1e-3;

/// Tolerance on the orthonormality of a tool rotation matrix.
const ROTATION_TOLERANCE: f64 = 1e-6;

/// Relative tolerance (times the trace) of the inertia checks, so that tensors computed in
/// floating point (e.g. shifted from the pole) are not rejected for rounding.
const INERTIA_TOLERANCE: f64 = 1e-9;

/// Turns the raw structs into the model, locating every error in `text` (named `file`).
pub(super) struct Validator<'a> {
    pub(super) text: &'a str,
    pub(super) file: &'a str,
}

impl Validator<'_> {
    pub(super) fn err(
        &self,
        span: Range<usize>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> SpecError {
        SpecError::at(self.text, self.file, span, field, message)
    }

    pub(super) fn num(&self, x: &Num, field: &str) -> Result<f64, SpecError> {
        let v = *x.get_ref();
        if v.is_finite() {
            Ok(v)
        } else {
            Err(self.err(
                x.span(),
                field,
                format!("expected a finite number, got {v}"),
            ))
        }
    }

    /// An optional non-negative number (0 if absent) at `table.key`, as a spring's stiffness
    /// or a damper's damping.
    pub(super) fn non_negative(
        &self,
        value: &Option<Num>,
        table: &str,
        key: &str,
    ) -> Result<f64, SpecError> {
        let Some(n) = value else { return Ok(0.0) };
        let field = format!("{table}.{key}");
        let v = self.num(n, &field)?;
        if v < 0.0 {
            return Err(self.err(
                n.span(),
                field,
                format!("{key} must not be negative, got {v}"),
            ));
        }
        Ok(v)
    }

    pub(super) fn vec3(&self, v: &RawVec, field: &str) -> Result<V3, SpecError> {
        let mut out = [0.0; 3];
        for (i, (o, x)) in out.iter_mut().zip(v.get_ref()).enumerate() {
            *o = self.num(x, &format!("{field}[{}]", i + 1))?;
        }
        Ok(out)
    }

    /// A unit direction: an axis letter, or a vector normalised after checking its length.
    pub(super) fn direction(
        &self,
        d: &Spanned<RawDirection>,
        field: &str,
        what: &str,
    ) -> Result<V3, SpecError> {
        match d.get_ref() {
            RawDirection::Letter(s) => letter_axis(s).ok_or_else(|| {
                self.err(
                    d.span(),
                    field,
                    format!(
                        r#"expected an axis letter "x", "y", "z", "-x", "-y", "-z" or a vector [x, y, z], got "{s}""#
                    ),
                )
            }),
            RawDirection::Vector(v) => {
                if v.len() != 3 {
                    return Err(self.err(
                        d.span(),
                        field,
                        format!("expected a vector of 3 numbers, got {} numbers", v.len()),
                    ));
                }
                let mut u = [0.0; 3];
                for (i, (o, x)) in u.iter_mut().zip(v).enumerate() {
                    *o = self.num(x, &format!("{field}[{}]", i + 1))?;
                }
                let n = mat3::norm(u);
                if n == 0.0 {
                    return Err(self.err(d.span(), field, format!("{what} must not be the zero vector")));
                }
                if !n.is_finite() || (n - 1.0).abs() > UNIT_TOLERANCE {
                    return Err(self.err(
                        d.span(),
                        field,
                        format!("{what} must be a unit vector (length within {UNIT_TOLERANCE} of 1), got length {n}"),
                    ));
                }
                // Vectors that are already unit to rounding are left untouched, so that a
                // written spec reads back bit for bit.
                Ok(mat3::unit_to_rounding(u))
            }
        }
    }

    pub(super) fn name(&self, s: &Spanned<String>, field: &str) -> Result<String, SpecError> {
        if s.get_ref().trim().is_empty() {
            Err(self.err(s.span(), field, "expected a non-empty name"))
        } else {
            Ok(s.get_ref().clone())
        }
    }

    pub(super) fn symbolic(
        &self,
        list: &Option<Spanned<Vec<Spanned<String>>>>,
        field: &str,
        out: &mut SymbolicInertial,
    ) -> Result<(), SpecError> {
        for (i, item) in list.iter().flat_map(|l| l.get_ref()).enumerate() {
            match item.get_ref().as_str() {
                "mass" => out.mass = true,
                "com" => out.com = true,
                "inertia" => out.inertia = true,
                other => {
                    return Err(self.err(
                        item.span(),
                        format!("{field}[{}]", i + 1),
                        format!(r#"expected "mass", "com" or "inertia", got "{other}""#),
                    ))
                }
            }
        }
        Ok(())
    }

    /// Three finite numbers given as a list of any length (a located error otherwise).
    pub(super) fn position_list(
        &self,
        v: &[Num],
        span: Range<usize>,
        field: &str,
    ) -> Result<V3, SpecError> {
        if v.len() != 3 {
            return Err(self.err(
                span,
                field,
                format!("expected an array of 3 numbers, got {} numbers", v.len()),
            ));
        }
        let mut out = [0.0; 3];
        for (i, (o, x)) in out.iter_mut().zip(v).enumerate() {
            *o = self.num(x, &format!("{field}[{}]", i + 1))?;
        }
        Ok(out)
    }

    /// An orientation given as `rotation` rows or `rpy` (at most one; neither is identity).
    pub(super) fn rotation(
        &self,
        rotation: &Option<Spanned<[[Num; 3]; 3]>>,
        rpy: &Option<RawVec>,
        table: &str,
    ) -> Result<M3, SpecError> {
        match (rotation, rpy) {
            (Some(_), Some(rpy)) => Err(self.err(
                rpy.span(),
                format!("{table}.rpy"),
                "give either `rotation` or `rpy`, not both",
            )),
            (None, None) => Ok(mat3::IDENTITY),
            (None, Some(rpy)) => {
                let [r, p, y] = self.vec3(rpy, &format!("{table}.rpy"))?;
                Ok(rpy_matrix(r, p, y))
            }
            (Some(rot), None) => {
                let field = format!("{table}.rotation");
                let mut m = [[0.0; 3]; 3];
                for (i, row) in rot.get_ref().iter().enumerate() {
                    for (j, x) in row.iter().enumerate() {
                        m[i][j] = self.num(x, &format!("{field}[{}][{}]", i + 1, j + 1))?;
                    }
                }
                let rrt = mat3::mul(&m, &mat3::transpose(&m));
                let mut worst: f64 = 0.0;
                let mut orthonormal = true;
                for (i, row) in rrt.iter().enumerate() {
                    for (j, v) in row.iter().enumerate() {
                        let dev = v - if i == j { 1.0 } else { 0.0 };
                        orthonormal &= within(dev, ROTATION_TOLERANCE);
                        worst = worst.max(dev.abs());
                    }
                }
                if !orthonormal {
                    return Err(self.err(
                        rot.span(),
                        field,
                        format!(
                            "expected an orthonormal matrix (R Rᵀ = I within {ROTATION_TOLERANCE}), \
                             largest deviation {worst:e}"
                        ),
                    ));
                }
                let d = mat3::det(&m);
                if !within(d - 1.0, ROTATION_TOLERANCE) {
                    return Err(self.err(
                        rot.span(),
                        field,
                        format!("expected a proper rotation (determinant +1), got determinant {d}"),
                    ));
                }
                Ok(m)
            }
        }
    }

    pub(super) fn inertia(
        &self,
        i: &Spanned<RawInertia>,
        field: &str,
    ) -> Result<(M3, About), SpecError> {
        let ri = i.get_ref();
        let get = |x: &Option<Num>, k: &str| -> Result<f64, SpecError> {
            x.as_ref()
                .map_or(Ok(0.0), |x| self.num(x, &format!("{field}.{k}")))
        };
        let ixx = get(&ri.ixx, "ixx")?;
        let iyy = get(&ri.iyy, "iyy")?;
        let izz = get(&ri.izz, "izz")?;
        let ixy = get(&ri.ixy, "ixy")?;
        let ixz = get(&ri.ixz, "ixz")?;
        let iyz = get(&ri.iyz, "iyz")?;
        let about = ri.about.as_ref().map_or(About::Com, |a| *a.get_ref());
        Ok(([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]], about))
    }

    /// Finite, and unless the table says `physical = false`, that of a real mass distribution
    /// ([`unphysical_inertia`]).
    pub(super) fn check_inertia(
        &self,
        t: &M3,
        about: About,
        table: &Spanned<RawInertia>,
        field: &str,
    ) -> Result<(), SpecError> {
        let moved = if about == About::Pole {
            " (after moving it from the pole to the centre of mass)"
        } else {
            ""
        };
        let span = table.span();
        if t.iter().flatten().any(|x| !x.is_finite()) {
            return Err(self.err(
                span,
                field,
                format!("the inertia tensor{moved} is not finite (numbers too large)"),
            ));
        }
        if table.get_ref().physical == Some(false) {
            return Ok(());
        }
        match unphysical_inertia(t) {
            Some(why) => Err(self.err(
                span,
                field,
                format!(
                    "the inertia tensor about the centre of mass{moved} {why} (`physical = false` \
                     takes it as given)"
                ),
            )),
            None => Ok(()),
        }
    }
}

/// Why `t` (finite, about the centre of mass) is not the inertia tensor of a real mass
/// distribution, if it is not: it must be symmetric positive semidefinite with principal moments
/// satisfying the triangle inequality, within `INERTIA_TOLERANCE` of the trace for rounding.
pub(super) fn unphysical_inertia(t: &M3) -> Option<String> {
    let ev = mat3::sym_eigenvalues(t);
    let trace = t[0][0] + t[1][1] + t[2][2];
    let tol = INERTIA_TOLERANCE * trace.abs().max(f64::MIN_POSITIVE);
    let shown = format!("{}, {}, {}", ev[0], ev[1], ev[2]);
    if !at_least(ev[0], -tol) {
        return Some(format!(
            "must be positive semidefinite; principal moments are {shown}"
        ));
    }
    // Ascending order, so the only inequality that can fail is I1 + I2 >= I3.
    if !at_least(ev[0] + ev[1], ev[2] - tol) {
        return Some(format!(
            "violates the triangle inequality I1 + I2 >= I3 of its principal moments: {shown}"
        ));
    }
    None
}

/// `|x| <= tol`, false for NaN.
fn within(x: f64, tol: f64) -> bool {
    x.abs() <= tol
}

/// `x >= y`, false for NaN.
fn at_least(x: f64, y: f64) -> bool {
    x >= y
}

/// Unit vector of a signed axis letter.
fn letter_axis(s: &str) -> Option<V3> {
    let (sign, letter) = match s.strip_prefix('-') {
        Some(rest) => (-1.0, rest),
        None => (1.0, s.strip_prefix('+').unwrap_or(s)),
    };
    let k = match letter {
        "x" => 0,
        "y" => 1,
        "z" => 2,
        _ => return None,
    };
    let mut v = [0.0; 3];
    v[k] = sign;
    Some(v)
}

/// The signed coordinate-axis letter of `v` (`"x"`, `"-y"`, ...) if it is exactly one.
pub fn axis_letter(v: [f64; 3]) -> Option<&'static str> {
    const NAMES: [[&str; 3]; 2] = [["x", "y", "z"], ["-x", "-y", "-z"]];
    let k = v.iter().position(|c| c.abs() == 1.0)?;
    if (0..3).any(|j| j != k && v[j] != 0.0) {
        return None;
    }
    Some(NAMES[usize::from(v[k] < 0.0)][k])
}

/// `Rz(yaw) Ry(pitch) Rx(roll)` (the URDF convention).
pub(crate) fn rpy_matrix(roll: f64, pitch: f64, yaw: f64) -> M3 {
    let (sr, cr) = roll.sin_cos();
    let (sp, cp) = pitch.sin_cos();
    let (sy, cy) = yaw.sin_cos();
    let rx = [[1.0, 0.0, 0.0], [0.0, cr, -sr], [0.0, sr, cr]];
    let ry = [[cp, 0.0, sp], [0.0, 1.0, 0.0], [-sp, 0.0, cp]];
    let rz = [[cy, -sy, 0.0], [sy, cy, 0.0], [0.0, 0.0, 1.0]];
    mat3::mul(&rz, &mat3::mul(&ry, &rx))
}

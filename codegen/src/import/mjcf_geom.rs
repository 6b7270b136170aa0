//! MJCF geometry as MuJoCo's compiler reads it: the five orientation forms, and the mass and
//! inertia of primitive geoms (sphere, capsule, ellipsoid, cylinder, box; `size` or `fromto`,
//! `mass` or `density`).

use super::chain::{Pose, M3, V3};
use super::error::ImportError;
use super::mjcf_parse::{Attrs, Count};
use crate::mat3::{cross, dot, norm, scale, transpose, IDENTITY};

/// The compiler settings orientations depend on.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Angles {
    /// Angles in degrees (`<compiler angle="degree">`, MuJoCo's default).
    pub degree: bool,
    /// `<compiler eulerseq>`: lower case about moving axes, upper case about fixed axes.
    pub eulerseq: [u8; 3],
}

impl Angles {
    pub fn radians(&self, angle: f64) -> f64 {
        if self.degree {
            angle / 180.0 * std::f64::consts::PI
        } else {
            angle
        }
    }
}

/// A quaternion `w x y z`.
type Quat = [f64; 4];

fn quat_mul(a: Quat, b: Quat) -> Quat {
    [
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    ]
}

/// The rotation matrix of a unit quaternion.
fn quat_to_mat(q: Quat) -> M3 {
    let [w, x, y, z] = q;
    [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y - w * z),
            2.0 * (x * z + w * y),
        ],
        [
            2.0 * (x * y + w * z),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z - w * x),
        ],
        [
            2.0 * (x * z - w * y),
            2.0 * (y * z + w * x),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ]
}

/// Rotation by `angle` about the unit `axis`.
pub(crate) fn axis_angle(axis: V3, angle: f64) -> M3 {
    let (s, c) = (angle / 2.0).sin_cos();
    quat_to_mat([c, s * axis[0], s * axis[1], s * axis[2]])
}

/// MuJoCo's minimal rotation taking `+z` to the direction of `v` (a half turn about `x` if `v`
/// points along `-z`).
pub(crate) fn z_to(v: V3) -> M3 {
    let c = cross([0.0, 0.0, 1.0], v);
    let s = norm(c);
    let axis = if s < 1e-10 {
        [1.0, 0.0, 0.0]
    } else {
        scale(c, 1.0 / s)
    };
    axis_angle(axis, s.atan2(v[2]))
}

/// The orientation forms MuJoCo accepts on a frame, body, geom, site or inertial.
const FORMS: [&str; 5] = ["quat", "axisangle", "euler", "xyaxes", "zaxis"];

/// The orientation an element gives (identity if none): at most one form on the element
/// itself; without one, the first its default class gives.
pub(crate) fn orientation(attrs: &Attrs, angles: &Angles) -> Result<M3, ImportError> {
    let own: Vec<&str> = FORMS
        .into_iter()
        .filter(|f| attrs.element.attr(f).is_some())
        .collect();
    if own.len() > 1 {
        return Err(attrs.invalid(
            own[1],
            format!(
                "orientation given twice ({}); give one of quat, axisangle, euler, xyaxes, zaxis",
                own.join(" and ")
            ),
        ));
    }
    let form = own
        .first()
        .copied()
        .or_else(|| FORMS.into_iter().find(|f| attrs.get(f).is_some()));
    let Some(form) = form else {
        return Ok(IDENTITY);
    };
    let too_small = |what: &str| attrs.invalid(form, format!("{what} is (nearly) zero"));
    match form {
        "quat" => {
            let q = attrs.array::<4>("quat")?.unwrap_or([1.0, 0.0, 0.0, 0.0]);
            // Scaled by the largest component first, so that huge ones do not overflow.
            let largest = q.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
            if largest < 1e-14 {
                return Err(too_small("the quaternion"));
            }
            let q = q.map(|x| x / largest);
            let n = q.iter().map(|x| x * x).sum::<f64>().sqrt();
            Ok(quat_to_mat(q.map(|x| x / n)))
        }
        "axisangle" => {
            let [x, y, z, angle] = attrs.array::<4>("axisangle")?.unwrap_or_default();
            let axis = unit(&[x, y, z]).ok_or_else(|| too_small("the axis"))?;
            Ok(axis_angle(axis, angles.radians(angle)))
        }
        "euler" => euler(attrs, angles),
        "xyaxes" => {
            let v = attrs.array::<6>("xyaxes")?.unwrap_or_default();
            let x = unit(&[v[0], v[1], v[2]]).ok_or_else(|| too_small("the x axis"))?;
            let y = [v[3], v[4], v[5]];
            let y = scale_sub(y, x, dot(x, y));
            let y = unit(&y).ok_or_else(|| too_small("the y axis orthogonal to x"))?;
            let z = unit(&cross(x, y)).ok_or_else(|| too_small("cross(x, y)"))?;
            Ok(transpose(&[x, y, z]))
        }
        _ => {
            let z = attrs.array::<3>("zaxis")?.unwrap_or_default();
            let z = unit(&z).ok_or_else(|| too_small("the z axis"))?;
            Ok(z_to(z))
        }
    }
}

fn euler(attrs: &Attrs, angles: &Angles) -> Result<M3, ImportError> {
    let e = attrs.array::<3>("euler")?.unwrap_or_default();
    let mut q: Quat = [1.0, 0.0, 0.0, 0.0];
    for (angle, axis) in e.into_iter().zip(angles.eulerseq) {
        let (s, c) = (angles.radians(angle) / 2.0).sin_cos();
        let rotation = match axis.to_ascii_lowercase() {
            b'x' => [c, s, 0.0, 0.0],
            b'y' => [c, 0.0, s, 0.0],
            _ => [c, 0.0, 0.0, s],
        };
        // Lower case: about the moving axes (post-multiply); upper case: fixed axes.
        q = if axis.is_ascii_lowercase() {
            quat_mul(q, rotation)
        } else {
            quat_mul(rotation, q)
        };
    }
    let n = q.iter().map(|x| x * x).sum::<f64>().sqrt();
    Ok(quat_to_mat(q.map(|x| x / n)))
}

fn scale_sub(a: V3, b: V3, s: f64) -> V3 {
    [a[0] - s * b[0], a[1] - s * b[1], a[2] - s * b[2]]
}

/// `v` normalised, `None` if its length is below MuJoCo's threshold. Scaled by its largest
/// component first, so that huge components do not overflow the length.
pub(crate) fn unit(v: &V3) -> Option<V3> {
    let largest = v.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
    if !(largest > 0.0 && largest.is_finite()) {
        return None;
    }
    let w = scale(*v, 1.0 / largest);
    let n = norm(w);
    (largest * n >= 1e-14).then(|| scale(w, 1.0 / n))
}

/// The local pose of an element from `pos` and its orientation.
pub(crate) fn local_pose(attrs: &Attrs, angles: &Angles) -> Result<Pose, ImportError> {
    Ok(Pose {
        r: orientation(attrs, angles)?,
        p: attrs.array::<3>("pos")?.unwrap_or_default(),
    })
}

/// A geom or site type, as far as its frame and mass are concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    Sphere,
    Capsule,
    Ellipsoid,
    Cylinder,
    Box,
    Plane,
    /// Mesh, sdf or height field: its volume needs a file.
    FromFile,
}

impl Shape {
    pub fn read(attrs: &Attrs) -> Result<Shape, ImportError> {
        let types = [
            "sphere",
            "capsule",
            "ellipsoid",
            "cylinder",
            "box",
            "plane",
            "mesh",
            "sdf",
            "hfield",
        ];
        Ok(match attrs.keyword("type", &types)?.unwrap_or("sphere") {
            "sphere" => Shape::Sphere,
            "capsule" => Shape::Capsule,
            "ellipsoid" => Shape::Ellipsoid,
            "cylinder" => Shape::Cylinder,
            "box" => Shape::Box,
            "plane" => Shape::Plane,
            _ => Shape::FromFile,
        })
    }
}

/// A geom's or site's frame in its body (or frame) and its size, `fromto` applied.
pub(crate) fn shaped_pose(
    attrs: &Attrs,
    shape: Shape,
    angles: &Angles,
) -> Result<(Pose, [f64; 3]), ImportError> {
    let mut size = [0.0; 3];
    if let Some(given) = attrs.numbers("size", Count::UpTo(3))? {
        size[..given.len()].copy_from_slice(&given);
    }
    let Some(ft) = attrs.array::<6>("fromto")? else {
        return Ok((local_pose(attrs, angles)?, size));
    };
    let along = matches!(
        shape,
        Shape::Capsule | Shape::Cylinder | Shape::Ellipsoid | Shape::Box
    );
    if !along {
        return Err(attrs.invalid(
            "fromto",
            "fromto needs a capsule, cylinder, ellipsoid or box".to_owned(),
        ));
    }
    if attrs.array::<3>("pos")?.is_some_and(|p| p != [0.0; 3]) {
        return Err(attrs.invalid("fromto", "both pos and fromto given".to_owned()));
    }
    // MuJoCo points the z axis from the second point to the first.
    let v = [ft[0] - ft[3], ft[1] - ft[4], ft[2] - ft[5]];
    let half = norm(v) / 2.0;
    if half < 1e-14 {
        return Err(attrs.invalid("fromto", "the two points coincide".to_owned()));
    }
    size[1] = half;
    if matches!(shape, Shape::Ellipsoid | Shape::Box) {
        size[2] = half;
        size[1] = size[0];
    }
    let pose = Pose {
        r: z_to(v),
        p: [
            (ft[0] + ft[3]) / 2.0,
            (ft[1] + ft[4]) / 2.0,
            (ft[2] + ft[5]) / 2.0,
        ],
    };
    Ok((pose, size))
}

/// A geom's volume: `None` for a plane (no volume) or a mesh (its file would be needed).
pub(crate) fn volume(shape: Shape, s: [f64; 3]) -> Option<f64> {
    use std::f64::consts::PI;
    Some(match shape {
        Shape::Sphere => 4.0 * PI * s[0].powi(3) / 3.0,
        Shape::Capsule => PI * (s[0] * s[0] * 2.0 * s[1] + 4.0 * s[0].powi(3) / 3.0),
        Shape::Cylinder => PI * s[0] * s[0] * 2.0 * s[1],
        Shape::Ellipsoid => 4.0 * PI * s[0] * s[1] * s[2] / 3.0,
        Shape::Box => 8.0 * s[0] * s[1] * s[2],
        Shape::Plane | Shape::FromFile => return None,
    })
}

/// Principal moments of inertia of a solid geom of mass `m` about its centre, in its frame.
pub(crate) fn principal_inertia(shape: Shape, s: [f64; 3], m: f64) -> V3 {
    match shape {
        Shape::Sphere => [2.0 * m * s[0] * s[0] / 5.0; 3],
        Shape::Capsule => {
            let (r, h) = (s[0], 2.0 * s[1]);
            // The two hemispheres make one sphere's share of the volume.
            let ms = m * 4.0 * r / (4.0 * r + 3.0 * h);
            let mc = m - ms;
            let sphere = 2.0 * ms * r * r / 5.0;
            // Each hemisphere's centre sits 3r/8 beyond the cylinder's end.
            let across =
                mc * (3.0 * r * r + h * h) / 12.0 + sphere + ms * h * (3.0 * r + 2.0 * h) / 8.0;
            [across, across, mc * r * r / 2.0 + sphere]
        }
        Shape::Cylinder => {
            let (r, h) = (s[0], 2.0 * s[1]);
            let across = m * (3.0 * r * r + h * h) / 12.0;
            [across, across, m * r * r / 2.0]
        }
        Shape::Ellipsoid | Shape::Box => {
            let d = if shape == Shape::Box { 3.0 } else { 5.0 };
            let [a, b, c] = s.map(|x| x * x);
            [m * (b + c) / d, m * (a + c) / d, m * (a + b) / d]
        }
        Shape::Plane | Shape::FromFile => [0.0; 3],
    }
}

/// The diagonal matrix of `d`.
pub(crate) fn diag(d: V3) -> M3 {
    [[d[0], 0.0, 0.0], [0.0, d[1], 0.0], [0.0, 0.0, d[2]]]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mat3::{mat_vec, rotate_tensor, sym_eigen};

    #[test]
    fn z_to_takes_z_to_the_direction() {
        for v in [
            [1.0, 2.0, 3.0],
            [0.0, 0.0, -2.0],
            [0.0, 0.0, 1.0],
            [1.0, 0.0, 0.0],
        ] {
            let z = mat_vec(&z_to(v), [0.0, 0.0, 1.0]);
            let u = unit(&v).unwrap();
            for i in 0..3 {
                assert!((z[i] - u[i]).abs() < 1e-15, "{v:?}");
            }
        }
    }

    #[test]
    fn capsule_tends_to_its_cylinder_and_sphere() {
        let long = principal_inertia(Shape::Capsule, [1e-6, 1.0, 0.0], 1.0);
        let rod = principal_inertia(Shape::Cylinder, [1e-6, 1.0, 0.0], 1.0);
        assert!((long[0] - rod[0]).abs() < 1e-5);
        let ball = principal_inertia(Shape::Capsule, [1.0, 1e-12, 0.0], 1.0);
        assert!((ball[0] - 0.4).abs() < 1e-9 && (ball[2] - 0.4).abs() < 1e-9);
    }

    #[test]
    fn eigen_reassembles() {
        let a = [[2.0, 0.3, -0.1], [0.3, 1.5, 0.2], [-0.1, 0.2, 1.0]];
        let (values, r) = sym_eigen(&a);
        let back = rotate_tensor(&r, &diag(values));
        for i in 0..3 {
            for j in 0..3 {
                assert!((back[i][j] - a[i][j]).abs() < 1e-14);
            }
        }
    }
}

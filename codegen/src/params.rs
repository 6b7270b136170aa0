//! The numeric parameters of the method (Telegin et al.) computed from a [`Robot`]: masses,
//! pole distances, the folded first moments `b_i a_i` and the inertia about the pole.

use std::fmt;

use crate::mat3;
use crate::model::{JointKind, Robot};
use crate::spec::axis_letter;

/// The method's parameters of one body `i` (all vectors in the body's own frame).
#[derive(Clone, Debug, PartialEq)]
pub struct BodyParams {
    /// Body name.
    pub name: String,
    /// Joint name.
    pub joint_name: String,
    /// Joint kind.
    pub joint: JointKind,
    /// Unit joint axis.
    pub axis: [f64; 3],
    /// The axis as a signed letter (`x`, `-y`, ...) when it is a coordinate axis, else its
    /// direction cosines `(ax, ay, az)`.
    pub axis_name: String,
    /// `m_oi`: mass of this body alone, kg.
    pub m_o: f64,
    /// `m_i`: mass of subsystem `i` (body `i` and everything it carries; `Σ_{k>=i} m_ok` for
    /// a chain), kg.
    pub m: f64,
    /// `L_i = |O_i O_{i+1}|`, m (in a tree: to the pole of the one body `i` carries; 0 when
    /// it carries several, whose poles are all in `b_i a_i`).
    pub l: f64,
    /// `e_i`: unit vector from `O_i` to `O_{i+1}` (zero when `L_i = 0`).
    pub e: [f64; 3],
    /// `p_i = L_i m_{i+1}` (`p_N = 0`), kg·m.
    pub p: f64,
    /// `b_i a_i = m_oi O_iC_i + m_{i+1} L_i e_i` (in a tree `+ Σ_c m_c O_iO_c` over the
    /// carried bodies `c`), kg·m.
    pub b_a: [f64; 3],
    /// `b_i = |b_i a_i|`, kg·m.
    pub b: f64,
    /// `a_i`: unit vector along `b_i a_i` (zero when `b_i = 0`).
    pub a: [f64; 3],
    /// Inertia tensor about the pole `O_i` (tensor entries, off-diagonals `-∫xy dm`), kg·m².
    pub inertia_pole: [[f64; 3]; 3],
    /// Axial moment `I^x` about the pole, kg·m².
    pub i_x: f64,
    /// Axial moment `I^y` about the pole, kg·m².
    pub i_y: f64,
    /// Axial moment `I^z` about the pole, kg·m².
    pub i_z: f64,
    /// Centrifugal moment `I^xy = ∫xy dm = -ixy` about the pole, kg·m².
    pub i_xy: f64,
    /// Centrifugal moment `I^xz = -ixz` about the pole, kg·m².
    pub i_xz: f64,
    /// Centrifugal moment `I^yz = -iyz` about the pole, kg·m².
    pub i_yz: f64,
}

/// The method's parameters of every body of a robot, base to tip.
#[derive(Clone, Debug, PartialEq)]
pub struct MethodParams {
    /// Robot name.
    pub robot_name: String,
    /// Per-body parameters.
    pub bodies: Vec<BodyParams>,
}

impl MethodParams {
    /// Computes the parameters from a validated robot.
    pub fn from_robot(robot: &Robot) -> Self {
        let n = robot.bodies.len();
        let topo = robot.topology();
        // m_i: mass of each subsystem (the body and everything it carries).
        let mut subsystem: Vec<f64> = robot.bodies.iter().map(|b| b.mass).collect();
        for i in (0..n).rev() {
            if let Some(p) = topo.parent(i) {
                subsystem[p] += subsystem[i];
            }
        }
        let bodies = robot
            .bodies
            .iter()
            .enumerate()
            .map(|(i, body)| {
                let children = topo.children(i);
                let m_next: f64 = children.iter().map(|&c| subsystem[c]).sum();
                // L_i e_i: to the one carried pole (a chain's O_{i+1}); with several carried
                // bodies there is no single one, and b_i a_i holds them all.
                let to_next = match children {
                    [c] => robot.bodies[*c].origin,
                    [] => body.next,
                    _ => [0.0; 3],
                };
                let l = mat3::norm(to_next);
                let e = unit_or_zero(to_next, l);
                // m_{N+1} = 0, so p_N = 0 even when the last body reaches a tool point.
                let p = l * m_next;
                // b_i a_i = m_oi O_iC_i + Σ_c m_c O_iO_c.
                let b_a = children
                    .iter()
                    .fold(mat3::scale(body.com, body.mass), |acc, &c| {
                        mat3::add(acc, mat3::scale(robot.bodies[c].origin, subsystem[c]))
                    });
                let b = mat3::norm(b_a);
                let a = unit_or_zero(b_a, b);
                let j = mat3::mat_add(
                    &body.inertia_com,
                    &mat3::point_mass_inertia(body.mass, body.com),
                );
                BodyParams {
                    name: body.name.clone(),
                    joint_name: body.joint_name.clone(),
                    joint: body.joint,
                    axis: body.axis,
                    axis_name: axis_letter(body.axis)
                        .map_or_else(|| vec_str(body.axis), str::to_owned),
                    m_o: body.mass,
                    m: subsystem[i],
                    l,
                    e,
                    p,
                    b_a,
                    b,
                    a,
                    inertia_pole: j,
                    i_x: j[0][0],
                    i_y: j[1][1],
                    i_z: j[2][2],
                    i_xy: -j[0][1],
                    i_xz: -j[0][2],
                    i_yz: -j[1][2],
                }
            })
            .collect();
        MethodParams {
            robot_name: robot.name.clone(),
            bodies,
        }
    }

    /// The parameters as two aligned text tables (masses and geometry; inertia about the poles).
    pub fn table(&self) -> String {
        self.to_string()
    }
}

fn unit_or_zero(v: [f64; 3], len: f64) -> [f64; 3] {
    if len > 0.0 {
        mat3::scale(v, 1.0 / len)
    } else {
        [0.0; 3]
    }
}

/// Six significant digits, without trailing zeros.
fn num(x: f64) -> String {
    if x == 0.0 {
        return "0".to_owned();
    }
    let mag = x.abs();
    if !(1e-4..1e6).contains(&mag) {
        return format!("{x:.5e}");
    }
    let decimals = (5 - mag.log10().floor() as i32).max(0) as usize;
    let s = format!("{x:.decimals$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        s
    };
    if s == "-0" {
        "0".to_owned()
    } else {
        s
    }
}

fn vec_str(v: [f64; 3]) -> String {
    format!("({}, {}, {})", num(v[0]), num(v[1]), num(v[2]))
}

/// Writes rows as columns padded to their widest cell (the first `left` columns left-aligned,
/// the rest right-aligned), with a rule under the header.
fn write_table(f: &mut fmt::Formatter<'_>, rows: &[Vec<String>], left: usize) -> fmt::Result {
    let cols = rows.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..cols)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    for (k, row) in rows.iter().enumerate() {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            let pad = widths[c] - cell.chars().count();
            if c > 0 {
                line.push_str("  ");
            }
            if c < left {
                line.push_str(cell);
                line.push_str(&" ".repeat(pad));
            } else {
                line.push_str(&" ".repeat(pad));
                line.push_str(cell);
            }
        }
        writeln!(f, "{}", line.trim_end())?;
        if k == 0 {
            let total = widths.iter().sum::<usize>() + 2 * cols.saturating_sub(1);
            writeln!(f, "{}", "-".repeat(total))?;
        }
    }
    Ok(())
}

impl fmt::Display for MethodParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}: method parameters (frames of the bodies, SI units)",
            self.robot_name
        )?;
        writeln!(f)?;
        let head = [
            "i", "body", "joint", "axis", "m_o [kg]", "m [kg]", "L [m]", "e", "p [kg m]",
            "b [kg m]", "a",
        ];
        let mut rows = vec![head.iter().map(|s| s.to_string()).collect::<Vec<_>>()];
        for (i, b) in self.bodies.iter().enumerate() {
            let kind = match b.joint {
                JointKind::Revolute => "R",
                JointKind::Prismatic => "P",
            };
            rows.push(vec![
                (i + 1).to_string(),
                b.name.clone(),
                format!("{} ({kind})", b.joint_name),
                b.axis_name.clone(),
                num(b.m_o),
                num(b.m),
                num(b.l),
                vec_str(b.e),
                num(b.p),
                num(b.b),
                vec_str(b.a),
            ]);
        }
        write_table(f, &rows, 4)?;
        writeln!(f)?;
        writeln!(
            f,
            "Inertia about the pole O_i [kg m^2]; I^xy = -ixy (centrifugal moments)"
        )?;
        let head = ["i", "body", "I^x", "I^y", "I^z", "I^xy", "I^xz", "I^yz"];
        let mut rows = vec![head.iter().map(|s| s.to_string()).collect::<Vec<_>>()];
        for (i, b) in self.bodies.iter().enumerate() {
            rows.push(vec![
                (i + 1).to_string(),
                b.name.clone(),
                num(b.i_x),
                num(b.i_y),
                num(b.i_z),
                num(b.i_xy),
                num(b.i_xz),
                num(b.i_yz),
            ]);
        }
        write_table(f, &rows, 2)
    }
}

#[cfg(test)]
mod tests {
    use super::num;

    #[test]
    fn numbers_are_short() {
        assert_eq!(num(0.5), "0.5");
        assert_eq!(num(2.0), "2");
        assert_eq!(num(-0.0427), "-0.0427");
        assert_eq!(num(123.456789), "123.457");
        assert_eq!(num(1e-7), "1.00000e-7");
        assert_eq!(num(-1e-12 * 0.0), "0");
    }
}

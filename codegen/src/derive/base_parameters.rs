//! The minimal (base) inertial parameters and their regressor.
//!
//! First the method's regrouping ([`ParameterSet::Base`], docs/design.md): the robot with every
//! inertial parameter symbolic is derived with the regrouped entries (`mr1`, `mxr1`, ..,
//! `xxr1`, ..) as its parameters, entries no joint-space output reads left out. Then any linear
//! dependence that remains among their regressor columns is removed numerically: the columns,
//! evaluated at random states, are orthogonalised in order (modified Gram-Schmidt); a column
//! whose residual is below `1e-8` of its norm is a combination `β` of the kept ones, so its
//! parameter is added to theirs with the weights `β`. Where that keeps more columns than their
//! numeric rank (singular values of the unit-norm columns above `1e-8` of the largest), the
//! dependences are read from the null space instead. `NB` is the numeric rank of the
//! regressor, which is what identification can resolve. The kept columns are the base
//! regressor `Yb`; each base parameter is a linear combination of the standard ones. With
//! joints that follow others the columns are those of the regressor in the independent
//! coordinates (`Gᵀ Y`, evaluated at states that hold the couplings), which a coupling can
//! make more dependent.

use std::collections::HashMap;

use super::couplings::Contraction;
use super::regressor::{
    all_symbolic, copy_into, parameter_bodies, parameter_columns, symbolic_inverse_dynamics,
    STANDARD_NAMES,
};
use super::scalar::S;
use super::{derive_with, params, snap_axes, unread_base_entries};
use crate::ir::{Env, Graph, NodeId};
use crate::model::{BaseMotion, JointKind, ParameterSet, Robot};

/// Singular value of the columns scaled to unit norm, relative to the largest, at or below
/// which it counts as zero (a dependence among the columns).
const DEPENDENT: f64 = 1e-8;

/// Residual, relative to the column's norm, at or below which Gram-Schmidt counts a column as
/// dependent.
const GRAM_SCHMIDT_DEPENDENT: f64 = 1e-8;

/// Entry of a null-space row (rows of unit norm), at or below which it counts as zero when the
/// rows are brought to echelon form.
const PIVOT: f64 = 1e-9;

/// Norm, relative to the largest column's, at or below which a column counts as zero.
const ZERO_COLUMN: f64 = 1e-10;

/// The base parameters of a robot.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BaseSet {
    /// Names, one per base parameter: the regrouped entry it extends (`xxr2`, ...).
    pub names: Vec<String>,
    /// `NB × 10N`, row-major: base parameter `k` is `Σ_j combination[k*10N + j] π_j`.
    pub combination: Vec<f64>,
    /// The robot's base parameters, `combination · π` at the spec's standard parameters.
    pub values: Vec<f64>,
}

/// The base parameters of `robot`, and the base regressor (`N × NB` row-major; `NV × NB`
/// with a floating base) on `target`'s graph (the regressor is computed on a graph of its own
/// and then copied into `target`).
pub fn base_regressor(target: &mut Graph, robot: &Robot) -> (BaseSet, Vec<NodeId>) {
    DetachedBase::derive(robot).copy_into(target)
}

/// The base set and the base regressor on a graph of their own, so that they can be derived
/// apart from the module's graph (on another thread during generation) and copied in
/// afterwards.
pub(crate) struct DetachedBase {
    graph: Graph,
    columns: Vec<Vec<NodeId>>,
    set: BaseSet,
}

impl DetachedBase {
    /// Analyses `robot` on a new graph.
    pub(crate) fn derive(robot: &Robot) -> Self {
        let (graph, columns, set) = analyse(robot);
        Self {
            graph,
            columns,
            set,
        }
    }

    /// The base set, and the base regressor with its nodes copied into `target`.
    pub(crate) fn copy_into(self, target: &mut Graph) -> (BaseSet, Vec<NodeId>) {
        let rows = self.columns.first().map_or(0, Vec::len);
        let nb = self.set.names.len();
        let mut yb = vec![NodeId(0); rows * nb];
        for (k, col) in self.columns.iter().enumerate() {
            for (i, &id) in col.iter().enumerate() {
                yb[i * nb + k] = id;
            }
        }
        let yb = copy_into(&self.graph, &yb, target);
        (self.set, yb)
    }
}

/// The base parameters of `robot` (names, combinations of the standard parameters, values).
pub fn base_set(robot: &Robot) -> BaseSet {
    analyse(robot).2
}

/// The derivation the analysis starts from, the regressor columns (on its graph) and the
/// base set.
///
/// A fixed base starts from the method's regrouped entries. On a moving base the regrouping
/// rules do not hold as they stand (the first body's part that turns with the base is seen by
/// a floating base's wrench, and a moving base makes more parameters identifiable), so the
/// analysis starts from the standard parameters themselves, a floating base's own body first:
/// the numeric elimination alone then finds the minimal set.
fn analyse(robot: &Robot) -> (Graph, Vec<Vec<NodeId>>, BaseSet) {
    let n = robot.dof();
    let regrouped = robot.motion == BaseMotion::Fixed;
    let sym = Robot {
        parameters: ParameterSet::Base,
        ..all_symbolic(robot)
    };
    let (mut g, tau, params) = if regrouped {
        let mut g = Graph::new();
        let d = derive_with(&mut g, &sym, true);
        let p = u32::try_from(g.params().len()).expect("few parameters");
        (g, d.inverse_dynamics, (0..p).collect::<Vec<u32>>())
    } else {
        symbolic_inverse_dynamics(robot)
    };
    let tau = if robot.has_couplings() {
        Contraction::of(robot).force(&mut g, &tau)
    } else {
        tau
    };
    let rows = tau.len();
    let p = params.len();
    let cols = parameter_columns(&mut g, &tau, &params);

    // The columns at random states, stacked (and random base motions on a moving base).
    let flat: Vec<NodeId> = cols.iter().flatten().copied().collect();
    let mut a = vec![Vec::new(); p];
    let mut rng = SplitMix(0x5eed_ba5e);
    // As many states as give five rows per column (at least 20): the rank of random rows
    // is found with that margin, and the elimination's work grows with the rows.
    let samples = (5 * p).div_ceil(rows.max(1)).max(20);
    for _ in 0..samples {
        let mut env = Env {
            q: robot
                .bodies
                .iter()
                .map(|b| match b.joint {
                    JointKind::Revolute => rng.range(-std::f64::consts::PI, std::f64::consts::PI),
                    JointKind::Prismatic => rng.range(-0.5, 0.5),
                })
                .collect(),
            qd: (0..n).map(|_| rng.range(-2.0, 2.0)).collect(),
            qdd: (0..n).map(|_| rng.range(-2.0, 2.0)).collect(),
            ..Env::default()
        };
        if !regrouped {
            // Pose (position, quaternion normalised inside), velocity, acceleration.
            env.base = (0..19).map(|_| rng.range(-1.0, 1.0)).collect();
        }
        // A joint that follows another moves with it.
        for (j, body) in robot.bodies.iter().enumerate() {
            if let Some(m) = body.mimic {
                env.q[j] = m.multiplier * env.q[m.master] + m.offset;
                env.qd[j] = m.multiplier * env.qd[m.master];
                env.qdd[j] = m.multiplier * env.qdd[m.master];
            }
        }
        let v = g.eval_many(&flat, &env);
        for (k, col) in v.chunks(rows).enumerate() {
            a[k].extend_from_slice(col);
        }
    }

    // Gram-Schmidt gives every shipped robot its base set; where it keeps more columns than
    // the columns' numeric rank (axes a few microradians from perpendicular), the null space
    // decides instead.
    let (kept, dropped) = match gram_schmidt_in_order(&a) {
        (kept, _) if kept.len() != numeric_rank(&a) => eliminate_in_order(&a),
        found => found,
    };

    // Each parameter of the analysis as a combination of the standard ones: a standard
    // parameter is itself; regrouped entries are linear in them, so found by differences.
    // The differences are taken about a reference of unit masses and inertias, not the
    // robot's own values: a step in a first moment moves the centre of mass by the step
    // over the mass, which for a light body (1e-9 kg) swamps the entries in rounding, and
    // for a mass of 1e-300 kg overflows.
    let names: Vec<String> = params
        .iter()
        .map(|&k| g.params()[k as usize].name.clone())
        .collect();
    let pi0 = standard_values(robot);
    let width = pi0.len();
    let reg: Vec<Vec<f64>> = if regrouped {
        let unread = unread_base_entries(&sym);
        let entries = |pi: &[f64]| -> HashMap<String, f64> {
            let rb = all_symbolic(&with_standard(robot, pi));
            let mut out = HashMap::new();
            for (m, h, j) in params::base_entries(&snap_axes(&rb), &unread) {
                let upper = [&j[0][0], &j[0][1], &j[0][2], &j[1][1], &j[1][2], &j[2][2]];
                for (name, s) in std::iter::once(&m).chain(&h).chain(upper) {
                    if let S::X(v) = s {
                        out.insert(name.clone(), *v);
                    }
                }
            }
            out
        };
        let reference: Vec<f64> = (0..width / 10)
            .flat_map(|_| [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0])
            .collect();
        let at0 = entries(&reference);
        let mut reg = vec![vec![0.0; width]; p];
        for j in 0..width {
            let mut pi = reference.clone();
            pi[j] += 1.0;
            let at = entries(&pi);
            for (k, name) in names.iter().enumerate() {
                reg[k][j] = at[name] - at0[name];
            }
        }
        reg
    } else {
        (0..p)
            .map(|k| {
                let mut row = vec![0.0; width];
                row[k] = 1.0;
                row
            })
            .collect()
    };
    let mut combination = Vec::with_capacity(kept.len() * width);
    for (i, &k) in kept.iter().enumerate() {
        let mut row = reg[k].clone();
        // A dropped column is a combination of the columns kept before it only.
        for (d, beta) in dropped.iter().filter(|(_, b)| i < b.len()) {
            for (x, y) in row.iter_mut().zip(&reg[*d]) {
                *x += beta[i] * y;
            }
        }
        combination.extend(row);
    }
    let values = combination
        .chunks(width)
        .map(|row| dot(row, &pi0))
        .collect();
    let set = BaseSet {
        names: kept.iter().map(|&k| names[k].clone()).collect(),
        combination,
        values,
    };
    let cols = kept.iter().map(|&k| cols[k].clone()).collect();
    (g, cols, set)
}

/// Splits `columns` in order by modified Gram-Schmidt (two passes): a column is dropped when
/// its residual against the kept ones is at most [`GRAM_SCHMIDT_DEPENDENT`] of its norm, or
/// when it is zero against the largest ([`ZERO_COLUMN`]). Returns the kept indices and, for
/// each dropped column, its weights on the kept columns before it.
fn gram_schmidt_in_order(a: &[Vec<f64>]) -> (Vec<usize>, Vec<(usize, Vec<f64>)>) {
    // Modified Gram-Schmidt in column order: kept columns and, for each dropped one, its
    // weights on the kept ones.
    let mut q: Vec<Vec<f64>> = Vec::new();
    let mut r: Vec<Vec<f64>> = Vec::new(); // r[i][k]: column of kept k on q_i
    let mut kept: Vec<usize> = Vec::new();
    let mut dropped: Vec<(usize, Vec<f64>)> = Vec::new();
    // A column whose norm is rounding noise against the largest (a parameter no joint force
    // depends on, computed as a difference of equal terms) is zero, not a base parameter.
    let largest = a.iter().map(|c| dot(c, c).sqrt()).fold(0.0, f64::max);
    for (j, col) in a.iter().enumerate() {
        let norm = dot(col, col).sqrt();
        let norm = if norm <= ZERO_COLUMN * largest {
            0.0
        } else {
            norm
        };
        let mut res = col.clone();
        let mut c = vec![0.0; q.len()];
        for _ in 0..2 {
            for (i, qi) in q.iter().enumerate() {
                let t = dot(qi, &res);
                c[i] += t;
                for (x, y) in res.iter_mut().zip(qi) {
                    *x -= t * y;
                }
            }
        }
        let rn = dot(&res, &res).sqrt();
        if norm > 0.0 && rn > GRAM_SCHMIDT_DEPENDENT * norm {
            for (ri, ci) in r.iter_mut().zip(&c) {
                ri.push(*ci);
            }
            let mut last = vec![0.0; kept.len()];
            last.push(rn);
            r.push(last);
            for x in &mut res {
                *x /= rn;
            }
            q.push(res);
            kept.push(j);
        } else {
            // col = Q c = A_K R⁻¹ c: back substitution.
            let m = kept.len();
            let mut beta = vec![0.0; m];
            for i in (0..m).rev() {
                let s: f64 = (i + 1..m).map(|k| r[i][k] * beta[k]).sum();
                beta[i] = (c[i] - s) / r[i][i];
            }
            dropped.push((j, beta));
        }
    }

    (kept, dropped)
}

/// Splits `columns` into independent ones and dependent ones, in order: a column is dropped
/// when it is a combination of the columns before it, or zero against the largest (to
/// [`ZERO_COLUMN`]: a parameter no joint force depends on, computed as a difference of equal
/// terms). Returns the kept indices and, for each dropped column, its weights on the kept
/// columns before it.
///
/// The dependences are read from the null space of the columns scaled to unit norm (singular
/// values below [`DEPENDENT`] of the largest), not found column by column: a residual against
/// the columns kept so far is only as accurate as those are independent, and robots whose axes
/// are a few microradians from perpendicular (a URDF's `1.5708` for `pi/2`) give sets of
/// columns that are independent to that little, which hid exact dependences behind residuals
/// of `1e-6`. The null space is brought to echelon form from the last column back: the columns
/// where its rows end are the ones that depend on columns before them.
fn eliminate_in_order(columns: &[Vec<f64>]) -> (Vec<usize>, Vec<(usize, Vec<f64>)>) {
    let norms: Vec<f64> = columns.iter().map(|c| norm(c)).collect();
    let largest = norms.iter().copied().fold(0.0, f64::max);
    let nonzero: Vec<usize> = (0..columns.len())
        .filter(|&j| norms[j] > ZERO_COLUMN * largest)
        .collect();
    let rows = columns.first().map_or(0, Vec::len);
    let mut null_rows: Vec<Vec<f64>> = Vec::new();
    if !nonzero.is_empty() {
        let scaled = nalgebra::DMatrix::from_fn(rows.max(nonzero.len()), nonzero.len(), |i, k| {
            let j = nonzero[k];
            columns[j].get(i).map_or(0.0, |x| x / norms[j])
        });
        let svd = scaled.svd(false, true);
        let v_t = svd.v_t.expect("asked for");
        let top = svd.singular_values.max();
        for (i, &sigma) in svd.singular_values.iter().enumerate() {
            if sigma <= DEPENDENT * top {
                null_rows.push(v_t.row(i).iter().copied().collect());
            }
        }
    }
    // Echelon form from the right: each row ends at a column of its own (coefficient 1 there,
    // 0 at every other row's end), which is then a combination of the columns before it.
    let mut ends: Vec<(usize, usize)> = Vec::new(); // (row, column of nonzero)
    for k in (0..nonzero.len()).rev() {
        let free = (0..null_rows.len()).filter(|r| ends.iter().all(|e| e.0 != *r));
        let Some(pivot) =
            free.max_by(|&a, &b| null_rows[a][k].abs().total_cmp(&null_rows[b][k].abs()))
        else {
            break;
        };
        if null_rows[pivot][k].abs() <= PIVOT {
            continue;
        }
        let scale = null_rows[pivot][k];
        for x in &mut null_rows[pivot] {
            *x /= scale;
        }
        let pivot_row = null_rows[pivot].clone();
        for (r, row) in null_rows.iter_mut().enumerate() {
            if r != pivot {
                let f = row[k];
                for (x, y) in row.iter_mut().zip(&pivot_row) {
                    *x -= f * y;
                }
            }
        }
        ends.push((pivot, k));
    }
    let mut kept = Vec::new();
    let mut dropped = Vec::new();
    for j in 0..columns.len() {
        let Ok(k) = nonzero.binary_search(&j) else {
            dropped.push((j, vec![0.0; kept.len()]));
            continue;
        };
        match ends.iter().find(|e| e.1 == k) {
            // Scaled: s_j = -Σ ρ_i s_i, so column j = -Σ ρ_i (|c_j| / |c_i|) c_i.
            Some(&(r, _)) => {
                let beta = kept
                    .iter()
                    .map(|&i: &usize| {
                        let ki = nonzero.binary_search(&i).expect("kept columns are nonzero");
                        -null_rows[r][ki] * norms[j] / norms[i]
                    })
                    .collect();
                dropped.push((j, beta));
            }
            None => kept.push(j),
        }
    }
    (kept, dropped)
}

/// The number of singular values of the nonzero columns scaled to unit norm above
/// [`DEPENDENT`] of the largest.
fn numeric_rank(columns: &[Vec<f64>]) -> usize {
    let norms: Vec<f64> = columns.iter().map(|c| norm(c)).collect();
    let largest = norms.iter().copied().fold(0.0, f64::max);
    let nonzero: Vec<usize> = (0..columns.len())
        .filter(|&j| norms[j] > ZERO_COLUMN * largest)
        .collect();
    if nonzero.is_empty() {
        return 0;
    }
    let rows = columns[0].len().max(nonzero.len());
    let scaled = nalgebra::DMatrix::from_fn(rows, nonzero.len(), |i, k| {
        let j = nonzero[k];
        columns[j].get(i).map_or(0.0, |x| x / norms[j])
    });
    let s = scaled.singular_values();
    let top = s.max();
    s.iter().filter(|&&x| x > DEPENDENT * top).count()
}

fn norm(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The standard parameters of `robot` (spec values), in [`STANDARD_NAMES`] order per body (a
/// floating base's own body first).
pub fn standard_values(robot: &Robot) -> Vec<f64> {
    let base = robot
        .base_body
        .iter()
        .filter(|_| robot.is_floating())
        .map(|b| standard_of(b.mass, b.com, &b.inertia_com));
    let bodies = robot
        .bodies
        .iter()
        .map(|b| standard_of(b.mass, b.com, &b.inertia_com));
    base.chain(bodies).flatten().collect()
}

/// Mass, first moment and inertia about the pole of a body given about its centre of mass.
fn standard_of(m: f64, c: [f64; 3], inertia_com: &[[f64; 3]; 3]) -> [f64; 10] {
    let cc: f64 = c.iter().map(|x| x * x).sum();
    let pole = |a: usize, d: usize| {
        let delta = if a == d { cc } else { 0.0 };
        inertia_com[a][d] + m * (delta - c[a] * c[d])
    };
    [
        m,
        m * c[0],
        m * c[1],
        m * c[2],
        pole(0, 0),
        pole(0, 1),
        pole(0, 2),
        pole(1, 1),
        pole(1, 2),
        pole(2, 2),
    ]
}

/// `robot` with the standard parameters `pi` (mass, first moment, inertia about the pole per
/// body; every mass must be non-zero).
fn with_standard(robot: &Robot, pi: &[f64]) -> Robot {
    let mut out = robot.clone();
    for (b, p) in out.bodies.iter_mut().zip(pi.chunks(10)) {
        let m = p[0];
        let c = [p[1] / m, p[2] / m, p[3] / m];
        let cc: f64 = c.iter().map(|x| x * x).sum();
        let pole = [[p[4], p[5], p[6]], [p[5], p[7], p[8]], [p[6], p[8], p[9]]];
        b.mass = m;
        b.com = c;
        for a in 0..3 {
            for e in 0..3 {
                let delta = if a == e { cc } else { 0.0 };
                b.inertia_com[a][e] = pole[a][e] - m * (delta - c[a] * c[e]);
            }
        }
    }
    out
}

/// A small deterministic generator (SplitMix64) for the random states.
struct SplitMix(u64);

impl SplitMix {
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        lo + (hi - lo) * ((z >> 11) as f64 / (1u64 << 53) as f64)
    }
}

/// The base parameters of `robot` as text: one line per base parameter, its value and its
/// combination of the standard parameters (`m1`, `mx1`, .., `izz1`, ... as in
/// [`STANDARD_NAMES`]; coefficients within `1e-12` of zero left out).
pub fn base_parameters_text(robot: &Robot) -> String {
    use std::fmt::Write as _;
    let set = base_set(robot);
    let standard: Vec<String> = parameter_bodies(robot)
        .flat_map(|b| STANDARD_NAMES.iter().map(move |p| format!("{p}{b}")))
        .collect();
    let ncols = standard.len();
    let mut out = format!(
        "{}: {} base parameters (of {} standard: m, mx, my, mz, ixx, ixy, ixz, iyy, iyz, izz per \
         body, about its pole, tensor entries)\n\n",
        robot.name,
        set.names.len(),
        ncols
    );
    let width = set.names.iter().map(String::len).max().unwrap_or(0);
    for (k, (name, value)) in set.names.iter().zip(&set.values).enumerate() {
        let row = &set.combination[k * ncols..(k + 1) * ncols];
        let mut terms = String::new();
        for (c, s) in row.iter().zip(&standard) {
            if c.abs() <= 1e-12 {
                continue;
            }
            let sign = if c < &0.0 { "-" } else { "+" };
            let mag = c.abs();
            let term = if (mag - 1.0).abs() <= 1e-12 {
                s.clone()
            } else {
                let digits = format!("{mag:.12}");
                format!("{} {s}", digits.trim_end_matches('0').trim_end_matches('.'))
            };
            if terms.is_empty() {
                let lead = if sign == "-" { "-" } else { "" };
                let _ = write!(terms, "{lead}{term}");
            } else {
                let _ = write!(terms, " {sign} {term}");
            }
        }
        let _ = writeln!(
            out,
            "{k:>3} {name:<width$} = {value:>+.12e} = {terms}",
            k = k + 1
        );
    }
    out
}

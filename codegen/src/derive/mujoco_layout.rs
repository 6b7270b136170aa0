//! MuJoCo's free-joint layout for functions derived in Pinocchio's.
//!
//! The two layouts describe one motion: MuJoCo's `qpos` holds the quaternion `w x y z` where
//! Pinocchio's holds `x y z w`, its `qvel` the base origin's velocity in world axes where
//! Pinocchio's `v` holds it in base axes, and its `qacc` that velocity's rate where Pinocchio's
//! `a` is `Rᵀ p'' - ω × v`. So, with `R` the base's attitude and `ω` its angular velocity (the
//! same entries in both),
//!
//! ```text
//! v_pin = Rᵀ v_mj,    a_pin = Rᵀ a_mj - ω × v_pin,    f_pin = Rᵀ f_mj   (linear parts)
//! ```
//!
//! and `v_pin = T v_mj` with `T = diag(Rᵀ, I)`. A function derived in Pinocchio's layout is
//! read in MuJoCo's by writing those inputs in MuJoCo's ([`MujocoLayout::inputs`]); then an
//! output with columns over the velocities (a Jacobian) is `X T`
//! ([`MujocoLayout::velocity_columns`]), and an acceleration at zero `qacc` gains what the
//! base origin's acceleration `R (ω × v_pin)` at zero Pinocchio `a` added
//! ([`MujocoLayout::acceleration_bias`]).

use rustc_hash::FxHashMap as HashMap;

use super::derivatives::{rotation_of, substitute};
use super::{Centroidal, FrameMotion, SpatialDerivatives};
use crate::ir::{BaseVar, Graph, NodeId, Var};

/// The base's quantities in MuJoCo's inputs that the conversions read.
pub struct MujocoLayout {
    /// `R`, world from base, of MuJoCo's quaternion.
    rotation: [[NodeId; 3]; 3],
    /// `-ω × v_pin`: Pinocchio's `a` of the base's translation at MuJoCo's `qacc = 0`.
    shift: [NodeId; 3],
    /// `ω`, the base's angular velocity in its own axes (the same inputs in both layouts).
    omega: [NodeId; 3],
    /// `v_pin = Rᵀ v_mj`, the base origin's velocity in base axes.
    v_pin: [NodeId; 3],
    /// `Rᵀ a_mj`, the base origin's acceleration in base axes.
    a_in_base: [NodeId; 3],
    /// Pinocchio's base inputs written in MuJoCo's.
    subs: HashMap<Var, NodeId>,
}

impl MujocoLayout {
    /// The conversion on `g`, built from MuJoCo's base inputs.
    pub fn new(g: &mut Graph) -> MujocoLayout {
        let base = |g: &mut Graph, v: BaseVar| g.var(Var::Base(v));
        let [x, y, z, w] = [4, 5, 6, 3].map(|k| base(g, BaseVar::Pose(k)));
        let rotation = rotation_of(g, [x, y, z, w]);
        let turned_back = |g: &mut Graph, make: fn(u8) -> BaseVar| -> [NodeId; 3] {
            let world = [0, 1, 2].map(|k| base(g, make(k)));
            [0, 1, 2].map(|r| {
                let terms: Vec<NodeId> = (0..3).map(|c| g.mul(rotation[c][r], world[c])).collect();
                g.sum(&terms)
            })
        };
        let v_pin = turned_back(g, BaseVar::Vel);
        let a_lin = turned_back(g, BaseVar::Acc);
        let f_pin = turned_back(g, BaseVar::Wrench);
        let omega = [3, 4, 5].map(|k| base(g, BaseVar::Vel(k)));
        let wxv = g.cross(omega, v_pin);
        let shift = wxv.map(|c| g.neg(c));
        let mut subs: HashMap<Var, NodeId> = HashMap::default();
        // Pinocchio's x y z w at pose slots 3..7 are MuJoCo's slots 4, 5, 6 and 3.
        for (pin, mj) in [(3u8, 4u8), (4, 5), (5, 6), (6, 3)] {
            subs.insert(Var::Base(BaseVar::Pose(pin)), base(g, BaseVar::Pose(mj)));
        }
        for k in 0..3u8 {
            let i = usize::from(k);
            subs.insert(Var::Base(BaseVar::Vel(k)), v_pin[i]);
            subs.insert(Var::Base(BaseVar::Acc(k)), g.add(a_lin[i], shift[i]));
            subs.insert(Var::Base(BaseVar::Wrench(k)), f_pin[i]);
        }
        MujocoLayout {
            rotation,
            shift,
            omega,
            v_pin,
            a_in_base: a_lin,
            subs,
        }
    }

    /// `values`, expressions of Pinocchio's base inputs, in MuJoCo's.
    pub fn inputs(&self, g: &mut Graph, values: &[NodeId]) -> Vec<NodeId> {
        substitute(g, values, &self.subs)
    }

    /// `x T` for `x` of `rows` rows over the `nv` velocities (row-major): its three columns
    /// of the base's translation times `Rᵀ`.
    pub fn velocity_columns(&self, g: &mut Graph, x: &[NodeId], rows: usize) -> Vec<NodeId> {
        let nv = x.len() / rows;
        let mut out = x.to_vec();
        for r in 0..rows {
            for c in 0..3 {
                let terms: Vec<NodeId> = (0..3)
                    .map(|k| g.mul(x[r * nv + k], self.rotation[c][k]))
                    .collect();
                out[r * nv + c] = g.sum(&terms);
            }
        }
        out
    }

    /// An acceleration at zero acceleration input, `bias` (Pinocchio's, at `a = 0`), at
    /// MuJoCo's `qacc = 0` instead: `bias + X_lin (-ω × v_pin)` with `X_lin` the three columns
    /// of the base's translation of the matching Pinocchio-layout Jacobian `jacobian`
    /// (`bias.len()` rows, row-major).
    pub fn acceleration_bias(
        &self,
        g: &mut Graph,
        bias: &[NodeId],
        jacobian: &[NodeId],
    ) -> Vec<NodeId> {
        let nv = jacobian.len() / bias.len();
        (0..bias.len())
            .map(|r| {
                let mut terms = vec![bias[r]];
                terms.extend((0..3).map(|k| g.mul(jacobian[r * nv + k], self.shift[k])));
                g.sum(&terms)
            })
            .collect()
    }

    /// The Coriolis matrix in MuJoCo's layout from Pinocchio's, `c` (`NV×NV`, already read in
    /// MuJoCo's inputs), and MuJoCo's mass matrix `m`: with `v_pin = T v_mj` and
    /// `a_pin = T a_mj + T' v_mj`, `Tᵀ (M_pin a_pin + C_pin v_pin) = M_mj a_mj + C_mj v_mj` for
    /// `C_mj = Tᵀ C_pin T + M_mj T⁻¹ T'`, and `T⁻¹ T' = diag(-[R ω]×, 0)`. `M_mj' - 2 C_mj` stays
    /// skew: it is `Tᵀ (M_pin' - 2 C_pin) T` plus `T'ᵀ M_pin T` less its transpose.
    pub fn coriolis_matrix(&self, g: &mut Graph, c: &[NodeId], m: &[NodeId]) -> Vec<NodeId> {
        let nv = m.len().isqrt();
        let mut out = self.velocity_columns(g, c, nv);
        // Tᵀ: the base translation's rows turned into world axes.
        self.force_rows(g, &mut out, nv);
        // M_mj diag(-[ω_w]×, 0), ω_w = R ω: a row `r` of M's first three columns times
        // -[ω_w]× is `ω_w × r`.
        let w = [0, 1, 2].map(|r| self.turn(g, r, self.omega));
        for row in 0..nv {
            let m_row = [m[row * nv], m[row * nv + 1], m[row * nv + 2]];
            let add = g.cross(w, m_row);
            for (c, a) in add.into_iter().enumerate() {
                out[row * nv + c] = g.add(out[row * nv + c], a);
            }
        }
        out
    }

    /// A frame's acceleration at zero acceleration input, `bias` (6: the origin's linear
    /// acceleration then the angular one, world axes; Pinocchio's at `a = 0`), at MuJoCo's
    /// `qacc = 0`: a frame's Jacobian columns of the base's translation are `[R; 0]` in
    /// Pinocchio's layout, so only the linear rows gain `R (-ω × v_pin)`.
    pub fn frame_acceleration_bias(&self, g: &mut Graph, bias: &[NodeId]) -> Vec<NodeId> {
        let mut out = bias.to_vec();
        for (r, row) in self.rotation.iter().enumerate() {
            let mut terms = vec![bias[r]];
            terms.extend((0..3).map(|k| g.mul(row[k], self.shift[k])));
            out[r] = g.sum(&terms);
        }
        out
    }

    /// A frame's Jacobian derivative (`6×NV`, Pinocchio's) in MuJoCo's layout: there the
    /// columns of the base's translation are the constant `[I; 0]`, so their derivative is
    /// zero, and the others are Pinocchio's.
    pub fn frame_jacobian_derivative(&self, g: &mut Graph, jd: &[NodeId]) -> Vec<NodeId> {
        let nv = jd.len() / 6;
        let zero = g.constant(0.0);
        let mut out = jd.to_vec();
        for r in 0..6 {
            for c in 0..3 {
                out[r * nv + c] = zero;
            }
        }
        out
    }
}

impl MujocoLayout {
    /// The derivatives of the inverse dynamics and gravity along MuJoCo's tangent from
    /// Pinocchio's, `s` (by composite quantities, already read in MuJoCo's inputs), with
    /// Pinocchio's mass matrix `m_pin` and MuJoCo's inverse dynamics `tau` and gravity
    /// `gravity` (`NV` each, for the force's rate).
    ///
    /// MuJoCo's `τ = S τ_pin` with `S = diag(R, I)`, Pinocchio's inputs `v_b = Rᵀ v_mj` and
    /// `a_b = Rᵀ a_mj - ω × v_b` (and `∂τ_pin/∂a_b` the mass matrix's first three columns
    /// `M₃`). Along MuJoCo's turn `R → R exp([e_k]× θ)` the velocities and accelerations in
    /// world axes are held, so `v_b` and `a_b` turn the other way (`∂v_b/∂θ = [v_b]×`,
    /// `∂a_b/∂θ = [Rᵀ a_mj]× - [ω]× [v_b]×`) and `S`'s force turns with the base
    /// (`(R e_k) × f_mj`); the base's position enters neither. Over the velocities,
    /// `∂τ/∂v_mj = S (∂τ_pin/∂v_b - M₃ [ω]×) Rᵀ` and `∂τ/∂ω = S (∂τ_pin/∂ω + M₃ [v_b]×)`.
    pub fn derivatives(
        &self,
        g: &mut Graph,
        s: &SpatialDerivatives<NodeId>,
        m_pin: &[NodeId],
        tau: &[NodeId],
        gravity: &[NodeId],
    ) -> SpatialDerivatives<NodeId> {
        let nv = tau.len();
        let zero = g.constant(0.0);
        let three = |x: &[NodeId], r: usize, c: usize| {
            [x[r * nv + c], x[r * nv + c + 1], x[r * nv + c + 2]]
        };
        let mut dq = s.dtau_dq.clone();
        let mut dv = s.dtau_dqd.clone();
        let mut dg = s.dg_dq.clone();
        for r in 0..nv {
            let m = three(m_pin, r, 0);
            let (v_lin, v_ang, x_ang) = (three(&dv, r, 0), three(&dv, r, 3), three(&dq, r, 3));
            // Over the velocities.
            let m_w = g.cross(m, self.omega);
            let y: [NodeId; 3] = [0, 1, 2].map(|k| g.sub(v_lin[k], m_w[k]));
            let m_v = g.cross(m, self.v_pin);
            for k in 0..3 {
                dv[r * nv + k] = self.turn(g, k, y);
                dv[r * nv + 3 + k] = g.add(v_ang[k], m_v[k]);
            }
            // Along the pose: the turn's columns, none for the position.
            let v_v = g.cross(v_lin, self.v_pin);
            let m_a = g.cross(m, self.a_in_base);
            let m_wv = g.cross(m_w, self.v_pin);
            for k in 0..3 {
                let terms = [
                    (x_ang[k], 1.0),
                    (v_v[k], 1.0),
                    (m_a[k], 1.0),
                    (m_wv[k], -1.0),
                ];
                dq[r * nv + 3 + k] = g.sum_signed(&terms);
                dq[r * nv + k] = zero;
                dg[r * nv + k] = zero;
            }
        }
        for x in [&mut dq, &mut dv, &mut dg] {
            self.force_rows(g, x, nv);
        }
        // The force turns with the base: (R e_k) × f in the turn's column k.
        for (x, f) in [(&mut dq, tau), (&mut dg, gravity)] {
            for k in 0..3 {
                let axis = [0, 1, 2].map(|i| self.rotation[i][k]);
                let turned = g.cross(axis, [f[0], f[1], f[2]]);
                for (i, t) in turned.into_iter().enumerate() {
                    x[i * nv + 3 + k] = g.add(x[i * nv + 3 + k], t);
                }
            }
        }
        SpatialDerivatives {
            dtau_dq: dq,
            dtau_dqd: dv,
            dg_dq: dg,
        }
    }

    /// Component `i` of `R y`.
    fn turn(&self, g: &mut Graph, i: usize, y: [NodeId; 3]) -> NodeId {
        let terms: Vec<NodeId> = (0..3).map(|k| g.mul(self.rotation[i][k], y[k])).collect();
        g.sum(&terms)
    }

    /// `S x` for `x` (`NV×NV`, row-major): its first three rows (the base's force) turned
    /// into world axes.
    fn force_rows(&self, g: &mut Graph, x: &mut [NodeId], nv: usize) {
        for c in 0..nv {
            let y = [0, 1, 2].map(|r| x[r * nv + c]);
            for i in 0..3 {
                x[i * nv + c] = self.turn(g, i, y);
            }
        }
    }

    /// The centre of mass and centroidal momentum functions, derived in Pinocchio's layout,
    /// in MuJoCo's.
    pub fn centroidal(&self, g: &mut Graph, c: &Centroidal<NodeId>) -> Centroidal<NodeId> {
        let jacobian = self.inputs(g, &c.jacobian);
        let momentum_matrix = self.inputs(g, &c.momentum_matrix);
        let acceleration_bias = self.inputs(g, &c.acceleration_bias);
        let momentum_bias = self.inputs(g, &c.momentum_bias);
        Centroidal {
            center_of_mass: self.inputs(g, &c.center_of_mass),
            acceleration_bias: self.acceleration_bias(g, &acceleration_bias, &jacobian),
            momentum_bias: self.acceleration_bias(g, &momentum_bias, &momentum_matrix),
            jacobian: self.velocity_columns(g, &jacobian, 3),
            momentum_matrix: self.velocity_columns(g, &momentum_matrix, 6),
            momentum: self.inputs(g, &c.momentum),
        }
    }

    /// Each frame's motion, derived in Pinocchio's layout, in MuJoCo's.
    pub fn frame_motion(
        &self,
        g: &mut Graph,
        motion: &[FrameMotion<NodeId>],
    ) -> Vec<FrameMotion<NodeId>> {
        motion
            .iter()
            .map(|m| {
                let bias = self.inputs(g, &m.acceleration_bias);
                let jd = self.inputs(g, &m.jacobian_derivative);
                FrameMotion {
                    velocity: self.inputs(g, &m.velocity),
                    acceleration_bias: self.frame_acceleration_bias(g, &bias),
                    jacobian_derivative: self.frame_jacobian_derivative(g, &jd),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Env;

    /// A base turned a quarter turn about z, moving along its own x at 2 m/s and turning at
    /// 3 rad/s about z: Pinocchio's inputs read from MuJoCo's.
    #[test]
    fn pinocchio_inputs_are_written_in_mujocos() {
        let mut g = Graph::new();
        let layout = MujocoLayout::new(&mut g);
        let read: Vec<NodeId> = [BaseVar::Vel(0), BaseVar::Vel(1), BaseVar::Acc(1)]
            .into_iter()
            .chain((3..7).map(BaseVar::Pose))
            .map(|v| g.var(Var::Base(v)))
            .collect();
        let values = layout.inputs(&mut g, &read);
        let half = std::f64::consts::FRAC_1_SQRT_2;
        // MuJoCo: w x y z of a quarter turn about z; the origin moves along world y.
        let mut base = vec![0.0, 0.0, 0.0, half, 0.0, 0.0, half];
        base.extend([0.0, 2.0, 0.0, 0.0, 0.0, 3.0]);
        base.extend([0.0; 6]);
        base.extend([0.0; 6]);
        let env = Env {
            base,
            ..Env::default()
        };
        let got = g.eval_many(&values, &env);
        // Base axes: along x at 2; at qacc = 0, a_pin = -ω × v = -(3 z × 2 x) = -6 y.
        let expected = [2.0, 0.0, -6.0, 0.0, 0.0, half, half];
        for (a, e) in got.iter().zip(expected) {
            assert!((a - e).abs() < 1e-12, "{got:?}");
        }
    }
}

//! Identification of a simulated UR5's base inertial parameters with the generated base
//! regressor: an exciting trajectory, torques from the generated inverse dynamics with noise,
//! the base regressor stacked, least squares.

use nalgebra::{DMatrix, DVector};

quasidyn::include_robot!(pub "ur5");

use ur5::{DOF, NB};

/// One sample of the trajectory: joint positions, velocities, accelerations.
pub type Sample = ([f64; DOF], [f64; DOF], [f64; DOF]);

/// A finite Fourier series per joint (the usual exciting trajectory): `samples` points over
/// `seconds`, with harmonics of 0.1 Hz, so `q`, `qd`, `qdd` are exact.
pub fn exciting_trajectory(samples: usize, seconds: f64) -> Vec<Sample> {
    let w = 2.0 * std::f64::consts::PI * 0.1;
    (0..samples)
        .map(|k| {
            let t = seconds * k as f64 / samples as f64;
            let mut s = ([0.0; DOF], [0.0; DOF], [0.0; DOF]);
            for j in 0..DOF {
                for h in 1..=5 {
                    let hw = h as f64 * w;
                    // Different, deterministic amplitudes per joint and harmonic.
                    let a = 0.6 / h as f64 * (1.0 + 0.3 * ((j * 7 + h * 3) % 5) as f64 / 4.0);
                    let b = 0.4 / h as f64 * (1.0 - 0.2 * ((j * 5 + h) % 4) as f64 / 3.0);
                    let phase = 0.7 * j as f64;
                    let (sn, cs) = (hw * t + phase).sin_cos();
                    s.0[j] += a / hw * sn - b / hw * cs;
                    s.1[j] += a * cs + b * sn;
                    s.2[j] += -a * hw * sn + b * hw * cs;
                }
            }
            s
        })
        .collect()
}

/// A small deterministic normal generator (xorshift64* and Box-Muller).
pub struct Noise(u64);

impl Noise {
    /// A generator from a non-zero seed.
    pub fn new(seed: u64) -> Self {
        Noise(seed.max(1))
    }

    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        ((self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// A sample of the normal distribution with standard deviation `sigma`.
    pub fn normal(&mut self, sigma: f64) -> f64 {
        let (u, v) = (self.unit(), self.unit());
        sigma * (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }
}

/// The result of an identification.
pub struct Identified {
    /// Estimated base parameters.
    pub estimate: Vec<f64>,
    /// Root mean square of the torque residual `tau - Yb estimate` (N m).
    pub residual_rms: f64,
    /// Condition number of the stacked regressor (columns scaled to unit norm).
    pub condition: f64,
}

/// Measured torques along `trajectory`: the generated inverse dynamics of the UR5 (its spec
/// parameters are the truth) plus normal noise of `sigma` N m.
pub fn measure(trajectory: &[Sample], sigma: f64, noise: &mut Noise) -> Vec<[f64; DOF]> {
    trajectory
        .iter()
        .map(|(q, qd, qdd)| ur5::inverse_dynamics(q, qd, qdd).map(|t| t + noise.normal(sigma)))
        .collect()
}

/// Least-squares base parameters from `trajectory` and the measured `torques`.
pub fn identify(trajectory: &[Sample], torques: &[[f64; DOF]]) -> Identified {
    let rows = DOF * trajectory.len();
    let mut y = DMatrix::<f64>::zeros(rows, NB);
    let mut tau = DVector::<f64>::zeros(rows);
    for (k, ((q, qd, qdd), t)) in trajectory.iter().zip(torques).enumerate() {
        let yb = ur5::base_regressor(q, qd, qdd);
        for i in 0..DOF {
            for j in 0..NB {
                y[(k * DOF + i, j)] = yb[i][j];
            }
            tau[k * DOF + i] = t[i];
        }
    }
    // Scale the columns (base parameters span masses to tiny inertias), solve, unscale.
    let scale: Vec<f64> = (0..NB).map(|j| y.column(j).norm().max(1e-300)).collect();
    let mut ys = y.clone();
    for (j, s) in scale.iter().enumerate() {
        ys.column_mut(j).scale_mut(1.0 / s);
    }
    let svd = ys.clone().svd(true, true);
    let sv = &svd.singular_values;
    let condition = sv.max() / sv.min();
    let solution = svd.solve(&tau, 1e-12).expect("SVD with U and V");
    let estimate: Vec<f64> = (0..NB).map(|j| solution[j] / scale[j]).collect();
    let residual = &tau - &y * DVector::from_column_slice(&estimate);
    Identified {
        estimate,
        residual_rms: (residual.norm_squared() / rows as f64).sqrt(),
        condition,
    }
}

//! Robots generated while compiling, with `quasidyn::robot!`: the planar 3R arm from its spec
//! file (module `planar3r`), a pendulum written inline (module `pendulum`) and dm_control's
//! acrobot from its MuJoCo file (module `acrobot`).
// Every public item documented, the generated modules' included: the module by the macro, the
// constants and functions by the generator.
#![warn(missing_docs)]

use quasidyn::Dynamics;

// Relative to this crate's Cargo.toml; the crate is rebuilt when the file changes.
quasidyn::robot!(pub file = "../../robots/planar3r.toml");

// A point mass on a massless rod of 1 m, swinging in the vertical x-y plane.
quasidyn::robot!(pub r#"
name = "pendulum"
gravity = [0.0, -9.81, 0.0]

[[body]]
joint = "revolute"
axis = "z"
next = [1.0, 0.0, 0.0]
mass = 1.0
com = [1.0, 0.0, 0.0]
"#);

// An MJCF file and the files it includes (relative to it), taking MuJoCo's qpos.
quasidyn::robot!(pub file = "../../tests/fixtures/mjcf/acrobot.xml");

/// Control and integration step: 1 kHz.
pub const DT: f64 = 1e-3;

/// Simulates PD control with gravity compensation from rest at `q0` towards `target` for
/// `steps` steps of [`DT`], integrating the forward dynamics with semi-implicit Euler.
/// Returns the final joint positions and velocities.
pub fn simulate<const N: usize>(
    robot: &impl Dynamics<N>,
    q0: [f64; N],
    target: [f64; N],
    steps: usize,
) -> ([f64; N], [f64; N]) {
    // PD gains shaped by the mass matrix at the target, so that near it every joint behaves
    // as a decoupled, critically damped oscillator at OMEGA.
    const OMEGA: f64 = 10.0;
    let m = robot.mass_matrix(&target);
    let (mut q, mut qd) = (q0, [0.0; N]);
    for _ in 0..steps {
        let g = robot.gravity(&q);
        let pd: [f64; N] =
            std::array::from_fn(|j| OMEGA * OMEGA * (target[j] - q[j]) - 2.0 * OMEGA * qd[j]);
        let tau: [f64; N] =
            std::array::from_fn(|i| m[i].iter().zip(&pd).map(|(m, a)| m * a).sum::<f64>() + g[i]);
        let qdd = robot.forward_dynamics(&q, &qd, &tau);
        // Semi-implicit Euler: the new velocity moves the position.
        for ((q, qd), qdd) in q.iter_mut().zip(&mut qd).zip(qdd) {
            *qd += DT * qdd;
            *q += DT * *qd;
        }
    }
    (q, qd)
}

/// Largest absolute difference between two joint vectors.
pub fn max_error<const N: usize>(a: &[f64; N], b: &[f64; N]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

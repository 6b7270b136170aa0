//! Drives the simulated planar arm and pendulum to setpoints and prints the final errors.

use example_macro::{max_error, pendulum, planar3r, simulate};

fn main() {
    let target = [0.6, -0.4, 0.9];
    // 2 s at 1 kHz from the zero configuration.
    let (q, _) = simulate(&planar3r::Planar3r, [0.0; planar3r::DOF], target, 2000);
    println!(
        "planar3r: final joint error after 2 s: {:.3e} rad",
        max_error(&q, &target)
    );
    let (q, _) = simulate(&pendulum::Pendulum, [0.0], [-1.0], 2000);
    println!(
        "pendulum: final joint error after 2 s: {:.3e} rad",
        max_error(&q, &[-1.0])
    );
}

//! Clamped-free Euler–Bernoulli beam modes, for flexible links.
//!
//! A uniform beam of length `L` clamped at `x = 0` and free at `x = L` has the mode shapes
//!
//! ```text
//! phi_k(x) = cosh(b x) - cos(b x) - s (sinh(b x) - sin(b x)),
//!     s = (cosh(b L) + cos(b L)) / (sinh(b L) + sin(b L)),
//! ```
//!
//! with `b = b_k` the roots of `cos(b L) cosh(b L) + 1 = 0` (`b_k L = 1.8751, 4.6941, 7.8548,
//! 10.9955, ...`, tending to `(2k - 1) pi / 2`). quasidyn scales each mode so that
//! `phi_k(L) = 1`; a link then needs, per mode, only the slope at its end,
//! `phi_k'(L) = r_k / L` with the dimensionless
//!
//! ```text
//! r_k = L phi_k'(L) / phi_k(L) = x tanh(x) sin(x) / (sin(x) - cos(x) tanh(x)),   x = b_k L
//! ```
//!
//! (from `phi(L) = 2 (cosh x sin x - cos x sinh x) / (sinh x + sin x)` and
//! `phi'(L) / b = 2 sinh x sin x / (sinh x + sin x)`, divided through by `cosh x` so that no
//! large numbers cancel): `r_1 = 1.3765`, `r_2 = 4.7808`, `r_3 = 7.8487`, `r_4 = 10.9959`, ....

/// `b_k L`, the `k`-th root (1-based) of `cos x cosh x + 1 = 0`, to the last bit: found by
/// bisection of `cos x + 1 / cosh x` (the same roots, no overflow) on `((k - 1) pi, k pi)`,
/// which holds exactly one root.
///
/// # Panics
/// If `k` is 0.
pub fn clamped_free_eigenvalue(k: usize) -> f64 {
    assert!(k >= 1, "modes count from 1");
    let f = |x: f64| x.cos() + 1.0 / x.cosh();
    let pi = std::f64::consts::PI;
    let (mut lo, mut hi) = ((k - 1) as f64 * pi, k as f64 * pi);
    // The sign at the lower end: + for k odd (f(0) = 2), alternating after.
    let lo_positive = f(lo) > 0.0;
    loop {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if (f(mid) > 0.0) == lo_positive {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    if f(lo).abs() <= f(hi).abs() {
        lo
    } else {
        hi
    }
}

/// `L phi_k'(L) / phi_k(L)`: the end slope of mode `k` (1-based) scaled so `phi_k(L) = 1`,
/// times the length (see the module docs).
///
/// # Panics
/// If `k` is 0.
pub fn clamped_free_tip_slope(k: usize) -> f64 {
    let x = clamped_free_eigenvalue(k);
    let (s, c, t) = (x.sin(), x.cos(), x.tanh());
    x * t * s / (s - c * t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eigenvalues_are_the_tabulated_ones() {
        let table = [
            1.875_104_068_7,
            4.694_091_132_9,
            7.854_757_438_2,
            10.995_540_734_9,
        ];
        for (k, want) in table.iter().enumerate() {
            let got = clamped_free_eigenvalue(k + 1);
            assert!((got - want).abs() < 1e-9, "mode {}: {got} vs {want}", k + 1);
            // The characteristic equation itself.
            assert!((got.cos() * got.cosh() + 1.0).abs() < 1e-9 * got.cosh());
        }
        // Towards (2k - 1) pi / 2.
        let x10 = clamped_free_eigenvalue(10);
        assert!((x10 - 19.0 * std::f64::consts::FRAC_PI_2).abs() < 1e-7);
    }

    /// The slope formula against the eigenfunction itself, differentiated numerically.
    #[test]
    fn tip_slope_matches_the_eigenfunction() {
        for k in 1..=5 {
            let b = clamped_free_eigenvalue(k);
            let s = (b.cosh() + b.cos()) / (b.sinh() + b.sin());
            let phi =
                |x: f64| (b * x).cosh() - (b * x).cos() - s * ((b * x).sinh() - (b * x).sin());
            let h = 1e-6;
            let slope = (phi(1.0 + h) - phi(1.0 - h)) / (2.0 * h) / phi(1.0);
            let got = clamped_free_tip_slope(k);
            assert!(
                (got - slope).abs() < 1e-6 * slope.abs(),
                "mode {k}: {got} vs {slope}"
            );
        }
        assert!((clamped_free_tip_slope(1) - 1.376_5).abs() < 1e-4);
    }
}

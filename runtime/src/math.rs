//! Math shims for generated code: `sin`, `cos`, `sqrt` that work with and without `std`.

/// Sine (libm when built without `std`).
#[inline(always)]
pub fn sin(x: f64) -> f64 {
    #[cfg(feature = "std")]
    {
        x.sin()
    }
    #[cfg(not(feature = "std"))]
    {
        libm::sin(x)
    }
}

/// Cosine (libm when built without `std`).
#[inline(always)]
pub fn cos(x: f64) -> f64 {
    #[cfg(feature = "std")]
    {
        x.cos()
    }
    #[cfg(not(feature = "std"))]
    {
        libm::cos(x)
    }
}

/// Square root (libm when built without `std`).
#[inline(always)]
pub fn sqrt(x: f64) -> f64 {
    #[cfg(feature = "std")]
    {
        x.sqrt()
    }
    #[cfg(not(feature = "std"))]
    {
        libm::sqrt(x)
    }
}

/// Angles at and beyond which [`sin_cos_n`] falls back to [`sin`] and [`cos`]: the reduction
/// of [`sin_cos_poly`] is exact far beyond (about `1e7`), its accuracy is measured up to here.
pub const POLY_TRIG_LIMIT: f64 = 1e5;

/// `π/2` in three parts, the first two short (30 bits) so that their products with a quadrant
/// count below `2^23` are exact (Cody and Waite's reduction).
const HALF_PI: [f64; 3] = [
    1.570_796_327_665_448_2,
    -8.705_515_692_000_731e-10,
    -3.503_434_398_089_93e-19,
];

/// Taylor coefficients `(-1)^i / (2i+1)!` of the sine from `i = 1`, to where the next term is
/// below half an ulp on `|r| ≤ π/4`.
const SIN: [f64; 8] = [
    -0.166_666_666_666_666_66,
    0.008_333_333_333_333_333,
    -0.000_198_412_698_412_698_4,
    2.755_731_922_398_589_3e-6,
    -2.505_210_838_544_172e-8,
    1.605_904_383_682_161_3e-10,
    -7.647_163_731_819_816e-13,
    2.811_457_254_345_520_6e-15,
];

/// Taylor coefficients `(-1)^i / (2i)!` of the cosine from `i = 2`.
const COS: [f64; 8] = [
    0.041_666_666_666_666_664,
    -0.001_388_888_888_888_889,
    2.480_158_730_158_73e-5,
    -2.755_731_922_398_589e-7,
    2.087_675_698_786_81e-9,
    -1.147_074_559_772_972_5e-11,
    4.779_477_332_387_385e-14,
    -1.561_920_696_858_622_5e-16,
];

/// `1.5 · 2^52`: `(x + M) - M` is `x` rounded to the nearest integer for `|x| < 2^51`.
const ROUND: f64 = 6_755_399_441_055_744.0;

/// The sine and cosine of every angle, for generated code: one loop over the angles, which
/// compilers vectorise, where the target has AVX (then [`sin_cos_poly`], unless an angle is at
/// or beyond [`POLY_TRIG_LIMIT`] or not a number); elsewhere, where a vector of two lanes does
/// not pay for the polynomial, [`sin`] and [`cos`] of each angle.
#[inline(always)]
pub fn sin_cos_n<const N: usize>(angles: [f64; N]) -> ([f64; N], [f64; N]) {
    #[cfg(target_feature = "avx")]
    {
        if angles
            .iter()
            .all(|&a| a < POLY_TRIG_LIMIT && a > -POLY_TRIG_LIMIT)
        {
            return sin_cos_poly(angles);
        }
    }
    let mut s = [0.0; N];
    let mut c = [0.0; N];
    for j in 0..N {
        s[j] = sin(angles[j]);
        c[j] = cos(angles[j]);
    }
    (s, c)
}

/// The sine and cosine of every angle by arithmetic alone, branch-free so the loop vectorises:
/// Cody–Waite reduction to `r = a - k π/2`, `|r| ≤ π/4`, Taylor polynomials for `sin r` and
/// `cos r`, and the quadrant `k mod 4` choosing between them and their signs by products with
/// 0 and 1. Within 2 ulp of the C library's values for `|a| <` [`POLY_TRIG_LIMIT`] (within
/// `1e-30` where a value is below `1e-12`, next to multiples of `π/2`). The same formulas as
/// the batched functions of generated code.
#[inline(always)]
pub fn sin_cos_poly<const N: usize>(angles: [f64; N]) -> ([f64; N], [f64; N]) {
    let round = |x: f64| (x + ROUND) - ROUND;
    let mut s = [0.0; N];
    let mut c = [0.0; N];
    for j in 0..N {
        let a = angles[j];
        let k = round(a * core::f64::consts::FRAC_2_PI);
        let r = a - k * HALF_PI[0] - k * HALF_PI[1] - k * HALF_PI[2];
        let z = r * r;
        let mut ps = SIN[7];
        for &x in SIN[..7].iter().rev() {
            ps = x + z * ps;
        }
        let ps = r + r * z * ps;
        let mut pc = COS[7];
        for &x in COS[..7].iter().rev() {
            pc = x + z * pc;
        }
        let pc = 1.0 - 0.5 * z + z * z * pc;
        // k mod 4, then its halves: h = floor(q / 2), o = q mod 2.
        let q = k - 4.0 * round((k - 1.5) * 0.25);
        let h = round((q - 0.5) * 0.5);
        let o = q - 2.0 * h;
        // Quadrants 0..3: sin r, cos r, -sin r, -cos r (and cos r, -sin r, -cos r, sin r).
        s[j] = ((1.0 - o) * ps + o * pc) * (1.0 - 2.0 * h);
        c[j] = ((1.0 - o) * pc + o * ps) * (1.0 - 2.0 * (o + h - 2.0 * o * h));
    }
    (s, c)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distance from `x` to `want` in units of `want`'s last place.
    fn ulps(x: f64, want: f64) -> f64 {
        let ulp = f64::from_bits(want.abs().to_bits() + 1) - want.abs();
        (x - want).abs() / ulp
    }

    /// `x` matches the C library's `want` within 2 ulp, or within 1e-30 where `want` is below
    /// 1e-12 (an angle next to a multiple of `π/2`, where both round its distance to it).
    fn close(x: f64, want: f64) -> bool {
        ulps(x, want) <= 2.0 || (want.abs() < 1e-12 && (x - want).abs() < 1e-30)
    }

    #[test]
    fn polynomial_sine_and_cosine_are_within_two_ulp_of_the_library() {
        // A xorshift sequence: angles over every scale up to the limit, and multiples of π/2
        // nudged by a few ulp.
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut checked = 0;
        for round in 0..50_000 {
            let scale = [1.0, 4.0, 100.0, POLY_TRIG_LIMIT][round % 4];
            let mut angles = [0.0; 8];
            for a in &mut angles {
                *a = (2.0 * next() - 1.0) * scale;
            }
            let k = (next() * 1000.0).floor() - 500.0;
            angles[7] = k * core::f64::consts::FRAC_PI_2 * (1.0 + (next() - 0.5) * 1e-15);
            let (s, c) = sin_cos_poly(angles);
            for (j, &a) in angles.iter().enumerate() {
                assert!(
                    close(s[j], a.sin()),
                    "sin({a:e}) = {:e}, not {:e}",
                    s[j],
                    a.sin()
                );
                assert!(
                    close(c[j], a.cos()),
                    "cos({a:e}) = {:e}, not {:e}",
                    c[j],
                    a.cos()
                );
                checked += 1;
            }
        }
        assert_eq!(checked, 400_000);
    }

    #[test]
    fn large_and_non_finite_angles_take_the_library_path() {
        let angles = [0.3, -1.2, 2.0e6, 7.0];
        let (s, c) = sin_cos_n(angles);
        for (j, &a) in angles.iter().enumerate() {
            assert_eq!(s[j], a.sin());
            assert_eq!(c[j], a.cos());
        }
        let (s, c) = sin_cos_n([0.5, f64::NAN]);
        assert!(s[1].is_nan() && c[1].is_nan());
        assert!(close(s[0], 0.5_f64.sin()) && close(c[0], 0.5_f64.cos()));
        let (s, c) = sin_cos_n([f64::INFINITY, 1.0]);
        assert!(s[0].is_nan() && c[0].is_nan());
        assert!(close(s[1], 1.0_f64.sin()) && close(c[1], 1.0_f64.cos()));
    }
}

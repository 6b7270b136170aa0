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

/// Angles below which [`sin_cos_poly`] is measured within 2 ulp of the C library (the
/// reduction stays exact far beyond, to about `1e7`).
pub const POLY_TRIG_LIMIT: f64 = 1e5;

/// `π/2` in three parts, the first two short (30 bits) so that their products with a quadrant
/// count below `2^23` are exact (Cody and Waite's reduction).
const HALF_PI: [f64; 3] = [
    1.570_796_327_665_448_2,
    -8.705_515_692_000_731e-10,
    -3.503_434_398_089_93e-19,
];

/// `P` of `sin r = r + r³ P(r²)` on `|r| ≤ π/4`, degree 5, fitted to the least maximum
/// relative error (about `4e-18`).
const SIN: [f64; 6] = [
    -0.166_666_666_666_666_3,
    0.008_333_333_333_322_118,
    -0.000_198_412_698_295_894_25,
    2.755_731_362_135_225e-6,
    -2.505_074_775_825_317_3e-8,
    1.589_622_991_832_440_3e-10,
];

/// `Q` of `cos r = 1 - r²/2 + r⁴ Q(r²)` on `|r| ≤ π/4`, degree 5, fitted likewise (about
/// `6e-20`).
const COS: [f64; 6] = [
    0.041_666_666_666_666_595,
    -0.001_388_888_888_887_305_6,
    2.480_158_728_885_148_4e-5,
    -2.755_731_417_923_979e-7,
    2.087_570_083_495_664_4e-9,
    -1.135_853_618_788_320_8e-11,
];

/// `c0 + c1 z + .. + c5 z⁵` by Estrin's scheme (`w = z²`): three independent pairs, then two
/// dependent steps, where Horner's scheme takes five.
#[inline(always)]
fn estrin(c: &[f64; 6], z: f64, w: f64) -> f64 {
    let (p0, p1, p2) = (fma(z, c[1], c[0]), fma(z, c[3], c[2]), fma(z, c[5], c[4]));
    fma(w * w, p2, fma(w, p1, p0))
}

/// `a b + c`, fused where the target has the instruction (one rounding and one step of
/// latency instead of two), and as written elsewhere: generated code writes its sums of
/// products and its sines and cosines with it.
#[inline(always)]
pub fn fma(a: f64, b: f64, c: f64) -> f64 {
    #[cfg(all(feature = "std", target_feature = "fma"))]
    {
        a.mul_add(b, c)
    }
    #[cfg(not(all(feature = "std", target_feature = "fma")))]
    {
        a * b + c
    }
}

/// `c - a b`, fused where the target has the instruction (as [`fma`]), and as written
/// elsewhere: generated code writes a subtracted product of a sum with it.
#[inline(always)]
pub fn fnma(a: f64, b: f64, c: f64) -> f64 {
    #[cfg(all(feature = "std", target_feature = "fma"))]
    {
        (-a).mul_add(b, c)
    }
    #[cfg(not(all(feature = "std", target_feature = "fma")))]
    {
        c - a * b
    }
}

/// `a b - c`, fused where the target has the instruction (as [`fma`]), and as written
/// elsewhere: generated code writes a sum that starts with a product less another term with it.
#[inline(always)]
pub fn fms(a: f64, b: f64, c: f64) -> f64 {
    #[cfg(all(feature = "std", target_feature = "fma"))]
    {
        a.mul_add(b, -c)
    }
    #[cfg(not(all(feature = "std", target_feature = "fma")))]
    {
        a * b - c
    }
}

/// `c + a b` for generated code: [`fma`] where the target has the instruction, the plain
/// expression elsewhere. A macro rather than a call so that, without the instruction, the
/// compiler sees exactly the written sum (through an inlined call LLVM compiled generated code
/// markedly slower for the x86-64 baseline).
#[macro_export]
macro_rules! fma {
    ($a:expr, $b:expr, $c:expr $(,)?) => {
        $crate::__fused!(+, $a, $b, $c)
    };
}

/// `c - a b` for generated code, as [`fma!`](crate::fma!) ([`fnma`] or the plain expression).
#[macro_export]
macro_rules! fnma {
    ($a:expr, $b:expr, $c:expr $(,)?) => {
        $crate::__fused!(-, $a, $b, $c)
    };
}

/// `a b - c` for generated code, as [`fma!`](crate::fma!) ([`fms`] or the plain expression).
#[macro_export]
macro_rules! fms {
    ($a:expr, $b:expr, $c:expr $(,)?) => {
        $crate::__fused!(*, $a, $b, $c)
    };
}

/// [`fma!`](crate::fma!), [`fnma!`](crate::fnma!) and [`fms!`](crate::fms!) where the target
/// has the instruction.
#[cfg(all(feature = "std", target_feature = "fma"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __fused {
    (+, $a:expr, $b:expr, $c:expr) => {
        $crate::math::fma($a, $b, $c)
    };
    (-, $a:expr, $b:expr, $c:expr) => {
        $crate::math::fnma($a, $b, $c)
    };
    (*, $a:expr, $b:expr, $c:expr) => {
        $crate::math::fms($a, $b, $c)
    };
}

/// [`fma!`](crate::fma!), [`fnma!`](crate::fnma!) and [`fms!`](crate::fms!) elsewhere: the
/// written sum.
#[cfg(not(all(feature = "std", target_feature = "fma")))]
#[doc(hidden)]
#[macro_export]
macro_rules! __fused {
    (+, $a:expr, $b:expr, $c:expr) => {
        $c + $a * $b
    };
    (-, $a:expr, $b:expr, $c:expr) => {
        $c - $a * $b
    };
    (*, $a:expr, $b:expr, $c:expr) => {
        $a * $b - $c
    };
}

/// `1.5 · 2^52`: `(x + M) - M` is `x` rounded to the nearest integer for `|x| < 2^51`.
const ROUND: f64 = 6_755_399_441_055_744.0;

/// The sine and cosine of every angle, for generated code: on x86-64 (SSE2 or wider), one
/// branch-free loop over the angles, which compilers vectorise ([`sin_cos_poly`]); elsewhere,
/// where the polynomial has not been measured against the platform's library, [`sin`] and
/// [`cos`] of each angle.
///
/// Within 2 ulp of the C library for `|a| <` [`POLY_TRIG_LIMIT`]; beyond, within a few ulp of
/// the angle itself (the reduction's error is its rounding, the angle's own resolution there)
/// up to [`POLY_TRIG_MAX`], and not a number at or beyond it (where a double angle is known to
/// a tenth of a radian or worse) or for an infinite or not-a-number angle. No branch: results
/// merged from the polynomial and a rarely taken path of library calls went through memory in
/// the caller, and a large function (a 7-joint arm's inverse-dynamics derivatives, built for
/// SSE2) took twice as long.
#[inline(always)]
pub fn sin_cos_n<const N: usize>(angles: [f64; N]) -> ([f64; N], [f64; N]) {
    #[cfg(target_feature = "sse2")]
    {
        sin_cos_poly(angles.map(|a| if a.abs() < POLY_TRIG_MAX { a } else { f64::NAN }))
    }
    #[cfg(not(target_feature = "sse2"))]
    {
        let mut s = [0.0; N];
        let mut c = [0.0; N];
        for j in 0..N {
            s[j] = sin(angles[j]);
            c[j] = cos(angles[j]);
        }
        (s, c)
    }
}

/// The largest angles [`sin_cos_n`] takes (`2^50` rad): below, the quadrant count rounds
/// exactly.
pub const POLY_TRIG_MAX: f64 = 1_125_899_906_842_624.0;

/// The sine and cosine of every angle by arithmetic alone, branch-free so the loop vectorises:
/// Cody–Waite reduction to `r = a - k π/2`, `|r| ≤ π/4`, polynomials for `sin r` and `cos r`
/// (Estrin's scheme), and the quadrant `k mod 4` choosing between them and their signs by
/// products with 0 and 1. Within 2 ulp of the C library's values for `|a| <` [`POLY_TRIG_LIMIT`] (within
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
        let r = fma(-k, HALF_PI[2], fma(-k, HALF_PI[1], fma(-k, HALF_PI[0], a)));
        let z = r * r;
        let w = z * z;
        let ps = fma(r * z, estrin(&SIN, z, w), r);
        let pc = fma(w, estrin(&COS, z, w), fma(-0.5, z, 1.0));
        // The quadrant k mod 4 = 2 p + o: o = k mod 2 and p = h mod 2 for h = floor(k / 2),
        // each halving by rounding x / 2 - 1/4 (exact for these integers).
        let h = round(fma(k, 0.5, -0.25));
        let o = fma(h, -2.0, k);
        let p = fma(round(fma(h, 0.5, -0.25)), -2.0, h);
        // Quadrants 0..3: sine sin r, cos r, -sin r, -cos r; cosine cos r, -sin r, -cos r,
        // sin r. Both take g = 1 - 2p times their own polynomial where o = 0 and, for the
        // sine, g times the other where o = 1 (the cosine -g). The weights come from k
        // alone, ready before the polynomials are.
        let sign = fma(p, -2.0, 1.0);
        let other = o * sign;
        let own = sign - other;
        s[j] = fma(ps, own, pc * other);
        c[j] = fma(ps, -other, pc * own);
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
    fn fused_forms_compute_their_sums() {
        // Exact in binary, so one rounding or two give the same value: which operand is
        // multiplied and which is added or subtracted.
        let (a, b, c) = (1.5, -2.25, 0.375);
        assert_eq!(fma(a, b, c), -3.0);
        assert_eq!(fnma(a, b, c), 3.75);
        assert_eq!(fms(a, b, c), -3.75);
        assert_eq!(crate::fma!(a, b, c), -3.0);
        assert_eq!(crate::fnma!(a, b, c), 3.75);
        assert_eq!(crate::fms!(a, b, c - 1.0), -2.75);
        // One rounding where the target has the instruction: 1 + 2^-30 squared less 1 keeps
        // its 2^-60 term only when fused.
        let e = 1.0 / 1_073_741_824.0;
        let x = 1.0 + e;
        let fused = cfg!(all(feature = "std", target_feature = "fma"));
        assert_eq!(fms(x, x, 1.0) - 2.0 * e == e * e, fused);
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
    fn large_angles_keep_their_own_resolution_and_absurd_ones_give_nan() {
        // Beyond the limit of 2 ulp the error is that of the reduction, a few ulp of the angle
        // (its own resolution: 1.5e-11 rad at 1e5, 0.06 rad at 2^49).
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        for i in 0..200_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let u = (state >> 11) as f64 / (1u64 << 53) as f64;
            // Log-uniform magnitudes from 1e5 to 2^50.
            let a = POLY_TRIG_LIMIT * (POLY_TRIG_MAX / POLY_TRIG_LIMIT).powf(u);
            let a = if i % 2 == 0 { a } else { -a };
            let ([s], [c]) = sin_cos_n([a]);
            let ulp = f64::from_bits(a.abs().to_bits() + 1) - a.abs();
            let tol = 4.0 * ulp + 4e-16;
            assert!(
                (s - a.sin()).abs() <= tol,
                "sin({a:e}) = {s:e}, not {:e}",
                a.sin()
            );
            assert!(
                (c - a.cos()).abs() <= tol,
                "cos({a:e}) = {c:e}, not {:e}",
                a.cos()
            );
        }
        for bad in [
            POLY_TRIG_MAX,
            -1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ] {
            let (s, c) = sin_cos_n([0.5, bad]);
            assert!(s[1].is_nan() && c[1].is_nan(), "{bad}");
            assert!(close(s[0], 0.5_f64.sin()) && close(c[0], 0.5_f64.cos()));
        }
    }
}

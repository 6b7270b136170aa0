//! The sines and cosines of the joint angles: which locals they are, and, in batched
//! functions, the vectorisable block that computes them for every state at once (range
//! reduction and polynomials in the generated code instead of library calls).

use super::plan::{Ex, Func, Plan};

/// Whether a local is the `sin` or `cos` of joint angles (read from the inputs only).
pub(crate) fn is_trig(e: &Ex) -> bool {
    matches!(e, Ex::Call(Func::Sin | Func::Cos, _))
}

/// An angle and the names of its sine and cosine locals (either may be absent).
pub(crate) type TrigAngle<'a> = (&'a Ex, Option<&'a str>, Option<&'a str>);

/// The `sin`/`cos` locals of a plan grouped by angle, in order of first use: the angle and the
/// names of its sine and cosine locals (either may be absent).
pub(crate) fn trig_angles(plan: &Plan) -> Vec<TrigAngle<'_>> {
    let mut out: Vec<TrigAngle<'_>> = Vec::new();
    for (name, e) in &plan.locals {
        let Ex::Call(f @ (Func::Sin | Func::Cos), angle) = e else {
            continue;
        };
        let at = match out.iter().position(|(a, _, _)| **a == **angle) {
            Some(at) => at,
            None => {
                out.push((angle, None, None));
                out.len() - 1
            }
        };
        if *f == Func::Sin {
            out[at].1 = Some(name);
        } else {
            out[at].2 = Some(name);
        }
    }
    out
}

/// The angles whose sines and cosines a scalar function takes in one block (`sin_cos_n` in
/// Rust, `NAME_SINCOS` in C), a loop over the angles that compilers vectorise where the target
/// has wide vectors: every trigonometric local, when there are at least two angles (an angle
/// is a sum of joint positions, so the block can come first). `None`: plain calls.
pub(crate) fn trig_block(plan: &Plan) -> Option<Vec<TrigAngle<'_>>> {
    let angles = trig_angles(plan);
    (angles.len() >= 2).then_some(angles)
}

/// The slots of a trigonometric block of `n` angles for vectors of `width` lanes: the angle
/// each slot holds (`None`: a zero), a multiple of `width` of them. Where `n` is not a
/// multiple, the last vector repeats the angles before the tail when there are enough
/// (`n ≥ width`), so that every vector is a window of consecutive angles: angles that are
/// consecutive inputs then load as one vector, where a vector assembled from a few scalars and
/// zeros goes through memory and stalls the loads that follow. Fewer angles than a vector are
/// padded with zeros.
pub(crate) fn trig_slots(n: usize, width: usize) -> Vec<Option<usize>> {
    let tail = n % width;
    if tail == 0 || n < width {
        let mut slots: Vec<Option<usize>> = (0..n).map(Some).collect();
        slots.resize(n.div_ceil(width) * width, None);
        return slots;
    }
    (0..n - tail).chain(n - width..n).map(Some).collect()
}

/// The slot of angle `k` in `slots` ([`trig_slots`]): its first.
pub(crate) fn trig_slot(slots: &[Option<usize>], k: usize) -> usize {
    slots
        .iter()
        .position(|&s| s == Some(k))
        .expect("every angle has a slot")
}

/// A sine or cosine local of a trigonometric block: its name, the block's output it reads
/// (`trig_s` or `trig_c`, at `index`) and the plain call it stands for where there is no block.
pub(crate) struct TrigRead<'a> {
    pub name: &'a str,
    pub array: &'static str,
    pub index: usize,
    pub call: &'a Ex,
}

/// The locals of `block` ([`trig_block`]) in block order, sine before cosine of each angle.
pub(crate) fn trig_reads<'a>(plan: &'a Plan, block: &[TrigAngle<'a>]) -> Vec<TrigRead<'a>> {
    let calls: Vec<(&str, &Ex)> = plan
        .locals
        .iter()
        .filter(|(_, e)| is_trig(e))
        .map(|(name, e)| (name.as_str(), e))
        .collect();
    let mut reads = Vec::new();
    for (index, (_, sin, cos)) in block.iter().enumerate() {
        for (name, array) in [(sin, "trig_s"), (cos, "trig_c")] {
            let Some(name) = *name else { continue };
            if let Some(&(name, call)) = calls.iter().find(|(l, _)| *l == name) {
                reads.push(TrigRead {
                    name,
                    array,
                    index,
                    call,
                });
            }
        }
    }
    reads
}

/// The constants of the generated `sin` and `cos` (batched functions and the trigonometric
/// block): `2/π`; `π/2` in three parts (the first two short, so their products with the
/// quadrant count are exact: Cody and Waite's reduction); the coefficients of
/// `sin r = r + r³ P(r²)` and `cos r = 1 - r²/2 + r⁴ Q(r²)` on `|r| ≤ π/4`; the number that
/// rounds to an integer when added and subtracted.
struct TrigConstants {
    two_over_pi: f64,
    half_pi: [f64; 3],
    sin: &'static [f64],
    cos: &'static [f64],
    magic: f64,
}

/// Double precision: `π/2` in parts of 30, 30 and 53 bits (exact products for `|k| < 2^23`);
/// `P` and `Q` of degree 5, fitted to the least maximum relative error of `sin` and `cos` on
/// `|r| ≤ π/4` (about `4e-18` and `6e-20`, far below half an ulp; the Taylor polynomials of
/// the same error have degree 7), so that the polynomials are two levels shorter.
const TRIG_DOUBLE: TrigConstants = TrigConstants {
    two_over_pi: std::f64::consts::FRAC_2_PI,
    half_pi: [
        1.5707963276654482,
        -8.705515692000731e-10,
        -3.50343439808993e-19,
    ],
    sin: &[
        -0.1666666666666663,
        0.008333333333322118,
        -0.00019841269829589425,
        2.755731362135225e-06,
        -2.5050747758253173e-08,
        1.5896229918324403e-10,
    ],
    cos: &[
        0.041666666666666595,
        -0.0013888888888873056,
        2.4801587288851484e-05,
        -2.755731417923979e-07,
        2.0875700834956644e-09,
        -1.1358536187883208e-11,
    ],
    magic: 6755399441055744.0,
};

/// Single precision: `π/2` in parts of 12, 12 and 24 bits (exact products for `|k| < 2^12`);
/// `P` and `Q` the Taylor coefficients `(-1)^i / (2i+1)!` from `i = 1` and `(-1)^i / (2i)!`
/// from `i = 2`, to where the next term is below half an ulp.
const TRIG_SINGLE: TrigConstants = TrigConstants {
    two_over_pi: std::f64::consts::FRAC_2_PI,
    half_pi: [
        1.57080078125,
        -4.453584551811218e-06,
        -8.705515752716053e-10,
    ],
    sin: &[
        -0.16666666666666666,
        0.008333333333333333,
        -0.0001984126984126984,
        2.7557319223985893e-06,
        -2.505210838544172e-08,
    ],
    cos: &[
        0.041666666666666664,
        -0.001388888888888889,
        2.48015873015873e-05,
        -2.755731922398589e-07,
        2.08767569878681e-09,
    ],
    magic: 12582912.0,
};

/// The magic number of [`batch_trig`]'s rounding (`1.5 · 2^52`, or `1.5 · 2^23` in single
/// precision): `(x + M) - M` is `x` rounded to an integer for `|x| < 2^51` (`2^22`).
pub(crate) fn round_magic(single: bool) -> f64 {
    if single {
        TRIG_SINGLE.magic
    } else {
        TRIG_DOUBLE.magic
    }
}

/// How [`batch_trig`] writes its operations in the target language.
#[derive(Clone, Copy)]
pub(crate) struct TrigSyntax<'a> {
    /// Single precision (fewer terms, shorter `π/2` parts).
    pub single: bool,
    /// A non-negative constant.
    pub lit: &'a dyn Fn(f64) -> String,
    /// `x` rounded to the nearest integer (an expression that may need parentheses as an
    /// operand).
    pub round: &'a dyn Fn(String) -> String,
    /// `a * b + c`, fused where the target has the instruction (one step of latency and one
    /// rounding instead of two: C compilers only contract a written `a * b + c` outside strict
    /// ISO modes, Rust never).
    pub fma: &'a dyn Fn(&str, &str, &str) -> String,
}

/// Statements computing, in a batched body or the trigonometric block, the sine and cosine of
/// `angle` (an expression already written in the target language) into the locals `sin` and
/// `cos`, as `(name, expression)` pairs in syntax both C and Rust read: branch-free, so the
/// loop around them vectorises. Cody-Waite reduction to `r = angle - k π/2`, `|r| ≤ π/4`,
/// polynomials for `sin r` and `cos r` by Estrin's scheme (pairs `c_i + c_{i+1} z` combined
/// with `z²`: fewer dependent steps than Horner's, which is what a block of a few angles
/// waits for), and the quadrant `k mod 4` choosing between them and their signs by products
/// with 0 and 1, the weights computed from `k` alongside the polynomials. `syntax` writes
/// the constants, roundings and fused multiply-adds; `tag` prefixes the temporaries.
pub(crate) fn batch_trig(
    tag: &str,
    angle: String,
    sin: Option<&str>,
    cos: Option<&str>,
    syntax: &TrigSyntax<'_>,
) -> Vec<(String, String)> {
    let TrigSyntax {
        single,
        lit,
        round,
        fma,
    } = *syntax;
    let c = if single { &TRIG_SINGLE } else { &TRIG_DOUBLE };
    let v = |s: &str| format!("{tag}_{s}");
    let (a, k, r, z, w, ps, pc, h, o) = (
        v("a"),
        v("k"),
        v("r"),
        v("z"),
        v("w"),
        v("s"),
        v("c"),
        v("h"),
        v("o"),
    );
    let signed = |x: f64| {
        if x < 0.0 {
            format!("-{}", lit(-x))
        } else {
            lit(x)
        }
    };
    // `x - k * p`.
    let minus = |x: String, p: f64| fma(&k, &signed(-p), &x);
    // Estrin's scheme: the pairs c_i + c_{i+1} z, then c'_i + c'_{i+1} w with w = z², and so
    // on, each pass halving the terms; the pairs of the first pass become locals `{tag}_{p}{i}`.
    let mut out = Vec::new();
    let estrin = |out: &mut Vec<(String, String)>, p: &str, coefficients: &[f64]| {
        let mut terms: Vec<String> = coefficients
            .chunks(2)
            .enumerate()
            .map(|(i, pair)| match pair {
                [c0, c1] => {
                    let name = v(&format!("{p}{i}"));
                    out.push((name.clone(), fma(&z, &signed(*c1), &signed(*c0))));
                    name
                }
                [c0] => signed(*c0),
                _ => unreachable!("chunks of two"),
            })
            .collect();
        // `w`, then `w * w`, .. written out (an operand of `fma`).
        let mut power = w.clone();
        while terms.len() > 1 {
            terms = terms
                .chunks(2)
                .map(|pair| match pair {
                    [t0, t1] => fma(&power, t1, t0),
                    [t0] => t0.clone(),
                    _ => unreachable!("chunks of two"),
                })
                .collect();
            power = format!("{power} * {power}");
        }
        terms.pop().expect("at least one coefficient")
    };
    let mut reduced = minus(a.clone(), c.half_pi[0]);
    reduced = minus(reduced, c.half_pi[1]);
    reduced = minus(reduced, c.half_pi[2]);
    out.push((a.clone(), angle));
    out.push((k.clone(), round(format!("{a} * {}", lit(c.two_over_pi)))));
    out.push((r.clone(), reduced));
    out.push((z.clone(), format!("{r} * {r}")));
    out.push((w.clone(), format!("{z} * {z}")));
    let sin_poly = estrin(&mut out, "sp", c.sin);
    out.push((ps.clone(), fma(&format!("{r} * {z}"), &sin_poly, &r)));
    let cos_poly = estrin(&mut out, "cp", c.cos);
    let half = fma(&z, &signed(-0.5), &lit(1.0));
    out.push((pc.clone(), fma(&w, &cos_poly, &half)));
    // The quadrant k mod 4 = 2 p + o: o = k mod 2 and p = h mod 2 for h = floor(k / 2), each
    // halving by rounding `x / 2 - 1/4` (exact for the integers here).
    let halve = |x: &str| round(fma(x, &lit(0.5), &signed(-0.25)));
    out.push((h.clone(), halve(&k)));
    out.push((o.clone(), fma(&h, &signed(-2.0), &k)));
    let (h2, p, sign, other, own) = (v("h2"), v("p"), v("g"), v("wo"), v("wn"));
    out.push((h2.clone(), halve(&h)));
    out.push((p.clone(), fma(&h2, &signed(-2.0), &h)));
    // Quadrants 0..3: sine sin r, cos r, -sin r, -cos r; cosine cos r, -sin r, -cos r, sin r.
    // So both take g = 1 - 2p times the own polynomial where o = 0 and, for the sine, g times
    // the other where o = 1 (the cosine -g): weights from k alone, ready before the
    // polynomials are.
    out.push((sign.clone(), fma(&p, &signed(-2.0), &lit(1.0))));
    out.push((other.clone(), format!("{o} * {sign}")));
    out.push((own.clone(), format!("{sign} - {other}")));
    if let Some(name) = sin {
        out.push((name.to_owned(), fma(&ps, &own, &format!("{pc} * {other}"))));
    }
    if let Some(name) = cos {
        out.push((
            name.to_owned(),
            fma(&ps, &format!("-{other}"), &format!("{pc} * {own}")),
        ));
    }
    out
}

//! Derivation-time constant folding on top of an [`Algebra`].
//!
//! Geometry (axes, pole offsets, gravity, numeric parameters) is known while deriving. Keeping it
//! as plain numbers ([`S::K`]) lets every product with a known zero be skipped *before* it reaches
//! the algebra, so the expression graph stays small even with a naive algebra, and coordinate axes
//! produce the papers' simple direction cosines (0, ±1, ±c, ±s) with no arithmetic.

use crate::algebra::Algebra;

/// A scalar during derivation: a number known now, or a handle of the algebra.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum S<E> {
    /// Known at derivation time.
    K(f64),
    /// An expression of the algebra.
    X(E),
}

/// A 3-vector of [`S`].
pub(crate) type Vec3<E> = [S<E>; 3];
/// A 3×3 matrix of [`S`], `[row][col]`.
pub(crate) type Mat3<E> = [[S<E>; 3]; 3];

impl<E: Copy> S<E> {
    /// Known to be exactly zero.
    pub fn is_zero(&self) -> bool {
        matches!(self, S::K(v) if *v == 0.0)
    }
}

/// The zero vector.
pub(crate) fn zero3<E>() -> Vec3<E> {
    [S::K(0.0), S::K(0.0), S::K(0.0)]
}

/// A known vector.
pub(crate) fn k3<E>(v: [f64; 3]) -> Vec3<E> {
    [S::K(v[0]), S::K(v[1]), S::K(v[2])]
}

/// A known matrix.
pub(crate) fn k33<E>(m: [[f64; 3]; 3]) -> Mat3<E> {
    m.map(k3)
}

/// The vector is known to be zero.
pub(crate) fn is_zero3<E: Copy>(v: &Vec3<E>) -> bool {
    v.iter().all(S::is_zero)
}

/// Folding context: the algebra plus whether intermediate quantities get labels.
pub(crate) struct Cx<'a, A: Algebra> {
    /// The underlying algebra.
    pub alg: &'a mut A,
    /// Label intermediates (only in the pass whose names the equations printer shows).
    pub labels: bool,
}

impl<'a, A: Algebra> Cx<'a, A> {
    /// A context over `alg`.
    pub fn new(alg: &'a mut A) -> Self {
        Cx { alg, labels: false }
    }

    /// The algebra handle of `s` (a constant node for known numbers).
    pub fn e(&mut self, s: S<A::E>) -> A::E {
        match s {
            S::K(v) => self.alg.constant(v),
            S::X(e) => e,
        }
    }

    /// A robot parameter; numeric ones stay derivation-time constants so they fold.
    pub fn param(&mut self, name: &str, value: f64, symbolic: bool) -> S<A::E> {
        let e = self.alg.param(name, value, symbolic);
        if symbolic {
            S::X(e)
        } else {
            S::K(value)
        }
    }

    /// Names `s` for the equations printer (known numbers are printed as numbers).
    pub fn label(&mut self, s: S<A::E>, name: impl FnOnce() -> String) {
        if let (true, S::X(e)) = (self.labels, s) {
            self.alg.label(e, &name());
        }
    }

    /// Labels each non-constant component `prefix_x`, `prefix_y`, `prefix_z`.
    pub fn label3(&mut self, v: &Vec3<A::E>, prefix: impl Fn() -> String) {
        if self.labels {
            for (c, s) in v.iter().enumerate() {
                self.label(*s, || format!("{}_{}", prefix(), AXES[c]));
            }
        }
    }

    /// `a + b`.
    pub fn add(&mut self, a: S<A::E>, b: S<A::E>) -> S<A::E> {
        match (a, b) {
            (S::K(x), S::K(y)) => S::K(x + y),
            (S::K(0.0), b) => b,
            (a, S::K(0.0)) => a,
            _ => {
                let (ea, eb) = (self.e(a), self.e(b));
                S::X(self.alg.add(ea, eb))
            }
        }
    }

    /// `a - b`.
    pub fn sub(&mut self, a: S<A::E>, b: S<A::E>) -> S<A::E> {
        match (a, b) {
            (S::K(x), S::K(y)) => S::K(x - y),
            (a, S::K(0.0)) => a,
            (S::K(0.0), b) => self.neg(b),
            _ => {
                let (ea, eb) = (self.e(a), self.e(b));
                S::X(self.alg.sub(ea, eb))
            }
        }
    }

    /// `-a`.
    pub fn neg(&mut self, a: S<A::E>) -> S<A::E> {
        match a {
            S::K(x) => S::K(-x),
            S::X(e) => S::X(self.alg.neg(e)),
        }
    }

    /// `a * b`.
    pub fn mul(&mut self, a: S<A::E>, b: S<A::E>) -> S<A::E> {
        match (a, b) {
            (S::K(x), S::K(y)) => S::K(x * y),
            (S::K(0.0), _) | (_, S::K(0.0)) => S::K(0.0),
            (S::K(1.0), o) | (o, S::K(1.0)) => o,
            (S::K(-1.0), o) | (o, S::K(-1.0)) => self.neg(o),
            _ => {
                let (ea, eb) = (self.e(a), self.e(b));
                S::X(self.alg.mul(ea, eb))
            }
        }
    }

    /// `a / b` (`b` must not be a known zero).
    pub fn div(&mut self, a: S<A::E>, b: S<A::E>) -> S<A::E> {
        match (a, b) {
            (S::K(x), S::K(y)) => S::K(x / y),
            (S::K(0.0), _) => S::K(0.0),
            (a, S::K(1.0)) => a,
            _ => {
                let (ea, eb) = (self.e(a), self.e(b));
                S::X(self.alg.div(ea, eb))
            }
        }
    }

    /// `Σ a_k b_k`, skipping products with a known zero factor.
    pub fn dot(&mut self, a: &Vec3<A::E>, b: &Vec3<A::E>) -> S<A::E> {
        let mut acc = S::K(0.0);
        for k in 0..3 {
            let p = self.mul(a[k], b[k]);
            acc = self.add(acc, p);
        }
        acc
    }

    /// `a + b` componentwise.
    pub fn vadd(&mut self, a: &Vec3<A::E>, b: &Vec3<A::E>) -> Vec3<A::E> {
        [
            self.add(a[0], b[0]),
            self.add(a[1], b[1]),
            self.add(a[2], b[2]),
        ]
    }

    /// `a - b` componentwise.
    pub fn vsub(&mut self, a: &Vec3<A::E>, b: &Vec3<A::E>) -> Vec3<A::E> {
        [
            self.sub(a[0], b[0]),
            self.sub(a[1], b[1]),
            self.sub(a[2], b[2]),
        ]
    }

    /// `s * v`.
    pub fn scale(&mut self, s: S<A::E>, v: &Vec3<A::E>) -> Vec3<A::E> {
        [self.mul(s, v[0]), self.mul(s, v[1]), self.mul(s, v[2])]
    }

    /// `a × b`.
    pub fn cross(&mut self, a: &Vec3<A::E>, b: &Vec3<A::E>) -> Vec3<A::E> {
        let mut out = zero3();
        for (i, o) in out.iter_mut().enumerate() {
            let (j, k) = ((i + 1) % 3, (i + 2) % 3);
            let p = self.mul(a[j], b[k]);
            let q = self.mul(a[k], b[j]);
            *o = self.sub(p, q);
        }
        out
    }

    /// `m v`.
    pub fn mat_vec(&mut self, m: &Mat3<A::E>, v: &Vec3<A::E>) -> Vec3<A::E> {
        [self.dot(&m[0], v), self.dot(&m[1], v), self.dot(&m[2], v)]
    }

    /// `mᵀ v`.
    pub fn mat_t_vec(&mut self, m: &Mat3<A::E>, v: &Vec3<A::E>) -> Vec3<A::E> {
        let t = transpose(m);
        self.mat_vec(&t, v)
    }

    /// `a b`; also says which entries needed arithmetic (more than one nonzero term, or a
    /// product of two expressions), so simple direction cosines are not given names.
    pub fn mat_mul(&mut self, a: &Mat3<A::E>, b: &Mat3<A::E>) -> (Mat3<A::E>, [[bool; 3]; 3]) {
        let mut out = [[S::K(0.0); 3]; 3];
        let mut arith = [[false; 3]; 3];
        for r in 0..3 {
            for c in 0..3 {
                let mut terms = 0;
                let mut both = false;
                let mut acc = S::K(0.0);
                for k in 0..3 {
                    if a[r][k].is_zero() || b[k][c].is_zero() {
                        continue;
                    }
                    terms += 1;
                    both |= matches!((a[r][k], b[k][c]), (S::X(_), S::X(_)));
                    let p = self.mul(a[r][k], b[k][c]);
                    acc = self.add(acc, p);
                }
                out[r][c] = acc;
                arith[r][c] = terms > 1 || both;
            }
        }
        (out, arith)
    }
}

/// `mᵀ`.
pub(crate) fn transpose<E: Copy>(m: &Mat3<E>) -> Mat3<E> {
    [
        [m[0][0], m[1][0], m[2][0]],
        [m[0][1], m[1][1], m[2][1]],
        [m[0][2], m[1][2], m[2][2]],
    ]
}

/// Axis letters, for labels.
pub(crate) const AXES: [char; 3] = ['x', 'y', 'z'];

//! Rendering a planned expression in a target language ([`Lang`]): precedence, literals,
//! signs, and fused multiply-adds.

use super::plan::{Ex, Func};
use crate::functions::Input;

/// Binding strength of an expression, for parenthesisation.
pub(crate) fn prec(e: &Ex) -> u8 {
    match e {
        Ex::Sum(t) if t.len() == 1 && !t[0].0 => prec(&t[0].1),
        Ex::Sum(_) => 1,
        Ex::Prod(_) | Ex::Div(_, _) => 2,
        Ex::Neg(_) => 3,
        Ex::Lit(v) if *v < 0.0 => 3,
        _ => 4,
    }
}

/// Formats a constant so that it reads back to the same value (shortest round-trip form,
/// always with a `.` or an exponent so it is a floating literal).
pub(crate) fn float_literal(v: f64, single: bool) -> String {
    let s = if single {
        format!("{:?}", v as f32)
    } else {
        format!("{v:?}")
    };
    if s.contains(['.', 'e', 'E']) {
        s
    } else {
        format!("{s}.0")
    }
}

/// What a target language must provide to write an [`Ex`].
pub(crate) trait Lang {
    type Out;
    /// A non-negative constant.
    fn lit(&self, v: f64) -> Self::Out;
    fn input(&self, i: Input, j: usize) -> Self::Out;
    fn param(&self, k: usize) -> Self::Out;
    fn local(&self, name: &str) -> Self::Out;
    fn call(&self, f: Func, arg: Self::Out) -> Self::Out;
    fn neg(&self, x: Self::Out) -> Self::Out;
    /// `a op b` for `op` in `+ - * /`.
    fn bin(&self, a: Self::Out, op: char, b: Self::Out) -> Self::Out;
    fn paren(&self, x: Self::Out) -> Self::Out;
    /// `c + a b`, `c - a b` or `a b - c` (by `kind`), with one rounding where the target has
    /// the instruction: how sums of products are written ([`render_fused`]).
    fn fma(&self, a: Self::Out, b: Self::Out, c: Self::Out, kind: Fused) -> Self::Out;
}

/// Writes `e`, parenthesised when it binds less tightly than `min`.
fn render_at<L: Lang>(l: &L, e: &Ex, min: u8) -> L::Out {
    let out = render(l, e);
    if prec(e) < min && !fused_call(e) {
        l.paren(out)
    } else {
        out
    }
}

/// Writes an expression with the fewest parentheses that keep its grouping (products are
/// written flat; a subtracted or divided-by sum or product keeps its parentheses).
pub(crate) fn render<L: Lang>(l: &L, e: &Ex) -> L::Out {
    match e {
        Ex::Lit(v) if *v < 0.0 => l.neg(l.lit(-v)),
        Ex::Lit(v) => l.lit(*v),
        Ex::Input(i, j) => l.input(*i, *j),
        Ex::Param(k) => l.param(*k),
        Ex::Local(name) => l.local(name),
        Ex::Call(f, a) => l.call(*f, render(l, a)),
        // `-(a * b)` is written `-a * b`: the same value, as negation is exact.
        Ex::Neg(x) if prec(x) == 2 && !starts_negative(x) => l.neg(render(l, x)),
        Ex::Neg(x) => l.neg(render_at(l, x, 4)),
        Ex::Sum(terms) if fused(terms) => render_fused(l, terms),
        Ex::Sum(terms) => {
            let mut it = terms.iter();
            let Some((neg, first)) = it.next() else {
                return l.lit(0.0);
            };
            let mut acc = if *neg {
                l.neg(render_at(
                    l,
                    first,
                    if starts_negative(first) { 4 } else { 2 },
                ))
            } else {
                render_at(l, first, 1)
            };
            for (neg, t) in it {
                let min = if starts_negative(t) { 4 } else { 2 };
                acc = l.bin(acc, if *neg { '-' } else { '+' }, render_at(l, t, min));
            }
            acc
        }
        Ex::Prod(fs) => {
            let mut flat = Vec::with_capacity(fs.len());
            flatten_prod(fs, &mut flat);
            let mut it = flat.into_iter();
            let Some(first) = it.next() else {
                return l.lit(1.0);
            };
            let mut acc = render_at(l, first, 2);
            for f in it {
                acc = l.bin(acc, '*', render_at(l, f, 4));
            }
            acc
        }
        Ex::Div(a, b) => l.bin(render_at(l, a, 2), '/', render_at(l, b, 4)),
    }
}

/// Whether a sum is written with fused multiply-adds: two terms or more, one of them a
/// product.
fn fused(terms: &[(bool, Ex)]) -> bool {
    terms.len() > 1 && terms.iter().any(|(_, t)| product(t))
}

/// The terms of a fused sum in the order [`render_fused`] writes them: as written, except
/// that a leading product followed by an added term that is not a product is swapped with
/// it, so that it fuses too (not with a subtracted one: that would cost a negation in front).
fn fused_order(terms: &[(bool, Ex)]) -> Vec<&(bool, Ex)> {
    let mut order: Vec<&(bool, Ex)> = terms.iter().collect();
    if order.len() > 1 && product(&order[0].1) && !order[1].0 && !product(&order[1].1) {
        order.swap(0, 1);
    }
    order
}

/// Whether a fused sum in [`fused_order`] starts with a product from which a term that is not
/// a product is subtracted: `a b - c`, written as one fused multiply-subtract (gcc contracts
/// it too outside strict ISO modes; Rust and strict C would otherwise round twice and take
/// two instructions).
fn starts_with_difference(order: &[&(bool, Ex)]) -> bool {
    match order {
        [(false, first), (true, second), ..] => product(first) && !product(second),
        _ => false,
    }
}

/// Whether `e` is written as one fused multiply-add call, which binds like a function call
/// rather than a sum: a fused sum whose last term in [`fused_order`] is a product, or that is
/// one product less another term.
fn fused_call(e: &Ex) -> bool {
    match e {
        Ex::Sum(terms) if fused(terms) => {
            let order = fused_order(terms);
            order.last().is_some_and(|(_, t)| product(t))
                || (order.len() == 2 && starts_with_difference(&order))
        }
        _ => false,
    }
}

/// The three fused forms [`render_fused`] writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fused {
    /// `c + a b`: `fma(a, b, c)`.
    Add,
    /// `c - a b`: `fnma(a, b, c)`.
    Subtract,
    /// `a b - c`: `fms(a, b, c)`.
    Difference,
}

/// Which of `fma`, `fnma` and `fms` (`found[0..3]`, in [`Fused`]'s order) [`render_fused`]
/// writes for `e`: every product of a fused sum after its first term, and a leading
/// difference.
pub(crate) fn fused_calls(e: &Ex, found: &mut [bool; 3]) {
    match e {
        Ex::Sum(terms) => {
            if fused(terms) {
                let order = fused_order(terms);
                let skip = if starts_with_difference(&order) {
                    found[Fused::Difference as usize] = true;
                    2
                } else {
                    1
                };
                for (neg, t) in order.into_iter().skip(skip) {
                    if product(t) {
                        found[usize::from(*neg)] = true;
                    }
                }
            }
            terms.iter().for_each(|(_, t)| fused_calls(t, found));
        }
        Ex::Prod(fs) => fs.iter().for_each(|f| fused_calls(f, found)),
        Ex::Call(_, x) | Ex::Neg(x) => fused_calls(x, found),
        Ex::Div(a, b) => {
            fused_calls(a, found);
            fused_calls(b, found);
        }
        Ex::Lit(_) | Ex::Input(..) | Ex::Param(_) | Ex::Local(_) => {}
    }
}

/// A product of two factors or more as its last factor and the product of the others (the
/// operands of a fused multiply-add).
fn split_product(t: &Ex) -> (Ex, &Ex) {
    let mut flat = Vec::new();
    if let Ex::Prod(fs) = t {
        flatten_prod(fs, &mut flat);
    }
    let last = flat.pop().unwrap_or(t);
    let head = match flat.as_slice() {
        [one] => (*one).clone(),
        many => Ex::Prod(many.iter().map(|&f| f.clone()).collect()),
    };
    (head, last)
}

/// Whether a term is a product of two factors or more (a multiplication to fuse).
fn product(e: &Ex) -> bool {
    match e {
        Ex::Prod(fs) => {
            let mut flat = Vec::new();
            flatten_prod(fs, &mut flat);
            flat.len() > 1
        }
        _ => false,
    }
}

/// A sum with its products fused into the terms before them, in the order the sum is
/// written: `t₁ + t₂ - t₃` becomes `fnma(t₃, fma(t₂, t₁))` for products `t₂`, `t₃` (each
/// `f₁ ⋯ fₖ` as `fma(f₁ ⋯ fₖ₋₁, fₖ, acc)`, a subtracted one as `fnma`, `acc - f₁ ⋯ fₖ`), the
/// other terms added as written, in [`fused_order`]; a sum that starts `t₁ - c` with `t₁` a
/// product and `c` not one starts from `fms(f₁ ⋯ fₖ₋₁, fₖ, c)`, `t₁ - c` in one rounding. The association and the signs are the written sum's, so where
/// the target has no fused multiply-add the code computes what the plain sum does, in the
/// same order and with the same constants (a subtracted `0.5 x` rather than an added
/// `-0.5 x`: with gcc's register allocation the negated constants made code slower).
fn render_fused<L: Lang>(l: &L, terms: &[(bool, Ex)]) -> L::Out {
    let order = fused_order(terms);
    let difference = starts_with_difference(&order);
    let mut it = order.into_iter();
    let Some(first) = it.next() else {
        return l.lit(0.0);
    };
    let mut acc = if difference {
        let (head, last) = split_product(&first.1);
        let second = it.next().map_or_else(|| l.lit(0.0), |(_, t)| render(l, t));
        l.fma(render(l, &head), render(l, last), second, Fused::Difference)
    } else {
        render(l, &Ex::Sum(vec![first.clone()]))
    };
    for (neg, t) in it {
        acc = match t {
            Ex::Prod(_) if product(t) => {
                let (head, last) = split_product(t);
                let kind = if *neg { Fused::Subtract } else { Fused::Add };
                l.fma(render(l, &head), render(l, last), acc, kind)
            }
            t => {
                let min = if starts_negative(t) { 4 } else { 2 };
                l.bin(acc, if *neg { '-' } else { '+' }, render_at(l, t, min))
            }
        };
    }
    acc
}

/// Whether `e` is written starting with a minus sign (so a negation in front of it needs
/// parentheses: `--` would be a decrement in C).
fn starts_negative(e: &Ex) -> bool {
    match e {
        Ex::Lit(v) => *v < 0.0,
        Ex::Neg(_) => true,
        Ex::Prod(fs) => fs.first().is_some_and(starts_negative),
        Ex::Div(a, _) => starts_negative(a),
        Ex::Sum(t) => t.first().is_some_and(|(neg, e)| *neg || starts_negative(e)),
        _ => false,
    }
}

fn flatten_prod<'a>(fs: &'a [Ex], out: &mut Vec<&'a Ex>) {
    for f in fs {
        match f {
            Ex::Prod(inner) => flatten_prod(inner, out),
            f => out.push(f),
        }
    }
}

//! The named rewrite rules the smart constructors apply, and a record of how often each fired.

/// A rewrite rule applied while nodes are built.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// Arithmetic on constants is computed (`2 * 3 -> 6`, `sqrt 4 -> 2`).
    ConstFold,
    /// `0 * x -> 0`.
    MulZero,
    /// `1 * x -> x`.
    MulOne,
    /// `x + 0 -> x`.
    AddZero,
    /// `-(-x) -> x`.
    DoubleNeg,
    /// `x / 1 -> x`.
    DivOne,
    /// `x / c -> (1/c) * x` for a constant `c` (a multiplication is cheaper than a division).
    DivByConst,
    /// `x / x -> 1`.
    DivSelf,
    /// `a + (b + c) -> a + b + c` (also `a - (b + c) -> a - b - c`).
    FlattenSum,
    /// `a * (b * c) -> a * b * c`.
    FlattenProduct,
    /// Constant factors and negations are pulled to the front of a product: `x * 2 * y -> 2 * (x * y)`.
    ConstCoefficient,
    /// Like terms are merged: `x + x -> 2 x`, `2 x - x -> x`.
    CollectTerms,
    /// Like terms cancel: `a b - a b -> 0`.
    CancelTerms,
    /// `k s_m^2 + k c_m^2 -> k` (same mask, any common factor `k`).
    Pythagorean,
    /// `k c_a c_b - k s_a s_b -> k c_{a+b}` for disjoint masks `a`, `b`.
    CosSum,
    /// `k s_a c_b + k c_a s_b -> k s_{a+b}` for disjoint masks `a`, `b`.
    SinSum,
    /// `sqrt(x) * sqrt(x) -> x`.
    SqrtSquared,
    /// `sin`/`cos` of an empty angle sum: `sin 0 -> 0`, `cos 0 -> 1`.
    TrigOfZero,
}

impl Rule {
    /// Every rule, in declaration order.
    pub const ALL: [Rule; 18] = [
        Rule::ConstFold,
        Rule::MulZero,
        Rule::MulOne,
        Rule::AddZero,
        Rule::DoubleNeg,
        Rule::DivOne,
        Rule::DivByConst,
        Rule::DivSelf,
        Rule::FlattenSum,
        Rule::FlattenProduct,
        Rule::ConstCoefficient,
        Rule::CollectTerms,
        Rule::CancelTerms,
        Rule::Pythagorean,
        Rule::CosSum,
        Rule::SinSum,
        Rule::SqrtSquared,
        Rule::TrigOfZero,
    ];

    /// Stable, human-readable name (used in statistics).
    pub fn name(self) -> &'static str {
        match self {
            Rule::ConstFold => "const-fold",
            Rule::MulZero => "mul-zero",
            Rule::MulOne => "mul-one",
            Rule::AddZero => "add-zero",
            Rule::DoubleNeg => "double-neg",
            Rule::DivOne => "div-one",
            Rule::DivByConst => "div-by-const",
            Rule::DivSelf => "div-self",
            Rule::FlattenSum => "flatten-sum",
            Rule::FlattenProduct => "flatten-product",
            Rule::ConstCoefficient => "const-coefficient",
            Rule::CollectTerms => "collect-terms",
            Rule::CancelTerms => "cancel-terms",
            Rule::Pythagorean => "pythagorean",
            Rule::CosSum => "cos-sum",
            Rule::SinSum => "sin-sum",
            Rule::SqrtSquared => "sqrt-squared",
            Rule::TrigOfZero => "trig-of-zero",
        }
    }
}

/// How often each rule fired.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RuleStats {
    counts: [u64; Rule::ALL.len()],
}

impl RuleStats {
    /// Records one firing.
    pub fn fire(&mut self, rule: Rule) {
        self.counts[rule as usize] += 1;
    }

    /// How often `rule` fired.
    pub fn count(&self, rule: Rule) -> u64 {
        self.counts[rule as usize]
    }

    /// `(name, count)` for every rule that fired, in declaration order.
    pub fn fired(&self) -> Vec<(&'static str, u64)> {
        Rule::ALL
            .iter()
            .filter(|r| self.count(**r) > 0)
            .map(|r| (r.name(), self.count(*r)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_indexed_in_order() {
        for (i, r) in Rule::ALL.iter().enumerate() {
            assert_eq!(*r as usize, i);
        }
        let mut names: Vec<_> = Rule::ALL.iter().map(|r| r.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Rule::ALL.len());
    }
}

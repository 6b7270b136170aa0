//! Progress of a generation: the library reports each step as it starts to an optional
//! [`Progress`] receiver and prints nothing itself; the `quasidyn` command line installs one
//! that prints to stderr once a generation has taken more than a second.

use std::fmt;

/// A stage of generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Deriving the expressions (the recursions, the velocity split, the derivatives, the
    /// regressors).
    Derive,
    /// Lowering and sharing common subexpressions, function by function.
    Simplify,
    /// Writing the code, function by function.
    Emit,
}

impl Stage {
    /// `derive`, `simplify` or `emit`.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Derive => "derive",
            Stage::Simplify => "simplify",
            Stage::Emit => "emit",
        }
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One step of a stage, reported as it starts: `what` is step `index` of `count` (1-based)
/// `unit`s of the stage, e.g. function 5 of 16, `coriolis`, of [`Stage::Simplify`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step<'a> {
    /// The stage.
    pub stage: Stage,
    /// What the stage counts: `part` (of the derivation) or `function`.
    pub unit: &'static str,
    /// Which one, from 1.
    pub index: usize,
    /// How many the stage has.
    pub count: usize,
    /// Its name: a function's (`coriolis`) or a part of the derivation's.
    pub what: &'a str,
}

impl fmt::Display for Step<'_> {
    /// `simplify: function 5/16: coriolis`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} {}/{}: {}",
            self.stage, self.unit, self.index, self.count, self.what
        )
    }
}

/// Receives the steps of a generation as they start.
pub trait Progress {
    /// Called as `step` starts.
    fn step(&mut self, step: &Step<'_>);
}

impl<F: FnMut(&Step<'_>)> Progress for F {
    fn step(&mut self, step: &Step<'_>) {
        self(step);
    }
}

/// No reports: the library's default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Silent;

impl Progress for Silent {
    fn step(&mut self, _: &Step<'_>) {}
}

/// Counts the steps of one stage and reports each (a helper of the pipeline).
pub(crate) struct Counter<'p> {
    progress: &'p mut dyn Progress,
    stage: Stage,
    unit: &'static str,
    count: usize,
    done: usize,
}

impl<'p> Counter<'p> {
    pub(crate) fn new(
        progress: &'p mut dyn Progress,
        stage: Stage,
        unit: &'static str,
        count: usize,
    ) -> Counter<'p> {
        Counter {
            progress,
            stage,
            unit,
            count,
            done: 0,
        }
    }

    /// Reports the next step, named `what`.
    pub(crate) fn next(&mut self, what: &str) {
        self.done += 1;
        self.progress.step(&Step {
            stage: self.stage,
            unit: self.unit,
            index: self.done,
            count: self.count.max(self.done),
            what,
        });
    }
}

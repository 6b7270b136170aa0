//! Expansion of the macros as a user sees it: a working robot, and one located error (no
//! cascade) for each kind of bad input. Each case compiles a crate, so they are few.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass/*.rs");
    cases.compile_fail("tests/ui/fail/*.rs");
}

//! The bench binaries' timing: best-of-`SAMPLES` wall-clock time over the same states, in ns.

use std::time::Instant;

/// States cycled through per sample (enough to defeat branch and value prediction, small
/// enough to stay in L1; a multiple of every batch size).
pub const STATES: usize = 256;
/// Samples per implementation; the minimum is reported (least disturbed by other load).
pub const SAMPLES: usize = 15;
/// Target duration of one sample.
const SAMPLE_NS: f64 = 20e6;

/// Best-of-[`SAMPLES`] time per state of `f(i)` over calls `i` in `0..calls` of `per_call`
/// states each, in ns.
pub fn ns_per_state(calls: usize, per_call: usize, mut f: impl FnMut(usize)) -> f64 {
    let mut pass = |reps: usize| {
        let start = Instant::now();
        for _ in 0..reps {
            for i in 0..calls {
                f(i);
            }
        }
        start.elapsed().as_nanos() as f64 / (reps * calls * per_call) as f64
    };
    let warm = pass(10);
    let reps = ((SAMPLE_NS / (warm * (calls * per_call) as f64)) as usize).max(1);
    (0..SAMPLES)
        .map(|_| pass(reps))
        .fold(f64::INFINITY, f64::min)
}

/// Best-of-[`SAMPLES`] time per call of `f(i)` over states `i` in `0..STATES`, in ns.
pub fn ns_per_call(f: impl FnMut(usize)) -> f64 {
    ns_per_state(STATES, 1, f)
}

/// Prints a titled table of `(label, ns per call)` rows.
pub fn print_rows(title: &str, rows: &[(&str, f64)]) {
    println!("\n{title}, {STATES} random states, best of {SAMPLES}");
    println!("  {:<40} {:>10}", "", "ns/call");
    for (label, ns) in rows {
        println!("  {label:<40} {ns:>10.1}");
    }
}

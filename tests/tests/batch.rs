//! Batched functions (`--batch N`): for every function of a chain (UR5) and a tree with named
//! frames, the `_batch` form over N random states gives exactly (bit for bit) what N calls of
//! the scalar function give, in Rust and in C (compiled with the strict C99 flags by the build
//! script, without floating-point contraction, so the vectorised loop computes what the scalar
//! code does). The scalar functions are those checked against Pinocchio elsewhere.

use quasidyn_codegen::load_spec;
use quasidyn_tests::generated::BATCHES;
use quasidyn_tests::{random_states, workspace_root};

#[test]
fn batched_functions_equal_scalar_calls_bit_for_bit() {
    assert!(!BATCHES.is_empty());
    for generated in BATCHES {
        let stem = generated.name.trim_end_matches("_batch");
        let robot = load_spec(&workspace_root().join(format!("robots/{stem}.toml"))).unwrap();
        assert_eq!(robot.dof(), generated.dof);
        assert!(
            generated.kinds.len() >= 16,
            "{}: every function",
            generated.name
        );
        for (seed, c) in [(11, false), (12, true), (13, false), (14, true)] {
            let states = random_states(&robot, seed, generated.batch);
            for &kind in generated.kinds {
                let scalar = (generated.call)(c, false, kind, &states);
                let batched = (generated.call)(c, true, kind, &states);
                assert_eq!(scalar.len(), generated.batch);
                assert_eq!(batched.len(), generated.batch);
                for (k, (s, b)) in scalar.iter().zip(&batched).enumerate() {
                    assert_eq!(s.len(), b.len());
                    for (o, (s, b)) in s.iter().zip(b).enumerate() {
                        assert!(!s.is_empty());
                        let same = s.len() == b.len()
                            && s.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits());
                        assert!(
                            same,
                            "{} {kind:?} ({}) output {o}, state {k}: batched {b:?}, scalar {s:?}",
                            generated.name,
                            if c { "C" } else { "Rust" }
                        );
                    }
                }
            }
        }
    }
}

//! Batched functions (`--batch N`): for every function of a chain (UR5) and a tree with named
//! frames, the `_batch` form over N random states agrees with N calls of the scalar function,
//! in Rust and in C, and so does the UR5's with every function cut into parts (whose batched
//! forms call the scalar function once per state, as those of functions long enough to be cut
//! do); the batched sine and cosine (written out so the loop vectorises) are
//! within 2 ulp of the C library's (within 1e-30 where they are below 1e-12). The scalar functions are those checked against Pinocchio
//! elsewhere.

use quasidyn_codegen::load_spec;
use quasidyn_tests::generated::{pendulum_batch, pendulum_batch_forward_kinematics_batch, BATCHES};
use quasidyn_tests::{random_states, workspace_root, Rng};

/// The batched and scalar values differ only through the sine and cosine (within 2 ulp each):
/// the worst seen is 4e-15 of the output's largest entry.
const REL: f64 = 1e-13;

#[test]
fn batched_functions_agree_with_scalar_calls() {
    assert!(!BATCHES.is_empty());
    for generated in BATCHES {
        // (`ur5_parts_batch`: the UR5 with every function in parts.)
        let stem = generated
            .name
            .trim_end_matches("_batch")
            .trim_end_matches("_parts");
        let robot = load_spec(&workspace_root().join(format!("robots/{stem}.toml"))).unwrap();
        assert_eq!(robot.dof(), generated.dof);
        assert!(
            generated.kinds.len() >= 16,
            "{}: every function",
            generated.name
        );
        let mut worst = 0.0_f64;
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
                        assert_eq!(s.len(), b.len());
                        let scale = s.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
                        for (i, (x, y)) in s.iter().zip(b).enumerate() {
                            let e = (x - y).abs() / scale;
                            worst = worst.max(e);
                            assert!(
                                e <= REL,
                                "{} {kind:?} ({}) output {o}[{i}], state {k}: batched {y}, \
                                 scalar {x}",
                                generated.name,
                                if c { "C" } else { "Rust" }
                            );
                        }
                    }
                }
            }
        }
        println!("{}: worst relative difference {worst:e}", generated.name);
    }
}

/// The UR5 with every function in parts and each in a C source file of its own (`--split`,
/// compiled and linked as the users' builds do): its C functions give its Rust functions'
/// values (the Rust is checked against Pinocchio elsewhere; the two differ only in the
/// rounding of fused multiply-adds).
#[test]
fn split_c_sources_give_the_rust_values() {
    let generated = BATCHES
        .iter()
        .find(|g| g.name == "ur5_parts_batch")
        .expect("the UR5 in parts");
    let robot = load_spec(&workspace_root().join("robots/ur5.toml")).unwrap();
    let states = random_states(&robot, 21, generated.batch);
    for &kind in generated.kinds {
        let c = (generated.call)(true, false, kind, &states);
        let rust = (generated.call)(false, false, kind, &states);
        for (k, (c, rust)) in c.iter().zip(&rust).enumerate() {
            for (o, (c, rust)) in c.iter().zip(rust).enumerate() {
                assert_eq!(c.len(), rust.len());
                let scale = rust.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
                for (i, (x, y)) in c.iter().zip(rust).enumerate() {
                    assert!(
                        (x - y).abs() <= REL * scale,
                        "{kind:?} output {o}[{i}], state {k}: C {x}, Rust {y}"
                    );
                }
            }
        }
    }
}

/// Distance from `x` to `want` in units of `want`'s last place.
fn ulps(x: f64, want: f64) -> f64 {
    let ulp = f64::from_bits(want.abs().to_bits() + 1) - want.abs();
    (x - want).abs() / ulp
}

/// Below this the sine or cosine is an angle within `1e-12` of a multiple of `pi/2`, where the
/// reduction by a three-part `pi/2` leaves an absolute error (below [`TINY_ERROR`]) rather than
/// a relative one.
const TINY: f64 = 1e-12;
/// The largest absolute error allowed where the value is below [`TINY`].
const TINY_ERROR: f64 = 1e-30;

#[test]
fn batched_sine_and_cosine_are_within_two_ulp() {
    const B: usize = pendulum_batch::BATCH;
    let mut rng = Rng::new(0x51c0);
    let mut angles: Vec<f64> = vec![0.0, -0.0, 1e-300, -1e-8, 1.0, 100.0, -1e5];
    // Near every multiple of pi/2 up to 100, where the reduction cancels.
    for j in -64..=64 {
        let x = f64::from(j) * std::f64::consts::FRAC_PI_2;
        angles.extend([x, x + 1e-9, x - 3e-13]);
    }
    while angles.len() < 64 * B {
        let scale = [4.0, 100.0, 1e4][angles.len() % 3];
        angles.push(rng.range(-scale, scale));
    }
    let (mut worst, mut worst_tiny) = (0.0_f64, 0.0_f64);
    for chunk in angles.chunks(B) {
        let q = [<[f64; B]>::try_from(chunk).unwrap()];
        let (mut r, mut p) = ([[0.0; B]; 9], [[0.0; B]; 3]);
        pendulum_batch::forward_kinematics_batch(&q, &mut r, &mut p);
        let (mut rc, mut pc) = ([[0.0; B]; 9], [[0.0; B]; 3]);
        // SAFETY: [1][B], [9][B] and [3][B] arrays, as the C function reads and writes them.
        unsafe {
            pendulum_batch_forward_kinematics_batch(
                q.as_ptr().cast(),
                rc.as_mut_ptr().cast(),
                pc.as_mut_ptr().cast(),
            );
        }
        for (k, &a) in chunk.iter().enumerate() {
            for (rot, lang) in [(&r, "Rust"), (&rc, "C")] {
                for (got, want) in [(rot[0][k], a.cos()), (rot[3][k], a.sin())] {
                    let ok = if want.abs() < TINY {
                        worst_tiny = worst_tiny.max((got - want).abs());
                        (got - want).abs() <= TINY_ERROR
                    } else {
                        let e = ulps(got, want);
                        worst = worst.max(e);
                        e <= 2.0
                    };
                    assert!(ok, "{lang} at {a:e}: {got:e}, libm {want:e}");
                }
            }
        }
    }
    println!(
        "{} angles: worst {worst} ulp; {worst_tiny:e} where below {TINY:e}",
        angles.len()
    );
}

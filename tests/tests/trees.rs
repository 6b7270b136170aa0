//! The emitted Rust and C of every tree robot in robots/ (compiled by `build.rs`): every
//! function, named frames included, against the Pinocchio fixtures; Rust against C; and the
//! structure the method promises for trees (branch zeros of the mass matrix, the seed-001
//! split's identities, forward dynamics inverting inverse dynamics).

use quasidyn_codegen::FunctionKind;
use quasidyn_tests::generated::TREES;
use quasidyn_tests::{
    assert_outputs_close, fixture_inputs, fixture_outputs, load_fixture, random_states,
    GeneratedTree, State,
};

/// Agreement required of double-precision generated code with every reference.
const REL: f64 = 1e-9;

fn states(tree: &GeneratedTree, count: usize, seed: u64) -> Vec<State> {
    random_states(&tree.spec(), seed, count)
}

#[test]
fn every_function_matches_pinocchio() {
    for tree in TREES {
        let fixture = load_fixture(tree.stem);
        assert_eq!(fixture.dof, tree.dof, "{}", tree.stem);
        for (k, s) in fixture.states.iter().enumerate() {
            assert_eq!(s.frames.len(), tree.frames.len(), "{} frames", tree.stem);
            for (f, name) in s.frames.iter().zip(tree.frames) {
                assert_eq!(f.name, *name, "{} frame order", tree.stem);
            }
            let x = fixture_inputs(s);
            for &kind in tree.kinds {
                let expected = fixture_outputs(s, kind);
                for (label, imp) in [("rust", tree.rust), ("c", tree.c)] {
                    assert_outputs_close(
                        &format!("{} {label} fixture state {k} {kind:?}", tree.stem),
                        &imp.call(kind, &x),
                        &expected,
                        REL,
                    );
                }
            }
        }
    }
}

#[test]
fn trees_have_every_function_but_the_tool() {
    for tree in TREES {
        let spec = tree.spec();
        assert!(!spec.is_chain(), "{}", tree.stem);
        let mut expected: Vec<FunctionKind> = FunctionKind::ALL
            .into_iter()
            .filter(|k| !matches!(k, FunctionKind::ForwardKinematics | FunctionKind::Jacobian))
            .collect();
        for k in 0..spec.frames.len() {
            let k = u16::try_from(k).expect("few frames");
            expected.push(FunctionKind::FrameKinematics(k));
            expected.push(FunctionKind::FrameJacobian(k));
        }
        let mut got = tree.kinds.to_vec();
        got.sort();
        expected.sort();
        assert_eq!(got, expected, "{}", tree.stem);
    }
}

#[test]
fn rust_and_c_agree() {
    for tree in TREES {
        for (k, x) in states(tree, 50, 7).iter().enumerate() {
            for &kind in tree.kinds {
                let rust = tree.rust.call(kind, x);
                assert_outputs_close(
                    &format!("{} state {k} {kind:?}", tree.stem),
                    &tree.c.call(kind, x),
                    &rust,
                    1e-12,
                );
            }
        }
    }
}

#[test]
fn tree_structure() {
    for tree in TREES {
        let spec = tree.spec();
        let topo = spec.topology();
        let n = tree.dof;
        for (k, x) in states(tree, 50, 11).iter().enumerate() {
            let what = |s: &str| format!("{} state {k}: {s}", tree.stem);
            let call = |kind| tree.rust.call(kind, x).remove(0);
            let m = call(FunctionKind::MassMatrix);
            for i in 0..n {
                for j in 0..n {
                    if !topo.related(i, j) {
                        assert_eq!(m[i * n + j], 0.0, "{}", what("branch zero"));
                    }
                }
            }
            // h_c + h_o + h_g = h - g and h_g . qd = 0 (seed 001, Statement 2).
            let h = call(FunctionKind::NonlinearEffects);
            let g = call(FunctionKind::Gravity);
            let hc = call(FunctionKind::Centrifugal);
            let ho = call(FunctionKind::Coriolis);
            let hg = call(FunctionKind::Gyroscopic);
            let scale = h.iter().chain(&g).fold(1.0_f64, |a, v| a.max(v.abs()));
            for i in 0..n {
                let err = (hc[i] + ho[i] + hg[i] - (h[i] - g[i])).abs();
                assert!(err <= 1e-10 * scale, "{}", what("split sum"));
            }
            let power: f64 = (0..n).map(|i| hg[i] * x.qd[i]).sum();
            let pscale = 1.0 + (0..n).map(|i| (hg[i] * x.qd[i]).abs()).sum::<f64>();
            assert!(power.abs() <= 1e-10 * pscale, "{}", what("h_g power"));
            // Forward dynamics inverts inverse dynamics.
            let qdd = call(FunctionKind::ForwardDynamics);
            let back = tree.rust.call(
                FunctionKind::InverseDynamics,
                &State {
                    qdd: qdd.clone(),
                    ..x.clone()
                },
            );
            assert_outputs_close(
                &what("FD round trip"),
                &back,
                std::slice::from_ref(&x.tau),
                1e-9,
            );
        }
    }
}

//! Emitter tests on a hand-built 2-joint toy: the C is compiled with strict flags and run
//! against `Graph::eval`; the Rust must parse and be byte-deterministic; both are snapshotted.

use std::path::Path;
use std::process::Command;

use super::*;
use crate::algebra::Algebra;
use crate::functions::entry;
use crate::ir::{Env, Function, NodeId, Output};
use crate::workspace_files::{workspace_file, workspace_text};

mod order;

/// A 2R toy (not physically exact: only the shapes and inputs of each function matter here),
/// built through the derivation's `Algebra` interface.
fn toy(symbolic: bool, gravity: bool) -> Module {
    let mut g = Graph::new();
    let a = &mut g;
    let l1 = Algebra::param(a, "l1", 0.5, false);
    let l2 = a.constant(0.3);
    let m2 = Algebra::param(a, "m2", 1.5, symbolic);
    let i1 = Algebra::param(a, "I1zz", 0.02, symbolic);
    let g0 = a.constant(if gravity { 9.81 } else { 0.0 });
    let (c1, s1) = (a.cos(0), a.sin(0));
    let (c2, s2) = (a.cos(1), a.sin(1));
    let (c12, s12) = (a.cos_sum(0b11), a.sin_sum(0b11));
    let q: Vec<_> = (0..2).map(|j| a.q(j)).collect();
    let qd: Vec<_> = (0..2).map(|j| a.qd(j)).collect();
    let qdd: Vec<_> = (0..2).map(|j| a.qdd(j)).collect();
    let tau: Vec<_> = (0..2).map(|j| a.tau(j)).collect();
    let _ = q;

    // Mass matrix.
    let l1l1 = a.mul(l1, l1);
    let two = a.constant(2.0);
    let l1c2 = a.mul(l1, c2);
    let tl1c2 = a.mul(two, l1c2);
    let inner = a.add(l1l1, tl1c2);
    let m2inner = a.mul(m2, inner);
    let m00 = a.add(i1, m2inner);
    let m01 = a.mul(m2, l1c2);
    let m11 = a.add(i1, m2);
    a.label(m00, "M11");
    let mm = [m00, m01, m01, m11];
    // Gravity.
    let gm2 = a.mul(g0, m2);
    let t1 = a.mul(l1, c1);
    let t2 = a.mul(l2, c12);
    let reach = a.add(t1, t2);
    let g_0 = a.mul(gm2, reach);
    let g_1 = a.mul(gm2, t2);
    let grav = [g_0, g_1];
    // Velocity forces.
    let m2l1s2 = a.product3(m2, l1, s2);
    let qd1sq = a.mul(qd[1], qd[1]);
    let qd0sq = a.mul(qd[0], qd[0]);
    let hc0 = a.mul(m2l1s2, qd1sq);
    let hc0 = a.neg(hc0);
    let hc1 = a.mul(m2l1s2, qd0sq);
    let hc = [hc0, hc1];
    let qq = a.mul(qd[0], qd[1]);
    let ho0 = a.product3(two, m2l1s2, qq);
    let ho0 = a.neg(ho0);
    let zero = a.constant(0.0);
    let ho = [ho0, zero];
    let hg = [zero, zero];
    let h: Vec<_> = (0..2)
        .map(|i| {
            let x = a.add(hc[i], ho[i]);
            a.add(x, grav[i])
        })
        .collect();
    // Inverse dynamics.
    let tau_id: Vec<_> = (0..2)
        .map(|i| {
            let x = a.mul(mm[2 * i], qdd[0]);
            let y = a.mul(mm[2 * i + 1], qdd[1]);
            let xy = a.add(x, y);
            a.add(xy, h[i])
        })
        .collect();
    // Forward dynamics by Cramer's rule.
    let r0 = a.sub(tau[0], h[0]);
    let r1 = a.sub(tau[1], h[1]);
    let d1 = a.mul(m00, m11);
    let d2 = a.mul(m01, m01);
    let det = a.sub(d1, d2);
    let n0a = a.mul(m11, r0);
    let n0b = a.mul(m01, r1);
    let n0 = a.sub(n0a, n0b);
    let n1a = a.mul(m00, r1);
    let n1b = a.mul(m01, r0);
    let n1 = a.sub(n1a, n1b);
    let fd = [a.div(n0, det), a.div(n1, det)];
    // Kinematics.
    let one = a.constant(1.0);
    let ns12 = a.neg(s12);
    let rot = [c12, ns12, zero, s12, c12, zero, zero, zero, one];
    let y1 = a.mul(l1, s1);
    let y2 = a.mul(l2, s12);
    let py = a.add(y1, y2);
    let pos = [reach, py, zero];
    let npy = a.neg(py);
    let ny2 = a.neg(y2);
    let jac = [
        npy, ny2, reach, t2, zero, zero, zero, zero, zero, zero, one, one,
    ];
    // Static reactions (with a square root to exercise it).
    let mm2 = a.mul(m2, m2);
    let norm = a.add(mm2, one);
    let root = a.sqrt(norm);
    let f01 = a.mul(gm2, root);
    let f = [zero, f01, zero, zero, gm2, zero];
    let t = [zero, zero, g_0, zero, zero, g_1];

    let v = |name: &'static str, values: &[NodeId]| Output {
        name,
        rows: values.len(),
        cols: 1,
        values: values.to_vec(),
    };
    let m = |name: &'static str, rows: usize, cols: usize, values: &[NodeId]| Output {
        name,
        rows,
        cols,
        values: values.to_vec(),
    };
    let fun = |kind, outputs| Function { kind, outputs };
    let functions = vec![
        fun(FunctionKind::InverseDynamics, vec![v("tau", &tau_id)]),
        fun(FunctionKind::Gravity, vec![v("tau", &grav)]),
        fun(FunctionKind::NonlinearEffects, vec![v("h", &h)]),
        fun(FunctionKind::MassMatrix, vec![m("M", 2, 2, &mm)]),
        fun(FunctionKind::ForwardDynamics, vec![v("qdd", &fd)]),
        fun(
            FunctionKind::ForwardKinematics,
            vec![m("R", 3, 3, &rot), v("p", &pos)],
        ),
        fun(FunctionKind::Jacobian, vec![m("J", 6, 2, &jac)]),
        fun(FunctionKind::Centrifugal, vec![v("hc", &hc)]),
        fun(FunctionKind::Coriolis, vec![v("ho", &ho)]),
        fun(FunctionKind::Gyroscopic, vec![v("hg", &hg)]),
        fun(
            FunctionKind::StaticJointReactions,
            vec![m("F", 2, 3, &f), m("T", 2, 3, &t)],
        ),
    ];
    Module {
        robot_name: "Toy 2R".to_owned(),
        dof: 2,
        graph: g,
        functions,
        spec_hash: "0123456789abcdef".to_owned(),
        description: "Two-link toy for emitter tests".to_owned(),
        joint_names: vec!["shoulder".to_owned(), "elbow \"2\"?".to_owned()],
        motion: crate::model::BaseMotion::Fixed,
        base_layout: crate::model::BaseLayout::Pinocchio,
        frame_names: Vec::new(),
        constants: Vec::new(),
        beta_names: Vec::new(),
        contacts: Vec::new(),
        w_names: Vec::new(),
        joint_inputs: Vec::new(),
        all_joint_names: Vec::new(),
    }
}

trait Product3: Algebra {
    fn product3(&mut self, a: Self::E, b: Self::E, c: Self::E) -> Self::E {
        let ab = self.mul(a, b);
        self.mul(ab, c)
    }
}
impl Product3 for Graph {}

/// A fixed state of `n` joints (the two-link toy's first).
fn state_of(n: usize) -> Env {
    let pick = |v: [f64; 2], scale: f64| -> Vec<f64> {
        (0..n)
            .map(|j| v[j % 2] * (1.0 + scale * (j / 2) as f64))
            .collect()
    };
    Env {
        q: pick([0.3, -1.2], 0.37),
        qd: pick([0.7, -0.4], 0.21),
        qdd: pick([1.1, 0.25], -0.13),
        tau: pick([2.0, -0.5], 0.5),
        params: Vec::new(),
        base: Vec::new(),
        elastic: Default::default(),
    }
}

/// Expected values, function by function in contract order.
fn expected(module: &Module) -> Vec<f64> {
    let env = state_of(module.dof);
    let mut out = Vec::new();
    for kind in FunctionKind::ALL {
        let f = module.function(kind).expect("toy has every function");
        for o in &f.outputs {
            out.extend(module.graph.eval_many(&o.values, &env));
        }
    }
    out
}

fn c_array(values: &[f64], real: &str) -> String {
    let v: Vec<String> = values
        .iter()
        .map(|x| {
            let s = float_literal(*x, real == "float");
            if real == "float" {
                format!("{s}f")
            } else {
                s
            }
        })
        .collect();
    format!("{{{}}}", v.join(", "))
}

/// A C `main` calling every function at `state_of(dof)` and printing the outputs.
fn c_main(module: &Module, header: &str, real: &str) -> String {
    let name = snake_ident(&module.robot_name);
    let env = state_of(module.dof);
    let mut s = format!("#include <stdio.h>\n#include \"{header}\"\n\nint main(void)\n{{\n");
    for (n, v) in [
        ("q", &env.q),
        ("qd", &env.qd),
        ("qdd", &env.qdd),
        ("tau", &env.tau),
    ] {
        s.push_str(&format!(
            "    const {real} {n}[{}] = {};\n",
            v.len(),
            c_array(v, real)
        ));
    }
    s.push_str(&format!(
        "    {real} o0[64];\n    {real} o1[64];\n    int i;\n"
    ));
    let params = !module.graph.params().is_empty();
    if params {
        s.push_str(&format!(
            "    {name}_params prm;\n    {name}_params_default(&prm);\n"
        ));
    }
    for kind in FunctionKind::ALL {
        let c = entry(kind);
        let mut args = Vec::new();
        if params {
            args.push("&prm".to_owned());
        }
        args.extend(c.inputs.iter().map(|i| i.name().to_owned()));
        args.extend(
            ["o0", "o1"][..c.outputs.len()]
                .iter()
                .map(|s| s.to_string()),
        );
        s.push_str(&format!("    {name}_{}({});\n", c.name, args.join(", ")));
        for (k, o) in c.outputs.iter().enumerate() {
            let len = o.rows.get(module.dof) * o.cols.map_or(1, |c| c.get(module.dof));
            s.push_str(&format!(
                "    for (i = 0; i < {len}; i++) printf(\"%.17g\\n\", (double)o{k}[i]);\n"
            ));
        }
    }
    s.push_str("    return 0;\n}\n");
    s
}

fn compilers() -> Vec<&'static str> {
    ["gcc", "clang"]
        .into_iter()
        .filter(|cc| Command::new(cc).arg("--version").output().is_ok())
        .collect()
}

/// Compiles `files` (plus the generated main) with the strict flags and returns the printout.
fn compile_and_run(cc: &str, dir: &Path, sources: &[&str]) -> Vec<f64> {
    let exe = dir.join(format!("toy_{cc}"));
    let out = Command::new(cc)
        .args([
            "-std=c99",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            "-O1",
        ])
        .args(sources.iter().map(|s| dir.join(s)))
        .arg("-o")
        .arg(&exe)
        .arg("-lm")
        .output()
        .expect("compiler runs");
    assert!(
        out.status.success(),
        "{cc} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).output().expect("program runs");
    assert!(run.status.success());
    String::from_utf8(run.stdout)
        .expect("utf-8")
        .lines()
        .map(|l| l.parse().expect("number"))
        .collect()
}

fn check_c(module: &Module, opts: COptions, tol: f64) {
    let ccs = compilers();
    if ccs.is_empty() {
        eprintln!("no C compiler found; skipping");
        return;
    }
    let files = emit_c(module, &opts).expect("emits");
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join(&files.header_name), &files.header).unwrap();
    let mut sources = vec!["main.c".to_owned()];
    if let (Some(name), Some(src)) = (&files.source_name, &files.source) {
        std::fs::write(dir.path().join(name), src).unwrap();
        sources.push(name.clone());
    }
    let real = if opts.float { "float" } else { "double" };
    std::fs::write(
        dir.path().join("main.c"),
        c_main(module, &files.header_name, real),
    )
    .unwrap();
    let want = expected(module);
    for cc in ccs {
        let refs: Vec<&str> = sources.iter().map(String::as_str).collect();
        let got = compile_and_run(cc, dir.path(), &refs);
        assert_eq!(got.len(), want.len());
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(
                (g - w).abs() <= tol * w.abs().max(1.0),
                "{cc} value {k}: {g} vs {w} ({opts:?})"
            );
        }
    }
}

#[test]
fn c_with_params_compiles_and_matches_eval() {
    check_c(&toy(true, true), COptions::default(), 1e-12);
}

#[test]
fn c_without_params_or_gravity_compiles_and_matches_eval() {
    check_c(&toy(false, false), COptions::default(), 1e-12);
}

#[test]
fn c_float_and_header_only_variants_compile() {
    let m = toy(true, true);
    check_c(
        &m,
        COptions {
            float: true,
            header_only: false,
            ..COptions::default()
        },
        1e-4,
    );
    check_c(
        &m,
        COptions {
            float: false,
            header_only: true,
            ..COptions::default()
        },
        1e-12,
    );
    check_c(
        &toy(false, false),
        COptions {
            float: true,
            header_only: true,
            ..COptions::default()
        },
        1e-4,
    );
}

#[test]
fn rust_parses_and_is_deterministic() {
    for (symbolic, gravity) in [(true, true), (false, false)] {
        let a = emit_rust(&toy(symbolic, gravity)).expect("emits");
        let b = emit_rust(&toy(symbolic, gravity)).expect("emits");
        assert_eq!(a, b);
        syn::parse_file(&a).expect("generated Rust parses");
        assert!(a.starts_with("// @generated"));
        assert!(!a.contains("unsafe"));
        assert!(!a.lines().any(|l| {
            let l = l.trim_start();
            l.starts_with("for ") || l.starts_with("while ") || l.starts_with("loop ")
        }));
    }
    let with = emit_rust(&toy(true, true)).unwrap();
    assert!(with.contains("pub struct Params"));
    assert!(with.contains("impl ::quasidyn::Dynamics<2> for Params"));
    let without = emit_rust(&toy(false, false)).unwrap();
    assert!(without.contains("pub struct Toy2r;"));
    assert!(without.contains("_q: &[f64; 2]"), "unused input is marked");
}

/// A long function (the hand's, thousands of locals) declares its locals in groups and assigns
/// them, so no function nests more than `MAX_NESTED_LETS` + a group per 64 locals of `let`
/// scopes; short ones keep one `let` per local. (Compiling and running the long form is the
/// tests crate's: it includes every shipped robot's Rust and checks it against Pinocchio.)
#[test]
fn long_functions_keep_let_scopes_shallow() {
    let Some(spec) = workspace_file("robots/hand.toml") else {
        return;
    };
    let module = crate::build_module(&crate::load_spec(&spec).expect("shipped spec"));
    let rust = emit_rust(&module).expect("emits");
    syn::parse_file(&rust).expect("generated Rust parses");
    let mut longest = 0;
    for body in rust.split("pub fn ").skip(1) {
        let body = &body[..body.find("\n}\n").unwrap_or(body.len())];
        let lets = body
            .lines()
            .filter(|l| l.trim_start().starts_with("let "))
            .count();
        let assignments = body
            .lines()
            .filter(|l| {
                let l = l.trim_start();
                l.starts_with('x') && l.contains(" = ") && !l.starts_with("let ")
            })
            .count();
        assert!(
            lets <= MAX_NESTED_LETS_FOR_TESTS,
            "{} lets in one function",
            lets
        );
        if assignments > 0 {
            assert!(body.contains("let ("), "declarations in groups");
        }
        longest = longest.max(lets + assignments);
    }
    assert!(longest > 1000, "the hand has long functions ({longest})");
    // A short function keeps plain `let`s.
    let toy = emit_rust(&toy(false, false)).unwrap();
    assert!(toy.contains("let x") && !toy.contains("let (x"));
}

/// `rust::MAX_NESTED_LETS` plus one declaration per 64 of the longest function's locals.
const MAX_NESTED_LETS_FOR_TESTS: usize = 256 + 64;

#[test]
fn c_is_deterministic() {
    let opts = COptions::default();
    assert_eq!(
        emit_c(&toy(true, true), &opts).unwrap(),
        emit_c(&toy(true, true), &opts).unwrap()
    );
}

#[test]
fn snapshots() {
    let m = toy(true, true);
    insta::assert_snapshot!("toy_rust", emit_rust(&m).unwrap());
    let c = emit_c(&m, &COptions::default()).unwrap();
    insta::assert_snapshot!("toy_c_header", c.header);
    insta::assert_snapshot!("toy_c_source", c.source.unwrap());
    let free = toy(false, false);
    insta::assert_snapshot!("toy_free_rust", emit_rust(&free).unwrap());
    let hf = emit_c(
        &free,
        &COptions {
            float: true,
            header_only: true,
            ..COptions::default()
        },
    )
    .unwrap();
    insta::assert_snapshot!("toy_free_c_header_only_float", hf.header);
}

#[test]
fn contract_violations_are_reported() {
    let mut m = toy(false, true);
    m.functions[0].outputs[0].rows = 3;
    assert!(matches!(emit_rust(&m), Err(EmitError::OutputShape { .. })));
    // Gravity reading qd.
    let mut m = toy(false, true);
    let qd = m.graph.var(Var::Qd(0));
    m.functions[1].outputs[0].values[0] = qd;
    assert_eq!(
        emit_c(&m, &COptions::default()).unwrap_err(),
        EmitError::UnexpectedInput {
            kind: FunctionKind::Gravity,
            var: Var::Qd(0)
        }
    );
}

#[test]
fn identifiers() {
    assert_eq!(snake_ident("Toy 2R"), "toy_2r");
    assert_eq!(snake_ident("6dof"), "robot_6dof");
    assert_eq!(camel_ident("planar_3r arm"), "Planar3rArm");
    assert_eq!(camel_ident("2link"), "Robot2link");
    assert_eq!(float_literal(1.0, false), "1.0");
    assert_eq!(float_literal(1e-7, false), "1e-7");
    assert_eq!(float_literal(0.1, false).parse::<f64>().unwrap(), 0.1);
}

#[test]
fn parenthesisation_is_minimal_and_correct() {
    let plain = &c::CLang::plain("T");
    let a = || Ex::Local("a".into());
    let b = || Ex::Local("b".into());
    let sum = Ex::Sum(vec![(false, a()), (true, b())]);
    let e = Ex::Sum(vec![(false, a()), (true, sum.clone())]);
    assert_eq!(render(plain, &e), "a - (a - b)");
    let e = Ex::Div(Box::new(sum.clone()), Box::new(Ex::Prod(vec![a(), b()])));
    assert_eq!(render(plain, &e), "(a - b) / (a * b)");
    let e = Ex::Prod(vec![Ex::Lit(-2.0), Ex::Prod(vec![a(), b()]), sum]);
    assert_eq!(render(plain, &e), "-2.0 * a * b * (a - b)");
    let e = Ex::Neg(Box::new(Ex::Lit(-2.0)));
    assert_eq!(render(plain, &e), "-(-2.0)");
}

#[test]
fn sums_of_products_are_written_as_fused_multiply_adds() {
    // C's: `T_FMA(a, b, c)` is `c + a b`, `T_FNMA(a, b, c)` is `c - a b`, `T_FMS(a, b, c)`
    // is `a b - c`.
    let fused = &c::CLang::plain("T");
    let x = |n: &str| Ex::Local(n.into());
    let prod = |fs: &[&str]| Ex::Prod(fs.iter().map(|n| x(n)).collect());
    // In the written order, each product fused into the sum before it; a subtracted one as
    // fnma (acc - product), the other terms added as written.
    let e = Ex::Sum(vec![
        (false, x("c")),
        (false, prod(&["a", "b"])),
        (true, x("h")),
        (true, prod(&["d", "e", "g"])),
    ]);
    assert_eq!(render(fused, &e), "T_FNMA(d * e, g, T_FMA(a, b, c) - h)");
    // A leading product before another term is swapped with it so that it fuses too.
    let e = Ex::Sum(vec![(false, prod(&["a", "b"])), (false, x("c"))]);
    assert_eq!(render(fused, &e), "T_FMA(a, b, c)");
    // A leading product less another term is one fused multiply-subtract, then as before;
    // a call, so it takes no parentheses as a factor.
    let e = Ex::Sum(vec![(false, prod(&["a", "b", "d"])), (true, x("c"))]);
    assert_eq!(render(fused, &e), "T_FMS(a * b, d, c)");
    let e = Ex::Prod(vec![x("s"), e]);
    assert_eq!(render(fused, &e), "s * T_FMS(a * b, d, c)");
    let e = Ex::Sum(vec![
        (false, prod(&["a", "b"])),
        (true, x("c")),
        (false, x("h")),
        (true, prod(&["d", "e"])),
    ]);
    assert_eq!(render(fused, &e), "T_FNMA(d, e, T_FMS(a, b, c) + h)");
    // Not when the leading product is subtracted, or followed by another product.
    let e = Ex::Sum(vec![(true, prod(&["a", "b"])), (true, x("c"))]);
    assert_eq!(render(fused, &e), "-a * b - c");
    // Products only: the first one plain; a literal factor stays positive.
    let e = Ex::Sum(vec![
        (false, prod(&["a", "b"])),
        (true, Ex::Prod(vec![Ex::Lit(0.5), x("c")])),
    ]);
    assert_eq!(render(fused, &e), "T_FNMA(0.5, c, a * b)");
    // A sum ending in a product reads as a call: no parentheses around it as a factor.
    let e = Ex::Prod(vec![
        x("s"),
        Ex::Sum(vec![(false, x("c")), (false, prod(&["a", "b"]))]),
    ]);
    assert_eq!(render(fused, &e), "s * T_FMA(a, b, c)");
    // One ending in another term is a sum: parenthesised as one.
    let tail = Ex::Sum(vec![
        (false, x("c")),
        (false, prod(&["a", "b"])),
        (true, x("h")),
    ]);
    let e = Ex::Prod(vec![x("s"), tail.clone()]);
    assert_eq!(render(fused, &e), "s * (T_FMA(a, b, c) - h)");
    let e = Ex::Neg(Box::new(tail));
    assert_eq!(render(fused, &e), "-(T_FMA(a, b, c) - h)");
    // Sums without products and lone products are written as before.
    let e = Ex::Sum(vec![(false, x("a")), (true, x("b"))]);
    assert_eq!(render(fused, &e), "a - b");
    let e = Ex::Sum(vec![(true, prod(&["a", "b"]))]);
    assert_eq!(render(fused, &e), "-a * b");
}

/// Functions cut into parts (as long ones are, `parts::PARTED_ABOVE`), here with tiny parts so
/// that every kind of value crosses a part: input copies, sines and cosines, parameters,
/// locals, output entries written in several parts. Compiled with the strict flags and
/// checked against the graph's evaluation, in double and single precision, header-only too.
#[test]
fn c_functions_cut_into_parts_compile_and_match_eval() {
    let Some(spec) = workspace_text("robots/ur5.toml") else {
        return;
    };
    let robot = crate::parse_spec(&spec, "ur5.toml").expect("ur5 parses");
    let ur5 = crate::generate::build_module_only(&robot, Some(&FunctionKind::ALL));
    let parts = PartSizes {
        above: 2,
        operations: 2,
    };
    for module in [&toy(true, true), &toy(false, false), &ur5] {
        let files = emit_c(
            module,
            &COptions {
                parts,
                ..COptions::default()
            },
        )
        .expect("emits");
        let source = files.source.expect("a source file");
        assert!(source.contains("_part2(") && source.contains("carry["));
        for (float, header_only) in [(false, false), (true, false), (false, true)] {
            let opts = COptions {
                float,
                header_only,
                parts,
                ..COptions::default()
            };
            check_c(module, opts, if float { 1e-4 } else { 1e-12 });
        }
    }
}

/// A function long enough to be cut at the default sizes: the floating humanoid's
/// forward-dynamics derivatives (114k operations), compiled with the strict flags and run at a
/// random state, agree with the graph's evaluation of the same outputs (which the floating
/// and derivative tests check against Pinocchio).
#[test]
fn humanoid_forward_dynamics_derivatives_in_parts_match_eval() {
    let Some(spec) = workspace_file("tests/fixtures/floating/humanoid30.toml") else {
        return;
    };
    let robot = crate::load_spec(&spec).expect("humanoid spec loads");
    let kind = FunctionKind::ForwardDynamicsDerivatives;
    let module = crate::generate::build_module_only(&robot, Some(&[kind]));
    let files = emit_c(&module, &COptions::default()).expect("emits");
    let source = files.source.expect("a source file");
    let name = "humanoid30_forward_dynamics_derivatives";
    assert!(source.contains(&format!("static void {name}_part2(")));

    // A state: unit quaternion, joints, velocities and forces from a xorshift generator.
    let (nq, nv) = (module.dof + 7, module.dof + 6);
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut uniform = |lo: f64, hi: f64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        lo + (hi - lo) * ((seed >> 11) as f64 / (1u64 << 53) as f64)
    };
    let mut q: Vec<f64> = (0..nq).map(|_| uniform(-1.0, 1.0)).collect();
    let norm = q[3..7].iter().map(|x| x * x).sum::<f64>().sqrt();
    q[3..7].iter_mut().for_each(|x| *x /= norm);
    let v: Vec<f64> = (0..nv).map(|_| uniform(-1.0, 1.0)).collect();
    let tau: Vec<f64> = (0..nv).map(|_| uniform(-5.0, 5.0)).collect();

    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join(&files.header_name), &files.header).unwrap();
    std::fs::write(dir.path().join("humanoid30.c"), &source).unwrap();
    let main = format!(
        "#include <stdio.h>\n#include \"{header}\"\n\nstatic const double q[{nq}] = {q};\n\
         static const double v[{nv}] = {v};\nstatic const double tau[{nv}] = {tau};\n\
         static double a[{nn}], b[{nn}], c[{nn}];\n\nint main(void)\n{{\n    int i;\n    \
         {name}(q, v, tau, a, b, c);\n    \
         for (i = 0; i < {nn}; i++) printf(\"%.17g\\n%.17g\\n%.17g\\n\", a[i], b[i], c[i]);\n    \
         return 0;\n}}\n",
        header = files.header_name,
        q = c_array(&q, "double"),
        v = c_array(&v, "double"),
        tau = c_array(&tau, "double"),
        nn = nv * nv,
    );
    std::fs::write(dir.path().join("main.c"), main).unwrap();

    let mut base = q[..7].to_vec();
    base.extend_from_slice(&v[..6]);
    base.extend_from_slice(&[0.0; 6]);
    base.extend_from_slice(&tau[..6]);
    let env = Env {
        q: q[7..].to_vec(),
        qd: v[6..].to_vec(),
        qdd: vec![0.0; module.dof],
        tau: tau[6..].to_vec(),
        params: Vec::new(),
        base,
        elastic: Default::default(),
    };
    let function = module.function(kind).expect("the function is built");
    let want: Vec<Vec<f64>> = function
        .outputs
        .iter()
        .map(|o| module.graph.eval_many(&o.values, &env))
        .collect();
    assert_eq!(want.len(), 3);
    for cc in compilers() {
        let got = compile_and_run(cc, dir.path(), &["main.c", "humanoid30.c"]);
        assert_eq!(got.len(), 3 * nv * nv);
        for (i, row) in got.chunks(3).enumerate() {
            for (k, g) in row.iter().enumerate() {
                let w = want[k][i];
                assert!(
                    (g - w).abs() <= 1e-9 * w.abs().max(1.0),
                    "{cc}: output {k} entry {i}: {g} against {w}"
                );
            }
        }
    }
}

/// The batched forms of functions in parts call the scalar function once per state; with
/// symbolic parameters and outputs named like the usual parameter and loop names (`p` of the
/// forward kinematics), every batched function still names each of its parameters once
/// (compiling and running them is the tests crate's, `tests/tests/batch.rs`).
#[test]
fn batched_forms_by_calls_name_each_parameter_once() {
    let Some(spec) = workspace_text("robots/ur5.toml") else {
        return;
    };
    let mut robot = crate::parse_spec(&spec, "ur5.toml").expect("ur5 parses");
    robot.bodies.last_mut().expect("a body").symbolic = crate::SymbolicInertial {
        mass: true,
        com: true,
        inertia: true,
    };
    let module = crate::generate::build_module_only(&robot, Some(&FunctionKind::ALL));
    let options = RustOptions {
        batch: Some(4),
        parts: PartSizes {
            above: 0,
            operations: 40,
        },
    };
    let rust = emit_rust_reporting(&module, &options, &mut crate::Silent).expect("emits");
    let file = syn::parse_file(&rust).expect("generated Rust parses");
    let mut batched = 0;
    for item in &file.items {
        let syn::Item::Fn(f) = item else { continue };
        let name = f.sig.ident.to_string();
        if !name.ends_with("_batch") {
            continue;
        }
        batched += 1;
        let mut names: Vec<String> = f
            .sig
            .inputs
            .iter()
            .map(|arg| match arg {
                syn::FnArg::Typed(t) => {
                    let pat = &t.pat;
                    quote::quote!(#pat).to_string()
                }
                syn::FnArg::Receiver(_) => "self".to_owned(),
            })
            .collect();
        let count = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), count, "{name}: a parameter named twice");
        let body = quote::quote!(#f).to_string();
        let scalar = name.trim_end_matches("_batch");
        assert!(
            body.contains(&format!("{scalar} (")),
            "{name}: calls {scalar}"
        );
    }
    assert_eq!(batched, module.functions.len());
    let c = emit_c(
        &module,
        &COptions {
            batch: Some(4),
            parts: options.parts,
            ..COptions::default()
        },
    )
    .expect("emits");
    let source = c.source.expect("a source file");
    assert_eq!(
        source.matches("the function once per state").count(),
        module.functions.len()
    );
}

/// The hand's regressor (16 × 160, long runs of zeros between the fingers): the runs of at
/// least `ZERO_RUN_MIN` zeros are written by loops, in one body and in parts, and the compiled
/// code (strict flags, the output array filled with 7 before the call) gives the graph's
/// values, zeros included.
#[test]
fn zero_runs_are_filled_by_loops_that_write_every_zero() {
    let Some(spec) = workspace_text("robots/hand.toml") else {
        return;
    };
    let robot = crate::parse_spec(&spec, "hand.toml").expect("hand parses");
    let kind = FunctionKind::Regressor;
    let module = crate::generate::build_module_only(&robot, Some(&[kind]));
    let name = snake_ident(&module.robot_name);
    let f = module.function(kind).expect("generated");
    let env = state_of(module.dof);
    let want = module.graph.eval_many(&f.outputs[0].values, &env);
    assert!(want.iter().filter(|v| **v == 0.0).count() > super::ZERO_RUN_MIN);
    let contract = entry(kind);
    let inputs: Vec<&str> = contract.inputs.iter().map(|i| i.name()).collect();
    let mut main = format!("#include <stdio.h>\n#include \"{name}.h\"\n\nint main(void)\n{{\n");
    for (n, v) in inputs.iter().zip([&env.q, &env.qd, &env.qdd]) {
        main += &format!(
            "    const double {n}[{}] = {};\n",
            v.len(),
            c_array(v, "double")
        );
    }
    main += &format!(
        "    static double y[{0}];\n    int i;\n    for (i = 0; i < {0}; i++) y[i] = 7.0;\n    \
         {name}_{1}({2}, y);\n    for (i = 0; i < {0}; i++) printf(\"%.17g\\n\", y[i]);\n    \
         return 0;\n}}\n",
        want.len(),
        contract.name,
        inputs.join(", ")
    );
    let Some(cc) = compilers().first().copied() else {
        eprintln!("no C compiler found; skipping");
        return;
    };
    let tiny = PartSizes {
        above: 2,
        operations: 64,
    };
    for parts in [PartSizes::default(), tiny] {
        let files = emit_c(
            &module,
            &COptions {
                parts,
                ..COptions::default()
            },
        )
        .expect("emits");
        let source = files.source.expect("a source file");
        assert!(source.contains("for (int z_ = "), "no zero loop");
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join(&files.header_name), &files.header).unwrap();
        let source_name = files.source_name.expect("a source file name");
        std::fs::write(dir.path().join(&source_name), &source).unwrap();
        std::fs::write(dir.path().join("main.c"), &main).unwrap();
        let got = compile_and_run(cc, dir.path(), &["main.c", &source_name]);
        assert_eq!(got.len(), want.len());
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(
                (g - w).abs() <= 1e-12 * w.abs().max(1.0),
                "entry {k}: {g} vs {w}"
            );
        }
    }
}

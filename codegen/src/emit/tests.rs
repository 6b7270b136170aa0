//! Emitter tests on a hand-built 2-joint toy: the C is compiled with strict flags and run
//! against `Graph::eval`; the Rust must parse and be byte-deterministic; both are snapshotted.

use std::path::Path;
use std::process::Command;

use super::*;
use crate::algebra::Algebra;
use crate::functions::entry;
use crate::ir::{Env, Function, NodeId, Output};
use crate::workspace_files::{workspace_file, workspace_text};

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

/// Operations written in a C function body, counted the way [`OpCount`] defines them.
fn ops_in_c_body(body: &str) -> crate::ir::OpCount {
    let mut n = crate::ir::OpCount::default();
    for line in body.lines().filter(|l| !l.contains("(void)")) {
        let rhs = line.split_once('=').map_or("", |(_, r)| r);
        n.trig += rhs.matches("sin(").count() + rhs.matches("cos(").count();
        // The trigonometric block's reads stand for the `#else` branch's calls, counted there.
        n.sqrt += rhs.matches("sqrt(").count();
        // A fused multiply-add (or multiply-subtract) is the multiplication and the addition
        // it stands for.
        let fused = ["_FMA(", "_FNMA(", "_FMS("]
            .iter()
            .map(|f| rhs.matches(f).count())
            .sum::<usize>();
        n.mul += fused;
        n.add += fused;
        let chars: Vec<char> = rhs.chars().collect();
        let mut prev = '=';
        for (i, &c) in chars.iter().enumerate() {
            match c {
                '*' => n.mul += 1,
                '/' => n.div += 1,
                '+' => n.add += 1,
                '-' if chars.get(i + 1) == Some(&'>') => {}
                '-' if prev.is_ascii_alphanumeric() || prev == ')' || prev == ']' => n.add += 1,
                // A sign directly on a literal is free.
                '-' if !chars.get(i + 1).is_some_and(char::is_ascii_digit) => n.neg += 1,
                _ => {}
            }
            if !c.is_whitespace() {
                prev = c;
            }
        }
    }
    n
}

#[test]
fn emitted_c_has_the_counted_operations() {
    for module in [toy(true, true), toy(false, false)] {
        let lowered = module.lowered();
        let src = emit_c(&module, &COptions::default())
            .unwrap()
            .source
            .unwrap();
        let counts = module.op_counts();
        for (f, (kind, counted)) in lowered.functions.iter().zip(counts) {
            assert_eq!(f.kind, kind);
            let name = format!("_{}(", entry(f.kind).name);
            let start = src.find(&name).expect("function emitted");
            let body = &src[start..];
            let body = &body[body.find('{').unwrap()..body.find("\n}").unwrap()];
            assert_eq!(ops_in_c_body(body), counted, "{kind:?}");
        }
    }
}

/// A scalar C function as emitted: its name, input and output array names and body lines.
struct CFunction<'a> {
    name: String,
    inputs: Vec<String>,
    outputs: Vec<String>,
    body: Vec<&'a str>,
}

/// Every scalar C function of `source`.
fn c_functions(source: &str) -> Vec<CFunction<'_>> {
    let mut out = Vec::new();
    let mut rest = source;
    while let Some(start) = rest.find("\nvoid ") {
        let after = &rest[start + 1..];
        let open = after.find("\n{\n").expect("function body");
        let close = after.find("\n}\n").expect("function end");
        let prototype = &after[..open];
        let name = prototype[5..prototype.find('(').expect("prototype")].to_owned();
        let (mut inputs, mut outputs) = (Vec::new(), Vec::new());
        let args = &prototype[prototype.find('(').unwrap() + 1..prototype.rfind(')').unwrap()];
        for arg in args.split(", ").filter(|a| a.ends_with("[]")) {
            let id = arg
                .trim_end_matches("[]")
                .rsplit(' ')
                .next()
                .unwrap()
                .to_owned();
            if arg.starts_with("const ") {
                inputs.push(id);
            } else {
                outputs.push(id);
            }
        }
        let body: Vec<&str> = after[open + 3..close].lines().collect();
        if !name.ends_with("_batch") {
            out.push(CFunction {
                name,
                inputs,
                outputs,
                body,
            });
        }
        rest = &after[close..];
    }
    out
}

/// Whether `line` indexes the array `name` (not merely one whose name ends the same).
fn indexes(line: &str, name: &str) -> bool {
    let pattern = format!("{name}[");
    line.match_indices(&pattern).any(|(at, _)| {
        !line[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// The C reads every input into a local first, then writes each output entry early: no line
/// reads an input array after the first store (an output array may be an input array of the
/// same call), and the stores are interleaved with the locals.
#[test]
fn c_outputs_are_written_early_and_after_every_input_read() {
    let Some(robots) = workspace_file("robots") else {
        return;
    };
    let mut interleaved = Vec::new();
    for stem in ["ur5", "quadruped_floating"] {
        let robot = crate::load_spec(&robots.join(format!("{stem}.toml"))).expect("shipped spec");
        let c = emit_c(&crate::build_module(&robot), &COptions::default()).unwrap();
        let source = c.source.unwrap();
        for CFunction {
            name,
            inputs,
            outputs,
            body,
        } in c_functions(&source)
        {
            let reads = |l: &str| inputs.iter().any(|i| indexes(l, i));
            let store = |l: &str| {
                outputs
                    .iter()
                    .any(|o| l.trim_start().starts_with(&format!("{o}[")))
            };
            let local = |l: &str| l.trim_start().starts_with("const ");
            // A function cut into parts only calls them; its parts (`static`, not listed by
            // `c_functions`) are checked by `c_functions_cut_into_parts_compile_and_match_eval`.
            let Some(first_store) = body.iter().position(|l| store(l)) else {
                assert!(
                    body.iter().any(|l| l.contains(&format!("{name}_part1("))),
                    "{name}: no output written"
                );
                continue;
            };
            let last_local = body.iter().rposition(|l| local(l)).unwrap_or(0);
            for (k, line) in body.iter().enumerate() {
                if reads(line) {
                    assert!(
                        k < first_store,
                        "{name}: `{line}` reads an input after a store"
                    );
                }
            }
            if first_store < last_local {
                interleaved.push(name);
            }
        }
    }
    for name in [
        "quadruped_floating_mass_matrix",
        "ur5_inverse_dynamics_derivatives",
    ] {
        assert!(interleaved.iter().any(|n| n == name), "{name} writes early");
    }
}

/// The C order and its three candidates compute each local after the locals it reads, every
/// local once; the order written is the pressure order holding fewer values live, or the
/// depth-first order where that needs fewer estimated spills, and it holds fewer values live
/// than the graph's order (summed over the averages of every function of three shipped
/// robots) and about as many in every function.
#[test]
fn c_local_order_is_valid_and_keeps_fewer_values_live() {
    let Some(robots) = workspace_file("robots") else {
        return;
    };
    let (mut total, mut graph_total) = (0.0, 0.0);
    let mut depth_first_orders = 0;
    for stem in ["ur5", "quadruped_floating", "hand"] {
        let robot = crate::load_spec(&robots.join(format!("{stem}.toml"))).expect("shipped spec");
        let module = crate::build_module(&robot);
        let (_, plans) = plan_module(&module, &mut crate::progress::Silent).unwrap();
        for plan in &plans {
            let (order, _) = local_order(plan, true);
            let trig = trig_locals(plan);
            let operands = operand_lists(plan);
            let n = plan.locals.len();
            let candidates = [Ties::GraphOrder, Ties::RecentOperands]
                .map(|ties| pressure_order(&operands, n, &trig, ties));
            let by_live =
                if mean_live(&operands, &candidates[1]) < mean_live(&operands, &candidates[0]) {
                    &candidates[1]
                } else {
                    &candidates[0]
                };
            let depth_first = depth_first_order(&operands, n, &trig, by_live);
            for candidate in candidates.iter().chain([&order, &depth_first]) {
                let mut seen = vec![false; plan.locals.len()];
                for &k in candidate {
                    visit_leaves(&plan.locals[k].1, &mut |leaf| {
                        if let Ex::Local(n) = leaf {
                            let d = plan.locals.iter().position(|(m, _)| m == n).unwrap();
                            assert!(seen[d], "{}: {} before {n}", plan.name, plan.locals[k].0);
                        }
                    });
                    assert!(!seen[k], "{}: {} twice", plan.name, plan.locals[k].0);
                    seen[k] = true;
                }
                assert!(seen.iter().all(|&s| s), "{}: every local", plan.name);
            }
            // The order written is the pressure order with fewer values live, or the
            // depth-first one where that needs fewer estimated spills.
            let counted: Vec<bool> = plan.locals.iter().map(|(_, e)| !is_trig(e)).collect();
            let spills = |o: &[usize]| spill_estimate(&operands, o, &counted);
            if order == depth_first && order != *by_live {
                depth_first_orders += 1;
                assert!(spills(&depth_first) < spills(by_live), "{}", plan.name);
            } else {
                assert_eq!(order, *by_live, "{}", plan.name);
                assert!(spills(by_live) <= spills(&depth_first), "{}", plan.name);
            }
            let mean = mean_live(&operands, &order);
            let graph: Vec<usize> = (0..n).collect();
            let graph_mean = mean_live(&operands, &graph);
            assert!(
                mean <= graph_mean + 1.0,
                "{stem} {}: {mean:.1} live on average against {graph_mean:.1}",
                plan.name
            );
            total += mean;
            graph_total += graph_mean;
        }
    }
    // Measured: 2587 against 4143 (38% fewer) over their 56 functions, 25 of them in the
    // depth-first order; 3316 with the pressure orders alone, 3657 with the graph's order
    // on every tie.
    assert!(
        depth_first_orders > 0,
        "the depth-first order is taken somewhere"
    );
    assert!(
        total < 0.7 * graph_total,
        "{total:.0} values live against {graph_total:.0}"
    );
}

/// A Rust function with many computed entries (the floating quadruped's mass matrix) writes
/// them through its inner `write` as they are computed: each entry of the 18 x 18 matrix
/// exactly once (what makes reading the arrays as `f64` sound), some before the last local;
/// a function with few (the UR5's inverse dynamics) keeps its array expression.
#[test]
fn rust_outputs_with_many_entries_are_written_early_each_once() {
    let Some(robots) = workspace_file("robots") else {
        return;
    };
    let module = |stem: &str| {
        let robot = crate::load_spec(&robots.join(format!("{stem}.toml"))).expect("shipped spec");
        crate::build_module(&robot)
    };
    let rust = emit_rust(&module("quadruped_floating")).unwrap();
    syn::parse_file(&rust).expect("generated Rust parses");
    let start = rust.find("pub fn mass_matrix(").expect("mass matrix");
    let body = &rust[start..start + rust[start..].find("\n}\n").expect("end")];
    assert!(body.contains("#[inline(never)]") && body.contains("fn write("));
    let lines: Vec<&str> = body.lines().map(str::trim_start).collect();
    let mut written = vec![0_u32; 18 * 18];
    let mut first_write = None;
    let mut last_local = 0;
    for (k, line) in lines.iter().enumerate() {
        if let Some(rest) = line.strip_prefix("out0[") {
            let (r, rest) = rest.split_once("][").expect("two indices");
            let c = rest.split_once(']').expect("closing bracket").0;
            let (r, c): (usize, usize) = (r.parse().unwrap(), c.parse().unwrap());
            written[r * 18 + c] += 1;
            first_write.get_or_insert(k);
        } else if line.starts_with("let x") || line.starts_with('x') && line.contains(" = ") {
            last_local = k;
        }
    }
    assert!(written.iter().all(|&w| w == 1), "every entry written once");
    assert!(
        first_write.expect("writes") < last_local,
        "written as computed"
    );
    assert_eq!(
        body.matches("unsafe").count(),
        1,
        "one unsafe block, the conversion"
    );

    let ur5 = emit_rust(&module("ur5")).unwrap();
    let start = ur5
        .find("pub fn inverse_dynamics(")
        .expect("inverse dynamics");
    let body = &ur5[start..start + ur5[start..].find("\n}\n").expect("end")];
    assert!(!body.contains("fn write(") && !body.contains("unsafe"));
}

/// The spill estimate counts nothing while the live values fit the registers, and a load and
/// a store for each value that must leave them: twenty values read together by one entry
/// leave seven outside the thirteen registers.
#[test]
fn spill_estimate_counts_values_beyond_the_registers() {
    let twenty: Vec<usize> = (0..20).collect();
    let mut operands: Vec<Vec<usize>> = vec![Vec::new(); 20];
    operands.push(twenty.clone());
    let counted = vec![true; 20];
    let outside = 20 - ESTIMATED_REGISTERS;
    assert_eq!(spill_estimate(&operands, &twenty, &counted), 2 * outside);
    // Read in pairs as soon as they are computed: never more than two live.
    let mut pairs: Vec<Vec<usize>> = vec![Vec::new(); 20];
    pairs.extend((0..10).map(|k| vec![2 * k, 2 * k + 1]));
    assert_eq!(spill_estimate(&pairs, &twenty, &counted), 0);
    // Values not counted (sines and cosines read from their arrays) cost nothing.
    assert_eq!(spill_estimate(&operands, &twenty, &[false; 20]), 0);
}

/// The depth-first order computes each entry's locals just before it, the larger operand
/// first, and keeps `first` in front: for `e0 = f(l3)`, `l3 = l1 + l2`, `l2 = g(l0)` and
/// `e1 = l4` it writes `l0 l2 l1 l3` then `l4`, each local after its operands.
#[test]
fn depth_first_order_follows_the_entries() {
    let operands = vec![
        vec![],     // l0
        vec![],     // l1
        vec![0],    // l2
        vec![1, 2], // l3
        vec![],     // l4
        vec![3],    // e0
        vec![4],    // e1
    ];
    let graph: Vec<usize> = (0..5).collect();
    assert_eq!(
        depth_first_order(&operands, 5, &[], &graph),
        vec![0, 2, 1, 3, 4]
    );
    // `first` stays in front and is not computed again.
    assert_eq!(
        depth_first_order(&operands, 5, &[4], &graph),
        vec![4, 0, 2, 1, 3]
    );
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

//! The equations printer: golden output for the papers' planar 3R arm and gimbal, the text
//! format read back and evaluated against the graph, and the `equations` subcommand.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;

use quasidyn_codegen::equations::{equations, render, Format};
use quasidyn_codegen::ir::Env;
use quasidyn_codegen::{build_module, load_spec, FunctionKind, Robot};

fn spec(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/papers")
        .join(file)
}

fn robot(file: &str) -> Robot {
    load_spec(&spec(file)).expect("valid spec")
}

macro_rules! golden {
    ($name:expr, $text:expr) => {
        insta::with_settings!({ snapshot_path => "papers/snapshots", prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!($name, $text);
        })
    };
}

#[test]
fn golden_planar3r_text() {
    let r = robot("s000_planar3r.toml");
    golden!(
        "planar3r_inverse_dynamics_text",
        equations(&r, FunctionKind::InverseDynamics, Format::Text)
    );
}

#[test]
fn golden_planar3r_latex() {
    let r = robot("s000_planar3r.toml");
    golden!(
        "planar3r_inverse_dynamics_latex",
        equations(&r, FunctionKind::InverseDynamics, Format::Latex)
    );
}

#[test]
fn golden_gimbal_text() {
    let r = robot("s000_gimbal.toml");
    golden!(
        "gimbal_inverse_dynamics_text",
        equations(&r, FunctionKind::InverseDynamics, Format::Text)
    );
}

#[test]
fn output_is_deterministic() {
    let r = robot("s000_angular6.toml");
    let a = equations(&r, FunctionKind::InverseDynamics, Format::Text);
    let b = equations(&r, FunctionKind::InverseDynamics, Format::Text);
    assert_eq!(a, b);
}

// ------------------------------------------------------------------ reading the text back

/// A tiny evaluator of the text format: `name = expr` lines (with `#` comments), `+ - * /`,
/// unary minus, parentheses, `sqrt()`, numbers, names.
struct Reader<'a> {
    toks: Vec<Tok>,
    pos: usize,
    vars: &'a HashMap<String, f64>,
    env: &'a Env,
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(f64),
    Id(String),
    Op(char),
}

fn tokens(s: &str) -> Vec<Tok> {
    let cs: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() || c == '.' {
            let st = i;
            while i < cs.len() && (cs[i].is_ascii_digit() || cs[i] == '.') {
                i += 1;
            }
            let t: String = cs[st..i].iter().collect();
            out.push(Tok::Num(t.parse().expect("number")));
        } else if c.is_ascii_alphabetic() || c == '_' {
            let st = i;
            while i < cs.len() && (cs[i].is_ascii_alphanumeric() || cs[i] == '_' || cs[i] == '^') {
                i += 1;
            }
            out.push(Tok::Id(cs[st..i].iter().collect()));
        } else {
            assert!("+-*/()".contains(c), "unexpected {c:?} in {s}");
            out.push(Tok::Op(c));
            i += 1;
        }
    }
    out
}

impl Reader<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }
    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(&Tok::Op(c)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn sum(&mut self) -> f64 {
        let mut v = self.product();
        loop {
            if self.eat('+') {
                v += self.product();
            } else if self.eat('-') {
                v -= self.product();
            } else {
                return v;
            }
        }
    }
    fn product(&mut self) -> f64 {
        let mut v = self.unary();
        loop {
            if self.eat('*') {
                v *= self.unary();
            } else if self.eat('/') {
                v /= self.unary();
            } else {
                return v;
            }
        }
    }
    fn unary(&mut self) -> f64 {
        if self.eat('-') {
            return -self.unary();
        }
        match self.toks[self.pos].clone() {
            Tok::Num(x) => {
                self.pos += 1;
                x
            }
            Tok::Op('(') => {
                self.pos += 1;
                let v = self.sum();
                assert!(self.eat(')'), "closing parenthesis");
                v
            }
            Tok::Id(name) => {
                self.pos += 1;
                if name == "sqrt" {
                    assert!(self.eat('('));
                    let v = self.sum();
                    assert!(self.eat(')'));
                    return v.sqrt();
                }
                self.leaf(&name)
            }
            t => panic!("unexpected token {t:?}"),
        }
    }
    /// A defined name, a parameter, or a leaf `q1`, `qd1`, `qdd1`, `s23`, `c1`.
    fn leaf(&self, name: &str) -> f64 {
        if let Some(v) = self.vars.get(name) {
            return *v;
        }
        let joint = |digits: &str| -> Option<Vec<usize>> {
            (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
                .then(|| digits.bytes().map(|b| usize::from(b - b'0') - 1).collect())
        };
        for (prefix, values) in [
            ("qdd", &self.env.qdd),
            ("qd", &self.env.qd),
            ("q", &self.env.q),
        ] {
            if let Some(j) = name.strip_prefix(prefix).and_then(joint) {
                assert_eq!(j.len(), 1, "{name}");
                return values[j[0]];
            }
        }
        let angle = |js: Vec<usize>| js.iter().map(|&j| self.env.q[j]).sum::<f64>();
        if let Some(js) = name.strip_prefix('s').and_then(joint) {
            return angle(js).sin();
        }
        if let Some(js) = name.strip_prefix('c').and_then(joint) {
            return angle(js).cos();
        }
        panic!("unknown name {name}")
    }
}

/// Evaluates every line of a text-format listing; returns the values by name.
fn evaluate(text: &str, env: &Env, params: &HashMap<String, f64>) -> HashMap<String, f64> {
    let mut vars = params.clone();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let (lhs, rhs) = line.split_once(" = ").expect("name = expression");
        let mut r = Reader {
            toks: tokens(rhs),
            pos: 0,
            vars: &vars,
            env,
        };
        let v = r.sum();
        assert_eq!(r.pos, r.toks.len(), "whole line read: {line}");
        assert!(
            vars.insert(lhs.to_owned(), v).is_none(),
            "{lhs} defined once"
        );
    }
    vars
}

/// Splitmix64 in [lo, hi).
fn uniform(state: &mut u64, lo: f64, hi: f64) -> f64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    lo + (hi - lo) * ((z >> 11) as f64 / (1u64 << 53) as f64)
}

/// The text listing, read back, gives the graph's values: every output and every named
/// intermediate, at random states and parameters.
fn reads_back(file: &str, kind: FunctionKind) {
    let r = robot(file);
    let module = build_module(&r);
    let text = render(&module, &r, kind, Format::Text);
    let g = &module.graph;
    let f = module.function(kind).expect("generated");
    let mut state = 7u64;
    for _ in 0..20 {
        let n = r.dof();
        let env = Env {
            q: (0..n).map(|_| uniform(&mut state, -3.0, 3.0)).collect(),
            qd: (0..n).map(|_| uniform(&mut state, -2.0, 2.0)).collect(),
            qdd: (0..n).map(|_| uniform(&mut state, -3.0, 3.0)).collect(),
            tau: vec![0.0; n],
            // Values away from the defaults, so a parameter printed as a number would show.
            params: g
                .params()
                .iter()
                .map(|p| p.default * uniform(&mut state, 0.5, 2.0) + uniform(&mut state, -0.1, 0.1))
                .collect(),
            base: Vec::new(),
            elastic: Default::default(),
        };
        let by_param: HashMap<String, f64> = g
            .params()
            .iter()
            .zip(&env.params)
            .map(|(p, v)| (p.name.clone(), *v))
            .collect();
        let vals = evaluate(&text, &env, &by_param);
        let graph_vals = g.eval_prefix(quasidyn_codegen::NodeId(g.len() as u32 - 1), &env);
        let close = |what: &str, a: f64, b: f64| {
            assert!(
                (a - b).abs() <= 1e-10 * a.abs().max(b.abs()).max(1.0),
                "{what}: text {a}, graph {b}"
            );
        };
        for o in &f.outputs {
            for (k, id) in o.values.iter().enumerate() {
                let name = if o.cols == 1 {
                    format!("{}{}", o.name, k + 1)
                } else {
                    format!("{}{}_{}", o.name, k / o.cols + 1, k % o.cols + 1)
                };
                close(&name, vals[&name], graph_vals[id.index()]);
            }
        }
        for (id, name) in g.names() {
            if let Some(v) = vals.get(name) {
                close(name, *v, graph_vals[id.index()]);
            }
        }
    }
}

#[test]
fn planar3r_text_reads_back() {
    reads_back("s000_planar3r.toml", FunctionKind::InverseDynamics);
}

#[test]
fn angular6_text_reads_back() {
    reads_back("s000_angular6.toml", FunctionKind::InverseDynamics);
    reads_back("s000_angular6.toml", FunctionKind::MassMatrix);
}

#[test]
fn portal_split_reads_back() {
    // Prismatic joints, slides as plain q leaves, the gyroscopic split.
    reads_back("s001_ex6_portal.toml", FunctionKind::Gyroscopic);
    reads_back("s001_ex6_portal.toml", FunctionKind::StaticJointReactions);
}

#[test]
fn labels_on_leaves_make_no_lines() {
    let r = robot("s000_planar3r.toml");
    let text = equations(&r, FunctionKind::InverseDynamics, Format::Text);
    // ω_1 = q̇_1 and ω̇_1 = q̈_1 are leaves: no `w1_z = qd1` line.
    assert!(!text.contains("w1_z ="), "{text}");
    assert!(!text.contains("wd1_z ="), "{text}");
    assert!(text.contains("M2_z = M3_z + "), "{text}");
    assert!(
        text.contains("tau1 = M1_z  # joint q1 (revolute)"),
        "{text}"
    );
}

// ------------------------------------------------------------------ the subcommand

fn run(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_quasidyn"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("the quasidyn binary runs")
}

#[test]
fn cli_equations() {
    let path = spec("s000_gimbal.toml");
    let path = path.to_str().expect("utf-8 path");
    let out = run(&["equations", path]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let r = robot("s000_gimbal.toml");
    assert_eq!(
        text,
        equations(&r, FunctionKind::InverseDynamics, Format::Text)
    );

    let out = run(&[
        "equations",
        path,
        "--format",
        "latex",
        "--function",
        "mass_matrix",
    ]);
    assert!(out.status.success(), "{out:?}");
    let latex = String::from_utf8(out.stdout).unwrap();
    assert!(latex.contains("\\begin{align*}"), "{latex}");
    assert!(latex.contains("M_{1,1} &= "), "{latex}");
    assert!(latex.trim_end().ends_with("\\end{align*}"), "{latex}");

    // Resolved against the robot, which lists what it has.
    let out = run(&["equations", path, "--function", "nope"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("mass_matrix"), "{stderr}");

    let out = run(&["equations", "missing.toml"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
}

//! Generation time, size and memory: random chains with tilted axes (7, 30 and 64 bodies) and a
//! random 64-body tree, generated in one process in that order. Each row times one `c_code`
//! call (derivation, simplification and emission of the C files, no I/O), first for the
//! dynamics, kinematics and split functions (`FunctionKind::ALL`: inverse dynamics, gravity,
//! nonlinear effects, mass matrix, forward dynamics, tool pose and Jacobian, centrifugal,
//! Coriolis, gyroscopic, static joint reactions), then for every function. Peak memory is the
//! process's high-water mark after the row (Linux `VmHWM`), so it only grows down the table.
//!
//! Run with `cargo bench -p quasidyn-tests --bench generation` (add `-- --quick` to skip the
//! every-function rows of the 64-body robots, which take minutes).

use std::time::Instant;

use quasidyn_codegen::functions::function_name;
use quasidyn_codegen::{
    available_functions, c_code_with, parse_spec, COptions, FunctionKind, Options,
};

/// A small deterministic generator (xorshift), so every run builds the same robots.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next()
    }
    fn unit(&mut self) -> [f64; 3] {
        loop {
            let v = [
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            ];
            let n = v.iter().map(|x| x * x).sum::<f64>().sqrt();
            if (0.3..=1.0).contains(&n) {
                return v.map(|x| x / n);
            }
        }
    }
}

/// A spec of `n` revolute bodies, each joint axis a random direction (no coordinate axis
/// anywhere), random links, masses, centres of mass and inertias; a chain, or a tree whose
/// bodies hang from one of the four bodies before them.
fn random_spec(n: usize, tree: bool, seed: u64) -> String {
    let mut rng = Rng(seed);
    let name = format!("{}{n}", if tree { "tree" } else { "chain" });
    let mut spec = format!("version = 1\nname = \"{name}\"\ngravity = [0.0, 0.0, -9.81]\n");
    let v = |rng: &mut Rng, r: f64| {
        let x: Vec<String> = (0..3).map(|_| format!("{:.4}", rng.range(-r, r))).collect();
        format!("[{}]", x.join(", "))
    };
    // `None`: on the base.
    let parent: Vec<Option<usize>> = (0..n)
        .map(|i| match i {
            0 => None,
            _ if tree => i.checked_sub(1 + (rng.next() * 4.0) as usize),
            _ => Some(i - 1),
        })
        .collect();
    for i in 0..n {
        spec += &format!("\n[[body]]\nname = \"b{i}\"\njoint = \"revolute\"\n");
        if tree {
            match parent[i] {
                Some(p) => spec += &format!("parent = \"b{p}\"\n"),
                None => spec += "parent = \"base\"\n",
            }
        }
        let u = rng.unit();
        spec += &format!("axis = [{:.6}, {:.6}, {:.6}]\n", u[0], u[1], u[2]);
        // A tree's leaves have no next pole (their frames carry nothing).
        let next = v(&mut rng, 0.2);
        if !tree || parent.contains(&Some(i)) {
            spec += &format!("next = {next}\n");
        }
        spec += &format!("mass = {:.3}\n", rng.range(0.5, 3.0));
        spec += &format!("com = {}\n", v(&mut rng, 0.1));
        let d: Vec<f64> = (0..3).map(|_| rng.range(0.02, 0.03)).collect();
        spec += &format!(
            "inertia = {{ ixx = {:.4}, iyy = {:.4}, izz = {:.4}, ixy = 0.001, ixz = -0.001, iyz = 0.0005 }}\n",
            d[0], d[1], d[2]
        );
    }
    spec
}

fn peak_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    println!("robot (bodies)          functions        time      C size   peak memory");
    for (n, tree) in [(7, false), (30, false), (64, false), (64, true)] {
        let spec = random_spec(n, tree, 0x9e37_79b9_7f4a_7c15 ^ n as u64);
        let robot = parse_spec(&spec, "random.toml").expect("the random spec is valid");
        // The dynamics, kinematics and split functions this robot has (a tree has no tool).
        let core: Vec<String> = available_functions(&robot)
            .into_iter()
            .filter(|k| FunctionKind::ALL.contains(k))
            .filter_map(|k| function_name(k, &[]))
            .collect();
        for (label, only) in [("dynamics+split", Some(core.clone())), ("all", None)] {
            if quick && n == 64 && only.is_none() {
                continue;
            }
            let options = Options { only, batch: None };
            let start = Instant::now();
            let files = c_code_with(&robot, &robot.name, &COptions::default(), &options)
                .expect("the random robot generates");
            let secs = start.elapsed().as_secs_f64();
            let bytes = files.header.len() + files.source.as_ref().map_or(0, String::len);
            println!(
                "{:<23} {label:<14} {secs:>7.2} s {:>8.0} kB {:>9.0} MB",
                format!("{} ({n})", robot.name),
                bytes as f64 / 1000.0,
                peak_mb()
            );
        }
    }
}

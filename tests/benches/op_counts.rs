//! Operation counts of the emitted code of every robot in robots/ (chains, trees, then the
//! floating-base ones, whose functions take NQ/NV-sized inputs), per function, as the
//! emitters see it (the lowered module: `sin`/`cos` of single joints only); then the public URDFs
//! of example-robot-data (tests/fixtures/urdf, root to the fixture's tip, snapped as by default,
//! and the UR5 also as written, `--no-snap`); then the Stäubli RX-90 (modified DH) with every
//! inertial parameter symbolic, the setting SYMORO counts in, as physical and as base
//! parameters.
//!
//! Run with `cargo bench -p quasidyn-tests --bench op_counts` (add `-- --markdown` for the
//! table of docs/benchmarks.md: `mul/add` per function).

use quasidyn_codegen::import::ImportOptions;
use quasidyn_codegen::{
    build_module, load_input, load_input_with, load_spec, FunctionKind, OpCount, ParameterSet,
    Robot, SymbolicInertial,
};
use quasidyn_tests::{shipped_floating_robots, shipped_robots, workspace_root};

fn row(label: &str, c: &OpCount) {
    println!(
        "  {label:<24} {:>6} {:>6} {:>4} {:>4} {:>4} {:>4} {:>7}",
        c.mul,
        c.add,
        c.div,
        c.neg,
        c.trig,
        c.sqrt,
        c.total()
    );
}

/// The example-robot-data URDFs (tests/fixtures/urdf) and the tips their fixtures use.
const URDFS: [(&str, &str); 6] = [
    ("ur5", "tool0"),
    ("ur10", "tool0"),
    ("panda", "panda_hand_tcp"),
    ("kinova", "j2s6s200_end_effector"),
    ("xarm7", "link_eef"),
    ("so101", "gripper_frame_link"),
];

fn urdf(name: &str, tip: &str, snap: bool) -> Robot {
    let path = workspace_root().join(format!("tests/fixtures/urdf/{name}.urdf"));
    let options = ImportOptions {
        tip: Some(tip.to_owned()),
        snap,
        ..ImportOptions::default()
    };
    load_input_with(&path, &options)
        .expect("the URDF fixture imports")
        .robot
}

/// The robots counted: every shipped spec, the example-robot-data URDFs, then the all-symbolic
/// RX-90.
fn robots() -> Vec<(String, Robot)> {
    let mut robots: Vec<(String, Robot)> = shipped_robots()
        .iter()
        .chain(&shipped_floating_robots())
        .map(|path| {
            let robot = load_spec(path).expect("shipped spec parses");
            (robot.name.clone(), robot)
        })
        .collect();
    for (name, tip) in URDFS {
        robots.push((format!("{name} (URDF)"), urdf(name, tip, true)));
    }
    robots.push(("ur5 (URDF, --no-snap)".into(), urdf("ur5", "tool0", false)));
    let table = workspace_root().join("tests/fixtures/dh/rx90.toml");
    let mut rx90 = load_input(&table, None).expect("the RX-90 table imports");
    for body in &mut rx90.bodies {
        body.symbolic = SymbolicInertial {
            mass: true,
            com: true,
            inertia: true,
        };
    }
    robots.push((
        "rx90, all inertial parameters symbolic".into(),
        rx90.clone(),
    ));
    rx90.parameters = ParameterSet::Base;
    robots.push(("rx90, symbolic base parameters".into(), rx90));
    robots
}

fn main() {
    let markdown = std::env::args().any(|a| a == "--markdown");
    if markdown {
        let names: Vec<&str> = FunctionKind::ALL.iter().map(|&k| k.name()).collect();
        println!("| robot | {} |", names.join(" | "));
        println!("|---|{}", "---|".repeat(names.len()));
    }
    for (label, robot) in robots() {
        let module = build_module(&robot).lowered();
        // Base-parameter modules have no static reactions (base parameters do not determine them).
        let counts: Vec<Option<OpCount>> = FunctionKind::ALL
            .iter()
            .map(|&kind| {
                let f = module.function(kind)?;
                Some(module.graph.op_count(&f.roots()))
            })
            .collect();
        if markdown {
            let cells: Vec<String> = counts
                .iter()
                .map(|c| c.map_or("-".into(), |c| format!("{}/{}", c.mul, c.add + c.neg)))
                .collect();
            println!("| {label} | {} |", cells.join(" | "));
            continue;
        }
        println!("\n{label} ({} joints)", module.dof);
        println!(
            "  {:<24} {:>6} {:>6} {:>4} {:>4} {:>4} {:>4} {:>7}",
            "function", "mul", "add", "div", "neg", "trig", "sqrt", "total"
        );
        for (kind, count) in FunctionKind::ALL.iter().zip(&counts) {
            if let Some(count) = count {
                row(kind.name(), count);
            }
        }
        row("(all, shared)", &module.graph.op_count(&module.roots()));
    }
}

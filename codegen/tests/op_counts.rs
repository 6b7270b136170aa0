//! Operation counts of the generated functions, with upper bounds so regressions fail.
//!
//! Counts are those of `build_module(robot).lowered()` (multi-joint `sin`/`cos` rewritten to
//! products of single-joint ones), one function at a time, each live node once (see
//! [`quasidyn_codegen::OpCount`]). Multiplications and additions (subtractions included) are
//! bounded separately; a negation is a separate count and is bounded together with the
//! additions, since it costs at most what a subtraction does. Run with `--nocapture` to print
//! the table.

use std::path::Path;

use quasidyn_codegen::import::import_dh;
use quasidyn_codegen::{build_module, load_spec, FunctionKind, Module, OpCount, Robot};

fn robot(name: &str) -> Robot {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../robots")
        .join(format!("{name}.toml"));
    load_spec(&path).expect("shipped robot parses")
}

/// The Stäubli RX-90 with every inertial parameter symbolic (the setting of symbolic-model
/// generators, which keep all standard inertial parameters as symbols).
fn rx90_symbolic() -> Robot {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/dh/rx90.toml");
    let text = std::fs::read_to_string(&path).expect("fixture readable");
    let mut robot = import_dh(&text, "rx90.toml").expect("fixture imports");
    for b in &mut robot.bodies {
        b.symbolic.mass = true;
        b.symbolic.com = true;
        b.symbolic.inertia = true;
    }
    robot
}

fn count(module: &Module, kind: FunctionKind) -> OpCount {
    let f = module.function(kind).expect("function present");
    let roots: Vec<_> = f
        .outputs
        .iter()
        .flat_map(|o| o.values.iter().copied())
        .collect();
    module.graph.op_count(&roots)
}

const KINDS: [(FunctionKind, &str); 11] = [
    (FunctionKind::InverseDynamics, "inverse_dynamics"),
    (FunctionKind::Gravity, "gravity"),
    (FunctionKind::NonlinearEffects, "nonlinear_effects"),
    (FunctionKind::MassMatrix, "mass_matrix"),
    (FunctionKind::ForwardDynamics, "forward_dynamics"),
    (FunctionKind::ForwardKinematics, "forward_kinematics"),
    (FunctionKind::Jacobian, "jacobian"),
    (FunctionKind::Centrifugal, "centrifugal"),
    (FunctionKind::Coriolis, "coriolis"),
    (FunctionKind::Gyroscopic, "gyroscopic"),
    (FunctionKind::StaticJointReactions, "static_reactions"),
];

/// Upper bounds `(robot, function, mul, add + neg, sin/cos)`.
const BOUNDS: &[(&str, &str, usize, usize, usize)] = &[
    ("angular6", "inverse_dynamics", 90, 55, 8),
    ("angular6", "gravity", 1, 0, 1),
    ("angular6", "nonlinear_effects", 72, 32, 8),
    ("angular6", "mass_matrix", 29, 20, 6),
    ("angular6", "forward_dynamics", 167, 99, 8),
    ("angular6", "forward_kinematics", 31, 18, 10),
    ("angular6", "jacobian", 23, 14, 8),
    ("angular6", "centrifugal", 28, 11, 6),
    ("angular6", "coriolis", 39, 19, 6),
    ("angular6", "gyroscopic", 85, 44, 6),
    ("angular6", "static_reactions", 18, 5, 8),
    ("cartesian6", "inverse_dynamics", 60, 32, 6),
    ("cartesian6", "gravity", 1, 0, 1),
    ("cartesian6", "nonlinear_effects", 44, 16, 6),
    ("cartesian6", "mass_matrix", 14, 2, 4),
    ("cartesian6", "forward_dynamics", 116, 47, 6),
    ("cartesian6", "forward_kinematics", 17, 10, 6),
    ("cartesian6", "jacobian", 9, 1, 4),
    ("cartesian6", "centrifugal", 14, 2, 4),
    ("cartesian6", "coriolis", 11, 1, 4),
    ("cartesian6", "gyroscopic", 12, 1, 2),
    ("cartesian6", "static_reactions", 15, 1, 6),
    ("cylindrical6", "inverse_dynamics", 74, 45, 6),
    ("cylindrical6", "gravity", 1, 0, 1),
    ("cylindrical6", "nonlinear_effects", 63, 28, 6),
    ("cylindrical6", "mass_matrix", 24, 11, 4),
    ("cylindrical6", "forward_dynamics", 163, 85, 6),
    ("cylindrical6", "forward_kinematics", 25, 14, 8),
    ("cylindrical6", "jacobian", 18, 9, 6),
    ("cylindrical6", "centrifugal", 16, 3, 4),
    ("cylindrical6", "coriolis", 30, 10, 4),
    ("cylindrical6", "gyroscopic", 56, 22, 4),
    ("cylindrical6", "static_reactions", 15, 2, 6),
    ("gimbal", "inverse_dynamics", 32, 15, 4),
    ("gimbal", "gravity", 0, 0, 0),
    ("gimbal", "nonlinear_effects", 27, 8, 4),
    ("gimbal", "mass_matrix", 5, 2, 2),
    ("gimbal", "forward_dynamics", 41, 16, 4),
    ("gimbal", "forward_kinematics", 13, 6, 6),
    ("gimbal", "jacobian", 2, 1, 4),
    ("gimbal", "centrifugal", 0, 0, 0),
    ("gimbal", "coriolis", 7, 1, 2),
    ("gimbal", "gyroscopic", 11, 1, 2),
    ("gimbal", "static_reactions", 16, 2, 6),
    ("planar3r", "inverse_dynamics", 35, 23, 6),
    ("planar3r", "gravity", 9, 5, 6),
    ("planar3r", "nonlinear_effects", 26, 13, 6),
    ("planar3r", "mass_matrix", 9, 9, 4),
    ("planar3r", "forward_dynamics", 52, 35, 6),
    ("planar3r", "forward_kinematics", 14, 9, 6),
    ("planar3r", "jacobian", 15, 10, 6),
    ("planar3r", "centrifugal", 14, 5, 4),
    ("planar3r", "coriolis", 15, 6, 4),
    ("planar3r", "gyroscopic", 29, 12, 4),
    ("planar3r", "static_reactions", 17, 6, 6),
    ("puma560", "inverse_dynamics", 195, 152, 10),
    ("puma560", "gravity", 35, 13, 8),
    ("puma560", "nonlinear_effects", 181, 130, 10),
    ("puma560", "mass_matrix", 110, 79, 8),
    ("puma560", "forward_dynamics", 378, 277, 10),
    ("puma560", "forward_kinematics", 55, 30, 12),
    ("puma560", "jacobian", 45, 32, 10),
    ("puma560", "centrifugal", 66, 44, 8),
    ("puma560", "coriolis", 286, 203, 8),
    ("puma560", "gyroscopic", 358, 246, 8),
    ("puma560", "static_reactions", 61, 25, 10),
    ("spherical6", "inverse_dynamics", 136, 89, 8),
    ("spherical6", "gravity", 24, 10, 6),
    ("spherical6", "nonlinear_effects", 126, 78, 8),
    ("spherical6", "mass_matrix", 60, 30, 6),
    ("spherical6", "forward_dynamics", 277, 175, 8),
    ("spherical6", "forward_kinematics", 46, 26, 10),
    ("spherical6", "jacobian", 50, 29, 8),
    ("spherical6", "centrifugal", 39, 18, 6),
    ("spherical6", "coriolis", 142, 76, 6),
    ("spherical6", "gyroscopic", 198, 102, 6),
    ("spherical6", "static_reactions", 54, 19, 8),
    ("stanford", "inverse_dynamics", 143, 98, 8),
    ("stanford", "gravity", 25, 10, 6),
    ("stanford", "nonlinear_effects", 134, 83, 8),
    ("stanford", "mass_matrix", 69, 42, 6),
    ("stanford", "forward_dynamics", 289, 192, 8),
    ("stanford", "forward_kinematics", 45, 24, 10),
    ("stanford", "jacobian", 55, 24, 8),
    ("stanford", "centrifugal", 50, 24, 6),
    ("stanford", "coriolis", 160, 96, 6),
    ("stanford", "gyroscopic", 219, 125, 6),
    ("stanford", "static_reactions", 54, 21, 8),
    ("ur5", "inverse_dynamics", 191, 142, 10),
    ("ur5", "gravity", 31, 15, 8),
    ("ur5", "nonlinear_effects", 178, 120, 10),
    ("ur5", "mass_matrix", 119, 90, 10),
    ("ur5", "forward_dynamics", 382, 270, 10),
    ("ur5", "forward_kinematics", 51, 31, 12),
    ("ur5", "jacobian", 53, 36, 10),
    ("ur5", "centrifugal", 73, 48, 10),
    ("ur5", "coriolis", 353, 249, 10),
    ("ur5", "gyroscopic", 456, 312, 10),
    ("ur5", "static_reactions", 67, 29, 10),
    ("rx90_symbolic", "inverse_dynamics", 266, 268, 10),
    ("rx90_symbolic", "gravity", 70, 40, 10),
    ("rx90_symbolic", "nonlinear_effects", 255, 242, 10),
    ("rx90_symbolic", "mass_matrix", 145, 154, 10),
    ("rx90_symbolic", "forward_dynamics", 480, 442, 10),
    ("rx90_symbolic", "forward_kinematics", 64, 35, 12),
    ("rx90_symbolic", "jacobian", 66, 36, 10),
    ("rx90_symbolic", "centrifugal", 129, 110, 10),
    ("rx90_symbolic", "coriolis", 393, 347, 10),
    ("rx90_symbolic", "gyroscopic", 501, 416, 10),
    ("rx90_symbolic", "static_reactions", 117, 49, 10),
];

#[test]
fn op_counts_stay_within_bounds() {
    let mut robots: Vec<(String, Robot)> = [
        "angular6",
        "cartesian6",
        "cylindrical6",
        "gimbal",
        "planar3r",
        "puma560",
        "spherical6",
        "stanford",
        "ur5",
    ]
    .iter()
    .map(|n| (n.to_string(), robot(n)))
    .collect();
    robots.push(("rx90_symbolic".to_string(), rx90_symbolic()));

    let mut failures = Vec::new();
    println!(
        "{:<14} {:<19} {:>5} {:>5} {:>4} {:>4} {:>4}",
        "robot", "function", "mul", "add", "neg", "div", "trig"
    );
    for (name, robot) in &robots {
        let module = build_module(robot).lowered();
        for (kind, fname) in KINDS {
            let c = count(&module, kind);
            println!(
                "{:<14} {:<19} {:>5} {:>5} {:>4} {:>4} {:>4}",
                name, fname, c.mul, c.add, c.neg, c.div, c.trig
            );
            let bound = BOUNDS.iter().find(|b| b.0 == name.as_str() && b.1 == fname);
            let Some(&(_, _, mul, add, trig)) = bound else {
                failures.push(format!("{name} {fname}: no bound recorded"));
                continue;
            };
            if c.mul > mul || c.add + c.neg > add || c.trig > trig {
                failures.push(format!(
                    "{name} {fname}: {} mul, {} add + {} neg, {} trig exceeds {mul}/{add}/{trig}",
                    c.mul, c.add, c.neg, c.trig
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

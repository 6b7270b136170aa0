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
use quasidyn_codegen::{
    build_module, load_spec, FunctionKind, Module, OpCount, ParameterSet, Robot,
};

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

/// [`rx90_symbolic`] taking the base parameters as inputs (the identification setting, as
/// SYMORO counts): no conversion at the top of the functions, no static reactions.
fn rx90_base() -> Robot {
    Robot {
        parameters: ParameterSet::Base,
        ..rx90_symbolic()
    }
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
    ("angular6", "inverse_dynamics", 81, 55, 8),
    ("angular6", "gravity", 1, 0, 1),
    ("angular6", "nonlinear_effects", 65, 32, 8),
    ("angular6", "mass_matrix", 27, 20, 6),
    ("angular6", "forward_dynamics", 156, 102, 8),
    ("angular6", "forward_kinematics", 28, 18, 10),
    ("angular6", "jacobian", 21, 14, 8),
    ("angular6", "centrifugal", 19, 7, 6),
    ("angular6", "coriolis", 39, 19, 6),
    ("angular6", "gyroscopic", 61, 31, 6),
    ("angular6", "static_reactions", 16, 5, 8),
    ("cartesian6", "inverse_dynamics", 54, 32, 6),
    ("cartesian6", "gravity", 1, 0, 1),
    ("cartesian6", "nonlinear_effects", 38, 16, 6),
    ("cartesian6", "mass_matrix", 13, 2, 4),
    ("cartesian6", "forward_dynamics", 97, 48, 6),
    ("cartesian6", "forward_kinematics", 15, 10, 6),
    ("cartesian6", "jacobian", 9, 1, 4),
    ("cartesian6", "centrifugal", 9, 2, 4),
    ("cartesian6", "coriolis", 11, 1, 4),
    ("cartesian6", "gyroscopic", 10, 1, 2),
    ("cartesian6", "static_reactions", 15, 1, 6),
    ("cylindrical6", "inverse_dynamics", 68, 45, 6),
    ("cylindrical6", "gravity", 1, 0, 1),
    ("cylindrical6", "nonlinear_effects", 57, 28, 6),
    ("cylindrical6", "mass_matrix", 23, 11, 4),
    ("cylindrical6", "forward_dynamics", 140, 80, 6),
    ("cylindrical6", "forward_kinematics", 24, 14, 8),
    ("cylindrical6", "jacobian", 18, 9, 6),
    ("cylindrical6", "centrifugal", 11, 2, 4),
    ("cylindrical6", "coriolis", 29, 10, 4),
    ("cylindrical6", "gyroscopic", 50, 18, 4),
    ("cylindrical6", "static_reactions", 15, 2, 6),
    ("gimbal", "inverse_dynamics", 28, 15, 4),
    ("gimbal", "gravity", 0, 0, 0),
    ("gimbal", "nonlinear_effects", 23, 8, 4),
    ("gimbal", "mass_matrix", 4, 2, 2),
    ("gimbal", "forward_dynamics", 31, 14, 4),
    ("gimbal", "forward_kinematics", 12, 6, 6),
    ("gimbal", "jacobian", 2, 1, 4),
    ("gimbal", "centrifugal", 0, 0, 0),
    ("gimbal", "coriolis", 6, 1, 2),
    ("gimbal", "gyroscopic", 10, 1, 2),
    ("gimbal", "static_reactions", 16, 2, 6),
    ("planar3r", "inverse_dynamics", 33, 23, 6),
    ("planar3r", "gravity", 9, 5, 6),
    ("planar3r", "nonlinear_effects", 26, 13, 6),
    ("planar3r", "mass_matrix", 9, 9, 4),
    ("planar3r", "forward_dynamics", 52, 35, 6),
    ("planar3r", "forward_kinematics", 14, 9, 6),
    ("planar3r", "jacobian", 15, 10, 6),
    ("planar3r", "centrifugal", 14, 5, 4),
    ("planar3r", "coriolis", 15, 6, 4),
    ("planar3r", "gyroscopic", 25, 9, 4),
    ("planar3r", "static_reactions", 17, 6, 6),
    ("puma560", "inverse_dynamics", 186, 152, 10),
    ("puma560", "gravity", 30, 14, 8),
    ("puma560", "nonlinear_effects", 172, 130, 10),
    // One multiplication more than the 106 before negations were absorbed through sums: the
    // sharing passes now find a variant with two additions fewer (fewer operations in all).
    ("puma560", "mass_matrix", 100, 79, 8),
    ("puma560", "forward_dynamics", 359, 277, 10),
    ("puma560", "forward_kinematics", 52, 30, 12),
    ("puma560", "jacobian", 45, 29, 10),
    ("puma560", "centrifugal", 59, 37, 8),
    ("puma560", "coriolis", 244, 169, 8),
    ("puma560", "gyroscopic", 282, 200, 8),
    ("puma560", "static_reactions", 59, 25, 10),
    ("spherical6", "inverse_dynamics", 130, 90, 8),
    ("spherical6", "gravity", 24, 10, 6),
    ("spherical6", "nonlinear_effects", 120, 78, 8),
    ("spherical6", "mass_matrix", 58, 30, 6),
    ("spherical6", "forward_dynamics", 262, 163, 8),
    ("spherical6", "forward_kinematics", 46, 26, 10),
    ("spherical6", "jacobian", 47, 29, 8),
    ("spherical6", "centrifugal", 38, 17, 6),
    ("spherical6", "coriolis", 136, 76, 6),
    ("spherical6", "gyroscopic", 183, 103, 6),
    ("spherical6", "static_reactions", 52, 19, 8),
    ("stanford", "inverse_dynamics", 137, 98, 8),
    ("stanford", "gravity", 25, 10, 6),
    ("stanford", "nonlinear_effects", 129, 83, 8),
    ("stanford", "mass_matrix", 64, 43, 6),
    ("stanford", "forward_dynamics", 280, 194, 8),
    ("stanford", "forward_kinematics", 44, 24, 10),
    ("stanford", "jacobian", 49, 24, 8),
    ("stanford", "centrifugal", 50, 21, 6),
    ("stanford", "coriolis", 142, 82, 6),
    ("stanford", "gyroscopic", 192, 113, 6),
    ("stanford", "static_reactions", 52, 21, 8),
    ("ur5", "inverse_dynamics", 181, 140, 10),
    ("ur5", "gravity", 28, 15, 8),
    ("ur5", "nonlinear_effects", 168, 119, 10),
    ("ur5", "mass_matrix", 113, 86, 10),
    ("ur5", "forward_dynamics", 375, 266, 10),
    ("ur5", "forward_kinematics", 50, 31, 12),
    ("ur5", "jacobian", 52, 36, 10),
    ("ur5", "centrifugal", 71, 42, 10),
    ("ur5", "coriolis", 301, 199, 10),
    ("ur5", "gyroscopic", 350, 241, 10),
    ("ur5", "static_reactions", 65, 29, 10),
    ("rx90_symbolic", "inverse_dynamics", 259, 262, 10),
    ("rx90_symbolic", "gravity", 59, 40, 10),
    ("rx90_symbolic", "nonlinear_effects", 249, 239, 10),
    ("rx90_symbolic", "mass_matrix", 145, 152, 10),
    ("rx90_symbolic", "forward_dynamics", 475, 437, 10),
    ("rx90_symbolic", "forward_kinematics", 60, 35, 12),
    ("rx90_symbolic", "jacobian", 59, 36, 10),
    ("rx90_symbolic", "centrifugal", 105, 93, 10),
    ("rx90_symbolic", "coriolis", 393, 343, 10),
    ("rx90_symbolic", "gyroscopic", 431, 381, 10),
    ("rx90_symbolic", "static_reactions", 106, 49, 10),
    ("rx90_base", "inverse_dynamics", 251, 234, 10),
    ("rx90_base", "gravity", 57, 32, 10),
    ("rx90_base", "nonlinear_effects", 241, 214, 10),
    ("rx90_base", "mass_matrix", 139, 127, 10),
    ("rx90_base", "forward_dynamics", 467, 409, 10),
    ("rx90_base", "forward_kinematics", 60, 35, 12),
    ("rx90_base", "jacobian", 59, 36, 10),
    ("rx90_base", "centrifugal", 103, 80, 10),
    ("rx90_base", "coriolis", 389, 323, 10),
    ("rx90_base", "gyroscopic", 427, 361, 10),
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
    robots.push(("rx90_base".to_string(), rx90_base()));

    let mut failures = Vec::new();
    println!(
        "{:<14} {:<19} {:>5} {:>5} {:>4} {:>4} {:>4}",
        "robot", "function", "mul", "add", "neg", "div", "trig"
    );
    for (name, robot) in &robots {
        let module = build_module(robot).lowered();
        for (kind, fname) in KINDS {
            if module.function(kind).is_none() && robot.parameters == ParameterSet::Base {
                // Static reactions need the physical parameters.
                continue;
            }
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

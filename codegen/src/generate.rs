//! From a validated robot to the IR module every emitter reads.

use crate::derive::{
    derivatives, derive_with, elastic_dynamics, elastic_rates, same_hinge_axis, shared_count,
    spatial_derivatives, split_velocity_forces, standard_values, BaseSet, Coordinates, Derivatives,
    Derived, DetachedBase, DetachedRegressor, Regressor,
};
use crate::functions::{function_name, functions_of, Counts};
use crate::ir::{Constant, Function, FunctionKind, Graph, Module, NodeId};
use crate::parallel::Background;
use crate::progress::{Counter, Progress, Silent, Stage};
use crate::{to_toml, BaseMotion, Robot, SymbolicInertial};

/// Version of the generator, written into generated files.
pub const GENERATOR_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Derives every generated function of `robot` into one shared expression graph.
///
/// Joint-space functions use the regrouped inertial parameters (computed in the generated code
/// from the physical ones; see docs/design.md), which gives the same values with fewer
/// operations. With [`crate::ParameterSet::Base`] the symbolic parameters are the regrouped
/// ones themselves and the static joint reactions are left out.
pub fn build_module(robot: &Robot) -> Module {
    build(robot, true, None, &mut Silent)
}

/// [`build_module`] with only the functions of `only` (all with `None`): the others are not
/// derived at all (the velocity split, the derivatives and the regressors are each derived
/// only when one of their functions is asked for). Kinds the robot does not generate (see
/// [`available_functions`]) are ignored; [`select_functions`] resolves names. The constants
/// are those of [`build_module`], except that `base_parameters` (and so `NB`) comes with the
/// base regressor only, since finding the base parameters is the analysis the base regressor
/// needs.
pub fn build_module_only(robot: &Robot, only: Option<&[FunctionKind]>) -> Module {
    build(robot, true, only, &mut Silent)
}

/// [`build_module_only`], reporting each part of the derivation to `progress` as it starts
/// ([`Stage::Derive`]).
pub fn build_module_reporting(
    robot: &Robot,
    only: Option<&[FunctionKind]>,
    progress: &mut dyn Progress,
) -> Module {
    build(robot, true, only, progress)
}

/// [`build_module`] with the physical inertial parameters throughout: the papers' equations
/// term by term, as the equations printer shows them.
pub fn build_module_physical(robot: &Robot) -> Module {
    build(robot, false, None, &mut Silent)
}

/// The functions [`build_module`] generates for `robot`, in file order, found without deriving
/// anything: the eleven dynamics and kinematics functions (a tree has no tool, so no
/// `forward_kinematics` or `jacobian`; a moving base has no velocity split; with base
/// parameters or a moving base no static joint reactions), the derivatives, the regressor and
/// the base regressor, then each named frame's pose and Jacobian.
pub fn available_functions(robot: &Robot) -> Vec<FunctionKind> {
    functions_of(robot)
}

/// The family name that selects every named frame's `forward_kinematics_FRAME` and
/// `jacobian_FRAME` in [`select_functions`].
pub const FRAMES: &str = "frames";

/// The functions of `robot` named by `names`, in file order and without repeats: each name is
/// a generated function's name without the robot's prefix (`inverse_dynamics`,
/// `mass_matrix`, `coriolis`, `inverse_dynamics_derivatives`, `regressor`,
/// `forward_kinematics_FRAME`, ...; see [`available_functions`]) or [`FRAMES`] (`frames`) for
/// every named frame's two functions. A name the robot does not generate is an error naming
/// it and listing the valid ones.
pub fn select_functions<S: AsRef<str>>(
    robot: &Robot,
    names: &[S],
) -> Result<Vec<FunctionKind>, crate::Error> {
    let available = available_functions(robot);
    let frame_names: Vec<String> = robot.frames.iter().map(|f| f.name.clone()).collect();
    let named: Vec<(FunctionKind, String)> = available
        .iter()
        .filter_map(|&k| function_name(k, &frame_names).map(|name| (k, name)))
        .collect();
    let is_frame = |k: FunctionKind| {
        matches!(
            k,
            FunctionKind::FrameKinematics(_) | FunctionKind::FrameJacobian(_)
        )
    };
    let mut chosen = Vec::new();
    for name in names {
        let name = name.as_ref().trim();
        if name == FRAMES && !robot.frames.is_empty() {
            chosen.extend(available.iter().copied().filter(|&k| is_frame(k)));
            continue;
        }
        match named.iter().find(|(_, n)| n == name) {
            Some((kind, _)) => chosen.push(*kind),
            None => {
                let mut valid: Vec<String> = named.iter().map(|(_, n)| n.clone()).collect();
                if !robot.frames.is_empty() {
                    valid.push(FRAMES.to_owned());
                }
                return Err(crate::Error::UnknownFunction {
                    name: name.to_owned(),
                    robot: robot.name.clone(),
                    valid,
                });
            }
        }
    }
    chosen.sort();
    chosen.dedup();
    Ok(chosen)
}

fn build(
    robot: &Robot,
    regroup: bool,
    only: Option<&[FunctionKind]>,
    progress: &mut dyn Progress,
) -> Module {
    let n = robot.dof();
    let wanted = |kind: FunctionKind| only.map_or(true, |only| only.contains(&kind));
    let any = |kinds: &[FunctionKind]| kinds.iter().any(|&k| wanted(k));
    // The split is for fixed bases only so far.
    let moving = robot.motion != BaseMotion::Fixed;
    let split_kinds = [
        FunctionKind::Centrifugal,
        FunctionKind::Coriolis,
        FunctionKind::Gyroscopic,
    ];
    let do_split = !moving && any(&split_kinds);
    let do_derivatives = any(&FunctionKind::DERIVATIVES);
    let do_regressor = wanted(FunctionKind::Regressor);
    let do_base = wanted(FunctionKind::BaseRegressor);
    let parts = 1 + [do_split, do_derivatives, do_regressor, do_base]
        .iter()
        .filter(|&&b| b)
        .count();
    let mut step = Counter::new(progress, Stage::Derive, "part", parts);
    // The regressor and the base analysis are derived on graphs of their own from the robot
    // alone: they run on other cores while the dynamics are derived here, and are copied into
    // the module's graph at the same point as when derived in turn, so the code is the same.
    let detached_regressor = do_regressor.then(|| {
        let robot = robot.clone();
        Background::start(move || DetachedRegressor::derive(&robot))
    });
    let detached_base = do_base.then(|| {
        let robot = robot.clone();
        Background::start(move || DetachedBase::derive(&robot))
    });

    step.next("dynamics and kinematics");
    let mut graph = Graph::new();
    let mut derived = derive_with(&mut graph, robot, regroup);
    let reads_mass_matrix = wanted(FunctionKind::MassMatrix)
        || wanted(FunctionKind::ForwardDynamics)
        || do_split
        || do_derivatives;
    if reads_mass_matrix {
        keep_shorter_double_angle_forms(&mut graph, robot, regroup, &mut derived);
    }
    keep_shorter_forms(&graph, &mut derived);
    // Joint-space outputs span the base's coordinates too with a floating base.
    let nv = if robot.is_floating() { n + 6 } else { n };

    // The seed-001 split reads dH_kj/dq_i only for k >= j and i > j (H_kj depends on the
    // joints after j alone), so only those derivatives are built. (Not for a floating base
    // yet: its functions leave the split out.)
    let (centrifugal, coriolis, gyroscopic) = if do_split {
        step.next("velocity split (centrifugal, coriolis, gyroscopic)");
        split_velocity_forces(&mut graph, robot, &derived)
    } else {
        (Vec::new(), Vec::new(), Vec::new())
    };

    // A floating base's derivatives are along the tangent of its pose (Pinocchio's); a
    // prescribed base's are with respect to the joints, its motion an input held fixed.
    let der = if !do_derivatives {
        Derivatives::default()
    } else {
        step.next("derivatives");
        let parent: Vec<Option<usize>> = robot.bodies.iter().map(|b| b.parent).collect();
        let coordinates = if robot.is_floating() {
            Coordinates::floating(&mut graph, &parent)
        } else {
            Coordinates::joints(&parent)
        };
        derivatives(
            &mut graph,
            &coordinates,
            &derived.inverse_dynamics,
            &derived.gravity,
            &derived.nonlinear_effects,
            &derived.mass_matrix,
            Some(&|g: &mut Graph, frame| spatial_derivatives(g, robot, regroup, frame)),
        )
    };
    let reg = match detached_regressor {
        Some(job) => {
            step.next("regressor");
            job.join().copy_into(&mut graph)
        }
        None => Regressor {
            y: Vec::new(),
            // The constant is emitted whatever is generated.
            standard: standard_values(robot),
        },
    };
    let (base, yb) = match detached_base {
        Some(job) => {
            step.next("base parameters and base regressor");
            job.join().copy_into(&mut graph)
        }
        None => (BaseSet::default(), Vec::new()),
    };
    let nb = base.names.len();
    // The elastic functions read the rigid Jacobian, which its own function takes below.
    let rigid_jacobian = derived.jacobian.clone();
    let elastic_dyn = elastic_dynamics(
        &mut graph,
        robot,
        &derived.inverse_dynamics,
        &derived.forward_dynamics,
    );

    // The mass matrix and forward dynamics functions again with the wrenches carried through
    // runs of hinges: derived last, so that the other functions' node ids (and the sharing
    // passes' ties) are what they were.
    let mut mass_matrix_out = derived.mass_matrix.clone();
    let want_m = wanted(FunctionKind::MassMatrix);
    let want_fd = wanted(FunctionKind::ForwardDynamics);
    let fd = want_fd.then_some(&mut derived.forward_dynamics);
    keep_shortest_run_forms(
        &mut graph,
        robot,
        regroup,
        want_m.then_some(&mut mass_matrix_out),
        fd,
    );

    // Output names and shapes come from the catalogue; a function is its values per output.
    let counts = Counts {
        nb,
        nbeta: robot.elastic_joints().len(),
        nw: robot.flex_coordinates().len(),
        dof: n,
        bodies: n + usize::from(robot.is_floating()),
    };
    let function = |kind, outputs| Function::new(kind, nv, counts, outputs);
    let mut functions = vec![
        function(
            FunctionKind::InverseDynamics,
            vec![derived.inverse_dynamics],
        ),
        function(FunctionKind::Gravity, vec![derived.gravity]),
        function(
            FunctionKind::NonlinearEffects,
            vec![derived.nonlinear_effects],
        ),
        function(FunctionKind::MassMatrix, vec![mass_matrix_out]),
        function(
            FunctionKind::ForwardDynamics,
            vec![derived.forward_dynamics],
        ),
        function(
            FunctionKind::ForwardKinematics,
            vec![derived.tool_rotation, derived.tool_position],
        ),
        function(FunctionKind::Jacobian, vec![derived.jacobian]),
        function(FunctionKind::Centrifugal, vec![centrifugal]),
        function(FunctionKind::Coriolis, vec![coriolis]),
        function(FunctionKind::Gyroscopic, vec![gyroscopic]),
        function(
            FunctionKind::StaticJointReactions,
            vec![derived.static_force, derived.static_moment],
        ),
        function(
            FunctionKind::InverseDynamicsDerivatives,
            vec![der.dtau_dq, der.dtau_dqd],
        ),
        function(FunctionKind::GravityDerivatives, vec![der.dg_dq]),
        function(
            FunctionKind::ForwardDynamicsDerivatives,
            vec![der.dqdd_dq, der.dqdd_dqd, der.minv],
        ),
        function(FunctionKind::Regressor, vec![reg.y]),
        function(FunctionKind::BaseRegressor, vec![yb]),
    ];
    for (k, fk) in derived.frames.into_iter().enumerate() {
        let index = u16::try_from(k).expect("frames fit u16");
        functions.push(function(
            FunctionKind::FrameKinematics(index),
            vec![fk.rotation, fk.position],
        ));
        functions.push(function(
            FunctionKind::FrameJacobian(index),
            vec![fk.jacobian],
        ));
    }
    // With base parameters the static reactions are not derived, and a tree has no tool
    // (empty outputs); with `only`, what was not asked for goes too.
    functions.retain(|f| wanted(f.kind) && f.outputs.iter().all(|o| !o.values.is_empty()));
    if let Some(e) = derived.elastic {
        let (v, a) = elastic_rates(&mut graph, n, &rigid_jacobian, &e.dp, &e.dtheta);
        functions.push(function(
            FunctionKind::ElasticForwardKinematics,
            vec![e.rotation, e.position],
        ));
        // F2 or F4 has no columns without elastic joints or flexible links: the function
        // keeps both outputs all the same (one signature for every elastic robot).
        functions.push(function(
            FunctionKind::ComplianceJacobians,
            vec![e.f2, e.f4],
        ));
        functions.push(function(FunctionKind::ElasticVelocity, vec![v]));
        functions.push(function(FunctionKind::ElasticAcceleration, vec![a]));
        if counts.nbeta > 0 {
            let (dp, dtheta) = e.tool_error.split_at(3);
            functions.push(function(
                FunctionKind::StaticDeflection,
                vec![e.static_deflection],
            ));
            functions.push(function(
                FunctionKind::DeflectedToolError,
                vec![dp.to_vec(), dtheta.to_vec()],
            ));
        }
        if let Some(((qdd, thetadd), feedforward)) = elastic_dyn {
            functions.push(function(
                FunctionKind::ElasticForwardDynamics,
                vec![qdd, thetadd],
            ));
            if let Some((theta, tau)) = feedforward {
                functions.push(function(FunctionKind::ElasticFeedforward, vec![theta, tau]));
            }
        }
        functions.retain(|f| wanted(f.kind));
    }
    Module {
        robot_name: robot.name.clone(),
        dof: n,
        graph,
        functions,
        spec_hash: spec_hash(robot),
        description: robot.description.clone().unwrap_or_default(),
        joint_names: robot.bodies.iter().map(|b| b.joint_name.clone()).collect(),
        frame_names: robot.frames.iter().map(|f| f.name.clone()).collect(),
        motion: robot.motion,
        beta_names: robot.beta_names(),
        w_names: robot.w_names(),
        constants: constants(robot, reg.standard, base.values),
    }
}

/// Stable hash of the robot's canonical spec text (FNV-1a, 64 bit, hex): the same model gives
/// the same hash whatever the formatting or input format it came from.
pub fn spec_hash(robot: &Robot) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in to_toml(robot).bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// Operations of `roots` as the emitters write them: the sums of angles lowered either way
/// (joined or step by step), whichever is shorter once shared.
fn emitted_operations(graph: &Graph, roots: &[NodeId]) -> usize {
    let shared = |(g, r): (Graph, Vec<NodeId>)| shared_count(&g, r);
    let merged = shared(graph.lower_trig_sums(roots));
    merged.min(shared(graph.lower_trig_sums_stepwise(roots)))
}

/// The mass matrix and forward dynamics again with turned inertias by the double angle
/// (derive/mass_matrix.rs `rotate_sym_about_axis`): each keeps the shorter form, as which is
/// shorter depends on the robot's inertia pattern and on what the products share.
fn keep_shorter_double_angle_forms(
    graph: &mut Graph,
    robot: &Robot,
    regroup: bool,
    derived: &mut Derived<NodeId>,
) {
    graph.set_double_angle(true);
    let double = derive_with(graph, robot, regroup);
    graph.set_double_angle(false);
    for (mine, other) in [
        (&mut derived.mass_matrix, double.mass_matrix),
        (&mut derived.mass_matrix_in_base, double.mass_matrix_in_base),
        (&mut derived.forward_dynamics, double.forward_dynamics),
        (
            &mut derived.forward_dynamics_factored,
            double.forward_dynamics_factored,
        ),
    ] {
        if !other.is_empty() && graph.op_count(&other).total() < graph.op_count(mine).total() {
            *mine = other;
        }
    }
}

/// Forward dynamics by the shorter of the articulated-body recursion and the factorisation;
/// the mass matrix by the shorter of the wrench carried joint by joint and the products in the
/// base frame.
fn keep_shorter_forms(graph: &Graph, derived: &mut Derived<NodeId>) {
    // Forward dynamics: the shorter of the articulated-body recursion and the factorisation.
    if !derived.forward_dynamics_factored.is_empty() {
        let factored = std::mem::take(&mut derived.forward_dynamics_factored);
        if graph.op_count(&factored).total() < graph.op_count(&derived.forward_dynamics).total() {
            derived.forward_dynamics = factored;
        }
    }
    // The mass matrix: the shorter of the wrench carried joint by joint and the products in
    // the base frame.
    if !derived.mass_matrix_in_base.is_empty() {
        let in_base = std::mem::take(&mut derived.mass_matrix_in_base);
        if graph.op_count(&in_base).total() < graph.op_count(&derived.mass_matrix).total() {
            derived.mass_matrix = in_base;
        }
    }
}

/// The mass matrix (`mass_matrix`) and forward dynamics (`forward_dynamics`), where given,
/// again with the wrenches carried through runs of hinges about one axis by the summed angle
/// (derive/mass_matrix.rs `RunShift`), in both inertia forms: each keeps the shortest. Which
/// is shorter depends on how sparse the offsets along the run are; the split and the
/// derivatives keep the mass matrix chosen before, which their own comparisons were tuned on.
fn keep_shortest_run_forms(
    graph: &mut Graph,
    robot: &Robot,
    regroup: bool,
    mass_matrix: Option<&mut Vec<NodeId>>,
    forward_dynamics: Option<&mut Vec<NodeId>>,
) {
    let n = robot.dof();
    // With symbolic inertial parameters the functions share the parameters' products, so
    // one function's count alone does not predict the module's (the RX-90's mass matrix);
    // those robots keep the form chosen before.
    let numeric = robot
        .base_body
        .as_ref()
        .map_or(true, |b| b.symbolic == SymbolicInertial::default())
        && robot
            .bodies
            .iter()
            .all(|b| b.symbolic == SymbolicInertial::default());
    let runs = numeric && (0..n).any(|k| same_hinge_axis(robot, k));
    let (want_m, want_fd) = (mass_matrix.is_some(), forward_dynamics.is_some());
    let mut scratch = (Vec::new(), Vec::new());
    let mass_matrix_out = mass_matrix.unwrap_or(&mut scratch.0);
    let forward_dynamics = forward_dynamics.unwrap_or(&mut scratch.1);
    if runs && (want_m || want_fd) {
        // Compared as the emitters write them (the cheaper lowering of the sums of angles,
        // then shared): before the sharing the counts order these forms wrongly (the UR5's
        // mass matrix), and the run's summed angles lower either way. The kept form's count
        // is taken once; a candidate a tenth longer before the sharing is not shared at all
        // (the factored forward dynamics with runs), which keeps the extra generation time
        // to the two derivations and a few sharings.
        let emitted = |graph: &Graph, roots: &[NodeId], wanted: bool| {
            if wanted {
                emitted_operations(graph, roots)
            } else {
                0
            }
        };
        let mut kept_m = emitted(graph, mass_matrix_out, want_m);
        let mut kept_fd = emitted(graph, forward_dynamics, want_fd);
        let consider =
            |graph: &Graph, mine: &mut Vec<NodeId>, kept: &mut usize, theirs: Vec<NodeId>| {
                let raw = |r: &[NodeId]| graph.op_count(r).total();
                if theirs.is_empty() || raw(&theirs) * 10 > raw(mine) * 11 {
                    return;
                }
                let count = emitted_operations(graph, &theirs);
                if count < *kept {
                    *mine = theirs;
                    *kept = count;
                }
            };
        graph.set_run_shift(true);
        for double in [false, true] {
            graph.set_double_angle(double);
            let other = derive_with(graph, robot, regroup);
            if want_m {
                consider(graph, mass_matrix_out, &mut kept_m, other.mass_matrix);
            }
            if want_fd {
                let fd = &mut *forward_dynamics;
                consider(graph, fd, &mut kept_fd, other.forward_dynamics);
                consider(graph, fd, &mut kept_fd, other.forward_dynamics_factored);
            }
        }
        graph.set_double_angle(false);
        graph.set_run_shift(false);
    }
}

/// The constant arrays of a module: the standard parameters and the base parameters (each only
/// where it has values).
fn constants(robot: &Robot, standard: Vec<f64>, base: Vec<f64>) -> Vec<Constant> {
    vec![
        Constant {
            name: "standard_parameters",
            doc: if robot.is_floating() {
                "the robot's standard inertial parameters, 10 per body (the base body \
                 first, about the base origin) in order m, mx, my, mz, ixx, ixy, ixz, iyy, \
                 iyz, izz (about the body's pole, in its axes; tensor entries, ixy = \
                 -integral of x y dm), the `pi` of `tau = Y pi`"
            } else {
                "the robot's standard inertial parameters, 10 per body in order m, mx, my, \
                 mz, ixx, ixy, ixz, iyy, iyz, izz (about the body's pole, in its axes; \
                 tensor entries, ixy = -integral of x y dm), the `pi` of `tau = Y pi`"
            },
            values: standard,
        },
        Constant {
            name: crate::ir::BASE_PARAMETERS,
            doc: "the robot's base inertial parameters (NB of them), the `pi_b` of `tau = Yb \
              pi_b`; `quasidyn params --base` prints each as its combination of the \
              standard parameters",
            values: base,
        },
    ]
    .into_iter()
    .filter(|c| !c.values.is_empty())
    .collect()
}

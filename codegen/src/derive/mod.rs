//! Derivation: the method's recursions, run on any [`Algebra`].
//!
//! One file per concept: `scalar` (derivation-time folding of known geometry), `params`
//! (inertial parameters), `orientation` (direction cosines), `kinematics` (poles, tool pose,
//! Jacobian), `dynamics` (the backward vector recursion), `mass_matrix` (composite bodies),
//! `ldlt` (forward dynamics), `split` (centrifugal / Coriolis / gyroscopic split) and
//! `derivatives` (analytical derivatives of the joint-space outputs, on the graph),
//! `composite_derivatives` (the inverse dynamics' derivatives by composite quantities),
//! `regressor` (the inertial-parameter regressor), `base_parameters` (the minimal base
//! parameters), `moving_base` (floating and prescribed bases), `articulated` (forward dynamics
//! by articulated bodies), `elastic` (elastic joints and flexible links), `frames` (named
//! frames), `inertia` (inertia tensor algebra), `regular` (the singular-motion check) and
//! `centroidal` (the centre of mass and the centroidal momentum), `coriolis_matrix` (the
//! Christoffel form of the Coriolis matrix), `frame_motion` (each named frame's velocity,
//! acceleration bias and Jacobian derivative), `mass_matrix_inverse` (`M⁻¹` from its
//! factorisation), `joint_wrenches` (what each joint transmits, world axes), `contacts` (the
//! rigid contacts' Jacobian and the forward dynamics under them), `passive` (the joints'
//! springs and dampers).

// Index loops mirror the papers' component formulas (ξ, η over x, y, z; joints i < j < k).
#![allow(clippy::needless_range_loop)]

mod articulated;
mod base_parameters;
mod centroidal;
mod composite_derivatives;
mod contacts;
mod coriolis_matrix;
mod couplings;
mod derivatives;
mod dynamics;
mod elastic;
mod energy;
mod frame_motion;
mod frames;
mod inertia;
mod joint_wrenches;
mod kinematics;
mod ldlt;
mod mass_matrix;
mod mass_matrix_inverse;
mod moving_base;
mod mujoco_layout;
mod orientation;
mod params;
mod passive;
mod regressor;
mod regular;
mod scalar;
mod spatial;
mod split;

pub(crate) use base_parameters::DetachedBase;
pub use base_parameters::{
    base_parameters_text, base_regressor, base_set, standard_values, BaseSet,
};
pub use centroidal::{centroidal, Centroidal};
pub use composite_derivatives::{spatial_derivatives, SpatialDerivatives, SpatialFrame};
pub use contacts::{contact_dynamics, contact_jacobian, ContactDynamics};
pub use coriolis_matrix::coriolis_matrix;
pub use couplings::{
    coupled_forward_dynamics, coupled_forward_dynamics_derivatives, coupled_mass_matrix_inverse,
    through_masters, Contraction,
};
pub use derivatives::{derivatives, Coordinates, Derivatives, Direction, SpatialForm};
pub use elastic::{elastic_dynamics, elastic_rates, time_derivative, Elastic};
pub use energy::{base_armature_energy, kinetic_energy, potential_energy};
pub use frame_motion::{frame_motion, FrameMotion};
pub use joint_wrenches::joint_wrenches;
pub(crate) use mass_matrix::same_hinge_axis;
pub use mass_matrix_inverse::mass_matrix_inverse;
pub use mujoco_layout::MujocoLayout;
pub use passive::passive_forces;
pub(crate) use regressor::DetachedRegressor;
pub use regressor::{all_symbolic, regressor, Regressor, STANDARD_NAMES};
pub use regular::{singular_motion, SingularMotion};
pub use split::{coupled_velocity_split, split_velocity_forces, velocity_split, Split};

use std::collections::HashSet;

use crate::algebra::Algebra;
use crate::ir::{Graph, Node, NodeId, Var};
use crate::model::{ParameterSet, Robot};
use dynamics::{PassInputs, Weight};
use scalar::{k33, Cx, S};

/// Forward dynamics is also built by factorising `M` while `Σ_k |path_k|²` (path: body `k` and
/// the bodies carrying it) is at most this, as for a 20-joint chain. The factorisation's cost
/// grows with that sum, the articulated recursion's with the joints (where they cross:
/// docs/design.md, "Figures behind the code's choices").
pub const FACTORED_FD_MAX_PATHS: usize = 2870;

/// Everything derived for one robot, as handles of the algebra (row-major matrices).
#[derive(Clone, Debug, PartialEq)]
pub struct Derived<E> {
    /// Number of joints `N`.
    pub dof: usize,
    /// `τ = M(q) q̈ + C(q, q̇) q̇ + g(q)` (inputs `q`, `q̇`, `q̈`), `N`.
    pub inverse_dynamics: Vec<E>,
    /// `g(q)`: joint forces holding the robot at rest, `N`.
    pub gravity: Vec<E>,
    /// `C(q, q̇) q̇ + g(q)`, `N`.
    pub nonlinear_effects: Vec<E>,
    /// `M(q)`, `N×N`, symmetric (mirrored entries are the same handles).
    pub mass_matrix: Vec<E>,
    /// `q̈ = M⁻¹ (τ - C q̇ - g)` (inputs `q`, `q̇`, `τ`), `N`: by articulated bodies for a
    /// fixed or prescribed base, by a factorisation of `M` for a floating one.
    pub forward_dynamics: Vec<E>,
    /// The same `q̈` by the `L D Lᵀ` factorisation of `M` (fixed and prescribed bases up to
    /// [`FACTORED_FD_MAX_PATHS`], else empty): shorter for small robots, so the
    /// generator keeps whichever of the two is.
    pub forward_dynamics_factored: Vec<E>,
    /// The same mass matrix with its products taken in the base frame (fixed bases; empty
    /// otherwise): shorter for long tilted chains and trees, so the generator keeps whichever
    /// of the two is.
    pub mass_matrix_in_base: Vec<E>,
    /// `R_N · tool_rotation`, `3×3` (columns = tool axes in the base frame); empty for a
    /// tree, which has no tool.
    pub tool_rotation: Vec<E>,
    /// Tool point in the base frame, `3`; empty for a tree.
    pub tool_position: Vec<E>,
    /// Geometric Jacobian, `6×N`: rows 0-2 linear velocity of the tool point, rows 3-5 angular
    /// velocity, base frame; empty for a tree.
    pub jacobian: Vec<E>,
    /// Per named frame (in the robot's order): its pose and Jacobian, as for the tool.
    pub frames: Vec<FrameKinematics<E>>,
    /// At rest: force on body `i` by body `i-1`, in body `i`'s axes, `N×3` (row `i` = body);
    /// empty with [`ParameterSet::Base`] (the base parameters do not determine it).
    pub static_force: Vec<E>,
    /// At rest: moment about the pole `O_i` on body `i` by body `i-1`, in body `i`'s axes,
    /// `N×3` (row `i` = body); empty with [`ParameterSet::Base`].
    pub static_moment: Vec<E>,
    /// A chain with elastic joints or flexible links: the first-order tool pose, the
    /// compliance Jacobians and the static deflection.
    pub elastic: Option<Elastic<E>>,
    /// Fixed base: `C(q, q̇) q̇`, the velocity forces without the weight, `N`; empty for a
    /// moving base.
    pub velocity_forces: Vec<E>,
    /// Fixed base: `y_i = Σ_{j ∈ N_i} H_ij q̇_j` (what the split differentiates along the
    /// motion, see [`velocity_split`]), `N`; empty for a moving base.
    pub relative_momentum: Vec<E>,
    /// Fixed base: the centrifugal forces `h_c` of seed 001, `N`; empty for a moving base.
    pub centrifugal: Vec<E>,
}

/// Forward kinematics and Jacobian of one named frame.
#[derive(Clone, Debug, PartialEq)]
pub struct FrameKinematics<E> {
    /// Frame rotation in the base frame, `3×3` row-major (columns = the frame's axes).
    pub rotation: Vec<E>,
    /// Frame origin in the base frame, `3`.
    pub position: Vec<E>,
    /// `6×N`: linear velocity of the frame origin, then angular velocity, base frame.
    pub jacobian: Vec<E>,
}

/// Derives every quantity of [`Derived`] for `robot` on the algebra `alg`.
///
/// Inertial numbers are read through [`Algebra::param`] (names `m{i}`, `mx{i}`, `my{i}`,
/// `mz{i}`, `ixx{i}`.. `izz{i}`, 1-based; symbolic per [`crate::RobotBody::symbolic`]);
/// intermediate quantities are named with [`Algebra::label`] after the papers (`x^y_5`,
/// `w5_x`, `E5_x`, `M5_x`, ...). Geometry is folded while deriving, so no operation is emitted
/// that a known zero multiplies.
///
/// # Panics
/// If the robot has no bodies or more than 64.
pub fn derive<A: Algebra>(alg: &mut A, robot: &Robot) -> Derived<A::E> {
    derive_with(alg, robot, true)
}

/// [`derive()`], choosing whether the joint-space quantities use the regrouped (base) inertial
/// parameters (exactly equal results, fewer operations) or the physical ones as in the papers.
///
/// The regrouped parameters are expressions of the physical ones (see `params::regroup`), so
/// generated code keeps the physical parameter set and computes the few combinations it needs.
/// With [`ParameterSet::Base`] the symbolic parameters are the base parameters themselves and
/// `regroup` is ignored (always on).
/// The named (labelled) quantities are always those of the physical parameters: with
/// `regroup`, that labelled pass is derived too but read by no output.
///
/// # Panics
/// If the robot has no bodies or more than 64.
pub fn derive_with<A: Algebra>(alg: &mut A, robot: &Robot, regroup: bool) -> Derived<A::E> {
    if robot.is_floating() {
        return moving_base::derive(alg, &prepare(robot));
    }
    let unread = if robot.parameters == ParameterSet::Base {
        unread_base_entries(robot)
    } else {
        HashSet::new()
    };
    derive_inner(alg, robot, regroup, &unread)
}

/// The base parameters no joint-space output depends on (such as the first moment normal to
/// a first joint axis parallel to gravity): found on a derivation that keeps them all, they
/// are then left out of the parameters (zero) so the inputs are only what the dynamics read.
fn unread_base_entries(robot: &Robot) -> HashSet<String> {
    let robot = Robot {
        parameters: ParameterSet::Base,
        ..robot.clone()
    };
    let mut g = Graph::new();
    let d = derive_inner(&mut g, &robot, true, &HashSet::new());
    let roots: Vec<NodeId> = [
        &d.inverse_dynamics,
        &d.gravity,
        &d.nonlinear_effects,
        &d.mass_matrix,
        &d.forward_dynamics,
    ]
    .into_iter()
    .flatten()
    .copied()
    .collect();
    let live = g.reachable(&roots);
    let mut read = vec![false; g.params().len()];
    for (i, node) in g.nodes().iter().enumerate() {
        if let (true, Node::Var(Var::Param(k))) = (live[i], node) {
            read[*k as usize] = true;
        }
    }
    g.params()
        .iter()
        .zip(read)
        .filter(|(_, r)| !r)
        .map(|(p, _)| p.name.clone())
        .collect()
}

fn derive_inner<A: Algebra>(
    alg: &mut A,
    robot: &Robot,
    regroup: bool,
    unread: &HashSet<String>,
) -> Derived<A::E> {
    let n = robot.dof();
    assert!(
        (1..=crate::model::MAX_BODIES).contains(&n),
        "a robot has 1 to MAX_BODIES bodies"
    );
    let robot = &prepare(robot);
    let base = robot.parameters == ParameterSet::Base;
    // With base parameters as inputs no physical parameter may become one: the passes that
    // read physical parameters (labelled, static) see the spec values, and no output reads
    // them but the static reactions, which are then left out.
    let physical_robot;
    let phys_src = if base {
        physical_robot = numeric_parameters(robot);
        &physical_robot
    } else {
        robot
    };
    let regroup = regroup || base;
    let mut cx = Cx::new(alg);
    let cx = &mut cx;
    cx.labels = true;
    let chain = robot.is_chain();
    let (bodies, (tool, frames)) =
        dynamics::Bodies::derive(cx, robot, phys_src, |cx, ori, poles| {
            let tool = chain.then(|| {
                let site = kinematics::Site {
                    body: Some(n - 1),
                    position: robot.bodies[n - 1].next,
                    rotation: robot.tool_rotation,
                    labelled: true,
                };
                let pose = kinematics::site_pose(cx, robot, ori, poles, &site);
                let jac = kinematics::jacobian(cx, robot, ori, &pose);
                (pose, jac)
            });
            let frames: Vec<_> = robot
                .frames
                .iter()
                .map(|f| {
                    let site = kinematics::Site {
                        body: f.body,
                        position: f.position,
                        rotation: f.rotation,
                        labelled: false,
                    };
                    let pose = kinematics::site_pose(cx, robot, ori, poles, &site);
                    let jac = kinematics::jacobian(cx, robot, ori, &pose);
                    (pose, jac)
                })
                .collect();
            (tool, frames)
        });
    let (par, ori, poles) = (&bodies.par, &bodies.ori, &bodies.poles);
    let st = bodies.statics();

    let qd: Vec<S<A::E>> = (0..n).map(|j| S::X(cx.alg.qd(j))).collect();
    let qdd: Vec<S<A::E>> = (0..n).map(|j| S::X(cx.alg.qdd(j))).collect();
    let zero = vec![S::K(0.0); n];

    // A prescribed base: the recursions start from its motion. Its dynamics use the physical
    // parameters (regrouping assumes a fixed base); only the mass matrix, which the base's
    // motion does not enter, keeps the regrouped ones.
    let moving = robot
        .is_prescribed()
        .then(|| moving_base::prescribed_motion(cx, robot));
    let (moving_base, rest_base) = match &moving {
        Some([m, r]) => (Some(m), Some(r)),
        None => (None, None),
    };
    // The full pass carries the papers' names; the others are the same recursion with known
    // zeros, so their intermediates are different quantities and stay unnamed.
    let id = dynamics::newton_euler(
        cx,
        robot,
        &st,
        &PassInputs {
            base: moving_base,
            ..PassInputs::fixed(&qd, &qdd, Weight::BaseAcceleration)
        },
    );
    let m = mass_matrix::mass_matrix(cx, robot, &st, None);
    cx.labels = false;
    let at_rest = PassInputs::fixed(&zero, &zero, Weight::BodyRows);
    // A prescribed base's reactions are at rest in its pose: gravity turned by its attitude.
    let statics = dynamics::newton_euler(
        cx,
        robot,
        &st,
        &match rest_base {
            Some(_) => PassInputs {
                base: rest_base,
                body_forces: true,
                ..PassInputs::fixed(&zero, &zero, Weight::BaseAcceleration)
            },
            None => PassInputs {
                body_forces: true,
                ..at_rest
            },
        },
    );

    let reg_par;
    let reg_ba;
    let reg_st;
    let (js, mut id, m, m_in_base) = if regroup {
        reg_par = if base {
            params::base_params(cx, robot, unread)
        } else {
            params::regroup(cx, robot, par, poles)
        };
        reg_ba = dynamics::mass_distribution(cx, robot, &reg_par, poles);
        reg_st = dynamics::Statics {
            par: &reg_par,
            ba: &reg_ba,
            ..st
        };
        let m = mass_matrix::mass_matrix(cx, robot, &reg_st, None);
        let m_in_base = mass_matrix::mass_matrix_in_base(cx, robot, &reg_st);
        if moving.is_some() {
            (&st, id, m, m_in_base)
        } else {
            let inputs = PassInputs::fixed(&qd, &qdd, Weight::BaseAcceleration);
            let id = dynamics::newton_euler(cx, robot, &reg_st, &inputs);
            (&reg_st, id, m, m_in_base)
        }
    } else {
        let m_in_base = mass_matrix::mass_matrix_in_base(cx, robot, &st);
        (&st, id, m, m_in_base)
    };
    dynamics::add_armature_torques(cx, robot, &mut id.tau, &qdd);
    let gravity = if moving.is_some() {
        let inputs = PassInputs {
            base: rest_base,
            ..PassInputs::fixed(&zero, &zero, Weight::BaseAcceleration)
        };
        dynamics::newton_euler(cx, robot, js, &inputs).tau
    } else if regroup {
        dynamics::newton_euler(cx, robot, js, &at_rest).tau
    } else {
        statics.tau.clone()
    };
    let nle = dynamics::newton_euler(
        cx,
        robot,
        js,
        &PassInputs {
            base: moving_base,
            ..PassInputs::fixed(&qd, &zero, Weight::BaseAcceleration)
        },
    );

    // The split's inputs (fixed bases): the velocity forces without the weight, the relative
    // momenta and the centrifugal forces.
    let (velocity_forces, relative_momentum, centrifugal) = if moving.is_none() {
        let no_weight = vec![[S::K(0.0); 3]; n];
        let st0 = dynamics::Statics {
            grav: &no_weight,
            ..*js
        };
        let inputs = PassInputs::fixed(&qd, &zero, Weight::BodyRows);
        let h = dynamics::newton_euler(cx, robot, &st0, &inputs);
        let (y, hc) = split::relative_momenta(cx, robot, js, &qd);
        (h.tau, y, hc)
    } else {
        (Vec::new(), Vec::new(), Vec::new())
    };

    let rhs: Vec<S<A::E>> = (0..n)
        .map(|j| {
            let t = S::X(cx.alg.tau(j));
            cx.sub(t, nle.tau[j])
        })
        .collect();
    let fd = articulated::solve(cx, robot, js, &rhs);
    let topo = robot.topology();
    let paths: usize = (0..n).map(|k| topo.path(k).len().pow(2)).sum();
    let fd_factored = if paths > FACTORED_FD_MAX_PATHS {
        Vec::new()
    } else if chain {
        ldlt::solve(cx, &m, &rhs)
    } else {
        let parent: Vec<Option<usize>> = robot.bodies.iter().map(|b| b.parent).collect();
        ldlt::solve_tree(cx, &m, &rhs, &parent)
    };

    let elastic = match (&tool, robot.has_elasticity()) {
        (Some((pose, jac)), true) => Some(elastic::elastic(cx, robot, ori, pose, jac, &gravity)),
        _ => None,
    };

    // Static reactions are given in the spec's body axes (turns are identities unless the
    // frames were chosen, and fold away then).
    let (mut static_force, mut static_moment) = (statics.force, statics.moment);
    for (i, g) in frames::turns(robot).iter().enumerate() {
        let g = k33(*g);
        static_force[i] = cx.mat_vec(&g, &static_force[i]);
        static_moment[i] = cx.mat_vec(&g, &static_moment[i]);
    }
    let mut out = |v: &[S<A::E>]| -> Vec<A::E> { v.iter().map(|&s| cx.e(s)).collect() };
    let flat = |rows: &[[S<A::E>; 3]]| -> Vec<S<A::E>> { rows.iter().flatten().copied().collect() };
    let mflat: Vec<S<A::E>> = m.iter().flatten().copied().collect();
    Derived {
        dof: n,
        inverse_dynamics: out(&id.tau),
        gravity: out(&gravity),
        nonlinear_effects: out(&nle.tau),
        mass_matrix: out(&mflat),
        forward_dynamics: out(&fd),
        forward_dynamics_factored: out(&fd_factored),
        mass_matrix_in_base: out(&m_in_base.concat()),
        tool_rotation: tool
            .as_ref()
            .map_or(Vec::new(), |t| out(&flat(&t.0.rotation))),
        tool_position: tool.as_ref().map_or(Vec::new(), |t| out(&t.0.position)),
        jacobian: tool.as_ref().map_or(Vec::new(), |t| out(&t.1)),
        frames: frames
            .iter()
            .map(|(pose, jac)| FrameKinematics {
                rotation: out(&flat(&pose.rotation)),
                position: out(&pose.position),
                jacobian: out(jac),
            })
            .collect(),
        static_force: if base {
            Vec::new()
        } else {
            out(&flat(&static_force))
        },
        static_moment: if base {
            Vec::new()
        } else {
            out(&flat(&static_moment))
        },
        elastic: elastic.map(|e| Elastic {
            f2: out(&e.f2),
            f4: out(&e.f4),
            rotation: out(&e.rotation),
            position: out(&e.position),
            dp: out(&e.dp),
            dtheta: out(&e.dtheta),
            static_deflection: out(&e.static_deflection),
            tool_error: out(&e.tool_error),
        }),
        velocity_forces: out(&velocity_forces),
        relative_momentum: out(&relative_momentum),
        centrifugal: out(&centrifugal),
    }
}

/// The base parameters of `robot` (names as with [`ParameterSet::Base`], body by body) at the
/// spec's physical values: the conversion physical → base. Only the entries that depend on a
/// parameter marked symbolic and that some joint-space output reads are listed (the others
/// fold into the generated code).
pub fn base_parameters(robot: &Robot) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    let unread = unread_base_entries(robot);
    for (m, h, j) in params::base_entries(&snap_axes(robot), &unread) {
        let upper = [&j[0][0], &j[0][1], &j[0][2], &j[1][1], &j[1][2], &j[2][2]];
        for (name, s) in std::iter::once(&m).chain(&h).chain(upper) {
            if let S::X(v) = s {
                out.push((name.clone(), *v));
            }
        }
    }
    out
}

/// `robot` as the derivation works on it: axes snapped ([`snap_axes`]) and body frames chosen
/// for short code where it may ([`frames::reframe`]).
fn prepare(robot: &Robot) -> Robot {
    let snapped = snap_axes(robot);
    frames::reframe(&snapped).unwrap_or(snapped)
}

/// `robot` with every inertial parameter numeric.
fn numeric_parameters(robot: &Robot) -> Robot {
    let mut out = robot.clone();
    for b in &mut out.bodies {
        b.symbolic = crate::model::SymbolicInertial::default();
    }
    out
}

/// `robot` with joint-axis components within `1e-12` of zero made exactly zero (and the axis
/// renormalised). Imported angles leave rounding noise such as `cos(π/2) = 6e-17`, which would
/// turn a coordinate axis, whose rotations cost no arithmetic, into a general one; the change
/// of direction is far below what `f64` results can show.
fn snap_axes(robot: &Robot) -> Robot {
    let mut out = robot.clone();
    for b in &mut out.bodies {
        if b.axis.iter().any(|x| x.abs() <= 1e-12 && *x != 0.0) {
            let mut u = b.axis.map(|x| if x.abs() <= 1e-12 { 0.0 } else { x });
            let norm = u.iter().map(|x| x * x).sum::<f64>().sqrt();
            if norm > 0.0 {
                u = u.map(|x| x / norm);
            }
            b.axis = u;
        }
    }
    out
}

/// Up to this many operations (both forms, `sin`/`cos` of sums lowered) the forward- and
/// reverse-mode forms of a derivative are compared after the sharing passes the emitters run;
/// above, before them. Before the sharing the counts can order the two wrongly.
const SHARED_COMPARISON_MAX: usize = 20_000;

/// Whether `b` has fewer operations than `a` (both roots of `g`), compared as
/// [`SHARED_COMPARISON_MAX`] says.
pub(crate) fn fewer_operations(g: &Graph, a: &[NodeId], b: &[NodeId]) -> bool {
    let (ga, ra) = g.lower_trig_sums(a);
    let (gb, rb) = g.lower_trig_sums(b);
    let (ca, cb) = (ga.op_count(&ra).total(), gb.op_count(&rb).total());
    if ca.max(cb) > SHARED_COMPARISON_MAX {
        return cb < ca;
    }
    shared_count(&gb, rb) < shared_count(&ga, ra)
}

/// Operations of `roots` (of `g`) once the emitters' sharing passes have run on them alone.
pub(crate) fn shared_count(g: &Graph, roots: Vec<NodeId>) -> usize {
    let (s, groups) = g.share_per_function(&[roots]);
    s.op_count(&groups[0]).total()
}

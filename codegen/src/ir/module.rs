//! The derivation's output and the emitters' input: named functions over one graph.

use super::count::OpCount;
use super::graph::Graph;
use super::node::NodeId;
use super::share::share_per_function_among;
use crate::model::BaseMotion;
use crate::parallel::parallel_array;
use crate::progress::{Counter, Progress, Silent, Stage};

/// Which generated function this is; fixes its public name, inputs and outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FunctionKind {
    /// `tau = M(q) qdd + C(q, qd) qd + g(q)`.
    InverseDynamics,
    /// `g(q)`.
    Gravity,
    /// `C(q, qd) qd + g(q)`.
    NonlinearEffects,
    /// `M(q)`, full N×N.
    MassMatrix,
    /// `qdd` from `tau`.
    ForwardDynamics,
    /// Tool rotation and position in the base frame.
    ForwardKinematics,
    /// 6×N tool Jacobian (rows 0-2 linear, 3-5 angular, base frame).
    Jacobian,
    /// Centrifugal part of the velocity forces.
    Centrifugal,
    /// Coriolis part of the velocity forces.
    Coriolis,
    /// Gyroscopic part of the velocity forces.
    Gyroscopic,
    /// Static joint reaction forces and moments (3×N each).
    StaticJointReactions,
    /// `∂τ/∂q` and `∂τ/∂q̇` of the inverse dynamics (N×N each).
    InverseDynamicsDerivatives,
    /// `∂g/∂q` (N×N).
    GravityDerivatives,
    /// `∂q̈/∂q`, `∂q̈/∂q̇` of the forward dynamics and `M⁻¹ = ∂q̈/∂τ` (N×N each).
    ForwardDynamicsDerivatives,
    /// The inertial-parameter regressor `Y` (N×10N), `τ = Y π`.
    Regressor,
    /// The base-parameter regressor `Yb` (N×NB), `τ = Yb π_b`.
    BaseRegressor,
    /// Pose of the named frame with this index (in the robot's frame order) in the base frame.
    FrameKinematics(u16),
    /// 6×N Jacobian of the named frame with this index (rows 0-2 linear velocity of its
    /// origin, 3-5 angular velocity, base frame).
    FrameJacobian(u16),
    /// Tool pose to first order in the compliance angles `beta` and the modal coordinates `w`.
    ElasticForwardKinematics,
    /// The compliance Jacobians: `F2` (6×NBETA, d tool / d beta) and `F4` (6×NW, d tool / d w).
    ComplianceJacobians,
    /// Tool velocity (linear, angular) to first order in `beta`, `w` and their rates.
    ElasticVelocity,
    /// Tool acceleration (linear, angular), the time derivative of [`Self::ElasticVelocity`].
    ElasticAcceleration,
    /// Compliance angles under gravity, `beta = -K^-1 g(q)`.
    StaticDeflection,
    /// The tool displacement and small rotation the static deflection causes.
    DeflectedToolError,
    /// Elastic-joint forward dynamics: link and motor accelerations from the motor torques.
    ElasticForwardDynamics,
    /// Elastic-joint feedforward: the motor positions and torques that make the link side
    /// follow a trajectory (without damping).
    ElasticFeedforward,
}

impl FunctionKind {
    /// The eleven dynamics and kinematics kinds (those of the `Dynamics` trait), in the order
    /// generated files list them (a tree has no tool, so no `ForwardKinematics` or
    /// `Jacobian`; named frames add [`FunctionKind::FrameKinematics`] and
    /// [`FunctionKind::FrameJacobian`] per frame).
    pub const ALL: [FunctionKind; 11] = [
        FunctionKind::InverseDynamics,
        FunctionKind::Gravity,
        FunctionKind::NonlinearEffects,
        FunctionKind::MassMatrix,
        FunctionKind::ForwardDynamics,
        FunctionKind::ForwardKinematics,
        FunctionKind::Jacobian,
        FunctionKind::Centrifugal,
        FunctionKind::Coriolis,
        FunctionKind::Gyroscopic,
        FunctionKind::StaticJointReactions,
    ];

    /// The analytical derivatives, in the order generated files list them (after [`Self::ALL`]).
    pub const DERIVATIVES: [FunctionKind; 3] = [
        FunctionKind::InverseDynamicsDerivatives,
        FunctionKind::GravityDerivatives,
        FunctionKind::ForwardDynamicsDerivatives,
    ];

    /// The identification functions, in file order (after [`Self::DERIVATIVES`]).
    pub const IDENTIFICATION: [FunctionKind; 2] =
        [FunctionKind::Regressor, FunctionKind::BaseRegressor];

    /// The functions of a spec with elastic joints or flexible links, in file order (after
    /// the named frames).
    pub const ELASTIC: [FunctionKind; 8] = [
        FunctionKind::ElasticForwardKinematics,
        FunctionKind::ComplianceJacobians,
        FunctionKind::ElasticVelocity,
        FunctionKind::ElasticAcceleration,
        FunctionKind::StaticDeflection,
        FunctionKind::DeflectedToolError,
        FunctionKind::ElasticForwardDynamics,
        FunctionKind::ElasticFeedforward,
    ];

    /// Every kind a module can hold, in file order.
    pub fn every() -> impl Iterator<Item = FunctionKind> {
        Self::ALL
            .into_iter()
            .chain(Self::DERIVATIVES)
            .chain(Self::IDENTIFICATION)
    }
}

/// A named constant array of a module (emitted as `NAME_<name>` in C, `<NAME>` in Rust).
#[derive(Clone, Debug, PartialEq)]
pub struct Constant {
    /// Name, snake_case (`standard_parameters`).
    pub name: &'static str,
    /// One-line description for the generated docs.
    pub doc: &'static str,
    /// The values.
    pub values: Vec<f64>,
}

/// One output array of a function, row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    /// Name of the output (as in the C API: `tau`, `M`, `R`, `p`, ...).
    pub name: &'static str,
    /// Rows.
    pub rows: usize,
    /// Columns (1 for a vector).
    pub cols: usize,
    /// `rows * cols` values, row-major.
    pub values: Vec<NodeId>,
}

/// One generated function.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// What it computes.
    pub kind: FunctionKind,
    /// Its outputs, in the order of the contract.
    pub outputs: Vec<Output>,
}

impl Function {
    /// Every output value, output by output, row-major.
    pub fn roots(&self) -> Vec<NodeId> {
        self.outputs
            .iter()
            .flat_map(|o| o.values.iter().copied())
            .collect()
    }
}

/// Everything generated for one robot.
#[derive(Clone, Debug)]
pub struct Module {
    /// Robot name as in the spec.
    pub robot_name: String,
    /// Number of joints.
    pub dof: usize,
    /// The expressions of all functions (shared subexpressions are shared across functions).
    pub graph: Graph,
    /// The functions.
    pub functions: Vec<Function>,
    /// Hash of the spec the module was generated from.
    pub spec_hash: String,
    /// Joint names in joint order, exactly as the input writes them.
    pub joint_names: Vec<String>,
    /// Named frames in order, exactly as the input writes them.
    pub frame_names: Vec<String>,
    /// Free-text description (from the spec).
    pub description: String,
    /// Constant arrays emitted with the functions (the standard parameters, ...).
    pub constants: Vec<Constant>,
    /// How the base moves. Floating: inputs `q[7 + N]` (base pose first), `v`, `a`,
    /// `tau[6 + N]`; prescribed: `base_pose[7]`, `base_vel[6]`, `base_acc[6]` before the
    /// joint inputs of the dynamics functions.
    pub motion: BaseMotion,
    /// Names of the entries of `beta` (the elastic joints), empty without elastic joints.
    pub beta_names: Vec<String>,
    /// Names of the entries of `w` (the flexible links' modal coordinates), empty without.
    pub w_names: Vec<String>,
}

/// Name of the constant holding the base parameters (its length is `NB`).
pub const BASE_PARAMETERS: &str = "base_parameters";

impl Module {
    /// Whether the base floats (the `NQ`/`NV` layout).
    pub fn floating(&self) -> bool {
        self.motion == BaseMotion::Floating
    }

    /// Number of elastic joints (entries of `beta`).
    pub fn nbeta(&self) -> usize {
        self.beta_names.len()
    }

    /// Number of modal coordinates (entries of `w`).
    pub fn nw(&self) -> usize {
        self.w_names.len()
    }

    /// Whether the robot has elastic joints or flexible links (the elastic functions and
    /// their counts are emitted).
    pub fn elastic(&self) -> bool {
        self.nbeta() + self.nw() > 0
    }

    /// Every output value, function by function.
    pub fn roots(&self) -> Vec<NodeId> {
        self.functions.iter().flat_map(Function::roots).collect()
    }

    /// Operation count of each function as emitted (after [`Module::lowered`]), each function
    /// on its own since generated functions share nothing at run time.
    pub fn op_counts(&self) -> Vec<(FunctionKind, OpCount)> {
        let lowered = self.lowered();
        lowered
            .functions
            .iter()
            .map(|f| (f.kind, lowered.graph.op_count(&f.roots())))
            .collect()
    }

    /// Number of base parameters (the length of the constant [`BASE_PARAMETERS`]; 0 without).
    pub fn nb(&self) -> usize {
        self.constants
            .iter()
            .find(|c| c.name == BASE_PARAMETERS)
            .map_or(0, |c| c.values.len())
    }

    /// The function of `kind`, if generated.
    pub fn function(&self, kind: FunctionKind) -> Option<&Function> {
        self.functions.iter().find(|f| f.kind == kind)
    }

    /// The module as emitted: multi-joint `sin`/`cos` lowered (see
    /// [`Graph::lower_trig_sums`], or [`Graph::lower_trig_sums_stepwise`] where that is
    /// cheaper for the function), dead nodes dropped, then per function partial sums and
    /// common factor pairs shared, common pairs of terms added once and negations absorbed
    /// (see [`Graph::share_per_function`]).
    ///
    /// The dynamics and kinematics functions ([`FunctionKind::ALL`]), the elastic ones
    /// ([`FunctionKind::ELASTIC`]) and the others (the derivatives, frames) are shared as
    /// separate groups, so the large derivative functions do not change the sharing choices
    /// (and operation counts) of the others.
    pub fn lowered(&self) -> Module {
        self.lowered_reporting(&mut Silent)
    }

    /// [`Module::lowered`], reporting each function to `progress` as its sharing starts
    /// ([`Stage::Simplify`]); the lowering of a group's `sin`/`cos` and the sharing across the
    /// group count with the group's first function.
    pub fn lowered_reporting(&self, progress: &mut dyn Progress) -> Module {
        let names: Vec<String> = self
            .functions
            .iter()
            .map(|f| {
                crate::emit::public_name(self, f.kind).unwrap_or_else(|| format!("{:?}", f.kind))
            })
            .collect();
        let mut step = Counter::new(progress, Stage::Simplify, "function", names.len());
        let mut graph = Graph::new();
        graph.copy_tables_from(&self.graph);
        let mut functions: Vec<Option<Function>> = vec![None; self.functions.len()];
        let group = |f: &Function| {
            if FunctionKind::ALL.contains(&f.kind) {
                0
            } else if FunctionKind::ELASTIC.contains(&f.kind) {
                2
            } else {
                1
            }
        };
        for which in 0..3 {
            let members: Vec<usize> = (0..self.functions.len())
                .filter(|&i| group(&self.functions[i]) == which)
                .collect();
            if members.is_empty() {
                continue;
            }
            let group: Vec<&Function> = members.iter().map(|&i| &self.functions[i]).collect();
            step.next(&names[members[0]]);
            let (g, lowered) = self.lower_group(&group, &mut |k| {
                if k > 0 {
                    step.next(&names[members[k]]);
                }
            });
            let roots: Vec<NodeId> = lowered.iter().flat_map(Function::roots).collect();
            let mut it = g.copy_reachable_into(&mut graph, &roots).into_iter();
            for (&i, f) in members.iter().zip(lowered) {
                functions[i] = Some(Function {
                    kind: f.kind,
                    outputs: f
                        .outputs
                        .into_iter()
                        .map(|o| Output {
                            values: o.values.iter().map(|_| it.next().expect("root")).collect(),
                            ..o
                        })
                        .collect(),
                });
            }
        }
        Module {
            robot_name: self.robot_name.clone(),
            dof: self.dof,
            graph,
            functions: functions.into_iter().map(|f| f.expect("lowered")).collect(),
            spec_hash: self.spec_hash.clone(),
            description: self.description.clone(),
            joint_names: self.joint_names.clone(),
            frame_names: self.frame_names.clone(),
            constants: self.constants.clone(),
            motion: self.motion,
            beta_names: self.beta_names.clone(),
            w_names: self.w_names.clone(),
        }
    }

    /// [`Module::lowered`] for one group of functions sharing one graph.
    fn lower_group(
        &self,
        group: &[&Function],
        starting: &mut dyn FnMut(usize),
    ) -> (Graph, Vec<Function>) {
        let all_roots: Vec<NodeId> = group.iter().flat_map(|f| f.roots()).collect();
        let by_function = |roots: Vec<NodeId>| -> Vec<Vec<NodeId>> {
            let mut it = roots.into_iter();
            group
                .iter()
                .map(|f| f.roots().iter().map(|_| it.next().expect("root")).collect())
                .collect()
        };
        // The two lowerings are independent: each on a core of its own where there are two.
        let [(merged, merged_roots), (stepwise, stepwise_roots)] =
            parallel_array([false, true], |&stepwise| {
                if stepwise {
                    self.graph.lower_trig_sums_stepwise(&all_roots)
                } else {
                    self.graph.lower_trig_sums(&all_roots)
                }
            });
        let merged_groups = by_function(merged_roots);
        let stepwise_groups = by_function(stepwise_roots);
        // The two lowerings are the same graph wherever no two joint angles are summed (tilted
        // axes, say): sharing it twice would only double the time and memory.
        let stepwise = (stepwise.nodes() != merged.nodes() || stepwise_groups != merged_groups)
            .then_some((stepwise, stepwise_groups));
        let mut variants = vec![(&merged, &merged_groups[..])];
        variants.extend(stepwise.as_ref().map(|(g, groups)| (g, &groups[..])));
        // Sharing comes last: any later rebuild through the simplifying constructors would
        // flatten the shared partial results again. It is done per function, which takes the
        // cheaper of the two lowerings.
        let (graph, groups) = share_per_function_among(&variants, starting);
        let mut it = groups.into_iter().flatten();
        let functions = group
            .iter()
            .map(|f| Function {
                kind: f.kind,
                outputs: f
                    .outputs
                    .iter()
                    .map(|o| Output {
                        name: o.name,
                        rows: o.rows,
                        cols: o.cols,
                        values: o.values.iter().map(|_| it.next().expect("root")).collect(),
                    })
                    .collect(),
            })
            .collect();
        (graph, functions)
    }
}

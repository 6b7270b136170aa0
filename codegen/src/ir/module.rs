//! The derivation's output and the emitters' input: named functions over one graph.

use super::count::OpCount;
use super::graph::Graph;
use super::node::NodeId;
use super::share::share_per_function_among;
use crate::functions::{function_name, Counts, FunctionKind};
use crate::model::{BaseLayout, BaseMotion};
use crate::parallel::parallel_array;
use crate::progress::{Counter, Progress, Silent, Stage};

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
    /// The function `kind` with the catalogue's outputs, `values` holding each output's
    /// entries (row-major) in the catalogue's order; shapes for `n` joint-space coordinates
    /// (`6 + N` with a floating base) and the module's other sizes `counts`. An output the
    /// derivation left empty stays empty (the caller drops such functions).
    ///
    /// # Panics
    /// If `values` does not hold one list per output of the catalogue entry.
    pub fn new(kind: FunctionKind, n: usize, counts: Counts, values: Vec<Vec<NodeId>>) -> Self {
        let entry = kind.entry();
        assert_eq!(
            values.len(),
            entry.outputs.len(),
            "{kind:?}: one list per output"
        );
        let outputs = entry
            .outputs
            .iter()
            .zip(entry.output_shapes(n, counts))
            .zip(values)
            .map(|((o, (rows, cols)), values)| Output {
                name: o.name,
                rows,
                cols,
                values,
            })
            .collect();
        Function { kind, outputs }
    }

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
    /// A floating base's coordinate layout (Pinocchio's or MuJoCo's), for the documentation.
    pub base_layout: BaseLayout,
    /// Names of the entries of `beta` (the elastic joints), empty without elastic joints.
    pub beta_names: Vec<String>,
    /// Names of the entries of `w` (the flexible links' modal coordinates), empty without.
    pub w_names: Vec<String>,
    /// The contacts, in order: each one's frame name and kind (empty without).
    pub contacts: Vec<(String, crate::model::ContactKind)>,
    /// How each joint's position, rate and acceleration (`Var::Q(j)`, ...) read the inputs,
    /// which hold the `dof` coordinates; empty when every joint is its own coordinate (no joint
    /// follows another).
    pub joint_inputs: Vec<JointInput>,
    /// Every joint's name in joint order, the followers' too (the rows of `joint_wrenches`),
    /// when some joint follows another; empty otherwise (the joints are then the coordinates,
    /// [`Module::joint_names`]).
    pub all_joint_names: Vec<String>,
}

/// How a joint reads the inputs: `q_j = multiplier * q[coordinate] + offset`, its rate and
/// acceleration `multiplier` times the coordinate's (a joint that follows another, see
/// [`crate::model::Mimic`]; a coordinate's own joint has multiplier 1 and offset 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointInput {
    /// The entry of the inputs (after a floating base's).
    pub coordinate: usize,
    /// `dq_j / dq[coordinate]`.
    pub multiplier: f64,
    /// `q_j` where the coordinate is zero.
    pub offset: f64,
}

/// Name of the constant holding the base parameters (its length is `NB`).
pub const BASE_PARAMETERS: &str = "base_parameters";

impl Module {
    /// Whether the base floats (the `NQ`/`NV` layout).
    pub fn floating(&self) -> bool {
        self.motion == BaseMotion::Floating
    }

    /// The number of joints: `dof`, or more when some follow others ([`Module::joint_inputs`]).
    pub fn joints(&self) -> usize {
        if self.joint_inputs.is_empty() {
            self.dof
        } else {
            self.joint_inputs.len()
        }
    }

    /// `NC`: the rows of the contacts (3 per point contact, 6 per 6d contact).
    pub fn nc(&self) -> usize {
        self.contacts.iter().map(|(_, k)| k.rows()).sum()
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

    /// The public name of `kind` in this module (without the robot's prefix):
    /// `inverse_dynamics`, ..., `forward_kinematics_FRAME` and `jacobian_FRAME` for a named
    /// frame (`None` if the module has no such frame).
    pub fn function_name(&self, kind: FunctionKind) -> Option<String> {
        function_name(kind, &self.frame_names)
    }

    /// The module-wide sizes of outputs and inputs besides the joints'.
    pub fn counts(&self) -> Counts {
        Counts {
            nb: self.nb(),
            nbeta: self.nbeta(),
            nw: self.nw(),
            dof: self.joints(),
            bodies: self.joints() + usize::from(self.floating()),
            nc: self.nc(),
        }
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
    /// Functions are shared in the sets of [`crate::functions::Group::sharing_set`].
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
                self.function_name(f.kind)
                    .unwrap_or_else(|| format!("{:?}", f.kind))
            })
            .collect();
        let mut step = Counter::new(progress, Stage::Simplify, "function", names.len());
        let mut graph = Graph::new();
        graph.copy_tables_from(&self.graph);
        let mut functions: Vec<Option<Function>> = vec![None; self.functions.len()];
        let group = |f: &Function| f.kind.entry().group.sharing_set();
        for which in 0..crate::functions::Group::SHARING_SETS {
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
            base_layout: self.base_layout,
            beta_names: self.beta_names.clone(),
            contacts: self.contacts.clone(),
            w_names: self.w_names.clone(),
            joint_inputs: self.joint_inputs.clone(),
            all_joint_names: self.all_joint_names.clone(),
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

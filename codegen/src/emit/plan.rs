//! Planning a function for the emitters: the lowered module's function checked against its
//! catalogue entry (shapes, the inputs it may read, finite constants), then one walk over its
//! live nodes in id order into locals and output expressions ([`Plan`]).

use super::EmitError;
use crate::functions::{entry, Counts, Entry, Input};
use crate::ir::{
    BaseVar, ElasticVar, Function, FunctionKind, Graph, JointInput, Module, Node, NodeId, Var,
};
use crate::model::{BaseLayout, BaseMotion};
use crate::progress::{Counter, Progress, Stage};

/// Expression tree handed to the language renderers.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Ex {
    /// A finite constant (may be negative).
    Lit(f64),
    /// `input[j]`.
    Input(Input, usize),
    /// A parameter field.
    Param(usize),
    /// A local variable.
    Local(String),
    /// `sin`, `cos` or `sqrt` of the argument.
    Call(Func, Box<Ex>),
    /// `-e`.
    Neg(Box<Ex>),
    /// `t0 ± t1 ± ...`; the flag marks a subtracted term (on the first term: a negation).
    Sum(Vec<(bool, Ex)>),
    /// `f0 * f1 * ...`.
    Prod(Vec<Ex>),
    /// `a / b`.
    Div(Box<Ex>, Box<Ex>),
}

/// Functions generated code calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Func {
    Sin,
    Cos,
    Sqrt,
}

/// A function ready to be written: locals in order, then the output values.
pub(crate) struct Plan {
    /// The function's inputs (the contract's, in floating-base form for a floating base).
    pub inputs: Vec<Input>,
    /// A floating base's coordinate layout.
    pub layout: BaseLayout,
    /// How the base moves.
    pub motion: BaseMotion,
    /// Number of joints.
    pub dof: usize,
    /// `N`, or `NV = 6 + N` with a floating base: the size of joint-space outputs.
    pub out_n: usize,
    pub kind: FunctionKind,
    /// Public name (the contract's, with the frame's identifier for a named frame).
    pub name: String,
    pub contract: &'static Entry,
    /// Which of the contract's inputs the body reads.
    pub used_inputs: Vec<bool>,
    /// Whether the body reads a parameter.
    pub uses_params: bool,
    /// `let name = value;`, children first.
    pub locals: Vec<(String, Ex)>,
    /// Per output, its values row-major.
    pub outputs: Vec<Vec<Ex>>,
    /// Which math functions are called.
    pub calls: [bool; 3],
    /// The module's other sizes (`Dim::Base`, `Dim::Beta`, `Dim::W`).
    pub counts: Counts,
}

impl Plan {
    /// Length of an input array: `q` holds `7 + N` entries with a floating base, the other
    /// floating inputs `6 + N`.
    pub(crate) fn input_len(&self, i: Input) -> usize {
        match i {
            Input::BasePose => 7,
            Input::BaseVel | Input::BaseAcc => 6,
            Input::Beta | Input::BetaD | Input::BetaDd => self.counts.nbeta,
            Input::W | Input::WD | Input::WDd => self.counts.nw,
            Input::Theta | Input::ThetaD => self.counts.nbeta,
            Input::Q if self.out_n != self.dof => self.dof + 7,
            _ => self.out_n,
        }
    }

    /// What an input holds, for the generated documentation: with a floating base `q` and
    /// `tau` hold the base's coordinates before the joints' (`v` and `a` say so themselves).
    pub(crate) fn input_doc(&self, i: Input) -> &'static str {
        let mujoco = self.layout == BaseLayout::Mujoco;
        match i {
            Input::Q if mujoco && self.out_n != self.dof => {
                "MuJoCo's qpos: base position x y z in the world (m), then its orientation as a \
                 unit quaternion w x y z (normalised inside), then joint positions (rad or m)"
            }
            Input::Tau if mujoco && self.out_n != self.dof => {
                "MuJoCo's generalised force: force on the base (N, world axes), moment (N m, \
                 base axes), then joint forces/torques (N or N m)"
            }
            Input::V if mujoco => {
                "MuJoCo's qvel: linear velocity of the base origin (world axes), angular \
                 velocity (base axes), then joint velocities"
            }
            Input::A if mujoco => "MuJoCo's qacc: the time derivatives of qvel",
            Input::Q if self.out_n != self.dof => {
                "base position x y z in the world (m), then its orientation as a unit \
                 quaternion x y z w (normalised inside), then joint positions (rad or m)"
            }
            Input::Tau if self.out_n != self.dof => {
                "wrench on the base (force (N), then moment (N m) about the base origin, base \
                 frame), then joint forces/torques (N or N m)"
            }
            _ => i.doc(),
        }
    }

    /// The generated documentation's note on a moving base: a floating base's joint-space
    /// outputs hold the base's coordinates first; a prescribed base's functions without its
    /// arrays give the motion relative to it.
    pub(crate) fn base_note(&self) -> Option<&'static str> {
        if matches!(
            self.motion,
            BaseMotion::Prescribed | BaseMotion::Translating
        ) {
            return self.prescribed_note();
        }
        if self.layout == BaseLayout::Mujoco && self.out_n != self.dof {
            return Some(
                "With the floating base in MuJoCo's layout, an output's `NV` entries (or rows, \
                 or columns) are MuJoCo's dofs: the base's translation (world axes), its \
                 rotation (base axes), then the joints'. A derivative's columns along `q` are \
                 MuJoCo's tangent (`mj_integratePos`: the base moved in world axes, turned \
                 about its own); \"zero acceleration\" is MuJoCo's `qacc = 0`.",
            );
        }
        (self.out_n != self.dof).then_some(
            "With the floating base, an output's `NV` entries (or rows, or columns) are the \
             base's six coordinates (linear, then angular, base frame; forces, then moments) \
             followed by the joints'.",
        )
    }

    /// The note of a prescribed base's function where it differs from a fixed base's: those
    /// that take none of its arrays, the static reactions and the contacts.
    fn prescribed_note(&self) -> Option<&'static str> {
        use crate::functions::{FunctionKind, Group, MovingBase};
        match self.kind {
            FunctionKind::StaticJointReactions => {
                return Some("With the prescribed base, at rest with the base held in its pose.");
            }
            FunctionKind::ContactJacobian => {
                return Some(
                    "With the prescribed base, the contacts' velocities in the world are the \
                     base's motion's part plus `Jc qd`.",
                );
            }
            FunctionKind::ContactForwardDynamics => {
                return Some(
                    "With the prescribed base, the contacts hold their frames in the world: `h` \
                     is `nonlinear_effects` at the base's motion and `gamma` the contacts' \
                     acceleration in the world at zero joint acceleration, the base's motion \
                     included.",
                );
            }
            _ => {}
        }
        if self.contract.moving_base != MovingBase::None {
            return None;
        }
        if self.kind == FunctionKind::CoriolisMatrix {
            return Some(
                "With the prescribed base, the Christoffel matrix of the joints' mass matrix: \
                 `C qd + gravity` is `nonlinear_effects` with the base at rest.",
            );
        }
        matches!(self.contract.group, Group::Centroidal | Group::FrameMotion).then_some(
            "With the prescribed base, \"world\" above is the base frame: this function gives \
             the robot's motion relative to its base, as the frames' poses and Jacobians do.",
        )
    }
}

/// Refuses literals the emitted code cannot hold: a non-finite value in a constant array, and
/// with `single` precision any literal, constant or parameter default beyond `float`'s range
/// (written as `inf`, which is not C). The functions' own non-finite constants are refused
/// when they are planned.
pub(crate) fn check_literals(
    lowered: &Module,
    plans: &[Plan],
    single: bool,
) -> Result<(), EmitError> {
    let beyond = |v: f64| single && v.is_finite() && (v as f32).is_infinite();
    for c in &lowered.constants {
        for &value in &c.values {
            if !value.is_finite() {
                let name = c.name.to_owned();
                return Err(EmitError::NonFiniteConstant { name, value });
            }
            if beyond(value) {
                let what = format!("the constant array `{}`", c.name);
                return Err(EmitError::BeyondFloat { what, value });
            }
        }
    }
    for p in lowered.graph.params() {
        if beyond(p.default) {
            let what = format!("the parameter `{}`", p.name);
            return Err(EmitError::BeyondFloat {
                what,
                value: p.default,
            });
        }
    }
    if !single {
        return Ok(());
    }
    for plan in plans {
        let mut found = None;
        let exprs = plan.locals.iter().map(|(_, e)| e);
        for e in exprs.chain(plan.outputs.iter().flatten()) {
            visit_leaves(e, &mut |leaf| match leaf {
                Ex::Lit(v) if beyond(*v) => {
                    found.get_or_insert(*v);
                }
                _ => {}
            });
        }
        if let Some(value) = found {
            let what = format!("`{}`", plan.name);
            return Err(EmitError::BeyondFloat { what, value });
        }
    }
    Ok(())
}

/// Calls `f` with every leaf of `e` (literals, inputs, parameters, locals).
pub(crate) fn visit_leaves<'a>(e: &'a Ex, f: &mut impl FnMut(&'a Ex)) {
    match e {
        Ex::Lit(_) | Ex::Param(_) | Ex::Input(..) | Ex::Local(_) => f(e),
        Ex::Call(_, x) | Ex::Neg(x) => visit_leaves(x, f),
        Ex::Sum(v) => v.iter().for_each(|(_, x)| visit_leaves(x, f)),
        Ex::Prod(v) => v.iter().for_each(|x| visit_leaves(x, f)),
        Ex::Div(a, b) => {
            visit_leaves(a, f);
            visit_leaves(b, f);
        }
    }
}

/// Deepest inlined expression before a local is introduced (keeps lines readable and the
/// renderers' recursion shallow).
const MAX_INLINE_DEPTH: u32 = 6;

/// Checks a module against the contracts and plans every function (on the lowered module).
/// Reports [`Stage::Simplify`] (lowering and sharing) and [`Stage::Emit`] (one step per
/// function) to `progress`.
pub(crate) fn plan_module(
    module: &Module,
    progress: &mut dyn Progress,
) -> Result<(Module, Vec<Plan>), EmitError> {
    let lowered = module.lowered_reporting(progress);
    let mut step = Counter::new(progress, Stage::Emit, "function", lowered.functions.len());
    let mut names = Vec::new();
    for (i, f) in lowered.functions.iter().enumerate() {
        if lowered.functions[..i].iter().any(|g| g.kind == f.kind) {
            return Err(EmitError::Duplicate(f.kind));
        }
        names.push(
            lowered
                .function_name(f.kind)
                .ok_or(EmitError::UnknownFrame(f.kind))?,
        );
    }
    let counts = lowered.counts();
    // The functions are planned on every core (the plans only read the lowered graph), and
    // kept in the functions' order; the first error in that order is the one reported.
    let mut plans = Vec::new();
    let mut error = None;
    crate::parallel::parallel_in_order(
        &lowered.functions,
        |f| {
            let base = (lowered.motion, lowered.base_layout);
            let joints = (lowered.dof, lowered.joint_inputs.as_slice());
            plan_function(&lowered.graph, joints, counts, base, f)
        },
        &mut |i| step.next(&names[i]),
        &mut |i, plan: Result<Plan, EmitError>| match plan {
            Ok(mut plan) if error.is_none() => {
                plan.name = names[i].clone();
                plans.push(plan);
            }
            Ok(_) => {}
            Err(e) => {
                error.get_or_insert(e);
            }
        },
    );
    if let Some(e) = error {
        return Err(e);
    }
    // Files list functions in contract order whatever order the derivation produced.
    plans.sort_by_key(|p| p.kind);
    Ok((lowered, plans))
}

fn shape_list(shapes: impl Iterator<Item = (usize, usize)>) -> String {
    let v: Vec<String> = shapes.map(|(r, c)| format!("{r}x{c}")).collect();
    format!("[{}]", v.join(", "))
}

fn plan_function(
    g: &Graph,
    (dof, joint_inputs): (usize, &[JointInput]),
    counts: Counts,
    (motion, layout): (BaseMotion, BaseLayout),
    f: &Function,
) -> Result<Plan, EmitError> {
    let contract = entry(f.kind);
    let floating = motion == BaseMotion::Floating;
    let inputs = contract.inputs_for(motion);
    // Joint-space outputs span the base's six coordinates too.
    let out_n = if floating { dof + 6 } else { dof };
    let expected = contract.output_shapes(out_n, counts);
    let found: Vec<(usize, usize)> = f.outputs.iter().map(|o| (o.rows, o.cols)).collect();
    let sizes_ok = f.outputs.iter().all(|o| o.values.len() == o.rows * o.cols);
    if expected != found || !sizes_ok {
        return Err(EmitError::OutputShape {
            kind: f.kind,
            expected: shape_list(expected.into_iter()),
            found: shape_list(found.into_iter()),
        });
    }
    let roots: Vec<NodeId> = f
        .outputs
        .iter()
        .flat_map(|o| o.values.iter().copied())
        .collect();
    let live = g.reachable(&roots);

    // Uses per node. A sum reads a negated operand through its `Neg` (a subtraction); a `Neg`
    // that something else reads is computed once, so it reads its operand once.
    let mut uses = vec![0u32; g.len()];
    for r in &roots {
        uses[r.index()] += 1;
    }
    let mut used_inputs = vec![false; inputs.len()];
    let mut uses_params = false;
    let mut calls = [false; 3];
    for (i, node) in g.nodes().iter().enumerate() {
        if !live[i] {
            continue;
        }
        match node {
            Node::Add(v) => {
                for &c in v.iter() {
                    match g.node(c) {
                        Node::Neg(x) => uses[x.index()] += 1,
                        _ => uses[c.index()] += 1,
                    }
                }
            }
            Node::Var(var) => {
                check_var(
                    f.kind,
                    &inputs,
                    motion,
                    counts.dof,
                    counts,
                    *var,
                    &mut used_inputs,
                    &mut uses_params,
                )?;
                match var {
                    Var::Sin(_) => calls[0] = true,
                    Var::Cos(_) => calls[1] = true,
                    _ => {}
                }
            }
            Node::Const(bits) => {
                let value = f64::from_bits(*bits);
                if !value.is_finite() {
                    return Err(EmitError::NonFinite {
                        kind: f.kind,
                        value,
                    });
                }
            }
            Node::Neg(_) => {}
            n => {
                if matches!(n, Node::Sqrt(_)) {
                    calls[2] = true;
                }
                for c in n.children() {
                    uses[c.index()] += 1;
                }
            }
        }
    }
    for (i, node) in g.nodes().iter().enumerate() {
        if let Node::Neg(x) = node {
            if live[i] && uses[i] > 0 {
                uses[x.index()] += 1;
            }
        }
    }

    let mut b = Builder {
        motion,
        joint_inputs,
        g,
        local: vec![None; g.len()],
        ready: ready_times(g),
    };
    let mut depth = vec![0u32; g.len()];
    let mut locals = Vec::new();
    for (i, node) in g.nodes().iter().enumerate() {
        if !live[i] || uses[i] == 0 {
            continue;
        }
        let d = match node {
            Node::Const(_) => 0,
            Node::Var(v) if !v.is_trig() => 0,
            // Read through by its users (subtraction or inline negation).
            Node::Neg(x) if uses[i] == 1 => depth[x.index()] + 1,
            n => 1 + n.children().map(|c| depth[c.index()]).max().unwrap_or(0),
        };
        let trig = matches!(node, Node::Var(v) if v.is_trig());
        let leaf = matches!(node, Node::Const(_)) || (matches!(node, Node::Var(_)) && !trig);
        if !leaf && (trig || uses[i] > 1 || d > MAX_INLINE_DEPTH) {
            let id = NodeId(i as u32);
            let e = b.build(id);
            let name = local_name(node, id);
            b.local[i] = Some(name.clone());
            locals.push((name, e));
            depth[i] = 0;
        } else {
            depth[i] = d;
        }
    }
    let outputs = f
        .outputs
        .iter()
        .map(|o| o.values.iter().map(|&v| b.ex(v)).collect())
        .collect();
    Ok(Plan {
        inputs,
        layout,
        motion,
        dof,
        out_n,
        kind: f.kind,
        name: contract.name.to_owned(),
        contract,
        used_inputs,
        uses_params,
        locals,
        outputs,
        calls,
        counts,
    })
}

// The leaf, the function's contract and the module's sizes, each checked against the others.
#[allow(clippy::too_many_arguments)]
fn check_var(
    kind: FunctionKind,
    inputs: &[Input],
    motion: BaseMotion,
    dof: usize,
    counts: Counts,
    var: Var,
    used_inputs: &mut [bool],
    uses_params: &mut bool,
) -> Result<(), EmitError> {
    let (input, j) = match var {
        Var::Elastic(e) => {
            let (input, k, len) = elastic_input(e, counts);
            if k >= len {
                return Err(EmitError::ElasticOutOfRange {
                    kind,
                    var,
                    nbeta: counts.nbeta,
                    nw: counts.nw,
                });
            }
            return match inputs.iter().position(|i| *i == input) {
                Some(p) => {
                    used_inputs[p] = true;
                    Ok(())
                }
                None => Err(EmitError::UnexpectedInput { kind, var }),
            };
        }
        Var::Param(_) => {
            *uses_params = true;
            return Ok(());
        }
        Var::Q(j) => (Input::Q, usize::from(j)),
        Var::Qd(j) => (Input::Qd, usize::from(j)),
        Var::Qdd(j) => (Input::Qdd, usize::from(j)),
        Var::Tau(j) => (Input::Tau, usize::from(j)),
        Var::Sin(m) | Var::Cos(m) => (Input::Q, 63 - m.leading_zeros() as usize),
        Var::Base(b) => {
            // Only a moving base's functions take base inputs: a floating base's as the
            // leading entries of q, v, a, tau, a prescribed base's as arrays of their own.
            let Some(input) = base_input(motion, b) else {
                return Err(EmitError::UnexpectedInput { kind, var });
            };
            return match inputs.iter().position(|i| *i == input) {
                Some(k) => {
                    used_inputs[k] = true;
                    Ok(())
                }
                _ => Err(EmitError::UnexpectedInput { kind, var }),
            };
        }
    };
    if j >= dof {
        return Err(EmitError::JointOutOfRange { kind, var, dof });
    }
    // In a floating layout joint rates and accelerations are entries of `v` and `a`.
    let floating = motion == BaseMotion::Floating;
    let input = if floating { input.floating() } else { input };
    match inputs.iter().position(|i| *i == input) {
        Some(k) => {
            used_inputs[k] = true;
            Ok(())
        }
        None => Err(EmitError::UnexpectedInput { kind, var }),
    }
}

fn local_name(node: &Node, id: NodeId) -> String {
    let joints = |m: u64| -> String {
        let v: Vec<String> = (0..64)
            .filter(|j| m & (1u64 << j) != 0)
            .map(|j| (j + 1).to_string())
            .collect();
        v.join("_")
    };
    match node {
        Node::Var(Var::Sin(m)) => format!("s{}", joints(*m)),
        Node::Var(Var::Cos(m)) => format!("c{}", joints(*m)),
        _ => format!("x{}", id.0),
    }
}

/// The input array holding an elastic variable, its index there and the array's length.
fn elastic_input(e: ElasticVar, counts: Counts) -> (Input, usize, usize) {
    match e {
        ElasticVar::Beta(k) => (Input::Beta, k.into(), counts.nbeta),
        ElasticVar::BetaD(k) => (Input::BetaD, k.into(), counts.nbeta),
        ElasticVar::BetaDd(k) => (Input::BetaDd, k.into(), counts.nbeta),
        ElasticVar::W(k) => (Input::W, k.into(), counts.nw),
        ElasticVar::WD(k) => (Input::WD, k.into(), counts.nw),
        ElasticVar::WDd(k) => (Input::WDd, k.into(), counts.nw),
        ElasticVar::Theta(k) => (Input::Theta, k.into(), counts.nbeta),
        ElasticVar::ThetaD(k) => (Input::ThetaD, k.into(), counts.nbeta),
        ElasticVar::Qddd(k) => (Input::Qddd, k.into(), counts.dof),
        ElasticVar::Qdddd(k) => (Input::Qdddd, k.into(), counts.dof),
    }
}

/// The input array holding a base variable, for a base that moves as `motion`.
fn base_input(motion: BaseMotion, b: BaseVar) -> Option<Input> {
    match (motion, b) {
        (BaseMotion::Floating, BaseVar::Pose(_)) => Some(Input::Q),
        (BaseMotion::Floating, BaseVar::Vel(_)) => Some(Input::V),
        (BaseMotion::Floating, BaseVar::Acc(_)) => Some(Input::A),
        (BaseMotion::Floating, BaseVar::Wrench(_)) => Some(Input::Tau),
        (BaseMotion::Prescribed | BaseMotion::Translating, BaseVar::Pose(_)) => {
            Some(Input::BasePose)
        }
        (BaseMotion::Prescribed | BaseMotion::Translating, BaseVar::Vel(_)) => Some(Input::BaseVel),
        (BaseMotion::Prescribed | BaseMotion::Translating, BaseVar::Acc(_)) => Some(Input::BaseAcc),
        _ => None,
    }
}

struct Builder<'a> {
    /// How the base moves: a floating layout has the joints after the base's entries and
    /// rates in `v` and `a`; a prescribed base has arrays of its own.
    motion: BaseMotion,
    /// How joints read the inputs ([`crate::ir::Module::joint_inputs`]).
    joint_inputs: &'a [JointInput],
    g: &'a Graph,
    local: Vec<Option<String>>,
    /// Estimated cycle at which each node's value is ready ([`ready_times`]): the terms of a
    /// sum and the factors of a product are written earliest first.
    ready: Vec<u32>,
}

impl Builder<'_> {
    /// Joint `j`'s entry of `input` in this layout.
    fn input(&self, input: Input, j: usize) -> Ex {
        let floating = self.motion == BaseMotion::Floating;
        let input = if floating { input.floating() } else { input };
        let Some(c) = self.joint_inputs.get(j) else {
            return Ex::Input(input, input.joint_slot(j, floating));
        };
        let own = Ex::Input(input, input.joint_slot(c.coordinate, floating));
        let negative = c.multiplier < 0.0;
        let size = c.multiplier.abs();
        let scaled = if size == 1.0 {
            own
        } else {
            Ex::Prod(vec![Ex::Lit(size), own])
        };
        match (input == Input::Q && c.offset != 0.0, negative) {
            (true, _) => Ex::Sum(vec![
                (negative, scaled),
                (c.offset < 0.0, Ex::Lit(c.offset.abs())),
            ]),
            (false, true) => Ex::Neg(Box::new(scaled)),
            (false, false) => scaled,
        }
    }

    /// The angle of a trig leaf: `q[j]`, or a sum of joint positions for an unlowered mask.
    fn angle(&self, m: u64) -> Ex {
        let terms: Vec<(bool, Ex)> = (0..64usize)
            .filter(|j| m & (1u64 << j) != 0)
            .map(|j| (false, self.input(Input::Q, j)))
            .collect();
        if terms.len() == 1 {
            terms
                .into_iter()
                .next()
                .map(|t| t.1)
                .unwrap_or(Ex::Lit(0.0))
        } else {
            Ex::Sum(terms)
        }
    }

    /// A reference to `id`: its local, or its inlined expression.
    fn ex(&self, id: NodeId) -> Ex {
        match &self.local[id.index()] {
            Some(name) => Ex::Local(name.clone()),
            None => self.build(id),
        }
    }

    /// The defining expression of `id`.
    fn build(&self, id: NodeId) -> Ex {
        match self.g.node(id) {
            Node::Const(bits) => Ex::Lit(f64::from_bits(*bits)),
            Node::Var(v) => match *v {
                Var::Q(j) => self.input(Input::Q, j.into()),
                Var::Qd(j) => self.input(Input::Qd, j.into()),
                Var::Qdd(j) => self.input(Input::Qdd, j.into()),
                Var::Tau(j) => self.input(Input::Tau, j.into()),
                Var::Base(b) => {
                    let slot = match b {
                        BaseVar::Pose(k) | BaseVar::Vel(k) | BaseVar::Acc(k) => k,
                        BaseVar::Wrench(k) => k,
                    };
                    // Checked by `check_var` before any expression is built.
                    let input = base_input(self.motion, b).unwrap_or(Input::Q);
                    Ex::Input(input, slot.into())
                }
                Var::Param(k) => Ex::Param(k as usize),
                Var::Elastic(e) => {
                    let (input, k, _) = elastic_input(e, Counts::default());
                    Ex::Input(input, k)
                }
                Var::Sin(m) => Ex::Call(Func::Sin, Box::new(self.angle(m))),
                Var::Cos(m) => Ex::Call(Func::Cos, Box::new(self.angle(m))),
            },
            Node::Add(v) => self.sum(v),
            Node::Mul(v) => Ex::Prod(self.by_ready(v).into_iter().map(|c| self.ex(c)).collect()),
            Node::Neg(x) => Ex::Neg(Box::new(self.ex(*x))),
            Node::Div(a, b) => Ex::Div(Box::new(self.ex(*a)), Box::new(self.ex(*b))),
            Node::Sqrt(x) => Ex::Call(Func::Sqrt, Box::new(self.ex(*x))),
        }
    }

    /// A sum with its signs written as subtractions; positive terms first, so a leading minus
    /// is only written when every term is negative.
    fn sum(&self, v: &[NodeId]) -> Ex {
        // (operands ready, kind: 0 positive, 1 negative literal, 2 negated; term)
        let mut terms: Vec<(u32, u8, Ex)> = Vec::with_capacity(v.len());
        for &c in v {
            let has_local = self.local[c.index()].is_some();
            let at = self.operands_ready(c);
            match self.g.node(c) {
                Node::Neg(x) => terms.push((at, 2, self.ex(*x))),
                Node::Const(bits) if f64::from_bits(*bits) < 0.0 => {
                    terms.push((at, 1, Ex::Lit(-f64::from_bits(*bits))));
                }
                Node::Mul(f) if !has_local && self.g.as_const(f[0]).is_some_and(|k| k < 0.0) => {
                    let k = -self.g.as_const(f[0]).unwrap_or(-1.0);
                    let mut fs = vec![Ex::Lit(k)];
                    fs.extend(self.by_ready(&f[1..]).into_iter().map(|x| self.ex(x)));
                    terms.push((at, 1, Ex::Prod(fs)));
                }
                _ => terms.push((at, 0, self.ex(c))),
            }
        }
        // Earliest first: the sum is one chain of additions (or fused multiply-adds), so the
        // terms that are ready first are added while the later ones are still computed.
        terms.sort_by_key(|t| t.0);
        // A positive term leads where there is one, so that no negation is written.
        if let Some(p) = terms.iter().position(|t| t.1 == 0) {
            let t = terms.remove(p);
            terms.insert(0, t);
        } else if let Some(p) = terms.iter().position(|t| t.1 == 1) {
            // The negative literal leads, carrying its sign.
            let (at, _, e) = terms.remove(p);
            terms.insert(0, (at, 0, negate_literal(e)));
        }
        Ex::Sum(
            terms
                .into_iter()
                .map(|(_, kind, e)| (kind != 0, e))
                .collect(),
        )
    }

    /// Factors in the order they are multiplied: constants first, then earliest ready.
    fn by_ready(&self, v: &[NodeId]) -> Vec<NodeId> {
        let mut v = v.to_vec();
        v.sort_by_key(|&c| (self.g.as_const(c).is_none(), self.ready[c.index()]));
        v
    }

    /// When a sum's term can enter the sum ([`term_operands_ready`]).
    fn operands_ready(&self, c: NodeId) -> u32 {
        term_operands_ready(self.g, &self.ready, c)
    }
}

/// Cycles from an operation's operands to its result, roughly as x86-64 cores take them; only
/// the order of terms depends on them.
const LATENCY_ARITHMETIC: u32 = 4;

const LATENCY_DIVIDE: u32 = 14;

/// The sines and cosines come out of one block, all at about the same time.
const LATENCY_TRIG: u32 = 40;

/// Estimated cycle at which each node of `g` is ready, its operands taken earliest first and
/// a sum's products fused into its chain of additions.
fn ready_times(g: &Graph) -> Vec<u32> {
    let mut ready = vec![0u32; g.len()];
    for (i, node) in g.nodes().iter().enumerate() {
        ready[i] = match node {
            Node::Const(_) => 0,
            Node::Var(v) if v.is_trig() => LATENCY_TRIG,
            Node::Var(_) => 0,
            Node::Neg(x) => ready[x.index()],
            Node::Mul(f) => product_operands_ready(&ready, f) + LATENCY_ARITHMETIC,
            Node::Add(v) => chain_ready(
                v.iter()
                    .map(|&c| term_operands_ready(g, &ready, c))
                    .collect(),
            ),
            Node::Div(a, b) => ready[a.index()].max(ready[b.index()]) + LATENCY_DIVIDE,
            Node::Sqrt(x) => ready[x.index()] + LATENCY_DIVIDE,
        };
    }
    ready
}

/// When a sum's term can enter the sum: a product's last multiplication is fused into the
/// addition, so its operands' time, otherwise the term's own.
fn term_operands_ready(g: &Graph, ready: &[u32], c: NodeId) -> u32 {
    match g.node(c) {
        Node::Mul(f) => product_operands_ready(ready, f),
        Node::Neg(x) => term_operands_ready(g, ready, *x),
        _ => ready[c.index()],
    }
}

/// When the last multiplication of a product can start: its factors multiplied earliest
/// first, all but the last.
fn product_operands_ready(ready: &[u32], factors: &[NodeId]) -> u32 {
    let mut at: Vec<u32> = factors.iter().map(|f| ready[f.index()]).collect();
    let Some(last) = at.iter().copied().max() else {
        return 0;
    };
    at.sort_unstable();
    at.pop();
    chain_ready(at).max(last)
}

/// When a chain of operations over operands ready at `at` ends, the operands taken earliest
/// first (0 for none).
fn chain_ready(mut at: Vec<u32>) -> u32 {
    at.sort_unstable();
    let mut acc = at.first().copied().unwrap_or(0);
    for &t in at.iter().skip(1) {
        acc = acc.max(t) + LATENCY_ARITHMETIC;
    }
    acc
}

/// `k` → `-k`, `k * m` → `-k * m` for a literal `k`.
fn negate_literal(e: Ex) -> Ex {
    match e {
        Ex::Lit(k) => Ex::Lit(-k),
        Ex::Prod(mut fs) => {
            if let Some(Ex::Lit(k)) = fs.first_mut() {
                *k = -*k;
            }
            Ex::Prod(fs)
        }
        e => Ex::Neg(Box::new(e)),
    }
}

//! Tests of the simplifying constructors (one per rule), passes, counts, and property tests
//! against plain `f64` evaluation.

use proptest::prelude::*;

use super::*;

fn env3(q: [f64; 3]) -> Env {
    Env {
        q: q.to_vec(),
        qd: vec![0.4, -0.2, 1.3],
        ..Env::default()
    }
}

struct Toy {
    g: Graph,
    x: NodeId,
    y: NodeId,
    z: NodeId,
}

fn toy() -> Toy {
    let mut g = Graph::new();
    let x = g.var(Var::Q(0));
    let y = g.var(Var::Qd(1));
    let z = g.param("m", 2.5);
    Toy { g, x, y, z }
}

fn fired(g: &Graph, r: Rule) -> bool {
    g.rule_stats().count(r) > 0
}

#[test]
fn rule_const_fold() {
    let Toy { mut g, .. } = toy();
    let a = g.constant(2.0);
    let b = g.constant(3.0);
    let p = g.mul(a, b);
    assert_eq!(g.as_const(p), Some(6.0));
    let s = g.add(a, b);
    assert_eq!(g.as_const(s), Some(5.0));
    let r = g.sqrt(a);
    assert_eq!(g.as_const(r), Some(2f64.sqrt()));
    assert!(fired(&g, Rule::ConstFold));
}

#[test]
fn rule_mul_zero() {
    let Toy { mut g, x, .. } = toy();
    let z = g.constant(0.0);
    let p = g.mul(x, z);
    assert_eq!(g.as_const(p), Some(0.0));
    assert!(fired(&g, Rule::MulZero));
}

#[test]
fn rule_mul_one() {
    let Toy { mut g, x, .. } = toy();
    let one = g.constant(1.0);
    assert_eq!(g.mul(one, x), x);
    assert!(fired(&g, Rule::MulOne));
}

#[test]
fn rule_add_zero() {
    let Toy { mut g, x, .. } = toy();
    let z = g.constant(-0.0);
    assert_eq!(g.add(x, z), x);
    assert!(fired(&g, Rule::AddZero));
}

#[test]
fn rule_double_neg() {
    let Toy { mut g, x, .. } = toy();
    let n = g.neg(x);
    assert_eq!(g.node(n), &Node::Neg(x));
    assert_eq!(g.neg(n), x);
    assert!(fired(&g, Rule::DoubleNeg));
}

#[test]
fn rule_div_one_by_const_and_self() {
    let Toy { mut g, x, y, .. } = toy();
    let one = g.constant(1.0);
    assert_eq!(g.div(x, one), x);
    assert!(fired(&g, Rule::DivOne));
    let four = g.constant(4.0);
    let d = g.div(x, four);
    let quarter = g.constant(0.25);
    assert_eq!(g.node(d), &Node::Mul([quarter, x].into()));
    assert!(fired(&g, Rule::DivByConst));
    let xy = g.mul(x, y);
    let two_xy = g.mul(xy, four);
    let r = g.div(two_xy, xy);
    assert_eq!(g.as_const(r), Some(4.0));
    assert!(fired(&g, Rule::DivSelf));
}

#[test]
fn rule_flatten_sum() {
    let Toy { mut g, x, y, z } = toy();
    let xy = g.add(x, y);
    let left = g.add(xy, z);
    let yz = g.add(y, z);
    let right = g.add(x, yz);
    assert_eq!(left, right);
    assert_eq!(g.node(left), &Node::Add([x, y, z].into()));
    // a - (b + c) keeps the subtraction flat as well.
    let d = g.sub(x, yz);
    let ny = g.neg(y);
    let nz = g.neg(z);
    assert_eq!(g.node(d), &Node::Add([x, ny, nz].into()));
    assert!(fired(&g, Rule::FlattenSum));
}

#[test]
fn rule_flatten_product_and_commutativity() {
    let Toy { mut g, x, y, z } = toy();
    let xy = g.mul(x, y);
    let left = g.mul(xy, z);
    let zy = g.mul(z, y);
    let right = g.mul(zy, x);
    assert_eq!(left, right);
    assert_eq!(g.node(left), &Node::Mul([x, y, z].into()));
    assert_eq!(g.add(x, y), g.add(y, x));
    assert!(fired(&g, Rule::FlattenProduct));
}

#[test]
fn rule_const_coefficient() {
    let Toy { mut g, x, y, .. } = toy();
    let two = g.constant(2.0);
    let x2 = g.mul(x, two);
    let p = g.mul(x2, y);
    let xy = g.mul(x, y);
    assert_eq!(g.node(p), &Node::Mul([two, xy].into()));
    // (-x) * y -> -(x y)
    let nx = g.neg(x);
    let q = g.mul(nx, y);
    assert_eq!(g.node(q), &Node::Neg(xy));
    assert!(fired(&g, Rule::ConstCoefficient));
}

#[test]
fn rule_collect_terms() {
    let Toy { mut g, x, y, .. } = toy();
    let xx = g.add(x, x);
    let two = g.constant(2.0);
    assert_eq!(g.node(xx), &Node::Mul([two, x].into()));
    assert_eq!(g.sub(xx, x), x);
    // 3 x y + y x -> 4 x y
    let xy = g.mul(x, y);
    let three = g.constant(3.0);
    let t = g.mul(three, xy);
    let yx = g.mul(y, x);
    let s = g.add(t, yx);
    let four = g.constant(4.0);
    assert_eq!(g.node(s), &Node::Mul([four, xy].into()));
    assert!(fired(&g, Rule::CollectTerms));
}

#[test]
fn rule_cancel_terms() {
    let Toy { mut g, x, y, z } = toy();
    let ab = g.mul(x, y);
    let ba = g.mul(y, x);
    let d = g.sub(ab, ba);
    assert_eq!(g.as_const(d), Some(0.0));
    let s = g.add(z, ab);
    assert_eq!(g.sub(s, ba), z);
    assert!(fired(&g, Rule::CancelTerms));
}

#[test]
fn rule_pythagorean() {
    let Toy { mut g, x, .. } = toy();
    let s = g.var(Var::Sin(0b101));
    let c = g.var(Var::Cos(0b101));
    let ss = g.mul(s, s);
    let cc = g.mul(c, c);
    let one = g.add(ss, cc);
    assert_eq!(g.as_const(one), Some(1.0));
    // k s^2 + k c^2 -> k, with a symbolic common factor and other terms around.
    let xss = g.mul(x, ss);
    let xcc = g.mul(cc, x);
    let three = g.constant(3.0);
    let t1 = g.mul(three, xss);
    let t2 = g.mul(three, xcc);
    let partial = g.add(t1, one);
    let total = g.add(partial, t2);
    let x3 = g.mul(three, x);
    let expect = g.add(x3, one);
    assert_eq!(total, expect);
    assert!(fired(&g, Rule::Pythagorean));
}

#[test]
fn rule_cos_sum() {
    let Toy { mut g, z, .. } = toy();
    let (s1, c1) = (g.var(Var::Sin(1)), g.var(Var::Cos(1)));
    let (s2, c2) = (g.var(Var::Sin(2)), g.var(Var::Cos(2)));
    let (s3, c3) = (g.var(Var::Sin(4)), g.var(Var::Cos(4)));
    let cc = g.product(&[z, c1, c2]);
    let ss = g.product(&[z, s1, s2]);
    let r = g.sub(cc, ss);
    let c12 = g.var(Var::Cos(3));
    assert_eq!(g.node(r), &Node::Mul([z, c12].into()));
    // Chained: c12 c3 - s12 s3 -> c123.
    let s12 = g.var(Var::Sin(3));
    let a = g.mul(c12, c3);
    let b = g.mul(s12, s3);
    let r = g.sub(a, b);
    assert_eq!(g.node(r), &Node::Var(Var::Cos(7)));
    assert!(fired(&g, Rule::CosSum));
}

#[test]
fn rule_sin_sum() {
    let Toy { mut g, .. } = toy();
    let (s1, c1) = (g.var(Var::Sin(1)), g.var(Var::Cos(1)));
    let (s2, c2) = (g.var(Var::Sin(2)), g.var(Var::Cos(2)));
    let two = g.constant(-2.0);
    let a = g.product(&[two, s1, c2]);
    let b = g.product(&[two, c1, s2]);
    let r = g.add(a, b);
    let s12 = g.var(Var::Sin(3));
    assert_eq!(g.node(r), &Node::Mul([two, s12].into()));
    assert!(fired(&g, Rule::SinSum));
}

#[test]
fn overlapping_masks_are_not_combined() {
    let Toy { mut g, .. } = toy();
    let (s1, c1) = (g.var(Var::Sin(3)), g.var(Var::Cos(3)));
    let (s2, c2) = (g.var(Var::Sin(2)), g.var(Var::Cos(2)));
    let a = g.mul(c1, c2);
    let b = g.mul(s1, s2);
    let r = g.sub(a, b);
    assert!(matches!(g.node(r), Node::Add(_)));
}

#[test]
fn rule_sqrt_squared() {
    let Toy { mut g, x, y, .. } = toy();
    let r = g.sqrt(x);
    let p = g.product(&[r, y, r]);
    assert_eq!(p, g.mul(x, y));
    assert!(fired(&g, Rule::SqrtSquared));
}

#[test]
fn rule_trig_of_zero() {
    let mut g = Graph::new();
    let s = g.var(Var::Sin(0));
    let c = g.var(Var::Cos(0));
    assert_eq!(g.as_const(s), Some(0.0));
    assert_eq!(g.as_const(c), Some(1.0));
    assert!(fired(&g, Rule::TrigOfZero));
    assert!(g.rule_stats().fired().contains(&("trig-of-zero", 2)));
}

#[test]
fn params_are_unique_by_name() {
    let mut g = Graph::new();
    let a = g.param("m1", 1.0);
    let b = g.param("m2", 2.0);
    assert_eq!(g.param("m1", 5.0), a);
    assert_ne!(a, b);
    assert_eq!(g.params().len(), 2);
    assert_eq!(g.params()[0].default, 1.0);
    let env = Env {
        params: vec![3.0, 4.0],
        ..Env::default()
    };
    assert_eq!(g.eval(b, &env), 4.0);
    assert_eq!(g.eval(b, &Env::default()), 2.0);
}

#[test]
fn diff_of_trig_and_chain() {
    let mut g = Graph::new();
    let s12 = g.var(Var::Sin(0b11));
    let c12 = g.var(Var::Cos(0b11));
    assert_eq!(g.diff(s12, Var::Q(1)), c12);
    let d = g.diff(c12, Var::Q(0));
    assert_eq!(g.node(d), &Node::Neg(s12));
    let z = g.diff(c12, Var::Q(2));
    assert_eq!(g.as_const(z), Some(0.0));
    let q = g.var(Var::Q(1));
    let qd = g.var(Var::Qd(1));
    let e = g.mul(q, qd);
    assert_eq!(g.diff(e, Var::Qd(1)), q);
}

#[test]
fn lowering_and_compaction() {
    let mut g = Graph::new();
    let m = g.param("m", 1.5);
    let s123 = g.var(Var::Sin(0b111));
    let c12 = g.var(Var::Cos(0b011));
    let _dead = g.add(m, s123);
    let a = g.mul(m, s123);
    let b = g.mul(c12, s123);
    let (h, roots) = g.lower_trig_sums(&[a, b]);
    for n in h.nodes() {
        if let Node::Var(Var::Sin(k) | Var::Cos(k)) = n {
            assert_eq!(k.count_ones(), 1, "multi-joint trig left: {n:?}");
        }
    }
    let env = env3([0.3, -0.7, 1.9]);
    for (old, new) in [a, b].iter().zip(&roots) {
        assert!((g.eval(*old, &env) - h.eval(*new, &env)).abs() < 1e-14);
    }
    // sin/cos of each of the three joints, nothing else.
    assert_eq!(h.op_count(&roots).trig, 6);
    assert_eq!(h.params().len(), 1);
    let live = h.reachable(&roots);
    assert!(live.iter().all(|l| *l), "lowering drops dead nodes");

    let (c, croots) = g.compact(&[a]);
    assert_eq!(c.len(), 3);
    assert!((c.eval(croots[0], &env) - g.eval(a, &env)).abs() < 1e-15);
}

#[test]
fn stepwise_lowering_rotates_velocities_one_joint_at_a_time() {
    let mut g = Graph::new();
    let qd0 = g.var(Var::Qd(0));
    let qd1 = g.var(Var::Qd(1));
    let m = g.param("m", 1.5);
    let c123 = g.var(Var::Cos(0b1110));
    let s12 = g.var(Var::Sin(0b0110));
    // c_123 q̇0 m, s_12 c_123 q̇0 q̇0 (both rotated), c_123 q̇1 (joint 1 is in the sum: kept).
    let a = g.product(&[c123, qd0, m]);
    let b = g.product(&[s12, c123, qd0, qd0]);
    let c = g.product(&[c123, qd1]);
    let (h, roots) = g.lower_trig_sums_stepwise(&[a, b, c]);
    let env = Env {
        q: vec![0.3, -0.7, 1.9, 0.4],
        qd: vec![1.1, -0.6, 0.0, 0.0],
        qdd: vec![0.0; 4],
        tau: vec![0.0; 4],
        params: Vec::new(),
        base: Vec::new(),
        elastic: Default::default(),
    };
    for (old, new) in [a, b, c].iter().zip(&roots) {
        assert!((g.eval(*old, &env) - h.eval(*new, &env)).abs() < 1e-14);
    }
    let live = h.reachable(&roots);
    for (i, n) in h.nodes().iter().enumerate() {
        if let (true, Node::Var(Var::Sin(k) | Var::Cos(k))) = (live[i], n) {
            assert_eq!(k.count_ones(), 1, "multi-joint trig left: {n:?}");
        }
    }
    // The innermost rotation by joint 1 of q̇0 is a product the others build on.
    let s1 = h.lookup(&Node::Var(Var::Sin(0b0010))).expect("s1");
    let q = h.lookup(&Node::Var(Var::Qd(0))).expect("q̇0");
    let pair = if s1 < q { [s1, q] } else { [q, s1] };
    assert!(h.lookup(&Node::Mul(pair.into())).is_some());
}

#[test]
fn op_counts() {
    let Toy { mut g, x, y, z } = toy();
    let xy = g.mul(x, y);
    let xyz = g.mul(xy, z);
    let two = g.constant(2.0);
    let t = g.mul(two, xyz);
    let s = g.sub(t, x); // 2xyz - x: 2 mul (xyz) + 1 (coefficient) + 1 sub
    let n = g.op_count(&[s]);
    assert_eq!((n.mul, n.add, n.neg), (3, 1, 0));
    // Shared subexpression counted once.
    let u = g.add(xyz, y);
    let n = g.op_count(&[s, u]);
    assert_eq!((n.mul, n.add), (3, 2));
    // A standalone negation and an all-negative sum cost a negation each.
    let nx = g.neg(x);
    assert_eq!(g.op_count(&[nx]).neg, 1);
    let ny = g.neg(y);
    let both = g.add(nx, ny);
    assert_eq!(
        g.op_count(&[both]),
        OpCount {
            add: 1,
            neg: 1,
            ..OpCount::default()
        }
    );
    // ...unless a negative literal carries the sign.
    let m3 = g.constant(-3.0);
    let t = g.mul(m3, y);
    let s = g.add(nx, t);
    assert_eq!(
        g.op_count(&[s]),
        OpCount {
            add: 1,
            mul: 1,
            ..OpCount::default()
        }
    );
    let d = g.div(x, y);
    let r = g.sqrt(d);
    let c = g.var(Var::Cos(0b11));
    let e = g.mul(r, c);
    let n = g.op_count(&[e]);
    assert_eq!((n.div, n.sqrt, n.trig, n.add, n.mul), (1, 1, 1, 1, 1));
    assert_eq!(n.total(), 5);
}

// ---- property tests -------------------------------------------------------------------------

/// A random expression, evaluated both through the graph and directly.
#[derive(Clone, Debug)]
enum Expr {
    Const(f64),
    Q(u16),
    Qd(u16),
    Sin(u64),
    Cos(u64),
    Param(u32),
    /// A pattern that triggers the trig identities: 0: c_a c_b - s_a s_b, 1: s_a c_b + c_a s_b,
    /// 2: s_a^2 + c_a^2.
    Trig(u8, u64, u64),
    Add(Box<Expr>, Box<Expr>),
    Sub(Box<Expr>, Box<Expr>),
    Mul(Box<Expr>, Box<Expr>),
    Neg(Box<Expr>),
    /// `a / (2 + b^2)`: never divides by (nearly) zero.
    Div(Box<Expr>, Box<Expr>),
    /// `sqrt(1 + a^2)`.
    Sqrt(Box<Expr>),
}

const PARAMS: [f64; 2] = [1.7, -0.6];

fn leaf() -> impl Strategy<Value = Expr> {
    prop_oneof![
        prop::sample::select(vec![0.0, 1.0, -1.0, 2.0, 0.5, 3.7]).prop_map(Expr::Const),
        (0u16..3).prop_map(Expr::Q),
        (0u16..3).prop_map(Expr::Qd),
        (1u64..8).prop_map(Expr::Sin),
        (1u64..8).prop_map(Expr::Cos),
        (0u32..2).prop_map(Expr::Param),
        (0u8..3, 1u64..8, 1u64..8).prop_map(|(k, a, b)| Expr::Trig(k, a, b)),
    ]
}

fn expr() -> impl Strategy<Value = Expr> {
    leaf().prop_recursive(5, 48, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::Add(a.into(), b.into())),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::Sub(a.into(), b.into())),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::Mul(a.into(), b.into())),
            inner.clone().prop_map(|a| Expr::Neg(a.into())),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::Div(a.into(), b.into())),
            inner.prop_map(|a| Expr::Sqrt(a.into())),
        ]
    })
}

fn angle(q: &[f64], m: u64) -> f64 {
    (0..3).filter(|j| m & (1 << j) != 0).map(|j| q[j]).sum()
}

/// Direct evaluation: (value, magnitude scale for the rounding-error tolerance).
fn direct(e: &Expr, env: &Env) -> (f64, f64) {
    let v = |x: f64| (x, x.abs());
    match e {
        Expr::Const(c) => v(*c),
        Expr::Q(j) => v(env.q[*j as usize]),
        Expr::Qd(j) => v(env.qd[*j as usize]),
        Expr::Sin(m) => v(angle(&env.q, *m).sin()),
        Expr::Cos(m) => v(angle(&env.q, *m).cos()),
        Expr::Param(k) => v(PARAMS[*k as usize]),
        Expr::Trig(k, a, b) => {
            let (sa, ca) = angle(&env.q, *a).sin_cos();
            let (sb, cb) = angle(&env.q, *b).sin_cos();
            match k {
                0 => (ca * cb - sa * sb, 2.0),
                1 => (sa * cb + ca * sb, 2.0),
                _ => (sa * sa + ca * ca, 2.0),
            }
        }
        Expr::Add(a, b) => {
            let ((x, mx), (y, my)) = (direct(a, env), direct(b, env));
            (x + y, mx + my)
        }
        Expr::Sub(a, b) => {
            let ((x, mx), (y, my)) = (direct(a, env), direct(b, env));
            (x - y, mx + my)
        }
        Expr::Mul(a, b) => {
            let ((x, mx), (y, my)) = (direct(a, env), direct(b, env));
            (x * y, mx * my)
        }
        Expr::Neg(a) => {
            let (x, mx) = direct(a, env);
            (-x, mx)
        }
        Expr::Div(a, b) => {
            let ((x, mx), (y, my)) = (direct(a, env), direct(b, env));
            let d = 2.0 + y * y;
            (x / d, mx / d * (1.0 + my * my))
        }
        Expr::Sqrt(a) => {
            let (x, mx) = direct(a, env);
            ((1.0 + x * x).sqrt(), (1.0 + mx * mx).sqrt())
        }
    }
}

fn build(g: &mut Graph, e: &Expr) -> NodeId {
    match e {
        Expr::Const(c) => g.constant(*c),
        Expr::Q(j) => g.var(Var::Q(*j)),
        Expr::Qd(j) => g.var(Var::Qd(*j)),
        Expr::Sin(m) => g.var(Var::Sin(*m)),
        Expr::Cos(m) => g.var(Var::Cos(*m)),
        Expr::Param(k) => g.param(&format!("p{k}"), PARAMS[*k as usize]),
        Expr::Trig(k, a, b) => {
            let (sa, ca) = (g.var(Var::Sin(*a)), g.var(Var::Cos(*a)));
            let (sb, cb) = (g.var(Var::Sin(*b)), g.var(Var::Cos(*b)));
            match k {
                0 => {
                    let x = g.mul(ca, cb);
                    let y = g.mul(sa, sb);
                    g.sub(x, y)
                }
                1 => {
                    let x = g.mul(sa, cb);
                    let y = g.mul(ca, sb);
                    g.add(x, y)
                }
                _ => {
                    let x = g.mul(sa, sa);
                    let y = g.mul(ca, ca);
                    g.add(x, y)
                }
            }
        }
        Expr::Add(a, b) => {
            let (x, y) = (build(g, a), build(g, b));
            g.add(x, y)
        }
        Expr::Sub(a, b) => {
            let (x, y) = (build(g, a), build(g, b));
            g.sub(x, y)
        }
        Expr::Mul(a, b) => {
            let (x, y) = (build(g, a), build(g, b));
            g.mul(x, y)
        }
        Expr::Neg(a) => {
            let x = build(g, a);
            g.neg(x)
        }
        Expr::Div(a, b) => {
            let (x, y) = (build(g, a), build(g, b));
            let two = g.constant(2.0);
            let yy = g.mul(y, y);
            let d = g.add(two, yy);
            g.div(x, d)
        }
        Expr::Sqrt(a) => {
            let x = build(g, a);
            let one = g.constant(1.0);
            let xx = g.mul(x, x);
            let d = g.add(one, xx);
            g.sqrt(d)
        }
    }
}

fn state() -> impl Strategy<Value = Env> {
    (
        prop::array::uniform3(-3.0f64..3.0),
        prop::array::uniform3(-2.0f64..2.0),
    )
        .prop_map(|(q, qd)| Env {
            q: q.to_vec(),
            qd: qd.to_vec(),
            ..Env::default()
        })
}

fn close(a: f64, b: f64, scale: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * scale.max(1.0).max(a.abs()).max(b.abs())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn simplified_graph_evaluates_like_the_tree(e in expr(), env in state()) {
        let mut g = Graph::new();
        let id = build(&mut g, &e);
        let (want, scale) = direct(&e, &env);
        let got = g.eval(id, &env);
        prop_assert!(close(got, want, scale, 1e-9), "graph {got} vs direct {want}");
        // Lowering and compaction keep the value.
        let (h, roots) = g.lower_trig_sums(&[id]);
        let low = h.eval(roots[0], &env);
        prop_assert!(close(low, want, scale, 1e-9), "lowered {low} vs direct {want}");
        let (c, croots) = g.compact(&[id]);
        prop_assert_eq!(c.eval(croots[0], &env).to_bits(), got.to_bits());
        // So do the sharing passes the emitters run (partial sums, pairs, negations,
        // coefficients factored).
        let (s, groups) = h.share_per_function(std::slice::from_ref(&roots));
        let shared = s.eval(groups[0][0], &env);
        prop_assert!(close(shared, want, scale, 1e-9), "shared {shared} vs direct {want}");
        // Signs chosen on any graph (the emitters keep them only where they save) keep the
        // value.
        let (z, zroots) = h.choose_signs(&roots);
        let signed = z.eval(zroots[0], &env);
        prop_assert!(close(signed, want, scale, 1e-9), "signed {signed} vs direct {want}");
        let (sz, zr) = s.choose_signs(&groups[0]);
        prop_assert!(close(sz.eval(zr[0], &env), want, scale, 1e-9));
        // Common factors taken out of the unshared graph, where every product is its own.
        let (f, froots) = h.factor_common_factors(&roots);
        let factored = f.eval(froots[0], &env);
        prop_assert!(close(factored, want, scale, 1e-9), "factored {factored} vs direct {want}");
        prop_assert!(f.op_count(&froots).total() <= h.op_count(&roots).total());
        // So are constant coefficients multiplied into the sums they scale.
        let (k, kroots) = h.distribute_coefficients(&roots);
        let distributed = k.eval(kroots[0], &env);
        prop_assert!(close(distributed, want, scale, 1e-9), "distributed {distributed} vs direct {want}");
        let (before, after) = (h.op_count(&roots), k.op_count(&kroots));
        prop_assert!(after.total() <= before.total() && after.mul <= before.mul);
    }

    #[test]
    fn diff_matches_central_differences(e in expr(), env in state(), j in 0u16..3, wrt_q in any::<bool>()) {
        let mut g = Graph::new();
        let id = build(&mut g, &e);
        let var = if wrt_q { Var::Q(j) } else { Var::Qd(j) };
        let d = g.diff(id, var);
        let got = g.eval(d, &env);
        let h = 1e-5;
        let shifted = |delta: f64| {
            let mut e2 = env.clone();
            let v = if wrt_q { &mut e2.q } else { &mut e2.qd };
            v[j as usize] += delta;
            g.eval(id, &e2)
        };
        let fd = (shifted(h) - shifted(-h)) / (2.0 * h);
        let (_, scale) = direct(&e, &env);
        prop_assert!(close(got, fd, scale, 1e-5), "d/d{var:?}: symbolic {got} vs fd {fd}");
    }

    #[test]
    fn param_jacobian_matches_forward_mode(a in expr(), b in expr(), env in state()) {
        let mut g = Graph::new();
        // Both parameters exist whatever the expressions read.
        let params: Vec<u32> = (0..2u32)
            .map(|k| {
                let id = g.param(&format!("p{k}"), PARAMS[k as usize]);
                match g.node(id) {
                    Node::Var(Var::Param(p)) => *p,
                    other => unreachable!("a parameter is a leaf: {other:?}"),
                }
            })
            .collect();
        let roots = [build(&mut g, &a), build(&mut g, &b)];
        let reverse = g.param_jacobian(&roots, &params);
        prop_assert_eq!(reverse.len(), 2);
        for (k, column) in reverse.iter().enumerate() {
            let forward = g.diff_many(&roots, Var::Param(params[k]));
            for (i, (&r, &f)) in column.iter().zip(&forward).enumerate() {
                let (want, got) = (g.eval(f, &env), g.eval(r, &env));
                let (_, scale) = direct(if i == 0 { &a } else { &b }, &env);
                prop_assert!(
                    close(got, want, scale, 1e-9),
                    "d root {i} / d p{k}: reverse {got} vs forward {want}"
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn gradients_match_forward_mode(a in expr(), b in expr(), env in state()) {
        let mut g = Graph::new();
        let roots = [build(&mut g, &a), build(&mut g, &b)];
        let wrt = [Var::Q(0), Var::Q(1), Var::Q(2), Var::Qd(0), Var::Qd(2)];
        let reverse = g.gradients(&roots, &wrt);
        for (k, column) in reverse.iter().enumerate() {
            let forward = g.diff_many(&roots, wrt[k]);
            for (i, (&r, &f)) in column.iter().zip(&forward).enumerate() {
                let (want, got) = (g.eval(f, &env), g.eval(r, &env));
                let (_, scale) = direct(if i == 0 { &a } else { &b }, &env);
                prop_assert!(
                    close(got, want, scale, 1e-9),
                    "d root {i} / d {:?}: reverse {got} vs forward {want}", wrt[k]
                );
            }
        }
    }
}

#[test]
fn a_rotated_vector_turns_at_its_other_component() {
    // x' = c x - s y, y' = s x + c y (c, s of q0; x, y sums moving with q1), read by
    // 0.3 x' - 1.7 y' + x'²: along q0 the adjoints of x' and y' multiply the other component
    // (x' turns at -y', y' at x'), not x and y through the sine and the cosine.
    let mut g = Graph::new();
    let (s, c) = (g.var(Var::Sin(1)), g.var(Var::Cos(1)));
    let (s1, c1) = (g.var(Var::Sin(2)), g.var(Var::Cos(2)));
    let qd = g.var(Var::Qd(0));
    let x = g.add(s1, qd);
    let y = g.sub(c1, qd);
    let cx = g.mul(c, x);
    let sy = g.mul(s, y);
    let sx = g.mul(s, x);
    let cy = g.mul(c, y);
    let xr = g.sub(cx, sy);
    let yr = g.add(sx, cy);
    let (w1, w2) = (g.constant(0.3), g.constant(-1.7));
    let t1 = g.mul(w1, xr);
    let t2 = g.mul(w2, yr);
    let xx = g.mul(xr, xr);
    let out = g.sum(&[t1, t2, xx]);
    let wrt = [Var::Q(0), Var::Q(1)];
    let reverse = g.gradients(&[out], &wrt);
    let env = Env {
        q: vec![0.4, -1.2],
        qd: vec![0.9],
        ..Env::default()
    };
    for (k, column) in reverse.iter().enumerate() {
        let forward = g.diff(out, wrt[k]);
        let (want, got) = (g.eval(forward, &env), g.eval(column[0], &env));
        assert!((want - got).abs() < 1e-12, "{:?}: {got} vs {want}", wrt[k]);
    }
    // Along q0 the adjoint multiplies the other component once per component (x' by y'),
    // not the rotation's four products.
    let count = g.op_count(&[reverse[0][0]]).mul - g.op_count(&[xr, yr]).mul;
    assert!(count <= 4, "{count} multiplications beyond the rotation");
}

#[test]
fn a_rotated_component_read_by_many_roots_turns_at_a_new_rate() {
    // x' = c x - s y alone (its other component s x + c y is not in the graph), read by four
    // roots: the rate's two new products are made once, then one product per root, instead
    // of four per root through the sine and the cosine; read by one root, the new products
    // would cost what they save.
    let mut g = Graph::new();
    let (s, c) = (g.var(Var::Sin(1)), g.var(Var::Cos(1)));
    let (x, y) = (g.var(Var::Qd(0)), g.var(Var::Qd(1)));
    let cx = g.mul(c, x);
    let sy = g.mul(s, y);
    let xr = g.sub(cx, sy);
    let roots: Vec<NodeId> = [0.3, -1.7, 2.9, 0.6]
        .iter()
        .map(|&w| {
            let w = g.constant(w);
            let wx = g.mul(w, xr);
            g.add(wx, x)
        })
        .collect();
    let wrt = [Var::Q(0)];
    let env = Env {
        q: vec![0.4],
        qd: vec![0.9, -0.3],
        ..Env::default()
    };
    let reverse = g.gradients(&roots, &wrt);
    for (i, &root) in roots.iter().enumerate() {
        let forward = g.diff(root, wrt[0]);
        let (want, got) = (g.eval(forward, &env), g.eval(reverse[0][i], &env));
        assert!((want - got).abs() < 1e-12, "root {i}: {got} vs {want}");
    }
    let count = g.op_count(&reverse[0]).mul;
    assert!(count <= 6, "{count} multiplications for four roots");
    let one = g.gradients(&roots[..1], &wrt);
    let (want, got) = (g.diff(roots[0], wrt[0]), one[0][0]);
    assert!((g.eval(want, &env) - g.eval(got, &env)).abs() < 1e-12);
    assert!(g.op_count(&[got]).mul <= 4);
}

#[test]
fn operands_read_the_same_stored_inline_or_on_the_heap() {
    use std::hash::BuildHasher;
    let hasher = rustc_hash::FxBuildHasher;
    for n in 0..=2 * Operands::INLINE {
        let ids: Vec<NodeId> = (0..n as u32).map(|k| NodeId(7 * k + 1)).collect();
        let made = [
            Operands::from(&ids[..]),
            Operands::from(ids.clone()),
            ids.iter().copied().collect::<Operands>(),
        ];
        for ops in &made {
            assert_eq!(&ops[..], &ids[..]);
            assert_eq!(ops, &made[0]);
            // Nodes are found by hash: equal operands must hash alike however they are made.
            assert_eq!(hasher.hash_one(ops), hasher.hash_one(&made[0]));
            assert_eq!(hasher.hash_one(ops), hasher.hash_one(&ids[..]));
        }
        let mut sorted = made[2].clone();
        sorted.reverse();
        sorted.sort_unstable();
        assert_eq!(sorted, made[0]);
    }
}

#[test]
fn rollback_leaves_the_graph_as_it_was_marked() {
    let Toy { mut g, x, y, z } = toy();
    let xy = g.mul(x, y);
    let before = g.clone();
    let mark = g.mark();
    let tried = g.add(xy, z);
    let w = g.param("w", 1.5);
    let more = g.mul(tried, w);
    g.set_name(more, "tried");
    assert!(g.len() > before.len());
    g.rollback(mark);
    assert_eq!(g.nodes(), before.nodes());
    assert_eq!(g.params(), before.params());
    assert!(g.names().is_empty() && g.rule_stats() == before.rule_stats());
    // Nodes made before the mark are still found; the ones taken back are made anew, at the
    // ids they would have had.
    assert_eq!(g.mul(x, y), xy);
    assert_eq!(g.add(xy, z), tried);
    assert_eq!(g.param("w", 1.5), w);
    assert_eq!(g.len(), before.len() + 2);
}

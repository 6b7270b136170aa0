//! The derivation's [`Algebra`] on the IR: running the derivation on a [`Graph`] builds the
//! expressions of the generated code.

use crate::algebra::{Algebra, Joint};

use super::graph::Graph;
use super::node::{NodeId, Var};
use crate::inputs::{BaseVar, ElasticVar};

fn joint(j: Joint) -> u16 {
    u16::try_from(j).expect("joint index fits in u16")
}

impl Algebra for Graph {
    type E = NodeId;
    fn double_angle(&self) -> bool {
        Graph::double_angle(self)
    }
    fn run_shift(&self) -> bool {
        Graph::run_shift(self)
    }
    fn constant(&mut self, value: f64) -> NodeId {
        Graph::constant(self, value)
    }
    fn add(&mut self, a: NodeId, b: NodeId) -> NodeId {
        Graph::add(self, a, b)
    }
    fn sub(&mut self, a: NodeId, b: NodeId) -> NodeId {
        Graph::sub(self, a, b)
    }
    fn mul(&mut self, a: NodeId, b: NodeId) -> NodeId {
        Graph::mul(self, a, b)
    }
    fn neg(&mut self, a: NodeId) -> NodeId {
        Graph::neg(self, a)
    }
    fn div(&mut self, a: NodeId, b: NodeId) -> NodeId {
        Graph::div(self, a, b)
    }
    fn sqrt(&mut self, a: NodeId) -> NodeId {
        Graph::sqrt(self, a)
    }
    fn q(&mut self, j: Joint) -> NodeId {
        self.var(Var::Q(joint(j)))
    }
    fn qd(&mut self, j: Joint) -> NodeId {
        self.var(Var::Qd(joint(j)))
    }
    fn qdd(&mut self, j: Joint) -> NodeId {
        self.var(Var::Qdd(joint(j)))
    }
    fn tau(&mut self, j: Joint) -> NodeId {
        self.var(Var::Tau(joint(j)))
    }
    fn sin_sum(&mut self, mask: u64) -> NodeId {
        self.var(Var::Sin(mask))
    }
    fn cos_sum(&mut self, mask: u64) -> NodeId {
        self.var(Var::Cos(mask))
    }
    fn param(&mut self, name: &str, value: f64, symbolic: bool) -> NodeId {
        if symbolic {
            Graph::param(self, name, value)
        } else {
            Graph::constant(self, value)
        }
    }
    fn label(&mut self, e: NodeId, name: &str) {
        // A quantity that folded to a number is printed as that number: a name on the
        // constant node would name every other use of the number too.
        if self.as_const(e).is_none() {
            self.set_name(e, name);
        }
    }
    fn base(&mut self, v: BaseVar) -> NodeId {
        self.var(Var::Base(v))
    }
    fn elastic(&mut self, v: ElasticVar) -> NodeId {
        self.var(Var::Elastic(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algebra::Numeric;
    use crate::ir::Env;

    /// A small generic computation run on both algebras must agree.
    fn planar_tip<A: Algebra>(a: &mut A) -> (A::E, A::E) {
        let l1 = a.param("l1", 0.7, true);
        let l2 = a.param("l2", 0.4, false);
        let c1 = a.cos(0);
        let s1 = a.sin(0);
        let c12 = a.cos_sum(0b11);
        let s12 = a.sin_sum(0b11);
        let x1 = a.mul(l1, c1);
        let x2 = a.mul(l2, c12);
        let y1 = a.mul(l1, s1);
        let y2 = a.mul(l2, s12);
        let x = a.add(x1, x2);
        let y = a.add(y1, y2);
        a.label(x, "tip_x");
        (x, y)
    }

    #[test]
    fn graph_matches_numeric() {
        let q = vec![0.3, -1.1];
        let mut num = Numeric {
            q: q.clone(),
            ..Numeric::default()
        };
        let (nx, ny) = planar_tip(&mut num);
        let mut g = Graph::new();
        let (x, y) = planar_tip(&mut g);
        let env = Env {
            q,
            ..Env::default()
        };
        assert!((g.eval(x, &env) - nx).abs() < 1e-12);
        assert!((g.eval(y, &env) - ny).abs() < 1e-12);
        assert_eq!(g.params().len(), 1);
        assert_eq!(g.name(x), Some("tip_x"));
    }
}

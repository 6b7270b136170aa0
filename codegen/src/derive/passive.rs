//! The joints' linear springs and dampers (MuJoCo's joint `stiffness`, `springref` and
//! `damping`): each acts on its own joint coordinate alone, `-k (q - q_ref) - d q̇`; and those
//! of fixed tendons, on a linear combination `L = Σ c_j q_j`, which pull each of their joints
//! by `c_j (-k (L - L_0) - d L̇)`. No kinematics at all.

use crate::algebra::Algebra;
use crate::model::Robot;

/// `-stiffness (q - reference) - damping qd` per joint; a floating base's six coordinates
/// come first, with no spring or damper.
pub fn passive_forces<A: Algebra>(alg: &mut A, robot: &Robot) -> Vec<A::E> {
    let base = if robot.is_floating() { 6 } else { 0 };
    let mut out: Vec<A::E> = (0..base).map(|_| alg.constant(0.0)).collect();
    for (j, body) in robot.bodies.iter().enumerate() {
        let p = body.passive;
        let mut force = alg.constant(0.0);
        if p.stiffness != 0.0 {
            let q = alg.q(j);
            let offset = alg.constant(p.reference);
            let stretch = alg.sub(q, offset);
            let k = alg.constant(-p.stiffness);
            force = alg.mul(k, stretch);
        }
        if p.damping != 0.0 {
            let qd = alg.qd(j);
            let d = alg.constant(-p.damping);
            let damper = alg.mul(d, qd);
            force = alg.add(force, damper);
        }
        out.push(force);
    }
    for tendon in &robot.tendons {
        // The tendon's force along its length, then onto each joint through its coefficient.
        let mut force = alg.constant(0.0);
        if tendon.stiffness != 0.0 {
            let mut length = alg.constant(-tendon.length);
            for &(j, c) in &tendon.joints {
                let q = alg.q(j);
                let term = scaled(alg, c, q);
                length = alg.add(length, term);
            }
            let k = alg.constant(-tendon.stiffness);
            force = alg.mul(k, length);
        }
        if tendon.damping != 0.0 {
            let mut rate = alg.constant(0.0);
            for &(j, c) in &tendon.joints {
                let qd = alg.qd(j);
                let term = scaled(alg, c, qd);
                rate = alg.add(rate, term);
            }
            let d = alg.constant(-tendon.damping);
            let damper = alg.mul(d, rate);
            force = alg.add(force, damper);
        }
        for &(j, c) in &tendon.joints {
            let pull = scaled(alg, c, force);
            out[base + j] = alg.add(out[base + j], pull);
        }
    }
    out
}

/// `c x`.
fn scaled<A: Algebra>(alg: &mut A, c: f64, x: A::E) -> A::E {
    let c = alg.constant(c);
    alg.mul(c, x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algebra::Numeric;
    use crate::model::PassiveJoint;

    /// A spring and damper on the second joint of the UR5 alone, by hand.
    #[test]
    fn each_joint_has_its_own_spring_and_damper() {
        let Some(text) = crate::workspace_files::workspace_text("robots/ur5.toml") else {
            return;
        };
        let mut robot = crate::parse_spec(&text, "ur5.toml").expect("the UR5 reads");
        robot.bodies[1].passive = PassiveJoint {
            stiffness: 3.0,
            damping: 0.5,
            reference: 0.2,
        };
        let q = [0.1, 0.7, -0.3, 0.2, 0.4, 0.5];
        let qd = [1.0, -2.0, 0.5, 0.0, 0.3, 0.1];
        let mut alg = Numeric {
            q: q.to_vec(),
            qd: qd.to_vec(),
            qdd: vec![0.0; 6],
            tau: vec![0.0; 6],
            base: Vec::new(),
            elastic: Default::default(),
            double_angle: false,
            run_shift: false,
        };
        let tau = passive_forces(&mut alg, &robot);
        let expected = [0.0, -3.0 * (0.7 - 0.2) - 0.5 * -2.0, 0.0, 0.0, 0.0, 0.0];
        assert_eq!(tau, expected);

        // A tendon on joints 3 and 5 adds c_j (-k (L - L0) - d L') to each.
        robot.tendons.push(crate::model::TendonSpring {
            name: "t".to_owned(),
            joints: vec![(2, 0.5), (4, -2.0)],
            stiffness: 4.0,
            damping: 0.25,
            length: 0.1,
        });
        let tau = passive_forces(&mut alg, &robot);
        let length = 0.5 * -0.3 - 2.0 * 0.4;
        let rate = 0.5 * 0.5 - 2.0 * 0.3;
        let force = -4.0 * (length - 0.1) - 0.25 * rate;
        let want = [0.0, expected[1], 0.5 * force, 0.0, -2.0 * force, 0.0];
        for (got, want) in tau.iter().zip(want) {
            assert!((got - want).abs() < 1e-15, "{tau:?} {want}");
        }
    }
}

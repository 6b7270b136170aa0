//! A tree and a floating base: the hand's fingertip and the torques that hold the quadruped.

// The modules that build.rs wrote to `$OUT_DIR`.
quasidyn::include_robot!("hand");
quasidyn::include_robot!("quadruped_floating");

use quadruped_floating as quadruped;

fn main() {
    // The hand: one function per named frame, joints in the spec's order.
    let q = [0.2; hand::DOF];
    let (_, tip) = hand::forward_kinematics_link_15_0_tip(&q);
    println!("{} at {tip:.4?} m", hand::FRAME_NAMES[3]);

    // The quadruped: q = trunk position, unit quaternion (x y z w), 12 joint angles; v and a
    // the trunk's linear and angular velocity in its own frame, then the joint rates.
    let mut q = [0.0; quadruped::NQ];
    q[2] = 0.3;
    q[6] = 1.0;
    for leg in 0..4 {
        q[7 + 3 * leg..10 + 3 * leg].copy_from_slice(&[0.0, 0.7, -1.4]);
    }
    let g = quadruped::gravity(&q);
    println!("trunk force {:.3?} N, moment {:.3?} N m", &g[..3], &g[3..6]);
    println!("{}: {:.4} N m", quadruped::JOINT_NAMES[1], g[7]);
}

quasidyn::robot!(file = "robots/no_such_robot.toml", name = "arm");

fn main() {
    let _ = arm::inverse_dynamics(&[0.0; 2], &[0.0; 2], &[0.0; 2]);
}

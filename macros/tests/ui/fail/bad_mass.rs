quasidyn::robot!(r#"
name = "arm"

[[body]]
joint = "revolute"
axis = "z"
mass = -1.0
"#);

fn main() {
    let tau: [f64; arm::DOF] = arm::gravity(&[0.0]);
    let _ = tau;
}

use quasidyn::Dynamics;

quasidyn::robot!(r#"
name = "arm"

[[body]]
joint = "revolute"
axis = "z"
mass = 1.0
inertia = { ixx = 0.1, iyy = 0.1, izz = 0.1, about = "pole" }
color = "red"
"#);

fn main() {
    let _ = arm::Arm.mass_matrix(&[0.0]);
}

// A function left out by `only` is not in the module.
quasidyn::robot!(r#"
name = "arm"
gravity = [0.0, -9.81, 0.0]

[[body]]
joint = "revolute"
axis = "z"
next = [1.0, 0.0, 0.0]
mass = 1.0
com = [0.5, 0.0, 0.0]

[[body]]
joint = "revolute"
axis = "y"
next = [1.0, 0.0, 0.0]
mass = 1.0
com = [0.5, 0.1, 0.0]
"#, only = ["gravity"]);

fn main() {
    let _ = arm::gravity(&[0.0; 2]);
    let _ = arm::mass_matrix(&[0.0; 2]);
}

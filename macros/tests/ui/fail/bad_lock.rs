quasidyn::robot!(r#"
name = "arm"

[[body]]
joint = "revolute"
axis = "z"
mass = 1.0
"#, lock = "elbow=fast");

fn main() {}

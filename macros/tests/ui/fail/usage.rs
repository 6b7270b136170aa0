// Misused arguments, and include_robot! without a build script that generated the file.
quasidyn::robot!(path = "robots/ur5.toml");

quasidyn::include_robot!("ur5");

fn main() {
    let _ = ur5::gravity(&[0.0; 6]);
}

//! Identifiers made from the names in a robot's description: the robot's module and type
//! names, and the frame part of the frame functions' names. A leaf: the model, the importers
//! and the emitters all name things the same way.

/// The identifier form of a frame name used in function names: ASCII letters and digits
/// (lower-cased) kept, every other character `_` (`link_3.0_tip` → `link_3_0_tip`).
pub fn frame_ident(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// A snake_case identifier made from a robot name (lowercase; non-alphanumerics become `_`;
/// `robot_` in front of an empty name or one that starts with a digit).
pub fn snake_ident(name: &str) -> String {
    let mut s = frame_ident(name);
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert_str(0, "robot_");
    }
    s
}

/// A CamelCase type name made from a robot name.
pub fn camel_ident(name: &str) -> String {
    let mut out = String::new();
    for part in name.split(|c: char| !c.is_ascii_alphanumeric()) {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            out.extend(chars.map(|c| c.to_ascii_lowercase()));
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert_str(0, "Robot");
    }
    out
}

//! The Rust items that are the same for every robot, made from the function catalogue: the
//! methods of the runtime's `Dynamics` trait (kept in `quasidyn`'s source, which a test
//! compares with [`dynamics_trait_methods`]) and the stand-in module the `robot!` macro emits
//! when it rejects a robot, so that code using the robot type-checks and the macro's error is
//! the only one. Both are generic in the number of joints `N`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::functions::{Dim, Entry, CATALOGUE};

/// The catalogue entries of the `Dynamics` trait's methods, in trait order.
fn trait_entries() -> impl Iterator<Item = &'static Entry> {
    CATALOGUE.iter().filter(|e| e.group.in_dynamics_trait())
}

/// The size of a dimension in a signature generic in `N` (a fixed base's `N` joints).
fn size(dim: Dim) -> String {
    match dim {
        Dim::N | Dim::Joints => "N".to_owned(),
        Dim::Fixed(k) => k.to_string(),
        Dim::PerBody(k) => format!("{k} * N"),
        Dim::Base | Dim::Beta | Dim::W | Dim::Contacts => {
            unreachable!("not in a Dynamics method")
        }
    }
}

/// The Rust parameter list and return type of `entry` generic in `N`: `q: &[f64; N], ...` and
/// `[f64; N]` (a tuple for several outputs, matrices as `[[f64; COLS]; ROWS]`).
fn signature(entry: &Entry) -> (String, String) {
    let params: Vec<String> = entry
        .inputs
        .iter()
        .map(|i| format!("{}: &[f64; N]", i.name()))
        .collect();
    let outputs: Vec<String> = entry
        .outputs
        .iter()
        .map(|o| match o.cols {
            None => format!("[f64; {}]", size(o.rows)),
            Some(c) => format!("[[f64; {}]; {}]", size(c), size(o.rows)),
        })
        .collect();
    let ret = match outputs.as_slice() {
        [one] => one.clone(),
        many => format!("({})", many.join(", ")),
    };
    (params.join(", "), ret)
}

/// `text` as `///` lines indented by `indent`, wrapped at 100 columns.
fn doc_lines(text: &str, indent: &str) -> String {
    let width = 100 - indent.len() - 4;
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            out.push_str(&format!("{indent}/// {line}\n"));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push_str(&format!("{indent}/// {line}\n"));
    }
    out
}

/// The method declarations of `quasidyn::Dynamics<N>`, documented (the function, then each
/// output in the order the returned tuple holds them), as they stand in the
/// runtime's source (indented by four spaces, one per catalogue entry of the trait's group).
pub fn dynamics_trait_methods() -> String {
    let mut out = String::new();
    for e in trait_entries() {
        let (params, ret) = signature(e);
        out.push_str(&doc_lines(e.doc, "    "));
        out.push_str("    ///\n");
        for o in e.outputs {
            // Wrapped as if indented by the item's `    /// - `.
            let line = doc_lines(&format!("`{}`: {}.", o.name, o.doc), "      ");
            // A list item per output, its continuation lines indented under the item.
            for (k, l) in line.lines().enumerate() {
                let text = l.trim_start().trim_start_matches("/// ");
                let bullet = if k == 0 { "- " } else { "  " };
                out.push_str(&format!("    /// {bullet}{text}\n"));
            }
        }
        out.push_str(&format!("    fn {}(&self, {params}) -> {ret};\n", e.name));
    }
    out
}

/// The items of the stand-in module for a rejected robot: `DOF`, the type `type_name`, the
/// free functions of the `Dynamics` methods and the trait's implementation, every body
/// `unreachable!()` (the module only has to type-check; the macro's error stops the build).
pub fn stub_module_items(type_name: &str, dof: usize) -> TokenStream {
    let ty = format_ident!("{type_name}");
    let mut free = Vec::new();
    let mut methods = Vec::new();
    for e in trait_entries() {
        let (params, ret) = signature(e);
        let name = &e.name;
        let function: TokenStream =
            format!("pub fn {name}<const N: usize>({params}) -> {ret} {{ unreachable!() }}")
                .parse()
                .expect("a stub function parses");
        let method: TokenStream =
            format!("fn {name}(&self, {params}) -> {ret} {{ unreachable!() }}")
                .parse()
                .expect("a stub method parses");
        free.push(function);
        methods.push(method);
    }
    quote! {
        pub const DOF: usize = #dof;
        pub struct #ty;
        #(#free)*
        impl<const N: usize> ::quasidyn::Dynamics<N> for #ty {
            #(#methods)*
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trait_methods_are_the_dynamics_group() {
        let methods = dynamics_trait_methods();
        assert!(methods.contains(
            "    fn inverse_dynamics(&self, q: &[f64; N], qd: &[f64; N], qdd: &[f64; N]) -> \
             [f64; N];\n"
        ));
        assert!(methods.contains("    fn mass_matrix(&self, q: &[f64; N]) -> [[f64; N]; N];\n"));
        assert!(methods.contains(
            "    fn static_joint_reactions(&self, q: &[f64; N]) -> ([[f64; 3]; N], [[f64; 3]; \
             N]);\n"
        ));
        assert_eq!(methods.matches("    fn ").count(), 11);
        assert!(!methods.contains("derivatives"));
        assert!(methods.lines().all(|l| l.len() <= 100));
    }

    #[test]
    fn stub_parses_as_items() {
        let items = stub_module_items("Ur5", 6);
        let file: syn::File = syn::parse2(items).expect("stub items parse");
        // DOF, the type, eleven functions and the impl.
        assert_eq!(file.items.len(), 14);
    }
}

//! Operation counts of the emitted code of every robot in robots/, per function, as the
//! emitters see it (the lowered module: `sin`/`cos` of single joints only).
//!
//! Run with `cargo bench -p quasidyn-tests --bench op_counts`.

use quasidyn_codegen::{build_module, load_spec, FunctionKind, NodeId, OpCount};
use quasidyn_tests::shipped_robots;

fn row(label: &str, c: &OpCount) {
    println!(
        "  {label:<24} {:>6} {:>6} {:>4} {:>4} {:>4} {:>4} {:>7}",
        c.mul,
        c.add,
        c.div,
        c.neg,
        c.trig,
        c.sqrt,
        c.total()
    );
}

fn main() {
    for path in shipped_robots() {
        let robot = load_spec(&path).expect("shipped spec parses");
        let module = build_module(&robot).lowered();
        println!("\n{} ({} joints)", robot.name, module.dof);
        println!(
            "  {:<24} {:>6} {:>6} {:>4} {:>4} {:>4} {:>4} {:>7}",
            "function", "mul", "add", "div", "neg", "trig", "sqrt", "total"
        );
        for kind in FunctionKind::ALL {
            let f = module.function(kind).expect("every function is generated");
            let roots: Vec<NodeId> = f
                .outputs
                .iter()
                .flat_map(|o| o.values.iter().copied())
                .collect();
            row(&format!("{kind:?}"), &module.graph.op_count(&roots));
        }
        row("(all, shared)", &module.graph.op_count(&module.roots()));
    }
}

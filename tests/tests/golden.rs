//! Golden snapshots of the emitted Rust and C of two small robots: any change to the generated
//! code of planar3r or gimbal shows up here as a reviewable diff (`cargo insta review`).

use quasidyn_codegen::{build_module, emit_c, emit_rust, load_spec, COptions};
use quasidyn_tests::workspace_root;

fn check(stem: &str) {
    let robot = load_spec(&workspace_root().join(format!("robots/{stem}.toml"))).expect("spec");
    let module = build_module(&robot);
    insta::assert_snapshot!(
        format!("{stem}_rust"),
        emit_rust(&module).expect("emits Rust")
    );
    let c = emit_c(&module, &COptions::default()).expect("emits C");
    insta::assert_snapshot!(format!("{stem}_c_header"), c.header);
    insta::assert_snapshot!(format!("{stem}_c_source"), c.source.expect("a source file"));
}

#[test]
fn planar3r_golden() {
    check("planar3r");
}

#[test]
fn gimbal_golden() {
    check("gimbal");
}

//! The batched contact functions (`--batch`) against Pinocchio: `contact_jacobian_batch` and
//! `contact_forward_dynamics_batch` of every robot of `tests/fixtures/contacts/` (written by
//! tools/contact_reference.py from `constraintDynamics`: point contacts on the floating and the
//! fixed quadruped, a 6d contact on the UR5's flange, two 6d feet of a 30-joint floating
//! humanoid), generated in C with a batch of four states, compiled with the strict C99 flags
//! and run over the fixture states (the last batch filled up with the first states again);
//! every state's `Jc`, `a` and `lambda` agree with Pinocchio's at 1e-9 relative, `a` and
//! `lambda` each at its own scale, as the scalar functions' tests check them.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use quasidyn_codegen::import::ImportOptions;
use quasidyn_codegen::{build_module_only, emit_c, load_input_with, COptions, FunctionKind};
use serde_json::Value;

const REL: f64 = 1e-9;
/// States per call of the batched functions.
const BATCH: usize = 4;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap_or_else(|| panic!("array, got {v}"))
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect()
}

fn size(v: &Value, key: &str) -> usize {
    usize::try_from(v[key].as_u64().expect("a size")).expect("a small size")
}

/// `actual` against `expected` relative to the larger of 1 and `expected`'s largest entry.
fn assert_close(what: &str, actual: &[f64], expected: &[f64]) {
    assert_eq!(actual.len(), expected.len(), "{what}: length");
    let scale = expected.iter().fold(1.0_f64, |m, v| m.max(v.abs()));
    for (k, (a, e)) in actual.iter().zip(expected).enumerate() {
        assert!(
            (a - e).abs() <= REL * scale,
            "{what}[{k}]: got {a:e}, Pinocchio {e:e} (tolerance {:e})",
            REL * scale
        );
    }
}

/// `{ {x[0][k0], x[0][k1], ...}, ... }` for one batch: row `i` holds entry `i` of each state.
fn batch_initialiser(states: &[&Value], key: &str, len: usize) -> String {
    let columns: Vec<Vec<f64>> = states.iter().map(|s| numbers(&s[key])).collect();
    let rows: Vec<String> = (0..len)
        .map(|i| {
            let row: Vec<String> = columns.iter().map(|c| format!("{:?}", c[i])).collect();
            format!("{{{}}}", row.join(", "))
        })
        .collect();
    format!("{{{}}}", rows.join(",\n  "))
}

fn gcc(dir: &Path, args: &[&str]) {
    let mut all = vec!["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"];
    all.extend(args);
    let run = Command::new("gcc")
        .args(&all)
        .current_dir(dir)
        .output()
        .expect("gcc runs");
    assert!(
        run.status.success(),
        "gcc {all:?}: {}",
        String::from_utf8_lossy(&run.stderr)
    );
}

/// Generates the fixture robot's two contact functions with their batched forms, runs the
/// batched forms over every fixture state and compares them with Pinocchio's values.
fn batched_c_matches_pinocchio(fixture: &str) {
    let path = root().join(format!("tests/fixtures/contacts/{fixture}.json"));
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("fixture")).expect("json");
    let (nq, nv, nc) = (size(&json, "nq"), size(&json, "nv"), size(&json, "nc"));
    let options = ImportOptions {
        contacts: json["contacts"]
            .as_array()
            .expect("contacts")
            .iter()
            .map(|c| c.as_str().expect("a contact").to_owned())
            .collect(),
        ..ImportOptions::default()
    };
    let input = json["input"].as_str().expect("input");
    let mut robot = load_input_with(&root().join(input), &options)
        .unwrap_or_else(|e| panic!("{input}: {e}"))
        .robot;
    robot.name = format!("{fixture}_batched");
    assert_eq!(robot.contact_rows(), nc, "{fixture}: NC");
    let module = build_module_only(&robot, Some(&FunctionKind::CONTACTS[..]));
    let name = module.robot_name.clone();
    let files = emit_c(
        &module,
        &COptions {
            batch: Some(BATCH),
            ..COptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("{fixture}: {e}"));
    let source = files.source_name.clone().expect("a source file");
    let work = tempfile::tempdir().expect("temp dir");
    std::fs::write(work.path().join(&files.header_name), &files.header).expect("write");
    std::fs::write(
        work.path().join(&source),
        files.source.as_ref().expect("source"),
    )
    .expect("write");

    let states: Vec<&Value> = json["states"].as_array().expect("states").iter().collect();
    let batches = states.len().div_ceil(BATCH);
    // Slot k of batch b holds state (b B + k) mod S: the last batch repeats the first states.
    let slot = |b: usize, k: usize| (b * BATCH + k) % states.len();
    let mut inputs = String::new();
    for (key, len) in [("q", nq), ("v", nv), ("tau", nv)] {
        let per_batch: Vec<String> = (0..batches)
            .map(|b| {
                let group: Vec<&Value> = (0..BATCH).map(|k| states[slot(b, k)]).collect();
                batch_initialiser(&group, key, len)
            })
            .collect();
        let _ = writeln!(
            inputs,
            "static const double {key}_in[{batches}][{len}][{BATCH}] = {{\n  {}\n}};",
            per_batch.join(",\n  ")
        );
    }
    let upper = name.to_ascii_uppercase();
    let main = format!(
        r#"#include <stdio.h>
#include "{header}"

#if {upper}_BATCH != {BATCH} || {upper}_NC != {nc}
#error "batch size or contact rows"
#endif

{inputs}
static double jc[{nc} * {nv}][{BATCH}], a[{nv}][{BATCH}], lambda[{nc}][{BATCH}];

static void print(const double (*x)[{BATCH}], int rows, int k)
{{
    int i;
    for (i = 0; i < rows; ++i) printf("%.17g\n", x[i][k]);
}}

int main(void)
{{
    int b, k;
    for (b = 0; b < {batches}; ++b) {{
        {name}_contact_jacobian_batch(q_in[b], jc);
        {name}_contact_forward_dynamics_batch(q_in[b], v_in[b], tau_in[b], a, lambda);
        for (k = 0; k < {BATCH}; ++k) {{
            print((const double (*)[{BATCH}])jc, {nc} * {nv}, k);
            print((const double (*)[{BATCH}])a, {nv}, k);
            print((const double (*)[{BATCH}])lambda, {nc}, k);
        }}
    }}
    return 0;
}}
"#,
        header = files.header_name,
    );
    std::fs::write(work.path().join("main.c"), main).expect("write");
    gcc(
        work.path(),
        &["-O2", "main.c", &source, "-o", "check", "-lm"],
    );
    let run = Command::new(work.path().join("check"))
        .output()
        .expect("runs");
    assert!(run.status.success(), "{fixture}: the check failed");
    let values: Vec<f64> = String::from_utf8(run.stdout)
        .expect("text")
        .lines()
        .map(|l| l.parse().unwrap_or_else(|e| panic!("{l:?}: {e}")))
        .collect();
    let per_state = nc * nv + nv + nc;
    assert_eq!(
        values.len(),
        batches * BATCH * per_state,
        "{fixture}: outputs"
    );
    for (n, got) in values.chunks(per_state).enumerate() {
        let (b, k) = (n / BATCH, n % BATCH);
        let s = slot(b, k);
        let st = states[s];
        let what = format!("{fixture} state {s} (batch {b}, slot {k})");
        let (jc, rest) = got.split_at(nc * nv);
        let (a, lambda) = rest.split_at(nv);
        assert_close(
            &format!("{what} contact_jacobian_batch"),
            jc,
            &numbers(&st["contact_jacobian"]),
        );
        let want = numbers(&st["contact_forward_dynamics"]);
        assert_close(
            &format!("{what} contact_forward_dynamics_batch: a"),
            a,
            &want[..nv],
        );
        assert_close(
            &format!("{what} contact_forward_dynamics_batch: lambda"),
            lambda,
            &want[nv..],
        );
    }
}

#[test]
fn batched_c_of_the_floating_quadruped_on_two_feet_matches_pinocchio() {
    batched_c_matches_pinocchio("quadruped_floating");
}

#[test]
fn batched_c_of_the_floating_quadruped_on_four_feet_matches_pinocchio() {
    batched_c_matches_pinocchio("quadruped_floating_four");
}

#[test]
fn batched_c_of_the_fixed_quadruped_matches_pinocchio() {
    batched_c_matches_pinocchio("quadruped_fixed");
}

#[test]
fn batched_c_of_the_ur5_with_a_6d_flange_contact_matches_pinocchio() {
    batched_c_matches_pinocchio("ur5_flange");
}

#[test]
fn batched_c_of_the_humanoid_on_two_6d_feet_matches_pinocchio() {
    batched_c_matches_pinocchio("humanoid30");
}

#[test]
fn every_contact_fixture_is_checked_batched() {
    let dir = root().join("tests/fixtures/contacts");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("fixtures")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| p.file_stem().expect("stem").to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "humanoid30",
            "quadruped_fixed",
            "quadruped_floating",
            "quadruped_floating_four",
            "ur5_flange"
        ]
    );
}

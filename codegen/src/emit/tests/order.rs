//! Where emitted code puts things: the operations written match the counts, outputs are
//! written early and each once, locals are ordered to keep few values live.

use super::*;

/// Operations written in a C function body, counted the way [`OpCount`] defines them.
fn ops_in_c_body(body: &str) -> crate::ir::OpCount {
    let mut n = crate::ir::OpCount::default();
    for line in body.lines().filter(|l| !l.contains("(void)")) {
        let rhs = line.split_once('=').map_or("", |(_, r)| r);
        n.trig += rhs.matches("sin(").count() + rhs.matches("cos(").count();
        // The trigonometric block's reads stand for the `#else` branch's calls, counted there.
        n.sqrt += rhs.matches("sqrt(").count();
        // A fused multiply-add (or multiply-subtract) is the multiplication and the addition
        // it stands for.
        let fused = ["_FMA(", "_FNMA(", "_FMS("]
            .iter()
            .map(|f| rhs.matches(f).count())
            .sum::<usize>();
        n.mul += fused;
        n.add += fused;
        let chars: Vec<char> = rhs.chars().collect();
        let mut prev = '=';
        for (i, &c) in chars.iter().enumerate() {
            match c {
                '*' => n.mul += 1,
                '/' => n.div += 1,
                '+' => n.add += 1,
                '-' if chars.get(i + 1) == Some(&'>') => {}
                '-' if prev.is_ascii_alphanumeric() || prev == ')' || prev == ']' => n.add += 1,
                // A sign directly on a literal is free.
                '-' if !chars.get(i + 1).is_some_and(char::is_ascii_digit) => n.neg += 1,
                _ => {}
            }
            if !c.is_whitespace() {
                prev = c;
            }
        }
    }
    n
}

#[test]
fn emitted_c_has_the_counted_operations() {
    for module in [toy(true, true), toy(false, false)] {
        let lowered = module.lowered();
        let src = emit_c(&module, &COptions::default())
            .unwrap()
            .source
            .unwrap();
        let counts = module.op_counts();
        for (f, (kind, counted)) in lowered.functions.iter().zip(counts) {
            assert_eq!(f.kind, kind);
            let name = format!("_{}(", entry(f.kind).name);
            let start = src.find(&name).expect("function emitted");
            let body = &src[start..];
            let body = &body[body.find('{').unwrap()..body.find("\n}").unwrap()];
            assert_eq!(ops_in_c_body(body), counted, "{kind:?}");
        }
    }
}

/// A scalar C function as emitted: its name, input and output array names and body lines.
struct CFunction<'a> {
    name: String,
    inputs: Vec<String>,
    outputs: Vec<String>,
    body: Vec<&'a str>,
}

/// Every scalar C function of `source`.
fn c_functions(source: &str) -> Vec<CFunction<'_>> {
    let mut out = Vec::new();
    let mut rest = source;
    while let Some(start) = rest.find("\nvoid ") {
        let after = &rest[start + 1..];
        let open = after.find("\n{\n").expect("function body");
        let close = after.find("\n}\n").expect("function end");
        let prototype = &after[..open];
        let name = prototype[5..prototype.find('(').expect("prototype")].to_owned();
        let (mut inputs, mut outputs) = (Vec::new(), Vec::new());
        let args = &prototype[prototype.find('(').unwrap() + 1..prototype.rfind(')').unwrap()];
        for arg in args.split(", ").filter(|a| a.ends_with("[]")) {
            let id = arg
                .trim_end_matches("[]")
                .rsplit(' ')
                .next()
                .unwrap()
                .to_owned();
            if arg.starts_with("const ") {
                inputs.push(id);
            } else {
                outputs.push(id);
            }
        }
        let body: Vec<&str> = after[open + 3..close].lines().collect();
        if !name.ends_with("_batch") {
            out.push(CFunction {
                name,
                inputs,
                outputs,
                body,
            });
        }
        rest = &after[close..];
    }
    out
}

/// Whether `line` indexes the array `name` (not merely one whose name ends the same).
fn indexes(line: &str, name: &str) -> bool {
    let pattern = format!("{name}[");
    line.match_indices(&pattern).any(|(at, _)| {
        !line[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// The C reads every input into a local first, then writes each output entry early: no line
/// reads an input array after the first store (an output array may be an input array of the
/// same call), and the stores are interleaved with the locals.
#[test]
fn c_outputs_are_written_early_and_after_every_input_read() {
    let Some(robots) = workspace_file("robots") else {
        return;
    };
    let mut interleaved = Vec::new();
    for stem in ["ur5", "quadruped_floating"] {
        let robot = crate::load_spec(&robots.join(format!("{stem}.toml"))).expect("shipped spec");
        let c = emit_c(&crate::build_module(&robot), &COptions::default()).unwrap();
        let source = c.source.unwrap();
        for CFunction {
            name,
            inputs,
            outputs,
            body,
        } in c_functions(&source)
        {
            let reads = |l: &str| inputs.iter().any(|i| indexes(l, i));
            let store = |l: &str| {
                outputs
                    .iter()
                    .any(|o| l.trim_start().starts_with(&format!("{o}[")))
            };
            let local = |l: &str| l.trim_start().starts_with("const ");
            // A function cut into parts only calls them; its parts (`static`, not listed by
            // `c_functions`) are checked by `c_functions_cut_into_parts_compile_and_match_eval`.
            let Some(first_store) = body.iter().position(|l| store(l)) else {
                assert!(
                    body.iter().any(|l| l.contains(&format!("{name}_part1("))),
                    "{name}: no output written"
                );
                continue;
            };
            let last_local = body.iter().rposition(|l| local(l)).unwrap_or(0);
            for (k, line) in body.iter().enumerate() {
                if reads(line) {
                    assert!(
                        k < first_store,
                        "{name}: `{line}` reads an input after a store"
                    );
                }
            }
            if first_store < last_local {
                interleaved.push(name);
            }
        }
    }
    for name in [
        "quadruped_floating_mass_matrix",
        "ur5_inverse_dynamics_derivatives",
    ] {
        assert!(interleaved.iter().any(|n| n == name), "{name} writes early");
    }
}

/// The C order and its three candidates compute each local after the locals it reads, every
/// local once; the order written is the pressure order holding fewer values live, or the
/// depth-first order where that needs fewer estimated spills, and it holds fewer values live
/// than the graph's order (summed over the averages of every function of three shipped
/// robots) and about as many in every function.
#[test]
fn c_local_order_is_valid_and_keeps_fewer_values_live() {
    let Some(robots) = workspace_file("robots") else {
        return;
    };
    let (mut total, mut graph_total) = (0.0, 0.0);
    let mut depth_first_orders = 0;
    for stem in ["ur5", "quadruped_floating", "hand"] {
        let robot = crate::load_spec(&robots.join(format!("{stem}.toml"))).expect("shipped spec");
        let module = crate::build_module(&robot);
        let (_, plans) = plan_module(&module, &mut crate::progress::Silent).unwrap();
        for plan in &plans {
            let (order, _) = local_order(plan, true);
            let trig = trig_locals(plan);
            let operands = operand_lists(plan);
            let n = plan.locals.len();
            let candidates = [Ties::GraphOrder, Ties::RecentOperands]
                .map(|ties| pressure_order(&operands, n, &trig, ties));
            let by_live =
                if mean_live(&operands, &candidates[1]) < mean_live(&operands, &candidates[0]) {
                    &candidates[1]
                } else {
                    &candidates[0]
                };
            let depth_first = depth_first_order(&operands, n, &trig, by_live);
            for candidate in candidates.iter().chain([&order, &depth_first]) {
                let mut seen = vec![false; plan.locals.len()];
                for &k in candidate {
                    visit_leaves(&plan.locals[k].1, &mut |leaf| {
                        if let Ex::Local(n) = leaf {
                            let d = plan.locals.iter().position(|(m, _)| m == n).unwrap();
                            assert!(seen[d], "{}: {} before {n}", plan.name, plan.locals[k].0);
                        }
                    });
                    assert!(!seen[k], "{}: {} twice", plan.name, plan.locals[k].0);
                    seen[k] = true;
                }
                assert!(seen.iter().all(|&s| s), "{}: every local", plan.name);
            }
            // The order written is the pressure order with fewer values live, or the
            // depth-first one where that needs fewer estimated spills.
            let counted: Vec<bool> = plan.locals.iter().map(|(_, e)| !is_trig(e)).collect();
            let spills = |o: &[usize]| spill_estimate(&operands, o, &counted);
            if order == depth_first && order != *by_live {
                depth_first_orders += 1;
                assert!(spills(&depth_first) < spills(by_live), "{}", plan.name);
            } else {
                assert_eq!(order, *by_live, "{}", plan.name);
                assert!(spills(by_live) <= spills(&depth_first), "{}", plan.name);
            }
            let mean = mean_live(&operands, &order);
            let graph: Vec<usize> = (0..n).collect();
            let graph_mean = mean_live(&operands, &graph);
            assert!(
                mean <= graph_mean + 1.0,
                "{stem} {}: {mean:.1} live on average against {graph_mean:.1}",
                plan.name
            );
            total += mean;
            graph_total += graph_mean;
        }
    }
    // Measured: 2587 against 4143 (38% fewer) over their 56 functions, 25 of them in the
    // depth-first order; 3316 with the pressure orders alone, 3657 with the graph's order
    // on every tie.
    assert!(
        depth_first_orders > 0,
        "the depth-first order is taken somewhere"
    );
    assert!(
        total < 0.7 * graph_total,
        "{total:.0} values live against {graph_total:.0}"
    );
}

/// A Rust function with many computed entries (the floating quadruped's mass matrix) writes
/// them through its inner `write` as they are computed: each entry of the 18 x 18 matrix
/// exactly once (what makes reading the arrays as `f64` sound), some before the last local;
/// a function with few (the UR5's inverse dynamics) keeps its array expression.
#[test]
fn rust_outputs_with_many_entries_are_written_early_each_once() {
    let Some(robots) = workspace_file("robots") else {
        return;
    };
    let module = |stem: &str| {
        let robot = crate::load_spec(&robots.join(format!("{stem}.toml"))).expect("shipped spec");
        crate::build_module(&robot)
    };
    let rust = emit_rust(&module("quadruped_floating")).unwrap();
    syn::parse_file(&rust).expect("generated Rust parses");
    let start = rust.find("pub fn mass_matrix(").expect("mass matrix");
    let body = &rust[start..start + rust[start..].find("\n}\n").expect("end")];
    assert!(body.contains("#[inline(never)]") && body.contains("fn write("));
    let lines: Vec<&str> = body.lines().map(str::trim_start).collect();
    let mut written = vec![0_u32; 18 * 18];
    let mut first_write = None;
    let mut last_local = 0;
    for (k, line) in lines.iter().enumerate() {
        if let Some(rest) = line.strip_prefix("out0[") {
            let (r, rest) = rest.split_once("][").expect("two indices");
            let c = rest.split_once(']').expect("closing bracket").0;
            let (r, c): (usize, usize) = (r.parse().unwrap(), c.parse().unwrap());
            written[r * 18 + c] += 1;
            first_write.get_or_insert(k);
        } else if line.starts_with("let x") || line.starts_with('x') && line.contains(" = ") {
            last_local = k;
        }
    }
    assert!(written.iter().all(|&w| w == 1), "every entry written once");
    assert!(
        first_write.expect("writes") < last_local,
        "written as computed"
    );
    assert_eq!(
        body.matches("unsafe").count(),
        1,
        "one unsafe block, the conversion"
    );

    let ur5 = emit_rust(&module("ur5")).unwrap();
    let start = ur5
        .find("pub fn inverse_dynamics(")
        .expect("inverse dynamics");
    let body = &ur5[start..start + ur5[start..].find("\n}\n").expect("end")];
    assert!(!body.contains("fn write(") && !body.contains("unsafe"));
}

/// The spill estimate counts nothing while the live values fit the registers, and a load and
/// a store for each value that must leave them: twenty values read together by one entry
/// leave seven outside the thirteen registers.
#[test]
fn spill_estimate_counts_values_beyond_the_registers() {
    let twenty: Vec<usize> = (0..20).collect();
    let mut operands: Vec<Vec<usize>> = vec![Vec::new(); 20];
    operands.push(twenty.clone());
    let counted = vec![true; 20];
    let outside = 20 - ESTIMATED_REGISTERS;
    assert_eq!(spill_estimate(&operands, &twenty, &counted), 2 * outside);
    // Read in pairs as soon as they are computed: never more than two live.
    let mut pairs: Vec<Vec<usize>> = vec![Vec::new(); 20];
    pairs.extend((0..10).map(|k| vec![2 * k, 2 * k + 1]));
    assert_eq!(spill_estimate(&pairs, &twenty, &counted), 0);
    // Values not counted (sines and cosines read from their arrays) cost nothing.
    assert_eq!(spill_estimate(&operands, &twenty, &[false; 20]), 0);
}

/// The depth-first order computes each entry's locals just before it, the larger operand
/// first, and keeps `first` in front: for `e0 = f(l3)`, `l3 = l1 + l2`, `l2 = g(l0)` and
/// `e1 = l4` it writes `l0 l2 l1 l3` then `l4`, each local after its operands.
#[test]
fn depth_first_order_follows_the_entries() {
    let operands = vec![
        vec![],     // l0
        vec![],     // l1
        vec![0],    // l2
        vec![1, 2], // l3
        vec![],     // l4
        vec![3],    // e0
        vec![4],    // e1
    ];
    let graph: Vec<usize> = (0..5).collect();
    assert_eq!(
        depth_first_order(&operands, 5, &[], &graph),
        vec![0, 2, 1, 3, 4]
    );
    // `first` stays in front and is not computed again.
    assert_eq!(
        depth_first_order(&operands, 5, &[4], &graph),
        vec![4, 0, 2, 1, 3]
    );
}

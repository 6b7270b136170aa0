//! Rust functions cut into parts (as functions of more than 65,536 operations are), here the
//! UR5's every function in parts of about 40 operations, with numeric and with symbolic
//! parameters: the same values, bit for bit, as the modules written in one body (which the
//! other tests check against Pinocchio and the reference models). Parts only move statements
//! into functions and values through the carry array; no operation changes.

use quasidyn_tests::generated::{ur5, ur5_parts, ur5_payload, ur5_payload_parts};
use quasidyn_tests::{random_states, workspace_root, Rng};

const N: usize = 6;

fn arr(v: &[f64]) -> [f64; N] {
    v.try_into().expect("six joints")
}

/// `$f` of `$a` and `$b` (modules of the same robot) at the same arguments, their
/// parameters `$pa` and `$pb` (of the same values) first where the modules take them.
macro_rules! same {
    ($a:ident, $b:ident, ($($pa:expr, $pb:expr)?), $f:ident($($x:expr),*)) => {
        assert_eq!(
            $a::$f($($pa,)? $($x),*),
            $b::$f($($pb,)? $($x),*),
            "{} of {}",
            stringify!($f),
            stringify!($b)
        );
    };
}

/// Every function of `$a` and `$b` ([`same`]).
macro_rules! same_functions {
    ($a:ident, $b:ident, ($($pa:expr, $pb:expr)?), $q:expr, $qd:expr, $qdd:expr, $tau:expr) => {{
        same!($a, $b, ($($pa, $pb)?), inverse_dynamics($q, $qd, $qdd));
        same!($a, $b, ($($pa, $pb)?), gravity($q));
        same!($a, $b, ($($pa, $pb)?), nonlinear_effects($q, $qd));
        same!($a, $b, ($($pa, $pb)?), mass_matrix($q));
        same!($a, $b, ($($pa, $pb)?), forward_dynamics($q, $qd, $tau));
        same!($a, $b, ($($pa, $pb)?), forward_kinematics($q));
        same!($a, $b, ($($pa, $pb)?), jacobian($q));
        same!($a, $b, ($($pa, $pb)?), centrifugal($q, $qd));
        same!($a, $b, ($($pa, $pb)?), coriolis($q, $qd));
        same!($a, $b, ($($pa, $pb)?), gyroscopic($q, $qd));
        same!($a, $b, ($($pa, $pb)?), static_joint_reactions($q));
        same!($a, $b, ($($pa, $pb)?), inverse_dynamics_derivatives($q, $qd, $qdd));
        same!($a, $b, ($($pa, $pb)?), gravity_derivatives($q));
        same!($a, $b, ($($pa, $pb)?), forward_dynamics_derivatives($q, $qd, $tau));
        same!($a, $b, ($($pa, $pb)?), regressor($q, $qd, $qdd));
        same!($a, $b, ($($pa, $pb)?), base_regressor($q, $qd, $qdd));
    }};
}

#[test]
fn functions_in_parts_equal_the_functions_in_one_body() {
    let robot = quasidyn_codegen::load_spec(&workspace_root().join("robots/ur5.toml"))
        .expect("the UR5 spec");
    let mut rng = Rng::new(17);
    let mut params = ur5_payload::Params::default();
    let mut parted = ur5_payload_parts::Params::default();
    for (k, x) in random_states(&robot, 41, 25).iter().enumerate() {
        let (q, qd, qdd) = (arr(&x.q), arr(&x.qd), arr(&x.qdd));
        let tau: [f64; N] = std::array::from_fn(|_| rng.range(-50.0, 50.0));
        same_functions!(ur5, ur5_parts, (), &q, &qd, &qdd, &tau);
        // The spec's payload, then others.
        if k > 0 {
            (params.m6, params.my6, params.izz6) = (
                rng.range(0.5, 3.0),
                rng.range(-0.1, 0.1),
                rng.range(0.001, 0.01),
            );
            (parted.m6, parted.my6, parted.izz6) = (params.m6, params.my6, params.izz6);
        }
        same_functions!(
            ur5_payload,
            ur5_payload_parts,
            (&params, &parted),
            &q,
            &qd,
            &qdd,
            &tau
        );
    }
}

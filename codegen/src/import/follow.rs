//! Joints that follow joints that follow others, combined: URDF `<mimic>` tags and MJCF joint
//! equalities both say what each joint follows directly, and the model wants the joint at the
//! end of each chain (see [`crate::model::Mimic`]).

use crate::model::Mimic;

/// Why a joint's chain of couplings has no joint at its end that follows none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Broken {
    /// The couplings come back to a joint already on the chain.
    Loop,
    /// The combined factor or offset overflows, or the factor vanishes.
    Degenerate,
}

/// Each joint's coupling combined along its chain: `direct[j]` is what joint `j` follows
/// itself, `(followed, multiplier, offset)` with `q_j = multiplier q_followed + offset`
/// (`followed` an index into `direct`); the result holds, for each follower, the joint at the
/// end of its chain and the composed factor and offset. Fails at the first follower (in index
/// order) whose chain is broken.
pub(super) fn follow_chains(
    direct: &[Option<(usize, f64, f64)>],
) -> Result<Vec<Option<Mimic>>, (usize, Broken)> {
    let mut out = Vec::with_capacity(direct.len());
    for (follower, own) in direct.iter().enumerate() {
        let Some((mut master, mut multiplier, mut offset)) = *own else {
            out.push(None);
            continue;
        };
        let mut steps = 0;
        while let Some((next, m, o)) = direct[master] {
            steps += 1;
            if steps > direct.len() {
                return Err((follower, Broken::Loop));
            }
            // q = m1 (m2 q_next + o2) + o1.
            (master, multiplier, offset) = (next, multiplier * m, multiplier * o + offset);
        }
        if !multiplier.is_finite() || !offset.is_finite() || multiplier == 0.0 {
            return Err((follower, Broken::Degenerate));
        }
        out.push(Some(Mimic {
            master,
            multiplier,
            offset,
        }));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chains_compose_in_any_order() {
        // 0 follows 2 (q0 = 2 q2 + 1), 2 follows 3 (q2 = -0.5 q3 + 0.25), 1 follows 0.
        let direct = [
            Some((2, 2.0, 1.0)),
            Some((0, 3.0, 0.0)),
            Some((3, -0.5, 0.25)),
            None,
        ];
        let out = follow_chains(&direct).unwrap();
        let m = |master, multiplier, offset| {
            Some(Mimic {
                master,
                multiplier,
                offset,
            })
        };
        // q0 = 2 (-0.5 q3 + 0.25) + 1 = -q3 + 1.5; q1 = 3 q0 = -3 q3 + 4.5.
        assert_eq!(
            out,
            vec![m(3, -1.0, 1.5), m(3, -3.0, 4.5), m(3, -0.5, 0.25), None]
        );
    }

    #[test]
    fn loops_and_vanishing_factors_are_broken_chains() {
        let looped = [None, Some((2, 1.0, 0.0)), Some((1, 1.0, 0.0))];
        assert_eq!(follow_chains(&looped), Err((1, Broken::Loop)));
        let itself = [Some((0, 1.0, 0.0))];
        assert_eq!(follow_chains(&itself), Err((0, Broken::Loop)));
        let vanishing = [None, Some((2, 1e-200, 0.0)), Some((0, 1e-200, 0.0))];
        assert_eq!(follow_chains(&vanishing), Err((1, Broken::Degenerate)));
        let overflowing = [None, Some((2, 1e200, 0.0)), Some((0, 1e200, 0.0))];
        assert_eq!(follow_chains(&overflowing), Err((1, Broken::Degenerate)));
    }
}

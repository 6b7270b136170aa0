//! A floating base (Pinocchio's free-flyer): the base is a free body whose quasi-velocities
//! (linear and angular velocity in its own frame) come before the joint rates.
//!
//! The recursions are those of a fixed base, started from the base's motion instead of rest:
//! bodies on the base see its angular velocity and acceleration and the acceleration of its
//! origin, and the base balances, as every body does, its own inertia plus what the bodies it
//! carries need. Gravity is given in the world frame and enters rotated into the base frame.

use super::dynamics::{self, MovingBase, PassInputs, Weight};
use super::kinematics::{self, Site};
use super::mass_matrix;
use super::params::{self, BodyInertia};
use super::scalar::{Cx, Mat3, Vec3, S};
use super::{ldlt, Derived, FrameKinematics};
use crate::algebra::Algebra;
use crate::ir::BaseVar;
use crate::model::{BaseLayout, Robot};

/// A site's rotation and position in the world and its 6 x NV Jacobian.
type SiteKinematics<E> = (Mat3<E>, Vec3<E>, Vec<S<E>>);

/// The base's rotation (world from base) from Pinocchio's pose quaternion (x y z w at pose
/// entries 3..7), normalised inside.
pub(crate) fn base_rotation<A: Algebra>(cx: &mut Cx<'_, A>) -> Mat3<A::E> {
    base_rotation_in(cx, BaseLayout::Pinocchio)
}

/// The base's rotation (world from base) from the pose quaternion of `layout` (x y z w at pose
/// entries 3..7 for Pinocchio's, w x y z for MuJoCo's), normalised inside:
/// `R = I + s w [v]× + s [v]×²` with `s = 2 / |q|²`, exact for any nonzero quaternion.
pub(crate) fn base_rotation_in<A: Algebra>(cx: &mut Cx<'_, A>, layout: BaseLayout) -> Mat3<A::E> {
    let slots = match layout {
        BaseLayout::Pinocchio => [3, 4, 5, 6],
        BaseLayout::Mujoco => [4, 5, 6, 3],
    };
    let q: [S<A::E>; 4] = slots.map(|k| S::X(cx.alg.base(BaseVar::Pose(k))));
    let [x, y, z, w] = q;
    let sq = |cx: &mut Cx<'_, A>, a: S<A::E>| cx.mul(a, a);
    let (xx, yy, zz, ww) = (sq(cx, x), sq(cx, y), sq(cx, z), sq(cx, w));
    let n2 = cx.add(xx, yy);
    let n2 = cx.add(n2, zz);
    let n2 = cx.add(n2, ww);
    let s = cx.div(S::K(2.0), n2);
    let prod = |cx: &mut Cx<'_, A>, a: S<A::E>, b: S<A::E>| {
        let p = cx.mul(a, b);
        cx.mul(s, p)
    };
    let (sxy, sxz, syz) = (prod(cx, x, y), prod(cx, x, z), prod(cx, y, z));
    let (sxw, syw, szw) = (prod(cx, x, w), prod(cx, y, w), prod(cx, z, w));
    let diag = |cx: &mut Cx<'_, A>, a: S<A::E>, b: S<A::E>| {
        let t = cx.add(a, b);
        let t = cx.mul(s, t);
        cx.sub(S::K(1.0), t)
    };
    [
        [diag(cx, yy, zz), cx.sub(sxy, szw), cx.add(sxz, syw)],
        [cx.add(sxy, szw), diag(cx, xx, zz), cx.sub(syz, sxw)],
        [cx.sub(sxz, syw), cx.add(syz, sxw), diag(cx, xx, yy)],
    ]
}

pub(crate) fn base3<A: Algebra>(cx: &mut Cx<'_, A>, make: impl Fn(u8) -> BaseVar) -> Vec3<A::E> {
    [0, 1, 2].map(|k| S::X(cx.alg.base(make(k))))
}

/// Everything of [`Derived`] for a floating-base robot: joint-space outputs over the
/// `6 + N` velocities (the static reactions and the velocity split are not derived).
pub(crate) fn derive<A: Algebra>(alg: &mut A, robot: &Robot) -> Derived<A::E> {
    let n = robot.dof();
    let nv = n + 6;
    let mut cx = Cx::new(alg);
    let cx = &mut cx;
    let body = robot
        .base_body
        .as_ref()
        .expect("a floating base has its inertia (checked by the spec)");
    let base_par: BodyInertia<A::E> = params::base_body_params(cx, body);
    let (bodies, ()) = dynamics::Bodies::derive(cx, robot, robot, |_, _, _| ());
    let (ori, poles) = (&bodies.ori, &bodies.poles);
    let st = bodies.statics();

    let mujoco = robot.base_layout == BaseLayout::Mujoco;
    let rot = base_rotation_in(cx, robot.base_layout);
    let p_base = base3(cx, BaseVar::Pose);
    let g_world = super::scalar::k3(robot.gravity);
    let g = cx.mat_t_vec(&rot, &g_world);
    // MuJoCo's linear velocity enters nothing below (see the accelerations).
    let v = (!mujoco).then(|| base3(cx, BaseVar::Vel));
    let w = base3(cx, |k| BaseVar::Vel(k + 3));
    let a_lin = base3(cx, BaseVar::Acc);
    let wd = base3(cx, |k| BaseVar::Acc(k + 3));
    let zero3 = [S::K(0.0); 3];
    // The classical acceleration of the base origin in base axes, as the recursion takes it,
    // with the given accelerations and with them zero. Pinocchio's `a` is `R^T p'' - ω × v`,
    // so at `a = 0` the origin still accelerates by `ω × v`; MuJoCo's `qacc` is `p''` in world
    // axes, so `qacc = 0` is no acceleration.
    let (a_id, a_nle) = match v {
        Some(v) => {
            let wxv = cx.cross(&w, &v);
            (cx.vadd(&a_lin, &wxv), wxv)
        }
        None => (cx.mat_t_vec(&rot, &a_lin), zero3),
    };

    let qd: Vec<S<A::E>> = (0..n).map(|j| S::X(cx.alg.qd(j))).collect();
    let qdd: Vec<S<A::E>> = (0..n).map(|j| S::X(cx.alg.qdd(j))).collect();
    let zero = vec![S::K(0.0); n];
    let full = |pass: dynamics::Pass<A::E>| -> Vec<S<A::E>> {
        let [f, m] = pass
            .base_wrench
            .expect("a floating base returns its wrench");
        f.into_iter().chain(m).chain(pass.tau).collect()
    };
    let weight = Weight::BaseAcceleration;
    let id_base = MovingBase {
        w,
        wd,
        a: a_id,
        g,
        body: Some(&base_par),
    };
    let mut id = full(dynamics::newton_euler(
        cx,
        robot,
        &st,
        &PassInputs {
            base: Some(&id_base),
            ..PassInputs::fixed(&qd, &qdd, weight)
        },
    ));
    dynamics::add_armature_torques(cx, robot, &mut id[6..], &qdd);
    let nle_base = MovingBase {
        w,
        wd: zero3,
        a: a_nle,
        g,
        body: Some(&base_par),
    };
    let mut nle = full(dynamics::newton_euler(
        cx,
        robot,
        &st,
        &PassInputs {
            base: Some(&nle_base),
            ..PassInputs::fixed(&qd, &zero, weight)
        },
    ));
    let rest = MovingBase {
        w: zero3,
        wd: zero3,
        a: zero3,
        g,
        body: Some(&base_par),
    };
    let mut gravity = full(dynamics::newton_euler(
        cx,
        robot,
        &st,
        &PassInputs {
            base: Some(&rest),
            ..PassInputs::fixed(&zero, &zero, weight)
        },
    ));
    let mut m = mass_matrix::mass_matrix(cx, robot, &st, Some(&base_par));
    // The free joint's armature on the base's diagonal, in either layout: with `T` of
    // `translation_in_world` orthogonal, `T^T (a I) T = a I`, so MuJoCo's `M_mj + a I` is
    // `M + a I` turned, and the forward dynamics below solves with it as it is.
    if body.armature != 0.0 {
        for (k, row) in m.iter_mut().enumerate().take(6) {
            row[k] = cx.add(row[k], S::K(body.armature));
        }
    }

    // Forward dynamics: the base's six coordinates as a chain above the roots, so the
    // leaf-first factorisation fills in nothing but the dense base block.
    let mut parent: Vec<Option<usize>> = (0..6).map(|k: usize| k.checked_sub(1)).collect();
    parent.extend(
        robot
            .bodies
            .iter()
            .map(|b| Some(b.parent.map_or(5, |p| p + 6))),
    );
    // MuJoCo's force on the base is in world axes: into base axes, as the recursion's.
    let force = mujoco.then(|| {
        let f = base3(cx, BaseVar::Wrench);
        cx.mat_t_vec(&rot, &f)
    });
    let rhs: Vec<S<A::E>> = (0..nv)
        .map(|k| {
            let t = match force {
                Some(f) if k < 3 => f[k],
                _ if k < 6 => {
                    let idx = u8::try_from(k).expect("six base coordinates");
                    S::X(cx.alg.base(BaseVar::Wrench(idx)))
                }
                _ => S::X(cx.alg.tau(k - 6)),
            };
            cx.sub(t, nle[k])
        })
        .collect();
    let mut fd = ldlt::solve_tree(cx, &m, &rhs, &parent);
    if mujoco {
        // The solution's linear part is the classical acceleration in base axes: `p''` is it
        // in world axes. Forces on the base turn into world axes, and so do M's rows and
        // columns of the base's translation (`M_mj = T^T M T`, `T = diag(R^T, I)`).
        for out in [&mut fd, &mut id, &mut gravity, &mut nle] {
            let f = [out[0], out[1], out[2]];
            out[..3].copy_from_slice(&cx.mat_vec(&rot, &f));
        }
        translation_in_world(cx, &rot, &mut m);
    }
    // The armature's force, `a` times the base's acceleration input of the layout (MuJoCo's
    // `qacc`, the origin's acceleration in world axes, where the rows are world axes too).
    if body.armature != 0.0 {
        for (k, acc) in a_lin.iter().chain(&wd).enumerate() {
            let t = cx.mul(S::K(body.armature), *acc);
            id[k] = cx.add(id[k], t);
        }
    }

    // Sites in the world: p = p_b + R_b p_site, R = R_b R_site; Jacobians over [v, ω, q̇].
    let mut sites: Vec<Site> = Vec::new();
    if robot.is_chain() {
        sites.push(Site {
            body: Some(n - 1),
            position: robot.bodies[n - 1].next,
            rotation: robot.tool_rotation,
            labelled: false,
        });
    }
    sites.extend(robot.frames.iter().map(|f| Site {
        body: f.body,
        position: f.position,
        rotation: f.rotation,
        labelled: false,
    }));
    let mut kin: Vec<SiteKinematics<A::E>> = Vec::new();
    for site in &sites {
        let pose = kinematics::site_pose(cx, robot, ori, poles, site);
        let jac_b = kinematics::jacobian(cx, robot, ori, &pose);
        let r_off = cx.mat_vec(&rot, &pose.position);
        let position = cx.vadd(&p_base, &r_off);
        let (rotation, _) = cx.mat_mul(&rot, &pose.rotation);
        let mut jac = vec![S::K(0.0); 6 * nv];
        // Base linear velocity (base frame): the point moves by R_b v.
        // Base angular velocity: R_b ω, and the point by (R_b ω) × r = -[r]× R_b ω.
        for c in 0..3 {
            let col = [rot[0][c], rot[1][c], rot[2][c]];
            let lin_w = cx.cross(&col, &r_off);
            for r in 0..3 {
                // MuJoCo's linear velocity is the origin's in world axes already.
                jac[r * nv + c] = match (mujoco, r == c) {
                    (false, _) => rot[r][c],
                    (true, same) => S::K(if same { 1.0 } else { 0.0 }),
                };
                jac[r * nv + 3 + c] = lin_w[r];
                jac[(r + 3) * nv + 3 + c] = rot[r][c];
            }
        }
        for j in 0..n {
            let lin = [0, 1, 2].map(|r| jac_b[r * n + j]);
            let ang = [0, 1, 2].map(|r| jac_b[(r + 3) * n + j]);
            let lin = cx.mat_vec(&rot, &lin);
            let ang = cx.mat_vec(&rot, &ang);
            for r in 0..3 {
                jac[r * nv + 6 + j] = lin[r];
                jac[(r + 3) * nv + 6 + j] = ang[r];
            }
        }
        kin.push((rotation, position, jac));
    }

    let mut out = |v: &[S<A::E>]| -> Vec<A::E> { v.iter().map(|&s| cx.e(s)).collect() };
    let flat = |m: &Mat3<A::E>| -> Vec<S<A::E>> { m.iter().flatten().copied().collect() };
    let mflat: Vec<S<A::E>> = m.iter().flatten().copied().collect();
    let mut kin = kin.into_iter();
    let tool = if robot.is_chain() { kin.next() } else { None };
    Derived {
        dof: n,
        inverse_dynamics: out(&id),
        gravity: out(&gravity),
        nonlinear_effects: out(&nle),
        mass_matrix: out(&mflat),
        forward_dynamics: out(&fd),
        forward_dynamics_factored: Vec::new(),
        mass_matrix_in_base: Vec::new(),
        tool_rotation: tool.as_ref().map_or(Vec::new(), |t| out(&flat(&t.0))),
        tool_position: tool.as_ref().map_or(Vec::new(), |t| out(&t.1)),
        jacobian: tool.as_ref().map_or(Vec::new(), |t| out(&t.2)),
        frames: kin
            .map(|(r, p, j)| FrameKinematics {
                rotation: out(&flat(&r)),
                position: out(&p),
                jacobian: out(&j),
            })
            .collect(),
        static_force: Vec::new(),
        static_moment: Vec::new(),
        elastic: None,
        velocity_forces: Vec::new(),
        relative_momentum: Vec::new(),
        centrifugal: Vec::new(),
    }
}

/// `M_mj = T^T M T` with `T = diag(R^T, I)`: the mass matrix `m` of Pinocchio's layout (base
/// translation in base axes) in MuJoCo's (base translation in world axes). The translation's
/// own block of a rigid whole robot is its mass times the identity, which the turn keeps.
fn translation_in_world<A: Algebra>(cx: &mut Cx<'_, A>, rot: &Mat3<A::E>, m: &mut [Vec<S<A::E>>]) {
    let nv = m.len();
    for k in 3..nv {
        let col = [m[0][k], m[1][k], m[2][k]];
        let turned = cx.mat_vec(rot, &col);
        for r in 0..3 {
            m[r][k] = turned[r];
            m[k][r] = turned[r];
        }
    }
    let block: Mat3<A::E> = [0, 1, 2].map(|r| [m[r][0], m[r][1], m[r][2]]);
    let scalar = match block[0][0] {
        S::K(mass) => (0..3).all(|r| {
            (0..3).all(|c| match block[r][c] {
                S::K(x) => x == if r == c { mass } else { 0.0 },
                S::X(_) => false,
            })
        }),
        S::X(_) => false,
    };
    if !scalar {
        let (rb, _) = cx.mat_mul(rot, &block);
        let (turned, _) = cx.mat_mul(&rb, &super::scalar::transpose(rot));
        // Mirrored entries stay one handle.
        for r in 0..3 {
            for c in r..3 {
                m[r][c] = turned[r][c];
                m[c][r] = turned[r][c];
            }
        }
    }
}

/// The motion of a prescribed base for the recursion: with inputs `base_pose`, `base_vel`,
/// `base_acc` (Pinocchio's free-flyer `q`, `v`, `a` of the base), the pass that carries the
/// base's velocity and acceleration and the one at rest (gravity only). A base that only
/// translates contributes no angular terms: only `Rᵀ g` and the linear acceleration.
pub(crate) fn prescribed_motion<'p, A: Algebra>(
    cx: &mut Cx<'_, A>,
    robot: &Robot,
) -> [MovingBase<'p, A::E>; 2] {
    let rot = base_rotation(cx);
    let g_world = super::scalar::k3(robot.gravity);
    let g = cx.mat_t_vec(&rot, &g_world);
    let a_lin = base3(cx, BaseVar::Acc);
    let zero3 = [S::K(0.0); 3];
    let moving = if robot.motion == crate::model::BaseMotion::Translating {
        MovingBase {
            w: zero3,
            wd: zero3,
            a: a_lin,
            g,
            body: None,
        }
    } else {
        let v = base3(cx, BaseVar::Vel);
        let w = base3(cx, |k| BaseVar::Vel(k + 3));
        let wd = base3(cx, |k| BaseVar::Acc(k + 3));
        let wxv = cx.cross(&w, &v);
        MovingBase {
            w,
            wd,
            a: cx.vadd(&a_lin, &wxv),
            g,
            body: None,
        }
    };
    let rest = MovingBase {
        w: zero3,
        wd: zero3,
        a: zero3,
        g,
        body: None,
    };
    [moving, rest]
}

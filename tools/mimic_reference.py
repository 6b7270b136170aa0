#!/usr/bin/env python3
"""Reference fixtures for robots with joints that follow others: URDF <mimic> tags against
Pinocchio, MJCF joint equalities with joint2 against MuJoCo.

Install:  pip install pin mujoco   (Pinocchio 4: `buildModelFromUrdf(..., mimic=True)`; MuJoCo 4)
Run:      python3 tools/mimic_reference.py
Writes:   tests/fixtures/mimic/NAME.json for each robot of ROBOTS below.

Each URDF is read twice by Pinocchio's own parser: with `mimic=True` (the joints that follow
others are no coordinates: Pinocchio 4's mimic model) and without (every joint a coordinate,
the "full" model). With G the matrix that maps the independent coordinates to the full ones
(q_full = G q + offset; a floating base's six coordinates map to themselves),
every function is computed from the full model and projected: forces G^T tau, Jacobian
columns J G, the mass matrix G^T M G, the forward dynamics solve(G^T M G, tau - G^T h), the
inverse mass matrix inv(G^T M G), derivatives G^T (d tau / d q) G. Where Pinocchio's mimic
model has the algorithm (rnea, crba, nonLinearEffects, computeGeneralizedGravity, the frames'
poses and Jacobians, jacobianCenterOfMass, ccrba) the script checks, per state, that it
gives the same (1e-10 relative): so the fixture is Pinocchio's mimic model wherever that
exists, and its full model seen through the coupling elsewhere (aba, computeMinverse, the
derivatives and the energies refuse mimic joints in Pinocchio 4.1).

Per state, keyed by the generated function names (a frame F as the importer names the
frames of a URDF tree: every moving leaf link, in Pinocchio's frame order):
  q, v, a                   NQ, NV, NV (a is also the `tau` of forward_dynamics)
  inverse_dynamics          rnea(q, v, a)
  gravity, nonlinear_effects, mass_matrix (row-major)
  forward_dynamics          M^-1 (a - h): the accelerations for the forces `a`
  forward_kinematics_F      R (row-major) then p, world frame
  jacobian_F                6 x NV, LOCAL_WORLD_ALIGNED
  inverse_dynamics_derivatives  dtau/dq then dtau/dv (computeRNEADerivatives), row-major
  gravity_derivatives       computeGeneralizedGravityDerivatives
  forward_dynamics_derivatives  d qdd/dq, d qdd/dv, M^-1 at the forces `a`: -M^-1 times the
                            projected computeRNEADerivatives at the accelerations
                            M^-1 (a - h) (computeABADerivatives refuses mimic joints)
  center_of_mass, center_of_mass_jacobian, center_of_mass_acceleration_bias (centerOfMass
  at zero acceleration), centroidal_momentum_matrix, centroidal_momentum,
  centroidal_momentum_bias (computeCentroidalMomentumTimeVariation at zero acceleration),
  mass_matrix_inverse, kinetic_energy, potential_energy,
  frame_velocity_F, frame_acceleration_bias_F (classical), jacobian_derivative_F
  coriolis_matrix           G^T computeCoriolisMatrix G, checked per state: C v = h - g, and on
                            a fixed base the Christoffel matrix of central differences of
                            G^T M G (Pinocchio 4.1's mimic model gives another matrix, whose
                            C v is not h - g)
  joint_wrenches            data.f after rnea(q_full, G v, G a) of the full model for every
                            joint (the followers too, in the order "joints" lists), turned into
                            world axes (tools/whole_body_reference.py's): forces, then moments
  static_joint_reactions    on a fixed base: data.f after rnea(q_full, 0, 0) of the full model
                            for every joint, in the spec's body axes (the joint's frame turned
                            as it is at q_full = 0, where the spec's axes are the base's):
                            forces, then moments about the joint's origin
  centrifugal, coriolis, gyroscopic   on a fixed base: seed 001's split, Statement 1 (a
                            general mechanical system; the couplings can break the chain's
                            property Statement 3 relies on) on H = G^T M G in the independent
                            coordinates, with dH/dq = G^T (dM/dq_full) G G from the full
                            model's computeRNEADerivatives at v = 0, a = e_j, no gravity;
                            checked per state: the three sum to h - g and v . h_g = 0
  contact_jacobian, contact_forward_dynamics   for the robots with contacts: the contacts'
                            rows of the frames' Jacobians times G, and a then lambda of
                            M a + h = tau + Jc^T lambda, Jc a + gamma = 0 (tau = `a`, gamma a
                            point contact's classical acceleration and a 6d contact's spatial
                            one at zero acceleration, from the full model) by the dense solve
                            of Jc M^-1 Jc^T (constraintDynamics refuses mimic joints)
The regressor is checked by the tests as Y(q, v, a) pi = inverse_dynamics (pi the generated
standard parameters), so it has no entry here.

For each MJCF model of MJCF_ROBOTS, MuJoCo itself (the equality is a constraint its solver
enforces; these functions hold none): with G from its active joint equalities with joint2
(qpos1 = c1 qpos2 + c0 + qpos0_1 - c1 qpos0_2, solved for every joint at once, so a chain of
couplings too; MuJoCo's residuals of those constraints, efc_pos, checked zero at each state)
and the independent joints in MuJoCo's order,
  inverse_dynamics          G^T (mj_fullM qacc + qfrc_bias) at the full state
  gravity, nonlinear_effects, mass_matrix (G^T M G), forward_dynamics (tau = a),
  passive_forces            G^T (qfrc_spring + qfrc_damper)
  forward_kinematics_S, jacobian_S   site_xmat, site_xpos; mj_jacSite (jacp over jacr) G
  centrifugal, coriolis, gyroscopic   Statement 1's split on G^T M G (as for the URDFs), with
                            dH_ij/dq_k = Gamma_ijk + Gamma_jik from the Christoffel symbols
                            Gamma_i,jk of the velocity forces G^T qfrc_bias(G v) (less gravity),
                            a quadratic form in v whose symbols polarisation gives exactly
  static_joint_reactions    every joint's (the followers' too) cfrc_int at rest in its body's
                            axes, as tools/mjcf_reference.py's static_joint_reactions
for every named site S; "functions" lists them (the functions generated for the fixture).

States: a fixed seed per robot; joints uniform in [-1, 1] (rad, or [-0.05, 0.05] m for a
prismatic joint), velocities and accelerations in [-2, 2]; a floating base at a position in
[-1, 1] with a random unit quaternion.
"""

import json
import pathlib

import mujoco
import numpy as np
import pinocchio as pin

import mjcf_reference
from whole_body_reference import joint_wrenches

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "mimic"
STATES = 12
REL = 1e-10

# name -> (URDF, floating base, contacts as `--contact` names them); each robot's random
# states come from its place in this list (a new robot goes last).
ROBOTS = {
    "mimic_tree": ("tests/fixtures/mimic/mimic_tree.urdf", False, []),
    "mimic_tree_floating": ("tests/fixtures/mimic/mimic_tree.urdf", True,
                            ["wrist:6d", "finger_a"]),
    "panda_fingers": ("tests/fixtures/urdf/panda.urdf", False, ["panda_rightfinger"]),
    "mimic_chain": ("tests/fixtures/mimic/mimic_chain.urdf", False, []),
}


# name -> MJCF model
MJCF_ROBOTS = {
    "synthetic_coupled": "tests/fixtures/mjcf/synthetic_coupled.xml",
    "chained_coupled": "tests/fixtures/mjcf/chained_coupled.xml",
}


def split_entries(split, velocity_forces, v):
    """The split's fixture entries, checked: the three parts sum to the velocity forces
    h - g, and the gyroscopic forces do no work (v . h_g = 0)."""
    hc, ho, hg = split
    close(hc + ho + hg, velocity_forces, "h_c + h_o + h_g = h - g")
    assert abs(hg @ v) <= REL * max(1.0, float(np.abs(hg).max() * np.abs(v).max())), "v . h_g"
    return {"centrifugal": hc.tolist(), "coriolis": ho.tolist(), "gyroscopic": hg.tolist()}


def mujoco_inertia_derivatives(model, data, G, grav):
    """h3[i, j, k] = dH_ij/dq_k of H = G^T M G at data.qpos: the velocity forces
    h(v) = G^T qfrc_bias(G v) - grav are sum_jk Gamma_i,jk v_j v_k (Gamma symmetric in j, k),
    so h(e_j) and h(e_j + e_k) give Gamma, and dH_ij/dq_k = Gamma_i,jk + Gamma_j,ik."""
    n = G.shape[1]

    def forces(v):
        data.qvel[:] = G @ v
        mujoco.mj_forward(model, data)
        return G.T @ data.qfrc_bias - grav

    e = np.eye(n)
    own = [forces(e[j]) for j in range(n)]
    gamma = np.zeros((n, n, n))
    for j in range(n):
        gamma[:, j, j] = own[j]
        for k in range(j + 1, n):
            gamma[:, j, k] = gamma[:, k, j] = 0.5 * (forces(e[j] + e[k]) - own[j] - own[k])
    data.qvel[:] = 0
    return gamma + gamma.transpose(1, 0, 2)


def mujoco_fixture(name, path, seed):
    model = mujoco.MjModel.from_xml_path(str(ROOT / path))
    data = mujoco.MjData(model)
    assert model.nq == model.nv, "hinges and slides only"
    follows = {}
    for k in range(model.neq):
        if (model.eq_type[k] == mujoco.mjtEq.mjEQ_JOINT and model.eq_active0[k]
                and model.eq_obj2id[k] >= 0):
            c0, c1 = model.eq_data[k][:2]
            assert not model.eq_data[k][2:5].any()
            follows[int(model.eq_obj1id[k])] = (int(model.eq_obj2id[k]), c0, c1)
    own = [j for j in range(model.njnt) if j not in follows]
    # q_full from the independent joints by one linear solve of every equality at once
    # (a chain of couplings included): A q_full = B q_own + d, A's rows the equalities'
    # q1 - c1 q2 = c0 + qpos0_1 - c1 qpos0_2 and the independent joints' own values.
    A, B, d = np.zeros((model.nv, model.nv)), np.zeros((model.nv, len(own))), np.zeros(model.nv)
    for j in range(model.njnt):
        row = model.jnt_dofadr[j]
        A[row, row] = 1.0
        if j in follows:
            master, c0, c1 = follows[j]
            A[row, model.jnt_dofadr[master]] = -c1
            d[row] = c0 + model.qpos0[model.jnt_qposadr[j]] \
                - c1 * model.qpos0[model.jnt_qposadr[master]]
        else:
            B[row, own.index(j)] = 1.0
    G, offset = np.linalg.solve(A, B), np.linalg.solve(A, d)
    sites = [model.site(i).name for i in range(model.nsite)]
    functions = ["inverse_dynamics", "gravity", "nonlinear_effects", "mass_matrix",
                 "forward_dynamics", "passive_forces", "centrifugal", "coriolis", "gyroscopic",
                 "static_joint_reactions"]
    functions += [f"forward_kinematics_{ident(s)}" for s in sites]
    functions += [f"jacobian_{ident(s)}" for s in sites]
    rng = np.random.default_rng(2000 + seed)
    states = []
    for _ in range(STATES):
        q = np.array([model.qpos0[model.jnt_qposadr[j]] for j in own]) \
            + rng.uniform(-1, 1, len(own)) * [0.05 if model.jnt_type[j] == 2 else 1 for j in own]
        v, a = rng.uniform(-2, 2, len(own)), rng.uniform(-2, 2, len(own))
        data.qpos[:] = G @ q + offset
        data.qvel[:] = G @ v
        mujoco.mj_forward(model, data)
        # MuJoCo's own residuals of its equality constraints at the state: zero.
        rows = data.efc_type == mujoco.mjtConstraint.mjCNSTR_EQUALITY
        assert np.abs(data.efc_pos[rows]).max(initial=0.0) < 1e-12, data.efc_pos[rows]
        assert rows.sum() == len(follows), "every active joint equality is a constraint row"
        full = np.zeros((model.nv, model.nv))
        mujoco.mj_fullM(model, data, full)
        M = G.T @ full @ G
        bias = G.T @ data.qfrc_bias
        passive = G.T @ (data.qfrc_spring + data.qfrc_damper)
        out = {"q": q.tolist(), "v": v.tolist(), "a": a.tolist(),
               "inverse_dynamics": (M @ a + bias).tolist(), "nonlinear_effects": bias.tolist(),
               "mass_matrix": M.tolist(),
               "forward_dynamics": np.linalg.solve(M, a - bias).tolist(),
               "passive_forces": passive.tolist()}
        for s in range(model.nsite):
            jacp, jacr = np.zeros((3, model.nv)), np.zeros((3, model.nv))
            mujoco.mj_jacSite(model, data, jacp, jacr, s)
            out[f"forward_kinematics_{ident(sites[s])}"] = [
                data.site_xmat[s].reshape(3, 3).tolist(), data.site_xpos[s].tolist()]
            out[f"jacobian_{ident(sites[s])}"] = (np.vstack([jacp, jacr]) @ G).tolist()
        data.qvel[:] = 0
        mujoco.mj_forward(model, data)
        grav = G.T @ data.qfrc_bias
        out["gravity"] = grav.tolist()
        split = split_statement_one(mujoco_inertia_derivatives(model, data, G, grav), v)
        out.update(split_entries(split, bias - grav, v))
        # Every joint's row, the followers' too: at rest each joint transmits what holds its
        # subtree against gravity, its coupling's share included.
        out["static_joint_reactions"] = mjcf_reference.static_joint_reactions(
            model, data, G @ q + offset, list(range(model.njnt)))
        states.append(out)
    doc = {
        "name": name,
        "input": path,
        "floating_base": False,
        "coordinates": [model.joint(j).name for j in own],
        "frames": sites,
        "functions": functions,
        "generator": f"mujoco {mujoco.__version__}",
        "states": states,
    }
    target = OUT / f"{name}.json"
    target.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {target.relative_to(ROOT)}: {len(own)} coordinates, {len(sites)} frames")


def load(path, floating, mimic):
    if floating:
        return pin.buildModelFromUrdf(str(ROOT / path), pin.JointModelFreeFlyer(), mimic=mimic)
    return pin.buildModelFromUrdf(str(ROOT / path), mimic=mimic)


def coupling(reduced, full, floating):
    """G (full NV x reduced NV), the offsets of the full q's joints, the full q's indices."""
    base = 6 if floating else 0
    G = np.zeros((full.nv, reduced.nv))
    G[:base, :base] = np.eye(base)
    offset = np.zeros(full.nq)
    # Joints of both models share names and order; a mimicking joint reads its primary's.
    for j in range(1, full.njoints):
        name = full.names[j]
        if floating and j == 1:
            continue
        fj = full.joints[j]
        rj = reduced.joints[reduced.getJointId(name)]
        if rj.shortname() == "JointModelMimic":
            mimic = rj.extract()
            k = list(reduced.mimicking_joints).index(reduced.getJointId(name))
            primary = reduced.joints[reduced.mimicked_joints[k]]
            offset[fj.idx_q] = mimic.offset
            G[fj.idx_v, primary.idx_v] = mimic.scaling
        else:
            G[fj.idx_v, rj.idx_v] = 1.0
    return G, offset


def full_q(reduced, full, floating, G, offset, q):
    out = np.zeros(full.nq)
    if floating:
        out[:7] = q[:7]
        out[7:] = G[6:, 6:] @ q[7:] + offset[7:]
    else:
        out[:] = G @ q + offset
    return out


def frames_of(model, path):
    import xml.etree.ElementTree as ET
    xml = ET.parse(ROOT / path).getroot()
    parents = {j.find("parent").get("link") for j in xml.iter("joint")}
    leaves = {link.get("name") for link in xml.iter("link")} - parents
    out = []
    for fid, frame in enumerate(model.frames):
        if frame.type == pin.FrameType.BODY and frame.parentJoint != 0 and frame.name in leaves:
            out.append((frame.name, fid))
    return out


def ident(name):
    return "".join(c.lower() if c.isalnum() else "_" for c in name)


def close(a, b, what):
    a, b = np.asarray(a), np.asarray(b)
    scale = max(1.0, float(np.abs(b).max()))
    err = float(np.abs(a - b).max())
    assert err <= REL * scale, f"{what}: Pinocchio's mimic model differs by {err}"


def christoffel(mass_matrix, q, v, step=1e-6):
    """sum_k 1/2 (dM_ij/dq_k + dM_ik/dq_j - dM_jk/dq_i) v_k, by central differences."""
    n = len(v)
    dm = [(mass_matrix(q + step * e) - mass_matrix(q - step * e)) / (2 * step)
          for e in np.eye(n)]
    return np.array([[sum(0.5 * (dm[k][i, j] + dm[j][i, k] - dm[i][j, k]) * v[k]
                          for k in range(n)) for j in range(n)] for i in range(n)])


def contact_dynamics(full, d, qf, vf, G, frames, contacts, M, nle, tau):
    """Jc (the contacts' rows of the frames' LOCAL_WORLD_ALIGNED Jacobians, times G) and the
    accelerations and forces of M a + h = tau + Jc^T lambda, Jc a + gamma = 0 (gamma: a point
    contact's classical acceleration, a 6d contact's spatial one, at zero acceleration), by the
    dense solve of Jc M^-1 Jc^T (constraintDynamics refuses mimic joints in Pinocchio 4.1)."""
    lwa = pin.LOCAL_WORLD_ALIGNED
    ids = dict(frames)
    pin.forwardKinematics(full, d, qf, vf, np.zeros(full.nv))
    pin.computeJointJacobians(full, d, qf)
    pin.updateFramePlacements(full, d)
    jc, gamma = [], []
    for contact in contacts:
        frame, six = contact.removesuffix(":6d"), contact.endswith(":6d")
        fid = ids[frame]
        jf = pin.getFrameJacobian(full, d, fid, lwa) @ G
        acc = pin.getFrameClassicalAcceleration(full, d, fid, lwa).vector
        if six:
            vel = pin.getFrameVelocity(full, d, fid, lwa).vector
            spatial = pin.getFrameAcceleration(full, d, fid, lwa).vector
            lin = acc[:3] - np.cross(vel[3:], vel[:3])
            close(np.concatenate([lin, acc[3:]]), spatial, f"{frame} spatial acceleration")
            jc.append(jf)
            gamma.append(spatial)
        else:
            jc.append(jf[:3])
            gamma.append(acc[:3])
    jc, gamma = np.vstack(jc), np.concatenate(gamma)
    minv = np.linalg.inv(M)
    k_op = jc @ minv @ jc.T
    assert np.linalg.cond(k_op) < 1e6, f"dependent contacts {contacts}: {np.linalg.cond(k_op)}"
    lam = np.linalg.solve(k_op, -(jc @ minv @ (tau - nle) + gamma))
    acc = minv @ (tau - nle + jc.T @ lam)
    close(jc @ acc + gamma, np.zeros(len(gamma)), "Jc a + gamma")
    return jc, acc, lam


def split_statement_one(h3, v):
    """h_c, h_o, h_g of seed 001, Statement 1 (1)-(5), for a general H(q), 0-based, with
    h3[k, j, i] = dH_kj/dq_i (symmetric in k, j)."""
    n = len(v)
    hc, ho, hg = np.zeros(n), np.zeros(n), np.zeros(n)
    hdot = h3 @ v
    for i in range(n):
        hc[i] = 0.5 * h3[i, i, i] * v[i] ** 2 + sum(h3[j, i, j] * v[j] ** 2
                                                   for j in range(i + 1, n))
        ho[i] = (0.5 * v[i] * sum(h3[i, i, j] * v[j] for j in range(n) if j != i)
                 + sum(v[j] * sum(h3[j, i, k] * v[k] for k in range(n) if k != j)
                       for j in range(i + 1, n)))
        dtdq = (0.5 * sum(h3[j, j, i] * v[j] ** 2 for j in range(n))
                + sum(v[k] * sum(h3[k, j, i] * v[j] for j in range(k)) for k in range(n)))
        hg[i] = (sum(hdot[i, j] * v[j] for j in range(i)) + 0.5 * hdot[i, i] * v[i] - dtdq)
    return hc, ho, hg


def coupled_split(full, qf, G, v):
    """Statement 1's split in the independent coordinates (module docs)."""
    free = pin.Model(full)
    free.gravity = pin.Motion.Zero()
    d = free.createData()
    nf = full.nv
    dm = np.zeros((nf, nf, nf))  # dm[k, j, a] = dM_kj / dq_a
    for j in range(nf):
        pin.computeRNEADerivatives(free, d, qf, np.zeros(nf), np.eye(nf)[j])
        dm[:, j, :] = d.dtau_dq
    h3 = np.einsum("kja,ai->kji", np.einsum("ak,abc,bj->kjc", G, dm, G), G)
    return split_statement_one(h3, v)


def static_reactions(full, qf, rest_rotations):
    """data.f of every joint after rnea(q_full, 0, 0), in the spec's body axes: forces, then
    moments about the joint's origin."""
    d = full.createData()
    zero = np.zeros(full.nv)
    pin.rnea(full, d, qf, zero, zero)
    forces, moments = [], []
    for i in range(1, full.njoints):
        forces.extend((rest_rotations[i] @ d.f[i].linear).tolist())
        moments.extend((rest_rotations[i] @ d.f[i].angular).tolist())
    return forces + moments


def state(reduced, full, floating, G, offset, frames, contacts, rng):
    nj = reduced.nq - (7 if floating else 0)
    if floating:
        quat = rng.normal(size=4)
        quat /= np.linalg.norm(quat)
        q = np.concatenate([rng.uniform(-1, 1, 3), quat, np.zeros(nj)])
    else:
        q = np.zeros(reduced.nq)
    base = 7 if floating else 0
    for j in range(1, reduced.njoints):
        joint = reduced.joints[j]
        if joint.shortname() in ("JointModelFreeFlyer", "JointModelMimic"):
            continue
        prismatic = joint.shortname().startswith("JointModelP")
        q[joint.idx_q] = rng.uniform(-0.05, 0.05) if prismatic else rng.uniform(-1, 1)
    assert base + nj == reduced.nq
    v = rng.uniform(-2, 2, reduced.nv)
    a = rng.uniform(-2, 2, reduced.nv)
    qf, vf, af = full_q(reduced, full, floating, G, offset, q), G @ v, G @ a
    zf = np.zeros(full.nv)
    d, r = full.createData(), reduced.createData()

    tau = G.T @ pin.rnea(full, d, qf, vf, af)
    grav = G.T @ pin.computeGeneralizedGravity(full, d, qf)
    nle = G.T @ pin.nonLinearEffects(full, d, qf, vf)
    Mf = pin.crba(full, d, qf)
    Mf = np.triu(Mf) + np.triu(Mf, 1).T
    M = G.T @ Mf @ G
    close(pin.rnea(reduced, r, q, v, a), tau, "rnea")
    close(pin.computeGeneralizedGravity(reduced, r, q), grav, "gravity")
    close(pin.nonLinearEffects(reduced, r, q, v), nle, "nle")
    Mr = pin.crba(reduced, r, q)
    close(np.triu(Mr) + np.triu(Mr, 1).T, M, "crba")
    out = {
        "q": q.tolist(),
        "v": v.tolist(),
        "a": a.tolist(),
        "inverse_dynamics": tau.tolist(),
        "gravity": grav.tolist(),
        "nonlinear_effects": nle.tolist(),
        "mass_matrix": M.tolist(),
        "forward_dynamics": np.linalg.solve(M, a - nle).tolist(),
        "mass_matrix_inverse": np.linalg.inv(M).tolist(),
    }
    dq, dv, _ = pin.computeRNEADerivatives(full, d, qf, vf, af)
    out["inverse_dynamics_derivatives"] = [(G.T @ dq @ G).tolist(), (G.T @ dv @ G).tolist()]
    dg = pin.computeGeneralizedGravityDerivatives(full, d, qf)
    out["gravity_derivatives"] = (G.T @ dg @ G).tolist()
    # At the accelerations of the forces `a`: d qdd = -M^-1 d tau (computeABADerivatives').
    minv = np.linalg.inv(M)
    a_fd = np.linalg.solve(M, a - nle)
    dq, dv, _ = pin.computeRNEADerivatives(full, d, qf, vf, G @ a_fd)
    out["forward_dynamics_derivatives"] = [(-minv @ G.T @ dq @ G).tolist(),
                                            (-minv @ G.T @ dv @ G).tolist(), minv.tolist()]
    # Pinocchio 4.1's computeCoriolisMatrix on the mimic model is not the reduced mass
    # matrix's Christoffel matrix (its C v is not h - g): the full one seen through G is.
    C = G.T @ pin.computeCoriolisMatrix(full, d, qf, vf) @ G
    close(C @ v, nle - grav, "C v = h - g")
    if not floating:
        def mass_matrix(x):
            mf = pin.crba(full, full.createData(), full_q(reduced, full, floating, G, offset, x))
            return G.T @ (np.triu(mf) + np.triu(mf, 1).T) @ G
        scale = max(1.0, float(np.abs(C).max()))
        assert np.abs(christoffel(mass_matrix, q, v) - C).max() <= 1e-6 * scale, "Christoffel"
    out["coriolis_matrix"] = C.tolist()

    pin.framesForwardKinematics(full, d, qf)
    pin.framesForwardKinematics(reduced, r, q)
    for name, fid in frames:
        rid = reduced.getFrameId(name)
        pose = d.oMf[fid]
        close(r.oMf[rid].translation, pose.translation, f"{name} position")
        jac = pin.computeFrameJacobian(full, d, qf, fid, pin.LOCAL_WORLD_ALIGNED) @ G
        close(pin.computeFrameJacobian(reduced, r, q, rid, pin.LOCAL_WORLD_ALIGNED), jac,
              f"{name} jacobian")
        out[f"forward_kinematics_{ident(name)}"] = [pose.rotation.tolist(),
                                                    pose.translation.tolist()]
        out[f"jacobian_{ident(name)}"] = jac.tolist()

    c = pin.centerOfMass(full, d, qf, vf, zf)
    acom = d.acom[0].copy()
    Jc = pin.jacobianCenterOfMass(full, d, qf) @ G
    close(pin.jacobianCenterOfMass(reduced, r, q), Jc, "jacobianCenterOfMass")
    Ag = pin.ccrba(full, d, qf, vf) @ G
    hg = d.hg.np.copy()
    close(pin.ccrba(reduced, r, q, v), Ag, "ccrba")
    pin.computeCentroidalMomentumTimeVariation(full, d, qf, vf, zf)
    out.update({
        "center_of_mass": c.tolist(),
        "center_of_mass_jacobian": Jc.tolist(),
        "center_of_mass_acceleration_bias": acom.tolist(),
        "centroidal_momentum_matrix": Ag.tolist(),
        "centroidal_momentum": hg.tolist(),
        "centroidal_momentum_bias": d.dhg.np.tolist(),
        "kinetic_energy": float(pin.computeKineticEnergy(full, d, qf, vf)),
        "potential_energy": float(pin.computePotentialEnergy(full, d, qf)),
    })
    pin.forwardKinematics(full, d, qf, vf, zf)
    for name, fid in frames:
        vel = pin.getFrameVelocity(full, d, fid, pin.LOCAL_WORLD_ALIGNED)
        acc = pin.getFrameClassicalAcceleration(full, d, fid, pin.LOCAL_WORLD_ALIGNED)
        out[f"frame_velocity_{ident(name)}"] = vel.np.tolist()
        out[f"frame_acceleration_bias_{ident(name)}"] = acc.np.tolist()
    pin.computeJointJacobiansTimeVariation(full, d, qf, vf)
    for name, fid in frames:
        jd = pin.getFrameJacobianTimeVariation(full, d, fid, pin.LOCAL_WORLD_ALIGNED) @ G
        out[f"jacobian_derivative_{ident(name)}"] = jd.tolist()
    # Every joint's, the followers' too (rows per joint of the full model).
    out["joint_wrenches"] = joint_wrenches(full, d, qf, vf, af)
    if not floating:
        rest = full.createData()
        pin.forwardKinematics(full, rest, pin.neutral(full))
        rotations = [m.rotation.copy() for m in rest.oMi]
        out["static_joint_reactions"] = static_reactions(full, qf, rotations)
        out.update(split_entries(coupled_split(full, qf, G, v), nle - grav, v))
    if contacts:
        # The forces `a` (as for the forward dynamics).
        jc, acc, lam = contact_dynamics(full, d, qf, vf, G, frames, contacts, M, nle, a)
        out["contact_jacobian"] = jc.tolist()
        out["contact_forward_dynamics"] = acc.tolist() + lam.tolist()
    return out


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for seed, (name, (path, floating, contacts)) in enumerate(ROBOTS.items()):
        reduced, full = load(path, floating, True), load(path, floating, False)
        G, offset = coupling(reduced, full, floating)
        frames = frames_of(full, path)
        rng = np.random.default_rng(1000 + seed)
        states = [state(reduced, full, floating, G, offset, frames, contacts, rng)
                  for _ in range(STATES)]
        coordinates = [reduced.names[j] for j in range(1, reduced.njoints)
                       if reduced.joints[j].shortname() not in ("JointModelMimic",
                                                                "JointModelFreeFlyer")]
        doc = {
            "name": name,
            "input": path,
            "floating_base": floating,
            "coordinates": coordinates,
            "frames": [f for f, _ in frames],
            "contacts": contacts,
            "joints": [full.names[j] for j in range(2 if floating else 1, full.njoints)],
            "generator": f"pinocchio {pin.__version__}",
            "states": states,
        }
        target = OUT / f"{name}.json"
        target.write_text(json.dumps(doc, indent=1) + "\n")
        print(f"wrote {target.relative_to(ROOT)}: {reduced.nv} coordinates, {len(frames)} frames")
    for seed, (name, path) in enumerate(MJCF_ROBOTS.items()):
        mujoco_fixture(name, path, seed)


if __name__ == "__main__":
    main()

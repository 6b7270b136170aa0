#!/usr/bin/env python3
"""Pinocchio reference fixtures for the contact functions: contact_jacobian and
contact_forward_dynamics.

Install:  pip install pin          (the Pinocchio Python wheels; `import pinocchio as pin`)
Run:      python3 tools/contact_reference.py
Writes:   tests/fixtures/contacts/NAME.json for each robot of ROBOTS below.

Each robot is built in Pinocchio as tools/whole_body_reference.py builds it (a plain reading of
docs/spec.md, not the generator). Its contacts are either the spec's own [[contact]] tables or
the list below (which the tests give the generator as `--contact FRAME[:6d]` does); each is a
pin.RigidConstraintModel on the frame's joint at the frame's placement, CONTACT_3D for a point
contact and CONTACT_6D for a 6d one, in pin.LOCAL_WORLD_ALIGNED, against the world at the
frame's current placement, without Baumgarte stabilisation (zero gains), solved by
pin.constraintDynamics with the proximal settings (accuracy 1e-12, mu = 0, one iteration: the
exact solve).

For a fixed seed and STATES random states (q and v as in whole_body_reference.py: a floating
base's quaternion scaled by 1.3 in every other state, Pinocchio evaluated at the normalised q;
tau uniform in [-5, 5]) it records, per state:
  q, v, tau                NQ, NV, NV
  contact_jacobian         NC x NV  the contacts' rows of getFrameJacobian(LOCAL_WORLD_ALIGNED)
                                    (a point contact's 3 linear rows, a 6d contact's 6), in
                                    contact order, row-major; checked against
                                    pin.getConstraintsJacobian (1e-12)
  contact_forward_dynamics a (NV), then lambda (NC): constraintDynamics' return value and
                                    data.lambda_c (world axes, a 6d contact's moment about its
                                    frame's origin)
and checks, per state, M a + h = tau + Jc^T lambda and Jc a + gamma = 0, with gamma the
classical acceleration of a point contact's origin and the spatial acceleration of a 6d
contact's frame (getFrameClassicalAcceleration less w x v on its linear rows) at zero joint
acceleration (1e-9 relative), and the same a and lambda from the dense solve of
Jc M^-1 Jc^T (1e-8 relative).
"""

import json
import os
import sys

import numpy as np
import pinocchio as pin

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
sys.path.insert(0, HERE)
from whole_body_reference import ident, model_of, random_state, rows  # noqa: E402

SEED = 20261129
STATES = 10

# (fixture name, input, how it is read, contacts given besides the input's own: (frame, kind)).
ROBOTS = [
    ("quadruped_floating", "robots/quadruped_floating.toml", "floating",
     [("FR_foot", "point"), ("RL_foot", "point")]),
    ("quadruped_floating_four", "robots/quadruped_floating.toml", "floating",
     [("FR_foot", "point"), ("FL_foot", "point"), ("RR_foot", "point"), ("RL_foot", "point")]),
    ("ur5_flange", "tests/fixtures/contacts/ur5_flange.toml", "spec", []),
    ("humanoid30", "tests/fixtures/floating/humanoid30.toml", "floating",
     [("l_foot", "6d"), ("r_foot", "6d")]),
    ("quadruped_fixed", "robots/quadruped_fixed.toml", "spec",
     [("FL_foot", "point"), ("RR_foot", "point")]),
]


def spec_contacts(path):
    """The spec's own [[contact]] tables, as (frame, kind)."""
    import tomllib
    with open(os.path.join(ROOT, path), "rb") as f:
        doc = tomllib.load(f)
    return [(c["frame"], c.get("kind", "point")) for c in doc.get("contact", [])]


def rel_close(a, b, tol, what):
    a, b = np.asarray(a), np.asarray(b)
    scale = max(1.0, float(np.max(np.abs(b))))
    err = float(np.max(np.abs(a - b)))
    assert err <= tol * scale, f"{what}: {err} > {tol} x {scale}"


def rows_and_bias(model, data, contacts):
    """Jc and gamma of `contacts` ((frame id, kind) pairs) at the motion data holds (after
    forwardKinematics with a zero joint acceleration, computeJointJacobians and
    updateFramePlacements): each contact's rows of getFrameJacobian(LOCAL_WORLD_ALIGNED), and
    its acceleration: a point contact's classical one, a 6d contact's spatial one
    (getFrameClassicalAcceleration less w x v on its linear rows, checked against
    getFrameAcceleration)."""
    lwa = pin.LOCAL_WORLD_ALIGNED
    jc, gamma = [], []
    for fid, kind in contacts:
        jf = pin.getFrameJacobian(model, data, fid, lwa)
        acc = pin.getFrameClassicalAcceleration(model, data, fid, lwa).vector
        vel = pin.getFrameVelocity(model, data, fid, lwa).vector
        if kind == "point":
            jc.append(jf[:3])
            gamma.append(acc[:3])
        else:
            jc.append(jf)
            spatial = pin.getFrameAcceleration(model, data, fid, lwa).vector
            lin = acc[:3] - np.cross(vel[3:], vel[:3])
            rel_close(spatial, np.concatenate([lin, acc[3:]]), 1e-12, "spatial acceleration")
            gamma.append(np.concatenate([lin, acc[3:]]))
    return np.vstack(jc), np.concatenate(gamma)


def fixture(name, path, how, given):
    model, prismatic, frames = model_of(path, how)
    frame_ids = dict(frames)
    contacts = spec_contacts(path) + given
    data = model.createData()
    rng = np.random.default_rng(SEED)
    lwa = pin.LOCAL_WORLD_ALIGNED
    zero = np.zeros(model.nv)
    states = []
    for k in range(STATES):
        q, v = random_state(rng, model, prismatic, k)
        tau = rng.uniform(-5.0, 5.0, model.nv)
        qn = q.copy()
        if model.nq != model.nv:
            qn[3:7] /= np.linalg.norm(qn[3:7])
        pin.forwardKinematics(model, data, qn)
        pin.updateFramePlacements(model, data)
        models = []
        for frame, kind in contacts:
            fid = frame_ids[frame]
            f = model.frames[fid]
            ctype = pin.ContactType.CONTACT_3D if kind == "point" else pin.ContactType.CONTACT_6D
            models.append(pin.RigidConstraintModel(
                ctype, model, f.parentJoint, f.placement, 0, data.oMf[fid], lwa))
        cdatas = pin.StdVec_RigidConstraintData([m.createData() for m in models])
        cmodels = pin.StdVec_RigidConstraintModel(models)
        pin.initConstraintDynamics(model, data, cmodels, cdatas)
        prox = pin.ProximalSettings(1e-12, 0.0, 1)
        a = pin.constraintDynamics(model, data, qn, v, tau, cmodels, cdatas, prox).copy()
        lam = data.lambda_c.copy()
        jc_pin = pin.getConstraintsJacobian(model, data, cmodels, cdatas).copy()

        # The frame Jacobians and accelerations at zero joint acceleration.
        m = pin.crba(model, data, qn)
        m = np.triu(m) + np.triu(m, 1).T
        h = pin.nonLinearEffects(model, data, qn, v)
        pin.forwardKinematics(model, data, qn, v, zero)
        pin.computeJointJacobians(model, data, qn)
        pin.updateFramePlacements(model, data)
        jc, gamma = rows_and_bias(model, data, [(frame_ids[f], kind) for f, kind in contacts])
        rel_close(jc, jc_pin, 1e-12, name + ": Jc against getConstraintsJacobian")
        rel_close(jc @ a + gamma, np.zeros(len(gamma)), 1e-9, name + ": Jc a + gamma")
        rel_close(m @ a + h, tau + jc.T @ lam, 1e-9, name + ": M a + h = tau + Jc^T lambda")
        minv = np.linalg.inv(m)
        k_op = jc @ minv @ jc.T
        lam_dense = np.linalg.solve(k_op, -(jc @ minv @ (tau - h) + gamma))
        a_dense = minv @ (tau - h + jc.T @ lam_dense)
        rel_close(lam, lam_dense, 1e-8, name + ": lambda, dense solve")
        rel_close(a, a_dense, 1e-8, name + ": a, dense solve")
        states.append({
            "q": q.tolist(),
            "v": v.tolist(),
            "tau": tau.tolist(),
            "contact_jacobian": rows(jc),
            "contact_forward_dynamics": a.tolist() + lam.tolist(),
        })
    return {
        "name": name,
        "input": path,
        "floating_base": model.nq != model.nv,
        "nq": model.nq,
        "nv": model.nv,
        "nc": int(sum(3 if kind == "point" else 6 for _, kind in contacts)),
        "contacts": [frame + (":6d" if kind == "6d" else "") for frame, kind in given],
        "contact_names": [ident(frame) for frame, _ in contacts],
        "states": states,
    }


def main():
    out_dir = os.path.join(ROOT, "tests", "fixtures", "contacts")
    os.makedirs(out_dir, exist_ok=True)
    for name, path, how, given in ROBOTS:
        out = os.path.join(out_dir, name + ".json")
        with open(out, "w") as f:
            json.dump(fixture(name, path, how, given), f, indent=1)
            f.write("\n")
        print("wrote", os.path.relpath(out))


if __name__ == "__main__":
    main()

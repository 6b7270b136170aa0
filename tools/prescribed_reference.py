#!/usr/bin/env python3
"""Pinocchio reference fixtures for the functions generated on request with a prescribed base
(`[base] motion = "prescribed"`): the floating-base specs of ROBOTS below with their base's
motion given instead of free, and the base without mass of its own (a prescribed base has
none: its motion does not answer to the robot's forces).

Install:  pip install pin          (the Pinocchio Python wheels; `import pinocchio as pin`)
Run:      python3 tools/prescribed_reference.py
Writes:   tests/fixtures/prescribed/NAME.json for each robot of ROBOTS.

Each spec is built by tools/floating_reference.py's `build` (a free-flyer root joint, a plain
reading of docs/spec.md), and the free-flyer's body inertia is then set to zero. For a fixed
seed and STATES random states (base position in [-1, 1], a random unit quaternion scaled by 1.3
in every other state (Pinocchio is evaluated at the normalised one: the generated functions
normalise), joints in [-1, 1], velocities and accelerations in [-2, 2]; the last TRANSLATING
states have no angular velocity or acceleration of the base, for `translation_only`) it
records, per state, with q = (base_pose, joints), v = (base_vel, qd), a = (base_acc, qdd) in
the free-flyer's layout:
  q, v, a, translating     the state (translating: the base's angular entries are zero)
  kinetic_energy           computeKineticEnergy(q, v)
  potential_energy         computePotentialEnergy(q)
  joint_wrenches           2 x N x 3, data.f of every joint after rnea(q, v, a) in world axes
                           (tools/whole_body_reference.py's joint_wrenches)
  static_joint_reactions   2 x N x 3, data.f of every joint after rnea(q, 0, 0) in the joint's
                           own frame (the spec's body axes): forces, then moments about the
                           joint's origin
and the functions that do not take the base's motion, which give the robot's motion relative to
its base in base axes: Pinocchio's at the base's identity pose and at rest, q0 = (0 0 0 0 0 0 1,
joints), v0 = (0, qd), a0 = 0, restricted to the joints' columns:
  center_of_mass, center_of_mass_jacobian (3 x N), center_of_mass_acceleration_bias,
  centroidal_momentum_matrix (6 x N), centroidal_momentum, centroidal_momentum_bias,
  coriolis_matrix (N x N, the joint block of computeCoriolisMatrix(q0, v0): the base does not
  move, so it is the Christoffel matrix of the joints' mass matrix), mass_matrix_inverse
  (N x N, the inverse of the joint block of crba), and per named frame F frame_velocity_F,
  frame_acceleration_bias_F, jacobian_derivative_F (6 x N), as in
  tools/whole_body_reference.py.
With contacts (ROBOTS' third entry, held in the world: the frames do not move in the world
while the base does), per state also tau (N, uniform in [-5, 5], drawn apart from the state) and
  contact_jacobian         NC x N, the contacts' rows of getFrameJacobian(LOCAL_WORLD_ALIGNED),
                           joint columns
  contact_forward_dynamics qdd (N), then lambda (NC, world axes) from the dense solve of
                           M qdd + h = tau + Jc^T lambda, Jc qdd + gamma = 0, with M the joint
                           block of crba, h = rnea(q, v, (base_acc, 0)) in the joints' rows and
                           gamma the contacts' accelerations from forwardKinematics(q, v,
                           (base_acc, 0)) (a point contact's classical, a 6d contact's spatial,
                           LOCAL_WORLD_ALIGNED)
checked against Pinocchio at the motion found: rnea(q, v, (base_acc, qdd)) in the joints' rows is
tau + Jc^T lambda, and the contacts' accelerations are zero (1e-9 relative).
Checks per state: T = 1/2 v^T M v, V = -m g . c, C0 v0 + g0 = nle(q0, v0) in the joints' rows.

A spec whose joints follow others (`mimic`) is built whole (every joint a coordinate, the full
model) and seen through the coupling, as tools/mimic_reference.py does: with G the map from
the independent joints to every joint's (q_full = G q + offset), the states are drawn in the
independent coordinates and Pinocchio runs at the full state; joint columns become J G, the
Coriolis matrix G^T C G, the inverse mass matrix inv(G^T M G), and the contacts solve
G^T M G qdd + G^T h = tau + (Jc G)^T lambda, Jc G qdd + gamma = 0 (checked through the full
model's rnea seen through G). The wrenches and reactions keep a row per joint; nq and nv are
the independent coordinates' (with the base's 7 and 6).
"""

import json
import os
import sys
import tomllib

import numpy as np
import pinocchio as pin

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
sys.path.insert(0, HERE)
from contact_reference import rows_and_bias  # noqa: E402
from floating_reference import build as build_floating  # noqa: E402
from whole_body_reference import (  # noqa: E402
    close, frame_motion, full_mass_matrix, joint_wrenches, rows)

SEED = 20261203
STATES = 8
TRANSLATING = 2

# (fixture name, spec, contacts given to the generator as `--contact FRAME[:6d]` does).
ROBOTS = [
    ("arm6", "tests/fixtures/prescribed/arm6.toml", [("tool", "6d")]),
    ("floater", "tests/fixtures/floating/floater.toml", []),
    ("quadruped_floating", "robots/quadruped_floating.toml",
     [("FR_foot", "point"), ("RL_foot", "point")]),
    ("arm6_coupled", "tests/fixtures/prescribed/arm6_coupled.toml", [("tool", "point")]),
]


def coupling(spec):
    """G (every joint x the independent ones) and the offsets of the spec's `mimic` bodies,
    or None without couplings."""
    bodies = spec["body"]
    if not any("mimic" in b for b in bodies):
        return None, None
    names = [b.get("joint_name") for b in bodies]
    own = [i for i, b in enumerate(bodies) if "mimic" not in b]
    G = np.zeros((len(bodies), len(own)))
    offset = np.zeros(len(bodies))
    for i, b in enumerate(bodies):
        if "mimic" in b:
            m = b["mimic"]
            G[i, own.index(names.index(m["joint"]))] = m["multiplier"]
            offset[i] = m.get("offset", 0.0)
        else:
            G[i, own.index(i)] = 1.0
    return G, offset


def joint_columns(matrix, G):
    """A matrix's joint columns, seen through the coupling G (None: as they are)."""
    cols = np.asarray(matrix)[:, 6:]
    return cols if G is None else cols @ G


def relative(model, data, qj, qd, frames, G=None):
    """The functions without the base's motion, joint columns, from the base at rest (qj, qd
    every joint's; the columns seen through the coupling G)."""
    n = model.nv - 6
    q0 = np.concatenate([np.zeros(3), [0.0, 0.0, 0.0, 1.0], qj])
    v0 = np.concatenate([np.zeros(6), qd])
    zero = np.zeros(model.nv)
    out = {}
    out["center_of_mass"] = pin.centerOfMass(model, data, q0, v0, zero).tolist()
    out["center_of_mass_acceleration_bias"] = data.acom[0].tolist()
    out["center_of_mass_jacobian"] = rows(joint_columns(pin.jacobianCenterOfMass(model, data, q0),
                                                        G))
    ag = pin.ccrba(model, data, q0, v0).copy()
    out["centroidal_momentum_matrix"] = rows(joint_columns(ag, G))
    out["centroidal_momentum"] = data.hg.vector.tolist()
    pin.computeCentroidalMomentumTimeVariation(model, data, q0, v0, zero)
    out["centroidal_momentum_bias"] = data.dhg.vector.tolist()
    cm = pin.computeCoriolisMatrix(model, data, q0, v0).copy()
    g0 = pin.computeGeneralizedGravity(model, data, q0)
    close((cm @ v0 + g0)[6:], pin.nonLinearEffects(model, data, q0, v0)[6:], "C v + g = nle")
    m = full_mass_matrix(model, data, q0)[6:, 6:]
    cm = cm[6:, 6:]
    if G is not None:
        cm, m = G.T @ cm @ G, G.T @ m @ G
    out["coriolis_matrix"] = rows(cm)
    out["mass_matrix_inverse"] = rows(np.linalg.inv(m))
    for key, value in frame_motion(model, data, q0, v0, frames).items():
        if key.startswith("jacobian_derivative_"):
            value = rows(joint_columns(np.asarray(value).reshape(6, 6 + n), G))
        out[key] = value
    return out


def static_reactions(model, data, q):
    """What each joint transmits at rest, in its own frame: forces, then moments."""
    zero = np.zeros(model.nv)
    pin.rnea(model, data, q, zero, zero)
    forces, moments = [], []
    for i in range(2, model.njoints):  # joint 1 is the free-flyer
        forces.extend(data.f[i].linear.tolist())
        moments.extend(data.f[i].angular.tolist())
    return forces + moments


def solved_close(a, b, what):
    """A linear solve's check: 1e-9 relative to the larger of 1 and b's largest entry."""
    scale = max(1.0, float(np.max(np.abs(b))))
    assert np.max(np.abs(np.asarray(a) - np.asarray(b))) <= 1e-9 * scale, what


def contact_dynamics(model, data, q, v, a, tau, contacts, G=None):
    """The contacts held in the world while the base moves as v[:6], a[:6]: Jc (the frames'
    joint columns, world axes) and the dense solve of M qdd + h = tau + Jc^T lambda,
    Jc qdd + gamma = 0, checked against Pinocchio's rnea and frame accelerations at the
    resulting motion; with a coupling G (q, v full, tau and qdd independent), in the
    independent coordinates."""
    lwa = pin.LOCAL_WORLD_ALIGNED
    n = model.nv - 6
    through = np.eye(n) if G is None else G
    a_base = np.concatenate([a[:6], np.zeros(n)])
    m = through.T @ full_mass_matrix(model, data, q)[6:, 6:] @ through
    h = through.T @ pin.rnea(model, data, q, v, a_base)[6:].copy()
    pin.forwardKinematics(model, data, q, v, a_base)
    pin.computeJointJacobians(model, data, q)
    pin.updateFramePlacements(model, data)
    jc, gamma = rows_and_bias(model, data, contacts)
    jc = jc[:, 6:] @ through  # the joints' columns
    nc, nr = len(gamma), through.shape[1]
    kkt = np.block([[m, -jc.T], [jc, np.zeros((nc, nc))]])
    x = np.linalg.solve(kkt, np.concatenate([tau - h, -gamma]))
    qdd, lam = x[:nr], x[nr:]
    # The same motion through Pinocchio's own recursions.
    full_a = np.concatenate([a[:6], through @ qdd])
    solved_close(through.T @ pin.rnea(model, data, q, v, full_a)[6:], tau + jc.T @ lam,
                 "rnea = tau + Jc^T lambda")
    pin.forwardKinematics(model, data, q, v, full_a)
    pin.updateFramePlacements(model, data)
    for fid, kind in contacts:
        if kind == "point":
            held = pin.getFrameClassicalAcceleration(model, data, fid, lwa).linear
        else:
            held = pin.getFrameAcceleration(model, data, fid, lwa).vector
        solved_close(held, np.zeros(len(held)), "the contact's acceleration")
    return {
        "tau": tau.tolist(),
        "contact_jacobian": rows(jc),
        "contact_forward_dynamics": qdd.tolist() + lam.tolist(),
    }


def fixture(name, path, contacts):
    with open(os.path.join(ROOT, path), "rb") as f:
        spec = tomllib.load(f)
    model, fids = build_floating(spec)
    model.inertias[1] = pin.Inertia.Zero()
    G, offset = coupling(spec)
    frames = list(zip([f["name"] for f in spec.get("frame", [])], fids))
    contact_ids = [(dict(frames)[frame], kind) for frame, kind in contacts]
    data = model.createData()
    rng = np.random.default_rng(SEED)
    # Its own draws, so that the states above do not depend on whether there are contacts.
    forces = np.random.default_rng(SEED + 1)
    # The independent coordinates (every joint without couplings).
    n = model.nv - 6 if G is None else G.shape[1]

    def full(x, base, offsets):
        """A state's full vector: the base's entries, then every joint's through G."""
        if G is None:
            return x
        return np.concatenate([x[:base], G @ x[base:] + offsets])

    states = []
    for k in range(STATES):
        quat = rng.normal(size=4)
        quat /= np.linalg.norm(quat)
        q = np.concatenate([rng.uniform(-1, 1, 3), quat * (1.3 if k % 2 else 1.0),
                            rng.uniform(-1, 1, n)])
        v = rng.uniform(-2.0, 2.0, 6 + n)
        a = rng.uniform(-2.0, 2.0, 6 + n)
        translating = k >= STATES - TRANSLATING
        if translating:
            v[3:6] = 0.0
            a[3:6] = 0.0
        zeros = None if G is None else np.zeros(G.shape[0])
        qf, vf, af = full(q, 7, offset), full(v, 6, zeros), full(a, 6, zeros)
        qn = qf.copy()
        qn[3:7] /= np.linalg.norm(qn[3:7])
        kinetic = pin.computeKineticEnergy(model, data, qn, vf)
        half_vmv = 0.5 * vf @ full_mass_matrix(model, data, qn) @ vf
        assert abs(kinetic - half_vmv) <= 1e-12 * max(1.0, abs(half_vmv)), "T = 1/2 v^T M v"
        potential = pin.computePotentialEnergy(model, data, qn)
        com = pin.centerOfMass(model, data, qn)
        mgc = -data.mass[0] * (model.gravity.linear @ com)
        assert abs(potential - mgc) <= 1e-12 * max(1.0, abs(mgc)), "V = -m g . c"
        state = {
            "q": q.tolist(),
            "v": v.tolist(),
            "a": a.tolist(),
            "translating": translating,
            "kinetic_energy": kinetic,
            "potential_energy": potential,
            "joint_wrenches": joint_wrenches(model, data, qn, vf, af),
            "static_joint_reactions": static_reactions(model, data, qn),
        }
        state.update(relative(model, data, qf[7:], vf[6:], frames, G))
        if contacts:
            tau = forces.uniform(-5.0, 5.0, n)
            state.update(contact_dynamics(model, data, qn, vf, af, tau, contact_ids, G))
        states.append(state)
    return {
        "name": name,
        "input": path,
        "nq": 7 + n,
        "nv": 6 + n,
        "frames": [name for name, _ in frames],
        "contacts": [frame + (":6d" if kind == "6d" else "") for frame, kind in contacts],
        "states": states,
    }


def main():
    out_dir = os.path.join(ROOT, "tests", "fixtures", "prescribed")
    os.makedirs(out_dir, exist_ok=True)
    for name, path, contacts in ROBOTS:
        out = os.path.join(out_dir, name + ".json")
        with open(out, "w") as f:
            json.dump(fixture(name, path, contacts), f, indent=1)
            f.write("\n")
        print("wrote", os.path.relpath(out))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Pinocchio reference fixtures for the robots in robots/.

Install:  pip install pin          (the Pinocchio Python wheels; `import pinocchio as pin`)
Run:      python3 tools/reference.py                 # every robots/*.toml
          python3 tools/reference.py robots/ur5.toml # selected specs (trees too)
Writes:   tests/fixtures/NAME.json, one per spec (NAME = the spec's `name`); a spec kept in a
          directory under tests/fixtures/ (tests/fixtures/armature/) gets its fixture beside it.

For each spec (read with tools/spec_check.py, a Python reading of docs/spec.md) the same robot
is built directly in Pinocchio:
- body i gets a joint placed at SE3(identity, origin_i) relative to its parent's joint (the
  universe for a child of the base); for a chain origin_i is next_{i-1} (the first: base);
  revolute or prismatic about/along the spec axis (JointModelRX/
  RY/RZ, PX/PY/PZ for +x/+y/+z, the *Unaligned models otherwise); so the joint frame is the body
  frame of docs/spec.md (origin at the pole, parallel to the base at q = 0);
- body inertia pin.Inertia(mass, com, inertia about the CoM) (method form b/a and
  about = "pole" converted by spec_check.load_spec);
- gravity from the spec; for a chain, a tool frame at SE3(tool rotation, next_N) on the last
  joint; every [[frame]] an OP_FRAME at SE3(rotation, position) on its body's joint.

Then, for a fixed seed and 50 random states (q uniform in [-pi, pi] for revolute joints and
[-0.5, 0.5] m for prismatic ones; qd, qdd, tau_fd uniform in [-2, 2]) it records, per state:
  q, qd, qdd                N
  tau                       N      rnea(q, qd, qdd)
  mass_matrix               N x N  crba, full symmetric
  nonlinear_effects         N      nonLinearEffects(q, qd)  (Coriolis/centrifugal + gravity)
  gravity                   N      computeGeneralizedGravity(q)
  tau_fd, qdd_fd            N      qdd_fd = aba(q, qd, tau_fd)
  tool_rotation             3 x 3  rows; columns = tool axes in the base frame   (chains only)
  tool_position             3      tool point in the base frame                 (chains only)
  jacobian                  6 x N  getFrameJacobian(tool, LOCAL_WORLD_ALIGNED): rows 0-2 linear
                                   velocity of the tool point, rows 3-5 angular velocity, base
                                   axes                                         (chains only)
  kinetic_energy            1      computeKineticEnergy(q, qd)
  static_force              N x 3  rnea(q, 0, 0), data.f[i].linear: the force exerted ON body i
  static_moment             N x 3  BY its carrier (joint i), about the pole O_i, in body frame i
                                   (data.f[i].angular); at rest it holds up subsystem i
  centrifugal, coriolis,    N      the velocity-force split h_c, h_o, h_g of A. I. Telegin,
  gyroscopic                       "Separation of gyroscopic inertial forces from centrifugal and
                                   Coriolis inertial forces", 2024, DOI 10.14529/ctcr240106
                                   (seed 001), Statement 3 (single open chain), eqs. (12)-(16);
                                   the inner Coriolis sum runs from k = j+1 (printed i+2 in the
                                   tree form (8)) and h_o1 is not h^g_o1 in general (the printed
                                   (17) says it is); only h_g1 = h^g_o1 holds. For a regular-
                                   numbered tree H_kj (k >= j) depends only on q_i, i > j, so the
                                   same formulas hold (the tree form, Statement 2, drops terms
                                   that are zero)
  frames                    list   only when the spec has [[frame]]s, in spec order: {name,
                                   rotation (3 x 3 rows), position (3), jacobian (6 x N,
                                   LOCAL_WORLD_ALIGNED, as above)} of each frame
  dtau_dq, dtau_dqd,        N x N  only when a joint has `armature` (model.armature, which crba,
  dqdd_dq, dqdd_dqd, Minv          rnea, aba and computeKineticEnergy include):
                                   computeRNEADerivatives(q, qd, qdd) and
                                   computeABADerivatives(q, qd, tau_fd), rows

The split uses H = M(q) and H_kji = dH_kj/dq_i, computed exactly with
computeRNEADerivatives(q, qd = 0, qdd = e_j) on a copy of the model with zero gravity (its
dtau_dq is d(M e_j)/dq). The script asserts, for every state: h_c + h_o + h_g equals
nonlinear_effects - gravity and sum_i h_g,i qd_i = 0 (both to 1e-10 absolute), tau = M qdd + nle
(1e-10 relative to the size of the terms when they exceed 1), M qdd_fd + nle = tau_fd, the kinetic energy equals
qd.M.qd / 2, that H_kji = 0 for i <= j (k >= j) and that H_kj and its derivatives are exact zeros
when neither body carries the other (the premise of the split formulas for trees), and (first
state) that the H_kji agree with finite differences of crba. Before
anything else it checks the sign of the static reaction on a one-body pendulum by hand.
"""

from __future__ import annotations

import json
import math
import pathlib
import sys

import numpy as np
import pinocchio as pin

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from spec_check import load_spec  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
SEED = 20240601
STATES = 50
TOL = 1e-10

_ALIGNED = {
    ("revolute", (1.0, 0.0, 0.0)): pin.JointModelRX,
    ("revolute", (0.0, 1.0, 0.0)): pin.JointModelRY,
    ("revolute", (0.0, 0.0, 1.0)): pin.JointModelRZ,
    ("prismatic", (1.0, 0.0, 0.0)): pin.JointModelPX,
    ("prismatic", (0.0, 1.0, 0.0)): pin.JointModelPY,
    ("prismatic", (0.0, 0.0, 1.0)): pin.JointModelPZ,
}


def joint_model(kind, axis):
    key = (kind, tuple(float(x) for x in axis))
    if key in _ALIGNED:
        return _ALIGNED[key]()
    if kind == "revolute":
        return pin.JointModelRevoluteUnaligned(np.asarray(axis, dtype=float))
    return pin.JointModelPrismaticUnaligned(np.asarray(axis, dtype=float))


def build_model(robot):
    """Pinocchio model of a loaded spec; returns (model, tool frame id or None for a tree,
    ids of the spec's [[frame]]s)."""
    model = pin.Model()
    model.name = robot["name"]
    model.gravity = pin.Motion(np.asarray(robot["gravity"], dtype=float), np.zeros(3))
    joint_ids = []
    for b in robot["bodies"]:
        # Joint i sits at SE3(I, origin_i) in its parent's joint frame (the universe for a child
        # of the base); for a chain origin_i is next_{i-1} (base for the first body).
        parent = 0 if b["parent"] is None else joint_ids[b["parent"]]
        placement = pin.SE3(np.eye(3), np.asarray(b["origin"], dtype=float))
        jid = model.addJoint(parent, joint_model(b["joint"], b["axis"]), placement, b["joint_name"])
        model.appendBodyToJoint(jid, pin.Inertia(b["mass"], b["com"], b["inertia_com"]),
                                pin.SE3.Identity())
        joint_ids.append(jid)
    # Joint armature (rotor inertia about the axis): the joints are one-dimensional, in body
    # order, so index i of model.armature is body i's.
    model.armature = np.array([b.get("armature", 0.0) for b in robot["bodies"]], dtype=float)
    fid = None
    if robot.get("is_chain", True):
        last = robot["bodies"][-1]
        tool = pin.SE3(np.asarray(robot["tool_rotation"], dtype=float),
                       np.asarray(last["next"], dtype=float))
        fid = model.addFrame(pin.Frame("tool", joint_ids[-1], tool, pin.FrameType.OP_FRAME))
    frame_ids = []
    for f in robot.get("frames", []):
        placement = pin.SE3(np.asarray(f["rotation"], dtype=float),
                            np.asarray(f["position"], dtype=float))
        frame_ids.append(model.addFrame(pin.Frame(f["name"], joint_ids[f["body"]], placement,
                                                  pin.FrameType.OP_FRAME)))
    return model, fid, frame_ids


def full_symmetric(m):
    u = np.triu(m)
    return u + np.triu(u, 1).T


def mass_matrix(model, data, q):
    return full_symmetric(pin.crba(model, data, q))


def inertia_derivatives(model0, data0, q):
    """H3[k, j, i] = dH_kj/dq_i, from RNEA derivatives at qd = 0, qdd = e_j, zero gravity."""
    n = model0.nv
    h3 = np.zeros((n, n, n))
    for j in range(n):
        e = np.zeros(n)
        e[j] = 1.0
        pin.computeRNEADerivatives(model0, data0, q, np.zeros(n), e)
        h3[:, j, :] = data0.dtau_dq
    return h3


def velocity_split(h, h3, qd):
    """h_c, h_o, h_g of seed 001, Statement 3 (single open chain), 0-based indices.

    (12) h_c,i = sum_{j>i} H_jij qd_j^2
    (16) h^g_o,i = 1/2 qd_i sum_{j>i} H_iij qd_j
    (13) h_o,i = h^g_o,i + sum_{j=i+1}^{N-1} qd_j sum_{k=j+1}^{N} (H_kij + H_jik) qd_k
    (14) dT/dq_i = 1/2 sum_{j<i} H_jji qd_j^2 + sum_{j<i} qd_j sum_{k>j} H_kji qd_k
    (15) h_g,i = h^g_o,i + sum_{j<i} Hdot_ij qd_j - dT/dq_i,  Hdot_ij = sum_l H_ijl qd_l
    with H_kji = dH_kj/dq_i for k >= j (lower-triangle storage, as in the paper).
    """
    n = len(qd)
    hc, ho, hg = np.zeros(n), np.zeros(n), np.zeros(n)
    for i in range(n):
        hc[i] = sum(h3[j, i, j] * qd[j] ** 2 for j in range(i + 1, n))
        hgo = 0.5 * qd[i] * sum(h3[i, i, j] * qd[j] for j in range(i + 1, n))
        ho[i] = hgo + sum(qd[j] * sum((h3[k, i, j] + h3[j, i, k]) * qd[k] for k in range(j + 1, n))
                          for j in range(i + 1, n))
        dtdq = (0.5 * sum(h3[j, j, i] * qd[j] ** 2 for j in range(i))
                + sum(qd[j] * sum(h3[k, j, i] * qd[k] for k in range(j + 1, n)) for j in range(i)))
        hdot = sum(sum(h3[i, j, l] * qd[l] for l in range(n)) * qd[j] for j in range(i))
        hg[i] = hgo + hdot - dtdq
    return hc, ho, hg


def carries(robot, ancestor, body):
    """Whether body `ancestor` is on the path from `body` to the base (a body carries itself)."""
    while body is not None:
        if body == ancestor:
            return True
        body = robot["bodies"][body]["parent"]
    return False


def close(a, b, tol=TOL):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    scale = max(1.0, float(np.max(np.abs(a), initial=0.0)), float(np.max(np.abs(b), initial=0.0)))
    return float(np.max(np.abs(a - b), initial=0.0)) <= tol * scale


def check_reaction_sign():
    """One body, revolute about z, CoM c: at rest the carrier holds it up with +m g y."""
    m, c = 2.0, np.array([0.3, 0.1, 0.0])
    robot = dict(name="pendulum", gravity=np.array([0.0, -9.81, 0.0]), base=np.zeros(3),
                 tool_rotation=np.eye(3),
                 bodies=[dict(name="b", joint_name="q1", joint="revolute", axis=np.array([0, 0, 1.0]),
                              next=np.zeros(3), parent=None, origin=np.zeros(3), mass=m, com=c,
                              inertia_com=np.eye(3) * 0.01)])
    model, _, _ = build_model(robot)
    data = model.createData()
    pin.rnea(model, data, np.zeros(1), np.zeros(1), np.zeros(1))
    f = data.f[1]
    weight_support = np.array([0.0, m * 9.81, 0.0])
    assert np.allclose(f.linear, weight_support, atol=1e-12), f.linear
    # moment about the pole that balances the weight's moment c x (m g): c x (+m g y)
    assert np.allclose(f.angular, np.cross(c, weight_support), atol=1e-12), f.angular
    # and at q1 = pi/2 (frame rotated), the same base-frame force seen in body axes
    q = np.array([math.pi / 2])
    pin.rnea(model, data, q, np.zeros(1), np.zeros(1))
    assert np.allclose(data.f[1].linear, [m * 9.81, 0.0, 0.0], atol=1e-12), data.f[1].linear


def rows(a):
    return [list(map(float, r)) for r in np.asarray(a)]


def vec(a):
    return [float(x) for x in np.asarray(a).ravel()]


def fixture(spec_path):
    robot = load_spec(spec_path)
    model, fid, frame_ids = build_model(robot)
    data = model.createData()
    model0 = model.copy()
    model0.gravity = pin.Motion.Zero()
    data0 = model0.createData()
    n = model.nv
    rng = np.random.default_rng(SEED)
    prismatic = np.array([b["joint"] == "prismatic" for b in robot["bodies"]])
    states = []
    for s in range(STATES):
        q = np.where(prismatic, rng.uniform(-0.5, 0.5, n), rng.uniform(-math.pi, math.pi, n))
        qd, qdd, tau_fd = (rng.uniform(-2.0, 2.0, n) for _ in range(3))

        tau = pin.rnea(model, data, q, qd, qdd).copy()
        mm = mass_matrix(model, data, q)
        nle = pin.nonLinearEffects(model, data, q, qd).copy()
        grav = pin.computeGeneralizedGravity(model, data, q).copy()
        qdd_fd = pin.aba(model, data, q, qd, tau_fd).copy()
        pin.forwardKinematics(model, data, q)
        pin.updateFramePlacements(model, data)
        tool = None
        if fid is not None:
            omf = data.oMf[fid]
            tool = {"tool_rotation": rows(omf.rotation), "tool_position": vec(omf.translation),
                    "jacobian": rows(pin.computeFrameJacobian(model, data, q, fid,
                                                              pin.LOCAL_WORLD_ALIGNED))}
        frames = []
        for f, k in zip(robot["frames"], frame_ids):
            omf = data.oMf[k]
            frames.append({
                "name": f["name"], "rotation": rows(omf.rotation), "position": vec(omf.translation),
                "jacobian": rows(pin.computeFrameJacobian(model, data, q, k, pin.LOCAL_WORLD_ALIGNED)),
            })
        ke = float(pin.computeKineticEnergy(model, data, q, qd))
        pin.rnea(model, data, q, np.zeros(n), np.zeros(n))
        sforce = [vec(data.f[i].linear) for i in range(1, n + 1)]
        smoment = [vec(data.f[i].angular) for i in range(1, n + 1)]

        h3 = inertia_derivatives(model0, data0, q)
        hc, ho, hg = velocity_split(mm, h3, qd)

        assert close(tau, mm @ qdd + nle), "tau != M qdd + nle"
        assert close(mm @ qdd_fd + nle, tau_fd, 1e-9), "aba inconsistent with crba/nle"
        # Pinocchio 4.1's computeKineticEnergy counts the armature of aligned joints (RX, PX,
        # ...) but not that of the unaligned ones, so with armature the energy is not recorded.
        armature = bool(np.any(model.armature != 0.0))
        assert armature or close(ke, 0.5 * qd @ mm @ qd), "kinetic energy"
        assert np.max(np.abs(hc + ho + hg - (nle - grav))) <= TOL, f"split sum, state {s}"
        assert abs(float(hg @ qd)) <= TOL, f"gyroscopic power, state {s}"
        # The premise of the split formulas for regular-numbered trees (and chains): H_kj,
        # k >= j, does not depend on q_i for i <= j, and is zero when neither body carries
        # the other (no work on those entries in Pinocchio's CRBA: exact zeros).
        for j in range(n):
            for k in range(j, n):
                assert np.all(np.abs(h3[k, j, :j + 1]) <= TOL * max(1.0, np.abs(h3).max())), (s, k, j)
                if not carries(robot, j, k):
                    assert mm[k, j] == 0.0 and np.all(h3[k, j, :] == 0.0), (s, k, j)
        if s == 0:
            eps = 1e-6
            for i in range(n):
                dq = np.zeros(n)
                dq[i] = eps
                fd = (mass_matrix(model, data, q + dq) - mass_matrix(model, data, q - dq)) / (2 * eps)
                assert np.allclose(fd, h3[:, :, i], atol=1e-6 * max(1.0, np.abs(fd).max())), i
        state = {
            "q": vec(q), "qd": vec(qd), "qdd": vec(qdd), "tau": vec(tau),
            "mass_matrix": rows(mm), "nonlinear_effects": vec(nle), "gravity": vec(grav),
            "tau_fd": vec(tau_fd), "qdd_fd": vec(qdd_fd),
        }
        if tool is not None:
            state.update(tool)
        if not armature:
            state["kinetic_energy"] = ke
        state.update({
            "static_force": sforce, "static_moment": smoment,
            "centrifugal": vec(hc), "coriolis": vec(ho), "gyroscopic": vec(hg),
        })
        if frames:
            state["frames"] = frames
        if armature:
            # With armature, also the derivatives (which read the mass matrix: dtau/dqdd = M,
            # dqdd/dtau = M^-1), N x N rows.
            pin.computeRNEADerivatives(model, data, q, qd, qdd)
            state["dtau_dq"] = rows(data.dtau_dq)
            state["dtau_dqd"] = rows(data.dtau_dv)
            pin.computeABADerivatives(model, data, q, qd, tau_fd)
            state["dqdd_dq"] = rows(data.ddq_dq)
            state["dqdd_dqd"] = rows(data.ddq_dv)
            state["Minv"] = rows(full_symmetric(data.Minv))
        states.append(state)
    return robot["name"], n, states


def write_fixture(name, n, states, out_dir):
    out = pathlib.Path(out_dir) / f"{name}.json"
    head = {"robot": name, "dof": n, "generator": f"pinocchio {pin.__version__}"}
    # One state per line: valid JSON, readable diffs.
    text = json.dumps(head)[:-1] + ', "states": [\n'
    text += ",\n".join(json.dumps(s) for s in states)
    text += "\n]}\n"
    json.loads(text)
    out.write_text(text)
    return out


def main(argv):
    check_reaction_sign()
    specs = [pathlib.Path(p) for p in argv] or sorted((ROOT / "robots").glob("*.toml"))
    fixtures = ROOT / "tests" / "fixtures"
    fixtures.mkdir(parents=True, exist_ok=True)
    for p in specs:
        name, n, states = fixture(p)
        # A spec kept under tests/fixtures/DIR/ gets its fixture beside it.
        inside = p.resolve().parent
        out_dir = inside if fixtures.resolve() in inside.parents else fixtures
        out = write_fixture(name, n, states, out_dir)
        print(f"{p.name} -> {out.relative_to(ROOT)} ({n} dof, {len(states)} states, pinocchio {pin.__version__})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Pinocchio reference fixtures for the analytical derivatives and the regressor.

Install:  pip install pin          (the Pinocchio Python wheels; `import pinocchio as pin`)
Run:      python3 tools/derivatives_reference.py                 # every robots/*.toml
          python3 tools/derivatives_reference.py robots/ur5.toml # selected specs
          python3 tools/derivatives_reference.py tests/fixtures/urdf/panda.urdf
                                                   # a URDF arm of URDF_TIPS, root to tip
          python3 tools/derivatives_reference.py --time robots/ur5.toml tests/fixtures/urdf/panda.urdf
                                                   # only time Pinocchio (URDF: fingers locked)
Writes:   tests/fixtures/derivatives/NAME.json, one per spec (NAME = the spec's `name`);
          tests/fixtures/derivatives/urdf/NAME.json for a URDF (the joints off the root-to-tip
          path locked at 0, as tools/urdf_reference.py; no regressor: the URDF's joint frames
          are not the body frames the standard parameters are given in).

The robot is built in Pinocchio exactly as tools/reference.py does (its `build_model`, reading
the spec with tools/spec_check.py). For a fixed seed and 20 random states (q uniform in
[-pi, pi] for revolute joints and [-0.5, 0.5] m for prismatic ones; qd, qdd, tau uniform in
[-2, 2]) it records, per state (matrices as rows, [i][j] = d out_i / d in_j):
  q, qd, qdd, tau          N
  dtau_dq, dtau_dqd        N x N  computeRNEADerivatives(q, qd, qdd)
  dg_dq                    N x N  computeGeneralizedGravityDerivatives(q)
  dqdd_dq, dqdd_dqd, Minv  N x N  computeABADerivatives(q, qd, tau) (Minv made full from its
                                  upper triangle)
  regressor                N x 10N  computeJointTorqueRegressor(q, qd, qdd), columns reordered
                                  per body to m, mx, my, mz, ixx, ixy, ixz, iyy, iyz, izz
and once per robot
  standard_parameters      10N    model.inertias[i].toDynamicParameters() in the same order:
                                  mass, first moment m c about the body frame's origin (the
                                  pole), inertia tensor about the pole in body axes (tensor
                                  entries, ixy = -integral of x y dm)

Checks made here, every state: the derivatives against central finite differences of rnea /
aba / computeGeneralizedGravity (step 1e-6, 1e-6 relative plus the differences' rounding error), Minv M = I, Y pi = rnea (1e-10
relative). With --time it writes no fixture and prints Pinocchio's time per call of computeRNEADerivatives,
computeABADerivatives, computeGeneralizedGravityDerivatives and computeJointTorqueRegressor
(best of 15 runs over 256 random states, from Python, so including the binding's overhead).
"""

from __future__ import annotations

import json
import math
import pathlib
import sys
import time

import numpy as np
import pinocchio as pin

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from reference import build_model, full_symmetric  # noqa: E402
from spec_check import load_spec  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
# The tip each URDF arm of tests/fixtures/urdf is imported to (as tools/urdf_reference.py).
URDF_TIPS = {"panda": "panda_hand_tcp", "xarm7": "link_eef", "so101": "gripper_frame_link",
             "ur10": "tool0", "kinova": "j2s6s200_end_effector", "ur5": "tool0"}
SEED = 20261123
STATES = 20
EPS = 1e-6
FD_TOL = 1e-6
TOL = 1e-10
# Pinocchio's dynamic parameters: m, mc_x, mc_y, mc_z, Ixx, Ixy, Iyy, Ixz, Iyz, Izz.
# quasidyn's order:                 m, mx,   my,   mz,   ixx, ixy, ixz, iyy, iyz, izz.
PIN_TO_OURS = [0, 1, 2, 3, 4, 5, 7, 6, 8, 9]


def close(a, b, tol):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    scale = max(1.0, float(np.max(np.abs(b), initial=0.0)))
    return float(np.max(np.abs(a - b), initial=0.0)) <= tol * scale


def central(f, x, n):
    """Columns d f / d x_j by central differences, and the rounding error they may carry
    (a few ulps of the largest |f| over the step)."""
    cols = []
    fmax = float(np.max(np.abs(f(x)), initial=0.0))
    for j in range(n):
        dx = np.zeros(n)
        dx[j] = EPS
        cols.append((f(x + dx) - f(x - dx)) / (2 * EPS))
    return np.array(cols).T, 8 * np.finfo(float).eps * max(1.0, fmax) / EPS


def reorder_regressor(y, n):
    out = np.zeros_like(y)
    for b in range(n):
        for k, p in enumerate(PIN_TO_OURS):
            out[:, 10 * b + k] = y[:, 10 * b + p]
    return out


def standard_parameters(model):
    pi = []
    for i in range(1, model.njoints):
        p = np.asarray(model.inertias[i].toDynamicParameters()).ravel()
        pi.extend(float(p[k]) for k in PIN_TO_OURS)
    return pi


def random_state(rng, prismatic, n):
    q = np.where(prismatic, rng.uniform(-0.5, 0.5, n), rng.uniform(-math.pi, math.pi, n))
    qd, qdd, tau = (rng.uniform(-2.0, 2.0, n) for _ in range(3))
    return q, qd, qdd, tau


def rows(a):
    return [list(map(float, r)) for r in np.asarray(a)]


def vec(a):
    return [float(x) for x in np.asarray(a).ravel()]


def derivative_state(model, data, config, q, qd, qdd, tau, label):
    """The derivatives at one state, each checked against central differences, and
    Minv M = I; `config` turns joint values into Pinocchio's configuration."""
    n = model.nv
    pin.computeRNEADerivatives(model, data, config(q), qd, qdd)
    dtau_dq, dtau_dqd = data.dtau_dq.copy(), data.dtau_dv.copy()
    dg_dq = pin.computeGeneralizedGravityDerivatives(model, data, config(q)).copy()
    pin.computeABADerivatives(model, data, config(q), qd, tau)
    dqdd_dq, dqdd_dqd = data.ddq_dq.copy(), data.ddq_dv.copy()
    minv = full_symmetric(data.Minv.copy())

    rnea = lambda qq, vv, aa: pin.rnea(model, data, config(qq), vv, aa).copy()  # noqa: E731
    aba = lambda qq, vv, tt: pin.aba(model, data, config(qq), vv, tt).copy()  # noqa: E731
    grav = lambda qq: pin.computeGeneralizedGravity(model, data, config(qq)).copy()  # noqa: E731
    checks = [
        (dtau_dq, central(lambda x: rnea(x, qd, qdd), q, n), "dtau_dq"),
        (dtau_dqd, central(lambda x: rnea(q, x, qdd), qd, n), "dtau_dqd"),
        (dg_dq, central(grav, q, n), "dg_dq"),
        (dqdd_dq, central(lambda x: aba(x, qd, tau), q, n), "dqdd_dq"),
        (dqdd_dqd, central(lambda x: aba(q, x, tau), qd, n), "dqdd_dqd"),
        (minv, central(lambda x: aba(q, qd, x), tau, n), "Minv"),
    ]
    for a, (b, rounding), what in checks:
        err = float(np.max(np.abs(a - b)))
        bound = FD_TOL * max(1.0, float(np.max(np.abs(b)))) + rounding
        assert err <= bound, f"{label}: {what} vs differences: {err:e}"
    mm = full_symmetric(pin.crba(model, data, config(q)))
    assert close(minv @ mm, np.eye(n), TOL), "Minv M != I"
    return {
        "q": vec(q), "qd": vec(qd), "qdd": vec(qdd), "tau": vec(tau),
        "dtau_dq": rows(dtau_dq), "dtau_dqd": rows(dtau_dqd), "dg_dq": rows(dg_dq),
        "dqdd_dq": rows(dqdd_dq), "dqdd_dqd": rows(dqdd_dqd), "Minv": rows(minv),
    }


def fixture(spec_path):
    robot = load_spec(spec_path)
    model = build_model(robot)[0]
    data = model.createData()
    n = model.nv
    rng = np.random.default_rng(SEED)
    prismatic = np.array([b["joint"] == "prismatic" for b in robot["bodies"]])
    pi = np.array(standard_parameters(model))
    states = []
    for s in range(STATES):
        q, qd, qdd, tau = random_state(rng, prismatic, n)
        state = derivative_state(model, data, lambda x: x, q, qd, qdd, tau,
                                 f"{robot['name']} state {s}")
        y = reorder_regressor(pin.computeJointTorqueRegressor(model, data, q, qd, qdd).copy(), n)
        rnea = pin.rnea(model, data, q, qd, qdd).copy()
        assert close(y @ pi, rnea, TOL), "Y pi != rnea"
        state["regressor"] = rows(y)
        states.append(state)
    return robot["name"], n, vec(pi), states


def urdf_fixture(name, tip):
    """The derivatives of a URDF arm of tests/fixtures/urdf from its root to `tip`, the joints
    off that path locked at 0 (as tools/urdf_reference.py builds it); no regressor (the URDF's
    joint frames are not quasidyn's body frames, in which the standard parameters are given)."""
    full = pin.buildModelFromUrdf(str(ROOT / "tests" / "fixtures" / "urdf" / f"{name}.urdf"))
    parent = full.frames[full.getFrameId(tip)].parentJoint
    keep = set(full.supports[parent])
    lock = [j for j in range(1, full.njoints) if j not in keep]
    model = pin.buildReducedModel(full, lock, pin.neutral(full)) if lock else full
    data = model.createData()
    n = model.nv
    prismatic = np.array([j.shortname().startswith("JointModelP") for j in model.joints[1:]])
    rng = np.random.default_rng(SEED)

    def config(q):
        # Joint values -> Pinocchio's configuration (a cos/sin pair for a continuous joint).
        out = pin.neutral(model)
        for k, joint in enumerate(model.joints[1:]):
            if joint.nq == 2:
                out[joint.idx_q], out[joint.idx_q + 1] = math.cos(q[k]), math.sin(q[k])
            else:
                out[joint.idx_q] = q[k]
        return out

    states = []
    for s in range(STATES):
        q, qd, qdd, tau = random_state(rng, prismatic, n)
        states.append(derivative_state(model, data, config, q, qd, qdd, tau, f"{name} state {s}"))
    return name, n, states


def write_fixture(name, n, pi, states, out_dir):
    out = pathlib.Path(out_dir) / f"{name}.json"
    head = {"robot": name, "dof": n, "generator": f"pinocchio {pin.__version__}"}
    if pi is not None:
        head["standard_parameters"] = pi
    # One state per line: valid JSON, readable diffs.
    text = json.dumps(head)[:-1] + ', "states": [\n'
    text += ",\n".join(json.dumps(s) for s in states)
    text += "\n]}\n"
    json.loads(text)
    out.write_text(text)
    return out


def best_ns(call, states, runs=15):
    best = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        for s in states:
            call(*s)
        best = min(best, (time.perf_counter() - t0) / len(states))
    return best * 1e9


def urdf_arm(path):
    """A URDF arm for timing: the whole URDF with its gripper's finger joints locked (the
    Panda of tests/fixtures/urdf), so the joints are the arm's."""
    full = pin.buildModelFromUrdf(str(path))
    locked = [full.getJointId(name) for name in full.names if "finger" in name]
    model = pin.buildReducedModel(full, locked, pin.neutral(full)) if locked else full
    return {"name": pathlib.Path(path).stem}, model


def timings(spec_path):
    if str(spec_path).endswith(".urdf"):
        robot, model = urdf_arm(spec_path)
        prismatic = np.zeros(model.nv, dtype=bool)
    else:
        robot = load_spec(spec_path)
        model = build_model(robot)[0]
        prismatic = np.array([b["joint"] == "prismatic" for b in robot["bodies"]])
    data = model.createData()
    n = model.nv
    rng = np.random.default_rng(SEED)
    states = [random_state(rng, prismatic, n) for _ in range(256)]
    rows_ = [
        ("rnea (inverse dynamics)", lambda q, v, a, t: pin.rnea(model, data, q, v, a)),
        ("computeRNEADerivatives",
         lambda q, v, a, t: pin.computeRNEADerivatives(model, data, q, v, a)),
        ("computeGeneralizedGravityDerivatives",
         lambda q, v, a, t: pin.computeGeneralizedGravityDerivatives(model, data, q)),
        ("computeABADerivatives",
         lambda q, v, a, t: pin.computeABADerivatives(model, data, q, v, t)),
        ("computeJointTorqueRegressor",
         lambda q, v, a, t: pin.computeJointTorqueRegressor(model, data, q, v, a)),
    ]
    print(f"{robot['name']}: Pinocchio {pin.__version__} from Python, {n} joints, "
          f"256 random states, best of 15")
    for label, call in rows_:
        print(f"  {label:<40} {best_ns(call, states):10.1f} ns/call")


def main(argv):
    time_only = "--time" in argv
    argv = [a for a in argv if a != "--time"]
    specs = [pathlib.Path(p) for p in argv] or sorted((ROOT / "robots").glob("*.toml"))
    if time_only:
        for p in specs:
            timings(p)
        return 0
    out_dir = ROOT / "tests" / "fixtures" / "derivatives"
    out_dir.mkdir(parents=True, exist_ok=True)
    for p in specs:
        if p.suffix == ".urdf":
            name, n, states = urdf_fixture(p.stem, URDF_TIPS[p.stem])
            out = write_fixture(name, n, None, states, out_dir / "urdf")
            print(f"{p.name} -> {out.relative_to(ROOT)} ({n} dof, {len(states)} states, "
                  f"pinocchio {pin.__version__})")
            continue
        name, n, pi, states = fixture(p)
        out = write_fixture(name, n, pi, states, out_dir)
        print(f"{p.name} -> {out.relative_to(ROOT)} ({n} dof, {len(states)} states, "
              f"pinocchio {pin.__version__})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Operation counts of CasADi's derivatives of the inverse dynamics, for comparison with
`quasidyn stats` (README "Derivatives").

Install:  pip install casadi pin
Run:      python3 tools/casadi_ops.py robots/ur5.toml [more specs...]

For each spec (read with tools/spec_check.py) the recursive Newton-Euler inverse dynamics is
written here in CasADi SX, in body-frame components (joint frames parallel to the parent's at
q = 0, as docs/spec.md; gravity as an upward base acceleration). It is checked against
Pinocchio's rnea on random states (1e-10 relative) before anything is counted. Then CasADi
builds, with its common-subexpression elimination on (`cse`):
  inverse_dynamics            tau(q, qd, qdd)
  forward-mode Jacobian       d tau / d(q, qd): jtimes(tau, [q; qd], I_2n) (2n directions)
  reverse-mode Jacobian       the same by jtimes(tau, [q; qd], I_n, tr=True) (n adjoints)
and counts the operations of each SX function, as `quasidyn stats` does: `mul` = * and /,
`add` = +, - and negation; sin/cos are listed apart. Writes nothing.
"""

from __future__ import annotations

import pathlib
import sys

import casadi as ca
import numpy as np
import pinocchio as pin

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from reference import build_model  # noqa: E402
from spec_check import load_spec  # noqa: E402

SEED = 20261123
MUL = {ca.OP_MUL, ca.OP_DIV}
ADD = {ca.OP_ADD, ca.OP_SUB, ca.OP_NEG}
TRIG = {ca.OP_SIN, ca.OP_COS}


def skew(v):
    return ca.vertcat(
        ca.horzcat(0, -v[2], v[1]),
        ca.horzcat(v[2], 0, -v[0]),
        ca.horzcat(-v[1], v[0], 0),
    )


def rotation(axis, angle):
    """Rotation by `angle` about the unit `axis` (Rodrigues), as an SX 3 x 3."""
    k = ca.DM(axis)
    kx = skew(k)
    return ca.DM.eye(3) + ca.sin(angle) * kx + (1 - ca.cos(angle)) * (kx @ kx)


def inverse_dynamics(robot, q, qd, qdd):
    bodies = robot["bodies"]
    n = len(bodies)
    g = ca.DM(robot["gravity"])
    rot, pos, w, wd, a = [], [], [], [], []
    for i, b in enumerate(bodies):
        axis = ca.DM(b["axis"])
        origin = ca.DM(b["origin"])
        parent = b["parent"]
        if b["joint"] == "revolute":
            e = rotation(b["axis"], q[i])
            p = origin
        else:
            e = ca.DM.eye(3)
            p = origin + axis * q[i]
        if parent is None:
            wp, wdp, ap = ca.DM.zeros(3), ca.DM.zeros(3), -g
        else:
            wp, wdp, ap = w[parent], wd[parent], a[parent]
        et = e.T
        # Linear acceleration of the joint origin, from the parent's pole.
        ai = et @ (ap + ca.cross(wdp, p) + ca.cross(wp, ca.cross(wp, p)))
        wi = et @ wp
        wdi = et @ wdp
        if b["joint"] == "revolute":
            wi = wi + axis * qd[i]
            wdi = wdi + axis * qdd[i] + ca.cross(et @ wp, axis * qd[i])
        else:
            ai = ai + axis * qdd[i] + 2 * ca.cross(wi, axis * qd[i])
        rot.append(e)
        pos.append(p)
        w.append(wi)
        wd.append(wdi)
        a.append(ai)
    force = [None] * n
    moment = [None] * n
    for i in range(n):
        b = bodies[i]
        m = b["mass"]
        c = ca.DM(b["com"])
        ic = np.asarray(b["inertia_com"], dtype=float)
        cv = np.asarray(b["com"], dtype=float)
        io = ca.DM(ic + m * (cv @ cv * np.eye(3) - np.outer(cv, cv)))
        force[i] = m * (a[i] + ca.cross(wd[i], c) + ca.cross(w[i], ca.cross(w[i], c)))
        moment[i] = io @ wd[i] + ca.cross(w[i], io @ w[i]) + m * ca.cross(c, a[i])
    tau = [None] * n
    for i in reversed(range(n)):
        b = bodies[i]
        axis = ca.DM(b["axis"])
        tau[i] = ca.dot(axis, moment[i] if b["joint"] == "revolute" else force[i])
        parent = b["parent"]
        if parent is not None:
            f = rot[i] @ force[i]
            force[parent] = force[parent] + f
            moment[parent] = moment[parent] + rot[i] @ moment[i] + ca.cross(pos[i], f)
    return ca.vertcat(*tau)


def count(f):
    mul = add = trig = 0
    for k in range(f.n_instructions()):
        op = f.instruction_id(k)
        mul += op in MUL
        add += op in ADD
        trig += op in TRIG
    return mul, add, trig


def check_against_pinocchio(robot, f):
    model = build_model(robot)[0]
    data = model.createData()
    rng = np.random.default_rng(SEED)
    n = model.nv
    for _ in range(10):
        q, qd, qdd = (rng.uniform(-2.0, 2.0, n) for _ in range(3))
        ours = np.asarray(f(q, qd, qdd)).ravel()
        ref = pin.rnea(model, data, q, qd, qdd)
        scale = max(1.0, float(np.max(np.abs(ref))))
        err = float(np.max(np.abs(ours - ref)))
        assert err <= 1e-10 * scale, f"{robot['name']}: CasADi RNEA vs Pinocchio: {err:e}"


def main(paths):
    opts = {"cse": True}
    for path in paths:
        robot = load_spec(path)
        n = len(robot["bodies"])
        q, qd, qdd = ca.SX.sym("q", n), ca.SX.sym("qd", n), ca.SX.sym("qdd", n)
        tau = inverse_dynamics(robot, q, qd, qdd)
        f = ca.Function("inverse_dynamics", [q, qd, qdd], [tau], opts)
        check_against_pinocchio(robot, f)
        x = ca.vertcat(q, qd)
        forward = ca.jtimes(tau, x, ca.SX.eye(2 * n))
        reverse = ca.jtimes(tau, x, ca.SX.eye(n), True).T
        rows = [("inverse_dynamics", f)]
        rows.append(("forward-mode d tau/d(q, qd)",
                     ca.Function("fwd", [q, qd, qdd], [forward], opts)))
        rows.append(("reverse-mode d tau/d(q, qd)",
                     ca.Function("rev", [q, qd, qdd], [reverse], opts)))
        print(f"{robot['name']}: CasADi {ca.__version__} SX with cse, {n} joints")
        print(f"  {'':<30} {'mul':>7} {'add':>7} {'mul+add':>8} {'sin/cos':>8}")
        for label, fun in rows:
            mul, add, trig = count(fun)
            print(f"  {label:<30} {mul:>7} {add:>7} {mul + add:>8} {trig:>8}")


if __name__ == "__main__":
    main(sys.argv[1:] or ["robots/ur5.toml"])

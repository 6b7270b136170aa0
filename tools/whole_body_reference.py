#!/usr/bin/env python3
"""Pinocchio reference fixtures for the functions generated on request: the centre of mass,
the centroidal momentum, the Coriolis matrix and each named frame's motion.

Install:  pip install pin          (the Pinocchio Python wheels; `import pinocchio as pin`)
Run:      python3 tools/whole_body_reference.py
Writes:   tests/fixtures/whole_body/NAME.json for each robot of ROBOTS below.

Each robot is built in Pinocchio by the builders the other fixtures use (a plain reading of
docs/spec.md, not the generator): tools/reference.py's `build_model` for a fixed-base spec,
tools/floating_reference.py's `build` for a floating one (a free-flyer root joint), and
Pinocchio's own URDF parser for a URDF (under a free-flyer for `--floating-base`).

For a fixed seed and STATES random states (fixed base: q uniform in [-pi, pi], or [-0.5, 0.5] m
for a prismatic joint; floating base: base position in [-1, 1], a random unit quaternion
scaled by 1.3 in every other state (Pinocchio is evaluated at the normalised q: the generated
functions normalise), joints in [-1, 1]; velocities in [-2, 2]) it records, per state:
  q                        NQ
  v                        NV
  center_of_mass           3       centerOfMass(q)
  center_of_mass_jacobian  3 x NV  jacobianCenterOfMass(q), row-major
  center_of_mass_acceleration_bias
                           3       centerOfMass(q, v, 0): data.acom[0]
  centroidal_momentum_matrix
                           6 x NV  ccrba(q, v), row-major: linear, then angular about the CoM
  centroidal_momentum      6       data.hg after ccrba
  centroidal_momentum_bias 6       computeCentroidalMomentumTimeVariation(q, v, 0): data.dhg
  coriolis_matrix          NV x NV computeCoriolisMatrix(q, v), row-major
  mass_matrix_inverse      NV x NV computeMinverse(q) (its upper triangle, mirrored), row-major
  a                        NV      accelerations in [-2, 2] (from a second generator seeded
                                   SEED + 1, so that the other values stay those drawn before)
  joint_wrenches           2 x N x 3
                                   data.f[i] after rnea(q, v, a) for every joint i, turned into
                                   world axes by data.oMi[i]: the forces (N x 3), then the
                                   moments about the joint frame's origin (N x 3), row-major
  kinetic_energy           a number  computeKineticEnergy(q, v)
  potential_energy         a number  computePotentialEnergy(q)
  frame_velocity_F         6       getFrameVelocity(LOCAL_WORLD_ALIGNED) after
                                   forwardKinematics(q, v): origin's velocity, then angular
  frame_acceleration_bias_F
                           6       getFrameClassicalAcceleration(LOCAL_WORLD_ALIGNED) after
                                   forwardKinematics(q, v, 0)
  jacobian_derivative_F    6 x NV  getFrameJacobianTimeVariation(LOCAL_WORLD_ALIGNED) after
                                   computeJointJacobiansTimeVariation(q, v), row-major
for every named frame F (the spec's [[frame]]s; a URDF's frames as tests/fixtures/urdf/NAME.json
lists its leaf links), F written as the generated function names write it (lower case, every character
but letters and digits made `_`), and checks, per state, Ag v = hg, the linear rows of Ag = total mass x Jc, C v + g = the
nonlinear effects, a frame's acceleration bias = J_dot v (1e-12 relative) and, on the first state, that C is the Christoffel form
(against central differences of crba along the tangent space, plus for a free-flyer the skew
Euler-Poincare term of its quasi-velocities: see check_christoffel; 1e-6) and M' - 2C is skew (1e-6); Minv M = I (1e-9);
the kinetic energy = 1/2 v^T M v and the potential energy = -m g . c (1e-12 relative).
"""

import json
import math
import os
import sys
import tomllib

import numpy as np
import pinocchio as pin

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
sys.path.insert(0, HERE)
from floating_reference import build as build_floating  # noqa: E402
from reference import build_model  # noqa: E402
from spec_check import load_spec  # noqa: E402

SEED = 20261128
STATES = 10

# (fixture name, input path from the repository root, how it is read).
ROBOTS = [
    ("ur5", "robots/ur5.toml", "spec"),
    ("hand", "robots/hand.toml", "spec"),
    ("stanford", "robots/stanford.toml", "spec"),
    ("quadruped_fixed", "robots/quadruped_fixed.toml", "spec"),
    ("synthetic_tree", "robots/synthetic_tree.toml", "spec"),
    ("quadruped_floating", "robots/quadruped_floating.toml", "floating"),
    ("humanoid30", "tests/fixtures/floating/humanoid30.toml", "floating"),
    ("floater", "tests/fixtures/floating/floater.toml", "floating"),
    ("allegro_left_hand", "tests/fixtures/urdf/allegro_left_hand.urdf", "urdf"),
    ("solo12", "tests/fixtures/urdf/solo12.urdf", "urdf_floating"),
]


def model_of(path, how):
    """The Pinocchio model, which joints are prismatic (joint order) and the named frames as
    (name, frame id)."""
    full = os.path.join(ROOT, path)
    if how == "spec":
        robot = load_spec(full)
        model, _, fids = build_model(robot)
        frames = list(zip([f["name"] for f in robot.get("frames", [])], fids))
        return model, [b["joint"] == "prismatic" for b in robot["bodies"]], frames
    if how == "floating":
        with open(full, "rb") as f:
            spec = tomllib.load(f)
        model, fids = build_floating(spec)
        frames = list(zip([f["name"] for f in spec.get("frame", [])], fids))
    else:
        if how == "urdf":
            model = pin.buildModelFromUrdf(full)
        else:
            model = pin.buildModelFromUrdf(full, pin.JointModelFreeFlyer())
        stem = os.path.splitext(os.path.basename(full))[0]
        with open(os.path.join(ROOT, "tests", "fixtures", "urdf", stem + ".json")) as f:
            urdf = json.load(f)
        # The leaf links (the frames asked for besides them are not asked for here).
        extra = urdf.get("frame_links") or []
        names = [name for name in urdf["frames"] if name not in extra]
        frames = [(name, model.getFrameId(name)) for name in names]
    prismatic = [
        j.shortname().startswith("JointModelP") for j in list(model.joints)[1:]
    ]
    return model, prismatic, frames


def joint_wrenches(model, data, q, v, a):
    """What each joint transmits, world axes: forces, then moments about the joint origin."""
    pin.rnea(model, data, q, v, a)
    first = 2 if model.nq != model.nv else 1  # a free-flyer is joint 1, not one of the joints
    forces, moments = [], []
    for i in range(first, model.njoints):
        rot = data.oMi[i].rotation
        forces.extend((rot @ data.f[i].linear).tolist())
        moments.extend((rot @ data.f[i].angular).tolist())
    return forces + moments


def ident(name):
    """A frame's name as generated function names write it."""
    return "".join(c.lower() if c.isascii() and c.isalnum() else "_" for c in name)


def frame_motion(model, data, q, v, frames):
    """Each frame's velocity, acceleration bias and Jacobian derivative, by the function names."""
    lwa = pin.LOCAL_WORLD_ALIGNED
    zero = np.zeros(model.nv)
    out = {}
    pin.forwardKinematics(model, data, q, v, zero)
    for name, fid in frames:
        key = ident(name)
        out["frame_velocity_" + key] = pin.getFrameVelocity(model, data, fid, lwa).vector.tolist()
        out["frame_acceleration_bias_" + key] = pin.getFrameClassicalAcceleration(
            model, data, fid, lwa).vector.tolist()
    pin.computeJointJacobiansTimeVariation(model, data, q, v)
    for name, fid in frames:
        key = ident(name)
        jd = pin.getFrameJacobianTimeVariation(model, data, fid, lwa)
        close(jd @ v, np.array(out["frame_acceleration_bias_" + key]), name + ": J_dot v")
        out["jacobian_derivative_" + key] = rows(jd)
    return out


def random_state(rng, model, prismatic, k):
    floating = model.nq != model.nv
    if floating:
        n = model.nv - 6
        quat = rng.normal(size=4)
        quat /= np.linalg.norm(quat)
        q = np.concatenate([rng.uniform(-1, 1, 3), quat * (1.3 if k % 2 else 1.0),
                            rng.uniform(-1, 1, n)])
    else:
        n = model.nv
        q = np.where(prismatic, rng.uniform(-0.5, 0.5, n), rng.uniform(-math.pi, math.pi, n))
    return q, rng.uniform(-2.0, 2.0, model.nv)


def rows(a):
    return np.asarray(a).reshape(-1).tolist()


def close(a, b, what):
    scale = max(1.0, float(np.max(np.abs(b))))
    assert np.max(np.abs(np.asarray(a) - np.asarray(b))) <= 1e-12 * scale, what


def full_mass_matrix(model, data, q):
    m = pin.crba(model, data, q)
    return np.triu(m) + np.triu(m, 1).T


def skew3(x):
    return np.array([[0, -x[2], x[1]], [x[2], 0, -x[0]], [-x[1], x[0], 0]])


def check_christoffel(model, data, q, v, cm):
    """C against the Christoffel symbols of central differences of crba (along the tangent
    space: pin.integrate), plus for a free-flyer the skew Euler-Poincare term of its
    quasi-velocities, D = (A - A^T)/2 + hbar/2 with A = ad*_v M_b in the base rows and
    hbar = [[0, -F x], [-F x, -T x]] for the base rows (F, T) of M v; and M' - 2C skew."""
    n, h = model.nv, 1e-6
    dm = []
    for k in range(n):
        e = np.zeros(n)
        e[k] = h
        dm.append((full_mass_matrix(model, data, pin.integrate(model, q, e))
                   - full_mass_matrix(model, data, pin.integrate(model, q, -e))) / (2 * h))
    want = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            want[i, j] = sum(0.5 * (dm[k][i, j] + dm[j][i, k] - dm[i][j, k]) * v[k]
                             for k in range(n))
    if model.nq != model.nv:
        m = full_mass_matrix(model, data, q)
        lin, ang = v[:3], v[3:6]
        ad = np.zeros((6, 6))
        ad[:3, :3] = skew3(ang)
        ad[3:, :3] = skew3(lin)
        ad[3:, 3:] = skew3(ang)
        a = np.zeros((n, n))
        a[:6, :] = ad @ m[:6, :]
        force, moment = (m @ v)[:3], (m @ v)[3:6]
        hbar = np.zeros((6, 6))
        hbar[:3, 3:] = -skew3(force)
        hbar[3:, :3] = -skew3(force)
        hbar[3:, 3:] = -skew3(moment)
        want += 0.5 * (a - a.T)
        want[:6, :6] += 0.5 * hbar
    assert np.max(np.abs(want - cm)) <= 1e-6 * max(1.0, np.max(np.abs(cm))), "Christoffel C"
    mdot = sum(dm[k] * v[k] for k in range(n))
    s = mdot - 2 * cm
    assert np.max(np.abs(s + s.T)) <= 1e-6 * max(1.0, np.max(np.abs(mdot))), "M' - 2C skew"


def fixture(name, path, how):
    model, prismatic, frames = model_of(path, how)
    data = model.createData()
    rng = np.random.default_rng(SEED)
    rng_a = np.random.default_rng(SEED + 1)
    zero = np.zeros(model.nv)
    total_mass = None
    states = []
    for k in range(STATES):
        q, v = random_state(rng, model, prismatic, k)
        qn = q.copy()
        if model.nq != model.nv:
            qn[3:7] /= np.linalg.norm(qn[3:7])
        com = pin.centerOfMass(model, data, qn, v, zero).copy()
        acom = data.acom[0].copy()
        total_mass = data.mass[0]
        jc = pin.jacobianCenterOfMass(model, data, qn).copy()
        ag = pin.ccrba(model, data, qn, v).copy()
        hg = data.hg.vector.copy()
        pin.computeCentroidalMomentumTimeVariation(model, data, qn, v, zero)
        dhg = data.dhg.vector.copy()
        close(ag @ v, hg, "Ag v = hg")
        close(ag[:3], total_mass * jc, "linear rows of Ag = m Jc")
        extra = {}
        cm = pin.computeCoriolisMatrix(model, data, qn, v).copy()
        g = pin.computeGeneralizedGravity(model, data, qn)
        close(cm @ v + g, pin.nonLinearEffects(model, data, qn, v), "C v + g = nle")
        if k == 0:
            check_christoffel(model, data, qn, v, cm)
        extra["coriolis_matrix"] = rows(cm)
        minv = pin.computeMinverse(model, data, qn)
        minv = np.triu(minv) + np.triu(minv, 1).T
        # (Rounding grows with M's condition number, up to 1e6 here.)
        assert np.max(np.abs(minv @ full_mass_matrix(model, data, qn) - np.eye(model.nv))) < 1e-9

        extra["mass_matrix_inverse"] = rows(minv)
        extra.update(frame_motion(model, data, qn, v, frames))
        a = rng_a.uniform(-2.0, 2.0, model.nv)
        extra["a"] = a.tolist()
        extra["joint_wrenches"] = joint_wrenches(model, data, qn, v, a)
        kinetic = pin.computeKineticEnergy(model, data, qn, v)
        half_vmv = 0.5 * v @ full_mass_matrix(model, data, qn) @ v
        assert abs(kinetic - half_vmv) <= 1e-12 * max(1.0, abs(half_vmv)), "T = 1/2 v^T M v"
        potential = pin.computePotentialEnergy(model, data, qn)
        mgc = -total_mass * (model.gravity.linear @ com)
        assert abs(potential - mgc) <= 1e-12 * max(1.0, abs(mgc)), "V = -m g . c"
        extra["kinetic_energy"] = kinetic
        extra["potential_energy"] = potential
        states.append({
            "q": q.tolist(),
            "v": v.tolist(),
            "center_of_mass": com.tolist(),
            "center_of_mass_jacobian": rows(jc),
            "center_of_mass_acceleration_bias": acom.tolist(),
            "centroidal_momentum_matrix": rows(ag),
            "centroidal_momentum": hg.tolist(),
            "centroidal_momentum_bias": dhg.tolist(),
            **extra,
        })
    return {
        "name": name,
        "input": path,
        "floating_base": model.nq != model.nv,
        "nq": model.nq,
        "nv": model.nv,
        "mass": total_mass,
        "frames": [name for name, _ in frames],
        "states": states,
    }


def main():
    out_dir = os.path.join(ROOT, "tests", "fixtures", "whole_body")
    os.makedirs(out_dir, exist_ok=True)
    for name, path, how in ROBOTS:
        out = os.path.join(out_dir, name + ".json")
        with open(out, "w") as f:
            json.dump(fixture(name, path, how), f, indent=1)
            f.write("\n")
        print("wrote", os.path.relpath(out))


if __name__ == "__main__":
    main()

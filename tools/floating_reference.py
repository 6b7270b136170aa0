#!/usr/bin/env python3
"""Pinocchio reference fixtures for floating-base specs (`[base] motion = "floating"`).

Install:  pip install pin          (the Pinocchio Python wheels; `import pinocchio as pin`)
Run:      python3 tools/floating_reference.py      # tests/fixtures/floating/*.toml, the floating
                                                  # robots/*.toml and the URDF_FLOATING below
          python3 tools/floating_reference.py tests/fixtures/floating/floater.toml
Writes:   tests/fixtures/floating/NAME.json for each spec (NAME = the spec's `name`).

The robot is built directly in Pinocchio from the TOML (a plain reading of docs/spec.md, not
the generator):
- a JointModelFreeFlyer root joint carrying the trunk: pin.Inertia([base] mass, com, inertia
  about the CoM);
- body i gets a joint on its parent's joint (`parent`, default the body before it; the first
  body's parent is the base), placed at SE3(identity, origin), where origin defaults to the
  parent's `next` (or `[base] position` for a child of the base); revolute or prismatic about
  the spec axis (JointModelRevoluteUnaligned / PrismaticUnaligned, unit axis); inertia
  pin.Inertia(mass, com, inertia about the CoM);
- every [[frame]] an OP_FRAME on its body's joint at SE3(rotation or rpy, position) (on the
  free-flyer for `body = "base"`, unless a body has that name);
- gravity from the spec.

For a fixed seed and 20 random states it records, per state:
  q                 NQ = 7 + n   base position, quaternion x y z w, joints; the quaternion is a
                                 random unit quaternion, scaled by 1.3 in every other state
                                 (Pinocchio is evaluated at the normalised q: the generated
                                 functions must normalise)
  v, a, tau_fd      NV = 6 + n   uniform in [-2, 2] (tau_fd in [-5, 5]); joint q uniform in [-1, 1]
  inverse_dynamics  NV           rnea(q, v, a)
  gravity           NV           computeGeneralizedGravity(q)
  nonlinear_effects NV           nonLinearEffects(q, v)
  mass_matrix       NV x NV      crba, full symmetric, row-major
  forward_dynamics  NV           aba(q, v, tau_fd)
  and for robots of at most 12 joints, the derivatives, NV x NV row-major, with respect to the
  tangent of q (base displacement in the base frame, then the joints: pin.integrate's):
  dtau_dq, dtau_dv  computeRNEADerivatives(q, v, a)
  dg_dq             computeGeneralizedGravityDerivatives(q)
  dqdd_dq, dqdd_dv, Minv  computeABADerivatives(q, v, tau_fd) (Minv full from its upper triangle)
  regressor         NV x 10(n+1)  (first 5 states) computeJointTorqueRegressor(q, v, a), the base body's ten
                                 columns first, each body's reordered to m, mx, my, mz, ixx,
                                 ixy, ixz, iyy, iyz, izz
  (and once per robot, for those robots, standard_parameters, 10(n+1):
  model.inertias[i].toDynamicParameters() in the same order, the base body's first: mass,
  first moment about the joint frame's origin, inertia about it in its axes)
  frames[k]: rotation (3 x 3 row-major, world frame), position (3), jacobian (6 x NV row-major,
             getFrameJacobian(LOCAL_WORLD_ALIGNED): rows 0-2 linear velocity of the frame
             origin, 3-5 angular velocity, world axes)
"""
import glob
import json
import os
import sys
import tomllib

import numpy as np
import pinocchio as pin


def axis_of(a):
    if isinstance(a, str):
        v = np.zeros(3)
        v["xyz".index(a[-1])] = -1.0 if a.startswith("-") else 1.0
        return v
    v = np.array(a, float)
    return v / np.linalg.norm(v)


def inertia_of(t):
    if "about" in t and t["about"] != "com":
        sys.exit("only inertias about the CoM are read by this script")
    g = lambda k: float(t.get(k, 0.0))
    return np.array(
        [
            [g("ixx"), g("ixy"), g("ixz")],
            [g("ixy"), g("iyy"), g("iyz")],
            [g("ixz"), g("iyz"), g("izz")],
        ]
    )


def build(spec):
    base = spec["base"]
    assert base.get("motion") == "floating", "not a floating-base spec"
    model = pin.Model()
    model.gravity.linear = np.array(spec.get("gravity", [0.0, -9.81, 0.0]), float)
    root = model.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "root")
    model.appendBodyToJoint(
        root,
        pin.Inertia(
            float(base["mass"]),
            np.array(base.get("com", [0, 0, 0]), float),
            inertia_of(base.get("inertia", {})),
        ),
        pin.SE3.Identity(),
    )
    bodies = spec["body"]
    names = [b["name"] for b in bodies]
    jid, nexts = {}, {}
    for i, b in enumerate(bodies):
        par = b.get("parent", names[i - 1] if i > 0 else "base")
        if "origin" in b:
            o = b["origin"]
        elif par == "base":
            o = base.get("position", [0, 0, 0])
        else:
            o = nexts[par]
        ax = axis_of(b["axis"])
        j = (
            pin.JointModelRevoluteUnaligned(ax)
            if b["joint"] == "revolute"
            else pin.JointModelPrismaticUnaligned(ax)
        )
        parent = root if par == "base" else jid[par]
        jid[b["name"]] = model.addJoint(
            parent, j, pin.SE3(np.eye(3), np.array(o, float)), b["name"]
        )
        model.appendBodyToJoint(
            jid[b["name"]],
            pin.Inertia(
                float(b["mass"]),
                np.array(b.get("com", [0, 0, 0]), float),
                inertia_of(b.get("inertia", {})),
            ),
            pin.SE3.Identity(),
        )
        nexts[b["name"]] = b.get("next", [0, 0, 0])
    # Joint armature (rotor inertia about the axis) on the joint's velocity entry; the
    # base's `armature` on each of the free-flyer's six entries.
    armature = np.zeros(model.nv)
    armature[:6] = float(base.get("armature", 0.0))
    for b in bodies:
        armature[model.joints[jid[b["name"]]].idx_v] = float(b.get("armature", 0.0))
    model.armature = armature
    fids = []
    for f in spec.get("frame", []):
        if "rotation" in f:
            R = np.array(f["rotation"], float)
        elif "rpy" in f:
            R = pin.rpy.rpyToMatrix(*[float(x) for x in f["rpy"]])
        else:
            R = np.eye(3)
        placement = pin.SE3(R, np.array(f.get("position", [0, 0, 0]), float))
        body = f["body"]
        joint = root if body == "base" and body not in jid else jid[body]
        fids.append(
            model.addFrame(pin.Frame(f["name"], joint, 0, placement, pin.FrameType.OP_FRAME))
        )
    return model, fids


def fixture(spec):
    model, fids = build(spec)
    return fixture_of(model, fids, spec["name"], [f["name"] for f in spec.get("frame", [])])


def urdf_leaf_links(path):
    """Links that are no joint's parent, read from the URDF itself."""
    import xml.etree.ElementTree as ET

    root = ET.parse(path).getroot()
    parents = {j.find("parent").get("link") for j in root.findall("joint")}
    return [l.get("name") for l in root.findall("link") if l.get("name") not in parents]


def urdf_fixture(path):
    """A URDF read by Pinocchio's own parser under a free-flyer root joint (the root link's
    inertia, with the links fixed to it, rides on the free-flyer), every leaf link a frame in
    Pinocchio's frame order: what `--floating-base` must reproduce."""
    model = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())
    fids = sorted(model.getFrameId(l, pin.BODY) for l in urdf_leaf_links(path))
    name = os.path.basename(path)[: -len(".urdf")]
    out = fixture_of(model, fids, name, [model.frames[f].name for f in fids])
    out["joints"] = [str(n) for n in list(model.names)[2:]]
    out["floating_base"] = True
    return out


# Robots with at most this many joints also get the derivatives (NV x NV each, per state).
DERIVATIVES_MAX_JOINTS = 12

# The regressor (NV x 10(n+1)) is recorded for the first few states only.
REGRESSOR_STATES = 5

# The regressor's columns and the standard parameters in the generator's order, as the
# fixed-base fixtures write them.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from derivatives_reference import reorder_regressor, standard_parameters  # noqa: E402


def full(m):
    return np.triu(m) + np.triu(m, 1).T


def fixture_of(model, fids, name, frame_names):
    data = model.createData()
    nq, nv, n = model.nq, model.nv, model.nv - 6
    rng = np.random.default_rng(20261123)
    states = []
    for k in range(20):
        quat = rng.normal(size=4)
        quat /= np.linalg.norm(quat)
        q = np.concatenate([rng.uniform(-1, 1, 3), quat * (1.3 if k % 2 else 1.0), rng.uniform(-1, 1, n)])
        qn = q.copy()
        qn[3:7] /= np.linalg.norm(qn[3:7])
        v = rng.uniform(-2, 2, nv)
        a = rng.uniform(-2, 2, nv)
        tau = rng.uniform(-5, 5, nv)
        M = pin.crba(model, data, qn)
        M = np.triu(M) + np.triu(M, 1).T
        st = {
            "q": q.tolist(),
            "v": v.tolist(),
            "a": a.tolist(),
            "tau_fd": tau.tolist(),
            "inverse_dynamics": pin.rnea(model, data, qn, v, a).tolist(),
            "gravity": pin.computeGeneralizedGravity(model, data, qn).tolist(),
            "nonlinear_effects": pin.nonLinearEffects(model, data, qn, v).tolist(),
            "mass_matrix": M.flatten().tolist(),
            "forward_dynamics": pin.aba(model, data, qn, v, tau).tolist(),
        }
        if n <= DERIVATIVES_MAX_JOINTS:
            # Derivatives along the tangent of q (the base's displacement in its own frame,
            # as pin.integrate), NV x NV row-major; Minv full from its upper triangle.
            pin.computeRNEADerivatives(model, data, qn, v, a)
            st["dtau_dq"] = np.asarray(data.dtau_dq).flatten().tolist()
            st["dtau_dv"] = np.asarray(data.dtau_dv).flatten().tolist()
            st["dg_dq"] = np.asarray(
                pin.computeGeneralizedGravityDerivatives(model, data, qn)
            ).flatten().tolist()
            pin.computeABADerivatives(model, data, qn, v, tau)
            minv = np.triu(data.Minv) + np.triu(data.Minv, 1).T
            st["dqdd_dq"] = np.asarray(data.ddq_dq).flatten().tolist()
            st["dqdd_dv"] = np.asarray(data.ddq_dv).flatten().tolist()
            st["Minv"] = minv.flatten().tolist()
        if np.any(model.armature != 0.0):
            # Armature enters M alone: the centroidal momentum matrix and the Coriolis matrix
            # are those of the model without it (what quasidyn's functions on request give).
            bare = model.copy()
            bare.armature = np.zeros(nv)
            bare_data = bare.createData()
            for f in (lambda m, d: pin.ccrba(m, d, qn, v), lambda m, d: pin.computeCoriolisMatrix(m, d, qn, v)):
                assert np.allclose(f(model, data), f(bare, bare_data), rtol=0, atol=1e-12)
            assert np.allclose(np.asarray(st["mass_matrix"]).reshape(nv, nv) - np.diag(model.armature),
                               full(pin.crba(bare, bare_data, qn)), rtol=0, atol=1e-12)
        # With armature `tau = Y pi` misses the rotors' torques: quasidyn has no regressor
        # then, and none is recorded.
        if n <= DERIVATIVES_MAX_JOINTS and k < REGRESSOR_STATES and not np.any(model.armature):
            y = np.asarray(pin.computeJointTorqueRegressor(model, data, qn, v, a)).copy()
            y = reorder_regressor(y, y.shape[1] // 10)
            tau_id = np.asarray(st["inverse_dynamics"])
            err = np.abs(y @ np.array(standard_parameters(model)) - tau_id).max()
            assert err <= 1e-10 * max(1.0, np.abs(tau_id).max()), f"{name}: Y pi != rnea ({err})"
            st["regressor"] = y.flatten().tolist()
        pin.framesForwardKinematics(model, data, qn)
        pin.computeJointJacobians(model, data, qn)
        st["frames"] = [
            {
                "rotation": data.oMf[fid].rotation.flatten().tolist(),
                "position": data.oMf[fid].translation.tolist(),
                "jacobian": pin.getFrameJacobian(
                    model, data, fid, pin.LOCAL_WORLD_ALIGNED
                ).flatten().tolist(),
            }
            for fid in fids
        ]
        states.append(st)
    out = {
        "name": name,
        "generator": "tools/floating_reference.py, Pinocchio " + pin.__version__,
        "nq": nq,
        "nv": nv,
        "frames": frame_names,
        "states": states,
    }
    if n <= DERIVATIVES_MAX_JOINTS:
        out["standard_parameters"] = standard_parameters(model)
    return out


# URDF fixtures (tests/fixtures/urdf/NAME.urdf) whose NAME.json is this script's floating-base
# fixture of Pinocchio's free-flyer model of the file.
URDF_FLOATING = ["solo12", "trunk_sensors", "massless_root"]


def is_floating(path):
    with open(path, "rb") as f:
        base = tomllib.load(f).get("base")
    # `base = [x, y, z]` is the fixed base's position.
    return isinstance(base, dict) and base.get("motion") == "floating"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    fixtures = os.path.join(here, "..", "tests", "fixtures", "floating")
    paths = sys.argv[1:] or sorted(glob.glob(os.path.join(fixtures, "*.toml"))) + [
        p for p in sorted(glob.glob(os.path.join(here, "..", "robots", "*.toml"))) if is_floating(p)
    ]
    if not sys.argv[1:]:
        # URDFs imported with --floating-base, next to the other URDF fixtures.
        for stem in URDF_FLOATING:
            p = os.path.join(here, "..", "tests", "fixtures", "urdf", stem + ".urdf")
            out = p[: -len(".urdf")] + ".json"
            with open(out, "w") as f:
                json.dump(urdf_fixture(p), f, indent=1)
                f.write("\n")
            print("wrote", os.path.relpath(out))
    for p in paths:
        with open(p, "rb") as f:
            spec = tomllib.load(f)
        out = os.path.join(fixtures, spec["name"] + ".json")
        with open(out, "w") as f:
            json.dump(fixture(spec), f, indent=1)
            f.write("\n")
        print("wrote", os.path.relpath(out))


if __name__ == "__main__":
    main()

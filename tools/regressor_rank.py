#!/usr/bin/env python3
"""Numeric rank of Pinocchio's joint-torque regressor for every URDF and DH fixture.

The base parameters quasidyn computes must be as many as the independent combinations of the
standard parameters that joint torques can show: the numeric rank of the regressor. This script
takes that number from Pinocchio alone: `computeJointTorqueRegressor` at 200 random states,
stacked, columns scaled to unit norm (columns below 1e-10 of the largest dropped, as parameters
no torque depends on), singular values above 1e-8 of the largest counted. The models are the
fixtures' own (tools/urdf_reference.py and tools/floating_reference.py): a chain to its tip with
the other joints locked, a tree whole, a floating URDF under Pinocchio's free-flyer, a DH table
built directly. It also records the singular values either side of the cut, so a test can see
that the rank is not a matter of the tolerance.

Writes tests/fixtures/regressor_ranks.json: {NAME: {"input", "tip", "floating_base", "rank",
"standard", "gap": [last kept, first dropped] (relative to the largest)}}.

Usage (from the repository root):
    pip install pin example-robot-data
    python3 tools/regressor_rank.py
"""

import json
import pathlib
import sys

import numpy as np
import pinocchio as pin

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from urdf_reference import (  # noqa: E402
    DH_DIR, ROOT, URDF_DIR, URDF_ROBOTS, URDF_TREES, dh_model, is_prismatic,
)
from floating_reference import URDF_FLOATING  # noqa: E402

import tomllib  # noqa: E402

SAMPLES = 200
DEPENDENT = 1e-8
ZERO_COLUMN = 1e-10


def reduced_chain(path, tip):
    full = pin.buildModelFromUrdf(str(path))
    parent = full.frames[full.getFrameId(tip)].parentJoint
    keep = set(full.supports[parent])
    lock = [j for j in range(1, full.njoints) if j not in keep]
    return pin.buildReducedModel(full, lock, pin.neutral(full)) if lock else full


def rank(model, seed):
    data = model.createData()
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(SAMPLES):
        q = pin.neutral(model)
        for j in model.joints[1:]:
            if j.nq == 7:  # free-flyer: position, unit quaternion x y z w
                quat = rng.normal(size=4)
                q[j.idx_q:j.idx_q + 7] = [*rng.uniform(-1, 1, 3), *(quat / np.linalg.norm(quat))]
            elif j.nq == 2:  # continuous joint: cos, sin
                angle = rng.uniform(-np.pi, np.pi)
                q[j.idx_q:j.idx_q + 2] = [np.cos(angle), np.sin(angle)]
            elif is_prismatic(j):
                q[j.idx_q] = rng.uniform(-0.5, 0.5)
            else:
                q[j.idx_q] = rng.uniform(-np.pi, np.pi)
        v = rng.uniform(-2, 2, model.nv)
        a = rng.uniform(-2, 2, model.nv)
        rows.append(pin.computeJointTorqueRegressor(model, data, q, v, a).copy())
    y = np.vstack(rows)
    norms = np.linalg.norm(y, axis=0)
    y = y[:, norms > ZERO_COLUMN * norms.max()]
    s = np.linalg.svd(y / np.linalg.norm(y, axis=0), compute_uv=False)
    s = s / s[0]
    r = int(np.sum(s > DEPENDENT))
    gap = [float(s[r - 1]), float(s[r]) if r < len(s) else 0.0]
    return r, len(norms), gap


def main():
    out = {}
    for name, tip in sorted(URDF_ROBOTS.items()):
        model = reduced_chain(URDF_DIR / f"{name}.urdf", tip)
        out[name] = {"input": f"urdf/{name}.urdf", "tip": tip, "floating_base": False,
                     "model": model}
    for name in sorted(URDF_TREES):
        model = pin.buildModelFromUrdf(str(URDF_DIR / f"{name}.urdf"))
        out[name] = {"input": f"urdf/{name}.urdf", "tip": None, "floating_base": False,
                     "model": model}
    for name in URDF_FLOATING:
        model = pin.buildModelFromUrdf(str(URDF_DIR / f"{name}.urdf"), pin.JointModelFreeFlyer())
        out[name] = {"input": f"urdf/{name}.urdf", "tip": None, "floating_base": True,
                     "model": model}
    for path in sorted(DH_DIR.glob("*.toml")):
        with open(path, "rb") as f:
            table = tomllib.load(f)
        out["dh_" + path.stem] = {"input": f"dh/{path.name}", "tip": None,
                                  "floating_base": False, "model": dh_model(table)[0]}
    for seed, (name, entry) in enumerate(sorted(out.items())):
        model = entry.pop("model")
        r, standard, gap = rank(model, 4000 + seed)
        entry.update({"rank": r, "standard": standard, "gap": gap})
        print(f"{name}: rank {r} of {standard} (gap {gap[0]:.1e} | {gap[1]:.1e})")
    doc = {"generator": f"tools/regressor_rank.py, Pinocchio {pin.__version__}", "robots": out}
    path = ROOT / "tests" / "fixtures" / "regressor_ranks.json"
    path.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Validate and load quasidyn robot specs (docs/spec.md, format version 1).

A small, independent reading of docs/spec.md in Python, used to check the files in robots/
before the Rust parser exists and to feed tools/reference.py.

Usage:
    python3 tools/spec_check.py robots/*.toml      # validate, print one line per file

As a module:
    from spec_check import load_spec
    robot = load_spec("robots/ur5.toml")   # dict with normalised numbers, see load_spec()

Readings of docs/spec.md made here (where the text leaves room):
- `e` (with `L`) and `a` (with `b`) accept an axis letter ("x", "-y", ...) or a 3-vector,
  like `axis`; the spec's own example writes `e = "x"`. Vectors are normalised and rejected
  if their length is not within 1e-3 of 1.
- `L` and `e` must be given together, and so must `b` and `a`.
- Method form: com = (b*a - m_{i+1} * next_i) / m_oi, where m_{i+1} is the summed mass of the
  bodies after body i (0 for the last body) and next_i is the zero-configuration vector
  L_i e_i as written in the spec (also when joint i+1 is prismatic).
- `about = "pole"`: the tensor is about the pole O_i, axes of body frame i; it is moved to
  the centre of mass with the parallel-axis rule I_C = I_O - m (|c|^2 E - c c^T) (tensor
  entries) before the positive-semidefinite and triangle-inequality checks.
- `[tool]` with both `rotation` and `rpy` is rejected; with neither it is the identity.
- Trees (the agreed tree format): `parent` names an earlier body or "base" (default: the body
  before, the base for the first); `origin` is the pole from the parent's pole in the parent's
  frame (default: the parent's `next`, or the base position for a child of the base); `base` is
  `[x, y, z]` or a table with `position` and `motion` (only "fixed" for now). A robot is a chain
  when every body's parent is the body before it; otherwise it is a tree, and `[tool]` or a
  non-zero `next` on a leaf is rejected. The method form of a tree body reads
  b a = m_oi com + sum over its children c of m_c * origin_c (m_c: subsystem mass of c).
- `[[frame]]`: name (unique), body (a body name), position (default 0), rotation (rows) or rpy
  (not both; default identity).
- Numerical tolerances of the inertia checks: 1e-9 relative to the trace (plus 1e-15 absolute).
- Elasticity (`stiffness` > 0, `damping` >= 0, `motor_inertia` > 0, the last two only with
  `stiffness`, `motor_inertia` on every elastic joint or none; `flex` = {directions = [letters or unit vectors], modes = 1..10}) is checked for
  its signs and shape only and kept in the body's dict: the rigid robot (what the Pinocchio
  fixtures describe) does not depend on it.
"""

from __future__ import annotations

import math
import sys
import tomllib

import numpy as np

AXES = {
    "x": (1.0, 0.0, 0.0), "y": (0.0, 1.0, 0.0), "z": (0.0, 0.0, 1.0),
    "-x": (-1.0, 0.0, 0.0), "-y": (0.0, -1.0, 0.0), "-z": (0.0, 0.0, -1.0),
}
TOP_KEYS = {"version", "name", "description", "source", "gravity", "base", "body", "tool", "frame",
            "contact"}
BODY_KEYS = {"name", "joint", "joint_name", "axis", "next", "L", "e", "mass", "com", "b", "a",
             "inertia", "parent", "origin", "stiffness", "damping", "motor_inertia", "flex",
             "armature"}
FLEX_KEYS = {"directions", "modes"}
BASE_KEYS = {"position", "motion"}
FRAME_KEYS = {"name", "body", "position", "rotation", "rpy"}
INERTIA_KEYS = {"ixx", "iyy", "izz", "ixy", "ixz", "iyz", "about"}
TOOL_KEYS = {"rotation", "rpy"}
MAX_BODIES = 64


class SpecError(ValueError):
    """A spec violation: names the file and the field."""


def _err(path, field, msg):
    raise SpecError(f"{path}: {field}: {msg}")


def _number(path, field, v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        _err(path, field, f"expected a number, got {v!r}")
    v = float(v)
    if not math.isfinite(v):
        _err(path, field, f"number must be finite, got {v}")
    return v


def _vec3(path, field, v):
    if not isinstance(v, list) or len(v) != 3:
        _err(path, field, f"expected [x, y, z], got {v!r}")
    return np.array([_number(path, f"{field}[{k}]", x) for k, x in enumerate(v)])


def _unit(path, field, v):
    """An axis letter or a 3-vector whose length is within 1e-3 of 1; returned normalised."""
    if isinstance(v, str):
        if v not in AXES:
            _err(path, field, f"expected one of {sorted(AXES)} or [x, y, z], got {v!r}")
        return np.array(AXES[v])
    u = _vec3(path, field, v)
    n = float(np.linalg.norm(u))
    if abs(n - 1.0) > 1e-3:
        _err(path, field, f"axis must have unit length (within 1e-3), got length {n}")
    return u / n


def _string(path, field, v):
    if not isinstance(v, str):
        _err(path, field, f"expected a string, got {v!r}")
    return v


def _unknown(path, field, table, allowed):
    for k in table:
        if k not in allowed:
            _err(path, f"{field}{k}" if field else k, "unknown key")


def _check_inertia(path, field, icom):
    """Symmetric PSD, triangle inequality on principal moments (about the CoM)."""
    if not np.allclose(icom, icom.T, atol=0.0, rtol=0.0):
        _err(path, field, "inertia must be symmetric")
    tol = 1e-9 * max(float(np.trace(icom)), 0.0) + 1e-15
    w = np.linalg.eigvalsh(icom)
    if w[0] < -tol:
        _err(path, field, f"inertia must be positive semidefinite, principal moments {w}")
    s = float(np.sum(w))
    for k in range(3):
        if s - 2.0 * w[k] < -tol:
            _err(path, field, f"principal moments {w} violate the triangle inequality")


def _rpy(r, p, y):
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1.0]])
    ry = np.array([[cp, 0, sp], [0, 1.0, 0], [-sp, 0, cp]])
    rx = np.array([[1.0, 0, 0], [0, cr, -sr], [0, sr, cr]])
    return rz @ ry @ rx


def _rotation(path, fld, table):
    """`rotation` (rows) or `rpy` of a table; identity when neither is given."""
    if "rotation" in table and "rpy" in table:
        _err(path, fld, "give either rotation or rpy, not both")
    if "rotation" in table:
        rot = table["rotation"]
        if not isinstance(rot, list) or len(rot) != 3:
            _err(path, f"{fld}.rotation", "expected 3 rows of 3 numbers")
        R = np.array([_vec3(path, f"{fld}.rotation[{k}]", r) for k, r in enumerate(rot)])
        if not np.allclose(R.T @ R, np.eye(3), atol=1e-6, rtol=0) or abs(np.linalg.det(R) - 1) > 1e-6:
            _err(path, f"{fld}.rotation", "must be orthonormal with determinant +1 (within 1e-6)")
        return R
    if "rpy" in table:
        r, p, y = _vec3(path, f"{fld}.rpy", table["rpy"])
        return _rpy(r, p, y)
    return np.eye(3)


def load_spec(path):
    """Parse and validate one spec. Returns a dict:

    name, description, source, gravity (3,), base (3,), tool_rotation (3, 3) (columns = tool
    axes in the last body's frame), is_chain, bodies: list of dicts with name, joint_name, joint
    ("revolute" | "prismatic"), axis (unit 3,), next (3,), parent (index or None), origin (3,),
    mass, com (3,), inertia_com (3, 3); frames: list of dicts with name, body (index),
    position (3,), rotation (3, 3).
    """
    path = str(path)
    with open(path, "rb") as f:
        try:
            doc = tomllib.load(f)
        except tomllib.TOMLDecodeError as e:
            raise SpecError(f"{path}: {e}") from None
    _unknown(path, "", doc, TOP_KEYS)
    version = doc.get("version", 1)
    if isinstance(version, bool) or version != 1:
        _err(path, "version", f"only version 1 exists, got {version!r}")
    if "name" not in doc:
        _err(path, "name", "missing required key")
    name = _string(path, "name", doc["name"])
    description = _string(path, "description", doc["description"]) if "description" in doc else None
    source = _string(path, "source", doc["source"]) if "source" in doc else None
    gravity = _vec3(path, "gravity", doc.get("gravity", [0.0, -9.81, 0.0]))
    base_doc = doc.get("base", [0.0, 0.0, 0.0])
    if isinstance(base_doc, dict):
        _unknown(path, "base.", base_doc, BASE_KEYS)
        base = _vec3(path, "base.position", base_doc.get("position", [0.0, 0.0, 0.0]))
        motion = base_doc.get("motion", "fixed")
        if motion != "fixed":
            _err(path, "base.motion", f"only \"fixed\" is supported, got {motion!r}")
    else:
        base = _vec3(path, "base", base_doc)

    raw = doc.get("body")
    if raw is None:
        _err(path, "body", "missing required key (at least one [[body]])")
    if not isinstance(raw, list) or not all(isinstance(b, dict) for b in raw):
        _err(path, "body", "expected an array of tables [[body]]")
    if len(raw) == 0:
        _err(path, "body", "empty chain")
    if len(raw) > MAX_BODIES:
        _err(path, "body", f"at most {MAX_BODIES} bodies, got {len(raw)}")

    bodies = []
    names, jnames = set(), set()
    for i, b in enumerate(raw):
        fld = f"body[{i + 1}]"
        _unknown(path, fld + ".", b, BODY_KEYS)
        bname = _string(path, fld + ".name", b.get("name", f"body{i + 1}"))
        jname = _string(path, fld + ".joint_name", b.get("joint_name", f"q{i + 1}"))
        if bname in names:
            _err(path, fld + ".name", f"duplicate body name {bname!r}")
        if jname in jnames:
            _err(path, fld + ".joint_name", f"duplicate joint name {jname!r}")
        names.add(bname)
        jnames.add(jname)
        if bname == "base":
            _err(path, fld + ".name", "\"base\" is reserved for the base")
        if "parent" in b:
            pname = _string(path, fld + ".parent", b["parent"])
            if pname == "base":
                parent = None
            else:
                idx = [k for k, bb in enumerate(bodies) if bb["name"] == pname]
                if not idx:
                    _err(path, fld + ".parent", f"{pname!r} is not a body listed before this one")
                parent = idx[0]
        else:
            parent = i - 1 if i > 0 else None
        if "joint" not in b:
            _err(path, fld + ".joint", "missing required key")
        joint = b["joint"]
        if joint not in ("revolute", "prismatic"):
            _err(path, fld + ".joint", f"expected \"revolute\" or \"prismatic\", got {joint!r}")
        if "axis" not in b:
            _err(path, fld + ".axis", "missing required key")
        axis = _unit(path, fld + ".axis", b["axis"])

        if "next" in b and ("L" in b or "e" in b):
            _err(path, fld + ".next", "give either next or L/e, not both")
        if "L" in b or "e" in b:
            if "L" not in b or "e" not in b:
                _err(path, fld + ".L", "L and e go together")
            length = _number(path, fld + ".L", b["L"])
            if length < 0:
                _err(path, fld + ".L", f"L must be >= 0, got {length}")
            nxt = length * _unit(path, fld + ".e", b["e"])
        else:
            nxt = _vec3(path, fld + ".next", b.get("next", [0.0, 0.0, 0.0]))

        if "mass" not in b:
            _err(path, fld + ".mass", "missing required key")
        mass = _number(path, fld + ".mass", b["mass"])
        if mass <= 0:
            _err(path, fld + ".mass", f"mass must be positive, got {mass}")

        method = "b" in b or "a" in b
        if method and "com" in b:
            _err(path, fld + ".com", "give either com or b/a, not both")
        if method:
            if "b" not in b or "a" not in b:
                _err(path, fld + ".b", "b and a go together")
            bval = _number(path, fld + ".b", b["b"])
            if bval < 0:
                _err(path, fld + ".b", f"b must be >= 0, got {bval}")
            avec = _unit(path, fld + ".a", b["a"])
            com = None  # resolved below, once all masses are known
            ba = bval * avec
        else:
            com = _vec3(path, fld + ".com", b.get("com", [0.0, 0.0, 0.0]))
            ba = None

        it = b.get("inertia", {})
        if not isinstance(it, dict):
            _err(path, fld + ".inertia", "expected an inline table")
        _unknown(path, fld + ".inertia.", it, INERTIA_KEYS)
        about = it.get("about", "com")
        if about not in ("com", "pole"):
            _err(path, fld + ".inertia.about", f"expected \"com\" or \"pole\", got {about!r}")
        if method and about != "pole":
            _err(path, fld + ".inertia.about", "the method form (b, a) requires about = \"pole\"")
        g = {k: _number(path, f"{fld}.inertia.{k}", it.get(k, 0.0))
             for k in ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")}
        tensor = np.array([[g["ixx"], g["ixy"], g["ixz"]],
                           [g["ixy"], g["iyy"], g["iyz"]],
                           [g["ixz"], g["iyz"], g["izz"]]])
        elastic = None
        if "stiffness" in b:
            elastic = dict(stiffness=_number(path, fld + ".stiffness", b["stiffness"]))
            if elastic["stiffness"] <= 0:
                _err(path, fld + ".stiffness", "stiffness must be positive")
            for key in ("damping", "motor_inertia"):
                if key in b:
                    elastic[key] = _number(path, f"{fld}.{key}", b[key])
            if elastic.get("damping", 0.0) < 0:
                _err(path, fld + ".damping", "damping must not be negative")
            if elastic.get("motor_inertia", 1.0) <= 0:
                _err(path, fld + ".motor_inertia", "motor_inertia must be positive")
        elif "damping" in b or "motor_inertia" in b:
            _err(path, fld + ".stiffness", "damping and motor_inertia need stiffness")
        flex = None
        if "flex" in b:
            fx = b["flex"]
            if not isinstance(fx, dict):
                _err(path, fld + ".flex", "expected a table")
            _unknown(path, fld + ".flex.", fx, FLEX_KEYS)
            dirs = [_unit(path, f"{fld}.flex.directions[{k + 1}]", d)
                    for k, d in enumerate(fx.get("directions", []))]
            if not dirs:
                _err(path, fld + ".flex.directions", "at least one direction")
            modes = fx.get("modes", 1)
            if not isinstance(modes, int) or not 1 <= modes <= 10:
                _err(path, fld + ".flex.modes", "expected 1 to 10")
            flex = dict(directions=dirs, modes=modes)
        armature = _number(path, fld + ".armature", b.get("armature", 0.0))
        if armature < 0:
            _err(path, fld + ".armature", "armature must not be negative")
        if armature != 0 and elastic is not None:
            _err(path, fld + ".armature", "an elastic joint's rotor is its motor_inertia")
        if "origin" in b:
            origin = _vec3(path, fld + ".origin", b["origin"])
        else:
            origin = base.copy() if parent is None else bodies[parent]["next"].copy()
        bodies.append(dict(name=bname, joint_name=jname, joint=joint, axis=axis, next=nxt,
                           parent=parent, origin=origin,
                           mass=mass, com=com, ba=ba, about=about, tensor=tensor, field=fld,
                           elastic=elastic, flex=flex, armature=armature))

    elastic = [b for b in bodies if b["elastic"] is not None]
    with_inertia = [b for b in elastic if "motor_inertia" in b["elastic"]]
    if with_inertia and len(with_inertia) != len(elastic):
        lacking = next(b for b in elastic if "motor_inertia" not in b["elastic"])
        _err(path, lacking["field"] + ".motor_inertia",
             "the elastic-joint dynamics need motor_inertia on every elastic joint")

    # Subsystem masses (parents are listed before children).
    m_sub = [b["mass"] for b in bodies]
    for i in range(len(bodies) - 1, -1, -1):
        if bodies[i]["parent"] is not None:
            m_sub[bodies[i]["parent"]] += m_sub[i]
    is_chain = all(b["parent"] == (i - 1 if i > 0 else None) for i, b in enumerate(bodies))
    if not is_chain:
        if "tool" in doc:
            _err(path, "tool", "a tree has no tool: use [[frame]]")
        for i, b in enumerate(bodies):
            leaf = not any(bb["parent"] == i for bb in bodies)
            if leaf and np.any(b["next"] != 0.0):
                _err(path, b["field"] + ".next", "a leaf of a tree has no next pole: use [[frame]]")

    # Resolve the method form and move inertias to the centre of mass.
    for i, b in enumerate(bodies):
        if b["com"] is None:
            carried = sum((m_sub[c] * bb["origin"] for c, bb in enumerate(bodies)
                           if bb["parent"] == i), np.zeros(3))
            b["com"] = (b["ba"] - carried) / b["mass"]
        c = b["com"]
        if b["about"] == "pole":
            icom = b["tensor"] - b["mass"] * (float(c @ c) * np.eye(3) - np.outer(c, c))
        else:
            icom = b["tensor"]
        _check_inertia(path, b["field"] + ".inertia", icom)
        b["inertia_com"] = icom
        for k in ("ba", "about", "tensor", "field"):
            del b[k]

    tool = doc.get("tool", {})
    if not isinstance(tool, dict):
        _err(path, "tool", "expected a table")
    _unknown(path, "tool.", tool, TOOL_KEYS)
    R = _rotation(path, "tool", tool)

    raw_frames = doc.get("frame", [])
    if not isinstance(raw_frames, list) or not all(isinstance(f, dict) for f in raw_frames):
        _err(path, "frame", "expected an array of tables [[frame]]")
    frames = []
    for k, fr in enumerate(raw_frames):
        fld = f"frame[{k + 1}]"
        _unknown(path, fld + ".", fr, FRAME_KEYS)
        if "name" not in fr:
            _err(path, fld + ".name", "missing required key")
        fname = _string(path, fld + ".name", fr["name"])
        if any(f["name"] == fname for f in frames):
            _err(path, fld + ".name", f"duplicate frame name {fname!r}")
        if "body" not in fr:
            _err(path, fld + ".body", "missing required key")
        bname = _string(path, fld + ".body", fr["body"])
        idx = [i for i, b in enumerate(bodies) if b["name"] == bname]
        if not idx:
            _err(path, fld + ".body", f"no body named {bname!r}")
        frames.append(dict(name=fname, body=idx[0],
                           position=_vec3(path, fld + ".position", fr.get("position", [0.0, 0.0, 0.0])),
                           rotation=_rotation(path, fld, fr)))

    return dict(name=name, description=description, source=source, gravity=gravity, base=base,
                tool_rotation=R, bodies=bodies, frames=frames, is_chain=is_chain)


def main(argv):
    if not argv:
        print(__doc__)
        return 2
    bad = 0
    for p in argv:
        try:
            r = load_spec(p)
        except SpecError as e:
            print(f"error: {e}")
            bad += 1
            continue
        kinds = "".join("R" if b["joint"] == "revolute" else "P" for b in r["bodies"])
        shape = "chain" if r["is_chain"] else "tree"
        print(f"ok: {p}: {r['name']}, {shape} of {len(r['bodies'])} bodies ({kinds}), "
              f"{len(r['frames'])} frames, total mass {sum(b['mass'] for b in r['bodies']):.4g} kg")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

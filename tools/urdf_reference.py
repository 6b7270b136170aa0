#!/usr/bin/env python3
"""Reference fixtures for quasidyn's importers, computed with Pinocchio.

What it does:

1. Copies public URDFs from the `example-robot-data` package (UR5, UR10, Franka Panda, Kinova
   Jaco 2 (j2s6s200), UFactory xArm 7, SO-101) into
   tests/fixtures/urdf/, with visual, collision, gazebo and transmission elements removed, and
   writes each one's licence notice next to it (NAME.LICENSE: the notice of the upstream
   description as shipped in the package plus the licence text the package ships).
2. For every URDF in tests/fixtures/urdf/ listed in URDF_ROBOTS (the copied ones and the
   hand-written synthetic.urdf): loads it with pin.buildModelFromUrdf, locks every joint that is
   not on the root-to-tip path at 0 (pin.buildReducedModel, which merges the locked links'
   inertia into their parents), and writes tests/fixtures/urdf/NAME.json.
   For every URDF listed in URDF_TREES (the Allegro hand copied from example-robot-data and the
   hand-written synthetic_tree.urdf): the whole tree as pin.buildModelFromUrdf builds it (its
   joint order is the order quasidyn's importer must give), with a frame per leaf link that
   moves and per link named in the list (quasidyn's `--frame`), in Pinocchio's frame order;
   written to tests/fixtures/urdf/NAME.json with the `frames` field of tools/reference.py (no
   tool).
   For every entry of URDF_LOCKED: a chain of one of those URDFs with joints locked at given
   values (quasidyn's --lock JOINT=VALUE), pin.buildReducedModel at those values; the JSON
   adds "file" (the URDF) and "locks" (joint -> value, null for zero).
3. For every DH table in tests/fixtures/dh/*.toml: builds a Pinocchio model directly from the
   table (joints about z, placements from the standard or modified DH transforms; no quasidyn
   code involved) and writes tests/fixtures/dh/NAME.json.

Each JSON holds 30 random states:
    {"robot", "dof", "tip", "joints", "generator": "pinocchio X.Y.Z", "states": [
        {"q", "qd", "qdd", "tau", "mass_matrix" (dof rows), "nonlinear_effects", "gravity",
         "tool_rotation" (3 rows), "tool_position",
         "jacobian" (6 rows: linear then angular velocity, LOCAL_WORLD_ALIGNED at the tip frame),
         "tau_fd", "qdd_fd" (aba), "kinetic_energy",
         "static_force", "static_moment" (dof rows of 3: at rest, on body i by its carrier, about
         the joint origin, in quasidyn's body axes: R0_i times Pinocchio's joint-frame force),
         "centrifugal", "coriolis", "gyroscopic" (seed 001 split, as tools/reference.py)}]}
Tree fixtures hold "frame_links" (the extra frames asked for), "frames" (every frame's link
name) and, per state, "frames": [{"name", "rotation", "position", "jacobian"}] (the link frame's
pose in the base frame and its LOCAL_WORLD_ALIGNED Jacobian) instead of the tool fields.
`q` holds joint angles/displacements (continuous joints too, not Pinocchio's cos/sin pair).

Usage (from the repository root):
    pip install pin example-robot-data   # Pinocchio 3 or later
    python3 tools/urdf_reference.py [NAME ...]   # names: only those fixtures
The output is deterministic for a given Pinocchio version (fixed random seeds).
"""

import importlib.metadata
import json
import math
import pathlib
import sys
import tomllib
import xml.etree.ElementTree as ET

import numpy as np
import pinocchio as pin

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from reference import inertia_derivatives, velocity_split  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
URDF_DIR = ROOT / "tests" / "fixtures" / "urdf"
DH_DIR = ROOT / "tests" / "fixtures" / "dh"
STATES = 30

# name -> (path inside example-robot-data's robots/ folder, tip link, licence files to join)
PUBLIC_URDFS = {
    "ur5": (
        "ur_description/urdf/ur5_robot.urdf",
        "tool0",
        ["ur_description/README.md", "@package-license"],
    ),
    "panda": (
        "panda_description/urdf/panda.urdf",
        "panda_hand_tcp",
        ["panda_description/README.md", "panda_description/LICENSE"],
    ),
    "allegro_left_hand": (
        "allegro_hand_description/urdf/allegro_left_hand.urdf",
        None,
        ["allegro_hand_description/README.md", "@package-license"],
    ),
    "ur10": (
        "ur_description/urdf/ur10_robot.urdf",
        "tool0",
        ["ur_description/README.md", "@package-license"],
    ),
    "kinova": (
        "kinova_description/robots/kinova.urdf",
        "j2s6s200_end_effector",
        # The description's README names its licence (BSD); the package licence text is BSD.
        ["kinova_description/README.md", "@package-license"],
    ),
    "xarm7": (
        "xarm_description/urdf/xarm7.urdf",
        "link_eef",
        ["xarm_description/README.md", "@package-license"],
    ),
    # A quadruped, for the floating-base import (its fixture: tools/floating_reference.py).
    "solo12": (
        "solo_description/robots/solo12.urdf",
        None,
        ["solo_description/README.md", "@package-license"],
    ),
    "so101": (
        "so_arm_description/urdf/so101.urdf",
        "gripper_frame_link",
        # The package ships no Apache-2.0 text for this description; the panda one is the
        # same licence text.
        ["so_arm_description/README.md", "panda_description/LICENSE"],
    ),
}

# name -> tip link, for every URDF fixture
URDF_ROBOTS = {"ur5": "tool0", "panda": "panda_hand_tcp", "so101": "gripper_frame_link",
               "synthetic": "tool", "ur10": "tool0", "kinova": "j2s6s200_end_effector",
               "xarm7": "link_eef", "massless_link": "tool"}

# Random seeds are 1000 + the position here: robots added later go at the end, so the
# fixtures of the others do not change.
URDF_SEED_ORDER = ["panda", "so101", "synthetic", "ur5", "ur10", "kinova", "xarm7",
                   "massless_link"]
assert sorted(URDF_SEED_ORDER) == sorted(URDF_ROBOTS)

# name -> (URDF fixture, tip link, joints locked as quasidyn's --lock JOINT[=VALUE]: value, or
# None for zero): pin.buildReducedModel at those values (and zero off the path to the tip).
URDF_LOCKED = {
    "ur5_locked": ("ur5", "tool0", {"elbow_joint": -1.2, "wrist_2_joint": None}),
    "panda_locked": ("panda", "panda_leftfinger",
                     {"panda_joint4": -2.0, "panda_finger_joint1": 0.03}),
}

# name -> links that become frames besides the moving leaf links, for every tree fixture
URDF_TREES = {"allegro_left_hand": ["link_1.0", "link_13.0"], "synthetic_tree": ["torso"]}

STRIP = {"visual", "collision", "gazebo", "transmission"}


def erd_paths():
    dist = importlib.metadata.distribution("example-robot-data")
    share = pathlib.Path(dist.locate_file("cmeel.prefix/share/example-robot-data"))
    licence = [f for f in (dist.files or []) if f.name == "LICENSE" and "dist-info" in str(f)]
    package_licence = pathlib.Path(dist.locate_file(licence[0])) if licence else None
    return dist.version, share / "robots", package_licence


def copy_public_urdfs():
    version, robots, package_licence = erd_paths()
    for name, (rel, _tip, notices) in PUBLIC_URDFS.items():
        tree = ET.parse(robots / rel)
        root = tree.getroot()
        for parent in list(root.iter()):
            for child in list(parent):
                if child.tag in STRIP:
                    parent.remove(child)
        ET.indent(tree, space="  ")
        body = ET.tostring(root, encoding="unicode")
        header = (
            '<?xml version="1.0"?>\n'
            f"<!-- {rel} from example-robot-data {version}; visual, collision, gazebo and\n"
            f"     transmission elements removed. Licence: see {name}.LICENSE. -->\n"
        )
        (URDF_DIR / f"{name}.urdf").write_text(header + body + "\n")
        parts = [
            f"{name}.urdf is derived from robots/{rel} of the example-robot-data package, "
            f"version {version}.\n"
        ]
        for notice in notices:
            path = package_licence if notice == "@package-license" else robots / notice
            label = "example-robot-data LICENSE" if notice == "@package-license" else notice
            parts.append(f"\n===== {label} =====\n\n{path.read_text()}")
        (URDF_DIR / f"{name}.LICENSE").write_text("".join(parts))


def random_states(model, seed, prismatic):
    rng = np.random.default_rng(seed)
    # A second stream for the forward-dynamics torques keeps the other draws as they were.
    torques = np.random.default_rng(seed + 500)
    for _ in range(STATES):
        q = np.array([rng.uniform(-0.3, 0.3) if p else rng.uniform(-math.pi, math.pi)
                      for p in prismatic])
        qd = rng.uniform(-2.0, 2.0, model.nv)
        qdd = rng.uniform(-5.0, 5.0, model.nv)
        yield q, qd, qdd, torques.uniform(-20.0, 20.0, model.nv)


def to_pin_q(model, q):
    """Joint values -> Pinocchio configuration (cos/sin pairs for continuous joints)."""
    out = pin.neutral(model)
    for k, joint in enumerate(model.joints[1:]):
        if joint.nq == 2:
            out[joint.idx_q] = math.cos(q[k])
            out[joint.idx_q + 1] = math.sin(q[k])
        else:
            out[joint.idx_q] = q[k]
    return out


def zero_rotations(model):
    """Orientation of every joint frame at q = 0. quasidyn's body frames are parallel to the base
    there, so a vector v in Pinocchio's joint frame i is R0_i v in quasidyn's body frame i (both
    frames are fixed in body i and share the origin on the joint axis)."""
    data = model.createData()
    pin.forwardKinematics(model, data, pin.neutral(model))
    return [data.oMi[i].rotation.copy() for i in range(1, model.njoints)]


def evaluate(model, frame_id, q, qd, qdd, tau_fd, frames=None):
    """One state; the tool is frame `frame_id`, or with `frames` (a list of (name, frame id)) a
    tree's named frames."""
    data = model.createData()
    model0 = model.copy()
    model0.gravity = pin.Motion.Zero()
    qp = to_pin_q(model, q)
    n = model.nv
    qdd_fd = pin.aba(model, data, qp, qd, tau_fd).copy()
    ke = float(pin.computeKineticEnergy(model, data, qp, qd))
    pin.rnea(model, data, qp, np.zeros(n), np.zeros(n))
    r0 = zero_rotations(model)
    static_force = [(r0[i] @ data.f[i + 1].linear).tolist() for i in range(n)]
    static_moment = [(r0[i] @ data.f[i + 1].angular).tolist() for i in range(n)]
    tau = pin.rnea(model, data, qp, qd, qdd)
    mass = pin.crba(model, data, qp)
    mass = np.triu(mass) + np.triu(mass, 1).T
    nle = pin.nonLinearEffects(model, data, qp, qd)
    grav = pin.computeGeneralizedGravity(model, data, qp)
    hc, ho, hg = velocity_split(mass, inertia_derivatives(model0, model0.createData(), qp), qd)
    assert np.max(np.abs(hc + ho + hg - (nle - grav))) <= 1e-10 * max(1.0, np.abs(nle).max())
    assert abs(float(hg @ qd)) <= 1e-10 * max(1.0, np.abs(hg).max() * np.abs(qd).max())
    pin.framesForwardKinematics(model, data, qp)
    out = {
        "q": q.tolist(),
        "qd": qd.tolist(),
        "qdd": qdd.tolist(),
        "tau": tau.tolist(),
        "mass_matrix": mass.tolist(),
        "nonlinear_effects": nle.tolist(),
        "gravity": grav.tolist(),
    }
    if frames is None:
        pose = data.oMf[frame_id]
        jac = pin.computeFrameJacobian(model, data, qp, frame_id, pin.LOCAL_WORLD_ALIGNED)
        out["tool_rotation"] = pose.rotation.tolist()
        out["tool_position"] = pose.translation.tolist()
        out["jacobian"] = jac.tolist()
    else:
        out["frames"] = []
        for name, fid in frames:
            pose = data.oMf[fid]
            jac = pin.computeFrameJacobian(model, data, qp, fid, pin.LOCAL_WORLD_ALIGNED)
            out["frames"].append({
                "name": name,
                "rotation": pose.rotation.tolist(),
                "position": pose.translation.tolist(),
                "jacobian": jac.tolist(),
            })
    out.update({
        "tau_fd": tau_fd.tolist(),
        "qdd_fd": qdd_fd.tolist(),
        "kinetic_energy": ke,
        "static_force": static_force,
        "static_moment": static_moment,
        "centrifugal": hc.tolist(),
        "coriolis": ho.tolist(),
        "gyroscopic": hg.tolist(),
    })
    return out


def is_prismatic(joint):
    return joint.shortname().startswith("JointModelP")


def write_fixture(path, robot, model, tip, frame_id, seed, extra=None):
    assert model.nq in (model.nv, model.nv + sum(j.nq == 2 for j in model.joints[1:]))
    prismatic = [is_prismatic(j) for j in model.joints[1:]]
    states = [evaluate(model, frame_id, *s) for s in random_states(model, seed, prismatic)]
    doc = {
        "robot": robot,
        "dof": model.nv,
        "tip": tip,
        **(extra or {}),
        "joints": list(model.names[1:]),
        "generator": f"pinocchio {pin.__version__}",
        "states": states,
    }
    path.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {path.relative_to(ROOT)}: {model.nv} dof, {len(states)} states")


def urdf_fixture(name, tip, seed, file=None, locks=None):
    """The chain from the root to `tip` of URDF `file` (default: NAME), the joints off its
    path locked at zero and those of `locks` at their values (None: zero)."""
    file = file or name
    locks = locks or {}
    full = pin.buildModelFromUrdf(str(URDF_DIR / f"{file}.urdf"))
    if not full.existFrame(tip):
        sys.exit(f"{name}: no frame {tip}")
    parent = full.frames[full.getFrameId(tip)].parentJoint
    keep = set(full.supports[parent])
    q_ref = pin.neutral(full)
    for joint, value in locks.items():
        if not full.existJointName(joint):
            sys.exit(f"{name}: no joint {joint}")
        j = full.getJointId(joint)
        keep.discard(j)
        idx, nq = full.joints[j].idx_q, full.joints[j].nq
        v = value or 0.0
        q_ref[idx:idx + nq] = [math.cos(v), math.sin(v)] if nq == 2 else [v]
    lock = [j for j in range(1, full.njoints) if j not in keep]
    model = pin.buildReducedModel(full, lock, q_ref) if lock else full
    extra = {"file": f"{file}.urdf", "locks": locks} if locks else None
    write_fixture(URDF_DIR / f"{name}.json", full.name, model, tip, model.getFrameId(tip), seed,
                  extra)


def urdf_tree_fixture(name, frame_links, seed):
    """The whole tree, in Pinocchio's joint order, with a frame per moving leaf link and per
    link of `frame_links`, in Pinocchio's frame order."""
    model = pin.buildModelFromUrdf(str(URDF_DIR / f"{name}.urdf"))
    xml = ET.parse(URDF_DIR / f"{name}.urdf").getroot()
    parents = {j.find("parent").get("link") for j in xml.iter("joint")}
    leaves = {link.get("name") for link in xml.iter("link")} - parents
    frames = []
    for fid, frame in enumerate(model.frames):
        if frame.type != pin.FrameType.BODY:
            continue
        moving = frame.parentJoint != 0
        wanted = frame.name in frame_links or frame.name in leaves
        if wanted and moving:
            frames.append((frame.name, fid))
        elif frame.name in frame_links:
            sys.exit(f"{name}: frame link {frame.name} does not move")
    prismatic = [is_prismatic(j) for j in model.joints[1:]]
    states = [evaluate(model, None, *s, frames=frames)
              for s in random_states(model, seed, prismatic)]
    doc = {
        "robot": model.name,
        "dof": model.nv,
        "frame_links": frame_links,
        "joints": list(model.names[1:]),
        "frames": [f for f, _ in frames],
        "generator": f"pinocchio {pin.__version__}",
        "states": states,
    }
    path = URDF_DIR / f"{name}.json"
    path.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {path.relative_to(ROOT)}: {model.nv} dof, {len(frames)} frames, "
          f"{len(states)} states")


def rot(axis, angle):
    c, s = math.cos(angle), math.sin(angle)
    if axis == "x":
        return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def se3_rot(axis, angle):
    return pin.SE3(rot(axis, angle), np.zeros(3))


def se3_trans(x, y, z):
    return pin.SE3(np.eye(3), np.array([x, y, z], dtype=float))


def se3_pose(table):
    """A {xyz, rpy} table: R = Rz(yaw) Ry(pitch) Rx(roll)."""
    table = table or {}
    xyz = np.array(table.get("xyz", [0.0, 0.0, 0.0]), dtype=float)
    roll, pitch, yaw = table.get("rpy", [0.0, 0.0, 0.0])
    return pin.SE3(pin.rpy.rpyToMatrix(roll, pitch, yaw), xyz)


def dh_model(table):
    """Pinocchio model of a DH table.

    Standard DH: joint i's frame is frame i-1 (joint about its z), link i's frame is
    Rz(theta) Tz(d) Tx(a) Rx(alpha) after it, and joint i+1 is placed there.
    Modified DH: joint i's frame is link i's frame, Rx(alpha) Tx(a) Rz(theta) Tz(d) after
    frame i-1. The joint variable adds to theta (revolute) or d (prismatic); both commute with
    the factor next to them, so the joint motion can sit at the joint frame.
    """
    model = pin.Model()
    model.name = table["name"]
    model.gravity.linear = np.array(table.get("gravity", [0.0, 0.0, -9.81]), dtype=float)
    standard = table["convention"] == "standard"
    parent = 0
    placement = se3_pose(table.get("base"))  # where the next joint sits, in the parent joint
    for i, link in enumerate(table["link"]):
        a, alpha, d = link["a"], link["alpha"], link["d"]
        theta = link.get("theta", 0.0)
        prismatic = link.get("joint", "revolute") == "prismatic"
        joint = pin.JointModelPZ() if prismatic else pin.JointModelRZ()
        static = se3_rot("z", theta) * se3_trans(0, 0, d)
        if standard:
            link_frame = static * se3_trans(a, 0, 0) * se3_rot("x", alpha)
            joint_placement = placement
        else:
            link_frame = pin.SE3.Identity()
            joint_placement = placement * se3_rot("x", alpha) * se3_trans(a, 0, 0) * static
        jid = model.addJoint(parent, joint, joint_placement, link.get("joint_name", f"q{i + 1}"))
        inertia = link.get("inertia", {})
        tensor = np.array([
            [inertia.get("ixx", 0.0), inertia.get("ixy", 0.0), inertia.get("ixz", 0.0)],
            [inertia.get("ixy", 0.0), inertia.get("iyy", 0.0), inertia.get("iyz", 0.0)],
            [inertia.get("ixz", 0.0), inertia.get("iyz", 0.0), inertia.get("izz", 0.0)],
        ])
        body = pin.Inertia(link["mass"], np.array(link.get("com", [0.0, 0.0, 0.0])), tensor)
        model.appendBodyToJoint(jid, link_frame.act(body), pin.SE3.Identity())
        parent = jid
        placement = link_frame
    tool = placement * se3_pose(table.get("tool"))
    frame_id = model.addFrame(pin.Frame("tool", parent, 0, tool, pin.FrameType.OP_FRAME))
    return model, frame_id


def dh_fixture(path, seed):
    table = tomllib.loads(path.read_text())
    model, frame_id = dh_model(table)
    write_fixture(path.with_suffix(".json"), table["name"], model, "tool", frame_id, seed)


def main():
    """Every fixture; with names as arguments, only those (the URDFs already copied)."""
    only = set(sys.argv[1:])
    wanted = lambda name: not only or name in only
    URDF_DIR.mkdir(parents=True, exist_ok=True)
    if not only:
        copy_public_urdfs()
    for seed, name in enumerate(URDF_SEED_ORDER):
        if wanted(name):
            urdf_fixture(name, URDF_ROBOTS[name], 1000 + seed)
    for seed, (name, frame_links) in enumerate(sorted(URDF_TREES.items())):
        if wanted(name):
            urdf_tree_fixture(name, frame_links, 3000 + seed)
    for seed, (name, (file, tip, locks)) in enumerate(URDF_LOCKED.items()):
        if wanted(name):
            urdf_fixture(name, tip, 4000 + seed, file, locks)
    for seed, path in enumerate(sorted(DH_DIR.glob("*.toml"))):
        if wanted(path.stem):
            dh_fixture(path, 2000 + seed)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Convert published standard-DH robot data into quasidyn specs (docs/spec.md).

Run:     python3 tools/dh_to_spec.py          # writes robots/puma560.toml, stanford.toml, ur5.toml
Needs:   numpy; for the built-in check also Pinocchio (pip install pin).

Standard DH (Denavit-Hartenberg, as in Corke's Robotics Toolbox): link frame i is
    T_i = T_{i-1} Rz(theta_i) Tz(d_i) Tx(a_i) Rx(alpha_i),
joint i turns about (or slides along) z_{i-1}; the CoM r_i and the inertia I_i (about the CoM)
of link i are given in frame i.

quasidyn frames (docs/spec.md): body i has its origin at a pole O_i on joint axis i and is
parallel to the base frame at q = 0. The conversion evaluates the DH chain at q = 0 (joint
angle = the DH offset theta_i, slider = its d_i at q = 0) and takes
    axis_i  = z_{i-1}                                (base vector)
    O_i     = origin of DH frame i-1                 (lies on joint axis i)
    next_i  = O_{i+1} - O_i  (for the last body: origin of DH frame N - O_N, the tool point)
    com_i   = R_i r_i + p_i - O_i                    (R_i, p_i: DH frame i at q = 0)
    I'_i    = R_i I_i R_i^T                          (about the CoM, base-parallel axes)
    tool    = R_N                                    (tool axes = DH frame N axes)
Then frame i of the spec at any q is DH frame i rotated by R_i^T, so the tool pose of the spec
equals DH frame N. The check at the end builds the converted spec in Pinocchio (as
tools/reference.py does) and an independent Pinocchio model straight from the DH table (joints
in the DH frames, inertias in the DH link frames), and compares at random states: tool pose,
tool Jacobian, mass matrix, inverse dynamics and gravity torques.
Numbers are rounded to 12 decimals (exact zeros and ones stay exact).
"""

from __future__ import annotations

import math
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
PI = math.pi


def rot_x(a):
    c, s = _cs(a)
    return np.array([[1.0, 0, 0], [0, c, -s], [0, s, c]])


def rot_z(a):
    c, s = _cs(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def _cs(a):
    """cos, sin with exact values at multiples of pi/2."""
    k = a / (PI / 2)
    if abs(k - round(k)) < 1e-12:
        return [(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)][int(round(k)) % 4]
    return math.cos(a), math.sin(a)


def hom(r, p):
    t = np.eye(4)
    t[:3, :3] = r
    t[:3, 3] = p
    return t


def dh_link(theta, d, a, alpha):
    """Rz(theta) Tz(d) Tx(a) Rx(alpha)."""
    return hom(rot_z(theta), [0, 0, d]) @ hom(rot_x(alpha), [a, 0, 0])


def diag(ixx, iyy, izz):
    return np.diag([float(ixx), float(iyy), float(izz)])


def cylinder(mass, radius, length, axis):
    """Solid cylinder about its CoM; axis = unit vector of the cylinder axis (link DH frame)."""
    axis = np.asarray(axis, dtype=float)
    perp = mass * (3 * radius ** 2 + length ** 2) / 12.0
    along = 0.5 * mass * radius ** 2
    return perp * np.eye(3) + (along - perp) * np.outer(axis, axis)


# ---------------------------------------------------------------------------------------------
# Published data. Each link: kind ("R"/"P"), theta, d, a, alpha, mass, r (CoM, link frame),
# I (about the CoM, link frame). For "P" links d is the slider value at q = 0, theta fixed.

PUMA560 = dict(
    name="puma560",
    description=(
        "Unimation PUMA 560, 6R, standard DH data of Corke's Robotics Toolbox puma560 model "
        "(d1 = 0: base frame at the shoulder, on the joint-1 axis). Converted to quasidyn frames "
        "by tools/dh_to_spec.py: poles at the DH frame origins O_i = origin of DH frame i-1, "
        "all body frames parallel to the base at q = 0, CoM and inertia rotated from the DH link "
        "frames; the tool frame is DH frame 6. Gravity -z (DH base z is vertical). "
        "Deviations from the published data, both forced by docs/spec.md: (1) link 1 has mass 0 "
        "and inertia diag(0, 0.35, 0) in the published data; mass must be > 0 and the tensor "
        "must satisfy the triangle inequality, so link 1 gets mass 1.0 kg with its CoM at the "
        "pole on the joint-1 axis and Ixx = Izz = 0.175 (a flat disc); link 1 only ever turns "
        "about joint axis 1 and its CoM lies on it, so no joint torque changes (only the static "
        "reaction forces of joint 1 include the extra 1 kg). (2) link 3's published moments "
        "(0.066, 0.086, 0.0125) violate the triangle inequality (0.066 + 0.0125 < 0.086); the "
        "smallest one, about the forearm's long axis, is raised from 0.0125 to 0.0205, keeping "
        "0.086 about the joint-3 axis."),
    source=(
        "P. Corke, Robotics Toolbox: model puma560 (MATLAB mdl_puma560.m, Python "
        "roboticstoolbox.models.DH.Puma560), standard DH, masses, CoMs and inertias from "
        "B. Armstrong, O. Khatib, J. Burdick, 'The explicit dynamic model and inertial "
        "parameters of the PUMA 560 arm', IEEE ICRA 1986, pp. 510-518, as collated in P. Corke, "
        "B. Armstrong-Helouvry, 'A search for consensus among model parameters reported for the "
        "PUMA 560 robot', IEEE ICRA 1994, pp. 1608-1613. Converted from DH by tools/dh_to_spec.py."),
    gravity=[0.0, 0.0, -9.81],
    names=["link1", "link2", "link3", "link4", "link5", "link6"],
    links=[
        ("R", 0.0, 0.0, 0.0, PI / 2, 1.0, [0, 0, 0], diag(0.175, 0.35, 0.175)),
        ("R", 0.0, 0.0, 0.4318, 0.0, 17.4, [-0.3638, 0.006, 0.2275], diag(0.13, 0.524, 0.539)),
        ("R", 0.0, 0.15005, 0.0203, -PI / 2, 4.8, [-0.0203, -0.0141, 0.070], diag(0.066, 0.086, 0.0205)),
        ("R", 0.0, 0.4318, 0.0, PI / 2, 0.82, [0, 0.019, 0], diag(1.8e-3, 1.3e-3, 1.8e-3)),
        ("R", 0.0, 0.0, 0.0, -PI / 2, 0.34, [0, 0, 0], diag(0.3e-3, 0.4e-3, 0.3e-3)),
        ("R", 0.0, 0.0, 0.0, 0.0, 0.09, [0, 0, 0.032], diag(0.15e-3, 0.15e-3, 0.04e-3)),
    ],
)

STANFORD = dict(
    name="stanford",
    description=(
        "Stanford (Scheinman) arm, RRPRRR: joint 3 is prismatic (the boom slides along the DH "
        "z2 axis; q3 = 0 is the DH zero, the toolbox limits are 0.3048..1.27 m). Standard DH "
        "data of Corke's Robotics Toolbox stanford model (d1 = 0.412, d2 = 0.154, theta3 = "
        "-pi/2, d6 = 0.263). Converted to quasidyn frames by tools/dh_to_spec.py (poles at the "
        "DH frame origins, body frames parallel to the base at q = 0, CoMs and inertias rotated "
        "from the DH link frames, tool frame = DH frame 6). Gravity -z. The masses, CoMs and "
        "inertias are used exactly as published in the toolbox, for which link 5 is the row "
        "(r = [0, 0, 0.566], I = diag(0.003, 0.003, 0.0004)) of the toolbox's stanford.m; later "
        "toolbox releases print that row shifted by one column (r = [0, 0.566, 0.003], "
        "I = diag(0.003, 0.0004, 0)), which violates the triangle inequality. Caution: the "
        "published CoM offsets of links 2, 3, 5, 6 (-1.054, -6.447, 0.566, 1.554 m) are "
        "implausibly large for an arm of about 1 m reach (likely a unit slip in the source "
        "table); they are kept verbatim since the original table was not available to check."),
    source=(
        "P. Corke, Robotics Toolbox for MATLAB, stanford.m / mdl_stanford.m (also Python "
        "roboticstoolbox.models.DH.Stanford): kinematics from Stanford AI Memo AIM-177 "
        "(Paul 1972), Fig. 2.3; dynamics from R. P. Paul, 'Robot Manipulators: Mathematics, "
        "Programming and Control', MIT Press 1981, Tables 6.4-6.6. Converted from DH by "
        "tools/dh_to_spec.py."),
    gravity=[0.0, 0.0, -9.81],
    names=["link1", "link2", "boom", "link4", "link5", "link6"],
    links=[
        ("R", 0.0, 0.412, 0.0, -PI / 2, 9.29, [0, 0.0175, -0.1105], diag(0.276, 0.255, 0.071)),
        ("R", 0.0, 0.154, 0.0, PI / 2, 5.01, [0, -1.054, 0], diag(0.108, 0.018, 0.100)),
        ("P", -PI / 2, 0.0, 0.0, 0.0, 4.25, [0, 0, -6.447], diag(2.51, 2.51, 0.006)),
        ("R", 0.0, 0.0, 0.0, -PI / 2, 1.08, [0, 0.092, -0.054], diag(0.002, 0.001, 0.001)),
        ("R", 0.0, 0.0, 0.0, PI / 2, 0.63, [0, 0, 0.566], diag(0.003, 0.003, 0.0004)),
        ("R", 0.0, 0.263, 0.0, 0.0, 0.51, [0, 0, 1.554], diag(0.013, 0.013, 0.0003)),
    ],
)

_UR5_M = [3.7, 8.393, 2.275, 1.219, 1.219, 0.1879]
UR5 = dict(
    name="ur5",
    description=(
        "Universal Robots UR5 (CB series), 6R. Kinematics: the published DH parameters d1 = "
        "0.089159, a2 = -0.425, a3 = -0.39225, d4 = 0.10915, d5 = 0.09465, d6 = 0.0823, alpha = "
        "(pi/2, 0, 0, pi/2, -pi/2, 0). Masses (3.7, 8.393, 2.275, 1.219, 1.219, 0.1879 kg) and "
        "CoMs in the DH link frames from the same published DH/dynamics block. Inertias: the "
        "solid-cylinder approximations of ur_description (about the CoM): link 1 r = 0.06, "
        "l = 0.15, axis = joint-1 axis; upper arm r = 0.06, l = 0.56 and forearm r = 0.06, "
        "l = 0.5, axes along the links (DH x2, x3); wrist 1 and wrist 2 r = 0.06, l = 0.12, "
        "axis = joint-5 axis; wrist 3 r = 0.06, l = 0.12, axis perpendicular to joint 6 (DH "
        "x6), as the z axes of the URDF links. The wrists' radius is printed 0.6 in "
        "ur_description, an evident slip for 0.06 (a 1.2 kg wrist of 0.6 m radius), corrected "
        "here. Converted to quasidyn frames by tools/dh_to_spec.py (poles at the DH frame "
        "origins, body frames parallel to the base at q = 0, tool frame = DH frame 6, the UR "
        "tool flange). Gravity -z."),
    source=(
        "Universal Robots, 'DH parameters for calculations of kinematics and dynamics' "
        "(universal-robots.com support article, UR5 table); masses and CoMs as in the DH "
        "comment block (from urcontrol.conf) of ROS-Industrial universal_robot, "
        "ur_description/urdf/ur5.urdf.xacro, which lists link-3 mass 2.275 kg and CoM "
        "(0.11993, 0, 0.0265) where the UR article lists 2.33 kg and (0.15, 0, 0.0265), and "
        "link-5 CoM y = +0.0018 where the article lists -0.0018; inertias from the "
        "cylinder_inertial macro of the same file. Converted from DH by tools/dh_to_spec.py."),
    gravity=[0.0, 0.0, -9.81],
    names=["shoulder", "upper_arm", "forearm", "wrist1", "wrist2", "wrist3"],
    links=[
        ("R", 0.0, 0.089159, 0.0, PI / 2, _UR5_M[0], [0, -0.02561, 0.00193],
         cylinder(_UR5_M[0], 0.06, 0.15, [0, 1, 0])),
        ("R", 0.0, 0.0, -0.425, 0.0, _UR5_M[1], [0.2125, 0, 0.11336],
         cylinder(_UR5_M[1], 0.06, 0.56, [1, 0, 0])),
        ("R", 0.0, 0.0, -0.39225, 0.0, _UR5_M[2], [0.11993, 0, 0.0265],
         cylinder(_UR5_M[2], 0.06, 0.5, [1, 0, 0])),
        ("R", 0.0, 0.10915, 0.0, PI / 2, _UR5_M[3], [0, -0.0018, 0.01634],
         cylinder(_UR5_M[3], 0.06, 0.12, [0, 0, 1])),
        ("R", 0.0, 0.09465, 0.0, -PI / 2, _UR5_M[4], [0, 0.0018, 0.01634],
         cylinder(_UR5_M[4], 0.06, 0.12, [0, -1, 0])),
        ("R", 0.0, 0.0823, 0.0, 0.0, _UR5_M[5], [0, 0, -0.001159],
         cylinder(_UR5_M[5], 0.06, 0.12, [1, 0, 0])),
    ],
)

ROBOTS = [PUMA560, STANFORD, UR5]


# ---------------------------------------------------------------------------------------------

def clean(x):
    x = float(x)
    if abs(x) < 1e-13:
        return 0.0
    return round(x, 12)


def convert(robot):
    """Return the spec fields (base, bodies, tool rotation) of a DH robot."""
    frames = [np.eye(4)]
    for (_, theta, d, a, alpha, *_rest) in robot["links"]:
        frames.append(frames[-1] @ dh_link(theta, d, a, alpha))
    bodies = []
    n = len(robot["links"])
    for i, (kind, theta, d, a, alpha, m, r, inertia) in enumerate(robot["links"]):
        prev, cur = frames[i], frames[i + 1]
        pole = prev[:3, 3]
        axis = prev[:3, 2]
        nxt = frames[i + 1][:3, 3] - pole  # next pole (origin of DH frame i) or the tool point
        rmat = cur[:3, :3]
        com = rmat @ np.asarray(r, dtype=float) + cur[:3, 3] - pole
        icom = rmat @ inertia @ rmat.T
        bodies.append(dict(name=robot["names"][i], joint="revolute" if kind == "R" else "prismatic",
                           axis=[clean(v) for v in axis], next=[clean(v) for v in nxt], mass=m,
                           com=[clean(v) for v in com], inertia=[[clean(v) for v in row] for row in icom]))
    tool = [[clean(v) for v in row] for row in frames[n][:3, :3]]
    return dict(base=[0.0, 0.0, 0.0], bodies=bodies, tool=tool)


def fmt(x):
    return repr(float(x))


def fvec(v):
    return "[" + ", ".join(fmt(x) for x in v) + "]"


def axis_text(v):
    letters = {(1, 0, 0): '"x"', (0, 1, 0): '"y"', (0, 0, 1): '"z"',
               (-1, 0, 0): '"-x"', (0, -1, 0): '"-y"', (0, 0, -1): '"-z"'}
    key = tuple(int(x) if float(x).is_integer() else 9 for x in v)
    return letters.get(key, fvec(v))


def toml_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_toml(robot, conv):
    out = [
        "# Generated by tools/dh_to_spec.py from published DH data; edit the script, not this file.",
        "version = 1",
        f"name = {toml_string(robot['name'])}",
        f"description = {toml_string(robot['description'])}",
        f"source = {toml_string(robot['source'])}",
        f"gravity = {fvec(robot['gravity'])}",
        f"base = {fvec(conv['base'])}",
    ]
    for b in conv["bodies"]:
        it = b["inertia"]
        out += [
            "",
            "[[body]]",
            f"name = {toml_string(b['name'])}",
            f"joint = \"{b['joint']}\"",
            f"axis = {axis_text(b['axis'])}",
            f"next = {fvec(b['next'])}",
            f"mass = {fmt(b['mass'])}",
            f"com = {fvec(b['com'])}",
            (f"inertia = {{ ixx = {fmt(it[0][0])}, iyy = {fmt(it[1][1])}, izz = {fmt(it[2][2])}, "
             f"ixy = {fmt(it[0][1])}, ixz = {fmt(it[0][2])}, iyz = {fmt(it[1][2])} }}"),
        ]
    rot = conv["tool"]
    out += ["", "[tool]", "rotation = [" + ", ".join(fvec(r) for r in rot) + "]", ""]
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# Check: converted spec (parsed back, built as tools/reference.py builds it) against a
# Pinocchio model made directly from the DH table.

def dh_model(robot):
    import pinocchio as pin

    model = pin.Model()
    model.gravity = pin.Motion(np.asarray(robot["gravity"], dtype=float), np.zeros(3))
    parent, placement = 0, pin.SE3.Identity()
    for (kind, theta, d, a, alpha, m, r, inertia) in robot["links"]:
        joint = pin.JointModelRZ() if kind == "R" else pin.JointModelPZ()
        jid = model.addJoint(parent, joint, placement, f"j{parent + 1}")
        t = dh_link(theta, d, a, alpha)  # constant part; for "P" d is the slider at q = 0
        link = pin.SE3(t[:3, :3], t[:3, 3])
        model.appendBodyToJoint(jid, pin.Inertia(m, np.asarray(r, float), inertia), link)
        parent, placement = jid, link
    fid = model.addFrame(pin.Frame("tool", parent, placement, pin.FrameType.OP_FRAME))
    return model, fid


def check(robot, path, states=200, seed=7):
    import pinocchio as pin

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    from reference import build_model, mass_matrix
    from spec_check import load_spec

    spec_model, sf, _ = build_model(load_spec(path))
    ref_model, rf = dh_model(robot)
    sd, rd = spec_model.createData(), ref_model.createData()
    n = spec_model.nv
    rng = np.random.default_rng(seed)
    worst = 0.0
    for _ in range(states):
        q = rng.uniform(-PI, PI, n)
        qd, qdd = rng.uniform(-2, 2, n), rng.uniform(-2, 2, n)
        for i, link in enumerate(robot["links"]):
            if link[0] == "P":
                q[i] = rng.uniform(-0.5, 0.5)
        res = []
        for model, data, fid in ((spec_model, sd, sf), (ref_model, rd, rf)):
            pin.forwardKinematics(model, data, q)
            pin.updateFramePlacements(model, data)
            x = data.oMf[fid]
            jac = pin.computeFrameJacobian(model, data, q, fid, pin.LOCAL_WORLD_ALIGNED)
            res.append(np.concatenate([x.rotation.ravel(), x.translation, jac.ravel(),
                                       mass_matrix(model, data, q).ravel(),
                                       pin.rnea(model, data, q, qd, qdd),
                                       pin.computeGeneralizedGravity(model, data, q)]))
        err = float(np.max(np.abs(res[0] - res[1])) / max(1.0, np.max(np.abs(res[1]))))
        worst = max(worst, err)
    assert worst < 1e-9, f"{robot['name']}: spec and DH models differ by {worst}"
    return worst


def main():
    for robot in ROBOTS:
        path = ROOT / "robots" / f"{robot['name']}.toml"
        path.parent.mkdir(exist_ok=True)
        path.write_text(to_toml(robot, convert(robot)))
        try:
            worst = check(robot, path)
        except ImportError as e:  # Pinocchio not installed
            print(f"wrote {path.relative_to(ROOT)} (check skipped: {e})")
            continue
        print(f"wrote {path.relative_to(ROOT)}; spec vs DH model: tool pose, Jacobian, M, rnea, "
              f"gravity agree to {worst:.1e} (relative) at 200 random states")
    return 0


if __name__ == "__main__":
    sys.exit(main())

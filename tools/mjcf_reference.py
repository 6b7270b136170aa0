#!/usr/bin/env python3
"""Reference fixtures for quasidyn's MJCF importer, computed by MuJoCo itself.

What it does:

1. Copies dm_control suite models (DM_CONTROL_MODELS: fixed-base, hinge and slide joints, no
   armature) and the suite's common/ files they include into
   tests/fixtures/mjcf/, with a NAME.LICENSE notice beside each (dm_control is Apache-2.0).
   Needs a dm_control checkout: set DM_CONTROL to its root to refresh the copies; without it
   the copies already committed are used. MENAGERIE_MODELS (MuJoCo Menagerie models whose
   bodies all carry an <inertial>) are copied by hand, without their meshes, licence beside.
2. For every model in MODELS (those and the hand-written synthetic_*.xml files, which
   exercise includes, default classes, compiler settings, orientation forms, frames, geom
   inertia, multi-joint bodies, ref, welded bodies, forests and armature on joints and
   actuators; mj_inverse plus the passive forces is checked against M qacc + qfrc_bias on
   INVERSE_CHECKED): loads it with
   mujoco.MjModel.from_xml_path and writes tests/fixtures/mjcf/NAME.json with STATES random
   states.

Each JSON holds:
    {"robot", "dof", "generator": "mujoco X.Y.Z", "joints" (MuJoCo's joint names, `null` for
     unnamed ones), "free_joints" (the ids of free joints, whose qpos are 7 and qvel 6 entries:
     position and quaternion w x y z; linear velocity in world axes, angular in body axes),
     "root" (the top-level body read with --root, or null: then everything below is the
     quantities of that body's tree alone), "kept_joints" (the ids of the joints read), "frames" (every named site on a moving body, in site order), "states": [
        {"q" (qpos: around qpos0), "qd" (qvel), "qdd" (qacc), "tau" (M qacc + qfrc_bias),
         "mass_matrix" (mj_fullM, dof rows), "nonlinear_effects" (qfrc_bias),
         "gravity" (qfrc_bias at qvel = 0), "tau_fd" (random), "qdd_fd" (M^-1 (tau_fd -
         qfrc_bias)), "passive_forces" (qfrc_spring + qfrc_damper; left out where a spatial
         tendon's spring or damper, or one with a dead band, adds to them), "frames": [{"name", "rotation" (site_xmat, 3 rows), "position"
         (site_xpos), "jacobian" (mj_jacSite: jacp rows over jacr rows, 6 x nv)}],
         "static_joint_reactions" (fixed bases only: [forces, moments] of the joints read, in
         their bodies' axes, see static_joint_reactions())}]}
A fixture of LOCKED adds "file" (the model's XML) and "locks" (joint -> value, null: qpos0).
"frame_bodies" lists the bodies asked for as frames (FRAME_BODIES), whose entries follow the
sites' in "frames": xmat, xpos and mj_jacBody.
Damping, stiffness, actuators and constraints do not enter these quantities.

Usage (from the repository root):
    pip install mujoco   # MuJoCo 4
    python3 tools/mjcf_reference.py [NAME ...]   # names: only those fixtures
The output is deterministic for a given MuJoCo version (fixed random seeds).
"""

import json
import sys
import os
import pathlib
import shutil

import mujoco
import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
MJCF_DIR = ROOT / "tests" / "fixtures" / "mjcf"
STATES = 10

DM_CONTROL_MODELS = ["acrobot", "cartpole", "reacher", "finger", "pendulum", "point_mass",
                     "ball_in_cup", "swimmer", "manipulator", "stacker", "humanoid", "cheetah",
                     "hopper", "walker", "fish", "quadruped"]
DM_CONTROL_COMMON = ["materials", "skybox", "visual"]

# Menagerie models (copied unchanged, meshes left out): their mesh geoms and meshes are
# deleted before MuJoCo compiles them. That changes no mass: every body has an <inertial>
# (MuJoCo's default inertiafromgeom="auto" then ignores geoms), as quasidyn requires.
MENAGERIE_MODELS = ["kinova_gen3", "unitree_go2", "unitree_h1", "leap_hand"]

# Bodies asked for as frames (quasidyn's --frame BODY), after the sites: their frame's pose
# (xmat, xpos) and mj_jacBody.
FRAME_BODIES = {"synthetic_degree": ["hand", "upper"], "kinova_gen3": ["bracelet_link"],
                "leap_hand": ["if_ds", "th_ds"]}

# Models read with quasidyn's --root BODY: the tree of that top-level body alone (the other
# trees are independent of it, so MuJoCo's quantities over its dofs are those of the tree).
ROOTS = {"quadruped": "torso"}

# Fixtures of a model with joints locked (quasidyn's --lock JOINT[=VALUE]; None: at qpos0):
# name -> (model, {joint: value}). MuJoCo's full model at states whose locked joints sit at
# their values, at rest and unaccelerated, restricted to the other dofs: the locked joints'
# constraint forces do not enter those rows, so they are the reduced model's quantities (the
# forward dynamics is solved again over the kept dofs).
LOCKED = {
    "synthetic_degree_locked": ("synthetic_degree", {"extend": 0.12, "pitch": 0.7, "roll": None}),
    "synthetic_armature_locked": ("synthetic_armature", {"flap": 0.4, "reach": None}),
    "humanoid_locked": ("humanoid", {"abdomen_z": 0.3, "right_knee": None, "left_elbow": -0.8}),
}

# Random seeds are 2000 + the position here: models added later go at the end.
MODELS = ["synthetic_degree", "synthetic_radian", "synthetic_flags", "acrobot", "cartpole",
          "reacher", "finger", "kinova_gen3", "pendulum", "point_mass", "ball_in_cup", "swimmer",
          "manipulator", "stacker", "synthetic_armature", "synthetic_free", "humanoid",
          "cheetah", "hopper", "walker", "fish", "quadruped", "unitree_go2", "unitree_h1",
          "leap_hand", *LOCKED]

# Models with armature (on joints and on actuators driving joints): MuJoCo's own inverse
# dynamics, mj_inverse, is checked to equal the recorded tau = M qacc + qfrc_bias there
# (nothing else acts: no contacts, damping, springs or limits), so that tau is MuJoCo's
# inverse dynamics with the armature.
INVERSE_CHECKED = ["synthetic_armature", "synthetic_free", "synthetic_armature_locked"]

# Models whose first DERIVATIVE_STATES states also hold the derivatives (see derivatives()):
# fixed bases (a chain, armature, a hand-written tree) and free ones in MuJoCo's layout.
DERIVATIVES_CHECKED = ["synthetic_degree", "acrobot", "kinova_gen3", "synthetic_armature",
                       "synthetic_free", "humanoid", "unitree_go2"]
DERIVATIVE_STATES = 3

# Models whose first DERIVATIVE_STATES states also hold the functions on request (see
# whole_body()): the centre of mass and centroidal momentum, the energies and the frames'
# motion. A floating base's are in MuJoCo's layout.
WHOLE_BODY_CHECKED = ["synthetic_degree", "kinova_gen3", "synthetic_free", "humanoid",
                      "unitree_go2"]

DM_CONTROL_NOTICE = """\
{name}.xml is dm_control's suite model dm_control/suite/{name}.xml, copied unchanged (with
the suite's common/ files it includes), from https://github.com/google-deepmind/dm_control.

Copyright 2017 The dm_control Authors.

Licensed under the Apache License, Version 2.0 (the "License"); you may not use this file
except in compliance with the License. You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software distributed under the
License is distributed on an "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND,
either express or implied. See the License for the specific language governing permissions
and limitations under the License.
"""


def copy_dm_control():
    """Refreshes the dm_control copies from a checkout named by DM_CONTROL, if set."""
    checkout = os.environ.get("DM_CONTROL")
    if not checkout:
        return
    suite = pathlib.Path(checkout) / "dm_control" / "suite"
    (MJCF_DIR / "common").mkdir(parents=True, exist_ok=True)
    for name in DM_CONTROL_COMMON:
        shutil.copyfile(suite / "common" / f"{name}.xml", MJCF_DIR / "common" / f"{name}.xml")
    for name in DM_CONTROL_MODELS:
        shutil.copyfile(suite / f"{name}.xml", MJCF_DIR / f"{name}.xml")
        (MJCF_DIR / f"{name}.LICENSE").write_text(DM_CONTROL_NOTICE.format(name=name))


def moving_sites(model):
    """Named sites on bodies that move (a site fixed to the world is no frame)."""
    sites = []
    for s in range(model.nsite):
        name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_SITE, s)
        body = model.site_bodyid[s]
        # weldid: the body's nearest ancestor with joints (0: welded to the world).
        if name and model.body_weldid[body] != 0:
            sites.append((s, name))
    return sites


def random_state(model, rng):
    """qpos around qpos0 (hinges within a turn, slides within 0.3; a free joint's position
    within 0.3 and any unit quaternion), qvel, qacc."""
    q = model.qpos0.copy()
    for j in range(model.njnt):
        adr = model.jnt_qposadr[j]
        if model.jnt_type[j] == mujoco.mjtJoint.mjJNT_HINGE:
            q[adr] += rng.uniform(-np.pi, np.pi)
        elif model.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE:
            q[adr:adr + 3] += rng.uniform(-0.3, 0.3, 3)
            quat = rng.normal(size=4)
            q[adr + 3:adr + 7] = quat / np.linalg.norm(quat)
        else:
            q[adr] += rng.uniform(-0.3, 0.3)
    return q, rng.uniform(-2, 2, model.nv), rng.uniform(-3, 3, model.nv)


def dynamics_at(model, data, qpos, qvel):
    """qfrc_bias at qvel = 0, mj_fullM and qfrc_bias at (qpos, qvel); data is left there."""
    data.qpos[:] = qpos
    data.qvel[:] = 0
    mujoco.mj_forward(model, data)
    gravity = data.qfrc_bias.copy()
    data.qvel[:] = qvel
    mujoco.mj_forward(model, data)
    mass = np.zeros((model.nv, model.nv))
    mujoco.mj_fullM(model, data, mass)
    return gravity, mass, data.qfrc_bias.copy()


def frame_jacobians(model, data, sites, bodies):
    """mj_jacSite of each site, then mj_jacBody of each body: jacp rows over jacr, 6 x nv."""
    out = []
    for kind, index in [("site", s) for s, _ in sites] + [("body", b) for b, _ in bodies]:
        jacp = np.zeros((3, model.nv))
        jacr = np.zeros((3, model.nv))
        jac = mujoco.mj_jacSite if kind == "site" else mujoco.mj_jacBody
        jac(model, data, jacp, jacr, index)
        out.append(np.vstack([jacp, jacr]))
    return out


def evaluate(model, data, q, qd, qdd, tau_fd, sites, bodies, inverse=False):
    """MuJoCo's quantities at one state (see the module docstring); with `inverse`, checks that
    mj_inverse gives M qacc + qfrc_bias."""
    nv = model.nv
    gravity, mass, bias = dynamics_at(model, data, q, qd)
    passive = data.qfrc_spring + data.qfrc_damper
    poses = [(data.site_xmat[s], data.site_xpos[s]) for s, _ in sites]
    poses += [(data.xmat[b], data.xpos[b]) for b, _ in bodies]
    frames = [{
        "name": name,
        "rotation": rotation.reshape(3, 3).tolist(),
        "position": position.tolist(),
        "jacobian": jacobian.tolist(),
    } for (_, name), (rotation, position), jacobian
        in zip(sites + bodies, poses, frame_jacobians(model, data, sites, bodies))]
    tau = mass @ qdd + bias
    if inverse:
        data.qacc[:] = qdd
        mujoco.mj_inverse(model, data)
        # mj_inverse subtracts the passive forces (springs, dampers): add them back.
        err = np.abs(data.qfrc_inverse + data.qfrc_passive - tau).max()
        assert err <= 1e-12 * max(1.0, np.abs(tau).max()), f"mj_inverse differs by {err}"
    return {
        "q": q.tolist(),
        "qd": qd.tolist(),
        "qdd": qdd.tolist(),
        "tau": tau.tolist(),
        "mass_matrix": mass.tolist(),
        "nonlinear_effects": bias.tolist(),
        "gravity": gravity.tolist(),
        "tau_fd": tau_fd.tolist(),
        "qdd_fd": np.linalg.solve(mass, tau_fd - bias).tolist(),
        "frames": frames,
        **passive_forces(model, passive),
    }


def tangent_derivative(f, h=0.02, levels=5):
    """The derivative at 0 of the vector function f(t), by central differences at h, h/2, ..
    extrapolated (Richardson) to order h^(2 levels), and the difference of the last two
    orders (how far from converged it is)."""
    table = []
    for k in range(levels):
        step = h / 2 ** k
        row = [(f(step) - f(-step)) / (2 * step)]
        for m in range(1, k + 1):
            row.append(row[m - 1] + (row[m - 1] - table[k - 1][m - 1]) / (4 ** m - 1))
        table.append(row)
    return table[-1][-1], np.abs(table[-1][-1] - table[-1][-2])


def derivatives(model, data, q, qd, qdd, tau_fd):
    """MuJoCo's functions differentiated (the functions of evaluate(): tau = M qacc +
    qfrc_bias, gravity = qfrc_bias at qvel = 0, qdd_fd = M^-1 (tau_fd - qfrc_bias)): d/dq
    along MuJoCo's own tangent (column j moves qpos by mj_integratePos with qvel = e_j: a free
    joint's position in world axes, its rotation about its body's axes), d/dqvel, and M^-1 =
    d qdd_fd / d tau_fd. Row-major, [i][j] = d out_i / d in_j."""
    nv = model.nv

    def at(qpos, qvel):
        gravity, mass, bias = dynamics_at(model, data, qpos, qvel)
        return mass @ qdd + bias, gravity, np.linalg.solve(mass, tau_fd - bias), mass

    def moved(j, t):
        qpos = q.copy()
        direction = np.zeros(nv)
        direction[j] = 1.0
        mujoco.mj_integratePos(model, qpos, direction, t)
        return qpos

    def columns(f):
        """The derivative's columns; the extrapolation must have converged to 1e-10 of the
        matrix's scale (a tenth of what the tests ask), else this fails."""
        pairs = [tangent_derivative(lambda t: f(j, t)) for j in range(nv)]
        matrix = np.array([p[0] for p in pairs]).T
        err = max(p[1].max() for p in pairs) / max(1.0, np.abs(matrix).max())
        assert err <= 1e-10, f"extrapolation did not converge: {err:e}"
        return matrix

    def along_q(k):
        return columns(lambda j, t: at(moved(j, t), qd)[k])

    def along_qd(k):
        return columns(lambda j, t: at(q, qd + t * np.eye(nv)[j])[k])

    mass = at(q, qd)[3]
    return {
        "dtau_dq": along_q(0).tolist(),
        "dtau_dqd": along_qd(0).tolist(),
        "dg_dq": along_q(1).tolist(),
        "dqdd_dq": along_q(2).tolist(),
        "dqdd_dqd": along_qd(2).tolist(),
        "minv": np.linalg.inv(mass).tolist(),
    }


def whole_body(model, data, q, qd, sites, bodies):
    """MuJoCo's model, summed body by body over the robot's bodies (those not welded to the
    world): the centre of mass, its Jacobian (mass-weighted mj_jac at each body's centre), the
    centroidal momentum (linear, then angular about the centre of mass, world axes) and its
    matrix (the momentum of each unit qvel), the kinetic energy 1/2 qvel^T M qvel, the
    potential energy -sum m g . x, and each frame's velocity J qvel and Jacobian. What changes
    with time at qacc = 0 (the accelerations' biases, the Jacobians' and mj_fullM's
    derivatives) is the time
    derivative along qpos(t) = mj_integratePos(qpos, qvel, t), qvel held: MuJoCo's qacc = 0
    (extrapolated central differences, tangent_derivative)."""
    nv = model.nv
    robot = [b for b in range(1, model.nbody) if model.body_weldid[b] != 0]
    mass = sum(model.body_mass[b] for b in robot)
    gravity = np.zeros(3)
    if not model.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_GRAVITY:
        gravity = model.opt.gravity.copy()

    def at(qpos):
        data.qpos[:] = qpos
        data.qvel[:] = qd
        mujoco.mj_forward(model, data)
        com = sum(model.body_mass[b] * data.xipos[b] for b in robot) / mass
        jac_com = np.zeros((3, nv))
        momentum_matrix = np.zeros((6, nv))
        for b in robot:
            jacp = np.zeros((3, nv))
            jacr = np.zeros((3, nv))
            mujoco.mj_jac(model, data, jacp, jacr, data.xipos[b], b)
            m = model.body_mass[b]
            rot = data.ximat[b].reshape(3, 3)
            inertia = rot @ np.diag(model.body_inertia[b]) @ rot.T
            jac_com += m * jacp / mass
            momentum_matrix[:3] += m * jacp
            lever = data.xipos[b] - com
            momentum_matrix[3:] += inertia @ jacr + m * np.cross(lever, jacp.T).T
        frames = frame_jacobians(model, data, sites, bodies)
        potential = -sum(model.body_mass[b] * gravity @ data.xipos[b] for b in robot)
        full = np.zeros((nv, nv))
        mujoco.mj_fullM(model, data, full)
        return com, jac_com, momentum_matrix, frames, potential, full

    def along_motion(f):
        def moved(t):
            qpos = q.copy()
            mujoco.mj_integratePos(model, qpos, qd, t)
            return f(at(qpos))
        value, err = tangent_derivative(moved)
        scale = max(1.0, np.abs(value).max())
        assert err.max() <= 1e-10 * scale, f"extrapolation did not converge: {err.max() / scale:e}"
        return value

    com, jac_com, momentum_matrix, frames, potential, full = at(q)
    out = {
        "center_of_mass": com.tolist(),
        "center_of_mass_jacobian": jac_com.tolist(),
        "center_of_mass_acceleration_bias": along_motion(lambda a: a[1] @ qd).tolist(),
        "centroidal_momentum_matrix": momentum_matrix.tolist(),
        "centroidal_momentum": (momentum_matrix @ qd).tolist(),
        "centroidal_momentum_bias": along_motion(lambda a: a[2] @ qd).tolist(),
        "kinetic_energy": 0.5 * qd @ full @ qd,
        "potential_energy": potential,
        "mass_matrix_inverse": np.linalg.inv(full).tolist(),
        "mass_matrix_rate": along_motion(lambda a: a[5].ravel()).reshape(nv, nv).tolist(),
        "frames": [],
    }
    for k, (_, name) in enumerate(sites + bodies):
        out["frames"].append({
            "name": name,
            "velocity": (frames[k] @ qd).tolist(),
            "acceleration_bias": along_motion(lambda a: a[3][k] @ qd).tolist(),
            "jacobian_derivative": along_motion(lambda a: a[3][k].ravel()).reshape(6, nv).tolist(),
        })
    return out


def joint_wrenches(model, data, q, qd, qdd):
    """{"joint_forces", "joint_moments"}: the wrench each hinge and slide transmits from its
    body's parent to its body at (q, qd, qdd), world axes, the moment about the joint's origin
    on the body's side (xanchor, moved by a slide's own displacement): MuJoCo's cfrc_int (after mj_rnePostConstraint at qacc = qdd, contacts and
    constraints off, so that gravity and the motion alone make it), moved from the subtree's
    centre of mass to the anchor. Joints of one body share its wrench."""
    flags = model.opt.disableflags
    model.opt.disableflags = flags | mujoco.mjtDisableBit.mjDSBL_CONTACT \
        | mujoco.mjtDisableBit.mjDSBL_CONSTRAINT
    data.qpos[:] = q
    data.qvel[:] = qd
    mujoco.mj_forward(model, data)
    data.qacc[:] = qdd
    mujoco.mj_rnePostConstraint(model, data)
    forces, moments = [], []
    for j in range(model.njnt):
        moving = (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))
        if int(model.jnt_type[j]) not in moving:
            continue
        b = model.jnt_bodyid[j]
        moment, force = data.cfrc_int[b][:3], data.cfrc_int[b][3:]
        # MuJoCo's xanchor of a slide is where the joint starts, before it slides; the joint's
        # origin on the body's side (quasidyn's, Pinocchio's) has slid with the body.
        anchor = data.xanchor[j].copy()
        if int(model.jnt_type[j]) == int(mujoco.mjtJoint.mjJNT_SLIDE):
            adr = model.jnt_qposadr[j]
            anchor += data.xaxis[j] * (q[adr] - model.qpos0[adr])
        lever = data.subtree_com[model.body_rootid[b]] - anchor
        forces.append(force.tolist())
        moments.append((moment + np.cross(lever, force)).tolist())
    model.opt.disableflags = flags
    return {"joint_forces": forces, "joint_moments": moments}


def static_joint_reactions(model, data, q, joints):
    """[forces, moments]: quasidyn's static_joint_reactions at qpos q for `joints` (hinge and
    slide ids, in order): MuJoCo's wrench of each joint at rest (joint_wrenches at qvel = qacc
    = 0), turned from world axes into the axes of the joint's body, which are parallel to the
    world's where every coordinate is zero (MuJoCo's qpos = 0 for hinges and slides, locked
    joints at their values) and turn with it. In a body with several joints, the axes after
    joint k are the body's with its later joints at qpos0 (MuJoCo turns and slides each joint
    by qpos - qpos0)."""
    rest = joint_wrenches(model, data, q, np.zeros(model.nv), np.zeros(model.nv))
    moving = [j for j in range(model.njnt) if int(model.jnt_type[j]) in
              (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))]

    def axes(qpos, j):
        b = model.jnt_bodyid[j]
        at = qpos.copy()
        for later in range(j + 1, model.njnt):
            if model.jnt_bodyid[later] == b:
                adr = model.jnt_qposadr[later]
                at[adr] = model.qpos0[adr]
        data.qpos[:] = at
        mujoco.mj_kinematics(model, data)
        return data.xmat[b].reshape(3, 3).copy()

    zero = q.copy()
    for j in joints:
        zero[model.jnt_qposadr[j]] = 0.0
    forces, moments = [], []
    for j in joints:
        turned = axes(q, j) @ axes(zero, j).T
        k = moving.index(j)
        forces.append((turned.T @ rest["joint_forces"][k]).tolist())
        moments.append((turned.T @ rest["joint_moments"][k]).tolist())
    return [forces, moments]


def passive_forces(model, passive):
    """{"passive_forces": qfrc_spring + qfrc_damper} where they are the joints' and the fixed
    tendons' (no spring or damper of a spatial tendon, or one with a dead band, adds to them),
    else nothing."""
    for t in range(model.ntendon):
        if model.tendon_stiffness[t] == 0 and model.tendon_damping[t] == 0:
            continue
        wraps = range(model.tendon_adr[t], model.tendon_adr[t] + model.tendon_num[t])
        spatial = any(model.wrap_type[w] != mujoco.mjtWrap.mjWRAP_JOINT for w in wraps)
        dead_band = model.tendon_lengthspring[t][0] != model.tendon_lengthspring[t][1]
        if spatial or dead_band:
            return {}
    return {"passive_forces": passive.tolist()}


def load(name):
    """The compiled model; a Menagerie model without its meshes (see MENAGERIE_MODELS)."""
    path = str(MJCF_DIR / f"{name}.xml")
    if name not in MENAGERIE_MODELS:
        return mujoco.MjModel.from_xml_path(path)
    spec = mujoco.MjSpec.from_file(path)
    for geom in list(spec.geoms):
        if geom.type == mujoco.mjtGeom.mjGEOM_MESH:
            spec.delete(geom)
    for mesh in list(spec.meshes):
        spec.delete(mesh)
    return spec.compile()


def kept_tree(model, root):
    """The joints, qpos entries and dofs of the tree of top-level body `root` (every one
    without a root)."""
    if root is None:
        return list(range(model.njnt)), list(range(model.nq)), list(range(model.nv))
    root_id = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, root)
    joints = [j for j in range(model.njnt)
              if model.body_rootid[model.jnt_bodyid[j]] == root_id]
    sizes = {int(mujoco.mjtJoint.mjJNT_FREE): (7, 6), int(mujoco.mjtJoint.mjJNT_BALL): (4, 3)}
    qpos, dofs = [], []
    for j in joints:
        nq, nv = sizes.get(int(model.jnt_type[j]), (1, 1))
        qpos += range(model.jnt_qposadr[j], model.jnt_qposadr[j] + nq)
        dofs += range(model.jnt_dofadr[j], model.jnt_dofadr[j] + nv)
    return joints, qpos, dofs


def lock_joints(model, locks):
    """The qpos entries and dofs of the joints of `locks` (joint name -> value, None for
    qpos0) and the qpos values they are locked at."""
    fixed = {}
    dofs = []
    for joint, value in locks.items():
        j = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, joint)
        assert j >= 0 and int(model.jnt_type[j]) in (int(mujoco.mjtJoint.mjJNT_HINGE),
                                                     int(mujoco.mjtJoint.mjJNT_SLIDE)), joint
        adr = model.jnt_qposadr[j]
        fixed[adr] = model.qpos0[adr] if value is None else value
        dofs.append(model.jnt_dofadr[j])
    return fixed, dofs


def free_joints(model):
    """The ids of the model's free joints."""
    return (j for j in range(model.njnt) if model.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE)


def restrict(state, qpos, dofs):
    """A state of the whole model restricted to one tree's qpos entries and dofs."""
    vec = lambda key, idx: [state[key][i] for i in idx]
    mat = lambda m: [[m[r][c] for c in dofs] for r in dofs]
    out = {"q": vec("q", qpos)}
    for key in ["qd", "qdd", "tau", "nonlinear_effects", "gravity", "tau_fd", "qdd_fd",
                "passive_forces"]:
        if key in state:
            out[key] = vec(key, dofs)
    out["mass_matrix"] = mat(state["mass_matrix"])
    if "static_joint_reactions" in state:
        out["static_joint_reactions"] = state["static_joint_reactions"]
    out["frames"] = [dict(f, jacobian=[[row[c] for c in dofs] for row in f["jacobian"]])
                     for f in state["frames"]]
    return out


def write_fixture(name, seed):
    file, locks = LOCKED.get(name, (name, {}))
    model = load(file)
    data = mujoco.MjData(model)
    rng = np.random.default_rng(seed)
    root = ROOTS.get(name)
    joints, qpos, dofs = kept_tree(model, root)
    fixed, locked_dofs = lock_joints(model, locks)
    locked_joints = [mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, j) for j in locks]
    joints = [j for j in joints if j not in locked_joints]
    qpos = [a for a in qpos if a not in fixed]
    dofs = [d for d in dofs if d not in locked_dofs]
    root_id = None if root is None else mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, root)
    sites = [(s, n) for s, n in moving_sites(model)
             if root_id is None or model.body_rootid[model.site_bodyid[s]] == root_id]
    bodies = [(mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, n), n)
              for n in FRAME_BODIES.get(name, [])]
    states = []
    for s in range(STATES):
        q, qd, qdd = random_state(model, rng)
        tau_fd = rng.uniform(-5, 5, model.nv)
        for adr, value in fixed.items():
            q[adr] = value
        qd[locked_dofs] = 0
        qdd[locked_dofs] = 0
        state = evaluate(model, data, q, qd, qdd, tau_fd, sites, bodies, name in INVERSE_CHECKED)
        if name in DERIVATIVES_CHECKED and s < DERIVATIVE_STATES:
            state["derivatives"] = derivatives(model, data, q, qd, qdd, tau_fd)
        if name in WHOLE_BODY_CHECKED and s < DERIVATIVE_STATES:
            state["whole_body"] = whole_body(model, data, q, qd, sites, bodies)
            state["whole_body"].update(joint_wrenches(model, data, q, qd, qdd))
        if not list(free_joints(model)):
            kept = [j for j in joints if int(model.jnt_type[j]) in
                    (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))]
            state["static_joint_reactions"] = static_joint_reactions(model, data, q, kept)
        if root is not None or locks:
            state = restrict(state, qpos, dofs)
        if locks:
            mass = np.array(state["mass_matrix"])
            rhs = np.array(state["tau_fd"]) - np.array(state["nonlinear_effects"])
            state["qdd_fd"] = np.linalg.solve(mass, rhs).tolist()
        states.append(state)
    doc = {
        "robot": name,
        **({"file": f"{file}.xml", "locks": locks} if locks else {}),
        "dof": len(dofs),
        "root": root,
        "kept_joints": joints,
        "generator": f"mujoco {mujoco.__version__}",
        "joints": [mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, j)
                   for j in range(model.njnt)],
        "free_joints": list(free_joints(model)),
        "frame_bodies": [n for _, n in bodies],
        "frames": [n for _, n in sites + bodies],
        "states": states,
    }
    path = MJCF_DIR / f"{name}.json"
    path.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {path.relative_to(ROOT)}: {len(dofs)} dof, {len(sites) + len(bodies)} frames, "
          f"{len(states)} states")


def main():
    """Every fixture; with names as arguments, only those."""
    only = set(sys.argv[1:])
    copy_dm_control()
    for k, name in enumerate(MODELS):
        if not only or name in only:
            write_fixture(name, 2000 + k)


if __name__ == "__main__":
    main()

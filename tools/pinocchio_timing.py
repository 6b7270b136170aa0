#!/usr/bin/env python3
"""Pinocchio's own C++ time per call (no Python in the loop), for the README's comparisons.

Install:  pip install pin cmeel-eigen   (Pinocchio's wheels ship its C++ headers and library;
                                        cmeel-eigen adds Eigen's headers)
Run:      python3 tools/pinocchio_timing.py                 # the default robots below
          python3 tools/pinocchio_timing.py robots/ur5.toml tests/fixtures/urdf/panda.urdf

Each robot is built in Pinocchio by the fixture tooling (tools/reference.py for fixed-base
specs, chains and trees; tools/floating_reference.py for floating-base specs; a URDF arm with
its fingers locked as tools/derivatives_reference.py times it), written with
Model::saveToBinary to a temporary directory, and timed by tools/pinocchio_timing.cpp, compiled
here against the wheel's libpinocchio with -O3 -march=native (or --march, below). Printed per robot: ns per call
of rnea, crba, aba, computeRNEADerivatives, computeGeneralizedGravityDerivatives,
computeABADerivatives, computeJointTorqueRegressor, and the whole-body algorithms centerOfMass,
jacobianCenterOfMass, centerOfMass(q, v, 0), ccrba, computeCentroidalMomentum,
computeCentroidalMomentumTimeVariation(q, v, 0), computeCoriolisMatrix, computeMinverse,
computeKineticEnergy, computePotentialEnergy and,
for the model's last frame (a spec's last [[frame]]), forwardKinematics(q, v) + getFrameVelocity,
forwardKinematics(q, v, 0) + getFrameClassicalAcceleration and
computeJointJacobiansTimeVariation + getFrameJacobianTimeVariation, LOCAL_WORLD_ALIGNED (best of
15 runs over 256 random states).

Contacts:  a fixture of tests/fixtures/contacts/ (NAME.json) in the place of a robot times, for
that robot with that fixture's contacts (tools/contact_reference.py's list: the spec's own
[[contact]] tables and the ones given there), the contact Jacobian (computeJointJacobians, then
the contacts' rows of getFrameJacobian, LOCAL_WORLD_ALIGNED) and constraintDynamics
(RigidConstraintModel CONTACT_3D / CONTACT_6D, LOCAL_WORLD_ALIGNED, no stabilisation, mu = 0,
after initConstraintDynamics) only; paired with tools/generated_timing.py on the same files:

    python3 tools/pinocchio_timing.py --rounds 3 \\
        --between "python3 tools/generated_timing.py tests/fixtures/contacts/humanoid30.json" \\
        tests/fixtures/contacts/humanoid30.json

Paired runs:  python3 tools/pinocchio_timing.py --rounds 3 --between "COMMAND" [ROBOTS...]
runs the compiled timer ROUNDS times and COMMAND (a shell command: the generated code's bench
binary, say) right after each, so that both sides of a ratio are timed within seconds of each
other on a machine whose speed drifts.

Floating bases:  --floating-base puts a free-flyer under every URDF's root link and keeps the
whole tree (no joint locked), as `quasidyn generate --floating-base` imports it; paired with
tools/generated_timing.py --floating-base on the same files.

Target:  --march ARCH compiles the timer with -march=ARCH instead of -march=native, so that
Pinocchio is built for the same instruction set as the generated code it is compared with
(--march x86-64-v3 next to RUSTFLAGS="-C target-cpu=x86-64-v3" CFLAGS="-march=x86-64-v3";
the default, native, next to target-cpu=native and -march=native).
"""
import os
import pathlib
import subprocess
import sys
import tempfile
import tomllib

import cmeel
import pinocchio as pin

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

from derivatives_reference import urdf_arm  # noqa: E402
from contact_reference import ROBOTS as CONTACT_ROBOTS, spec_contacts  # noqa: E402
from floating_reference import build as build_floating  # noqa: E402
from reference import build_model  # noqa: E402
from spec_check import load_spec  # noqa: E402
from whole_body_reference import model_of as fixture_model_of  # noqa: E402

DEFAULT = [
    "robots/ur5.toml",
    "tests/fixtures/urdf/panda.urdf",
    "robots/hand.toml",
    "robots/quadruped_floating.toml",
]


def contact_model_of(path):
    """A contact fixture's robot and its contacts as the timer takes them: `@FRAME:3,...`."""
    name = path.stem
    entry = [r for r in CONTACT_ROBOTS if r[0] == name]
    if not entry:
        sys.exit(f"{path}: not a fixture of tools/contact_reference.py")
    _, source, how, given = entry[0]
    model, _, frames = fixture_model_of(source, how)
    ids = dict(frames)
    contacts = spec_contacts(source) + given
    suffix = ",".join(f"{ids[frame]}:{3 if kind == 'point' else 6}" for frame, kind in contacts)
    return name, model, "@" + suffix


def model_of(path, floating_base=False):
    """The robot's name, its Pinocchio model and what follows the model file in the timer's
    argument (the contacts of a contact fixture)."""
    path = ROOT / path
    if path.suffix == ".json":
        return contact_model_of(path)
    return (*plain_model_of(path, floating_base), "")


def plain_model_of(path, floating_base):
    if path.suffix == ".urdf" and floating_base:
        # The whole tree on a free-flyer, as `quasidyn generate --floating-base` imports it.
        return path.stem, pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer())
    if path.suffix == ".urdf":
        return path.stem, urdf_arm(path)[1]
    with open(path, "rb") as f:
        raw = tomllib.load(f)
    base = raw.get("base")
    if isinstance(base, dict) and base.get("motion") == "floating":
        return raw["name"], build_floating(raw)[0]
    return raw["name"], build_model(load_spec(path))[0]


def compile_timer(out, march):
    prefix = pathlib.Path(cmeel.__path__[0]).parent / "cmeel.prefix"
    if not (prefix / "include" / "pinocchio").is_dir():
        prefix = pathlib.Path(pin.__file__).resolve().parents[4]
    flags = [
        # Everything instantiated here with these flags (no PINOCCHIO_ENABLE_TEMPLATE_INSTANTIATION:
        # the wheel's prebuilt instantiations assume another vector width, hence another ABI);
        # -w: Eigen's AVX-512 paths warn inside Pinocchio's headers.
        "-std=c++17", "-O3", "-DNDEBUG", f"-march={march}", "-w",
        # Pinocchio's headers need Boost's MPL/Fusion limits raised, as its CMake config does.
        "-DBOOST_MPL_LIMIT_LIST_SIZE=30", "-DBOOST_MPL_LIMIT_VECTOR_SIZE=30",
        "-DBOOST_MPL_CFG_NO_PREPROCESSED_HEADERS", "-DBOOST_FUSION_INVOKE_MAX_ARITY=12",
    ]
    lib = prefix / "lib"
    cmd = ["g++", *flags, f"-I{prefix / 'include'}", f"-I{prefix / 'include' / 'eigen3'}",
           str(ROOT / "tools" / "pinocchio_timing.cpp"), "-o", str(out), f"-L{lib}",
           "-lpinocchio_default", "-lboost_serialization", f"-Wl,-rpath,{lib}"]
    subprocess.run(cmd, check=True)


def main(argv):
    rounds, between, march, floating_base = 1, None, "native", False
    while argv and argv[0] in ("--rounds", "--between", "--march", "--floating-base"):
        if argv[0] == "--floating-base":
            floating_base = True
            argv = argv[1:]
            continue
        if len(argv) < 2:
            sys.exit(f"{argv[0]} needs a value")
        if argv[0] == "--rounds":
            rounds = int(argv[1])
        elif argv[0] == "--march":
            march = argv[1]
        else:
            between = argv[1]
        argv = argv[2:]
    paths = argv or DEFAULT
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        args = []
        for p in paths:
            name, model, contacts = model_of(p, floating_base)
            file = tmp / f"{name}.bin"
            model.saveToBinary(str(file))
            args.append(f"{name}={file}{contacts}")
        timer = tmp / "pinocchio_timing"
        compile_timer(timer, march)
        for k in range(rounds):
            if rounds > 1:
                print(f"== round {k + 1} of {rounds}")
            print(f"Pinocchio {pin.__version__} C++, g++ -O3 -march={march}, load average "
                  f"{os.getloadavg()[0]:.1f}")
            sys.stdout.flush()
            subprocess.run([str(timer), *args], check=True)
            if between:
                subprocess.run(between, shell=True, check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

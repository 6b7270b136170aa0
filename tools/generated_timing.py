#!/usr/bin/env python3
"""Time per call of a robot's generated C, timed as tools/pinocchio_timing.cpp times Pinocchio.

Run:  python3 tools/generated_timing.py [--march ARCH] [--floating-base] [--whole-body] ROBOT...

For each robot (a spec, a URDF or a DH table; --floating-base puts a free-flyer under a URDF's
root link, as `quasidyn generate --floating-base` does), the quasidyn CLI (built here in
release mode, or the binary in $QUASIDYN) writes the C of the timed functions (inverse and
forward dynamics, nonlinear effects, gravity, mass matrix, the derivatives of inverse and
forward dynamics, the inverse mass matrix; with --whole-body the functions on request of
WHOLE_BODY instead) to a temporary directory, and
tools/generated_timing.c is compiled against it with gcc -std=c99 -O3 -march=ARCH (native by
default: the flags tools/pinocchio_timing.py compiles Pinocchio with) and run.

A fixture of tests/fixtures/contacts/ (NAME.json) in the place of a robot times that fixture's
robot with its contacts (its input's own [[contact]] tables and the fixture's `--contact`s):
contact_jacobian and contact_forward_dynamics only (`--only contacts`).

Paired with Pinocchio, on a machine whose speed drifts:

    python3 tools/pinocchio_timing.py --rounds 3 --floating-base \\
        --between "python3 tools/generated_timing.py --floating-base talos_reduced.urdf" \\
        talos_reduced.urdf
"""
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
TIMED = ("inverse_dynamics,mass_matrix,forward_dynamics,nonlinear_effects,gravity,"
         "inverse_dynamics_derivatives,forward_dynamics_derivatives,mass_matrix_inverse")
WHOLE_BODY = "coriolis_matrix,mass_matrix_inverse,joint_wrenches,kinetic_energy,potential_energy"


def quasidyn():
    given = os.environ.get("QUASIDYN")
    if given:
        return given
    subprocess.run(["cargo", "build", "--quiet", "--release", "--bin", "quasidyn"], cwd=ROOT,
                   check=True)
    return str(ROOT / "target" / "release" / "quasidyn")


def time_robot(cli, path, floating, whole_body, march, tmp):
    out = tmp / path.stem
    contacts = path.suffix == ".json"
    if contacts:
        fixture = json.loads(path.read_text())
        cmd = [cli, "generate", str(ROOT / fixture["input"]), "--lang", "c", "--only", "contacts",
               "--name", fixture["name"], "--out", str(out)]
        for c in fixture["contacts"]:
            cmd += ["--contact", c]
    else:
        only = WHOLE_BODY if whole_body else TIMED
        cmd = [cli, "generate", str(path), "--lang", "c", "--only", only, "--out", str(out)]
    if floating and path.suffix == ".urdf":
        cmd.append("--floating-base")
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    headers = sorted(out.glob("*.h"))
    if len(headers) != 1:
        sys.exit(f"{path}: expected one generated header in {out}, found {len(headers)}")
    name = headers[0].stem
    upper = name.upper()
    text = headers[0].read_text()
    dims = dict(re.findall(rf"#define {upper}_(NQ|NV|DOF) (\d+)", text))
    is_floating = "NQ" in dims
    nq, nv = (f"{upper}_NQ", f"{upper}_NV") if is_floating else (f"{upper}_DOF",) * 2
    exe = out / "timing"
    subprocess.run(["gcc", "-std=c99", "-O3", f"-march={march}", f"-I{out}",
                    f"-DROBOT={name}", f'-DHEADER="{name}.h"', f"-DNQ={nq}",
                    f"-DNV={nv}", f"-DFLOATING={int(is_floating)}",
                    *([f"-DNC={upper}_NC"] if contacts else []),
                    *(["-DWHOLE_BODY"] if whole_body and not contacts else []),
                    str(ROOT / "tools" / "generated_timing.c"), str(out / f"{name}.c"),
                    "-o", str(exe), "-lm"], check=True)
    subprocess.run([str(exe)], check=True)


def main(argv):
    march, floating, whole_body = "native", False, False
    while argv and argv[0] in ("--march", "--floating-base", "--whole-body"):
        if argv[0] in ("--floating-base", "--whole-body"):
            floating = floating or argv[0] == "--floating-base"
            whole_body = whole_body or argv[0] == "--whole-body"
            argv = argv[1:]
            continue
        if len(argv) < 2:
            sys.exit("--march needs a value")
        march = argv[1]
        argv = argv[2:]
    if not argv:
        sys.exit(__doc__)
    cli = quasidyn()
    print(f"generated C, gcc -std=c99 -O3 -march={march}, load average "
          f"{os.getloadavg()[0]:.1f}")
    sys.stdout.flush()
    with tempfile.TemporaryDirectory() as tmp:
        for p in argv:
            time_robot(cli, pathlib.Path(p).resolve(), floating, whole_body, march,
                       pathlib.Path(tmp))
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Time per call of MuJoCo's own C against the C quasidyn generates for the same MJCF model.

Install:  pip install mujoco   (the wheel ships libmujoco and its C headers; MuJoCo 4.0.0 here)
Run:      python3 tools/mujoco_timing.py [--rounds N] [--march ARCH] [--drop BODY] [--no-meshes]
                                          MODEL.xml...
          python3 tools/mujoco_timing.py --rounds 5 tests/fixtures/mjcf/humanoid.xml
          python3 tools/mujoco_timing.py --drop ball tests/fixtures/mjcf/quadruped.xml

For each model, the quasidyn CLI (built here in release mode, or the binary in $QUASIDYN)
writes the C of `inverse_dynamics` and `mass_matrix` to a temporary directory, and
tools/mujoco_timing.c is compiled with it (gcc -std=c99 -O3 -march=ARCH, native by default, as
tools/generated_timing.py compiles the generated C) and linked against the wheel's libmujoco
(the library as the wheel ships it: only the harness and the generated C take these flags).
The program loads the model with mj_loadXML, checks once on a few states that MuJoCo's results
equal the generated functions' at 1e-9 relative (and exits with an error if not), then times,
over 256 random states (fixed seed), MuJoCo's inverse dynamics (mj_kinematics, mj_comPos,
mj_comVel, mj_rne plus the armature term: the joints' and, as MuJoCo 4 adds it, their
actuators') and mass matrix (mj_kinematics, mj_comPos, mj_crb,
mj_fullM) against the generated functions, alternating in one process; best of 15 runs per
round. See the comment at the top of tools/mujoco_timing.c.

--drop BODY removes the top-level body BODY and its subtree from every model before either
side reads it (MuJoCo's MjSpec, written back as XML): dm_control's quadruped without its ball,
a second free body, which quasidyn leaves out with --root torso but MuJoCo would still compute.
--no-meshes removes the mesh geoms and meshes (a Menagerie model copied without its mesh files,
whose bodies all carry an <inertial>, so no mass changes), as tools/mjcf_reference.py does.

--rounds N runs every model's program N times, the models in turn (default 3), each round with
the load average it started under; the summary gives per function the best time of each side
over the rounds, the ratio MuJoCo / generated of those bests, and the lowest and highest ratio
of a single round.
"""
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile

import mujoco

ROOT = pathlib.Path(__file__).resolve().parent.parent
FUNCTIONS = ("inverse_dynamics", "mass_matrix")
LINE = re.compile(r"^\s+(copy of the state|mujoco \w+|generated \w+)\s+([0-9.]+) ns/call$")


def quasidyn():
    given = os.environ.get("QUASIDYN")
    if given:
        return given
    subprocess.run(["cargo", "build", "--quiet", "--release", "--bin", "quasidyn"], cwd=ROOT,
                   check=True)
    return str(ROOT / "target" / "release" / "quasidyn")


def build(cli, path, march, tmp):
    """Generates the model's C and compiles the timing program with it; returns its path."""
    out = tmp / path.stem
    subprocess.run([cli, "generate", str(path), "--lang", "c", "--only", ",".join(FUNCTIONS),
                    "--out", str(out)], check=True, stdout=subprocess.DEVNULL)
    headers = sorted(out.glob("*.h"))
    if len(headers) != 1:
        sys.exit(f"{path}: expected one generated header in {out}, found {len(headers)}")
    name = headers[0].stem
    upper = name.upper()
    dims = dict(re.findall(rf"#define {upper}_(NQ|NV|DOF) (\d+)", headers[0].read_text()))
    nq, nv = (f"{upper}_NQ", f"{upper}_NV") if "NQ" in dims else (f"{upper}_DOF",) * 2
    lib = pathlib.Path(mujoco.__file__).resolve().parent
    exe = out / "mujoco_timing"
    subprocess.run(["gcc", "-std=c99", "-O3", f"-march={march}", f"-I{out}",
                    f"-I{lib / 'include'}", f"-DROBOT={name}", f'-DHEADER="{name}.h"',
                    f"-DNQ={nq}", f"-DNV={nv}", str(ROOT / "tools" / "mujoco_timing.c"),
                    str(out / f"{name}.c"), "-o", str(exe), f"-L{lib}",
                    f"-l:libmujoco.so.{mujoco.__version__}", f"-Wl,-rpath,{lib}", "-lm"],
                   check=True)
    return exe


def run(exe, path):
    """Runs the program once, echoing its output; returns {label: ns per call}."""
    # In the program's own directory: MuJoCo writes its warnings to MUJOCO_LOG.TXT there.
    done = subprocess.run([str(exe), str(path)], stdout=subprocess.PIPE, text=True,
                          cwd=exe.parent)
    sys.stdout.write(done.stdout)
    sys.stdout.flush()
    if done.returncode != 0:
        sys.exit(f"{path}: the timing program failed (status {done.returncode})")
    times = {}
    for line in done.stdout.splitlines():
        found = LINE.match(line)
        if found:
            times[found.group(1)] = float(found.group(2))
    return times


def summary(path, rounds):
    print(f"{path.name}: {len(rounds)} rounds")
    print(f"  {'function':18} {'MuJoCo ns':>18} {'generated ns':>18} {'ratio':>7} "
          f"{'ratio per round':>17}")
    for f in FUNCTIONS:
        mj = [r[f"mujoco {f}"] for r in rounds]
        gen = [r[f"generated {f}"] for r in rounds]
        ratios = [a / b for a, b in zip(mj, gen)]
        print(f"  {f:18} {min(mj):8.1f} ({max(mj):7.1f}) {min(gen):8.1f} ({max(gen):7.1f}) "
              f"{min(mj) / min(gen):6.1f}x {min(ratios):5.1f}x-{max(ratios):4.1f}x "
              f"(median {statistics.median(ratios):.1f}x)")
    copy = [r["copy of the state"] for r in rounds]
    print(f"  copy of the state into mjData (in MuJoCo's times): {min(copy):.1f} ns")


def edited(path, body, no_meshes, tmp):
    """The model at `path` without its top-level body `body` (and the subtree) if given, and
    with `no_meshes` without mesh geoms and meshes, as XML in `tmp`."""
    spec = mujoco.MjSpec.from_file(str(path))
    if body is not None:
        found = spec.body(body)
        if found is None:
            sys.exit(f"{path}: no body {body}")
        spec.delete(found)
    if no_meshes:
        for geom in list(spec.geoms):
            if geom.type == mujoco.mjtGeom.mjGEOM_MESH:
                spec.delete(geom)
        for mesh in list(spec.meshes):
            spec.delete(mesh)
    spec.compile()
    out = tmp / f"{path.stem}.xml"
    out.write_text(spec.to_xml())
    return out


def main(argv):
    rounds, march, drop, no_meshes = 3, "native", None, False
    while argv and argv[0] in ("--rounds", "--march", "--drop", "--no-meshes"):
        if argv[0] == "--no-meshes":
            no_meshes, argv = True, argv[1:]
            continue
        if len(argv) < 2:
            sys.exit(f"{argv[0]} needs a value")
        if argv[0] == "--rounds":
            rounds = int(argv[1])
        elif argv[0] == "--march":
            march = argv[1]
        else:
            drop = argv[1]
        argv = argv[2:]
    if not argv or rounds < 1:
        sys.exit(__doc__)
    cli = quasidyn()
    paths = [pathlib.Path(p).resolve() for p in argv]
    with tempfile.TemporaryDirectory() as tmp:
        if drop or no_meshes:
            models = pathlib.Path(tmp) / "models"
            models.mkdir()
            paths = [edited(p, drop, no_meshes, models) for p in paths]
        exes = [build(cli, p, march, pathlib.Path(tmp)) for p in paths]
        results = {p: [] for p in paths}
        for k in range(rounds):
            print(f"== round {k + 1} of {rounds}: MuJoCo {mujoco.__version__} (wheel) and "
                  f"generated C, gcc -O3 -march={march}, load average "
                  f"{os.getloadavg()[0]:.1f}")
            sys.stdout.flush()
            for exe, p in zip(exes, paths):
                results[p].append(run(exe, p))
    print("== summary: best over the rounds (worst in parentheses); ratio = MuJoCo / generated")
    for p in paths:
        summary(p, results[p])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

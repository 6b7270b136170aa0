#!/usr/bin/env python3
"""Generate the code of every shipped robot and fixture into one directory, so that two builds of
the generator can be compared byte for byte (a refactoring must not change generated code).

Run:    python3 tools/generated_corpus.py BINARY OUTDIR [--jobs N]
Then:   diff -r OUTDIR_BEFORE OUTDIR_AFTER

Covers every robots/*.toml and every .toml/.urdf under tests/fixtures (URDFs get the --tip and
--floating-base their Pinocchio fixture was made with), in C and Rust; each of those again with
--batch 4; a symbolic-parameter variant (mass, first moment and inertia symbolic) of a chain, a
tree, an elastic robot and a floating base; C in single precision and header-only for two robots.
A failed generation is recorded in the output directory (its stderr), so it is compared too.
"""
import argparse
import concurrent.futures
import glob
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
SYMBOLIC = ["robots/ur5.toml", "robots/hand.toml", "robots/two_link_elastic.toml",
            "robots/quadruped_floating.toml"]
C_VARIANTS = ["robots/ur5.toml", "robots/quadruped_floating.toml"]


def inputs():
    paths = sorted(glob.glob(os.path.join(ROOT, "robots", "*.toml")))
    paths += sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "**", "*.toml"),
                              recursive=True))
    paths += sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "**", "*.urdf"),
                              recursive=True))
    return [os.path.relpath(p, ROOT) for p in paths]


def extra_flags(path):
    if not path.endswith(".urdf"):
        return []
    fixture = path[: -len(".urdf")] + ".json"
    if os.path.exists(os.path.join(ROOT, fixture)):
        with open(os.path.join(ROOT, fixture)) as f:
            fixture = json.load(f)
        flags = []
        if fixture.get("floating_base"):
            flags.append("--floating-base")
        if fixture.get("tip"):
            flags += ["--tip", fixture["tip"]]
        return flags
    return []


def symbolic_copy(path, tmpdir):
    with open(os.path.join(ROOT, path)) as f:
        text = f.read()
    out = os.path.join(tmpdir, "symbolic_" + os.path.basename(path))
    with open(out, "w") as f:
        f.write('symbolic = ["mass", "com", "inertia"]\n' + text)
    return out


def jobs(outdir):
    tmpdir = os.path.join(outdir, "_inputs")
    os.makedirs(tmpdir, exist_ok=True)
    todo = []
    for path in inputs():
        stem = path.replace("/", "_").rsplit(".", 1)[0]
        flags = extra_flags(path)
        for lang in ["c", "rust"]:
            todo.append((f"{stem}.{lang}", [path, "--lang", lang] + flags))
            todo.append((f"{stem}.{lang}.batch4", [path, "--lang", lang, "--batch", "4"] + flags))
    for path in SYMBOLIC:
        copy = symbolic_copy(path, tmpdir)
        stem = "symbolic_" + os.path.basename(path).rsplit(".", 1)[0]
        for lang in ["c", "rust"]:
            todo.append((f"{stem}.{lang}", [copy, "--lang", lang, "--name", "sym"]))
    for path in C_VARIANTS:
        stem = path.replace("/", "_").rsplit(".", 1)[0]
        todo.append((f"{stem}.c.float", [path, "--float"]))
        todo.append((f"{stem}.c.header_only", [path, "--header-only"]))
    return todo


def run(binary, outdir, name, args):
    out = os.path.join(outdir, name)
    os.makedirs(out, exist_ok=True)
    result = subprocess.run([binary, "generate", "-q", "--out", out] + args, cwd=ROOT,
                            capture_output=True, text=True)
    if result.returncode != 0:
        with open(os.path.join(out, "FAILED"), "w") as f:
            f.write(f"exit {result.returncode}\n{result.stderr}")
    return name, result.returncode


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("binary")
    parser.add_argument("outdir")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    outdir = os.path.abspath(args.outdir)
    os.makedirs(outdir, exist_ok=True)
    todo = jobs(outdir)
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for name, code in pool.map(lambda j: run(binary, outdir, *j), todo):
            if code != 0:
                failed += 1
                print(f"{name}: exit {code}", file=sys.stderr)
    print(f"{len(todo)} generations into {outdir}, {failed} failed")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Refreshes the measured numbers quoted in the docs.

Runs, from the repository root:
    cargo bench -p quasidyn-tests --bench op_counts -- --markdown
    cargo bench -p quasidyn-tests --bench inverse_dynamics
    cargo run --bin quasidyn -- stats robots/ur5.toml
    cargo run --bin quasidyn -- equations robots/planar3r.toml
and writes their output between the markers (<!-- op-counts --> and <!-- timings --> in
docs/benchmarks.md, <!-- stats --> in docs/cli.md, <!-- equations --> in docs/equations.md,
each closed by the same name with a slash) so the pages quote exactly what the commands print. Timings depend on the machine and its load.

Usage: python3 tools/readme_numbers.py                # everything
       python3 tools/readme_numbers.py --counts-only  # not the timings (operation counts,
                                                      # stats and equations do not depend on
                                                      # the machine)
"""

import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "docs" / "benchmarks.md"
CLI = ROOT / "docs" / "cli.md"
EQUATIONS = ROOT / "docs" / "equations.md"


def run(*args):
    return subprocess.run(args, cwd=ROOT, check=True, capture_output=True, text=True).stdout


def replace(text, marker, body, where):
    pattern = re.compile(rf"(<!-- {marker} -->\n).*?(<!-- /{marker} -->)", re.S)
    if not pattern.search(text):
        raise SystemExit(f"{where} has no <!-- {marker} --> block")
    return pattern.sub(lambda m: m.group(1) + body + m.group(2), text)


def main():
    counts = run("cargo", "bench", "-q", "-p", "quasidyn-tests", "--bench", "op_counts",
                 "--", "--markdown")
    table = "".join(line + "\n" for line in counts.splitlines() if line.startswith("|"))
    timing_block = None
    if "--counts-only" not in sys.argv[1:]:
        timings = run("cargo", "bench", "-q", "-p", "quasidyn-tests", "--bench",
                      "inverse_dynamics")
        timing_block = "```\n" + timings.strip() + "\n```\n"
    stats = run("cargo", "run", "-q", "--bin", "quasidyn", "--", "stats", "robots/ur5.toml")
    equations = run("cargo", "run", "-q", "--bin", "quasidyn", "--", "equations",
                    "robots/planar3r.toml")
    bench = BENCHMARKS.read_text()
    bench = replace(bench, "op-counts", table, "docs/benchmarks.md")
    if timing_block is not None:
        bench = replace(bench, "timings", timing_block, "docs/benchmarks.md")
    BENCHMARKS.write_text(bench)
    cli = CLI.read_text()
    cli = replace(cli, "stats", "```\n$ quasidyn stats robots/ur5.toml\n" + stats + "```\n",
                  "docs/cli.md")
    CLI.write_text(cli)
    page = EQUATIONS.read_text()
    page = replace(page, "equations",
                   "```\n$ quasidyn equations robots/planar3r.toml\n" + equations + "```\n",
                   "docs/equations.md")
    EQUATIONS.write_text(page)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Import cycles between the source files of a crate.

Reads every `crate::a::b`, `super::x` and `self::x` path in the crate's .rs files (use
declarations and paths in code; comments and string literals are ignored), maps each path to
the file that defines the module it names, and prints every cycle of the file graph (strongly
connected components of more than one file). Test modules are left out.

Usage (from the repository root):
    python3 tools/import_cycles.py [codegen/src]
Exit status 1 if there is a cycle.
"""

import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "codegen/src")
files = {}  # module path tuple -> file
for f in sorted(root.rglob("*.rs")):
    rel = f.relative_to(root).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    if parts and parts[-1] == "tests":
        continue
    files[tuple(parts)] = f


def strip(text):
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"(\\.|[^"\\])*"', '""', text)
    return re.sub(r"#\[cfg\(test\)\]\s*mod tests\s*\{.*", "", text, flags=re.S)


def target(module, path):
    """The longest module prefix of `path` that is a file of the crate."""
    for k in range(len(path), 0, -1):
        if tuple(path[:k]) in files:
            return tuple(path[:k])
    return None


edges = {m: set() for m in files}
for module, f in files.items():
    for m in re.finditer(r"\b(crate|super|self)((?:::\w+)+)", strip(f.read_text())):
        head, rest = m.group(1), m.group(2).split("::")[1:]
        if head == "crate":
            path = rest
        elif head == "super":
            path = list(module[:-1]) + rest
        else:
            path = list(module) + rest
        t = target(module, path)
        if t is not None and t != module and t != ():
            edges[module].add(t)

# Tarjan's strongly connected components.
index, low, stack, on, out = {}, {}, [], set(), []
sys.setrecursionlimit(10000)


def visit(v):
    index[v] = low[v] = len(index)
    stack.append(v)
    on.add(v)
    for w in edges[v]:
        if w not in index:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on.discard(w)
            comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            out.append(comp)


for v in edges:
    if v not in index:
        visit(v)
for comp in out:
    print("cycle:", ", ".join(str(files[m]) for m in sorted(comp)))
print(f"{len(files)} files, {sum(len(e) for e in edges.values())} edges, {len(out)} cycles")
sys.exit(1 if out else 0)

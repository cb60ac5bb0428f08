#!/usr/bin/env python3
"""The import graph of a Python package, read from its `import` / `from` lines
(also those inside functions: a deferred import is still an edge), and its
circles.  Prints each circle as `a -> b -> a` and exits 1 when there is one,
0 when there is none, 2 on usage errors.

Usage: import_graph.py PACKAGE_DIR   (e.g. report/pnreportlib)"""
import ast
import os
import sys


def edges(pkg_dir):
    """{module: set(modules of the same package it imports)}."""
    pkg = os.path.basename(os.path.normpath(pkg_dir))
    mods = {f[:-3] for f in os.listdir(pkg_dir) if f.endswith(".py") and f != "__init__.py"}
    out = {}
    for m in sorted(mods):
        path = os.path.join(pkg_dir, m + ".py")
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read(), path)
        deps = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                if node.level == 1 and node.module:           # from .x import y
                    deps.add(node.module.split(".")[0])
                elif node.level == 1:                          # from . import x, y
                    deps.update(a.name for a in node.names)
                elif node.module and node.module.split(".")[0] == pkg:  # from pkg.x import y
                    parts = node.module.split(".")
                    deps.update([parts[1]] if len(parts) > 1 else [a.name for a in node.names])
            elif isinstance(node, ast.Import):
                for a in node.names:                           # import pkg.x
                    parts = a.name.split(".")
                    if parts[0] == pkg and len(parts) > 1:
                        deps.add(parts[1])
        out[m] = {d for d in deps if d in mods and d != m}
    return out


def circles(graph):
    """Every elementary circle found by a depth-first walk, each once (rotated to
    start at its smallest module)."""
    found = set()

    def walk(start, node, path, on_path):
        for nxt in sorted(graph.get(node, ())):
            if nxt == start:
                found.add(tuple(path))
            elif nxt not in on_path and nxt > start:
                on_path.add(nxt)
                walk(start, nxt, path + [nxt], on_path)
                on_path.discard(nxt)

    for s in sorted(graph):
        walk(s, s, [s], {s})
    return sorted(found)


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    graph = edges(argv[1])
    cs = circles(graph)
    for c in cs:
        print("circle: " + " -> ".join(c + (c[0],)))
    n = sum(len(v) for v in graph.values())
    print(f"{len(graph)} modules, {n} imports, {len(cs)} circle(s)")
    return 1 if cs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

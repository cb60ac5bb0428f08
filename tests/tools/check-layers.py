#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""check-layers.py - the layer rule of the C tree, read from #include lines.

    core/lib < core/sys < core/api < core/config < core/runner < core/cli

A file includes headers of its own folder and of the folders its rule
names, nothing above; workloads/ and collectors/ include only lib, sys, api
and their own helper folders (workloads/lib, workloads/probes,
collectors/perf), never core/config, core/runner or core/cli.  No module
(a folder's x.c + x.h + x_int.h) includes, through any chain, a module that
includes it back.

Usage: check-layers.py [ROOT]   (default: the current directory)
Prints one line per broken rule and per circle, "file: ..."; exit 1 when
there is any, 0 when none.  Only quoted includes ("...") are read; a quoted
include that names no file of the tree is an error too (a stale path).
"""
import os
import re
import sys

LIB, SYS, API = 'core/lib', 'core/sys', 'core/api'
# folder -> folders its files may include (besides their own)
RULE = {
    'core/lib': [],
    'core/sys': [LIB],
    'core/api': [LIB, SYS],
    'core/config': [LIB, SYS, API],
    'core/runner': [LIB, SYS, API, 'core/config'],
    'core/cli': [LIB, SYS, API, 'core/config', 'core/runner'],
    'workloads/lib': [LIB, SYS, API],
    'workloads/probes': [LIB, SYS, API, 'workloads/lib'],
    'workloads': [LIB, SYS, API, 'workloads/lib', 'workloads/probes'],
    'collectors/perf': [LIB, SYS, API],
    'collectors': [LIB, SYS, API, 'collectors/perf'],
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources(root):
    for top in ('core', 'workloads', 'collectors'):
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if f.endswith(('.c', '.h')):
                    yield os.path.relpath(os.path.join(d, f), root)


def module(path):
    d, f = os.path.split(path)
    stem = os.path.splitext(f)[0]
    if stem.endswith('_int'):
        stem = stem[:-4]
    return d + '/' + stem


def resolve(root, path, name):
    """The tree path an include names: beside the includer, else from the top."""
    for cand in (os.path.join(os.path.dirname(path), name), name):
        cand = os.path.normpath(cand)
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None


def check(root):
    errors, edges = [], {}
    for path in sources(root):
        folder = os.path.dirname(path)
        if folder not in RULE:
            errors.append(f'{path}: folder {folder}/ has no layer (add it to the rule)')
            continue
        with open(os.path.join(root, path), encoding='utf-8') as f:
            text = f.read()
        for name in INCLUDE.findall(text):
            target = resolve(root, path, name)
            if not target:
                errors.append(f'{path}: #include "{name}" names no file of the tree')
                continue
            tfolder = os.path.dirname(target)
            if tfolder != folder and tfolder not in RULE[folder]:
                errors.append(f'{path}: includes {target} ({tfolder}/ is not below {folder}/)')
            a, b = module(path), module(target)
            if a != b:
                edges.setdefault(a, set()).add(b)
    errors += circles(edges)
    return errors


def circles(edges):
    """Every strongly connected set of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
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
                out.append('circle: ' + ' <-> '.join(sorted(comp)))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    errors = check(root)
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())

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
       check-layers.py --objects BUILD_DIR
Prints one line per broken rule and per circle, "file: ..."; exit 1 when
there is any, 0 when none.  Only quoted includes ("...") are read; a quoted
include that names no file of the tree is an error too (a stale path).

--objects reads the calls instead of the includes: `nm` of every object
BUILD_DIR/core/*/*.o (a module is one .c file here), an edge from a module
to each module that defines a global symbol it uses, and one line per
circle ("object circle: core/config/config <-> core/config/config_phase"),
with the symbols that close it.  Exit 2 when BUILD_DIR has no core objects
or nm fails (nothing was checked).
"""
import os
import re
import subprocess
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


def nm_symbols(obj):
    """(defined, undefined) global symbols of one object file."""
    out = subprocess.run(['nm', '-P', '-g', obj], check=True, capture_output=True,
                         text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 2:
            continue
        if f[1] == 'U':
            undefined.add(f[0])
        elif f[1] not in ('w', 'v'):
            defined.add(f[0])
    return defined, undefined


def check_objects(build):
    """Call circles between the modules of core/, from the objects' symbols."""
    objs = {}
    top = os.path.join(build, 'core')
    for d, _, files in os.walk(top):
        for f in sorted(files):
            if f.endswith('.o'):
                path = os.path.join(d, f)
                objs[os.path.relpath(path, build)[:-2]] = nm_symbols(path)
    if not objs:
        raise FileNotFoundError(f'{top}: no objects (build first)')
    owner = {}
    for mod, (defined, _) in objs.items():
        for sym in defined:
            owner.setdefault(sym, mod)
    edges, why = {}, {}
    for mod, (_, undefined) in objs.items():
        for sym in sorted(undefined):
            to = owner.get(sym)
            if to and to != mod:
                edges.setdefault(mod, set()).add(to)
                why.setdefault((mod, to), []).append(sym)
    out = []
    for line in circles(edges):
        comp = line[len('circle: '):].split(' <-> ')
        calls = [f'{a} -> {b} ({", ".join(why[(a, b)][:3])})'
                 for a in comp for b in comp if (a, b) in why]
        out.append('object ' + line + ': ' + '; '.join(calls))
    return out


def main():
    if len(sys.argv) > 1 and sys.argv[1] == '--objects':
        if len(sys.argv) != 3:
            print('usage: check-layers.py --objects BUILD_DIR', file=sys.stderr)
            return 2
        try:
            errors = check_objects(sys.argv[2])
        except (OSError, subprocess.CalledProcessError) as e:
            print(f'check-layers.py: {e}', file=sys.stderr)
            return 2
    else:
        errors = check(sys.argv[1] if len(sys.argv) > 1 else '.')
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())

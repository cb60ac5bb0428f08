#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""build-profile.py - where a kernel build's wall time went, from its objects.

Usage: build-profile.py [--depth N] [--top N] [--since EPOCH] OBJDIR

Reads the modification times of the build products under OBJDIR (object
files, archives, the link stages) of one finished build, sorts them, and
charges each gap between consecutive completions to the directory of the
product that completed.  With make -jN the gaps are the build's wall time
cut into pieces, so per directory the sum is the wall time that directory
held the build (not CPU time: with two jobs a file that compiles for 2 s
while another compiles beside it is charged about 1 s).  Products older
than --since (default: the .config's time, when the build configured) are
left out, so an incremental rebuild counts only what it rebuilt.

Prints one line per directory (depth N path components, default 2),
largest first, with seconds, share and the number of products, then the
total; figures only, exit 0 (2 on bad usage).
"""
import argparse
import os
import sys

PRODUCTS = ('.o', '.a')
LINK = ('vmlinux', 'vmlinux.o', 'vmlinux.a', '.tmp_vmlinux1', '.tmp_vmlinux2',
        '.tmp_vmlinux.kallsyms1.o', '.tmp_vmlinux.kallsyms2.o', 'System.map',
        'arch/x86/boot/compressed/vmlinux', 'arch/x86/boot/bzImage')


def products(objdir, since):
    """(mtime, relative path) of every build product newer than since."""
    out = []
    for root, dirs, files in os.walk(objdir):
        dirs[:] = [d for d in dirs if d not in ('.git', 'source')]
        for name in files:
            rel = os.path.relpath(os.path.join(root, name), objdir)
            if not (name.endswith(PRODUCTS) or rel in LINK):
                continue
            try:
                mtime = os.stat(os.path.join(root, name)).st_mtime
            except OSError:
                continue
            if mtime >= since:
                out.append((mtime, rel))
    out.sort()
    return out


def bucket(rel, depth):
    """The directory a product is charged to; the link stages are 'link'."""
    if rel in LINK or rel.startswith('.tmp_vmlinux'):
        return 'link (vmlinux, kallsyms, bzImage)'
    parts = rel.split('/')[:-1]
    return '/'.join(parts[:depth]) or '.'


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('objdir')
    ap.add_argument('--depth', type=int, default=2)
    ap.add_argument('--top', type=int, default=25)
    ap.add_argument('--since', type=float)
    a = ap.parse_args()
    cfg = os.path.join(a.objdir, '.config')
    if not os.path.isfile(cfg):
        print(f'build-profile: {a.objdir}: no .config, not a kernel object tree',
              file=sys.stderr)
        return 2
    since = a.since if a.since is not None else os.stat(cfg).st_mtime
    items = products(a.objdir, since)
    if len(items) < 2:
        print(f'build-profile: {a.objdir}: fewer than two products newer than {since:.0f}',
              file=sys.stderr)
        return 2
    secs, count = {}, {}
    prev = since
    for mtime, rel in items:
        b = bucket(rel, a.depth)
        secs[b] = secs.get(b, 0.0) + max(0.0, mtime - prev)
        count[b] = count.get(b, 0) + 1
        prev = mtime
    total = sum(secs.values())
    print(f'{"directory":<40} {"seconds":>8} {"share":>6} {"products":>8}')
    rows = sorted(secs.items(), key=lambda kv: -kv[1])
    for b, s in rows[:a.top]:
        print(f'{b:<40} {s:8.1f} {100 * s / total:5.1f}% {count[b]:8d}')
    rest = rows[a.top:]
    if rest:
        s = sum(v for _, v in rest)
        print(f'{"(" + str(len(rest)) + " more)":<40} {s:8.1f} {100 * s / total:5.1f}% '
              f'{sum(count[b] for b, _ in rest):8d}')
    print(f'{"total (configure to last product)":<40} {total:8.1f} 100.0% {len(items):8d}')
    return 0


if __name__ == '__main__':
    sys.exit(main())

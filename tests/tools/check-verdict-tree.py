#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""check-verdict-tree.py - the verdict's recorded state against its results tree.

The verdict (core/runner/verdict.c) reads C state the phases record as they
go (struct pn_verdict_state), not the results tree.  This reader derives the
same figures from run.json's phases by key, as the verdict once did, and
says where the two disagree:

  verdict.checks        total, passed, failed and the failures (point,
                        iteration, phase, workload, name, expected,
                        observed) from every workload's "checks" and each
                        --exec phase's exit status;
  verdict.nodes.N.worst the phase where private node N held the most
                        general pages by its judged figure ("general_end"
                        when judged_moment is "end", else "general_pages";
                        the first on a tie), its kinds with pages, moment
                        and the pressure kinds active ("active" metrics).

Usage: check-verdict-tree.py RUN_JSON...
One line per disagreement ("FILE: verdict.checks.total: 3 recorded, 2 in
the tree"); exit 1 when there is any, 2 when a file cannot be read, else 0.
"""
import json
import sys

KINDS = ('anon', 'file', 'slab', 'kernel_stack', 'page_tables', 'hugetlb', 'other')


def phases(run):
    for pt in run.get('points', []):
        for it in pt.get('iterations', []):
            for ph in it.get('phases', []):
                yield pt, it, ph


def checks_from_tree(run):
    total, failures = 0, []

    def fail(pt, it, ph, wl, name, expected, observed):
        failures.append({'point': pt['index'], 'iteration': it['index'],
                         'phase': ph.get('name', ''), 'workload': wl, 'name': name,
                         'expected': expected, 'observed': observed})

    for pt, it, ph in phases(run):
        for wl in ph.get('workloads', []):
            for ck in wl.get('checks', []):
                total += 1
                if ck.get('pass') is not True:
                    fail(pt, it, ph, wl.get('workload', ''), ck.get('name', ''),
                         ck.get('expected', ''), ck.get('observed', ''))
        ex = ph.get('exec')
        if ex is None:
            continue
        total += 1
        code = ex.get('exit_code')
        if isinstance(code, (int, float)) and code == 0:
            continue
        sig = ex.get('signal')
        observed = (f'exit {int(code)}' if isinstance(code, (int, float))
                    else f'signal {int(sig) if isinstance(sig, (int, float)) else 0}')
        fail(pt, it, ph, '--exec', 'command exit status', 'exit 0', observed)
    return {'total': total, 'passed': total - len(failures), 'failed': len(failures),
            'failures': failures}


def active_pressure(ph):
    out = []
    for wl in ph.get('workloads', []):
        for m in wl.get('metrics', []):
            kind = (m.get('labels') or {}).get('kind')
            value = m.get('value')
            if (m.get('name') == 'active' and isinstance(kind, str) and kind
                    and isinstance(value, (int, float)) and value > 0 and kind not in out):
                out.append(kind)
    return out


def worst_from_tree(run, node):
    best, total = None, 0
    for pt, it, ph in phases(run):
        nj = (ph.get('nodes') or {}).get(node) or {}
        gp = nj.get('general_end' if nj.get('judged_moment') == 'end' else 'general_pages')
        t = (gp or {}).get('total')
        if isinstance(t, (int, float)) and t > total:
            best, total = (pt, it, ph, gp), t
    if not best:
        return None
    pt, it, ph, gp = best
    return {'point': pt['index'], 'iteration': it['index'], 'phase': ph.get('name', ''),
            'general_pages': total, 'moment': gp.get('moment', ''),
            'kinds': {k: gp[k] for k in KINDS
                      if isinstance(gp.get(k), (int, float)) and gp[k] > 0},
            'pressure_active': active_pressure(ph)}


def disagreements(path, run):
    out, v = [], run.get('verdict') or {}
    if 'checks' in v:
        want = checks_from_tree(run)
        for key in ('total', 'passed', 'failed', 'failures'):
            if v['checks'].get(key) != want[key]:
                out.append(f'{path}: verdict.checks.{key}: {v["checks"].get(key)!r} '
                           f'recorded, {want[key]!r} in the tree')
    for node, o in (v.get('nodes') or {}).items():
        want = worst_from_tree(run, node)
        got = o.get('worst')
        # the verdict describes a node's worst only when its counters saw pages
        if got is None and (want is None or o.get('sources', {}).get('counters', 0) <= 0):
            continue
        if got != want:
            out.append(f'{path}: verdict.nodes.{node}.worst: {got!r} recorded, '
                       f'{want!r} in the tree')
    return out


def main():
    if len(sys.argv) < 2:
        print('usage: check-verdict-tree.py RUN_JSON...', file=sys.stderr)
        return 2
    bad = []
    for path in sys.argv[1:]:
        try:
            with open(path, encoding='utf-8') as f:
                run = json.load(f)
        except (OSError, ValueError) as e:
            print(f'{path}: {e}', file=sys.stderr)
            return 2
        bad += disagreements(path, run)
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())

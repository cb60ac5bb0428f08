"""`report compare --db INDEX --by kernel|group|host|mode|campaign [--where K=V]…`:
groups of runs from a results index (SQLite or a fleet's PostgreSQL) compared
with the statistics of `compare` (report/compare.json): one column per value
of --by, the first (or --baseline) the baseline.

A run's attributes: kernel (release, [mode] or (stock)), host (hostname),
mode (series mode or stock), config (name), and from its tags (fleet.json):
group (every inventory group of its host; a run is in each), campaign.
Samples: every iteration of every run of a column, pooled (--per iteration,
as `compare` pools a run's iterations), or one per run, its mean (--per run:
hosts as replicates; isolation metrics take each run's worst).  With --where on
the --by key, only those values are columns.  Only complete runs are compared; runs of more than one config are refused (add
--where config=NAME)."""
import sys
from collections import OrderedDict

from . import compare
from .indexdb import open_index
from .errors import InputError

KEYS = ("kernel", "group", "host", "mode", "campaign", "config")


def _kernel(rel, sid, mode):
    return f"{rel or '?'}" + (f" [{mode}]" if mode else "" if sid else " (stock)")


def run_attrs(db):
    """run_id -> {'row': (...), attr: set(values)} for every run in the index."""
    out = OrderedDict()
    for (rid, host, rel, sid, mode, state, cfg, csha, started, verdict) in db.q(
            "SELECT run_id, hostname, kernel_release, series_id, series_mode, state, config_name, config_sha256,"
            " started_at, verdict FROM runs"):
        out[rid] = {"state": state, "started_at": started, "verdict": verdict, "config_sha256": csha,
                    "kernel": {_kernel(rel, sid, mode)}, "host": {host or "?"}, "mode": {mode or "stock"},
                    "config": {cfg or "?"}, "group": set(), "campaign": set()}
    for rid, k, v in db.q("SELECT run_id, key, value FROM run_tags"):
        if rid in out and k in ("group", "campaign"):
            out[rid][k].add(v)
    return out


def parse_where(items):
    want = OrderedDict()
    for w in items:
        k, sep, v = w.partition("=")
        if not sep or not v:
            raise InputError(f"--where {w!r}: KEY=VALUE expected (keys: {', '.join(KEYS)})")
        if k not in KEYS:
            raise InputError(f"--where {w!r}: unknown key {k!r} (keys: {', '.join(KEYS)})")
        want.setdefault(k, set()).add(v)
    return want


def _samples_of(db, run_ids):
    """run_id -> compare.samples()-shaped dict, read from the index."""
    meta = {}
    for (rid, point, phase, wi, wl, name, labels, kind, unit, better, agg) in db.q(
            "SELECT run_id, point, phase, workload_index, workload, name, labels, kind, unit, better, aggregate"
            " FROM metrics"):
        if rid not in run_ids:
            continue
        lab = dict(kv.split("=", 1) for kv in labels.split(",")) if labels else {}
        key = (point, phase or None, None if wi == -1 else wi, wl or None, name, labels)
        meta[(rid, point, phase, wi, name, labels)] = (key, {
            "point": point, "phase": phase or None, "workload_index": None if wi == -1 else wi,
            "workload": wl or None, "name": name, "labels": lab, "unit": unit, "better": better,
            "aggregate": agg, "kind": kind, "values": []})
    vals = {}
    for (rid, point, phase, wi, name, labels, i, v) in db.q(
            "SELECT run_id, point, phase, workload_index, name, labels, sample, value FROM samples"):
        if (rid, point, phase, wi, name, labels) in meta:
            vals.setdefault((rid, point, phase, wi, name, labels), []).append((i, v))
    out = {rid: OrderedDict() for rid in run_ids}
    for mk in sorted(meta, key=lambda m: (m[0], m[1], m[2], m[3], m[4], m[5])):
        key, m = meta[mk]
        m["values"] = [v for _, v in sorted(vals.get(mk, []))]
        out[mk[0]][key] = m
    return out


def _pool(per_run, run_ids, per):
    pooled = OrderedDict()
    for rid in run_ids:
        for key, m in per_run[rid].items():
            e = pooled.setdefault(key, dict(m, values=[]))
            if per == "run":
                if m["values"]:
                    e["values"].append(max(m["values"]) if m["kind"] == "isolation"
                                       else sum(m["values"]) / len(m["values"]))
            else:
                e["values"].extend(m["values"])
    return OrderedDict(sorted(pooled.items(), key=lambda kv: tuple("" if x is None else str(x) for x in kv[0])))


def select(attrs, by, where, baseline):
    """OrderedDict value of --by -> [run ids], baseline first; and the skipped incomplete runs."""
    chosen, skipped = [], []
    for rid, a in attrs.items():
        if all(a[k] & vs for k, vs in where.items()):
            (chosen if a["state"] == "complete" else skipped).append(rid)
    if not chosen:
        raise InputError("no complete run in the index matches " +
                         (" and ".join(f"{k}={'|'.join(sorted(v))}" for k, v in where.items()) or "(nothing)"))
    cfgs = sorted({c for rid in chosen for c in attrs[rid]["config"]})
    if len(cfgs) > 1:
        raise InputError(f"the selected runs are of {len(cfgs)} configs ({', '.join(cfgs)}): "
                         "add --where config=NAME")
    cols = OrderedDict()
    values = {v for rid in chosen for v in attrs[rid][by]}
    if by in where:            # --by group --where group=a --where group=b: columns a and b only
        values &= where[by]
    for v in sorted(values):
        cols[v] = sorted((rid for rid in chosen if v in attrs[rid][by]),
                         key=lambda r: (attrs[r]["started_at"] or "", r))
    if baseline is not None:
        if baseline not in cols:
            raise InputError(f"--baseline {baseline!r}: no selected run has {by} = {baseline!r} "
                             f"(there: {', '.join(cols) or 'none'})")
        cols.move_to_end(baseline, last=False)
    if len(cols) < 2:
        raise InputError(f"the selected runs have one {by} only ({', '.join(cols) or 'none'}): nothing to compare")
    return cols, skipped


def compare_index(a, cfg):
    by = a.by or "kernel"
    db = open_index(a.db, create=False)
    try:
        attrs = run_attrs(db)
        cols, skipped = select(attrs, by, parse_where(a.where), a.baseline)
        ids = {r for rs in cols.values() for r in rs}
        per_run = _samples_of(db, ids)
    finally:
        db.close()
    if skipped:
        print(f"pnreport: {len(skipped)} matching run(s) not complete: left out", file=sys.stderr)
    sets, metas = [], []
    for v, rids in cols.items():
        sets.append(_pool(per_run, rids, a.per))
        hosts = sorted({h for r in rids for h in attrs[r]["host"]})
        verdicts = OrderedDict()
        for r in rids:
            verdicts[attrs[r]["verdict"]] = verdicts.get(attrs[r]["verdict"], 0) + 1
        metas.append({"path": f"{len(rids)} run(s) on {', '.join(hosts)}", "kernel": f"{by}={v}",
                      "state": "complete", "config": next(iter(attrs[rids[0]]["config"])),
                      "config_sha256": attrs[rids[0]]["config_sha256"],
                      "started_at": attrs[rids[0]]["started_at"],
                      "verdict": ", ".join(f"{k} ×{n}" for k, n in verdicts.items())})
    res = compare.compare_sets(sets, metas, cfg)
    res["selection"] = {"db": db.name, "by": by, "where": {k: sorted(v) for k, v in parse_where(a.where).items()},
                        "per": a.per, "columns": {v: rids for v, rids in cols.items()}}
    return res

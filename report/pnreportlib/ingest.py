"""OpenMetrics files as runs: what `pnbench run --openmetrics FILE` writes (the
fleet's pnbench.prom, a node_exporter textfile directory's pnbench-*.prom),
read with python3-prometheus-client's OpenMetrics parser and indexed by
`dashboard` like a run directory (report/index.sql), so a directory of them
is a dashboard without the run directories.

A file is one run, keyed by the sha256 of its bytes (the same file twice adds
nothing); its path in the index is FILE#STARTED, so that a textfile
collector's file, replaced by every run, leaves a history.  What it carries becomes the run's rows: pnbench_run_info (host,
kernel, version, state, result), pnbench_run_started_seconds, the checks,
the misplaced pages, pnbench_verdict and pnbench_general_pages per private
node (node_verdicts; 3, not judged, adds no row) and every pnbench_metric as
a metric with one sample, its aggregate (n = 1: no spread; the run
directory has every iteration).  Its tag source=openmetrics says so.  A
file that does not parse, lacks `# EOF` or is not pnbench's is bad input
naming the file; the others are still indexed."""
import datetime
import json
import os
import sys

from .load import InputError, Run

SUFFIXES = (".prom", ".om")


def split_paths(paths):
    """(OpenMetrics files, the other paths): a file ending in .prom/.om, or a
    directory with no run.json below it and such files in it."""
    om, rest = [], []
    for p in paths:
        if os.path.isfile(p) and p.endswith(SUFFIXES):
            om.append(p)
        elif os.path.isdir(p) and not any("run.json" in f for _, _, f in os.walk(p)):
            found = sorted(os.path.join(p, f) for f in os.listdir(p) if f.endswith(SUFFIXES))
            om.extend(found)
            if not found:
                rest.append(p)          # find_runs says what is missing
        else:
            rest.append(p)
    return om, rest


def _families(path, raw):
    try:
        from prometheus_client.openmetrics.parser import text_string_to_metric_families
    except ImportError:
        raise InputError(f"{path}: reading OpenMetrics needs python3-prometheus-client (make deps)")
    try:
        return {f.name: f.samples for f in text_string_to_metric_families(raw.decode("utf-8"))}
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 ({e})") from None
    except Exception as e:          # the parser raises ValueError and others on bad input
        raise InputError(f"{path}: not OpenMetrics ({e})") from None


def _one(fams, path, name):
    s = fams.get(name) or []
    if len(s) != 1:
        raise InputError(f"{path}: {len(s)} samples of {name}, one expected (not a pnbench file?)")
    return s[0]


def _point(s):
    m = s.labels.get("matrix")
    if m:
        try:
            return json.loads(m)
        except ValueError:
            raise InputError(f"pnbench_metric matrix={m!r}: not JSON") from None
    return None


def _doc(fams, path):
    """A run.json-shaped document of what the file carries."""
    info = _one(fams, path, "pnbench_run_info").labels
    started = [s.value for s in fams.get("pnbench_run_started_seconds", [])]
    when = (datetime.datetime.fromtimestamp(started[0], datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
            if started else None)
    checks = {s.labels.get("result"): int(s.value) for s in fams.get("pnbench_checks", [])}
    nodes, pages = {}, {s.labels["node"]: s.value for s in fams.get("pnbench_general_pages", [])
                        if s.labels.get("kind") == "total"}
    for s in fams.get("pnbench_verdict", []):
        if s.value in (0, 1, 2):
            nodes[s.labels["node"]] = {"pass": s.value != 1, "inconclusive": s.value == 2,
                                       "general_pages_max": pages.get(s.labels["node"]),
                                       "sources": {"counters": None, "events": None}}
    points = {}
    for s in fams.get("pnbench_metric", []):
        p = points.setdefault(s.labels.get("point", "0"), {
            "index": int(s.labels.get("point", "0")), "matrix": _point(s), "summary": {"metrics": []}})
        lab = dict(kv.split("=", 1) for kv in s.labels.get("labels", "").split(",") if "=" in kv)
        p["summary"]["metrics"].append({
            "phase": s.labels.get("phase"), "workload_index": int(s.labels.get("workload_index", "0")),
            "workload": s.labels.get("workload"), "name": s.labels.get("metric"), "labels": lab,
            "unit": s.labels.get("unit"), "better": s.labels.get("better") or None,
            "aggregate": s.labels.get("aggregate"), "values": [s.value]})
    misplaced = [s.value for s in fams.get("pnbench_misplaced_pages", [])]
    return {
        "schema_version": 0, "tool": {"version": info.get("version")},
        "status": {"state": info.get("state"), "reason": None}, "started_at": when, "updated_at": when,
        "host": {"hostname": info.get("host")}, "kernel": {"release": info.get("kernel"), "series": None},
        "config": {"name": info.get("config"), "sha256": None}, "roles": {},
        "points": [points[k] for k in sorted(points, key=int)],
        "verdict": {"result": info.get("result"), "misplaced_pages": misplaced[0] if misplaced else None,
                    "checks": {"failed": checks.get("failed")}, "nodes": nodes}}


class OmRun(Run):
    """One OpenMetrics file as a Run (what dashboard.index_run reads)."""

    def __init__(self, path):          # pylint: disable=super-init-not-called
        self.path = self.jpath = path
        self.dir = os.path.dirname(os.path.abspath(path))
        try:
            with open(path, "rb") as fh:
                self.raw = fh.read()
        except OSError as e:
            raise InputError(f"{path}: {e.strerror}") from None
        self.doc = _doc(_families(path, self.raw), path)
        self.state = self.doc["status"]["state"]
        self.reason = None
        self.incomplete = self.state != "complete"
        self._series, self.series_files = {}, None


def load(db, files, counts, bad, index_run, dry_run=False):
    """Index each file into db with index_run (the dashboard's, as it indexes
    run directories; passed in so that this module stays below it)."""
    for f in files:
        try:
            run = OmRun(f)
            # a path per run: the file and its start (a file rewritten by the same
            # run replaces its entry, the next run's is another run: history)
            run.dir = f"{os.path.realpath(f)}#{run.doc['started_at'] or ''}"
            what, _ = index_run(db, run, tags=[("source", "openmetrics")], dry_run=dry_run)
        except InputError as e:
            bad.append(str(e))
            print(f"pnreport: {e} (not indexed)", file=sys.stderr)
            continue
        counts[what] += 1

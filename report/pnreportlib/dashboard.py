"""`report dashboard RESULTS…`: a SQLite results index (report/index.sql), fed
incrementally, and static HTML pages: every metric's history across runs and
kernels with regressions marked; CSV export of every sample.

A series is one metric on one machine (host, config, point, phase, workload,
metric, labels) across every kernel it ran on: its page shows the kernels side
by side in time.  A history point is judged with the compare rules
(report/compare.json) only against the last good complete run of the *same
kernel* (release and series mode) in its series: the first run of a kernel in
a series is marked "new kernel", never a regression, so alternating kernels do
not flag each other (compare A B judges kernels against each other).
Incomplete runs are drawn, marked, never judged nor used as a baseline; a
regressed run is not a baseline either."""
import csv
import datetime
import hashlib
import os
import re
import sys
from collections import OrderedDict

from . import compare, fmt, ingest, plots_compare
from .html import Page
from .labels import point_label, run_config_label
from .indexdb import INDEX_VERSION, TABLES, open_index
from .load import InputError, labels_str, load_run, read_json
from .outfile import atomic_open, make_dirs, write_file
from .progress import Progress


def connect(path):
    """The index at PATH (SQLite file, created) or URL (PostgreSQL)."""
    return open_index(path)


def find_runs(paths):
    """Run directories under each argument (a run dir itself, or dirs holding them)."""
    out = []
    for p in paths:
        if not os.path.exists(p):
            raise InputError(f"{p}: no such file or directory")
        if os.path.isfile(p) or os.path.exists(os.path.join(p, "run.json")):
            out.append(p)
            continue
        found = []
        for root, dirs, files in os.walk(p):
            dirs.sort()
            if "run.json" in files:
                found.append(root)
        if not found:
            raise InputError(f"{p}: no run.json below it")
        out.extend(found)
    return out


def read_tags(run):
    """Labels from fleet.json next to run.json (written by fleet/), as (key, value)
    pairs; {} when there is none.  A malformed one is bad input."""
    path = os.path.join(run.dir, "fleet.json")
    if not os.path.exists(path):
        return []
    _, doc = read_json(path, "fleet.json")
    if not isinstance(doc, dict):
        raise InputError(f"{path}: not a JSON object")
    out = []
    for k, v in sorted(doc.items()):
        vals = v if isinstance(v, list) else [v]
        for x in vals:
            if x is None or isinstance(x, (dict, list)):
                raise InputError(f"{path}: $.{k}: a string, number or list of them expected")
            out.append((k if not isinstance(v, list) or not k.endswith("s") else k[:-1], str(x)))
    return sorted(set(out))


def _drop_run(db, run_id):
    for t in ("samples", "metrics", "node_verdicts", "run_tags", "runs"):
        db.x(f"DELETE FROM {t} WHERE run_id = ?", (run_id,))


def _run_row(run, run_id, path):
    d = run.doc
    k = d["kernel"]
    s = k.get("series") or {}
    v = d["verdict"]
    return (run_id, path, d["schema_version"], d.get("tool", {}).get("version"), run.state, run.reason,
            d.get("started_at"), d.get("updated_at"), d.get("host", {}).get("hostname"), k.get("release"),
            s.get("id"), s.get("mode"), k.get("kconfig_sha256"), run_config_label(d),
            d.get("config", {}).get("sha256"), v.get("result"), v.get("misplaced_pages"),
            (v.get("checks") or {}).get("failed"),
            datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))


def _insert_children(db, run, run_id):
    metrics, samples = [], []
    for key, m in compare.samples(run).items():
        desc = compare.stats.describe(m["values"])
        row = (run_id, m["point"], m["phase"] or "", m["workload_index"] if m["workload_index"] is not None else -1,
               m["name"], labels_str(m["labels"]))
        metrics.append(row[:4] + (m["workload"] or "",) + row[4:] + (m["kind"], m["unit"], m["better"],
                                                                     m["aggregate"], desc["n"], desc["mean"],
                                                                     desc["stddev"], desc["min"], desc["max"]))
        samples.extend(row + (i, float(x)) for i, x in enumerate(m["values"]))
    db.many("INSERT INTO metrics (run_id, point, phase, workload_index, workload, name, labels, kind, unit,"
            " better, aggregate, n, mean, stddev, min_value, max_value)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING", metrics)
    db.many("INSERT INTO samples (run_id, point, phase, workload_index, name, labels, sample, value)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING", samples)
    nodes = []
    for node, nv in (run.doc["verdict"].get("nodes") or {}).items():
        src = nv.get("sources") or {}
        nodes.append((run_id, int(node), nv.get("general_pages_max"), int(bool(nv.get("pass"))),
                      int(bool(nv.get("inconclusive"))), src.get("counters"), src.get("events")))
    db.many("INSERT INTO node_verdicts (run_id, node, general_pages_max, pass, inconclusive, pages_counters,"
            " pages_events) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING", nodes)


def index_run(db, run, tags=None, dry_run=False):
    """Add one run in one transaction; returns ('added'|'present'|'replaced', run_id).

    Uses INSERT ... ON CONFLICT DO NOTHING only, and its row count, to tell a
    new run from a present one: an insert-only role can load.  Only on SQLite
    (one user's own index) does a run directory rewritten since replace its
    older entry at that path; a shared PostgreSQL index keeps both.  dry_run:
    the same statements, rolled back (what would be added)."""
    run_id = hashlib.sha256(run.raw).hexdigest()
    path = os.path.realpath(run.dir)
    old = []
    if db.dialect == "sqlite":
        if db.q("SELECT 1 FROM runs WHERE run_id = ?", (run_id,)):
            return "present", run_id
        old = [r[0] for r in db.q("SELECT run_id FROM runs WHERE path = ?", (path,))]
        for o in old:      # the directory was rewritten since: its old content is gone
            _drop_run(db, o)
    tags = read_tags(run) if tags is None else tags
    # ON CONFLICT without a conflict target: PostgreSQL wants SELECT on the
    # target's columns when one is named, and the loader role has none.
    try:
        added = db.x("INSERT INTO runs (run_id, path, schema_version, tool_version, state, status_reason, started_at,"
                     " updated_at, hostname, kernel_release, series_id, series_mode, kconfig_sha256, config_name,"
                     " config_sha256, verdict, misplaced_pages, checks_failed, indexed_at)"
                     " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                     _run_row(run, run_id, path))
        if added:
            _insert_children(db, run, run_id)
        db.many("INSERT INTO run_tags (run_id, key, value) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                [(run_id, k, v) for k, v in tags])
        if dry_run:
            db.rollback()
        else:
            db.commit()
    except BaseException:
        db.rollback()
        raise
    if not added:
        return "present", run_id
    return ("replaced" if old else "added"), run_id


def _nf(x):
    """Sort key: NULL first (as SQLite orders it), then the value."""
    return (x is not None, x if x is not None else "")


def series(db):
    """OrderedDict series key -> [point dicts in time order].  Two queries,
    ordered in Python: the same order from SQLite and PostgreSQL."""
    rows = db.q("SELECT m.run_id, r.started_at, r.kernel_release, r.series_mode, r.state, r.hostname, r.config_name,"
                " m.point, m.phase, m.workload_index, m.workload, m.name, m.labels, m.kind, m.unit, m.better, m.n,"
                " m.mean, m.stddev FROM metrics m JOIN runs r ON r.run_id = m.run_id")
    rows.sort(key=lambda r: (r[11], r[12], r[8], r[9], _nf(r[1]), r[0], _nf(r[5]), _nf(r[6]), r[7]))
    vals = {}
    for run_id, point, phase, wi, name, labels, i, v in db.q(
            "SELECT run_id, point, phase, workload_index, name, labels, sample, value FROM samples"):
        vals.setdefault((run_id, point, phase, wi, name, labels), []).append((i, v))
    out = OrderedDict()
    for row in rows:
        (run_id, started, rel, mode, state, host, cfg, point, phase, wi, wl, name, labels, kind, unit, better,
         n, mean, sd) = row
        key = (host, cfg, point, phase, wi, wl, name, labels)   # one series per machine
        out.setdefault(key, []).append({
            "run_id": run_id, "started_at": started, "kernel": (rel or "?") + (f" [{mode}]" if mode else ""),
            "state": state, "host": host, "kind": kind, "unit": unit, "better": better, "n": n,
            "mean": mean, "stddev": sd,
            "values": [v for _, v in sorted(vals.get((run_id, point, phase, wi, name, labels), []))]})
    return out


def judge_series(cfg, key, pts):
    """Mark each point: regression/improvement/... against the last complete run of
    the same kernel that was not itself a regression (so a regression stays marked
    until it is fixed, and the run that fixes it is not an "improvement" over the
    regressed one).  The first run of a kernel is "new kernel" (the series' first
    run: "first"); p["kernel_changed"]: the kernel differs from the point before."""
    last = {}
    name, labels = key[6], key[7]
    lab = dict(kv.split("=", 1) for kv in labels.split(",")) if labels else {}
    for i, p in enumerate(pts):
        p["kernel_changed"] = i > 0 and pts[i - 1]["kernel"] != p["kernel"]
        if p["state"] != "complete":
            p["status"] = "incomplete"
            continue
        prev = last.get(p["kernel"])
        if prev is None:
            p["status"] = "first" if i == 0 else "new kernel"
        else:
            meta = {"kind": p["kind"], "name": name, "labels": lab, "better": p["better"]}
            j = compare.judge(cfg, meta, prev["values"], p["values"], cfg["seed"])
            p["status"] = j["status"]
            p["delta_pct"] = j.get("delta_pct")
            p["p"] = j.get("p")
            p["baseline_run"] = prev["run_id"]
        if p["status"] != "regression":
            last[p["kernel"]] = p
    return pts


def slug(key):
    host, cfg, point, phase, wi, wl, name, labels = key
    s = f"{cfg}-{phase}-{wi}-{name}-{labels}-{point}-{host}"
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", s)[:150] + "-" + hashlib.sha1(repr(key).encode()).hexdigest()[:8]


def title_of(key):
    host, cfg, point, phase, wi, wl, name, labels = key
    where = "/".join(x for x in OrderedDict.fromkeys((phase, wl)) if x)
    pl = point_label(point)
    pt = f" [{pl}]" if pl else ""
    return (f"{cfg}{pt}: {where + ': ' if where else ''}{name}" + (f"{{{labels}}}" if labels else "")
            + f" on {host}")


def write_pages(db, out, cfg):
    make_dirs(os.path.join(out, "metrics"))
    ser = series(db)
    summary = []
    prog = Progress("metric pages written", len(ser))
    for key, pts in ser.items():
        judge_series(cfg, key, pts)
        regs = [p for p in pts if p["status"] == "regression"]
        last = pts[-1]
        fname = slug(key) + ".html"
        page = Page("pnbench history: " + title_of(key))
        page.add('<p class="small"><a href="../index.html">← all metrics</a></p>')
        page.h(1, title_of(key))
        if regs:
            page.banner(f"{len(regs)} regression(s) in this history, the latest in the run of {regs[-1]['started_at']} "
                        f"({regs[-1]['kernel']}, {fmt.delta_pct(regs[-1]['delta_pct'])})" if regs[-1].get("delta_pct") is not None
                        else f"{len(regs)} regression(s) in this history (isolation: general pages increased)", "fail")
        else:
            page.banner("No regression in this history", "pass")
        page.nav_here()
        xs = [(i, f"{p['started_at'] or '?'}\n{p['kernel']}", p["mean"], p["stddev"], p["kernel"],
               p["status"], p["kernel_changed"]) for i, p in enumerate(pts)]
        unit, better = last["unit"], last["better"]
        t = (f"{title_of(key)}: {len(regs)} regression(s) over {len(pts)} runs" if regs else
             f"{title_of(key)}: no regression over {len(pts)} runs")
        page.figure(plots_compare.history(title_of(key), xs, unit, better, t[:110]),
                    "Mean ± stddev per run, one colour per kernel; circled: regression against the last good "
                    "complete run of the same kernel; dotted line: the kernel changed (a step there is never "
                    "judged: compare kernels with compare); ×: incomplete run (not judged).")
        page.table(["started", "kernel", "host", "state", "n", "mean ± stddev", "change vs same kernel", "p", "mark", "run"],
                   [[p["started_at"], p["kernel"], p["host"], p["state"], p["n"],
                     fmt.value(p['mean'], unit) + (f" ± {fmt.value(p['stddev'], unit)}" if (p["n"] or 0) > 1 else ""),
                     fmt.delta_pct(p.get("delta_pct")) if p.get("delta_pct") is not None else "",
                     f"{p['p']:.3g}" if p.get("p") is not None else "",
                     compare.MARK.get(p["status"], p["status"]) or p["status"], p["run_id"][:12]] for p in pts],
                   num_cols=(4, 5, 6, 7),
                   cell_class=lambda r, c, v: ("fail" if v == "REGRESSION" else "pass" if v == "improved" else
                                               "warn" if v == "incomplete" else None) if c in (3, 8) else None)
        write_file(os.path.join(out, "metrics", fname), page.render())
        summary.append((key, pts, regs, fname))
        prog.step()
    runs = sorted(db.q("SELECT run_id, started_at, kernel_release, series_mode, hostname, config_name, state,"
                       " verdict, path FROM runs"), key=lambda r: (_nf(r[1]), r[0]))
    page = Page("pnbench results dashboard")
    page.h(1, "pnbench results dashboard")
    nreg = sum(1 for s in summary if s[2])
    latest_regs = [s for s in summary if s[1][-1]["status"] == "regression"]
    page.banner(f"{len(runs)} runs, {len(summary)} metric series; {nreg} series with a regression, "
                f"{len(latest_regs)} regressed in their latest run", "fail" if latest_regs else "pass")
    page.h(2, "Metrics", "metrics")
    page.add("<table><thead><tr><th>metric</th><th>runs</th><th>latest</th><th>latest kernel</th>"
             "<th>latest mark</th><th>regressions</th></tr></thead><tbody>")
    from .html import esc
    for key, pts, regs, fname in sorted(summary, key=lambda s: (not s[2], title_of(s[0]))):
        last = pts[-1]
        mk = compare.MARK.get(last["status"], last["status"]) or last["status"]
        cls = "fail" if last["status"] == "regression" else "warn" if last["status"] == "incomplete" else ""
        page.add(f'<tr><td><a href="metrics/{esc(fname)}">{esc(title_of(key))}</a></td><td class="n">{len(pts)}</td>'
                 f'<td class="n">{esc(fmt.value(last["mean"], last["unit"]))}</td><td>{esc(last["kernel"])}</td>'
                 f'<td class="{cls}">{esc(mk)}</td><td class="n {"fail" if regs else ""}">{len(regs)}</td></tr>')
    page.add("</tbody></table>")
    page.h(2, "Runs", "runs")
    page.table(["started", "kernel", "host", "config", "state", "verdict", "run id", "path"],
               [[r[1], r[2] + (f" [{r[3]}]" if r[3] else ""), r[4], r[5], r[6], r[7], r[0][:12], r[8]] for r in runs],
               cell_class=lambda ri, c, v: ("warn" if c == 4 and v != "complete" else
                                            "fail" if c == 5 and v == "fail" else
                                            "pass" if c == 5 and v == "pass" else None))
    write_file(os.path.join(out, "index.html"), page.render())
    return len(summary)


def export_csv(db, path):
    q = ("SELECT r.run_id, r.started_at, r.hostname, r.kernel_release, r.series_id, r.series_mode, r.state,"
         " r.config_name, s.point, s.phase, m.workload, s.workload_index, s.name, s.labels, m.kind, m.unit,"
         " m.better, s.sample, s.value FROM samples s"
         " JOIN metrics m ON m.run_id = s.run_id AND m.point = s.point AND m.phase = s.phase"
         "  AND m.workload_index = s.workload_index AND m.name = s.name AND m.labels = s.labels"
         " JOIN runs r ON r.run_id = s.run_id")
    cols = ["run_id", "started_at", "hostname", "kernel_release", "series_id", "series_mode", "state",
            "config_name", "point", "phase", "workload", "workload_index", "metric", "labels", "kind", "unit",
            "better", "sample", "value"]
    n = 0
    with atomic_open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(cols)
        for row in sorted(db.q(q), key=lambda r: (_nf(r[1]), r[0], r[12], r[13], r[17], r[8], r[9], r[11])):
            w.writerow(row)
            n += 1
    return n


def _sql_literal(v):
    if v is None:
        return "NULL"
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return repr(v) if isinstance(v, int) or v == v and abs(v) != float("inf") else "NULL"
    return "'" + str(v).replace("'", "''") + "'"


def export_sql(db, path):
    """Every row as portable INSERT ... ON CONFLICT DO NOTHING statements: with
    report/index.sql, `psql -f report/index.sql -f FILE` loads the index into
    PostgreSQL (feeding it twice adds nothing, as with SQLite)."""
    n = 0
    with atomic_open(path, "w") as fh:
        fh.write("-- pnbench results index rows (report/index.sql, index version %s)\nBEGIN;\n" % INDEX_VERSION)
        for t in TABLES:
            cur = db.cursor(f"SELECT * FROM {t}")
            cols = [d[0] for d in cur.description]
            for row in cur:
                fh.write(f"INSERT INTO {t} ({', '.join(cols)}) VALUES ("
                         + ", ".join(_sql_literal(v) for v in row) + ") ON CONFLICT DO NOTHING;\n")
                n += 1
        fh.write("COMMIT;\n")
    return n


def load(db, dirs, dry_run=False):
    """Index every run directory; (counts, bad inputs)."""
    counts = {"added": 0, "present": 0, "replaced": 0}
    bad = []
    prog = Progress("runs indexed", len(dirs))
    for d in dirs:
        try:
            run = load_run(d)
            what, _ = index_run(db, run, dry_run=dry_run)
        except InputError as e:
            bad.append(str(e))
            print(f"pnreport: {e} (not indexed)", file=sys.stderr)
            continue
        finally:
            prog.step()
        counts[what] += 1
        if run.incomplete:
            print(f"pnreport: {run.jpath}: run is {run.state}; indexed, marked, never judged", file=sys.stderr)
    return counts, bad


def _loaded(counts, db):
    return (f"{counts['added']} run(s) added, {counts['replaced']} replaced, {counts['present']} already "
            f"indexed in {db.name}")


def main_load(a):
    """`load RESULTS… --db`: index only (an insert-only role can do it)."""
    dirs = find_runs(a.results)
    db = connect(a.db)
    try:
        counts, bad = load(db, dirs, a.dry_run)
    except BaseException:
        db.abort()
        raise
    db.close()
    print(("load --dry-run: would be " if a.dry_run else "load: ") + _loaded(counts, db))
    return 2 if bad else 0


def main(a):
    cfg = compare.load_config(a.config)
    om, rest = ingest.split_paths(a.results or [])    # OpenMetrics files are runs too
    dirs = find_runs(rest) if rest else []
    db = connect(a.db) if dirs or om else open_index(a.db, create=False)
    try:
        counts, bad = load(db, dirs)
        ingest.load(db, om, counts, bad, index_run)
        db.commit()
        nser = write_pages(db, a.output, cfg)
        total = db.q("SELECT COUNT(*) FROM runs")[0][0]
        print(f"dashboard: {_loaded(counts, db)}; {total} there; {nser} metric pages in {a.output}/")
        if a.csv:
            n = export_csv(db, a.csv)
            print(f"dashboard: {n} samples exported to {a.csv}")
        if getattr(a, "sql", None):
            n = export_sql(db, a.sql)
            print(f"dashboard: {n} rows written as portable INSERTs to {a.sql}")
    except BaseException:
        db.abort()
        raise
    db.close()
    return 2 if bad else 0

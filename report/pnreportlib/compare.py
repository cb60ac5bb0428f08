"""`report compare A B [C…]`: kernels side by side, first run = baseline.

Per metric (matched by point, phase, workload index, workload, name, labels):
mean, stddev, n, CV, % change of the mean, Welch's t-test p-value and a
seeded bootstrap CI of the difference.  A change is *significant* when
p < alpha and the CI excludes 0; it is a *regression* when it is significant,
in the metric's worse direction ("better" from the results' metadata) and at
least the metric's threshold (config; a larger default where the baseline's
CV shows a noisy metric, as CodSpeed/LKP do).  Changes within the noise floor
are "no change" whatever p says.  Fewer than min_samples (3) a side: "not
enough samples", never a verdict.

Isolation metrics (general pages on a private node, misplaced explicit pages)
are judged statically: any increase above 0 is a regression, no statistics.
"""
import json
import math
import os
import sys
from collections import OrderedDict

from . import fmt, labels, stats, textout
from .html import Page
from .load import InputError, labels_str, load_run, read_json
from .outfile import write_file

DEFAULT_CONFIG = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "compare.json")
BUILTIN = {"alpha": 0.05, "confidence": 0.95, "bootstrap_resamples": 5000, "seed": 1,
           "min_samples": 3,
           "default": {"threshold_pct": 5.0, "noise_floor_pct": 1.0, "noise_floor_abs": 0.0},
           "noisy": {"cv_pct": 2.5, "threshold_pct": 10.0},
           "metrics": {}, "isolation": {"threshold_pages": 0}}

MARK = {"regression": "REGRESSION", "improvement": "improved", "changed": "~",
        "no change": "", "not enough samples": "n<3", "info": "", "missing": "missing"}


def load_config(path):
    cfg = json.loads(json.dumps(BUILTIN))
    p = path or (DEFAULT_CONFIG if os.path.exists(DEFAULT_CONFIG) else None)
    if not p:
        return cfg
    _, user = read_json(p, "compare config")
    if not isinstance(user, dict):
        raise InputError(f"{p}: not a JSON object")
    known = set(BUILTIN) | {"description", "$comment"}
    for k, v in user.items():
        if k not in known:
            raise InputError(f"{p}: $.{k}: unknown key (known: {', '.join(sorted(BUILTIN))})")
        if isinstance(v, dict) and isinstance(cfg.get(k), dict):
            cfg[k].update(v)
        else:
            cfg[k] = v
    for name, m in cfg["metrics"].items():
        bad = set(m) - {"threshold_pct", "noise_floor_pct", "noise_floor_abs", "better", "ignore"}
        if bad:
            raise InputError(f"{p}: $.metrics.{name}: unknown key(s) {', '.join(sorted(bad))}")
    return cfg


def metric_rule(cfg, name, labels):
    """The config for a metric: default, overridden by its name, then by name{labels}."""
    r = dict(cfg["default"])
    r.update(cfg["metrics"].get(name, {}))
    ls = labels_str(labels)
    if ls:
        r.update(cfg["metrics"].get(f"{name}{{{ls}}}", {}))
    return r


def _point_key(p):
    return json.dumps(p.get("matrix"), sort_keys=True) if p.get("matrix") else f"#{p.get('index', 0)}"


def samples(run):
    """OrderedDict key -> {meta..., values: [...], kind: stat|isolation}."""
    out = OrderedDict()
    for p, m in run.summary_metrics():
        key = (_point_key(p), m.get("phase"), m.get("workload_index"), m.get("workload"),
               m.get("name"), labels_str(m.get("labels")))
        out[key] = {"point": _point_key(p), "phase": m.get("phase"), "workload_index": m.get("workload_index"),
                    "workload": m.get("workload"), "name": m.get("name"), "labels": m.get("labels") or {},
                    "unit": m.get("unit"), "better": m.get("better"), "aggregate": m.get("aggregate"),
                    "values": [v for v in (m.get("values") or []) if isinstance(v, (int, float))],
                    "kind": "stat"}
    # isolation: general pages per private node and phase, one value per iteration
    iso = OrderedDict()
    for p in run.doc.get("points", []):
        for it in p.get("iterations", []):
            for ph in it.get("phases", []):
                for node, nd in (ph.get("nodes") or {}).items():
                    if nd.get("role") != "private":
                        continue
                    k = (_point_key(p), ph["name"], None, None, "general_pages", f"node={node}")
                    e = iso.setdefault(k, {"point": _point_key(p), "phase": ph["name"], "workload_index": None,
                                           "workload": None, "name": "general_pages", "labels": {"node": node},
                                           "unit": "pages", "better": "lower", "aggregate": "max",
                                           "values": [], "kind": "isolation"})
                    e["values"].append((nd.get("general_pages") or {}).get("total") or 0)
    mp = run.doc["verdict"].get("misplaced_pages")
    if isinstance(mp, (int, float)):
        iso[("*", None, None, None, "misplaced_pages", "")] = {
            "point": "*", "phase": None, "workload_index": None, "workload": None, "name": "misplaced_pages",
            "labels": {}, "unit": "pages", "better": "lower", "aggregate": "max", "values": [mp],
            "kind": "isolation"}
    out.update(iso)
    return out


def judge(cfg, meta, a, b, seed):
    """Comparison of baseline values a and values b of one metric."""
    da, db = stats.describe(a), stats.describe(b)
    r = {"n": db["n"], "mean": db["mean"], "stddev": db["stddev"], "cv_pct": db["cv_pct"],
         "min": db["min"], "max": db["max"], "delta_pct": None, "p": None, "ci": [None, None],
         "ci_pct": [None, None], "significant": False, "threshold_pct": None, "status": "no change"}
    if da["mean"] is not None and db["mean"] is not None:
        if da["mean"]:
            r["delta_pct"] = 100.0 * (db["mean"] - da["mean"]) / abs(da["mean"])
    if meta["kind"] == "isolation":
        worst_a, worst_b = max(a, default=0), max(b, default=0)
        r["threshold_pages"] = cfg["isolation"]["threshold_pages"]
        r["worst"] = worst_b
        if worst_b > max(worst_a, r["threshold_pages"]):
            r["status"] = "regression"
            r["significant"] = True
        elif worst_b < worst_a:
            r["status"] = "improvement"
            r["significant"] = True
        return r
    rule = metric_rule(cfg, meta["name"], meta["labels"])
    better = rule.get("better", meta["better"])
    thr = float(rule["threshold_pct"])
    if da["cv_pct"] is not None and da["cv_pct"] > cfg["noisy"]["cv_pct"]:
        thr = max(thr, float(cfg["noisy"]["threshold_pct"]))
    r["threshold_pct"] = thr
    if da["n"] < cfg["min_samples"] or db["n"] < cfg["min_samples"]:
        r["status"] = "not enough samples"
        return r
    r["p"] = stats.welch_p(a, b)
    lo, hi = stats.bootstrap_ci(a, b, cfg["confidence"], cfg["bootstrap_resamples"], seed)
    r["ci"] = [lo, hi]
    if da["mean"]:
        r["ci_pct"] = [100.0 * lo / abs(da["mean"]), 100.0 * hi / abs(da["mean"])]
    r["significant"] = r["p"] is not None and r["p"] < cfg["alpha"] and (lo > 0 or hi < 0)
    d = r["delta_pct"]
    diff = (db["mean"] or 0) - (da["mean"] or 0)
    within_floor = (d is not None and abs(d) < float(rule["noise_floor_pct"])) or \
        abs(diff) <= float(rule.get("noise_floor_abs") or 0)
    if not r["significant"] or within_floor:
        r["status"] = "no change"
        return r
    if better not in ("higher", "lower"):
        r["status"] = "changed"
        return r
    worse = (diff > 0) if better == "lower" else (diff < 0)
    big = d is None or abs(d) >= thr
    r["status"] = ("regression" if worse else "improvement") if big else "changed"
    return r


def run_meta(r):
    """What the renderers show of a compared run (or group of runs)."""
    return {"path": r.dir, "kernel": r.kernel_label, "state": r.state,
            "config": r.doc.get("config", {}).get("name"),
            "config_sha256": r.doc.get("config", {}).get("sha256"),
            "started_at": r.doc.get("started_at"), "verdict": r.doc["verdict"].get("result")}


def compare(runs, cfg):
    return compare_sets([samples(r) for r in runs], [run_meta(r) for r in runs], cfg)


def compare_sets(sets, metas, cfg):
    """sets: one samples() dict per column (first = baseline); metas: run_meta()s."""
    base = sets[0]
    others = sets[1:]
    keys = list(base) + [k for o in others for k in o if k not in base]
    keys = list(OrderedDict.fromkeys(keys))
    rows = []
    for ki, k in enumerate(keys):
        meta = base.get(k) or next(o[k] for o in others if k in o)
        rule = metric_rule(cfg, meta["name"], meta["labels"])
        if rule.get("ignore"):
            continue
        a = base[k]["values"] if k in base else []
        entry = {kk: meta[kk] for kk in ("point", "phase", "workload_index", "workload", "name", "labels",
                                         "unit", "better", "aggregate", "kind")}
        entry["baseline"] = stats.describe(a)
        entry["baseline"]["values"] = a
        entry["vs"] = []
        for oi, o in enumerate(others):
            if k not in o or k not in base:
                entry["vs"].append({"status": "missing", "run": oi + 1,
                                    "only_in": "baseline" if k in base else "this run"})
                continue
            j = judge(cfg, meta, a, o[k]["values"], cfg["seed"] + ki)
            j["run"] = oi + 1
            j["values"] = o[k]["values"]
            entry["vs"].append(j)
        rows.append(entry)
    regs = [(r, v) for r in rows for v in r["vs"] if v["status"] == "regression"]
    few = any(v["status"] == "not enough samples" for r in rows for v in r["vs"])
    return {"schema_version": 1, "runs": metas,
            "config": cfg, "metrics": rows, "regressions": len(regs),
            "result": "regression" if regs else ("not enough samples" if few and not rows_judged(rows) else "ok")}


def rows_judged(rows):
    return any(v["status"] not in ("not enough samples", "missing") for r in rows for v in r["vs"]
               if r["kind"] == "stat")


def point_label(pk):
    """A matrix point's key as a reader sees it: 'size=16M spill=after'
    (labels.point_label), 'point 2', or '' for the only point."""
    return labels.point_label(pk)


def mid(r):
    ls = labels_str(r["labels"])
    where = "/".join(str(x) for x in OrderedDict.fromkeys((r["phase"], r["workload"])) if x)
    pl = point_label(r["point"])
    pt = f"[{pl}] " if pl else ""
    return f"{pt}{where + ': ' if where else ''}{r['name']}{'{' + ls + '}' if ls else ''}"


def _unchanged(r):
    return all(v["status"] in ("no change", "info") for v in r["vs"]) \
        and not (r["kind"] == "isolation" and (r["baseline"]["max"] or 0) > 0)


def side_by_side(res, show_all=False, html=True):
    """One row per metric, a column group per run: (groups, headers, rows, statuses);
    statuses[row][run] for the runs after the baseline."""
    runs = res["runs"]
    groups = [("", 1), (f"A: {runs[0]['kernel']} (baseline)", 1)] + \
        [(f"{chr(ord('A') + i)}: {r['kernel']}", 3) for i, r in enumerate(runs) if i]
    headers = ["metric", "mean ± sd (n)"] + ["mean ± sd (n)", "change", "mark"] * (len(runs) - 1)
    rows, sts = [], []
    for r in res["metrics"]:
        if not show_all and _unchanged(r):
            continue
        b = r["baseline"]
        row = [mid(r) + {"higher": " ↑", "lower": " ↓"}.get(r["better"], ""),
               _msd(r, b, html)]
        for v in r["vs"]:
            if v["status"] == "missing":
                row += ["–", "", "only in A" if v.get("only_in") == "baseline" else "not in A"]
                continue
            row += [_msd(r, v, html),
                    fmt.delta_pct(v.get("delta_pct")) if v.get("delta_pct") is not None else "–",
                    ("*" if v.get("significant") else "") + (MARK.get(v["status"]) or "")]
        rows.append(row)
        sts.append([v["status"] for v in r["vs"]])
    return groups, headers, rows, sts


def _side_by_side_wide(groups, headers, rows):
    """One line per metric, a column group per run (when that fits)."""
    cols = len(headers)
    w = [max(textout.width(x[i]) for x in rows + [headers]) for i in range(cols)]
    # widen the last column of each group to fit its label
    c = 0
    for text, span in groups:
        need = textout.width(text) - (sum(w[c:c + span]) + 2 * (span - 1))
        if need > 0:
            w[c + span - 1] += need
        c += span

    def line(x):
        return "  ".join(textout.pad(x[i], w[i], not (i == 0 or headers[i] == "mark"))
                         for i in range(cols)).rstrip()
    top, c = [], 0
    for text, span in groups:
        top.append(textout.pad(text, sum(w[c:c + span]) + 2 * (span - 1)))
        c += span
    out = ["  ".join(top).rstrip(), line(headers)]
    out.append("-" * textout.widest(out[-1:] + [line(x) for x in rows]))
    return out + [line(x) for x in rows]


def _side_by_side_stacked(headers, rows):
    """Each metric on a line of its own, then a line per run (A, B, C...)."""
    body = []
    for x in rows:
        body.append(x[0])
        body.append(["A", x[1], "", ""])
        for i in range(2, len(x), 3):
            body.append([chr(ord("A") + (i + 1) // 3), x[i], x[i + 1], x[i + 2]])
    return ["metric"] + textout.grid(["run", "mean ± sd (n)", "change", "mark"], body, right=(1, 2), indent="  ")


def render_side_by_side_text(res, show_all=False):
    """Every run against A: one line per metric when that fits WIDTH columns,
    else the metric on its own line and a line per run below it."""
    groups, headers, rows, _ = side_by_side(res, show_all, html=False)
    if not rows:
        return ["", "== side by side: no metric changed significantly against any run"]
    out = _side_by_side_wide(groups, headers, rows)
    if textout.widest(out) > textout.WIDTH:
        out = _side_by_side_stacked(headers, rows)
    return ["", "== side by side (change and mark against A)"] + out


def _fmt_pair(r, v, html=True):
    return fmt.value(v, r["unit"], html)


def _msd(r, s, html=True):
    """'mean ± sd (n)'; one sample has no spread: 'value (n=1)'."""
    if not s.get("n"):
        return "–"
    if s["n"] == 1 or s.get("stddev") is None:
        return f"{_fmt_pair(r, s['mean'], html)} (n={s['n']})"
    return f"{_fmt_pair(r, s['mean'], html)} ± {_fmt_pair(r, s['stddev'], html)} ({s['n']})"


def _pair_lines(res, oi, show_all, hidden):
    """Rows of the table of run oi against A: (metric, A, run, change, p, CI, mark)."""
    L = chr(ord("A") + oi)
    lines = []
    for ri, r in enumerate(res["metrics"]):
        v = r["vs"][oi - 1]
        if not show_all and v["status"] in ("no change", "info") \
                and not (r["kind"] == "isolation" and (r["baseline"]["max"] or 0) > 0):
            hidden.add(ri)
            continue
        ca = _msd(r, r["baseline"], False)
        if v["status"] == "missing":
            if k_only := v.get("only_in"):
                ca = ca if k_only == "baseline" else "(not in A)"
            lines.append((mid(r), ca, "(not in " + L + ")" if v.get("only_in") == "baseline" else
                          "only here", "", "", "", ""))
            continue
        d = fmt.delta_pct(v.get("delta_pct")) if v.get("delta_pct") is not None else "–"
        p = f"{v['p']:.3f}" if v.get("p") is not None else "–"
        ci = (f"[{_fmt_pair(r, v['ci'][0], False)}, {_fmt_pair(r, v['ci'][1], False)}]"
              if v["ci"][0] is not None else ("static" if r["kind"] == "isolation" else "–"))
        mark = ("*" if v.get("significant") else "") + (MARK.get(v["status"]) or "")
        lines.append((mid(r), ca, _msd(r, v, False), d, p, ci, mark))
    return lines


def _pair_table(L, lines):
    """One line per metric when that fits WIDTH columns, else the metric on its
    own line, A's and the run's numbers on a line each below it."""
    hdr = ("metric", "A mean ± sd (n)", f"{L} mean ± sd (n)", "change", "p", f"95% CI {L}-A", "")
    out = textout.grid(hdr, [list(x) for x in lines], right=(1, 2, 3, 4, 5), w=1 << 30)
    if textout.widest(out) <= textout.WIDTH:
        return out
    body = []
    for x in lines:
        body += [x[0], ["A", x[1], "", "", "", ""], [L, x[2], x[3], x[4], x[5], x[6]]]
    return ["metric"] + textout.grid(["run", "mean ± sd (n)", "change", "p", f"95% CI {L}-A", ""], body,
                                     right=(1, 2, 3, 4), indent="  ")


def render_text(res, show_all=False):
    """One table per run against the baseline (A), LKP ncompare-like but labelled;
    every line at most textout.WIDTH (100) columns."""
    out = []
    runs = res["runs"]
    for i, r in enumerate(runs):
        head = f"{chr(ord('A') + i)}: {r['kernel']}"
        where = f"({r['path']}, {r['state']}, verdict {r['verdict']})"
        base = "  <- baseline" if i == 0 else ""
        if textout.width(f"{head}  {where}{base}") <= textout.WIDTH:
            out.append(f"{head}  {where}{base}")
        else:       # the run's directory on a line of its own
            out += [head + base, "   " + where]
    if len({r["config_sha256"] for r in runs}) > 1:
        out.append("note: the runs used different configs (config sha256 differs)")
    if len(runs) > 2:
        out.extend(render_side_by_side_text(res, show_all))
    hidden = set()
    for oi in range(1, len(runs)):
        L = chr(ord("A") + oi)
        lines = _pair_lines(res, oi, show_all, hidden)
        out.append("")
        out.append(f"== {L} vs A: {runs[oi]['kernel']} against {runs[0]['kernel']}")
        if not lines:
            out.append("   no metric changed significantly")
            continue
        out.extend(_pair_table(L, lines))
    out.append("")
    full = [ri for ri in hidden if all(v["status"] in ("no change", "info") for v in res["metrics"][ri]["vs"])]
    if hidden:
        out.append(f"{len(full)} metric(s) with no significant change against any run not shown (--all shows them)")
    out.append("* significant: Welch p < %.2f and the bootstrap CI excludes 0; REGRESSION: significant, worse, "
               "at least the metric's threshold; ~: significant but below it; n<3: not enough samples; "
               "isolation metrics (general pages on private nodes): any increase above 0" % res["config"]["alpha"])
    out.append(f"result: {res['result']} ({res['regressions']} regression(s))")
    return "\n".join(x for line in out for x in textout.wrap(line)) + "\n"


def render_html(res):
    runs = res["runs"]
    page = Page("pnbench compare: " + " vs ".join(r["kernel"] for r in runs))
    page.h(1, "pnbench compare: " + " vs ".join(r["kernel"] for r in runs))
    regs = [(r, v) for r in res["metrics"] for v in r["vs"] if v["status"] == "regression"]
    if regs:
        page.banner(f"{len(regs)} regression(s): " + "; ".join(
            f"{mid(r)} {fmt.delta_pct(v['delta_pct'])}" if v.get("delta_pct") is not None else f"{mid(r)} ({fmt.value(v.get('worst'), 'pages')})"
            for r, v in regs[:6]) + (" …" if len(regs) > 6 else ""), "fail")
    elif res["result"] == "not enough samples":
        page.banner("Not enough samples (fewer than 3 iterations a side): no verdict", "warn")
    else:
        page.banner("No regression beyond the thresholds", "pass")
    page.table(["", "kernel", "run", "state", "verdict"],
               [[("A (baseline)" if i == 0 else chr(ord("A") + i)), r["kernel"], r["path"], r["state"], r["verdict"]]
                for i, r in enumerate(runs)],
               cell_class=lambda ri, c, v: "warn" if c == 3 and v != "complete" else None)
    page.nav_here()
    _deltas_figure(page, res)
    if len(runs) > 2:
        groups, headers, rows, sts = side_by_side(res)
        page.h(2, "Side by side: every run against A", "side-by-side")
        page.table(headers, rows, num_cols=tuple(i for i in range(1, len(headers)) if headers[i] != "mark"),
                   groups=groups,
                   cell_class=lambda ri, c, v: {"regression": "fail", "improvement": "pass",
                                                "not enough samples": "warn"}.get(sts[ri][(c - 2) // 3])
                   if c >= 2 and headers[c] == "mark" else None)
        if not rows:
            page.p("No metric changed significantly against any run.", "small")
    zero_iso = [r for r in res["metrics"] if r["kind"] == "isolation" and not (r["baseline"]["max"] or 0)
                and all(not (v.get("max") or 0) for v in r["vs"] if v["status"] != "missing")]
    for oi in range(1, len(runs)):
        L = chr(ord("A") + oi)
        page.h(2, f"{L} vs A: {runs[oi]['kernel']} against {runs[0]['kernel']}", f"vs-{L}")
        hdr = ["metric", "A mean ± sd (n)", f"{L} mean ± sd (n)", "change", "p (Welch)", f"95 % CI {L}−A",
               "mark (threshold)"]
        rows, st = [], []
        for r in res["metrics"]:
            if any(r is z for z in zero_iso):
                continue
            v = r["vs"][oi - 1]
            b = r["baseline"]
            arrow = {"higher": " ↑", "lower": " ↓"}.get(r["better"], "")
            row = [mid(r) + arrow, _msd(r, b)]
            if v["status"] == "missing":
                row = [mid(r) + arrow, row[1] if v.get("only_in") == "baseline" else "–",
                       "–" if v.get("only_in") == "baseline" else "only in this run", "", "", "", ""]
            else:
                thr = (f"{v['threshold_pct']:.0f} %" if v.get("threshold_pct") is not None else
                       "> 0" if r["kind"] == "isolation" else "")
                row += [_msd(r, v),
                        fmt.delta_pct(v.get("delta_pct")) if v.get("delta_pct") is not None else "–",
                        f"{v['p']:.2g}" if v.get("p") is not None else "–",
                        f"[{_fmt_pair(r, v['ci'][0])}, {_fmt_pair(r, v['ci'][1])}]"
                        if v["ci"][0] is not None else "–",
                        (("* " if v.get("significant") else "") + (MARK.get(v["status"]) or "") +
                         f" ({thr})").strip()]
            rows.append(row)
            st.append(v["status"])
        page.table(hdr, rows, num_cols=(1, 2, 3, 4, 5),
                   cell_class=lambda ri, c, val, st=st: {"regression": "fail", "improvement": "pass",
                                                        "not enough samples": "warn"}.get(st[ri]) if c == 6 else None)
    if zero_iso:
        page.p(f"{len(zero_iso)} isolation metric(s) (general pages on a private node, per phase) are 0 in every "
               "run and not listed.", "small")
    page.p("Significant (*): Welch's t-test p < %.2f and the %d %% bootstrap CI of the difference excludes 0. "
           "A regression is significant, in the worse direction and at least the metric's threshold "
           "(raised for noisy metrics: baseline CV > %.1f %%). Isolation metrics are static: any increase above 0. "
           "↑/↓: higher/lower is better."
           % (res["config"]["alpha"], round(100 * res["config"]["confidence"]), res["config"]["noisy"]["cv_pct"]),
           "small")
    return page.render()


MAX_DELTA_ROWS = 40


def _deltas_figure(page, res):
    """Every run against A: one bar per run and metric (the 40 largest changes)."""
    from . import plots_compare
    runs = res["runs"]
    items = []
    for r in res["metrics"]:
        if r["kind"] != "stat":
            continue
        per = [(v["delta_pct"], v["ci_pct"][0], v["ci_pct"][1], v["status"]) if v.get("delta_pct") is not None
               else None for v in r["vs"]]
        if any(per):
            items.append((mid(r), per))     # whole: a cut label can read like another
    if not items:
        return
    nreg = sum(1 for _, per in items for v in per if v and v[3] == "regression")
    nimp = sum(1 for _, per in items for v in per if v and v[3] == "improvement")
    n = len(items)
    if n > MAX_DELTA_ROWS:
        def size(it):
            return (any(v and v[3] == "regression" for v in it[1]), max(abs(v[0]) for v in it[1] if v))
        keep = {id(it) for it in sorted(items, key=size, reverse=True)[:MAX_DELTA_ROWS]}
        items = [it for it in items if id(it) in keep]
    others = [f"{chr(ord('A') + i)}: {r['kernel']}" for i, r in enumerate(runs) if i]
    title = (f"{runs[1]['kernel']} vs {runs[0]['kernel']}" if len(runs) == 2 else
             f"{', '.join(chr(ord('A') + i) for i in range(1, len(runs)))} vs A ({runs[0]['kernel']})") + \
        f": {nreg} regression(s), {nimp} improvement(s) of {n} metrics"
    page.figure(plots_compare.compare_deltas(items, others, title),
                ("Red: regression beyond threshold; green: improvement; grey: no significant change."
                 if len(runs) == 2 else "One bar per run against the baseline A; outlined in red: a regression.")
                + (f" The {len(items)} largest changes of {n} are drawn (regressions first)." if n > len(items) else ""))


def _json_clean(o):
    if isinstance(o, float) and (math.isnan(o) or math.isinf(o)):
        return None
    if isinstance(o, dict):
        return {k: _json_clean(v) for k, v in o.items()}
    if isinstance(o, list):
        return [_json_clean(v) for v in o]
    return o


def compare_dirs(a, cfg):
    """compare A B [C…]: the run directories of the command line, loaded and compared."""
    if len(a.runs) < 2:
        raise InputError("compare needs at least two runs (the first is the baseline), or --db")
    if any(getattr(a, k, None) for k in ("by", "where", "baseline")):
        raise InputError("--by, --where and --baseline select runs in an index: give --db")
    runs = [load_run(p) for p in a.runs]
    for r in runs:
        if r.incomplete:
            if not a.allow_incomplete:
                raise InputError(f"{r.jpath}: run is {r.state} ({r.reason}): not compared "
                                 "(--allow-incomplete compares it, marked)")
            print(f"pnreport: {r.jpath}: run is {r.state}; compared anyway, marked", file=sys.stderr)
    return compare(runs, cfg)


def emit(a, cfg, res):
    """Write a comparison (compare_dirs or groups.compare_index) as --format asks;
    the exit code of the regression gate."""
    if a.format == "json":
        text = json.dumps(_json_clean(res), indent=1) + "\n"
    elif a.format == "html":
        text = render_html(res)
    else:
        text = render_text(res, a.all)
    if a.output:
        write_file(a.output, text)
    else:
        sys.stdout.write(text)
    if res["result"] == "not enough samples":
        print("pnreport: not enough samples (fewer than %d iterations a side): no verdict"
              % cfg["min_samples"], file=sys.stderr)
    if not a.fail_on_regression:
        return 0
    if res["regressions"]:
        return 1
    # a gate that could judge nothing must not read as a pass
    return 4 if res["result"] == "not enough samples" else 0

"""`report run DIR`: one self-contained HTML page for one run.

Sections (each only when the run has its data): status and verdict; general
pages on private nodes by kind, phase and source; memory per node over time;
exhaustion spill curve and latency CDFs; interleave distribution; latency and
bandwidth matrix against HMAT; probes; checks; metrics; workload outcomes;
provenance and topology."""
import re
from collections import OrderedDict

from . import exec_report, fmt, labels, plots
from .scenarios import section_exhaust, section_interleave
from .html import Page
from .load import metric_id

KINDS = list(plots.KIND_COLORS)


def _pages_text(p, page_size=4096):
    return fmt.pages(int(p), page_size)


def isolation_model(run):
    """{node: {phase: {kind: worst pages}}}, {node: conclusion text}, source rows."""
    by_phase = OrderedDict()
    for n in run.private_nodes():
        by_phase[str(n)] = OrderedDict()
    for _, it, ph in run.phases():
        for node, nd in (ph.get("nodes") or {}).items():
            if nd.get("role") != "private":
                continue
            g = nd.get("general_pages") or {}
            cur = by_phase.setdefault(node, OrderedDict()).setdefault(ph["name"], {k: 0 for k in KINDS})
            if (g.get("total") or 0) >= sum(cur.values()):
                for k in KINDS:
                    cur[k] = g.get(k) or 0
    ps = run.doc.get("host", {}).get("page_size", 4096)
    vnodes = run.doc["verdict"].get("nodes") or {}
    concl = {}
    for node, phs in by_phase.items():
        worst = max(phs.items(), key=lambda kv: sum(kv[1].values()), default=(None, {}))
        tot = sum(worst[1].values()) if worst[0] else 0
        vmax = (vnodes.get(node) or {}).get("general_pages_max", tot)
        if vnodes.get(node, {}).get("inconclusive"):
            why = vnodes[node].get("inconclusive_reason") or "lost events"
            concl[int(node)] = f"node {node} (private): inconclusive ({why})"
        elif not vmax:
            concl[int(node)] = f"node {node} (private): no general allocation in any phase"
        else:
            kinds = ", ".join(k.replace("_", " ") for k, v in sorted(worst[1].items(), key=lambda kv: -kv[1]) if v)
            concl[int(node)] = (f"node {node} (private): {_pages_text(vmax, ps)} of general allocations"
                                f", worst in phase {worst[0]} ({kinds})")
    return by_phase, concl


def _isolation_title(run, by_phase):
    """The figure's headline, in the bars' own source (the node counters); where
    the verdict's worst reading came from the events and differs, both, labelled."""
    vnodes = run.doc["verdict"].get("nodes") or {}
    if not by_phase:
        return None
    parts = []
    for n, phs in by_phase.items():
        bars = max((sum(v.values()) for v in phs.values()), default=0)
        nv = vnodes.get(n) or {}
        src = nv.get("sources") or {}
        ev = src.get("events")
        worst = nv.get("general_pages_max", bars) or 0
        if not worst and not bars:
            continue
        txt = f"node {n}: {fmt.value(int(bars), 'pages')} by the counters"
        if isinstance(ev, (int, float)) and ev != bars:
            txt += f", {fmt.value(int(ev), 'pages')} by the events (allocations, freed ones included)"
        parts.append(txt)
    if not parts:
        return f"Private node{'s' if len(by_phase) > 1 else ''} {', '.join(by_phase)}: no general allocation in any phase"
    return "General allocations on private nodes: " + "; ".join(parts)


def _pass_text(v, judged):
    """PASS with 0 general pages, or within a threshold above 0: say which."""
    nodes = v.get("nodes") or {}
    seen = {n: int((nodes.get(n) or {}).get("general_pages_max", 0) or 0) for n in judged}
    thr = (v.get("thresholds") or {}).get("general_pages", 0)
    s = "s " if len(judged) > 1 else " "
    if not any(seen.values()):
        return "Verdict: PASS — no general allocation on private node" + s + ", ".join(judged) + \
            ", explicit pages where asked"
    return ("Verdict: PASS — general pages on private node" + s
            + ", ".join(f"{n}: {seen[n]}" for n in judged)
            + f", within the run's threshold of {thr} page{'s' if thr != 1 else ''}; explicit pages where asked")


def section_verdict(page, run):
    v = run.doc["verdict"]
    res = v.get("result", "?")
    cls = {"pass": "pass", "fail": "fail"}.get(res, "warn")
    judged = sorted(v.get("nodes") or {}, key=int)
    ch = v.get("checks") or {}
    text = {"pass": (_pass_text(v, judged) if judged else
                     f"Verdict: PASS — {ch.get('passed', 0)} of {ch.get('total')} workload checks passed; "
                     "no private node was judged (none in this run's roles)" if ch.get("total") else
                     "Verdict: PASS — no private node was judged (none in this run's roles) and no workload check ran"),
            "fail": "Verdict: FAIL",
            "inconclusive": "Verdict: INCONCLUSIVE — a source the verdict depends on failed",
            "error": "Verdict: ERROR — the run failed",
            "interrupted": "Verdict: INTERRUPTED — stopped by a signal",
            "incomplete": "Verdict: INCOMPLETE — the run did not finish",
            "not_applicable": "Verdict: not applicable — no private node was judged"}.get(res, f"Verdict: {res}")
    page.banner(text, cls)
    bs = v.get("blind_spot")
    if isinstance(bs, dict):
        # counters only: what the verdict could not see, as the terminal says it
        page.add("<p><b>Counters only</b> (no events: " + _e(str(bs.get("why", "?"))) + "): allocations that "
                 f"live less than {_e(str(bs.get('sample_interval_ms', '?')))} ms between two samples are "
                 "invisible; the phase with the fewest got "
                 f"{_e(str(bs.get('min_samples_per_phase', '?')))} sample(s).</p>")
    if v.get("reasons"):
        page.add("<ul>" + "".join(f"<li>{_e(_reason(r))}</li>" for r in v["reasons"]) + "</ul>")


def _reason(r):
    """A verdict reason for a reader: the run.json path it cites becomes the section."""
    return re.sub(r" \(verdict\.checks\.failures\)", " (see Workload checks below)", str(r))


def _e(s):
    from .html import esc
    return esc(s)


def section_isolation(page, run):
    by_phase, concl = isolation_model(run)
    if not by_phase:
        return concl
    page.h(2, "Isolation: general pages on private nodes", "isolation")
    page.figure(plots.isolation(run, by_phase, _isolation_title(run, by_phase)),
                "Bars: the node counters' general pages in the worst iteration of each phase, by kind "
                "(corrected for per-CPU lists). The events (perf collector), where the run has them, count every "
                "general allocation including the pages freed again, so they can exceed the bars; the table "
                "below has both sources.")
    v = run.doc["verdict"]
    rows = []
    for node, nv in sorted((v.get("nodes") or {}).items(), key=lambda kv: int(kv[0])):
        src = nv.get("sources") or {}
        cg = out = 0
        for _, it, ph in run.phases():
            nd = (ph.get("nodes") or {}).get(node) or {}
            for a in nd.get("attribution") or []:
                if a.get("source") == "cgroup":
                    cg = max(cg, a.get("pages") or 0)
                else:
                    out = max(out, a.get("pages") or 0)
        rows.append([f"node {node}", "inconclusive" if nv.get("inconclusive") else ("pass" if nv.get("pass") else "FAIL"),
                     nv.get("general_pages_max"), src.get("counters"), src.get("events"), cg, out])
    if rows:
        page.table(["private node", "verdict", "general pages (max)", "counters", "events (perf)",
                    "in workload cgroups", "outside any cgroup"],
                   [[r[0], r[1]] + [fmt.num(x) for x in r[2:]] for r in rows], num_cols=(2, 3, 4, 5, 6),
                   cell_class=lambda r, c, val: ("pass" if val == "pass" else "fail" if val == "FAIL" else
                                                 "warn" if val == "inconclusive" else None) if c == 1 else None)
    dis = sorted({d for _, it, ph in run.phases() for nd in (ph.get("nodes") or {}).values()
                  for d in nd.get("disagreements") or []})
    if dis:
        page.p("Sources disagreed: " + "; ".join(dis), "small")
    return concl


def section_nodes(page, run, concl):
    ser = run.read_series("nodestat", plots.node_column)
    if ser is None:
        page.p("No nodestat time series in this run.", "small")
        return
    page.h(2, "Memory per node over time", "nodes")
    fig = plots.nodes_over_time(run, ser, concl)
    page.figure(fig, "Each phase starts at 0: stacked areas are the change of each kind since the phase "
                "began (above 0 grown, below 0 freed); the black line is used memory. Each sample's reading is "
                "held until the next sample (steps: nothing was measured in between). "
                + (getattr(fig, "note", "") + " " if fig is not None else "")
                + ("The last samples were cut short by the interruption." if run.incomplete else ""))


def _table_cols(t):
    return [c["name"] for c in t.get("columns", [])]


def _col(ci, *names):
    """The first of `names` that is a column (index), or None."""
    return next((ci[n] for n in names if n in ci), None)


def section_latency(page, run):
    """latency workload: table latency_matrix (initiator, target, latency_median,
    declared_latency, declared_read_bandwidth_mibps; older fixtures: matrix with
    measured_ns/declared_ns), metric bandwidth{src,dst,kernel,threads} (the peak over
    kernels and thread counts per pair), table loaded_latency."""
    lat, bw, decl_bw = {}, {}, {}
    t = run.first_table("latency", "latency_matrix")[1] or run.first_table("latency", "matrix")[1]
    if t:
        ci = {c: i for i, c in enumerate(_table_cols(t))}
        mcol = _col(ci, "latency_median", "measured_ns")
        dcol = _col(ci, "declared_latency", "declared_ns")
        bcol = _col(ci, "declared_read_bandwidth_mibps")
        if mcol is not None and "initiator" in ci and "target" in ci:
            for r in t["rows"]:
                k = (str(r[ci["initiator"]]), str(r[ci["target"]]))
                if not isinstance(r[mcol], (int, float)):
                    continue
                d = r[dcol] if dcol is not None and isinstance(r[dcol], (int, float)) and r[dcol] > 0 else None
                lat[k] = (r[mcol], d)
                if bcol is not None and isinstance(r[bcol], (int, float)) and r[bcol] > 0:
                    decl_bw[k] = r[bcol] * 2**20
    hmat = (run.doc.get("topology") or {}).get("hmat") or {}
    for _, m in run.summary_metrics():
        lb = m.get("labels") or {}
        if "src" not in lb or "dst" not in lb or not isinstance(m.get("median"), (int, float)):
            continue
        k = (lb["src"], lb["dst"])
        if m.get("name") == "bandwidth":
            d = decl_bw.get(k)
            if d is None:
                mbps = ((hmat.get(lb["dst"]) or {}).get("access0") or {}).get("read_bandwidth_mbps")
                d = mbps * 1e6 if mbps else None
            if k not in bw or m["median"] > bw[k][0]:
                bw[k] = (m["median"], d)
        if m.get("name") in ("latency_ns", "idle_latency_ns") and not t:
            decl = ((hmat.get(lb["dst"]) or {}).get("access0") or {}).get("read_latency_ns")
            lat[k] = (m["median"], decl)
    _, ll = run.first_table("latency", "loaded_latency")
    if not lat and not bw and not ll:
        return
    page.h(2, "Latency and bandwidth: measured against HMAT", "latency")
    if lat or bw:
        ratios = [(k, v[0] / v[1]) for k, v in lat.items() if v[1]]
        if ratios:
            k, worst = max(ratios, key=lambda kv: abs(kv[1] - 1))
            title = (f"Measured latency within {abs(worst - 1) * 100:.0f} % of HMAT on every pair"
                     if abs(worst - 1) <= 0.25 else
                     f"Node {k[0]} → {k[1]} measures {worst:.2f}× its HMAT latency")
        else:
            title = "Measured latency and bandwidth per node pair (no HMAT values declared)"
        page.figure(plots.latency_matrix(lat, bw, title),
                    "Cells: measured, declared (HMAT) and their ratio; bandwidth: the best kernel and "
                    "thread count. Rows: initiator node, columns: target.")
    if ll and ll.get("rows"):
        fig = plots.loaded_latency(ll["rows"], _table_cols(ll),
                                   "Loaded latency: latency against the load's bandwidth")
        page.figure(fig, ll.get("description"))


def section_probes(page, run):
    """probes workload: table probes, either one row per probe and node (columns
    probe, node, pages, status, ...) or one row per probe with nodeN columns."""
    ph, t = run.first_table("probes", "probes")
    if not t:
        return
    page.h(2, "Probes: per-node kernel paths", "probes")
    cols = _table_cols(t)
    ci = {c: i for i, c in enumerate(cols)}
    pages_cols = [i for i, c in enumerate(t["columns"]) if c.get("unit") == "pages"]
    private = set(run.private_nodes())
    name = _col(ci, "probe") or 0
    if "node" in ci and "pages" in ci:
        def bad_row(r):
            return isinstance(r[ci["node"]], int) and r[ci["node"]] in private and \
                isinstance(r[ci["pages"]], (int, float)) and r[ci["pages"]] > 0

        def bad_cell(ri, c, v):
            return "fail" if c == ci["pages"] and bad_row(t["rows"][ri]) else None
    else:
        priv_cols = {i for c, i in ci.items() if c in {f"node{n}" for n in private}}

        def bad_row(r):
            return any(isinstance(r[i], (int, float)) and r[i] > 0 for i in priv_cols)

        def bad_cell(ri, c, v):
            r = t["rows"][ri][c]
            return "fail" if c in priv_cols and isinstance(r, (int, float)) and r > 0 else None
    probes = list(OrderedDict.fromkeys(r[name] for r in t["rows"]))
    bad = list(OrderedDict.fromkeys(r[name] for r in t["rows"] if bad_row(r)))
    page.p(f"{len(bad)} of {len(probes)} probes put general pages on a private node"
           + (f": {', '.join(map(str, bad))}" if bad else "") + " (first iteration).",
           "fail" if bad else "pass")
    page.table(cols, [["" if v is None else fmt.num(v) if isinstance(v, (int, float)) else v for v in r]
                      for r in t["rows"]],
               num_cols=pages_cols, cell_class=bad_cell)


def section_checks(page, run):
    ch = run.doc["verdict"].get("checks") or {}
    if not ch:
        return
    page.h(2, "Workload checks", "checks")
    if not ch.get("total"):
        page.p("No workload check ran.", "warn")
    else:
        page.p(f"{ch.get('passed', 0)} of {ch.get('total')} checks passed.", "pass" if not ch.get("failed") else "fail")
    f = ch.get("failures") or []
    if f:
        agg = OrderedDict()
        for x in f:
            k = (x.get("phase"), x.get("workload"), x.get("name"), str(x.get("expected")))
            agg.setdefault(k, []).append(x.get("observed"))
        page.table(["phase", "workload", "check", "expected", "observed (per iteration)"],
                   [[k[0], k[1], k[2], k[3], ", ".join(fmt.num(o) for o in obs)] for k, obs in agg.items()])


def section_metrics(page, run):
    ms = list(run.summary_metrics())
    if not ms:
        return
    page.h(2, "Metrics (over iterations)", "metrics")
    many = int(len(run.doc.get("points") or []) > 1)
    rows = []
    for p, m in ms:
        u, n = m.get("unit"), m.get("n") or 0
        # one sample has no spread: no "± 0", no "CV 0.0 %"
        spread = n > 1 and m.get("stddev") is not None
        cv = (100 * m["stddev"] / abs(m["mean"])) if spread and m.get("mean") else None
        rows.append(([labels.matrix_label(p.get("matrix")) or f"point {p.get('index')}"] if many else [])
                    + [m.get("phase") or "–", m.get("workload") or "–", metric_id(m), fmt.value(m.get("median"), u),
                     fmt.value(m.get("mean"), u) + (" ± " + fmt.value(m.get("stddev"), u) if spread else ""),
                     fmt.pct(cv) if cv is not None else "–", fmt.num(n), m.get("better") or "–"])
    page.table((["point"] if many else []) + ["phase", "workload", "metric", "median", "mean ± stddev", "CV", "n",
                                              "better"], rows,
               num_cols=tuple(c + many for c in (3, 4, 5, 6)))


def _as_expected(w):
    """'yes' only for a workload that ran (status ok) and whose outcome says so;
    a failed or skipped one never is, whatever its outcome defaults to."""
    st = w.get("status")
    if st == "skipped":
        return "no (skipped)"
    if st != "ok":
        return f"NO ({st or 'no status'})"
    ae = (w.get("outcome") or {}).get("as_expected")
    return "yes" if ae is True else "NO" if ae is False else "not recorded"


def section_workloads(page, run):
    rows = []
    seen = set()
    for _, it, ph, i, w in run.workloads():
        oc = w.get("outcome") or {}
        expected = _as_expected(w)
        odd = expected != "yes"
        key = (ph["name"], i)
        if key in seen and not odd:
            continue
        seen.add(key)
        rows.append([it.get("index"), ph["name"], w.get("workload"), w.get("role"), w.get("status"),
                     oc.get("end") or "–", expected,
                     w.get("reason") or oc.get("detail") or "; ".join(w.get("notes") or []) or ""])
    if rows:
        page.h(2, "Workloads", "workloads")
        page.p("First iteration, plus every workload of any iteration that failed or ended unexpectedly.", "small")
        page.table(["iteration", "phase", "workload", "role", "status", "ended", "as expected", "detail"], rows,
                   cell_class=lambda r, c, v: "fail" if (c == 4 and v not in ("ok", "skipped")) or
                   (c == 6 and v.startswith("NO")) else "warn" if c == 6 and v != "yes" else None)


def _tool(d):
    t = d.get("tool") or {}
    return f"{t.get('name') or 'pnbench'} {t.get('version') or '(version not recorded)'}"


def section_provenance(page, run):
    d = run.doc
    k = d["kernel"]
    s = k.get("series") or {}
    page.h(2, "Provenance", "provenance")
    host = d.get("host") or {}
    rows = [["tool", _tool(d)],
            ["host", f"hostname {host.get('hostname') or '–'} ({host.get('machine') or '?'}, "
                     f"{fmt.num(host.get('ncpus_online'))} CPUs)"],
            ["kernel", k.get("release")],
            ["kernel series", f"{s.get('id')} (mode {s.get('mode') or 'none recorded'})" if s.get("id") else
             "none (stock kernel" + (", private nodes supported" if s.get("private_nodes_supported") else "") + ")"],
            ["kernel cmdline", k.get("cmdline")],
            ["kconfig sha256", k.get("kconfig_sha256")],
            ["config", f"{d.get('config', {}).get('name')} ({d.get('config', {}).get('file')}, "
                       f"sha256 {str(d.get('config', {}).get('sha256'))[:12]}…)"],
            ["command", " ".join(d.get("command") or [])],
            ["started / updated", f"{d.get('started_at')} / {d.get('updated_at')}"],
            ["status", d["status"].get("state") + (f": {d['status'].get('reason')}" if d["status"].get("reason") else "")],
            ["roles", f"private [{d['roles'].get('private')}]{' (found by the kernel)' if d['roles'].get('private_auto') else ''}, dram [{d['roles'].get('dram')}]"]]
    files = run.series_files
    if files:
        rows.append(["series files", "; ".join(f"{f}: {fmt.num(n)} rows, checked" if n is not None else
                                               f"{f}: not in the run directory, not checked" for f, n in files)])
    acc = d.get("accounting") or {}
    if acc:
        cg = acc.get("cgroup") or {}
        rows.append(["accounting", f"counters refreshed: {fmt.num(bool(acc.get('counters_refreshed')))}; "
                     f"cgroup v{cg.get('version') or '–'}"
                     + (f" ({cg.get('reason')})" if cg.get("reason") else "")])
    for kk, vv in (k.get("sysctls") or {}).items():
        rows.append([f"sysctl {kk}", vv])
    knobs = OrderedDict()
    for _, it, ph in run.phases():
        for kn in ph.get("knobs") or []:
            knobs[(ph["name"], kn.get("path") or kn.get("key"))] = kn
    for (phn, path), kn in knobs.items():
        rows.append([f"knob ({phn})", f"{path}: {kn.get('old')} → {kn.get('new')}, "
                     + ("restored" if kn.get("restored") else "NOT restored")])
    page.table(None, rows)
    topo = d.get("topology") or {}
    nodes = topo.get("nodes") or []
    if nodes:
        priv = set(run.private_nodes())
        dram = set(run.dram_nodes())
        page.h(3, "Topology")
        page.table(["node", "role", "CPUs", "memory", "tier", "subtype", "private memory (kernel)"],
                   [[n.get("id"), "private" if n.get("id") in priv else "DRAM" if n.get("id") in dram else "–",
                     n.get("cpus") or "none", fmt.value(n.get("mem_total_bytes"), "bytes"), n.get("memory_tier"),
                     n.get("subtype") or "–", fmt.num(n.get("has_private_memory"))] for n in nodes],
                   num_cols=(3,))
        dist = topo.get("distances") or {}
        if dist:
            ids = sorted(dist, key=int)
            page.table(["distance"] + [f"node {i}" for i in ids],
                       [[f"node {a}"] + [dist[a].get(b, "–") for b in ids] for a in ids],
                       num_cols=tuple(range(1, len(ids) + 1)))


def build(run):
    d = run.doc
    page = Page(f"pnbench run {run.name}: {d.get('config', {}).get('name')} on {run.kernel_label}")
    page.h(1, f"pnbench: {d.get('config', {}).get('name')} on {run.kernel_label}")
    page.p(f"{d.get('host', {}).get('hostname')} · started {d.get('started_at')} · {run.dir}", "small")
    if run.incomplete:
        page.banner(f"INCOMPLETE RUN ({run.state}): {run.reason or 'no reason recorded'} — "
                    "what follows covers only the phases that finished; do not read it as a complete result.",
                    "warn" if run.state == "incomplete" else "fail")
    # every series file checked before anything is drawn: a bad row anywhere is exit 2
    run.read_series("nodestat", plots.node_column)
    run.check_series()
    section_verdict(page, run)
    page.nav_here()
    concl = section_isolation(page, run)
    exec_report.section(page, run)
    section_nodes(page, run, concl)
    section_exhaust(page, run)
    section_interleave(page, run)
    section_latency(page, run)
    section_probes(page, run)
    section_checks(page, run)
    section_metrics(page, run)
    section_workloads(page, run)
    section_provenance(page, run)
    page.add(f'<p class="small">run.json: {_e(fmt.bytes_(len(run.raw)))}; '
             f'report by pnreport of {_e(_tool(d))}.</p>')
    return page

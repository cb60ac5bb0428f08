"""The run report's scenario sections on the tables the workloads write:

- `exhaust` (workloads/exhaust.c): table `spill_curve` (chunk, requested_bytes,
  node, policy_pages, elsewhere_pages, nodes "N:pages,...", fault_ns), table
  `spill_order` (node, first_chunk, first_requested_bytes, pages, policy_node),
  outcome oom_kills: the spill curve, and the chunk fault latency CDFs before
  and after the spill (the split of the workload's chunk_latency_*{spill=...}).
- `interleave` (workloads/interleave.c): table `interleave_map` (node, weight,
  expected_pages, placed_pages, deviation_pages, fault_ns, fault_throughput).

A section draws the first iteration of every matrix point (every phase that runs
the workload); the interleave verdict counts every iteration."""
from collections import OrderedDict

from . import plots_scenario, fmt


def table(w, name):
    """{column: [values]} of a workload's table, rows as dicts, or None."""
    for t in w.get("tables") or []:
        if t.get("name") == name:
            cols = [c["name"] for c in t.get("columns", [])]
            return [dict(zip(cols, r)) for r in t.get("rows") or []]
    return None


def point_label(p):
    """'policy=interleave' from a point's matrix {json path: value} ('' for none)."""
    m = p.get("matrix") or {}
    return ", ".join(f"{k.rsplit('.', 1)[-1]}={v}" for k, v in m.items())


def instances(run, workload, table_name):
    """[(label, phase, workload)] of the first iteration of every point: the
    runs of `workload` that wrote `table_name`."""
    out = []
    npoints = len(run.doc.get("points") or [])
    for p in run.doc.get("points") or []:
        its = p.get("iterations") or []
        if not its:
            continue
        for ph in its[0].get("phases") or []:
            for w in ph.get("workloads") or []:
                if w.get("workload") == workload and table(w, table_name) is not None:
                    pl = point_label(p)
                    out.append((ph["name"] + (f" ({pl})" if pl and npoints > 1 else ""), ph, w))
    return out


# ---------------------------------------------------------------- exhaust
def parse_nodes(s):
    """'1:256,2:256' -> {1: 256, 2: 256}"""
    out = {}
    for part in str(s or "").split(","):
        if ":" in part:
            n, v = part.split(":", 1)
            try:
                out[int(n)] = out.get(int(n), 0) + int(v)
            except ValueError:
                continue
    return out


class SpillModel:
    """One exhaust run: per chunk the bytes requested so far, its pages per node and
    its fault time; the nodes in the order first reached; the policy's nodes."""

    def __init__(self, curve, order, outcome, page_size):
        self.page_size = page_size
        self.requested = [r["requested_bytes"] for r in curve]
        self.pages = []
        for r in curve:
            per = parse_nodes(r.get("nodes"))
            if not per and r.get("node") is not None:
                per = {int(r["node"]): (r.get("policy_pages") or 0) + (r.get("elsewhere_pages") or 0)}
            self.pages.append(per)
        self.fault_ns = [r.get("fault_ns") for r in curve]
        self.spill_index = next((i for i, r in enumerate(curve) if (r.get("elsewhere_pages") or 0) > 0), None)
        first = self.requested[0] if self.requested else 0
        self.spill_at = None if self.spill_index is None else self.requested[self.spill_index] - first
        if order:
            self.order = [int(r["node"]) for r in order]
            self.policy_nodes = {int(r["node"]) for r in order if r.get("policy_node")}
            self.first_at = {int(r["node"]): r.get("first_requested_bytes") for r in order}
            self.total = {int(r["node"]): r.get("pages") for r in order}
        else:
            self.order = list(OrderedDict.fromkeys(n for per in self.pages for n in per))
            stop = self.spill_index if self.spill_index is not None else len(self.pages)
            self.policy_nodes = {n for per in self.pages[:stop] for n in per}
            self.first_at = {}
            for i, per in enumerate(self.pages):
                for n in per:
                    self.first_at.setdefault(n, self.requested[i] - first)
            self.total = {n: sum(per.get(n, 0) for per in self.pages) for n in self.order}
        oc = outcome or {}
        self.oom = oc.get("oom_kills") or 0
        self.end = oc.get("end", "ok")

    def bytes_on(self, node):
        return [per.get(node, 0) * self.page_size for per in self.pages]

    def latency(self, stage):
        cut = self.spill_index if self.spill_index is not None else len(self.fault_ns)
        vals = self.fault_ns[:cut] if stage == "before" else self.fault_ns[cut:]
        return [v for v in vals if isinstance(v, (int, float))]

    def path(self):
        return " → ".join(f"node {n}" for n in self.order)


def spill_models(run):
    ps = run.doc.get("host", {}).get("page_size", 4096)
    out = []
    for label, _, w in instances(run, "exhaust", "spill_curve"):
        curve = table(w, "spill_curve")
        if curve:
            out.append((label, SpillModel(curve, table(w, "spill_order"), w.get("outcome"), ps)))
    return out


def _leaks(run, m):
    """Private nodes outside the policy that took pages: [(node, pages)]."""
    private = set(run.private_nodes())
    return [(n, m.total.get(n) or 0) for n in m.order if n in private and n not in m.policy_nodes
            and (m.total.get(n) or 0) > 0]


def spill_title(run, models):
    paths = OrderedDict()
    for label, m in models:
        paths.setdefault(m.path(), []).append(label)
    oom = sum(m.oom for _, m in models)
    bad_end = [m.end for _, m in models if m.end != "ok"]
    if len(paths) == 1:
        m = models[0][1]
        off = [n for n in m.order if n not in m.policy_nodes]
        head = f"Spill order {m.path()}" + (f" (node {off[0]} from {fmt.value(m.first_at.get(off[0]), 'bytes')})"
                                            if off and m.first_at.get(off[0]) is not None else "")
    else:
        head = "Spill order " + "; ".join(f"{', '.join(ls)}: {p}" for p, ls in paths.items())
    leaks = OrderedDict()
    for _, m in models:
        for n, pages in _leaks(run, m):
            leaks[n] = max(leaks.get(n, 0), pages)
    tail = ", no OOM kill" if not oom and not bad_end else f", {oom} OOM kill(s)" + (
        f", ended {', '.join(bad_end)}" if bad_end else "")
    if leaks:
        tail += "; " + ", ".join(f"private node {n} took {fmt.num(int(p))} pages outside the policy"
                                 for n, p in leaks.items())
    return head + tail


def cdf_title(models):
    parts = []
    for stage, what in (("before", "on the policy's nodes"), ("after", "after the spill")):
        vals = sorted(v for _, m in models for v in m.latency(stage))
        if vals:
            parts.append(f"p50 {fmt.value(vals[len(vals) // 2], 'ns')} {what}")
    return "Chunk fault latency: " + ", ".join(parts) if parts else "Chunk fault latency"


def section_exhaust(page, run):
    models = spill_models(run)
    if not models:
        return
    page.h(2, "Exhaustion: where the pages went when the device filled", "exhaust")
    shown = models[:plots_scenario.MAX_PANELS]
    chunk = models[0][1].requested[0] if models[0][1].requested else 0
    page.figure(plots_scenario.spill(shown, spill_title(run, models)),
                "First iteration of each point. Stacked: bytes placed on each node (from the census of each "
                f"chunk, table spill_curve) against the bytes requested so far, in chunks of "
                f"{fmt.value(chunk, 'bytes')}; hatched: nodes off the policy; dashed: the first chunk with pages "
                "off the policy's nodes.")
    series = []
    for i, (label, m) in enumerate(shown):
        for stage in ("before", "after"):
            series.append((label, i, stage, m.latency(stage)))
    page.figure(plots_scenario.latency_cdf(series, cdf_title(shown)),
                "Time to map, bind and fault each chunk (spill_curve.fault_ns), split at the first chunk with "
                "pages off the policy's nodes, as the workload's chunk_latency_*{spill=before|after} metrics are.")
    rows = []
    for label, m in models:
        for n in m.order:
            rows.append([label, f"node {n}", "yes" if n in m.policy_nodes else "no",
                         fmt.value(m.first_at.get(n), "bytes"), fmt.num(m.total.get(n))])
    page.table(["run", "node (in order reached)", "policy node", "first reached at", "pages"], rows,
               num_cols=(3, 4), cell_class=lambda r, c, v: "fail" if c == 2 and v == "no"
               and rows[r][1] in {f"node {n}" for n in run.private_nodes()} else None)


# ---------------------------------------------------------------- interleave
class InterleaveRow:
    def __init__(self, r):
        self.node = r.get("node")
        self.weight = r.get("weight")
        self.expected = r.get("expected_pages") or 0
        self.placed = r.get("placed_pages") or 0


def section_interleave(page, run):
    exact = total = worst = 0
    for _, it, ph, _, w in run.workloads():
        rows = table(w, "interleave_map") if w.get("workload") == "interleave" else None
        if not rows:
            continue
        total += 1
        dev = [abs((r.get("placed_pages") or 0) - (r.get("expected_pages") or 0)) for r in rows]
        exact += all(d == 0 for d in dev)
        worst = max([worst] + dev)
    panels = [(label, [InterleaveRow(r) for r in table(w, "interleave_map")])
              for label, _, w in instances(run, "interleave", "interleave_map") if table(w, "interleave_map")]
    if not panels:
        return
    page.h(2, "Interleave: pages per node against the configured weights", "interleave")
    title = (f"Interleave matches the weights page for page in {exact} of {total} runs"
             if exact == total else
             f"Interleave off the weights by up to {fmt.num(int(worst))} pages "
             f"(exact in {exact} of {total} runs)")
    page.figure(plots_scenario.interleave(panels, title),
                "First iteration of each point (table interleave_map); the title counts every iteration. "
                "Expected: the pages the kernel's interleave walk gives each node for the weights in force.")

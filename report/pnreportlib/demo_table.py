"""The truth table of `make demo` (scripts/demo.sh): read every cell's results
(brought home over 9p), judge each against the expected table of issue 11,
write DIR/demo.json (the format load_demo() reads) and print the table.

A cell is one kernel (stock, isolate, private, or a user's KERNEL=) x one
onlining of the device memory (movable, kernel = ZONE_NORMAL).  The expected
values depend on the kernel's *model*, never on what came out:

  stock    pressure and probes put general pages on the device nodes
  isolate  ordinary pressure does not, at least one per-node probe does,
           multi-node requests cannot be served
  private  0 general pages on either device in every scenario, explicit
           allocations land there, weighted interleave matches page for page,
           a request larger than a device falls back to the next device, then
           DRAM, without an OOM
  june2026 0 general pages; user policies cannot name the devices (explicit,
           interleave, multi-node refused); a driver's mmap() is served on
           them, and a full device fails the driver's request rather than
           falling back (demo_driver.py)

Every model: explicit allocations are served on the devices, the hot-remove
fault step migrates or refuses cleanly, the kernel log has no WARN/BUG/Oops,
and the guest finishes (a hang or panic fails the cell).
"""
import json
import os
import re
import time

from . import demo_contract, demo_driver, textout
from .demo_cells import kv, lines, row

DEVICES = ("1", "2")  # without devices= in guest.txt (pnbench.devices= of the guest)
ROWS = [
    ("pressure", "background pressure: general pages on device nodes"),
    ("probes", "per-node kernel paths (probes)"),
    ("explicit", "explicit allocation served on the device"),
    ("interleave", "interleave over 2 devices, weights exact"),
    ("exhaust", "device exhausted → DRAM fallback, no OOM"),
    ("multinode", "multi-node bind/preferred-many across devices"),
    ("fault", "device memory hot-removed under a holder"),
] + demo_contract.ROWS + [
    ("dmesg", "kernel log: WARN/BUG/Oops"),
]
MODELS = demo_contract.MODELS
EXPECTED = {
    "pressure": {"stock": "> 0 pages", "isolate": "0 pages", "private": "0 pages", "june2026": "0 pages"},
    "probes": {"stock": ">= 1 probe", "isolate": ">= 1 probe", "private": "0 probes", "june2026": "0 probes"},
    "explicit": {**{m: "every page on the devices" for m in ("stock", "isolate", "private")},
                 "june2026": "every page on the devices through the driver; policy refused"},
    "interleave": {"stock": "100 %", "isolate": "shown, not judged", "private": "100 %",
                   "june2026": "not served (policy refused)"},
    "exhaust": {"stock": "ends on DRAM, no OOM", "isolate": "ends on DRAM, no OOM",
                "private": "1→2→0, no OOM", "june2026": "driver: device fills, rest SIGBUS, never DRAM"},
    "multinode": {"stock": "served", "isolate": "not served", "private": "served", "june2026": "not served"},
    "fault": {m: "migrated or refused, no crash" for m in MODELS},
    "dmesg": {m: "none" for m in MODELS},
}
EXPECTED.update({k: {m: t for m, (t, _) in v.items()} for k, v in demo_contract.EXPECTED.items()})
# why each model expects what it does: from its design, never from output
_ANY = "every model"
REASONS = {
    "pressure": {"stock": "the device nodes are ordinary memory in every fallback list",
                 "isolate": "no other node's fallback list names the devices",
                 "private": "only __GFP_PRIVATE requests pass the gate of a private zone",
                 "june2026": "the device is N_MEMORY but not common memory: the gate refuses general "
                             "requests and no other node's fallback list names it"},
    "probes": {"stock": "per-node kernel paths allocate on any node with memory",
               "isolate": "alloc_pages_node() of the device node still uses its own zonelist",
               "private": "the gate refuses every request without the private context",
               "june2026": "the gate refuses every request without the private context, N_MEMORY "
                           "iterators' included"},
    "explicit": {**{m: "a policy binding to the device is served there (private: after the mempolicy "
                       "opt-in)" for m in ("stock", "isolate", "private")},
                 "june2026": "user space reaches private memory only through a driver's mmap(): "
                             "/dev/private_node_test's pages land on the devices, an mbind() naming them "
                             "is refused (EINVAL)"},
    "interleave": {"stock": "weighted interleave over ordinary nodes is exact",
                   "isolate": "the model has no answer for interleave over isolated nodes: shown",
                   "private": "interleave over opted-in private nodes is served page for page",
                   "june2026": "interleave across devices is a user policy, and user policy gives no "
                               "access: the policy is refused, no page lands on a device"},
    "exhaust": {"stock": "a full node falls back along the zonelist",
                "isolate": "a full node falls back along the zonelist",
                "private": "a private request falls back over the private nodes it names, then DRAM",
                "june2026": "a private folio comes only from the node it names (__GFP_THISNODE): a full "
                            "device fails the driver's request instead of falling back to another "
                            "device or DRAM, and nothing is OOM-killed"},
    "multinode": {"stock": "every node is reachable from every zonelist",
                  "isolate": "no zonelist leads from one isolated node to another",
                  "private": "private zonelists list the other private nodes, the gate admits named ones",
                  "june2026": "user policies cannot name private nodes, and private zonelists do not "
                              "list each other"},
    "fault": {m: f"{_ANY}: memory hot-remove migrates or refuses, never crashes" for m in MODELS},
    "dmesg": {m: f"{_ANY}: no warning, bug or oops is acceptable" for m in MODELS},
}
REASONS.update({k: {m: r for m, (_, r) in v.items()} for k, v in demo_contract.EXPECTED.items()})
BAD_LOG = re.compile(r"(WARNING: |BUG: |Oops|Kernel panic|general protection fault|kernel BUG at)")


class Cell:
    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)
        self.info = kv(os.path.join(path, "cell.txt"))
        self.exit = kv(os.path.join(path, "exit.txt"))
        self.guest = kv(os.path.join(path, "guest.txt"))
        self.runs = {}
        for line in lines(os.path.join(path, "runs.txt")):
            f = line.split()
            if f:
                self.runs[f[0]] = dict(x.split("=", 1) for x in f[1:] if "=" in x)
        self.devices = tuple(self.guest["devices"].split(",")) if self.guest.get("devices") else DEVICES
        model = self.info.get("model", "auto")
        self.model = self.guest.get("model", "stock") if model == "auto" else model
        self.online = self.info.get("online", "?")

    def run(self, name):
        """(run.json document or None, why not)"""
        j = os.path.join(self.path, name, "run.json")
        if not os.path.exists(j):
            r = self.runs.get(name)
            return None, (f"no results (pnbench exit {r['rc']}, see {name}.log)" if r
                          else "did not run")
        try:
            with open(j, encoding="utf-8") as fh:
                return json.load(fh), None
        except (OSError, ValueError, RecursionError) as e:
            return None, f"{name}/run.json unreadable: {e}"


def workloads(doc, name):
    """(point params, workload) for every foreground workload called name"""
    for p in doc.get("points", []):
        for it in p.get("iterations", []):
            for ph in it.get("phases", []):
                for w in ph.get("workloads", []):
                    if w.get("workload") == name and w.get("role") == "foreground":
                        yield ph.get("name"), w


def table(w, name):
    for t in w.get("tables", []):
        if t["name"] == name:
            cols = [c["name"] for c in t["columns"]]
            return [dict(zip(cols, r)) for r in t["rows"]]
    return []


def metric(w, name):
    return sum(m["value"] for m in w.get("metrics", []) if m["name"] == name and not m.get("labels"))


def general_max(doc, devices=DEVICES):
    nodes = doc.get("verdict", {}).get("nodes", {})
    vals = [nodes[n].get("general_pages_max", 0) for n in devices if n in nodes]
    return max(vals) if vals else None


def judge_pressure(cell, exp):
    doc, why = cell.run("pressure")
    if not doc:
        return row(None, why, exp, False)
    g = general_max(doc, cell.devices)
    ws = [w for _, w in workloads(doc, "pressure")]
    ran = ws and all(w["status"] == "ok" and w["outcome"]["as_expected"] for w in ws)
    if g is None or not ran:
        return row(g, f"pressure did not run as declared (general pages {g})", exp, False)
    ok = g > 0 if cell.model == "stock" else g == 0
    return row(g, f"{g} pages", exp, ok)


def judge_probes(cell, exp):
    doc, why = cell.run("probes")
    if not doc:
        return row(None, why, exp, False)
    ran, leaked, pages = set(), set(), 0
    for _, w in workloads(doc, "probes"):
        for r in table(w, "probes"):
            if r.get("status") != "ran":
                continue
            ran.add(r["probe"])
            if (r.get("pages") or 0) > 0:
                leaked.add(r["probe"])
                pages += r["pages"]
    if not ran:
        return row(0, "no probe ran", exp, False)
    text = f"{pages} ({len(leaked)} of {len(ran)} probes)"
    ok = len(leaked) == 0 if cell.model in ("private", "june2026") else len(leaked) >= 1
    return row(len(leaked), text, exp, ok)


def device_pages(cell, doc, name):
    """pages the foreground workloads called name placed on the devices"""
    return sum(int(w.get("placement", {}).get("per_node", {}).get(n, 0))
               for _, w in workloads(doc, name) for n in cell.devices)


def judge_explicit(cell, exp):
    doc, why = cell.run("explicit")
    if cell.model == "june2026":
        return demo_driver.judge_explicit(cell, exp, device_pages(cell, doc, "explicit") if doc else None)
    if not doc:
        return row(None, why, exp, False)
    want = on = 0
    for _, w in workloads(doc, "explicit"):
        if w["status"] != "ok":
            return row(0, f"explicit {w['status']}: {w.get('reason')}", exp, False)
        want += int(metric(w, "pages_total"))
        on += sum(w["placement"]["per_node"].get(n, 0) for n in cell.devices)
    ok = want > 0 and on == want
    return row(on, f"{on} of {want} pages", exp, ok)


def judge_interleave(cell, exp):
    doc, why = cell.run("interleave")
    if cell.model == "june2026":
        return refused(cell, doc, why, "interleave", exp)
    if not doc:
        return row(None, why, exp, False if cell.model != "isolate" else None)
    exact = total = 0
    for phase, w in workloads(doc, "interleave"):
        if phase != "weighted":
            continue
        if w["status"] != "ok":
            return row(0, f"{w['status']}: {w.get('reason')}", exp,
                       False if cell.model != "isolate" else None)
        exact += int(metric(w, "exact_match_pages"))
        total += int(metric(w, "pages_total"))
    pct = 100.0 * exact / total if total else 0.0
    text = f"{pct:.1f} % ({exact} of {total} pages, 3:1)" if pct < 100 else f"100 % ({total} pages, 3:1)"
    ok = None if cell.model == "isolate" else (total > 0 and exact == total)
    return row(round(pct, 1), text, exp, ok)


def refused(cell, doc, why, name, exp):
    """june2026's policy-driven rows: the run must have happened and put no
    page on a device (its policy refused by the kernel)"""
    if not doc:
        return row(None, why, exp, False)
    ws = [w for _, w in workloads(doc, name)]
    on = device_pages(cell, doc, name)
    states = sorted({f"{w['status']}" + (f" ({w.get('reason')})" if w.get("reason") else "") for w in ws})
    ok = bool(ws) and on == 0
    text = "not served (policy refused)" if ok and all(w["status"] != "ok" for w in ws) else \
        f"{on} pages on devices"
    return row(on, text, exp, ok, f"{name}: {len(ws)} workloads: " + "; ".join(states)[:300])


def spill(w):
    """nodes in the order the allocation reached them, and how it ended"""
    return [r["node"] for r in table(w, "spill_order")], w.get("outcome", {}).get("end", w["status"])


def arrow(order):
    return "→".join(str(n) for n in order) or "nothing"


def exhaust_point(doc, policy):
    for _, w in workloads(doc, "exhaust"):
        if w.get("params", {}).get("policy") == policy:
            return w
    return None


def judge_exhaust(cell, exp):
    """An explicit request over both devices (preferred_many) for more than they
    hold: where it went as each filled.  The single-node preferred request of the
    spill-far phase is shown beside it: on a private kernel it must not spill
    onto the other device, which it does not name (that would be a general page
    there), so it goes to DRAM."""
    doc, why = cell.run("exhaust")
    if cell.model == "june2026":
        r = demo_driver.judge_exhaust(cell, exp)
        pol = refused(cell, doc, why, "exhaust", exp)
        r["pass"] = r["pass"] and pol["pass"]
        r["detail"] = r.get("detail", "") + f"; the policy-driven spill: {pol['text']} ({pol.get('detail', '')})"
        return r
    if not doc:
        return row(None, why, exp, False)
    w = exhaust_point(doc, "preferred_many")
    if not w or w["status"] != "ok":
        return row(None, "preferred_many: " + (w["status"] + f" ({w.get('reason')})" if w else "missing"),
                   exp, False)
    order, end = spill(w)
    oom = w["outcome"].get("oom_kills", 0)
    devs = [int(n) for n in cell.devices]
    text = f"{arrow(order)}, " + ("no OOM" if end == "ok" and not oom else f"{end}, {oom} OOM kills")
    detail = f"preferred_many over {','.join(cell.devices)}, pages per node " + ", ".join(
        f"{r['node']}: {r['pages']}" for r in table(w, "spill_order"))
    single = exhaust_point(doc, "preferred")
    if single:
        sorder, send = spill(single)
        detail += f"; preferred on node {cell.devices[0]} alone: {arrow(sorder)}, {send}"
    # ends on DRAM: any node that is not a device (node 0 alone on one initiator)
    clean = end == "ok" and not oom and order and order[-1] not in devs
    rest = order[len(devs):]
    ok = (clean and order[:len(devs)] == devs and rest and not set(rest) & set(devs)
          if cell.model == "private" else clean)
    return row(arrow(order), text, exp, bool(ok), detail)


def judge_multinode(cell, exp):
    doc, why = cell.run("multinode")
    edoc, ewhy = cell.run("exhaust")
    if not doc or not edoc:
        return row(None, why or ewhy, exp, False)
    parts, short, served = [], [], True
    devs = cell.devices
    for _, w in workloads(doc, "explicit"):
        per = w.get("placement", {}).get("per_node", {})
        end = w.get("outcome", {}).get("end", w["status"])
        on = [int(per.get(n, 0)) for n in devs]
        served &= end == "ok" and all(on) and w["placement"]["misplaced_pages"] == 0
        parts.append(f"bind over {','.join(devs)}: {end}, pages " +
                     ", ".join(f"on {n}: {v}" for n, v in zip(devs, on)))
        short.append("bind " + ("+".join(devs) if all(on) and end == "ok" else end if end != "ok"
                                else f"{devs[0]} only"))
    w = exhaust_point(edoc, "preferred_many")
    if w:
        order, end = spill(w)
        dram_at = next((i for i, n in enumerate(order) if str(n) not in devs), len(order))
        served &= end == "ok" and {int(n) for n in devs} <= set(order[:dram_at])
        parts.append(f"preferred_many over {','.join(devs)} beyond both: {arrow(order)}, {end}")
        short.append(f"pm {arrow(order)}")
    else:
        served = False
        parts.append("preferred_many: no result")
    verdict = "served" if served else "not served"
    ok = (not served) if cell.model in ("isolate", "june2026") else served
    return row(verdict, f"{verdict} ({', '.join(short)})", exp, ok, "; ".join(parts))


def judge_fault(cell, exp):
    f = kv(os.path.join(cell.path, "fault.txt"))
    if not f:
        return row(None, "did not run" if "fault" not in cell.runs else "no fault.txt", exp, False)
    alive = f.get("holder_alive") == "1"
    off, busy = int(f.get("offlined_blocks", 0)), int(f.get("refused_blocks", 0))
    after = f.get("after", "").strip()
    node = f.get("node", "2")
    detail = (f"holder of 8192 pages bound to node {node} ({f.get('before', '').strip()}): {off} blocks "
              f"offlined, {busy} refused, removed {f.get('removed')}, holder alive {int(alive)}, "
              f"its pages after: {after or '-'}; {f.get('offline_error', '')}")
    if not alive:
        return row("holder died", f"holder died ({off} offlined)", exp, False, detail)
    if busy == 0 and off > 0:
        gone = f.get("removed") == "yes"
        what = f"migrated to {after}" if after else "nothing held (the holder's policy was refused)"
        return row("migrated", what + (", removed" if gone else ", not removed"), exp, gone, detail)
    if busy > 0:
        return row("refused", f"refused ({busy} busy)", exp, True, detail)
    return row(None, f"no block of node {node} was online", exp, False, detail)


def judge_dmesg(cell, exp):
    src = os.path.join(cell.path, "dmesg.txt")
    log = lines(src)
    if not log:
        log = lines(os.path.join(cell.path, "console.log"))
        bad = [x for x in log if BAD_LOG.search(x)]
        return row(len(bad), "no dmesg.txt" + (f"; console: {bad[0].strip()[:60]}" if bad else ""), exp, False)
    bad = [x for x in log if BAD_LOG.search(x)]
    return row(len(bad), "none" if not bad else f"{len(bad)}: {bad[0].strip()[:60]}", exp, not bad)


JUDGES = {"pressure": judge_pressure, "probes": judge_probes, "explicit": judge_explicit,
          "interleave": judge_interleave, "exhaust": judge_exhaust, "multinode": judge_multinode,
          "fault": judge_fault, "dmesg": judge_dmesg, **demo_contract.JUDGES}


UNJUDGED = "no expected column (model unknown): shown"


def judge(cell, wanted):
    """Every row of a cell against its model's column; a cell whose model has
    no column (a user's kernel claiming none of them) is shown, not judged."""
    rows = {}
    rc = cell.exit.get("rc")
    known = cell.model in MODELS
    for key, _ in ROWS:
        exp = EXPECTED[key].get(cell.model, UNJUDGED)
        if key == "exhaust" and cell.model == "private" and cell.devices != DEVICES:
            exp = "→".join(cell.devices) + "→DRAM, no OOM"
        if key not in wanted:
            continue
        try:
            rows[key] = JUDGES[key](cell, exp)
        except (KeyError, TypeError, ValueError, IndexError) as e:
            rows[key] = row(None, f"unreadable results ({type(e).__name__}: {e})", exp, False)
        if not known:
            rows[key]["pass"] = None
    if rc != "0":
        why = "guest never finished (hang, panic or timeout)" if rc == "125" else f"guest exit {rc}"
        rows["guest"] = row(rc, why + "; console.log kept", "finishes", False)
    return rows


def collect(base, seconds=None, models=None):
    """demo.json's document from the cell directories under base; models, when
    given, keeps only the cells of those models (the table's columns)."""
    cells = []
    for d in sorted(os.listdir(base)):
        p = os.path.join(base, d)
        if os.path.isfile(os.path.join(p, "cell.txt")):
            cells.append(Cell(p))
    order = {m: i for i, m in enumerate(MODELS)}
    if models:
        cells = [c for c in cells if c.model in models]
    cells.sort(key=lambda c: (c.online != "movable", order.get(c.model, len(order)), c.name))
    out = []
    for c in cells:
        wanted = set(c.runs) | {"dmesg"}
        if "exhaust" in wanted and "multinode" not in wanted:
            wanted.discard("multinode")
        if os.path.isdir(os.path.join(base, "fastpath")):
            wanted.add("fastpath")
        rows = judge(c, wanted)
        out.append({"kernel": c.info.get("kernel", "?"), "model": c.model, "online": c.online,
                    "topology": f"{c.info.get('topology', '?')}-{'normal' if c.online == 'kernel' else c.online}",
                    "run": f"{c.name}/pressure" if os.path.exists(os.path.join(c.path, "pressure", "run.json"))
                    else None,
                    "runs": {r: f"{c.name}/{r}" for r in c.runs if os.path.isdir(os.path.join(c.path, r))},
                    "kernel_release": c.guest.get("kernel"), "guest_rc": c.exit.get("rc"),
                    "seconds": int(c.exit["seconds"]) if c.exit.get("seconds", "").isdigit() else None,
                    "run_seconds": {r: float(v["seconds"]) for r, v in c.runs.items() if "seconds" in v},
                    "rows": rows})
    return {"schema_version": 1, "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "seconds": seconds, "cells": out}


MARKS = {True: "✓", False: "✗", None: "·"}
NO_DATA = "–"
LEGEND = "✓ as expected, ✗ not as expected, · shown but not judged, – no data"


def _widths(nat, avail, least=8):
    """Column widths: the natural ones, the widest narrowed first until they
    fit `avail` columns (none below `least`)."""
    w = list(nat)
    while sum(w) > avail and max(w) > least:
        w[w.index(max(w))] -= 1
    return w


def _cell(r):
    """A cell's text with its mark: '✓ 0 pages', '✗ ...', '· ...'; '–' no data."""
    return f"{MARKS[r['pass']]} {r['text']}" if r else NO_DATA


def _table(cells, keys, width):
    """One onlining's table: a row per scenario key, a column per kernel; a
    cell's text wrapped inside its column, never cut."""
    lw = max(len(k) for k in keys + ["scenario"])
    grid = {k: [_cell(c["rows"].get(k)) for c in cells] for k in keys}
    nat = [max([textout.width(c["kernel"])] + [textout.width(grid[k][i]) for k in keys])
           for i, c in enumerate(cells)]
    cw = _widths(nat, width - 2 - lw - 3 * len(cells))

    def row(name, texts):
        parts = [textout.wrap_label(t, cw[i], "  ") for i, t in enumerate(texts)]
        out = []
        for ln in range(max(len(p) for p in parts)):
            tds = [textout.pad(p[ln] if ln < len(p) else "", cw[i]) for i, p in enumerate(parts)]
            out.append((f"  {name if ln == 0 else '':<{lw}} | " + " | ".join(tds)).rstrip())
        return out
    out = row("scenario", [c["kernel"] for c in cells])
    out.append(f"  {'-' * lw}-+-" + "-+-".join("-" * x for x in cw))
    for k in keys:
        out += row(k, grid[k])
    return out


def render(doc, width=textout.WIDTH):
    """The truth table as text: one table per onlining, a column per kernel, a
    row per scenario (its name; the legend below says what it measures); every
    line at most `width` columns."""
    out, shown = [], []
    label = dict(ROWS, guest="guest finished")
    for online, title in (("movable", "device memory onlined ZONE_MOVABLE"),
                          ("kernel", "device memory onlined ZONE_NORMAL")):
        cells = [c for c in doc["cells"] if c["online"] == online]
        if not cells:
            continue
        keys = [k for k, _ in ROWS if any(k in c["rows"] for c in cells)]
        keys += sorted({k for c in cells for k in c["rows"]} - set(keys))
        shown += [k for k in keys if k not in shown]
        out.append(f"{title} (topology {cells[0]['topology']}):")
        out += _table(cells, keys, width) + [""]
    lw = max(len(k) for k in shown) if shown else 0
    out += ["scenarios:"] + [f"  {k:<{lw}}  {label.get(k, k)}" for k in shown] + ["marks: " + LEGEND, ""]
    off = [(c, k, r) for c in doc["cells"] for k, r in c["rows"].items() if r["pass"] is False]
    if off:
        out.append(f"{len(off)} cell(s) not as expected:")
        for c, k, r in off:
            out.append(f"  {c['kernel']}/{c['topology']}: {k}: got {r['text']}, "
                       f"expected {r['expected']}")
            out.append(f"    model {c['model']}; results {c['runs'].get(k, c['kernel'])}")
            if r.get("detail"):
                out.append(f"    {r['detail']}")
    else:
        judged = sum(r["pass"] is not None for c in doc["cells"] for r in c["rows"].values())
        out.append("every cell as expected" if judged else
                   "nothing judged: no cell's model has an expected column (shown only)")
    times = [f"{c['kernel']}/{c['topology']} {c['seconds']}s" for c in doc["cells"] if c.get("seconds") is not None]
    if times:
        out.append("guest time per cell: " + ", ".join(times))
    runs = {}
    for c in doc["cells"]:
        for r, s in c.get("run_seconds", {}).items():
            runs.setdefault(r, []).append(s)
    if runs:
        out.append("seconds per run (median over cells): " +
                   ", ".join(f"{r} {sorted(v)[len(v) // 2]:.0f}" for r, v in runs.items()))
    if doc.get("seconds") is not None:
        out.append(f"total wall time: {doc['seconds']} s")
    return "\n".join(x for line in out for x in textout.wrap(line, width)), not off


def main(a):
    """pnreport demo-table DIR: write DIR/demo.json, print the table; 1 when a cell is off."""
    from .errors import InputError
    from .outfile import atomic_open
    if not os.path.isdir(a.dir):
        raise InputError(f"{a.dir}: not a directory")
    models = (a.models or "").replace(",", " ").split() if getattr(a, "models", None) else None
    doc = collect(a.dir, a.seconds, models)
    if not doc["cells"]:
        raise InputError(f"{a.dir}: no demo cell (no */cell.txt)" + (f" of model {', '.join(models)}"
                                                                      if models else ""))
    with atomic_open(os.path.join(a.dir, "demo.json")) as fh:
        json.dump(doc, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    text, ok = render(doc)
    print(text)
    return 0 if ok else 1

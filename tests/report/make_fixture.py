#!/usr/bin/python3
"""Seeded generator of schema-2 pnbench result directories for the report tests.

Follows run.json schema 2 as the runner writes it; the workloads' tables have
the layouts of their workloads (exhaust: spill_curve, spill_order; interleave:
interleave_map; latency: latency_matrix, loaded_latency; probes: probes).  The
suite's own results are in tests/report/golden/.  Everything is derived from --seed, so two calls with the same
arguments write byte-identical files.

usage:
  make_fixture.py run OUT_DIR [--kernel stock|isolate|private] [--seed N]
                  [--iterations N] [--shift PCT] [--noise PCT] [--incomplete]
                  [--leak PAGES]
  make_fixture.py demo OUT_DIR [--seed N]     three kernels x two topologies + demo.json

--shift PCT makes every metric PCT % worse (in its "better" direction): an
injected regression.  --noise is the coefficient of variation of the samples.
--leak puts that many general pages on private node 1 in the pressure phase
(stock does this by default: 1536 anon + 512 file pages).
"""
import argparse
import datetime
import hashlib
import json
import os
import random
import sys

PAGE = 4096
T0 = datetime.datetime(2026, 12, 1, 0, 0, 0)      # started_at = T0 + seed hours
NODES = {0: "dram", 1: "private", 2: "private"}
MEM_TOTAL = {0: 16 << 30, 1: 4 << 30, 2: 4 << 30}
T_START = 5_000_000_000_000
INTERVAL_NS = 100_000_000
KINDS = ["anon", "file", "slab", "kernel_stack", "page_tables", "hugetlb", "other"]

# the scenario phases of configs/scenarios.json, with their sample counts
PHASES = [("explicit", 6), ("interleave", 5), ("exhaust", 8), ("latency", 6),
          ("probes", 4), ("pressure", 7)]
SERIES = {"stock": None, "isolate": {"id": "pn-6.12.118-v2-isolate", "mode": "isolate"},
          "private": {"id": "pn-6.12.118-v2-private", "mode": "private"}}
RELEASE = {"stock": "6.12.118", "isolate": "6.12.118-pn2-isolate", "private": "6.12.118-pn2"}
PROBES = ["pcp_refill", "slab_new_node", "thp_khugepaged", "ksm_merge", "numa_balancing",
          "compaction_target", "demotion_target", "hugetlb_spread"]


def _coltype(t, i):
    v = t["rows"][0][i] if t["rows"] else 0
    return "string" if isinstance(v, str) else "bool" if isinstance(v, bool) else \
        "int" if isinstance(v, int) else "number"


def metric(name, unit, better, value, labels=None, aggregate="median"):
    return {"name": name, "labels": labels or {}, "unit": unit, "better": better,
            "aggregate": aggregate, "value": value}


class Gen:
    def __init__(self, kernel, seed, iterations, shift, noise, leak):
        self.kernel = kernel
        self.rng = random.Random(seed)
        self.iterations = iterations
        self.shift = shift / 100.0
        self.noise = noise / 100.0
        self.leak = leak if leak is not None else (2048 if kernel == "stock" else 0)
        self.probe_leak = {"stock": 6, "isolate": 1, "private": 0}[kernel]

    def val(self, base, better):
        """One sample of a metric: base, made worse by shift, with noise."""
        worse = 1 + self.shift if better == "lower" else 1 - self.shift
        return base * worse * (1 + self.rng.gauss(0, self.noise))

    # ---- workloads of each phase ----
    def wl(self, name, role="foreground", params=None, metrics=(), tables=(), checks=(),
           placement=None, outcome_end="ok", notes=()):
        out = {"end": outcome_end, "exit_code": 0 if outcome_end == "ok" else 1,
               "signal": 0, "signal_name": None, "oom_kills": 0, "expected": "ok",
               "as_expected": outcome_end == "ok", "detail": ""}
        placement = placement or {"verified": False, "explicit_pages": 0, "intended_pages": 0,
                                  "misplaced_pages": 0, "unverified_pages": 0, "per_node": {}, "freed_per_node": {}}
        checks = [dict(c, expected=str(c["expected"]), observed=str(c["observed"])) for c in checks]
        tables = [dict(t, columns=[{"name": c["name"], "unit": c["unit"] or "",
                                    "type": c.get("type") or _coltype(t, i)}
                                   for i, c in enumerate(t["columns"])]) for t in tables]
        return {"workload": name, "role": role, "params": params or {}, "status": "ok",
                "reason": None, "outcome": out, "duration_ns": 0,
                "cgroup": None, "metrics": list(metrics), "tables": tables,
                "checks": checks, "notes": list(notes), "placement": placement}

    def phase_workloads(self, phase):
        r = self.rng
        if phase == "explicit":
            pages = 8192
            return [self.wl("explicit", params={"size": pages * PAGE, "nodes": "1-2", "policy": "bind"},
                            metrics=[metric("alloc_fault_throughput", "bytes/s", "higher",
                                            self.val(2.1e9, "higher")),
                                     metric("chunk_latency_ns", "ns", "lower",
                                            self.val(180e3, "lower"), {"node": "1", "q": "p50"}),
                                     metric("chunk_latency_ns", "ns", "lower",
                                            self.val(190e3, "lower"), {"node": "2", "q": "p50"}),
                                     metric("pages_total", "pages", None, pages, aggregate="last")],
                            checks=[{"name": "explicit pages on their nodes", "expected": pages,
                                     "observed": pages, "pass": True, "source": "move_pages"}],
                            placement={"verified": True, "explicit_pages": pages,
                                       "intended_pages": pages, "misplaced_pages": 0,
                                       "unverified_pages": 0,
                                       "per_node": {"1": pages // 2, "2": pages // 2}, "freed_per_node": {}})]
        if phase == "interleave":
            return [self.interleave()]
        if phase == "exhaust":
            return [self.exhaust()]
        if phase == "latency":
            # as workloads/latency.c writes them (latency branch)
            decl = {(0, 0): 80, (0, 1): 250, (0, 2): 260}
            mx, ms = [], []
            local = None
            for (src, dst), dv in decl.items():
                meas = self.val(dv * (1.12 + r.uniform(-0.02, 0.02)), "lower")
                local = local or meas
                mx.append([src, dst, "dram" if dst == 0 else "private", meas * 0.97, meas, meas * 1.3, dv,
                           "hmat", 19000.0 if dst == 0 else 7200.0, meas / local])
                ms.append(metric("idle_latency_ns", "ns", "lower", meas, {"src": str(src), "dst": str(dst)}))
                for kern in ("read", "copy"):
                    for th in (1, 2):
                        peak = (19e9 if dst == 0 else 7.5e9) * (0.55 if th == 1 else 1.0) * \
                            (1.0 if kern == "read" else 0.8)
                        ms.append(metric("bandwidth", "bytes/s", "higher", self.val(peak, "higher"),
                                         {"src": str(src), "dst": str(dst), "kernel": kern, "threads": str(th)}))
            loaded = []
            for dst in (0, 1):
                for th in (0, 1, 2, 4):
                    gbps = (6.0 if dst == 0 else 3.0) * th / (1 + th / 6)
                    lat_ = self.val((90 if dst == 0 else 280) * (1 + 0.6 * gbps / 6), "lower")
                    loaded.append([0, dst, th, "read", lat_, lat_ * 1.5, gbps])
            return [self.wl("latency", params={"nodes": "all"}, metrics=ms,
                            tables=[{"name": "latency_matrix",
                                     "description": "idle load-to-use latency, initiator x target, beside the "
                                                    "HMAT declared value and the ratio to the initiator's local DRAM",
                                     "columns": [{"name": "initiator", "unit": None}, {"name": "target", "unit": None},
                                                 {"name": "role", "unit": None},
                                                 {"name": "latency_min", "unit": "ns"},
                                                 {"name": "latency_median", "unit": "ns"},
                                                 {"name": "latency_p99", "unit": "ns"},
                                                 {"name": "declared_latency", "unit": "ns"},
                                                 {"name": "declared_source", "unit": None},
                                                 {"name": "declared_read_bandwidth_mibps", "unit": None},
                                                 {"name": "ratio_to_local", "unit": "ratio"}],
                                     "rows": mx},
                                    {"name": "loaded_latency",
                                     "description": "chase latency with load threads on the initiator's other "
                                                    "CPUs (x = load_threads)",
                                     "columns": [{"name": "initiator", "unit": None}, {"name": "target", "unit": None},
                                                 {"name": "load_threads", "unit": "count"},
                                                 {"name": "load_kernel", "unit": None},
                                                 {"name": "latency_median", "unit": "ns"},
                                                 {"name": "latency_p99", "unit": "ns"},
                                                 {"name": "load_gbps", "unit": None}],
                                     "rows": loaded}])]
        if phase == "probes":
            # as workloads/probes.c writes them (probes branch): one row per probe and device node
            rows, checks = [], []
            leaky = set(PROBES[:self.probe_leak])
            for p in PROBES:
                pages = r.randint(8, 600) if p in leaky else 0
                for node in (1, 2):
                    got = pages if node == 1 else 0
                    rows.append([p, f"mm/{p.split('_')[0]}.c", "alloc", p == "hugetlb_spread", node, "ran",
                                 got, got + r.randint(0, 3), 1, 0, "counters", ""])
                checks.append({"name": f"probe {p}: no general pages on private nodes",
                               "expected": 0, "observed": pages, "pass": pages == 0,
                               "source": "counters"})
            return [self.wl("probes", params={"probes": "all"},
                            tables=[{"name": "probes",
                                     "description": "per probe and device node: pages the kernel path put there",
                                     "columns": [{"name": "probe", "unit": None}, {"name": "kernel_path", "unit": None},
                                                 {"name": "kind", "unit": None},
                                                 {"name": "needs_zone_normal", "unit": None},
                                                 {"name": "node", "unit": None}, {"name": "status", "unit": None},
                                                 {"name": "pages", "unit": "pages"},
                                                 {"name": "used_growth", "unit": "pages"},
                                                 {"name": "triggered", "unit": "count"},
                                                 {"name": "refused", "unit": "count"},
                                                 {"name": "source", "unit": None}, {"name": "note", "unit": None}],
                                     "rows": rows}],
                            checks=checks)]
        if phase == "pressure":
            return [self.wl("pressure", params={"size": "80%", "kind": "anon+file"},
                            metrics=[metric("pressure_throughput", "bytes/s", "higher",
                                            self.val(3.2e9, "higher"))]),
                    self.wl("memhog", role="background", params={"size": "2G"})]
        raise ValueError(phase)

    def interleave(self):
        """As workloads/interleave.c writes it: table interleave_map."""
        r = self.rng
        w = {1: 3, 2: 1}
        total = 8192
        rows = []
        for n, wt in w.items():
            exp = total * wt // sum(w.values())
            got = exp if self.kernel == "private" else \
                exp + (r.randint(-300, -100) if n == 1 else r.randint(100, 300))
            fault = int(self.val(exp * PAGE / 0.6, "lower"))
            rows.append([n, wt, exp, got, got - exp, fault, exp * PAGE * 1e9 / fault])
        exact = sum(min(row[2], row[3]) for row in rows)
        return self.wl("interleave", params={"size": total * PAGE, "nodes": "private",
                                             "policy": "weighted_interleave", "weights": "3,1"},
                       metrics=[metric("exact_match_pages", "pages", "higher", exact, aggregate="last"),
                                metric("fault_throughput", "bytes/s", "higher", self.val(1.7e9, "higher"))],
                       tables=[{"name": "interleave_map",
                                "description": "per node of the policy: weight in force, pages the kernel's walk "
                                               "puts there, pages found there, fault-in time of its runs",
                                "columns": [{"name": "node", "unit": None}, {"name": "weight", "unit": None},
                                            {"name": "expected_pages", "unit": "pages"},
                                            {"name": "placed_pages", "unit": "pages"},
                                            {"name": "deviation_pages", "unit": "pages"},
                                            {"name": "fault_ns", "unit": "ns"},
                                            {"name": "fault_throughput", "unit": "bytes/s"}],
                                "rows": rows}],
                       checks=[{"name": "every page on the node the interleave walk gives it",
                                "expected": f"== {total} pages", "observed": f"{exact} pages",
                                "pass": exact == total or self.kernel != "private", "source": "workload"}])

    def exhaust(self):
        """As workloads/exhaust.c writes it: tables spill_curve and spill_order."""
        chunk, cpages = 64 << 20, (64 << 20) // PAGE
        cap1, cap2 = 3584 << 20, 3 << 30
        second = 2 if self.kernel != "isolate" else 0
        rows, placed, first, lat = [], {}, {}, {"before": [], "after": []}
        for i in range(112):
            before = i * chunk
            if before < cap1:
                per = {1: cpages}
            elif second == 2 and before < cap1 + cap2:
                per = {2: cpages}
            else:
                per = {0: cpages}
            pol = sum(v for n, v in per.items() if n in (1, 2))
            stage = "before" if pol == cpages and not lat["after"] else "after"
            ns = int(self.val((32e6 if stage == "before" else 24e6) * (1 + 0.3 * self.rng.random()), "lower"))
            lat[stage].append(ns)
            for n, v in per.items():
                placed[n] = placed.get(n, 0) + v
                first.setdefault(n, i)
            rows.append([i, (i + 1) * chunk, max(per, key=per.get), pol, cpages - pol,
                         ",".join(f"{n}:{v}" for n, v in per.items()), ns])
        order = [[n, first[n], first[n] * chunk, placed[n], n in (1, 2)] for n in first]

        def pct(v, q):
            v = sorted(v)
            return v[min(len(v) - 1, int(q / 100 * len(v)))]
        ms = [metric(f"chunk_latency_{q}_ns", "ns", "lower", pct(lat[st], int(q[1:])), {"spill": st})
              for st in ("before", "after") for q in ("p50", "p99")]
        ms += [metric("spilled_pages", "pages", None, placed.get(0, 0), aggregate="last")]
        return self.wl("exhaust", params={"size": 0, "chunk": chunk, "nodes": "private",
                                          "policy": "preferred_many"},
                       metrics=ms,
                       tables=[{"name": "spill_curve",
                                "description": "every chunk in request order: bytes requested so far, the node "
                                               "most of it landed on, pages on and off the policy's nodes",
                                "columns": [{"name": "chunk", "unit": None},
                                            {"name": "requested_bytes", "unit": "bytes"},
                                            {"name": "node", "unit": None},
                                            {"name": "policy_pages", "unit": "pages"},
                                            {"name": "elsewhere_pages", "unit": "pages"},
                                            {"name": "nodes", "unit": None}, {"name": "fault_ns", "unit": "ns"}],
                                "rows": rows},
                               {"name": "spill_order",
                                "description": "nodes in the order the allocation first reached them",
                                "columns": [{"name": "node", "unit": None}, {"name": "first_chunk", "unit": None},
                                            {"name": "first_requested_bytes", "unit": "bytes"},
                                            {"name": "pages", "unit": "pages"},
                                            {"name": "policy_node", "unit": None}],
                                "rows": order}],
                       checks=[{"name": "host unharmed: OOM kills outside the workload's cgroup",
                                "expected": "<= 0 kills", "observed": "0 kills", "pass": True,
                                "source": "workload"}])

    def general(self, phase):
        """General pages by kind per private node in this phase."""
        g = {n: {k: 0 for k in KINDS} for n in (1, 2)}
        if phase == "pressure" and self.leak:
            g[1]["anon"] = self.leak * 3 // 4
            g[1]["file"] = self.leak - g[1]["anon"]
        if phase == "probes" and self.probe_leak:
            g[1]["slab"] = 40 * self.probe_leak
            g[2]["page_tables"] = 8 * self.probe_leak if self.kernel == "stock" else 0
        return g

    # ---- the run ----
    def build(self, incomplete):
        t = T_START
        csv_rows = []
        iters = []
        verdict_max = {1: 0, 2: 0}
        failures = []
        nchecks = npass = 0
        base = {n: {"anon": 200 << 20, "file": 400 << 20, "slab": 90 << 20, "ks": 4 << 20,
                    "pt": 8 << 20, "other": 60 << 20} for n in NODES}
        base[0] = {"anon": 1 << 30, "file": 3 << 30, "slab": 600 << 20, "ks": 12 << 20,
                   "pt": 40 << 20, "other": 500 << 20}
        for n in (1, 2):
            base[n] = {"anon": 0, "file": 0, "slab": 2 << 20, "ks": 0, "pt": 0, "other": 1 << 20}
        stop_at = (self.iterations - 1, "latency") if incomplete else None
        for it in range(self.iterations):
            phases = []
            for name, nsamp in PHASES:
                if stop_at and (it, name) == stop_at:
                    break
                t0 = t
                wls = self.phase_workloads(name)
                gen = self.general(name)
                # memory trajectory: explicit/interleave/exhaust pages ramp up and are freed
                explicit_bytes = {"explicit": {1: 16 << 20, 2: 16 << 20},
                                  "interleave": {1: 24 << 20, 2: 8 << 20},
                                  "exhaust": {1: (3584 << 20), 2: (3 << 30) if self.kernel != "isolate" else 0},
                                  }.get(name, {})
                for s in range(nsamp):
                    frac = min(1.0, s / max(1, nsamp - 3))
                    row = [t, it, name]
                    for n in NODES:
                        b = base[n]
                        anon = b["anon"] + int(explicit_bytes.get(n, 0) * frac)
                        file_ = b["file"]
                        slab = b["slab"]
                        pt = b["pt"]
                        if n in gen:
                            anon += int(gen[n]["anon"] * PAGE * frac)
                            file_ += int(gen[n]["file"] * PAGE * frac)
                            slab += int(gen[n]["slab"] * PAGE * frac)
                            pt += int(gen[n]["page_tables"] * PAGE * frac)
                        if n == 0 and name == "pressure":
                            anon += int((6 << 30) * frac)
                            file_ += int((2 << 30) * frac)
                        if n == 0 and name == "exhaust" and self.kernel == "isolate":
                            anon += int((3 << 30) * frac)
                        used = anon + file_ + slab + b["ks"] + pt + b["other"] + self.rng.randint(0, 64) * PAGE
                        row += [MEM_TOTAL[n], MEM_TOTAL[n] - used, used, anon, file_, slab,
                                b["ks"], pt, 0, 0, 1000000 + s * 10, (MEM_TOTAL[n] - used) // PAGE]
                    csv_rows.append(row)
                    t += INTERVAL_NS
                t1 = t - INTERVAL_NS // 2
                nodes = {}
                for n, role in NODES.items():
                    gk = gen.get(n, {k: 0 for k in KINDS})
                    total = sum(gk.values())
                    expl = (explicit_bytes.get(n, 0) // PAGE) if n in (1, 2) else 0
                    gp = dict(gk, total=total, net_pages=total, moment="peak" if total else "end",
                              t_ns=t1 - INTERVAL_NS)
                    attrib = []
                    if total:
                        attrib = [{"source": "cgroup", "workload": "memhog" if name == "pressure" else "probes",
                                   "role": "background" if name == "pressure" else "foreground",
                                   "pages": total - (total // 8)},
                                  {"source": "outside", "workload": None, "role": None, "pages": total // 8}]
                    tot_p = MEM_TOTAL[n] // PAGE
                    used0 = sum(base[n].values()) // PAGE
                    k0 = {"anon": base[n]["anon"] // PAGE, "file": base[n]["file"] // PAGE,
                          "slab": base[n]["slab"] // PAGE, "kernel_stack": base[n]["ks"] // PAGE,
                          "page_tables": base[n]["pt"] // PAGE, "hugetlb": 0, "other": base[n]["other"] // PAGE}
                    grow = dict(gk)
                    grow["anon"] += expl
                    k1 = {k: k0[k] + grow[k] for k in k0}

                    def read(kinds, used):
                        return {"kinds": kinds, "total_pages": tot_p, "used_pages": used, "pcp_pages": 512,
                                "settled": True, "passes": 2, "pcp_moved_pages": 0,
                                "numa_hit": 1000000, "numa_miss": 0, "numa_foreign": 0}
                    nodes[str(n)] = {"role": role, "before": read(k0, used0),
                                     "after": read(k1, used0 + expl + total),
                                     "used_growth_pages": expl + total, "growth_pages": grow,
                                     "explained_pages": expl, "explained_freed_pages": 0, "samples": nsamp, "samples_unsettled": 0, "general_pages": gp,
                                     "general_end": dict(gp, moment="end"), "general_peak": dict(gp, moment="peak"),
                                     "numa_hit_delta": 100, "numa_miss_delta": 0, "numa_foreign_delta": 0,
                                     "private_fallback_delta": 0,
                                     "sources": {"growth": "nodeN/meminfo - zoneinfo pcp, stat_refresh folded",
                                                 "explained": "move_pages census of foreground workloads",
                                                 "attribution": "memory.numa_stat of each workload's cgroup"},
                                     "attribution": attrib, "disagreements": []}
                    if role == "private":
                        verdict_max[n] = max(verdict_max[n], total)
                events = {"perf": {"nodes": {str(n): {"explicit_pages": (explicit_bytes.get(n, 0) // PAGE),
                                                      "general_pages": sum(gen[n].values()),
                                                      "general_alloc_pages": sum(gen[n].values()),
                                                      "general_freed_pages": 0,
                                                      "net_pages": sum(gen[n].values()), "lost_events": 0,
                                                      "inconclusive": False} for n in (1, 2)},
                                   "events": 1000 + sum(sum(g.values()) for g in gen.values()),
                                   "lost_events": 0, "details": {}}}
                for w in wls:
                    w["duration_ns"] = t1 - t0 - 1000
                    for c in w["checks"]:
                        nchecks += 1
                        if c["pass"]:
                            npass += 1
                        else:
                            failures.append({"point": 0, "iteration": it, "phase": name,
                                             "workload": w["workload"], "name": c["name"],
                                             "expected": c["expected"], "observed": c["observed"]})
                phases.append({"name": name, "t0_ns": t0, "t1_ns": t1, "duration_ns": t1 - t0,
                               "knobs": ([{"key": "weighted_interleave.node1", "path":
                                           "/sys/kernel/mm/mempolicy/weighted_interleave/node1",
                                           "old": "1", "new": "3", "changed": True, "restored": True,
                                           "error": None}]
                                         if name == "interleave" else []),
                               "workloads": wls, "nodes": nodes, "events": events})
                t += INTERVAL_NS * 3
            iters.append({"index": it, "phases": phases})
        summary = self.summarize(iters)
        thresholds = {"general_pages": 0, "misplaced_pages": 0}
        vnodes = {str(n): {"general_pages_max": m, "pass": m <= 0, "inconclusive": False,
                           "sources": {"counters": m, "events": m}} for n, m in verdict_max.items()}
        reasons = []
        for n, m in verdict_max.items():
            if m:
                reasons.append(f"private node {n}: {m} general pages (threshold 0)")
        for f in failures[:3]:
            reasons.append(f"check failed: {f['phase']}/{f['workload']}: {f['name']}")
        result = "fail" if reasons else "pass"
        if incomplete:
            result = "inconclusive"
            reasons.append("run incomplete: interrupted by SIGINT")
        return csv_rows, iters, summary, {
            "result": result, "thresholds": thresholds, "nodes": vnodes,
            "checks": {"total": nchecks, "passed": npass, "failed": nchecks - npass,
                       "failures": failures},
            "misplaced_pages": 0, "reasons": reasons, "exit_code": {"pass": 0, "fail": 1}.get(result, 5)}

    @staticmethod
    def summarize(iters):
        acc = {}
        for it in iters:
            for ph in it["phases"]:
                for wi, w in enumerate(ph["workloads"]):
                    if w["role"] != "foreground" or w["status"] != "ok":
                        continue
                    for m in w["metrics"]:
                        k = (ph["name"], wi, w["workload"], m["name"], json.dumps(m["labels"], sort_keys=True))
                        e = acc.setdefault(k, dict(m, values=[]))
                        e["values"].append(m["value"])
        out = []
        for (phase, wi, wl, name, _), m in acc.items():
            v = sorted(m["values"])
            n = len(v)
            mean = sum(v) / n
            sd = (sum((x - mean) ** 2 for x in v) / (n - 1)) ** 0.5 if n > 1 else 0.0
            med = v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2
            out.append({"phase": phase, "workload_index": wi, "workload": wl, "name": name,
                        "labels": m["labels"], "unit": m["unit"], "better": m["better"],
                        "aggregate": m["aggregate"], "n": n, "values": m["values"],
                        "median": med, "mean": mean, "stddev": sd, "min": v[0], "max": v[-1],
                        "value": med})
        return {"metrics": out}


CSV_KEYS = ["meminfo.MemTotal", "meminfo.MemFree", "meminfo.MemUsed", "meminfo.AnonPages",
            "meminfo.FilePages", "meminfo.Slab", "meminfo.KernelStack", "meminfo.PageTables",
            "meminfo.HugePages_Total", "meminfo.HugePages_Free", "numa_hit", "vmstat.nr_free_pages"]


def write_run(out, kernel="private", seed=1, iterations=5, shift=0.0, noise=1.5,
              incomplete=False, leak=None, topology="reference-movable"):
    g = Gen(kernel, seed, iterations, shift, noise, leak)
    csv_rows, iters, summary, verdict = g.build(incomplete)
    os.makedirs(out, exist_ok=True)
    header = ["t_ns", "iteration", "phase"] + [f"node{n}.{k}" for n in NODES for k in CSV_KEYS]
    lines = [",".join(header)] + [",".join(str(x) for x in r) for r in csv_rows]
    text = "\n".join(lines) + "\n"
    if incomplete:
        text = text[:-17]          # killed mid-write: a truncated last line
    with open(os.path.join(out, "nodestat.csv"), "w") as fh:
        fh.write(text)
    with open(os.path.join(out, "topology.xml"), "w") as fh:
        fh.write('<?xml version="1.0" encoding="UTF-8"?>\n<topology version="2.0"/>\n')
    cfg_sha = hashlib.sha256(b"configs/scenarios.json").hexdigest()
    series = SERIES[kernel]
    doc = {
        "schema_version": 2,
        "tool": {"name": "pnbench", "version": "v2.0-fixture"},
        "status": ({"state": "incomplete", "reason": "interrupted by SIGINT"} if incomplete
                   else {"state": "complete", "reason": None}),
        "started_at": (T0 + datetime.timedelta(hours=seed)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "updated_at": (T0 + datetime.timedelta(hours=seed, minutes=4)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": ["run", "configs/scenarios.json"],
        "host": {"hostname": "guest-" + topology, "machine": "x86_64", "ncpus_online": 2,
                 "page_size": PAGE, "mem_total_bytes": sum(MEM_TOTAL.values())},
        "kernel": {"release": RELEASE[kernel], "version": "#1 SMP PREEMPT_DYNAMIC",
                   "cmdline": "console=ttyS0 memhp_default_state=offline movable_node",
                   "kconfig_sha256": hashlib.sha256(kernel.encode()).hexdigest(),
                   "kconfig_source": "/boot/config-" + RELEASE[kernel],
                   "series": dict(series or {"id": None, "mode": None},
                                  private_nodes_supported=kernel != "stock"),
                   "sysctls": {"kernel.numa_balancing": "0", "vm.zone_reclaim_mode": "0",
                               "mm.transparent_hugepage.enabled": "always [madvise] never"}},
        "config": {"file": "configs/scenarios.json", "name": "scenarios", "sha256": cfg_sha,
                   "matrix_points": 1},
        "roles": {"private": "1-2", "dram": "0", "private_auto": kernel != "stock"},
        "topology": {"nodes": [{"id": n, "has_cpu": n == 0, "has_memory": True,
                                "has_private_memory": kernel != "stock" and n != 0,
                                "cpus": "0-1" if n == 0 else "", "mem_total_bytes": MEM_TOTAL[n],
                                "memory_tier": 4 if n == 0 else 22,
                                "subtype": "" if n == 0 else "CXL-DRAM"} for n in NODES],
                     "distances": {str(a): {str(b): (10 if a == b else 20 if 0 in (a, b) else 30)
                                            for b in NODES} for a in NODES},
                     "hmat": {"0": {"access0": {"read_latency_ns": 80, "read_bandwidth_mbps": 19000}},
                              "1": {"access0": {"read_latency_ns": 250, "read_bandwidth_mbps": 7600}},
                              "2": {"access0": {"read_latency_ns": 260, "read_bandwidth_mbps": 7600}}}},
        "topology_xml": "topology.xml",
        "accounting": {"counters_refreshed": True, "pcp_corrected": True,
                       "settle": {"method": "wait", "max_passes_private": 96, "max_passes_other": 12,
                                  "max_passes_sample": 6},
                       "cgroup": {"version": 2, "reason": ""}},
        "collectors": [{"collector": "nodestat", "interval_ms": INTERVAL_NS // 1_000_000, "params": {},
                        "kind": "sampler", "status": "ok", "file": "nodestat.csv",
                        "columns": len(header) - 3, "rows": len(csv_rows) - (1 if incomplete else 0)},
                       {"collector": "perf", "interval_ms": 0, "params": {}, "kind": "event", "status": "ok",
                        "file": None, "columns": 0, "rows": 0}],
        "points": [{"index": 0, "matrix": None, "config": {"name": "scenarios"},
                    "iterations": iters, "summary": summary}],
        "verdict": verdict,
    }
    with open(os.path.join(out, "run.json"), "w") as fh:
        json.dump(doc, fh, indent=1, sort_keys=False)
        fh.write("\n")
    return doc


EXPECT = {
    "pressure": {"stock": "> 0", "isolate": "0", "private": "0"},
    "probes": {"stock": "> 0 probes", "isolate": ">= 1 probe", "private": "0 of 8"},
    "explicit": {"stock": "8192 pages", "isolate": "8192 pages", "private": "8192 pages"},
    "interleave": {"stock": "any", "isolate": "any", "private": "100 %"},
    "exhaust": {"stock": "any", "isolate": "any", "private": "next device, then DRAM, no OOM"},
    "multinode": {"stock": "served", "isolate": "refused", "private": "served"},
}


def write_demo(out, seed=1):
    cells = []
    for ti, topo in enumerate(("reference-movable", "reference-normal")):
        for ki, kernel in enumerate(("stock", "isolate", "private")):
            rel = f"{kernel}-{topo}"
            doc = write_run(os.path.join(out, rel), kernel=kernel, seed=seed + 10 * ti + ki,
                            iterations=3, topology=topo)
            ph = doc["points"][0]["iterations"][0]["phases"]
            pres = max(sum(ph[5]["nodes"][n]["general_pages"]["total"] for n in ("1", "2")) for _ in [0])
            probes_bad = sum(1 for c in ph[4]["workloads"][0]["checks"] if not c["pass"])
            dist = ph[1]["workloads"][0]["tables"][0]["rows"]
            match = round(100 * sum(1 for r in dist if r[2] == r[3]) / len(dist))
            rows = {
                "pressure": {"value": pres, "text": f"{pres} pages",
                             "expected": EXPECT["pressure"][kernel],
                             "pass": (pres > 0) if kernel == "stock" else pres == 0},
                "probes": {"value": probes_bad, "text": f"{probes_bad} of 8 probes",
                           "expected": EXPECT["probes"][kernel],
                           "pass": (probes_bad > 0) if kernel != "private" else probes_bad == 0},
                "explicit": {"value": 8192, "text": "8192 pages", "expected": "8192 pages", "pass": True},
                "interleave": {"value": match, "text": f"{match} %",
                               "expected": EXPECT["interleave"][kernel],
                               "pass": match == 100 or kernel != "private"},
                "exhaust": {"value": "ok", "text": ("node 1 → 2 → 0, no OOM" if kernel != "isolate"
                                                    else "node 1 → 0, no OOM"),
                            "expected": EXPECT["exhaust"][kernel], "pass": True},
                "multinode": {"value": "refused" if kernel == "isolate" else "served",
                              "text": "EINVAL" if kernel == "isolate" else "served",
                              "expected": EXPECT["multinode"][kernel], "pass": True},
            }
            if kernel == "isolate" and topo == "reference-movable":
                # a cell that did not come out as expected, to show how it looks
                rows["probes"].update(value=0, text="0 of 8 probes", **{"pass": False})
            cells.append({"kernel": kernel, "topology": topo, "run": rel, "rows": rows})
    with open(os.path.join(out, "demo.json"), "w") as fh:
        json.dump({"schema_version": 1, "cells": cells}, fh, indent=1)
        fh.write("\n")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("out")
    r.add_argument("--kernel", default="private", choices=sorted(SERIES))
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--iterations", type=int, default=5)
    r.add_argument("--shift", type=float, default=0.0)
    r.add_argument("--noise", type=float, default=1.5)
    r.add_argument("--incomplete", action="store_true")
    r.add_argument("--leak", type=int)
    d = sub.add_parser("demo")
    d.add_argument("out")
    d.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv[1:])
    if a.cmd == "run":
        write_run(a.out, a.kernel, a.seed, a.iterations, a.shift, a.noise, a.incomplete, a.leak)
    else:
        write_demo(a.out, a.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

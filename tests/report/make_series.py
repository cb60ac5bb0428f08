#!/usr/bin/python3
"""A long run for the report's scale test: a real run of tests/report/golden/
with its series stretched to ROWS samples.

usage: make_series.py OUT_DIR [--rows N] [--golden NAME] [--interval-ms MS]

OUT_DIR gets the golden's run.json and a nodestat.csv and vmstat.csv of ROWS
rows each (the CSV format of core/api/series.c: t_ns,iteration,phase,<raw
counters>).  nodestat.csv has the golden's real header; vmstat.csv has the
counter names of the golden's node0.vmstat.* columns (the golden leaves
vmstat.csv out, its run.json still names it).  The rows are the golden's own
samples of the same phase, cycled, every INTERVAL (200 ms: an hour is 18 000
rows) apart; each phase of run.json gets its share of the rows and its t0_ns
and t1_ns are moved to span them, so the plot's phases match the samples.
One sample in the middle of the first phase of the first node's panel carries
a spike of +SPIKE_BYTES of anonymous memory on node 0 (a plot that drops
peaks loses it).  Deterministic: the same arguments write the same files.
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GOLD = os.path.join(HERE, "golden")
SPIKE_BYTES = 64 << 30


def _golden_rows(path):
    with open(path) as fh:
        lines = fh.read().splitlines()
    header = lines[0].split(",")
    by_phase = {}
    for line in lines[1:]:
        t, it, phase, rest = line.split(",", 3)
        by_phase.setdefault(phase, []).append(rest.split(","))
    return header, by_phase


def _phases(doc):
    """[(global iteration, phase dict)] in run order."""
    out, g = [], 0
    for p in doc["points"]:
        for it in p["iterations"]:
            out += [(g, ph) for ph in it["phases"]]
            g += 1
    return out


def write(out, rows=200_000, golden="private-exhaust", interval_ms=200):
    src = os.path.join(GOLD, golden)
    with open(os.path.join(src, "run.json")) as fh:
        doc = json.load(fh)
    header, by_phase = _golden_rows(os.path.join(src, "nodestat.csv"))
    vm_idx = [i - 3 for i, h in enumerate(header) if h.startswith("node0.vmstat.")]
    vm_header = ["t_ns", "iteration", "phase"] + [header[i + 3][len("node0.vmstat."):] for i in vm_idx]
    anon = header.index("node0.meminfo.AnonPages") - 3
    phases = _phases(doc)
    any_rows = next(iter(by_phase.values()))
    step = interval_ms * 1_000_000
    t = phases[0][1].get("t0_ns") or 1_000_000_000
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "nodestat.csv"), "w") as ns, open(os.path.join(out, "vmstat.csv"), "w") as vm:
        ns.write(",".join(header) + "\n")
        vm.write(",".join(vm_header) + "\n")
        done = 0
        for k, (g, ph) in enumerate(phases):
            n = (rows - done) // (len(phases) - k)
            src_rows = by_phase.get(ph["name"]) or any_rows
            ph["t0_ns"] = t
            ns_lines, vm_lines = [], []
            for i in range(n):
                vals = src_rows[i % len(src_rows)]
                if k == 0 and i == n // 2:
                    vals = list(vals)
                    vals[anon] = str(int(vals[anon]) + SPIKE_BYTES)
                pre = f"{t + i * step},{g},{ph['name']},"
                ns_lines.append(pre + ",".join(vals) + "\n")
                vm_lines.append(pre + ",".join(vals[j] for j in vm_idx) + "\n")
            ns.writelines(ns_lines)
            vm.writelines(vm_lines)
            ph["t1_ns"] = t + max(0, n - 1) * step
            t += n * step
            done += n
    for c in doc["collectors"]:
        if c.get("file") in ("nodestat.csv", "vmstat.csv"):
            c["rows"] = rows
            c["columns"] = (len(header) if c["file"] == "nodestat.csv" else len(vm_header)) - 3
            c["status"] = "ok"
    doc["collectors"] = [c for c in doc["collectors"] if c.get("file") in ("nodestat.csv", "vmstat.csv")]
    with open(os.path.join(out, "run.json"), "w") as fh:
        json.dump(doc, fh)
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--golden", default="private-exhaust")
    ap.add_argument("--interval-ms", type=int, default=200)
    a = ap.parse_args(argv[1:])
    write(a.out, a.rows, a.golden, a.interval_ms)
    print(a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/python3
"""pnreport: read pnbench results.

usage:
  pnreport.py summary RUN_DIR            the verdict, per-node general pages and metric medians
  pnreport.py plot RUN_DIR [-o FILE.png] per-node memory over time (from nodestat.csv),
                                         phases shaded, private nodes marked

Reads run.json and the collector CSVs exactly as results/schema describes them;
refuses (exit 2) a run.json whose schema_version it does not know.
"""
import argparse
import csv
import json
import os
import sys

SCHEMA_VERSIONS = {2}


def load_run(path):
    jpath = os.path.join(path, "run.json")
    try:
        with open(jpath) as fh:
            doc = json.load(fh)
    except (OSError, ValueError) as e:
        sys.exit(f"pnreport: {jpath}: {e}")
    if doc.get("schema_version") not in SCHEMA_VERSIONS:
        print(f"pnreport: {jpath}: schema_version {doc.get('schema_version')!r} is not one of "
              f"{sorted(SCHEMA_VERSIONS)}", file=sys.stderr)
        sys.exit(2)
    return doc


def cmd_summary(args):
    d = load_run(args.run)
    st = d["status"]
    print(f"run {args.run}: {d['config']['name']} on {d['host']['hostname']}, "
          f"kernel {d['kernel']['release']}, {st['state']}"
          + (f" ({st['reason']})" if st.get("reason") else ""))
    print(f"roles: private [{d['roles']['private']}] dram [{d['roles']['dram']}]")
    for p in d["points"]:
        label = json.dumps(p["matrix"]) if p.get("matrix") else ""
        print(f"point {p['index']} {label}".rstrip())
        for m in p.get("summary", {}).get("metrics", []):
            labels = ",".join(f"{k}={v}" for k, v in m["labels"].items())
            name = f"{m['phase']}/{m['workload_index']}:{m['workload']} {m['name']}" + \
                (f"{{{labels}}}" if labels else "")
            print(f"  {name:52s} {m['aggregate']} {m['value']:>14.6g} {m['unit']} (n={m['n']})")
        worst = {}
        for it in p["iterations"]:
            for ph in it["phases"]:
                for node, nd in ph["nodes"].items():
                    if nd["role"] != "private":
                        continue
                    g = nd["general_pages"]
                    if node not in worst or g["total"] > worst[node]["total"]:
                        worst[node] = g
        for node, g in sorted(worst.items(), key=lambda kv: int(kv[0])):
            kinds = ", ".join(f"{k} {v}" for k, v in g.items()
                              if k not in ("total", "net_pages", "moment", "t_ns") and v)
            print(f"  private node {node}: worst phase {g['total']} general pages"
                  + (f" ({kinds})" if kinds else ""))
    v = d["verdict"]
    print(f"verdict: {v['result']}")
    for r in v["reasons"]:
        print(f"  {r}")
    return 0


def read_series(path):
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    if not rows or rows[0][:3] != ["t_ns", "iteration", "phase"]:
        sys.exit(f"pnreport: {path}: not a pnbench series (header must start t_ns,iteration,phase)")
    return rows[0], rows[1:]


def cmd_plot(args):
    d = load_run(args.run)
    path = os.path.join(args.run, "nodestat.csv")
    if not os.path.exists(path):
        print(f"pnreport: {path}: missing (the run had no nodestat collector)", file=sys.stderr)
        return 2
    header, rows = read_series(path)
    if not rows:
        print(f"pnreport: {path}: no samples", file=sys.stderr)
        return 2
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    col = {name: i for i, name in enumerate(header)}
    nodes = sorted({int(h.split(".")[0][4:]) for h in header[3:] if h.startswith("node")})
    private = set()
    for part in d["roles"]["private"].split(","):
        if "-" in part:
            a, b = part.split("-")
            private.update(range(int(a), int(b) + 1))
        elif part:
            private.add(int(part))
    t0 = int(rows[0][0])
    t = [(int(r[0]) - t0) / 1e9 for r in rows]
    fig, axes = plt.subplots(len(nodes), 1, figsize=(10, 2.6 * len(nodes)), sharex=True,
                             squeeze=False)
    kinds = [("meminfo.AnonPages", "anon"), ("meminfo.FilePages", "file"),
             ("meminfo.Slab", "slab"), ("meminfo.MemUsed", "used")]
    for ax, node in zip(axes[:, 0], nodes):
        for key, label in kinds:
            c = col.get(f"node{node}.{key}")
            if c is None:
                continue
            ax.plot(t, [int(r[c]) / 2**20 for r in rows], label=label)
        role = "private" if node in private else "dram"
        ax.set_ylabel("MiB")
        ax.set_title(f"node {node} ({role})", loc="left", fontsize=10,
                     color="tab:red" if node in private else "black")
        # shade each phase of each iteration
        start = 0
        for i in range(1, len(rows) + 1):
            if i == len(rows) or rows[i][1:3] != rows[start][1:3]:
                if (int(rows[start][1]) + len(rows[start][2])) % 2 == 0:
                    ax.axvspan(t[start], t[i - 1], color="0.93", zorder=0)
                start = i
        ax.grid(True, alpha=0.3)
    axes[0, 0].legend(loc="upper right", fontsize=8, ncol=len(kinds))
    axes[-1, 0].set_xlabel("seconds since the first sample")
    fig.suptitle(f"{d['config']['name']} on {d['host']['hostname']} ({d['kernel']['release']}): "
                 f"verdict {d['verdict']['result']}", fontsize=10)
    fig.tight_layout()
    out = args.output or os.path.join(args.run, "nodes.png")
    fig.savefig(out, dpi=100)
    print(out)
    return 0


def main(argv):
    ap = argparse.ArgumentParser(prog="pnreport", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("summary", help="verdict, general pages by kind, metric medians")
    s.add_argument("run")
    s.set_defaults(fn=cmd_summary)
    p = sub.add_parser("plot", help="per-node memory over time (PNG)")
    p.add_argument("run")
    p.add_argument("-o", "--output")
    p.set_defaults(fn=cmd_plot)
    args = ap.parse_args(argv[1:])
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv))

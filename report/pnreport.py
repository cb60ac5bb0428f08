#!/usr/bin/python3
"""pnreport: read pnbench results.

usage:
  pnreport.py summary RUN_DIR            the verdict, per-node general pages and metric medians
  pnreport.py plot RUN_DIR [-o FILE.png] per-node memory growth since each phase start
                                         (MiB, from nodestat.csv), phases shaded by name,
                                         private nodes marked
  pnreport.py run RUN_DIR                one self-contained HTML report (schema_version 2)
  pnreport.py compare A B [C...]         A/B statistics and a regression gate
  pnreport.py dashboard RESULTS...       SQLite index, history pages, CSV export
  pnreport.py demo DEMO_DIR              the truth table of make demo
  pnreport.py demo-table DEMO_DIR        judge make demo's cells into DEMO_DIR/demo.json
  pnreport.py load RESULTS... --db DB    index only (SQLite or PostgreSQL, insert-only role)
  pnreport.py index-init --db URL        a shared PostgreSQL index and its roles
  (all but plot are report/pnreportlib/: see report/README.md and
   pnreport.py run -h etc.)

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


def private_nodes(spec):
    """"1,3-4" -> {1, 3, 4}"""
    out = set()
    for part in spec.split(","):
        if "-" in part:
            a, b = part.split("-")
            out.update(range(int(a), int(b) + 1))
        elif part:
            out.add(int(part))
    return out


def phase_segments(rows):
    """[(start, end, iteration, phase)]: runs of rows [start, end) of one phase of one iteration."""
    segs, start = [], 0
    for i in range(1, len(rows) + 1):
        if i == len(rows) or rows[i][1:3] != rows[start][1:3]:
            segs.append((start, i, int(rows[start][1]), rows[start][2]))
            start = i
    return segs


def phase_colors(segs):
    """One colour per phase name, in order of first appearance: the same phase
    looks the same in every iteration, two phases never share a colour (up to 8)."""
    palette = ["#cfe2f3", "#fce5cd", "#d9ead3", "#ead1dc", "#fff2cc", "#d0e0e3", "#f4cccc",
               "#d9d2e9"]
    names = []
    for _, _, _, name in segs:
        if name not in names:
            names.append(name)
    return {name: palette[i % len(palette)] for i, name in enumerate(names)}


def series_deltas(values, segs):
    """values relative to the first sample of their phase segment, with None
    between segments so that lines break at phase boundaries."""
    xs, out = [], []
    for start, end, _, _ in segs:
        base = values[start]
        xs.extend(range(start, end))
        out.extend(v - base for v in values[start:end])
        xs.append(None)
        out.append(None)
    return xs, out


KINDS = [("meminfo.MemUsed", "used"), ("meminfo.AnonPages", "anon"),
         ("meminfo.FilePages", "file"), ("meminfo.Slab", "slab")]
LEGEND_RIGHT = 0.80  # the axes end here; the legend lives to their right


def build_plot(d, header, rows):
    """The figure: one axis per node, per-kind growth since the start of each
    phase (MiB), phases shaded by name, the legend outside the axes."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    col = {name: i for i, name in enumerate(header)}
    nodes = sorted({int(h.split(".")[0][4:]) for h in header[3:] if h.startswith("node")})
    private = private_nodes(d["roles"]["private"])
    t0 = int(rows[0][0])
    t = [(int(r[0]) - t0) / 1e9 for r in rows]
    segs = phase_segments(rows)
    colors = phase_colors(segs)
    fig, axes = plt.subplots(len(nodes), 1, figsize=(11, 2.6 * len(nodes)), sharex=True,
                             squeeze=False)
    handles = {}
    for ax, node in zip(axes[:, 0], nodes):
        for start, end, _, name in segs:
            right = t[end] if end < len(t) else t[end - 1]
            ax.axvspan(t[start], right, color=colors[name], zorder=0, lw=0)
            if start:
                ax.axvline(t[start], color="0.55", lw=0.6, ls=":", zorder=1)
        for key, label in KINDS:
            c = col.get(f"node{node}.{key}")
            if c is None:
                continue
            xs, ys = series_deltas([int(r[c]) for r in rows], segs)
            line, = ax.plot([t[x] if x is not None else float("nan") for x in xs],
                            [y / 2**20 if y is not None else float("nan") for y in ys],
                            label=label, lw=1.4)
            if label in handles:
                line.set_color(handles[label].get_color())
            else:
                handles[label] = line
        ax.axhline(0, color="0.5", lw=0.6)
        role = "private" if node in private else "dram"
        ax.set_ylabel("MiB since\nphase start")
        ax.set_title(f"node {node} ({role})", loc="left", fontsize=10,
                     color="tab:red" if node in private else "black")
        ax.grid(True, alpha=0.3)
    legend = [handles[k] for _, k in KINDS if k in handles]
    legend += [Patch(color=c, label=f"phase {n}") for n, c in colors.items()]
    fig.legend(handles=legend, loc="upper left", bbox_to_anchor=(LEGEND_RIGHT + 0.01, 0.92),
               fontsize=8, frameon=False)
    axes[-1, 0].set_xlabel("seconds since the first sample")
    fig.suptitle(f"{d['config']['name']} on {d['host']['hostname']} ({d['kernel']['release']}): "
                 f"verdict {d['verdict']['result']}", fontsize=10)
    fig.tight_layout(rect=(0, 0, LEGEND_RIGHT, 0.96))
    return fig


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
    fig = build_plot(d, header, rows)
    out = args.output or os.path.join(args.run, "nodes.png")
    fig.savefig(out, dpi=100)
    print(out)
    return 0


# Commands implemented by the report/pnreportlib/ package (schema_version 2).
PACKAGE_COMMANDS = ("run", "compare", "dashboard", "demo", "demo-table", "load", "index-init")


def _wants_package(argv):
    # plot stays here (tests/integration/test-report.sh); summary is the package's
    # (it also reads incomplete and malformed runs with exit 2)
    return len(argv) > 1 and (argv[1] in PACKAGE_COMMANDS or argv[1] == "summary")


def main(argv):
    if _wants_package(argv):
        sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
        from pnreportlib.cli import main as package_main
        return package_main(argv)
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

#!/usr/bin/python3
"""Checks of `pnreport.py plot` (called by test-report.sh; TAP lines on stdout).

usage: check-plot.py synthetic DIR     build a 2-node run in DIR and check the plot's logic
       check-plot.py png FILE W H      FILE is a real W x H PNG with non-trivial content

The synthetic run: node 0 dram, node 1 private with 16 GiB in use, phases
"warm" and "load" (same name length) in two iterations; node 1 grows by
exactly 8 MiB during "load".  On a whole-node axis that growth is 0.05 % of
the range; plotted as the change since the phase start it must fill the axis.
The figure is report/pnreportlib/plots.nodes_over_time, what `plot` and `run` draw.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "report"))
from pnreportlib import load, plots  # noqa: E402

n = 0


def t(desc, ok, why=""):
    global n
    n += 1
    print(f"{'ok' if ok else 'not ok'} {n} - {desc}" + (f"  # {why}" if why and not ok else ""))
    return ok


def synthetic(d):
    os.makedirs(d, exist_ok=True)
    header = ["t_ns", "iteration", "phase"]
    for node in (0, 1):
        header += [f"node{node}.meminfo.MemUsed", f"node{node}.meminfo.AnonPages"]
    rows = []
    base = {0: 2 << 30, 1: 16 << 30}
    k = 0
    for it in (0, 1):
        for phase in ("warm", "load"):
            for i in range(10):
                grow = (8 << 20) * i // 9 if phase == "load" else 0
                r = [str(k * 50_000_000), str(it), phase]
                for node in (0, 1):
                    used = base[node] + (grow if node == 1 else 4096 * i)
                    r += [str(used), str(used // 2)]
                rows.append(r)
                k += 1
            if phase == "load":
                base[1] += 8 << 20  # the growth stays: the next phase starts higher
    with open(os.path.join(d, "nodestat.csv"), "w") as fh:
        fh.write(",".join(header) + "\n")
        for r in rows:
            fh.write(",".join(r) + "\n")
    run = {"schema_version": 2, "config": {"name": "synthetic"}, "host": {"hostname": "h"},
           "kernel": {"release": "6.12"}, "status": {"state": "complete", "reason": None},
           "verdict": {"result": "pass"}, "roles": {"private": "1", "dram": "0"},
           "collectors": [{"collector": "nodestat", "status": "ok", "file": "nodestat.csv"}],
           "points": [{"index": 0, "iterations": [{"index": it, "phases": [{"name": p} for p in ("warm", "load")]}
                                                  for it in (0, 1)]}]}
    with open(os.path.join(d, "run.json"), "w") as fh:
        json.dump(run, fh)
    return load.load_run(d)


def check_synthetic(d):
    run = synthetic(d)
    ser = run.read_series("nodestat", plots.node_column)
    segs = ser.segments()
    t("four phase segments", [(s[0], s[1]) for s in segs] ==
      [(0, "warm"), (0, "load"), (1, "warm"), (1, "load")], repr(segs))
    seen = {}
    plots.INSPECT = lambda fig, name: seen.setdefault(name, inspect(fig))
    fig = plots.nodes_over_time(run, ser, {})
    plots.INSPECT = None
    got = seen.get("nodes") or {}
    colors = got.get("phase_colors", {})
    t("phases of the same name length get different colours",
      len(colors) == 2 and colors.get("phase warm") != colors.get("phase load"), repr(colors))
    load_d, warm_d = got.get("load", []), got.get("warm", [])
    t("deltas: node 1 grows by exactly 8 MiB in each load phase, 0 in warm",
      load_d and abs(max(load_d) - 8.0) < 1e-9 and min(load_d) == 0 and set(warm_d) == {0.0},
      f"{max(load_d or [0])} {set(warm_d)}")
    t("the legend overlaps no axes", got.get("legend_clear"), got.get("why", ""))
    t("private node's 8 MiB growth spans >= 80 % of its y axis", got.get("fill", 0) >= 0.8,
      f"{got.get('fill')}")
    out = os.path.join(d, "synthetic.png")
    with open(out, "wb") as fh:
        fh.write(fig.png)
    check_png(out, 1200 * plots.PNG_DPI // plots.DPI, 670 * plots.PNG_DPI // plots.DPI)


def inspect(fig):
    """What the checks need of the drawn figure: axes 0 is the phase strip, 1.. the nodes."""
    import numpy as np
    r = fig.canvas.get_renderer()
    ax1 = fig.axes[2]      # node 1
    leg = fig.axes[-1].get_legend()
    patches = {tx.get_text(): h.get_facecolor() for h, tx in zip(leg.legend_handles if hasattr(leg, "legend_handles")
                                                                   else leg.legendHandles, leg.get_texts())
               if tx.get_text().startswith("phase ")}
    used = next(ln for ln in ax1.get_lines() if ln.get_color() == "black")
    ys = np.asarray(used.get_ydata(), dtype=float)
    # 10 samples per phase, NaN between phases; phases alternate warm, load
    parts = np.split(ys, np.where(np.isnan(ys))[0])
    parts = [p[~np.isnan(p)] for p in parts if np.any(~np.isnan(p))]
    warm = [float(v) for p in parts[0::2] for v in p]
    load_ = [float(v) for p in parts[1::2] for v in p]
    lo, hi = ax1.get_ylim()
    fin = ys[~np.isnan(ys)]
    lb = leg.get_window_extent(r)
    boxes = [ax.get_window_extent(r) for ax in fig.axes]
    return {"phase_colors": {k: tuple(v) for k, v in patches.items()}, "warm": warm, "load": load_,
            "fill": float((fin.max() - fin.min()) / (hi - lo)), "legend_clear": not any(lb.overlaps(b) for b in boxes),
            "why": f"legend {lb} axes {boxes}"}


def check_png(path, w, h):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.image as mpimg

    with open(path, "rb") as fh:
        head = fh.read(24)
    ok = head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR"
    pw, ph = int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    t(f"{os.path.basename(path)} is a PNG of {w} x {h}", ok and (pw, ph) == (w, h),
      f"{pw} x {ph}")
    img = mpimg.imread(path)[:, :, :3]
    colours = len({tuple(p) for p in img.reshape(-1, 3)[::7].round(2).tolist()})
    t(f"{os.path.basename(path)} has content (pixel std {img.std():.3f}, {colours} colours)",
      img.std() > 0.05 and colours > 20)


if __name__ == "__main__":
    if sys.argv[1] == "synthetic":
        check_synthetic(sys.argv[2])
    elif sys.argv[1] == "png":
        check_png(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    print(f"# checks: {n}")

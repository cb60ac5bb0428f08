#!/usr/bin/python3
"""Checks of `pnreport.py plot` (called by test-report.sh; TAP lines on stdout).

usage: check-plot.py synthetic DIR     build a 2-node run in DIR and check the plot's logic
       check-plot.py png FILE W H      FILE is a real W x H PNG with non-trivial content

The synthetic run: node 0 dram, node 1 private with 16 GiB in use, phases
"warm" and "load" (same name length) in two iterations; node 1 grows by
exactly 8 MiB during "load".  On a whole-node axis that growth is 0.05 % of
the range; plotted as growth since the phase start it must fill the axis.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "report"))
import pnreport  # noqa: E402

n = 0


def t(desc, ok, why=""):
    global n
    n += 1
    print(f"{'ok' if ok else 'not ok'} {n} - {desc}" + (f"  # {why}" if why and not ok else ""))
    return ok


def synthetic(d):
    os.makedirs(d, exist_ok=True)
    run = {"schema_version": 2, "config": {"name": "synthetic"}, "host": {"hostname": "h"},
           "kernel": {"release": "6.12"}, "verdict": {"result": "pass"},
           "roles": {"private": "1", "dram": "0"}}
    with open(os.path.join(d, "run.json"), "w") as fh:
        json.dump(run, fh)
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
    return run, header, rows


def check_synthetic(d):
    run, header, rows = synthetic(d)
    segs = pnreport.phase_segments(rows)
    t("four phase segments", [(s[2], s[3]) for s in segs] ==
      [(0, "warm"), (0, "load"), (1, "warm"), (1, "load")], repr(segs))
    colors = pnreport.phase_colors(segs)
    t("phases of the same name length get different colours", colors["warm"] != colors["load"],
      repr(colors))
    c = header.index("node1.meminfo.MemUsed")
    xs, ys = pnreport.series_deltas([int(r[c]) for r in rows], segs)
    load = [y for x, y in zip(xs, ys) if x is not None and rows[x][2] == "load"]
    warm = [y for x, y in zip(xs, ys) if x is not None and rows[x][2] == "warm"]
    t("deltas: node 1 grows by exactly 8 MiB in each load phase, 0 in warm",
      max(load) == 8 << 20 and min(load) == 0 and set(warm) == {0}, f"{max(load)} {set(warm)}")

    fig = pnreport.build_plot(run, header, rows)
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    leg = fig.legends[0].get_window_extent(r)
    boxes = [ax.get_window_extent(r) for ax in fig.axes]
    t("the legend overlaps no axes", not any(leg.overlaps(b) for b in boxes),
      f"legend {leg} axes {boxes}")
    # node 1's "used" line must span most of its axis: the allocation is visible
    ax = fig.axes[1]
    line = next(ln for ln in ax.get_lines() if ln.get_label() == "used")
    ymin, ymax = ax.get_ylim()
    ydata = [y for y in line.get_ydata() if y == y]
    t("private node's 8 MiB growth spans >= 80 % of its y axis",
      (max(ydata) - min(ydata)) / (ymax - ymin) >= 0.8, f"ylim {ymin}..{ymax}, data {ydata}")
    out = os.path.join(d, "synthetic.png")
    fig.savefig(out, dpi=100)
    check_png(out, 1100, 520)


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

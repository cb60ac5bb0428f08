"""The figures of compare and the dashboard: every run's change per metric
against the baseline (whole labels, wrapped, never cut) and one metric's
history over runs.  Conventions as in plots.py, whose helpers they use."""
import textwrap
from collections import OrderedDict

import numpy as np

from . import fmt
from .plots import NODE_COLORS, RUN_COLORS, _new, _render, _suptitle, _title


def compare_deltas(items, runs, title):
    """items: [(label, [(delta_pct, lo_pct, hi_pct, status) or None per run])], runs:
    the labels of the runs compared with the baseline -> horizontal bars, one per run
    and metric (colour: the run), 95 % CI as a line, regressions outlined in red."""
    if not items:
        return None
    nr = len(runs)
    bar_h = 0.8 / nr
    # whole labels, wrapped (never cut: two metrics must not read alike)
    names = [textwrap.fill(i[0], 64, break_on_hyphens=False) for i in items]
    rows_h = sum(max(0.18 + 0.16 * nr, 0.15 * (n.count("\n") + 1)) for n in names)
    fig, ax = _new(11, 1.2 + rows_h)
    ys = np.arange(len(items))[::-1].astype(float)
    for ri, run in enumerate(runs):
        off = (nr - 1) / 2 * bar_h - ri * bar_h
        color = RUN_COLORS[ri % len(RUN_COLORS)] if nr > 1 else "#9c9c9c"
        for y, (_, per) in zip(ys, items):
            v = per[ri] if ri < len(per) else None
            if v is None or v[0] is None:
                continue
            d, lo, hi, st = v
            c = {"regression": "#e15759", "improvement": "#59a14f"}.get(st, color) if nr == 1 else color
            ax.barh(y + off, d, height=bar_h * 0.9, color=c,
                    edgecolor="#d62728" if st == "regression" else "none", lw=1.6 if st == "regression" else 0)
            if lo is not None and hi is not None:
                ax.plot([lo, hi], [y + off, y + off], color="black", lw=0.8)
        if nr > 1:
            ax.barh([np.nan], [0], color=color, label=run)
    if nr > 1:
        ax.barh([np.nan], [0], color="white", edgecolor="#d62728", lw=1.6, label="regression")
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1), fontsize=8, frameon=False)
    ax.axvline(0, color="0.3", lw=0.8)
    ax.set_yticks(ys, names, fontsize=7.5)
    ax.set_ylim(-0.6, len(items) - 0.4)
    ax.set_xlabel("change of the mean vs the baseline (%), line: 95 % bootstrap CI")
    ax.grid(True, axis="x", alpha=0.3)
    _suptitle(fig, title)
    return _render(fig, "compare", "Change per metric")


def history(name, points, unit, better, title):
    """points: [(x_index, label, mean, stddev, kernel, status, kernel_changed)] -> one
    metric over runs; a dotted line where the kernel changed."""
    fig, ax = _new(9, 3.4)
    for p in points:
        if len(p) > 6 and p[6]:
            ax.axvline(p[0] - 0.5, color="0.45", lw=0.8, ls=":", zorder=0)
    kernels = list(OrderedDict.fromkeys(p[4] for p in points))
    un, f = fmt.scale_for(unit, [p[2] for p in points if p[2] is not None])
    for i, k in enumerate(kernels):
        pts = [p for p in points if p[4] == k and p[2] is not None]
        ax.errorbar([p[0] for p in pts], [p[2] / f for p in pts], yerr=[(p[3] or 0) / f for p in pts],
                    fmt="o", ms=5, capsize=3, color=NODE_COLORS[i % len(NODE_COLORS)], label=k)
    reg = [p for p in points if p[5] == "regression"]
    if reg:
        ax.scatter([p[0] for p in reg], [p[2] / f for p in reg], s=160, facecolors="none",
                   edgecolors="#d62728", linewidths=2, label="regression", zorder=5)
    inc = [p for p in points if p[5] == "incomplete" and p[2] is not None]
    if inc:
        ax.scatter([p[0] for p in inc], [p[2] / f for p in inc], marker="x", s=60, color="black",
                   label="incomplete run", zorder=5)
    ax.set_xticks([p[0] for p in points], [p[1] for p in points], rotation=30, ha="right", fontsize=7)
    ax.set_ylabel(f"{un}" + (f" ({better} is better)" if better else ""))
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1), fontsize=8, frameon=False)
    _title(ax, title, 10)
    return _render(fig, "history", f"History of {name}")

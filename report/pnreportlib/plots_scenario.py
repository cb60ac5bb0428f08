"""Figures of the scenario workloads: the exhaustion spill curve and the chunk
fault latency CDFs (`exhaust`), the interleave distribution against the weights
(`interleave`).  They take the models of scenarios.py, never run.json itself."""
import math

import numpy as np

from . import fmt
from .plots import NODE_COLORS, _new, _render, _suptitle, matplotlib

MAX_PANELS = 6


def node_color(node):
    return NODE_COLORS[int(node) % len(NODE_COLORS)]


def _grid(n, w_panel, h_panel, extra_h=0.9):
    """A grid of n panels, two per row; (fig, flat list of the n axes)."""
    ncols = 1 if n == 1 else 2
    nrows = math.ceil(n / ncols)
    width = 9.0 if n == 1 else w_panel * ncols + 1.6
    fig, axes = _new(width, h_panel * nrows + extra_h, nrows=nrows, ncols=ncols, squeeze=False)
    flat = [ax for row in axes for ax in row]
    for ax in flat[n:]:
        ax.set_visible(False)
    return fig, flat[:n]


def _fig_legend(axes, items):
    """items: {label: handle}: one legend right of the top row of panels."""
    if items:
        ax = axes[min(1, len(axes) - 1)]
        ax.legend(list(items.values()), list(items), loc="upper left", bbox_to_anchor=(1.02, 1),
                  fontsize=8, frameon=False)


# ---------------------------------------------------------------- exhaustion
def spill(panels, title):
    """panels: [(label, SpillModel)]: per panel the bytes placed on each node (stacked,
    cumulative) against the bytes requested so far; the spill (first chunk with
    pages off the policy's nodes) marked."""
    panels = panels[:MAX_PANELS]
    if not panels:
        return None
    fig, axes = _grid(len(panels), 5.6, 3.0)
    top = max(m.requested[-1] for _, m in panels)
    uname, f = fmt.scale_for("bytes", [top])
    handles = {}
    for ax, (label, m) in zip(axes, panels):
        x = np.concatenate([[0.0], np.asarray(m.requested, dtype=float)]) / f
        bottom = np.zeros(len(x))
        for node in m.order:
            y = np.concatenate([[0.0], np.cumsum(m.bytes_on(node))]) / f
            off = node not in m.policy_nodes
            h = ax.fill_between(x, bottom, bottom + y, color=node_color(node), lw=0,
                                alpha=0.55 if off else 0.9, hatch="//" if off else None)
            handles.setdefault(f"node {node}" + (" (off the policy)" if off else ""), h)
            bottom = bottom + y
        if m.spill_at is not None:
            ln = ax.axvline(m.spill_at / f, color="black", lw=0.9, ls="--")
            handles.setdefault("spill: first page off the policy", ln)
        ax.set_xlim(0, x[-1])
        ax.set_ylim(0, top / f * 1.05)
        ax.set_xlabel(f"requested so far ({uname})")
        ax.set_ylabel(f"placed ({uname})")
        ax.grid(True, alpha=0.3)
        ax.set_title(label, loc="left", fontsize=9)
    _fig_legend(axes, handles)
    _suptitle(fig, title)
    return _render(fig, "spill", "Exhaustion spill curve")


def latency_cdf(series, title):
    """series: [(label, node-colour index, 'before'|'after', [ns...])]: empirical CDFs,
    one colour per run, solid before the spill and dashed after it."""
    series = [s for s in series if s[3]]
    if not series:
        return None
    fig, ax = _new(9.5, 3.8)
    allv = [v for s in series for v in s[3]]
    uname, f = fmt.scale_for("ns", [float(np.median(allv))])
    for label, ci, stage, vals in series:
        v = np.sort(np.asarray(vals, dtype=float)) / f
        p = np.arange(1, len(v) + 1) / len(v) * 100
        ax.step(v, p, where="post", color=NODE_COLORS[ci % len(NODE_COLORS)], lw=1.3,
                ls="-" if stage == "before" else "--",
                label=f"{label}, {'before' if stage == 'before' else 'after'} the spill (n={len(v)})")
    pos = [v for v in allv if v > 0]
    if pos and max(pos) / min(pos) > 20:
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: fmt.num(float(v))))
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_xlabel(f"time to fault one chunk ({uname}, log scale)")
    else:
        ax.set_xlabel(f"time to fault one chunk ({uname})")
    ax.set_ylabel("chunks (cumulative %)")
    ax.set_ylim(0, 100)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1), fontsize=7.5, frameon=False)
    _suptitle(fig, title)
    return _render(fig, "latency_cdf", "Chunk fault latency CDF")


# ---------------------------------------------------------------- interleave
def interleave(panels, title):
    """panels: [(label, [InterleaveRow])]: expected pages (from the weights) beside
    the pages found on each node, the deviation written over each bar."""
    panels = panels[:MAX_PANELS]
    if not panels:
        return None
    fig, axes = _grid(len(panels), 4.4, 2.9)
    handles = {}
    for ax, (label, rows) in zip(axes, panels):
        xs = np.arange(len(rows))
        exp = np.array([r.expected for r in rows], dtype=float)
        got = np.array([r.placed for r in rows], dtype=float)
        h1 = ax.bar(xs - 0.2, exp, 0.4, color="#bab0ac")
        h2 = ax.bar(xs + 0.2, got, 0.4, color="#4e79a7")
        handles.setdefault("expected from the weights", h1)
        handles.setdefault("found there (move_pages)", h2)
        for i, r in enumerate(rows):
            d = r.placed - r.expected
            ax.text(xs[i] + 0.2, got[i], "exact" if d == 0 else fmt.num(int(d)) if d < 0 else "+" + fmt.num(int(d)),
                    ha="center", va="bottom", fontsize=8, color="#185c18" if d == 0 else "#8a1c12")
        ax.set_xticks(xs, [f"node {r.node}\nweight {r.weight}" for r in rows], fontsize=8)
        ax.set_ylabel("pages")
        ax.set_ylim(0, max(1.0, got.max(initial=0), exp.max(initial=0)) * 1.25)
        ax.grid(True, axis="y", alpha=0.3)
        ax.set_title(label, loc="left", fontsize=9)
    _fig_legend(axes, handles)
    _suptitle(fig, title)
    return _render(fig, "interleave", "Interleave distribution")

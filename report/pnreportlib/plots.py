"""matplotlib figures of a run, each returned as a Figure (PNG bytes + pixel size).

Conventions: titles say what to conclude (computed from the data), units are
human (GiB, µs) and chosen per axis, legends sit outside the data area, and
layout is constrained so labels do not overlap."""
import io
import math
import os
import textwrap
from collections import OrderedDict

import matplotlib
matplotlib.use("Agg")
# names come from run.json (phases, workloads, configs): a '$' in one is text, never
# mathtext (an unbalanced or unknown expression would abort the whole report)
matplotlib.rcParams["text.parse_math"] = False
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.text  # noqa: E402,F401
import matplotlib.ticker  # noqa: E402,F401
import numpy as np  # noqa: E402
from matplotlib.transforms import blended_transform_factory  # noqa: E402

from . import fmt, labels, series  # noqa: E402

DPI = 100           # layout: a figure's size in CSS pixels on the page
PNG_DPI = 150       # the PNG itself (sharper on paper and HiDPI screens; shown at DPI's size)
# vector copies of every figure rendered from now on: ("svg",) for --png-dir, ("svg", "pdf") with --pdf
FORMATS = ()
matplotlib.rcParams["svg.fonttype"] = "none"    # SVG text stays text (searchable, small)
matplotlib.rcParams["svg.hashsalt"] = "pnreport"   # the same figure, the same SVG
matplotlib.rcParams["pdf.fonttype"] = 42
# PNREPORT_CHECK_OVERLAPS=1: every figure also lists its overlapping texts (tests)
CHECK_OVERLAPS = bool(os.environ.get("PNREPORT_CHECK_OVERLAPS"))
INSPECT = None      # tests: fn(matplotlib figure, name), called after the draw, before the close
KIND_COLORS = OrderedDict([
    ("anon", "#4e79a7"), ("file", "#f28e2b"), ("slab", "#59a14f"), ("kernel_stack", "#b07aa1"),
    ("page_tables", "#edc948"), ("hugetlb", "#76b7b2"), ("other", "#9c9c9c")])
PHASE_SHADES = ["#e8eef7", "#fdf0e1", "#e6f2e3", "#f3e8f1", "#fbf6dc", "#e3f1f0", "#efefef"]
RUN_COLORS = ["#4e79a7", "#f28e2b", "#76b7b2", "#b07aa1", "#edc948", "#9c755f"]   # no red, no green
NODE_COLORS = ["#4e79a7", "#e15759", "#59a14f", "#f28e2b", "#b07aa1", "#76b7b2", "#edc948"]


class Figure:
    """name: id in the page; title: what it shows; conclusion: its headline (the
    text drawn as its title, repeated as the <img> alt text).  png: PNG_DPI
    bytes; width, height: its size on the page (CSS pixels, at DPI); vector:
    {"svg": bytes, "pdf": bytes} for the FORMATS asked when it was drawn."""

    def __init__(self, name, title, png, width, height, conclusion=None):
        self.name, self.title, self.png, self.width, self.height = name, title, png, width, height
        self.conclusion = conclusion or title
        self.vector = {}


def _drawn_texts(fig):
    """The texts a draw put on the canvas: tick labels of the ticks in view, titles,
    axis labels, annotations, legend entries, figure titles."""
    out = list(fig.texts)
    if getattr(fig, "_suptitle", None) is not None:
        out.append(fig._suptitle)
    for ax in fig.axes:
        if not ax.get_visible() or not ax.axison and not ax.texts:
            continue
        if ax.axison:
            for axis in (ax.xaxis, ax.yaxis):
                for tick in axis._update_ticks():
                    out += [tick.label1, tick.label2]
                out.append(axis.label)
        out += [ax.title, ax._left_title, ax._right_title] + list(ax.texts)
        leg = ax.get_legend()
        if leg is not None:
            out += list(leg.get_texts())
    return out


def text_overlaps(fig):
    """Pairs of drawn, visible, non-empty texts whose boxes overlap (after a draw), and
    texts cut by the figure's edge."""
    r = fig.canvas.get_renderer()
    boxes, seen = [], set()
    for t in _drawn_texts(fig):
        if id(t) in seen or not t.get_visible() or not t.get_text().strip():
            continue
        seen.add(id(t))
        bb = t.get_window_extent(r)
        if bb.width <= 0 or bb.height <= 0:
            continue
        boxes.append((t.get_text(), bb.shrunk(0.98, 0.9)))
    W, H = fig.canvas.get_width_height()
    out = [(t, "the figure's edge") for t, bb in boxes
           if bb.x0 < -1 or bb.y0 < -1 or bb.x1 > W + 1 or bb.y1 > H + 1]
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            if boxes[i][1].overlaps(boxes[j][1]):
                out.append((boxes[i][0], boxes[j][0]))
    return out


def _render(fig, name, title):
    sup = fig._suptitle.get_text() if getattr(fig, "_suptitle", None) else ""
    heads = [sup] + [ax.get_title(loc="left") for ax in fig.axes]
    conclusion = next((h for h in heads if h), title)
    buf = io.BytesIO()
    # one layout pass before the saved one: constrained layout starts from the
    # margins of the last draw, and a figure drawn while still empty (nodes()
    # measures its strip) left the y label cut at the edge in about half the runs
    fig.canvas.draw()
    fig.savefig(buf, format="png", dpi=PNG_DPI, metadata={"Software": None})
    vector = {}
    for f in FORMATS:
        vb = io.BytesIO()
        fig.savefig(vb, format=f, metadata={"Date": None} if f == "svg" else {"CreationDate": None})
        vector[f] = vb.getvalue()
    w, h = fig.canvas.get_width_height()      # savefig put the figure back at DPI
    if CHECK_OVERLAPS or INSPECT:
        fig.canvas.draw()                     # texts where the page's size puts them
    overlaps = text_overlaps(fig) if CHECK_OVERLAPS else None
    if INSPECT:
        INSPECT(fig, name)
    plt.close(fig)
    out = Figure(name, title, buf.getvalue(), int(w), int(h), conclusion)
    out.vector = vector
    out.overlaps = overlaps
    return out


def _new(w, h, **kw):
    return plt.subplots(figsize=(w, h), dpi=DPI, layout="constrained", **kw)


def _suptitle(fig, text, size=11):
    """A left-aligned figure title wrapped to the figure's width."""
    per_line = max(20, int(fig.get_figwidth() * 72 / (size * 0.58)))
    fig.suptitle(textwrap.fill(text, per_line), fontsize=size, x=0.01, ha="left")


def _title(ax, text, size=11):
    """A left-aligned title wrapped to fit (never clipped): a figure title for a
    one-axes figure (its y labels push the axes right), else the axes' own."""
    if len(ax.figure.axes) == 1:
        return _suptitle(ax.figure, text, size)
    width_in = ax.figure.get_figwidth() * 0.8
    per_line = max(20, int(width_in * 72 / (size * 0.58)))
    ax.set_title(textwrap.fill(text, per_line), loc="left", fontsize=size)


# ---------------------------------------------------------------- nodes over time
MEMINFO_KINDS = [("anon", "AnonPages"), ("file", "FilePages"), ("slab", "Slab"),
                 ("kernel_stack", "KernelStack"), ("page_tables", "PageTables")]


NODE_KEYS = {k for _, k in MEMINFO_KINDS} | {"MemUsed", "MemTotal", "MemFree", "HugePages_Total",
                                             "HugePages_Free", "Hugepagesize"}


def node_column(name):
    """The nodestat columns nodes_over_time reads (read_series keeps only these)."""
    head, _, rest = name.partition(".meminfo.")
    return head.startswith("node") and rest in NODE_KEYS


def node_kinds(ser, node):
    """{kind: np.array bytes} for a node from nodestat columns; 'other' closes the sum
    to MemUsed so the stack adds up to used memory at every sample."""
    pre = f"node{node}.meminfo."

    def col(key):
        return ser.col(pre + key)
    used = col("MemUsed")
    if used is None:
        tot, free = col("MemTotal"), col("MemFree")
        if tot is None or free is None:
            return None, None
        used = tot - free
    out = OrderedDict()
    acc = np.zeros(len(ser))
    for kind, key in MEMINFO_KINDS:
        s = col(key)
        if s is not None:
            out[kind] = s
            acc += s
    ht, hf = col("HugePages_Total"), col("HugePages_Free")
    if ht is not None and hf is not None:
        hp = col("Hugepagesize")
        out["hugetlb"] = (ht - hf) * (hp if hp is not None else 2 << 20)
        acc += out["hugetlb"]
    out["other"] = used - acc
    return out, used


def pick_iterations(run, ser, limit):
    """The iterations to draw when there are more than `limit`: the first limit-1 and
    the one with the most general pages on private nodes.  (chosen set, note)."""
    its = [int(i) for i in np.unique(ser.iteration)]
    if len(its) <= limit:
        return set(its), ""
    worst, worst_pages = None, 0
    for g, it, ph in run.global_phases():
        pages = sum(((nd.get("general_pages") or {}).get("total") or 0)
                    for nd in (ph.get("nodes") or {}).values() if nd.get("role") == "private")
        if pages > worst_pages:
            worst, worst_pages = g, pages
    extra = worst if worst in its and worst not in its[:limit - 1] else its[limit - 1]
    chosen = set(its[:limit - 1]) | {extra}
    note = (f"Iterations {', '.join(map(str, sorted(chosen)))} of {len(its)} shown"
            + (f" ({worst}: the most general pages on private nodes)." if worst in chosen and
               worst not in its[:limit - 1] else "."))
    return chosen, note


def iteration_names(run):
    """{global iteration: 'iteration I' or, with matrix points, 'point P it. I'}."""
    pts = run.doc.get("points") or []
    out, g = {}, 0
    for p in pts:
        for it in p.get("iterations") or []:
            ml = labels.matrix_label(p.get("matrix"))
            pl = ml if ml and len(ml) <= 32 else f"point {p.get('index')}"
            out[g] = f"{pl} it. {it.get('index')}" if len(pts) > 1 else f"iteration {it.get('index')}"
            g += 1
    return out


def nodes_over_time(run, ser, conclusions, max_iterations=6):
    """Per node: memory change since the start of each phase, stacked by kind (positive
    kinds up, negative down), used memory as a line; drawn as steps from each sample
    (no interpolation between samples, markers on a sparse series); phases shaded over their real
    time spans (run.json t0_ns/t1_ns) and named in a strip above; legends below.
    At most max_iterations iterations are drawn (see pick_iterations); a long series
    is drawn decimated (series.decimate: peaks kept).  ser: series.Series of nodestat
    with the node_column columns."""
    chosen, note = pick_iterations(run, ser, max_iterations)
    ser = ser.take(np.isin(ser.iteration, sorted(chosen)))
    header = ser.header
    nodes = sorted({int(h.split(".")[0][4:]) for h in header[3:]
                    if h.startswith("node") and ".meminfo.MemUsed" in h}
                   or {int(h.split(".")[0][4:]) for h in header[3:] if h.startswith("node")})
    if not len(ser) or not nodes:
        return None
    private = set(run.private_nodes())
    t = ser.t_ns.astype(float)
    tz = t[0]
    x = (t - tz) / 1e9
    segs = ser.segments()
    first = np.repeat([a for _, _, a, _ in segs], [b - a for _, _, a, b in segs])
    # real spans of the phases from run.json, by (global iteration, phase name)
    spans = OrderedDict()
    for g, it, ph in run.global_phases():
        if g in chosen and ph.get("t0_ns") is not None and ph.get("t1_ns") is not None:
            spans[(g, ph["name"])] = ((ph["t0_ns"] - tz) / 1e9, (ph["t1_ns"] - tz) / 1e9)
    for it_i, ph_n, a, b in segs:
        spans.setdefault((it_i, ph_n), (x[a], x[b - 1]))
    phase_names = list(OrderedDict.fromkeys(n for _, n in spans))
    it_names = iteration_names(run)
    shade = {n: PHASE_SHADES[i % len(PHASE_SHADES)] for i, n in enumerate(phase_names)}

    n = len(nodes)
    fig = plt.figure(figsize=(12, 1.0 + 2.4 * n + 0.9), dpi=DPI, layout="constrained")
    gs = fig.add_gridspec(n + 1, 1, height_ratios=[0.35] + [2.4] * n)
    strip = fig.add_subplot(gs[0])
    axes = [fig.add_subplot(gs[i + 1], sharex=strip) for i in range(n)]
    xmax = max(x[-1], max(b for _, b in spans.values()))
    strip.set_xlim(0, xmax)
    strip.set_ylim(0, 1)
    strip.axis("off")
    fig.canvas.draw()
    px_per_s = strip.get_window_extent().width / max(xmax, 1e-9)
    last_it = None
    for (it_i, name), (a, b) in spans.items():
        strip.axvspan(a, b, color=shade[name], lw=0)
        w_px = (b - a) * px_per_s
        if w_px > 7.5 * len(name) + 6:
            strip.text((a + b) / 2, 0.5, name, ha="center", va="center", fontsize=8)
        elif w_px > 14:
            strip.text((a + b) / 2, 0.5, name[:max(1, int(w_px / 8) - 1)] + "…" if len(name) > 1 else name,
                       ha="center", va="center", fontsize=7)
        if it_i != last_it:
            strip.axvline(a, color="0.3", lw=0.8, ls="--")
            strip.text(a, 1.02, it_names.get(it_i, f"iteration {it_i}"), fontsize=7, va="bottom", ha="left",
                       transform=blended_transform_factory(strip.transData, strip.transAxes))
            last_it = it_i
    strip.set_title("Memory per node: change since each phase start, stacked by kind",
                    loc="left", fontsize=11, pad=14)

    kind_handles = OrderedDict()
    for ax, node in zip(axes, nodes):
        kinds, used = node_kinds(ser, node)
        if kinds is None:
            ax.text(0.5, 0.5, f"node {node}: no meminfo columns", transform=ax.transAxes, ha="center")
            continue
        # deltas from each segment's first sample
        deltas = {k: v - v[first] for k, v in kinds.items()}
        dused = used - used[first]
        top = max(float(np.nanmax(np.abs(v), initial=0)) for v in list(deltas.values()) + [dused])
        uname, f = fmt.scale_for("bytes", [top])
        if f == 1:
            uname, f = "KiB", 1024.0
        for (it_i, name), (a, b) in spans.items():
            ax.axvspan(a, b, color=shade[name], lw=0, zorder=0)
        # all segments in one polygon set per kind: NaN rows between segments are gaps;
        # at most a few rows per pixel column, each series' extremes among them
        kept = series.decimate(x, segs, list(deltas.values()) + [dused], int(ax.get_window_extent().width))
        cut = np.searchsorted(kept, [b for _, _, _, b in segs])
        idx = np.concatenate([np.append(part, -1) for part in np.split(kept, cut[:-1])])
        gap = idx < 0
        xs = np.where(gap, np.nan, x[idx])
        pos = np.zeros(len(idx))
        neg = np.zeros(len(idx))
        for k, d in deltas.items():
            d = np.where(gap, np.nan, d[idx] / f)
            p, q = np.clip(d, 0, None), np.clip(d, None, 0)
            if np.nanmax(np.abs(p), initial=0) > 0:
                h = ax.fill_between(xs, pos, pos + p, color=KIND_COLORS[k], lw=0, zorder=2, step="post")
                kind_handles.setdefault(k, h)
                pos = np.where(gap, 0, pos + np.nan_to_num(p))
            if np.nanmax(np.abs(q), initial=0) > 0:
                h = ax.fill_between(xs, neg, neg + q, color=KIND_COLORS[k], lw=0, alpha=0.55, zorder=2,
                                    step="post")
                kind_handles.setdefault(k, h)
                neg = np.where(gap, 0, neg + np.nan_to_num(q))
        # steps, never ramps: a reading holds until the next sample (nothing was measured
        # between two), and a sparse series shows where its samples are
        sparse = len(idx) < ax.get_window_extent().width / 6
        (ln,) = ax.plot(xs, np.where(gap, np.nan, dused[idx] / f), color="black", lw=0.9, zorder=3,
                        drawstyle="steps-post", marker="o" if sparse else None, ms=2.5)
        kind_handles.setdefault("used (MemUsed)", ln)
        ax.axhline(0, color="0.4", lw=0.6, zorder=1)
        # general allocations of each phase from run.json: too small to see on an axis
        # that also holds GiB of explicit pages, so they are written where they happened
        if node in private:
            ps = run.doc.get("host", {}).get("page_size", 4096)
            row_end = [-1e9, -1e9, -1e9]
            ax_px = ax.get_window_extent().width / max(xmax, 1e-9)
            for gi, it, ph in run.global_phases():
                g = ((ph.get("nodes") or {}).get(str(node)) or {}).get("general_pages") or {}
                span = spans.get((gi, ph.get("name")))
                if not g.get("total") or not span:
                    continue
                label = f"+{fmt.value(g['total'] * ps, 'bytes')} general"
                half = (6.2 * len(label) + 8) / 2
                xc = (span[0] + span[1]) / 2 * ax_px
                slot = next((i for i, e in enumerate(row_end) if xc - half >= e), None)
                if slot is None:
                    continue
                row_end[slot] = xc + half
                ax.annotate(label, xy=((span[0] + span[1]) / 2, 1.0), xycoords=("data", "axes fraction"),
                            xytext=(0, -2 - 10 * slot), textcoords="offset points", ha="center", va="top", fontsize=7,
                            color="#8a1c12", fontweight="bold", zorder=6)
                ax.axvspan(span[0], span[1], ymin=0.92, ymax=1.0, color="#e15759", alpha=0.35, lw=0, zorder=1)
        role = "private" if node in private else ("DRAM" if node in run.dram_nodes() else "other")
        ax.set_title(conclusions.get(node, f"node {node} ({role})"), loc="left", fontsize=10,
                     color="#8a1c12" if node in private and "general" in conclusions.get(node, "")
                     and "no general" not in conclusions.get(node, "") else "black")
        ax.set_ylabel(f"Δ {uname}")
        ax.grid(True, axis="y", alpha=0.3)
        if ax is not axes[-1]:
            plt.setp(ax.get_xticklabels(), visible=False)
    axes[-1].set_xlabel("seconds since the first sample")
    order = [k for k in list(KIND_COLORS) + ["used (MemUsed)"] if k in kind_handles]
    handles = [kind_handles[k] for k in order] + [
        matplotlib.patches.Patch(color=shade[p]) for p in phase_names]
    labels = [k.replace("_", " ") for k in order] + [f"phase {p}" for p in phase_names]
    axes[-1].legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.28),
                    ncol=min(8, len(labels)), fontsize=8, frameon=False)
    out = _render(fig, "nodes", "Memory per node over time")
    out.note = note
    return out


# ---------------------------------------------------------------- isolation
def isolation(run, by_phase, title):
    """by_phase: {node: {phase: {kind: pages}}} (worst iteration per phase)."""
    nodes = sorted(by_phase)
    if not nodes:
        return None
    phases = list(OrderedDict.fromkeys(p for n in nodes for p in by_phase[n]))
    fig, axes = _new(max(6, 1.6 + 1.05 * len(phases) * len(nodes)), 3.8, ncols=len(nodes),
                     sharey=True, squeeze=False)
    ymax = 0
    for ax, node in zip(axes[0], nodes):
        bottom = np.zeros(len(phases))
        for k, c in KIND_COLORS.items():
            v = np.array([by_phase[node].get(p, {}).get(k, 0) for p in phases], dtype=float)
            if np.any(v):
                ax.bar(range(len(phases)), v, bottom=bottom, color=c, label=k.replace("_", " "))
            bottom += v
        ymax = max(ymax, bottom.max() if bottom.size else 0)
        for i, tot in enumerate(bottom):
            ax.text(i, tot, fmt.num(int(tot)), ha="center", va="bottom", fontsize=8,
                    color="#8a1c12" if tot else "#185c18")
        if not bottom.any():
            ax.text(0.5, 0.55, "0 general pages in every phase", transform=ax.transAxes, ha="center",
                    va="center", fontsize=10, color="#185c18")
        ax.set_xticks(range(len(phases)), [p.replace("_", "_\n") if len(p) > 12 else p for p in phases],
                      fontsize=8)
        ax.set_title(f"private node {node}", fontsize=10, loc="left")
        ax.grid(True, axis="y", alpha=0.3)
    axes[0][0].set_ylabel("general pages, node counters\n(worst iteration)")
    axes[0][0].set_ylim(0, max(1, ymax) * 1.18)
    h, l_ = [], []
    for ax in axes[0]:
        for hh, ll in zip(*ax.get_legend_handles_labels()):
            if ll not in l_:
                h.append(hh)
                l_.append(ll)
    if h:
        axes[0][-1].legend(h, l_, loc="upper left", bbox_to_anchor=(1.02, 1), fontsize=8, frameon=False)
    _suptitle(fig, title)
    return _render(fig, "isolation", "General pages on private nodes")


# ---------------------------------------------------------------- latency matrix
def _heat(ax, fig, mat, rows_l, cols_l, cell_text, cbar_label, cmap):
    m = np.ma.masked_invalid(mat)
    im = ax.imshow(m, cmap=cmap, aspect="auto")
    ax.set_xticks(range(len(cols_l)), [f"node {c}" for c in cols_l], fontsize=8)
    ax.set_yticks(range(len(rows_l)), [f"node {r}" for r in rows_l], fontsize=8)
    ax.set_xlabel("target (memory)")
    ax.set_ylabel("initiator (CPUs)")
    for i in range(mat.shape[0]):
        for j in range(mat.shape[1]):
            if cell_text[i][j]:
                v = mat[i, j]
                r, g, b, _ = im.cmap(im.norm(v)) if math.isfinite(v) else (1, 1, 1, 1)
                dark = 0.299 * r + 0.587 * g + 0.114 * b < 0.5
                ax.text(j, i, cell_text[i][j], ha="center", va="center", fontsize=8,
                        color="white" if dark else "black")
    fig.colorbar(im, ax=ax, label=cbar_label, shrink=0.9)


def latency_matrix(lat, bw, title):
    """lat: {(src, dst): (measured_ns, declared_ns|None)}; bw: {(src, dst): (bytes/s, declared|None)}."""
    panels = [p for p in (("lat", lat), ("bw", bw)) if p[1]]
    if not panels:
        return None
    nsrc = max(len({s for s, _ in d}) for _, d in panels)
    fig, axes = _new(5.2 * len(panels) + 0.6, 1.9 + 0.75 * nsrc, ncols=len(panels), squeeze=False)
    for ax, (kind, d) in zip(axes[0], panels):
        srcs = sorted({s for s, _ in d}, key=lambda v: int(v))
        dsts = sorted({t for _, t in d}, key=lambda v: int(v))
        mat = np.full((len(srcs), len(dsts)), np.nan)
        txt = [["" for _ in dsts] for _ in srcs]
        if kind == "lat":
            un, f = fmt.scale_for("ns", [v[0] for v in d.values()])
        else:
            un, f = fmt.scale_for("bytes/s", [v[0] for v in d.values()])
        for (s, t), (meas, decl) in d.items():
            i, j = srcs.index(s), dsts.index(t)
            mat[i, j] = meas / f
            txt[i][j] = f"{fmt.num(meas / f)}"
            if decl:
                txt[i][j] += f"\nHMAT {fmt.num(decl / f)}\n×{meas / decl:.2f}"
        _heat(ax, fig, mat, srcs, dsts, txt, f"measured ({un})",
              "YlOrRd" if kind == "lat" else "YlGnBu")
        ax.set_title(("idle latency" if kind == "lat" else "peak bandwidth") + f" ({un})",
                     fontsize=10, loc="left")
    _suptitle(fig, title)
    return _render(fig, "latency-matrix", "Latency and bandwidth against HMAT")


def loaded_latency(rows, cols, title):
    """Latency against the load's bandwidth, one line per group.  Columns: x one of
    bandwidth (bytes/s), load_gbps/gbps (1e9 B/s); y one of latency_ns, latency_median
    (ns); groups by initiator/target/load_kernel/threads where present."""
    ci = {c: i for i, c in enumerate(cols)}
    bwc = next((c for c in ("bandwidth", "load_gbps", "gbps") if c in ci), None)
    latc = next((c for c in ("latency_ns", "latency_median") if c in ci), None) or \
        next((c for c in cols if c.endswith("_ns")), None)
    if bwc is None or latc is None:
        return None
    scale = 1e9 if "gbps" in bwc else 1.0
    grp = [c for c in ("initiator", "target", "load_kernel", "threads") if c in ci]
    groups = OrderedDict()
    for r in rows:
        x, y = r[ci[bwc]], r[ci[latc]]
        if not isinstance(x, (int, float)) or not isinstance(y, (int, float)):
            continue
        key = tuple(r[ci[c]] for c in grp)
        groups.setdefault(key, []).append((x * scale, y))
    if not groups:
        return None
    allx = [p[0] for g in groups.values() for p in g]
    ally = [p[1] for g in groups.values() for p in g]
    bun, bf = fmt.scale_for("bytes/s", allx)
    lun, lf = fmt.scale_for("ns", ally)
    fig, ax = _new(8, 3.6)

    def label(key):
        d = dict(zip(grp, key))
        parts = []
        if "initiator" in d and "target" in d:
            parts.append(f"{d['initiator']}→{d['target']}")
        if "load_kernel" in d:
            parts.append(str(d["load_kernel"]))
        if "threads" in d:
            parts.append(f"{d['threads']} thread" + ("" if str(d["threads"]) == "1" else "s"))
        return " ".join(parts) or None
    for i, (g, pts) in enumerate(groups.items()):
        pts.sort()
        ax.plot([p[0] / bf for p in pts], [p[1] / lf for p in pts], marker="o", ms=3,
                color=NODE_COLORS[i % len(NODE_COLORS)], label=label(g))
    ax.set_xlabel(f"load bandwidth ({bun})")
    ax.set_ylabel(f"latency ({lun})")
    ax.grid(True, alpha=0.3)
    if grp:
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1), fontsize=8, frameon=False)
    _title(ax, title, 11)
    return _render(fig, "loaded-latency", "Loaded latency")


# ---------------------------------------------------------------- demo truth table
def truth_table(scen, cells, grid, title):
    """grid[i][j] = (text, pass|None) for scenario i, cell j."""
    fig, ax = _new(1.8 + 1.55 * len(cells), 0.9 + 0.48 * len(scen))
    mat = np.array([[1.0 if g[1] else (0.0 if g[1] is False else 0.5) for g in row] for row in grid])
    cmap = matplotlib.colors.ListedColormap(["#f4b6ae", "#eeeeee", "#b9e0b2"])
    ax.imshow(mat, cmap=cmap, vmin=0, vmax=1, aspect="auto")
    for i, row in enumerate(grid):
        for j, (text, ok) in enumerate(row):
            ax.text(j, i, ("" if ok else "✗ ") + _wrap(text, 20), ha="center", va="center", fontsize=7.5)
    ax.set_xticks(range(len(cells)), cells, fontsize=8)
    ax.xaxis.tick_top()
    ax.set_yticks(range(len(scen)), scen, fontsize=8)
    ax.set_xticks(np.arange(-0.5, len(cells)), minor=True)
    ax.set_yticks(np.arange(-0.5, len(scen)), minor=True)
    ax.grid(which="minor", color="white", lw=2)
    ax.tick_params(which="both", length=0)
    _suptitle(fig, title)
    return _render(fig, "truth-table", "Demo truth table")


def _wrap(s, width):
    words, lines, cur = str(s).split(), [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}".strip()
    lines.append(cur)
    return "\n".join(lines[:3])

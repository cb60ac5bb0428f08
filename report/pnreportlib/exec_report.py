"""Where an --exec command's pages went, and who put general pages on the
private nodes: the numastat-like placement table (per node: the command's
peak and last pages, anon, numa_maps' count, and what else the node's counters
saw grow) and the event collector's attribution (per private node: by kind,
by process, the first examples, page_owner's top stacks).  Both as text
(`pnreport summary`, -v for more rows) and as sections of the run page.

Read from run.json only: phases[].exec (core/runner/exec.c) and
phases[].events.perf.details.private_nodes (collectors/perf/pgacct_report.c,
pgowner.c).  Over iterations and phases a column shows its worst reading."""
import shlex
from collections import OrderedDict

from . import fmt

PLACEMENT_COLS = ("peak_pages_per_node", "last_pages_per_node", "last_anon_pages_per_node",
                  "numa_maps_pages_per_node")
PLACEMENT_HEAD = ("node", "role", "peak", "last", "last anon", "numa_maps", "node general (counters)")


def _role(run, node):
    return "private" if node in run.private_nodes() else "DRAM" if node in run.dram_nodes() else "–"


def _cmd(argv):
    return shlex.join(str(c) for c in argv) if argv else "?"


def exec_phases(run):
    """[(iteration, phase)] of the phases that ran the --exec command."""
    return [(it, ph) for _, it, ph in run.phases() if isinstance(ph.get("exec"), dict)]


def placement(run):
    """{node: {column: worst pages}} over every exec phase, plus each node's
    general pages by the counters ("node general", private nodes only), and
    the number of exec phases read."""
    out, phases = OrderedDict(), exec_phases(run)
    for _, ph in phases:
        ex = ph["exec"]
        for col in PLACEMENT_COLS:
            for node, pages in (ex.get(col) or {}).items():
                cur = out.setdefault(int(node), {})
                if isinstance(pages, (int, float)):
                    cur[col] = max(cur.get(col, 0), pages)
        for node, nd in (ph.get("nodes") or {}).items():
            if nd.get("role") == "private":
                g = (nd.get("general_pages") or {}).get("total")
                cur = out.setdefault(int(node), {})
                if isinstance(g, (int, float)):
                    cur["general"] = max(cur.get("general", 0), g)
    return OrderedDict(sorted(out.items())), len(phases)


def placement_rows(run):
    rows, n = placement(run)
    return [[f"node {node}", _role(run, node)] + [fmt.num(c.get(k)) for k in PLACEMENT_COLS]
            + [fmt.num(c.get("general")) if _role(run, node) == "private" else "–"]
            for node, c in rows.items()], n


def attribution(run):
    """{node: (phase name, iteration index, details)}: per private node the exec
    or workload phase whose events saw the most general allocations."""
    best = {}
    for _, it, ph in run.phases():
        det = (((ph.get("events") or {}).get("perf") or {}).get("details") or {})
        for pn in det.get("private_nodes") or []:
            node = pn.get("node")
            if node is None:
                continue
            if node not in best or (pn.get("general_alloc_pages") or 0) > (best[node][2].get("general_alloc_pages") or 0):
                best[node] = (ph.get("name"), it.get("index"), pn)
    return OrderedDict(sorted(best.items()))


def _top(rows, key):
    """Largest first (run.json keeps the collector's order)."""
    return sorted((r for r in rows or [] if isinstance(r, dict)), key=lambda r: -(r.get(key) or 0))


def kind_rows(pn, limit):
    return [[k.get("class") or "–", k.get("gfp") or k.get("gfp_raw") or "–", fmt.num(k.get("order")),
             fmt.num(k.get("migratetype")), fmt.num(k.get("pages"))]
            for k in _top(pn.get("by_kind"), "pages")[:limit]]


def process_rows(pn, limit):
    return [[f"{p.get('comm') or '?'}[{p.get('pid')}]", fmt.num(p.get("general_pages")),
             fmt.num(p.get("explicit_pages")), fmt.num(p.get("freed_pages"))]
            for p in _top(pn.get("by_process"), "general_pages")[:limit]]


def example_rows(pn, limit):
    return [[f"{e.get('comm') or '?'}[{e.get('pid')}]", f"cpu {e.get('cpu')}", e.get("gfp") or "–",
             f"order {e.get('order')}", f"pfn {e.get('pfn')}"]
            for e in (pn.get("examples") or [])[:limit]]


def stack_rows(pn, limit, frames):
    po = pn.get("page_owner") or {}
    return [[fmt.num(s.get("pages")), f"{s.get('first_comm') or '?'}[{s.get('first_pid')}]", s.get("gfp") or "–",
             " < ".join((s.get("stack") or [])[:frames]) or "–"]
            for s in _top(po.get("top_stacks"), "pages")[:limit]]


def node_headline(node, phase, it, pn):
    return (f"private node {node} (phase {phase}, iteration {it}): "
            f"{fmt.value(pn.get('general_alloc_pages'), 'pages')} of general allocations seen by the events, "
            f"{fmt.value(pn.get('general_freed_pages'), 'pages')} freed again, "
            f"{fmt.value(pn.get('general_pages'), 'pages')} held at the end")


# ---- text (pnreport summary)
def _text_table(head, rows, indent="    "):
    w = [max(len(str(r[i])) for r in rows + [list(head)]) for i in range(len(head))]
    num = [i > 0 and all(_numeric(str(r[i])) for r in rows) for i in range(len(head))]
    line = lambda r: indent + "  ".join(str(c).rjust(w[i]) if num[i] else str(c).ljust(w[i])  # noqa: E731
                                        for i, c in enumerate(r)).rstrip()
    return [line(head)] + [line(r) for r in rows]


def _numeric(c):
    return c in ("–", "-") or (bool(c) and c[0].isdigit() and " " not in c)


def text(run, verbose=False):
    """Lines for `pnreport summary`: placement, then attribution."""
    out = []
    rows, n = placement_rows(run)
    cmd = run.doc.get("exec_command")
    if n:
        out.append(f"exec: {_cmd(cmd)}: pages per node (worst of {n} phase(s))")
        out += _text_table(PLACEMENT_HEAD, rows)
    lim = 10 if verbose else 3
    for node, (phase, it, pn) in attribution(run).items():
        out.append(node_headline(node, phase, it, pn))
        for title, head, rs in (
                ("by kind", ("class", "gfp", "order", "migratetype", "pages"), kind_rows(pn, lim)),
                ("by process", ("process", "general", "explicit", "freed"), process_rows(pn, lim)),
                ("first examples", ("process", "cpu", "gfp", "order", "pfn"), example_rows(pn, lim)),
                ("page_owner top stacks", ("pages", "first", "gfp", "stack"), stack_rows(pn, lim, 8 if verbose else 3))):
            if rs:
                out.append(f"  {title}:")
                out += _text_table(head, rs)
        skipped = (pn.get("page_owner") or {}).get("skipped")
        if skipped and verbose:
            out.append(f"  page_owner: {skipped}")
    return out


# ---- HTML (the run page)
def section(page, run):
    rows, n = placement_rows(run)
    att = attribution(run)
    if not n and not att:
        return
    if n:
        cmd = run.doc.get("exec_command") or []
        page.h(2, "Where the command's pages went (--exec)", "exec")
        page.p(f"Command: {_cmd(cmd)}. Pages of the command and its children per node, "
               f"the worst reading of {n} phase(s): peak and last by the pagemap census, last anon, "
               "numa_maps' count at exit (a cross-check), and the node's general pages by its counters "
               "(what else grew on a private node).", "small")
        page.table(list(PLACEMENT_HEAD), rows, num_cols=(2, 3, 4, 5, 6),
                   cell_class=lambda r, c, v: "fail" if c == 6 and v not in ("0", "–") else None)
    if att:
        page.h(2, "Attribution: who put general pages on the private nodes (events)", "attribution")
        for node, (phase, it, pn) in att.items():
            _section_node(page, node, phase, it, pn)


def _section_node(page, node, phase, it, pn):
    page.h(3, node_headline(node, phase, it, pn))
    for title, head, rs, nums in (
            ("By kind (gfp flags, order, migratetype)", ["class", "gfp", "order", "migratetype", "pages"],
             kind_rows(pn, 10), (2, 3, 4)),
            ("By process", ["process", "general pages", "explicit pages", "freed"], process_rows(pn, 10), (1, 2, 3)),
            ("First examples", ["process", "cpu", "gfp", "order", "pfn"], example_rows(pn, 8), ()),
            ("page_owner: top stacks", ["pages", "first allocation by", "gfp", "stack (innermost first)"],
             stack_rows(pn, 5, 12), (0,))):
        if rs:
            page.p(title, "small")
            page.table(head, rs, num_cols=nums)
    skipped = (pn.get("page_owner") or {}).get("skipped")
    if skipped:
        page.p(f"page_owner: {skipped}.", "small")
